//! The STF commands that reach the host's view of notifications and maps (`docs/testing.md`,
//! "Notifications and maps"): `expect_notify`, `map_write` and `check_map`.
//!
//! Notifications are collected per target (host, Arm) and matched in order at every bare `wait`
//! and at the end, like `expect`: each `expect_notify` must match the next notification to its
//! target. A target that some `expect_notify` of the file names is checked strictly (a
//! notification to it that no `expect_notify` matches is a failure); notifications to a target the
//! file never names are not checked, so files written before `expect_notify` existed keep passing.
//!
//! Maps are the test scu's, named as the program declares them. Keys and values are scalars
//! (STF's 64-bit value syntax); a key or value wider than the map's type, an unknown map, or a map
//! whose values are structs fails at the command's line.

use super::{Failure, Runner};
use crate::device::scalar_width;
use num_bigint::BigUint;
use scenic_interp::value::width_of;
use scenic_io::stf::{MapCheck, Pos};
use scenic_ir::program::Map;
use std::collections::VecDeque;

/// One `expect_notify`: value, source, where.
pub(super) type NotifyExpectation = (u32, Option<String>, Pos);

/// A notification as the runner keeps it: value and source.
pub(super) type Received = (u32, String);

/// The expectations and notifications of one target (host or Arm).
#[derive(Default)]
pub(super) struct NotifyQueue {
    /// Whether the file names this target in an `expect_notify` (then it is checked strictly).
    pub strict: bool,
    /// Expectations not yet matched.
    pub expected: VecDeque<NotifyExpectation>,
    /// Notifications not yet matched.
    pub received: VecDeque<Received>,
}

fn target_name(to_arm: bool) -> &'static str {
    if to_arm {
        "arm"
    } else {
        "host"
    }
}

