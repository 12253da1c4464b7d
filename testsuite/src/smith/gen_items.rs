//! Top-level items: enums (with and without a representation), structs nesting arrays of
//! structs, typed constants, functions with parameters and returns (each may call only the ones
//! before it: no recursion, E0503), and congestion controllers with state, params, every event
//! handler, timers with `restart` and byte counters. The scus are in `gen_scu.rs` and
//! `gen_stream.rs`.

use super::env::{Ctx, Env, FnSig};
use super::gen_expr::Gen;
use super::gen_stmt::Lines;
use super::gen_types::{literal, scalar_ty, EnumDecl, StructDecl, Ty, Unit};
use super::program::{CcInfo, Program, ProgramInfo};

impl Gen {
    /// The whole program for this generator's seed.
    pub fn program(&mut self) -> Program {
        let mut out = Lines::default();
        self.enums(&mut out);
        self.structs(&mut out);
        let consts = self.consts(&mut out);
        let fns = self.functions(&mut out, &consts);
        let mut info = ProgramInfo::default();
        self.scus(&mut out, &consts, &fns, &mut info);
        if self.rng.chance(1, 2) {
            let cc = self.cc(&mut out, &consts, &fns);
            info.ccs.push(cc);
        }
        let mut source = out.lines.join("\n");
        source.push('\n');
        Program { source, info }
    }

    /// The scus: a `slow_path` one, an `rdma`/`tcp` one with a stream kernel, or a `slow_path`
    /// one whose control sends copies to a second `slow_path` scu (`to_scu`). The first scu gets
    /// the inputs (as in STF, docs/testing.md); the second gets the copies.
    fn scus(
        &mut self,
        out: &mut Lines,
        consts: &[(String, Ty)],
        fns: &[FnSig],
        info: &mut ProgramInfo,
    ) {
        let name = self.fresh("u");
        match self.rng.below(10) {
            0..=3 => self.scu(out, &name, &[], consts, fns, info),
            4..=6 => self.stream_scu(out, &name, consts, fns, info),
            _ => {
                let second = self.fresh("u");
                self.stats.hit("scu.second");
                self.scu(out, &name, std::slice::from_ref(&second), consts, fns, info);
                let mut peer = ProgramInfo::default();
                self.scu(out, &second, &[], consts, fns, &mut peer);
                info.peer = Some(Box::new(peer));
            }
        }
    }

