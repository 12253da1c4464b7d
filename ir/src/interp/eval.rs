//! Evaluating expressions.

use super::bits::{read_bits, Bits};
use super::context::Exec;
use super::frame::Frame;
use super::value::{width_of, Value};
use super::{intrinsics, ops};
use crate::body::{BeatField, BinaryOp, Expr, PacketField};
use crate::entities::*;
use crate::program::Module;
use crate::types::Type;
use cranelift_entity::EntityRef;

impl ops::EnumInfo for Module {
    fn enum_width(&self, e: EnumId) -> u32 {
        self.enums.get(e).map_or(8, |d| d.width)
    }
}

impl Exec<'_> {
    /// Evaluates expression `id` of the frame's body.
    ///
    /// Once the packet has stopped ([`Exec::halted`]) nothing more is evaluated: the result is
    /// the zero of the expression's type, and no effect happens.
    pub fn eval(&mut self, frame: &mut Frame<'_>, id: ExprId) -> Value {
        if let Some(Some(c)) = frame.cache.consts.get(id.index()) {
            return Value::Bits(c.clone());
        }
        let body = frame.body;
        if self.halted() {
            return Value::zero(&body.types[id], self.module);
        }
        match &body.exprs[id] {
            Expr::Const(_) => Value::Bits(Bits::zero(frame.width(id))),
            Expr::Local(l) => frame.locals.get(l.index()).cloned().unwrap_or(Value::Unit),
            Expr::Csr(c) => Value::Bits(self.csr(*c)),
            Expr::Meta(f) => self.meta(*f),
            Expr::Header { inst, index } => {
                let i = self.index_of(frame, *index);
                Value::Header(self.header(*inst, i))
            }
            Expr::HeaderField { inst, index, field } => {
                let i = self.index_of(frame, *index);
                Value::Bits(self.header_field(*inst, i, *field))
            }
            Expr::HeaderValid { inst, index } => {
                let i = self.index_of(frame, *index);
                Value::Bits(Bits::from_bool(self.header_valid(*inst, i)))
            }
            Expr::Packet(f) => Value::Bits(self.packet_field(*f)),
            Expr::Beat(f) => Value::Bits(self.beat_field(*f)),
            Expr::FlowId => Value::Bits(Bits::from_u64(frame.width(id), self.flow_id)),
            Expr::CcState(s) => self.cc_state(*s),
            Expr::CcParam(p) => Value::Bits(
                self.cc
                    .as_ref()
                    .and_then(|c| c.params.get(p.index()).cloned())
                    .unwrap_or_else(|| Bits::zero(frame.width(id))),
            ),
            Expr::Field { base, field } => field_of(self.eval(frame, *base), *field),
            Expr::Index { base, index } => {
                let base = self.eval(frame, *base);
                let i = self.eval(frame, *index).bits().to_u128() as usize;
                match base {
                    Value::Array(items) => items.into_iter().nth(i).unwrap_or(Value::Unit),
                    _ => Value::Unit,
                }
            }
            Expr::Slice { base, hi, lo } => {
                Value::Bits(self.eval(frame, *base).bits().slice(*hi, *lo))
            }
            Expr::SliceDyn { base, lo, width } => {
                let base = self.eval(frame, *base);
                let lo = self.eval(frame, *lo).bits().to_u128() as u32;
                Value::Bits(base.bits().slice(lo + width - 1, lo))
            }
            Expr::Unary(op, operand) => {
                let v = self.eval(frame, *operand);
                Value::Bits(ops::unary(*op, &body.types[*operand], v.bits()))
            }
            Expr::Binary(op, lhs, rhs) => self.binary(frame, *op, *lhs, *rhs, id),
            Expr::Cast(inner) => {
                let v = self.eval(frame, *inner);
                Value::Bits(ops::cast(
                    v.bits(),
                    &body.types[*inner],
                    &body.types[id],
                    self.module,
                ))
            }
            Expr::Call(f, args) => self.call(frame, *f, args),
            Expr::CallAction(a, args) => {
                let values: Vec<Bits> = args
                    .iter()
                    .map(|a| self.eval(frame, *a).into_bits())
                    .collect();
                if self.halted() {
                    return Value::Unit;
                }
                self.run_action(*a, values);
                Value::Unit
            }
            Expr::Intrinsic(which, args) => {
                let values: Vec<Bits> = args
                    .iter()
                    .map(|a| self.eval(frame, *a).into_bits())
                    .collect();
                let ty = &body.types[id];
                Value::Bits(match which {
                    crate::body::Intrinsic::Min => ops::min(ty, &values[0], &values[1]),
                    crate::body::Intrinsic::Max => ops::max(ty, &values[0], &values[1]),
                    other => intrinsics::call(*other, ty, &values),
                })
            }
            Expr::Lookahead(n) => Value::Bits(self.lookahead(*n)),
            Expr::MapGet(m, key) => {
                let key = self.eval(frame, *key).into_bits();
                if self.halted() {
                    return Value::zero(&body.types[id], self.module);
                }
                let found = self
                    .scu
                    .as_mut()
                    .and_then(|s| s.rt.maps.get_mut(m.index()))
                    .and_then(|map| map.get(&key));
                found.unwrap_or_else(|| Value::zero(&self.map_value_ty(*m), self.module))
            }
            Expr::MapContains(m, key) => {
                let key = self.eval(frame, *key).into_bits();
                if self.halted() {
                    return Value::zero(&body.types[id], self.module);
                }
                let found = self
                    .scu
                    .as_ref()
                    .and_then(|s| s.rt.maps.get(m.index()))
                    .is_some_and(|map| map.contains(&key));
                Value::Bits(Bits::from_bool(found))
            }
            Expr::MapInsert(m, key, value) => {
                let key = self.eval(frame, *key).into_bits();
                let value = self.eval(frame, *value);
                if self.halted() {
                    return Value::zero(&body.types[id], self.module);
                }
                let ok = self
                    .scu
                    .as_mut()
                    .and_then(|s| s.rt.maps.get_mut(m.index()))
                    .is_some_and(|map| map.insert(key, value));
                Value::Bits(Bits::from_bool(ok))
            }
            Expr::MapRemove(m, key) => {
                let key = self.eval(frame, *key).into_bits();
                if self.halted() {
                    return Value::zero(&body.types[id], self.module);
                }
                let ok = self
                    .scu
                    .as_mut()
                    .and_then(|s| s.rt.maps.get_mut(m.index()))
                    .is_some_and(|map| map.remove(&key));
                Value::Bits(Bits::from_bool(ok))
            }
            Expr::MeterExceeds(m, index, len) => {
                let i = index.map_or(0, |e| self.eval(frame, e).bits().to_u128() as usize);
                let len = self.eval(frame, *len).bits().to_u64();
                if self.halted() {
                    return Value::zero(&body.types[id], self.module);
                }
                let now = self.now_ns;
                let exceeded = self
                    .scu
                    .as_mut()
                    .and_then(|s| {
                        s.rt.meters
                            .get_mut(m.index())
                            .and_then(|cells| cells.get_mut(i))
                    })
                    .is_some_and(|bucket| bucket.exceeds(len, now));
                Value::Bits(Bits::from_bool(exceeded))
            }
            Expr::Apply(t) => {
                let (position, args) = self.apply(*t);
                frame.applies.insert(id, (position, args));
                Value::Bits(Bits::from_u64(8, u64::from(position)))
            }
            Expr::ActionData {
                apply,
                action,
                param,
            } => match frame.applies.get(apply) {
                Some((chosen, args)) if chosen == action => args
                    .get(*param as usize)
                    .cloned()
                    .map_or(Value::Unit, Value::Bits),
                _ => Value::Bits(Bits::zero(frame.width(id))),
            },
            Expr::StructLit(fields) => {
                Value::Struct(fields.iter().map(|f| self.eval(frame, *f)).collect())
            }
            Expr::ArrayLit(items) => {
                Value::Array(items.iter().map(|f| self.eval(frame, *f)).collect())
            }
            Expr::Tuple(items) => {
                Value::Tuple(items.iter().map(|f| self.eval(frame, *f)).collect())
            }
        }
    }

    fn binary(
        &mut self,
        frame: &mut Frame<'_>,
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
        id: ExprId,
    ) -> Value {
        let body = frame.body;
        match op {
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => {
                let l = self.eval(frame, lhs).is_true();
                let result = if op == BinaryOp::LogicalAnd {
                    l && self.eval(frame, rhs).is_true()
                } else {
                    l || self.eval(frame, rhs).is_true()
                };
                Value::Bits(Bits::from_bool(result))
            }
            BinaryOp::Eq | BinaryOp::Ne if !is_scalar(&body.types[lhs]) => {
                let equal = self.eval(frame, lhs) == self.eval(frame, rhs);
                Value::Bits(Bits::from_bool(equal == (op == BinaryOp::Eq)))
            }
            _ => {
                let l = self.eval(frame, lhs).into_bits();
                let r = self.eval(frame, rhs).into_bits();
                let ty = if matches!(
                    op,
                    BinaryOp::Eq
                        | BinaryOp::Ne
                        | BinaryOp::Lt
                        | BinaryOp::Le
                        | BinaryOp::Gt
                        | BinaryOp::Ge
                ) {
                    &body.types[lhs]
                } else {
                    &body.types[id]
                };
                Value::Bits(ops::binary(op, ty, &l, &r))
            }
        }
    }

    fn call(&mut self, frame: &mut Frame<'_>, f: FuncId, args: &[ExprId]) -> Value {
        let values: Vec<Value> = args.iter().map(|a| self.eval(frame, *a)).collect();
        let module = self.module;
        let func = &module.functions[f];
        if self.halted() {
            return Value::zero(&func.ret, module);
        }
        let cache = self.caches.get(&func.body, module);
        let mut callee = Frame::new(&func.body, cache, module);
        for (i, v) in values.into_iter().enumerate() {
            callee.set_param(i, v);
        }
        match self.block(&mut callee, &func.body.block) {
            super::exec::Flow::Return(v) => v,
            // `drop()` or a parse error in the callee: the caller's statement is abandoned (the
            // packet already records why it stopped).
            super::exec::Flow::Stop => Value::zero(&func.ret, module),
            super::exec::Flow::Next => Value::zero(&func.ret, module),
        }
    }

    fn packet_field(&self, f: PacketField) -> Bits {
        let Some(p) = &self.packet else {
            return Bits::zero(16);
        };
        match f {
            PacketField::Len => Bits::from_u64(16, p.data.len() as u64),
            PacketField::Port => Bits::from_u64(8, u64::from(p.port)),
            PacketField::Timestamp => Bits::from_u64(64, p.timestamp_ns),
        }
    }

    fn beat_field(&self, f: BeatField) -> Bits {
        let Some(b) = &self.beat else {
            return Bits::zero(1);
        };
        match f {
            BeatField::Last => Bits::from_bool(b.last),
            BeatField::Keep => Bits::from_u64(64, b.keep),
        }
    }

    /// The next `n` bits of the packet without consuming them; zero (and a parser error recorded
    /// by the caller) when the packet is too short.
    fn lookahead(&mut self, n: u32) -> Bits {
        match &self.packet {
            Some(p) if p.cursor + n as usize <= p.data.len() * 8 => read_bits(p.data, p.cursor, n),
            _ => {
                self.parse_error = Some("packet_too_short");
                Bits::zero(n)
            }
        }
    }

    fn map_value_ty(&self, m: MapId) -> Type {
        self.scu
            .as_ref()
            .map_or(Type::Unit, |s| s.def.maps[m].value.clone())
    }

    /// The width of a type.
    pub fn width(&self, ty: &Type) -> u32 {
        width_of(ty, self.module)
    }
}

fn is_scalar(ty: &Type) -> bool {
    !matches!(
        ty,
        Type::Header(_) | Type::Struct(_) | Type::Array(..) | Type::Tuple(_)
    )
}

fn field_of(value: Value, field: u32) -> Value {
    match value {
        Value::Struct(fields) | Value::Tuple(fields) => fields
            .into_iter()
            .nth(field as usize)
            .unwrap_or(Value::Unit),
        Value::Header(h) if h.valid => h
            .fields
            .into_iter()
            .nth(field as usize)
            .map_or(Value::Unit, Value::Bits),
        Value::Header(h) => h
            .fields
            .get(field as usize)
            .map_or(Value::Unit, |f| Value::Bits(Bits::zero(f.width()))),
        _ => Value::Unit,
    }
}
