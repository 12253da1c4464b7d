//! Walking code: the operands of expressions, the expressions and locals statements use, every
//! piece of code of a module with the roots its expressions hang from, purity, and the widths the
//! interpreter gives types.

use crate::body::{Block, Body, Expr, Place, Stmt};
use crate::entities::*;
use crate::proc::ops::EnumInfo;
use crate::program::{Module, Parser, Table, Target, Transition};
use crate::span::Span;
use crate::types::Type;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

/// The operands of an expression in evaluation order (`ActionData`'s `apply` is a reference to an
/// expression evaluated earlier, not an operand).
pub fn operands(e: &Expr) -> Vec<ExprId> {
    let mut e = e.clone();
    let mut out = Vec::new();
    map_operands(&mut e, &mut |id| {
        out.push(id);
        id
    });
    out
}

/// Whether some expression of the tree of `root` (including `root`) satisfies `pred`. Only
/// operands older than their user are followed, so a malformed body cannot make this loop.
pub fn tree_any(body: &Body, root: ExprId, pred: &dyn Fn(&Expr) -> bool) -> bool {
    let mut stack = vec![root];
    while let Some(x) = stack.pop() {
        let Some(e) = body.exprs.get(x) else {
            continue;
        };
        if pred(e) {
            return true;
        }
        stack.extend(operands(e).into_iter().filter(|o| *o < x));
    }
    false
}

/// Replaces every operand of `e` by `f(operand)`, in evaluation order.
pub fn map_operands(e: &mut Expr, f: &mut dyn FnMut(ExprId) -> ExprId) {
    match e {
        Expr::Header { index, .. }
        | Expr::HeaderField { index, .. }
        | Expr::HeaderValid { index, .. } => {
            if let Some(i) = index {
                *i = f(*i);
            }
        }
        Expr::Field { base, .. }
        | Expr::Slice { base, .. }
        | Expr::Cast(base)
        | Expr::Unary(_, base) => *base = f(*base),
        Expr::Index { base, index } => {
            *base = f(*base);
            *index = f(*index);
        }
        Expr::SliceDyn { base, lo, .. } => {
            *base = f(*base);
            *lo = f(*lo);
        }
        Expr::Binary(_, a, b) | Expr::MapInsert(_, a, b) => {
            *a = f(*a);
            *b = f(*b);
        }
        Expr::Select(c, a, b) => {
            *c = f(*c);
            *a = f(*a);
            *b = f(*b);
        }
        Expr::MapGet(_, k) | Expr::MapContains(_, k) | Expr::MapRemove(_, k) => *k = f(*k),
        Expr::MeterExceeds(_, index, len) => {
            if let Some(i) = index {
                *i = f(*i);
            }
            *len = f(*len);
        }
        Expr::Call(_, items)
        | Expr::CallAction(_, items)
        | Expr::Intrinsic(_, items)
        | Expr::StructLit(items)
        | Expr::ArrayLit(items)
        | Expr::Tuple(items) => {
            for i in items {
                *i = f(*i);
            }
        }
        // No operands (`ActionData`'s `apply` is a reference, not an operand: see map_refs).
        Expr::Const(_)
        | Expr::Local(_)
        | Expr::Csr(_)
        | Expr::Meta(_)
        | Expr::Packet(_)
        | Expr::Beat(_)
        | Expr::FlowId
        | Expr::CcState(_)
        | Expr::CcParam(_)
        | Expr::Lookahead(_)
        | Expr::Apply(_)
        | Expr::ActionData { .. } => {}
    }
}

/// Replaces every expression `e` refers to (operands and `ActionData`'s `apply`) by `f(id)`.
pub fn map_refs(e: &mut Expr, f: &mut dyn FnMut(ExprId) -> ExprId) {
    if let Expr::ActionData { apply, .. } = e {
        *apply = f(*apply);
    }
    map_operands(e, f);
}

/// Calls `f` on every expression a statement uses directly (not those of nested blocks), in the
/// order the interpreter evaluates them: an assignment's value before its place's indices.
pub fn map_stmt_roots(s: &mut Stmt, f: &mut dyn FnMut(ExprId) -> ExprId) {
    match s {
        Stmt::Let(_, e)
        | Stmt::Eval(e)
        | Stmt::If(e, _, _)
        | Stmt::Switch { on: e, .. }
        | Stmt::Return(Some(e))
        | Stmt::ToNetwork(e)
        | Stmt::Notify(_, e)
        | Stmt::Pass(e) => *e = f(*e),
        Stmt::Assign(place, e) => {
            *e = f(*e);
            map_place(place, f);
        }
        Stmt::Push(_, index, word) => {
            if let Some(i) = index {
                *i = f(*i);
            }
            *word = f(*word);
        }
        Stmt::Count(_, Some(i)) | Stmt::SetValid(_, Some(i), _) => *i = f(*i),
        // No expression of their own (nested blocks are not roots of this statement).
        Stmt::Return(None)
        | Stmt::Count(_, None)
        | Stmt::SetValid(_, None, _)
        | Stmt::For { .. }
        | Stmt::Block(_)
        | Stmt::Drop
        | Stmt::ToHost
        | Stmt::ToScu(_)
        | Stmt::Extract(_)
        | Stmt::Emit(_)
        | Stmt::Restart(_) => {}
    }
}

