//! Tables (language.md §7.9): keys of every match kind over header and `meta` fields, inline and
//! member actions with parameters, defaults, constant entries (values, masks, ranges, `_`, never
//! a repeated key) and a `size` that leaves room for the entries the host adds; and their
//! application in the control, as a statement or as a `match` binding the action's arguments.

use super::gen_expr::Gen;
use super::gen_scu::ScuEnv;
use super::gen_stmt::Lines;
use super::gen_types::{int_literal, Ty};
use super::program::{host_width, KeyInfo, ProgramInfo, TableInfo};

impl Gen {
    /// A table's key: a header field or scalar meta field, and a kind that fits its type.
    fn table_key(&mut self, se: &ScuEnv, has_lpm: bool) -> KeyInfo {
        // Stack elements' fields are left out: STF names them with `$`, not `[i]`.
        let mut options: Vec<(String, u32)> = se
            .fields
            .iter()
            .filter(|f| !f.0.contains('['))
            .cloned()
            .collect();
        for (m, t) in &se.meta {
            if let Some(w) = host_width(t) {
                options.push((m.clone(), w));
            }
        }
        let (name, width) = self.rng.pick(&options);
        let mut kinds = vec!["exact", "ternary", "range"];
        if !has_lpm {
            kinds.push("lpm");
        }
        let kind = self.rng.pick(&kinds);
        self.stats.hit(match kind {
            "exact" => "scu.table.key.exact",
            "ternary" => "scu.table.key.ternary",
            "range" => "scu.table.key.range",
            _ => "scu.table.key.lpm",
        });
        KeyInfo {
            name,
            kind,
            width,
            is_bool: false,
        }
    }

    /// A constant entry's pattern for `key`.
    fn entry_pattern(&mut self, key: &KeyInfo) -> String {
        let ty = Ty::Bit(key.width);
        if self.rng.chance(1, 5) && key.kind != "exact" {
            return "_".into();
        }
        match key.kind {
            "ternary" if self.rng.chance(1, 2) => {
                let (_, v) = int_literal(&mut self.rng, &ty);
                let (_, m) = int_literal(&mut self.rng, &ty);
                format!("{v} &&& {m}")
            }
            "range" if self.rng.chance(2, 3) => {
                let (_, a) = int_literal(&mut self.rng, &ty);
                let (_, b) = int_literal(&mut self.rng, &ty);
                let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                format!("{lo}..={hi}")
            }
            _ => int_literal(&mut self.rng, &ty).0,
        }
    }

    pub(super) fn tables(
        &mut self,
        out: &mut Lines,
        se: &ScuEnv,
        info: &mut ProgramInfo,
    ) -> Vec<TableInfo> {
        let mut tables = Vec::new();
        for _ in 0..self.rng.below(3) {
            let t = self.table(out, se);
            tables.push(t);
        }
        info.tables = tables.clone();
        tables
    }

