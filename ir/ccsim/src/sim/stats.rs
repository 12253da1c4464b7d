//! Measurements: the time series (sampled every `sample_every`) and the figures of `summary.json`.
//!
//! Definitions (docs/cc-sim.md repeats them):
//! - the measurement window is `[measure_from, duration]`;
//! - bottleneck utilisation: wire bytes the bottleneck port finished sending in the window, over
//!   what its rate could send in the window;
//! - a flow's window throughput: payload bytes delivered in order in the window, over its length;
//! - Jain's fairness index over the window throughputs of the flows active for the whole window
//!   (started by its start, not finished before its end): (Σx)² / (n·Σx²);
//! - queue average: the bottleneck queue depth (bytes) averaged over time in the window (exact);
//!   p99: of the samples in the window; max: the largest depth any enqueue made, over the run;
//! - a flow's average rate (or window): the mean of the controller's output over the samples at
//!   which the flow was active; final: its output at the end;
//! - FCT: from the flow's start to the arrival of its last byte at the receiver; its slowdown is
//!   the FCT over the ideal one ([`crate::ideal`]).
//!
//! The samples are also kept as numbers ([`TimeSeries`]) for the plots.

use crate::fabric::Fabric;
use crate::scenario::Scenario;
use crate::sim::host::Receiver;
use crate::sim::Simulation;
use std::fmt::Write;

/// The time series the plots draw: what `rates.csv` and `queue.csv` hold, as numbers.
#[derive(Clone, Debug, Default)]
pub struct TimeSeries {
    /// Per flow, `(time in us, controller output)` at the samples where the flow was active
    /// (started, not complete): the rate in Gb/s, or the window in bytes.
    pub flows: Vec<Vec<(f64, f64)>>,
    /// `(time in us, bottleneck queue in bytes)` at every sample.
    pub queue: Vec<(f64, u64)>,
    /// The bottleneck's marking thresholds (Kmin, Kmax) in bytes, when ECN marking is on.
    pub ecn_thresholds: Option<(u64, u64)>,
}

/// Accumulated measurements.
pub struct Stats {
    rate_output: bool,
    measure_from: u64,
    delivered: Vec<u64>,
    delivered_at_window: Vec<u64>,
    delivered_at_sample: Vec<u64>,
    output_sum: Vec<f64>,
    output_samples: Vec<u64>,
    queue_area: u128,
    queue_last: u64,
    bottleneck_window_bytes: u64,
    queue_samples: Vec<u64>,
    /// The samples, as numbers, for the plots.
    pub series: TimeSeries,
    /// `rates.csv`.
    pub rates_csv: String,
    /// `queue.csv`.
    pub queue_csv: String,
}

impl Stats {
    /// Empty measurements for `scenario`.
    pub fn new(scenario: &Scenario, rate_output: bool) -> Stats {
        let n = scenario.flows.len();
        let mut rates_csv = String::from("time_us");
        for i in 0..n {
            if rate_output {
                let _ = write!(rates_csv, ",flow{i}_rate_gbps");
            } else {
                let _ = write!(rates_csv, ",flow{i}_window_bytes");
            }
            let _ = write!(rates_csv, ",flow{i}_throughput_gbps");
        }
        rates_csv.push('\n');
        Stats {
            rate_output,
            measure_from: scenario.measure_from,
            delivered: vec![0; n],
            delivered_at_window: vec![0; n],
            delivered_at_sample: vec![0; n],
            output_sum: vec![0.0; n],
            output_samples: vec![0; n],
            queue_area: 0,
            queue_last: 0,
            bottleneck_window_bytes: 0,
            queue_samples: Vec::new(),
            series: TimeSeries {
                flows: vec![Vec::new(); n],
                queue: Vec::new(),
                ecn_thresholds: scenario
                    .switch
                    .ecn
                    .then_some((scenario.switch.kmin, scenario.switch.kmax)),
            },
            rates_csv,
            queue_csv: String::from("time_us,queue_bytes,marks,drops\n"),
        }
    }

