//! Expressions: each IR expression becomes a P4 expression string, and what P4 cannot say in an
//! expression (a guarded read, `min`, a checksum, a division that must give 0 for 0) becomes
//! pre-statements written before the statement that uses it.
//!
//! Pre-statements only compute pure values into fresh temporaries, so running them before the
//! statement, even for an operand that `&&` or `||` would not evaluate, changes nothing. Binary
//! operations are parenthesised (P4's `&` binds looser than `==`, as in C), and every literal has
//! its width.

use super::body::{BodyWriter, Kind};
use super::target;
use crate::analysis::csr::CsrKind;
use crate::analysis::facts::header_key;
use crate::analysis::restrict::{constant, is_power_of_two};
use crate::conv;
use crate::error::{Construct, Error};
use crate::Target;
use scenic_ir::body::{BinaryOp, Intrinsic, UnaryOp};
use scenic_ir::{Expr, ExprId, InstId, Type};

impl BodyWriter<'_, '_> {
    /// The type of an expression.
    pub fn ty(&self, id: ExprId) -> Type {
        self.body.types.get(id).cloned().unwrap_or_default()
    }

    /// The P4 type of an expression.
    pub fn p4_type(&self, ty: &Type) -> String {
        super::types::type_name(self.cx, ty)
    }

    fn width(&self, ty: &Type) -> u32 {
        conv::scalar_width(ty, self.cx.module).unwrap_or(1).max(1)
    }

    /// A fresh temporary of type `ty`, declared in the pre-statements.
    pub fn temp(&mut self, ty: &str, init: Option<&str>) -> String {
        let name = self.namer.helper("t");
        match init {
            Some(v) => self.pre.line(format!("{ty} {name} = {v};")),
            None => self.pre.line(format!("{ty} {name};")),
        }
        name
    }

    /// Records an error for a construct reached while writing.
    pub fn unsupported(&mut self, construct: Construct, id: ExprId) {
        let span = self.body.spans.get(id).copied().unwrap_or_default();
        self.errors.push(Error::Unsupported {
            construct,
            target: self.cx.target,
            span,
            related: Vec::new(),
        });
    }

    /// An expression; pre-statements go to `self.pre`.
    pub fn expr(&mut self, id: ExprId) -> String {
        let Some(e) = self.body.exprs.get(id).cloned() else {
            return "false".into();
        };
        match e {
            Expr::Const(c) => self.cx.literal(&c, &self.ty(id)),
            Expr::Local(l) => self
                .locals
                .get(&l)
                .cloned()
                .unwrap_or_else(|| format!("scenic_missing_{l}")),
            Expr::Csr(c) => self.csr_value(c),
            Expr::Meta(i) => format!(
                "meta.{}",
                self.cx
                    .names
                    .meta_fields
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_default()
            ),
            Expr::Header { inst, index } => self.header_ref(inst, index),
            Expr::HeaderField { inst, index, field } => self.header_field(id, inst, index, field),
            Expr::HeaderValid { inst, index } => {
                format!("{}.isValid()", self.header_ref(inst, index))
            }
            Expr::Packet(f) => target::packet_field(self.cx, f),
            Expr::Field { base, field } => self.field(base, field),
            Expr::Slice { base, hi, lo } => format!("{}[{hi}:{lo}]", self.operand(base)),
            Expr::Unary(op, a) => self.unary(op, a),
            Expr::Binary(op, a, b) => self.binary(id, op, a, b),
            Expr::Cast(a) => self.cast(a, &self.ty(id)),
            Expr::Select(c, a, b) => self.select(id, c, a, b),
            Expr::Intrinsic(which, args) => self.intrinsic(id, which, &args),
            Expr::Lookahead(n) => {
                let v = format!("packet.lookahead<bit<{n}>>()");
                self.temp(&format!("bit<{n}>"), Some(&v))
            }
            Expr::ActionData {
                action,
                apply,
                param,
            } => self.action_data(apply, action, param),
            Expr::StructLit(fields) => self.struct_lit(id, &fields),
            Expr::Index { .. } | Expr::ArrayLit(_) => {
                self.unsupported(Construct::Array, id);
                "false".into()
            }
            Expr::SliceDyn { .. } => {
                self.unsupported(Construct::RuntimeIndex, id);
                "false".into()
            }
            other => {
                self.errors.push(Error::Internal(format!(
                    "expression {other:?} has no P4 form here"
                )));
                "false".into()
            }
        }
    }