impl Runner<'_> {
    /// Queues an `expect_notify`.
    pub(super) fn expect_notify(
        &mut self,
        pos: Pos,
        to_arm: bool,
        value: u32,
        from: &Option<String>,
    ) {
        self.notify[usize::from(to_arm)]
            .expected
            .push_back((value, from.clone(), pos));
    }

    /// Collects the notifications the device raised since the last call.
    pub(super) fn collect_notifications(&mut self, at: Pos) {
        if !self.notify.iter().any(|q| q.strict) {
            return;
        }
        match self.device.notifications() {
            Ok(notes) => {
                for n in notes {
                    self.notify[usize::from(n.to_arm)]
                        .received
                        .push_back((n.value, n.source.to_string()));
                }
            }
            Err(err) => self.fail(at, err.to_string()),
        }
    }

    /// Matches the queued `expect_notify`s against the notifications raised, per target.
    pub(super) fn settle_notifications(&mut self, at: Pos) {
        self.collect_notifications(at);
        for to_arm in [false, true] {
            let queue = std::mem::take(&mut self.notify[usize::from(to_arm)]);
            let mut received = queue.received;
            let target = target_name(to_arm);
            for (value, from, pos) in queue.expected {
                let message = match received.pop_front() {
                    None => Some(format!(
                        "expected a notification to {target} carrying {value:#x}, none came"
                    )),
                    Some((v, src)) if v != value || from.as_ref().is_some_and(|f| *f != src) => {
                        let want = from
                            .as_ref()
                            .map_or(String::new(), |f| format!(" from {f}"));
                        Some(format!(
                            "notification to {target}: expected {value:#x}{want}, got {v:#x} from {src}"
                        ))
                    }
                    Some(_) => None,
                };
                match message {
                    Some(m) => self.fail(pos, m),
                    None => self.report.passed += 1,
                }
            }
            if queue.strict {
                for (v, src) in received {
                    self.fail(
                        at,
                        format!("unexpected notification to {target}: {v:#x} from {src}"),
                    );
                }
            }
            self.notify[usize::from(to_arm)].strict = queue.strict;
        }
    }

    /// Map `name` of the test's scu, or the failure naming the maps it has.
    fn map(&mut self, pos: Pos, name: &str) -> Option<Map> {
        let scu = self.scu?;
        let def = &self.device.module().scus[scu];
        if let Some((_, m)) = def.maps.iter().find(|(_, m)| m.name == name) {
            return Some(m.clone());
        }
        let names: Vec<String> = def.maps.values().map(|m| format!("`{}`", m.name)).collect();
        let has = if names.is_empty() {
            "it has none".to_string()
        } else {
            format!("its maps: {}", names.join(", "))
        };
        let message = format!("scu `{}` has no map named `{name}` ({has})", def.name);
        self.fail(pos, message);
        None
    }

    /// Checks that `key` (and `value`, if given) fit map `m`'s types; the failure otherwise.
    fn fits(&mut self, pos: Pos, m: &Map, key: u64, value: Option<u64>) -> bool {
        let module = self.device.module();
        let key_bits = width_of(&m.key, module);
        let Some(value_bits) = scalar_width(module, &m.value) else {
            let message = format!(
                "map `{}` has struct values: STF reads and writes only maps whose values are \
                 bit<N>, int<N>, bool or enums",
                m.name
            );
            self.fail(pos, message);
            return false;
        };
        let wider = |v: u64, bits: u32| bits < 64 && v >> bits != 0;
        if wider(key, key_bits) {
            let message = format!(
                "key {key:#x} is wider than map `{}`'s {key_bits}-bit key",
                m.name
            );
            self.fail(pos, message);
            return false;
        }
        match value {
            Some(v) if wider(v, value_bits) => {
                let message = format!(
                    "value {v:#x} is wider than map `{}`'s {value_bits}-bit value",
                    m.name
                );
                self.fail(pos, message);
                false
            }
            _ => true,
        }
    }

    /// `map_write`.
    pub(super) fn map_write(&mut self, pos: Pos, map: &str, key: u64, value: u64) {
        let (Some(scu), Some(m)) = (self.scu, self.map(pos, map)) else {
            return;
        };
        if !self.fits(pos, &m, key, Some(value)) {
            return;
        }
        let (k, v) = (BigUint::from(key), BigUint::from(value));
        match self.device.map_write(scu, map, &k, &v) {
            Ok(true) => {}
            Ok(false) => self.fail(
                pos,
                format!("map `{map}` refused key {key:#x} (full, or beyond an array's size)"),
            ),
            Err(err) => self.fail(pos, err.to_string()),
        }
    }

    /// `check_map`.
    pub(super) fn check_map(&mut self, pos: Pos, map: &str, key: u64, check: MapCheck) {
        let (Some(scu), Some(m)) = (self.scu, self.map(pos, map)) else {
            return;
        };
        let expected = match check {
            MapCheck::Compare(_, v) => Some(v),
            MapCheck::Absent => None,
        };
        if !self.fits(pos, &m, key, expected) {
            return;
        }
        let actual = match self.device.map_read(scu, map, &BigUint::from(key)) {
            Ok(v) => v.map(|v| scenic_scu_abi::control::to_u64(&v)),
            Err(err) => return self.fail(pos, err.to_string()),
        };
        let failure = match (check, actual) {
            (MapCheck::Absent, None) => None,
            (MapCheck::Absent, Some(a)) => {
                Some(format!("map {map}[{key:#x}] is {a}, expected it absent"))
            }
            (MapCheck::Compare(_, e), None) => {
                Some(format!("map {map}[{key:#x}] is absent, expected {e}"))
            }
            (MapCheck::Compare(op, e), Some(a)) => (!op.holds(&a, &e))
                .then(|| format!("map {map}[{key:#x}] is {a}, expected {} {e}", op.as_str())),
        };
        match failure {
            Some(message) => self.report.failures.push(Failure { pos, message }),
            None => self.report.passed += 1,
        }
    }
}
