//! Passes never panic or hang, whatever the module: every pass runs on modules broken at random
//! (operands, statement roots, locals, callees, parser targets, types and key expressions pointing
//! anywhere, including past the end of their arenas and at younger expressions).

use super::common::{self, Rng};
use super::{examples, goldens};
use cranelift_entity::EntityRef;
use scenic_ir::program::{Module, Target, Transition};
use scenic_ir::{Body, Expr, ExprId, FuncId, LocalId, StateId, Stmt, Type};
use scenic_opt::PassManager;

/// Broken variants per program.
const VARIANTS: u64 = 24;

/// An id somewhere around an arena of `len` entries (sometimes past its end).
fn near(rng: &mut Rng, len: usize) -> u32 {
    rng.below(len as u64 + 3) as u32
}

/// Breaks one thing in a body.
fn break_body(rng: &mut Rng, body: &mut Body, functions: usize) {
    let n_exprs = body.exprs.len();
    let n_locals = body.locals.len();
    let ids: Vec<ExprId> = body.exprs.keys().collect();
    if ids.is_empty() {
        return;
    }
    let id = rng.pick(&ids);
    let e = &mut body.exprs[id];
    match rng.below(6) {
        0 => match e {
            Expr::Binary(_, a, b) | Expr::MapInsert(_, a, b) => {
                *a = ExprId::new(near(rng, n_exprs) as usize);
                *b = ExprId::new(near(rng, n_exprs) as usize);
            }
            Expr::Unary(_, a) | Expr::Cast(a) | Expr::Field { base: a, .. } => {
                *a = ExprId::new(near(rng, n_exprs) as usize);
            }
            Expr::Call(_, items) | Expr::Intrinsic(_, items) | Expr::StructLit(items) => {
                items
                    .iter_mut()
                    .for_each(|i| *i = ExprId::new(near(rng, n_exprs) as usize));
            }
            _ => *e = Expr::Unary(scenic_ir::body::UnaryOp::Not, id),
        },
        1 => *e = Expr::Local(LocalId::new(near(rng, n_locals) as usize)),
        2 => {
            let args = vec![ExprId::new(near(rng, n_exprs) as usize)];
            *e = Expr::Call(FuncId::new(near(rng, functions) as usize), args);
        }
        3 => body.types[id] = rng.pick(&[Type::Unit, Type::Bool, Type::Bits(3), Type::Int(70)]),
        4 => {
            if let Some(Stmt::Let(_, root) | Stmt::Eval(root) | Stmt::If(root, _, _)) =
                body.block.stmts.first_mut()
            {
                *root = ExprId::new(near(rng, n_exprs) as usize);
            }
        }
        _ => {
            let l = LocalId::new(near(rng, n_locals) as usize);
            let value = ExprId::new(near(rng, n_exprs) as usize);
            body.block.stmts.insert(0, Stmt::Let(l, value));
            body.block.spans.insert(0, Default::default());
        }
    }
}

/// Breaks a few things in a module.
fn break_module(rng: &mut Rng, module: &mut Module) {
    let functions = module.functions.len();
    for _ in 0..1 + rng.below(4) {
        match rng.below(4) {
            0 => {
                if let Some(f) = module.functions.values_mut().next() {
                    break_body(rng, &mut f.body, functions);
                }
            }
            1 => {
                for scu in module.scus.values_mut() {
                    if let Some(p) = &mut scu.parser {
                        let states = p.states.len();
                        if let Some(s) = p.states.values_mut().next() {
                            s.transition = Transition::Direct(Target::State(StateId::new(near(
                                rng, states,
                            )
                                as usize)));
                        }
                        break_body(rng, &mut p.body, functions);
                    }
                }
            }
            2 => {
                for scu in module.scus.values_mut() {
                    for t in scu.tables.values_mut() {
                        if let Some(k) = t.keys.first_mut() {
                            k.expr = ExprId::new(near(rng, t.key_body.exprs.len()) as usize);
                        }
                    }
                    if let Some(c) = &mut scu.control {
                        break_body(rng, c, functions);
                    }
                    if let Some(s) = &mut scu.stream {
                        break_body(rng, s, functions);
                    }
                }
            }
            _ => {
                for cc in module.ccs.values_mut() {
                    if let Some(h) = cc.handlers.first_mut() {
                        break_body(rng, &mut h.body, functions);
                    }
                }
            }
        }
    }
}

#[test]
fn passes_survive_broken_modules() {
    let pm = PassManager::with_default_passes();
    let mut rng = Rng::new(0xb0b0);
    for path in examples().into_iter().chain(goldens()) {
        let original = common::lower(&path).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..VARIANTS {
            let mut module = original.clone();
            break_module(&mut rng, &mut module);
            for p in pm.passes() {
                let mut m = module.clone();
                let _ = pm.run_pass(p.name, &mut m);
                let _ = scenic_ir::print::print_module(&m);
            }
            let _ = pm.run_named(&mut module, &["all", "all"]);
        }
    }
}
