//! Controls: tables, actions, counters, registers and sub-control instances.

use super::body::Fx;
use super::{Bound, Inst, Lw};
use num_bigint::BigInt;
use scenic_frontend::p4::ast::{
    ActionDecl, ControlDecl, DeclKind, Expr as PExpr, Local, StmtKind, TableDecl, TableProp,
};
use scenic_frontend::p4::check::{DeclRef, InstanceInfo, KeyVal, Owner, TableInfo};
use scenic_ir::body::{Block, Stmt};
use scenic_ir::entities::*;
use scenic_ir::program::{
    Action, Counter, CounterKind, Entry, KeyMatch, Map, MapKind, MatchKind, Table, TableKey,
};
use scenic_ir::types::{Const, Type};
use std::collections::HashMap;

/// Table size when a program gives none (p4c's default for BMv2).
const DEFAULT_TABLE_SIZE: u64 = 1024;

impl<'c> Lw<'c> {
    /// The control declaration `d`.
    pub(crate) fn control_decl(&self, d: usize) -> Option<&'c ControlDecl> {
        match &self.ck.program.decls.get(d)?.kind {
            DeclKind::Control(c) => Some(c),
            _ => None,
        }
    }

    fn local(&self, at: DeclRef) -> Option<&'c Local> {
        let decl = &self.ck.program.decls.get(at.decl)?.kind;
        match decl {
            DeclKind::Control(c) => c.locals.get(at.local?),
            DeclKind::Parser(p) => p.locals.get(at.local?),
            _ => None,
        }
    }

    fn action_decl(&self, at: DeclRef) -> Option<&'c ActionDecl> {
        match (at.local, &self.ck.program.decls.get(at.decl)?.kind) {
            (None, DeclKind::Action(a)) => Some(a),
            (Some(_), _) => match self.local(at)? {
                Local::Action(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    fn table_decl(&self, at: DeclRef) -> Option<&'c TableDecl> {
        match self.local(at)? {
            Local::Table(t) => Some(t),
            _ => None,
        }
    }

    /// The name of an instance declared in a block.
    fn instance_name(&self, at: DeclRef) -> String {
        match self.local(at) {
            Some(Local::Instance(i)) => i.name.name.clone(),
            _ => String::from("?"),
        }
    }

    /// The IR action of action `at` in instance `inst` (top-level actions are shared).
    pub(crate) fn action(&mut self, inst: &Inst, at: DeclRef) -> ActionId {
        let key = (
            if at.local.is_none() {
                String::new()
            } else {
                inst.key.clone()
            },
            at,
        );
        if let Some(&id) = self.actions.get(&key) {
            return id;
        }
        let Some(decl) = self.action_decl(at) else {
            return self.scu.actions.push(Action {
                name: "?".into(),
                body: Default::default(),
            });
        };
        let name = if at.local.is_none() {
            decl.name.name.clone()
        } else {
            inst.name(&decl.name.name)
        };
        // The id exists before the body is lowered, so actions calling each other terminate.
        let id = self.scu.actions.push(Action {
            name,
            body: Default::default(),
        });
        self.actions.insert(key, id);
        let mut fx = Fx::default();
        let types = self.ck.action_params.get(&at).cloned().unwrap_or_default();
        let mut locals = Vec::new();
        for (p, ty) in decl.params.iter().zip(&types) {
            let ir = self.ir_ty(ty);
            let l = fx.body.local(p.name.name.clone(), ir, false);
            fx.body.params.push(l);
            locals.push(l);
        }
        fx.action = Some((at, locals));
        let block = self.block(&mut fx, inst, &decl.body);
        fx.body.block = block;
        self.scu.actions[id].body = fx.body;
        id
    }

    /// A second copy of an action, used only as a table's default so a miss can be told apart.
    fn miss_action(&mut self, inst: &Inst, at: DeclRef) -> ActionId {
        let key = (inst.key.clone(), at);
        if let Some(&id) = self.miss_actions.get(&key) {
            return id;
        }
        let original = self.action(inst, at);
        let copy = self.scu.actions[original].clone();
        let id = self.scu.actions.push(copy);
        self.miss_actions.insert(key, id);
        id
    }

    /// Positions of each action in the IR table (two per action when hits are told apart).
    pub(crate) fn action_positions(&self, _inst: &Inst, t: DeclRef) -> Vec<(DeclRef, usize)> {
        let Some(info) = self.ck.tables.get(&t) else {
            return Vec::new();
        };
        let n = info.actions.len();
        let mut out: Vec<(DeclRef, usize)> = info.actions.iter().copied().zip(0..n).collect();
        if info.reads_hit {
            out.extend(info.actions.iter().copied().zip(n..2 * n));
        }
        out
    }

    /// The IR table of table `t` in instance `inst`.
    pub(crate) fn table(&mut self, inst: &Inst, t: DeclRef) -> TableId {
        let key = (inst.key.clone(), t);
        if let Some(&id) = self.tables.get(&key) {
            return id;
        }
        let info = self.ck.tables.get(&t).cloned();
        let decl = self.table_decl(t);
        let (Some(info), Some(decl)) = (info, decl) else {
            return TableId::from_u32(0);
        };
        let span = self.span(decl.span);
        let (key_fx, keys) = self.table_keys(inst, decl, &info);
        let (actions, default) = self.table_actions(inst, &info);
        let const_entries = self.const_entries(&info);
        let has_entries = !info.entries.is_empty();
        let size = info
            .size
            .unwrap_or(if info.entries_const && has_entries {
                info.entries.len() as u64
            } else {
                DEFAULT_TABLE_SIZE
            })
            .max(const_entries.len() as u64);
        let id = self.scu.tables.push(Table {
            name: inst.name(&decl.name.name),
            key_body: key_fx.body,
            keys,
            actions,
            default,
            size,
            is_const: info.entries_const && has_entries,
            const_entries,
            span,
        });
        self.tables.insert(key, id);
        self.table_tops.push((id, inst.top.clone()));
        id
    }

    /// The keys of table `decl` in instance `inst`, with the body that computes them.
    fn table_keys(
        &mut self,
        inst: &Inst,
        decl: &TableDecl,
        info: &TableInfo,
    ) -> (Fx, Vec<TableKey>) {
        let mut key_fx = Fx::default();
        let mut keys = Vec::new();
        let key_exprs: HashMap<u32, &PExpr> = decl
            .props
            .iter()
            .filter_map(|p| match p {
                TableProp::Key(k, _) => Some(k),
                _ => None,
            })
            .flatten()
            .map(|k| (k.expr.id.0, &k.expr))
            .collect();
        for k in &info.keys {
            let Some(e) = key_exprs.get(&k.expr.0) else {
                continue;
            };
            let mut pre = Block::default();
            let x = self.expr(&mut key_fx, inst, e, &mut pre);
            key_fx.body.block.append(pre);
            keys.push(TableKey {
                expr: x,
                kind: match k.kind.as_str() {
                    "exact" => MatchKind::Exact,
                    "lpm" => MatchKind::Lpm,
                    "range" => MatchKind::Range,
                    _ => MatchKind::Ternary,
                },
                ty: key_fx.body.types[x].clone(),
                name: k.name.clone(),
            });
        }
        (key_fx, keys)
    }

    /// A table's actions and its default action with its arguments. A table whose actions read
    /// `hit` gets a copy of each action for a miss (after the originals), and its default action
    /// is the miss copy.
    fn table_actions(
        &mut self,
        inst: &Inst,
        info: &TableInfo,
    ) -> (Vec<ActionId>, (ActionId, Vec<Const>)) {
        let mut actions: Vec<ActionId> =
            info.actions.iter().map(|a| self.action(inst, *a)).collect();
        let n = actions.len();
        if info.reads_hit {
            for a in &info.actions {
                let copy = self.miss_action(inst, *a);
                actions.push(copy);
            }
        }
        let (pos, args) = &info.default;
        let default_pos = if info.reads_hit { pos + n } else { *pos };
        let default = (
            actions
                .get(default_pos)
                .copied()
                .unwrap_or(ActionId::from_u32(0)),
            args.iter().map(|a| self.arg_const(*a)).collect(),
        );
        (actions, default)
    }

    /// A table's constant entries, in priority order (the first has priority 0).
    fn const_entries(&mut self, info: &TableInfo) -> Vec<Entry> {
        info.entries
            .iter()
            .enumerate()
            .map(|(i, e)| Entry {
                keys: e
                    .keys
                    .iter()
                    .zip(&info.keys)
                    .map(|(k, key)| key_match(k, key.width))
                    .collect(),
                action: e.action as u32,
                args: e.args.iter().map(|a| self.arg_const(*a)).collect(),
                priority: i as u32,
            })
            .collect()
    }

    /// The constant value of an action argument.
    fn arg_const(&mut self, e: scenic_frontend::p4::ast::ExprId) -> Const {
        let v = self
            .ck
            .values
            .get(e.index())
            .cloned()
            .flatten()
            .unwrap_or_default();
        let ty = self.ck.types.get(e.index()).cloned().unwrap_or_default();
        let ir = self.ir_ty(&ty);
        Const::from_bigint(&v, ir.scalar_width(|_| 32).unwrap_or(0))
    }

    /// The IR counter of a counter instance.
    pub(crate) fn counter(&mut self, inst: &Inst, at: DeclRef) -> CounterId {
        let key = (inst.key.clone(), at);
        if let Some(&id) = self.counters.get(&key) {
            return id;
        }
        let (size, kind) = match self.ck.instances.get(&at) {
            Some(InstanceInfo::Counter { size, kind, .. }) => (*size, *kind),
            _ => (1, 0),
        };
        let id = self.scu.counters.push(Counter {
            name: inst.name(&self.instance_name(at)),
            kind: match kind {
                0 => CounterKind::Packets,
                1 => CounterKind::Bytes,
                _ => CounterKind::PacketsAndBytes,
            },
            size,
        });
        self.counters.insert(key, id);
        id
    }

    /// The IR map of a register instance.
    pub(crate) fn map(&mut self, inst: &Inst, at: DeclRef) -> MapId {
        let key = (inst.key.clone(), at);
        if let Some(&id) = self.maps.get(&key) {
            return id;
        }
        let (ty, size) = match self.ck.instances.get(&at) {
            Some(InstanceInfo::Register { ty, size }) => (ty.clone(), *size),
            _ => (scenic_frontend::p4::check::Ty::Bits(32), 1),
        };
        let value = self.ir_ty(&ty);
        let id = self.scu.maps.push(Map {
            name: inst.name(&self.instance_name(at)),
            kind: MapKind::Array,
            key: Type::Bits(32),
            value,
            size,
        });
        self.maps.insert(key, id);
        id
    }

    /// The statements of a control instance: its variables' initial values, then `apply`.
    pub(crate) fn control_body(&mut self, fx: &mut Fx, inst: &Inst, d: usize) -> Block {
        let Some(c) = self.control_decl(d) else {
            return Block::default();
        };
        let mut out = Block::default();
        // Every counter the control declares is the control plane's, counted or not (smith seed
        // 2: an unused `counter` left the P4-derived scu without it, so reading it failed).
        for (li, local) in c.locals.iter().enumerate() {
            let at = DeclRef {
                decl: d,
                local: Some(li),
            };
            // A `@scenic_csr` counter is a CSR (csr.rs), not a counter.
            if matches!(local, Local::Instance(_))
                && matches!(
                    self.ck.instances.get(&at),
                    Some(InstanceInfo::Counter { .. })
                )
                && self.csr_of(at).is_none()
            {
                self.counter(inst, at);
            }
        }
        for local in &c.locals {
            if let Local::Var(v) = local {
                if v.init.is_some() {
                    let stmt = scenic_frontend::p4::ast::Stmt {
                        kind: StmtKind::Var(v.clone()),
                        span: v.span,
                    };
                    self.stmt(fx, inst, &stmt, &mut out);
                }
            }
        }
        for s in &c.apply.stmts {
            self.stmt(fx, inst, s, &mut out);
        }
        out
    }

    /// `c.apply(args)`: the sub-control's code inline, its parameters bound to the arguments.
    pub(crate) fn apply_control(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        args: &[&PExpr],
        e: &PExpr,
        out: &mut Block,
    ) {
        let Some(InstanceInfo::Control(d)) = self.ck.instances.get(&at).cloned() else {
            return;
        };
        if self
            .control_decl(d)
            .is_some_and(|c| returns(&c.apply.stmts))
        {
            return self.unsupported(e.span, "`return` in a control applied by another control");
        }
        let mut bounds = Vec::new();
        for a in args {
            match self.path(fx, inst, a) {
                Some(b) => bounds.push(b),
                None => {
                    return self.unsupported(
                        a.span,
                        "this argument of a control (pass a variable, field or header)",
                    )
                }
            }
        }
        if fx.action.is_none()
            && bounds
                .iter()
                .any(|b| matches!(b, Bound::Place(scenic_ir::body::Place::Local(_), _)))
        {
            // Locals live in one body; the sub-control's tables and actions are bodies of their own.
            let name = self.instance_name(at);
            let child_uses_tables = self.control_decl(d).is_some_and(|c| {
                c.locals
                    .iter()
                    .any(|l| matches!(l, Local::Table(_) | Local::Action(_)))
            });
            if child_uses_tables {
                return self.unsupported(
                    e.span,
                    format!("passing a local variable to `{name}`, which has tables or actions"),
                );
            }
        }
        let name = self.instance_name(at);
        let child = Inst {
            path: inst.name(&name),
            key: format!("{}/{name}", inst.key),
            top: inst.top.clone(),
            params: HashMap::from([(Owner::Block(d), bounds)]),
        };
        let span = self.span(e.span);
        let body = self.control_body(fx, &child, d);
        out.push(Stmt::Block(body), span);
    }

    /// Whether a control instance's code (sub-controls included) uses `exit`.
    pub(crate) fn exits(&self, d: usize, depth: usize) -> bool {
        let Some(c) = self.control_decl(d) else {
            return false;
        };
        if depth > 16 {
            return false;
        }
        let subs = c.locals.iter().enumerate().any(|(li, l)| {
            let at = DeclRef { decl: d, local: Some(li) };
            matches!(l, Local::Instance(_))
                && matches!(self.ck.instances.get(&at), Some(InstanceInfo::Control(s)) if self.exits(*s, depth + 1))
        });
        subs || exits_in(&c.apply.stmts)
    }
}

/// Whether statements contain `exit` or `return`.
fn exits_in(stmts: &[scenic_frontend::p4::ast::Stmt]) -> bool {
    scenic_ir::stack::grow(|| {
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Exit | StmtKind::Return(_) => true,
            StmtKind::Block(b) => exits_in(&b.stmts),
            StmtKind::If(_, t, e) => {
                exits_in(std::slice::from_ref(t))
                    || e.as_deref()
                        .is_some_and(|e| exits_in(std::slice::from_ref(e)))
            }
            StmtKind::Switch(_, cases) => cases
                .iter()
                .any(|c| c.body.as_ref().is_some_and(|b| exits_in(&b.stmts))),
            _ => false,
        })
    })
}

/// Whether statements contain `return`.
fn returns(stmts: &[scenic_frontend::p4::ast::Stmt]) -> bool {
    scenic_ir::stack::grow(|| {
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Return(_) => true,
            StmtKind::Block(b) => returns(&b.stmts),
            StmtKind::If(_, t, e) => {
                returns(std::slice::from_ref(t))
                    || e.as_deref()
                        .is_some_and(|e| returns(std::slice::from_ref(e)))
            }
            StmtKind::Switch(_, cases) => cases
                .iter()
                .any(|c| c.body.as_ref().is_some_and(|b| returns(&b.stmts))),
            _ => false,
        })
    })
}

/// An entry's match for a key of `width` bits.
fn key_match(k: &KeyVal, width: u32) -> KeyMatch {
    let c = |v: &BigInt| Const::from_bigint(v, width);
    match k {
        KeyVal::Exact(v) => KeyMatch::Exact(c(v)),
        KeyVal::Mask(v, m) => KeyMatch::Ternary(c(v), c(m)),
        KeyVal::Lpm(v, len) => KeyMatch::Lpm(c(v), *len),
        KeyVal::Range(lo, hi) => KeyMatch::Range(c(lo), c(hi)),
        KeyVal::Any => KeyMatch::Any,
    }
}
