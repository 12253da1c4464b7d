//! Static facts about an scu that size the kernel: which bodies can stop a packet (`drop()`,
//! parser errors), how many copies, notifications and deparsed bytes one packet can produce, and
//! how deep the parser can read (the header window) in how many state transitions.
//!
//! Every figure is an upper bound over all paths (branches take their maximum, unrolled loops
//! multiply, calls and table applications add their callee's figure), so the arrays the writer
//! sizes from them can never overflow.

use scenic_ir::body::{Block, Body, Expr, Place, Stmt};
use scenic_ir::entities::*;
use scenic_ir::program::{Scu, Target, Transition};
use scenic_ir::Module;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The expressions a statement evaluates directly (not those of nested blocks), in order.
pub fn stmt_exprs(stmt: &Stmt) -> Vec<ExprId> {
    match stmt {
        Stmt::Let(_, e) | Stmt::Eval(e) | Stmt::ToNetwork(e) | Stmt::Notify(_, e) => vec![*e],
        Stmt::Pass(e) => vec![*e],
        Stmt::Assign(place, e) => {
            let mut v = vec![*e];
            place_exprs(place, &mut v);
            v
        }
        Stmt::If(c, _, _) => vec![*c],
        Stmt::Switch { on, .. } => vec![*on],
        Stmt::Return(e) => e.iter().copied().collect(),
        Stmt::Push(_, i, e) => i.iter().copied().chain([*e]).collect(),
        Stmt::Count(_, i) | Stmt::SetValid(_, i, _) => i.iter().copied().collect(),
        _ => Vec::new(),
    }
}

/// The index expressions of a place, root first.
pub fn place_exprs(place: &Place, out: &mut Vec<ExprId>) {
    match place {
        Place::HeaderField { index, .. } | Place::Header { index, .. } => {
            out.extend(index.iter().copied())
        }
        Place::Field(base, _) | Place::Slice(base, _, _) => place_exprs(base, out),
        Place::Index(base, e) => {
            place_exprs(base, out);
            out.push(*e);
        }
        _ => {}
    }
}

/// The blocks nested in a statement.
pub fn stmt_blocks(stmt: &Stmt) -> Vec<&Block> {
    match stmt {
        Stmt::If(_, a, b) => vec![a, b],
        Stmt::Switch { cases, default, .. } => {
            cases.iter().map(|c| &c.body).chain([default]).collect()
        }
        Stmt::For { body, .. } => vec![body],
        Stmt::Block(b) => vec![b],
        _ => Vec::new(),
    }
}

/// An expression's operands, in evaluation order.
pub fn operands(expr: &Expr) -> Vec<ExprId> {
    match expr {
        Expr::Header { index, .. }
        | Expr::HeaderField { index, .. }
        | Expr::HeaderValid { index, .. } => index.iter().copied().collect(),
        Expr::Field { base, .. } | Expr::Slice { base, .. } | Expr::Cast(base) => vec![*base],
        Expr::Unary(_, a)
        | Expr::MapGet(_, a)
        | Expr::MapContains(_, a)
        | Expr::MapRemove(_, a) => {
            vec![*a]
        }
        Expr::Index { base, index } => vec![*base, *index],
        Expr::SliceDyn { base, lo, .. } => vec![*base, *lo],
        Expr::Binary(_, a, b) | Expr::MapInsert(_, a, b) => vec![*a, *b],
        Expr::Select(c, a, b) => vec![*c, *a, *b],
        Expr::Call(_, args)
        | Expr::CallAction(_, args)
        | Expr::Intrinsic(_, args)
        | Expr::StructLit(args)
        | Expr::ArrayLit(args)
        | Expr::Tuple(args) => args.clone(),
        Expr::MeterExceeds(_, i, len) => i.iter().copied().chain([*len]).collect(),
        _ => Vec::new(),
    }
}

/// Whether an expression itself has an effect or reads state an effect may change (so it must be
/// evaluated in order, into a temporary).
pub fn is_effect(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Call(..)
            | Expr::CallAction(..)
            | Expr::Apply(_)
            | Expr::MapGet(..)
            | Expr::MapContains(..)
            | Expr::MapInsert(..)
            | Expr::MapRemove(..)
            | Expr::MeterExceeds(..)
            | Expr::Lookahead(_)
    )
}

