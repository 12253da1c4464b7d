//! Expression errors: ids, ordering, uses and types.

use super::*;
use crate::valid::{AnyId, Construct};

#[test]
fn invalid_id_csr_outside_scu() {
    let m = with_fn(bits(8), |b| {
        let csr = b.e(Expr::Csr(CsrId::from_u32(0)), bits(8));
        b.s(Stmt::Return(Some(csr)));
    });
    assert_err!(
        m,
        ValidationError::InvalidId {
            id: AnyId::Csr(_),
            ..
        }
    );
}

#[test]
fn invalid_id_local() {
    let m = with_fn(bits(8), |b| {
        let l = b.e(Expr::Local(LocalId::from_u32(3)), bits(8));
        b.s(Stmt::Return(Some(l)));
    });
    assert_err!(
        m,
        ValidationError::InvalidId {
            id: AnyId::Local(_),
            ..
        }
    );
}

#[test]
fn operand_order() {
    let m = with_fn(bits(8), |b| {
        let sum = b.e(
            Expr::Binary(BinaryOp::Add, ExprId::from_u32(1), ExprId::from_u32(2)),
            bits(8),
        );
        b.c(1, bits(8));
        b.c(2, bits(8));
        b.s(Stmt::Return(Some(sum)));
    });
    assert_err!(m, ValidationError::OperandOrder { .. });
}

#[test]
fn expr_unused() {
    let m = with_fn(bits(8), |b| {
        b.c(7, bits(8));
        let one = b.c(1, bits(8));
        b.s(Stmt::Return(Some(one)));
    });
    assert_err!(m, ValidationError::ExprUses { uses: 0, .. });
}

#[test]
fn expr_used_twice() {
    let m = with_fn(bits(8), |b| {
        let one = b.c(1, bits(8));
        let sum = b.e(Expr::Binary(BinaryOp::Add, one, one), bits(8));
        b.s(Stmt::Return(Some(sum)));
    });
    assert_err!(m, ValidationError::ExprUses { uses: 2, .. });
}

#[test]
fn expr_used_by_two_statements() {
    let m = with_fn(Type::Unit, |b| {
        let one = b.c(1, bits(8));
        b.s(Stmt::Eval(one));
        b.s(Stmt::Eval(one));
    });
    assert_err!(m, ValidationError::ExprUses { uses: 2, .. });
}

#[test]
fn operand_type() {
    let m = with_fn(bits(8), |b| {
        let one = b.c(1, bits(8));
        let not = b.e(Expr::Unary(UnaryOp::Not, one), bits(8));
        b.s(Stmt::Return(Some(not)));
    });
    assert_err!(m, ValidationError::OperandType { operand: 0, .. });
}

#[test]
fn operands_differ() {
    let m = with_fn(bits(8), |b| {
        let one = b.c(1, bits(8));
        let two = b.c(2, bits(16));
        let sum = b.e(Expr::Binary(BinaryOp::Add, one, two), bits(8));
        b.s(Stmt::Return(Some(sum)));
    });
    assert_err!(
        m,
        ValidationError::OperandsDiffer {
            op: BinaryOp::Add,
            ..
        }
    );
}

#[test]
fn shifts_concat_and_scaled_ops_are_valid() {
    let m = with_fn(Type::Quantity(Dimension::Rate), |b| {
        let x = b.c(1, bits(8));
        let n = b.c(3, bits(3));
        let shl = b.e(Expr::Binary(BinaryOp::Shl, x, n), bits(8));
        let y = b.c(1, Type::Int(4));
        let cat = b.e(Expr::Binary(BinaryOp::Concat, shl, y), bits(12));
        b.s(Stmt::Eval(cat));
        let rate = b.c(1000, Type::Quantity(Dimension::Rate));
        let half = b.c(1 << 14, Type::Fixed { int: 1, frac: 15 });
        let scaled = b.e(
            Expr::Binary(BinaryOp::MulScaled(15), rate, half),
            Type::Quantity(Dimension::Rate),
        );
        let two = b.c(2, bits(8));
        let div = b.e(
            Expr::Binary(BinaryOp::DivScaled(0), scaled, two),
            Type::Quantity(Dimension::Rate),
        );
        b.s(Stmt::Return(Some(div)));
    });
    ok(&m);
}

#[test]
fn scaled_op_with_wrong_fraction() {
    let m = with_fn(Type::Quantity(Dimension::Rate), |b| {
        let rate = b.c(1000, Type::Quantity(Dimension::Rate));
        let half = b.c(1 << 14, Type::Fixed { int: 1, frac: 15 });
        let scaled = b.e(
            Expr::Binary(BinaryOp::MulScaled(8), rate, half),
            Type::Quantity(Dimension::Rate),
        );
        b.s(Stmt::Return(Some(scaled)));
    });
    assert_err!(m, ValidationError::OperandType { operand: 1, .. });
}

#[test]
fn result_type_of_comparison() {
    let m = with_fn(bits(1), |b| {
        let one = b.c(1, bits(8));
        let two = b.c(2, bits(8));
        let eq = b.e(Expr::Binary(BinaryOp::Eq, one, two), bits(1));
        b.s(Stmt::Return(Some(eq)));
    });
    assert_err!(
        m,
        ValidationError::ResultType {
            expected: Type::Bool,
            ..
        }
    );
}

