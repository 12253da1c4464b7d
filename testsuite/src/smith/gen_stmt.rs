//! Statements: `let`, assignments and compound assignments to every place form (variables,
//! fields, constant / loop-variable / run-time indices, nested paths, slices with constant or
//! loop-dependent bounds), `if`/`else`, `match` with every pattern form, bounded `for` loops,
//! calls, and the unit-specific statements the context allows (maps, counters, `notify`,
//! header validity, destinations and `to_scu`, `restart`; `pass` and `push` in `gen_stream.rs`).
//!
//! Output is one statement per line, blocks opening with a line ending in `{` and closing with a
//! line starting with `}`: the minimiser relies on that shape.

use super::gen_expr::Gen;
use super::gen_types::{int_literal, Ty};

/// Lines of code being built, with the current indentation.
#[derive(Debug, Default)]
pub struct Lines {
    /// The lines.
    pub lines: Vec<String>,
    /// Indentation depth.
    pub indent: usize,
}

impl Lines {
    /// Appends a line at the current indentation.
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "    ".repeat(self.indent), text.as_ref()));
    }

    /// Opens a block with `head` (which ends in `{`).
    pub fn open(&mut self, head: impl AsRef<str>) {
        self.line(head);
        self.indent += 1;
    }

    /// Closes a block with `tail` (which starts with `}`).
    pub fn close(&mut self, tail: impl AsRef<str>) {
        self.indent = self.indent.saturating_sub(1);
        self.line(tail);
    }
}

impl Gen {
    /// A block body of about `n` statements, `depth` levels of nesting allowed.
    pub fn stmts(&mut self, out: &mut Lines, n: u32, depth: u32) {
        for _ in 0..n {
            self.stmt(out, depth);
        }
    }

    /// One statement.
    pub fn stmt(&mut self, out: &mut Lines, depth: u32) {
        let edepth = self.rng.range(1, 3) as u32;
        match self.rng.below(20) {
            0..=3 => self.let_stmt(out, edepth),
            4..=7 => self.assign(out, edepth),
            8..=9 => self.compound(out, edepth),
            10 if depth > 0 => self.if_stmt(out, depth),
            11 if depth > 0 => self.match_stmt(out, depth),
            12 | 13 if depth > 0 => self.for_stmt(out, depth),
            14 => self.call_stmt(out, edepth),
            15..=17 => self.unit_stmt(out, edepth),
            18 if !self.env.ctx.restart.is_empty() => {
                self.stats.hit("stmt.restart");
                let t = self.rng.pick(&self.env.ctx.restart.clone());
                out.line(format!("restart {t};"));
            }
            _ => self.assign(out, edepth),
        }
    }

    fn let_stmt(&mut self, out: &mut Lines, depth: u32) {
        let ty = self.value_ty();
        let e = self.expr(&ty, depth);
        let name = self.fresh("v");
        let mutable = self.rng.chance(3, 4);
        self.stats
            .hit(if mutable { "stmt.let-mut" } else { "stmt.let" });
        out.line(format!(
            "let {}{name}: {} = {};",
            if mutable { "mut " } else { "" },
            self.ty(&ty),
            e.text
        ));
        self.env.add(name, ty, mutable);
    }

    /// A type for a new variable: mostly scalars, sometimes a struct or an array.
    pub fn value_ty(&mut self) -> Ty {
        let n_structs = self.decls.structs.len();
        match self.rng.below(10) {
            0 | 1 if n_structs > 0 => Ty::Struct(self.rng.index(n_structs)),
            2 => {
                let elem = super::gen_types::scalar_ty(&mut self.rng, &self.decls);
                Ty::Array(Box::new(elem), self.rng.pick(&[1, 2, 3, 4, 8]))
            }
            _ => super::gen_types::scalar_ty(&mut self.rng, &self.decls),
        }
    }

    /// An assignable place and its type: a mutable variable, descended through fields and
    /// elements, perhaps sliced.
    pub fn place(&mut self) -> Option<(String, Ty)> {
        self.place_under(None)
    }

