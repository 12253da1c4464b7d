//! The host's view of notifications and maps on the C-simulated kernels: what `expect_notify`,
//! `map_write` and `check_map` of STF (`docs/testing.md`) need.
//!
//! Maps go through the control records the kernel decodes on `ctrl_in` (`ir/abi/src/control`):
//! `MapInsert` with the key in the low `key_bits` of the record and the value after it, `MapGet`
//! with the key (`NotFound` when absent; no LRU refresh, as the interpreter's host read).
//! Notifications are those the scu kernels wrote, then those of the cc kernels, since the last
//! call: between two reads, the relative order of an scu's and a cc's notifications to the same
//! target is not kept (the kernels run in separate processes).

use super::{CsimDevice, DevResult};
use num_bigint::BigUint;
use scenic_interp::context::Notification;
use scenic_ir::entities::ScuId;
use scenic_scu_abi::control::{Op, Request, Status};
use scenic_sim::device::DeviceError;
use std::sync::Arc;

/// A notification a kernel raised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsimNote {
    /// The scu (or cc) that raised it.
    pub scu: String,
    /// To the Arm cores (or the host).
    pub to_arm: bool,
    /// The value.
    pub value: u32,
}

impl CsimDevice<'_> {
    /// The notifications raised since the last call: the scus' in order, then the ccs'.
    pub(super) fn new_notifications(&mut self) -> Vec<Notification> {
        let from = self.notes_read.min(self.notifications.len());
        self.notes_read = self.notifications.len();
        let scus = self.notifications[from..].to_vec();
        scus.into_iter()
            .chain(self.ccs.new_notifications())
            .map(|n| Notification {
                time_ns: 0,
                source: Arc::from(n.scu.as_str()),
                to_arm: n.to_arm,
                value: n.value,
            })
            .collect()
    }

    /// `MapInsert` of `key` and `value` in map `map` of `scu`; `false` when the kernel answers
    /// `Full` (or `NotFound` for an `array` key beyond its size).
    pub(super) fn write_map(
        &mut self,
        scu: ScuId,
        map: &str,
        key: &BigUint,
        value: &BigUint,
    ) -> DevResult<bool> {
        let Some(m) = self.layout(scu)?.map(map).cloned() else {
            return Ok(false);
        };
        let req = Request {
            op: Op::MapInsert,
            target: m.target,
            index: 0,
            data: m.encode_key_value(key, value),
        };
        match self.ctrl(scu, &req)?.0 {
            Some(Status::Ok) => Ok(true),
            Some(Status::Full | Status::NotFound | Status::BadIndex) => Ok(false),
            other => Err(DeviceError::Protocol {
                device: "hls-csim",
                problem: format!("writing map `{map}`: status {other:?}"),
            }),
        }
    }

    /// `MapGet` of `key` in map `map` of `scu`; `None` when the kernel answers `NotFound`.
    pub(super) fn read_map(
        &mut self,
        scu: ScuId,
        map: &str,
        key: &BigUint,
    ) -> DevResult<Option<BigUint>> {
        let Some(m) = self.layout(scu)?.map(map).cloned() else {
            return Ok(None);
        };
        let req = Request {
            op: Op::MapGet,
            target: m.target,
            index: 0,
            data: m.encode_key(key),
        };
        match self.ctrl(scu, &req)? {
            (Some(Status::Ok), data) => Ok(Some(m.decode_value(&data))),
            (Some(Status::NotFound | Status::BadIndex), _) => Ok(None),
            (other, _) => Err(DeviceError::Protocol {
                device: "hls-csim",
                problem: format!("reading map `{map}`: status {other:?}"),
            }),
        }
    }
}