#[test]
fn bad_cast() {
    let m = with_fn(Type::Bool, |b| {
        let one = b.c(1, bits(8));
        let cast = b.e(Expr::Cast(one), Type::Bool);
        b.s(Stmt::Return(Some(cast)));
    });
    assert_err!(m, ValidationError::BadCast { .. });
}

/// `g(x: bit<8>) -> bit<8>` and a caller `f` that `build` writes.
fn with_callee(build: impl FnOnce(&mut B)) -> Module {
    let mut m = module();
    let mut g = B::default();
    let x = g.param("x", bits(8));
    let r = g.e(Expr::Local(x), bits(8));
    g.s(Stmt::Return(Some(r)));
    add_fn(&mut m, "g", Owner::Module, bits(8), g.body);
    let mut f = B::default();
    build(&mut f);
    add_fn(&mut m, "f", Owner::Module, Type::Unit, f.body);
    m
}

#[test]
fn call_arity() {
    let m = with_callee(|b| {
        let call = b.e(Expr::Call(FuncId::from_u32(0), vec![]), bits(8));
        b.s(Stmt::Eval(call));
    });
    assert_err!(
        m,
        ValidationError::Arity {
            expected: 1,
            found: 0,
            ..
        }
    );
}

#[test]
fn call_argument_type() {
    let m = with_callee(|b| {
        let arg = b.c(1, bits(16));
        let call = b.e(Expr::Call(FuncId::from_u32(0), vec![arg]), bits(8));
        b.s(Stmt::Eval(call));
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
fn foreign_call() {
    let mut m = module();
    m.scus.push(scu("a", Attach::SlowPath));
    add_fn(
        &mut m,
        "of_a",
        Owner::Scu(ScuId::from_u32(0)),
        Type::Unit,
        Body::default(),
    );
    let mut f = B::default();
    let call = f.e(Expr::Call(FuncId::from_u32(0), vec![]), Type::Unit);
    f.s(Stmt::Eval(call));
    add_fn(&mut m, "top", Owner::Module, Type::Unit, f.body);
    assert_err!(m, ValidationError::ForeignCall { .. });
}

#[test]
fn slice_bounds() {
    let m = with_fn(bits(9), |b| {
        let x = b.c(1, bits(8));
        let s = b.e(
            Expr::Slice {
                base: x,
                hi: 8,
                lo: 0,
            },
            bits(9),
        );
        b.s(Stmt::Return(Some(s)));
    });
    assert_err!(
        m,
        ValidationError::SliceBounds {
            hi: 8,
            lo: 0,
            width: 8,
            ..
        }
    );
}

#[test]
fn index_non_array() {
    let m = with_fn(bits(8), |b| {
        let x = b.c(1, bits(8));
        let i = b.c(0, bits(1));
        let e = b.e(Expr::Index { base: x, index: i }, bits(8));
        b.s(Stmt::Return(Some(e)));
    });
    assert_err!(m, ValidationError::IndexNonArray { .. });
}

#[test]
fn field_index() {
    let mut m = with_fn(bits(8), |b| {
        let s = b.e(Expr::StructLit(vec![]), Type::Struct(StructId::from_u32(0)));
        let f = b.e(Expr::Field { base: s, field: 3 }, bits(8));
        b.s(Stmt::Return(Some(f)));
    });
    m.structs.push(StructLayout {
        name: "empty".into(),
        fields: vec![],
    });
    assert_err!(m, ValidationError::FieldIndex { field: 3, .. });
}

#[test]
fn no_meta() {
    let m = with_control(|b, s| {
        s.meta = None;
        let meta = b.e(Expr::Meta(0), bits(8));
        b.s(Stmt::Eval(meta));
    });
    assert_err!(m, ValidationError::NoMeta { .. });
}

#[test]
fn bad_action_data() {
    let m = with_control(|b, _| {
        let t = TableId::from_u32(0);
        let apply = b.e(Expr::Apply(t), Type::TableResult(t));
        let data = b.e(
            Expr::ActionData {
                apply,
                action: 1,
                param: 1,
            },
            bits(4),
        );
        let arm = block(vec![Stmt::Eval(data)]);
        b.s(Stmt::Switch {
            on: apply,
            cases: vec![Case {
                patterns: vec![Pattern::Value(c(1))],
                body: arm,
            }],
            default: Block::default(),
        });
    });
    assert_err!(m, ValidationError::BadActionData { .. });
}

#[test]
fn misplaced_lookahead() {
    let m = with_control(|b, _| {
        let peek = b.e(Expr::Lookahead(8), bits(8));
        b.s(Stmt::Eval(peek));
    });
    assert_err!(
        m,
        ValidationError::Misplaced {
            construct: Construct::Lookahead,
            ..
        }
    );
}

#[test]
fn misplaced_flow_id_on_slow_path() {
    let m = with_control(|b, _| {
        let flow = b.e(Expr::FlowId, bits(24));
        b.s(Stmt::Eval(flow));
    });
    assert_err!(
        m,
        ValidationError::Misplaced {
            construct: Construct::FlowId,
            ..
        }
    );
}
