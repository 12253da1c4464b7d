//! "Lowering never drops a statement" (issue 14): every statement of the checked program must
//! have a counterpart in the lowered IR.
//!
//! Lowering keeps one span per IR statement in each block's side table (`Block::spans`,
//! `scenic_ir::body`): `lower_stmt` pushes what it builds for a source statement with that
//! statement's span, and the helper statements it adds (temporaries of an assignment) carry the
//! same span. So each source statement, identified by its byte range, must have an IR statement
//! with exactly that range *and of the kind it lowers to* ([`Class`]): a span alone could be kept
//! by a helper statement while the statement itself vanished. Matching is by counts per range and
//! kind, so an `if` and the statements inside it (distinct ranges) are checked separately.
//!
//! The source side is parsed here, chunk by chunk as the frontend does (`scenic_frontend::split`
//! and `parse`), with chunk-relative spans rebased to the file; the IR side is read right after
//! lowering, before any pass (the passes legitimately delete and merge statements). `for` loops
//! are still loops then, so their bodies appear once.

use scenic_frontend::ast::{self, ItemKind, MemberKind, StmtKind};
use scenic_frontend::parse::{parse_chunk, ChunkAst};
use scenic_frontend::split::split;
use scenic_ir::body::{Block, Stmt};
use scenic_ir::proc::walk::{child_blocks, for_each_code, CodeMut};
use scenic_ir::program::Module;
use std::collections::BTreeMap;

/// What an IR statement for a source statement must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// `let x = e;` → `Let`; `let _ = e;` → `Eval`.
    Let,
    /// `p = e;`, `p op= e;` → `Assign`.
    Assign,
    /// A call or method call for its effect → `Eval` or the builtin's own statement.
    Effect,
    /// `if` → `If`.
    If,
    /// `match` → `Switch`.
    Match,
    /// `for` → `For`.
    For,
    /// `return` → `Return`.
    Return,
    /// `restart` → `Restart`.
    Restart,
    /// `{ … }` → `Block`.
    Block,
}

/// Source ranges (file byte offsets) and classes, with how many statements have each.
type Counts = BTreeMap<(u32, u32, Class), u32>;

/// The statements of `source` that have no counterpart in `module` (lowered from `source`, no
/// pass run): each as `line L: <kind> `text``.
pub fn dropped_statements(source: &str, module: &Module) -> Vec<String> {
    let want = source_statements(source, module);
    let have = ir_statements(module);
    let mut dropped = Vec::new();
    for (&(lo, hi, class), &n) in &want {
        let got = have.get(&(lo, hi, class)).copied().unwrap_or(0);
        if got < n {
            let line = source[..lo as usize].matches('\n').count() + 1;
            let text = source.get(lo as usize..hi as usize).unwrap_or("");
            let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let text: String = text.chars().take(80).collect();
            dropped.push(format!("line {line}: {class:?} `{text}`"));
        }
    }
    dropped
}

/// Every statement of every body of `source` that lowering lowers, by range and class. A
/// function nothing calls is not lowered at all (`module.functions` has only those reached):
/// its statements are not expected.
fn source_statements(source: &str, module: &Module) -> Counts {
    let lowered: Vec<(u32, u32)> = module
        .functions
        .values()
        .map(|f| (f.span.lo, f.span.hi))
        .collect();
    let is_lowered = |lo: u32, hi: u32| lowered.iter().any(|&(a, _)| lo <= a && a < hi);
    let mut counts = Counts::new();
    for chunk in split(source).chunks {
        let text = source.get(chunk.span.range()).unwrap_or("");
        let parsed = parse_chunk(text, chunk.kind);
        let base = chunk.span.lo;
        let mut add = |b: &ast::Block| source_block(b, base, &mut counts);
        match &parsed.ast {
            ChunkAst::Item(item) => {
                let (lo, hi) = (item.span.lo + base, item.span.hi + base);
                if let (ItemKind::Fn(f), true) = (&item.kind, is_lowered(lo, hi)) {
                    add(&f.body);
                }
            }
            ChunkAst::Member(m) => match &m.kind {
                MemberKind::Control(b) | MemberKind::Deparser(b) => add(b),
                MemberKind::Action(f) => add(&f.body),
                MemberKind::Fn(f) => {
                    if is_lowered(m.span.lo + base, m.span.hi + base) {
                        add(&f.body);
                    }
                }
                MemberKind::Stream(s) => add(&s.body),
                MemberKind::Every(e) => add(&e.body),
                MemberKind::On(h) => add(&h.body),
                MemberKind::Parser(p) => {
                    for state in &p.states {
                        for s in &state.stmts {
                            source_stmt(s, base, &mut counts);
                        }
                    }
                }
                MemberKind::Csr(_)
                | MemberKind::Headers(_)
                | MemberKind::Meta(_)
                | MemberKind::Errors(_)
                | MemberKind::Table(_)
                | MemberKind::Map(_)
                | MemberKind::Counter(_)
                | MemberKind::Meter(_)
                | MemberKind::Out(_)
                | MemberKind::Const(_)
                | MemberKind::Param(_)
                | MemberKind::State(_)
                | MemberKind::Output(_)
                | MemberKind::Error => {}
            },
        }
    }
    counts
}

