//! scenic-smith's "lowering never drops a statement" check (`smith/stmt_check.rs`): it finds
//! nothing missing in a faithful lowering, and it names the statement when one is taken out of
//! the lowered IR, or replaced by a statement of another kind with the same span.

use scenic_ir::body::Stmt;
use scenic_ir::entities::ScuId;
use scenic_testsuite::smith::{self, stmt_check::dropped_statements};

const PROGRAM: &str = "\
fn twice(x: bit<8>) -> bit<8> {
    let y = x + x;
    return y;
}
fn unused(x: bit<8>) -> bit<8> {
    return x;
}
scu s on rdma(qp) {
    csr n: bit<8>;
    out log: dma;
    stream(w: bit<512>) {
        n += 1;
        if beat.last {
            log.push(w);
        } else {
            n = twice(n);
        }
        for i in 0..2 {
            n ^= w[i * 8 + 7:i * 8];
        }
        let _ = n;
        pass(w);
    }
}
";

fn lowered() -> scenic_ir::program::Module {
    smith::lower(PROGRAM).unwrap_or_else(|e| panic!("does not lower: {e:?}"))
}

#[test]
fn a_faithful_lowering_drops_nothing() {
    // `unused` is never called, so never lowered: its statements are not expected.
    assert_eq!(
        dropped_statements(PROGRAM, &lowered()),
        Vec::<String>::new()
    );
}

#[test]
fn a_statement_taken_out_of_the_ir_is_named() {
    let mut module = lowered();
    let kernel = module.scus[ScuId::from_u32(0)]
        .stream
        .as_mut()
        .expect("a stream kernel");
    // The last statement of the kernel is `pass(w);` (line 22).
    let last = kernel.block.stmts.len() - 1;
    assert!(matches!(kernel.block.stmts[last], Stmt::Pass(_)));
    kernel.block.stmts.remove(last);
    kernel.block.spans.remove(last);
    let dropped = dropped_statements(PROGRAM, &module);
    assert_eq!(dropped, vec!["line 22: Effect `pass(w);`".to_string()]);
}

#[test]
fn a_statement_replaced_by_another_kind_is_named() {
    let mut module = lowered();
    let kernel = module.scus[ScuId::from_u32(0)]
        .stream
        .as_mut()
        .expect("a stream kernel");
    // `n += 1;` (line 12) becomes an evaluation of its value: same span, wrong kind.
    let Stmt::Assign(_, value) = kernel.block.stmts[0] else {
        panic!("the first statement is not the assignment")
    };
    kernel.block.stmts[0] = Stmt::Eval(value);
    let dropped = dropped_statements(PROGRAM, &module);
    assert_eq!(dropped, vec!["line 12: Assign `n += 1;`".to_string()]);
}
