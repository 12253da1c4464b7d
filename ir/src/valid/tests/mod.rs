//! Validator tests: hand-built modules that pass, with the facts computed for them, and one module
//! per error kind that breaks exactly that rule.

/// Asserts that validating `$m` fails with an error matching `$pat`.
macro_rules! assert_err {
    ($m:expr, $pat:pat) => {{
        let e = super::err(&$m);
        assert!(matches!(e, $pat), "got {e:?}");
    }};
}

mod body_errors;
mod expr_errors;
mod layout_errors;
mod robustness;
mod unit_errors;

use super::{ModuleInfo, ValidationError, Validator};
use crate::body::*;
use crate::entities::*;
use crate::program::*;
use crate::span::Span;
use crate::types::{Const, Dimension, Type};
use cranelift_entity::PrimaryMap;

/// Builds a body statement by statement (all spans unknown).
#[derive(Default)]
pub(super) struct B {
    pub(super) body: Body,
}

impl B {
    pub(super) fn param(&mut self, name: &str, ty: Type) -> LocalId {
        let l = self.body.local(name, ty, false);
        self.body.params.push(l);
        l
    }
    pub(super) fn local(&mut self, name: &str, ty: Type, mutable: bool) -> LocalId {
        self.body.local(name, ty, mutable)
    }
    pub(super) fn e(&mut self, e: Expr, ty: Type) -> ExprId {
        self.body.add(e, ty, Span::default())
    }
    pub(super) fn c(&mut self, v: u64, ty: Type) -> ExprId {
        self.e(Expr::Const(Const::from_u64(v)), ty)
    }
    pub(super) fn s(&mut self, s: Stmt) {
        self.body.block.push(s, Span::default());
    }
}

pub(super) fn bits(n: u32) -> Type {
    Type::Bits(n)
}

pub(super) fn c(v: u64) -> Const {
    Const::from_u64(v)
}

pub(super) fn block(stmts: Vec<Stmt>) -> Block {
    let mut b = Block::default();
    for s in stmts {
        b.push(s, Span::default());
    }
    b
}

pub(super) fn module() -> Module {
    Module {
        source_name: "t.sn".into(),
        ..Module::default()
    }
}

pub(super) fn add_fn(m: &mut Module, name: &str, owner: Owner, ret: Type, body: Body) -> FuncId {
    m.functions.push(Function {
        name: name.into(),
        owner,
        ret,
        body,
        span: Span::default(),
    })
}

pub(super) fn scu(name: &str, attach: Attach) -> Scu {
    let mut errors = PrimaryMap::new();
    for e in ["packet_too_short", "no_match", "stack_overflow"] {
        errors.push(e.to_string());
    }
    Scu {
        name: name.into(),
        attach,
        csrs: PrimaryMap::new(),
        instances: PrimaryMap::new(),
        meta: None,
        errors,
        parser: None,
        tables: PrimaryMap::new(),
        actions: PrimaryMap::new(),
        maps: PrimaryMap::new(),
        counters: PrimaryMap::new(),
        meters: PrimaryMap::new(),
        outs: PrimaryMap::new(),
        control: None,
        on_parser_error: None,
        deparser: None,
        stream: None,
        every: Vec::new(),
        span: Span::default(),
    }
}

/// A cc with one `size` state `cwnd` (the window output) and no handlers.
pub(super) fn cc() -> Cc {
    let mut state = PrimaryMap::new();
    let cwnd = state.push(CcState {
        name: "cwnd".into(),
        ty: Type::Quantity(Dimension::Size),
        init: c(4096),
    });
    Cc {
        name: "aimd".into(),
        flows: 1024,
        budget: None,
        params: PrimaryMap::new(),
        state,
        output: (OutputKind::Window, cwnd),
        timers: PrimaryMap::new(),
        handlers: Vec::new(),
        span: Span::default(),
    }
}