    /// Flow `f` delivered `bytes` in order.
    pub fn delivered(&mut self, f: usize, bytes: u64) {
        if let Some(d) = self.delivered.get_mut(f) {
            *d += bytes;
        }
    }

    /// The bottleneck queue changes at `now`; it held `level` bytes since the last change.
    pub fn queue_change_from(&mut self, now: u64, level: u64) {
        let from = self.queue_last.max(self.measure_from);
        if now > from {
            self.queue_area += u128::from(level) * u128::from(now - from);
        }
        self.queue_last = now;
    }

    /// The bottleneck finished sending `wire` bytes at `now`.
    pub fn bottleneck_tx(&mut self, now: u64, wire: u64) {
        if now >= self.measure_from {
            self.bottleneck_window_bytes += wire;
        }
    }

    /// The window starts.
    pub fn measure_start(&mut self, _now: u64, _fabric: &Fabric, _receivers: &[Receiver]) {
        self.delivered_at_window.clone_from(&self.delivered);
    }
}

/// Gb/s from bytes over picoseconds.
pub fn gbps(bytes: u64, ps: u64) -> f64 {
    if ps == 0 {
        return 0.0;
    }
    bytes as f64 * 8.0 / (ps as f64 / 1e12) / 1e9
}

impl Simulation<'_> {
    /// Takes a sample of every flow and the bottleneck queue at `now`.
    pub(crate) fn sample(&mut self, now: u64) {
        let interval = self.scenario.sample_every;
        let st = &mut self.stats;
        let now_us = now as f64 / 1e6;
        let _ = write!(st.rates_csv, "{now_us:.3}");
        for (f, s) in self.senders.iter().enumerate() {
            let out = s.output.unwrap_or(0);
            let active = s.started && self.receivers[f].done_at.is_none();
            if active {
                st.output_sum[f] += out as f64;
                st.output_samples[f] += 1;
                let value = if st.rate_output {
                    out as f64 / 1e9
                } else {
                    out as f64
                };
                st.series.flows[f].push((now_us, value));
            }
            let delta = st.delivered[f] - st.delivered_at_sample[f];
            st.delivered_at_sample[f] = st.delivered[f];
            let tput = if now == 0 { 0.0 } else { gbps(delta, interval) };
            if st.rate_output {
                let _ = write!(st.rates_csv, ",{:.4},{tput:.4}", out as f64 / 1e9);
            } else {
                let _ = write!(st.rates_csv, ",{out},{tput:.4}");
            }
        }
        st.rates_csv.push('\n');
        let port = &self.fabric.ports[0];
        let (marks, drops) = self
            .fabric
            .ports
            .iter()
            .fold((0, 0), |(m, d), p| (m + p.stats.marks, d + p.stats.drops));
        let _ = writeln!(st.queue_csv, "{now_us:.3},{},{marks},{drops}", port.queued);
        st.series.queue.push((now_us, port.queued));
        if now >= st.measure_from {
            st.queue_samples.push(port.queued);
        }
    }

    /// Every flow's figures.
    fn flow_summaries(&self) -> Vec<crate::report::FlowSummary> {
        let sc = self.scenario;
        let st = &self.stats;
        let window = sc.duration - sc.measure_from;
        let mut flows = Vec::new();
        for (f, s) in self.senders.iter().enumerate() {
            let spec = &sc.flows[f];
            let r = &self.receivers[f];
            let avg = match st.output_samples[f] {
                0 => 0.0,
                n => st.output_sum[f] / n as f64,
            };
            let end = r.done_at.unwrap_or(sc.duration);
            let active_ps = end.saturating_sub(spec.start);
            let in_window = st.delivered[f] - st.delivered_at_window[f];
            let out = s.output.unwrap_or(0);
            let fct = self.fct_and_ideal(f);
            flows.push(crate::report::FlowSummary {
                id: f,
                start_us: spec.start as f64 / 1e6,
                size_bytes: spec.size,
                avg_rate_gbps: st.rate_output.then_some(avg / 1e9),
                final_rate_gbps: st.rate_output.then_some(out as f64 / 1e9),
                avg_window_bytes: (!st.rate_output).then_some(avg),
                final_window_bytes: (!st.rate_output).then_some(out),
                bytes_delivered: st.delivered[f],
                bytes_sent: s.sent_bytes,
                bytes_resent: s.resent_bytes,
                avg_throughput_gbps: gbps(st.delivered[f], active_ps),
                window_throughput_gbps: gbps(in_window, window),
                fct_us: fct.map(|(fct, _)| fct as f64 / 1e6),
                ideal_fct_us: fct.map(|(_, ideal)| ideal as f64 / 1e6),
                slowdown: fct.map(|(fct, ideal)| fct as f64 / ideal as f64),
                cnps: s.cnps,
                nacks: s.nacks,
                timeouts: s.timeouts,
            });
        }
        flows
    }

    /// Flow `f`'s FCT and ideal FCT (ps), if it is sized and complete.
    fn fct_and_ideal(&self, f: usize) -> Option<(u64, u64)> {
        let spec = &self.scenario.flows[f];
        let fct = self.receivers[f].done_at?.saturating_sub(spec.start);
        let host = &self.scenario.host;
        let links = crate::ideal::links(&self.fabric, f);
        let ideal = crate::ideal::fct_ps(&links, spec.size?, host.mtu, host.header)?;
        (ideal > 0).then_some((fct, ideal))
    }

    /// The figures of the run.
    pub fn summary(&self) -> crate::report::Summary {
        let sc = self.scenario;
        let st = &self.stats;
        let window = sc.duration - sc.measure_from;
        let flows = self.flow_summaries();
        let fair: Vec<usize> = (0..flows.len())
            .filter(|&f| {
                sc.flows[f].start <= sc.measure_from && self.receivers[f].done_at.is_none()
            })
            .collect();
        let x: Vec<f64> = fair
            .iter()
            .map(|&f| flows[f].window_throughput_gbps)
            .collect();
        let sum: f64 = x.iter().sum();
        let sq: f64 = x.iter().map(|v| v * v).sum();
        let jain = (sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq));
        let mut samples = st.queue_samples.clone();
        samples.sort_unstable();
        let p99 = match samples.len() {
            0 => 0,
            n => samples[((n - 1) as f64 * 0.99).round() as usize],
        };
        let ports = &self.fabric.ports;
        let bottleneck = &ports[0];
        let capacity_bytes = bottleneck.rate as f64 / 8.0 * (window as f64 / 1e12);
        crate::report::Summary {
            scenario: sc.name.clone(),
            cc: self.cc.name().to_string(),
            output: if st.rate_output { "rate" } else { "window" }.to_string(),
            topology: sc.topology.kind,
            seed: self.seed,
            duration_us: sc.duration as f64 / 1e6,
            window_from_us: sc.measure_from as f64 / 1e6,
            window_to_us: sc.duration as f64 / 1e6,
            bottleneck_rate_gbps: bottleneck.rate as f64 / 1e9,
            flows,
            fabric: crate::report::FabricSummary {
                bottleneck_utilisation: st.bottleneck_window_bytes as f64 / capacity_bytes,
                jain_fairness: jain,
                jain_flows: fair,
                queue_avg_bytes: (st.queue_area as f64) / window as f64,
                queue_p99_bytes: p99,
                queue_max_bytes: bottleneck.stats.max_queue,
                drops: ports.iter().map(|p| p.stats.drops).sum(),
                marks: ports.iter().map(|p| p.stats.marks).sum(),
                cnps: self.receivers.iter().map(|r| r.cnps).sum(),
            },
            events: self.events(),
        }
    }
}
