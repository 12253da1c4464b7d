//! Signatures of enums, scu/cc heads and members.

use super::{fields, fn_sig, Attach, FieldRule, FieldSig, SigKind};
use crate::ast::*;
use crate::consteval::Value;
use crate::diag::{codes, Diagnostic};
use crate::typeck::{BodyKind, Checker};
use crate::types::Ty;

/// A table key's match kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchKind {
    /// Equal.
    Exact,
    /// Longest prefix.
    Lpm,
    /// Value and mask.
    Ternary,
    /// Inclusive range.
    Range,
}

impl MatchKind {
    fn parse(name: &str) -> Option<MatchKind> {
        Some(match name {
            "exact" => MatchKind::Exact,
            "lpm" => MatchKind::Lpm,
            "ternary" => MatchKind::Ternary,
            "range" => MatchKind::Range,
            _ => return None,
        })
    }

    /// The kind as written.
    pub fn name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Lpm => "lpm",
            MatchKind::Ternary => "ternary",
            MatchKind::Range => "range",
        }
    }

    /// The kind with its article, for messages: "an `exact`", "a `range`".
    pub fn with_article(self) -> &'static str {
        match self {
            MatchKind::Exact => "an `exact`",
            MatchKind::Lpm => "an `lpm`",
            MatchKind::Ternary => "a `ternary`",
            MatchKind::Range => "a `range`",
        }
    }
}

/// An action a table may choose.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActionSig {
    /// Its name.
    pub name: String,
    /// Its parameters (the data an entry carries).
    pub params: Vec<(String, Ty)>,
    /// Whether it is an `action` member with a body (rather than declared inline).
    pub has_body: bool,
}

/// A table's outside: key types and kinds, actions, size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableSig {
    /// Key element types and match kinds.
    pub keys: Vec<(Ty, MatchKind)>,
    /// The actions, the implicit `no_action` last.
    pub actions: Vec<ActionSig>,
    /// `size N`, if written.
    pub size: Option<u64>,
}

/// The kinds of map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// Indexed by key; keys must be below the size.
    Array,
    /// Hash table; insert fails when full.
    Hash,
    /// Hash table evicting the least recently used entry when full.
    LruHash,
}

/// Where an `out` sends words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutKind {
    /// DMA to host, GPU or SSD memory.
    Dma,
    /// To the host.
    Host,
}

/// The largest size of a table, map, counter or meter (entries).
pub const MAX_ENTRIES: u64 = 1 << 24;

pub(crate) fn enum_sig(cx: &mut Checker<'_>, e: &EnumDecl) -> SigKind {
    let repr = e.repr.as_ref().map(|t| (cx.resolve_type(t), t.span));
    if let Some((ty, span)) = &repr {
        if !matches!(ty, Ty::Bit(_) | Ty::Error) {
            cx.error(
                codes::E0215,
                *span,
                format!("an enum is represented as a bit<N>, not `{ty}`"),
                "not a bit<N>",
            );
        }
    }
    // An invalid representation was reported above; later checks treat it as unknown.
    let repr_ty = repr.map(|(t, _)| {
        if matches!(t, Ty::Bit(_)) {
            t
        } else {
            Ty::Error
        }
    });
    let mut variants: Vec<(String, Value)> = Vec::new();
    let mut next = 0u64;
    for (name, value) in &e.variants {
        if variants.iter().any(|(n, _)| *n == name.name) {
            cx.error(
                codes::E0102,
                name.span,
                format!("variant `{}` is declared twice", name.name),
                "declared again here",
            );
            continue;
        }
        let value = variant_value(cx, e, value.as_ref(), repr_ty.as_ref(), next);
        next = value.as_u64().map_or(next + 1, |v| v + 1);
        if let Some(ty) = &repr_ty {
            if let Err(_e) = crate::consteval::fit(&value, ty) {
                cx.error(
                    codes::E0203,
                    name.span,
                    format!("variant `{}` does not fit `{ty}`", name.name),
                    "value out of range",
                );
            }
        }
        if let (Some(_), Some((first, _))) = (&repr_ty, variants.iter().find(|(_, v)| *v == value))
        {
            cx.report(
                Diagnostic::new(
                    codes::E0102,
                    name.span,
                    format!("variants `{first}` and `{}` have the same value", name.name),
                )
                .label(format!("same value as `{first}`"))
                .note("a cast to the representation must tell the variants apart"),
            );
        }
        variants.push((name.name.clone(), value));
    }
    SigKind::Enum {
        repr: repr_ty,
        variants,
    }
}

