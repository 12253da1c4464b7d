//! The `slow_path` scu: CSRs and params, header types and instances (one a stack), `meta` with
//! an aggregate field, a parser with `extract`, `lookahead`, value/range/mask/tuple selects,
//! `reject` with declared errors and a stack loop, `on parser_error`, tables of every match kind
//! with constant entries (and a `size` so the host adds more), action members, maps of every
//! kind, counters, meters, scu functions, the control (each table applied at most once, E0405),
//! `every` blocks and a deparser. Tables and actions are in `gen_table.rs`.

use super::env::{Ctx, Env, FnSig, MapKind, MapSig};
use super::gen_expr::Gen;
use super::gen_stmt::Lines;
use super::gen_types::{int_literal, Ty};
use super::program::{host_width, MapInfo, ProgramInfo, TableInfo};

/// A header type: name and fields.
struct HeaderTy {
    name: String,
    fields: Vec<(String, u32)>,
}

/// A header instance: its name, its type and, for a stack, its size.
struct Instance {
    name: String,
    ty: usize,
    stack: Option<u32>,
}

/// What the scu's code can see, built once and specialised per context.
pub(super) struct ScuEnv {
    pub(super) base: Env,
    /// CSRs and params: (name, type, assignable by the program).
    pub(super) csrs: Vec<(String, Ty, bool)>,
    /// Header fields: (path, width).
    pub(super) fields: Vec<(String, u32)>,
    /// Meta fields.
    pub(super) meta: Vec<(String, Ty)>,
}

impl ScuEnv {
    /// An scu's env before its members: the program's functions and constants.
    pub(super) fn new(fns: &[FnSig], consts: &[(String, Ty)]) -> ScuEnv {
        let mut se = ScuEnv {
            base: Env {
                fns: fns.to_vec(),
                ..Env::default()
            },
            csrs: Vec::new(),
            fields: Vec::new(),
            meta: Vec::new(),
        };
        for (c, t) in consts {
            se.base.add_const(c.clone(), t.clone());
        }
        se
    }

    /// The env of code that runs outside packets (`every`, a stream kernel and its functions):
    /// the members, with CSRs assignable (language.md §7.1).
    pub(super) fn word_env(&self) -> Env {
        let mut env = self.base.clone();
        for (c, t, assignable) in &self.csrs {
            env.add(c.clone(), t.clone(), *assignable);
        }
        env
    }
}

impl Gen {
    /// Writes the `slow_path` scu `name`, whose control may send copies to `targets`
    /// (`to_scu`), and records what it offers in `info`.
    pub fn scu(
        &mut self,
        out: &mut Lines,
        name: &str,
        targets: &[String],
        consts: &[(String, Ty)],
        fns: &[FnSig],
        info: &mut ProgramInfo,
    ) {
        info.scu = name.to_string();
        let head_at = out.lines.len();
        out.open(format!("scu {name} on slow_path {{"));
        let mut se = ScuEnv::new(fns, consts);
        se.base.scu_targets = targets.to_vec();
        self.csrs(out, &mut se, info);
        let (htys, insts) = self.headers(out, head_at);
        for i in &insts {
            let fields = &htys[i.ty].fields;
            let elems: Vec<String> = match i.stack {
                Some(n) => (0..n).map(|k| format!("{}[{k}]", i.name)).collect(),
                None => vec![i.name.clone()],
            };
            for e in elems {
                se.base.headers.push(e.clone());
            }
            // A stack's fields are one variable each, `hs[#N].f`: the index is drawn (constant,
            // loop variable or run-time) where it is used, like an array's (`Gen::resolve`).
            let root = match i.stack {
                Some(n) => format!("{}[#{n}]", i.name),
                None => i.name.clone(),
            };
            for (f, w) in fields {
                se.fields.push((format!("{root}.{f}"), *w));
            }
        }
        info.header_bytes = insts
            .iter()
            .map(|i| {
                htys[i.ty]
                    .fields
                    .iter()
                    .map(|f| f.1 as usize)
                    .sum::<usize>()
                    / 8
                    * i.stack.unwrap_or(1) as usize
            })
            .sum();
        self.meta(out, &mut se);
        let errors = self.errors(out);
        self.parser(out, &se, &htys, &insts, &errors);
        self.maps(out, &mut se, info);
        self.counters(out, &mut se, info);
        if self.rng.chance(1, 2) {
            self.parser_error(out, &se, &errors);
        }
        self.scu_functions(out, &mut se);
        let tables = self.tables(out, &se, info);
        self.control(out, &se, &tables);
        for _ in 0..self.rng.below(3) {
            self.every(out, &se);
        }
        self.deparser(out, &se, &insts);
        out.close("}");
    }

