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
//!   the FCT over the ideal one ([`crate::ideal`]);
//! - per bottleneck link (`fabric.bottlenecks`): utilisation as above, its time-averaged queue in
//!   the window and its largest queue; the single-bottleneck figures are those of port 0, the
//!   first bottleneck (the only one of `incast` and `dumbbell`);
//! - fair share: at each sample, the max-min fair share ([`crate::fairshare`]) of every active
//!   flow (started, not stopped, not finished); a flow's tracking error is the mean of
//!   |throughput − fair share| / fair share over the samples at which it is active and the set of
//!   active flows has not changed for `settle` before the sample's interval began.
//!
//! The samples are also kept as numbers ([`TimeSeries`]) for the plots.

use crate::dual::Dual;
use crate::fabric::Fabric;
use crate::scenario::Scenario;
use crate::sim::host::Receiver;
use crate::sim::Simulation;
use std::fmt::Write;

/// What one bottleneck link measured.
#[derive(Clone, Debug, Default)]
struct LinkStats {
    /// ∫ queue dt over the window (byte·ps).
    queue_area: u128,
    /// When the queue last changed.
    queue_last: u64,
    /// Wire bytes sent in the window.
    window_bytes: u64,
}

/// A flow's fair-share tracking.
#[derive(Clone, Debug, Default)]
struct Tracking {
    error_sum: f64,
    samples: u64,
}

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
    settle: u64,
    delivered: Vec<u64>,
    delivered_at_window: Vec<u64>,
    delivered_at_sample: Vec<u64>,
    output_sum: Vec<f64>,
    output_samples: Vec<u64>,
    links: Vec<LinkStats>,
    queue_samples: Vec<u64>,
    /// Payload capacity of every port (bit/s), and of a host link.
    payload_capacity: Vec<f64>,
    host_payload: f64,
    /// When a flow last started, stopped or finished (ps).
    last_change: u64,
    tracking: Vec<Tracking>,
    /// With `--swap`: rates.csv carries the standby's output and the active controller.
    dual: bool,
    /// When the swap happened (ps).
    pub swapped_at: Option<u64>,
    /// The samples, as numbers, for the plots.
    pub series: TimeSeries,
    /// `rates.csv`.
    pub rates_csv: String,
    /// `queue.csv`.
    pub queue_csv: String,
}

impl Stats {
    /// Empty measurements for `scenario` on `fabric`, controlled by `cc`.
    pub fn new(scenario: &Scenario, fabric: &Fabric, cc: &Dual) -> Stats {
        let n = scenario.flows.len();
        let rate_output = cc.rate_output();
        let dual = cc.incoming().is_some();
        let output = if rate_output {
            "rate_gbps"
        } else {
            "window_bytes"
        };
        let mut rates_csv = String::from("time_us");
        for i in 0..n {
            let _ = write!(rates_csv, ",flow{i}_{output},flow{i}_throughput_gbps");
        }
        for i in 0..n {
            let _ = write!(rates_csv, ",flow{i}_fair_gbps");
        }
        if dual {
            for i in 0..n {
                let _ = write!(rates_csv, ",flow{i}_standby_{output}");
            }
            rates_csv.push_str(",active");
        }
        rates_csv.push('\n');
        let mut queue_csv = String::from("time_us,queue_bytes,marks,drops");
        for b in 1..fabric.bottlenecks {
            let _ = write!(queue_csv, ",link{b}_queue_bytes");
        }
        queue_csv.push('\n');
        let h = &scenario.host;
        let payload = |rate: u64| rate as f64 * h.mtu as f64 / (h.mtu + h.header) as f64;
        Stats {
            rate_output,
            measure_from: scenario.measure_from,
            settle: scenario.settle,
            delivered: vec![0; n],
            delivered_at_window: vec![0; n],
            delivered_at_sample: vec![0; n],
            output_sum: vec![0.0; n],
            output_samples: vec![0; n],
            links: vec![LinkStats::default(); fabric.bottlenecks],
            queue_samples: Vec::new(),
            payload_capacity: fabric.ports.iter().map(|p| payload(p.rate)).collect(),
            host_payload: payload(fabric.host_rate),
            last_change: 0,
            tracking: vec![Tracking::default(); n],
            dual,
            swapped_at: None,
            series: TimeSeries {
                flows: vec![Vec::new(); n],
                queue: Vec::new(),
                ecn_thresholds: scenario
                    .switch
                    .ecn
                    .then_some((scenario.switch.kmin, scenario.switch.kmax)),
            },
            rates_csv,
            queue_csv,
        }
    }

