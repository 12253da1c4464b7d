//! [`Device`]: what `scenicc test` (and the differential tests) drive, so that the same STF file
//! runs on the reference interpreter and on a backend's model of the hardware (the HLS C-simulation,
//! a P4 round trip, later a real NIC) and every backend is judged by the same expectations.
//!
//! The interface is the host's and the wire's view of a module: packets and payload words in,
//! copies and pushed words out, table entries, CSRs, params and counters by the names the program
//! gives them, cc events in and rates or windows out. Names are resolved and checked by
//! [`super::setup`] before they reach a device, so a device may assume they exist; it still answers
//! `None`/`false` rather than panicking when they do not. A device that can fail on its own (a
//! child process that died, a protocol it did not follow) says so with a [`DeviceError`].
//!
//! The interpreter's [`Machine`] is the reference implementation.

use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::cc::CcEvent;
use scenic_interp::context::Notification;
use scenic_interp::runtime::{AddEntryError, CounterCell};
use scenic_interp::value::{width_of, Value};
use scenic_interp::{Destination, Machine};
use scenic_ir::entities::{CcId, ScuId};
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{KeyMatch, Module};

/// Why a device could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The table refused the entry (or the table or action does not exist).
    #[error(transparent)]
    Entry(#[from] AddEntryError),
    /// Talking to the device failed (a child process's pipes, files).
    #[error("{device}: {source}")]
    Io {
        /// Which device.
        device: &'static str,
        /// What failed.
        source: std::io::Error,
    },
    /// The device answered something that does not follow its protocol, or stopped answering.
    #[error("{device}: {problem}")]
    Protocol {
        /// Which device.
        device: &'static str,
        /// What it did.
        problem: String,
    },
    /// The device cannot do this at all (e.g. a backend without stream kernels).
    #[error("{device} cannot {what}")]
    Unsupported {
        /// Which device.
        device: &'static str,
        /// What it was asked.
        what: &'static str,
    },
}

/// What one payload word produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordOutput {
    /// The valid bytes of each word passed on.
    pub passed: Vec<Vec<u8>>,
    /// Words pushed to outputs: output name, element, the word's 64 bytes.
    pub pushed: Vec<(String, usize, Vec<u8>)>,
}

