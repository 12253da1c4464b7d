//! Lowering types, layouts and constant values.

use super::{Lowerer, ScuCx};
use num_bigint::BigInt;
use scenic_frontend::consteval::Value;
use scenic_frontend::db::file_with_id;
use scenic_frontend::typeck::records::{builtin_name, Builtin, BUILTIN_FILE};
use scenic_frontend::typeck::signature::{sig_of, FieldSig, SigKind};
use scenic_frontend::types::{DefId, Ty, TypeRef};
use scenic_ir::entities::*;
use scenic_ir::program::{EnumDef, Field, HeaderLayout, StructLayout};
use scenic_ir::types::{Const, Dimension, Type};

/// Fields of the synthetic struct that carries `on ack(a)` data.
pub(crate) const ACK_FIELDS: &[(&str, Type)] = &[
    ("bytes", Type::Quantity(Dimension::Size)),
    ("ecn", Type::Bool),
];

/// Fields of the synthetic struct that carries `on int(h)` data: [`scenic_ir::IntHop::FIELDS`]
/// as language types.
pub(crate) const INT_FIELDS: &[(&str, Type)] = &[
    ("hop", Type::Bits(8)),
    ("hops", Type::Bits(8)),
    ("qlen", Type::Quantity(Dimension::Size)),
    ("tx_bytes", Type::Quantity(Dimension::Size)),
    ("ts", Type::Quantity(Dimension::Duration)),
    ("rate", Type::Quantity(Dimension::Rate)),
];

