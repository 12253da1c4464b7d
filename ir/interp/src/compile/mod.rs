//! Compilation of the IR into closures: the interpreter's only way of running code.
//!
//! [`Program::new`] compiles every body of a module once, when the [`super::Machine`] is made:
//! each expression becomes a closure that computes its value, each statement a closure that
//! performs it, with everything that does not depend on the packet decided at compile time —
//! locals and table applications are slots of a frame, constants are [`Bits`], operators are
//! resolved for their operand types ([`scenic_ir::proc::ops::kernel`], [`scenic_ir::proc::ops::cast_plan`]), patterns
//! are pre-sized ([`super::pattern::Compiled`]), header fields are (instance, element, field)
//! triples. Running a body is then a walk over closures with no lookup by name or by hash.
//!
//! The closures implement the semantics of `docs/interpreter.md` and nothing else: operators and
//! casts are [`scenic_ir::proc::ops`], patterns [`super::pattern`], hashes [`scenic_ir::proc::intrinsics`], state
//! [`super::state`]. Evaluation order is the IR's (operands left to right, each once; an
//! assignment's value before its place's indices, root first).
//!
//! Stopping: an expression returns `Err(Halt)` when the packet stopped during it (`drop()` in a
//! called function or action, a failed `lookahead`), and a statement then returns `Flow::Stop`;
//! nothing after that is evaluated, so no later effect happens.

mod aggregate;
mod effect;
mod lets;
mod narrow;
mod parser;
mod place;
mod scalar;
mod state;
mod stmt;
mod update;

pub(crate) use effect::emit;
pub(crate) use parser::{Parsed, ParserCode};

use super::context::{Cx, Frames, Halt};
use super::value::{width_of, Value};
use cranelift_entity::EntityRef;
use scenic_ir::body::{Body, Expr};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{Module, Scu};
use std::sync::Arc;

/// What an expression yields.
pub(crate) type R<T> = Result<T, Halt>;