/// The value of one enum variant: written, or the previous value plus one.
fn variant_value(
    cx: &mut Checker<'_>,
    e: &EnumDecl,
    written: Option<&Expr>,
    repr: Option<&Ty>,
    next: u64,
) -> Value {
    match (written, repr) {
        (Some(expr), Some(ty)) => cx
            .const_value(expr, Some(ty))
            .value
            .unwrap_or(Value::int(next)),
        (Some(expr), None) => {
            cx.report(
                Diagnostic::new(
                    codes::E0201,
                    expr.span,
                    format!(
                        "enum `{}` has no representation, so its variants have no values",
                        e.name.name
                    ),
                )
                .label("value without `: bit<N>`")
                .help(format!(
                    "declare one: `enum {}: bit<8> {{ ... }}`, or remove the value",
                    e.name.name
                )),
            );
            Value::int(next)
        }
        (None, _) => Value::int(next),
    }
}

pub(crate) fn scu_sig(cx: &mut Checker<'_>, head: &ScuHead) -> SigKind {
    let attach = match head.attach.name.as_str() {
        "slow_path" => Some(Attach::SlowPath),
        "rdma" => Some(Attach::Rdma),
        "tcp" => Some(Attach::Tcp),
        other => {
            cx.report(
                Diagnostic::new(
                    codes::E0110,
                    head.attach.span,
                    format!("unknown attach point `{other}`"),
                )
                .label("not an attach point")
                .note("an scu attaches to `slow_path`, `rdma(qp)` or `tcp(flow)`"),
            );
            None
        }
    };
    let needs_binding = matches!(attach, Some(Attach::Rdma | Attach::Tcp));
    match (&head.attach_binding, needs_binding) {
        (None, true) => cx.report(
            Diagnostic::new(
                codes::E0110,
                head.attach.span,
                format!("`{}` needs a name for its flow", head.attach.name),
            )
            .label("missing `(name)`")
            .help(format!(
                "write `{}({})`",
                head.attach.name,
                if attach == Some(Attach::Rdma) {
                    "qp"
                } else {
                    "flow"
                }
            )),
        ),
        (Some(b), false) if attach.is_some() => cx.report(
            Diagnostic::new(codes::E0110, b.span, "`slow_path` takes no flow name")
                .label("remove this")
                .note("the slow path sees every packet, not one flow"),
        ),
        _ => {}
    }
    SigKind::Scu {
        attach,
        binding: head.attach_binding.as_ref().map(|b| b.name.clone()),
    }
}

pub(crate) fn cc_sig(cx: &mut Checker<'_>, head: &CcHead) -> SigKind {
    if let Some(per) = &head.per {
        if per.name != "flow" {
            cx.error(
                codes::E0110,
                per.span,
                format!(
                    "congestion controllers keep state per `flow`, not per `{}`",
                    per.name
                ),
                "expected `flow`",
            );
        }
    }
    let flows = match &head.flows {
        Some(expr) => cx.const_size(expr, "the number of flows").unwrap_or(1024),
        None => 1024,
    };
    let budget = head.budget.as_ref().and_then(|(expr, unit)| {
        if unit.name != "cycles" {
            cx.error(
                codes::E0603,
                unit.span,
                format!("a cycle budget is counted in `cycles`, not `{}`", unit.name),
                "expected `cycles`",
            );
        }
        let value = cx.const_size_allow_zero(expr, "the cycle budget");
        if value == Some(0) {
            cx.error(
                codes::E0603,
                expr.span,
                "a cycle budget of 0 leaves no time for any handler",
                "must be at least 1",
            );
        }
        value
    });
    SigKind::Cc { flows, budget }
}

