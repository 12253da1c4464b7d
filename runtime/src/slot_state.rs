//! The per-slot bank state machine of `docs/device.md` §3.4, as a pure value.
//!
//! [`SlotMachine`] holds the two banks' states, the active bank, `MIRROR` and `QUIESCED`, and decides
//! every `SLOT_CMD`: [`SlotMachine::apply`] either performs the transition and says which bank it
//! acted on, or refuses with `E_BAD_STATE` and **changes nothing**. The device side (`emu.rs`, later
//! the emulated NIC) owns one per slot and publishes [`SlotMachine::word`] in `SLOT_STATE`; the host
//! side uses the same type to predict and check transitions in tests.
//!
//! "Other" bank (the bank a command acts on, §3.4): the bank that is not `ACTIVE` when one is;
//! when none is, the `DRAINING` bank if there is one, else the `SHADOW` or `LOADING` bank if there
//! is one, else bank 0. (The document's first wording, "bank 0 when none is", left a `DRAINING`
//! bank 1 unfreeable after `DEACTIVATE`; this rule is the one written in device.md 1.0 now.)
//!
//! Invariants: at most one bank is `ACTIVE`; `active` is `Some(b)` exactly when bank `b` is
//! `ACTIVE`; `mirror` implies a `SHADOW` bank next to an `ACTIVE` one; in a CC slot only bank 0 is
//! used and `ACTIVATE`, `DEACTIVATE` and `MIRROR` are refused.

use crate::abi::codes::Code;
use crate::abi::slot::{Bank, BankState, SlotKind, SlotOp, SlotStateWord};

/// A refused or unknown slot command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// `E_BAD_STATE` or `E_BAD_COMMAND`.
    pub code: Code,
    /// The result's detail: `SLOT_STATE[0..16)` for `E_BAD_STATE`, else 0.
    pub detail: u32,
}

/// What an accepted command did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// A bank changed state (the result's detail is the bank).
    Bank(Bank),
    /// The other bank went `LOADING`: the device now loads it and calls
    /// [`SlotMachine::finish_load`].
    LoadStarted(Bank),
    /// `ACTIVATE` switched: the new active bank (the device updates `SWITCH_SEQ`/`SWITCH_COUNT`).
    Switched(Bank),
    /// A staging or queue command the state allows; the device performs it.
    Allowed,
}

/// The two banks of one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotMachine {
    kind: SlotKind,
    banks: [BankState; 2],
    active: Option<Bank>,
    mirror: bool,
    quiesced: bool,
}

impl SlotMachine {
    /// A slot of `kind` with both banks `EMPTY`.
    pub fn new(kind: SlotKind) -> SlotMachine {
        SlotMachine {
            kind,
            banks: [BankState::Empty; 2],
            active: None,
            mirror: false,
            quiesced: false,
        }
    }

    /// The slot's kind.
    pub fn kind(&self) -> SlotKind {
        self.kind
    }

    /// A bank's state.
    pub fn bank(&self, bank: Bank) -> BankState {
        self.banks[bank.index()]
    }

    /// The active bank.
    pub fn active(&self) -> Option<Bank> {
        self.active
    }

    /// The `SLOT_STATE` value.
    pub fn word(&self) -> SlotStateWord {
        SlotStateWord {
            banks: [Some(self.banks[0]), Some(self.banks[1])],
            active: self.active,
            mirror: self.mirror,
            quiesced: self.quiesced && self.banks.contains(&BankState::Draining),
        }
    }

    /// The bank commands act on (module doc).
    pub fn other(&self) -> Bank {
        if self.kind == SlotKind::Cc {
            return Bank::B0;
        }
        if let Some(active) = self.active {
            return active.other();
        }
        let find = |want: &[BankState]| {
            [Bank::B0, Bank::B1]
                .into_iter()
                .find(|b| want.contains(&self.banks[b.index()]))
        };
        find(&[BankState::Draining])
            .or_else(|| find(&[BankState::Shadow, BankState::Loading]))
            .unwrap_or(Bank::B0)
    }

