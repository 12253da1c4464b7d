//! Validating one body: its locals, its expression arena and its statement tree.
//!
//! A body is checked in two passes. The first ([`expr`](super::expr)) walks the expression arena in
//! id order: every operand exists and is older than its user, every expression's type follows from
//! its operands, and ids of members exist in the owning unit. The second
//! ([`stmt`](super::stmt)) walks the statements in order with a scope of declared locals: every
//! local read or assigned is in scope, every expression tree hangs under exactly one statement,
//! statement operands have the types the statement needs, and indices are in bounds. Between the
//! two passes, an expression used by two parents is rejected, so the second pass walks each tree
//! once and terminates.
//!
//! What a body may contain depends on its [`Context`]: extracting only in the parser, emitting
//! only in the deparser, and so on (docs/language.md §7.1). Functions may use any construct of
//! their unit; what they use is checked against every body that calls them in
//! [`calls`](super::calls).

use super::error::{AnyId, BodyRef, Construct, Location, ValidationError};
use super::info::BodyInfo;
use super::types::{check_type, fits, Types};
use crate::body::{Body, Pattern};
use crate::entities::*;
use crate::program::{Attach, Cc, Scu};
use crate::span::Span;
use crate::types::Type;
use cranelift_entity::SecondaryMap;

/// Checks that a body's parameter types are the bindings its kind provides (`ok`).
pub(super) fn check_bindings(
    at: BodyRef,
    body: &Body,
    ok: impl Fn(&[&Type]) -> bool,
) -> Result<(), ValidationError> {
    let tys: Vec<&Type> = body
        .params
        .iter()
        .filter_map(|p| body.locals.get(*p))
        .map(|l| &l.ty)
        .collect();
    if tys.len() == body.params.len() && ok(&tys) {
        Ok(())
    } else {
        Err(ValidationError::BadParams { body: at })
    }
}

/// The unit a body belongs to: its scu or its cc (neither for a top-level function).
#[derive(Clone, Copy, Default)]
pub(super) struct Unit<'a> {
    pub(super) scu: Option<(ScuId, &'a Scu)>,
    pub(super) cc: Option<(CcId, &'a Cc)>,
}

/// What kind of code a body is, which decides the constructs it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Context {
    Parser,
    TableKey,
    Action,
    Control,
    OnParserError,
    Deparser,
    Stream,
    Every,
    Handler,
    ScuFunction,
    CcFunction,
    ModuleFunction,
}

impl Context {
    /// Whether a body of this kind may use `c` itself (`attach`: the owning scu's attach point).
    pub(super) fn allows(self, c: Construct, attach: Option<Attach>) -> bool {
        use Construct as K;
        let flows = matches!(attach, Some(Attach::Rdma | Attach::Tcp));
        let destinations = matches!(c, K::Drop | K::ToHost | K::ToNetwork | K::ToScu);
        let per_packet = matches!(c, K::Packet) || (c == K::FlowId && flows);
        match self {
            Context::ModuleFunction => true,
            Context::ScuFunction => c != K::Restart && (c != K::FlowId || flows),
            Context::CcFunction | Context::Handler => c == K::Restart,
            Context::Parser => per_packet || matches!(c, K::Extract | K::Lookahead),
            Context::TableKey => per_packet,
            Context::Deparser => per_packet || c == K::Emit,
            Context::Action => {
                per_packet || destinations || matches!(c, K::CallAction | K::Count | K::Meter)
            }
            Context::Control | Context::OnParserError => {
                per_packet
                    || destinations
                    || matches!(c, K::CallAction | K::Count | K::Meter | K::Apply)
            }
            Context::Stream => {
                matches!(c, K::Pass | K::Push | K::Beat) || (c == K::FlowId && flows)
            }
            Context::Every => false,
        }
    }

    /// Whether the body is a function (checked against its callers rather than by itself).
    pub(super) fn is_function(self) -> bool {
        matches!(
            self,
            Context::ScuFunction | Context::CcFunction | Context::ModuleFunction
        )
    }
}

/// The state of checking one body.
pub(super) struct Checker<'a> {
    pub(super) types: &'a Types<'a>,
    pub(super) unit: Unit<'a>,
    pub(super) at: BodyRef,
    pub(super) body: &'a Body,
    pub(super) context: Context,
    /// The return type, for functions.
    pub(super) ret: Option<&'a Type>,
    /// How many parents and statements use each expression.
    pub(super) uses: SecondaryMap<ExprId, u32>,
    /// How many open scopes declare each local.
    pub(super) declared: SecondaryMap<LocalId, u32>,
    /// The locals each open scope declared.
    pub(super) frames: Vec<Vec<LocalId>>,
    /// For loop variables in scope: their first and last values.
    pub(super) loops: SecondaryMap<LocalId, Option<(i64, i64)>>,
    /// `(apply, action)` pairs whose action data the current switch case may read.
    pub(super) bound: Vec<(ExprId, u32)>,
    pub(super) info: BodyInfo,
}

impl<'a> Checker<'a> {
    /// A checker for `body`, of kind `context`, in `unit`.
    pub(super) fn new(
        types: &'a Types<'a>,
        unit: Unit<'a>,
        at: BodyRef,
        body: &'a Body,
        context: Context,
        ret: Option<&'a Type>,
    ) -> Self {
        Checker {
            types,
            unit,
            at,
            body,
            context,
            ret,
            uses: SecondaryMap::new(),
            declared: SecondaryMap::new(),
            frames: Vec::new(),
            loops: SecondaryMap::new(),
            bound: Vec::new(),
            info: BodyInfo {
                exprs: body.exprs.len(),
                locals: body.locals.len(),
                ..BodyInfo::default()
            },
        }
    }

