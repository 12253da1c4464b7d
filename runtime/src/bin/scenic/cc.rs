//! `scenic cc NAME switch PKGDIR [--unit U] [--fresh] [--json]`, `scenic cc NAME event KIND FLOW
//! [VALUE] [--ecn] [--hop H --hops N --tx-bytes B --ts NS --rate BPS] [--time NS]`, `scenic cc NAME output FLOW [--slot K] [--json]`, `scenic cc NAME
//! param get PARAM` and `scenic cc NAME param set PARAM VALUE`: the dual CC slots (device.md §4).

use clap::Subcommand;
use scenic_runtime::abi::global;
use scenic_runtime::cc::EVENT_KINDS;
use scenic_runtime::frame::{CcEvent, IntFields};
use scenic_runtime::{CcHost, Package};
use serde_json::json;

use crate::common::{finish, open, parse_u64, Failure};

/// The fields of an `int` event beyond its queue length (device.md §4.3); all or none.
#[derive(clap::Args, Debug, Default)]
pub struct IntArgs {
    /// int: the hop's position, 0 = the first switch.
    #[arg(long)]
    hop: Option<u8>,
    /// int: hops on the ACK's path.
    #[arg(long)]
    hops: Option<u8>,
    /// int: the bytes the hop's egress port had sent in total.
    #[arg(long = "tx-bytes")]
    tx_bytes: Option<u64>,
    /// int: the switch's time in ns when the packet left.
    #[arg(long)]
    ts: Option<u64>,
    /// int: the egress link's rate in bit/s.
    #[arg(long)]
    rate: Option<u64>,
}

impl IntArgs {
    /// The record's int fields: all five for an `int` event, none for another kind.
    fn fields(&self, kind: &str) -> Result<IntFields, Failure> {
        let given = [
            self.hop.is_some(),
            self.hops.is_some(),
            self.tx_bytes.is_some(),
            self.ts.is_some(),
            self.rate.is_some(),
        ];
        match (kind, given.iter().all(|g| *g), given.iter().any(|g| *g)) {
            ("int", true, _) => {}
            ("int", false, _) => {
                return Err(Failure::usage(
                    "an `int` event needs --hop, --hops, --tx-bytes, --ts and --rate",
                ))
            }
            (_, _, true) => {
                return Err(Failure::usage(
                    "--hop, --hops, --tx-bytes, --ts and --rate go with an int event",
                ))
            }
            (_, _, false) => return Ok(IntFields::default()),
        }
        let f = IntFields {
            hop: self.hop.unwrap_or_default(),
            hops: self.hops.unwrap_or_default(),
            tx_bytes: self.tx_bytes.unwrap_or_default(),
            ts_ns: self.ts.unwrap_or_default(),
            rate_bps: self.rate.unwrap_or_default(),
        };
        if f.hop >= f.hops {
            return Err(Failure::usage(format!(
                "--hop {} must be below --hops {} (hops are numbered from 0)",
                f.hop, f.hops
            )));
        }
        Ok(f)
    }
}

