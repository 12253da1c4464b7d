//! Where an exact constant meets its type (language.md §4.15).
//!
//! Constant expressions are evaluated exactly, so an intermediate value may be out of its type's
//! range or not a whole number (`A * 2` with `A: bit<8> = 200` is 400, `A / 3` is 200/3). Such a
//! value is fine as long as the enclosing constant expression brings it back (`A * 2 / 4` is 100).
//! Every constant that does not fit its type is noted here by span; an enclosing constant drops the
//! notes inside it, and the notes left when the chunk is done are the constants used where their
//! exact value must fit: a run-time operand, an initialiser, an argument, ... (E0203). Bit-level
//! operators and casts look at the bits of their operand, so they require it to fit at once.

use super::{Checker, Typed};
use crate::consteval;
use crate::span::Span;

impl Checker<'_> {
    /// Notes the constant `typed` written at `span`: it absorbs the constants inside it, and is
    /// itself remembered if it does not fit its type.
    pub(crate) fn note_const(&mut self, span: Span, typed: &Typed) {
        let Some(value) = &typed.value else {
            return;
        };
        self.unfit.retain(|(s, ..)| !within(*s, span));
        if typed.ty.is_numeric() && consteval::fit(value, &typed.ty).is_err() {
            self.unfit.push((span, value.clone(), typed.ty.clone()));
        }
    }

    /// Whether the constant operand `typed` at `span` fits its type; reports E0203 if not. For
    /// operators that look at bits (`&`, `|`, `^`, `~`, shifts, `++`, slices, `%`) and casts.
    pub(crate) fn require_fit(&mut self, span: Span, typed: &Typed) -> bool {
        let Some(value) = &typed.value else {
            return true;
        };
        if !typed.ty.is_numeric() {
            return true;
        }
        match consteval::fit(value, &typed.ty) {
            Ok(_) => true,
            Err(err) => {
                self.unfit.retain(|(s, ..)| !within(*s, span));
                self.report_fit(value, &typed.ty, span, err);
                false
            }
        }
    }

    /// Reports the constants inside `span` (all of them with `None`) whose exact value does not fit
    /// their type; whether there was one.
    pub(crate) fn flush_unfit(&mut self, span: Option<Span>) -> bool {
        let (report, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.unfit)
            .into_iter()
            .partition(|(s, ..)| span.is_none_or(|outer| within(*s, outer)));
        self.unfit = keep;
        let mut seen = Vec::new();
        for (s, value, ty) in &report {
            if seen.contains(s) {
                continue;
            }
            seen.push(*s);
            if let Err(err) = consteval::fit(value, ty) {
                self.report_fit(value, ty, *s, err);
            }
        }
        !report.is_empty()
    }
}

/// Whether `inner` lies within `outer`.
fn within(inner: Span, outer: Span) -> bool {
    outer.lo <= inner.lo && inner.hi <= outer.hi
}