    pub(super) fn csrs(&mut self, out: &mut Lines, se: &mut ScuEnv, info: &mut ProgramInfo) {
        for i in 0..self.rng.range(1, 4) {
            let name = self.fresh("c");
            let w = self.rng.pick(&[1u32, 8, 16, 32, 64]);
            let readonly = i > 0 && self.rng.chance(1, 3);
            let init = if self.rng.chance(1, 2) {
                format!(" = {}", int_literal(&mut self.rng, &Ty::Bit(w)).0)
            } else {
                String::new()
            };
            self.stats.hit(if readonly {
                "scu.csr.readonly"
            } else {
                "scu.csr"
            });
            let ro = if readonly { " readonly" } else { "" };
            out.line(format!("csr {name}: bit<{w}>{ro}{init};"));
            if !readonly {
                info.host_csrs.push((name.clone(), w));
            }
            info.csrs.push(name.clone());
            se.csrs.push((name, Ty::Bit(w), true));
        }
        for _ in 0..self.rng.below(2) {
            let name = self.fresh("prm");
            let w = self.rng.pick(&[8u32, 16]);
            let v = self.rng.below(256);
            self.stats.hit("scu.param");
            out.line(format!("param {name}: bit<{w}> = {v};"));
            info.host_csrs.push((name.clone(), w));
            info.csrs.push(name.clone());
            se.csrs.push((name, Ty::Bit(w), false));
        }
    }

    fn headers(&mut self, out: &mut Lines, head_at: usize) -> (Vec<HeaderTy>, Vec<Instance>) {
        let mut htys = Vec::new();
        let n_types = self.rng.range(1, 3);
        let mut head = Lines::default();
        for _ in 0..n_types {
            let name = self.fresh("hd");
            let mut fields = Vec::new();
            let mut total = 0;
            for i in 0..self.rng.range(1, 4) {
                let w = self.rng.pick(&[1u32, 2, 3, 4, 8, 12, 16, 32, 48]);
                fields.push((format!("f{i}"), w));
                total += w;
            }
            if total % 8 != 0 {
                fields.push((format!("f{}", fields.len()), 8 - total % 8));
            }
            head.open(format!("header {name} {{"));
            for (f, w) in &fields {
                head.line(format!("{f}: bit<{w}>,"));
            }
            head.close("}");
            self.stats.hit("item.header");
            htys.push(HeaderTy { name, fields });
        }
        // Header types are top-level items: put them before the scu's head line.
        for (k, l) in head.lines.into_iter().enumerate() {
            out.lines.insert(head_at + k, l);
        }
        let mut insts = Vec::new();
        for k in 0..self.rng.range(1, 4) {
            let stack = (k > 0 && self.rng.chance(1, 4)).then(|| self.rng.range(2, 3) as u32);
            let name = self.fresh("h");
            insts.push(Instance {
                name,
                ty: self.rng.index(htys.len()),
                stack,
            });
        }
        let list: Vec<String> = insts
            .iter()
            .map(|i| match i.stack {
                Some(n) => {
                    self.stats.hit("scu.header-stack");
                    format!("{}: [{}; {n}]", i.name, htys[i.ty].name)
                }
                None => format!("{}: {}", i.name, htys[i.ty].name),
            })
            .collect();
        out.line(format!("headers {{ {} }}", list.join(", ")));
        (htys, insts)
    }

    fn meta(&mut self, out: &mut Lines, se: &mut ScuEnv) {
        let mut fields = Vec::new();
        for i in 0..self.rng.range(1, 3) {
            let ty = if i == 0 || self.decls.structs.is_empty() || self.rng.chance(1, 2) {
                Ty::Bit(self.rng.pick(&[4u32, 8, 16, 32]))
            } else {
                self.stats.hit("scu.meta.aggregate");
                Ty::Struct(self.rng.index(self.decls.structs.len()))
            };
            let f = self.fresh("m");
            fields.push(format!("{f}: {}", self.ty(&ty)));
            se.meta.push((format!("meta.{f}"), ty));
        }
        out.line(format!("meta {{ {} }}", fields.join(", ")));
    }

    fn errors(&mut self, out: &mut Lines) -> Vec<String> {
        let errs: Vec<String> = (0..self.rng.below(3)).map(|_| self.fresh("err")).collect();
        if !errs.is_empty() {
            out.line(format!("errors {{ {} }}", errs.join(", ")));
        }
        errs
    }

