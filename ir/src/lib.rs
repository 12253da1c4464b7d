//! The scenic IR: what every backend and the interpreter consume.
//!
//! scenic-ir is the core of the `ir/` crates and depends on none of ours (not on the frontend):
//! the IR's data ([`entities`], [`types`], [`program`], [`body`], [`span`], [`record`]), the
//! validator ([`valid`]), the printer ([`mod@print`]), the serialized [`model`], and [`proc`], what
//! every pass, the interpreter and the backends share (the walker, compaction, bit-vector
//! arithmetic and operators, intrinsics, the namer). Beside it, each its own crate: scenic-lower
//! (from the AST, and the check), scenic-opt (passes), scenic-timing, scenic-interp (the reference
//! interpreter), scenic-io (captures, STF, entries), scenic-sim (the `Device` trait, the STF runner,
//! capture simulation) and scenic-scu-abi (the manifest and the control records).
//!
//! A [`Module`] is a set of arenas (cranelift-entity `PrimaryMap`s): header and struct layouts,
//! functions, stream compute units and congestion controllers. Code lives in [`Body`]s, each with
//! its own arena of locals and expressions and a tree of statement blocks; source spans sit in side
//! tables. The IR is built from the checked AST by scenic-lower (no later stage reads the AST), checked
//! once by the validator, which produces the `ModuleInfo` that backends require, rewritten by passes,
//! and executed by the reference interpreter — the golden semantics every backend is tested against.
//!
//! The IR is designed to take P4_16 programs too: parsers are state machines with select
//! transitions, tables have match kinds, key expressions, actions with data and const entries, and
//! controls are structured code, as in P4.

#![deny(missing_docs)]

pub mod body;
pub mod entities;
pub mod model;
pub mod print;
pub mod proc;
pub mod program;
pub mod record;
pub mod rng;
pub mod span;
pub mod stack;
pub mod types;
pub mod valid;

pub use body::{Block, Body, Expr, Place, Stmt};
pub use entities::*;
pub use program::*;
pub use span::Span;
pub use types::{Const, Dimension, Type};
pub use valid::{ModuleInfo, ValidationError, Validator};
