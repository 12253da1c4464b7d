//! [`Scu`]: one slot of a device, driven by name through the package loaded into it (issue 12,
//! SYSTEM.md "Runtime vocabulary"): CSRs by name or offset, tables, counters, maps, meters.
//!
//! [`Scu::attach`] checks that the slot's bank runs the package's unit: its identity block
//! (`docs/device.md` §3.2: `SOURCE_SHA256`, `NAME_HASH`, `FORMAT`, `COMPILER`, `UNIT`) equals the
//! identity computed from the manifest. Every operation then checks names, widths, indices, actions
//! and argument counts against the manifest **before** anything is sent, so a wrong one is an error
//! that leaves the device unchanged (§3.6: "key widths are checked by the client"). A refusal by the
//! unit (a full table, a missing handle) is a [`ScuError::Unit`] naming the object and the status.
//!
//! The active bank's CSRs go through the CSR window (§3.5; a write is fenced and `SLOT_ERROR` read
//! so a refusal is reported); the non-active bank's ([`Which::Other`]) through `CsrRead`/`CsrWrite`
//! requests with the `OTHER_BANK` flag, as every other request of such an `Scu`.
//! Tables live in [`table`] (keys in the STF `add` syntax, the journal of entries).

use num_bigint::BigUint;
use scenic_scu_abi::control::{
    decode_counter, encode_meter, to_u64, CounterControl, CsrControl, MapControl, MeterControl, Op,
    Request, Response, ScuControl, Status,
};

use crate::abi::codes::Code;
use crate::abi::slot::{self, Bank, BankState};
use crate::abi::{self, ErrorWord};
use crate::container::{StagedIdentity, UnitKind};
use crate::control::{ControlError, ControlQueue};
use crate::device::{Device, DeviceError};
use crate::package::{Package, PackageError};
use crate::state::{StateDir, StateError};

pub mod table;

/// Why an operation on a slot failed. Every variant but [`ScuError::Unit`], [`ScuError::Csr`] and
/// the device's own failures is found before anything is sent.
#[derive(Debug, thiserror::Error)]
pub enum ScuError {
    /// The package cannot be used.
    #[error(transparent)]
    Package(#[from] PackageError),
    /// The device failed, went away, or refused a command.
    #[error(transparent)]
    Dev(#[from] DeviceError),
    /// The control queue failed (a device status, a timeout).
    #[error(transparent)]
    Control(#[from] ControlError),
    /// The state directory (locks, journal) failed.
    #[error(transparent)]
    State(#[from] StateError),
    /// The slot's bank is not loaded as needed.
    #[error("slot {slot}: {problem}")]
    Slot {
        /// The slot.
        slot: u8,
        /// What is wrong.
        problem: String,
    },
    /// The slot runs something else than the package's unit.
    #[error("slot {slot} bank {bank}: {problem}")]
    Identity {
        /// The slot.
        slot: u8,
        /// The bank.
        bank: u8,
        /// What differs.
        problem: String,
    },
    /// A name the unit does not have.
    #[error("scu `{scu}` has no {kind} `{name}` ({kind}s: {known})")]
    NoName {
        /// The unit.
        scu: String,
        /// `CSR`, `table`, `map`, `counter`, `meter`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// The names it has.
        known: String,
    },
    /// A value, width, index, count or syntax refused against the manifest (nothing was sent).
    #[error("{0}; nothing was sent to the device")]
    Refused(String),
    /// The unit refused the request (nothing changed on it, §6).
    #[error("{what}: the unit answered {}", status_name(*.status))]
    Unit {
        /// The request (`table acl: add`).
        what: String,
        /// Its status.
        status: Status,
    },
    /// A CSR window access the device refused (`SLOT_ERROR`, §3.5).
    #[error("slot {slot}: CSR `{name}` (offset {offset}): the device refused the write: {code}")]
    Csr {
        /// The slot.
        slot: u8,
        /// The CSR.
        name: String,
        /// Its offset.
        offset: u32,
        /// The refusal.
        code: Code,
    },
}

impl ScuError {
    /// The `scenic` exit code: 2 for I/O (a package or state file that cannot be read, a device
    /// that is not there), 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            ScuError::Package(e) => e.exit_code(),
            ScuError::State(StateError::Io { .. }) => 2,
            _ => 1,
        }
    }
}

/// The meaning of a unit status, for messages.
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Ok => "Ok",
        Status::NotFound => "NotFound (1): no such key, entry handle or map key",
        Status::Full => "Full (2): the table or map is full",
        Status::Duplicate => "Duplicate (3): an entry with these exact keys exists",
        Status::Constant => "Constant (4): the table has only constant entries",
        Status::BadTarget => "BadTarget (5): no such object in the unit",
        Status::BadIndex => "BadIndex (6): the cell index is out of range",
        Status::ReadOnly => "ReadOnly (7): the CSR is readonly",
        Status::BadOp => "BadOp (8): the op does not apply to the target",
        Status::BadAction => "BadAction (9): the table has no such action",
        Status::End => "End (10): no entry left",
    }
}

