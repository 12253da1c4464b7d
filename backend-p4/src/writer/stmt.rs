//! Single statements: declarations, assignments, destinations, counters, validity, value `match`es
//! (as `if` chains, since Vitis Networking P4's `switch` is only on a table's `action_run`).

use super::body::{items, write_exit, BodyWriter, Item, Kind};
use super::target;
use crate::analysis::csr::{increment, CsrKind};
use crate::analysis::facts::{header_key, Facts};
use crate::analysis::flow::after_simple;
use crate::error::{Construct, Error};
use crate::Target;
use scenic_ir::body::{Case, Pattern};
use scenic_ir::{Block, Const, Expr, ExprId, InstId, Place, Span, Stmt, Type};

impl BodyWriter<'_, '_> {
    /// Writes one statement and updates the facts.
    pub fn stmt(&mut self, stmt: &Stmt, span: Span) {
        let _ = span;
        match stmt {
            Stmt::If(c, a, b) => return self.write_if(*c, &items(a), &items(b), false),
            Stmt::Switch { on, cases, default } => return self.switch(*on, cases, default),
            Stmt::Block(b) => return self.stmts(&items(b)),
            Stmt::Let(l, e) => {
                self.begin();
                let v = self.expr(*e);
                let ty = self
                    .body
                    .locals
                    .get(*l)
                    .map(|x| x.ty.clone())
                    .unwrap_or_default();
                let p4 = self.p4_type(&ty);
                let name = self.local(*l);
                self.flush();
                self.code
                    .line(format!("{p4} {name} = {};", super::body::strip(&v)));
            }
            Stmt::Assign(place, e) => self.assign(stmt, place, *e),
            Stmt::Eval(e) => self.eval(*e),
            Stmt::Return(_) => write_exit(self, false),
            Stmt::Drop => write_exit(self, true),
            Stmt::ToHost => target::to_host_stmts(self.cx, &mut self.code),
            Stmt::ToNetwork(e) => {
                self.begin();
                let port = self.expr(*e);
                self.flush();
                target::to_network_stmts(self.cx, &mut self.code, &port);
            }
            Stmt::Count(c, index) => self.count(*c, *index),
            Stmt::Extract(inst) => {
                let header = self.header_ref(*inst, None);
                let stack = self
                    .cx
                    .scu
                    .instances
                    .get(*inst)
                    .and_then(|i| i.stack)
                    .is_some();
                let next = if stack { ".next" } else { "" };
                self.code.line(format!("packet.extract({header}{next});"));
            }
            Stmt::SetValid(inst, index, valid) => self.set_valid(*inst, *index, *valid),
            Stmt::Emit(_) | Stmt::Notify(..) | Stmt::ToScu(_) => {}
            other => self.errors.push(Error::Internal(format!(
                "statement {other:?} reached the P4 writer"
            ))),
        }
        let fx = &self.cx.plan.effects;
        after_simple(fx, self.cx.scu, self.body, stmt, &mut self.facts);
    }

    fn assign(&mut self, stmt: &Stmt, place: &Place, value: ExprId) {
        if let Some(c) = increment(self.body, stmt) {
            if self.cx.plan.csrs.get(&c) == Some(&CsrKind::Counter) {
                let name = self
                    .cx
                    .names
                    .csrs
                    .get(&c)
                    .map(|(d, _)| d.clone())
                    .unwrap_or_default();
                self.code.line(format!("{name}.count(1w0);"));
                return;
            }
        }
        self.begin();
        let v = self.expr(value);
        let p = self.place(place);
        self.flush();
        self.code.line(format!("{p} = {};", super::body::strip(&v)));
    }

    fn eval(&mut self, e: ExprId) {
        match self.body.exprs.get(e).cloned() {
            Some(Expr::Apply(t)) => self.apply_table(t, e, &[], &Block::default()),
            Some(Expr::CallAction(a, args)) => self.call_action(e, a, &args),
            _ => {}
        }
    }

