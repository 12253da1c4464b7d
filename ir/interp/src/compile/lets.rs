//! Which locals a frame need not zero: those a top-level `let` writes before anything reads them.
//!
//! Entering a frame sets every local to its type's zero, as `docs/interpreter.md` specifies; for a
//! local whose first mention is a top-level `let`, that zero can never be observed, and writing it
//! (a struct local is a vector of values) costs as much as a statement. The analysis is
//! conservative: any mention before the `let`, anywhere, or a `let` in a nested block, keeps the
//! zeroing.

use cranelift_entity::EntityRef;
use scenic_ir::body::{Body, Expr, Stmt};
use scenic_ir::entities::LocalId;
use scenic_ir::proc::walk;

/// For each local of `body`, whether its first mention in execution order is a `let` among the
/// top-level statements of the body's block whose value does not mention it: such a local is
/// always written before it is read (statements run in order, and after a `return` or a stop
/// nothing of the body runs), so its slot needs no zero when a frame is entered. Every mention
/// counts, reads and writes, in nested blocks too; parameters are never counted as initialized.
pub(crate) fn let_initialized(body: &Body) -> Vec<bool> {
    let n = body.locals.len();
    let (mut mentioned, mut initialized) = (vec![false; n], vec![false; n]);
    for stmt in &body.block.stmts {
        if let Stmt::Let(l, value) = stmt {
            let i = l.index();
            let own = walk::tree_any(body, *value, &|e| matches!(e, Expr::Local(x) if x == l));
            if i < n && !mentioned[i] && !own {
                initialized[i] = true;
            }
        }
        mention(body, stmt, &mut mentioned);
    }
    for p in &body.params {
        if let Some(i) = initialized.get_mut(p.index()) {
            *i = false;
        }
    }
    initialized
}

/// Marks every local `stmt` mentions (its expressions, its place, its nested blocks).
fn mention(body: &Body, stmt: &Stmt, mentioned: &mut [bool]) {
    scenic_ir::stack::grow(|| {
        let mut mark = |l: LocalId| {
            if let Some(m) = mentioned.get_mut(l.index()) {
                *m = true;
            }
        };
        match stmt {
            Stmt::Let(l, _) | Stmt::For { var: l, .. } => mark(*l),
            Stmt::Assign(place, _) => {
                if let Some(l) = walk::place_local(place) {
                    mark(l);
                }
            }
            _ => {}
        }
        for root in walk::stmt_roots(stmt) {
            let mut stack = vec![root];
            while let Some(x) = stack.pop() {
                let Some(e) = body.exprs.get(x) else { continue };
                if let Expr::Local(l) = e {
                    mark(*l);
                }
                stack.extend(walk::operands(e).into_iter().filter(|o| *o < x));
            }
        }
        for block in walk::child_blocks(stmt) {
            for s in &block.stmts {
                mention(body, s, mentioned);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The control body of the only scu of `source`, lowered.
    fn control(source: &str) -> Body {
        let mut session = scenic_frontend::Session::new();
        session.add_source("t.sn", source);
        let module = match scenic_lower::lower_session(&mut session) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let scu = module.scus.values().next().cloned();
        match scu.and_then(|s| s.control) {
            Some(body) => body,
            None => panic!("no control"),
        }
    }

    fn named(body: &Body, initialized: &[bool], name: &str) -> bool {
        let found = body.locals.iter().find(|(_, l)| l.name == name);
        match found {
            Some((id, _)) => initialized[id.index()],
            None => panic!("no local {name}"),
        }
    }

    #[test]
    fn only_a_first_top_level_let_initializes() {
        let body = control(
            "scu s on slow_path {
                csr c: bit<8>;
                control {
                    let a = c + 1;
                    let mut b = a;
                    if a == 2 { b = 3; }
                    if b == 3 {
                        let inner = b + 1;
                        c = inner;
                    }
                    let d = b;
                    c = d;
                }
            }",
        );
        let init = let_initialized(&body);
        assert!(named(&body, &init, "a"));
        assert!(named(&body, &init, "b"));
        assert!(named(&body, &init, "d"));
        assert!(!named(&body, &init, "inner"), "a let in a nested block");
    }

    /// A hand-made body (passes can produce one): `c = x; let x = 1; let y = x; c = y;`.
    #[test]
    fn a_local_read_before_its_let_is_zeroed() {
        use scenic_ir::body::Place;
        use scenic_ir::types::{Const, Type};
        let mut body = Body::default();
        let (x, y) = (
            body.local("x", Type::Bits(8), true),
            body.local("y", Type::Bits(8), false),
        );
        let span = scenic_ir::span::Span::default();
        let read_x = body.add(Expr::Local(x), Type::Bits(8), span);
        let one = body.add(Expr::Const(Const(1u8.into())), Type::Bits(8), span);
        let read_x2 = body.add(Expr::Local(x), Type::Bits(8), span);
        let read_y = body.add(Expr::Local(y), Type::Bits(8), span);
        let csr = Place::Csr(scenic_ir::entities::CsrId::new(0));
        body.block.stmts = vec![
            Stmt::Assign(csr.clone(), read_x),
            Stmt::Let(x, one),
            Stmt::Let(y, read_x2),
            Stmt::Assign(csr, read_y),
        ];
        let init = let_initialized(&body);
        assert_eq!(init, vec![false, true]);
    }

    #[test]
    fn a_loop_variable_is_zeroed() {
        let body = control(
            "scu s on slow_path {
                csr c: bit<8>;
                control {
                    for i in 0..=1 { c = c + 1; }
                    let x = c;
                    c = x;
                }
            }",
        );
        let init = let_initialized(&body);
        assert!(named(&body, &init, "x"));
        assert!(
            !named(&body, &init, "i"),
            "a loop variable is written by the loop"
        );
    }
}
