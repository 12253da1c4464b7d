//! [`Attached`]: a slot's [`Scu`] kept beside the device and package it borrows, so repeated
//! operations (a `set_csr` loop) do not re-open the package and re-read the identity block.
//!
//! Invariant: an `Attached` is used only while the slot's active bank and switch count are the ones
//! it was made under ([`Generation`]); a load or swap by anyone (this process or another) changes
//! them, and the slot then attaches afresh, so the runtime's identity check runs again.

use std::sync::Arc;

use scenic_runtime::scu::Which;
use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, Package, Scu, ScuError};

/// What an attachment borrows.
pub struct Owner {
    /// The device.
    pub dev: Arc<Device>,
    /// The package the slot's journal names.
    pub pkg: Package,
}

type ScuOf<'a> = Scu<'a>;

self_cell::self_cell!(
    /// A slot's `Scu` with its owner.
    pub struct Attached {
        owner: Owner,
        #[not_covariant]
        dependent: ScuOf,
    }
);

/// The active bank and `SWITCH_COUNT` of a slot: an attachment is valid while they stay.
pub type Generation = (Option<u8>, u64);

impl Attached {
    /// Attaches to slot `k`'s active bank, which must run the package of its journal.
    pub fn attach(
        dev: Arc<Device>,
        k: u8,
        pkg: Package,
        unit: &str,
        state: &StateDir,
    ) -> Result<Attached, ScuError> {
        Attached::try_new(Owner { dev, pkg }, |owner| {
            Scu::attach_with(
                &owner.dev,
                k,
                &owner.pkg,
                Some(unit),
                Which::Active,
                state.clone(),
            )
        })
    }

    /// Runs `f` on the attached `Scu`.
    pub fn run<R>(&self, f: impl for<'a> FnOnce(&Scu<'a>) -> R) -> R {
        self.with_dependent(|_, scu| f(scu))
    }
}
