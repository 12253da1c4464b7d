//! Bodies: the code of controls, parsers, actions, functions, handlers and stream kernels.
//!
//! A [`Body`] owns its locals and an arena of expressions; statements form a tree of [`Block`]s that
//! refer to expressions by [`ExprId`]. Spans live in side tables beside the nodes (naga), so passes
//! that rewrite nodes keep source locations without threading them through every constructor.
//!
//! Evaluation order is defined: an expression's operands are evaluated left to right, each exactly
//! once, when the statement that uses it runs. Expressions with effects (calls, map updates, table
//! applications, meters) therefore happen in source order.
//!
//! Invariants (checked by the validator): every `ExprId` in a block belongs to the body's arena and
//! is used by exactly one statement or parent expression; an expression's operands have smaller ids
//! than the expression itself; every `LocalId` is declared by a parameter, a `Let` or a binding
//! before it is read.

use crate::entities::*;
use crate::span::Span;
use crate::types::{Const, Type};
use cranelift_entity::{PrimaryMap, SecondaryMap};
use serde::{Deserialize, Serialize};

/// A local variable or parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Local {
    /// Its source name (not necessarily unique in the body).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Whether it may be assigned after its declaration.
    pub mutable: bool,
}

/// Statements in order, with a span per statement. `Clone`, `PartialEq` and `Drop` are written
/// out below: blocks nest as deep as a program's `else if` chains (one block per arm), so the
/// recursive ones run on a grown stack and the drop runs in a loop.
#[derive(Debug, Default, Eq, Serialize, Deserialize)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// `spans[i]` is where `stmts[i]` was written.
    pub spans: Vec<Span>,
}

impl Clone for Block {
    fn clone(&self) -> Self {
        crate::stack::grow(|| Block {
            stmts: self.stmts.clone(),
            spans: self.spans.clone(),
        })
    }
}

impl PartialEq for Block {
    fn eq(&self, other: &Self) -> bool {
        crate::stack::grow(|| self.stmts == other.stmts && self.spans == other.spans)
    }
}

/// Dropping a block drops the `else` blocks of its `if`s one after another, not one inside the
/// other: an `else if` chain of N arms nests N blocks, and the derived drop would recurse N deep
/// (a 10,000-arm chain overflowed a 2 MiB stack).
impl Drop for Block {
    fn drop(&mut self) {
        let mut pending: Vec<Block> = Vec::new();
        take_else_blocks(&mut self.stmts, &mut pending);
        // Each popped block has had its own `else` blocks taken before it drops, so its own drop
        // finds none and does not recurse.
        while let Some(mut block) = pending.pop() {
            take_else_blocks(&mut block.stmts, &mut pending);
        }
    }
}

fn take_else_blocks(stmts: &mut [Stmt], pending: &mut Vec<Block>) {
    for stmt in stmts {
        if let Stmt::If(_, _, otherwise) = stmt {
            if !otherwise.stmts.is_empty() {
                pending.push(std::mem::take(otherwise));
            }
        }
    }
}

impl Block {
    /// Moves `other`'s statements, with their spans, to the end of this block.
    pub fn append(&mut self, mut other: Block) {
        self.stmts.append(&mut other.stmts);
        self.spans.append(&mut other.spans);
    }

    /// The statements and their spans, taken out of the block.
    pub fn into_parts(mut self) -> (Vec<Stmt>, Vec<Span>) {
        (
            std::mem::take(&mut self.stmts),
            std::mem::take(&mut self.spans),
        )
    }

    /// Appends a statement.
    pub fn push(&mut self, stmt: Stmt, span: Span) {
        self.stmts.push(stmt);
        self.spans.push(span);
    }
}

/// The code of one control, parser, action, function, handler or kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Body {
    /// Parameters, in order (also present in `locals`).
    pub params: Vec<LocalId>,
    /// Every local and parameter.
    pub locals: PrimaryMap<LocalId, Local>,
    /// Every expression.
    pub exprs: PrimaryMap<ExprId, Expr>,
    /// The type of every expression.
    pub types: SecondaryMap<ExprId, Type>,
    /// Where every expression was written.
    pub spans: SecondaryMap<ExprId, Span>,
    /// The statements.
    pub block: Block,
}

