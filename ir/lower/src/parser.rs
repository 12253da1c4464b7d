//! Lowering the parser state machine.

use super::expr::BodyCx;
use super::{Lowerer, ScuCx};
use cranelift_entity::PrimaryMap;
use scenic_frontend::ast::{self, ParserDecl};
use scenic_frontend::db::SourceFile;
use scenic_ir::body::Block;
use scenic_ir::entities::*;
use scenic_ir::program::{Parser, ParserState, SelectCase, Target, Transition};
use std::collections::HashMap;

impl Lowerer<'_> {
    pub(crate) fn lower_parser(
        &mut self,
        file: SourceFile,
        chunk: u32,
        decl: &ParserDecl,
        cx: &ScuCx,
    ) -> Option<Parser> {
        let mut bcx = BodyCx::new(file, chunk, self.db);
        let mut ids: HashMap<String, StateId> = HashMap::new();
        for (i, state) in decl.states.iter().enumerate() {
            ids.entry(state.name.name.clone())
                .or_insert(StateId::from_u32(i as u32));
        }
        let mut states: PrimaryMap<StateId, ParserState> = PrimaryMap::new();
        for state in &decl.states {
            bcx.push_scope();
            let mut block = Block::default();
            for stmt in &state.stmts {
                self.lower_stmt(&mut bcx, stmt, &mut block, cx);
            }
            let transition = self.transition(&mut bcx, &state.transition, &ids, cx);
            bcx.pop_scope();
            states.push(ParserState {
                name: state.name.name.clone(),
                block,
                transition,
                span: bcx.span(self.db, state.span),
            });
        }
        let start = *ids.get("start")?;
        Some(Parser {
            body: bcx.finish(),
            states,
            start,
        })
    }

    fn transition(
        &mut self,
        bcx: &mut BodyCx,
        t: &ast::Transition,
        ids: &HashMap<String, StateId>,
        cx: &ScuCx,
    ) -> Transition {
        match t {
            ast::Transition::Direct(target) => Transition::Direct(target_of(target, ids, cx)),
            ast::Transition::Select { scrutinee, arms } => {
                let on = self.lower_expr(bcx, scrutinee, None, cx);
                let ty = bcx.body.types[on].clone();
                let cases = arms
                    .iter()
                    .map(|(pattern, target)| {
                        let patterns = self.pattern_alternatives(bcx, pattern, &ty, cx);
                        SelectCase {
                            patterns,
                            target: target_of(target, ids, cx),
                        }
                    })
                    .collect();
                Transition::Select { on, cases }
            }
        }
    }
}

fn target_of(t: &ast::Target, ids: &HashMap<String, StateId>, cx: &ScuCx) -> Target {
    let no_match = cx
        .errors
        .get("no_match")
        .copied()
        .unwrap_or(ErrorId::from_u32(1));
    match t {
        ast::Target::Accept(_) => Target::Accept,
        ast::Target::Reject(_, None) => Target::Reject(no_match),
        ast::Target::Reject(_, Some(name)) => {
            Target::Reject(cx.errors.get(&name.name).copied().unwrap_or(no_match))
        }
        ast::Target::State(name) => ids
            .get(&name.name)
            .map_or(Target::Reject(no_match), |s| Target::State(*s)),
    }
}