    /// The P4 spelling of an assignable place.
    pub fn place(&mut self, p: &Place) -> String {
        match p {
            Place::Local(l) => self.local(*l),
            Place::Csr(c) => match self.cx.names.csrs.get(c) {
                Some((_, var)) => var.clone(),
                None => {
                    // Every written CSR is planned and named (analysis/csr.rs): an empty name
                    // here would be P4 that no compiler accepts.
                    self.errors.push(Error::Internal(format!(
                        "CSR {c:?} is assigned but has no P4 name"
                    )));
                    "scenic_invalid".into()
                }
            },
            Place::Meta(i) => format!(
                "meta.{}",
                self.cx
                    .names
                    .meta_fields
                    .get(*i as usize)
                    .cloned()
                    .unwrap_or_default()
            ),
            Place::HeaderField { inst, index, field } => {
                let h = self.header_ref(*inst, *index);
                let header = self.cx.scu.instances.get(*inst).map(|i| i.header);
                let f = header
                    .and_then(|h| self.cx.names.header_fields.get(&h))
                    .and_then(|f| f.get(*field as usize))
                    .cloned()
                    .unwrap_or_default();
                format!("{h}.{f}")
            }
            Place::Header { inst, index } => self.header_ref(*inst, *index),
            Place::Field(inner, i) => {
                let base = self.place(inner);
                let f = match self.place_type(inner) {
                    Type::Struct(s) => self
                        .cx
                        .names
                        .struct_fields
                        .get(&s)
                        .and_then(|f| f.get(*i as usize))
                        .cloned(),
                    Type::Header(h) => self
                        .cx
                        .names
                        .header_fields
                        .get(&h)
                        .and_then(|f| f.get(*i as usize))
                        .cloned(),
                    _ => None,
                };
                format!("{base}.{}", f.unwrap_or_default())
            }
            Place::Slice(inner, hi, lo) => format!("{}[{hi}:{lo}]", self.place(inner)),
            Place::Index(..) | Place::CcState(_) => {
                self.errors.push(Error::Internal(
                    "array or cc place reached the P4 writer".into(),
                ));
                "scenic_invalid".into()
            }
        }
    }

    fn place_type(&self, p: &Place) -> Type {
        let m = self.cx.module;
        match p {
            Place::Local(l) => self
                .body
                .locals
                .get(*l)
                .map(|x| x.ty.clone())
                .unwrap_or_default(),
            Place::Meta(i) => self
                .cx
                .scu
                .meta
                .and_then(|s| m.structs.get(s))
                .and_then(|s| s.fields.get(*i as usize))
                .map(|f| f.ty.clone())
                .unwrap_or_default(),
            Place::Header { inst, .. } => self
                .cx
                .scu
                .instances
                .get(*inst)
                .map(|i| Type::Header(i.header))
                .unwrap_or_default(),
            Place::Field(inner, i) => match self.place_type(inner) {
                Type::Struct(s) => m
                    .structs
                    .get(s)
                    .and_then(|s| s.fields.get(*i as usize))
                    .map(|f| f.ty.clone())
                    .unwrap_or_default(),
                Type::Header(h) => m
                    .headers
                    .get(h)
                    .and_then(|s| s.fields.get(*i as usize))
                    .map(|f| f.ty.clone())
                    .unwrap_or_default(),
                _ => Type::Unit,
            },
            _ => Type::Unit,
        }
    }

    fn count(&mut self, c: scenic_ir::CounterId, index: Option<ExprId>) {
        let name = self.cx.names.counters.get(&c).cloned().unwrap_or_default();
        let size = self.cx.scu.counters.get(c).map_or(1, |c| c.size);
        let w = match self.cx.target {
            Target::V1Model => 32,
            Target::VitisP4 => index_width(size),
        };
        self.begin();
        let idx = match index {
            // P4 casts a signed value to `bit` only at its own width (P4_16 §8.11.1): through
            // `bit<n>` first (smith seed 6: `(bit<32>)64s3` was refused).
            Some(i) => match self.ty(i) {
                Type::Int(n) => format!("(bit<{w}>)((bit<{n}>){})", self.expr(i)),
                _ => format!("(bit<{w}>){}", self.expr(i)),
            },
            None => format!("{w}w0"),
        };
        self.flush();
        self.code.line(format!("{name}.count({idx});"));
    }

    /// `set_valid()` zeroes an invalid header's fields; `set_invalid()` clears validity.
    fn set_valid(&mut self, inst: InstId, index: Option<ExprId>, valid: bool) {
        let h = self.header_ref(inst, index);
        if !valid {
            self.code.line(format!("{h}.setInvalid();"));
            return;
        }
        let known = header_key(self.body, inst, index).and_then(|k| self.facts.get(k));
        if known == Some(true) {
            return;
        }
        let guarded = known.is_none();
        if guarded {
            self.code.open(format!("if (!{h}.isValid()) {{"));
            self.conditional = true;
        }
        self.code.line(format!("{h}.setValid();"));
        let layout = self
            .cx
            .scu
            .instances
            .get(inst)
            .and_then(|i| self.cx.module.headers.get(i.header).map(|l| (i.header, l)));
        if let Some((hid, layout)) = layout {
            for (i, field) in layout.fields.iter().enumerate() {
                let f = self
                    .cx
                    .names
                    .header_fields
                    .get(&hid)
                    .and_then(|f| f.get(i))
                    .cloned()
                    .unwrap_or_default();
                let zero = self.cx.literal(&Const::zero(), &field.ty);
                self.code.line(format!("{h}.{f} = {zero};"));
            }
        }
        if guarded {
            self.code.close("}");
        }
    }