/// Which bank an [`Scu`] addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The active bank (CSRs through the window).
    Active,
    /// The non-active bank, `SHADOW` or `DRAINING` (every access through the control queue).
    Other,
}

/// One slot running a package's scu, addressed by name.
#[derive(Debug)]
pub struct Scu<'a> {
    pub(crate) dev: &'a Device,
    pub(crate) pkg: &'a Package,
    pub(crate) slot: u8,
    pub(crate) base: u64,
    pub(crate) index: u16,
    pub(crate) which: Which,
    pub(crate) bank: Bank,
    pub(crate) control: &'a ScuControl,
    pub(crate) data_bits: u32,
    pub(crate) queue: ControlQueue<'a>,
    pub(crate) state: StateDir,
}

/// Hex of a SHA-256 (first byte first).
pub(crate) fn sha_hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The identity block of `bank` of slot block `base`.
pub(crate) fn read_identity(
    dev: &Device,
    base: u64,
    bank: Bank,
) -> Result<StagedIdentity, DeviceError> {
    let id = base + slot::identity_block(bank);
    let mut sha = [0u8; 32];
    for (w, chunk) in sha.chunks_mut(8).enumerate() {
        let word = dev.read(id + slot::SOURCE_SHA256 + 8 * w as u64)?;
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Ok(StagedIdentity {
        source_sha256: sha,
        name_hash: dev.read(id + slot::NAME_HASH)?,
        format: dev.read(id + slot::FORMAT)?,
        compiler: dev.read(id + slot::COMPILER)?,
        unit: dev.read(id + slot::UNIT)? as u16,
    })
}

/// What differs between a bank's identity and the one expected, or `None`.
pub(crate) fn identity_difference(
    found: &StagedIdentity,
    want: &StagedIdentity,
    pkg: &Package,
    unit: &str,
) -> Option<String> {
    if found.source_sha256 != want.source_sha256 {
        return Some(format!(
            "runs another program (source sha256 {}…), not `{}` of {} (source sha256 {}…); the \
             package was rebuilt since it was loaded, or another one is loaded: `scenic load` it",
            &sha_hex(&found.source_sha256)[..16],
            unit,
            pkg.dir().display(),
            &sha_hex(&want.source_sha256)[..16],
        ));
    }
    if found.name_hash != want.name_hash || found.unit != want.unit {
        return Some(format!(
            "runs another unit of program `{}` (unit index {}), not `{unit}` (index {})",
            pkg.name(),
            found.unit,
            want.unit
        ));
    }
    if found.format != want.format || found.compiler != want.compiler {
        return Some(format!(
            "format or compiler words differ ({:#x}/{:#x} loaded, {:#x}/{:#x} in {})",
            found.format,
            found.compiler,
            want.format,
            want.compiler,
            pkg.dir().display()
        ));
    }
    None
}

impl<'a> Scu<'a> {
    /// Attaches to the active bank of slot `k`, which must run `unit` of `pkg` (`None`: the
    /// package's only scu). Locks and the journal live in the device's [`StateDir::of`].
    pub fn attach(
        dev: &'a Device,
        k: u8,
        pkg: &'a Package,
        unit: Option<&str>,
    ) -> Result<Scu<'a>, ScuError> {
        Scu::attach_with(dev, k, pkg, unit, Which::Active, StateDir::of(dev)?)
    }

    /// [`Scu::attach`] to either bank, with an explicit state directory.
    pub fn attach_with(
        dev: &'a Device,
        k: u8,
        pkg: &'a Package,
        unit: Option<&str>,
        which: Which,
        state: StateDir,
    ) -> Result<Scu<'a>, ScuError> {
        let (kind, index) = pkg.unit(unit)?;
        let name = pkg.unit_name(kind, index)?.to_string();
        let slot_error = |problem: String| ScuError::Slot { slot: k, problem };
        if kind != UnitKind::Scu || k >= abi::MAX_SCU_SLOTS {
            return Err(slot_error(format!(
                "`{name}` is a {}; the runtime drives scus in SCU slots (0-15) by name",
                kind.name()
            )));
        }
        let base = dev.slot_block(k)?;
        let st = dev.slot_state(k)?;
        let bank = match (which, st.active) {
            (Which::Active, Some(b)) => b,
            (Which::Active, None) => {
                return Err(slot_error(
                    "no active bank: load a package first (`scenic load`)".into(),
                ))
            }
            (Which::Other, active) => {
                let other = active.map_or(Bank::B0, Bank::other);
                let ok = [BankState::Shadow, BankState::Draining];
                match st.banks[other.index()] {
                    Some(s) if ok.contains(&s) => other,
                    _ => return Err(slot_error("no SHADOW or DRAINING bank".into())),
                }
            }
        };
        let want = pkg.identity(kind, index)?;
        let found = read_identity(dev, base, bank)?;
        if let Some(problem) = identity_difference(&found, &want, pkg, &name) {
            return Err(ScuError::Identity {
                slot: k,
                bank: bank as u8,
                problem,
            });
        }
        let control = pkg.scu_control(index).ok_or_else(|| {
            slot_error(format!("the manifest has no control layout for `{name}`"))
        })?;
        Ok(Scu {
            dev,
            pkg,
            slot: k,
            base,
            index,
            which,
            bank,
            control,
            data_bits: pkg.manifest().control.data_bits,
            queue: ControlQueue::new(dev, k, state.clone())?,
            state,
        })
    }

    /// The slot.
    pub fn slot(&self) -> u8 {
        self.slot
    }

    /// The bank addressed.
    pub fn bank(&self) -> Bank {
        self.bank
    }

    /// The unit's name.
    pub fn name(&self) -> &str {
        &self.control.name
    }

    /// The unit's control layout (names, widths, records).
    pub fn control(&self) -> &ScuControl {
        self.control
    }

    /// The package.
    pub fn package(&self) -> &Package {
        self.pkg
    }

    /// The state directory (locks, journal).
    pub fn state(&self) -> &StateDir {
        &self.state
    }

    fn no_name(&self, kind: &'static str, name: &str, known: Vec<&str>) -> ScuError {
        ScuError::NoName {
            scu: self.control.name.clone(),
            kind,
            name: name.to_string(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        }
    }

    /// Sends a request to the addressed bank; a unit status other than `Ok` (and the `accept`ed
    /// ones) is [`ScuError::Unit`] with `what`.
    pub(crate) fn request(
        &self,
        what: impl Fn() -> String,
        req: Request,
        accept: &[Status],
    ) -> Result<Response, ScuError> {
        let other = self.which == Which::Other;
        let resp = self.queue.call(other, &req, self.data_bits)?;
        match resp.status() {
            Some(Status::Ok) => Ok(resp),
            Some(s) if accept.contains(&s) => Ok(resp),
            Some(status) => Err(ScuError::Unit {
                what: what(),
                status,
            }),
            None => Err(ControlError::UnknownStatus {
                slot: self.slot,
                status: resp.status,
            }
            .into()),
        }
    }
}

