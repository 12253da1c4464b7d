//! The P4_16 abstract syntax tree.
//!
//! Spans are byte offsets into the *expanded* text of the program (the root file with its
//! `#include`s spliced in, see [`super::source`]); [`super::source::Expanded::locate`] maps them
//! back to a file and an offset for diagnostics. Every expression has an [`ExprId`], dense from 0,
//! so the checker can record a type, a resolution and a constant value per expression in plain
//! vectors that the lowering reads.

use crate::span::Span;
use num_bigint::BigInt;

/// A name as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The text.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// An annotation (`@name("x")`); its body is kept as raw text and read when needed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    /// `name` of `@name(...)`.
    pub name: Ident,
    /// The text between the brackets, if any.
    pub body: Option<String>,
    /// The whole annotation.
    pub span: Span,
}

/// A whole program: declarations in order, the included files' first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Top-level declarations.
    pub decls: Vec<Decl>,
    /// One more than the largest [`ExprId`].
    pub expr_count: u32,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decl {
    /// What it declares.
    pub kind: DeclKind,
    /// Annotations written before it.
    pub annotations: Vec<Annotation>,
    /// The whole declaration.
    pub span: Span,
}

/// The kinds of top-level declarations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclKind {
    /// `const T name = value;`
    Const(ConstDecl),
    /// `typedef T name;` (`newtype` for `type T name;`).
    Typedef {
        /// The aliased type.
        ty: Type,
        /// The new name.
        name: Ident,
        /// Declared with `type` (a distinct type).
        newtype: bool,
    },
    /// `header`, `header_union` or `struct`.
    Aggregate(AggregateDecl),
    /// `enum` (with a representation type for serializable enums).
    Enum {
        /// Its name.
        name: Ident,
        /// `enum bit<8> E { ... }`.
        repr: Option<Type>,
        /// Members and their values.
        members: Vec<(Ident, Option<Expr>)>,
    },
    /// `error { ... }`.
    Error(Vec<Ident>),
    /// `match_kind { ... }`.
    MatchKind(Vec<Ident>),
    /// `extern Name<T> { ... }`.
    ExternObject {
        /// Its name.
        name: Ident,
        /// Type parameters.
        type_params: Vec<Ident>,
        /// Methods and constructors (constructors return `Type::Void` and have its name).
        methods: Vec<Proto>,
    },
    /// `extern R f<T>(...);`
    ExternFunction(Proto),
    /// `parser P<H>(...);` (a parser type).
    ParserType(Proto),
    /// `control C<H>(...);` (a control type).
    ControlType(Proto),
    /// `package P<H>(...);`
    Package(Proto),
    /// A parser with states.
    Parser(ParserDecl),
    /// A control with an `apply` block.
    Control(ControlDecl),
    /// A top-level action.
    Action(ActionDecl),
    /// A function with a body.
    Function {
        /// Its signature.
        proto: Proto,
        /// Its body.
        body: Block,
    },
    /// `value_set<T>(n) name;`
    ValueSet(Ident),
    /// `Type(args) name;`
    Instance(Instance),
    /// Something that is not a declaration; already reported.
    Error_,
}

/// `const T name = value;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstDecl {
    /// The declared type.
    pub ty: Type,
    /// The name.
    pub name: Ident,
    /// The value.
    pub value: Expr,
}

/// Which aggregate an [`AggregateDecl`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggregateKind {
    /// `header`.
    Header,
    /// `header_union`.
    HeaderUnion,
    /// `struct`.
    Struct,
}

/// A `header`, `header_union` or `struct` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggregateDecl {
    /// Which one.
    pub kind: AggregateKind,
    /// Its name.
    pub name: Ident,
    /// Type parameters (generic structs are not supported).
    pub type_params: Vec<Ident>,
    /// Fields in order.
    pub fields: Vec<FieldDecl>,
}

/// A field of an aggregate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDecl {
    /// Its type.
    pub ty: Type,
    /// Its name.
    pub name: Ident,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// A parameter's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// No direction (action data, constructor parameters).
    None,
    /// `in`.
    In,
    /// `out`.
    Out,
    /// `inout`.
    InOut,
}

/// A parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its direction.
    pub dir: Direction,
    /// Its type.
    pub ty: Type,
    /// Its name.
    pub name: Ident,
    /// A default value.
    pub default: Option<Expr>,
    /// Where it was written.
    pub span: Span,
}

/// The signature of a parser, control, package, extern method or function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proto {
    /// The return type (`Type::Void` for parsers, controls, packages and constructors).
    pub ret: Type,
    /// Its name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Where it was written.
    pub span: Span,
}

/// A parser with a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParserDecl {
    /// Name, type parameters and parameters.
    pub proto: Proto,
    /// Constructor parameters (not supported).
    pub ctor_params: Option<Vec<Param>>,
    /// Constants, variables and instances declared before the states.
    pub locals: Vec<Local>,
    /// The states.
    pub states: Vec<State>,
}

