//! Calls, action calls and intrinsics: arguments against parameters.
//!
//! A call names an existing function of the module or of the body's own unit (`InvalidId`,
//! `ForeignCall`) and passes one argument of each parameter's type (`Arity`, `TypeMismatch`); its
//! type is the function's return type. An action call likewise against the action's data
//! parameters; its type is `()`. Intrinsics take the operands docs/language.md §9 gives them:
//! `min`/`max` two equal numeric values; `crc32`/`crc16` whole bytes; `murmur3` whole bytes and a
//! `bit<32>` seed; `toeplitz` a key at least 32 bits longer than the data; `ones_complement` whole
//! 16-bit words; `checksum_update` three `bit<16>` (`OperandType`, `Arity`, `ResultType`).

use super::body::Checker;
use super::error::{AnyId, Construct, ValidationError};
use super::types::is_numeric;
use crate::body::Intrinsic;
use crate::entities::*;
use crate::program::Owner;
use crate::span::Span;
use crate::types::Type;

type R = Result<(), ValidationError>;

impl Checker<'_> {
    pub(super) fn call(&mut self, id: ExprId, f: FuncId, args: &[ExprId], span: Span) -> R {
        let func = self
            .types
            .module
            .functions
            .get(f)
            .ok_or_else(|| self.invalid(AnyId::Func(f), span))?;
        let visible = match func.owner {
            Owner::Module => true,
            Owner::Scu(s) => self.unit.scu.is_some_and(|(id, _)| id == s),
            Owner::Cc(c) => self.unit.cc.is_some_and(|(id, _)| id == c),
        };
        if !visible {
            return Err(ValidationError::ForeignCall {
                body: self.at,
                func: f,
                span,
            });
        }
        self.arity(id, func.body.params.len(), args.len(), span)?;
        for (p, a) in func.body.params.iter().zip(args) {
            let ty = func.body.locals.get(*p).map_or(&Type::Unit, |l| &l.ty);
            self.expect_type(ty, *a)?;
        }
        self.info.calls.push(f);
        self.result(id, &func.ret, span)
    }

    pub(super) fn call_action(
        &mut self,
        id: ExprId,
        a: ActionId,
        args: &[ExprId],
        span: Span,
    ) -> R {
        self.construct(Construct::CallAction, span)?;
        let scu = self.scu(AnyId::Action(a), span)?;
        let action = scu
            .actions
            .get(a)
            .ok_or_else(|| self.invalid(AnyId::Action(a), span))?;
        self.arity(id, action.body.params.len(), args.len(), span)?;
        for (p, arg) in action.body.params.iter().zip(args) {
            let ty = action.body.locals.get(*p).map_or(&Type::Unit, |l| &l.ty);
            self.expect_type(ty, *arg)?;
        }
        self.info.call_actions.push(a);
        self.result(id, &Type::Unit, span)
    }

    pub(super) fn intrinsic(&self, id: ExprId, i: Intrinsic, args: &[ExprId], span: Span) -> R {
        let arity = match i {
            Intrinsic::Crc32 | Intrinsic::Crc16 | Intrinsic::OnesComplement => 1,
            Intrinsic::Min | Intrinsic::Max | Intrinsic::Murmur3 | Intrinsic::Toeplitz => 2,
            Intrinsic::ChecksumUpdate => 3,
        };
        self.arity(id, arity, args.len(), span)?;
        let bits = |n: usize| match self.ty(args[n]) {
            Type::Bits(w) => Ok(*w),
            _ => Err(self.operand_type(id, n as u32, args[n], span)),
        };
        let bytes = |n: usize, multiple: u32| {
            let w = bits(n)?;
            if w % multiple == 0 {
                Ok(w)
            } else {
                Err(self.operand_type(id, n as u32, args[n], span))
            }
        };
        let ty = match i {
            Intrinsic::Min | Intrinsic::Max => {
                let (lt, rt) = (self.ty(args[0]), self.ty(args[1]));
                if !is_numeric(lt) {
                    return Err(self.operand_type(id, 0, args[0], span));
                }
                if lt != rt {
                    return Err(self.operand_type(id, 1, args[1], span));
                }
                lt.clone()
            }
            Intrinsic::Crc32 => bytes(0, 8).map(|_| Type::Bits(32))?,
            Intrinsic::Crc16 => bytes(0, 8).map(|_| Type::Bits(16))?,
            Intrinsic::OnesComplement => bytes(0, 16).map(|_| Type::Bits(16))?,
            Intrinsic::Murmur3 => {
                bytes(0, 8)?;
                self.expect_type(&Type::Bits(32), args[1])?;
                Type::Bits(32)
            }
            Intrinsic::Toeplitz => {
                let n = bits(0)?;
                if bits(1)? < n + 32 {
                    return Err(self.operand_type(id, 1, args[1], span));
                }
                Type::Bits(32)
            }
            Intrinsic::ChecksumUpdate => {
                args.iter()
                    .try_for_each(|a| self.expect_type(&Type::Bits(16), *a))?;
                Type::Bits(16)
            }
        };
        self.result(id, &ty, span)
    }
}