pub(crate) fn member_sig(cx: &mut Checker<'_>, member: &Member) -> SigKind {
    match &member.kind {
        MemberKind::Csr(c) => csr_sig(cx, c),
        MemberKind::Headers(decls) => SigKind::Headers {
            instances: header_instances(cx, decls),
        },
        MemberKind::Meta(decls) => SigKind::Meta {
            fields: fields(cx, decls, FieldRule::Value),
        },
        MemberKind::Errors(names) => errors_sig(cx, names),
        MemberKind::Table(t) => SigKind::Table(table_sig(cx, t)),
        MemberKind::Action(a) => match fn_sig(cx, a) {
            SigKind::Fn { params, .. } => SigKind::Action { params },
            other => other,
        },
        MemberKind::Fn(f) => fn_sig(cx, f),
        MemberKind::Map(m) => map_sig(cx, m),
        MemberKind::Counter(c) => {
            known_kind(
                cx,
                &c.kind,
                &["packets", "bytes", "packets_and_bytes"],
                "counter",
            );
            SigKind::Counter {
                size: cell_count(cx, c.size.as_ref()),
            }
        }
        MemberKind::Meter(m) => {
            known_kind(cx, &m.kind, &["token_bucket"], "meter");
            meter_options(cx, &m.options);
            SigKind::Meter {
                size: cell_count(cx, m.size.as_ref()),
            }
        }
        MemberKind::Out(o) => out_sig(cx, o),
        MemberKind::Const(c) => super::const_sig(cx, c),
        MemberKind::Param(p) => match super::const_sig(cx, p) {
            SigKind::Const { ty, value } => {
                param_width(cx, p, &ty);
                SigKind::Param { ty, value }
            }
            other => other,
        },
        MemberKind::State(s) => {
            let ty = cx.resolve_type(&s.ty);
            if let Some(init) = &s.init {
                cx.const_value(init, Some(&ty));
            }
            SigKind::State { ty }
        }
        _ => SigKind::None,
    }
}

/// `errors { a, b }`: each name once, and none of the built-in errors again (E0102).
fn errors_sig(cx: &mut Checker<'_>, names: &[Ident]) -> SigKind {
    let builtin = crate::typeck::BUILTIN_PARSER_ERRORS;
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if builtin.contains(&name.name.as_str()) {
            cx.report(
                Diagnostic::new(
                    codes::E0102,
                    name.span,
                    format!("`{}` is a built-in parser error", name.name),
                )
                .label("already defined")
                .note(format!(
                    "every parser has the errors {}",
                    builtin.join(", ")
                ))
                .help("remove it from `errors { }`; it can be used without declaring it"),
            );
        } else if out.contains(&name.name) {
            cx.error(
                codes::E0102,
                name.span,
                format!("parser error `{}` is declared twice", name.name),
                "declared again here",
            );
        } else {
            out.push(name.name.clone());
        }
    }
    SigKind::Errors { names: out }
}

/// A `param` is set by the host through a 64-bit control register, like a CSR.
fn param_width(cx: &mut Checker<'_>, p: &ConstDecl, ty: &Ty) {
    let width = match ty {
        Ty::Bit(n) | Ty::Int(n) => *n,
        Ty::Fixed(i, f) => i + f,
        _ => return,
    };
    if width > 64 {
        let span = p.ty.as_ref().map_or(p.name.span, |t| t.span);
        cx.report(
            Diagnostic::new(
                codes::E0407,
                span,
                format!("param `{}` is {width} bits wide", p.name.name),
            )
            .label("wider than 64 bits")
            .note("the host sets params through 64-bit control registers, like CSRs")
            .help("split it into several params of at most 64 bits"),
        );
    }
}

fn csr_sig(cx: &mut Checker<'_>, c: &CsrDecl) -> SigKind {
    let ty = cx.resolve_type(&c.ty);
    match &ty {
        Ty::Bit(n) if *n > 64 => cx.report(
            Diagnostic::new(
                codes::E0407,
                c.ty.span,
                format!("CSR `{}` is {n} bits wide", c.name.name),
            )
            .label("wider than 64 bits")
            .note("control registers are 64-bit words (Coyote's `setCSR`)")
            .help("split it into several CSRs of at most 64 bits"),
        ),
        Ty::Bit(_) | Ty::Error => {}
        other => {
            let help = match other {
                Ty::Bool => "use `bit<1>` for a flag, and test it with `== 1`".to_string(),
                Ty::Int(n) => format!("store the bits as `bit<{n}>` and cast with `as int<{n}>`"),
                _ => "use a bit<N> of at most 64 bits".to_string(),
            };
            cx.report(
                Diagnostic::new(
                    codes::E0407,
                    c.ty.span,
                    format!("CSR `{}` has type `{other}`", c.name.name),
                )
                .label("not a bit<N>")
                .note("control registers hold plain bit strings of at most 64 bits")
                .help(help),
            )
        }
    }
    if let Some(init) = &c.init {
        cx.const_value(init, Some(&ty));
    }
    SigKind::Csr {
        ty,
        readonly: c.readonly,
    }
}