/// CSRs and params.
impl Scu<'_> {
    /// The CSR named `name`.
    pub fn csr(&self, name: &str) -> Result<&CsrControl, ScuError> {
        self.control.csr(name).ok_or_else(|| {
            let known = self.control.csrs.iter().map(|c| c.name.as_str()).collect();
            self.no_name("CSR", name, known)
        })
    }

    /// The CSR at word `offset`.
    pub fn csr_at(&self, offset: u32) -> Result<&CsrControl, ScuError> {
        self.control
            .csrs
            .iter()
            .find(|c| c.offset == offset)
            .ok_or_else(|| {
                ScuError::Refused(format!(
                    "scu `{}` has no CSR at offset {offset} (its CSRs are offsets 0..{}; the words \
                     after them are the control engine's)",
                    self.control.name,
                    self.control.csrs.len()
                ))
            })
    }

    /// Reads a CSR by name.
    pub fn csr_get(&self, name: &str) -> Result<u64, ScuError> {
        let c = self.csr(name)?.clone();
        self.read_csr(&c)
    }

    /// Reads a CSR by word offset (pyCoyote's `get_csr(offset)`).
    pub fn csr_get_offset(&self, offset: u32) -> Result<u64, ScuError> {
        let c = self.csr_at(offset)?.clone();
        self.read_csr(&c)
    }

    /// Writes a CSR by name: a `readonly` CSR or a value wider than it is refused before sending.
    pub fn csr_set(&self, name: &str, value: u64) -> Result<(), ScuError> {
        let c = self.csr(name)?.clone();
        self.write_csr(&c, value)
    }

    /// Writes a CSR by word offset (pyCoyote's `set_csr(value, offset)`), checked as [`Scu::csr_set`].
    pub fn csr_set_offset(&self, offset: u32, value: u64) -> Result<(), ScuError> {
        let c = self.csr_at(offset)?.clone();
        self.write_csr(&c, value)
    }

    fn read_csr(&self, c: &CsrControl) -> Result<u64, ScuError> {
        match self.which {
            Which::Active => Ok(self.dev.read(self.csr_address(c.offset))?),
            Which::Other => {
                let req = Request {
                    op: Op::CsrRead,
                    target: c.offset as u16,
                    index: 0,
                    data: BigUint::default(),
                };
                let resp = self.request(|| format!("CSR `{}`: read", c.name), req, &[])?;
                Ok(to_u64(&resp.data))
            }
        }
    }

    fn csr_address(&self, offset: u32) -> u64 {
        self.base + slot::CSR_WINDOW + 8 * u64::from(offset)
    }

    fn write_csr(&self, c: &CsrControl, value: u64) -> Result<(), ScuError> {
        if c.host_readonly {
            return Err(ScuError::Refused(format!(
                "CSR `{}` of scu `{}` is readonly: the host may only read it",
                c.name, self.control.name
            )));
        }
        if c.width < 64 && value >> c.width != 0 {
            return Err(ScuError::Refused(format!(
                "{value:#x} does not fit CSR `{}`, which has {} bits",
                c.name, c.width
            )));
        }
        if self.which == Which::Other {
            let req = Request {
                op: Op::CsrWrite,
                target: c.offset as u16,
                index: 0,
                data: BigUint::from(value),
            };
            self.request(|| format!("CSR `{}`: write", c.name), req, &[])?;
            return Ok(());
        }
        let error_reg = self.base + slot::SLOT_ERROR;
        let before = ErrorWord::decode(self.dev.read(error_reg)?);
        let address = self.csr_address(c.offset);
        self.dev.write(address, value)?;
        self.dev.fence()?;
        let after = ErrorWord::decode(self.dev.read(error_reg)?);
        let ours = u64::from(after.offset) == slot::CSR_WINDOW + 8 * u64::from(c.offset);
        if after.count != before.count && ours {
            return Err(ScuError::Csr {
                slot: self.slot,
                name: c.name.clone(),
                offset: c.offset,
                code: Code::from_number(after.code),
            });
        }
        Ok(())
    }
}