/// A module running somewhere: the interpreter, a simulation of generated hardware, a NIC.
pub trait Device {
    /// The module it runs.
    fn module(&self) -> &Module;
    /// Moves time forward to `now_ns`, running what comes due (`every` blocks, cc timers).
    fn advance_time(&mut self, now_ns: u64) -> Result<(), DeviceError>;
    /// Runs one packet arriving on network `port` at `now_ns`; returns the copies sent.
    fn packet(
        &mut self,
        scu: ScuId,
        data: &[u8],
        port: u8,
        now_ns: u64,
    ) -> Result<Vec<(Destination, Vec<u8>)>, DeviceError>;
    /// Runs one payload word of `flow` (`word` holds byte `i` at bits `8i+7..8i`; bit `i` of
    /// `keep` says whether byte `i` is valid).
    fn word(
        &mut self,
        scu: ScuId,
        flow: u64,
        word: &Bits,
        keep: u64,
        last: bool,
        now_ns: u64,
    ) -> Result<WordOutput, DeviceError>;
    /// Adds a run-time entry (one match per key, in key order); returns its handle.
    fn add_entry(
        &mut self,
        scu: ScuId,
        table: &str,
        keys: &[KeyMatch],
        action: &str,
        args: &[BigUint],
        priority: u64,
    ) -> Result<u64, DeviceError>;
    /// Removes the entry with `handle`; whether it existed.
    fn remove_entry(&mut self, scu: ScuId, table: &str, handle: u64) -> Result<bool, DeviceError>;
    /// Removes every run-time entry of a table; whether the table exists.
    fn clear_entries(&mut self, scu: ScuId, table: &str) -> Result<bool, DeviceError>;
    /// Replaces a table's default action.
    fn set_default(
        &mut self,
        scu: ScuId,
        table: &str,
        action: &str,
        args: &[BigUint],
    ) -> Result<(), DeviceError>;
    /// Writes a CSR as the host does; whether it exists.
    fn set_csr(&mut self, scu: ScuId, name: &str, value: u64) -> Result<bool, DeviceError>;
    /// Reads a CSR (or an scu `param`).
    fn csr(&mut self, scu: ScuId, name: &str) -> Result<Option<u64>, DeviceError>;
    /// Writes a cc's param; whether it exists.
    fn set_cc_param(&mut self, cc: &str, param: &str, value: u64) -> Result<bool, DeviceError>;
    /// Reads a cc's param.
    fn cc_param(&mut self, cc: &str, param: &str) -> Result<Option<u64>, DeviceError>;
    /// Reads a counter cell.
    fn counter(
        &mut self,
        scu: ScuId,
        name: &str,
        index: usize,
    ) -> Result<Option<CounterCell>, DeviceError>;
    /// Delivers a congestion signal for `flow` at `now_ns`.
    fn cc_event(
        &mut self,
        cc: CcId,
        flow: u64,
        event: CcEvent,
        now_ns: u64,
    ) -> Result<(), DeviceError>;
    /// A flow's rate (bit/s) or window (bytes); `None` before its first signal.
    fn cc_output(&mut self, cc: CcId, flow: u64) -> Result<Option<u64>, DeviceError>;
    /// The notifications raised since the last call (by scus and ccs), in the order raised per
    /// target. A device that cannot observe them says so.
    fn notifications(&mut self) -> Result<Vec<Notification>, DeviceError> {
        Err(DeviceError::Unsupported {
            device: "this device",
            what: "report notifications",
        })
    }
    /// The host writes `key`'s value in map `map` of `scu` (a scalar value, as its bits);
    /// `Ok(false)` when the map refuses the key (a full `hash` map, an `array` key at or above its
    /// size). The key and value fit the map's types ([`super::setup`] checks them).
    fn map_write(
        &mut self,
        scu: ScuId,
        map: &str,
        key: &BigUint,
        value: &BigUint,
    ) -> Result<bool, DeviceError> {
        let _ = (scu, map, key, value);
        Err(DeviceError::Unsupported {
            device: "this device",
            what: "write maps",
        })
    }
    /// The host reads `key`'s value in map `map` of `scu` without refreshing its recency; `None`
    /// when the key is absent.
    fn map_read(
        &mut self,
        scu: ScuId,
        map: &str,
        key: &BigUint,
    ) -> Result<Option<BigUint>, DeviceError> {
        let _ = (scu, map, key);
        Err(DeviceError::Unsupported {
            device: "this device",
            what: "read maps",
        })
    }
}