/// A compiled scalar expression.
pub(crate) type Scalar = Box<dyn Fn(&mut Cx<'_>) -> R<Bits> + Send + Sync>;

/// A compiled expression of any type.
pub(crate) type Valued = Box<dyn Fn(&mut Cx<'_>) -> R<Value> + Send + Sync>;

/// A compiled statement.
pub(crate) type Step = Box<dyn Fn(&mut Cx<'_>) -> Flow + Send + Sync>;

/// A compiled computation of an index (array element, stack slot).
pub(crate) type Index = Box<dyn Fn(&mut Cx<'_>) -> R<usize> + Send + Sync>;

/// How a statement finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Go on with the next statement.
    Next,
    /// `return` (its value, if any, is in [`Cx::ret`]).
    Return,
    /// The packet stopped (`drop()` or a parse error): nothing more runs.
    Stop,
}

/// Compiled statements in order.
pub(crate) struct Block(Box<[Step]>);

impl Block {
    /// Runs the statements until one does not finish normally.
    #[inline]
    pub fn run(&self, cx: &mut Cx<'_>) -> Flow {
        for step in self.0.iter() {
            match step(cx) {
                Flow::Next => {}
                other => return other,
            }
        }
        Flow::Next
    }

    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The shape of a body's frame: its locals (with their zero values) and table applications.
#[derive(Debug, Default)]
pub(crate) struct FrameShape {
    /// The zero value of each local, by `LocalId`.
    pub zeros: Box<[Value]>,
    /// The number of table applications.
    pub applies: usize,
    /// The locals that are parameters, in order.
    pub params: Box<[usize]>,
    /// The locals set to their zeros when a frame is entered: all but those a top-level `let`
    /// initializes before anything mentions them (see [`lets::let_initialized`]).
    pub zeroed: Box<[usize]>,
}

impl FrameShape {
    /// The frame of `body`, whose applications are numbered by `slots`.
    fn new(body: &Body, module: &Module, applies: usize) -> FrameShape {
        FrameShape {
            zeros: body
                .locals
                .values()
                .map(|l| Value::zero(&l.ty, module))
                .collect(),
            applies,
            params: body.params.iter().map(|p| p.index()).collect(),
            zeroed: (0..body.locals.len()).collect(),
        }
    }

    /// Whether a frame of this shape has no locals and no applications.
    pub fn is_empty(&self) -> bool {
        self.zeros.is_empty() && self.applies == 0
    }

    /// This shape, not zeroing the locals of `body` that a top-level `let` initializes first.
    fn skipping_lets(mut self, body: &Body) -> FrameShape {
        let initialized = lets::let_initialized(body);
        let params: Vec<usize> = self.params.to_vec();
        self.zeroed = (0..body.locals.len())
            .filter(|l| params.contains(l) || !initialized.get(*l).copied().unwrap_or(false))
            .collect();
        self
    }

    /// Runs `run` in a new frame of this shape placed `above` (locals, applications) past the
    /// running frame's start; `set` writes the parameters first. Locals start at their zeros and
    /// no application has run.
    #[inline]
    pub fn enter<T>(
        &self,
        cx: &mut Cx<'_>,
        above: (usize, usize),
        set: impl FnOnce(&mut Frames, usize),
        run: impl FnOnce(&mut Cx<'_>) -> T,
    ) -> T {
        let (base, abase) = (cx.base + above.0, cx.abase + above.1);
        let frames = &mut *cx.frames;
        let end = base + self.zeros.len();
        if frames.values.len() < end {
            frames.values.resize_with(end, || Value::Unit);
        }
        if let Some(window) = frames.values.get_mut(base..end) {
            for &l in self.zeroed.iter() {
                if let (Some(slot), Some(zero)) = (window.get_mut(l), self.zeros.get(l)) {
                    slot.clone_from(zero);
                }
            }
        }
        let aend = abase + self.applies;
        if frames.applies.len() < aend {
            frames.applies.resize_with(aend, Default::default);
        }
        if let Some(window) = frames.applies.get_mut(abase..aend) {
            for applied in window {
                applied.action = None;
            }
        }
        set(frames, base);
        let saved = (cx.base, cx.abase);
        (cx.base, cx.abase) = (base, abase);
        let out = run(cx);
        (cx.base, cx.abase) = saved;
        out
    }

    /// Moves the last `n` values of `frames.args` into the parameters of a frame at `base`.
    pub fn take_args(&self, frames: &mut Frames, base: usize, n: usize) {
        let start = frames.args.len().saturating_sub(n);
        let Frames { values, args, .. } = frames;
        for (param, value) in self.params.iter().zip(args.drain(start..)) {
            if let Some(slot) = values.get_mut(base + param) {
                *slot = value;
            }
        }
    }
}

/// A compiled body: its statements and its frame.
pub(crate) struct Code {
    /// The statements.
    pub block: Block,
    /// The frame.
    pub shape: FrameShape,
}

impl Code {
    /// Runs the body at the bottom of the frame stack (an entry point: control, handler, kernel,
    /// `every` block) with parameters `args`.
    pub fn run_top(&self, cx: &mut Cx<'_>, args: &[Value]) -> Flow {
        let (base, abase) = (cx.base, cx.abase);
        (cx.base, cx.abase) = (0, 0);
        let flow = self.shape.enter(
            cx,
            (0, 0),
            |frames, base| {
                for (param, value) in self.shape.params.iter().zip(args) {
                    if let Some(slot) = frames.values.get_mut(base + param) {
                        slot.clone_from(value);
                    }
                }
            },
            |cx| self.block.run(cx),
        );
        (cx.base, cx.abase) = (base, abase);
        flow
    }
}

/// The compiled code of one table: its key expressions, in the frame of its key body.
pub(crate) struct TableCode {
    /// One closure per key, in order.
    pub keys: Vec<Scalar>,
    /// The same keys as narrow closures, when the table is searched (not exact-only), every key
    /// is narrow (at most [`MAX_NARROW_KEYS`] of them) and the key body has no frame to enter:
    /// they are then looked up by value, without a `Bits` per key.
    pub narrow: Option<Vec<narrow::Narrow>>,
    /// The key body's frame.
    pub shape: FrameShape,
}

/// The most keys a table may have to be looked up by value.
pub(crate) const MAX_NARROW_KEYS: usize = 8;

/// The compiled code of an scu.
#[derive(Default)]
pub(crate) struct ScuCode {
    /// The parser.
    pub parser: Option<ParserCode>,
    /// The control.
    pub control: Option<Code>,
    /// `on parser_error`.
    pub on_parser_error: Option<Code>,
    /// The deparser.
    pub deparser: Option<Code>,
    /// The stream kernel.
    pub stream: Option<Code>,
    /// `every` blocks, in order.
    pub every: Vec<Code>,
    /// Actions, by `ActionId`.
    pub actions: Vec<Code>,
    /// Tables, by `TableId`.
    pub tables: Vec<TableCode>,
    /// The scu's name, shared by its notifications rather than copied into each.
    pub name: Arc<str>,
}

/// The compiled code of a module. See the [module documentation](self).
#[derive(Default)]
pub struct Program {
    pub(crate) funcs: Vec<Code>,
    pub(crate) scus: Vec<ScuCode>,
    /// Handlers of each cc, in the order of `Cc::handlers`.
    pub(crate) ccs: Vec<Vec<Code>>,
    /// Each cc's name, shared by its notifications.
    pub(crate) cc_names: Vec<Arc<str>>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("funcs", &self.funcs.len())
            .field("scus", &self.scus.len())
            .field("ccs", &self.ccs.len())
            .finish()
    }
}

impl Program {
    /// Compiles every body of `module`.
    pub fn new(module: &Module) -> Program {
        let funcs = module
            .functions
            .values()
            .map(|f| {
                let scu = match f.owner {
                    scenic_ir::program::Owner::Scu(s) => module.scus.get(s),
                    _ => None,
                };
                compile_body(module, &f.body, scu)
            })
            .collect();
        let scus = module.scus.values().map(|s| scu_code(module, s)).collect();
        let ccs = module
            .ccs
            .values()
            .map(|c| {
                c.handlers
                    .iter()
                    .map(|h| compile_body(module, &h.body, None))
                    .collect()
            })
            .collect();
        let cc_names = module
            .ccs
            .values()
            .map(|c| Arc::from(c.name.as_str()))
            .collect();
        Program {
            funcs,
            scus,
            ccs,
            cc_names,
        }
    }
}

fn scu_code(module: &Module, s: &Scu) -> ScuCode {
    let body = |b: &Body| compile_body(module, b, Some(s));
    ScuCode {
        name: Arc::from(s.name.as_str()),
        parser: s.parser.as_ref().map(|p| parser::compile(module, s, p)),
        control: s.control.as_ref().map(body),
        on_parser_error: s.on_parser_error.as_ref().map(body),
        deparser: s.deparser.as_ref().map(body),
        stream: s.stream.as_ref().map(body),
        every: s.every.iter().map(|e| body(&e.body)).collect(),
        actions: s.actions.values().map(|a| body(&a.body)).collect(),
        tables: s
            .tables
            .values()
            .map(|t| {
                let mut c = Compiler::new(module, &t.key_body, Some(s));
                let keys = t.keys.iter().map(|k| c.scalar(k.expr)).collect();
                let shape = c.shape();
                // Exact tables are indexed by `Bits` (`TableState::find_values` refuses them).
                let searched = t
                    .keys
                    .iter()
                    .any(|k| k.kind != scenic_ir::program::MatchKind::Exact);
                let narrow = (searched
                    && t.keys.len() <= MAX_NARROW_KEYS
                    && shape.is_empty()
                    && t.keys.iter().all(|k| c.is_narrow(k.expr)))
                .then(|| t.keys.iter().map(|k| c.narrow(k.expr)).collect());
                TableCode {
                    keys,
                    narrow,
                    shape,
                }
            })
            .collect(),
    }
}

/// The instances `scu`'s deparser emits, in order, when emitting them is all it does (no
/// deparser emits every instance): see [`crate::headers::HeaderStore::set_emit_order`].
pub(crate) fn emit_order(scu: &Scu) -> Option<Box<[InstId]>> {
    let Some(body) = &scu.deparser else {
        return Some(scu.instances.keys().collect());
    };
    if !body.locals.is_empty() {
        return None;
    }
    body.block
        .stmts
        .iter()
        .map(|s| match s {
            scenic_ir::body::Stmt::Emit(inst) => Some(*inst),
            _ => None,
        })
        .collect()
}

/// Compiles a body (of a function, action, control, handler, kernel, `every` or deparser).
pub(crate) fn compile_body(module: &Module, body: &Body, scu: Option<&Scu>) -> Code {
    let mut c = Compiler::new(module, body, scu);
    let block = c.block(&body.block);
    Code {
        block,
        shape: c.shape().skipping_lets(body),
    }
}

/// Compiles the expressions and statements of one body.
pub(crate) struct Compiler<'m> {
    /// The module.
    pub module: &'m Module,
    /// The body.
    pub body: &'m Body,
    /// The scu the body belongs to, when known (its maps' value types are used at compile time).
    pub scu: Option<&'m Scu>,
    /// The application slot of each `Apply` expression, by `ExprId`.
    apply_slots: Vec<Option<usize>>,
    /// The number of applications.
    applies: usize,
    /// What [`Compiler::is_narrow`] found for each expression, by `ExprId` (`None`: not asked yet),
    /// so that compiling nested trees asks about each node once.
    narrow: Vec<std::cell::Cell<Option<bool>>>,
}

impl<'m> Compiler<'m> {
    /// A compiler for `body`.
    pub fn new(module: &'m Module, body: &'m Body, scu: Option<&'m Scu>) -> Compiler<'m> {
        let mut applies = 0;
        let apply_slots = body
            .exprs
            .values()
            .map(|e| match e {
                Expr::Apply(_) => {
                    applies += 1;
                    Some(applies - 1)
                }
                _ => None,
            })
            .collect();
        Compiler {
            module,
            body,
            scu,
            apply_slots,
            applies,
            narrow: vec![std::cell::Cell::new(None); body.exprs.len()],
        }
    }

    /// The shape of the body's frame.
    pub fn shape(&self) -> FrameShape {
        FrameShape::new(self.body, self.module, self.applies)
    }

    /// The size of this body's frame, where the frames of its calls start.
    pub fn frame_size(&self) -> (usize, usize) {
        (self.body.locals.len(), self.applies)
    }

    /// The application slot of an `Apply` expression.
    pub fn apply_slot(&self, id: ExprId) -> Option<usize> {
        self.apply_slots.get(id.index()).copied().flatten()
    }

    /// The kernel of `op` as expression `id` applies it to `lhs`: a comparison is resolved for
    /// its operands' type, any other operator for its result's.
    pub fn kernel(
        &self,
        op: scenic_ir::body::BinaryOp,
        lhs: ExprId,
        id: ExprId,
    ) -> scenic_ir::proc::ops::Kernel {
        let ty = if op.is_comparison() {
            self.ty(lhs)
        } else {
            self.ty(id)
        };
        scenic_ir::proc::ops::kernel(op, ty)
    }

    /// The type of expression `id`.
    pub fn ty(&self, id: ExprId) -> &'m scenic_ir::types::Type {
        &self.body.types[id]
    }

    /// The scalar width of expression `id` (1 for aggregates).
    pub fn width(&self, id: ExprId) -> u32 {
        width_of(self.ty(id), self.module)
    }

    /// Whether expression `id` is a scalar.
    pub fn is_scalar(&self, id: ExprId) -> bool {
        is_scalar(self.ty(id))
    }
}

/// Whether values of `ty` are [`Bits`] (not headers, structs, arrays, tuples or unit).
pub(crate) fn is_scalar(ty: &scenic_ir::types::Type) -> bool {
    use scenic_ir::types::Type;
    !matches!(
        ty,
        Type::Header(_) | Type::Struct(_) | Type::Array(..) | Type::Tuple(_) | Type::Unit
    )
}