impl Lowerer<'_> {
    /// The IR type of a checked type. `IntLit` has no type of its own; callers give it one.
    pub(crate) fn lower_ty(&mut self, ty: &Ty, cx: &ScuCx) -> Type {
        match ty {
            Ty::Bit(n) => Type::Bits(*n),
            Ty::Int(n) => Type::Int(*n),
            Ty::Bool => Type::Bool,
            Ty::Fixed(i, f) => Type::Fixed { int: *i, frac: *f },
            Ty::Duration => Type::Quantity(Dimension::Duration),
            Ty::Size => Type::Quantity(Dimension::Size),
            Ty::Rate => Type::Quantity(Dimension::Rate),
            Ty::Header(t) => Type::Header(self.header(t)),
            Ty::Struct(t) => self.struct_ty(t, cx),
            Ty::Enum(t) => Type::Enum(self.enum_def(t)),
            Ty::Array(elem, n) => Type::Array(Box::new(self.lower_ty(elem, cx)), *n),
            Ty::Tuple(items) => Type::Tuple(items.iter().map(|t| self.lower_ty(t, cx)).collect()),
            Ty::ParserError => Type::ParserError,
            Ty::TableAction(t) => match cx.tables.get(&*t.name) {
                Some(id) => Type::TableResult(*id),
                None => Type::Bits(8),
            },
            Ty::IntLit => Type::Bits(64),
            Ty::DecimalLit | Ty::Unit | Ty::Error => Type::Unit,
        }
    }

    fn file_of(&self, def: DefId) -> Option<scenic_frontend::db::SourceFile> {
        file_with_id(self.db, def.file)
    }

    /// The header layout for a header type, created on first use.
    pub(crate) fn header(&mut self, t: &TypeRef) -> HeaderId {
        if let Some(id) = self.headers.get(&t.def) {
            return *id;
        }
        let fields = self.sig_fields(t.def);
        let mut offset = 0;
        let mut out = Vec::new();
        for f in fields {
            let ty = self.lower_ty(&f.ty, &ScuCx::default());
            let width = f.ty.width().unwrap_or(0);
            out.push(Field {
                name: f.name.clone(),
                ty,
                offset,
            });
            offset += width;
        }
        let id = self.module.headers.push(HeaderLayout {
            name: t.name.to_string(),
            fields: out,
            bits: offset,
        });
        self.headers.insert(t.def, id);
        id
    }

    fn sig_fields(&self, def: DefId) -> Vec<FieldSig> {
        let Some(file) = self.file_of(def) else {
            return Vec::new();
        };
        match &sig_of(self.db, file, def.chunk).kind {
            SigKind::Header { fields, .. }
            | SigKind::Struct { fields }
            | SigKind::Meta { fields } => fields.clone(),
            _ => Vec::new(),
        }
    }

    fn struct_ty(&mut self, t: &TypeRef, cx: &ScuCx) -> Type {
        if t.def.file == BUILTIN_FILE {
            // Only `on ack(a)` data is a builtin struct value; `packet` and `beat` are read field by
            // field and never become values.
            return Type::Struct(self.ack_struct());
        }
        if let Some(id) = self.structs.get(&t.def) {
            return Type::Struct(*id);
        }
        let fields = self.sig_fields(t.def);
        let lowered: Vec<Field> = fields
            .iter()
            .map(|f| Field {
                name: f.name.clone(),
                ty: self.lower_ty(&f.ty, cx),
                offset: 0,
            })
            .collect();
        let id = self.module.structs.push(StructLayout {
            name: t.name.to_string(),
            fields: lowered,
        });
        self.structs.insert(t.def, id);
        Type::Struct(id)
    }

    /// The struct carrying `on ack(a)` data.
    pub(crate) fn ack_struct(&mut self) -> StructId {
        self.builtin_struct(Builtin::Ack, ACK_FIELDS)
    }

    /// The struct carrying `on int(h)` data.
    pub(crate) fn int_struct(&mut self) -> StructId {
        self.builtin_struct(Builtin::Int, INT_FIELDS)
    }

    /// The struct of a builtin event record, created on first use.
    fn builtin_struct(&mut self, which: Builtin, fields: &[(&str, Type)]) -> StructId {
        let key = DefId {
            file: BUILTIN_FILE,
            chunk: which as u32,
        };
        if let Some(id) = self.structs.get(&key) {
            return *id;
        }
        let id = self.module.structs.push(StructLayout {
            name: builtin_name(which).into(),
            fields: fields
                .iter()
                .map(|(n, t)| Field {
                    name: n.to_string(),
                    ty: t.clone(),
                    offset: 0,
                })
                .collect(),
        });
        self.structs.insert(key, id);
        id
    }

    /// The enum for an enum type, created on first use.
    pub(crate) fn enum_def(&mut self, t: &TypeRef) -> EnumId {
        if let Some(id) = self.enums.get(&t.def) {
            return *id;
        }
        let (repr, variants) = match self
            .file_of(t.def)
            .map(|f| sig_of(self.db, f, t.def.chunk).kind.clone())
        {
            Some(SigKind::Enum { repr, variants }) => (repr, variants),
            _ => (None, Vec::new()),
        };
        let width = match repr {
            Some(Ty::Bit(n)) => n,
            _ => bits_for(variants.len() as u64),
        };
        let variants = variants
            .into_iter()
            .map(|(name, value)| {
                let c = value
                    .as_int()
                    .map_or(Const::zero(), |v| Const::from_bigint(&v, width));
                (name, c)
            })
            .collect();
        let id = self.module.enums.push(EnumDef {
            name: t.name.to_string(),
            variants,
            width,
        });
        self.enums.insert(t.def, id);
        id
    }

    /// A checked constant value as a bit pattern of IR type `ty`.
    pub(crate) fn const_of(&self, value: &Value, ty: &Type) -> Const {
        match (value, ty) {
            // A struct or array: its record bits (scenic_ir::record), first part lowest.
            (Value::Struct(items) | Value::Array(items), _) => {
                let types = scenic_ir::record::part_types(&self.module, ty);
                let parts: Vec<(Type, Const)> = types
                    .into_iter()
                    .zip(items)
                    .map(|(t, v)| {
                        let c = self.const_of(v, &t);
                        (t, c)
                    })
                    .collect();
                scenic_ir::record::pack(&self.module, &parts)
            }
            (Value::Bool(b), _) => Const::from_u64(u64::from(*b)),
            (Value::Variant(i), Type::Enum(e)) => self
                .module
                .enums
                .get(*e)
                .and_then(|def| def.variants.get(*i as usize))
                .map_or(Const::from_u64(u64::from(*i)), |(_, c)| c.clone()),
            (Value::Variant(i), _) => Const::from_u64(u64::from(*i)),
            (Value::Num(r), Type::Fixed { int, frac }) => {
                let scaled = (r * num_rational::BigRational::from_integer(
                    BigInt::from(1) << *frac as usize,
                ))
                .trunc()
                .to_integer();
                Const::from_bigint(&scaled, int + frac)
            }
            (Value::Num(r), ty) => {
                let width = self.width(ty).unwrap_or(64);
                Const::from_bigint(&r.trunc().to_integer(), width)
            }
        }
    }

    /// The width of a scalar IR type.
    pub(crate) fn width(&self, ty: &Type) -> Option<u32> {
        ty.scalar_width(|e| self.module.enums.get(e).map_or(8, |d| d.width))
    }
}

/// Bits needed to number `n` things (at least 1).
pub(crate) fn bits_for(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).max(1)
}
