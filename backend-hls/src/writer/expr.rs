//! Expressions → C++ expressions of exactly their IR type.
//!
//! A pure expression (no call, table application, map or meter operation, lookahead inside) is
//! written inline: its evaluation order cannot be observed. An expression with an effect inside
//! is evaluated into temporaries in the interpreter's order: each operand left to right — a pure
//! operand that reads state (a CSR, a header, `meta`) is copied into a temporary at that point, so
//! that a later effect cannot change what it read — then the node itself; after anything that
//! may stop the packet comes `if (pk.halt) <halt_return>`.

use super::body::{BodyWriter, Ctx};
use crate::analysis::operands;
use crate::conv;
use crate::Error;
use scenic_ir::body::{BeatField, BinaryOp, Expr, Intrinsic, PacketField, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::types::Type;

impl BodyWriter<'_, '_> {
    /// Expression `e` as C++, emitting the temporaries it needs first.
    pub fn expr(&mut self, e: ExprId) -> Result<String, Error> {
        let body = self.body;
        let expr = &body.exprs[e];
        if !self.effectful[e] {
            let ops = operands(expr)
                .into_iter()
                .map(|o| self.expr(o))
                .collect::<Result<Vec<_>, _>>()?;
            return self.compose(e, &ops);
        }
        if let Expr::Binary(op @ (BinaryOp::LogicalAnd | BinaryOp::LogicalOr), a, b) = expr {
            return self.short_circuit(*op, *a, *b);
        }
        if let Expr::Select(c, a, b) = expr {
            return self.select(e, *c, *a, *b);
        }
        let mut ops = Vec::new();
        for o in operands(expr) {
            let text = self.expr(o)?;
            ops.push(self.hoist(o, text));
        }
        match expr {
            Expr::Apply(t) => self.apply(e, *t),
            Expr::Lookahead(n) => self.lookahead(*n),
            _ if crate::analysis::is_effect(expr) => {
                let text = self.compose(e, &ops)?;
                let ty = self.ty_of(e);
                let out = if *ty == Type::Unit {
                    if !text.is_empty() {
                        self.c.line(format!("{text};"));
                    }
                    String::new()
                } else {
                    let t = self.fresh("t");
                    let cty = self.w.ty(ty);
                    self.c.line(format!("{cty} {t} = {text};"));
                    t
                };
                if self.w.halts.node(expr) {
                    let ret = self.halt_return.clone();
                    self.c.line(format!("if (pk.halt) {ret}"));
                }
                Ok(out)
            }
            _ => self.compose(e, &ops),
        }
    }

    /// An operand of an effectful expression: kept as is when it is a constant, a local or
    /// already a temporary, else copied into a temporary now.
    fn hoist(&mut self, o: ExprId, text: String) -> String {
        let simple = matches!(
            self.body.exprs[o],
            Expr::Const(_) | Expr::Local(_) | Expr::ActionData { .. }
        );
        if simple || self.effectful[o] || text.is_empty() {
            return text;
        }
        let ty = self.ty_of(o);
        if matches!(ty, Type::Tuple(_) | Type::Unit) {
            return text;
        }
        let t = self.fresh("t");
        let cty = self.w.ty(ty);
        self.c.line(format!("{cty} {t} = {text};"));
        t
    }

    /// `a && b` / `a || b` whose right side has effects: it runs only when needed.
    fn short_circuit(&mut self, op: BinaryOp, a: ExprId, b: ExprId) -> Result<String, Error> {
        let l = self.expr(a)?;
        let t = self.fresh("t");
        self.c.line(format!("bool {t} = {l};"));
        if op == BinaryOp::LogicalAnd {
            self.c.open(format!("if ({t})"));
        } else {
            self.c.open(format!("if (!{t})"));
        }
        let r = self.expr(b)?;
        self.c.line(format!("{t} = {r};"));
        self.c.close("");
        Ok(t)
    }

    /// `if c { a } else { b }` with an effect inside: only the taken operand's code runs.
    fn select(&mut self, e: ExprId, c: ExprId, a: ExprId, b: ExprId) -> Result<String, Error> {
        let cond = self.expr(c)?;
        let ty = self.ty_of(e).clone();
        let t = if ty == Type::Unit {
            None
        } else {
            let t = self.fresh("t");
            let cty = self.w.ty(&ty);
            // Value-initialised, so that no compiler sees a read before the arms assign it.
            self.c.line(format!("{cty} {t} = {cty}();"));
            Some(t)
        };
        self.c.open(format!("if ({cond})"));
        let x = self.expr(a)?;
        self.select_arm(t.as_deref(), &x);
        self.c.close(" else {");
        let y = self.expr(b)?;
        self.select_arm(t.as_deref(), &y);
        self.c.close("");
        Ok(t.unwrap_or_default())
    }

    /// The end of one arm of [`Self::select`]: its value into the result temporary.
    fn select_arm(&mut self, t: Option<&str>, value: &str) {
        match t {
            Some(t) => self.c.line(format!("{t} = {value};")),
            None if !value.is_empty() => self.c.line(format!("{value};")),
            None => {}
        }
    }

    /// A table application: the result struct in a temporary; the value is the action position.
    fn apply(&mut self, e: ExprId, t: TableId) -> Result<String, Error> {
        let tmp = self.fresh(&format!("r_{}", self.w.scu.tables[t].name));
        let res = &self.w.names.table_res[t];
        let apply = &self.w.names.apply[t];
        self.c.line(format!("{res} {tmp} = {apply}(st, pk);"));
        if self.w.halts.tables.contains(&t) {
            let ret = self.halt_return.clone();
            self.c.line(format!("if (pk.halt) {ret}"));
        }
        self.applies.insert(e, tmp.clone());
        Ok(format!("{tmp}.action"))
    }

    /// `lookahead(n)`: the next n bits; `packet_too_short` when the packet ends first.
    fn lookahead(&mut self, n: u32) -> Result<String, Error> {
        let t = self.fresh("t");
        let ret = self.halt_return.clone();
        self.c.line(format!("ap_uint<{n}> {t} = 0;"));
        self.c.open(format!(
            "if (ap_uint<40>(pk.cur) + {n} > ap_uint<40>(pk.len) * 8)"
        ));
        self.c.line("pk_reject(pk, 0);  // packet_too_short");
        self.c.line(ret);
        self.c.close("");
        let range = super::parser::window_range(self.static_cur, self.w.window_bits(), 0, n);
        self.c.line(format!("{t} = pk.win.range({range});"));
        Ok(t)
    }

    /// The C++ text of expression `e` over its operands' texts `ops`.
    fn compose(&mut self, e: ExprId, ops: &[String]) -> Result<String, Error> {
        let w = self.w;
        let m = w.module;
        let ty = self.ty_of(e).clone();
        let cty = w.ty(&ty);
        let op = |i: usize| ops.get(i).cloned().unwrap_or_default();
        Ok(match &self.body.exprs[e] {
            Expr::Const(c) => match conv::width(m, &ty) {
                Some(_) => conv::literal(m, &ty, c),
                None => return Err(self.unsupported_expr("a constant of aggregate type", e)),
            },
            Expr::Local(l) => self.locals[*l].clone(),
            Expr::Csr(c) => format!("st.{}", w.names.csr[*c]),
            Expr::Meta(f) => format!("pk.meta.{}", self.meta_field(*f)),
            Expr::Header { inst, index } => self.inst_ref(*inst, index.map(|_| op(0))),
            Expr::HeaderField { inst, index, field } => {
                self.header_field(*inst, index.map(|_| op(0)), *field)
            }
            Expr::HeaderValid { inst, index } => {
                format!("{}.valid", self.inst_ref(*inst, index.map(|_| op(0))))
            }
            Expr::Packet(f) => self.packet_field(*f, e)?,
            Expr::Beat(BeatField::Last | BeatField::Keep) | Expr::FlowId => {
                super::stream::word_expr(self, e)?
            }
            Expr::CcState(s) => match &self.cc {
                Some(cc) => cc.state(*s),
                None => return Err(self.unsupported_expr("congestion-controller state", e)),
            },
            Expr::CcParam(p) => match &self.cc {
                Some(cc) => cc.param(*p),
                None => return Err(self.unsupported_expr("congestion-controller state", e)),
            },
            Expr::Field { base, field } => self.field(*base, *field, &op(0), e)?,
            Expr::Index { .. } => format!("({}).e[{}]", op(0), op(1)),
            Expr::Slice { hi, lo, .. } => slice(*hi, *lo, &op(0)),
            Expr::SliceDyn { width, .. } => {
                format!("ap_uint<{width}>(scn::bits({}) >> ({}))", op(0), op(1))
            }
            Expr::Unary(u, _) => unary(*u, &cty, &op(0)),
            Expr::Binary(b, l, r) => self.binary(*b, *l, *r, &ty, &op(0), &op(1), e)?,
            Expr::Cast(inner) => conv::cast(m, self.ty_of(*inner), &ty, &op(0)),
            // Both operands converted to the result type, so that `?:` has one type.
            Expr::Select(..) => format!("({} ? {cty}({}) : {cty}({}))", op(0), op(1), op(2)),
            Expr::Call(f, _) => call(&w.names.func[*f], ops),
            // An action with an empty body is not written out: calling it does nothing.
            Expr::CallAction(a, _) if w.scu.actions[*a].body.block.stmts.is_empty() => {
                String::new()
            }
            Expr::CallAction(a, _) => call(&w.names.action[*a], ops),
            Expr::Intrinsic(which, args) => self.intrinsic(*which, args, ops),
            Expr::Lookahead(_) | Expr::Apply(_) => {
                return Err(self.unsupported_expr("an effect in a pure position", e))
            }
            Expr::MapGet(map, _) => format!("st.{}.get({})", w.names.map[*map], op(0)),
            Expr::MapContains(map, _) => {
                format!("st.{}.contains({})", w.names.map[*map], op(0))
            }
            Expr::MapInsert(map, _, _) => {
                format!("st.{}.insert({}, {})", w.names.map[*map], op(0), op(1))
            }
            Expr::MapRemove(map, _) => format!("st.{}.remove({})", w.names.map[*map], op(0)),
            Expr::MeterExceeds(meter, index, _) => {
                meter_exceeds(&w.names.meter[*meter], index.is_some(), ops)
            }
            Expr::ActionData {
                apply,
                action,
                param,
            } => self.action_data(*apply, *action, *param, &ty),
            Expr::StructLit(_) => match &ty {
                Type::Header(h) => format!("make_{}({})", w.names.hdr[*h], ops.join(", ")),
                _ => format!("make_{cty}({})", ops.join(", ")),
            },
            Expr::ArrayLit(_) => format!("make_{cty}({})", ops.join(", ")),
            Expr::Tuple(_) => return Err(self.unsupported_expr("a tuple outside a match", e)),
        })
    }

    /// Field `field` of header instance `inst` (element `index` of a stack).
    fn header_field(&self, inst: InstId, index: Option<String>, field: u32) -> String {
        let h = self.inst_ref(inst, index);
        let hdr = self.w.scu.instances[inst].header;
        format!("{h}.{}", self.w.names.hdr_fields[hdr][field as usize])
    }

    /// Parameter `param` of action `action` in the result of table application `apply`; zero when
    /// the application's result has no name here.
    fn action_data(&self, apply: ExprId, action: u32, param: u32, ty: &Type) -> String {
        match self.applies.get(&apply) {
            Some(t) => format!("{t}.a{action}_{param}"),
            None => self.w.zero(ty),
        }
    }

    fn meta_field(&self, f: u32) -> String {
        self.w
            .scu
            .meta
            .and_then(|m| self.w.names.st_fields.get(m))
            .and_then(|fields| fields.get(f as usize))
            .cloned()
            .unwrap_or_else(|| format!("f{f}"))
    }

    /// `pk.inst` or `pk.inst[index]`.
    pub fn inst_ref(&self, inst: InstId, index: Option<String>) -> String {
        let name = &self.w.names.inst[inst];
        match (index, self.w.scu.instances[inst].stack) {
            (Some(i), Some(_)) => format!("pk.{name}[{i}]"),
            (None, Some(_)) => format!("pk.{name}[0]"),
            _ => format!("pk.{name}"),
        }
    }

    fn packet_field(&self, f: PacketField, e: ExprId) -> Result<String, Error> {
        if self.ctx != Ctx::Packet {
            return Err(self.unsupported_expr("`packet` outside per-packet code", e));
        }
        Ok(match f {
            PacketField::Len => "ap_uint<16>(pk.len)".into(),
            PacketField::Port => "pk.port".into(),
            PacketField::Timestamp => "pk.ts".into(),
        })
    }

    fn field(&self, base: ExprId, field: u32, b: &str, e: ExprId) -> Result<String, Error> {
        let n = &self.w.names;
        Ok(match self.ty_of(base) {
            Type::Struct(s) => format!("({b}).{}", n.st_fields[*s][field as usize]),
            Type::Header(h) => format!("({b}).{}", n.hdr_fields[*h][field as usize]),
            _ => return Err(self.unsupported_expr("a field of a tuple", e)),
        })
    }

    fn intrinsic(&self, which: Intrinsic, args: &[ExprId], ops: &[String]) -> String {
        let a = |i: usize| ops.get(i).cloned().unwrap_or_default();
        let bits = |i: usize| {
            let t = args.get(i).map(|x| self.ty_of(*x));
            match t {
                Some(Type::Bits(_)) => a(i),
                _ => format!("scn::bits({})", a(i)),
            }
        };
        match which {
            Intrinsic::Min => format!("scenic::min({}, {})", a(0), a(1)),
            Intrinsic::Max => format!("scenic::max({}, {})", a(0), a(1)),
            Intrinsic::Crc32 => format!("scenic::crc32({})", bits(0)),
            Intrinsic::Crc16 => format!("scenic::crc16({})", bits(0)),
            Intrinsic::Murmur3 => format!("scenic::murmur3_32({}, {})", bits(0), bits(1)),
            Intrinsic::Toeplitz => format!("scenic::toeplitz({}, {})", bits(0), bits(1)),
            Intrinsic::OnesComplement => format!("scenic::ones_complement({})", bits(0)),
            Intrinsic::ChecksumUpdate => format!(
                "scenic::checksum_update({}, {}, {})",
                bits(0),
                bits(1),
                bits(2)
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &self,
        op: BinaryOp,
        l: ExprId,
        r: ExprId,
        ty: &Type,
        a: &str,
        b: &str,
        e: ExprId,
    ) -> Result<String, Error> {
        let cty = self.w.ty(ty);
        let lty = self.ty_of(l);
        let is_bool = *lty == Type::Bool;
        let scalar = conv::width(self.w.module, lty).is_some();
        Ok(match op {
            BinaryOp::Add => format!("{cty}({a} + {b})"),
            BinaryOp::Sub => format!("{cty}({a} - {b})"),
            BinaryOp::Mul => match lty {
                Type::Fixed { frac, .. } => format!("scn::mul_scaled<{frac}>({a}, {b})"),
                _ => format!("{cty}({a} * {b})"),
            },
            BinaryOp::Div => match lty {
                Type::Fixed { frac, .. } => format!("scn::div_scaled<{frac}>({a}, {b})"),
                _ => format!("scn::div({a}, {b})"),
            },
            BinaryOp::Rem => format!("scn::rem({a}, {b})"),
            BinaryOp::SatAdd => format!("scn::sat_add({a}, {b})"),
            BinaryOp::SatSub => format!("scn::sat_sub({a}, {b})"),
            BinaryOp::And if is_bool => format!("bool({a} & {b})"),
            BinaryOp::Or if is_bool => format!("bool({a} | {b})"),
            BinaryOp::Xor if is_bool => format!("bool({a} != {b})"),
            BinaryOp::And => format!("{cty}({a} & {b})"),
            BinaryOp::Or => format!("{cty}({a} | {b})"),
            BinaryOp::Xor => format!("{cty}({a} ^ {b})"),
            BinaryOp::Shl | BinaryOp::Shr => self.shift(op, r, ty, a, b),
            BinaryOp::Concat => {
                let wl = conv::width(self.w.module, lty).unwrap_or(1);
                let wr = conv::width(self.w.module, self.ty_of(r)).unwrap_or(1);
                format!("ap_uint<{}>((scn::bits({a}), scn::bits({b})))", wl + wr)
            }
            BinaryOp::Eq | BinaryOp::Ne if !scalar => {
                return Err(self.unsupported_expr("comparing headers, structs or arrays", e))
            }
            BinaryOp::Eq => format!("({a} == {b})"),
            BinaryOp::Ne => format!("({a} != {b})"),
            BinaryOp::Lt => format!("({a} < {b})"),
            BinaryOp::Le => format!("({a} <= {b})"),
            BinaryOp::Gt => format!("({a} > {b})"),
            BinaryOp::Ge => format!("({a} >= {b})"),
            BinaryOp::LogicalAnd => format!("({a} && {b})"),
            BinaryOp::LogicalOr => format!("({a} || {b})"),
            BinaryOp::MulScaled(f) => format!("scn::mul_scaled<{f}>({a}, {})", self.unsigned(r, b)),
            BinaryOp::DivScaled(f) => format!("scn::div_scaled<{f}>({a}, {})", self.unsigned(r, b)),
        })
    }

    /// The right operand of a scaled product or quotient as an `ap_uint`.
    fn unsigned(&self, r: ExprId, b: &str) -> String {
        match self.ty_of(r) {
            Type::Int(_) | Type::Bool => format!("scn::bits({b})"),
            _ => b.to_string(),
        }
    }

    /// `<<` and `>>`: by a constant, a plain shift (or the constant result past the width); by a
    /// run-time amount, the helpers that give 0 (or -1) past the width.
    fn shift(&self, op: BinaryOp, r: ExprId, ty: &Type, a: &str, b: &str) -> String {
        let cty = self.w.ty(ty);
        let width = conv::width(self.w.module, ty).unwrap_or(1);
        let sym = if op == BinaryOp::Shl { "<<" } else { ">>" };
        if let Expr::Const(c) = &self.body.exprs[r] {
            let k = c.to_u64().unwrap_or(u64::MAX);
            if k < u64::from(width) {
                return format!("{cty}({a} {sym} {k})");
            }
            return match (op, ty) {
                (BinaryOp::Shr, Type::Int(_)) => format!("{cty}({a} < 0 ? -1 : 0)"),
                _ => format!("{cty}(0)"),
            };
        }
        let f = if op == BinaryOp::Shl { "shl" } else { "shr" };
        let amount = match self.ty_of(r) {
            Type::Bits(_) => b.to_string(),
            _ => format!("scn::bits({b})"),
        };
        format!("scn::{f}({a}, {amount})")
    }
}

/// A unary operation of C++ type `cty` on operand `a`.
fn unary(op: UnaryOp, cty: &str, a: &str) -> String {
    match op {
        UnaryOp::Not => format!("(!{a})"),
        UnaryOp::BitNot => format!("{cty}(~{a})"),
        // Wrapping negation (fixed values: 0 - x, wrapped), for int and fixed alike.
        UnaryOp::Neg => format!("{cty}({cty}(0) - {a})"),
    }
}

/// A call of a generated function or action: the state and the packet, then the operands.
fn call(name: &str, ops: &[String]) -> String {
    let mut args = vec!["st".to_string(), "pk".to_string()];
    args.extend(ops.iter().cloned());
    format!("{name}({})", args.join(", "))
}

/// Whether a packet exceeds meter `meter` now. The operands are the cell index (when the meter
/// call has one, else the cell is 0), then the packet's length.
fn meter_exceeds(meter: &str, has_index: bool, ops: &[String]) -> String {
    let op = |i: usize| ops.get(i).cloned().unwrap_or_default();
    let (index, len) = if has_index {
        (op(0), op(1))
    } else {
        ("0".to_string(), op(0))
    };
    format!("st.{meter}.exceeds(ap_uint<32>({index}), ap_uint<64>({len}), pk.ts)")
}

/// Bits `hi` down to `lo` of `base`.
fn slice(hi: u32, lo: u32, base: &str) -> String {
    format!(
        "ap_uint<{}>(scn::bits({base}).range({hi}, {lo}))",
        hi - lo + 1
    )
}