    fn table(&mut self, out: &mut Lines, se: &ScuEnv) -> TableInfo {
        let name = self.fresh("t");
        let mut keys: Vec<KeyInfo> = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let has_lpm = keys.iter().any(|k| k.kind == "lpm");
            keys.push(self.table_key(se, has_lpm));
        }
        // STF names a key by its expression (`add t h.f:1 …`): a key written twice could not be
        // given two values, so each expression is a key once.
        let mut seen = std::collections::HashSet::new();
        keys.retain(|k| seen.insert(k.name.clone()));
        let mut actions: Vec<(String, Vec<(String, u32)>)> = Vec::new();
        let mut decls = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let a = self.fresh("act");
            let params: Vec<(String, u32)> = (0..self.rng.below(3))
                .map(|_| (self.fresh("ap"), self.rng.pick(&[1u32, 4, 8, 16, 32])))
                .collect();
            if self.rng.chance(1, 2) {
                self.action_member(out, se, &a, &params);
                decls.push(a.clone());
            } else {
                self.stats.hit("scu.action.inline");
                let ps: Vec<String> = params
                    .iter()
                    .map(|(p, w)| format!("{p}: bit<{w}>"))
                    .collect();
                decls.push(if ps.is_empty() {
                    a.clone()
                } else {
                    format!("{a}({})", ps.join(", "))
                });
            }
            actions.push((a, params));
        }
        let runtime = self.rng.chance(2, 3);
        self.stats.hit(if runtime {
            "scu.table.runtime"
        } else {
            "scu.table.const"
        });
        out.open(format!("table {name} {{"));
        out.open("key {");
        for k in &keys {
            out.line(format!("{}: {},", k.name, k.kind));
        }
        out.close("}");
        out.line(format!("actions {{ {} }}", decls.join(", ")));
        if self.rng.chance(1, 2) {
            let (a, ps) = self.rng.pick(&actions);
            let args: Vec<String> = ps
                .iter()
                .map(|(_, w)| int_literal(&mut self.rng, &Ty::Bit(*w)).0)
                .collect();
            self.stats.hit("scu.table.default");
            out.line(format!("default {a}({});", args.join(", ")));
        }
        self.table_entries(out, &keys, &actions, runtime);
        out.close("}");
        TableInfo {
            name,
            keys,
            actions,
            runtime,
        }
    }

    fn action_member(
        &mut self,
        out: &mut Lines,
        se: &ScuEnv,
        name: &str,
        params: &[(String, u32)],
    ) {
        self.stats.hit("scu.action.member");
        let ps: Vec<String> = params
            .iter()
            .map(|(p, w)| format!("{p}: bit<{w}>"))
            .collect();
        out.open(format!("action {name}({}) {{", ps.join(", ")));
        self.env = self.packet_env(se, true, Self::control_ctx());
        for (p, w) in params {
            self.env.add(p.clone(), Ty::Bit(*w), false);
        }
        let n = self.rng.range(1, 3) as u32;
        self.stmts(out, n, 1);
        out.close("}");
    }

    /// The `size` of a run-time table and the constant entries, no key repeated (E0102).
    fn table_entries(
        &mut self,
        out: &mut Lines,
        keys: &[KeyInfo],
        actions: &[(String, Vec<(String, u32)>)],
        runtime: bool,
    ) {
        let n_entries = if runtime {
            self.rng.below(3)
        } else {
            self.rng.range(1, 4)
        };
        if runtime {
            out.line(format!("size {};", self.rng.range(n_entries.max(1) + 2, 8)));
        }
        if n_entries > 0 {
            out.open("entries {");
            let mut seen = Vec::new();
            for _ in 0..n_entries {
                let pats: Vec<String> = keys.iter().map(|k| self.entry_pattern(k)).collect();
                // A repeated key is E0102 (not only W0006 as language.md §7.9.5 says).
                let key: Vec<String> = pats.iter().map(|p| normalise_hex(p)).collect();
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                let (a, ps) = self.rng.pick(actions);
                let args: Vec<String> = ps
                    .iter()
                    .map(|(_, w)| int_literal(&mut self.rng, &Ty::Bit(*w)).0)
                    .collect();
                self.stats.hit("scu.table.const-entry");
                out.line(format!("{} => {a}({});", pats.join(", "), args.join(", ")));
            }
            out.close("}");
        }
    }

    pub(super) fn apply(&mut self, out: &mut Lines, t: &TableInfo) {
        if self.rng.chance(1, 3) {
            self.stats.hit("scu.table.apply-stmt");
            out.line(format!("{}.apply();", t.name));
            return;
        }
        self.stats.hit("scu.table.apply-match");
        out.open(format!("match {}.apply() {{", t.name));
        for (a, ps) in &t.actions {
            self.env.push();
            let binds: Vec<String> = ps
                .iter()
                .map(|(_, w)| {
                    if self.rng.chance(1, 3) {
                        "_".to_string()
                    } else {
                        let b = self.fresh("b");
                        self.env.add(b.clone(), Ty::Bit(*w), false);
                        b
                    }
                })
                .collect();
            let pat = if ps.is_empty() {
                a.clone()
            } else {
                format!("{a}({})", binds.join(", "))
            };
            out.open(format!("{pat} => {{"));
            let n = self.rng.range(0, 2) as u32;
            self.stmts(out, n, 1);
            out.close("}");
            self.env.pop();
        }
        if self.rng.chance(1, 2) {
            out.line("no_action => {}");
        } else {
            out.line("_ => {}");
        }
        out.close("}");
    }
}

/// A pattern with its hexadecimal literals written in decimal, to compare entries' keys.
fn normalise_hex(pattern: &str) -> String {
    pattern
        .split(' ')
        .map(|tok| match tok.strip_prefix("0x") {
            Some(h) => u128::from_str_radix(h, 16).map_or(tok.to_string(), |v| v.to_string()),
            None => tok.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