    /// An operand: a binary expression is already parenthesised; a cast gets parentheses.
    fn operand(&mut self, id: ExprId) -> String {
        let s = self.expr(id);
        if s.starts_with("(bit<")
            || s.starts_with("(int<")
            || s.starts_with("(bool)")
            || s.starts_with('-')
        {
            format!("({s})")
        } else {
            s
        }
    }

    fn csr_value(&mut self, c: scenic_ir::CsrId) -> String {
        let name = self
            .cx
            .names
            .csrs
            .get(&c)
            .map(|(_, var)| var.clone())
            .unwrap_or_default();
        match self.cx.plan.csrs.get(&c) {
            Some(CsrKind::MetaInput) => format!("meta.{name}"),
            _ => name,
        }
    }

    /// `hdr.inst` or `hdr.inst[i]`.
    pub fn header_ref(&mut self, inst: InstId, index: Option<ExprId>) -> String {
        let name = self
            .cx
            .names
            .instances
            .get(&inst)
            .cloned()
            .unwrap_or_default();
        match index.and_then(|i| constant(self.body, i)) {
            Some(i) => format!("hdr.{name}[{i}]"),
            None if index.is_some() => {
                if let Some(i) = index {
                    self.unsupported(Construct::RuntimeIndex, i);
                }
                format!("hdr.{name}[0]")
            }
            None => format!("hdr.{name}"),
        }
    }

    /// A header field read: direct when the header is known valid, 0 when known invalid, guarded
    /// otherwise.
    fn header_field(
        &mut self,
        id: ExprId,
        inst: InstId,
        index: Option<ExprId>,
        field: u32,
    ) -> String {
        let header = self.header_ref(inst, index);
        let fname = self.field_name_of_inst(inst, field);
        let ty = self.ty(id);
        let known = header_key(self.body, inst, index).and_then(|k| self.facts.get(k));
        match known {
            Some(true) => format!("{header}.{fname}"),
            Some(false) => self.cx.literal(&scenic_ir::Const::zero(), &ty),
            None if self.kind == Kind::Parser => {
                let name = self
                    .cx
                    .scu
                    .instances
                    .get(inst)
                    .map(|i| i.name.clone())
                    .unwrap_or_default();
                self.unsupported(Construct::MaybeInvalidInParser { header: name }, id);
                format!("{header}.{fname}")
            }
            None => self.guarded(&header, &format!("{header}.{fname}"), &ty),
        }
    }

    /// `t = 0; if (h.isValid()) { t = read; }`.
    fn guarded(&mut self, header: &str, read: &str, ty: &Type) -> String {
        let zero = self.cx.literal(&scenic_ir::Const::zero(), ty);
        let p4 = self.p4_type(ty);
        let t = self.temp(&p4, Some(&zero));
        self.pre.open(format!("if ({header}.isValid()) {{"));
        self.pre.line(format!("{t} = {read};"));
        self.pre.close("}");
        self.conditional = true;
        t
    }

    fn field_name_of_inst(&self, inst: InstId, field: u32) -> String {
        let header = self.cx.scu.instances.get(inst).map(|i| i.header);
        header
            .and_then(|h| self.cx.names.header_fields.get(&h))
            .and_then(|f| f.get(field as usize))
            .cloned()
            .unwrap_or_default()
    }

    fn field(&mut self, base: ExprId, field: u32) -> String {
        let base_ty = self.ty(base);
        let b = self.operand(base);
        match &base_ty {
            Type::Struct(s) => {
                let f = self
                    .cx
                    .names
                    .struct_fields
                    .get(s)
                    .and_then(|f| f.get(field as usize))
                    .cloned()
                    .unwrap_or_default();
                format!("{b}.{f}")
            }
            Type::Header(h) => {
                let f = self
                    .cx
                    .names
                    .header_fields
                    .get(h)
                    .and_then(|f| f.get(field as usize))
                    .cloned()
                    .unwrap_or_default();
                let ty = self
                    .cx
                    .module
                    .headers
                    .get(*h)
                    .and_then(|l| l.fields.get(field as usize))
                    .map(|f| f.ty.clone())
                    .unwrap_or_default();
                self.guarded(&b, &format!("{b}.{f}"), &ty)
            }
            _ => b,
        }
    }

    fn unary(&mut self, op: UnaryOp, a: ExprId) -> String {
        let x = self.operand(a);
        match op {
            UnaryOp::Neg => format!("(-{x})"),
            UnaryOp::Not => format!("(!{x})"),
            UnaryOp::BitNot => format!("(~{x})"),
        }
    }

