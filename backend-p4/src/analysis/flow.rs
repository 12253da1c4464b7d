//! Validity facts through control code: the transfer functions the writer uses statement by
//! statement, and a walk that finds the facts at every table application and action call, from
//! which each action's entry facts follow (the meet over the places it can run from).

use super::facts::{header_key, Facts};
use super::walk::{operands, visit_expr};
use scenic_ir::{ActionId, Block, Body, Expr, ExprId, InstId, Place, Scu, Stmt};
use std::collections::{BTreeMap, BTreeSet};

/// What the transfer functions need to know about the scu's actions.
#[derive(Clone, Debug, Default)]
pub struct ActionEffects {
    /// Header instances whose validity an action (or an action it calls) may change.
    pub touches: BTreeMap<ActionId, BTreeSet<InstId>>,
}

impl ActionEffects {
    /// Computes, for every action, the headers it may make valid or invalid or overwrite whole.
    pub fn of(scu: &Scu) -> ActionEffects {
        let mut direct: BTreeMap<ActionId, (BTreeSet<InstId>, BTreeSet<ActionId>)> =
            BTreeMap::new();
        for (id, action) in scu.actions.iter() {
            let mut insts = BTreeSet::new();
            let mut calls = BTreeSet::new();
            super::walk::visit_stmts(&action.body.block, &mut |stmt, _| {
                match stmt {
                    Stmt::SetValid(inst, _, _) | Stmt::Assign(Place::Header { inst, .. }, _) => {
                        insts.insert(*inst);
                    }
                    _ => {}
                }
                for root in super::walk::stmt_exprs(stmt) {
                    visit_expr(&action.body, root, &mut |_, e| {
                        if let Expr::CallAction(a, _) = e {
                            calls.insert(*a);
                        }
                    });
                }
            });
            direct.insert(id, (insts, calls));
        }
        let mut touches = BTreeMap::new();
        for &id in direct.keys() {
            let mut seen = BTreeSet::new();
            let mut stack = vec![id];
            let mut all = BTreeSet::new();
            while let Some(a) = stack.pop() {
                if !seen.insert(a) {
                    continue;
                }
                if let Some((insts, calls)) = direct.get(&a) {
                    all.extend(insts.iter().copied());
                    stack.extend(calls.iter().copied());
                }
            }
            touches.insert(id, all);
        }
        ActionEffects { touches }
    }

    /// Forgets the headers the actions an expression tree may run can change.
    pub fn after_expr(&self, scu: &Scu, body: &Body, root: ExprId, facts: &mut Facts) {
        visit_expr(body, root, &mut |_, e| match e {
            Expr::Apply(t) => {
                if let Some(table) = scu.tables.get(*t) {
                    for a in &table.actions {
                        self.forget_action(*a, facts);
                    }
                }
            }
            Expr::CallAction(a, _) => self.forget_action(*a, facts),
            _ => {}
        });
    }

    fn forget_action(&self, action: ActionId, facts: &mut Facts) {
        for inst in self.touches.get(&action).into_iter().flatten() {
            facts.forget(*inst);
        }
    }
}

/// The facts after a statement without nested blocks (`If`, `Switch` and blocks are the walker's).
pub fn after_simple(fx: &ActionEffects, scu: &Scu, body: &Body, stmt: &Stmt, facts: &mut Facts) {
    for root in super::walk::stmt_exprs(stmt) {
        fx.after_expr(scu, body, root, facts);
    }
    match stmt {
        Stmt::SetValid(inst, index, valid) => match header_key(body, *inst, *index) {
            Some(key) => facts.set(key, *valid),
            None => facts.forget(*inst),
        },
        Stmt::Assign(Place::Header { inst, .. }, _) => facts.forget(*inst),
        Stmt::Extract(inst) => match scu.instances.get(*inst).and_then(|i| i.stack) {
            None => facts.set((*inst, None), true),
            Some(_) => facts.forget(*inst),
        },
        Stmt::Return(_) | Stmt::Drop => *facts = Facts::unreachable(),
        _ => {}
    }
}

/// Where an action can be entered from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Chosen by a table.
    Table(scenic_ir::TableId),
    /// Called directly.
    Call(ActionId),
}

/// Walks a block from `facts`, reporting the facts at each table application and action call;
/// returns the facts where the block falls through.
pub fn walk_block(
    fx: &ActionEffects,
    scu: &Scu,
    body: &Body,
    block: &Block,
    mut facts: Facts,
    visit: &mut dyn FnMut(Site, &Facts),
) -> Facts {
    scenic_ir::stack::grow(|| {
        for stmt in &block.stmts {
            if facts.is_unreachable() {
                break;
            }
            for root in super::walk::stmt_exprs(stmt) {
                report_sites(body, root, &facts, visit);
            }
            match stmt {
                Stmt::If(c, a, b) => {
                    let mut fa = facts.clone();
                    fa.assume(body, *c, true);
                    let mut fb = facts.clone();
                    fb.assume(body, *c, false);
                    let ea = walk_block(fx, scu, body, a, fa, visit);
                    let eb = walk_block(fx, scu, body, b, fb, visit);
                    facts = ea.meet(&eb);
                }
                Stmt::Switch { on, cases, default } => {
                    fx.after_expr(scu, body, *on, &mut facts);
                    let mut out = walk_block(fx, scu, body, default, facts.clone(), visit);
                    for case in cases {
                        out =
                            out.meet(&walk_block(fx, scu, body, &case.body, facts.clone(), visit));
                    }
                    facts = out;
                }
                Stmt::Block(b) => facts = walk_block(fx, scu, body, b, facts, visit),
                Stmt::For { body: b, .. } => {
                    let once = walk_block(fx, scu, body, b, facts.clone(), visit);
                    facts = facts.meet(&once);
                }
                _ => after_simple(fx, scu, body, stmt, &mut facts),
            }
        }
        facts
    })
}

fn report_sites(body: &Body, root: ExprId, facts: &Facts, visit: &mut dyn FnMut(Site, &Facts)) {
    let Some(e) = body.exprs.get(root) else {
        return;
    };
    match e {
        Expr::Apply(t) => visit(Site::Table(*t), facts),
        Expr::CallAction(a, _) => visit(Site::Call(*a), facts),
        _ => {}
    }
    for op in operands(e) {
        report_sites(body, op, facts, visit);
    }
}
