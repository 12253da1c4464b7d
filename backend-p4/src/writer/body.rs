//! Statements, with early exits made structured.
//!
//! P4 has `return` and `exit`, but what they do around v1model's ingress and egress, and whether
//! Vitis Networking P4 supports them, differ; structured code means the same everywhere. A
//! statement after which the rest of the block may not run (a `return`, a `drop()`, an `if` with one
//! in a branch, a table whose action may drop) is handled in one of two ways:
//!
//! - an `if` one of whose branches always leaves and the other never does takes the rest of the
//!   block into the other branch: `if c { to_host(); return; } rest` becomes
//!   `if (c) { ... } else { rest }` (and `else if` chains read naturally);
//! - otherwise a flag (`scenic_done` for the control, `scenic_ret` for an action) is set where the
//!   code leaves and the rest is guarded by `if (!flag)`.
//!
//! [`needs_flag`] decides beforehand whether a body needs its flag, mirroring [`BodyWriter::stmts`].

use super::{target, Code, Ctx};
use crate::analysis::facts::Facts;
use crate::error::Error;
use crate::namer::Namer;
use scenic_ir::{ActionId, Body, Expr, LocalId, Stmt, TableId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Which kind of code is being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A parser state.
    Parser,
    /// The control or `on parser_error`.
    Control,
    /// An action body (a P4 action, or one run in the control after its table).
    Action,
    /// The deparser's computations, moved to the end of the control.
    Deparser,
}

/// Control-level state every body of one control shares.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// Control variables holding action data read after a lookup: (action, parameter) → name.
    pub action_data: BTreeMap<(ActionId, u32), String>,
    /// Actions whose bodies run in the control after the lookup (Vitis: they need conditionals).
    pub hoisted: BTreeSet<ActionId>,
    /// Actions that may drop (directly or through actions they call).
    pub drops: BTreeSet<ActionId>,
    /// Control-level variable declarations (`bit<32> scenic_key_routes_0;`).
    pub control_vars: Vec<String>,
    /// Per table, the control variable holding each key when the key needs a computation.
    pub key_vars: BTreeMap<TableId, Vec<Option<String>>>,
    /// The `InternetChecksum` instance (Vitis), once one is needed.
    pub checksum_unit: Option<String>,
    /// The control's `scenic_done` flag.
    pub done_flag: String,
    /// Whether the flag is declared (some code leaves early where a flag is needed, or an action
    /// drops).
    pub uses_done_flag: bool,
    /// [`term`] of each statement already asked, by the statement's address (the module is not
    /// changed while it is written): without it, an `else if` chain of N arms costs N² (each arm's
    /// `if` asks for the whole rest of the chain).
    pub terms: std::cell::RefCell<HashMap<usize, Term>>,
}

impl Shared {
    /// The control's `InternetChecksum` instance, declared on first use.
    pub fn internet_checksum(&mut self, namer: &mut Namer) -> String {
        if let Some(name) = &self.checksum_unit {
            return name.clone();
        }
        let name = namer.helper("checksum");
        self.checksum_unit = Some(name.clone());
        name
    }
}

/// Whether a statement ends the code it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Never leaves early.
    Never,
    /// Leaves on some paths.
    Maybe,
    /// Always leaves.
    Always,
}

fn combine(a: Term, b: Term) -> Term {
    match (a, b) {
        (Term::Always, Term::Always) => Term::Always,
        (Term::Never, Term::Never) => Term::Never,
        _ => Term::Maybe,
    }
}

pub use crate::analysis::walk::{items, Item};

/// How a statement may end the code it is in (actions that drop end the control); computed once
/// per statement, on a grown stack (an `else if` chain nests one `if` per arm).
pub fn term(shared: &Shared, cx: &Ctx<'_>, body: &Body, stmt: &Stmt) -> Term {
    let key = stmt as *const Stmt as usize;
    if let Some(t) = shared.terms.borrow().get(&key) {
        return *t;
    }
    let t = scenic_ir::stack::grow(|| term_of(shared, cx, body, stmt));
    shared.terms.borrow_mut().insert(key, t);
    t
}