    /// A flow started, stopped or finished at `now`: fair shares change.
    pub fn active_changed(&mut self, now: u64) {
        self.last_change = now;
    }

    /// Flow `f` delivered `bytes` in order.
    pub fn delivered(&mut self, f: usize, bytes: u64) {
        if let Some(d) = self.delivered.get_mut(f) {
            *d += bytes;
        }
    }

    /// Bottleneck `b`'s queue changes at `now`; it held `level` bytes since the last change.
    pub fn queue_change_from(&mut self, b: usize, now: u64, level: u64) {
        let Some(link) = self.links.get_mut(b) else {
            return;
        };
        let from = link.queue_last.max(self.measure_from);
        if now > from {
            link.queue_area += u128::from(level) * u128::from(now - from);
        }
        link.queue_last = now;
    }

    /// Bottleneck `b` finished sending `wire` bytes at `now`.
    pub fn bottleneck_tx(&mut self, b: usize, now: u64, wire: u64) {
        if let Some(link) = self.links.get_mut(b).filter(|_| now >= self.measure_from) {
            link.window_bytes += wire;
        }
    }

    /// The window starts.
    pub fn measure_start(&mut self, _now: u64, _fabric: &Fabric, _receivers: &[Receiver]) {
        self.delivered_at_window.clone_from(&self.delivered);
    }
}

