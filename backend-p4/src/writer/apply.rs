//! Table applications and direct action calls inside the control.
//!
//! `t.apply()` becomes `t.apply();`, or `switch (t.apply().action_run) { ... }` when the program
//! matches on the result or when one of the table's actions was hoisted (its body then runs under
//! its label, with its parameters read from the control variables the P4 action filled). A `match`
//! arm covering several actions is one group of labels; a hoisted action in it gets a label of its
//! own, followed by the arm's code. After an action that may drop, the rest is guarded by
//! `!scenic_done`.

use super::body::{items, needs_flag, BodyWriter, Item, Kind};
use crate::analysis::facts::Facts;
use scenic_ir::body::{Case, Pattern};
use scenic_ir::{ActionId, Block, ExprId, TableId};

impl BodyWriter<'_, '_> {
    /// Writes the key computations and the application of table `t` (expression `on`), with the
    /// arms of a `match` on its result.
    pub fn apply_table(&mut self, t: TableId, on: ExprId, cases: &[Case], default: &Block) {
        let Some(table) = self.cx.scu.tables.get(t) else {
            return;
        };
        let name = self.cx.names.tables.get(&t).cloned().unwrap_or_default();
        self.write_key_vars(t);
        let before = self.facts.clone();
        let mut after = before.clone();
        self.cx
            .plan
            .effects
            .after_expr(self.cx.scu, self.body, on, &mut after);
        let hoisted = table
            .actions
            .iter()
            .any(|a| self.shared.hoisted.contains(a));
        if cases.is_empty() && default.stmts.is_empty() && !hoisted {
            self.code.line(format!("{name}.apply();"));
            self.facts = after;
            return;
        }
        let arm_of = arm_of_actions(table.actions.len(), cases);
        self.code
            .open(format!("switch ({name}.apply().action_run) {{"));
        self.conditional = true;
        let mut end = Facts::unreachable();
        for (positions, arm) in self.label_groups(&table.actions, &arm_of) {
            let labels: Vec<String> = positions
                .iter()
                .filter_map(|p| table.actions.get(*p))
                .filter_map(|a| self.cx.names.actions.get(a).cloned())
                .collect();
            let hoisted_action = positions
                .first()
                .map(|p| table.actions[*p])
                .filter(|a| self.shared.hoisted.contains(a));
            let arm_body: &Block = arm.and_then(|i| cases.get(i)).map_or(default, |c| &c.body);
            self.code.open(format!("{}: {{", labels.join(": ")));
            self.facts = before.clone();
            // Any action of the group may have dropped, which ends the control (language.md
            // §7.15) before the arm runs (smith seed 100650: an arm counted after a dropping
            // action that was not hoisted).
            let may_drop = positions
                .iter()
                .any(|p| self.shared.drops.contains(&table.actions[*p]));
            self.label_body(hoisted_action, None, &after, &items(arm_body), may_drop);
            end = end.meet(&self.facts);
            self.code.close("}");
        }
        if !default.stmts.is_empty()
            && arm_of
                .iter()
                .enumerate()
                .any(|(p, a)| a.is_none() && !self.shared.hoisted.contains(&table.actions[p]))
        {
            self.code.open("default: {");
            self.facts = after.clone();
            let may_drop = arm_of
                .iter()
                .enumerate()
                .any(|(p, a)| a.is_none() && self.shared.drops.contains(&table.actions[p]));
            self.arm_unless_dropped(&items(default), may_drop);
            end = end.meet(&self.facts);
            self.code.close("}");
        } else {
            end = end.meet(&after);
        }
        self.code.close("}");
        self.facts = end;
    }

    /// The labels of the switch on a table's result: groups of action positions with the arm they
    /// run (`None`: the default). The actions of one arm share a group; a hoisted action gets a
    /// group of its own; an action no arm names and that is not hoisted gets none (it goes to
    /// `default`).
    fn label_groups(
        &self,
        actions: &[ActionId],
        arm_of: &[Option<usize>],
    ) -> Vec<(Vec<usize>, Option<usize>)> {
        let mut groups: Vec<(Vec<usize>, Option<usize>)> = Vec::new();
        for (pos, arm) in arm_of.iter().enumerate() {
            let a = actions[pos];
            if self.shared.hoisted.contains(&a) || arm.is_none() {
                if self.shared.hoisted.contains(&a) {
                    groups.push((vec![pos], *arm));
                }
                continue;
            }
            match groups.iter_mut().find(|(ps, g)| {
                g == arm
                    && !ps
                        .iter()
                        .any(|p| self.shared.hoisted.contains(&actions[*p]))
            }) {
                Some((ps, _)) => ps.push(pos),
                None => groups.push((vec![pos], *arm)),
            }
        }
        groups
    }