    /// The error location of this body.
    pub(super) fn loc(&self) -> Location {
        Location::Body(self.at)
    }

    /// An `InvalidId` error in this body.
    pub(super) fn invalid(&self, id: AnyId, span: Span) -> ValidationError {
        ValidationError::InvalidId {
            at: self.loc(),
            id,
            span,
        }
    }

    /// The owning scu, or an `InvalidId` error for `id` when there is none.
    pub(super) fn scu(&self, id: AnyId, span: Span) -> Result<&'a Scu, ValidationError> {
        self.unit
            .scu
            .map(|(_, s)| s)
            .ok_or_else(|| self.invalid(id, span))
    }

    /// The owning cc, or an `InvalidId` error for `id` when there is none.
    pub(super) fn cc(&self, id: AnyId, span: Span) -> Result<&'a Cc, ValidationError> {
        self.unit
            .cc
            .map(|(_, c)| c)
            .ok_or_else(|| self.invalid(id, span))
    }

    /// Checks the locals' types and the parameters, then opens the body's outermost scope with
    /// the parameters declared.
    pub(super) fn start(&mut self) -> Result<(), ValidationError> {
        let scu = self.unit.scu.map(|(_, s)| s);
        for local in self.body.locals.values() {
            check_type(
                self.types.module,
                scu,
                &local.ty,
                self.loc(),
                Span::default(),
            )?;
        }
        self.frames.push(Vec::new());
        for &p in &self.body.params {
            if self.body.locals.get(p).is_none() {
                return Err(self.invalid(AnyId::Local(p), Span::default()));
            }
            self.declare(p);
        }
        Ok(())
    }

    /// Declares a local in the innermost scope.
    pub(super) fn declare(&mut self, l: LocalId) {
        self.declared[l] += 1;
        if let Some(frame) = self.frames.last_mut() {
            frame.push(l);
        }
    }

    /// Opens a scope.
    pub(super) fn push_scope(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Closes the innermost scope, forgetting its declarations.
    pub(super) fn pop_scope(&mut self) {
        for l in self.frames.pop().unwrap_or_default() {
            self.declared[l] = self.declared[l].saturating_sub(1);
            if self.declared[l] == 0 {
                self.loops[l] = None;
            }
        }
    }

    /// Records (and checks the placement of) a restricted construct.
    pub(super) fn construct(&mut self, c: Construct, span: Span) -> Result<(), ValidationError> {
        let attach = self.unit.scu.map(|(_, s)| s.attach);
        if !self.context.allows(c, attach) {
            return Err(ValidationError::Misplaced {
                body: self.at,
                construct: c,
                span,
            });
        }
        if !self.info.uses(c) {
            self.info.constructs.push((c, span));
        }
        Ok(())
    }

    /// Checks that every expression was used exactly once, and finishes the body's info.
    pub(super) fn finish(mut self) -> Result<BodyInfo, ValidationError> {
        for id in self.body.exprs.keys() {
            let uses = self.uses[id];
            if uses != 1 {
                let span = self.body.spans[id];
                return Err(ValidationError::ExprUses {
                    body: self.at,
                    expr: id,
                    uses,
                    span,
                });
            }
        }
        self.info.constructs.sort_by_key(|(c, _)| *c);
        self.info.applies.sort();
        self.info.applies.dedup();
        self.info.calls.sort();
        self.info.calls.dedup();
        self.info.call_actions.sort();
        self.info.call_actions.dedup();
        Ok(self.info)
    }

    /// Checks a pattern against a scrutinee of type `ty`.
    pub(super) fn pattern(
        &self,
        p: &Pattern,
        ty: &Type,
        at: Location,
        span: Span,
    ) -> Result<(), ValidationError> {
        let shape = || ValidationError::PatternShape {
            at,
            ty: ty.clone(),
            span,
        };
        if let Pattern::Tuple(items) = p {
            let Type::Tuple(tys) = ty else {
                return Err(shape());
            };
            if tys.len() != items.len() {
                return Err(shape());
            }
            return items
                .iter()
                .zip(tys)
                .try_for_each(|(p, t)| self.pattern(p, t, at, span));
        }
        if matches!(p, Pattern::Any) {
            return Ok(());
        }
        let Some(width) = self.types.scalar(ty) else {
            return Err(shape());
        };
        let consts = match p {
            Pattern::Value(v) => vec![v],
            Pattern::Mask(v, m) | Pattern::Range(v, m) => vec![v, m],
            Pattern::Any | Pattern::Tuple(_) => Vec::new(),
        };
        if consts.iter().any(|c| !fits(c, u64::from(width))) {
            return Err(ValidationError::PatternWidth { at, width, span });
        }
        // A table result or parser error names something only by value.
        let limit = match ty {
            Type::TableResult(t) => self
                .unit
                .scu
                .and_then(|(_, s)| s.tables.get(*t))
                .map(|t| t.actions.len()),
            Type::ParserError => self.unit.scu.map(|(_, s)| s.errors.len()),
            _ => None,
        };
        if let (Some(limit), Pattern::Value(v)) = (limit, p) {
            if v.to_u64().is_none_or(|v| v >= limit as u64) {
                return Err(shape());
            }
        }
        Ok(())
    }
}
