//! Signatures: the resolved, typed outside of each item and member.
//!
//! A signature is what other code needs to know about a definition without looking at its body: a
//! constant's type and value, a header's layout, a function's parameter types, a table's keys and
//! actions, a map's key and value types. One salsa query per chunk; a cycle between constants
//! (`const A = B; const B = A;`) ends in [`SigKind::Cycle`], reported by the container checks.
//!
//! It lives under `typeck` because typing a signature's constant expressions needs the [`Checker`],
//! and the checker needs signatures: the one module owns both sides of that recursion, so name
//! resolution (`resolve`) stays below type checking.

use super::{BodyKind, Checker};
use crate::ast::*;
use crate::consteval::Value;
use crate::db::{chunk_ast, ChunkKey};
use crate::diag::Diagnostic;
use crate::parse::ChunkAst;
use crate::span::Span;
use crate::types::Ty;
use std::sync::Arc;

mod members;

pub use members::{ActionSig, MapKind, MatchKind, OutKind, TableSig, MAX_ENTRIES};

/// A field of a header, struct or `meta` block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldSig {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Where it is declared (chunk-relative).
    pub span: Span,
}

/// The attach point of an scu.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attach {
    /// `slow_path`: every packet the NIC's offloaded stacks do not take.
    SlowPath,
    /// `rdma(qp)`: the payload stream of RDMA queue pairs.
    Rdma,
    /// `tcp(flow)`: the payload stream of TCP sessions.
    Tcp,
}

/// The kinds of signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SigKind {
    /// Bodies without an outside (control, parser, ...), and unreadable chunks.
    None,
    /// A definition that depends on itself.
    Cycle,
    /// `const`.
    Const {
        /// Its type.
        ty: Ty,
        /// Its value (absent after an error).
        value: Option<Value>,
    },
    /// `header`.
    Header {
        /// Fields in wire order.
        fields: Vec<FieldSig>,
        /// Total width in bits.
        bits: u32,
    },
    /// `struct`.
    Struct {
        /// Fields in order.
        fields: Vec<FieldSig>,
    },
    /// `enum`.
    Enum {
        /// The representation, if declared.
        repr: Option<Ty>,
        /// Variant names and values.
        variants: Vec<(String, Value)>,
    },
    /// `fn`.
    Fn {
        /// Parameter names and types.
        params: Vec<(String, Ty)>,
        /// Return type (`Unit` for none).
        ret: Ty,
    },
    /// `scu NAME on ATTACH`.
    Scu {
        /// The attach point (`None` if unknown).
        attach: Option<Attach>,
        /// The name bound by `rdma(qp)` / `tcp(flow)`.
        binding: Option<String>,
    },
    /// `cc NAME per flow[N] budget B cycles`.
    Cc {
        /// Number of flows with state.
        flows: u64,
        /// The cycle budget, if declared.
        budget: Option<u64>,
    },
    /// `csr`.
    Csr {
        /// Its type.
        ty: Ty,
        /// Host read-only.
        readonly: bool,
    },
    /// `headers { }`: instance names and types (a header, or an array of headers for a stack).
    Headers {
        /// The instances in order.
        instances: Vec<FieldSig>,
    },
    /// `meta { }`.
    Meta {
        /// The fields.
        fields: Vec<FieldSig>,
    },
    /// `errors { }`.
    Errors {
        /// The error names.
        names: Vec<String>,
    },
    /// `table`.
    Table(TableSig),
    /// `action`.
    Action {
        /// Parameter names and types.
        params: Vec<(String, Ty)>,
    },
    /// `map`.
    Map {
        /// Array, hash or LRU hash.
        kind: MapKind,
        /// Key type.
        key: Ty,
        /// Value type.
        value: Ty,
        /// Number of entries.
        size: u64,
    },
    /// `counter`.
    Counter {
        /// Number of cells.
        size: u64,
    },
    /// `meter`.
    Meter {
        /// Number of cells.
        size: u64,
    },
    /// `out`.
    Out {
        /// Where words go.
        kind: OutKind,
        /// `[dma; N]`: the number of outputs.
        count: Option<u32>,
    },
    /// `param`.
    Param {
        /// Its type.
        ty: Ty,
        /// Its default.
        value: Option<Value>,
    },
    /// `state` (cc).
    State {
        /// Its type.
        ty: Ty,
    },
}

