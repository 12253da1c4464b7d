//! Expressions of a requested type, well-typed by construction.
//!
//! Every generated expression records whether it is a constant expression (`konst`) and whether it
//! has a type of its own (`typed`: a literal or a loop variable takes its type from context,
//! language.md §4.2). Two rules keep the output valid: the left operand of a binary operator,
//! the operand of a cast, a `min`/`max` pair and a scrutinee are always typed; and a binary
//! operator always has a run-time operand, so no constant expression is evaluated exactly
//! (§4.15) where a wrap-around was meant.

use super::env::Env;
use super::gen_types::{literal, Decls, Ty, Unit};
use super::op_names::{
    bool_op_name, cast_name, cmp_name, fixed_op_name, int_op_name, unit_op_name,
};
use super::rng::Rng;
use super::stats::Stats;

/// A generated expression.
#[derive(Clone, Debug)]
pub struct Ex {
    /// Its source text, parenthesised when compound.
    pub text: String,
    /// A constant expression.
    pub konst: bool,
    /// Has a type of its own.
    pub typed: bool,
}

impl Ex {
    fn run(text: String) -> Ex {
        Ex {
            text,
            konst: false,
            typed: true,
        }
    }
}

/// The generator: its PRNG, the program's declarations, the coverage counts and the scope.
pub struct Gen {
    /// The PRNG.
    pub rng: Rng,
    /// Enums and structs.
    pub decls: Decls,
    /// Coverage.
    pub stats: Stats,
    /// What code can see.
    pub env: Env,
    /// The next fresh-name number.
    next_name: u32,
    /// Calls being generated inside one another (bounds the recursion of call arguments).
    nest: u32,
    /// Whether the stream kernel may already have passed its word on the path being generated
    /// (a second `pass` on a path is E0501, language.md §7.17).
    pub passed: bool,
}

