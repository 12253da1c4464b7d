//! Statement errors: scopes, assignments, conditions, patterns, loops, indices, placement, calls.

use super::*;
use crate::valid::{AnyId, Construct};

#[test]
fn local_read_before_let() {
    let m = with_fn(bits(8), |b| {
        let x = b.local("x", bits(8), false);
        let read = b.e(Expr::Local(x), bits(8));
        let one = b.c(1, bits(8));
        b.s(Stmt::Return(Some(read)));
        b.s(Stmt::Let(x, one));
    });
    assert_err!(m, ValidationError::LocalNotInScope { .. });
}

#[test]
fn local_read_after_its_block() {
    let m = with_fn(bits(8), |b| {
        let x = b.local("x", bits(8), false);
        let one = b.c(1, bits(8));
        let read = b.e(Expr::Local(x), bits(8));
        b.s(Stmt::Block(block(vec![Stmt::Let(x, one)])));
        b.s(Stmt::Return(Some(read)));
    });
    assert_err!(m, ValidationError::LocalNotInScope { .. });
}

#[test]
fn assign_immutable_local() {
    let m = with_fn(Type::Unit, |b| {
        let x = b.param("x", bits(8));
        let one = b.c(1, bits(8));
        b.s(Stmt::Assign(Place::Local(x), one));
    });
    assert_err!(
        m,
        ValidationError::NotAssignable {
            target: AnyId::Local(_),
            ..
        }
    );
}

#[test]
fn assign_param_csr() {
    let m = with_control(|b, s| {
        let csr = s.csrs.push(Csr {
            name: "p".into(),
            ty: bits(8),
            init: c(0),
            host_readonly: false,
            is_param: true,
        });
        let one = b.c(1, bits(8));
        b.s(Stmt::Assign(Place::Csr(csr), one));
    });
    assert_err!(
        m,
        ValidationError::NotAssignable {
            target: AnyId::Csr(_),
            ..
        }
    );
}

#[test]
fn assign_wrong_type() {
    let m = with_control(|b, _| {
        let one = b.c(1, bits(16));
        b.s(Stmt::Assign(Place::Meta(0), one));
    });
    assert_err!(
        m,
        ValidationError::TypeMismatch {
            expected: Type::Bits(8),
            found: Type::Bits(16),
            ..
        }
    );
}

#[test]
fn condition_not_bool() {
    let m = with_fn(Type::Unit, |b| {
        let one = b.c(1, bits(1));
        b.s(Stmt::If(one, Block::default(), Block::default()));
    });
    assert_err!(m, ValidationError::ConditionNotBool { .. });
}

#[test]
fn pattern_width() {
    let m = with_fn(Type::Unit, |b| {
        let x = b.c(1, bits(8));
        let case = Case {
            patterns: vec![Pattern::Value(c(256))],
            body: Block::default(),
        };
        b.s(Stmt::Switch {
            on: x,
            cases: vec![case],
            default: Block::default(),
        });
    });
    assert_err!(m, ValidationError::PatternWidth { width: 8, .. });
}

#[test]
fn pattern_shape() {
    let m = with_fn(Type::Unit, |b| {
        let x = b.c(1, bits(8));
        let case = Case {
            patterns: vec![Pattern::Tuple(vec![Pattern::Any, Pattern::Any])],
            body: Block::default(),
        };
        b.s(Stmt::Switch {
            on: x,
            cases: vec![case],
            default: Block::default(),
        });
    });
    assert_err!(m, ValidationError::PatternShape { .. });
}

#[test]
fn action_data_unbound() {
    let m = with_control(|b, _| {
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
        // The case is for action 0 (`allow`), not 1.
        let arm = block(vec![Stmt::Eval(data)]);
        b.s(Stmt::Switch {
            on: apply,
            cases: vec![Case {
                patterns: vec![Pattern::Value(c(0))],
                body: arm,
            }],
            default: Block::default(),
        });
    });
    assert_err!(m, ValidationError::ActionDataUnbound { .. });
}

#[test]
fn return_type() {
    let m = with_fn(bits(16), |b| {
        let one = b.c(1, bits(8));
        b.s(Stmt::Return(Some(one)));
    });
    assert_err!(
        m,
        ValidationError::ReturnType {
            expected: Type::Bits(16),
            found: Type::Bits(8),
            ..
        }
    );
}

#[test]
fn loop_bounds() {
    let m = with_fn(Type::Unit, |b| {
        let i = b.local("i", bits(2), false);
        b.s(Stmt::For {
            var: i,
            first: 0,
            last: 4,
            body: Block::default(),
        });
    });
    assert_err!(
        m,
        ValidationError::LoopBounds {
            first: 0,
            last: 4,
            ..
        }
    );
}