    /// [`Gen::place`], inside variable `root` when given.
    pub fn place_under(&mut self, root: Option<&str>) -> Option<(String, Ty)> {
        let roots: Vec<(String, Ty)> = self
            .env
            .vars
            .iter()
            .filter(|v| v.mutable && !v.konst && root.is_none_or(|r| v.name == r))
            .map(|v| (v.name.clone(), v.ty.clone()))
            .collect();
        if roots.is_empty() {
            return None;
        }
        let (text, mut ty) = self.rng.pick(&roots);
        let mut text = self.resolve(&text);
        let mut nested = 0;
        loop {
            let descend = self.rng.chance(3, 4);
            match ty.clone() {
                Ty::Struct(s) if descend => {
                    let (f, fty) = self.rng.pick(&self.decls.structs[s].fields.clone());
                    self.stats.hit("place.field");
                    text = format!("{text}.{f}");
                    ty = fty;
                }
                Ty::Array(elem, n) if descend => {
                    let i = self.index(n);
                    text = format!("{text}[{i}]");
                    ty = *elem;
                }
                _ => break,
            }
            nested += 1;
        }
        if nested >= 2 {
            self.stats.hit("place.nested-path");
        }
        if let (Some(w), true) = (ty.int_width(), self.rng.chance(1, 3)) {
            let sw = self.rng.range(1, u64::from(w)) as u32;
            let bounds = self.slice_bounds(w, sw);
            self.stats.hit("place.slice");
            text = format!("{text}[{bounds}]");
            ty = Ty::Bit(sw);
        }
        Some((text, ty))
    }

    fn assign(&mut self, out: &mut Lines, depth: u32) {
        let Some((place, ty)) = self.place() else {
            return self.let_stmt(out, depth);
        };
        self.stats.hit("stmt.assign");
        let e = self.expr(&ty, depth);
        out.line(format!("{place} = {};", e.text));
    }

    fn compound(&mut self, out: &mut Lines, depth: u32) {
        let Some((place, ty)) = self.place() else {
            return self.let_stmt(out, depth);
        };
        let ops: &[&str] = match ty {
            Ty::Bit(_) | Ty::Int(_) => &[
                "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "|+|=", "|-|=",
            ],
            Ty::Fixed(..) => &["+=", "-=", "*=", "/=", "|+|=", "|-|="],
            Ty::Unit(_) => &["+=", "-=", "|+|=", "|-|="],
            Ty::Bool => &["&=", "|=", "^="],
            _ => return self.assign(out, depth),
        };
        let op = self.rng.pick(ops);
        self.stats.hit(compound_name(op));
        let rhs = if op == "<<=" || op == ">>=" {
            if self.rng.chance(1, 2) {
                format!("{}", self.rng.below(70))
            } else {
                {
                    let w = self.rng.pick(&[3, 5, 8]);
                    self.atom(&Ty::Bit(w)).text
                }
            }
        } else {
            let typed_place = super::gen_expr::Ex {
                text: place.clone(),
                konst: false,
                typed: true,
            };
            self.right(&ty, &typed_place, depth).text
        };
        out.line(format!("{place} {op} {rhs};"));
    }

    fn if_stmt(&mut self, out: &mut Lines, depth: u32) {
        self.stats.hit("stmt.if");
        let c = self.bool_cond(2);
        out.open(format!("if {} {{", c.text));
        let before = self.passed;
        self.scoped(out, depth - 1);
        let then_passed = self.passed;
        if self.rng.chance(1, 2) {
            self.stats.hit("stmt.if-else");
            out.close("} else {");
            out.indent += 1;
            self.passed = before;
            self.scoped(out, depth - 1);
        }
        // Either branch may have run: the worst case of the two (the checker's `max_counts`).
        self.passed |= then_passed;
        out.close("}");
    }

    fn scoped(&mut self, out: &mut Lines, depth: u32) {
        self.env.push();
        let n = self.rng.range(1, 3) as u32;
        self.stmts(out, n, depth);
        self.env.pop();
    }

    fn for_stmt(&mut self, out: &mut Lines, depth: u32) {
        let name = self.fresh("i");
        let (head, max) = if self.env.ctx.stream && self.rng.chance(1, 3) {
            // The lanes of a payload word: 8 of 64 bits, 4 of 128, 16 of 32.
            let n = self.rng.pick(&[4u64, 8, 16]);
            self.stats.hit("stream.for-lanes");
            (format!("for {name} in 0..{n} {{"), n - 1)
        } else if self.rng.chance(1, 2) {
            let n = self.rng.range(1, 4);
            (format!("for {name} in 0..{n} {{"), n - 1)
        } else {
            let n = self.rng.range(0, 3);
            (format!("for {name} in 0..={n} {{"), n)
        };
        self.stats.hit("stmt.for");
        out.open(head);
        self.env.push();
        self.env.loops.push(super::env::LoopVar { name, max });
        let n = self.rng.range(1, 3) as u32;
        self.stmts(out, n, depth - 1);
        self.env.pop();
        out.close("}");
    }