impl Body {
    /// Adds an expression of type `ty`.
    pub fn add(&mut self, expr: Expr, ty: Type, span: Span) -> ExprId {
        let id = self.exprs.push(expr);
        self.types[id] = ty;
        self.spans[id] = span;
        id
    }

    /// Adds a local.
    pub fn local(&mut self, name: impl Into<String>, ty: Type, mutable: bool) -> LocalId {
        self.locals.push(Local {
            name: name.into(),
            ty,
            mutable,
        })
    }
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnaryOp {
    /// Two's complement negation (wraps).
    Neg,
    /// Logical not of a bool.
    Not,
    /// Bitwise not.
    BitNot,
}

/// Binary operators on bit patterns. Both operands have the same type unless stated, and so does the
/// result unless it is a comparison (bool).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinaryOp {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Saturating add (unsigned: to max; signed: to min/max).
    SatAdd,
    /// Saturating subtract.
    SatSub,
    /// Wrapping multiply.
    Mul,
    /// Truncating divide; division by zero gives 0.
    Div,
    /// Remainder (sign of the dividend); by zero gives 0.
    Rem,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Shift left; the amount (any unsigned width) at or past the width gives 0.
    Shl,
    /// Shift right (arithmetic for `int`); past the width gives 0 (or -1 for negative `int`).
    Shr,
    /// Concatenation: `lhs` is the high part; the result is `bit<width(lhs)+width(rhs)>`.
    Concat,
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Less than (signed for `int`).
    Lt,
    /// Less or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater or equal.
    Ge,
    /// Short-circuit and of bools.
    LogicalAnd,
    /// Short-circuit or of bools.
    LogicalOr,
    /// Scaled multiply: `lhs` (any numeric type; the result type) times `rhs` read as a fixed-point
    /// value with `frac` fraction bits: `(lhs * rhs) >> frac`, truncated, wrapped to `lhs`'s width.
    /// Used for `fixed * fixed`, `rate * fixed` and friends. With `frac = 0`, `rhs` may have any
    /// width (`rate * bit<8>`).
    MulScaled(u32),
    /// Scaled divide: `(lhs << frac) / rhs`, truncated, wrapped to `lhs`'s width; by zero gives 0.
    DivScaled(u32),
}

impl BinaryOp {
    /// Whether the operator compares (`==` to `>=`): its result is a bool, not of its operands'
    /// type.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

/// Intrinsic functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Intrinsic {
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// IEEE 802.3 CRC-32 over the bytes of the argument, most significant first.
    Crc32,
    /// CRC-16/ARC over the bytes of the argument.
    Crc16,
    /// MurmurHash3 x86_32 of the bytes of arg 0 with seed arg 1.
    Murmur3,
    /// Microsoft RSS Toeplitz hash of arg 0 with key arg 1.
    Toeplitz,
    /// Internet checksum of the 16-bit words of the argument.
    OnesComplement,
    /// RFC 1624 incremental update: (checksum, old word, new word).
    ChecksumUpdate,
}

/// Fields of the packet being processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PacketField {
    /// Length in bytes, `bit<16>`.
    Len,
    /// Ingress port, `bit<8>`.
    Port,
    /// Arrival time in ns, `bit<64>`.
    Timestamp,
}

/// Fields of the payload word being processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BeatField {
    /// Last word of the message, `bool`.
    Last,
    /// Valid-byte mask, `bit<64>`.
    Keep,
}