fn header_instances(cx: &mut Checker<'_>, decls: &[FieldDecl]) -> Vec<FieldSig> {
    let instances = fields(cx, decls, FieldRule::Instance);
    for (inst, decl) in instances.iter().zip(decls) {
        let ok = match &inst.ty {
            Ty::Header(_) | Ty::Error => true,
            Ty::Array(elem, _) => matches!(**elem, Ty::Header(_) | Ty::Error),
            _ => false,
        };
        if !ok {
            cx.report(
                Diagnostic::new(
                    codes::E0214,
                    decl.ty.span,
                    format!("`{}` in `headers` has type `{}`", inst.name, inst.ty),
                )
                .label("not a header or a header stack")
                .help("per-packet values that are not headers belong in `meta { }`"),
            );
        }
    }
    instances
}

/// A counter or meter kind must be one of `kinds` (E0110).
fn known_kind(cx: &mut Checker<'_>, kind: &Ident, kinds: &[&str], what: &str) {
    if kinds.contains(&kind.name.as_str()) {
        return;
    }
    let list: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
    let shown = match list.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => list.join(""),
    };
    cx.report(
        Diagnostic::new(
            codes::E0110,
            kind.span,
            format!("unknown {what} kind `{}`", kind.name),
        )
        .label(format!("not a {what} kind"))
        .note(format!("{what}s are {shown}")),
    );
}

/// `rate R` (a rate) and `burst B` (a size), each at most once.
fn meter_options(cx: &mut Checker<'_>, options: &[(Ident, Expr)]) {
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in options {
        let ty = match name.name.as_str() {
            "rate" => Ty::Rate,
            "burst" => Ty::Size,
            other => {
                cx.report(
                    Diagnostic::new(
                        codes::E0110,
                        name.span,
                        format!("unknown meter option `{other}`"),
                    )
                    .label("not a meter option")
                    .note("a meter takes `rate R` (a rate) and `burst B` (a size)"),
                );
                cx.expr(value, None);
                continue;
            }
        };
        if seen.contains(&name.name.as_str()) {
            cx.error(
                codes::E0102,
                name.span,
                format!("`{}` is given more than once", name.name),
                "repeated meter option",
            );
        }
        seen.push(&name.name);
        cx.const_value(value, Some(&ty));
    }
}

fn cell_count(cx: &mut Checker<'_>, size: Option<&Expr>) -> u64 {
    match size {
        Some(expr) => cx.const_size(expr, "the number of cells").unwrap_or(1),
        None => 1,
    }
}

fn out_sig(cx: &mut Checker<'_>, o: &OutDecl) -> SigKind {
    let (kind_ty, count) = match &o.ty.kind {
        TypeExprKind::Array { elem, len } => (
            elem.as_ref(),
            cx.const_size(len, "the number of outputs")
                .map(|n| n as u32),
        ),
        _ => (&o.ty, None),
    };
    let kind = match &kind_ty.kind {
        TypeExprKind::Named { path, args } if args.is_empty() && path.text() == "dma" => {
            OutKind::Dma
        }
        TypeExprKind::Named { path, args } if args.is_empty() && path.text() == "host" => {
            OutKind::Host
        }
        _ => {
            cx.report(
                Diagnostic::new(codes::E0508, kind_ty.span, "unknown output kind")
                    .label("expected `dma` or `host`")
                    .note("outputs are `dma`, `[dma; N]` or `host`"),
            );
            OutKind::Dma
        }
    };
    if let Some(batch) = &o.batch {
        let bytes = cx.const_value(batch, Some(&Ty::Size)).value;
        match bytes.as_ref().and_then(Value::as_u64) {
            Some(n) if n == 0 || n % 64 != 0 => cx.report(
                Diagnostic::new(
                    codes::E0409,
                    batch.span,
                    format!("a batch of {n} bytes is not a whole number of 64-byte words"),
                )
                .label("not a positive multiple of 64B")
                .note("outputs carry 512-bit (64-byte) words")
                .help(format!("use {}B", (n / 64).max(1) * 64)),
            ),
            _ => {}
        }
    }
    SigKind::Out { kind, count }
}

