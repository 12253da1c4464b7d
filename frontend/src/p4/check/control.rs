//! Controls: local declarations, extern and control instances, actions and tables.

use super::decls::ones;
use super::types::Ty;
use super::{
    Binding, Checker, Ctx, DeclRef, EntryInfo, InstanceInfo, KeyInfo, KeyVal, Owner, TableInfo,
};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use std::collections::HashMap;

impl Checker<'_> {
    pub(super) fn control_decl(&mut self, i: usize, c: &ControlDecl) {
        self.block_params(i, &c.proto, c.ctor_params.as_ref());
        self.ctx = Ctx::Apply(i);
        for (li, local) in c.locals.iter().enumerate() {
            let at = DeclRef {
                decl: i,
                local: Some(li),
            };
            match local {
                Local::Const(k, _) => {
                    let binding = self.const_decl(k);
                    self.declare_local(&k.name, binding);
                }
                Local::Var(v) => self.block_var(i, v),
                Local::Instance(inst) => self.instance_decl(i, li, inst),
                Local::Action(a) => {
                    self.declare_local(&a.name, Binding::Action(at));
                    self.action_decl(at, a, Some(i));
                    self.ctx = Ctx::Apply(i);
                }
                Local::Table(t) => {
                    self.declare_local(&t.name, Binding::Table(at));
                    self.table_decl(at, t);
                }
                Local::ValueSet(_, span) => self.unsupported(*span, "value sets"),
            }
        }
        self.ctx = Ctx::Apply(i);
        self.block(&c.apply);
        self.scopes.pop();
        self.ctx = Ctx::Top;
    }

    /// `Type(args) name;` in a parser or control.
    pub(super) fn instance_decl(&mut self, block: usize, li: usize, inst: &Instance) {
        let at = DeclRef {
            decl: block,
            local: Some(li),
        };
        let TypeKind::Named(name, type_args) = &inst.ty.kind else {
            self.unsupported(inst.ty.span, "instances of this type");
            return;
        };
        if inst.has_initializer {
            self.unsupported(inst.span, "instances with initializer blocks");
        }
        let info = match self.lookup(&name.name) {
            Some(Binding::Control(decl)) => {
                if !inst.args.is_empty() {
                    self.unsupported(inst.span, "constructor arguments of controls");
                }
                Some(InstanceInfo::Control(decl))
            }
            Some(Binding::Parser(_)) => {
                self.unsupported(inst.span, "sub-parsers");
                None
            }
            Some(Binding::ExternObject(_)) => self.extern_instance(inst, &name.name, type_args),
            None => {
                self.unknown_name(name, "type");
                None
            }
            Some(_) => {
                self.error(
                    self.type_error(name.span, format!("`{}` cannot be instantiated", name.name))
                        .label("not an extern, parser or control"),
                );
                None
            }
        };
        let ty = Ty::Extern(name.name.clone());
        if let Some(info) = info {
            self.out.instances.insert(at, info);
        }
        self.declare_local(&inst.name, Binding::Instance(at, ty));
    }

    /// The constructor values of the externs the reader supports.
    fn extern_instance(
        &mut self,
        inst: &Instance,
        name: &str,
        type_args: &[Type],
    ) -> Option<InstanceInfo> {
        let args: Vec<&Expr> = inst
            .args
            .iter()
            .filter_map(|a| match a {
                Arg::Expr(e) => Some(e),
                _ => None,
            })
            .collect();
        if args.len() != inst.args.len() {
            self.unsupported(inst.span, "named or `_` constructor arguments");
            return None;
        }
        for a in &args {
            self.expr(a);
        }
        match name {
            "counter" | "Counter" => self.counter_instance(inst, name, type_args, &args),
            "register" => self.register_instance(inst, type_args, &args),
            "InternetChecksum" if args.is_empty() => Some(InstanceInfo::InternetChecksum),
            _ => {
                self.unsupported(inst.ty.span, &format!("the extern `{name}`"));
                None
            }
        }
    }

    /// A `counter` (v1model) or `Counter` (xsa.p4) instance: a constant size and a counter type.
    fn counter_instance(
        &mut self,
        inst: &Instance,
        name: &str,
        type_args: &[Type],
        args: &[&Expr],
    ) -> Option<InstanceInfo> {
        let kind = args.get(1).and_then(|e| match &e.kind {
            ExprKind::Member(_, m) => match m.name.as_str() {
                "packets" | "PACKETS" => Some(0),
                "bytes" | "BYTES" => Some(1),
                "packets_and_bytes" | "PACKETS_AND_BYTES" => Some(2),
                _ => None,
            },
            _ => None,
        });
        // xsa.p4 declares `count(in S index)` for `Counter<W, S>`; v1model's index is
        // `bit<32>`.
        let index = match type_args {
            [_, s] => self.resolve_type(s),
            _ => Ty::Bits(32),
        };
        if !matches!(index, Ty::Bits(_)) {
            self.unsupported(inst.ty.span, "counter indices other than `bit<N>`");
            return None;
        }
        match (self.const_size(args.first()), kind, args.len()) {
            (Some(n), Some(kind), 2) if n > 0 => Some(InstanceInfo::Counter {
                size: n,
                kind,
                index,
            }),
            _ => {
                self.error(
                    Diagnostic::new(
                        codes::E0706,
                        inst.span,
                        format!("`{name}` takes a constant size and a counter type"),
                    )
                    .label(format!("expected `{name}(64, CounterType.packets)`")),
                );
                None
            }
        }
    }

    /// A `register` instance of `bit<N>` cells with `bit<32>` indices and a constant size.
    fn register_instance(
        &mut self,
        inst: &Instance,
        type_args: &[Type],
        args: &[&Expr],
    ) -> Option<InstanceInfo> {
        let ty = match type_args {
            [t] | [t, _] => self.resolve_type(t),
            _ => Ty::Unknown,
        };
        if !matches!(ty, Ty::Bits(_)) {
            self.unsupported(inst.ty.span, "registers of anything but `bit<N>`");
            return None;
        }
        if matches!(type_args, [_, i] if !matches!(self.resolve_type(i), Ty::Bits(32))) {
            self.unsupported(inst.ty.span, "register indices other than `bit<32>`");
            return None;
        }
        match (self.const_size(args.first()), args.len()) {
            (Some(n), 1) if n > 0 => Some(InstanceInfo::Register { ty, size: n }),
            _ => {
                self.error(
                    Diagnostic::new(codes::E0706, inst.span, "`register` takes a constant size")
                        .label("expected `register<bit<32>>(64)`"),
                );
                None
            }
        }
    }

    /// The value of a constructor's size argument, if it is a constant that fits in a `u64`.
    fn const_size(&self, e: Option<&&Expr>) -> Option<u64> {
        e.and_then(|e| self.value_of(e.id))
            .and_then(ToPrimitive::to_u64)
    }

    /// Checks an action; `control` is the control it belongs to, if any.
    pub(super) fn action_decl(&mut self, at: DeclRef, a: &ActionDecl, control: Option<usize>) {
        self.ctx = Ctx::Action(control);
        self.scopes.push(HashMap::new());
        let mut data_seen = false;
        let mut types = Vec::new();
        for (n, p) in a.params.iter().enumerate() {
            let ty = self.resolve_type(&p.ty);
            types.push(ty.clone());
            if p.dir == Direction::None {
                data_seen = true;
            } else if data_seen {
                self.error(
                    Diagnostic::new(
                        codes::E0706,
                        p.span,
                        "directional parameters must come before action data",
                    )
                    .label("move this parameter before the ones without a direction"),
                );
            }
            let scalar = matches!(
                ty,
                Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Enum(_) | Ty::Unknown
            );
            if !scalar {
                let shown = self.out.env.show(&ty).to_string();
                self.unsupported(p.ty.span, &format!("action parameters of type `{shown}`"));
            }
            self.declare_local(&p.name, Binding::Param(Owner::Action(at), n, ty, p.dir));
        }
        self.out.action_params.insert(at, types);
        self.block(&a.body);
        self.scopes.pop();
    }

    /// Checks a table and records what it resolved to.
    fn table_decl(&mut self, at: DeclRef, t: &TableDecl) {
        let mut info = TableInfo {
            keys: Vec::new(),
            actions: Vec::new(),
            default: (0, Vec::new()),
            default_is_const: false,
            size: None,
            entries: Vec::new(),
            entries_const: true,
            reads_hit: false,
        };
        let mut default = None;
        let mut entries = None;
        for prop in &t.props {
            match prop {
                TableProp::Key(keys, _) => info.keys = self.table_keys(keys),
                TableProp::Actions(list, _) => info.actions = self.table_actions(list),
                TableProp::DefaultAction {
                    action, is_const, ..
                } => {
                    default = Some(action);
                    info.default_is_const = *is_const;
                }
                TableProp::Entries {
                    entries: e,
                    is_const,
                    ..
                } => {
                    entries = Some(e);
                    info.entries_const = *is_const;
                }
                TableProp::Other { name, value, .. } => self.table_other(&mut info, name, value),
            }
        }
        info.default = self.table_default(t, &mut info.actions, default);
        if let Some(list) = entries {
            info.entries = list
                .iter()
                .filter_map(|e| self.table_entry(&info, e))
                .collect();
        }
        if let Some(size) = info.size {
            if (info.entries.len() as u64) > size {
                self.error(
                    Diagnostic::new(
                        codes::E0710,
                        t.name.span,
                        format!(
                            "table `{}` has {} entries but size {size}",
                            t.name.name,
                            info.entries.len()
                        ),
                    )
                    .label("more constant entries than its size"),
                );
            }
        }
        self.out.tables.insert(at, info);
    }

    fn table_other(&mut self, info: &mut TableInfo, name: &Ident, value: &Expr) {
        if name.name != "size" {
            self.unsupported(name.span, &format!("the table property `{}`", name.name));
            return;
        }
        self.expr(value);
        match self.value_of(value.id).and_then(ToPrimitive::to_u64) {
            Some(n) if n > 0 => info.size = Some(n),
            _ => self.error(
                Diagnostic::new(
                    codes::E0708,
                    value.span,
                    "a table's size must be a positive constant",
                )
                .label("not a positive constant"),
            ),
        }
    }

    fn table_keys(&mut self, keys: &[KeyElement]) -> Vec<KeyInfo> {
        let mut out = Vec::new();
        let mut lpm = 0;
        for k in keys {
            let ty = self.expr(&k.expr);
            let width = self.out.env.bit_width(&ty);
            let kind = k.match_kind.name.as_str();
            if !self.out.env.match_kinds.iter().any(|m| m == kind) {
                self.unknown_name(&k.match_kind, "match kind");
                continue;
            }
            if !matches!(
                kind,
                "exact" | "lpm" | "ternary" | "range" | "optional" | "field_mask"
            ) {
                self.unsupported(k.match_kind.span, &format!("the match kind `{kind}`"));
                continue;
            }
            lpm += usize::from(kind == "lpm");
            if lpm > 1 && kind == "lpm" {
                self.error(
                    Diagnostic::new(
                        codes::E0710,
                        k.match_kind.span,
                        "a table can have only one `lpm` key",
                    )
                    .label("second `lpm` key"),
                );
            }
            let scalar = matches!(
                ty,
                Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Enum(_) | Ty::Error
            );
            let Some(width) = width.filter(|_| scalar) else {
                if !ty.is_unknown() {
                    let shown = self.out.env.show(&ty).to_string();
                    self.unsupported(k.expr.span, &format!("table keys of type `{shown}`"));
                }
                continue;
            };
            let name = annotation_name(&k.annotations)
                .unwrap_or_else(|| source_text(&self.prog_text(k.expr.span)));
            out.push(KeyInfo {
                expr: k.expr.id,
                kind: kind.to_string(),
                name,
                width,
            });
        }
        out
    }

    fn table_actions(&mut self, list: &[ActionRef]) -> Vec<DeclRef> {
        let mut out = Vec::new();
        for a in list {
            let Some(at) = self.action_ref(a) else {
                continue;
            };
            if out.contains(&at) {
                self.error(
                    Diagnostic::new(
                        codes::E0710,
                        a.span,
                        format!("action `{}` is listed twice", a.name.name),
                    )
                    .label("listed again here"),
                );
                continue;
            }
            let has_dir = self
                .action_params(at)
                .iter()
                .any(|(d, _)| *d != Direction::None);
            if has_dir {
                self.unsupported(a.span, "table actions with directional parameters");
            } else if a.args.as_ref().is_some_and(|x| !x.is_empty()) {
                self.error(
                    Diagnostic::new(
                        codes::E0706,
                        a.span,
                        "action data is given by entries, not in `actions`",
                    )
                    .label("remove the arguments"),
                );
            }
            out.push(at);
        }
        out
    }

    fn action_ref(&mut self, a: &ActionRef) -> Option<DeclRef> {
        match self.lookup(&a.name.name) {
            Some(Binding::Action(at)) => Some(at),
            Some(_) => {
                self.error(
                    self.type_error(a.name.span, format!("`{}` is not an action", a.name.name))
                        .label("expected an action"),
                );
                None
            }
            None => {
                self.unknown_name(&a.name, "action");
                None
            }
        }
    }

    /// The default action's position (adding `NoAction` when none is given) and arguments.
    fn table_default(
        &mut self,
        t: &TableDecl,
        actions: &mut Vec<DeclRef>,
        default: Option<&ActionRef>,
    ) -> (usize, Vec<ExprId>) {
        let Some(d) = default else {
            let Some(Binding::Action(no_action)) = self.lookup("NoAction") else {
                self.error(
                    Diagnostic::new(
                        codes::E0710,
                        t.name.span,
                        format!("table `{}` has no `default_action`", t.name.name),
                    )
                    .label("and `NoAction` (core.p4) is not declared")
                    .help("add `default_action = ...;` or `#include <core.p4>`"),
                );
                return (0, Vec::new());
            };
            let pos = actions
                .iter()
                .position(|a| *a == no_action)
                .unwrap_or_else(|| {
                    actions.push(no_action);
                    actions.len() - 1
                });
            return (pos, Vec::new());
        };
        let Some(at) = self.action_ref(d) else {
            return (0, Vec::new());
        };
        let Some(pos) = actions.iter().position(|a| *a == at) else {
            self.error(
                Diagnostic::new(
                    codes::E0710,
                    d.span,
                    format!(
                        "the default action `{}` is not in the table's `actions`",
                        d.name.name
                    ),
                )
                .label("not listed")
                .help("add it to `actions`"),
            );
            return (0, Vec::new());
        };
        let args = self.const_args(d, at);
        (pos, args)
    }

    /// Checks the constant arguments of an action named in a table.
    fn const_args(&mut self, a: &ActionRef, at: DeclRef) -> Vec<ExprId> {
        let params = self.action_params(at);
        let args: Vec<&Expr> = a
            .args
            .iter()
            .flatten()
            .filter_map(|x| match x {
                Arg::Expr(e) => Some(e),
                _ => None,
            })
            .collect();
        if args.len() != params.len() {
            self.error(
                Diagnostic::new(
                    codes::E0706,
                    a.span,
                    format!(
                        "action `{}` takes {} argument(s), but {} were given",
                        a.name.name,
                        params.len(),
                        args.len()
                    ),
                )
                .label(format!("expected {}", params.len())),
            );
            return Vec::new();
        }
        for (e, (_, ty)) in args.iter().zip(&params) {
            self.expr_expect(e, ty);
            if self.value_of(e.id).is_none() && !self.type_of(e.id).is_unknown() {
                self.error(
                    Diagnostic::new(
                        codes::E0708,
                        e.span,
                        "action data in a table must be a compile-time constant",
                    )
                    .label("not a constant"),
                );
            }
        }
        args.iter().map(|e| e.id).collect()
    }

    fn table_entry(&mut self, info: &TableInfo, e: &EntryDecl) -> Option<EntryInfo> {
        if e.priority.is_some() || e.annotations.iter().any(|a| a.name.name == "priority") {
            self.unsupported(
                e.span,
                "entry priorities (constant entries rank in source order)",
            );
        }
        if e.keys.len() != info.keys.len() {
            self.error(
                Diagnostic::new(
                    codes::E0710,
                    e.span,
                    format!(
                        "this entry has {} key value(s), but the table has {} key(s)",
                        e.keys.len(),
                        info.keys.len()
                    ),
                )
                .label("one value per key"),
            );
            return None;
        }
        let mut keys = Vec::new();
        for (k, key) in e.keys.iter().zip(&info.keys) {
            let ty = self.type_of(key.expr);
            let v = self.keyset_value(k, &ty, &key.kind);
            keys.push(self.entry_key(k, v, key)?);
        }
        let at = self.action_ref(&e.action)?;
        let Some(action) = info.actions.iter().position(|a| *a == at) else {
            self.error(
                Diagnostic::new(
                    codes::E0710,
                    e.action.span,
                    format!("`{}` is not in the table's `actions`", e.action.name.name),
                )
                .label("not listed"),
            );
            return None;
        };
        let args = self.const_args(&e.action, at);
        Some(EntryInfo { keys, action, args })
    }

    /// Checks one entry value against its key's match kind; lpm masks become prefixes.
    fn entry_key(&mut self, k: &Keyset, v: KeyVal, key: &KeyInfo) -> Option<KeyVal> {
        let span = match k {
            Keyset::Value(e) | Keyset::Mask(e, _) | Keyset::Range(e, _) => e.span,
            Keyset::Default(s) | Keyset::DontCare(s) => *s,
        };
        let bad = |s: &mut Self, what: &str| {
            s.error(
                Diagnostic::new(
                    codes::E0710,
                    span,
                    format!("{what} does not fit a `{}` key", key.kind),
                )
                .label("not allowed for this key"),
            );
            None
        };
        match (key.kind.as_str(), v) {
            ("exact", KeyVal::Exact(x)) => Some(KeyVal::Exact(x)),
            ("exact", _) => bad(self, "a mask, range or `_`"),
            ("lpm", KeyVal::Any) => Some(KeyVal::Lpm(BigInt::zero(), 0)),
            ("lpm", KeyVal::Mask(x, m)) => match prefix_len(&m, key.width) {
                Some(len) => Some(KeyVal::Lpm(x, len)),
                None => bad(self, "a mask that is not a prefix"),
            },
            ("lpm", v @ KeyVal::Lpm(..)) => Some(v),
            ("lpm", _) => bad(self, "a range"),
            ("ternary" | "optional" | "field_mask", v @ (KeyVal::Mask(..) | KeyVal::Any)) => {
                Some(v)
            }
            ("ternary" | "optional" | "field_mask", _) => bad(self, "a range"),
            ("range", v @ (KeyVal::Range(..) | KeyVal::Any)) => Some(v),
            ("range", _) => bad(self, "a mask"),
            _ => None,
        }
    }

    /// The text of the expanded program at a span.
    fn prog_text(&self, span: crate::span::Span) -> String {
        self.source_text.get(span.range()).unwrap_or("").to_string()
    }
}

/// The length of a prefix mask of `width` bits (`None` if `m` is not one).
fn prefix_len(m: &BigInt, width: u32) -> Option<u32> {
    (0..=width).find(|&len| {
        let mask = ones(width) ^ ones(width - len);
        *m == mask
    })
}

/// The string of an `@name("...")` annotation.
pub(crate) fn annotation_name(anns: &[Annotation]) -> Option<String> {
    anns.iter()
        .find(|a| a.name.name == "name")
        .and_then(|a| a.body.as_ref())
        .map(|b| {
            b.trim()
                .trim_matches('"')
                .trim_start_matches('.')
                .to_string()
        })
}

/// Source text with runs of whitespace collapsed (a key's name as written).
fn source_text(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_masks_have_lengths() {
        assert_eq!(prefix_len(&BigInt::from(0xF0), 8), Some(4));
        assert_eq!(prefix_len(&BigInt::from(0xFF), 8), Some(8));
        assert_eq!(prefix_len(&BigInt::from(0), 8), Some(0));
        assert_eq!(prefix_len(&BigInt::from(0x0F), 8), None);
    }
}