    fn match_stmt(&mut self, out: &mut Lines, depth: u32) {
        let ty = match self.rng.below(4) {
            0 if !self.decls.enums.is_empty() => Ty::Enum(self.rng.index(self.decls.enums.len())),
            1 => Ty::Bool,
            2 => Ty::Int(self.rng.pick(&[4, 8, 16])),
            _ => Ty::Bit(self.rng.pick(&[1, 2, 3, 4, 8, 16, 32])),
        };
        let scrutinee = self.typed_expr(&ty, 1);
        let mut arms = self.patterns(&ty);
        self.stats.hit(match ty {
            Ty::Enum(_) => "stmt.match.enum",
            Ty::Bool => "stmt.match.bool",
            Ty::Int(_) => "stmt.match.int",
            _ => "stmt.match.bit",
        });
        out.open(format!("match {} {{", scrutinee.text));
        if matches!(ty, Ty::Bit(_) | Ty::Int(_)) || self.rng.chance(1, 3) {
            arms.push("_".into());
        }
        let before = self.passed;
        let mut any_passed = before;
        for p in arms {
            out.open(format!("{p} => {{"));
            self.passed = before;
            self.scoped(out, depth - 1);
            any_passed |= self.passed;
            out.close("}");
        }
        self.passed = any_passed;
        out.close("}");
    }

    /// Patterns for a `match` on `ty` (language.md §5.4); exhaustive for enums and `bool`.
    fn patterns(&mut self, ty: &Ty) -> Vec<String> {
        match ty {
            Ty::Enum(e) => {
                let d = self.decls.enums[*e].clone();
                let mut v: Vec<String> = d
                    .variants
                    .iter()
                    .map(|x| format!("{}::{x}", d.name))
                    .collect();
                if v.len() >= 2 && self.rng.chance(1, 3) {
                    self.stats.hit("pattern.or");
                    let b = v.pop().unwrap_or_default();
                    let a = v.pop().unwrap_or_default();
                    v.push(format!("{a} | {b}"));
                }
                v
            }
            Ty::Bool => vec!["true".into(), "false".into()],
            _ => (0..self.rng.range(1, 3))
                .map(|_| self.int_pattern(ty))
                .collect(),
        }
    }

    /// One pattern for an integer scrutinee: a value, a range, a mask or an alternative.
    pub fn int_pattern(&mut self, ty: &Ty) -> String {
        let signed = matches!(ty, Ty::Int(_));
        match self.rng.below(5) {
            0 if !signed => {
                self.stats.hit("pattern.range");
                let (_, a) = int_literal(&mut self.rng, ty);
                let (_, b) = int_literal(&mut self.rng, ty);
                let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                if self.rng.chance(1, 2) || lo == hi {
                    format!("{lo}..={hi}")
                } else {
                    format!("{lo}..{hi}")
                }
            }
            1 if !signed => {
                self.stats.hit("pattern.mask");
                let (_, v) = int_literal(&mut self.rng, ty);
                let (_, m) = int_literal(&mut self.rng, ty);
                format!("{v} &&& {m}")
            }
            2 => {
                self.stats.hit("pattern.or");
                let a = int_literal(&mut self.rng, ty).0;
                let b = int_literal(&mut self.rng, ty).0;
                format!("{a} | {b}")
            }
            _ => {
                self.stats.hit("pattern.value");
                int_literal(&mut self.rng, ty).0
            }
        }
    }

    fn call_stmt(&mut self, out: &mut Lines, depth: u32) {
        let fns = self.env.fns.clone();
        if fns.is_empty() {
            return self.assign(out, depth);
        }
        let f = self.rng.pick(&fns);
        let args: Vec<String> = f.params.iter().map(|p| self.expr(p, depth).text).collect();
        let call = format!("{}({})", f.name, args.join(", "));
        match &f.ret {
            None => {
                self.stats.hit("stmt.call");
                out.line(format!("{call};"));
            }
            Some(ty) => {
                self.stats.hit("stmt.let-call");
                let name = self.fresh("r");
                out.line(format!("let mut {name}: {} = {call};", self.ty(ty)));
                self.env.add(name, ty.clone(), true);
            }
        }
    }