/// A chunk's signature and the problems found building it (chunk-relative).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// What was found.
    pub kind: SigKind,
    /// Problems in the declaration.
    pub diags: Vec<Diagnostic>,
    /// Names of members and items the declaration refers to (for unused-member warnings).
    pub uses: Vec<String>,
    /// Types and constant values of the declaration's expressions (initialisers, table keys).
    pub infos: crate::typeck::ExprInfos,
}

fn sig_cycle<'db>(
    _db: &'db dyn salsa::Database,
    _id: salsa::Id,
    _key: ChunkKey<'db>,
) -> Arc<Signature> {
    Arc::new(Signature {
        kind: SigKind::Cycle,
        diags: Vec::new(),
        uses: Vec::new(),
        infos: crate::typeck::ExprInfos::default(),
    })
}

/// The signature of chunk `key`.
#[salsa::tracked(returns(clone), cycle_result = sig_cycle)]
pub fn signature<'db>(db: &'db dyn salsa::Database, key: ChunkKey<'db>) -> Arc<Signature> {
    // A constant defined by another constant computes that one's signature first: long chains
    // recurse deeply, so grow the stack on the heap when it runs low.
    crate::stack::grow(|| signature_of(db, key))
}

fn signature_of<'db>(db: &'db dyn salsa::Database, key: ChunkKey<'db>) -> Arc<Signature> {
    let parsed = chunk_ast(db, key);
    let mut cx = Checker::new(db, key.file(db), key.index(db), BodyKind::Const);
    let kind = match &parsed.ast {
        ChunkAst::Item(item) => item_sig(&mut cx, item),
        ChunkAst::Member(member) => members::member_sig(&mut cx, member),
    };
    cx.flush_unfit(None);
    Arc::new(Signature {
        kind,
        diags: std::mem::take(&mut cx.diags),
        uses: cx.summary.used.iter().cloned().collect(),
        infos: std::mem::take(&mut cx.infos),
    })
}

fn item_sig(cx: &mut Checker<'_>, item: &Item) -> SigKind {
    match &item.kind {
        ItemKind::Const(c) => const_sig(cx, c),
        ItemKind::Header(r) => header_sig(cx, r),
        ItemKind::Struct(r) => SigKind::Struct {
            fields: fields(cx, &r.fields, FieldRule::Value),
        },
        ItemKind::Enum(e) => members::enum_sig(cx, e),
        ItemKind::Fn(f) => fn_sig(cx, f),
        ItemKind::Scu(head) => members::scu_sig(cx, head),
        ItemKind::Cc(head) => members::cc_sig(cx, head),
        ItemKind::Use(_) | ItemKind::Error => SigKind::None,
    }
}

/// `const NAME[: T] = value;`
pub(crate) fn const_sig(cx: &mut Checker<'_>, c: &ConstDecl) -> SigKind {
    let declared = c.ty.as_ref().map(|t| cx.resolve_type(t));
    let typed = cx.const_value(&c.value, declared.as_ref());
    let ty = match (declared, typed.ty) {
        (Some(ty), _) => ty,
        (None, Ty::IntLit | Ty::DecimalLit) => {
            cx.report(
                Diagnostic::new(
                    crate::diag::codes::E0209,
                    c.name.span,
                    format!("cannot infer the type of `{}`", c.name.name),
                )
                .label("type needed")
                .help(format!(
                    "write the type: `const {}: bit<32> = ...;`",
                    c.name.name
                )),
            );
            Ty::Error
        }
        (None, ty) => ty,
    };
    SigKind::Const {
        ty,
        value: typed.value,
    }
}