/// A control with a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlDecl {
    /// Name, type parameters and parameters.
    pub proto: Proto,
    /// Constructor parameters (not supported).
    pub ctor_params: Option<Vec<Param>>,
    /// Declarations before `apply`.
    pub locals: Vec<Local>,
    /// The `apply` block.
    pub apply: Block,
}

/// A declaration inside a parser or control, before its states or `apply`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Local {
    /// `const T x = v;`
    Const(ConstDecl, Span),
    /// `T x;` or `T x = v;`
    Var(VarDecl),
    /// `Type(args) name;`
    Instance(Instance),
    /// An action.
    Action(ActionDecl),
    /// A table.
    Table(TableDecl),
    /// `value_set<T>(n) name;`
    ValueSet(Ident, Span),
}

/// `T x;` or `T x = v;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    /// Its type.
    pub ty: Type,
    /// Its name.
    pub name: Ident,
    /// The initial value.
    pub init: Option<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// `Type(args) name;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The instantiated type (an extern, parser, control or package).
    pub ty: Type,
    /// Constructor arguments.
    pub args: Vec<Arg>,
    /// The instance's name.
    pub name: Ident,
    /// Whether it has an initializer block (abstract methods; not supported).
    pub has_initializer: bool,
    /// Annotations (`@scenic_csr(...)` on a register or counter holding a CSR).
    pub annotations: Vec<Annotation>,
    /// The whole declaration.
    pub span: Span,
}

/// An action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionDecl {
    /// Its name.
    pub name: Ident,
    /// Parameters: directional ones first, then action data.
    pub params: Vec<Param>,
    /// Its body.
    pub body: Block,
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// The whole declaration.
    pub span: Span,
}

/// A parser state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Its name.
    pub name: Ident,
    /// Its statements.
    pub stmts: Vec<Stmt>,
    /// Where it goes; `None` means `transition reject` (P4_16 §12.5).
    pub transition: Option<Transition>,
    /// The whole state.
    pub span: Span,
}

/// A state's transition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transition {
    /// `transition name;`
    Direct(Ident),
    /// `transition select(...) { ... }`
    Select {
        /// The selected expressions.
        exprs: Vec<Expr>,
        /// The cases in order.
        cases: Vec<SelectCase>,
        /// The `select` expression.
        span: Span,
    },
}

/// A `select` case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectCase {
    /// One keyset element per selected expression (or one `default`/`_`).
    pub keys: Vec<Keyset>,
    /// The next state.
    pub target: Ident,
    /// The whole case.
    pub span: Span,
}

/// One element of a keyset (a `select` case or a table entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keyset {
    /// A value.
    Value(Expr),
    /// `value &&& mask`.
    Mask(Expr, Expr),
    /// `lo .. hi` (inclusive).
    Range(Expr, Expr),
    /// `default`.
    Default(Span),
    /// `_`.
    DontCare(Span),
}

/// A table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDecl {
    /// Its name.
    pub name: Ident,
    /// Its properties in order.
    pub props: Vec<TableProp>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// The whole declaration.
    pub span: Span,
}

/// A table property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableProp {
    /// `key = { ... }`.
    Key(Vec<KeyElement>, Span),
    /// `actions = { ... }`.
    Actions(Vec<ActionRef>, Span),
    /// `[const] default_action = a(...);`
    DefaultAction {
        /// The action.
        action: ActionRef,
        /// `const default_action`.
        is_const: bool,
        /// The property.
        span: Span,
    },
    /// `[const] entries = { ... }`.
    Entries {
        /// The entries.
        entries: Vec<EntryDecl>,
        /// `const entries`.
        is_const: bool,
        /// The property.
        span: Span,
    },
    /// Any other property (`size`, `counters`, `implementation`, ...).
    Other {
        /// Its name.
        name: Ident,
        /// Its value.
        value: Expr,
        /// The property.
        span: Span,
    },
}

/// A key element: `expr : match_kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyElement {
    /// The key expression.
    pub expr: Expr,
    /// The match kind's name.
    pub match_kind: Ident,
    /// Annotations (`@name("x")`).
    pub annotations: Vec<Annotation>,
    /// The whole element.
    pub span: Span,
}

/// An action named in a table: `a`, `a(1, 2)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRef {
    /// Its name (a leading `.` means top-level).
    pub name: Ident,
    /// Arguments, if written.
    pub args: Option<Vec<Arg>>,
    /// Annotations (`@defaultonly`).
    pub annotations: Vec<Annotation>,
    /// The whole reference.
    pub span: Span,
}

/// A constant table entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryDecl {
    /// One keyset element per key.
    pub keys: Vec<Keyset>,
    /// The action and its data.
    pub action: ActionRef,
    /// `priority = n :`.
    pub priority: Option<Expr>,
    /// Annotations after the action (`@priority(3)`).
    pub annotations: Vec<Annotation>,
    /// The whole entry.
    pub span: Span,
}