/// What a [`Tally`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Measure {
    /// Copies requested (`to_host`, `to_network`, `to_scu`).
    Copies,
    /// Notifications raised.
    Notes,
    /// Bytes emitted by the deparser.
    EmitBytes,
    /// Words passed on by a stream kernel (`pass`).
    Passes,
    /// Words pushed to outputs by a stream kernel (`push`).
    Pushes,
}

/// Upper bounds of a [`Measure`] over bodies, following calls and table applications.
pub struct Tally<'a> {
    module: &'a Module,
    scu: &'a Scu,
    measure: Measure,
    funcs: HashMap<FuncId, u64>,
    actions: HashMap<ActionId, u64>,
    visiting: HashSet<FuncId>,
}

impl<'a> Tally<'a> {
    /// A tally of `measure` in `scu`.
    pub fn new(module: &'a Module, scu: &'a Scu, measure: Measure) -> Tally<'a> {
        Tally {
            module,
            scu,
            measure,
            funcs: HashMap::new(),
            actions: HashMap::new(),
            visiting: HashSet::new(),
        }
    }

    /// The most a run of `body` can count.
    pub fn body(&mut self, body: &Body) -> u64 {
        self.block(body, &body.block)
    }

    fn block(&mut self, body: &Body, block: &Block) -> u64 {
        scenic_ir::stack::grow(|| {
            block
                .stmts
                .iter()
                .map(|s| self.stmt(body, s))
                .fold(0, u64::saturating_add)
        })
    }

    fn stmt(&mut self, body: &Body, stmt: &Stmt) -> u64 {
        let own = match (self.measure, stmt) {
            (Measure::Copies, Stmt::ToHost | Stmt::ToNetwork(_) | Stmt::ToScu(_)) => 1,
            (Measure::Notes, Stmt::Notify(..)) => 1,
            (Measure::Passes, Stmt::Pass(_)) | (Measure::Pushes, Stmt::Push(..)) => 1,
            (Measure::EmitBytes, Stmt::Emit(inst)) => {
                let i = &self.scu.instances[*inst];
                let bytes = self.module.headers[i.header].bits / 8;
                u64::from(bytes) * u64::from(i.stack.unwrap_or(1))
            }
            _ => 0,
        };
        let exprs = stmt_exprs(stmt)
            .into_iter()
            .map(|e| self.expr(body, e))
            .fold(0, u64::saturating_add);
        let nested = match stmt {
            Stmt::For {
                first,
                last,
                body: b,
                ..
            } => {
                let n = u64::try_from(last.saturating_sub(*first).saturating_add(1)).unwrap_or(0);
                n.saturating_mul(self.block(body, b))
            }
            other => stmt_blocks(other)
                .into_iter()
                .map(|b| self.block(body, b))
                .max()
                .unwrap_or(0),
        };
        own.saturating_add(exprs).saturating_add(nested)
    }

    fn expr(&mut self, body: &Body, e: ExprId) -> u64 {
        let Some(expr) = body.exprs.get(e) else {
            return 0;
        };
        let own = match expr {
            Expr::Call(f, _) => self.func(*f),
            Expr::CallAction(a, _) => self.action(*a),
            Expr::Apply(t) => self.table(*t),
            _ => 0,
        };
        operands(expr)
            .into_iter()
            .map(|o| self.expr(body, o))
            .fold(own, u64::saturating_add)
    }

    fn func(&mut self, f: FuncId) -> u64 {
        if let Some(v) = self.funcs.get(&f) {
            return *v;
        }
        if !self.visiting.insert(f) {
            return 0;
        }
        let module = self.module;
        let v = module
            .functions
            .get(f)
            .map_or(0, |func| self.body(&func.body));
        self.visiting.remove(&f);
        self.funcs.insert(f, v);
        v
    }

    fn action(&mut self, a: ActionId) -> u64 {
        if let Some(v) = self.actions.get(&a) {
            return *v;
        }
        let scu = self.scu;
        let v = scu.actions.get(a).map_or(0, |act| self.body(&act.body));
        self.actions.insert(a, v);
        v
    }

    fn table(&mut self, t: TableId) -> u64 {
        let scu = self.scu;
        let Some(table) = scu.tables.get(t) else {
            return 0;
        };
        let keys = table
            .keys
            .iter()
            .map(|k| self.expr(&table.key_body, k.expr))
            .fold(0, u64::saturating_add);
        let actions = table
            .actions
            .iter()
            .map(|a| self.action(*a))
            .max()
            .unwrap_or(0);
        keys.saturating_add(actions)
    }
}