    /// A `match` on a value: an `if` chain over the cases, the scrutinee evaluated once.
    fn switch(&mut self, on: ExprId, cases: &[Case], default: &Block) {
        if let Some(Expr::Apply(t)) = self.body.exprs.get(on) {
            return self.apply_table(*t, on, cases, default);
        }
        self.begin();
        let parts: Vec<(String, Type)> = match self.body.exprs.get(on).cloned() {
            Some(Expr::Tuple(elems)) => elems
                .iter()
                .map(|&e| (self.scrutinee(e), self.ty(e)))
                .collect(),
            _ => vec![(self.scrutinee(on), self.ty(on))],
        };
        self.flush();
        let entry = self.facts.clone();
        let mut end = Facts::unreachable();
        let mut first = true;
        for case in cases {
            let conds: Vec<String> = case
                .patterns
                .iter()
                .map(|p| self.pattern_cond(&parts, p))
                .collect();
            let cond = if conds.iter().any(|c| c == "true") {
                "true".to_string()
            } else {
                conds.join(" || ")
            };
            if first {
                self.code.open(format!("if ({cond}) {{"));
            } else {
                self.code.close(format!("}} else if ({cond}) {{"));
                self.code.level += 1;
            }
            first = false;
            self.conditional = true;
            self.facts = entry.clone();
            self.stmts(&items(&case.body));
            end = end.meet(&self.facts);
        }
        self.facts = entry;
        if first {
            self.stmts(&items(default));
            return;
        }
        if !default.stmts.is_empty() {
            self.code.close("} else {");
            self.code.level += 1;
            self.stmts(&items(default));
        }
        end = end.meet(&self.facts);
        self.code.close("}");
        self.facts = end;
    }

    /// A scrutinee evaluated once: a name as is, anything else in a temporary.
    fn scrutinee(&mut self, e: ExprId) -> String {
        let v = self.expr(e);
        if v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return v;
        }
        let ty = self.ty(e);
        let p4 = self.p4_type(&ty);
        self.temp(&p4, Some(&super::body::strip(&v)))
    }

    fn pattern_cond(&self, parts: &[(String, Type)], p: &Pattern) -> String {
        match p {
            Pattern::Tuple(ps) => {
                let conds: Vec<String> = ps
                    .iter()
                    .zip(parts)
                    .map(|(p, part)| self.pattern_cond(std::slice::from_ref(part), p))
                    .filter(|c| c != "true")
                    .collect();
                if conds.is_empty() {
                    "true".into()
                } else {
                    format!("({})", conds.join(" && "))
                }
            }
            _ => {
                let Some((s, ty)) = parts.first() else {
                    return "true".into();
                };
                self.component_cond(s, ty, p)
            }
        }
    }

    fn component_cond(&self, s: &str, ty: &Type, p: &Pattern) -> String {
        let lit = |c: &Const| self.constant_of(c, ty);
        match p {
            Pattern::Any | Pattern::Tuple(_) => "true".into(),
            Pattern::Value(c) => format!("{s} == {}", lit(c)),
            Pattern::Mask(v, m) => {
                let vm = Const(&v.0 & &m.0);
                format!("({s} & {}) == {}", lit(m), lit(&vm))
            }
            Pattern::Range(lo, hi) => format!("({s} >= {} && {s} <= {})", lit(lo), lit(hi)),
        }
    }

    /// A constant of a scrutinee type (parser errors are `error.NAME`).
    pub fn constant_of(&self, c: &Const, ty: &Type) -> String {
        self.cx.literal(c, ty)
    }

    /// Reports a construct found while writing statements.
    pub fn unsupported_at(&mut self, construct: Construct, span: Span) {
        self.errors.push(Error::Unsupported {
            construct,
            target: self.cx.target,
            span,
            related: Vec::new(),
        });
    }

    /// Writes a list of statements in a nested block with fresh facts.
    pub fn nested(&mut self, list: &[Item<'_>]) {
        self.stmts(list);
    }

    /// Whether this is the parser.
    pub fn in_parser(&self) -> bool {
        self.kind == Kind::Parser
    }
}

/// The width of a Vitis counter's index: enough bits for `size` cells.
pub fn index_width(size: u64) -> u32 {
    let mut w = 1;
    while w < 64 && (1u64 << w) < size {
        w += 1;
    }
    w
}
