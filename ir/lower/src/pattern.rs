//! Lowering `match` and parser-select patterns.
//!
//! IR patterns have no or-pattern: a case lists its alternatives. An or-pattern nested in a tuple
//! pattern is therefore expanded into the alternatives of the whole tuple (language.md §5.4: `p | q`
//! is either, tuples match element-wise), `(1 | 3, _)` into `(1, _)` and `(3, _)`.

use super::expr::BodyCx;
use super::{Lowerer, ScuCx};
use scenic_frontend::ast::{self, ExprKind, PatternKind};
use scenic_ir::body::Pattern;
use scenic_ir::types::{Const, Type};

/// The most alternatives one arm's tuple pattern may expand to.
const MAX_ALTERNATIVES: usize = 4096;

impl Lowerer<'_> {
    /// The alternatives of a (non-binding) pattern against a scrutinee of type `ty`: one IR pattern
    /// per alternative, with or-patterns nested in tuples expanded (the module doc).
    pub(crate) fn pattern_alternatives(
        &mut self,
        bcx: &mut BodyCx,
        pattern: &ast::Pattern,
        ty: &Type,
        cx: &ScuCx,
    ) -> Vec<Pattern> {
        match &pattern.kind {
            PatternKind::Wildcard | PatternKind::Ctor { .. } => vec![Pattern::Any],
            PatternKind::Tuple(items) => {
                let tys = match ty {
                    Type::Tuple(t) => t.clone(),
                    _ => Vec::new(),
                };
                // The cartesian product of the elements' alternatives, in source order.
                let mut product: Vec<Vec<Pattern>> = vec![Vec::new()];
                for (p, t) in items.iter().zip(tys) {
                    let alts = self.pattern_alternatives(bcx, p, &t, cx);
                    if product.len().saturating_mul(alts.len()) > MAX_ALTERNATIVES {
                        self.unsupported(
                            bcx.file,
                            format!(
                                "a tuple pattern with more than {MAX_ALTERNATIVES} combinations of \
                                 alternatives (split the arm)"
                            ),
                            pattern.span.lo,
                        );
                        return vec![Pattern::Any];
                    }
                    product = product
                        .iter()
                        .flat_map(|prefix| {
                            alts.iter().map(move |a| {
                                let mut v = prefix.clone();
                                v.push(a.clone());
                                v
                            })
                        })
                        .collect();
                }
                product.into_iter().map(Pattern::Tuple).collect()
            }
            PatternKind::Or(alts) => alts
                .iter()
                .flat_map(|a| self.pattern_alternatives(bcx, a, ty, cx))
                .collect(),
            PatternKind::Value(e) => vec![self.value_pattern(bcx, e, ty, cx)],
            PatternKind::Masked { value, mask } => vec![Pattern::Mask(
                self.pattern_const(bcx, value, ty, cx),
                self.pattern_const(bcx, mask, ty, cx),
            )],
            PatternKind::Range { lo, hi, inclusive } => {
                let lo = self.pattern_const(bcx, lo, ty, cx);
                let mut hi = self.pattern_const(bcx, hi, ty, cx);
                if !inclusive {
                    hi = Const(hi.0.clone().max(num_bigint::BigUint::from(1u32)) - 1u32);
                }
                vec![Pattern::Range(lo, hi)]
            }
        }
    }

    fn value_pattern(&mut self, bcx: &mut BodyCx, e: &ast::Expr, ty: &Type, cx: &ScuCx) -> Pattern {
        match (&e.kind, ty) {
            (
                ExprKind::Lit(ast::Literal::Ipv4 {
                    addr,
                    prefix: Some(len),
                }),
                _,
            ) => prefix_pattern(u128::from(*addr), *len, 32),
            (
                ExprKind::Lit(ast::Literal::Ipv6 {
                    addr,
                    prefix: Some(len),
                }),
                _,
            ) => prefix_pattern(*addr, *len, 128),
            (ExprKind::Path(p), Type::TableResult(t)) => Pattern::Value(Const::from_u64(
                u64::from(self.action_position(cx, *t, &p.last().name)),
            )),
            (ExprKind::Path(p), Type::ParserError) => {
                let id = cx.errors.get(&p.last().name).map_or(0, |e| e.as_u32());
                Pattern::Value(Const::from_u64(u64::from(id)))
            }
            (ExprKind::Path(p), Type::Enum(en)) => {
                let c = self.module.enums[*en]
                    .variants
                    .iter()
                    .find(|(n, _)| *n == p.last().name)
                    .map(|(_, c)| c.clone());
                Pattern::Value(c.unwrap_or(Const::zero()))
            }
            _ => Pattern::Value(self.pattern_const(bcx, e, ty, cx)),
        }
    }

    /// The constant a pattern value denotes, as a pattern of the scrutinee's type.
    fn pattern_const(&mut self, bcx: &mut BodyCx, e: &ast::Expr, ty: &Type, _cx: &ScuCx) -> Const {
        match bcx.info(e).and_then(|i| i.value.clone()) {
            Some(v) => self.const_of(&v, ty),
            None => match &e.kind {
                ExprKind::Lit(ast::Literal::Bool(b)) => Const::from_u64(u64::from(*b)),
                _ => Const::zero(),
            },
        }
    }
}

/// A prefix as a value-and-mask pattern.
pub(crate) fn prefix_pattern(addr: u128, len: u8, bits: u32) -> Pattern {
    let mask = prefix_mask(u32::from(len), bits);
    Pattern::Mask(Const(num_bigint::BigUint::from(addr)), mask)
}

/// The mask of the top `len` bits of a `bits`-bit value.
pub(crate) fn prefix_mask(len: u32, bits: u32) -> Const {
    let ones = (num_bigint::BigUint::from(1u32) << len as usize) - 1u32;
    Const(ones << (bits - len.min(bits)) as usize)
}