/// Which bodies can stop a packet: `drop()`, `extract` and `lookahead` (parser errors), and
/// everything that calls or applies them.
pub struct Halts {
    /// Functions that may halt.
    pub funcs: HashSet<FuncId>,
    /// Actions that may halt.
    pub actions: HashSet<ActionId>,
    /// Tables whose application may halt (a key or an action).
    pub tables: HashSet<TableId>,
}

impl Halts {
    /// Computes the sets for `scu` (a fixpoint over calls; recursion does not exist).
    pub fn new(module: &Module, scu: &Scu) -> Halts {
        let mut h = Halts {
            funcs: HashSet::new(),
            actions: HashSet::new(),
            tables: HashSet::new(),
        };
        loop {
            let before = h.funcs.len() + h.actions.len() + h.tables.len();
            for (f, func) in &module.functions {
                if h.body(&func.body) {
                    h.funcs.insert(f);
                }
            }
            for (a, act) in &scu.actions {
                if h.body(&act.body) {
                    h.actions.insert(a);
                }
            }
            for (t, table) in &scu.tables {
                let keys = table.keys.iter().any(|k| h.expr(&table.key_body, k.expr));
                if keys || table.actions.iter().any(|a| h.actions.contains(a)) {
                    h.tables.insert(t);
                }
            }
            if h.funcs.len() + h.actions.len() + h.tables.len() == before {
                return h;
            }
        }
    }

    /// Whether a run of `body` may halt.
    pub fn body(&self, body: &Body) -> bool {
        self.block(body, &body.block)
    }

    fn block(&self, body: &Body, block: &Block) -> bool {
        scenic_ir::stack::grow(|| {
            block.stmts.iter().any(|s| {
                matches!(s, Stmt::Drop | Stmt::Extract(_))
                    || stmt_exprs(s).into_iter().any(|e| self.expr(body, e))
                    || stmt_blocks(s).into_iter().any(|b| self.block(body, b))
            })
        })
    }

    /// Whether evaluating expression `e` may halt.
    pub fn expr(&self, body: &Body, e: ExprId) -> bool {
        let Some(expr) = body.exprs.get(e) else {
            return false;
        };
        let own = match expr {
            Expr::Lookahead(_) => true,
            Expr::Call(f, _) => self.funcs.contains(f),
            Expr::CallAction(a, _) => self.actions.contains(a),
            Expr::Apply(t) => self.tables.contains(t),
            _ => false,
        };
        own || operands(expr).into_iter().any(|o| self.expr(body, o))
    }

    /// Whether expression `e` itself (not its operands) may halt.
    pub fn node(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Lookahead(_) => true,
            Expr::Call(f, _) => self.funcs.contains(f),
            Expr::CallAction(a, _) => self.actions.contains(a),
            Expr::Apply(t) => self.tables.contains(t),
            _ => false,
        }
    }
}

/// What a parser state does to the cursor.
#[derive(Clone, Debug, Default)]
struct StateShape {
    /// Bits consumed on its longest path.
    consume: u32,
    /// The furthest bit it reads beyond its entry position (extract or lookahead).
    reach: u32,
    /// Stack extractions per stack instance (most on one path).
    stacks: BTreeMap<InstId, u32>,
    /// Whether an extraction happens under a branch or loop (then offsets after it vary).
    conditional: bool,
}

/// How deep and how long a parser can run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParserFacts {
    /// The furthest bit any path reads.
    pub max_reach_bits: u32,
    /// The most states one packet can run through.
    pub max_steps: u32,
    /// For each state, its entry cursor in bits when every path enters it at the same position.
    pub static_entry: BTreeMap<StateId, u32>,
    /// States whose extractions all happen unconditionally (their offsets follow from the entry).
    pub straight: BTreeSet<StateId>,
}