    /// A statement only some contexts allow: maps, counters, `notify`, headers, destinations.
    fn unit_stmt(&mut self, out: &mut Lines, depth: u32) {
        let ctx = self.env.ctx.clone();
        if ctx.push && self.rng.chance(1, 2) {
            return self.stream_stmt(out, depth);
        }
        match self.rng.below(6) {
            0 | 1 if ctx.maps && !self.env.maps.is_empty() => self.map_stmt(out, depth),
            2 if ctx.notify => {
                self.stats.hit("stmt.notify");
                let ty = self
                    .rng
                    .pick(&[Ty::Bit(32), Ty::Bit(8), Ty::Bool, Ty::Int(16)]);
                let v = self.typed_expr(&ty, depth);
                let to = self.rng.pick(&["host", "arm"]);
                out.line(format!("notify({to}, {});", v.text));
            }
            3 if ctx.packet_control && !self.env.counters.is_empty() => {
                self.stats.hit("stmt.counter.count");
                let (c, n) = self.rng.pick(&self.env.counters.clone());
                if n == 1 {
                    out.line(format!("{c}.count();"));
                } else {
                    let i = self.index(n);
                    out.line(format!("{c}.count({i});"));
                }
            }
            4 if ctx.packet_control && !self.env.headers.is_empty() => {
                let h = self.rng.pick(&self.env.headers.clone());
                let m = self.rng.pick(&["set_valid", "set_invalid"]);
                self.stats.hit(if m == "set_valid" {
                    "stmt.header.set-valid"
                } else {
                    "stmt.header.set-invalid"
                });
                out.line(format!("{h}.{m}();"));
            }
            5 if ctx.packet_control => self.destination(out),
            _ => self.assign(out, depth),
        }
    }

    fn destination(&mut self, out: &mut Lines) {
        if !self.env.scu_targets.is_empty() && self.rng.chance(1, 3) {
            self.stats.hit("stmt.to-scu");
            let t = self.rng.pick(&self.env.scu_targets.clone());
            out.line(format!("to_scu({t});"));
            return;
        }
        match self.rng.below(6) {
            0 => {
                self.stats.hit("stmt.drop");
                out.line("drop();");
            }
            1 | 2 => {
                self.stats.hit("stmt.to-host");
                out.line("to_host();");
            }
            _ => {
                self.stats.hit("stmt.to-network");
                let p = if self.rng.chance(1, 2) {
                    format!("{}", self.rng.below(4))
                } else {
                    self.atom(&Ty::Bit(8)).text
                };
                out.line(format!("to_network({p});"));
            }
        }
    }

    fn map_stmt(&mut self, out: &mut Lines, depth: u32) {
        let m = self.rng.pick(&self.env.maps.clone());
        let k = self.typed_expr(&Ty::Bit(m.key_width), depth).text;
        match self.rng.below(4) {
            0 => {
                self.stats.hit("stmt.map.remove");
                out.line(format!("let _ = {}.remove({k});", m.name));
            }
            1 => {
                self.stats.hit("stmt.map.insert-checked");
                let v = self.expr(&m.value, depth).text;
                out.open(format!("if !{}.insert({k}, {v}) {{", m.name));
                self.scoped(out, 0);
                out.close("}");
            }
            _ => {
                self.stats.hit("stmt.map.insert");
                let v = self.expr(&m.value, depth).text;
                out.line(format!("let _ = {}.insert({k}, {v});", m.name));
            }
        }
    }
}

fn compound_name(op: &str) -> &'static str {
    match op {
        "+=" => "stmt.compound.add",
        "-=" => "stmt.compound.sub",
        "*=" => "stmt.compound.mul",
        "/=" => "stmt.compound.div",
        "%=" => "stmt.compound.rem",
        "&=" => "stmt.compound.and",
        "|=" => "stmt.compound.or",
        "^=" => "stmt.compound.xor",
        "<<=" => "stmt.compound.shl",
        ">>=" => "stmt.compound.shr",
        "|+|=" => "stmt.compound.sat-add",
        _ => "stmt.compound.sat-sub",
    }
}
