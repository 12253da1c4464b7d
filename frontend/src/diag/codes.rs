//! The catalogue of diagnostic codes.
//!
//! Every diagnostic carries one of these codes. Codes are stable: once published a code keeps its
//! meaning, and retired codes are not reused. Each code has a section in `docs/errors.md` with a
//! failing example and the fix (`scenicc explain CODE` prints it), and at least one golden test in
//! `testsuite/tests/diagnostics/`. A test checks that the three stay in step.
//!
//! `E` codes are errors; `W` codes are warnings, which `-D warnings` turns into errors.

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The program is rejected.
    Error,
    /// The program is accepted, but probably not what was meant.
    Warning,
}

/// A diagnostic code and its one-line title.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Code {
    /// `E0201`, `W0001`, ...
    pub id: &'static str,
    /// What the code is about, in a few words.
    pub title: &'static str,
}

impl Code {
    /// Errors start with `E`, warnings with `W`.
    pub fn severity(self) -> Severity {
        if self.id.starts_with('W') {
            Severity::Warning
        } else {
            Severity::Error
        }
    }
}

macro_rules! codes {
    ($($name:ident = $title:literal;)*) => {
        $(
            #[doc = $title]
            pub const $name: Code = Code { id: stringify!($name), title: $title };
        )*
        /// Every code, in catalogue order.
        pub const ALL: &[Code] = &[$($name),*];
    };
}

codes! {
    // Syntax.
    E0001 = "syntax error";
    E0002 = "malformed number";
    E0003 = "malformed address literal";
    E0004 = "unknown unit";
    E0005 = "unterminated block comment";
    E0006 = "keyword used as a name";
    E0007 = "unbalanced braces";
    E0008 = "assignment where a comparison was expected";
    E0009 = "expected an item";
    E0010 = "`elif` is not a keyword";
    E0011 = "missing semicolon";
    E0012 = "quantity is not a whole number of base units";
    E0013 = "source is not UTF-8 text";
    E0014 = "nested too deeply";
    E0015 = "no `?:` operator";
    E0016 = "`if` expression without `else`";
    // Names.
    E0101 = "cannot find name";
    E0102 = "name defined more than once";
    E0103 = "cannot find module";
    E0104 = "name not found in module";
    E0105 = "no such field";
    E0106 = "no such method";
    E0107 = "unknown parser state";
    E0108 = "recursive definition";
    E0109 = "wrong kind of name";
    E0110 = "unknown kind";
    // Types.
    E0201 = "mismatched types";
    E0202 = "mismatched widths";
    E0203 = "value does not fit its type";
    E0204 = "slice out of range";
    E0205 = "invalid cast";
    E0206 = "operator cannot be applied to this type";
    E0207 = "mismatched units";
    E0208 = "width out of range";
    E0209 = "cannot infer type";
    E0210 = "not a constant";
    E0211 = "wrong number of arguments";
    E0212 = "cannot assign";
    E0213 = "index out of bounds";
    E0214 = "invalid header layout";
    E0215 = "invalid type arguments";
    // Parsers.
    E0301 = "parser has no start state";
    E0302 = "parser loop without progress";
    E0303 = "extract of a non-header";
    E0304 = "invalid lookahead";
    // Tables, maps, counters, meters, CSRs.
    E0401 = "match kind does not fit key type";
    E0402 = "more than one lpm key";
    E0403 = "wrong action arguments";
    E0404 = "action not listed in table";
    E0405 = "table applied more than once per packet";
    E0406 = "entry does not fit the table key";
    E0407 = "invalid CSR";
    E0408 = "invalid map declaration";
    E0409 = "invalid size";
    E0410 = "too many entries";
    E0411 = "incomplete table";
    E0412 = "invalid action parameter";
    E0413 = "invalid counter or meter use";
    E0414 = "empty range";
    E0415 = "invalid prefix";
    // Control flow and program structure.
    E0501 = "not allowed here";
    E0502 = "non-exhaustive match";
    E0503 = "recursion";
    E0504 = "loop bound";
    E0505 = "missing return value";
    E0506 = "mismatched return";
    E0507 = "attach point mismatch";
    E0508 = "invalid output";
    E0509 = "missing required part";
    E0510 = "member not allowed in this item";
    // Congestion controllers.
    E0601 = "invalid restart";
    E0602 = "invalid controller output";
    E0603 = "invalid cycle budget";
    E0604 = "handler over its cycle budget";
    // P4 input (`.p4` files read by the P4 reader, frontend/src/p4/).
    E0701 = "P4 syntax error";
    E0702 = "P4 construct not supported yet";
    E0703 = "unknown P4 name";
    E0704 = "P4 name declared more than once";
    E0705 = "P4 type error";
    E0706 = "wrong arguments in a P4 call";
    E0707 = "P4 preprocessor error";
    E0708 = "P4 value is not a compile-time constant";
    E0709 = "invalid P4 program structure";
    E0710 = "invalid P4 table";
    E0711 = "invalid P4 parser";
    E0712 = "cannot assign to this P4 expression";
    // Warnings.
    W0001 = "unused";
    W0002 = "unreachable parser state";
    W0003 = "shadowed name";
    W0004 = "unused result";
    W0005 = "unreachable code";
    W0006 = "unreachable pattern";
    W0007 = "parsed header never emitted";
}

/// Looks a code up by its id, ignoring ASCII case (`e0201` finds `E0201`).
pub fn lookup(id: &str) -> Option<Code> {
    ALL.iter()
        .copied()
        .find(|code| code.id.eq_ignore_ascii_case(id))
}