    fn refuse(&self) -> Refusal {
        Refusal {
            code: Code::BadState,
            detail: (self.word().encode() & 0xFFFF) as u32,
        }
    }

    fn any(&self, state: BankState) -> bool {
        self.banks.contains(&state)
    }

    /// Applies `SLOT_CMD` opcode `opcode` with `arg`; `cc_active` says whether this CC slot is the
    /// active one (ignored for SCU slots). On `Err` nothing changed.
    pub fn apply(&mut self, opcode: u8, arg: u64, cc_active: bool) -> Result<Effect, Refusal> {
        let Some(op) = SlotOp::from_code(opcode) else {
            return Err(Refusal {
                code: Code::BadCommand,
                detail: 0,
            });
        };
        let scu = self.kind == SlotKind::Scu;
        let other = self.other();
        let o = self.banks[other.index()];
        match op {
            SlotOp::Load if o == BankState::Empty => {
                self.banks[other.index()] = BankState::Loading;
                Ok(Effect::LoadStarted(other))
            }
            SlotOp::Activate if scu && o == BankState::Shadow && !self.any(BankState::Draining) => {
                if let Some(old) = self.active {
                    self.banks[old.index()] = BankState::Draining;
                    self.quiesced = false;
                }
                self.banks[other.index()] = BankState::Active;
                self.active = Some(other);
                self.mirror = false;
                Ok(Effect::Switched(other))
            }
            SlotOp::Deactivate if scu && self.active.is_some() => {
                let Some(old) = self.active.take() else {
                    return Err(self.refuse());
                };
                self.banks[old.index()] = BankState::Draining;
                self.quiesced = false;
                self.mirror = false;
                Ok(Effect::Bank(old))
            }
            SlotOp::Free => self.free(other, arg, cc_active),
            SlotOp::Mirror if scu && o == BankState::Shadow && self.active.is_some() => {
                self.mirror = arg & 1 == 1;
                Ok(Effect::Bank(other))
            }
            SlotOp::StageReset | SlotOp::StageWrite if !self.any(BankState::Loading) => {
                Ok(Effect::Allowed)
            }
            SlotOp::QueueReset => Ok(Effect::Allowed),
            _ => Err(self.refuse()),
        }
    }

    fn free(&mut self, other: Bank, arg: u64, cc_active: bool) -> Result<Effect, Refusal> {
        let o = self.banks[other.index()];
        let ok = match (arg & 1, o) {
            (1, BankState::Draining) => self.quiesced,
            (0, BankState::Shadow) => !(self.kind == SlotKind::Cc && cc_active),
            _ => false,
        };
        if !ok {
            return Err(self.refuse());
        }
        self.banks[other.index()] = BankState::Empty;
        if o == BankState::Shadow {
            self.mirror = false;
        }
        Ok(Effect::Bank(other))
    }

    /// Ends a load started by [`Effect::LoadStarted`]: `SHADOW` on success, `EMPTY` on failure.
    pub fn finish_load(&mut self, bank: Bank, ok: bool) {
        if self.banks[bank.index()] == BankState::Loading {
            self.banks[bank.index()] = if ok {
                BankState::Shadow
            } else {
                BankState::Empty
            };
        }
    }

    /// Marks the draining bank as having nothing in flight (`QUIESCED`).
    pub fn set_quiesced(&mut self) {
        self.quiesced = true;
    }

    /// Whether a bank is draining and not yet quiesced.
    pub fn draining_busy(&self) -> bool {
        self.any(BankState::Draining) && !self.quiesced
    }

    /// For a CC slot: becomes the active CC (`ACTIVE`) or standby (`SHADOW`) at a CC switch.
    pub fn set_cc_role(&mut self, active: bool) {
        if self.kind != SlotKind::Cc
            || !matches!(self.banks[0], BankState::Shadow | BankState::Active)
        {
            return;
        }
        self.banks[0] = if active {
            BankState::Active
        } else {
            BankState::Shadow
        };
        self.active = active.then_some(Bank::B0);
    }

    /// Global reset: both banks `EMPTY`, no flags.
    pub fn reset(&mut self) {
        *self = SlotMachine::new(self.kind);
    }
}