fn source_block(b: &ast::Block, base: u32, counts: &mut Counts) {
    for s in &b.stmts {
        source_stmt(s, base, counts);
    }
}

fn source_stmt(s: &ast::Stmt, base: u32, counts: &mut Counts) {
    let class = match &s.kind {
        StmtKind::Let { name, .. } if name.name == "_" => Class::Effect,
        StmtKind::Let { .. } => Class::Let,
        StmtKind::Assign { .. } => Class::Assign,
        StmtKind::Expr(_) => Class::Effect,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => {
            source_block(then_block, base, counts);
            if let Some(b) = else_block {
                source_block(b, base, counts);
            }
            Class::If
        }
        StmtKind::Match { arms, .. } => {
            for arm in arms {
                source_block(&arm.body, base, counts);
            }
            Class::Match
        }
        StmtKind::For { body, .. } => {
            source_block(body, base, counts);
            Class::For
        }
        StmtKind::Return(_) => Class::Return,
        StmtKind::Restart(_) => Class::Restart,
        StmtKind::Block(b) => {
            source_block(b, base, counts);
            Class::Block
        }
        StmtKind::Error => return,
    };
    *counts
        .entry((s.span.lo + base, s.span.hi + base, class))
        .or_insert(0) += 1;
}

/// Every statement of every body of `module`, by span and class.
fn ir_statements(module: &Module) -> Counts {
    let mut counts = Counts::new();
    let mut m = module.clone();
    for_each_code(&mut m, &mut |mut code: CodeMut<'_>| {
        code.for_each_block(&mut |_, block| ir_block(block, &mut counts));
    });
    counts
}

fn ir_block(b: &Block, counts: &mut Counts) {
    for (s, span) in b.stmts.iter().zip(&b.spans) {
        *counts.entry((span.lo, span.hi, ir_class(s))).or_insert(0) += 1;
        for child in child_blocks(s) {
            ir_block(child, counts);
        }
    }
}

/// The source class an IR statement stands for (an `Eval` counts for both a `let _` and a call).
fn ir_class(s: &Stmt) -> Class {
    match s {
        Stmt::Let(..) => Class::Let,
        Stmt::Assign(..) => Class::Assign,
        Stmt::Eval(_)
        | Stmt::Drop
        | Stmt::ToHost
        | Stmt::ToNetwork(_)
        | Stmt::ToScu(_)
        | Stmt::Notify(..)
        | Stmt::Pass(_)
        | Stmt::Push(..)
        | Stmt::Count(..)
        | Stmt::Extract(_)
        | Stmt::Emit(_)
        | Stmt::SetValid(..) => Class::Effect,
        Stmt::If(..) => Class::If,
        Stmt::Switch { .. } => Class::Match,
        Stmt::For { .. } => Class::For,
        Stmt::Return(_) => Class::Return,
        Stmt::Restart(_) => Class::Restart,
        Stmt::Block(_) => Class::Block,
    }
}
