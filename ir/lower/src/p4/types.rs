//! Types, layouts, header instances, errors and constants.

use super::Lw;
use num_bigint::BigInt;
use scenic_frontend::p4::ast::AggregateKind;
use scenic_frontend::p4::check::Ty;
use scenic_ir::body::{Body, Expr};
use scenic_ir::entities::*;
use scenic_ir::program::{Field, HeaderLayout, Instance, StructLayout};
use scenic_ir::types::{Const, Type};

/// The IR name of each core.p4 error the IR has built in (the IR's first three errors).
const BUILTIN_ERRORS: [(&str, &str); 3] = [
    ("PacketTooShort", "packet_too_short"),
    ("NoMatch", "no_match"),
    ("StackOutOfBounds", "stack_overflow"),
];

impl Lw<'_> {
    /// The IR type of a P4 type.
    pub(crate) fn ir_ty(&mut self, ty: &Ty) -> Type {
        match ty {
            Ty::Bits(n) => Type::Bits(*n),
            Ty::Int(n) => Type::Int(*n),
            Ty::Bool => Type::Bool,
            Ty::Error => Type::ParserError,
            Ty::Enum(e) => {
                let repr = self.ck.env.enums.get(*e).and_then(|x| x.repr.clone());
                match repr {
                    Some(r) => self.ir_ty(&r),
                    // Plain enums are numbered from 0; 32 bits holds any of them.
                    None => Type::Bits(32),
                }
            }
            Ty::Agg(a) => match self.ck.env.aggregates.get(*a).map(|g| g.kind) {
                Some(AggregateKind::Header) => Type::Header(self.header_layout(*a)),
                _ => Type::Struct(self.struct_layout(*a)),
            },
            Ty::List(items) => Type::Tuple(items.iter().map(|t| self.ir_ty(t)).collect()),
            _ => Type::Unit,
        }
    }

    /// The layout of a P4 header.
    pub(crate) fn header_layout(&mut self, a: usize) -> HeaderId {
        if let Some(&h) = self.headers.get(&a) {
            return h;
        }
        let agg = self.ck.env.aggregates[a].clone();
        let mut fields = Vec::new();
        let mut offset = 0;
        for (name, ty) in &agg.fields {
            let ir = self.ir_ty(ty);
            let width = ir.scalar_width(|_| 32).unwrap_or(0);
            fields.push(Field {
                name: name.clone(),
                ty: ir,
                offset,
            });
            offset += width;
        }
        let id = self.module.headers.push(HeaderLayout {
            name: agg.name.clone(),
            fields,
            bits: offset,
        });
        self.headers.insert(a, id);
        id
    }

    /// The layout of a P4 struct.
    pub(crate) fn struct_layout(&mut self, a: usize) -> StructId {
        if let Some(&s) = self.structs.get(&a) {
            return s;
        }
        let agg = self.ck.env.aggregates[a].clone();
        let fields = agg
            .fields
            .iter()
            .map(|(name, ty)| Field {
                name: name.clone(),
                ty: self.ir_ty(ty),
                offset: 0,
            })
            .collect();
        let id = self.module.structs.push(StructLayout {
            name: agg.name.clone(),
            fields,
        });
        self.structs.insert(a, id);
        id
    }

    /// One instance per header and stack of the headers struct, in field order (nested structs
    /// depth first), named by path.
    pub(crate) fn flatten_headers(&mut self, agg: usize, prefix: &str) {
        let fields = self.ck.env.aggregates[agg].fields.clone();
        for (name, ty) in fields {
            let path = format!("{prefix}{name}");
            match &ty {
                Ty::Stack(elem, n) => {
                    if let Ty::Agg(h) = **elem {
                        let header = self.header_layout(h);
                        let id = self.scu.instances.push(Instance {
                            name: path.clone(),
                            header,
                            stack: Some(*n),
                        });
                        self.instances.insert(path, id);
                    }
                }
                Ty::Agg(a) if self.ck.env.is_header(&ty) => {
                    let header = self.header_layout(*a);
                    let id = self.scu.instances.push(Instance {
                        name: path.clone(),
                        header,
                        stack: None,
                    });
                    self.instances.insert(path, id);
                }
                Ty::Agg(a) => self.flatten_headers(*a, &format!("{path}.")),
                _ => {}
            }
        }
    }

    /// The IR errors: the three built-ins, then every other P4 error in declaration order.
    pub(crate) fn declare_errors(&mut self) {
        for (_, ir) in BUILTIN_ERRORS {
            self.scu.errors.push(ir.to_string());
        }
        for name in &self.ck.env.errors {
            let id = match BUILTIN_ERRORS.iter().position(|(p4, _)| p4 == name) {
                Some(i) => ErrorId::from_u32(i as u32),
                None => self.scu.errors.push(name.clone()),
            };
            self.error_ids.push(id);
        }
    }

    /// The IR error of a P4 error by name.
    pub(crate) fn error_named(&self, name: &str) -> ErrorId {
        self.ck
            .env
            .errors
            .iter()
            .position(|e| e == name)
            .and_then(|i| self.error_ids.get(i).copied())
            .unwrap_or(ErrorId::from_u32(0))
    }

    /// A constant of P4 type `ty` with the checker's value `v`.
    pub(crate) fn constant(
        &mut self,
        body: &mut Body,
        v: &BigInt,
        ty: &Ty,
        span: scenic_ir::span::Span,
    ) -> ExprId {
        let ir = self.ir_ty(ty);
        let value = match ty {
            Ty::Error => {
                let i = usize::try_from(v).unwrap_or(0);
                let id = self
                    .error_ids
                    .get(i)
                    .copied()
                    .unwrap_or(ErrorId::from_u32(0));
                Const::from_u64(u64::from(id.as_u32()))
            }
            _ => {
                let width = ir.scalar_width(|_| 32).unwrap_or(0);
                Const::from_bigint(v, width)
            }
        };
        body.add(Expr::Const(value), ir, span)
    }

    /// A constant `v` of IR type `ty`.
    pub(crate) fn const_ir(
        body: &mut Body,
        v: u64,
        ty: Type,
        span: scenic_ir::span::Span,
    ) -> ExprId {
        body.add(Expr::Const(Const::from_u64(v)), ty, span)
    }

    /// The zero value of a type, for variables declared without a value.
    pub(crate) fn zero(
        &mut self,
        body: &mut Body,
        ty: &Ty,
        span: scenic_ir::span::Span,
    ) -> Option<ExprId> {
        match ty {
            Ty::Agg(a) if !self.ck.env.is_header(ty) => {
                let fields: Vec<Ty> = self.ck.env.aggregates[*a]
                    .fields
                    .iter()
                    .map(|(_, t)| t.clone())
                    .collect();
                let items = fields
                    .iter()
                    .map(|t| self.zero(body, t, span))
                    .collect::<Option<Vec<_>>>()?;
                let ir = self.ir_ty(ty);
                Some(body.add(Expr::StructLit(items), ir, span))
            }
            Ty::Error => {
                let no_error = self.error_named("NoError");
                Some(Self::const_ir(
                    body,
                    u64::from(no_error.as_u32()),
                    Type::ParserError,
                    span,
                ))
            }
            Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Enum(_) => {
                Some(self.constant(body, &BigInt::from(0), ty, span))
            }
            _ => None,
        }
    }

    /// A header used by `advance(bits)`: parsed, never emitted, so the bytes are skipped.
    pub(crate) fn skip_header(&mut self, bits: u32) -> InstId {
        if let Some(&i) = self.skip_headers.get(&bits) {
            return i;
        }
        let header = self.module.headers.push(HeaderLayout {
            name: format!("$skip{bits}"),
            fields: vec![Field {
                name: "bits".into(),
                ty: Type::Bits(bits),
                offset: 0,
            }],
            bits,
        });
        let id = self.scu.instances.push(Instance {
            name: format!("$skip{bits}"),
            header,
            stack: None,
        });
        self.skip_headers.insert(bits, id);
        id
    }
}
