//! `scenic notify NAME SLOT [--follow] [--count N] [--timeout MS] [--json]`: notifications of a
//! slot (§3.7), oldest first; a gap in their numbers is reported as loss.

use std::time::Duration;

use scenic_runtime::notify::{Event, Notifications};
use serde_json::json;

use crate::common::{finish, open, Failure};

/// The options.
#[derive(clap::Args, Debug)]
pub struct NotifyArgs {
    /// Keep reading until interrupted (or `--count` records).
    #[arg(long)]
    pub follow: bool,
    /// Stop after N records.
    #[arg(long)]
    pub count: Option<u64>,
    /// Without `--follow`: wait up to MS milliseconds for a first record (default: take what is
    /// there now).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub timeout: u64,
    /// One JSON object per record.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command; the exit code.
pub fn run(name: &str, slot: u8, args: &NotifyArgs) -> u8 {
    finish(follow(name, slot, args))
}

fn print(e: &Event, as_json: bool) {
    let r = &e.record;
    let target = if r.target == 1 { "arm" } else { "host" };
    if as_json {
        let v = json!({
            "seq": r.seq, "time_ns": r.time_ns, "slot": r.slot, "target": target,
            "bank": r.bank, "from_shadow": r.flags & 1 == 1, "value": r.value,
            "lost_before": e.lost_before,
        });
        println!("{v}");
        return;
    }
    if e.lost_before > 0 {
        println!("  ({} notification(s) lost)", e.lost_before);
    }
    let shadow = if r.flags & 1 == 1 { " (shadow)" } else { "" };
    println!(
        "#{} {} ns slot {} bank {}{shadow} to {target}: {} ({:#x})",
        r.seq, r.time_ns, r.slot, r.bank, r.value, r.value
    );
}

fn follow(name: &str, slot: u8, args: &NotifyArgs) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let mut ring = Notifications::new(&dev, slot, state)
        .map_err(|e| Failure::new(format!("{name} slot {slot}: {e}")))?;
    let limit = args.count.unwrap_or(u64::MAX);
    let mut seen = 0u64;
    let stop = scenic_runtime::nic::stop_on_signals();
    let wait = if args.follow {
        Duration::from_millis(100)
    } else {
        Duration::from_millis(args.timeout)
    };
    loop {
        let max = usize::try_from(limit - seen).unwrap_or(usize::MAX);
        let got = ring
            .wait(wait, max)
            .map_err(|e| Failure::new(format!("{name} slot {slot}: {e}")))?;
        for e in &got {
            print(e, args.json);
        }
        seen += got.len() as u64;
        let done = seen >= limit || stop.load(std::sync::atomic::Ordering::Acquire);
        if done || !args.follow {
            return Ok(());
        }
    }
}
