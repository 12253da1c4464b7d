//! The host control path on the reference interpreter: [`serve`] answers one
//! [`scenic_scu_abi::control::Request`] for one scu of a [`Machine`] with the
//! [`Response`] the generated HLS kernel gives (`serve_ctrl` of `backend-hls/src/writer/ctrl.rs`,
//! the table structs of `writer/tables.rs` and `writer/tables_exact.rs`, the maps, counters and
//! meters of `backend-hls/include`).
//!
//! What it owns: the translation of records ([`ScuControl`]'s layouts) to the interpreter's state
//! and back, the kernel's per-table numbering of run-time entries (`tables`) and the kernel's
//! iteration positions of maps (`maps`). Everything else is the interpreter's own state,
//! changed through its public API, so a packet processed after a request sees it.
//!
//! Invariants: one request changes at most the one object it targets; a refused request (any
//! status but `Ok`) changes nothing; nothing in a request can make it panic — unknown targets are
//! `BadTarget`, out-of-range cells `BadIndex`, and a layout that does not fit the machine (another
//! module's) answers `BadTarget` too. Statuses are checked in the kernel's order (for `TableAdd`:
//! `BadAction`, `Constant`, `Full`, `Duplicate`; for `TableModify`: `BadAction`, `Constant`,
//! `NotFound`). No known op is `BadOp`: every op has its own target space in the kernel, and an
//! op code `Op` does not have cannot reach here.

mod maps;
mod tables;

use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::runtime::ScuRuntime;
use scenic_interp::state::Bucket;
use scenic_interp::Machine;
use scenic_ir::entities::ScuId;
use scenic_ir::proc::bits::Bits;
use scenic_scu_abi::control::{get_field, to_u64, Op, Request, Response, ScuControl, Status};

pub use maps::iteration_slots;

/// Answers one control request for scu `scu` of `machine`, as the generated kernel does.
/// `layout` is the scu's control layout (`ControlLayout::new(module, info).scus[scu]`).
pub fn serve(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Response {
    let result = match req.op {
        Op::CsrRead => csr_read(machine, scu, layout, req),
        Op::CsrWrite => csr_write(machine, scu, layout, req),
        Op::TableAdd => tables::add(machine, scu, layout, req),
        Op::TableRemove => tables::remove(machine, scu, layout, req),
        Op::TableClear => tables::clear(machine, scu, layout, req),
        Op::TableSetDefault => tables::set_default(machine, scu, layout, req),
        Op::TableModify => tables::modify(machine, scu, layout, req),
        Op::CounterRead => counter_read(machine, scu, layout, req),
        Op::CounterClear => counter_clear(machine, scu, layout, req),
        Op::MapGet => maps::get(machine, scu, layout, req),
        Op::MapInsert => maps::insert(machine, scu, layout, req),
        Op::MapRemove => maps::remove(machine, scu, layout, req),
        Op::MapIterate => maps::iterate(machine, scu, layout, req),
        Op::MeterConfigure => meter_configure(machine, scu, layout, req),
    };
    match result {
        Ok(data) => Response {
            status: Status::Ok as u8,
            data,
        },
        Err(Refused(status, data)) => Response {
            status: status as u8,
            data,
        },
    }
}

/// A request the kernel refuses: its status and the data it still answers with.
pub(crate) struct Refused(Status, BigUint);

impl Refused {
    /// A refusal with zero data (what the kernel answers for most of them).
    pub(crate) fn with(status: Status) -> Refused {
        Refused(status, BigUint::default())
    }
}

/// What one op gives: the response data, or a refusal.
pub(crate) type Answer = Result<BigUint, Refused>;

/// The run-time state of `scu`; `BadTarget` when the machine has no such scu.
pub(crate) fn scu_state<'a>(
    machine: &'a mut Machine<'_>,
    scu: ScuId,
) -> Result<&'a mut ScuRuntime, Refused> {
    machine
        .scus
        .get_mut(scu.index())
        .ok_or(Refused::with(Status::BadTarget))
}

/// Position of the CSR at word offset `target` in the layout (= its `CsrId` index).
fn csr_position(layout: &ScuControl, target: u16) -> Result<usize, Refused> {
    layout
        .csrs
        .iter()
        .position(|c| c.offset == u32::from(target))
        .ok_or(Refused::with(Status::BadTarget))
}

fn csr_read(machine: &mut Machine<'_>, scu: ScuId, layout: &ScuControl, req: &Request) -> Answer {
    let i = csr_position(layout, req.target)?;
    let state = scu_state(machine, scu)?;
    let value = state.csrs.get(i).ok_or(Refused::with(Status::BadTarget))?;
    Ok(value.to_biguint())
}

fn csr_write(machine: &mut Machine<'_>, scu: ScuId, layout: &ScuControl, req: &Request) -> Answer {
    let i = csr_position(layout, req.target)?;
    if layout.csrs[i].host_readonly {
        return Err(Refused::with(Status::ReadOnly));
    }
    let state = scu_state(machine, scu)?;
    let slot = state
        .csrs
        .get_mut(i)
        .ok_or(Refused::with(Status::BadTarget))?;
    // The CSR keeps the low bits of its width (the interpreter's width, as `Machine::set_csr`).
    *slot = Bits::from_biguint(slot.width(), &req.data);
    Ok(BigUint::default())
}

/// The cells of the counter array at `target`, checked against the layout and the machine.
fn counter_cells<'a>(
    machine: &'a mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    target: u16,
) -> Result<&'a mut Vec<scenic_interp::runtime::CounterCell>, Refused> {
    if !layout.counters.iter().any(|c| c.target == target) {
        return Err(Refused::with(Status::BadTarget));
    }
    scu_state(machine, scu)?
        .counters
        .get_mut(usize::from(target))
        .ok_or(Refused::with(Status::BadTarget))
}

fn counter_read(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let cells = counter_cells(machine, scu, layout, req.target)?;
    let cell = cells
        .get(req.index as usize)
        .ok_or(Refused::with(Status::BadIndex))?;
    Ok(BigUint::from(cell.packets) | (BigUint::from(cell.bytes) << 64))
}

fn counter_clear(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let cells = counter_cells(machine, scu, layout, req.target)?;
    let cell = cells
        .get_mut(req.index as usize)
        .ok_or(Refused::with(Status::BadIndex))?;
    *cell = scenic_interp::runtime::CounterCell::default();
    Ok(BigUint::default())
}

fn meter_configure(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    if !layout.meters.iter().any(|m| m.target == req.target) {
        return Err(Refused::with(Status::BadTarget));
    }
    let cells = scu_state(machine, scu)?
        .meters
        .get_mut(usize::from(req.target))
        .ok_or(Refused::with(Status::BadTarget))?;
    let cell = cells
        .get_mut(req.index as usize)
        .ok_or(Refused::with(Status::BadIndex))?;
    let rate = to_u64(&get_field(&req.data, 0, 64));
    let burst = to_u64(&get_field(&req.data, 64, 64));
    // The kernel's `configure`: a full bucket of the new rate and burst.
    *cell = Bucket::new(Some(rate), Some(burst));
    Ok(BigUint::default())
}