    fn binary(&mut self, id: ExprId, op: BinaryOp, a: ExprId, b: ExprId) -> String {
        let ta = self.ty(a);
        let is_bool = ta == Type::Bool;
        match op {
            BinaryOp::Div | BinaryOp::Rem => return self.divide(id, op == BinaryOp::Rem, a, b),
            BinaryOp::MulScaled(frac) => return self.mul_scaled(id, frac, a, b),
            BinaryOp::DivScaled(frac) => return self.div_scaled(id, frac, a, b),
            _ => {}
        }
        let x = self.operand(a);
        // The right operand of `&&`/`||` runs only when the left one did not decide: read it
        // with what the left one implies (`!h.valid() || h.f == 0` reads a valid `h`).
        let short = match op {
            BinaryOp::LogicalAnd | BinaryOp::And if is_bool => Some(true),
            BinaryOp::LogicalOr | BinaryOp::Or if is_bool => Some(false),
            _ => None,
        };
        let saved = self.facts.clone();
        if let Some(truth) = short {
            self.facts.assume(self.body, a, truth);
        }
        let y = self.operand(b);
        self.facts = saved;
        let (x, y) = if op == BinaryOp::Concat {
            (self.as_bits(x, &ta), {
                let tb = self.ty(b);
                self.as_bits(y, &tb)
            })
        } else {
            (x, y)
        };
        let sym = match op {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::SatAdd => "|+|",
            BinaryOp::SatSub => "|-|",
            BinaryOp::Mul => "*",
            BinaryOp::And if is_bool => "&&",
            BinaryOp::Or if is_bool => "||",
            BinaryOp::Xor if is_bool => "!=",
            BinaryOp::And => "&",
            BinaryOp::Or => "|",
            BinaryOp::Xor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Concat => "++",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::LogicalAnd => "&&",
            BinaryOp::LogicalOr => "||",
            _ => "+",
        };
        format!("({x} {sym} {y})")
    }

    /// A signed operand of `++` as its bits.
    fn as_bits(&self, s: String, ty: &Type) -> String {
        match ty {
            Type::Int(n) => format!("((bit<{n}>){s})"),
            _ => s,
        }
    }

    /// `/` and `%`: by a power of two a shift or a mask; otherwise (v1model) guarded so that
    /// division by zero gives 0.
    fn divide(&mut self, id: ExprId, remainder: bool, a: ExprId, b: ExprId) -> String {
        let ty = self.ty(id);
        let w = self.width(&ty);
        if let Some(k) = constant(self.body, b).filter(is_power_of_two) {
            let x = self.operand(a);
            let shift = k.bits() - 1;
            return if remainder {
                let mask = k - 1u32;
                format!("({x} & {})", conv::bits_literal(&mask, w))
            } else {
                format!("({x} >> {shift})")
            };
        }
        if self.cx.target == Target::VitisP4 || ty.is_signed() {
            self.unsupported(
                Construct::Division {
                    remainder,
                    signed: ty.is_signed(),
                },
                id,
            );
            return "false".into();
        }
        let x = self.operand(a);
        let y = self.operand(b);
        let p4 = self.p4_type(&ty);
        let zero = conv::bits_literal(&Default::default(), w);
        let t = self.temp(&p4, Some(&zero));
        self.pre.open(format!("if ({y} != {zero}) {{"));
        self.pre.line(format!(
            "{t} = {x} {} {y};",
            if remainder { "%" } else { "/" }
        ));
        self.pre.close("}");
        self.conditional = true;
        t
    }

    /// `(lhs * rhs) >> frac` in a width that cannot overflow, truncated to lhs's width.
    fn mul_scaled(&mut self, id: ExprId, frac: u32, a: ExprId, b: ExprId) -> String {
        let w = self.width(&self.ty(id));
        let wb = self.width(&self.ty(b));
        let wide = w + wb;
        let x = self.operand(a);
        let y = self.operand(b);
        format!("((bit<{w}>)((((bit<{wide}>){x}) * ((bit<{wide}>){y})) >> {frac}))")
    }

    /// `(lhs << frac) / rhs`, 0 when rhs is 0, truncated to lhs's width.
    fn div_scaled(&mut self, id: ExprId, frac: u32, a: ExprId, b: ExprId) -> String {
        let w = self.width(&self.ty(id));
        let wb = self.width(&self.ty(b));
        let wide = (w + frac).max(wb);
        let x = self.operand(a);
        if let Some(k) = constant(self.body, b).filter(is_power_of_two) {
            let shift = k.bits() - 1;
            return format!("((bit<{w}>)((((bit<{wide}>){x}) << {frac}) >> {shift}))");
        }
        if self.cx.target == Target::VitisP4 {
            self.unsupported(
                Construct::Division {
                    remainder: false,
                    signed: false,
                },
                id,
            );
            return "false".into();
        }
        let y = self.operand(b);
        let t = self.temp(&format!("bit<{w}>"), Some(&format!("{w}w0")));
        self.pre.open(format!("if ({y} != {wb}w0) {{"));
        self.pre.line(format!(
            "{t} = (bit<{w}>)((((bit<{wide}>){x}) << {frac}) / ((bit<{wide}>){y}));"
        ));
        self.pre.close("}");
        self.conditional = true;
        t
    }