pub(super) fn ethernet() -> HeaderLayout {
    let field = |name: &str, w: u32, offset: u32| Field {
        name: name.into(),
        ty: bits(w),
        offset,
    };
    HeaderLayout {
        name: "ethernet".into(),
        fields: vec![
            field("dst", 48, 0),
            field("src", 48, 48),
            field("ether_type", 16, 96),
        ],
        bits: 112,
    }
}

pub(super) fn ok(m: &Module) -> ModuleInfo {
    match Validator::new().validate(m) {
        Ok(info) => info,
        Err(e) => panic!("expected a valid module, got {e:?}"),
    }
}

pub(super) fn err(m: &Module) -> ValidationError {
    match Validator::new().validate(m) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

/// A module with a function `f(x: bit<8>) -> bit<8>` whose body `build` fills in.
pub(super) fn with_fn(ret: Type, build: impl FnOnce(&mut B)) -> Module {
    let mut m = module();
    let mut b = B::default();
    build(&mut b);
    add_fn(&mut m, "f", Owner::Module, ret, b.body);
    m
}

/// A module with one slow-path scu (one `ethernet` instance `eth`, meta `{port: bit<8>}`, one
/// counter, and a table `t` keyed on `eth.dst` with actions `allow` and `deny(code: bit<4>)`)
/// whose control `build` fills in.
pub(super) fn with_control(build: impl FnOnce(&mut B, &mut Scu)) -> Module {
    let mut m = module();
    let eth = m.headers.push(ethernet());
    let meta = m.structs.push(StructLayout {
        name: "meta".into(),
        fields: vec![Field {
            name: "port".into(),
            ty: bits(8),
            offset: 0,
        }],
    });
    let mut s = scu("fw", Attach::SlowPath);
    let inst = s.instances.push(Instance {
        name: "eth".into(),
        header: eth,
        stack: None,
    });
    s.meta = Some(meta);
    s.counters.push(Counter {
        name: "hits".into(),
        kind: CounterKind::Packets,
        size: 1,
    });
    let allow = s.actions.push(Action {
        name: "allow".into(),
        body: Body::default(),
    });
    let mut deny = B::default();
    deny.param("code", bits(4));
    deny.s(Stmt::Drop);
    let deny = s.actions.push(Action {
        name: "deny".into(),
        body: deny.body,
    });
    let mut key = B::default();
    let dst = key.e(
        Expr::HeaderField {
            inst,
            index: None,
            field: 0,
        },
        bits(48),
    );
    s.tables.push(Table {
        name: "t".into(),
        key_body: key.body,
        keys: vec![TableKey {
            expr: dst,
            kind: MatchKind::Exact,
            ty: bits(48),
            name: "eth.dst".into(),
        }],
        actions: vec![allow, deny],
        default: (allow, vec![]),
        size: 16,
        const_entries: vec![Entry {
            keys: vec![KeyMatch::Exact(c(1))],
            action: 1,
            args: vec![c(3)],
            priority: 0,
        }],
        is_const: false,
        span: Span::default(),
    });
    let mut b = B::default();
    build(&mut b, &mut s);
    s.control = Some(b.body);
    m.scus.push(s);
    m
}

/// The firewall-like scu: parser, table, actions, control with action data, deparser; a function
/// of the scu calling a top-level one.
fn firewall() -> Module {
    let mut m = with_control(|b, _| {
        let t = TableId::from_u32(0);
        let apply = b.e(Expr::Apply(t), Type::TableResult(t));
        let data = b.e(
            Expr::ActionData {
                apply,
                action: 1,
                param: 0,
            },
            bits(4),
        );
        let wide = b.e(Expr::Cast(data), bits(8));
        let arm = block(vec![Stmt::Assign(Place::Meta(0), wide)]);
        let count = block(vec![Stmt::Count(CounterId::from_u32(0), None)]);
        b.s(Stmt::Switch {
            on: apply,
            cases: vec![Case {
                patterns: vec![Pattern::Value(c(1))],
                body: arm,
            }],
            default: count,
        });
        let port = b.e(Expr::Meta(0), bits(8));
        let call = b.e(Expr::Call(FuncId::from_u32(1), vec![port]), bits(8));
        b.s(Stmt::ToNetwork(call));
    });
    let mut twice = B::default();
    let x = twice.param("x", bits(8));
    let r = twice.e(Expr::Local(x), bits(8));
    twice.s(Stmt::Return(Some(r)));
    add_fn(&mut m, "id", Owner::Module, bits(8), twice.body);
    let mut route = B::default();
    let p = route.param("p", bits(8));
    let r = route.e(Expr::Local(p), bits(8));
    let call = route.e(Expr::Call(FuncId::from_u32(0), vec![r]), bits(8));
    route.s(Stmt::Return(Some(call)));
    add_fn(
        &mut m,
        "route",
        Owner::Scu(ScuId::from_u32(0)),
        bits(8),
        route.body,
    );
    let s = &mut m.scus[ScuId::from_u32(0)];
    s.csrs.push(Csr {
        name: "dropped".into(),
        ty: bits(64),
        init: c(0),
        host_readonly: true,
        is_param: false,
    });
    s.csrs.push(Csr {
        name: "limit".into(),
        ty: bits(32),
        init: c(1000),
        host_readonly: false,
        is_param: true,
    });
    s.maps.push(Map {
        name: "flows".into(),
        kind: MapKind::Hash,
        key: bits(32),
        value: Type::Struct(StructId::from_u32(0)),
        size: 64,
    });
    let inst = InstId::from_u32(0);
    s.parser = Some(fw_parser(inst));
    s.deparser = Some(block_body(vec![Stmt::Emit(inst)]));
    m
}

/// `state start { extract(eth); select eth.ether_type { 0x800 => accept, _ => reject(no_match) } }`.
fn fw_parser(inst: InstId) -> Parser {
    let mut pb = B::default();
    let on = pb.e(
        Expr::HeaderField {
            inst,
            index: None,
            field: 2,
        },
        bits(16),
    );
    let mut states = PrimaryMap::new();
    let start = states.push(ParserState {
        name: "start".into(),
        block: block(vec![Stmt::Extract(inst)]),
        transition: Transition::Select {
            on,
            cases: vec![
                SelectCase {
                    patterns: vec![Pattern::Value(c(0x800))],
                    target: Target::Accept,
                },
                SelectCase {
                    patterns: vec![Pattern::Any],
                    target: Target::Reject(ErrorId::from_u32(1)),
                },
            ],
        },
        span: Span::default(),
    });
    Parser {
        body: pb.body,
        states,
        start,
    }
}

fn block_body(stmts: Vec<Stmt>) -> Body {
    Body {
        block: block(stmts),
        ..Body::default()
    }
}

#[test]
fn firewall_is_valid() {
    let m = firewall();
    let info = ok(&m);
    let s = ScuId::from_u32(0);
    assert_eq!(info[HeaderId::from_u32(0)].bytes, 14);
    assert_eq!(
        info[HeaderId::from_u32(0)].fields,
        vec![(0, 48), (48, 48), (96, 16)]
    );
    assert_eq!(
        info[s][CsrId::from_u32(1)],
        crate::valid::CsrInfo {
            offset: 1,
            byte_offset: 0x20008,
            width: 32
        }
    );
    assert_eq!(info[s][TableId::from_u32(0)].key_bits, 48);
    assert_eq!(
        info[s][MapId::from_u32(0)],
        crate::valid::MapInfo {
            key_bits: 32,
            value_bits: 8
        }
    );
    assert_eq!(
        info.call_order,
        vec![FuncId::from_u32(0), FuncId::from_u32(1)]
    );
    let control = info[s].control.as_ref().expect("control info");
    assert_eq!(control.applies, vec![TableId::from_u32(0)]);
    assert_eq!(control.calls, vec![FuncId::from_u32(1)]);
    assert_eq!(
        control.calls_transitive,
        vec![FuncId::from_u32(0), FuncId::from_u32(1)]
    );
    assert_eq!((control.exprs, control.max_depth), (5, 2));
    assert!(control.uses(super::Construct::Apply) && control.uses(super::Construct::ToNetwork));
    assert!(info[s]
        .parser
        .as_ref()
        .is_some_and(|p| p.uses(super::Construct::Extract)));
}

/// A stream kernel on rdma: the flow id, a loop indexing an array with its variable, pushes to an
/// output array, and a cc whose handler calls a cc function that restarts a timer.
#[test]
fn stream_and_cc_are_valid() {
    let mut m = module();
    let mut s = scu("part", Attach::Rdma);
    let out = s.outs.push(Out {
        name: "gpu".into(),
        kind: OutKind::Dma,
        count: Some(4),
        batch: None,
    });
    let mut b = B::default();
    let word = b.param("word", bits(512));
    let reads: Vec<ExprId> = (0..4).map(|_| b.e(Expr::Local(word), bits(512))).collect();
    let ty = Type::Array(Box::new(bits(512)), 4);
    let lanes = b.local("lanes", ty.clone(), false);
    let i = b.local("i", bits(64), false);
    let arr = b.e(Expr::ArrayLit(reads), ty.clone());
    b.s(Stmt::Let(lanes, arr));
    let base = b.e(Expr::Local(lanes), ty);
    let iv = b.e(Expr::Local(i), bits(64));
    let index = b.e(Expr::Cast(iv), bits(2));
    let elem = b.e(Expr::Index { base, index }, bits(512));
    let iv2 = b.e(Expr::Local(i), bits(64));
    let which = b.e(Expr::Cast(iv2), bits(2));
    let body = block(vec![Stmt::Push(out, Some(which), elem)]);
    b.s(Stmt::For {
        var: i,
        first: 0,
        last: 3,
        body,
    });
    let qp = b.e(Expr::FlowId, bits(24));
    let low = b.e(
        Expr::Slice {
            base: qp,
            hi: 0,
            lo: 0,
        },
        bits(1),
    );
    let odd = b.e(Expr::Cast(low), Type::Bool);
    let w = b.e(Expr::Local(word), bits(512));
    b.s(Stmt::If(odd, block(vec![Stmt::Pass(w)]), Block::default()));
    s.stream = Some(b.body);
    m.scus.push(s);
    let mut cc = cc();
    let tick = cc.timers.push(Timer {
        name: "tick".into(),
        period: (Dimension::Duration, 1000),
    });
    cc.state.push(CcState {
        name: "marks".into(),
        ty: Type::Array(Box::new(bits(16)), 3),
        init: c(0),
    });
    m.ccs.push(cc);
    let cc_id = CcId::from_u32(0);
    let mut f = B::default();
    f.s(Stmt::Restart(tick));
    let f = add_fn(&mut m, "reset", Owner::Cc(cc_id), Type::Unit, f.body);
    let mut h = B::default();
    let call = h.e(Expr::Call(f, vec![]), Type::Unit);
    h.s(Stmt::Eval(call));
    m.ccs[cc_id].handlers.push(Handler {
        event: Event::Timer(tick),
        body: h.body,
        span: Span::default(),
    });
    let info = ok(&m);
    assert_eq!(info[cc_id].state_bits, 64 + 48);
    assert_eq!(info[cc_id].state_memory_bits, 1024 * 112);
    assert_eq!(info[cc_id].state_offsets[CcStateId::from_u32(1)], 64);
    assert_eq!(info[cc_id].handlers[0].calls_transitive, vec![f]);
    let stream = info[ScuId::from_u32(0)]
        .stream
        .as_ref()
        .expect("stream info");
    assert!(stream.uses(super::Construct::Push) && stream.uses(super::Construct::FlowId));
}
