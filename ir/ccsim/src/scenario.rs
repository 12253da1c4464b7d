//! Scenario files (TOML, docs/cc-sim.md): what the simulated fabric looks like, which flows run on
//! it and for how long.
//!
//! Reading is two steps. [`Scenario::parse`] deserializes the file into the `Raw*` structs (every
//! table `deny_unknown_fields`, so a misspelt key is an error) and resolves defaults and units;
//! [`crate::control`] later checks the flows' `params` and the `requires` list against the
//! controller. Every error carries the file name, line and column ([`ScenarioError`]): serde errors
//! come with the TOML reader's byte span, semantic ones keep the [`toml::Spanned`] of the value they
//! are about.
//!
//! Invariants of a parsed [`Scenario`]: at least one flow; every rate and the MTU are positive;
//! `kmin <= kmax`, `0 <= pmax <= 1`; the duration and sample interval are positive; times are in
//! picoseconds, sizes in bytes, rates in bit/s. Every flow's [`Route`] exists in the topology
//! (`cross:K` with `K < hops - 1`); a flow has a `size` or a `stop`, not both, and stops after it
//! starts. Flows are numbered in file order: the `[[flow]]` entries (each `count` times), then the
//! flows each `[[workload]]` draws ([`crate::workload`]).

use crate::event::Rng;
use crate::units::{Duration, Rate, Size};
use crate::workload::Cdf;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// A scenario error at a place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file's name, as given.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ScenarioError {}

/// The file a scenario came from, for locating errors found after parsing.
#[derive(Clone, Debug)]
pub struct Source {
    /// The name used in messages.
    pub name: String,
    /// The text.
    pub text: String,
}