fn term_of(shared: &Shared, cx: &Ctx<'_>, body: &Body, stmt: &Stmt) -> Term {
    match stmt {
        Stmt::Return(_) | Stmt::Drop => Term::Always,
        Stmt::If(_, a, b) => combine(
            term_list(shared, cx, body, &items(a)),
            term_list(shared, cx, body, &items(b)),
        ),
        Stmt::Switch { on, cases, default } => {
            let mut t = term_list(shared, cx, body, &items(default));
            for case in cases {
                t = combine(t, term_list(shared, cx, body, &items(&case.body)));
            }
            if runs_dropping_action(shared, cx, body, *on) && t == Term::Never {
                t = Term::Maybe;
            }
            t
        }
        Stmt::Block(b) => term_list(shared, cx, body, &items(b)),
        _ => {
            let drops = crate::analysis::walk::stmt_exprs(stmt)
                .into_iter()
                .any(|e| runs_dropping_action(shared, cx, body, e));
            if drops {
                Term::Maybe
            } else {
                Term::Never
            }
        }
    }
}

/// How a list of statements may end.
pub fn term_list(shared: &Shared, cx: &Ctx<'_>, body: &Body, list: &[Item<'_>]) -> Term {
    let mut t = Term::Never;
    for (stmt, _) in list {
        match term(shared, cx, body, stmt) {
            Term::Always => return Term::Always,
            Term::Maybe => t = Term::Maybe,
            Term::Never => {}
        }
    }
    t
}

fn runs_dropping_action(
    shared: &Shared,
    cx: &Ctx<'_>,
    body: &Body,
    root: scenic_ir::ExprId,
) -> bool {
    let mut found = false;
    crate::analysis::walk::visit_expr(body, root, &mut |_, e| match e {
        Expr::Apply(t) => {
            let actions = cx
                .scu
                .tables
                .get(*t)
                .map(|t| t.actions.clone())
                .unwrap_or_default();
            found |= actions.iter().any(|a| shared.drops.contains(a));
        }
        Expr::CallAction(a, _) => found |= shared.drops.contains(a),
        _ => {}
    });
    found
}

/// Whether writing `list` needs a flag (mirrors [`BodyWriter::stmts`]).
pub fn needs_flag(shared: &Shared, cx: &Ctx<'_>, body: &Body, list: &[Item<'_>]) -> bool {
    scenic_ir::stack::grow(|| {
        for (i, (stmt, _)) in list.iter().enumerate() {
            let rest = &list[i + 1..];
            let inside = || {
                scenic_child_lists(stmt)
                    .iter()
                    .any(|l| needs_flag(shared, cx, body, l))
            };
            match term(shared, cx, body, stmt) {
                Term::Never => {
                    if inside() {
                        return true;
                    }
                }
                Term::Always => return inside(),
                Term::Maybe if rest.is_empty() => return inside(),
                Term::Maybe => {
                    let (Some(then_exits), Stmt::If(_, a, b)) =
                        (split_if(shared, cx, body, stmt), stmt)
                    else {
                        return true;
                    };
                    let (mut first, mut second) = (items(a), items(b));
                    if then_exits {
                        second.extend_from_slice(rest);
                    } else {
                        first.extend_from_slice(rest);
                    }
                    return needs_flag(shared, cx, body, &first)
                        || needs_flag(shared, cx, body, &second);
                }
            }
        }
        false
    })
}

fn scenic_child_lists(stmt: &Stmt) -> Vec<Vec<Item<'_>>> {
    crate::analysis::walk::child_blocks(stmt)
        .into_iter()
        .map(items)
        .collect()
}

