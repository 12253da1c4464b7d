//! Rust encoders and decoders of the records of [`super::ControlLayout`]: table entries and
//! defaults, map keys and values, counter cells, meter configurations. The generated C++ decoder
//! reads the same fields.

use super::layout::{KeyEncoding, MapControl, TableControl, TableStrategy};
use super::{get_field, low_bits, put_field, to_u64, PRIORITY_BITS};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use scenic_ir::program::KeyMatch;

/// Why a record could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// Wrong number of key matches.
    #[error("table `{table}` has {expected} key(s), the entry gives {found}")]
    KeyCount {
        /// The table.
        table: String,
        /// Its keys.
        expected: usize,
        /// Matches given.
        found: usize,
    },
    /// No such action position in the table.
    #[error("table `{table}` has no action number {position}")]
    NoAction {
        /// The table.
        table: String,
        /// The position asked for.
        position: u32,
    },
    /// A priority the hardware's priority field cannot hold.
    #[error("priority {priority} does not fit the {bits}-bit priority field of table `{table}`")]
    Priority {
        /// The table.
        table: String,
        /// The priority.
        priority: u64,
        /// Bits of the field.
        bits: u32,
    },
    /// A match whose form does not fit the key's kind.
    #[error("key `{key}` of table `{table}` cannot take this kind of match")]
    Form {
        /// The table.
        table: String,
        /// The key.
        key: String,
    },
}

fn ones(width: u32) -> BigUint {
    (BigUint::one() << width as usize) - BigUint::one()
}

impl TableControl {
    /// The record of a run-time entry: one match per key (in key order), the action's position,
    /// its arguments (each truncated to its parameter's width, as the interpreter does) and the
    /// priority (priority tables; ignored by the others but still checked to fit).
    pub fn encode_entry(
        &self,
        keys: &[KeyMatch],
        action: u32,
        args: &[BigUint],
        priority: u64,
    ) -> Result<BigUint, ControlError> {
        if keys.len() != self.keys.len() {
            return Err(ControlError::KeyCount {
                table: self.name.clone(),
                expected: self.keys.len(),
                found: keys.len(),
            });
        }
        if priority > u64::from(u32::MAX) {
            return Err(ControlError::Priority {
                table: self.name.clone(),
                priority,
                bits: PRIORITY_BITS,
            });
        }
        let mut record = self.encode_default(action, args)?;
        put_field(
            &mut record,
            self.priority.lo,
            self.priority.width,
            &BigUint::from(priority),
        );
        for (k, m) in self.keys.iter().zip(keys) {
            let (value, aux) = self.key_fields(k, m)?;
            put_field(&mut record, k.value.lo, k.value.width, &value);
            put_field(&mut record, k.aux.lo, k.aux.width, &aux);
        }
        Ok(record)
    }

    /// The record of a default action: the action's position and its arguments.
    pub fn encode_default(&self, action: u32, args: &[BigUint]) -> Result<BigUint, ControlError> {
        let a = self
            .actions
            .get(action as usize)
            .ok_or_else(|| ControlError::NoAction {
                table: self.name.clone(),
                position: action,
            })?;
        let mut record = BigUint::zero();
        put_field(
            &mut record,
            self.action.lo,
            self.action.width,
            &BigUint::from(action),
        );
        for (p, v) in a.params.iter().zip(args) {
            put_field(&mut record, p.lo, p.width, v);
        }
        Ok(record)
    }

    /// The value and auxiliary fields of one key match.
    fn key_fields(
        &self,
        k: &super::layout::KeyControl,
        m: &KeyMatch,
    ) -> Result<(BigUint, BigUint), ControlError> {
        let w = k.width;
        let v = |c: &scenic_ir::types::Const| low_bits(&c.0, w);
        let form = || ControlError::Form {
            table: self.name.clone(),
            key: k.name.clone(),
        };
        Ok(match (k.encoding, m) {
            (KeyEncoding::Exact, KeyMatch::Exact(c)) => (v(c), BigUint::zero()),
            // The interpreter stores "any" in an exact-only table as a 1-bit zero: it equals a
            // 1-bit key of value 0 and nothing wider.
            (KeyEncoding::Exact, KeyMatch::Any)
                if w == 1 && self.strategy == TableStrategy::Exact =>
            {
                (BigUint::zero(), BigUint::zero())
            }
            (KeyEncoding::Exact, KeyMatch::Any) => (BigUint::zero(), BigUint::one()),
            (KeyEncoding::Lpm, KeyMatch::Lpm(c, len)) => {
                let len = (*len).min(w);
                (v(c), BigUint::from(len))
            }
            (KeyEncoding::Lpm, KeyMatch::Exact(c)) => (v(c), BigUint::from(w)),
            (KeyEncoding::Lpm, KeyMatch::Any) => (BigUint::zero(), BigUint::zero()),
            (KeyEncoding::Ternary, KeyMatch::Ternary(c, mask)) => (v(c), v(mask)),
            (KeyEncoding::Ternary, KeyMatch::Exact(c)) => (v(c), ones(w)),
            (KeyEncoding::Ternary, KeyMatch::Lpm(c, len)) => {
                let len = (*len).min(w);
                (v(c), ones(len) << (w - len) as usize)
            }
            (KeyEncoding::Ternary, KeyMatch::Any) => (BigUint::zero(), BigUint::zero()),
            (KeyEncoding::Range, KeyMatch::Range(lo, hi)) => (v(lo), v(hi)),
            (KeyEncoding::Range, KeyMatch::Exact(c)) => (v(c), v(c)),
            (KeyEncoding::Range, KeyMatch::Any) => (BigUint::zero(), ones(w)),
            _ => return Err(form()),
        })
    }