/// What to do with the CC slots.
#[derive(Subcommand, Debug)]
pub enum CcAction {
    /// Loads a package's cc into the standby slot and switches to it at an event boundary,
    /// carrying per-flow state where the layouts agree; prints what was carried.
    Switch {
        /// The package directory.
        package: String,
        /// The cc when the package has several units.
        #[arg(long)]
        unit: Option<String>,
        /// Carry nothing: the new cc keeps the state it built as a standby.
        #[arg(long)]
        fresh: bool,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Injects one event through the event ring (tick, ack, cnp, ecn, loss, timeout, rtt, sent,
    /// int).
    Event {
        /// The kind.
        kind: String,
        /// The flow slot.
        flow: u32,
        /// ack/sent: bytes; rtt: the sample in ns; int: the hop's queue length in bytes.
        value: Option<String>,
        /// ack: the ECN echo.
        #[arg(long)]
        ecn: bool,
        /// int: the rest of the hop's telemetry.
        #[command(flatten)]
        int: IntArgs,
        /// The event's time in ns (default: the device's `NOW_NS`).
        #[arg(long)]
        time: Option<u64>,
    },
    /// Reads a flow's output (rate in bit/s or window in bytes).
    Output {
        /// The flow.
        flow: u64,
        /// The CC slot (16 or 17; default: the active one).
        #[arg(long)]
        slot: Option<u8>,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Reads or writes a param of the running cc.
    Param {
        #[command(subcommand)]
        action: ParamAction,
    },
}

/// A param access.
#[derive(Subcommand, Debug)]
pub enum ParamAction {
    /// Prints the param's value.
    Get {
        /// The param.
        param: String,
    },
    /// Writes the param (active cc, and the standby when it runs the same program).
    Set {
        /// The param.
        param: String,
        /// The value.
        value: String,
    },
}

/// Runs the command; the exit code.
pub fn run(name: &str, action: &CcAction) -> u8 {
    finish(act(name, action))
}

fn act(name: &str, action: &CcAction) -> Result<(), Failure> {
    match action {
        CcAction::Switch {
            package,
            unit,
            fresh,
            json,
        } => switch(name, package, unit.as_deref(), *fresh, *json),
        CcAction::Event {
            kind,
            flow,
            value,
            ecn,
            int,
            time,
        } => event(name, kind, *flow, value.as_deref(), *ecn, int, *time),
        CcAction::Output { flow, slot, json } => output(name, *flow, *slot, *json),
        CcAction::Param { action } => param(name, action),
    }
}

fn switch(
    name: &str,
    dir: &str,
    unit: Option<&str>,
    fresh: bool,
    as_json: bool,
) -> Result<(), Failure> {
    let pkg = Package::open(dir)?;
    let (dev, state) = open(name)?;
    let cc = CcHost::new(&dev, state)?;
    let r = cc.switch(&pkg, unit, !fresh)?;
    let old = r.old.as_ref().map(|(k, n)| format!("`{n}` (slot {k})"));
    if as_json {
        let items: Vec<_> = r
            .plan
            .items
            .iter()
            .map(|i| json!({"kind": i.kind, "name": i.name, "carried": i.from.is_some(), "reason": i.reason}))
            .collect();
        let value = json!({
            "device": name,
            "old": r.old.as_ref().map(|(k, n)| json!({"slot": k, "cc": n})),
            "new": {"slot": r.new.0, "cc": r.new.1},
            "package": pkg.dir(),
            "load_ns": r.load_ns,
            "switch_seq": r.switch_seq,
            "switch_ns": r.switch_time.as_nanos() as u64,
            "total_ns": r.total_time.as_nanos() as u64,
            "state": items,
        });
        println!("{value:#}");
        return Ok(());
    }
    println!(
        "switched {name}: {} → `{}` (slot {}) at event {} in {:.3} ms (SWITCH {:.3} ms)",
        old.unwrap_or_else(|| "no cc".to_string()),
        r.new.1,
        r.new.0,
        r.switch_seq,
        r.total_time.as_secs_f64() * 1e3,
        r.switch_time.as_secs_f64() * 1e3,
    );
    for i in &r.plan.items {
        match i.from {
            Some(_) => println!("  carried  {} {}", i.kind, i.name),
            None => println!("  fresh    {} {}: {}", i.kind, i.name, i.reason),
        }
    }
    Ok(())
}

fn event(
    name: &str,
    kind: &str,
    flow: u32,
    value: Option<&str>,
    ecn: bool,
    int: &IntArgs,
    time: Option<u64>,
) -> Result<(), Failure> {
    let Some(code) = EVENT_KINDS.iter().position(|k| *k == kind) else {
        return Err(Failure::usage(format!(
            "event kind `{kind}`: one of {}",
            EVENT_KINDS.join(", ")
        )));
    };
    let needs_value = matches!(kind, "ack" | "sent" | "rtt" | "int");
    let value = match (value, needs_value) {
        (Some(v), true) => parse_u64("value", v)?,
        (None, true) => return Err(Failure::usage(format!("a `{kind}` event needs a value"))),
        (Some(_), false) => return Err(Failure::usage(format!("a `{kind}` event has no value"))),
        (None, false) => 0,
    };
    if ecn && kind != "ack" {
        return Err(Failure::usage("--ecn goes with an ack"));
    }
    let int = int.fields(kind)?;
    let (dev, state) = open(name)?;
    let time_ns = match time {
        Some(t) => t,
        None => dev.read(global::NOW_NS)?,
    };
    let cc = CcHost::new(&dev, state)?;
    let seq = cc.event_seq()?;
    cc.inject(&[CcEvent {
        kind: code as u8,
        flow,
        ecn,
        value,
        time_ns,
        int,
    }])?;
    cc.wait_events(seq.wrapping_add(1), std::time::Duration::from_secs(5))?;
    println!(
        "event {kind} for flow {flow} at {time_ns} ns: CC_EVENT_SEQ {}",
        cc.event_seq()?
    );
    Ok(())
}

fn output(name: &str, flow: u64, slot: Option<u8>, as_json: bool) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let cc = CcHost::new(&dev, state)?;
    let out = cc.output(slot, flow)?;
    let unit = match out.kind {
        scenic_scu_abi::manifest::CcOutputKind::Rate => "bit/s",
        scenic_scu_abi::manifest::CcOutputKind::Window => "bytes",
    };
    if as_json {
        let value = json!({"device": name, "slot": out.slot, "flow": flow, "kind": format!("{:?}", out.kind).to_lowercase(), "value": out.value});
        println!("{value}");
    } else {
        println!("{} {unit}", out.value);
    }
    Ok(())
}

fn param(name: &str, action: &ParamAction) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let cc = CcHost::new(&dev, state)?;
    match action {
        ParamAction::Get { param } => println!("{}", cc.param_get(param)?),
        ParamAction::Set { param, value } => {
            let v = parse_u64("value", value)?;
            let slots = cc.param_set(param, v)?;
            let slots: Vec<String> = slots.iter().map(u8::to_string).collect();
            println!("set `{param}` = {v} in slot {}", slots.join(" and "));
        }
    }
    Ok(())
}