/// An expression. Operands are other expressions of the same body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    /// A constant of the expression's type.
    Const(Const),
    /// A local or parameter.
    Local(LocalId),
    /// A CSR or scu param.
    Csr(CsrId),
    /// A field of the scu's `meta` struct.
    Meta(u32),
    /// A header instance as a value (for copies into locals and `valid()`).
    Header {
        /// The instance.
        inst: InstId,
        /// For a stack, the element.
        index: Option<ExprId>,
    },
    /// A field of a header instance (0 when the header is invalid).
    HeaderField {
        /// The instance.
        inst: InstId,
        /// For a stack, the element.
        index: Option<ExprId>,
        /// The field's position in the layout.
        field: u32,
    },
    /// Whether a header instance is valid.
    HeaderValid {
        /// The instance.
        inst: InstId,
        /// For a stack, the element.
        index: Option<ExprId>,
    },
    /// A field of the packet.
    Packet(PacketField),
    /// A field of the payload word.
    Beat(BeatField),
    /// The flow identifier of an rdma/tcp scu (QPN or session id).
    FlowId,
    /// A per-flow state variable of the enclosing cc.
    CcState(CcStateId),
    /// A host-set parameter of the enclosing cc.
    CcParam(CcParamId),
    /// A field of a struct or header value.
    Field {
        /// The struct.
        base: ExprId,
        /// The field's position.
        field: u32,
    },
    /// An element of an array value.
    Index {
        /// The array.
        base: ExprId,
        /// The element (in bounds by construction).
        index: ExprId,
    },
    /// Bits `hi` down to `lo` of a bit pattern.
    Slice {
        /// The value.
        base: ExprId,
        /// Highest bit.
        hi: u32,
        /// Lowest bit.
        lo: u32,
    },
    /// `width` bits starting at bit `lo`, where `lo` is computed at run time (an index inside an
    /// unrolled loop); in range by construction. Constant folding turns it into a `Slice`.
    SliceDyn {
        /// The value.
        base: ExprId,
        /// The lowest bit, an unsigned value.
        lo: ExprId,
        /// The number of bits.
        width: u32,
    },
    /// A prefix operator.
    Unary(UnaryOp, ExprId),
    /// A binary operator.
    Binary(BinaryOp, ExprId, ExprId),
    /// Conversion to the expression's type (see `docs/language.md` for the rules).
    Cast(ExprId),
    /// `if cond { then } else { otherwise }`: evaluates the `bool` `cond`, then only the taken
    /// operand (the other one's effects do not happen). Both operands have the expression's type.
    Select(ExprId, ExprId, ExprId),
    /// A call of a function.
    Call(FuncId, Vec<ExprId>),
    /// A direct call of an scu action (outside a table), with its data.
    CallAction(ActionId, Vec<ExprId>),
    /// An intrinsic.
    Intrinsic(Intrinsic, Vec<ExprId>),
    /// The next `n` bits of the packet, without consuming them (parsers).
    Lookahead(u32),
    /// `map.get(key)`: the value, or zero when absent.
    MapGet(MapId, ExprId),
    /// `map.contains(key)`.
    MapContains(MapId, ExprId),
    /// `map.insert(key, value)`: false when it does not fit.
    MapInsert(MapId, ExprId, ExprId),
    /// `map.remove(key)`: whether it was present.
    MapRemove(MapId, ExprId),
    /// `meter[index].exceeds(len)`.
    MeterExceeds(MeterId, Option<ExprId>, ExprId),
    /// Apply a table: run the chosen action and yield its position in the table's action list.
    Apply(TableId),
    /// The data parameter `param` of the action chosen by the application `apply` (an `Apply`
    /// expression of this body), read in a `match` arm bound to that action. `apply` is a reference
    /// to an expression evaluated earlier, not an operand: it is not evaluated again. Lowering puts
    /// these only in `Let`s at the top of a `Switch` case on the application whose patterns all
    /// denote `action`, so the data read is always the chosen action's.
    ActionData {
        /// The table application.
        apply: ExprId,
        /// The action's position in the table.
        action: u32,
        /// The parameter's position.
        param: u32,
    },
    /// A struct (or header) value built field by field, in layout order; a header built this way
    /// is valid.
    StructLit(Vec<ExprId>),
    /// An array value.
    ArrayLit(Vec<ExprId>),
    /// A tuple value (scrutinees).
    Tuple(Vec<ExprId>),
}