/// Why the parser could not be bounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParserBound {
    /// A path reads past this many bits (over the window limit).
    TooDeep(u32),
    /// Too many paths to explore.
    TooComplex,
}

/// Explores every path of the parser (states × cursor × stack fill) up to `limit_bits`.
pub fn parser_facts(
    module: &Module,
    scu: &Scu,
    limit_bits: u32,
) -> Result<ParserFacts, ParserBound> {
    let Some(parser) = &scu.parser else {
        return Ok(ParserFacts::default());
    };
    let shapes: BTreeMap<StateId, StateShape> = parser
        .states
        .iter()
        .map(|(id, s)| (id, shape(module, scu, &parser.body, &s.block)))
        .collect();
    let mut facts = ParserFacts::default();
    let mut entries: BTreeMap<StateId, BTreeSet<u32>> = BTreeMap::new();
    let mut seen: HashSet<(StateId, u32, Vec<u32>)> = HashSet::new();
    let fills0 = vec![0u32; scu.instances.len()];
    let mut stack = vec![(parser.start, 0u32, fills0, 1u32)];
    let mut visits = 0u32;
    while let Some((state, cursor, fills, depth)) = stack.pop() {
        visits += 1;
        if visits > 200_000 || depth > 4096 {
            return Err(ParserBound::TooComplex);
        }
        if !seen.insert((state, cursor, fills.clone())) {
            continue;
        }
        entries.entry(state).or_default().insert(cursor);
        facts.max_steps = facts.max_steps.max(depth);
        let shape = shapes.get(&state).cloned().unwrap_or_default();
        let mut reach = cursor.saturating_add(shape.reach);
        let select_reach = match &parser.states[state].transition {
            Transition::Select { on, .. } => lookahead_reach(module, &parser.body, *on),
            Transition::Direct(_) => 0,
        };
        let after = cursor.saturating_add(shape.consume);
        reach = reach.max(after.saturating_add(select_reach));
        facts.max_reach_bits = facts.max_reach_bits.max(reach);
        if reach > limit_bits {
            return Err(ParserBound::TooDeep(reach));
        }
        let mut next_fills = fills.clone();
        let mut overflow = false;
        for (inst, n) in &shape.stacks {
            let cap = scu.instances[*inst].stack.unwrap_or(1);
            let slot = &mut next_fills[inst.index()];
            *slot = slot.saturating_add(*n);
            overflow |= *slot > cap;
        }
        if overflow {
            continue; // stack_overflow rejects: the path ends here
        }
        for target in targets(&parser.states[state].transition) {
            if let Target::State(next) = target {
                stack.push((next, after, next_fills.clone(), depth + 1));
            }
        }
    }
    for (state, set) in entries {
        if set.len() == 1 {
            if let Some(c) = set.first() {
                facts.static_entry.insert(state, *c);
            }
        }
    }
    for (id, s) in &shapes {
        if !s.conditional {
            facts.straight.insert(*id);
        }
    }
    Ok(facts)
}

use cranelift_entity::EntityRef;

fn targets(t: &Transition) -> Vec<Target> {
    match t {
        Transition::Direct(t) => vec![*t],
        Transition::Select { cases, .. } => cases.iter().map(|c| c.target).collect(),
    }
}

/// The furthest bit `lookahead` reads in expression `e` (through called functions too).
fn lookahead_reach(module: &Module, body: &Body, e: ExprId) -> u32 {
    let Some(expr) = body.exprs.get(e) else {
        return 0;
    };
    let own = match expr {
        Expr::Lookahead(n) => *n,
        Expr::Call(f, _) => module.functions.get(*f).map_or(0, |func| {
            block_lookahead(module, &func.body, &func.body.block)
        }),
        _ => 0,
    };
    operands(expr)
        .into_iter()
        .map(|o| lookahead_reach(module, body, o))
        .fold(own, u32::max)
}