    fn enums(&mut self, out: &mut Lines) {
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("en");
            let n = self.rng.range(2, 4) as usize;
            let variants: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
            let repr = self.rng.chance(1, 2).then(|| {
                let w = self.rng.range(4, 8) as u32;
                let mut values = Vec::new();
                let mut next = self.rng.below(3);
                for _ in 0..n {
                    values.push(next);
                    next += 1 + self.rng.below(2);
                }
                (w, values)
            });
            self.stats.hit(if repr.is_some() {
                "item.enum.repr"
            } else {
                "item.enum"
            });
            let body: Vec<String> = match &repr {
                Some((_, values)) => variants
                    .iter()
                    .zip(values)
                    .map(|(v, x)| format!("{v} = {x}"))
                    .collect(),
                None => variants.clone(),
            };
            let head = match &repr {
                Some((w, _)) => format!("enum {name}: bit<{w}>"),
                None => format!("enum {name}"),
            };
            out.line(format!("{head} {{ {} }}", body.join(", ")));
            self.decls.enums.push(EnumDecl {
                name,
                variants,
                repr,
            });
        }
    }

    fn structs(&mut self, out: &mut Lines) {
        for _ in 0..self.rng.range(1, 3) {
            let name = self.fresh("st");
            let mut fields = Vec::new();
            for i in 0..self.rng.range(1, 4) {
                let ty = self.field_ty();
                fields.push((format!("f{i}"), ty));
            }
            self.stats.hit("item.struct");
            if fields
                .iter()
                .any(|(_, t)| matches!(t, Ty::Array(e, _) if matches!(**e, Ty::Struct(_))))
            {
                self.stats.hit("item.struct.array-of-structs");
            }
            out.open(format!("struct {name} {{"));
            for (f, t) in &fields {
                out.line(format!("{f}: {},", self.ty(t)));
            }
            out.close("}");
            self.decls.structs.push(StructDecl { name, fields });
        }
    }

    /// A struct field's type: scalars, arrays of scalars, earlier structs and arrays of them.
    fn field_ty(&mut self) -> Ty {
        let n = self.decls.structs.len();
        match self.rng.below(8) {
            0 | 1 if n > 0 => Ty::Struct(self.rng.index(n)),
            2 | 3 if n > 0 => Ty::Array(
                Box::new(Ty::Struct(self.rng.index(n))),
                self.rng.pick(&[2, 3, 4]),
            ),
            4 | 5 => Ty::Array(
                Box::new(Ty::Bit(self.rng.pick(&[4, 8, 16, 32]))),
                self.rng.pick(&[2, 4, 5]),
            ),
            _ => scalar_ty(&mut self.rng, &self.decls),
        }
    }

    fn consts(&mut self, out: &mut Lines) -> Vec<(String, Ty)> {
        let mut consts = Vec::new();
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("K");
            let ty = scalar_ty(&mut self.rng, &self.decls);
            let v = literal(&mut self.rng, &ty, &self.decls);
            self.stats.hit("item.const");
            out.line(format!("const {name}: {} = {v};", self.ty(&ty)));
            consts.push((name, ty));
        }
        consts
    }

    /// Top-level functions: pure, parameters and constants only.
    fn functions(&mut self, out: &mut Lines, consts: &[(String, Ty)]) -> Vec<FnSig> {
        let mut fns: Vec<FnSig> = Vec::new();
        for _ in 0..self.rng.below(4) {
            let name = self.fresh("fun");
            let params: Vec<Ty> = (0..self.rng.range(1, 3))
                .map(|i| {
                    if i == 0 {
                        Ty::Bit(self.rng.pick(&[8, 16, 32]))
                    } else {
                        self.value_ty()
                    }
                })
                .collect();
            let ret = self.value_ty();
            self.env = Env {
                fns: fns.clone(),
                ctx: Ctx {
                    ret: Some(ret.clone()),
                    ..Ctx::default()
                },
                ..Env::default()
            };
            for (c, t) in consts {
                self.env.add_const(c.clone(), t.clone());
            }
            let ps = self.declare_params(&params);
            self.stats.hit("item.fn");
            out.open(format!(
                "fn {name}({}) -> {} {{",
                ps.join(", "),
                self.ty(&ret)
            ));
            let n = self.rng.range(1, 5) as u32;
            self.stmts(out, n, 2);
            self.early_return(out, &ret);
            let e = self.expr(&ret, 2);
            out.line(format!("return {};", e.text));
            out.close("}");
            fns.push(FnSig {
                name,
                params,
                ret: Some(ret),
            });
        }
        fns
    }

    /// Sometimes an `if c { return e; }` before the function's last statement.
    pub fn early_return(&mut self, out: &mut Lines, ret: &Ty) {
        if self.rng.chance(1, 3) {
            self.stats.hit("stmt.early-return");
            let c = self.bool_cond(1);
            let e = self.expr(ret, 1);
            out.open(format!("if {} {{", c.text));
            out.line(format!("return {};", e.text));
            out.close("}");
        }
    }

    fn cc(&mut self, out: &mut Lines, consts: &[(String, Ty)], fns: &[FnSig]) -> CcInfo {
        let name = self.fresh("cc");
        let flows = self.rng.range(1, 4);
        self.stats.hit("item.cc");
        out.open(format!("cc {name} per flow[{flows}] {{"));
        let mut env = Env {
            fns: fns.to_vec(),
            ..Env::default()
        };
        for (c, t) in consts {
            env.add_const(c.clone(), t.clone());
        }
        let mut params = Vec::new();
        for _ in 0..self.rng.below(3) {
            let p = self.fresh("q");
            let w = self.rng.pick(&[8u32, 16, 32]);
            let v = self.rng.below(1 << 8);
            self.stats.hit("cc.param");
            out.line(format!("param {p}: bit<{w}> = {v};"));
            env.add(p.clone(), Ty::Bit(w), false);
            params.push((p, w));
        }
        let (output, out_unit) = if self.rng.chance(1, 2) {
            ("rate", Unit::Rate)
        } else {
            ("window", Unit::Size)
        };
        let out_state = self.fresh("s");
        let init = literal(&mut self.rng, &Ty::Unit(out_unit), &self.decls);
        out.line(format!("state {out_state}: {} = {init};", out_unit.name()));
        env.add(out_state.clone(), Ty::Unit(out_unit), true);
        for _ in 0..self.rng.range(1, 3) {
            let s = self.fresh("s");
            let ty = self.value_ty();
            self.stats.hit(if ty.is_scalar() {
                "cc.state.scalar"
            } else {
                "cc.state.aggregate"
            });
            if ty.is_scalar() && self.rng.chance(1, 2) {
                let v = literal(&mut self.rng, &ty, &self.decls);
                out.line(format!("state {s}: {} = {v};", self.ty(&ty)));
            } else {
                out.line(format!("state {s}: {};", self.ty(&ty)));
            }
            env.add(s, ty, true);
        }
        self.stats.hit(if output == "rate" {
            "cc.output.rate"
        } else {
            "cc.output.window"
        });
        out.line(format!("output {output} {out_state};"));
        let timers = self.cc_timers();
        env.ctx = Ctx {
            notify: true,
            restart: timers.iter().map(|t| t.1.clone()).collect(),
            ..Ctx::default()
        };
        self.cc_handlers(out, &env, &timers);
        out.close("}");
        CcInfo {
            name,
            flows,
            output,
            params,
        }
    }

    /// Timers and byte counters: (is a timer, name, period text).
    fn cc_timers(&mut self) -> Vec<(bool, String, String)> {
        (0..self.rng.below(3))
            .map(|_| {
                if self.rng.chance(2, 3) {
                    let t = self.fresh("tm");
                    (true, t, format!("{}ns", self.rng.pick(&[700, 1000, 2500])))
                } else {
                    let t = self.fresh("bc");
                    (false, t, format!("{}B", self.rng.pick(&[1500, 4096, 100])))
                }
            })
            .collect()
    }

    fn cc_handlers(&mut self, out: &mut Lines, env: &Env, timers: &[(bool, String, String)]) {
        let events = ["ack", "cnp", "ecn", "loss", "timeout", "rtt"];
        let mut any = false;
        for ev in events {
            // Every cc needs a handler (E0509): `rtt` comes when no earlier one did.
            let needed = ev == "rtt" && !any;
            if !needed && !self.rng.chance(1, 2) {
                continue;
            }
            any = true;
            self.env = env.clone();
            let head = match ev {
                "ack" => {
                    let b = self.fresh("a");
                    self.env
                        .add(format!("{b}.bytes"), Ty::Unit(Unit::Size), false);
                    self.env.add(format!("{b}.ecn"), Ty::Bool, false);
                    self.stats.hit("cc.on-ack");
                    format!("on ack({b}) {{")
                }
                "rtt" => {
                    let b = self.fresh("smp");
                    self.env.add(b.clone(), Ty::Unit(Unit::Duration), false);
                    self.stats.hit("cc.on-rtt");
                    format!("on rtt({b}) {{")
                }
                other => {
                    self.stats.hit(match other {
                        "cnp" => "cc.on-cnp",
                        "ecn" => "cc.on-ecn",
                        "loss" => "cc.on-loss",
                        _ => "cc.on-timeout",
                    });
                    format!("on {other} {{")
                }
            };
            out.open(head);
            let n = self.rng.range(1, 5) as u32;
            self.stmts(out, n, 2);
            out.close("}");
        }
        for (is_timer, name, period) in timers {
            self.env = env.clone();
            self.stats.hit(if *is_timer {
                "cc.timer"
            } else {
                "cc.byte-counter"
            });
            let kind = if *is_timer { "timer" } else { "bytes" };
            out.open(format!("on {kind} {name} every {period} {{"));
            let n = self.rng.range(1, 4) as u32;
            self.stmts(out, n, 2);
            out.close("}");
        }
    }
}