impl Source {
    /// An error at byte `span` (its start) of the file.
    pub fn error(&self, span: Option<Range<usize>>, message: impl Into<String>) -> ScenarioError {
        let at = span.map_or(0, |s| s.start.min(self.text.len()));
        let before = self.text.get(..at).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ScenarioError {
            file: self.name.clone(),
            line,
            column,
            message: message.into(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Option<String>,
    duration: Spanned<Duration>,
    seed: Option<u64>,
    sample_every: Option<Spanned<Duration>>,
    measure_from: Option<Spanned<Duration>>,
    settle: Option<Duration>,
    cc: Option<Spanned<String>>,
    requires: Option<Vec<Spanned<String>>>,
    topology: RawTopology,
    #[serde(default)]
    switch: RawSwitch,
    #[serde(default)]
    host: RawHost,
    #[serde(default)]
    flow: Vec<Spanned<RawFlow>>,
    #[serde(default)]
    workload: Vec<Spanned<RawWorkload>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTopology {
    kind: Spanned<TopologyKind>,
    hops: Option<Spanned<u32>>,
    link_rate: Option<Spanned<Rate>>,
    bottleneck_rate: Option<Spanned<Rate>>,
    link_delay: Option<Duration>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSwitch {
    buffer: Option<Spanned<Size>>,
    ecn: Option<bool>,
    kmin: Option<Spanned<Size>>,
    kmax: Option<Spanned<Size>>,
    pmax: Option<Spanned<f64>>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHost {
    mtu: Option<Spanned<Size>>,
    header: Option<Size>,
    cnp: Option<bool>,
    cnp_interval: Option<Duration>,
    rto: Option<Spanned<Duration>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlow {
    start: Option<Duration>,
    size: Option<Spanned<Size>>,
    stop: Option<Spanned<Duration>>,
    route: Option<Spanned<String>>,
    count: Option<Spanned<u32>>,
    stagger: Option<Duration>,
    #[serde(default)]
    params: BTreeMap<String, Spanned<toml::Value>>,
}

/// A `[[workload]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    cdf: Spanned<String>,
    load: Spanned<f64>,
    flows: Option<Spanned<u32>>,
    until: Option<Spanned<Duration>>,
    start: Option<Duration>,
    seed: Option<u64>,
    route: Option<Spanned<String>>,
    #[serde(default)]
    params: BTreeMap<String, Spanned<toml::Value>>,
}

/// What drawing a workload's flows needs from the rest of the scenario.
struct WorkloadContext<'a> {
    topology: &'a Topology,
    host: &'a Host,
    seed: u64,
    source: &'a Source,
}

/// How senders and receivers are wired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// Every sender has its own receiver; all flows cross one switch-to-switch bottleneck link.
    Dumbbell,
    /// Every flow goes to one receiver: the switch's port to it is the bottleneck (N→1).
    Incast,
    /// `hops` switches in a chain; every inter-switch link may be a bottleneck. The long route
    /// crosses them all, route `cross:K` only link K.
    ParkingLot,
}

/// Which switch-to-switch links a flow crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Every bottleneck link: the only route of `incast` and `dumbbell`, `long` in a parking lot.
    Long,
    /// Parking lot only: inter-switch link K alone (switch K to switch K+1, 0-based).
    Cross(u32),
}

/// Links and the topology.
#[derive(Clone, Debug)]
pub struct Topology {
    /// How it is wired.
    pub kind: TopologyKind,
    /// Rate of every host link (bit/s).
    pub link_rate: u64,
    /// Rate of the bottleneck link (bit/s).
    pub bottleneck_rate: u64,
    /// Propagation delay of every link (ps).
    pub link_delay: u64,
    /// Switches: 1 for `incast`, 2 for `dumbbell`, `hops` for a parking lot.
    pub hops: u32,
}

impl Topology {
    /// Bottleneck links: `hops - 1` inter-switch links, or the incast switch's port to the receiver.
    pub fn bottlenecks(&self) -> u32 {
        self.hops.saturating_sub(1).max(1)
    }
}

/// Switch egress queues.
#[derive(Clone, Debug)]
pub struct Switch {
    /// Bytes each egress queue holds; a packet that does not fit is dropped.
    pub buffer: u64,
    /// Whether RED/ECN marking is on.
    pub ecn: bool,
    /// No marking below this queue depth (bytes).
    pub kmin: u64,
    /// Every packet marked above this depth (bytes).
    pub kmax: u64,
    /// Marking probability at `kmax`, rising linearly from 0 at `kmin`.
    pub pmax: f64,
}

/// Senders and receivers.
#[derive(Clone, Debug)]
pub struct Host {
    /// Payload bytes per packet.
    pub mtu: u64,
    /// Header bytes per packet (on the wire, paced and queued with the payload).
    pub header: u64,
    /// Whether receivers send CNPs for ECN-marked packets.
    pub cnp: bool,
    /// At most one CNP per flow per this interval (ps).
    pub cnp_interval: u64,
    /// Retransmission timeout (ps): no acknowledged progress for this long rewinds the flow.
    pub rto: u64,
}

/// One flow.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// When it starts (ps).
    pub start: u64,
    /// Its size in bytes; `None` runs until `stop` or the end.
    pub size: Option<u64>,
    /// When it stops sending new bytes (ps), if it does.
    pub stop: Option<u64>,
    /// The links it crosses.
    pub route: Route,
    /// Controller params for this flow, by name, with the value's place in the file.
    pub params: Vec<(String, Spanned<toml::Value>)>,
}

/// A parsed scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Its name.
    pub name: String,
    /// Simulated time (ps).
    pub duration: u64,
    /// The random seed (RED marking).
    pub seed: u64,
    /// Time series sample interval (ps).
    pub sample_every: u64,
    /// Start of the measurement window (ps): utilisation, fairness and throughputs are measured
    /// over `[measure_from, duration)`.
    pub measure_from: u64,
    /// Fair-share tracking skips samples less than this (ps) after the set of active flows changed.
    pub settle: u64,
    /// The controller to run, by name (`None`: the program's only one).
    pub cc: Option<Spanned<String>>,
    /// Handlers the controller must have (`cnp`, `ack`, `timer`, ...).
    pub requires: Vec<Spanned<String>>,
    /// The topology.
    pub topology: Topology,
    /// The switches.
    pub switch: Switch,
    /// The hosts.
    pub host: Host,
    /// The flows, one sender each.
    pub flows: Vec<FlowSpec>,
    /// The file, for errors found later.
    pub source: Source,
}

const US: u64 = 1_000_000;

impl Scenario {
    /// Parses scenario `text` read from file `name`.
    pub fn parse(name: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let source = Source {
            name: name.to_string(),
            text: text.to_string(),
        };
        let raw: RawScenario =
            toml::from_str(text).map_err(|e| source.error(e.span(), e.message().trim()))?;
        resolve(raw, source)
    }
}

fn positive<T>(
    source: &Source,
    value: &Option<Spanned<T>>,
    get: impl Fn(&T) -> u64,
    what: &str,
) -> Result<(), ScenarioError> {
    match value {
        Some(v) if get(v.get_ref()) == 0 => {
            Err(source.error(Some(v.span()), format!("{what} must be positive")))
        }
        _ => Ok(()),
    }
}

fn resolve(raw: RawScenario, source: Source) -> Result<Scenario, ScenarioError> {
    let topology = resolve_topology(&raw.topology, &source)?;
    let switch = resolve_switch(&raw.switch, &source)?;
    positive(&source, &raw.host.mtu, |s| s.0, "`mtu`")?;
    positive(&source, &raw.host.rto, |d| d.0, "`rto`")?;
    let host = Host {
        mtu: raw.host.mtu.as_ref().map_or(1000, |m| m.get_ref().0),
        header: raw.host.header.map_or(64, |h| h.0),
        cnp: raw.host.cnp.unwrap_or(true),
        cnp_interval: raw.host.cnp_interval.map_or(50 * US, |d| d.0),
        rto: raw.host.rto.as_ref().map_or(1000 * US, |d| d.get_ref().0),
    };
    let duration = raw.duration.get_ref().0;
    positive(&source, &Some(raw.duration.clone()), |d| d.0, "`duration`")?;
    positive(&source, &raw.sample_every, |d| d.0, "`sample_every`")?;
    let seed = raw.seed.unwrap_or(1);
    let mut flows = resolve_flows(raw.flow, &topology, &source)?;
    let context = WorkloadContext {
        topology: &topology,
        host: &host,
        seed,
        source: &source,
    };
    for (index, w) in raw.workload.into_iter().enumerate() {
        flows.extend(workload_flows(w, index, &context)?);
    }
    if flows.is_empty() {
        return Err(source.error(
            None,
            "a scenario needs at least one `[[flow]]` or `[[workload]]`",
        ));
    }
    if flows.len() > MAX_FLOWS {
        return Err(source.error(None, format!("at most {MAX_FLOWS} flows")));
    }
    let measure_from = match &raw.measure_from {
        Some(m) if m.get_ref().0 >= duration => {
            return Err(source.error(
                Some(m.span()),
                "`measure_from` must be before the end of the run (`duration`)",
            ))
        }
        Some(m) => m.get_ref().0,
        None => duration / 2,
    };
    Ok(Scenario {
        name: raw.name.unwrap_or_else(|| source.name.clone()),
        duration,
        seed,
        sample_every: raw.sample_every.map_or(10 * US, |s| s.get_ref().0),
        measure_from,
        settle: raw.settle.map_or(1000 * US, |d| d.0),
        cc: raw.cc,
        requires: raw.requires.unwrap_or_default(),
        topology,
        switch,
        host,
        flows,
        source,
    })
}

/// The most flows a scenario may have, `[[flow]]` and `[[workload]]` together.
pub const MAX_FLOWS: usize = 4096;

fn resolve_topology(t: &RawTopology, source: &Source) -> Result<Topology, ScenarioError> {
    positive(source, &t.link_rate, |r| r.0, "`link_rate`")?;
    positive(source, &t.bottleneck_rate, |r| r.0, "`bottleneck_rate`")?;
    let link_rate = t
        .link_rate
        .as_ref()
        .map_or(200_000_000_000, |r| r.get_ref().0);
    let kind = *t.kind.get_ref();
    let hops = match (kind, &t.hops) {
        (TopologyKind::ParkingLot, Some(h)) if *h.get_ref() < 2 || *h.get_ref() > 64 => {
            return Err(source.error(
                Some(h.span()),
                "a parking lot has 2 to 64 switches (`hops`)",
            ))
        }
        (TopologyKind::ParkingLot, Some(h)) => *h.get_ref(),
        (TopologyKind::ParkingLot, None) => {
            return Err(source.error(
                Some(t.kind.span()),
                "a parking lot needs `hops`, its number of switches (at least 2)",
            ))
        }
        (TopologyKind::Dumbbell | TopologyKind::Incast, Some(h)) => {
            return Err(source.error(
                Some(h.span()),
                "`hops` applies to `kind = \"parking_lot\"` only",
            ))
        }
        (TopologyKind::Dumbbell, None) => 2,
        (TopologyKind::Incast, None) => 1,
    };
    Ok(Topology {
        kind,
        link_rate,
        bottleneck_rate: t
            .bottleneck_rate
            .as_ref()
            .map_or(link_rate, |r| r.get_ref().0),
        link_delay: t.link_delay.map_or(US, |d| d.0),
        hops,
    })
}

/// The route named by a `route` key (`"long"`, `"cross:K"`), checked against `topology`.
pub(crate) fn resolve_route(
    route: &Option<Spanned<String>>,
    table: Range<usize>,
    topology: &Topology,
    source: &Source,
) -> Result<Route, ScenarioError> {
    let parking = topology.kind == TopologyKind::ParkingLot;
    let Some(route) = route else {
        if parking {
            return Err(source.error(
                Some(table),
                "a parking-lot flow needs `route = \"long\"` or `route = \"cross:K\"`",
            ));
        }
        return Ok(Route::Long);
    };
    let err = |msg: String| source.error(Some(route.span()), msg);
    if !parking {
        return Err(err(
            "`route` applies to `kind = \"parking_lot\"` only".to_string()
        ));
    }
    let links = topology.bottlenecks();
    match route.get_ref().as_str() {
        "long" => Ok(Route::Long),
        text => match text.strip_prefix("cross:").map(str::parse::<u32>) {
            Some(Ok(k)) if k < links => Ok(Route::Cross(k)),
            Some(Ok(k)) => Err(err(format!(
                "`cross:{k}` is out of range: this parking lot's {links} inter-switch link(s) are cross:0 to cross:{}",
                links - 1
            ))),
            _ => Err(err(format!(
                "unknown route `{text}`: write \"long\" or \"cross:K\" (K an inter-switch link, from 0)"
            ))),
        },
    }
}

fn resolve_switch(raw: &RawSwitch, source: &Source) -> Result<Switch, ScenarioError> {
    let size =
        |s: &Option<Spanned<Size>>, default: u64| s.as_ref().map_or(default, |v| v.get_ref().0);
    let switch = Switch {
        buffer: size(&raw.buffer, 4 << 20),
        ecn: raw.ecn.unwrap_or(true),
        kmin: size(&raw.kmin, 100_000),
        kmax: size(&raw.kmax, 400_000),
        pmax: raw.pmax.as_ref().map_or(0.2, |p| *p.get_ref()),
    };
    positive(source, &raw.buffer, |b| b.0, "`buffer`")?;
    if let Some(p) = &raw.pmax {
        if !(0.0..=1.0).contains(p.get_ref()) {
            return Err(source.error(Some(p.span()), "`pmax` is a probability: 0 to 1"));
        }
    }
    if switch.kmin > switch.kmax {
        let span = raw.kmin.as_ref().or(raw.kmax.as_ref()).map(|k| k.span());
        return Err(source.error(span, "`kmin` must not exceed `kmax`"));
    }
    Ok(switch)
}

fn resolve_flows(
    raw: Vec<Spanned<RawFlow>>,
    topology: &Topology,
    source: &Source,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let mut flows = Vec::new();
    for flow in raw {
        let table = flow.span();
        let flow = flow.into_inner();
        positive(source, &flow.size, |s| s.0, "a flow's `size`")?;
        let count = match &flow.count {
            Some(c) if *c.get_ref() == 0 => {
                return Err(source.error(Some(c.span()), "`count` must be at least 1"))
            }
            Some(c) if *c.get_ref() as usize > MAX_FLOWS => {
                return Err(source.error(Some(c.span()), format!("at most {MAX_FLOWS} flows")))
            }
            Some(c) => *c.get_ref(),
            None => 1,
        };
        let start = flow.start.map_or(0, |s| s.0);
        let stagger = flow.stagger.map_or(0, |s| s.0);
        let route = resolve_route(&flow.route, table, topology, source)?;
        let stop = match (&flow.stop, &flow.size) {
            (Some(stop), Some(_)) => {
                return Err(source.error(
                    Some(stop.span()),
                    "a flow has a `size` or a `stop` time, not both",
                ))
            }
            (Some(stop), None) => Some(stop),
            (None, _) => None,
        };
        for k in 0..u64::from(count) {
            let start = start.saturating_add(stagger.saturating_mul(k));
            if let Some(stop) = stop.filter(|s| s.get_ref().0 <= start) {
                return Err(source.error(
                    Some(stop.span()),
                    "a flow's `stop` must be after its `start`",
                ));
            }
            flows.push(FlowSpec {
                start,
                size: flow.size.as_ref().map(|s| s.get_ref().0),
                stop: stop.map(|s| s.get_ref().0),
                route,
                params: flow
                    .params
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            });
        }
    }
    Ok(flows)
}

/// The distribution a `cdf` key names: a shipped one, or a file relative to the scenario's.
fn load_cdf(cdf: &Spanned<String>, source: &Source) -> Result<Cdf, ScenarioError> {
    let name = cdf.get_ref();
    if let Some(builtin) = Cdf::builtin(name) {
        return Ok(builtin);
    }
    let err = |msg: String| source.error(Some(cdf.span()), msg);
    let dir = Path::new(&source.name).parent().unwrap_or(Path::new(""));
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        err(format!(
            "cannot read the CDF `{}` ({e}); the shipped ones are \"websearch\" and \"datamining\"",
            path.display()
        ))
    })?;
    Cdf::parse(&text).map_err(|e| err(format!("{}: {e}", path.display())))
}

