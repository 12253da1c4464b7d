//! Updates in place: `x = x op y` where `x` is a CSR, or a field of a local or of `meta`, and the
//! operation is narrow (`dropped += 1`, `stats.packets |+|= 1`).
//!
//! Counters kept in CSRs and struct fields are what packet programs update most. Compiled as an
//! assignment, such an update walks to the place twice (once in a closure that reads it, once to
//! write it) and passes the value through two more closures; here the right operand is evaluated
//! first, then the place is reached once, read, and written.
//!
//! Same semantics as the assignment: the right operand is narrow, so it has no effect and cannot
//! stop the packet, and evaluating it before reading the place changes nothing; the result has
//! the place's width, as the assignment's value has.

use super::narrow::{binary, Operand};
use super::{Compiler, Flow, Step};
use crate::context::Cx;
use crate::value::Value;
use cranelift_entity::EntityRef;
use scenic_ir::body::{BinaryOp, Expr, Place};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::ops::Kernel;
use scenic_ir::types::Type;

/// Where the updated value lives.
#[derive(Clone, Copy)]
enum Root {
    Csr(usize),
    Local(usize),
    Meta(u32),
}

impl Compiler<'_> {
    /// The step of `place = value` as an update in place, when it is one.
    pub fn update_in_place(&mut self, place: &Place, value: ExprId) -> Option<Step> {
        let Expr::Binary(op, lhs, rhs) = self.body.exprs.get(value)? else {
            return None;
        };
        let (op, lhs, rhs) = (*op, *lhs, *rhs);
        let logical = matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr);
        if op.is_comparison() || logical || !self.is_narrow(value) {
            return None;
        }
        let (root, fields) = self.same_place(place, lhs)?;
        let k = self.kernel(op, lhs, value);
        let (wl, wr) = (self.width(lhs), self.width(rhs));
        let r = self.operand(rhs);
        Some(specialized(root, fields.into(), k, (wl, wr), r))
    }

    /// The root and fields of `place` when `read` reads exactly it (and it is a CSR or a chain
    /// of struct fields of a local or `meta`).
    fn same_place(&self, place: &Place, read: ExprId) -> Option<(Root, Vec<u32>)> {
        let mut fields = Vec::new();
        let (mut at, mut e) = (place, read);
        let root = loop {
            match (at, self.body.exprs.get(e)?) {
                (Place::Field(base, f), Expr::Field { base: b, field }) if f == field => {
                    if !matches!(self.ty(*b), Type::Struct(_)) {
                        return None;
                    }
                    fields.push(*f);
                    (at, e) = (base, *b);
                }
                (Place::Csr(c), Expr::Csr(d)) if c == d && fields.is_empty() => {
                    break Root::Csr(c.index())
                }
                (Place::Local(l), Expr::Local(m)) if l == m => break Root::Local(l.index()),
                (Place::Meta(f), Expr::Meta(g)) if f == g => break Root::Meta(*f),
                _ => return None,
            }
        };
        fields.reverse();
        Some((root, fields))
    }
}

/// [`step`] with the kernels and operands updates use most compiled each into code of its own
/// (the kernel a constant, so [`binary`] folds to its one operation).
fn specialized(root: Root, fields: Box<[u32]>, k: Kernel, w: (u32, u32), r: Operand) -> Step {
    macro_rules! each {
        ($k:expr) => {
            match r {
                Operand::Const(b) => step(root, fields, $k, w, move |_| b),
                Operand::Code(r) => step(root, fields, $k, w, move |cx| r(cx)),
            }
        };
    }
    match k {
        Kernel::Add => each!(Kernel::Add),
        Kernel::Sub => each!(Kernel::Sub),
        Kernel::SatAdd => each!(Kernel::SatAdd),
        Kernel::Or => each!(Kernel::Or),
        Kernel::And => each!(Kernel::And),
        k => each!(k),
    }
}

/// The update of the scalar at `fields` of `root` by kernel `k` with operand `r`.
fn step(
    root: Root,
    fields: Box<[u32]>,
    k: Kernel,
    (wl, wr): (u32, u32),
    r: impl Fn(&mut Cx<'_>) -> u64 + Send + Sync + 'static,
) -> Step {
    Box::new(move |cx| {
        let b = r(cx);
        if let Some(bits) = place(cx, root, &fields) {
            let a = bits.to_u64();
            // A CSR keeps its own width, as `Cx::set_csr` resizes to it.
            let width = match root {
                Root::Csr(_) => bits.width(),
                Root::Local(_) | Root::Meta(_) => wl,
            };
            *bits = Bits::from_u64(width, binary(k, wl, wr, a, b));
        }
        Flow::Next
    })
}

/// The scalar at `fields` of `root`, if it is there.
#[inline]
fn place<'c>(cx: &'c mut Cx<'_>, root: Root, fields: &[u32]) -> Option<&'c mut Bits> {
    let mut v: &mut Value = match root {
        Root::Csr(c) => return cx.scu.as_mut()?.rt.csrs.get_mut(c),
        Root::Local(slot) => cx.local_mut(slot)?,
        Root::Meta(f) => cx.meta_mut(f)?,
    };
    for &f in fields {
        v = match v {
            Value::Struct(items) => items.get_mut(f as usize)?,
            _ => return None,
        };
    }
    match v {
        Value::Bits(b) => Some(b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::Machine;

    /// Updates of CSRs, struct fields of a local, a `meta` field and a local wrap, saturate and
    /// shift at their own widths, as the assignments they stand for.
    #[test]
    fn updates_in_place_compute_what_assignments_compute() {
        let source = "
            struct pair { a: bit<8>, b: bit<16> }
            scu t on slow_path {
                csr c8: bit<8>;
                csr c64: bit<64>;
                csr total: bit<16>;
                meta { m: bit<4> }
                control {
                    c8 = c8 + 200;
                    c64 = c64 - 1;
                    let mut x = pair { a: 250, b: 1 };
                    x.a = x.a |+| 10;
                    x.b = x.b << 3;
                    meta.m = meta.m + 15;
                    meta.m = meta.m + 2;
                    let mut y: bit<16> = 7;
                    y = y * 3;
                    total = x.b + (x.a as bit<16>) + (meta.m as bit<16>) + y;
                }
            }";
        let mut session = scenic_frontend::Session::new();
        session.add_source("u.sn", source);
        let module = match scenic_lower::lower_session(&mut session) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let mut m = Machine::new(&module);
        let Some(scu) = m.scu_by_name("t") else {
            panic!("no scu")
        };
        for i in 0..2 {
            m.process_packet(scu, &[0u8; 64], 0, i);
        }
        let csr = |m: &Machine<'_>, name: &str| m.csr(scu, name).map(|b| b.to_u128());
        assert_eq!(csr(&m, "c8"), Some(400 % 256));
        assert_eq!(csr(&m, "c64"), Some(u128::from(u64::MAX - 1)));
        assert_eq!(csr(&m, "total"), Some(8 + 255 + 1 + 21));
    }
}