    /// The env of per-packet code: CSRs (assignable in `control`), header fields, meta, packet.
    pub(super) fn packet_env(&self, se: &ScuEnv, writes: bool, ctx: Ctx) -> Env {
        let mut env = se.base.clone();
        for (c, t, assignable) in &se.csrs {
            env.add(c.clone(), t.clone(), writes && *assignable);
        }
        for (f, w) in &se.fields {
            env.add(f.clone(), Ty::Bit(*w), writes);
        }
        for (m, t) in &se.meta {
            env.add(m.clone(), t.clone(), true);
        }
        env.add("packet.len", Ty::Bit(16), false);
        env.add("packet.port", Ty::Bit(8), false);
        env.add("packet.timestamp", Ty::Bit(64), false);
        env.ctx = ctx;
        env
    }

    fn parser(
        &mut self,
        out: &mut Lines,
        se: &ScuEnv,
        htys: &[HeaderTy],
        insts: &[Instance],
        errors: &[String],
    ) {
        out.open("parser {");
        let n = insts.len();
        for (k, inst) in insts.iter().enumerate() {
            let state = if k == 0 {
                "start".to_string()
            } else {
                format!("st_{}", inst.name)
            };
            out.open(format!("state {state} {{"));
            self.stats.hit("parser.extract");
            out.line(format!("extract({});", inst.name));
            let mut env = self.packet_env(
                se,
                false,
                Ctx {
                    parser: true,
                    ..Ctx::default()
                },
            );
            env.fns.clear();
            env.maps.clear();
            self.env = env;
            self.parser_stmts(out, se);
            let next: Vec<String> = (k + 1..n)
                .map(|j| format!("st_{}", insts[j].name))
                .collect();
            let self_loop = inst.stack.is_some().then(|| state.clone());
            self.transition(out, &htys[inst.ty], inst, &next, self_loop, errors);
            out.close("}");
        }
        out.close("}");
    }

    /// `meta` assignments and lets in a parser state (language.md §7.7.2).
    fn parser_stmts(&mut self, out: &mut Lines, se: &ScuEnv) {
        for _ in 0..self.rng.below(3) {
            let scalar_meta: Vec<(String, Ty)> = se
                .meta
                .iter()
                .filter(|m| m.1.is_scalar())
                .cloned()
                .collect();
            if scalar_meta.is_empty() || self.rng.chance(1, 3) {
                let ty = Ty::Bit(self.rng.pick(&[8, 16]));
                let e = self.expr(&ty, 2);
                let name = self.fresh("pv");
                self.stats.hit("parser.let");
                out.line(format!("let {name}: {} = {};", self.ty(&ty), e.text));
                self.env.add(name, ty, false);
            } else {
                let (m, t) = self.rng.pick(&scalar_meta);
                let e = self.expr(&t, 2);
                self.stats.hit("parser.meta-assign");
                out.line(format!("{m} = {};", e.text));
            }
        }
    }

    fn transition(
        &mut self,
        out: &mut Lines,
        hty: &HeaderTy,
        inst: &Instance,
        next: &[String],
        self_loop: Option<String>,
        errors: &[String],
    ) {
        let mut targets: Vec<String> = next.to_vec();
        targets.push("accept".into());
        targets.push("accept".into());
        if let Some(s) = &self_loop {
            targets.push(s.clone());
        }
        targets.push("reject".into());
        for e in errors {
            targets.push(format!("reject({e})"));
        }
        let elem = match inst.stack {
            Some(_) => format!("{}[0]", inst.name),
            None => inst.name.clone(),
        };
        match self.rng.below(5) {
            0 => {
                let t = self.rng.pick(&targets);
                self.stats.hit("parser.direct");
                out.line(t);
            }
            1 => {
                self.stats.hit("parser.select.lookahead");
                out.open("match lookahead(4) {");
                let a = self.rng.below(16);
                out.line(format!("0..={a} => {},", self.rng.pick(&targets)));
                out.line(format!("_ => {},", self.rng.pick(&targets)));
                out.close("}");
            }
            2 if hty.fields.len() >= 2 => {
                self.stats.hit("parser.select.tuple");
                let (f0, w0) = hty.fields[0].clone();
                let (f1, w1) = hty.fields[1].clone();
                out.open(format!("match ({elem}.{f0}, {elem}.{f1}) {{"));
                for _ in 0..self.rng.range(1, 3) {
                    let a = self.int_pattern(&Ty::Bit(w0));
                    let b = if self.rng.chance(1, 2) {
                        "_".into()
                    } else {
                        self.int_pattern(&Ty::Bit(w1))
                    };
                    out.line(format!("({a}, {b}) => {},", self.rng.pick(&targets)));
                }
                if self.rng.chance(2, 3) {
                    out.line(format!("_ => {},", self.rng.pick(&targets)));
                }
                out.close("}");
            }
            _ => {
                self.stats.hit("parser.select.value");
                let (f, w) = self.rng.pick(&hty.fields);
                out.open(format!("match {elem}.{f} {{"));
                for _ in 0..self.rng.range(1, 3) {
                    let p = self.int_pattern(&Ty::Bit(w));
                    out.line(format!("{p} => {},", self.rng.pick(&targets)));
                }
                if self.rng.chance(2, 3) {
                    out.line(format!("_ => {},", self.rng.pick(&targets)));
                }
                out.close("}");
            }
        }
    }