/// The expressions a statement uses directly, in evaluation order.
pub fn stmt_roots(s: &Stmt) -> Vec<ExprId> {
    let mut out = Vec::new();
    let mut s = shallow(s);
    map_stmt_roots(&mut s, &mut |id| {
        out.push(id);
        id
    });
    out
}

/// A copy of a statement without its nested blocks (cheap to clone).
fn shallow(s: &Stmt) -> Stmt {
    match s {
        Stmt::If(c, _, _) => Stmt::If(*c, Block::default(), Block::default()),
        Stmt::Switch { on, .. } => Stmt::Switch {
            on: *on,
            cases: Vec::new(),
            default: Block::default(),
        },
        Stmt::For { .. } | Stmt::Block(_) => Stmt::Block(Block::default()),
        other => other.clone(),
    }
}

/// Replaces the index expressions of a place, root first.
pub fn map_place(p: &mut Place, f: &mut dyn FnMut(ExprId) -> ExprId) {
    match p {
        Place::HeaderField { index, .. } | Place::Header { index, .. } => {
            if let Some(i) = index {
                *i = f(*i);
            }
        }
        Place::Field(base, _) | Place::Slice(base, _, _) => map_place(base, f),
        Place::Index(base, i) => {
            map_place(base, f);
            *i = f(*i);
        }
        Place::Local(_) | Place::Csr(_) | Place::Meta(_) | Place::CcState(_) => {}
    }
}

/// The local a place writes into, if its root is a local.
pub fn place_local(p: &Place) -> Option<LocalId> {
    match p {
        Place::Local(l) => Some(*l),
        Place::Field(base, _) | Place::Slice(base, _, _) | Place::Index(base, _) => {
            place_local(base)
        }
        Place::Csr(_)
        | Place::Meta(_)
        | Place::HeaderField { .. }
        | Place::Header { .. }
        | Place::CcState(_) => None,
    }
}

/// Replaces the local at a place's root.
pub fn map_place_local(p: &mut Place, f: &mut dyn FnMut(LocalId) -> LocalId) {
    match p {
        Place::Local(l) => *l = f(*l),
        Place::Field(base, _) | Place::Slice(base, _, _) | Place::Index(base, _) => {
            map_place_local(base, f)
        }
        Place::Csr(_)
        | Place::Meta(_)
        | Place::HeaderField { .. }
        | Place::Header { .. }
        | Place::CcState(_) => {}
    }
}

/// The pattern of every statement that holds no block: one list for the walks that must name
/// each variant (a new statement kind with blocks fails to compile until they handle it).
macro_rules! stmt_without_blocks {
    () => {
        Stmt::Let(..)
            | Stmt::Assign(..)
            | Stmt::Eval(_)
            | Stmt::Return(_)
            | Stmt::Drop
            | Stmt::ToHost
            | Stmt::ToNetwork(_)
            | Stmt::ToScu(_)
            | Stmt::Notify(..)
            | Stmt::Pass(_)
            | Stmt::Push(..)
            | Stmt::Count(..)
            | Stmt::Extract(_)
            | Stmt::Emit(_)
            | Stmt::SetValid(..)
            | Stmt::Restart(_)
    };
}

/// The blocks nested directly in a statement.
pub fn child_blocks(s: &Stmt) -> Vec<&Block> {
    match s {
        Stmt::If(_, t, e) => vec![t, e],
        Stmt::Switch { cases, default, .. } => cases
            .iter()
            .map(|c| &c.body)
            .chain(std::iter::once(default))
            .collect(),
        Stmt::For { body, .. } | Stmt::Block(body) => vec![body],
        stmt_without_blocks!() => Vec::new(),
    }
}

/// The blocks nested directly in a statement, mutably.
pub fn child_blocks_mut(s: &mut Stmt) -> Vec<&mut Block> {
    match s {
        Stmt::If(_, t, e) => vec![t, e],
        Stmt::Switch { cases, default, .. } => cases
            .iter_mut()
            .map(|c| &mut c.body)
            .chain(std::iter::once(default))
            .collect(),
        Stmt::For { body, .. } | Stmt::Block(body) => vec![body],
        stmt_without_blocks!() => Vec::new(),
    }
}

