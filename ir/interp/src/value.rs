//! Runtime values: scalars are [`Bits`]; headers, structs, arrays and tuples are built from them.

use scenic_ir::proc::bits::Bits;
use scenic_ir::program::Module;
use scenic_ir::types::Type;

/// A header value: a validity bit and one bit pattern per field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderVal {
    /// Whether the header is valid (extracted or `set_valid`).
    pub valid: bool,
    /// Field values in layout order.
    pub fields: Vec<Bits>,
}

/// A runtime value.
#[derive(Debug, PartialEq, Eq)]
pub enum Value {
    /// A scalar.
    Bits(Bits),
    /// A header.
    Header(HeaderVal),
    /// A struct, fields in layout order.
    Struct(Vec<Value>),
    /// An array.
    Array(Vec<Value>),
    /// A tuple.
    Tuple(Vec<Value>),
    /// No value.
    Unit,
}

impl Value {
    /// The scalar inside, or a zero bit when the value is not a scalar (validated programs never
    /// ask for one).
    pub fn bits(&self) -> &Bits {
        match self {
            Value::Bits(b) => b,
            _ => zero_bit(),
        }
    }

    /// Takes the scalar out.
    pub fn into_bits(self) -> Bits {
        match self {
            Value::Bits(b) => b,
            _ => Bits::zero(1),
        }
    }

    /// Whether a bool value is true.
    pub fn is_true(&self) -> bool {
        !self.bits().is_zero()
    }

    /// The zero value of a type: all fields zero, headers invalid.
    pub fn zero(ty: &Type, module: &Module) -> Value {
        match ty {
            Type::Header(h) => Value::Header(HeaderVal::zero(module, *h, false)),
            Type::Struct(s) => Value::Struct(
                module.structs[*s]
                    .fields
                    .iter()
                    .map(|f| Value::zero(&f.ty, module))
                    .collect(),
            ),
            Type::Array(elem, n) => {
                Value::Array((0..*n).map(|_| Value::zero(elem, module)).collect())
            }
            Type::Tuple(items) => {
                Value::Tuple(items.iter().map(|t| Value::zero(t, module)).collect())
            }
            Type::Unit => Value::Unit,
            scalar => Value::Bits(Bits::zero(width_of(scalar, module))),
        }
    }
}

impl Value {
    /// The value whose record bits are `c` ([`scenic_ir::record`]: a struct or array initial value,
    /// first part lowest); a scalar is its bit pattern. Headers, tuples and unit have no record
    /// constant and start at zero.
    pub fn from_record(ty: &Type, c: &scenic_ir::types::Const, module: &Module) -> Value {
        match ty {
            Type::Struct(_) | Type::Array(..) => {
                let parts = scenic_ir::record::parts(module, ty, c)
                    .iter()
                    .map(|(t, part)| Value::from_record(t, part, module))
                    .collect();
                match ty {
                    Type::Array(..) => Value::Array(parts),
                    _ => Value::Struct(parts),
                }
            }
            Type::Header(_) | Type::Tuple(_) | Type::Unit => Value::zero(ty, module),
            scalar => Value::Bits(Bits::from_biguint(width_of(scalar, module), &c.0)),
        }
    }
}

impl Clone for Value {
    fn clone(&self) -> Value {
        match self {
            Value::Bits(b) => Value::Bits(b.clone()),
            Value::Header(h) => Value::Header(h.clone()),
            Value::Struct(v) => Value::Struct(v.clone()),
            Value::Array(v) => Value::Array(v.clone()),
            Value::Tuple(v) => Value::Tuple(v.clone()),
            Value::Unit => Value::Unit,
        }
    }

    /// Copies `source` reusing this value's storage when both have the same shape, so that
    /// resetting a local or overwriting a map entry with a value of its own type allocates nothing.
    fn clone_from(&mut self, source: &Value) {
        match (self, source) {
            (Value::Bits(a), Value::Bits(b)) => a.clone_from(b),
            (Value::Header(a), Value::Header(b)) => {
                a.valid = b.valid;
                a.fields.clone_from(&b.fields);
            }
            (Value::Struct(a), Value::Struct(b))
            | (Value::Array(a), Value::Array(b))
            | (Value::Tuple(a), Value::Tuple(b)) => a.clone_from(b),
            (this, source) => *this = source.clone(),
        }
    }
}

/// A part of a value reached by a field or an element.
#[derive(Debug)]
pub enum Part<'v> {
    /// The part itself.
    Value(&'v Value),
    /// A field of a valid header.
    Bits(&'v Bits),
    /// A field of an invalid header: zero of this width.
    Zero(u32),
    /// Nothing (the value has no such part).
    Missing,
}

impl Value {
    /// Field `f` of a struct, tuple or header value (a field of an invalid header reads as zero).
    pub fn field(&self, f: u32) -> Part<'_> {
        let f = f as usize;
        match self {
            Value::Struct(fields) | Value::Tuple(fields) => {
                fields.get(f).map_or(Part::Missing, Part::Value)
            }
            Value::Header(h) => match h.fields.get(f) {
                Some(b) if h.valid => Part::Bits(b),
                Some(b) => Part::Zero(b.width()),
                None => Part::Missing,
            },
            _ => Part::Missing,
        }
    }

    /// Element `i` of an array value.
    pub fn element(&self, i: usize) -> Part<'_> {
        match self {
            Value::Array(items) => items.get(i).map_or(Part::Missing, Part::Value),
            _ => Part::Missing,
        }
    }
}

impl<'v> Part<'v> {
    /// Field `f` of this part.
    pub fn field(&self, f: u32) -> Part<'v> {
        match self {
            Part::Value(v) => v.field(f),
            _ => Part::Missing,
        }
    }

    /// Element `i` of this part.
    pub fn element(&self, i: usize) -> Part<'v> {
        match self {
            Part::Value(v) => v.element(i),
            _ => Part::Missing,
        }
    }

    /// The part as an owned value (`Unit` when missing).
    pub fn to_value(&self) -> Value {
        match self {
            Part::Value(v) => (*v).clone(),
            Part::Bits(b) => Value::Bits((*b).clone()),
            Part::Zero(w) => Value::Bits(Bits::zero(*w)),
            Part::Missing => Value::Unit,
        }
    }

    /// The part as a scalar (a one-bit zero when it is not one, as [`Value::bits`]).
    pub fn to_bits(&self) -> Bits {
        match self {
            Part::Value(v) => v.bits().clone(),
            Part::Bits(b) => (*b).clone(),
            Part::Zero(w) => Bits::zero(*w),
            Part::Missing => Bits::zero(1),
        }
    }
}

impl HeaderVal {
    /// A header of layout `h` with zero fields.
    pub fn zero(module: &Module, h: scenic_ir::entities::HeaderId, valid: bool) -> HeaderVal {
        HeaderVal {
            valid,
            fields: module.headers[h]
                .fields
                .iter()
                .map(|f| Bits::zero(width_of(&f.ty, module)))
                .collect(),
        }
    }
}

/// The width of a scalar type in `module` (1 for non-scalars, which callers never ask about).
pub fn width_of(ty: &Type, module: &Module) -> u32 {
    ty.scalar_width(|e| module.enums.get(e).map_or(8, |d| d.width))
        .unwrap_or(1)
        .max(1)
}

fn zero_bit() -> &'static Bits {
    use std::sync::OnceLock;
    static ZERO: OnceLock<Bits> = OnceLock::new();
    ZERO.get_or_init(|| Bits::zero(1))
}