/// Which field types a list of field declarations allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldRule {
    /// Header fields: bit<N> and int<N> only.
    Header,
    /// Struct fields and `meta`: anything but headers.
    Value,
    /// Function and action parameters: anything but headers.
    Param,
    /// `headers { }` instances: checked by the caller.
    Instance,
}

/// Resolves a list of field declarations under `rule`.
pub(crate) fn fields(cx: &mut Checker<'_>, decls: &[FieldDecl], rule: FieldRule) -> Vec<FieldSig> {
    let header_fields = rule == FieldRule::Header;
    let mut out: Vec<FieldSig> = Vec::new();
    for decl in decls {
        if let Some(first) = out.iter().find(|f| f.name == decl.name.name) {
            let first_span = first.span;
            cx.report(
                Diagnostic::new(
                    crate::diag::codes::E0102,
                    decl.name.span,
                    format!("field `{}` is declared twice", decl.name.name),
                )
                .label("declared again here")
                .secondary(first_span, "first declared here"),
            );
            continue;
        }
        let ty = cx.resolve_type(&decl.ty);
        if header_fields && !ty.is_integer() && !ty.is_error() {
            cx.report(
                Diagnostic::new(
                    crate::diag::codes::E0214,
                    decl.ty.span,
                    format!("header field `{}` has type `{ty}`", decl.name.name),
                )
                .label("not a bit<N> or int<N>")
                .note("header fields are bit strings on the wire: use bit<N> (or int<N>)"),
            );
        }
        let holds_header = match &ty {
            Ty::Header(_) => true,
            Ty::Array(elem, _) => matches!(**elem, Ty::Header(_)),
            _ => false,
        };
        if rule != FieldRule::Header && rule != FieldRule::Instance && holds_header {
            let what = if rule == FieldRule::Param {
                "parameter"
            } else {
                "field"
            };
            cx.report(
                Diagnostic::new(
                    crate::diag::codes::E0201,
                    decl.ty.span,
                    format!("{what} `{}` has a header type", decl.name.name),
                )
                .label(format!("a {what} cannot hold a header"))
                .note("header instances are declared in the scu's `headers { }` block and live for one packet")
                .help("copy the fields you need into a struct"),
            );
        }
        out.push(FieldSig {
            name: decl.name.name.clone(),
            ty,
            span: decl.name.span,
        });
    }
    out
}

fn header_sig(cx: &mut Checker<'_>, r: &RecordDecl) -> SigKind {
    let fields = fields(cx, &r.fields, FieldRule::Header);
    let bits: u32 = fields.iter().filter_map(|f| f.ty.width()).sum();
    if bits % 8 != 0 {
        cx.report(
            Diagnostic::new(
                crate::diag::codes::E0214,
                r.name.span,
                format!(
                    "header `{}` is {bits} bits, not a whole number of bytes",
                    r.name.name
                ),
            )
            .label(format!("{bits} bits"))
            .note("headers are extracted and emitted in whole bytes")
            .help(format!(
                "add {} bits of padding, e.g. `pad: bit<{}>`",
                8 - bits % 8,
                8 - bits % 8
            )),
        );
    }
    if bits == 0 && fields.is_empty() {
        cx.report(
            Diagnostic::new(
                crate::diag::codes::E0214,
                r.name.span,
                format!("header `{}` has no fields", r.name.name),
            )
            .label("empty header"),
        );
    }
    SigKind::Header { fields, bits }
}

/// `fn name(params) -> T` and `action name(params)`.
pub(crate) fn fn_sig(cx: &mut Checker<'_>, f: &FnDecl) -> SigKind {
    let params = fields(cx, &f.params, FieldRule::Param)
        .into_iter()
        .map(|p| (p.name, p.ty))
        .collect();
    let ret = f.ret.as_ref().map_or(Ty::Unit, |t| cx.resolve_type(t));
    SigKind::Fn { params, ret }
}

/// The signature of chunk `chunk` in the checker's file.
pub fn sig_of(db: &dyn salsa::Database, file: crate::db::SourceFile, chunk: u32) -> Arc<Signature> {
    signature(db, ChunkKey::new(db, file, chunk))
}