fn block_lookahead(module: &Module, body: &Body, block: &Block) -> u32 {
    scenic_ir::stack::grow(|| {
        block
            .stmts
            .iter()
            .map(|s| {
                let exprs = stmt_exprs(s)
                    .into_iter()
                    .map(|e| lookahead_reach(module, body, e))
                    .max()
                    .unwrap_or(0);
                let nested = stmt_blocks(s)
                    .into_iter()
                    .map(|b| block_lookahead(module, body, b))
                    .max()
                    .unwrap_or(0);
                exprs.max(nested)
            })
            .max()
            .unwrap_or(0)
    })
}

/// The cursor effect of one state's block.
fn shape(module: &Module, scu: &Scu, body: &Body, block: &Block) -> StateShape {
    scenic_ir::stack::grow(|| {
        let mut s = StateShape::default();
        walk_shape(module, scu, body, block, false, &mut s);
        s
    })
}

fn walk_shape(
    module: &Module,
    scu: &Scu,
    body: &Body,
    block: &Block,
    nested: bool,
    s: &mut StateShape,
) {
    scenic_ir::stack::grow(|| {
        for stmt in &block.stmts {
            for e in stmt_exprs(stmt) {
                let r = lookahead_reach(module, body, e);
                s.reach = s.reach.max(s.consume.saturating_add(r));
            }
            match stmt {
                Stmt::Extract(inst) => {
                    let i = &scu.instances[*inst];
                    let bits = module.headers[i.header].bits;
                    s.reach = s.reach.max(s.consume.saturating_add(bits));
                    s.consume = s.consume.saturating_add(bits);
                    if i.stack.is_some() {
                        *s.stacks.entry(*inst).or_insert(0) += 1;
                    }
                    s.conditional |= nested;
                }
                Stmt::For {
                    first,
                    last,
                    body: b,
                    ..
                } => {
                    let n = last.saturating_sub(*first).saturating_add(1).clamp(0, 1024);
                    for _ in 0..n {
                        walk_shape(module, scu, body, b, true, s);
                    }
                }
                other => {
                    // Branches: take the longest (an over-estimate, which only makes the window
                    // bigger), and mark later offsets as unknown.
                    let blocks = stmt_blocks(other);
                    if blocks.is_empty() {
                        continue;
                    }
                    let start = s.consume;
                    let mut longest = start;
                    for b in blocks {
                        let mut branch = StateShape {
                            consume: start,
                            reach: s.reach,
                            stacks: s.stacks.clone(),
                            conditional: s.conditional,
                        };
                        walk_shape(module, scu, body, b, true, &mut branch);
                        longest = longest.max(branch.consume);
                        s.reach = s.reach.max(branch.reach);
                        s.conditional |= branch.conditional;
                        for (k, v) in branch.stacks {
                            let e = s.stacks.entry(k).or_insert(0);
                            *e = (*e).max(v);
                        }
                    }
                    s.consume = longest;
                }
            }
        }
    })
}

/// Every body of an scu that runs in its kernel: parser, control, `on parser_error`, deparser,
/// the stream kernel, `every` blocks, actions and table keys (not functions; see [`reachable_functions`]).
pub fn scu_bodies(scu: &Scu) -> Vec<&Body> {
    let mut v: Vec<&Body> = Vec::new();
    v.extend(scu.parser.as_ref().map(|p| &p.body));
    v.extend(scu.control.as_ref());
    v.extend(scu.on_parser_error.as_ref());
    v.extend(scu.deparser.as_ref());
    v.extend(scu.stream.as_ref());
    v.extend(scu.every.iter().map(|e| &e.body));
    v.extend(scu.actions.values().map(|a| &a.body));
    v.extend(scu.tables.values().map(|t| &t.key_body));
    v
}

/// The functions an scu's bodies call, directly or through other functions, in id order.
pub fn reachable_functions(module: &Module, scu: &Scu) -> BTreeSet<FuncId> {
    let mut found = BTreeSet::new();
    let mut work: Vec<&Body> = scu_bodies(scu);
    while let Some(body) = work.pop() {
        for expr in body.exprs.values() {
            if let Expr::Call(f, _) = expr {
                if found.insert(*f) {
                    if let Some(func) = module.functions.get(*f) {
                        work.push(&func.body);
                    }
                }
            }
        }
    }
    found
}
