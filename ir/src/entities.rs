//! Entity references: small typed indices into the IR's arenas (cranelift-entity).
//!
//! Each id is a `u32` newtype created with `entity_impl!`, so an `ActionId` can never index the
//! table arena by mistake, and `Option<Id>` packs into four bytes. Ids print as `kind12`, the same
//! spelling the textual IR uses.

use cranelift_entity::entity_impl;
use serde::{Deserialize, Serialize};

macro_rules! entities {
    ($($(#[$doc:meta])* $name:ident => $prefix:literal;)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
            pub struct $name(u32);
            entity_impl!($name, $prefix);
        )*
    };
}

entities! {
    /// A header layout (module level).
    HeaderId => "header";
    /// A struct layout (module level; `meta` blocks are structs too).
    StructId => "struct";
    /// An enum (module level).
    EnumId => "enum";
    /// A function (module level; owned by the module, an scu or a cc).
    FuncId => "fn";
    /// A stream compute unit.
    ScuId => "scu";
    /// A congestion controller.
    CcId => "cc";
    /// A header instance or stack of an scu.
    InstId => "inst";
    /// A control/status register (or host-set param) of an scu.
    CsrId => "csr";
    /// A match-action table of an scu.
    TableId => "table";
    /// An action of an scu.
    ActionId => "action";
    /// A map of an scu.
    MapId => "map";
    /// A counter array of an scu.
    CounterId => "counter";
    /// A meter array of an scu.
    MeterId => "meter";
    /// A stream output (`out`) of an scu.
    OutId => "out";
    /// A parser state of an scu.
    StateId => "state";
    /// A parser error of an scu (the three built-ins come first).
    ErrorId => "error";
    /// A per-flow state variable of a cc.
    CcStateId => "ccstate";
    /// A host-set parameter of a cc.
    CcParamId => "ccparam";
    /// A timer or byte counter of a cc.
    TimerId => "timer";
    /// A local variable (or parameter) of one body.
    LocalId => "v";
    /// An expression of one body.
    ExprId => "e";
}