    /// A cast, following the cast table of docs/language.md §4.9 (and the interpreter's `cast`).
    fn cast(&mut self, a: ExprId, to: &Type) -> String {
        let from = self.ty(a);
        let x = self.operand(a);
        if &from == to {
            return x;
        }
        let tw = self.width(to);
        let fw = self.width(&from);
        match (&from, to) {
            (Type::Bool, Type::Bits(1)) => format!("((bit<1>){x})"),
            (Type::Bits(1), Type::Bool) => format!("((bool){x})"),
            (Type::Bool, _) => self.cast_bits(&format!("((bit<1>){x})"), 1, to),
            (Type::Int(_), Type::Int(n)) => format!("((int<{n}>){x})"),
            (Type::Int(_), _) => self.cast_bits(&format!("((bit<{tw}>)((int<{tw}>){x}))"), tw, to),
            (Type::Fixed { frac: f, .. }, Type::Fixed { frac: g, .. }) if g >= f => {
                format!("(((bit<{tw}>){x}) << {})", g - f)
            }
            (Type::Fixed { frac: f, .. }, Type::Fixed { frac: g, .. }) => {
                format!("((bit<{tw}>)({x} >> {}))", f - g)
            }
            (Type::Fixed { frac, .. }, _) => {
                self.cast_bits(&format!("((bit<{tw}>)({x} >> {frac}))"), tw, to)
            }
            _ => {
                let resized = if fw == tw {
                    x
                } else {
                    format!("((bit<{tw}>){x})")
                };
                self.cast_bits(&resized, tw, to)
            }
        }
    }

    /// A `bit<w>` value already of the target's width, reinterpreted as `to`.
    fn cast_bits(&self, bits: &str, w: u32, to: &Type) -> String {
        match to {
            Type::Int(n) => format!("((int<{n}>){bits})"),
            Type::Fixed { frac, .. } => format!("({bits} << {frac})"),
            Type::Bool => format!("((bool)((bit<1>){bits}))"),
            _ => {
                let _ = w;
                bits.to_string()
            }
        }
    }

    /// `if c { a } else { b }`. The operands are pure here (P4 expressions have no effects), so
    /// computing both changes nothing. v1model: P4's `c ? a : b`. Vitis Networking P4 has no `?:`
    /// (UG1308, "Supported P416 Language Features"): a temporary holding `b`, set to `a` under
    /// `if (c)`, as for `min` (a branch, so not in a parser state).
    fn select(&mut self, id: ExprId, c: ExprId, a: ExprId, b: ExprId) -> String {
        let (c, a, b) = (self.operand(c), self.operand(a), self.operand(b));
        if self.cx.target == Target::V1Model {
            return format!("({c} ? {a} : {b})");
        }
        let p4 = self.p4_type(&self.ty(id));
        let t = self.temp(&p4, Some(&b));
        self.pre.open(format!("if ({}) {{", super::body::strip(&c)));
        self.pre.line(format!("{t} = {a};"));
        self.pre.close("}");
        self.conditional = true;
        t
    }

    fn intrinsic(&mut self, id: ExprId, which: Intrinsic, args: &[ExprId]) -> String {
        let ty = self.ty(id);
        let p4 = self.p4_type(&ty);
        let a: Vec<String> = args.iter().map(|&x| self.operand(x)).collect();
        let arg = |i: usize| a.get(i).cloned().unwrap_or_default();
        match which {
            Intrinsic::Min | Intrinsic::Max => {
                let t = self.temp(&p4, Some(&arg(0)));
                let cmp = if which == Intrinsic::Min { "<" } else { ">" };
                self.pre.open(format!("if ({} {cmp} {t}) {{", arg(1)));
                self.pre.line(format!("{t} = {};", arg(1)));
                self.pre.close("}");
                self.conditional = true;
                t
            }
            Intrinsic::ChecksumUpdate => self.checksum_update(&arg(0), &arg(1), &arg(2)),
            Intrinsic::OnesComplement => {
                let w = args.first().map(|&x| self.width(&self.ty(x))).unwrap_or(16);
                self.ones_complement(&arg(0), w)
            }
            Intrinsic::Crc32 | Intrinsic::Crc16 if self.cx.target == Target::V1Model => {
                let (algo, w, max) = if which == Intrinsic::Crc32 {
                    ("crc32", 32, "64w0x100000000")
                } else {
                    ("crc16", 16, "32w0x10000")
                };
                let t = self.temp(&format!("bit<{w}>"), None);
                self.pre.line(format!(
                    "hash({t}, HashAlgorithm.{algo}, {w}w0, {{ {} }}, {max});",
                    arg(0)
                ));
                t
            }
            _ => {
                self.errors
                    .push(Error::Internal(format!("{which:?} reached the P4 writer")));
                "false".into()
            }
        }
    }

