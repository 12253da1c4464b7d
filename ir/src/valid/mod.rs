//! The validator: checks a module's structural invariants once, and computes [`ModuleInfo`].
//!
//! As in naga, `Validator::new().validate(&module)` either returns the first broken rule as a
//! [`ValidationError`] or a [`ModuleInfo`] that backends, the interpreter and the runtime take
//! beside the module. After validation they may index every arena with every id the module holds
//! without checking, rely on the types recorded for expressions, and walk each expression tree from
//! the statement that uses it, knowing it is used nowhere else. The validator never panics, on any
//! module.
//!
//! The rules, in the order they are checked, with the variant each reports:
//!
//! 1. **Layouts** (`layout`): header fields are `bit`/`int` (`HeaderFieldType`), consecutive
//!    (`HeaderFieldOffset`), add up to `bits` (`HeaderBits`), a multiple of 8 (`HeaderNotBytes`);
//!    no struct contains itself (`StructCycle`); enum values fit their width (`ConstTooWide`).
//!    Every type anywhere is well-formed (`BadType`) and names existing layouts (`InvalidId`).
//! 2. **Ids**: every id is in range for its arena: expressions and locals within their body,
//!    members (instances, CSRs, tables, actions, maps, counters, meters, outputs, errors) within
//!    the owning scu, parser states within the parser, cc state, params and timers within the cc,
//!    functions, layouts and scus within the module (`InvalidId`). A member used where there is no
//!    owning unit (a CSR in a top-level function) is an invalid id too.
//! 3. **Expressions** (`expr`): operands are older than their user (`OperandOrder`); each
//!    expression is used by exactly one statement, parent, table key or transition (`ExprUses`);
//!    types follow docs/language.md and `body.rs` (`ResultType`, `OperandType`, `OperandsDiffer`,
//!    `BadCast`, `Arity`, `SliceBounds`, `FieldIndex`, `NoMeta`, `IndexNonArray`, `IndexForm`,
//!    `BadActionData`); calls have the callee's arity and parameter types (`Arity`,
//!    `TypeMismatch`) and only reach functions of the module or of the same unit
//!    (`ForeignCall`).
//! 4. **Statements** (`stmt`): locals are declared before use and in scope
//!    (`LocalNotInScope`); only mutable locals, CSRs that are not `param`s, `meta`, header fields
//!    and cc state are assigned (`NotAssignable`), with values of their type (`TypeMismatch`);
//!    conditions are `bool` (`ConditionNotBool`); patterns fit the scrutinee (`PatternWidth`,
//!    `PatternShape`); action data is read only in a case of its action (`ActionDataUnbound`);
//!    loop bounds fit the variable (`LoopBounds`); returns match the function (`ReturnType`);
//!    `notify` values have at most 32 bits (`NotifyValue`); indices are in bounds by construction
//!    (`IndexBounds`).
//! 5. **Placement** (`body`, `calls`): `Extract`/`Lookahead` only in the parser, `Emit` only
//!    in the deparser, `Pass`/`Push`/`beat` only in the stream kernel, `Restart` only in cc
//!    handlers, destinations (`Drop`, `ToHost`, `ToNetwork`, `ToScu`), counters, meters and action
//!    calls only in the control, `on parser_error` and actions, `Apply` only in the control and
//!    `on parser_error`, `packet` only in per-packet code, the flow id only in `rdma`/`tcp` scus
//!    (`Misplaced`). Functions may use what their unit can; what they use must be allowed in every
//!    body that reaches them (`MisplacedInCallee`).
//! 6. **Units** (`scu`, `table`, `cc`): CSRs are scalars of at most 64 bits (`CsrType`);
//!    map keys are `bit<N>` (`MapKeyType`); parser `start`, targets and reject errors exist; table
//!    defaults are listed (`DefaultNotListed`), action data matches the action (`ActionArgs`,
//!    `ConstTooWide`), entries match the keys (`EntryKeyCount`, `EntryKeyKind`, `EntryAction`) and
//!    fit the size (`TooManyEntries`), key expressions have the key's type (`KeyType`); a cc's
//!    output is a state of type `rate` or `size` (`CcOutputType`); every body's parameters are the
//!    bindings its kind provides (`BadParams`).
//! 7. **Calls** (`calls`): no recursion (`Recursion`).

mod body;
mod calls;
mod cc;
mod error;
mod expr;
mod info;
mod invoke;
mod layout;
mod refs;
mod scu;
mod stmt;
mod table;
mod types;

#[cfg(test)]
mod tests;

pub use error::{AnyId, BodyRef, Construct, Location, ValidationError};
pub use info::{
    BodyInfo, CcInfo, CsrInfo, HeaderInfo, MapInfo, ModuleInfo, ScuInfo, TableInfo, CSR_WINDOW_BASE,
};

use crate::program::{Module, Owner};
use body::{Context, Unit};
use error::AnyId as Id;
use types::{check_type, Types};

/// Checks modules. See the [module documentation](self) for the rules.
#[derive(Clone, Debug, Default)]
pub struct Validator {}

impl Validator {
    /// A validator.
    pub fn new() -> Validator {
        Validator {}
    }

    /// Checks `module`, returning the facts backends need or the first rule it breaks.
    pub fn validate(&self, module: &Module) -> Result<ModuleInfo, ValidationError> {
        let headers = layout::check_headers(module)?;
        let struct_bits = layout::check_structs(module)?;
        let types = Types {
            module,
            struct_bits: &struct_bits,
        };
        layout::check_enums(&types)?;
        let mut info = ModuleInfo {
            headers,
            ..ModuleInfo::default()
        };
        for (id, f) in &module.functions {
            let at = BodyRef::Function(id);
            let loc = Location::Body(at);
            let (unit, context) = match f.owner {
                Owner::Module => (Unit::default(), Context::ModuleFunction),
                Owner::Scu(s) => {
                    let scu = module.scus.get(s).ok_or(ValidationError::InvalidId {
                        at: loc,
                        id: Id::Scu(s),
                        span: f.span,
                    })?;
                    (
                        Unit {
                            scu: Some((s, scu)),
                            cc: None,
                        },
                        Context::ScuFunction,
                    )
                }
                Owner::Cc(c) => {
                    let cc = module.ccs.get(c).ok_or(ValidationError::InvalidId {
                        at: loc,
                        id: Id::Cc(c),
                        span: f.span,
                    })?;
                    (
                        Unit {
                            scu: None,
                            cc: Some((c, cc)),
                        },
                        Context::CcFunction,
                    )
                }
            };
            check_type(module, unit.scu.map(|(_, s)| s), &f.ret, loc, f.span)?;
            info.functions[id] =
                scu::check_plain(&types, unit, at, &f.body, context, Some(&f.ret))?;
        }
        for (id, s) in &module.scus {
            info.scus[id] = scu::check_scu(&types, id, s)?;
        }
        for (id, c) in &module.ccs {
            info.ccs[id] = cc::check_cc(&types, id, c)?;
        }
        calls::finish(module, &mut info)?;
        info.struct_bits = struct_bits;
        Ok(info)
    }
}
