//! Top-level declarations and the types they write.

use super::types::{Aggregate, EnumInfo, Ty};
use super::{Binding, Checker, Ctx, DeclRef};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use num_bigint::BigInt;
use num_traits::{One, ToPrimitive, Zero};

/// The widest `bit<N>`/`int<N>` the reader accepts (P4 allows more; no real header comes close).
pub(crate) const MAX_WIDTH: u32 = 4096;

/// The largest header stack.
const MAX_STACK: u32 = 256;

impl Checker<'_> {
    /// Checks top-level declaration `i`.
    pub(super) fn decl(&mut self, i: usize, decl: &Decl) {
        self.ctx = Ctx::Top;
        match &decl.kind {
            DeclKind::Const(c) => {
                let binding = self.const_decl(c);
                self.declare_global(&c.name, binding);
            }
            DeclKind::Typedef { ty, name, .. } => {
                let ty = self.resolve_type(ty);
                self.declare_global(name, Binding::Type(ty));
            }
            DeclKind::Aggregate(a) => self.aggregate(a),
            DeclKind::Enum {
                name,
                repr,
                members,
            } => self.enum_decl(name, repr.as_ref(), members),
            DeclKind::Error(names) => {
                for n in names {
                    self.add_unique(n, true);
                }
            }
            DeclKind::MatchKind(names) => {
                for n in names {
                    self.add_unique(n, false);
                }
            }
            DeclKind::ExternObject { name, .. } => {
                self.externs.insert(name.name.clone(), i);
                self.declare_global(name, Binding::ExternObject(i));
            }
            DeclKind::ExternFunction(p) => {
                self.declare_global(&p.name, Binding::ExternFn(p.name.name.clone()))
            }
            DeclKind::ParserType(p) | DeclKind::ControlType(p) => {
                self.declare_global(&p.name, Binding::BlockType(i))
            }
            DeclKind::Package(p) => self.declare_global(&p.name, Binding::Package(i)),
            DeclKind::Parser(p) => {
                self.declare_global(&p.proto.name, Binding::Parser(i));
                self.parser_decl(i, p);
            }
            DeclKind::Control(c) => {
                self.declare_global(&c.proto.name, Binding::Control(i));
                self.control_decl(i, c);
            }
            DeclKind::Action(a) => {
                let at = DeclRef {
                    decl: i,
                    local: None,
                };
                self.declare_global(&a.name, Binding::Action(at));
                self.action_decl(at, a, None);
            }
            DeclKind::Function { proto, .. } => {
                self.unsupported(
                    proto.name.span,
                    "functions (write the code in an action or inline it)",
                );
                self.declare_global(&proto.name, Binding::Unsupported("functions".to_string()));
            }
            DeclKind::ValueSet(name) => {
                self.declare_global(name, Binding::Unsupported("value sets".to_string()))
            }
            DeclKind::Instance(inst) => {
                if inst.name.name != "main" {
                    self.unsupported(
                        inst.span,
                        "instances outside parsers and controls (other than `main`)",
                    );
                }
            }
            DeclKind::Error_ => {}
        }
    }

    /// Adds an error or match kind member; a repeated one is E0704.
    fn add_unique(&mut self, name: &Ident, is_error: bool) {
        let list = if is_error {
            &mut self.out.env.errors
        } else {
            &mut self.out.env.match_kinds
        };
        if list.contains(&name.name) {
            let what = if is_error { "error" } else { "match kind" };
            self.error(
                Diagnostic::new(
                    codes::E0704,
                    name.span,
                    format!("{what} `{}` is declared more than once", name.name),
                )
                .label("declared again here"),
            );
        } else {
            list.push(name.name.clone());
        }
    }

    /// Checks `const T x = v;` and returns its binding.
    pub(super) fn const_decl(&mut self, c: &ConstDecl) -> Binding {
        let ty = self.resolve_type(&c.ty);
        self.expr_expect(&c.value, &ty);
        let value = self.value_of(c.value.id).cloned();
        if value.is_none() && !self.type_of(c.value.id).is_unknown() && !ty.is_unknown() {
            self.error(
                Diagnostic::new(
                    codes::E0708,
                    c.value.span,
                    format!(
                        "the value of constant `{}` is not known at compile time",
                        c.name.name
                    ),
                )
                .label("not a compile-time constant")
                .help("use literals, other constants and operators on them"),
            );
        }
        Binding::Const(ty, value)
    }

    fn aggregate(&mut self, a: &AggregateDecl) {
        if !a.type_params.is_empty() {
            self.unsupported(a.name.span, "generic headers and structs");
            self.declare_global(&a.name, Binding::Type(Ty::Unknown));
            return;
        }
        if a.kind == AggregateKind::HeaderUnion {
            let what = "header unions".to_string();
            self.declare_global(&a.name, Binding::Type(Ty::Unsupported(what)));
            return;
        }
        let mut fields: Vec<(String, Ty)> = Vec::new();
        for f in &a.fields {
            let ty = self.resolve_type(&f.ty);
            if fields.iter().any(|(n, _)| *n == f.name.name) {
                self.error(
                    Diagnostic::new(
                        codes::E0704,
                        f.name.span,
                        format!("field `{}` is declared more than once", f.name.name),
                    )
                    .label("declared again here"),
                );
                continue;
            }
            if a.kind == AggregateKind::Header {
                self.check_header_field(f, &ty);
            } else if let Ty::Unsupported(what) = &ty {
                let what = what.clone();
                self.unsupported(f.ty.span, &what);
            }
            fields.push((f.name.name.clone(), ty));
        }
        let index = self.out.env.aggregates.len();
        let agg = Aggregate {
            name: a.name.name.clone(),
            kind: a.kind,
            fields,
            span: a.name.span,
        };
        if a.kind == AggregateKind::Header {
            let bits = self.out.env.bit_width(&Ty::Agg(index)).unwrap_or(0);
            if bits % 8 != 0 && agg.fields.iter().all(|(_, t)| !t.is_unknown()) {
                self.error(
                    self.type_error(
                        a.name.span,
                        format!("header `{}` is {bits} bits long, not a whole number of bytes", a.name.name),
                    )
                    .label("its fields add up to a partial byte")
                    .help("headers are read from and written to the packet in whole bytes: pad the last field"),
                );
            }
        }
        self.out.env.aggregates.push(agg);
        self.declare_global(&a.name, Binding::Type(Ty::Agg(index)));
    }

    fn check_header_field(&mut self, f: &FieldDecl, ty: &Ty) {
        let ok = match ty {
            Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Unknown => true,
            Ty::Enum(e) => self
                .out
                .env
                .enums
                .get(*e)
                .is_some_and(|en| en.repr.is_some()),
            _ => false,
        };
        if let Ty::Unsupported(what) = ty {
            let what = what.clone();
            self.unsupported(f.ty.span, &what);
        } else if !ok {
            let shown = self.out.env.show(ty).to_string();
            let diag = self
                .type_error(
                    f.ty.span,
                    format!("header field `{}` has type `{shown}`", f.name.name),
                )
                .label("not allowed in a header")
                .note("header fields are `bit<N>`, `int<N>`, `bool` or serializable enums");
            self.error(diag);
        }
    }

    fn enum_decl(&mut self, name: &Ident, repr: Option<&Type>, members: &[(Ident, Option<Expr>)]) {
        let repr = repr.map(|t| self.resolve_type(t));
        if let Some(r) = &repr {
            if !r.is_fixed_int() && !r.is_unknown() {
                let shown = self.out.env.show(r).to_string();
                let diag = self
                    .type_error(
                        name.span,
                        format!("enum `{}` is represented as `{shown}`", name.name),
                    )
                    .label("a serializable enum needs a `bit<N>` or `int<N>` representation");
                self.error(diag);
            }
        }
        let mut list: Vec<(String, BigInt)> = Vec::new();
        for (i, (m, value)) in members.iter().enumerate() {
            let v = match (&repr, value) {
                (Some(r), Some(e)) => {
                    self.expr_expect(e, r);
                    self.value_of(e.id).cloned().unwrap_or_else(|| {
                        self.error(
                            Diagnostic::new(
                                codes::E0708,
                                e.span,
                                "enum values must be compile-time constants",
                            )
                            .label("not a constant"),
                        );
                        BigInt::zero()
                    })
                }
                (Some(_), None) => {
                    self.error(
                        Diagnostic::new(
                            codes::E0705,
                            m.span,
                            format!("member `{}` of a serializable enum has no value", m.name),
                        )
                        .label("write `= value`"),
                    );
                    BigInt::zero()
                }
                (None, Some(e)) => {
                    self.error(
                        Diagnostic::new(
                            codes::E0705,
                            e.span,
                            "a plain enum's members have no values",
                        )
                        .label("remove the value, or give the enum a representation type"),
                    );
                    BigInt::from(i)
                }
                (None, None) => BigInt::from(i),
            };
            if list.iter().any(|(n, _)| *n == m.name) {
                self.error(
                    Diagnostic::new(
                        codes::E0704,
                        m.span,
                        format!("enum member `{}` is declared more than once", m.name),
                    )
                    .label("declared again here"),
                );
            }
            list.push((m.name.clone(), v));
        }
        let index = self.out.env.enums.len();
        self.out.env.enums.push(EnumInfo {
            name: name.name.clone(),
            repr,
            members: list,
        });
        self.declare_global(name, Binding::Type(Ty::Enum(index)));
    }

    /// The type a written type denotes; problems are reported and give [`Ty::Unknown`].
    pub(crate) fn resolve_type(&mut self, ty: &Type) -> Ty {
        match &ty.kind {
            TypeKind::Bit(w) => match self.width(w, true) {
                Some(n) => Ty::Bits(n),
                None => Ty::Unknown,
            },
            TypeKind::Int(Some(w)) => match self.width(w, true) {
                Some(n) => Ty::Int(n),
                None => Ty::Unknown,
            },
            TypeKind::Int(None) => Ty::InfInt,
            TypeKind::Varbit => Ty::Unsupported("`varbit` fields".to_string()),
            TypeKind::Bool => Ty::Bool,
            TypeKind::Error => Ty::Error,
            TypeKind::MatchKind => Ty::MatchKind,
            TypeKind::String => Ty::Str,
            TypeKind::Void => Ty::Void,
            TypeKind::DontCare => Ty::Unsupported("the `_` type".to_string()),
            TypeKind::Tuple(items) => {
                Ty::List(items.iter().map(|t| self.resolve_type(t)).collect())
            }
            TypeKind::Named(name, args) => self.named_type(name, args),
            TypeKind::Stack(elem, size) => self.stack_type(ty, elem, size),
        }
    }

    fn named_type(&mut self, name: &Ident, args: &[Type]) -> Ty {
        match self.lookup(&name.name) {
            Some(Binding::Type(t)) => {
                if !args.is_empty() {
                    self.unsupported(name.span, "type arguments on a non-generic type");
                }
                t
            }
            Some(Binding::ExternObject(_)) => Ty::Extern(name.name.clone()),
            Some(Binding::Unsupported(what)) => Ty::Unsupported(what),
            Some(_) => {
                self.error(
                    Diagnostic::new(
                        codes::E0705,
                        name.span,
                        format!("`{}` is not a type", name.name),
                    )
                    .label("used as a type here"),
                );
                Ty::Unknown
            }
            None => {
                self.unknown_name(name, "type");
                Ty::Unknown
            }
        }
    }

    fn stack_type(&mut self, ty: &Type, elem: &Type, size: &Expr) -> Ty {
        let elem_ty = self.resolve_type(elem);
        self.expr(size);
        let n = self.value_of(size.id).and_then(ToPrimitive::to_u32);
        if elem_ty.is_unknown() {
            return Ty::Unknown;
        }
        if !self.out.env.is_header(&elem_ty) {
            self.unsupported(ty.span, "arrays of anything but headers (header stacks)");
            return Ty::Unknown;
        }
        match n {
            Some(n) if (1..=MAX_STACK).contains(&n) => Ty::Stack(Box::new(elem_ty), n),
            _ => {
                self.error(
                    Diagnostic::new(
                        codes::E0708,
                        size.span,
                        "a header stack's size must be a constant from 1 to 256",
                    )
                    .label("not a valid stack size"),
                );
                Ty::Unknown
            }
        }
    }

    /// The value of a width; `bit<0>` and widths over [`MAX_WIDTH`] are E0705.
    pub(crate) fn width(&mut self, w: &Width, positive: bool) -> Option<u32> {
        let (value, span) = match w {
            Width::Lit(n, span) => (Some(BigInt::from(*n)), *span),
            Width::Expr(e) => {
                self.expr(e);
                (self.value_of(e.id).cloned(), e.span)
            }
        };
        let Some(value) = value else {
            self.error(
                Diagnostic::new(
                    codes::E0708,
                    span,
                    "a width must be a compile-time constant",
                )
                .label("not a constant"),
            );
            return None;
        };
        match value.to_u32() {
            Some(n) if n <= MAX_WIDTH && (n > 0 || !positive) => Some(n),
            _ => {
                self.error(
                    self.type_error(span, format!("width {value} is out of range"))
                        .label(format!("widths go from 1 to {MAX_WIDTH}")),
                );
                None
            }
        }
    }
}

/// `2^w - 1`.
pub(crate) fn ones(w: u32) -> BigInt {
    (BigInt::one() << w as usize) - 1
}