#[test]
fn notify_value() {
    let m = with_fn(Type::Unit, |b| {
        let v = b.c(1, bits(64));
        b.s(Stmt::Notify(NotifyTarget::Host, v));
    });
    assert_err!(m, ValidationError::NotifyValue { .. });
}

/// `f(a: [bit<8>; 4])` reading `a[<index>]` inside `for i in 0..=last`, the index built by `index`.
fn indexed(last: i64, index: impl FnOnce(&mut B, LocalId) -> ExprId) -> Module {
    with_fn(Type::Unit, |b| {
        let arr = Type::Array(Box::new(bits(8)), 4);
        let a = b.param("a", arr.clone());
        let i = b.local("i", bits(64), false);
        let base = b.e(Expr::Local(a), arr);
        let index = index(b, i);
        let elem = b.e(Expr::Index { base, index }, bits(8));
        b.s(Stmt::For {
            var: i,
            first: 0,
            last,
            body: block(vec![Stmt::Eval(elem)]),
        });
    })
}

#[test]
fn index_bounds() {
    let by_loop = |b: &mut B, i: LocalId| {
        let v = b.e(Expr::Local(i), bits(64));
        b.e(Expr::Cast(v), bits(8))
    };
    ok(&indexed(3, by_loop));
    assert_err!(
        indexed(4, by_loop),
        ValidationError::IndexBounds { len: 4, .. }
    );
    ok(&indexed(0, |b, _| b.c(3, bits(8))));
    assert_err!(
        indexed(0, |b, _| b.c(4, bits(8))),
        ValidationError::IndexBounds { .. }
    );
    ok(&indexed(0, |b, _| b.c(1, bits(2))));
    assert_err!(
        indexed(0, |b, _| b
            .e(Expr::Packet(crate::body::PacketField::Port), bits(8))),
        ValidationError::IndexBounds { .. }
    );
}

#[test]
fn index_form() {
    let m = with_control(|b, s| {
        let eth = s.instances[InstId::from_u32(0)].header;
        let stack = s.instances.push(Instance {
            name: "tags".into(),
            header: eth,
            stack: Some(2),
        });
        let valid = b.e(
            Expr::HeaderValid {
                inst: stack,
                index: None,
            },
            Type::Bool,
        );
        b.s(Stmt::Eval(valid));
    });
    assert_err!(
        m,
        ValidationError::IndexForm {
            target: AnyId::Inst(_),
            ..
        }
    );
}

#[test]
fn misplaced_extract() {
    let m = with_control(|b, _| b.s(Stmt::Extract(InstId::from_u32(0))));
    assert_err!(
        m,
        ValidationError::Misplaced {
            construct: Construct::Extract,
            ..
        }
    );
}

#[test]
fn misplaced_drop_in_stream() {
    let mut m = module();
    let mut s = scu("k", Attach::Tcp);
    let mut b = B::default();
    b.param("word", bits(512));
    b.s(Stmt::Drop);
    s.stream = Some(b.body);
    m.scus.push(s);
    assert_err!(
        m,
        ValidationError::Misplaced {
            construct: Construct::Drop,
            ..
        }
    );
}

#[test]
fn misplaced_in_callee() {
    // An scu function that drops is fine by itself, but not when the stream kernel calls it.
    let mut m = module();
    let mut s = scu("k", Attach::Tcp);
    let mut b = B::default();
    b.param("word", bits(512));
    let call = b.e(Expr::Call(FuncId::from_u32(0), vec![]), Type::Unit);
    b.s(Stmt::Eval(call));
    s.stream = Some(b.body);
    m.scus.push(s);
    let mut f = B::default();
    f.s(Stmt::Drop);
    add_fn(
        &mut m,
        "drop_it",
        Owner::Scu(ScuId::from_u32(0)),
        Type::Unit,
        f.body,
    );
    assert_err!(
        m,
        ValidationError::MisplacedInCallee {
            construct: Construct::Drop,
            ..
        }
    );
}

#[test]
fn recursion() {
    let mut m = module();
    for (name, callee) in [("a", 1), ("b", 0)] {
        let mut f = B::default();
        let call = f.e(Expr::Call(FuncId::from_u32(callee), vec![]), Type::Unit);
        f.s(Stmt::Eval(call));
        add_fn(&mut m, name, Owner::Module, Type::Unit, f.body);
    }
    assert_err!(m, ValidationError::Recursion { .. });
}

#[test]
fn self_recursion() {
    let mut m = module();
    let mut f = B::default();
    let call = f.e(Expr::Call(FuncId::from_u32(0), vec![]), Type::Unit);
    f.s(Stmt::Eval(call));
    add_fn(&mut m, "a", Owner::Module, Type::Unit, f.body);
    assert_err!(m, ValidationError::Recursion { .. });
}