/// For `if c {A} else {B}` where one branch always leaves and the other never does: whether the
/// then-branch is the one that leaves.
pub fn split_if(shared: &Shared, cx: &Ctx<'_>, body: &Body, stmt: &Stmt) -> Option<bool> {
    let Stmt::If(_, a, b) = stmt else { return None };
    let (ta, tb) = (
        term_list(shared, cx, body, &items(a)),
        term_list(shared, cx, body, &items(b)),
    );
    match (ta, tb) {
        (Term::Always, Term::Never) => Some(true),
        (Term::Never, Term::Always) => Some(false),
        _ => None,
    }
}

/// Writes the statements of one body.
pub struct BodyWriter<'c, 'a> {
    /// The program.
    pub cx: &'c Ctx<'a>,
    /// The body whose expressions are referenced.
    pub body: &'c Body,
    /// Names in the control's scope.
    pub namer: &'c mut Namer,
    /// Control-level shared state.
    pub shared: &'c mut Shared,
    /// Errors found while writing.
    pub errors: &'c mut Vec<Error>,
    /// The P4 names of the body's locals.
    pub locals: BTreeMap<LocalId, String>,
    /// The code written so far.
    pub code: Code,
    /// Pre-statements of the statement being written.
    pub pre: Code,
    /// Header validity at the current point.
    pub facts: Facts,
    /// The kind of code.
    pub kind: Kind,
    /// The flag an early exit sets (and the rest checks), when one is needed.
    pub exit_flag: Option<String>,
    /// Whether an `if` was written (Vitis actions must be straight-line).
    pub conditional: bool,
}