    pub(super) fn maps(&mut self, out: &mut Lines, se: &mut ScuEnv, info: &mut ProgramInfo) {
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("mp");
            let kind = self
                .rng
                .pick(&[MapKind::Array, MapKind::Hash, MapKind::LruHash]);
            let key_width = self.rng.pick(&[2u32, 4, 8, 16]);
            let size = match kind {
                MapKind::Array => self.rng.range(1, 1 << key_width.min(3)),
                _ => self.rng.range(1, 6),
            };
            let value = if self.decls.structs.is_empty() || self.rng.chance(2, 3) {
                Ty::Bit(self.rng.pick(&[8u32, 16, 32, 64]))
            } else {
                Ty::Struct(self.rng.index(self.decls.structs.len()))
            };
            let k = match kind {
                MapKind::Array => "array",
                MapKind::Hash => "hash",
                MapKind::LruHash => "lru_hash",
            };
            self.stats.hit(match kind {
                MapKind::Array => "scu.map.array",
                MapKind::Hash => "scu.map.hash",
                MapKind::LruHash => "scu.map.lru_hash",
            });
            out.line(format!(
                "map {name}: {k}<bit<{key_width}>, {}>[{size}];",
                self.ty(&value)
            ));
            info.maps.push(MapInfo {
                name: name.clone(),
                kind,
                key_width,
                scalar_value: host_width(&value),
                struct_value: matches!(value, Ty::Struct(_)),
                size,
            });
            se.base.maps.push(MapSig {
                name,
                kind,
                key_width,
                value,
                size,
            });
        }
    }

    fn counters(&mut self, out: &mut Lines, se: &mut ScuEnv, info: &mut ProgramInfo) {
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("k");
            let kind = self.rng.pick(&["packets", "bytes", "packets_and_bytes"]);
            let n = self.rng.pick(&[1u32, 2, 4, 5]);
            self.stats.hit("scu.counter");
            if n == 1 {
                out.line(format!("counter {name}: {kind};"));
            } else {
                out.line(format!("counter {name}: {kind}[{n}];"));
            }
            info.counters.push((name.clone(), n));
            se.base.counters.push((name, n));
        }
        for _ in 0..self.rng.below(2) {
            let name = self.fresh("mt");
            let n = self.rng.pick(&[1u32, 2, 4]);
            let cells = if n == 1 {
                String::new()
            } else {
                format!("[{n}]")
            };
            // Without rate and burst a bucket never exceeds (language.md §7.13).
            let config = if self.rng.chance(3, 4) {
                let rate = self.rng.pick(&["1Mbps", "100Mbps", "10Gbps"]);
                let burst = self.rng.pick(&["64B", "1500B", "4KiB"]);
                format!(" rate {rate} burst {burst}")
            } else {
                String::new()
            };
            self.stats.hit("scu.meter");
            out.line(format!("meter {name}: token_bucket{cells}{config};"));
            se.base.meters.push((name, n));
        }
    }

    /// Scu functions with effects: they write CSRs, use maps and notify, so they may be called
    /// from the control, actions and `every` (language.md §6.4), and inlining must keep their
    /// effects in order.
    fn scu_functions(&mut self, out: &mut Lines, se: &mut ScuEnv) {
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("sf");
            let mut env = se.base.clone();
            for (c, t, assignable) in &se.csrs {
                env.add(c.clone(), t.clone(), *assignable);
            }
            let params: Vec<Ty> = (0..self.rng.range(1, 2))
                .map(|_| Ty::Bit(self.rng.pick(&[4u32, 8, 16])))
                .collect();
            let ret = self
                .rng
                .chance(2, 3)
                .then(|| Ty::Bit(self.rng.pick(&[2u32, 3, 8, 16])));
            env.ctx = Ctx {
                maps: true,
                notify: true,
                ret: ret.clone(),
                ..Ctx::default()
            };
            self.env = env;
            let ps = self.declare_params(&params);
            self.stats.hit(if ret.is_some() {
                "scu.fn.effects"
            } else {
                "scu.fn.effects-void"
            });
            match &ret {
                Some(r) => out.open(format!("fn {name}({}) -> {} {{", ps.join(", "), self.ty(r))),
                None => out.open(format!("fn {name}({}) {{", ps.join(", "))),
            }
            let n = self.rng.range(1, 4) as u32;
            self.stmts(out, n, 2);
            if let Some(r) = &ret {
                self.early_return(out, r);
                let e = self.expr(r, 2);
                out.line(format!("return {};", e.text));
            }
            out.close("}");
            se.base.fns.push(FnSig { name, params, ret });
        }
    }

    pub(super) fn control_ctx() -> Ctx {
        Ctx {
            maps: true,
            notify: true,
            packet_control: true,
            headers: true,
            ..Ctx::default()
        }
    }

    fn parser_error(&mut self, out: &mut Lines, se: &ScuEnv, errors: &[String]) {
        self.stats.hit("scu.on-parser-error");
        let e = self.fresh("e");
        out.open(format!("on parser_error({e}) {{"));
        self.env = self.packet_env(se, true, Self::control_ctx());
        let mut names = vec![
            "packet_too_short".to_string(),
            "no_match".into(),
            "stack_overflow".into(),
        ];
        names.extend(errors.iter().cloned());
        out.open(format!("match {e} {{"));
        for _ in 0..self.rng.range(1, 2) {
            let n = self.rng.pick(&names);
            out.open(format!("{n} => {{"));
            self.env.push();
            self.stmts(out, 1, 1);
            self.env.pop();
            out.close("}");
        }
        out.line("_ => {}");
        out.close("}");
        let n = self.rng.range(0, 2) as u32;
        self.stmts(out, n, 1);
        out.close("}");
    }

    pub(super) fn every(&mut self, out: &mut Lines, se: &ScuEnv) {
        self.stats.hit("scu.every");
        let mut env = se.word_env();
        env.ctx = Ctx {
            maps: true,
            notify: true,
            ..Ctx::default()
        };
        self.env = env;
        let period = self.rng.pick(&["500ns", "1us", "3us", "1500ns"]);
        out.open(format!("every {period} {{"));
        let n = self.rng.range(1, 4) as u32;
        self.stmts(out, n, 2);
        out.close("}");
    }

    fn deparser(&mut self, out: &mut Lines, se: &ScuEnv, insts: &[Instance]) {
        if self.rng.chance(1, 4) {
            self.stats.hit("scu.deparser.default");
            return;
        }
        self.stats.hit("scu.deparser");
        out.open("deparser {");
        let mut order: Vec<usize> = (0..insts.len()).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.index(i + 1);
            order.swap(i, j);
        }
        self.env = self.packet_env(se, true, Ctx::default());
        self.env.fns.clear();
        self.env.maps.clear();
        for (n, k) in order.into_iter().enumerate() {
            if n == 0 && self.rng.chance(1, 3) {
                let (f, w) = self.rng.pick(&se.fields);
                let f = self.resolve(&f);
                let e = self.expr(&Ty::Bit(w), 2);
                self.stats.hit("scu.deparser.assign");
                out.line(format!("{f} = {};", e.text));
            }
            out.line(format!("emit({});", insts[k].name));
        }
        out.close("}");
    }

    fn control(&mut self, out: &mut Lines, se: &ScuEnv, tables: &[TableInfo]) {
        out.open("control {");
        self.env = self.packet_env(se, true, Self::control_ctx());
        let n = self.rng.range(1, 4) as u32;
        self.stmts(out, n, 3);
        // A copy to the second scu on most packets, so that scu runs (language.md §7.15).
        if !se.base.scu_targets.is_empty() && self.rng.chance(2, 3) {
            self.stats.hit("stmt.to-scu");
            let t = self.rng.pick(&se.base.scu_targets);
            out.line(format!("to_scu({t});"));
        }
        for t in tables {
            self.apply(out, t);
            let n = self.rng.range(0, 2) as u32;
            self.stmts(out, n, 2);
        }
        out.close("}");
    }
}