impl Gen {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            decls: Decls::default(),
            stats: Stats::default(),
            env: Env::default(),
            next_name: 0,
            nest: 0,
            passed: false,
        }
    }

    /// Fresh parameters of `params`' types, each added to the current scope (read-only); their
    /// declarations (`p3: bit<8>`), in order.
    pub fn declare_params(&mut self, params: &[Ty]) -> Vec<String> {
        let mut ps = Vec::new();
        for p in params {
            let pn = self.fresh("p");
            ps.push(format!("{pn}: {}", self.ty(p)));
            self.env.add(pn, p.clone(), false);
        }
        ps
    }

    /// A name never used before in this program, starting with `prefix`.
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    /// The type as written.
    pub fn ty(&self, ty: &Ty) -> String {
        self.decls.render(ty)
    }

    /// An expression of type `ty`, at most `depth` operators deep.
    pub fn expr(&mut self, ty: &Ty, depth: u32) -> Ex {
        if depth == 0 || self.rng.chance(1, 3) {
            return self.leaf(ty);
        }
        let e = match ty {
            Ty::Bit(_) | Ty::Int(_) => self.int_expr(ty, depth),
            Ty::Bool => self.bool_expr(depth),
            Ty::Fixed(..) => self.fixed_expr(ty, depth),
            Ty::Unit(u) => self.unit_expr(*u, ty, depth),
            Ty::Enum(_) => self.if_expr(ty, depth),
            Ty::Struct(_) | Ty::Array(..) => self.aggregate_expr(ty, depth),
        };
        e.unwrap_or_else(|| self.leaf(ty))
    }

    /// A typed expression of `ty` (an atom when the generated one has no type of its own).
    pub fn typed_expr(&mut self, ty: &Ty, depth: u32) -> Ex {
        let e = self.expr(ty, depth);
        if e.typed && !e.konst {
            e
        } else {
            self.atom(ty)
        }
    }

    /// A variable read, a literal, a constant or a loop variable of `ty`.
    fn leaf(&mut self, ty: &Ty) -> Ex {
        match self.rng.below(10) {
            0..=5 => self.atom(ty),
            6 if !self.loops_fitting(ty).is_empty() => {
                self.stats.hit("expr.loop-var");
                let lv = self.loops_fitting(ty);
                let name = self.rng.pick(&lv);
                Ex {
                    text: name,
                    konst: true,
                    typed: false,
                }
            }
            7 => match self.const_of(ty) {
                Some(name) => {
                    self.stats.hit("expr.const");
                    Ex {
                        text: name,
                        konst: true,
                        typed: true,
                    }
                }
                None => self.atom(ty),
            },
            _ if ty.is_scalar() => {
                self.stats.hit("expr.literal");
                Ex {
                    text: literal(&mut self.rng, ty, &self.decls),
                    konst: true,
                    typed: matches!(ty, Ty::Enum(_)),
                }
            }
            _ => self.atom(ty),
        }
    }

    fn loops_fitting(&self, ty: &Ty) -> Vec<String> {
        self.env
            .loops
            .iter()
            .filter(|l| ty.holds_small(l.max) && !matches!(ty, Ty::Unit(_)))
            .map(|l| l.name.clone())
            .collect()
    }

    fn const_of(&mut self, ty: &Ty) -> Option<String> {
        let names: Vec<String> = self
            .env
            .vars
            .iter()
            .filter(|v| v.konst && &v.ty == ty)
            .map(|v| v.name.clone())
            .collect();
        (!names.is_empty()).then(|| self.rng.pick(&names))
    }

    /// A typed run-time expression of `ty`: a read of a variable (or a part of one), or a value
    /// made from a run-time `bit` value by casts.
    pub fn atom(&mut self, ty: &Ty) -> Ex {
        if let Some(p) = self.path_of(ty, false) {
            return Ex::run(p);
        }
        self.built_from_source(ty)
    }

    /// A run-time value of `ty` built from some run-time variable.
    fn built_from_source(&mut self, ty: &Ty) -> Ex {
        self.stats.hit("expr.cast-from-source");
        let src = self.source_bits();
        let text = match ty {
            Ty::Bit(n) => format!("({src} as bit<{n}>)"),
            Ty::Int(n) => format!("({src} as int<{n}>)"),
            Ty::Bool => format!("(({src} as bit<1>) as bool)"),
            Ty::Fixed(i, f) => format!("({src} as fixed<{i},{f}>)"),
            Ty::Unit(u) => format!("(({src} as bit<64>) as {})", u.name()),
            Ty::Enum(e) => {
                let d = self.decls.enums[*e].clone();
                let a = self.rng.pick(&d.variants);
                let b = self.rng.pick(&d.variants);
                format!(
                    "(if ({src} as bit<1>) == 0 {{ {0}::{a} }} else {{ {0}::{b} }})",
                    d.name
                )
            }
            Ty::Struct(s) => {
                let d = self.decls.structs[*s].clone();
                let fields: Vec<String> = d
                    .fields
                    .iter()
                    .map(|(f, t)| format!("{f}: {}", self.atom(t).text))
                    .collect();
                format!("{} {{ {} }}", d.name, fields.join(", "))
            }
            Ty::Array(t, n) => {
                let items: Vec<String> = (0..*n).map(|_| self.atom(t).text).collect();
                format!("[{}]", items.join(", "))
            }
        };
        Ex::run(text)
    }

    /// A typed run-time `bit<K>` expression: a `bit` variable, or another scalar cast to one.
    pub fn source_bits(&mut self) -> String {
        if self.nest == 0 && self.rng.chance(1, 8) {
            if let Some(call) = self.bits_call() {
                return call;
            }
        }
        let vars: Vec<(String, Ty)> = self
            .env
            .vars
            .iter()
            .filter(|v| !v.konst && v.ty.is_scalar() && !matches!(v.ty, Ty::Enum(_)))
            .map(|v| (v.name.clone(), v.ty.clone()))
            .collect();
        if vars.is_empty() {
            return "(0 as bit<8>)".into();
        }
        let (name, ty) = self.rng.pick(&vars);
        let name = self.resolve(&name);
        match ty {
            Ty::Int(n) => format!("({name} as bit<{n}>)"),
            Ty::Bool => format!("({name} as bit<1>)"),
            Ty::Unit(_) => format!("({name} as bit<64>)"),
            Ty::Fixed(..) => format!("({name} as bit<16>)"),
            _ => name,
        }
    }

    /// A call of a function returning a `bit`/`int` value, as a `bit`: a call with effects (an scu
    /// function writing CSRs and maps) in an index or operand, where evaluation order matters.
    fn bits_call(&mut self) -> Option<String> {
        let fns: Vec<_> = self
            .env
            .fns
            .iter()
            .filter(|f| matches!(f.ret, Some(Ty::Bit(_))))
            .cloned()
            .collect();
        if fns.is_empty() {
            return None;
        }
        let f = self.rng.pick(&fns);
        self.stats.hit("expr.call.in-operand");
        self.nest += 1;
        let args: Vec<String> = f.params.iter().map(|p| self.expr(p, 1).text).collect();
        self.nest -= 1;
        Some(format!("{}({})", f.name, args.join(", ")))
    }

    /// A read (or, with `place`, an assignable place) of type `ty`: a variable or a field or
    /// element of one, indices constant, loop-dependent or run-time.
    pub fn path_of(&mut self, ty: &Ty, place: bool) -> Option<String> {
        let roots: Vec<(String, Ty)> = self
            .env
            .vars
            .iter()
            .filter(|v| !v.konst && (!place || v.mutable) && self.decls.contains(&v.ty, ty))
            .map(|v| (v.name.clone(), v.ty.clone()))
            .collect();
        if roots.is_empty() {
            return None;
        }
        let (text, mut cur) = self.rng.pick(&roots);
        let mut text = self.resolve(&text);
        while &cur != ty || (self.rng.chance(1, 3) && self.decls.contains_strictly(&cur, ty)) {
            match cur.clone() {
                Ty::Struct(s) => {
                    let fields: Vec<(String, Ty)> = self.decls.structs[s]
                        .fields
                        .iter()
                        .filter(|(_, f)| self.decls.contains(f, ty))
                        .cloned()
                        .collect();
                    let (f, fty) = self.rng.pick(&fields);
                    self.stats.hit("place.field");
                    text = format!("{text}.{f}");
                    cur = fty;
                }
                Ty::Array(elem, n) => {
                    let i = self.index(n);
                    text = format!("{text}[{i}]");
                    cur = *elem;
                }
                _ => return None,
            }
        }
        Some(text)
    }

    /// A variable's text with a header stack's index drawn: `hs[#N].f` becomes `hs[i].f` with
    /// an index into N elements.
    pub fn resolve(&mut self, name: &str) -> String {
        let Some((head, rest)) = name.split_once("[#") else {
            return name.to_string();
        };
        let Some((n, tail)) = rest.split_once(']') else {
            return name.to_string();
        };
        let n: u32 = n.parse().unwrap_or(1);
        self.stats.hit("place.header-stack-element");
        // Indices of indices stop at a constant: run-time indices read variables, which may be
        // stack fields again.
        let i = if self.nest >= 2 {
            format!("{}", self.rng.below(u64::from(n)))
        } else {
            self.nest += 1;
            let i = self.index(n);
            self.nest -= 1;
            i
        };
        format!("{head}[{i}]{tail}")
    }

    /// An index into an array of `n` elements: a constant, a loop variable or a run-time `bit<K>`
    /// with 2^K ≤ n (language.md §3.9).
    pub fn index(&mut self, n: u32) -> String {
        let loops: Vec<String> = self
            .env
            .loops
            .iter()
            .filter(|l| l.max < u64::from(n))
            .map(|l| l.name.clone())
            .collect();
        let k = 31 - n.leading_zeros();
        match self.rng.below(3) {
            0 if !loops.is_empty() => {
                self.stats.hit("place.index.loop-var");
                self.rng.pick(&loops)
            }
            1 if k >= 1 => {
                self.stats.hit("place.index.run-time");
                let src = self.source_bits();
                format!("({src} as bit<{k}>)")
            }
            _ => {
                self.stats.hit("place.index.const");
                format!("{}", self.rng.below(u64::from(n)))
            }
        }
    }

    /// A right operand of a binary operator on `ty`: any expression, but run-time when `left` is
    /// a constant.
    pub fn right(&mut self, ty: &Ty, left: &Ex, depth: u32) -> Ex {
        let r = self.expr(ty, depth);
        // Both constant is an exact constant expression (§4.15); an `if` of literals has no
        // type where the operator gives none (`x / if c { 1 } else { 2 }` is E0209).
        if (left.konst && r.konst) || (!r.typed && r.text.starts_with("(if")) {
            self.atom(ty)
        } else {
            r
        }
    }

    fn binary(&mut self, ty: &Ty, op: &'static str, depth: u32) -> Ex {
        let l = self.typed_expr(ty, depth - 1);
        let r = self.right(ty, &l, depth - 1);
        Ex {
            text: format!("({} {op} {})", l.text, r.text),
            konst: false,
            typed: true,
        }
    }

    fn int_expr(&mut self, ty: &Ty, depth: u32) -> Option<Ex> {
        let signed = matches!(ty, Ty::Int(_));
        let w = ty.int_width()?;
        Some(match self.rng.below(12) {
            0..=3 => {
                let op = self.rng.pick(&[
                    "+", "-", "*", "/", "%", "&", "|", "^", "|+|", "|-|", "+", "-",
                ]);
                self.stats.hit(int_op_name(op));
                self.binary(ty, op, depth)
            }
            4 => {
                let op = self.rng.pick(&["<<", ">>"]);
                self.stats
                    .hit(if op == "<<" { "expr.shl" } else { "expr.shr" });
                let l = self.typed_expr(ty, depth - 1);
                let amount = if self.rng.chance(1, 2) {
                    format!("{}", self.rng.below(u64::from(w) + 3))
                } else {
                    let m = self.rng.pick(&[3u32, 4, 5, 8]);
                    self.atom(&Ty::Bit(m)).text
                };
                Ex::run(format!("({} {op} {amount})", l.text))
            }
            5 => {
                let l = self.typed_expr(ty, depth - 1);
                if signed && self.rng.chance(1, 2) {
                    self.stats.hit("expr.neg");
                    Ex::run(format!("(-{})", l.text))
                } else {
                    self.stats.hit("expr.not");
                    Ex::run(format!("(~{})", l.text))
                }
            }
            6 => self.cast_to(ty, depth)?,
            7 if !signed => self.slice_read(w)?,
            8 if !signed && w >= 2 => {
                self.stats.hit("expr.concat");
                let a = self.rng.range(1, u64::from(w) - 1) as u32;
                let lt = if a >= 2 && self.rng.chance(1, 3) {
                    Ty::Int(a)
                } else {
                    Ty::Bit(a)
                };
                let l = self.typed_expr(&lt, depth - 1);
                // Each operand of `++` is typed on its own (§4.6, §4.17): `typed_expr` never
                // gives a bare literal here, and an `if` operand takes its branches' type.
                let r = self.typed_expr(&Ty::Bit(w - a), depth - 1);
                Ex::run(format!("({} ++ {})", l.text, r.text))
            }
            9 => self.if_expr(ty, depth)?,
            10 => self.min_max(ty, depth),
            _ => self.call_or_get(ty, depth)?,
        })
    }

    fn min_max(&mut self, ty: &Ty, depth: u32) -> Ex {
        let f = self.rng.pick(&["min", "max"]);
        self.stats
            .hit(if f == "min" { "expr.min" } else { "expr.max" });
        let l = self.typed_expr(ty, depth - 1);
        let r = self.right(ty, &l, depth - 1);
        Ex::run(format!("{f}({}, {})", l.text, r.text))
    }

    /// A slice `x[hi:lo]` of width `w` of a wider `bit`/`int` read, with loop-dependent bounds
    /// inside a loop when they fit.
    fn slice_read(&mut self, w: u32) -> Option<Ex> {
        let src_ty = self.rng.pick(&[
            Ty::Bit(64),
            Ty::Bit(32),
            Ty::Bit(16),
            Ty::Int(32),
            Ty::Bit(128),
            Ty::Bit(512),
        ]);
        let m = src_ty.int_width()?;
        if m < w {
            return None;
        }
        let p = self.path_of(&src_ty, false)?;
        let bounds = self.slice_bounds(m, w);
        Some(Ex::run(format!("{p}[{bounds}]")))
    }

    /// `hi:lo` for a slice of width `w` of an `m`-bit value, loop-dependent when possible.
    pub fn slice_bounds(&mut self, m: u32, w: u32) -> String {
        let loops: Vec<(String, u64)> = self
            .env
            .loops
            .iter()
            .filter(|l| l.max + u64::from(w) <= u64::from(m))
            .map(|l| (l.name.clone(), l.max))
            .collect();
        // `x[i * w + w - 1 + c : i * w + c]`: lane `i` of a wide value, as a stream kernel walks
        // the lanes of its word (examples/partition.sn).
        let lanes: Vec<(String, u64)> = self
            .env
            .loops
            .iter()
            .filter(|l| (l.max + 1) * u64::from(w) <= u64::from(m))
            .map(|l| (l.name.clone(), l.max))
            .collect();
        if !lanes.is_empty() && self.rng.chance(1, 3) {
            self.stats.hit("slice.loop-scaled-bounds");
            let (i, max) = self.rng.pick(&lanes);
            let c = self.rng.below(u64::from(m) - (max + 1) * u64::from(w) + 1);
            return format!("{i} * {w} + {}:{i} * {w} + {c}", c + u64::from(w) - 1);
        }
        if !loops.is_empty() && self.rng.chance(2, 3) {
            self.stats.hit("slice.loop-bounds");
            let (i, max) = self.rng.pick(&loops);
            let c = self.rng.below(u64::from(m) - max - u64::from(w) + 1);
            return format!("{i} + {}:{i} + {c}", c + u64::from(w) - 1);
        }
        self.stats.hit("slice.const-bounds");
        let lo = self.rng.below(u64::from(m - w) + 1);
        format!("{}:{lo}", lo + u64::from(w) - 1)
    }

    fn cast_to(&mut self, ty: &Ty, depth: u32) -> Option<Ex> {
        let from = match ty {
            Ty::Bit(n) => {
                let mut options = vec![
                    Ty::Bit(self.rng.pick(&[8, 16, 32, 64, 128, 3])),
                    Ty::Int(self.rng.pick(&[8, 16, 64])),
                ];
                options.push(Ty::Fixed(8, 8));
                if *n == 1 {
                    options.push(Ty::Bool);
                }
                if *n == 64 {
                    options.push(Ty::Unit(Unit::Size));
                    options.push(Ty::Unit(Unit::Rate));
                }
                for (i, e) in self.decls.enums.iter().enumerate() {
                    if e.repr.as_ref().is_some_and(|r| r.0 == *n) {
                        options.push(Ty::Enum(i));
                    }
                }
                self.rng.pick(&options)
            }
            Ty::Int(_) => self
                .rng
                .pick(&[Ty::Bit(16), Ty::Int(8), Ty::Int(64), Ty::Bit(64)]),
            Ty::Bool => Ty::Bit(1),
            Ty::Fixed(..) => {
                self.rng
                    .pick(&[Ty::Fixed(8, 8), Ty::Fixed(1, 15), Ty::Bit(16), Ty::Bit(3)])
            }
            Ty::Unit(_) => Ty::Bit(64),
            _ => return None,
        };
        self.stats.hit(cast_name(&from, ty));
        let e = self.typed_expr(&from, depth - 1);
        Some(Ex::run(format!("({} as {})", e.text, self.ty(ty))))
    }

    /// `if c { a } else { b }` (language.md §4.17).
    fn if_expr(&mut self, ty: &Ty, depth: u32) -> Option<Ex> {
        self.stats.hit("expr.if");
        let c = self.bool_cond(depth - 1);
        let a = self.expr(ty, depth - 1);
        let b = self.expr(ty, depth - 1);
        Some(Ex {
            text: format!("(if {} {{ {} }} else {{ {} }})", c.text, a.text, b.text),
            konst: c.konst && a.konst && b.konst,
            // The checker types the `then` branch first: an untyped `if` there stays untyped.
            typed: a.typed || (b.typed && !a.text.starts_with("(if")),
        })
    }

    /// A run-time `bool` expression.
    pub fn bool_cond(&mut self, depth: u32) -> Ex {
        let e = self.expr(&Ty::Bool, depth);
        if e.konst {
            self.atom(&Ty::Bool)
        } else {
            e
        }
    }

    fn bool_expr(&mut self, depth: u32) -> Option<Ex> {
        Some(match self.rng.below(9) {
            0..=2 => self.comparison(depth),
            3 => {
                let op = self.rng.pick(&["&&", "||", "&", "|", "^"]);
                self.stats.hit(bool_op_name(op));
                self.binary(&Ty::Bool, op, depth)
            }
            4 => {
                self.stats.hit("expr.bool.not");
                let e = self.typed_expr(&Ty::Bool, depth - 1);
                Ex::run(format!("(!{})", e.text))
            }
            5 if self.env.ctx.headers && !self.env.headers.is_empty() => {
                self.stats.hit("expr.header.valid");
                let h = self.rng.pick(&self.env.headers.clone());
                Ex::run(format!("{h}.valid()"))
            }
            6 if self.env.ctx.maps && !self.env.maps.is_empty() => {
                self.stats.hit("expr.map.contains");
                let m = self.rng.pick(&self.env.maps.clone());
                let k = self.typed_expr(&Ty::Bit(m.key_width), depth - 1);
                Ex::run(format!("{}.contains({})", m.name, k.text))
            }
            7 if self.env.ctx.packet_control && !self.env.meters.is_empty() => {
                self.stats.hit("expr.meter.exceeds");
                let (m, n) = self.rng.pick(&self.env.meters.clone());
                let len = self.typed_expr(&Ty::Bit(16), depth - 1).text;
                if n == 1 {
                    Ex::run(format!("{m}.exceeds({len})"))
                } else {
                    let i = self.index(n);
                    Ex::run(format!("{m}[{i}].exceeds({len})"))
                }
            }
            7 => self.cast_to(&Ty::Bool, depth)?,
            _ => self.if_expr(&Ty::Bool, depth)?,
        })
    }

    fn comparison(&mut self, depth: u32) -> Ex {
        let ty = super::gen_types::scalar_ty(&mut self.rng, &self.decls);
        let ordered = !matches!(ty, Ty::Bool | Ty::Enum(_));
        let op = if ordered {
            self.rng.pick(&["==", "!=", "<", "<=", ">", ">="])
        } else {
            self.rng.pick(&["==", "!="])
        };
        self.stats.hit(cmp_name(&ty));
        let l = self.typed_expr(&ty, depth - 1);
        let r = self.right(&ty, &l, depth - 1);
        Ex::run(format!("({} {op} {})", l.text, r.text))
    }

    fn fixed_expr(&mut self, ty: &Ty, depth: u32) -> Option<Ex> {
        Some(match self.rng.below(8) {
            0..=2 => {
                let op = self.rng.pick(&["+", "-", "*", "/", "|+|", "|-|"]);
                self.stats.hit(fixed_op_name(op));
                self.binary(ty, op, depth)
            }
            3 => {
                let op = self.rng.pick(&["*", "/"]);
                self.stats.hit("expr.fixed.scale");
                let l = self.typed_expr(ty, depth - 1);
                let k = if self.rng.chance(1, 2) {
                    format!("{}", self.rng.below(5))
                } else {
                    {
                        let w = self.rng.pick(&[4, 8, 16]);
                        self.atom(&Ty::Bit(w)).text
                    }
                };
                Ex::run(format!("({} {op} {k})", l.text))
            }
            4 => {
                self.stats.hit("expr.fixed.neg");
                let l = self.typed_expr(ty, depth - 1);
                Ex::run(format!("(-{})", l.text))
            }
            5 => self.cast_to(ty, depth)?,
            6 => self.min_max(ty, depth),
            _ => self.if_expr(ty, depth)?,
        })
    }

    fn unit_expr(&mut self, u: Unit, ty: &Ty, depth: u32) -> Option<Ex> {
        Some(match self.rng.below(7) {
            0..=2 => {
                let op = self.rng.pick(&["+", "-", "|+|", "|-|"]);
                self.stats.hit(unit_op_name(op));
                self.binary(ty, op, depth)
            }
            3 => {
                let op = self.rng.pick(&["*", "/"]);
                self.stats.hit(if op == "*" {
                    "expr.unit.scale-mul"
                } else {
                    "expr.unit.scale-div"
                });
                let l = self.typed_expr(ty, depth - 1);
                let k = match self.rng.below(3) {
                    0 => format!("{}", self.rng.below(9)),
                    1 => {
                        let w = self.rng.pick(&[8, 16, 64]);
                        self.atom(&Ty::Bit(w)).text
                    }
                    _ if op == "*" => self.atom(&Ty::Fixed(1, 15)).text,
                    _ => format!("{}", self.rng.below(9)),
                };
                Ex::run(format!("({} {op} {k})", l.text))
            }
            4 => {
                self.stats.hit(match u {
                    Unit::Duration => "cast.bit64-to-duration",
                    Unit::Size => "cast.bit64-to-size",
                    Unit::Rate => "cast.bit64-to-rate",
                });
                let e = self.typed_expr(&Ty::Bit(64), depth - 1);
                Ex::run(format!("({} as {})", e.text, u.name()))
            }
            5 => self.min_max(ty, depth),
            _ => self.if_expr(ty, depth)?,
        })
    }

    fn aggregate_expr(&mut self, ty: &Ty, depth: u32) -> Option<Ex> {
        match self.rng.below(3) {
            0 => self.call_or_get(ty, depth),
            1 => self.if_expr(ty, depth),
            _ => Some(self.aggregate_literal(ty, depth)),
        }
    }

    /// A struct or array literal whose parts are expressions.
    pub fn aggregate_literal(&mut self, ty: &Ty, depth: u32) -> Ex {
        match ty {
            Ty::Struct(s) => {
                self.stats.hit("expr.struct-literal");
                let d = self.decls.structs[*s].clone();
                let fields: Vec<String> = d
                    .fields
                    .iter()
                    .map(|(f, t)| format!("{f}: {}", self.expr(t, depth.saturating_sub(1)).text))
                    .collect();
                Ex::run(format!("{} {{ {} }}", d.name, fields.join(", ")))
            }
            Ty::Array(t, n) => {
                self.stats.hit("expr.array-literal");
                let items: Vec<String> = (0..*n)
                    .map(|_| self.expr(t, depth.saturating_sub(1)).text)
                    .collect();
                Ex::run(format!("[{}]", items.join(", ")))
            }
            _ => self.atom(ty),
        }
    }

    /// A call of a function returning `ty`, or a map `get` of that value type.
    fn call_or_get(&mut self, ty: &Ty, depth: u32) -> Option<Ex> {
        let fns: Vec<_> = self
            .env
            .fns
            .iter()
            .filter(|f| f.ret.as_ref() == Some(ty))
            .cloned()
            .collect();
        let maps: Vec<_> = if self.env.ctx.maps {
            self.env
                .maps
                .iter()
                .filter(|m| &m.value == ty)
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if !maps.is_empty() && (fns.is_empty() || self.rng.chance(1, 2)) {
            self.stats.hit("expr.map.get");
            let m = self.rng.pick(&maps);
            let k = self.typed_expr(&Ty::Bit(m.key_width), depth - 1);
            return Some(Ex::run(format!("{}.get({})", m.name, k.text)));
        }
        // No calls inside call arguments: inlining nested calls of functions with loops grows
        // the program multiplicatively (a seed took 120 s in loop-unrolling).
        if fns.is_empty() || self.nest > 0 {
            return None;
        }
        self.stats.hit("expr.call");
        let f = self.rng.pick(&fns);
        self.nest += 1;
        let args: Vec<String> = f
            .params
            .iter()
            .map(|p| self.expr(p, depth - 1).text)
            .collect();
        self.nest -= 1;
        Some(Ex::run(format!("{}({})", f.name, args.join(", "))))
    }
}
