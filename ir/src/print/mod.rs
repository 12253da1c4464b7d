//! The textual IR: a stable, readable form of a [`Module`] for golden tests and `scenicc emit ir`.
//!
//! [`print_module`] prints everything, in id order, so the text changes only when the module does:
//! header, struct and enum layouts, functions, then each scu and each cc with all their members. It
//! never prints spans (goldens stay stable when only the source layout changes) and never panics,
//! even on a module the validator would reject: an id that does not exist, or an operand that is not
//! older than its parent, prints as `!e7` (or `!v3`, `!stmt`) instead of being followed.
//!
//! Conventions:
//! - Entities print as their ids (`csr0`, `table2`, `inst1`, `fn3`, `v4`); a declaration adds the
//!   source name in quotes (`csr0 "dropped": bit<64>`). Struct, header and `meta` fields are named
//!   at use (`inst1.ttl`, `v2.packets`, `meta.port`), since field names are unique in their layout;
//!   a field position that does not exist prints as `.#9`.
//! - Expressions print inline where they are used (each is used exactly once): operators and
//!   intrinsics in prefix form (`add(inst1.ttl, 1:bit<8>)`), every constant with its type
//!   (`1:bit<8>`, `-3:int<8>`, `true`, `2:enum0 /* red */`), casts with their target
//!   (`cast<bit<16>>(v0)`). A table application shows its id (`apply(table0) /* e4 */`) because
//!   `action_data(e4, 1, 0)` refers to it. Dynamic slices print as `base[lo +: width]`; an `if`
//!   expression as `select(cond, then, otherwise)`.
//! - Patterns print without types (the scrutinee has one); values that name something carry a
//!   comment: `case 1 /* deny */` on a table result, `case 3 /* bad_version */` on a parser error.
//! - Bodies print `(<params>) {`, `local` lines, then statements, indented four spaces per level
//!   ([`Level`]). Statements: `let v1 = e`, `place = e`, `eval e`, `if c { } else { }`,
//!   `switch e { case p | q { } default { } }`, `for v2 in 0..=31 { }`, `block { }`, `return e`,
//!   `drop`, `to_host`, `to_network(e)`, `to_scu(scu1)`, `notify(host, e)`, `pass(e)`,
//!   `push(out0[i], e)`, `count(counter0[i])`, `extract(inst0)`, `emit(inst0)`,
//!   `set_valid(inst0)`, `set_invalid(inst1[i])`, `restart(timer0)`.

mod body;
mod cc;
mod expr;
mod scu;

#[cfg(test)]
mod tests;

use crate::body::Body;
use crate::program::{Cc, Module, Owner, Scu};
use std::fmt::{self, Write};

/// Indentation: four spaces per level, written by `Display` (naga's `back::Level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level(pub usize);

impl Level {
    /// One level deeper.
    pub fn next(self) -> Level {
        Level(self.0 + 1)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.0 {
            f.write_str("    ")?;
        }
        Ok(())
    }
}

/// Prints a module as text. See the [module documentation](self) for the format.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    // Writing to a `String` cannot fail.
    let _ = write_module(&mut out, module);
    out
}

/// Writes a module as text to `w`.
pub fn write_module(w: &mut impl Write, module: &Module) -> fmt::Result {
    writeln!(w, "module {:?}", module.source_name)?;
    layouts(w, module)?;
    let empty = Body::default();
    for (id, f) in &module.functions {
        let (scu, cc) = owner_unit(module, f.owner);
        let cx = Cx {
            module,
            scu,
            cc,
            body: &f.body,
        };
        write!(w, "\n{id} {:?}", f.name)?;
        match f.owner {
            Owner::Module => {}
            Owner::Scu(s) => write!(w, " [{s}]")?,
            Owner::Cc(c) => write!(w, " [{c}]")?,
        }
        w.write_str(" ")?;
        cx.params(w)?;
        if f.ret != crate::types::Type::Unit {
            write!(w, " -> {}", f.ret)?;
        }
        cx.body_block(w, Level(0))?;
    }
    for (id, s) in &module.scus {
        let cx = Cx {
            module,
            scu: Some(s),
            cc: None,
            body: &empty,
        };
        writeln!(w)?;
        cx.scu(w, id, s)?;
    }
    for (id, c) in &module.ccs {
        let cx = Cx {
            module,
            scu: None,
            cc: Some(c),
            body: &empty,
        };
        writeln!(w)?;
        cx.cc(w, id, c)?;
    }
    Ok(())
}

/// The scu or cc that owns a function, for naming its members.
fn owner_unit(module: &Module, owner: Owner) -> (Option<&Scu>, Option<&Cc>) {
    match owner {
        Owner::Module => (None, None),
        Owner::Scu(s) => (module.scus.get(s), None),
        Owner::Cc(c) => (None, module.ccs.get(c)),
    }
}

/// Header, struct and enum layouts.
fn layouts(w: &mut impl Write, module: &Module) -> fmt::Result {
    for (id, h) in &module.headers {
        writeln!(w, "\n{id} {:?} ({} bits) {{", h.name, h.bits)?;
        for f in &h.fields {
            writeln!(w, "{}{}: {} @ {}", Level(1), f.name, f.ty, f.offset)?;
        }
        writeln!(w, "}}")?;
    }
    for (id, s) in &module.structs {
        writeln!(w, "\n{id} {:?} {{", s.name)?;
        for f in &s.fields {
            writeln!(w, "{}{}: {}", Level(1), f.name, f.ty)?;
        }
        writeln!(w, "}}")?;
    }
    for (id, e) in &module.enums {
        writeln!(w, "\n{id} {:?} ({} bits) {{", e.name, e.width)?;
        for (name, value) in &e.variants {
            writeln!(w, "{}{name} = {value}", Level(1))?;
        }
        writeln!(w, "}}")?;
    }
    Ok(())
}

/// What expressions and statements are printed against: the module, the unit that owns the body
/// (for naming fields of instances and `meta`, table actions and parser errors) and the body.
#[derive(Clone, Copy)]
struct Cx<'a> {
    module: &'a Module,
    scu: Option<&'a Scu>,
    cc: Option<&'a Cc>,
    body: &'a Body,
}
