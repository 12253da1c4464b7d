//! Scheduling expressions: an expression is ready when its last operand is, plus its own cost.

use super::cost::{self, BinaryInputs, Cost};
use super::schedule::{Exit, Key, Sched, Scope};
use super::time::{Obj, Time};
use num_bigint::BigUint;
use scenic_ir::body::{BinaryOp, Body, Expr, Intrinsic, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::program::{Map, MapKind, MatchKind};
use scenic_ir::span::Span;
use scenic_ir::types::Type;

/// Expressions nest at most this deep in the analysis (the checker bounds source nesting well below).
const MAX_EXPR_DEPTH: u32 = 2000;

/// The constant value of an expression, looking through casts.
fn const_value(body: &Body, e: ExprId) -> Option<&BigUint> {
    match body.exprs.get(e)? {
        Expr::Const(c) => Some(&c.0),
        Expr::Cast(inner) => const_value(body, *inner),
        _ => None,
    }
}

impl<'a> Sched<'a> {
    /// Low bits of an expression known to be zero (`x * 128`, `x << 7`, a local holding one), for
    /// sizing shifters.
    pub(super) fn known_zero_low_bits(&self, e: ExprId) -> u32 {
        let body = self.body;
        let pow2 = |c: &BigUint| (c.count_ones() == 1).then(|| c.trailing_zeros().unwrap_or(0));
        match body.exprs.get(e) {
            Some(Expr::Cast(inner)) => self.known_zero_low_bits(*inner),
            Some(Expr::Local(l)) => self.zeros.get(&(self.frame, *l)).copied().unwrap_or(0),
            Some(Expr::Binary(BinaryOp::Mul, a, b)) => {
                let k = |x| const_value(body, x).and_then(pow2);
                k(*b).or_else(|| k(*a)).map_or(0, |z| z.min(64) as u32)
            }
            Some(Expr::Binary(BinaryOp::Shl, _, b)) => const_value(body, *b)
                .and_then(|c| c.to_u32_digits().first().copied())
                .unwrap_or(0),
            _ => 0,
        }
    }

    /// The value of `key`, joined with `part` if a part of it was written since.
    fn read_with(&self, key: Key, part: Key) -> Time {
        let mut t = self.read(key);
        if let Some(p) = self.flow.env.get(&part) {
            t.join(p);
        }
        t
    }

    /// The width of an expression's value; `None` when its type is unknown (`()`).
    fn known_width(&self, e: ExprId) -> Option<u32> {
        match &self.body.types[e] {
            Type::Unit => None,
            ty => Some(cost::width(self.module, ty)),
        }
    }

    /// Schedules an expression and returns when its value is ready.
    pub(crate) fn expr(&mut self, e: ExprId) -> Time {
        if self.tired() || self.nest > MAX_EXPR_DEPTH {
            return Time::zero();
        }
        let body = self.body;
        let Some(expr) = body.exprs.get(e) else {
            return Time::zero();
        };
        let span = body.spans[e];
        self.nest += 1;
        let t = self.expr_kind(e, expr, span);
        self.nest -= 1;
        t
    }

    fn expr_kind(&mut self, e: ExprId, expr: &'a Expr, span: Span) -> Time {
        match expr {
            Expr::Const(_) => Time::constant(),
            Expr::Local(l) => {
                self.read_with(Key::Local(self.frame, *l), Key::LocalAny(self.frame, *l))
            }
            Expr::Csr(c) => self.read(Key::Csr(*c)),
            Expr::Meta(f) => self.read(Key::Meta(*f)),
            Expr::CcState(s) => self.read(Key::State(*s)),
            Expr::Packet(_) | Expr::Beat(_) | Expr::FlowId | Expr::CcParam(_) => Time::zero(),
            Expr::Header { inst, index } => {
                let t = Time::max(
                    &self.read(Key::Header(*inst)),
                    &self.read(Key::HeaderAny(*inst)),
                );
                self.stack_element(t, *inst, *index, span)
            }
            Expr::HeaderField { inst, index, field } => {
                let t = Time::max(
                    &self.read(Key::Header(*inst)),
                    &self.read(Key::Field(*inst, *field)),
                );
                self.stack_element(t, *inst, *index, span)
            }
            Expr::HeaderValid { inst, index } => {
                let t = self.read(Key::Header(*inst));
                self.stack_element(t, *inst, *index, span)
            }
            Expr::Field { base, field } => match self.body.exprs.get(*base) {
                Some(Expr::Local(l)) => self.read_with(
                    Key::Local(self.frame, *l),
                    Key::Part(self.frame, *l, *field),
                ),
                _ => self.expr(*base),
            },
            Expr::Slice { base, .. } | Expr::Cast(base) => self.expr(*base),
            Expr::Index { base, index } => self.index(*base, *index, span),
            Expr::SliceDyn { base, lo, width } => self.slice_dyn(*base, *lo, *width, span),
            Expr::StructLit(xs) | Expr::ArrayLit(xs) | Expr::Tuple(xs) => {
                let mut t = Time::constant();
                for x in xs {
                    t.join(&self.expr(*x));
                }
                t
            }
            _ => self.operation(e, expr, span),
        }
    }

    /// Operators, calls and accesses to stateful objects.
    fn operation(&mut self, e: ExprId, expr: &'a Expr, span: Span) -> Time {
        match expr {
            Expr::Unary(op, a) => {
                let mut t = self.expr(*a);
                if *op == UnaryOp::Neg {
                    let w = self.known_width(*a).or(self.known_width(e)).unwrap_or(64);
                    self.charge(
                        &mut t,
                        Cost::new(cost::carry_chain(w), format!("negate ({w} bits)")),
                        span,
                    );
                }
                t
            }
            Expr::Binary(op, a, b) => self.binary(e, *op, *a, *b, span),
            Expr::Select(c, a, b) => {
                // As an `if`/`else`: both operands computed in parallel with the condition, the
                // join a mux of 2 inputs (no LUT level of its own, cost.rs).
                let mut t = self.expr(*c);
                t.join(&self.expr(*a));
                t.join(&self.expr(*b));
                t
            }
            Expr::Call(f, args) => match self.module.functions.get(*f) {
                Some(func) => self.call(&func.body, args, span),
                None => Time::zero(),
            },
            Expr::CallAction(a, args) => match self.scope {
                Scope::Scu(scu) => match scu.actions.get(*a) {
                    Some(action) => self.call(&action.body, args, span),
                    None => Time::zero(),
                },
                Scope::Cc(_) => Time::zero(),
            },
            Expr::Intrinsic(i, args) => self.intrinsic(*i, args, span),
            Expr::Lookahead(n) => {
                let mut t = self.read(Key::Cursor);
                t.konst = false;
                self.charge(
                    &mut t,
                    Cost::new(cost::EXTRACT, format!("lookahead of {n} bits")),
                    span,
                );
                t
            }
            Expr::MapGet(m, k) => self.map_read(*m, *k, span, "lookup"),
            Expr::MapContains(m, k) => self.map_read(*m, *k, span, "contains"),
            Expr::MapInsert(m, k, v) => self.map_write(*m, *k, Some(*v), span, "insert"),
            Expr::MapRemove(m, k) => self.map_write(*m, *k, None, span, "remove"),
            Expr::MeterExceeds(m, idx, len) => self.meter(*m, *idx, *len, span),
            Expr::Apply(t) => self.apply(e, *t, span),
            Expr::ActionData { apply, .. } => self
                .applies
                .get(&(self.frame, *apply))
                .cloned()
                .unwrap_or_default(),
            _ => Time::zero(),
        }
    }

    /// `x[lo +: width]` with `lo` computed at run time: a barrel shifter.
    fn slice_dyn(&mut self, base: ExprId, lo: ExprId, width: u32, span: Span) -> Time {
        let offset = self.expr(lo);
        let mut t = Time::max(&self.expr(base), &offset);
        if offset.konst {
            // An unrolled loop's index: a fixed slice in every copy, wiring.
            return t;
        }
        let body = self.body;
        let bw = cost::width(self.module, &body.types[base]);
        let amount =
            cost::width(self.module, &body.types[lo]).saturating_sub(self.known_zero_low_bits(lo));
        let levels = amount.min(cost::log2_ceil(u64::from(bw)));
        let what = format!("{width}-bit slice at a run-time offset of a {bw}-bit value");
        self.charge(&mut t, Cost::new(cost::mux_levels(levels), what), span);
        t
    }

    /// An element of a header stack chosen at run time: a mux over the stack.
    fn stack_element(
        &mut self,
        mut t: Time,
        inst: InstId,
        index: Option<ExprId>,
        span: Span,
    ) -> Time {
        let Some(i) = index else {
            return t;
        };
        let it = self.expr(i);
        t.join(&it);
        if !it.konst {
            let n = match self.scope {
                Scope::Scu(scu) => scu.instances.get(inst).and_then(|x| x.stack).unwrap_or(1),
                Scope::Cc(_) => 1,
            };
            let levels = cost::log2_ceil(u64::from(n));
            let what = format!("select one of {n} stack elements at run time");
            self.charge(&mut t, Cost::new(cost::mux_levels(levels), what), span);
        }
        t
    }

    fn index(&mut self, base: ExprId, index: ExprId, span: Span) -> Time {
        let b = self.expr(base);
        let i = self.expr(index);
        let mut t = Time::max(&b, &i);
        if !i.konst {
            let n = match &self.body.types[base] {
                Type::Array(_, n) => *n,
                _ => 1,
            };
            let levels = cost::log2_ceil(u64::from(n));
            let what = format!("select one of {n} elements at run time");
            self.charge(&mut t, Cost::new(cost::mux_levels(levels), what), span);
        }
        t
    }

    fn binary(&mut self, e: ExprId, op: BinaryOp, a: ExprId, b: ExprId, span: Span) -> Time {
        let ta = self.expr(a);
        let tb = self.expr(b);
        let mut t = Time::max(&ta, &tb);
        let body = self.body;
        let lt = &body.types[a];
        // Operands of unknown type take the width of the other operand or of the result.
        let (wa, wb, we) = (
            self.known_width(a),
            self.known_width(b),
            self.known_width(e),
        );
        let lhs = wa.or(we).or(wb).unwrap_or(64);
        let rhs = wb.or(wa).or(we).unwrap_or(64);
        let inputs = BinaryInputs {
            lhs,
            rhs,
            signed: lt.is_signed(),
            rhs_const: const_value(body, b).filter(|_| tb.konst),
            lhs_const: const_value(body, a).filter(|_| ta.konst),
            shift_bits: rhs.saturating_sub(self.known_zero_low_bits(b)),
        };
        let c = cost::binary(op, inputs);
        let divides = matches!(op, BinaryOp::Div | BinaryOp::Rem | BinaryOp::DivScaled(_));
        if divides && inputs.rhs_const.is_none() && !t.konst {
            let msg = format!(
                "{}: about {} cycles of latency and a pipeline of that many {}-bit subtractors; \
                 a shift, a constant or a reciprocal kept in state is much cheaper",
                c.what, c.cycles, lhs
            );
            self.warnings.push((span, msg));
        }
        self.charge(&mut t, c, span);
        t
    }

    fn intrinsic(&mut self, i: Intrinsic, args: &[ExprId], span: Span) -> Time {
        let mut t = Time::constant();
        for a in args {
            t.join(&self.expr(*a));
        }
        let w = args
            .first()
            .and_then(|a| self.known_width(*a))
            .unwrap_or(64);
        let c = match i {
            Intrinsic::Min | Intrinsic::Max => {
                Cost::new(cost::carry_chain(w), format!("min/max ({w} bits)"))
            }
            Intrinsic::Crc32 => Cost::new(
                cost::xor_tree(w.saturating_add(32)),
                format!("crc32 over {w} bits"),
            ),
            Intrinsic::Crc16 => Cost::new(
                cost::xor_tree(w.saturating_add(16)),
                format!("crc16 over {w} bits"),
            ),
            Intrinsic::Toeplitz => Cost::new(
                cost::xor_tree(w.saturating_mul(2)),
                format!("toeplitz hash of {w} bits"),
            ),
            Intrinsic::Murmur3 => Cost::new(
                cost::murmur3(w.div_ceil(8)),
                format!("murmur3 of {} bytes", w.div_ceil(8)),
            ),
            Intrinsic::OnesComplement => Cost::new(
                cost::ones_complement(w),
                format!("ones' complement sum of {w} bits"),
            ),
            Intrinsic::ChecksumUpdate => {
                Cost::new(cost::CHECKSUM_UPDATE, "incremental checksum update")
            }
        };
        self.charge(&mut t, c, span);
        t
    }

    fn scu_map(&self, m: MapId) -> Option<&'a Map> {
        match self.scope {
            Scope::Scu(scu) => scu.maps.get(m),
            Scope::Cc(_) => None,
        }
    }

    /// A lookup: issued once the key is ready and any earlier write to the map is visible.
    fn map_read(&mut self, m: MapId, key: ExprId, span: Span, what: &str) -> Time {
        let mut t = self.expr(key);
        let Some(map) = self.scu_map(m) else {
            return t;
        };
        if let Some(w) = self.flow.last_write.get(&Obj::Map(m)) {
            t.join(w);
        }
        t.konst = false;
        let latency = cost::map_read(map.kind, map.size);
        let what = format!("map `{}` {what}", map.name);
        self.charge(&mut t, Cost::new(latency, what), span);
        t.add_dep(Obj::Map(m), latency);
        if let Some(Expr::Local(l)) = self.body.exprs.get(key) {
            self.flow.looked_up.insert(m, (self.frame, *l));
        }
        t
    }

    /// A write: a hash probe unless the key's slot is known from a lookup, then the write itself.
    fn map_write(
        &mut self,
        m: MapId,
        key: ExprId,
        value: Option<ExprId>,
        span: Span,
        what: &str,
    ) -> Time {
        let mut t = self.expr(key);
        if let Some(v) = value {
            t.join(&self.expr(v));
        }
        t.join(&self.guard);
        let Some(map) = self.scu_map(m) else {
            return t;
        };
        if let Some(w) = self.flow.last_write.get(&Obj::Map(m)) {
            t.join(w);
        }
        t.konst = false;
        let known = match self.body.exprs.get(key) {
            Some(Expr::Local(l)) => self.flow.looked_up.get(&m) == Some(&(self.frame, *l)),
            _ => false,
        };
        if !known && map.kind != MapKind::Array {
            let probe = cost::map_read(map.kind, map.size);
            let w = format!("map `{}` {what}: find the slot", map.name);
            self.charge(&mut t, Cost::new(probe, w), span);
            t.add_dep(Obj::Map(m), probe);
        }
        let w = format!("map `{}` {what}: write", map.name);
        self.charge(
            &mut t,
            Cost::new(cost::map_write(map.kind, map.size), w),
            span,
        );
        if let Some(d) = t.dep(Obj::Map(m)) {
            self.close(Obj::Map(m), d, span);
        }
        self.flow.last_write.insert(Obj::Map(m), t.clone());
        self.effect(&t)
    }

    fn meter(&mut self, m: MeterId, idx: Option<ExprId>, len: ExprId, span: Span) -> Time {
        let mut t = self.expr(len);
        if let Some(i) = idx {
            t.join(&self.expr(i));
        }
        t.join(&self.guard);
        t.konst = false;
        if let Scope::Scu(scu) = self.scope {
            if let Some(meter) = scu.meters.get(m) {
                let what = format!("check meter `{}`", meter.name);
                self.charge(&mut t, Cost::new(cost::meter(meter.size), what), span);
            }
        }
        self.effect(&t)
    }

    /// A table application: compute the key (in the table's key body), look it up, then run the
    /// table's actions as the arms of a branch on the result.
    fn apply(&mut self, e: ExprId, table: TableId, span: Span) -> Time {
        let Scope::Scu(scu) = self.scope else {
            return Time::zero();
        };
        let Some(tab) = scu.tables.get(table) else {
            return Time::zero();
        };
        let saved = (self.body, self.frame);
        self.body = &tab.key_body;
        self.frame = self.next_frame;
        self.next_frame += 1;
        let mut t = Time::zero();
        for k in &tab.keys {
            t.join(&self.expr(k.expr));
        }
        (self.body, self.frame) = saved;
        t.konst = false;
        let kinds: Vec<MatchKind> = tab.keys.iter().map(|k| k.kind).collect();
        let latency = cost::table(&kinds, tab.size, tab.const_entries.len(), tab.is_const);
        let kind = if kinds.iter().all(|k| *k == MatchKind::Exact) {
            "exact"
        } else {
            "lpm/ternary/range"
        };
        let what = format!("table `{}` lookup ({kind}, {} entries)", tab.name, tab.size);
        self.charge(&mut t, Cost::new(latency, what), span);
        let actions: Vec<&'a Body> = tab
            .actions
            .iter()
            .filter_map(|a| scu.actions.get(*a).map(|x| &x.body))
            .collect();
        let data = t.clone();
        self.arms(t.clone(), actions.len(), |s, i| {
            if let Some(body) = actions.get(i) {
                let args: Vec<Time> = body.params.iter().map(|_| data.clone()).collect();
                s.call_with(body, args);
            }
            Exit::default()
        });
        self.applies.insert((self.frame, e), t.clone());
        t
    }
}