impl<'c, 'a> BodyWriter<'c, 'a> {
    /// A writer for `body` at indentation `level`.
    // The three shared borrows (names, control state, errors) are separate so that a writer for a
    // nested body (a key, an inlined action) can reborrow them from its parent.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cx: &'c Ctx<'a>,
        body: &'c Body,
        namer: &'c mut Namer,
        shared: &'c mut Shared,
        errors: &'c mut Vec<Error>,
        kind: Kind,
        level: usize,
        facts: Facts,
    ) -> BodyWriter<'c, 'a> {
        BodyWriter {
            cx,
            body,
            namer,
            shared,
            errors,
            locals: BTreeMap::new(),
            code: Code::at(level),
            pre: Code::at(level),
            facts,
            kind,
            exit_flag: None,
            conditional: false,
        }
    }

    /// The name of a local, chosen on first use.
    pub fn local(&mut self, id: LocalId) -> String {
        if let Some(name) = self.locals.get(&id) {
            return name.clone();
        }
        let base = self
            .body
            .locals
            .get(id)
            .map(|l| l.name.clone())
            .unwrap_or_else(|| "v".into());
        let name = self.namer.name(&base);
        self.locals.insert(id, name.clone());
        name
    }

    /// Starts a statement: pre-statements go just before it.
    pub fn begin(&mut self) {
        self.pre = Code::at(self.code.level);
    }

    /// Moves the pre-statements into the code.
    pub fn flush(&mut self) {
        let pre = std::mem::replace(&mut self.pre, Code::at(self.code.level));
        self.code.append(&pre);
    }

    /// Writes a list of statements, restructuring early exits.
    pub fn stmts(&mut self, list: &[Item<'_>]) {
        for (i, &(stmt, span)) in list.iter().enumerate() {
            if self.facts.is_unreachable() {
                return;
            }
            let rest = &list[i + 1..];
            match term(self.shared, self.cx, self.body, stmt) {
                Term::Never => self.stmt(stmt, span),
                Term::Always => return self.stmt(stmt, span),
                Term::Maybe if rest.is_empty() => return self.stmt(stmt, span),
                Term::Maybe => {
                    if let Some(()) = self.if_with_rest(stmt, rest) {
                        return;
                    }
                    self.stmt(stmt, span);
                    let flag = self.flag_check();
                    self.code.open(format!("if ({flag}) {{"));
                    self.stmts(rest);
                    self.code.close("}");
                    return;
                }
            }
        }
    }

    /// The condition under which code after an early exit runs.
    fn flag_check(&self) -> String {
        match (&self.exit_flag, self.kind) {
            (Some(ret), Kind::Action) => format!("!{ret} && !{}", self.shared.done_flag),
            (Some(flag), _) => format!("!{flag}"),
            (None, _) => format!("!{}", self.shared.done_flag),
        }
    }

    /// `if (c) { leaves } else { stays; rest }` (or the mirror image); `None` if not such an `if`.
    fn if_with_rest(&mut self, stmt: &Stmt, rest: &[Item<'_>]) -> Option<()> {
        let then_exits = split_if(self.shared, self.cx, self.body, stmt)?;
        let Stmt::If(c, a, b) = stmt else { return None };
        let (mut first, mut second) = (items(a), items(b));
        if then_exits {
            second.extend_from_slice(rest);
        } else {
            first.extend_from_slice(rest);
        }
        self.write_if(*c, &first, &second, false);
        Some(())
    }

    /// `if (c) { first } else { second }`, with `else if` when `second` is a single `if`.
    /// `chained`: called for the `else` of an enclosing `if` whose then-branch is still open.
    pub fn write_if(
        &mut self,
        c: scenic_ir::ExprId,
        first: &[Item<'_>],
        second: &[Item<'_>],
        chained: bool,
    ) {
        scenic_ir::stack::grow(|| {
            self.begin();
            let cond = strip(&self.expr(c));
            let mut extra_close = false;
            if chained && self.pre.text.is_empty() {
                self.code.close(format!("}} else if ({cond}) {{"));
                self.code.level += 1;
            } else {
                if chained {
                    self.code.close("} else {");
                    self.code.level += 1;
                    extra_close = true;
                }
                self.flush();
                self.code.open(format!("if ({cond}) {{"));
            }
            self.conditional = true;
            let mut then_facts = self.facts.clone();
            then_facts.assume(self.body, c, true);
            let mut else_facts = self.facts.clone();
            else_facts.assume(self.body, c, false);
            self.facts = then_facts;
            self.stmts(first);
            let after_then = std::mem::replace(&mut self.facts, else_facts);
            match second {
                [] => self.code.close("}"),
                [(stmt @ Stmt::If(c2, a2, b2), _), rest @ ..]
                    if rest.is_empty()
                        || split_if(self.shared, self.cx, self.body, stmt).is_some() =>
                {
                    let (mut first2, mut second2) = (items(a2), items(b2));
                    if split_if(self.shared, self.cx, self.body, stmt) == Some(false) {
                        first2.extend_from_slice(rest);
                    } else {
                        second2.extend_from_slice(rest);
                    }
                    self.write_if(*c2, &first2, &second2, true);
                }
                _ => {
                    self.code.close("} else {");
                    self.code.level += 1;
                    self.stmts(second);
                    self.code.close("}");
                }
            }
            self.facts = after_then.meet(&self.facts);
            if extra_close {
                self.code.close("}");
            }
        })
    }
}

/// Removes one pair of parentheses around a whole expression.
pub fn strip(s: &str) -> String {
    if s.starts_with('(') && s.ends_with(')') {
        let inner = &s[1..s.len() - 1];
        let mut depth = 0i32;
        let balanced = inner.chars().all(|ch| {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            depth >= 0
        });
        if balanced && depth == 0 {
            return inner.to_string();
        }
    }
    s.to_string()
}

/// Writes an early exit: the target's drop, and the flags. An action that drops always sets the
/// control's `scenic_done` (the control checks it after the lookup when the action may drop).
pub fn write_exit(w: &mut BodyWriter<'_, '_>, drop: bool) {
    if drop {
        target::drop_stmt(w.cx, &mut w.code);
        if w.kind == Kind::Action {
            w.code.line(format!("{} = true;", w.shared.done_flag));
        }
    }
    if let Some(flag) = w.exit_flag.clone() {
        w.code.line(format!("{flag} = true;"));
    }
}
