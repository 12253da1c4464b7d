//! The validator and the printer never panic: nasty expressions and types planted in a valid
//! module are reported (or printed), never followed blindly.

use super::*;
use crate::print::print_module;

const BIG: u32 = u32::MAX - 1;

fn nasty_exprs() -> Vec<Expr> {
    let big = ExprId::from_u32(BIG);
    vec![
        Expr::Local(LocalId::from_u32(BIG)),
        Expr::Csr(CsrId::from_u32(BIG)),
        Expr::Meta(BIG),
        Expr::Binary(BinaryOp::Add, big, ExprId::from_u32(0)),
        Expr::HeaderField {
            inst: InstId::from_u32(BIG),
            index: Some(big),
            field: BIG,
        },
        Expr::HeaderField {
            inst: InstId::from_u32(0),
            index: None,
            field: BIG,
        },
        Expr::Call(FuncId::from_u32(BIG), vec![big]),
        Expr::CallAction(ActionId::from_u32(BIG), vec![]),
        Expr::ActionData {
            apply: big,
            action: BIG,
            param: BIG,
        },
        Expr::Slice {
            base: ExprId::from_u32(0),
            hi: BIG,
            lo: 0,
        },
        Expr::SliceDyn {
            base: ExprId::from_u32(0),
            lo: ExprId::from_u32(0),
            width: BIG,
        },
        Expr::Lookahead(BIG),
        Expr::Apply(TableId::from_u32(BIG)),
        Expr::MapGet(MapId::from_u32(BIG), big),
        Expr::MeterExceeds(MeterId::from_u32(BIG), Some(big), big),
        Expr::Intrinsic(Intrinsic::Toeplitz, vec![]),
        Expr::StructLit(vec![big, big]),
        Expr::CcState(CcStateId::from_u32(BIG)),
    ]
}

fn nasty_types() -> Vec<Type> {
    vec![
        Type::Bits(BIG),
        Type::Int(0),
        Type::Fixed {
            int: BIG,
            frac: BIG,
        },
        Type::Array(Box::new(bits(8)), BIG),
        Type::Array(Box::new(Type::Struct(StructId::from_u32(BIG))), 2),
        Type::TableResult(TableId::from_u32(BIG)),
        Type::Enum(EnumId::from_u32(BIG)),
    ]
}

#[test]
fn nasty_expressions_and_types_are_reported() {
    let base = with_control(|b, _| {
        let x = b.c(1, bits(8));
        b.s(Stmt::Eval(x));
    });
    let s = ScuId::from_u32(0);
    for e in nasty_exprs() {
        for ty in nasty_types().into_iter().chain([bits(8)]) {
            let mut m = base.clone();
            let control = m.scus[s].control.as_mut().expect("control");
            let id = ExprId::from_u32(0);
            control.exprs[id] = e.clone();
            control.types[id] = ty.clone();
            let _ = print_module(&m);
            assert!(Validator::new().validate(&m).is_err(), "{e:?}: {ty:?}");
        }
    }
}

#[test]
fn nasty_places_and_statements_are_reported() {
    let big = ExprId::from_u32(BIG);
    let stmts = vec![
        Stmt::Assign(
            Place::Slice(Box::new(Place::Meta(0)), BIG, 0),
            ExprId::from_u32(0),
        ),
        Stmt::Assign(
            Place::Index(Box::new(Place::Local(LocalId::from_u32(BIG))), big),
            big,
        ),
        Stmt::For {
            var: LocalId::from_u32(BIG),
            first: i64::MIN,
            last: i64::MAX,
            body: Block::default(),
        },
        Stmt::Push(OutId::from_u32(BIG), Some(big), big),
        Stmt::Count(CounterId::from_u32(0), Some(big)),
        Stmt::SetValid(InstId::from_u32(0), Some(big), true),
        Stmt::Restart(TimerId::from_u32(BIG)),
        Stmt::ToScu(ScuId::from_u32(BIG)),
        Stmt::Switch {
            on: big,
            cases: vec![],
            default: Block::default(),
        },
    ];
    for stmt in stmts {
        let m = with_control(|b, _| {
            b.c(1, bits(8));
            b.s(stmt.clone());
        });
        let _ = print_module(&m);
        assert!(Validator::new().validate(&m).is_err(), "{stmt:?}");
    }
}
