//! At most one destination per packet: P4 sends a packet to one place.
//!
//! scenic's `to_host()` and `to_network(p)` each add a copy of the packet; a P4 pipeline has one
//! egress port (or the host). The program is expressible when no path through the control (or
//! `on parser_error`), including the actions tables choose and the actions it calls, requests two
//! copies. `drop()` ends a path; `return` ends the control (or, in an action, the action). The walk
//! keeps, per program point, whether a path without a destination and a path with one (and where it
//! was chosen) reach it.

use crate::error::{Construct, Error};
use crate::Target;
use scenic_ir::{Block, Body, Expr, ExprId, Scu, Span, Stmt};

/// Whether paths reaching a point may have no destination yet, and where one was chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    none: bool,
    some: Option<Span>,
}

impl State {
    fn join(self, other: State) -> State {
        State {
            none: self.none || other.none,
            some: self.some.or(other.some),
        }
    }
}

/// Checks the control and `on parser_error`.
pub fn check(scu: &Scu, target: Target) -> Vec<Error> {
    let mut cx = Walk {
        scu,
        target,
        errors: Vec::new(),
        depth: 0,
    };
    let start = State {
        none: true,
        some: None,
    };
    for body in scu.control.iter().chain(scu.on_parser_error.iter()) {
        let _ = cx.block(body, &body.block, start);
    }
    cx.errors
}

struct Walk<'a> {
    scu: &'a Scu,
    target: Target,
    errors: Vec<Error>,
    depth: u32,
}

/// Where a block leaves: falling through, or by `return`.
#[derive(Clone, Copy, Debug, Default)]
struct Out {
    through: Option<State>,
    returned: Option<State>,
}

fn join(a: Option<State>, b: Option<State>) -> Option<State> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(b)),
        (a, b) => a.or(b),
    }
}

impl Walk<'_> {
    fn block(&mut self, body: &Body, block: &Block, state: State) -> Out {
        scenic_ir::stack::grow(|| {
            let mut current = Some(state);
            let mut returned = None;
            for (stmt, span) in block.stmts.iter().zip(&block.spans) {
                let Some(s) = current else { break };
                let out = self.stmt(body, stmt, *span, s);
                current = out.through;
                returned = join(returned, out.returned);
            }
            Out {
                through: current,
                returned,
            }
        })
    }

    fn stmt(&mut self, body: &Body, stmt: &Stmt, span: Span, state: State) -> Out {
        let through = |s| Out {
            through: Some(s),
            returned: None,
        };
        match stmt {
            Stmt::ToHost | Stmt::ToNetwork(_) => {
                if let Some(first) = state.some {
                    self.errors.push(Error::Unsupported {
                        construct: Construct::SeveralDestinations,
                        target: self.target,
                        span,
                        related: vec![(first, "the first destination".into())],
                    });
                }
                through(State {
                    none: false,
                    some: Some(span),
                })
            }
            Stmt::Drop => Out::default(),
            Stmt::Return(_) => Out {
                through: None,
                returned: Some(state),
            },
            Stmt::If(_, a, b) => {
                let (a, b) = (self.block(body, a, state), self.block(body, b, state));
                Out {
                    through: join(a.through, b.through),
                    returned: join(a.returned, b.returned),
                }
            }
            Stmt::Switch { on, cases, default } => {
                let state = self.exprs(body, *on, state);
                let mut out = self.block(body, default, state);
                for case in cases {
                    let c = self.block(body, &case.body, state);
                    out.through = join(out.through, c.through);
                    out.returned = join(out.returned, c.returned);
                }
                out
            }
            Stmt::Block(b) | Stmt::For { body: b, .. } => self.block(body, b, state),
            _ => {
                let mut s = state;
                for root in super::walk::stmt_exprs(stmt) {
                    s = self.exprs(body, root, s);
                }
                through(s)
            }
        }
    }

    /// The state after the actions an expression runs (table applications, action calls).
    fn exprs(&mut self, body: &Body, root: ExprId, state: State) -> State {
        let Some(e) = body.exprs.get(root) else {
            return state;
        };
        let mut s = state;
        for op in super::walk::operands(e) {
            s = self.exprs(body, op, s);
        }
        let actions: Vec<_> = match e {
            Expr::Apply(t) => self
                .scu
                .tables
                .get(*t)
                .map(|t| t.actions.clone())
                .unwrap_or_default(),
            Expr::CallAction(a, _) => vec![*a],
            _ => return s,
        };
        // Actions cannot apply tables; a call chain deeper than the action count is a cycle.
        if self.depth as usize > self.scu.actions.len() {
            return s;
        }
        self.depth += 1;
        let mut out = State::default();
        for a in actions {
            if let Some(action) = self.scu.actions.get(a) {
                let o = self.block(&action.body, &action.body.block, s);
                if let Some(end) = join(o.through, o.returned) {
                    out = out.join(end);
                }
            }
        }
        self.depth -= 1;
        out
    }
}