    /// RFC 1624 eqn. 3 in 32-bit arithmetic: ~(~hc + ~old + new), the carries folded twice (three
    /// 16-bit words sum to less than 2^18, so two folds reach 16 bits, as the interpreter's loop).
    fn checksum_update(&mut self, hc: &str, old: &str, new: &str) -> String {
        let s = self.temp(
            "bit<32>",
            Some(&format!(
                "((bit<32>)(~{hc})) + ((bit<32>)(~{old})) + ((bit<32>){new})"
            )),
        );
        self.pre
            .line(format!("{s} = ({s} & 32w0xffff) + ({s} >> 16);"));
        self.pre
            .line(format!("{s} = ({s} & 32w0xffff) + ({s} >> 16);"));
        self.temp("bit<16>", Some(&format!("~((bit<16>){s})")))
    }

    /// The Internet checksum of a value of `w` bits (a multiple of 16): the `InternetChecksum`
    /// extern in a Vitis control, v1model's `csum16` hash, and in a parser the sum written out.
    fn ones_complement(&mut self, data: &str, w: u32) -> String {
        match (self.cx.target, self.kind) {
            (Target::VitisP4, Kind::Control | Kind::Action | Kind::Deparser) => {
                let unit = self.shared.internet_checksum(self.namer);
                self.pre.line(format!("{unit}.clear();"));
                self.pre.line(format!("{unit}.add({{ {data} }});"));
                let t = self.temp("bit<16>", None);
                self.pre.line(format!("{t} = {unit}.get();"));
                t
            }
            (Target::V1Model, Kind::Control | Kind::Action | Kind::Deparser) => {
                let t = self.temp("bit<16>", None);
                self.pre.line(format!(
                    "hash({t}, HashAlgorithm.csum16, 16w0, {{ {data} }}, 32w0x10000);"
                ));
                t
            }
            _ => {
                let words: Vec<String> = (0..w / 16)
                    .map(|i| format!("((bit<32>){data}[{}:{}])", w - 1 - 16 * i, w - 16 - 16 * i))
                    .collect();
                let s = self.temp("bit<32>", Some(&words.join(" + ")));
                self.pre
                    .line(format!("{s} = ({s} & 32w0xffff) + ({s} >> 16);"));
                self.pre
                    .line(format!("{s} = ({s} & 32w0xffff) + ({s} >> 16);"));
                self.temp("bit<16>", Some(&format!("~((bit<16>){s})")))
            }
        }
    }

    fn action_data(&mut self, apply: ExprId, action: u32, param: u32) -> String {
        let table = match self.body.exprs.get(apply) {
            Some(Expr::Apply(t)) => *t,
            _ => return "false".into(),
        };
        let Some(a) = self
            .cx
            .scu
            .tables
            .get(table)
            .and_then(|t| t.actions.get(action as usize))
            .copied()
        else {
            return "false".into();
        };
        self.shared
            .action_data
            .get(&(a, param))
            .cloned()
            .unwrap_or_default()
    }

    fn struct_lit(&mut self, id: ExprId, fields: &[ExprId]) -> String {
        let ty = self.ty(id);
        let p4 = self.p4_type(&ty);
        let names: Vec<String> = match &ty {
            Type::Struct(s) => self
                .cx
                .names
                .struct_fields
                .get(s)
                .cloned()
                .unwrap_or_default(),
            Type::Header(h) => self
                .cx
                .names
                .header_fields
                .get(h)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let values: Vec<String> = fields.iter().map(|&f| self.expr(f)).collect();
        let t = self.temp(&p4, None);
        if matches!(ty, Type::Header(_)) {
            self.pre.line(format!("{t}.setValid();"));
        }
        for (name, value) in names.iter().zip(values) {
            self.pre.line(format!("{t}.{name} = {value};"));
        }
        t
    }
}
