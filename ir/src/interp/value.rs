//! Runtime values: scalars are [`Bits`]; headers, structs, arrays and tuples are built from them.

use super::bits::Bits;
use crate::program::Module;
use crate::types::Type;

/// A header value: a validity bit and one bit pattern per field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderVal {
    /// Whether the header is valid (extracted or `set_valid`).
    pub valid: bool,
    /// Field values in layout order.
    pub fields: Vec<Bits>,
}

/// A runtime value.
#[derive(Clone, Debug, PartialEq, Eq)]
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

impl HeaderVal {
    /// A header of layout `h` with zero fields.
    pub fn zero(module: &Module, h: crate::entities::HeaderId, valid: bool) -> HeaderVal {
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