/// A controller output as rates.csv writes it: Gb/s for a rate, bytes for a window.
fn write_output(csv: &mut String, rate_output: bool, out: u64) {
    if rate_output {
        let _ = write!(csv, ",{:.4}", out as f64 / 1e9);
    } else {
        let _ = write!(csv, ",{out}");
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
    /// Whether `f` is active: started, not stopped, not finished.
    fn active(&self, f: usize) -> bool {
        let s = &self.senders[f];
        s.started && !s.stopped && self.receivers[f].done_at.is_none()
    }

    /// Takes a sample of every flow and the bottleneck queues at `now`.
    pub(crate) fn sample(&mut self, now: u64) {
        let interval = self.scenario.sample_every;
        let fair = self.fair_shares();
        let settled = now >= self.stats.last_change + self.stats.settle + interval;
        let active: Vec<bool> = (0..self.senders.len()).map(|f| self.active(f)).collect();
        let st = &mut self.stats;
        let now_us = now as f64 / 1e6;
        let _ = write!(st.rates_csv, "{now_us:.3}");
        for (f, s) in self.senders.iter().enumerate() {
            let out = s.output.unwrap_or(0);
            if active[f] {
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
            if active[f] && settled && fair[f] > 0.0 {
                let share = fair[f] / 1e9;
                st.tracking[f].error_sum += (tput - share).abs() / share;
                st.tracking[f].samples += 1;
            }
            write_output(&mut st.rates_csv, st.rate_output, out);
            let _ = write!(st.rates_csv, ",{tput:.4}");
        }
        for share in &fair {
            let _ = write!(st.rates_csv, ",{:.4}", share / 1e9);
        }
        if let Some(standby) = self.cc.standby().filter(|_| st.dual) {
            for f in 0..self.senders.len() as u32 {
                let out = standby.output(f).unwrap_or(0);
                write_output(&mut st.rates_csv, st.rate_output, out);
            }
            let _ = write!(st.rates_csv, ",{}", self.cc.active_index());
        }
        st.rates_csv.push('\n');
        let (marks, drops) = self
            .fabric
            .ports
            .iter()
            .fold((0, 0), |(m, d), p| (m + p.stats.marks, d + p.stats.drops));
        let queues = &self.fabric.ports[..self.fabric.bottlenecks];
        let _ = write!(
            st.queue_csv,
            "{now_us:.3},{},{marks},{drops}",
            queues[0].queued
        );
        st.series.queue.push((now_us, queues[0].queued));
        for port in &queues[1..] {
            let _ = write!(st.queue_csv, ",{}", port.queued);
        }
        st.queue_csv.push('\n');
        if now >= st.measure_from {
            st.queue_samples.push(queues[0].queued);
        }
    }

    /// Every flow's max-min fair share now (payload bit/s; 0 for an inactive flow).
    fn fair_shares(&self) -> Vec<f64> {
        let routes: Vec<Option<&[u32]>> = (0..self.senders.len())
            .map(|f| self.active(f).then_some(&self.fabric.routes[f][..]))
            .collect();
        let cap = vec![self.stats.host_payload; routes.len()];
        crate::fairshare::max_min(&routes, &self.stats.payload_capacity, &cap)
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
            let end = r
                .done_at
                .or(spec.stop)
                .unwrap_or(sc.duration)
                .min(sc.duration);
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
                stop_us: spec.stop.map(|t| t as f64 / 1e6),
                fair_share_error: match &st.tracking[f] {
                    t if t.samples > 0 => Some(t.error_sum / t.samples as f64),
                    _ => None,
                },
                fair_share_samples: st.tracking[f].samples,
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
        let flows = self.flow_summaries();
        let fair: Vec<usize> = (0..flows.len())
            .filter(|&f| {
                sc.flows[f].start <= sc.measure_from
                    && self.receivers[f].done_at.is_none()
                    && sc.flows[f].stop.is_none_or(|t| t >= sc.duration)
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
        let links = self.link_summaries();
        crate::report::Summary {
            scenario: sc.name.clone(),
            cc: self.cc.first().name().to_string(),
            output: if st.rate_output { "rate" } else { "window" }.to_string(),
            topology: sc.topology.kind,
            seed: self.seed,
            duration_us: sc.duration as f64 / 1e6,
            window_from_us: sc.measure_from as f64 / 1e6,
            window_to_us: sc.duration as f64 / 1e6,
            bottleneck_rate_gbps: bottleneck.rate as f64 / 1e9,
            flows,
            fabric: crate::report::FabricSummary {
                bottleneck_utilisation: links[0].utilisation,
                jain_fairness: jain,
                jain_flows: fair,
                queue_avg_bytes: links[0].queue_avg_bytes,
                queue_p99_bytes: p99,
                queue_max_bytes: bottleneck.stats.max_queue,
                drops: ports.iter().map(|p| p.stats.drops).sum(),
                marks: ports.iter().map(|p| p.stats.marks).sum(),
                cnps: self.receivers.iter().map(|r| r.cnps).sum(),
                bottlenecks: links,
            },
            events: self.events(),
            swap: self.swap_summary(),
        }
    }

    /// Every bottleneck link's figures over the window.
    fn link_summaries(&self) -> Vec<crate::report::LinkSummary> {
        let sc = self.scenario;
        let window = (sc.duration - sc.measure_from) as f64;
        let ports = &self.fabric.ports;
        (self.stats.links.iter().enumerate())
            .map(|(b, link)| {
                let capacity_bytes = ports[b].rate as f64 / 8.0 * (window / 1e12);
                crate::report::LinkSummary {
                    link: Fabric::link_name(sc.topology.kind, b),
                    rate_gbps: ports[b].rate as f64 / 1e9,
                    utilisation: link.window_bytes as f64 / capacity_bytes,
                    queue_avg_bytes: link.queue_area as f64 / window,
                    queue_max_bytes: ports[b].stats.max_queue,
                }
            })
            .collect()
    }

    /// The swap, if `--swap` gave one.
    fn swap_summary(&self) -> Option<crate::report::SwapSummary> {
        let incoming = self.cc.incoming()?;
        Some(crate::report::SwapSummary {
            at_us: self.cc.swap_at.unwrap_or(0) as f64 / 1e6,
            switched_at_us: self.stats.swapped_at.map(|t| t as f64 / 1e6),
            to_cc: incoming.name().to_string(),
            active_at_end: self.cc.active().name().to_string(),
        })
    }
}