/// The flows workload `raw` (the `index`th in the file) draws.
fn workload_flows(
    raw: Spanned<RawWorkload>,
    index: usize,
    cx: &WorkloadContext<'_>,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let table = raw.span();
    let w = raw.into_inner();
    let src = cx.source;
    let cdf = load_cdf(&w.cdf, src)?;
    let load = *w.load.get_ref();
    if !(load.is_finite() && load > 0.0) {
        return Err(src.error(Some(w.load.span()), "`load` must be a positive fraction"));
    }
    let route = resolve_route(&w.route, table.clone(), cx.topology, src)?;
    let start = w.start.map_or(0, |s| s.0);
    let (count, until) = match (&w.flows, &w.until) {
        (Some(n), None) if *n.get_ref() as usize <= MAX_FLOWS => (*n.get_ref() as usize, u64::MAX),
        (Some(n), None) => {
            return Err(src.error(Some(n.span()), format!("at most {MAX_FLOWS} flows")))
        }
        (None, Some(t)) => (MAX_FLOWS + 1, t.get_ref().0),
        (Some(_), Some(t)) => {
            return Err(src.error(Some(t.span()), "give `flows` or `until`, not both"))
        }
        (None, None) => {
            return Err(src.error(
                Some(table),
                "a workload needs `flows = N` or `until = \"T\"`",
            ))
        }
    };
    let h = cx.host;
    let payload_bps = cx.topology.bottleneck_rate as f64 * h.mtu as f64 / (h.mtu + h.header) as f64;
    let mean_gap_ps = cdf.mean() * 8.0 / (load * payload_bps) * 1e12;
    let seed = w.seed.unwrap_or(cx.seed);
    let mut rng = Rng::new(seed ^ (index as u64).wrapping_mul(0xA076_1D64_78BD_642F));
    let params: Vec<(String, Spanned<toml::Value>)> = w.params.into_iter().collect();
    let drawn = crate::workload::arrivals(&cdf, &mut rng, mean_gap_ps, start, count, until);
    if drawn.len() > MAX_FLOWS {
        return Err(src.error(Some(table), format!("at most {MAX_FLOWS} flows")));
    }
    Ok(drawn
        .into_iter()
        .map(|(start, size)| FlowSpec {
            start,
            size: Some(size),
            stop: None,
            route,
            params: params.clone(),
        })
        .collect())
}