/// The statements of a block with their spans (a missing span reads as unknown, so a malformed
/// block loses no statement).
pub fn pairs(b: Block) -> Vec<(Stmt, Span)> {
    let (stmts, spans) = b.into_parts();
    let mut spans = spans.into_iter();
    stmts
        .into_iter()
        .map(|s| (s, spans.next().unwrap_or_default()))
        .collect()
}

/// Calls `f` on every statement of `b` and of the blocks nested in it, parents first.
pub fn visit_stmts(b: &Block, f: &mut dyn FnMut(&Stmt)) {
    crate::stack::grow(|| {
        for s in &b.stmts {
            f(s);
            for child in child_blocks(s) {
                visit_stmts(child, f);
            }
        }
    })
}

/// Calls `f` on every statement of `b` and of the blocks nested in it, parents first.
pub fn visit_stmts_mut(b: &mut Block, f: &mut dyn FnMut(&mut Stmt)) {
    crate::stack::grow(|| {
        for s in &mut b.stmts {
            f(s);
            for child in child_blocks_mut(s) {
                visit_stmts_mut(child, f);
            }
        }
    })
}

/// Whether a block contains a statement for which `pred` holds (at any depth).
pub fn any_stmt(b: &Block, pred: &dyn Fn(&Stmt) -> bool) -> bool {
    crate::stack::grow(|| {
        let mut found = false;
        visit_stmts(b, &mut |s| found |= pred(s));
        found
    })
}

/// One piece of code of a module, with the parts of it that live outside its body's block.
pub enum CodeMut<'a> {
    /// A body whose statements are its block: functions, actions, controls, handlers, kernels.
    Plain(&'a mut Body),
    /// A parser: its states' blocks and select scrutinees share one body.
    Parser(&'a mut Parser),
    /// A table's key expressions (the body has no statements that run).
    Keys(&'a mut Table),
}

impl CodeMut<'_> {
    /// The same code, borrowed for a shorter time (to hand it to a helper and keep it).
    pub fn reborrow(&mut self) -> CodeMut<'_> {
        match self {
            CodeMut::Plain(b) => CodeMut::Plain(b),
            CodeMut::Parser(p) => CodeMut::Parser(p),
            CodeMut::Keys(t) => CodeMut::Keys(t),
        }
    }

    /// The body holding the code's locals and expressions.
    pub fn body(&mut self) -> &mut Body {
        match self {
            CodeMut::Plain(b) => b,
            CodeMut::Parser(p) => &mut p.body,
            CodeMut::Keys(t) => &mut t.key_body,
        }
    }

    /// Calls `f` with the body and each block of statements of the code (the block is taken out
    /// of the body while `f` runs).
    pub fn for_each_block(&mut self, f: &mut dyn FnMut(&mut Body, &mut Block)) {
        match self {
            CodeMut::Plain(_) | CodeMut::Keys(_) => {
                let body = self.body();
                let mut block = std::mem::take(&mut body.block);
                f(body, &mut block);
                body.block = block;
            }
            CodeMut::Parser(p) => {
                for state in p.states.values_mut() {
                    f(&mut p.body, &mut state.block);
                }
            }
        }
    }

    /// Replaces the expressions used outside blocks: select scrutinees and table keys.
    pub fn map_extra_roots(&mut self, f: &mut dyn FnMut(ExprId) -> ExprId) {
        match self {
            CodeMut::Plain(_) => {}
            CodeMut::Parser(p) => {
                for state in p.states.values_mut() {
                    if let Transition::Select { on, .. } = &mut state.transition {
                        *on = f(*on);
                    }
                }
            }
            CodeMut::Keys(t) => {
                for k in &mut t.keys {
                    k.expr = f(k.expr);
                }
            }
        }
    }
}

