//! Printer tests: small modules built by hand, exact text.

use super::print_module;
use crate::body::*;
use crate::entities::*;
use crate::program::*;
use crate::span::Span;
use crate::types::{Const, Dimension, Type};
use cranelift_entity::PrimaryMap;

fn bits(n: u32) -> Type {
    Type::Bits(n)
}

fn c(v: u64) -> Const {
    Const::from_u64(v)
}

fn ethernet() -> HeaderLayout {
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

fn module() -> Module {
    Module {
        source_name: "t.sn".into(),
        ..Module::default()
    }
}

fn empty_scu(name: &str) -> Scu {
    Scu {
        name: name.into(),
        attach: Attach::SlowPath,
        csrs: PrimaryMap::new(),
        instances: PrimaryMap::new(),
        meta: None,
        errors: PrimaryMap::new(),
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

#[test]
fn layouts() {
    let mut m = module();
    m.headers.push(ethernet());
    m.structs.push(StructLayout {
        name: "rec".into(),
        fields: vec![
            Field {
                name: "packets".into(),
                ty: bits(32),
                offset: 0,
            },
            Field {
                name: "closed".into(),
                ty: Type::Bool,
                offset: 0,
            },
        ],
    });
    m.enums.push(EnumDef {
        name: "traffic".into(),
        variants: vec![("tcp".into(), c(0)), ("other".into(), c(3))],
        width: 2,
    });
    let expected = r#"module "t.sn"

header0 "ethernet" (112 bits) {
    dst: bit<48> @ 0
    src: bit<48> @ 48
    ether_type: bit<16> @ 96
}

struct0 "rec" {
    packets: bit<32>
    closed: bool
}

enum0 "traffic" (2 bits) {
    tcp = 0
    other = 3
}
"#;
    assert_eq!(print_module(&m), expected);
}

/// `fn popcount(x: bit<32>) -> bit<6> { let mut n: bit<6> = 0; for i in 0..=31 { n = n + x[i+:1]
/// as bit<6>; } return n; }`, plus a signed constant and a bool.
#[test]
fn function_body() {
    let mut m = module();
    let mut b = Body::default();
    let x = b.local("x", bits(32), false);
    b.params.push(x);
    let n = b.local("n", bits(6), true);
    let i = b.local("i", bits(5), false);
    let sp = Span::default();
    let zero = b.add(Expr::Const(Const::zero()), bits(6), sp);
    b.block.push(Stmt::Let(n, zero), sp);
    let mut body = Block::default();
    let read_n = b.add(Expr::Local(n), bits(6), sp);
    let read_x = b.add(Expr::Local(x), bits(32), sp);
    let read_i = b.add(Expr::Local(i), bits(5), sp);
    let bit = b.add(
        Expr::SliceDyn {
            base: read_x,
            lo: read_i,
            width: 1,
        },
        bits(1),
        sp,
    );
    let wide = b.add(Expr::Cast(bit), bits(6), sp);
    let sum = b.add(Expr::Binary(BinaryOp::Add, read_n, wide), bits(6), sp);
    body.push(Stmt::Assign(Place::Local(n), sum), sp);
    b.block.push(
        Stmt::For {
            var: i,
            first: 0,
            last: 31,
            body,
        },
        sp,
    );
    let minus = b.add(Expr::Const(c(0xfe)), Type::Int(8), sp);
    let neg = b.add(Expr::Unary(UnaryOp::Neg, minus), Type::Int(8), sp);
    let t = b.add(Expr::Const(c(1)), Type::Bool, sp);
    let mut then = Block::default();
    then.push(Stmt::Eval(neg), sp);
    b.block.push(Stmt::If(t, then, Block::default()), sp);
    let ret = b.add(Expr::Local(n), bits(6), sp);
    b.block.push(Stmt::Return(Some(ret)), sp);
    m.functions.push(Function {
        name: "popcount".into(),
        owner: Owner::Module,
        ret: bits(6),
        body: b,
        span: sp,
    });
    let expected = r#"module "t.sn"

fn0 "popcount" (v0 "x": bit<32>) -> bit<6> {
    local mut v1 "n": bit<6>
    local v2 "i": bit<5>
    let v1 = 0:bit<6>
    for v2 in 0..=31 {
        v1 = add(v1, cast<bit<6>>(v0[v2 +: 1]))
    }
    if true {
        eval neg(-2:int<8>)
    }
    return v1
}
"#;
    assert_eq!(print_module(&m), expected);
}

/// A firewall-like scu: CSRs, an instance, a parser with a select, a table with entries, and a
/// control that matches on the table's result.
fn firewall() -> Module {
    let mut m = module();
    let eth = m.headers.push(ethernet());
    let mut s = empty_scu("fw");
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
    let inst = s.instances.push(Instance {
        name: "eth".into(),
        header: eth,
        stack: None,
    });
    for e in ["packet_too_short", "no_match", "stack_overflow", "bad_type"] {
        s.errors.push(e.into());
    }
    fw_parser(&mut s, inst);
    let table = fw_table(&mut s, inst);
    s.counters.push(Counter {
        name: "hits".into(),
        kind: CounterKind::Packets,
        size: 1,
    });
    s.control = Some(fw_control(table));
    m.scus.push(s);
    m
}

/// `parser { state start { extract(eth); select eth.ether_type { 0x800 => accept, _ =>
/// reject(bad_type) } } }`.
fn fw_parser(s: &mut Scu, inst: InstId) {
    let sp = Span::default();
    let mut pb = Body::default();
    let on = pb.add(
        Expr::HeaderField {
            inst,
            index: None,
            field: 2,
        },
        bits(16),
        sp,
    );
    let mut block = Block::default();
    block.push(Stmt::Extract(inst), sp);
    let mut states = PrimaryMap::new();
    let start = states.push(ParserState {
        name: "start".into(),
        block,
        transition: Transition::Select {
            on,
            cases: vec![
                SelectCase {
                    patterns: vec![Pattern::Value(c(0x800))],
                    target: Target::Accept,
                },
                SelectCase {
                    patterns: vec![Pattern::Any],
                    target: Target::Reject(ErrorId::from_u32(3)),
                },
            ],
        },
        span: sp,
    });
    s.parser = Some(Parser {
        body: pb,
        states,
        start,
    });
}

/// Actions `allow` and `deny(code: bit<4>)`, and `table acl { key { eth.src: ternary } actions {
/// allow, deny } default deny(1); size 16; entries { ... } }`.
fn fw_table(s: &mut Scu, inst: InstId) -> TableId {
    let sp = Span::default();
    let allow = s.actions.push(Action {
        name: "allow".into(),
        body: Body::default(),
    });
    let mut deny_body = Body::default();
    let code = deny_body.local("code", bits(4), false);
    deny_body.params.push(code);
    deny_body.block.push(Stmt::Drop, sp);
    let deny = s.actions.push(Action {
        name: "deny".into(),
        body: deny_body,
    });
    // table acl { key { eth.src: ternary } actions { allow, deny } default deny(1); size 16; }
    let mut kb = Body::default();
    let key = kb.add(
        Expr::HeaderField {
            inst,
            index: None,
            field: 1,
        },
        bits(48),
        sp,
    );
    s.tables.push(Table {
        name: "acl".into(),
        key_body: kb,
        keys: vec![TableKey {
            expr: key,
            kind: MatchKind::Ternary,
            ty: bits(48),
            name: "eth.src".into(),
        }],
        actions: vec![allow, deny],
        default: (deny, vec![c(1)]),
        size: 16,
        const_entries: vec![
            Entry {
                keys: vec![KeyMatch::Ternary(c(0x0200_0000_0000), c(0xff00_0000_0000))],
                action: 0,
                args: vec![],
                priority: 0,
            },
            Entry {
                keys: vec![KeyMatch::Any],
                action: 1,
                args: vec![c(7)],
                priority: 1,
            },
        ],
        is_const: false,
        span: sp,
    })
}

/// `control { match acl.apply() { deny(code) => dropped = code as bit<64>, _ => hits.count() } }`.
fn fw_control(table: TableId) -> Body {
    let sp = Span::default();
    let mut cb = Body::default();
    let apply = cb.add(Expr::Apply(table), Type::TableResult(table), sp);
    let data = cb.add(
        Expr::ActionData {
            apply,
            action: 1,
            param: 0,
        },
        bits(4),
        sp,
    );
    let wide = cb.add(Expr::Cast(data), bits(64), sp);
    let mut arm = Block::default();
    arm.push(Stmt::Assign(Place::Csr(CsrId::from_u32(0)), wide), sp);
    let mut default = Block::default();
    default.push(Stmt::Count(CounterId::from_u32(0), None), sp);
    cb.block.push(
        Stmt::Switch {
            on: apply,
            cases: vec![Case {
                patterns: vec![Pattern::Value(c(1))],
                body: arm,
            }],
            default,
        },
        sp,
    );
    cb
}

#[test]
fn scu() {
    let expected = r#"module "t.sn"

header0 "ethernet" (112 bits) {
    dst: bit<48> @ 0
    src: bit<48> @ 48
    ether_type: bit<16> @ 96
}

scu0 "fw" on slow_path {
    csr0 "dropped": bit<64> = 0 @ 0 /* 0x20000 */ readonly
    csr1 "limit": bit<32> = 0x3e8 @ 1 /* 0x20008 */ param
    inst0 "eth": header0
    error0 "packet_too_short"
    error1 "no_match"
    error2 "stack_overflow"
    error3 "bad_type"
    parser start state0 {
        state0 "start" {
            extract(inst0)
            select inst0.ether_type {
                0x800 => accept
                _ => reject(error3)
            }
        }
    }
    table0 "acl" size 16 {
        key {
            ternary inst0.src: bit<48> "eth.src"
        }
        actions action0 action1
        default action1(1:bit<4>)
        entries {
            0x20000000000 &&& 0xff0000000000 => 0 action0() priority 0
            _ => 1 action1(7:bit<4>) priority 1
        }
    }
    action0 "allow"() {
    }
    action1 "deny"(v0 "code": bit<4>) {
        drop
    }
    counter0 "hits": packets[1]
    control() {
        switch apply(table0) /* e0 */ {
            case 1 /* deny */ {
                csr0 = cast<bit<64>>(action_data(e0, 1, 0))
            }
            default {
                count(counter0)
            }
        }
    }
}
"#;
    assert_eq!(print_module(&firewall()), expected);
}

#[test]
fn cc() {
    let mut m = module();
    let sp = Span::default();
    let mut state = PrimaryMap::new();
    let cwnd = state.push(CcState {
        name: "cwnd".into(),
        ty: Type::Quantity(Dimension::Size),
        init: c(40960),
    });
    let mut params = PrimaryMap::new();
    params.push(CcParam {
        name: "gain".into(),
        ty: Type::Int(8),
        default: c(0xff),
    });
    let mut timers = PrimaryMap::new();
    let tick = timers.push(Timer {
        name: "tick".into(),
        period: (Dimension::Duration, 1000),
    });
    let mut hb = Body::default();
    let read = hb.add(Expr::CcState(cwnd), Type::Quantity(Dimension::Size), sp);
    let two = hb.add(Expr::Const(c(2)), bits(8), sp);
    let half = hb.add(
        Expr::Binary(BinaryOp::DivScaled(0), read, two),
        Type::Quantity(Dimension::Size),
        sp,
    );
    hb.block.push(Stmt::Assign(Place::CcState(cwnd), half), sp);
    hb.block.push(Stmt::Restart(tick), sp);
    m.ccs.push(Cc {
        name: "aimd".into(),
        flows: 4096,
        budget: Some(65),
        params,
        state,
        output: (OutputKind::Window, cwnd),
        timers,
        handlers: vec![Handler {
            event: Event::Timer(tick),
            body: hb,
            span: sp,
        }],
        span: sp,
    });
    let expected = r#"module "t.sn"

cc0 "aimd" per flow[4096] budget 65 {
    ccparam0 "gain": int<8> = -1
    ccstate0 "cwnd": size = 0xa000
    output window ccstate0
    timer0 "tick": every 1000ns
    on timer timer0() {
        ccstate0 = div_scaled<0>(ccstate0, 2:bit<8>)
        restart(timer0)
    }
}
"#;
    assert_eq!(print_module(&m), expected);
}

/// Operands that break the ordering rule, and ids that do not exist, print as `!eN`.
#[test]
fn invalid_ids_do_not_panic() {
    let mut m = module();
    let mut b = Body::default();
    let sp = Span::default();
    let a = b.add(
        Expr::Binary(BinaryOp::Add, ExprId::from_u32(0), ExprId::from_u32(5)),
        bits(8),
        sp,
    );
    b.block.push(Stmt::Eval(a), sp);
    b.block
        .push(Stmt::Assign(Place::Meta(3), ExprId::from_u32(9)), sp);
    b.block.push(Stmt::Let(LocalId::from_u32(4), a), sp);
    m.functions.push(Function {
        name: "f".into(),
        owner: Owner::Scu(ScuId::from_u32(3)),
        ret: Type::Unit,
        body: b,
        span: sp,
    });
    let expected = r#"module "t.sn"

fn0 "f" [scu3] () {
    eval add(!e0, !e5)
    meta.#3 = !e9
    let v4 = add(!e0, !e5)
}
"#;
    assert_eq!(print_module(&m), expected);
}

/// Enum constants, in expressions and patterns, name their variant.
#[test]
fn enum_constants() {
    let mut m = module();
    let e = m.enums.push(EnumDef {
        name: "color".into(),
        variants: vec![("green".into(), c(0)), ("red".into(), c(2))],
        width: 2,
    });
    let mut b = Body::default();
    let sp = Span::default();
    let red = b.add(Expr::Const(c(2)), Type::Enum(e), sp);
    let case = Case {
        patterns: vec![Pattern::Value(c(0)), Pattern::Value(c(1))],
        body: Block::default(),
    };
    b.block.push(
        Stmt::Switch {
            on: red,
            cases: vec![case],
            default: Block::default(),
        },
        sp,
    );
    m.functions.push(Function {
        name: "f".into(),
        owner: Owner::Module,
        ret: Type::Unit,
        body: b,
        span: sp,
    });
    let text = print_module(&m);
    let body = text.split("fn0").nth(1).unwrap_or_default();
    let expected = r#" "f" () {
    switch 2:enum0 /* red */ {
        case 0 /* green */ | 1 {
        }
        default {
        }
    }
}
"#;
    assert_eq!(body, expected);
}