/// A type as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Type {
    /// What it is.
    pub kind: TypeKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of written types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// `bit<W>` (`bit` alone is `bit<1>`).
    Bit(Box<Width>),
    /// `int<W>`, or `int` (arbitrary precision) when `None`.
    Int(Option<Box<Width>>),
    /// `varbit<W>`.
    Varbit,
    /// `bool`.
    Bool,
    /// `error`.
    Error,
    /// `match_kind`.
    MatchKind,
    /// `string`.
    String,
    /// `void`.
    Void,
    /// `_`.
    DontCare,
    /// `tuple<...>` or `list<...>`.
    Tuple(Vec<Type>),
    /// A name, with type arguments.
    Named(Ident, Vec<Type>),
    /// `T[n]`: a header stack (or an array).
    Stack(Box<Type>, Box<Expr>),
}

/// The width of `bit<W>`/`int<W>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Width {
    /// A literal.
    Lit(u32, Span),
    /// A constant expression (`(W + 1)` or a constant's name).
    Expr(Expr),
}

/// A block of statements.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// The whole block.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `{ ... }`.
    Block(Block),
    /// `;`.
    Empty,
    /// `lhs = rhs;`
    Assign(Expr, Expr),
    /// A call evaluated for its effect (`t.apply();`, `pkt.extract(h);`).
    Call(Expr),
    /// `if (c) s else s`.
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `switch (e) { ... }`.
    Switch(Expr, Vec<SwitchCase>),
    /// `return;` / `return e;`
    Return(Option<Expr>),
    /// `exit;`
    Exit,
    /// `T x [= e];`
    Var(VarDecl),
    /// `const T x = e;`
    Const(ConstDecl),
    /// A construct that parses but is outside the supported subset (`for`, `break`, ...): its
    /// name for the message.
    Unsupported(&'static str),
}

/// A `switch` case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchCase {
    /// The label (`None` for `default`).
    pub label: Option<Expr>,
    /// The body; `None` falls through to the next case.
    pub body: Option<Block>,
    /// The whole case.
    pub span: Span,
}

/// The index of an expression in its program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    /// As a vector index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// Its id.
    pub id: ExprId,
    /// What it is.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `!`.
    Not,
    /// `~`.
    BitNot,
    /// `-`.
    Neg,
    /// `+`.
    Plus,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `|+|`.
    SatAdd,
    /// `|-|`.
    SatSub,
    /// `++`.
    Concat,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&`.
    BitAnd,
    /// `^`.
    BitXor,
    /// `|`.
    BitOr,
    /// `<=`.
    Le,
    /// `>=`.
    Ge,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `&&`.
    And,
    /// `||`.
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Mod => "%",
            Add => "+",
            Sub => "-",
            SatAdd => "|+|",
            SatSub => "|-|",
            Concat => "++",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            Le => "<=",
            Ge => ">=",
            Lt => "<",
            Gt => ">",
            Eq => "==",
            Ne => "!=",
            And => "&&",
            Or => "||",
        }
    }
}

/// A call argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A positional argument.
    Expr(Expr),
    /// `name = expr`.
    Named(Ident, Expr),
    /// `_` (an unused `out` argument).
    DontCare(Span),
}

impl Arg {
    /// Where the argument was written.
    pub fn span(&self) -> Span {
        match self {
            Arg::Expr(e) => e.span,
            Arg::Named(n, e) => n.span.to(e.span),
            Arg::DontCare(s) => *s,
        }
    }
}

/// The kinds of expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer literal: its value and, for `8w5`/`8s5`, its width and signedness.
    Int {
        /// The value.
        value: BigInt,
        /// `(width, signed)` when written with a width.
        width: Option<(u32, bool)>,
    },
    /// `true` / `false`.
    Bool(bool),
    /// A string literal (without quotes).
    Str(String),
    /// A name (a leading `.` means top-level).
    Name(Ident),
    /// `error.X`.
    ErrorMember(Ident),
    /// `base.member`.
    Member(Box<Expr>, Ident),
    /// `base[index]`.
    Index(Box<Expr>, Box<Expr>),
    /// `base[hi:lo]`.
    Slice(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `callee<T>(args)`.
    Call {
        /// What is called (a name or a member).
        callee: Box<Expr>,
        /// Type arguments.
        type_args: Vec<Type>,
        /// Arguments.
        args: Vec<Arg>,
    },
    /// A prefix operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(T) e`.
    Cast(Type, Box<Expr>),
    /// `{a, b, c}`.
    List(Vec<Expr>),
    /// `{f = a, g = b}`.
    StructInit(Vec<(Ident, Expr)>),
    /// `this`.
    This,
    /// Could not be read; already reported.
    Error,
}
