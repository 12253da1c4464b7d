//! `rdma`/`tcp` scus and their `stream` kernels (language.md §6.5, §7.14, §7.17): CSRs, params and
//! maps (the state that survives from one word to the next), outputs (`dma` or `host`, single or
//! arrays, with or without `batch`), scu functions that push (called only from the kernel, E0508
//! elsewhere), the kernel over `word`, `beat.last`, `beat.keep` and the attach binding, and
//! `every` blocks.
//!
//! Invariants: `pass` is at most once on every path through one word (E0501): `Gen::passed`
//! records whether the path generated so far may have passed, branches merge it as the checker
//! does (the worst case), and no `pass` is written inside a loop or a function. Functions that
//! push are offered to the kernel only, never to `every`.

use super::env::{Ctx, FnSig};
use super::gen_expr::Gen;
use super::gen_scu::ScuEnv;
use super::gen_stmt::Lines;
use super::gen_types::Ty;
use super::program::{OutInfo, ProgramInfo, StreamInfo};

impl Gen {
    /// Writes an `rdma` or `tcp` scu named `name` with a stream kernel, and records what it
    /// offers in `info`.
    pub fn stream_scu(
        &mut self,
        out: &mut Lines,
        name: &str,
        consts: &[(String, Ty)],
        fns: &[FnSig],
        info: &mut ProgramInfo,
    ) {
        info.scu = name.to_string();
        let rdma = self.rng.chance(1, 2);
        let (attach, binding, flow_width) = if rdma {
            ("rdma", self.fresh("qp"), 24)
        } else {
            ("tcp", self.fresh("flow"), 16)
        };
        self.stats.hit(if rdma { "scu.rdma" } else { "scu.tcp" });
        out.open(format!("scu {name} on {attach}({binding}) {{"));
        let mut se = ScuEnv::new(fns, consts);
        self.csrs(out, &mut se, info);
        let outs = self.outs(out);
        self.maps(out, &mut se, info);
        se.base.outs = outs.iter().map(|o| (o.name.clone(), o.count)).collect();
        let pushing = self.stream_functions(out, &se);
        self.kernel(out, &se, &pushing, &binding, flow_width);
        for _ in 0..self.rng.below(2) {
            self.every(out, &se);
        }
        out.close("}");
        info.stream = Some(StreamInfo { flow_width, outs });
    }

