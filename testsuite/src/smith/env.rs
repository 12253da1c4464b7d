//! What generated code can see: the variables in scope (locals, parameters, CSRs, header fields,
//! `meta`, cc state, constants, loop variables), the functions and maps it may call, and what
//! the code's context allows (language.md §7.1). Names are unique per program, so nothing shadows
//! (W0003) and nothing is declared twice (E0102).

use super::gen_types::Ty;

/// A value code can read, and perhaps assign.
#[derive(Clone, Debug)]
pub struct Var {
    /// How it is written (`x`, `h0.f1`, `meta.m0`, `packet.len`).
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Whether it is a place (language.md §5.2).
    pub mutable: bool,
    /// Whether it is a constant (a `const`): a constant expression, typed.
    pub konst: bool,
}

/// A `for` loop variable: a constant per iteration, `0..=max`.
#[derive(Clone, Debug)]
pub struct LoopVar {
    /// Its name.
    pub name: String,
    /// Its largest value.
    pub max: u64,
}

/// A function code may call.
#[derive(Clone, Debug)]
pub struct FnSig {
    /// Its name.
    pub name: String,
    /// Parameter types.
    pub params: Vec<Ty>,
    /// Return type.
    pub ret: Option<Ty>,
}

/// The kind of a map (language.md §7.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    /// `array<K, V>[N]`.
    Array,
    /// `hash<K, V>[N]`.
    Hash,
    /// `lru_hash<K, V>[N]`.
    LruHash,
}

/// A map declaration.
#[derive(Clone, Debug)]
pub struct MapSig {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: MapKind,
    /// The key's width (`bit<K>`).
    pub key_width: u32,
    /// The value type.
    pub value: Ty,
    /// Its size.
    pub size: u64,
}

/// What the code being generated may do (language.md §7.1's table).
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    /// Map methods.
    pub maps: bool,
    /// `notify`.
    pub notify: bool,
    /// Counters and destinations (`drop`, `to_host`, `to_network`): per-packet control code.
    pub packet_control: bool,
    /// Header validity reads.
    pub headers: bool,
    /// `restart` of these timers (cc handlers).
    pub restart: Vec<String>,
    /// The return type of the function being generated.
    pub ret: Option<Ty>,
    /// Parser state code: only `meta` and own locals may be assigned.
    pub parser: bool,
    /// A `stream` kernel (language.md §7.17): `pass` (at most once on a path, and never in a
    /// loop here) and `push` to the scu's outputs.
    pub stream: bool,
    /// Code that may `push` to the scu's outputs: the stream kernel and the functions only it
    /// calls (E0508 elsewhere).
    pub push: bool,
}

/// The scope stack and what the program offers.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// Visible variables, innermost last.
    pub vars: Vec<Var>,
    /// Enclosing loops, innermost last.
    pub loops: Vec<LoopVar>,
    /// Scope starts (lengths of `vars` and `loops`).
    pub marks: Vec<(usize, usize)>,
    /// Callable functions.
    pub fns: Vec<FnSig>,
    /// Maps of the unit.
    pub maps: Vec<MapSig>,
    /// Header instances (for `valid()`, `set_valid()`, `set_invalid()`).
    pub headers: Vec<String>,
    /// Counters: name and cell count.
    pub counters: Vec<(String, u32)>,
    /// Meters: name and bucket count.
    pub meters: Vec<(String, u32)>,
    /// Stream outputs: name and, for an output array, its element count.
    pub outs: Vec<(String, Option<u32>)>,
    /// Other scus a control may send a copy to (`to_scu`, language.md §7.15).
    pub scu_targets: Vec<String>,
    /// What the context allows.
    pub ctx: Ctx,
}

impl Env {
    /// Opens a scope.
    pub fn push(&mut self) {
        self.marks.push((self.vars.len(), self.loops.len()));
    }

    /// Closes the innermost scope.
    pub fn pop(&mut self) {
        if let Some((v, l)) = self.marks.pop() {
            self.vars.truncate(v);
            self.loops.truncate(l);
        }
    }

    /// Adds a variable to the innermost scope.
    pub fn add(&mut self, name: impl Into<String>, ty: Ty, mutable: bool) {
        self.vars.push(Var {
            name: name.into(),
            ty,
            mutable,
            konst: false,
        });
    }

    /// Adds a constant.
    pub fn add_const(&mut self, name: impl Into<String>, ty: Ty) {
        self.vars.push(Var {
            name: name.into(),
            ty,
            mutable: false,
            konst: true,
        });
    }
}