impl Device for Machine<'_> {
    fn module(&self) -> &Module {
        Machine::module(self)
    }

    fn advance_time(&mut self, now_ns: u64) -> Result<(), DeviceError> {
        Machine::advance_time(self, now_ns);
        Ok(())
    }

    fn packet(
        &mut self,
        scu: ScuId,
        data: &[u8],
        port: u8,
        now_ns: u64,
    ) -> Result<Vec<(Destination, Vec<u8>)>, DeviceError> {
        Ok(self.process_packet(scu, data, port, now_ns).outputs)
    }

    fn word(
        &mut self,
        scu: ScuId,
        flow: u64,
        word: &Bits,
        keep: u64,
        last: bool,
        now_ns: u64,
    ) -> Result<WordOutput, DeviceError> {
        let outcome = self.process_word(scu, flow, word, last, keep, now_ns);
        Ok(WordOutput {
            passed: outcome
                .passed
                .iter()
                .map(|(w, k)| scenic_interp::stream::word_bytes(w, *k))
                .collect(),
            pushed: outcome.pushed,
        })
    }

    fn add_entry(
        &mut self,
        scu: ScuId,
        table: &str,
        keys: &[KeyMatch],
        action: &str,
        args: &[BigUint],
        priority: u64,
    ) -> Result<u64, DeviceError> {
        Ok(Machine::add_entry(
            self, scu, table, keys, action, args, priority,
        )?)
    }

    fn remove_entry(&mut self, scu: ScuId, table: &str, handle: u64) -> Result<bool, DeviceError> {
        Ok(Machine::remove_entry(self, scu, table, handle))
    }

    fn clear_entries(&mut self, scu: ScuId, table: &str) -> Result<bool, DeviceError> {
        Ok(Machine::clear_entries(self, scu, table))
    }

    fn set_default(
        &mut self,
        scu: ScuId,
        table: &str,
        action: &str,
        args: &[BigUint],
    ) -> Result<(), DeviceError> {
        Ok(Machine::set_default(self, scu, table, action, args)?)
    }

    fn set_csr(&mut self, scu: ScuId, name: &str, value: u64) -> Result<bool, DeviceError> {
        Ok(Machine::set_csr(self, scu, name, &BigUint::from(value)))
    }

    fn csr(&mut self, scu: ScuId, name: &str) -> Result<Option<u64>, DeviceError> {
        Ok(Machine::csr(self, scu, name).map(|b| b.to_u64()))
    }

    fn set_cc_param(&mut self, cc: &str, param: &str, value: u64) -> Result<bool, DeviceError> {
        Ok(Machine::set_cc_param(self, cc, param, value))
    }

    fn cc_param(&mut self, cc: &str, param: &str) -> Result<Option<u64>, DeviceError> {
        Ok(Machine::cc_param(self, cc, param))
    }

    fn counter(
        &mut self,
        scu: ScuId,
        name: &str,
        index: usize,
    ) -> Result<Option<CounterCell>, DeviceError> {
        Ok(Machine::counter(self, scu, name, index))
    }

    fn cc_event(
        &mut self,
        cc: CcId,
        flow: u64,
        event: CcEvent,
        now_ns: u64,
    ) -> Result<(), DeviceError> {
        Machine::cc_event(self, cc, flow, event, now_ns);
        Ok(())
    }

    fn cc_output(&mut self, cc: CcId, flow: u64) -> Result<Option<u64>, DeviceError> {
        Ok(Machine::cc_output(self, cc, flow))
    }

    fn notifications(&mut self) -> Result<Vec<Notification>, DeviceError> {
        Ok(Machine::unread_notifications(self))
    }

    fn map_write(
        &mut self,
        scu: ScuId,
        map: &str,
        key: &BigUint,
        value: &BigUint,
    ) -> Result<bool, DeviceError> {
        let Some((id, def)) = map_def(self.module(), scu, map) else {
            return Ok(false);
        };
        let Some(width) = scalar_width(self.module(), &def.value) else {
            return Err(struct_values());
        };
        let key = Bits::from_biguint(width_of(&def.key, self.module()), key);
        let value = Value::Bits(Bits::from_biguint(width, value));
        Ok(self
            .scus
            .get_mut(scu.index())
            .and_then(|s| s.maps.get_mut(id.index()))
            .is_some_and(|m| m.insert_from(&key, &value)))
    }

    fn map_read(
        &mut self,
        scu: ScuId,
        map: &str,
        key: &BigUint,
    ) -> Result<Option<BigUint>, DeviceError> {
        let Some((id, def)) = map_def(self.module(), scu, map) else {
            return Ok(None);
        };
        if scalar_width(self.module(), &def.value).is_none() {
            return Err(struct_values());
        }
        let key = Bits::from_biguint(width_of(&def.key, self.module()), key);
        let state = self
            .scus
            .get(scu.index())
            .and_then(|s| s.maps.get(id.index()));
        Ok(state.and_then(|m| m.peek(&key)).map(|v| match v {
            Value::Bits(b) => b.to_biguint(),
            _ => BigUint::default(),
        }))
    }
}

/// Map `name` of scu `scu`: its id and definition.
fn map_def<'m>(
    module: &'m Module,
    scu: ScuId,
    name: &str,
) -> Option<(scenic_ir::entities::MapId, &'m scenic_ir::program::Map)> {
    module
        .scus
        .get(scu)?
        .maps
        .iter()
        .find(|(_, m)| m.name == name)
}

/// The width of a scalar map value type (`bit<N>`, `int<N>`, `bool`, an enum); `None` for a
/// struct, array or tuple.
pub fn scalar_width(module: &Module, ty: &scenic_ir::types::Type) -> Option<u32> {
    ty.scalar_width(|e| module.enums.get(e).map_or(8, |d| d.width))
}

fn struct_values() -> DeviceError {
    DeviceError::Unsupported {
        device: "scenicc test",
        what: "read or write a map whose values are not scalars (STF maps take bit<N>, int<N>, bool or enum values)",
    }
}
