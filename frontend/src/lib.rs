//! The scenic language frontend.
//!
//! Source text goes through four stages, each a module: [`split`] cuts a file into chunks (items and
//! members), [`parse`] turns each chunk into an [`ast`] with chunk-relative spans, `resolve` binds
//! names, and `typeck` checks types and the language's static rules. [`db`] wires the stages into a
//! salsa database so that an edit re-checks only what depends on it, and [`diag`] renders what they
//! find. `docs/language.md` is the reference for the language; `docs/errors.md` explains every
//! diagnostic code.

#![deny(missing_docs)]

pub mod ast;
pub mod check;
pub mod db;
pub mod diag;
pub mod driver;
pub mod parse;
pub mod resolve;
pub mod span;
pub mod split;
pub mod stack;
pub mod stdlib;
pub mod typeck;

pub use driver::{check_frontend_only, CheckOptions, CheckReport, LoadError, Session};
pub mod consteval;
pub mod p4;
pub mod types;