    /// `out` declarations: one to three, `dma` or `host`, single or arrays, some batched.
    fn outs(&mut self, out: &mut Lines) -> Vec<OutInfo> {
        let mut outs = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let name = self.fresh("o");
            let kind = if self.rng.chance(2, 3) { "dma" } else { "host" };
            let count = self.rng.chance(1, 3).then(|| self.rng.range(2, 4) as u32);
            let ty = match count {
                Some(n) => {
                    self.stats.hit("stream.out.array");
                    format!("[{kind}; {n}]")
                }
                None => kind.to_string(),
            };
            self.stats.hit(if kind == "dma" {
                "stream.out.dma"
            } else {
                "stream.out.host"
            });
            let batch = if self.rng.chance(1, 2) {
                self.stats.hit("stream.out.batch");
                format!(" batch {}", self.rng.pick(&["64B", "128B", "256B", "1KiB"]))
            } else {
                String::new()
            };
            out.line(format!("out {name}: {ty}{batch};"));
            outs.push(OutInfo { name, count });
        }
        outs
    }

    /// Scu functions that may push (and use CSRs, maps, `notify`): called only from the kernel.
    fn stream_functions(&mut self, out: &mut Lines, se: &ScuEnv) -> Vec<FnSig> {
        let mut fns = Vec::new();
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("sf");
            let mut env = se.word_env();
            env.fns.extend(fns.iter().cloned());
            let params: Vec<Ty> = (0..self.rng.range(1, 2))
                .map(|_| Ty::Bit(self.rng.pick(&[8u32, 16, 64, 512])))
                .collect();
            let ret = self
                .rng
                .chance(1, 2)
                .then(|| Ty::Bit(self.rng.pick(&[2u32, 8, 512])));
            env.ctx = Ctx {
                maps: true,
                notify: true,
                push: true,
                ret: ret.clone(),
                ..Ctx::default()
            };
            self.env = env;
            let ps = self.declare_params(&params);
            self.stats.hit("stream.fn.push");
            match &ret {
                Some(r) => out.open(format!("fn {name}({}) -> {} {{", ps.join(", "), self.ty(r))),
                None => out.open(format!("fn {name}({}) {{", ps.join(", "))),
            }
            self.push_stmt(out, 2);
            let n = self.rng.range(1, 3) as u32;
            self.stmts(out, n, 2);
            if let Some(r) = &ret {
                self.early_return(out, r);
                let e = self.expr(r, 2);
                out.line(format!("return {};", e.text));
            }
            out.close("}");
            fns.push(FnSig { name, params, ret });
        }
        fns
    }

    /// The kernel: `stream(word: bit<512>) { … }`.
    fn kernel(
        &mut self,
        out: &mut Lines,
        se: &ScuEnv,
        pushing: &[FnSig],
        binding: &str,
        flow_width: u32,
    ) {
        let word = self.fresh("w");
        self.stats.hit("stream.kernel");
        out.open(format!("stream({word}: bit<512>) {{"));
        let mut env = se.word_env();
        env.fns.extend(pushing.iter().cloned());
        env.add(word, Ty::Bit(512), false);
        env.add("beat.last", Ty::Bool, false);
        env.add("beat.keep", Ty::Bit(64), false);
        env.add(binding, Ty::Bit(flow_width), false);
        env.ctx = Ctx {
            maps: true,
            notify: true,
            stream: true,
            push: true,
            ..Ctx::default()
        };
        self.env = env;
        self.passed = false;
        let n = self.rng.range(2, 6) as u32;
        self.stmts(out, n, 3);
        // Most kernels pass something on, so the pass port is compared too.
        if !self.passed && self.rng.chance(2, 3) {
            self.pass_stmt(out, 2);
        }
        out.close("}");
    }

    /// A statement only a kernel (or a function it calls) has: `pass`, `push`, or a map entry read,
    /// changed and written back (the per-word state of examples/partition.sn).
    pub(super) fn stream_stmt(&mut self, out: &mut Lines, depth: u32) {
        let may_pass = self.env.ctx.stream && !self.passed && self.env.loops.is_empty();
        match self.rng.below(4) {
            0 if may_pass => self.pass_stmt(out, depth),
            1 if self.env.ctx.maps && self.env.maps.iter().any(|m| !m.value.is_scalar()) => {
                self.map_update(out, depth)
            }
            _ => self.push_stmt(out, depth),
        }
    }

    fn pass_stmt(&mut self, out: &mut Lines, depth: u32) {
        self.stats.hit("stream.pass");
        let w = self.expr(&Ty::Bit(512), depth);
        out.line(format!("pass({});", w.text));
        self.passed = true;
    }

    fn push_stmt(&mut self, out: &mut Lines, depth: u32) {
        let outs = self.env.outs.clone();
        if outs.is_empty() {
            return;
        }
        let (o, count) = self.rng.pick(&outs);
        let w = self.expr(&Ty::Bit(512), depth);
        match count {
            Some(n) => {
                self.stats.hit("stream.push.indexed");
                let i = self.index(n);
                out.line(format!("{o}[{i}].push({});", w.text));
            }
            None => {
                self.stats.hit("stream.push");
                out.line(format!("{o}.push({});", w.text));
            }
        }
    }

    /// `let mut s = m.get(k); s.f = e; let _ = m.insert(k, s);` on a map of struct values.
    fn map_update(&mut self, out: &mut Lines, depth: u32) {
        let maps: Vec<_> = self
            .env
            .maps
            .iter()
            .filter(|m| !m.value.is_scalar())
            .cloned()
            .collect();
        let m = self.rng.pick(&maps);
        self.stats.hit("stream.map-update");
        let k = self.typed_expr(&Ty::Bit(m.key_width), depth).text;
        let key = self.fresh("key");
        let s = self.fresh("s");
        out.line(format!("let {key}: bit<{}> = {k};", m.key_width));
        out.line(format!(
            "let mut {s}: {} = {}.get({key});",
            self.ty(&m.value),
            m.name
        ));
        self.env.push();
        self.env.add(s.clone(), m.value.clone(), true);
        let n = self.rng.range(1, 3) as u32;
        for _ in 0..n {
            if let Some((place, ty)) = self.place_under(Some(&s)) {
                let e = self.expr(&ty, depth);
                out.line(format!("{place} = {};", e.text));
            }
        }
        self.env.pop();
        out.line(format!("let _ = {}.insert({key}, {s});", m.name));
        // The copy stays readable after the write, as a user would keep it.
        self.env.add(s, m.value.clone(), true);
        self.env.add(key, Ty::Bit(m.key_width), false);
    }
}