/// Calls `f` on every piece of code of the module: functions, then each scu's parser, table keys,
/// actions, control, parser-error handler, deparser, stream kernel and `every` blocks, then each
/// cc's handlers.
pub fn for_each_code(module: &mut Module, f: &mut dyn FnMut(CodeMut<'_>)) {
    for func in module.functions.values_mut() {
        f(CodeMut::Plain(&mut func.body));
    }
    for scu in module.scus.values_mut() {
        if let Some(p) = &mut scu.parser {
            f(CodeMut::Parser(p));
        }
        for t in scu.tables.values_mut() {
            f(CodeMut::Keys(t));
        }
        for a in scu.actions.values_mut() {
            f(CodeMut::Plain(&mut a.body));
        }
        let bodies = [
            &mut scu.control,
            &mut scu.on_parser_error,
            &mut scu.deparser,
            &mut scu.stream,
        ];
        for body in bodies.into_iter().flatten() {
            f(CodeMut::Plain(body));
        }
        for every in &mut scu.every {
            f(CodeMut::Plain(&mut every.body));
        }
    }
    for cc in module.ccs.values_mut() {
        for h in &mut cc.handlers {
            f(CodeMut::Plain(&mut h.body));
        }
    }
}

/// Whether an expression node itself (not its operands) may have an effect or stop the code:
/// calls, action calls, table applications, map accesses (`get` refreshes an LRU map), meters
/// and lookahead (which can reject the packet).
pub fn node_has_effect(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Call(..)
            | Expr::CallAction(..)
            | Expr::Apply(_)
            | Expr::MapGet(..)
            | Expr::MapInsert(..)
            | Expr::MapRemove(..)
            | Expr::MeterExceeds(..)
            | Expr::Lookahead(_)
    )
}

/// For every expression of `body`, whether its tree has no effect (see [`node_has_effect`]).
pub fn purity(body: &Body) -> SecondaryMap<ExprId, bool> {
    let mut pure: SecondaryMap<ExprId, bool> = SecondaryMap::with_capacity(body.exprs.len());
    for (id, e) in body.exprs.iter() {
        pure[id] = !node_has_effect(e) && operands(e).iter().all(|&o| o < id && pure[o]);
    }
    pure
}

/// Whether evaluating a place's indices has no effect.
pub fn place_is_pure(p: &Place, pure: &SecondaryMap<ExprId, bool>) -> bool {
    let mut ok = true;
    let mut p = p.clone();
    map_place(&mut p, &mut |i| {
        ok &= pure[i];
        i
    });
    ok
}

/// The widths the interpreter gives types (`interp::value::width_of`), without borrowing the
/// module: enum widths are copied out.
#[derive(Clone, Debug, Default)]
pub struct Widths {
    enums: Vec<u32>,
}

impl Widths {
    /// The enum widths of `module`.
    pub fn of(module: &Module) -> Widths {
        Widths {
            enums: module.enums.values().map(|e| e.width).collect(),
        }
    }

    /// The width of a scalar type, `None` for aggregates and `Unit`.
    pub fn scalar(&self, ty: &Type) -> Option<u32> {
        ty.scalar_width(|e| self.enum_width(e))
    }

    /// The width of a value's bit pattern as the interpreter computes it (1 for non-scalars).
    pub fn width(&self, ty: &Type) -> u32 {
        self.scalar(ty).unwrap_or(1).max(1)
    }
}

impl EnumInfo for Widths {
    fn enum_width(&self, e: EnumId) -> u32 {
        self.enums.get(e.index()).copied().unwrap_or(8)
    }
}

/// Removes the parser states for which `keep` is false, renumbering the others and redirecting
/// transitions; a transition to a removed state rejects with `no_match` (callers remove only
/// states nothing reaches). Returns whether any state was removed.
pub fn retain_states(parser: &mut Parser, keep: &dyn Fn(StateId) -> bool) -> bool {
    let old = std::mem::take(&mut parser.states);
    let mut map: SecondaryMap<StateId, Option<StateId>> = SecondaryMap::new();
    let mut states = PrimaryMap::new();
    let mut removed = false;
    for (id, state) in old {
        if keep(id) || id == parser.start {
            map[id] = Some(states.push(state));
        } else {
            removed = true;
        }
    }
    let target = |t: &mut Target| {
        if let Target::State(s) = t {
            *t = map[*s].map_or(Target::Reject(ErrorId::new(1)), Target::State);
        }
    };
    for state in states.values_mut() {
        match &mut state.transition {
            Transition::Direct(t) => target(t),
            Transition::Select { cases, .. } => {
                cases.iter_mut().for_each(|c| target(&mut c.target))
            }
        }
    }
    parser.start = map[parser.start].unwrap_or(parser.start);
    parser.states = states;
    removed
}

/// The targets a state's transition may take.
pub fn targets(t: &Transition) -> Vec<Target> {
    match t {
        Transition::Direct(t) => vec![*t],
        Transition::Select { cases, .. } => cases.iter().map(|c| c.target).collect(),
    }
}

/// The states reachable from the start state.
pub fn reachable_states(parser: &Parser) -> SecondaryMap<StateId, bool> {
    let mut seen: SecondaryMap<StateId, bool> = SecondaryMap::new();
    let mut stack = vec![parser.start];
    while let Some(s) = stack.pop() {
        if seen[s] || parser.states.get(s).is_none() {
            continue;
        }
        seen[s] = true;
        for t in targets(&parser.states[s].transition) {
            if let Target::State(next) = t {
                stack.push(next);
            }
        }
    }
    seen
}