fn map_sig(cx: &mut Checker<'_>, m: &MapDecl) -> SigKind {
    let size = cx.const_size(&m.size, "the map size").unwrap_or(1);
    let TypeExprKind::Named { path, args } = &m.ty.kind else {
        cx.error(
            codes::E0408,
            m.ty.span,
            "a map type is `array<K, V>`, `hash<K, V>` or `lru_hash<K, V>`",
            "not a map type",
        );
        return SigKind::None;
    };
    let kind = match path.text().as_str() {
        "array" => MapKind::Array,
        "hash" => MapKind::Hash,
        "lru_hash" => MapKind::LruHash,
        other => {
            cx.report(
                Diagnostic::new(
                    codes::E0408,
                    path.span,
                    format!("unknown map kind `{other}`"),
                )
                .label("not a map kind")
                .note("maps are `array<K, V>`, `hash<K, V>` or `lru_hash<K, V>`"),
            );
            MapKind::Hash
        }
    };
    let [GenericArg::Type(key_expr), GenericArg::Type(value_expr)] = args.as_slice() else {
        cx.error(
            codes::E0408,
            m.ty.span,
            "a map takes two types: key and value",
            "expected `<K, V>`",
        );
        return SigKind::None;
    };
    let key = cx.resolve_type(key_expr);
    let value = cx.resolve_type(value_expr);
    if !matches!(key, Ty::Bit(_) | Ty::Error) {
        cx.error(
            codes::E0408,
            key_expr.span,
            format!("map keys are bit<N>, not `{key}`"),
            "key type",
        );
    }
    if matches!(value, Ty::Header(_)) {
        cx.error(
            codes::E0408,
            value_expr.span,
            "map values cannot be headers",
            "use a struct",
        );
    }
    if let (MapKind::Array, Ty::Bit(k)) = (kind, &key) {
        if *k < 64 && size > (1u64 << k) {
            cx.report(
                Diagnostic::new(
                    codes::E0408,
                    m.size.span,
                    format!("an array map of {size} entries cannot be indexed by a `bit<{k}>`"),
                )
                .label(format!("more than 2^{k} entries"))
                .help("use a wider key or fewer entries"),
            );
        }
    }
    SigKind::Map {
        kind,
        key,
        value,
        size,
    }
}

fn table_sig(cx: &mut Checker<'_>, t: &TableDecl) -> TableSig {
    let saved = std::mem::replace(&mut cx.kind, BodyKind::Control);
    cx.declare_packet();
    let mut keys = Vec::new();
    for key in t.keys.iter().flat_map(|(k, _)| k) {
        let ty = cx.key_type(&key.expr);
        let kind = MatchKind::parse(&key.kind.name).unwrap_or_else(|| {
            cx.report(
                Diagnostic::new(
                    codes::E0110,
                    key.kind.span,
                    format!("unknown match kind `{}`", key.kind.name),
                )
                .label("not a match kind")
                .note("match kinds are `exact`, `lpm`, `ternary` and `range`"),
            );
            MatchKind::Exact
        });
        keys.push((ty, kind));
    }
    cx.kind = saved;
    let mut actions = Vec::new();
    for action in t.actions.iter().flat_map(|(a, _)| a) {
        actions.push(cx.action_sig(action));
    }
    if !actions.iter().any(|a: &ActionSig| a.name == "no_action") {
        actions.push(ActionSig {
            name: "no_action".into(),
            params: Vec::new(),
            has_body: false,
        });
    }
    let size = t
        .size
        .as_ref()
        .and_then(|s| cx.const_size(s, "the table size"));
    TableSig {
        keys,
        actions,
        size,
    }
}
