//! Walking IR code: the operands of an expression, every statement of a block, every expression a
//! statement evaluates. The IR's own walkers are private to it; these are the few the backend needs.

use scenic_ir::body::Case;
use scenic_ir::{Block, Body, Expr, ExprId, Place, Span, Stmt};

/// The operands of an expression, left to right (not `ActionData`'s reference to its `apply`).
pub fn operands(e: &Expr) -> Vec<ExprId> {
    match e {
        Expr::Header { index, .. }
        | Expr::HeaderField { index, .. }
        | Expr::HeaderValid { index, .. } => index.iter().copied().collect(),
        Expr::Field { base, .. } | Expr::Slice { base, .. } => vec![*base],
        Expr::Index { base, index } => vec![*base, *index],
        Expr::SliceDyn { base, lo, .. } => vec![*base, *lo],
        Expr::Unary(_, a) | Expr::Cast(a) | Expr::MapGet(_, a) | Expr::MapContains(_, a) => {
            vec![*a]
        }
        Expr::MapRemove(_, a) => vec![*a],
        Expr::Binary(_, a, b) | Expr::MapInsert(_, a, b) => vec![*a, *b],
        Expr::Select(c, a, b) => vec![*c, *a, *b],
        Expr::MeterExceeds(_, index, len) => index.iter().copied().chain([*len]).collect(),
        Expr::Call(_, args)
        | Expr::CallAction(_, args)
        | Expr::Intrinsic(_, args)
        | Expr::StructLit(args)
        | Expr::ArrayLit(args)
        | Expr::Tuple(args) => args.clone(),
        _ => Vec::new(),
    }
}

/// Calls `f` on `root` and every expression below it, parents first.
pub fn visit_expr(body: &Body, root: ExprId, f: &mut dyn FnMut(ExprId, &Expr)) {
    let Some(expr) = body.exprs.get(root) else {
        return;
    };
    f(root, expr);
    for op in operands(expr) {
        visit_expr(body, op, f);
    }
}

/// The expressions a place evaluates (its indices).
pub fn place_exprs(p: &Place) -> Vec<ExprId> {
    match p {
        Place::HeaderField { index, .. } | Place::Header { index, .. } => {
            index.iter().copied().collect()
        }
        Place::Field(inner, _) | Place::Slice(inner, _, _) => place_exprs(inner),
        Place::Index(inner, i) => place_exprs(inner).into_iter().chain([*i]).collect(),
        _ => Vec::new(),
    }
}

/// The root expressions a statement evaluates itself (not those of nested blocks).
pub fn stmt_exprs(s: &Stmt) -> Vec<ExprId> {
    match s {
        Stmt::Let(_, e) | Stmt::Eval(e) | Stmt::ToNetwork(e) | Stmt::Pass(e) => vec![*e],
        Stmt::Notify(_, e) => vec![*e],
        Stmt::Assign(p, e) => std::iter::once(*e).chain(place_exprs(p)).collect(),
        Stmt::If(c, _, _) => vec![*c],
        Stmt::Switch { on, .. } => vec![*on],
        Stmt::Return(e) => e.iter().copied().collect(),
        Stmt::Push(_, i, e) => i.iter().copied().chain([*e]).collect(),
        Stmt::Count(_, i) => i.iter().copied().collect(),
        Stmt::SetValid(_, i, _) => i.iter().copied().collect(),
        _ => Vec::new(),
    }
}

/// The blocks nested directly in a statement.
pub fn child_blocks(s: &Stmt) -> Vec<&Block> {
    match s {
        Stmt::If(_, a, b) => vec![a, b],
        Stmt::Switch { cases, default, .. } => cases
            .iter()
            .map(|c: &Case| &c.body)
            .chain([default])
            .collect(),
        Stmt::For { body, .. } | Stmt::Block(body) => vec![body],
        _ => Vec::new(),
    }
}

/// Calls `f` on every statement of `block`, nested ones included, outer first.
pub fn visit_stmts(block: &Block, f: &mut dyn FnMut(&Stmt, scenic_ir::Span)) {
    scenic_ir::stack::grow(|| {
        for (stmt, span) in block.stmts.iter().zip(&block.spans) {
            f(stmt, *span);
            for child in child_blocks(stmt) {
                visit_stmts(child, f);
            }
        }
    })
}

/// Calls `f` on every expression of every statement of `body`, with the statement's span.
pub fn visit_body_exprs(body: &Body, f: &mut dyn FnMut(ExprId, &Expr, scenic_ir::Span)) {
    visit_stmts(&body.block, &mut |stmt, span| {
        for root in stmt_exprs(stmt) {
            visit_expr(body, root, &mut |id, e| f(id, e, span));
        }
    });
}

/// A statement with its span, borrowed from its block.
pub type Item<'b> = (&'b Stmt, Span);

/// The statements of a block, nested plain blocks spliced in.
pub fn items(block: &scenic_ir::Block) -> Vec<Item<'_>> {
    scenic_ir::stack::grow(|| {
        let mut out = Vec::new();
        for (stmt, span) in block.stmts.iter().zip(&block.spans) {
            match stmt {
                Stmt::Block(inner) => out.extend(items(inner)),
                _ => out.push((stmt, *span)),
            }
        }
        out
    })
}