    /// The inverse of [`TableControl::encode_entry`]: what a run-time entry record means, as the
    /// generated kernel stores it. Each key match is canonical: a value is masked where the
    /// kernel masks it (lpm by its prefix, ternary by its mask), a prefix length is clamped to
    /// the key's width, and a field pair the kernel stores exactly as it stores "any" (an `exact`
    /// "any" flag, prefix length 0, mask 0, the range `0 ..= max`) is [`KeyMatch::Any`] — except
    /// that an exact key whose "any" flag is clear is always [`KeyMatch::Exact`]. Fails only for
    /// an action position the table does not have ([`ControlError::NoAction`]).
    pub fn decode_entry(&self, record: &BigUint) -> Result<DecodedEntry, ControlError> {
        let action = self.decode_action(record);
        if action as usize >= self.actions.len() {
            return Err(ControlError::NoAction {
                table: self.name.clone(),
                position: action,
            });
        }
        let keys = self.keys.iter().map(|k| decode_key(k, record)).collect();
        Ok(DecodedEntry {
            keys,
            action,
            args: self.decode_args(record),
            priority: to_u64(&get_field(record, self.priority.lo, self.priority.width)),
        })
    }

    /// The action position of a record.
    pub fn decode_action(&self, record: &BigUint) -> u32 {
        to_u64(&get_field(record, self.action.lo, self.action.width)) as u32
    }

    /// The arguments of a record, for its action.
    pub fn decode_args(&self, record: &BigUint) -> Vec<BigUint> {
        let action = self.decode_action(record);
        self.actions
            .get(action as usize)
            .map(|a| {
                a.params
                    .iter()
                    .map(|p| get_field(record, p.lo, p.width))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A table entry record taken apart ([`TableControl::decode_entry`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedEntry {
    /// One match per key, in key order (canonical, see [`TableControl::decode_entry`]).
    pub keys: Vec<KeyMatch>,
    /// The action's position in the table.
    pub action: u32,
    /// The action's arguments, one per parameter, each its field of the record.
    pub args: Vec<BigUint>,
    /// The priority field (meaningful in priority tables only).
    pub priority: u64,
}

/// The canonical match of one key element of a record (see [`TableControl::decode_entry`]).
fn decode_key(k: &super::layout::KeyControl, record: &BigUint) -> KeyMatch {
    let w = k.width;
    let value = get_field(record, k.value.lo, k.value.width);
    let aux = get_field(record, k.aux.lo, k.aux.width);
    let c = scenic_ir::types::Const;
    match k.encoding {
        KeyEncoding::Exact if aux.bit(0) => KeyMatch::Any,
        KeyEncoding::Exact => KeyMatch::Exact(c(value)),
        KeyEncoding::Lpm => {
            let len = to_u64(&aux).min(u64::from(w)) as u32;
            if len == 0 {
                return KeyMatch::Any;
            }
            let mask = ones(len) << (w - len) as usize;
            KeyMatch::Lpm(c(value & mask), len)
        }
        KeyEncoding::Ternary if aux.is_zero() => KeyMatch::Any,
        KeyEncoding::Ternary => KeyMatch::Ternary(c(&value & &aux), c(aux)),
        KeyEncoding::Range if value.is_zero() && aux == ones(w) => KeyMatch::Any,
        KeyEncoding::Range => KeyMatch::Range(c(value), c(aux)),
    }
}

impl MapControl {
    /// A request record holding a key.
    pub fn encode_key(&self, key: &BigUint) -> BigUint {
        low_bits(key, self.key_bits)
    }

    /// A request record holding a key and a value.
    pub fn encode_key_value(&self, key: &BigUint, value: &BigUint) -> BigUint {
        let mut record = self.encode_key(key);
        put_field(&mut record, self.key_bits, self.value_bits, value);
        record
    }

    /// The value of a `MapGet` response.
    pub fn decode_value(&self, data: &BigUint) -> BigUint {
        get_field(data, 0, self.value_bits)
    }

    /// The key, value and next position of a `MapIterate` response.
    pub fn decode_iterate(&self, data: &BigUint) -> (BigUint, BigUint, u32) {
        let key = get_field(data, 0, self.key_bits);
        let value = get_field(data, self.key_bits, self.value_bits);
        let next = to_u64(&get_field(data, self.key_bits + self.value_bits, 32)) as u32;
        (key, value, next)
    }
}

/// The packets and bytes of a `CounterRead` response.
pub fn decode_counter(data: &BigUint) -> (u64, u64) {
    (
        to_u64(&get_field(data, 0, 64)),
        to_u64(&get_field(data, 64, 64)),
    )
}

/// The record of a `MeterConfigure` request.
pub fn encode_meter(rate_bps: u64, burst_bytes: u64) -> BigUint {
    BigUint::from(rate_bps) | (BigUint::from(burst_bytes) << 64)
}