/// Something that can be assigned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Place {
    /// A local.
    Local(LocalId),
    /// A CSR.
    Csr(CsrId),
    /// A `meta` field.
    Meta(u32),
    /// A header field (writes to an invalid header are ignored).
    HeaderField {
        /// The instance.
        inst: InstId,
        /// For a stack, the element.
        index: Option<ExprId>,
        /// The field.
        field: u32,
    },
    /// A whole header instance (copy of a header value, validity included).
    Header {
        /// The instance.
        inst: InstId,
        /// For a stack, the element.
        index: Option<ExprId>,
    },
    /// A per-flow cc state variable.
    CcState(CcStateId),
    /// A field of a struct place.
    Field(Box<Place>, u32),
    /// An element of an array place.
    Index(Box<Place>, ExprId),
    /// Bits `hi..=lo` of a place.
    Slice(Box<Place>, u32, u32),
}

/// One alternative of a `Switch` or parser select case, matched against one scrutinee component.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pattern {
    /// Matches anything.
    Any,
    /// Equal to the constant.
    Value(Const),
    /// `x & mask == value & mask`.
    Mask(Const, Const),
    /// `lo <= x <= hi` (signed comparison for `int`).
    Range(Const, Const),
    /// A tuple, component-wise.
    Tuple(Vec<Pattern>),
}

/// A destination for notifications.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NotifyTarget {
    /// The host CPU.
    Host,
    /// The on-card Arm cores.
    Arm,
}

/// An arm of a `Switch`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    /// Alternatives: the arm is taken when any of them matches.
    pub patterns: Vec<Pattern>,
    /// The body.
    pub body: Block,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stmt {
    /// Declares and initialises a local.
    Let(LocalId, ExprId),
    /// Assigns a place.
    Assign(Place, ExprId),
    /// Evaluates an expression for its effects.
    Eval(ExprId),
    /// Two-way branch on a bool.
    If(ExprId, Block, Block),
    /// The first case with a matching pattern runs; otherwise `default`.
    Switch {
        /// The scrutinee.
        on: ExprId,
        /// The cases in order.
        cases: Vec<Case>,
        /// Runs when no case matches.
        default: Block,
    },
    /// `for var in first..=last`: runs the body with `var` bound to each value (unrolled in
    /// hardware; the `loop-unroll` pass removes it).
    For {
        /// The loop variable (a constant per iteration).
        var: LocalId,
        /// First value.
        first: i64,
        /// Last value, inclusive.
        last: i64,
        /// The body.
        body: Block,
    },
    /// Leaves the body, with a value in functions that return one.
    Return(Option<ExprId>),
    /// Discards the packet (cancelling every copy requested so far) and ends the control.
    Drop,
    /// Sends a copy of the packet to the host.
    ToHost,
    /// Sends a copy to a network port.
    ToNetwork(ExprId),
    /// Sends a copy to another scu.
    ToScu(ScuId),
    /// Raises an interrupt carrying a 32-bit value.
    Notify(NotifyTarget, ExprId),
    /// Sends a payload word on to the stream's own destination.
    Pass(ExprId),
    /// Sends a payload word to an output (an element of an output array).
    Push(OutId, Option<ExprId>, ExprId),
    /// Counts the packet in a counter cell.
    Count(CounterId, Option<ExprId>),
    /// Extracts the next header from the packet (parsers; a stack fills its next element).
    Extract(InstId),
    /// Emits a header if it is valid (deparsers; a stack emits its valid elements).
    Emit(InstId),
    /// Marks a header valid (zeroing its fields) or invalid.
    SetValid(InstId, Option<ExprId>, bool),
    /// Restarts a cc timer or byte counter.
    Restart(TimerId),
    /// A nested block (scoping only).
    Block(Block),
}