/// Counters, maps and meters.
impl Scu<'_> {
    /// The counter named `name`.
    pub fn counter(&self, name: &str) -> Result<&CounterControl, ScuError> {
        self.control.counter(name).ok_or_else(|| {
            let known = self
                .control
                .counters
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            self.no_name("counter", name, known)
        })
    }

    fn cell(kind: &str, name: &str, index: u64, size: u64) -> Result<u32, ScuError> {
        if index >= size {
            return Err(ScuError::Refused(format!(
                "{kind} `{name}` has {size} cells (0..{size}); there is no cell {index}"
            )));
        }
        u32::try_from(index).map_err(|_| ScuError::Refused(format!("cell {index} is too large")))
    }

    /// Reads cell `index` of a counter: (packets, bytes).
    pub fn counter_read(&self, name: &str, index: u64) -> Result<(u64, u64), ScuError> {
        let c = self.counter(name)?;
        let cell = Scu::cell("counter", name, index, c.size)?;
        let req = Request {
            op: Op::CounterRead,
            target: c.target,
            index: cell,
            data: BigUint::default(),
        };
        let resp = self.request(|| format!("counter `{name}`[{index}]: read"), req, &[])?;
        Ok(decode_counter(&resp.data))
    }

    /// Reads every cell of a counter.
    pub fn counter_read_all(&self, name: &str) -> Result<Vec<(u64, u64)>, ScuError> {
        let size = self.counter(name)?.size;
        (0..size).map(|i| self.counter_read(name, i)).collect()
    }

    /// Zeroes cell `index` of a counter, or every cell with `None`.
    pub fn counter_reset(&self, name: &str, index: Option<u64>) -> Result<(), ScuError> {
        let c = self.counter(name)?;
        let cells = match index {
            Some(i) => i..i + 1,
            None => 0..c.size,
        };
        for i in cells {
            let req = Request {
                op: Op::CounterClear,
                target: c.target,
                index: Scu::cell("counter", name, i, c.size)?,
                data: BigUint::default(),
            };
            self.request(|| format!("counter `{name}`[{i}]: reset"), req, &[])?;
        }
        Ok(())
    }

    /// The map named `name`.
    pub fn map(&self, name: &str) -> Result<&MapControl, ScuError> {
        self.control.map(name).ok_or_else(|| {
            let known = self.control.maps.iter().map(|m| m.name.as_str()).collect();
            self.no_name("map", name, known)
        })
    }

    fn fits(what: &str, value: &BigUint, bits: u32) -> Result<(), ScuError> {
        if value.bits() > u64::from(bits) {
            return Err(ScuError::Refused(format!(
                "{value:#x} does not fit the {bits}-bit {what}"
            )));
        }
        Ok(())
    }

    /// Looks a key up (no LRU refresh): its value, or `None`.
    pub fn map_get(&self, name: &str, key: &BigUint) -> Result<Option<BigUint>, ScuError> {
        let m = self.map(name)?;
        Scu::fits(&format!("key of map `{name}`"), key, m.key_bits)?;
        let req = Request {
            op: Op::MapGet,
            target: m.target,
            index: 0,
            data: m.encode_key(key),
        };
        let resp = self.request(|| format!("map `{name}`: get"), req, &[Status::NotFound])?;
        Ok((resp.status() == Some(Status::Ok)).then(|| m.decode_value(&resp.data)))
    }

    /// Inserts or replaces a key's value.
    pub fn map_insert(&self, name: &str, key: &BigUint, value: &BigUint) -> Result<(), ScuError> {
        let m = self.map(name)?;
        Scu::fits(&format!("key of map `{name}`"), key, m.key_bits)?;
        Scu::fits(&format!("value of map `{name}`"), value, m.value_bits)?;
        let req = Request {
            op: Op::MapInsert,
            target: m.target,
            index: 0,
            data: m.encode_key_value(key, value),
        };
        self.request(|| format!("map `{name}`: insert"), req, &[])?;
        Ok(())
    }

    /// Removes a key; `false` when it was absent.
    pub fn map_remove(&self, name: &str, key: &BigUint) -> Result<bool, ScuError> {
        let m = self.map(name)?;
        Scu::fits(&format!("key of map `{name}`"), key, m.key_bits)?;
        let req = Request {
            op: Op::MapRemove,
            target: m.target,
            index: 0,
            data: m.encode_key(key),
        };
        let resp = self.request(|| format!("map `{name}`: remove"), req, &[Status::NotFound])?;
        Ok(resp.status() == Some(Status::Ok))
    }

    /// Every (key, value) of a map, in the unit's iteration order.
    pub fn map_entries(&self, name: &str) -> Result<Vec<(BigUint, BigUint)>, ScuError> {
        let m = self.map(name)?;
        let mut out = Vec::new();
        let mut position = 0u32;
        // A map holds at most `size` entries; the bound keeps a misbehaving device from looping us.
        while (out.len() as u64) <= m.size {
            let req = Request {
                op: Op::MapIterate,
                target: m.target,
                index: position,
                data: BigUint::default(),
            };
            let resp = self.request(|| format!("map `{name}`: iterate"), req, &[Status::End])?;
            if resp.status() == Some(Status::End) {
                break;
            }
            let (key, value, next) = m.decode_iterate(&resp.data);
            out.push((key, value));
            if next <= position {
                break;
            }
            position = next;
        }
        Ok(out)
    }

    /// The meter named `name`.
    pub fn meter(&self, name: &str) -> Result<&MeterControl, ScuError> {
        self.control.meter(name).ok_or_else(|| {
            let known = self
                .control
                .meters
                .iter()
                .map(|m| m.name.as_str())
                .collect();
            self.no_name("meter", name, known)
        })
    }

    /// Sets meter cell `index`'s rate (bit/s) and burst (bytes); the bucket refills to full.
    pub fn meter_configure(
        &self,
        name: &str,
        index: u64,
        rate_bps: u64,
        burst_bytes: u64,
    ) -> Result<(), ScuError> {
        let m = self.meter(name)?;
        let req = Request {
            op: Op::MeterConfigure,
            target: m.target,
            index: Scu::cell("meter", name, index, m.size)?,
            data: encode_meter(rate_bps, burst_bytes),
        };
        self.request(|| format!("meter `{name}`[{index}]: configure"), req, &[])?;
        Ok(())
    }
}