    /// A hoisted action's body (if any), then the arm's code, guarded when the action may drop.
    /// `args`: for a direct call, the argument values bound to the parameters.
    fn label_body(
        &mut self,
        action: Option<ActionId>,
        args: Option<&[String]>,
        after: &Facts,
        arm: &[Item<'_>],
        may_drop: bool,
    ) {
        if let Some(a) = action {
            self.hoisted_body(a, args);
        }
        self.facts = self.facts.meet(after);
        self.arm_unless_dropped(arm, may_drop);
    }

    /// `arm`, under `if (!scenic_done)` when an action before it may have dropped.
    fn arm_unless_dropped(&mut self, arm: &[Item<'_>], may_drop: bool) {
        if arm.is_empty() {
            return;
        }
        if may_drop {
            let flag = self.shared.done_flag.clone();
            self.code.open(format!("if (!{flag}) {{"));
            self.stmts(arm);
            self.code.close("}");
        } else {
            self.stmts(arm);
        }
    }

    /// Writes an action's body inline, its parameters bound to the control variables of its data
    /// (after a lookup) or to `args` (a direct call).
    fn hoisted_body(&mut self, action: ActionId, args: Option<&[String]>) {
        let Some(a) = self.cx.scu.actions.get(action) else {
            return;
        };
        let level = self.code.level;
        let facts = self.facts.clone();
        let mut sub = BodyWriter::new(
            self.cx,
            &a.body,
            &mut *self.namer,
            &mut *self.shared,
            &mut *self.errors,
            Kind::Action,
            level,
            facts,
        );
        for (i, &p) in a.body.params.iter().enumerate() {
            let ty = a
                .body
                .locals
                .get(p)
                .map(|l| l.ty.clone())
                .unwrap_or_default();
            let p4 = sub.p4_type(&ty);
            let value = match args {
                Some(values) => values.get(i).cloned().unwrap_or_default(),
                None => sub
                    .shared
                    .action_data
                    .get(&(action, i as u32))
                    .cloned()
                    .unwrap_or_default(),
            };
            let name = sub.local(p);
            sub.code.line(format!("{p4} {name} = {value};"));
        }
        let list = items(&a.body.block);
        if needs_flag(sub.shared, self.cx, &a.body, &list) {
            let ret = sub.namer.helper("ret");
            sub.code.line(format!("bool {ret} = false;"));
            sub.exit_flag = Some(ret);
        }
        sub.stmts(&list);
        let (text, facts) = (sub.code.text, sub.facts);
        self.code.text.push_str(&text);
        self.facts = facts;
    }

    /// A direct call (expression `call`) of an action: a P4 action call, or its body inline when
    /// hoisted.
    pub fn call_action(&mut self, call: ExprId, action: ActionId, args: &[ExprId]) {
        self.begin();
        let values: Vec<String> = args
            .iter()
            .map(|&a| super::body::strip(&self.expr(a)))
            .collect();
        self.flush();
        if self.shared.hoisted.contains(&action) {
            let mut after = self.facts.clone();
            self.cx
                .plan
                .effects
                .after_expr(self.cx.scu, self.body, call, &mut after);
            let may_drop = self.shared.drops.contains(&action);
            self.label_body(Some(action), Some(&values), &after, &[], may_drop);
            return;
        }
        let name = self
            .cx
            .names
            .actions
            .get(&action)
            .cloned()
            .unwrap_or_default();
        self.code.line(format!("{name}({});", values.join(", ")));
    }

    /// Computes the key variables of table `t` before its application.
    fn write_key_vars(&mut self, t: TableId) {
        let Some(vars) = self.shared.key_vars.get(&t).cloned() else {
            return;
        };
        let Some(table) = self.cx.scu.tables.get(t) else {
            return;
        };
        for (key, var) in table.keys.iter().zip(vars) {
            let Some(var) = var else { continue };
            let level = self.code.level;
            let facts = self.facts.clone();
            let mut sub = BodyWriter::new(
                self.cx,
                &table.key_body,
                &mut *self.namer,
                &mut *self.shared,
                &mut *self.errors,
                Kind::Control,
                level,
                facts,
            );
            sub.begin();
            let value = super::body::strip(&sub.expr(key.expr));
            sub.flush();
            sub.code.line(format!("{var} = {value};"));
            let text = sub.code.text;
            self.code.text.push_str(&text);
            self.conditional = true;
        }
    }
}

/// Which arm each of a table's `n_actions` actions goes to: the first case naming it, or `None`.
fn arm_of_actions(n_actions: usize, cases: &[Case]) -> Vec<Option<usize>> {
    let mut arm_of: Vec<Option<usize>> = vec![None; n_actions];
    for (ci, case) in cases.iter().enumerate() {
        for p in &case.patterns {
            if let Pattern::Value(c) = p {
                if let Some(slot) = c.to_u64().and_then(|v| arm_of.get_mut(v as usize)) {
                    slot.get_or_insert(ci);
                }
            }
        }
    }
    arm_of
}
