//! Statements with effects outside the body (outputs, notifications, counters, extraction), table
//! application and action calls.

use super::bits::Bits;
use super::context::{Destination, Exec, Notification};
use super::frame::Frame;
use super::value::Value;
use crate::body::{NotifyTarget, Stmt};
use crate::entities::*;
use crate::program::CounterKind;
use cranelift_entity::EntityRef;

impl Exec<'_> {
    /// Runs a statement with effects (everything but control flow and assignment).
    pub fn effect(&mut self, frame: &mut Frame<'_>, stmt: &Stmt) {
        match stmt {
            Stmt::ToHost => self.effects.copies.push(Destination::Host),
            Stmt::ToNetwork(port) => {
                let port = self.eval(frame, *port).bits().to_u64() as u8;
                if self.halted() {
                    return;
                }
                self.effects.copies.push(Destination::Network(port));
            }
            Stmt::ToScu(scu) => self.effects.copies.push(Destination::Scu(*scu)),
            Stmt::Notify(target, value) => {
                let value = self.eval(frame, *value).bits().to_u64() as u32;
                if self.halted() {
                    return;
                }
                let note = Notification {
                    time_ns: self.now_ns,
                    source: self.source_name(),
                    to_arm: *target == NotifyTarget::Arm,
                    value,
                };
                self.effects.notifications.push(note);
            }
            Stmt::Pass(word) => {
                let word = self.eval(frame, *word).into_bits();
                if self.halted() {
                    return;
                }
                self.effects.passes.push(word);
            }
            Stmt::Push(out, index, word) => {
                let i = index.map_or(0, |e| self.eval(frame, e).bits().to_u128() as usize);
                let word = self.eval(frame, *word).into_bits();
                if self.halted() {
                    return;
                }
                self.effects.pushes.push((*out, i, word));
            }
            Stmt::Count(counter, index) => {
                let i = index.map_or(0, |e| self.eval(frame, e).bits().to_u128() as usize);
                if self.halted() {
                    return;
                }
                self.count(*counter, i);
            }
            Stmt::Extract(inst) => self.extract(*inst),
            Stmt::Emit(inst) => self.emit(*inst),
            Stmt::SetValid(inst, index, valid) => {
                let i = self.index_of(frame, *index);
                if self.halted() {
                    return;
                }
                if let Some(p) = self.packet.as_mut() {
                    p.headers.set_valid(*inst, i, *valid);
                }
            }
            Stmt::Restart(timer) => self.effects.restarts.push(*timer),
            _ => {}
        }
    }

    fn count(&mut self, counter: CounterId, i: usize) {
        let len = self.packet.as_ref().map_or(0, |p| p.data.len() as u64);
        let Some(s) = self.scu.as_mut() else { return };
        let kind = s.def.counters[counter].kind;
        if let Some(cell) =
            s.rt.counters
                .get_mut(counter.index())
                .and_then(|c| c.get_mut(i))
        {
            if kind != CounterKind::Bytes {
                cell.packets += 1;
            }
            if kind != CounterKind::Packets {
                cell.bytes += len;
            }
        }
    }

    /// Extracts the next header: reject with `packet_too_short` when the packet ends first, and with
    /// `stack_overflow` when a stack is full.
    fn extract(&mut self, inst: InstId) {
        let Some(p) = self.packet.as_mut() else {
            return;
        };
        match p.headers.extract(p.data, p.cursor, inst) {
            Ok(bits) => {
                p.cursor += bits;
                if self.effects.trace.is_some() {
                    if let Some(scu) = &self.scu {
                        let name = scu.def.instances[inst].name.clone();
                        self.effects
                            .trace(|| format!("extract {name} ({} bytes)", bits / 8));
                    }
                }
            }
            Err(error) => self.parse_error = Some(error),
        }
    }

    /// Appends a valid header (each valid element of a stack) to the output being deparsed.
    pub fn emit(&mut self, inst: InstId) {
        if let Some(p) = &self.packet {
            p.headers.emit(p.data, inst, &mut self.emitted);
        }
    }

    /// Applies a table: looks it up, runs the chosen action, returns its position and data.
    pub fn apply(&mut self, t: TableId) -> (u32, Vec<Bits>) {
        let Some(scu) = &self.scu else {
            return (0, Vec::new());
        };
        let table = &scu.def.tables[t];
        let module = self.module;
        let cache = self.caches.get(&table.key_body, module);
        let mut key_frame = Frame::new(&table.key_body, cache, module);
        let key: Vec<Bits> = table
            .keys
            .iter()
            .map(|k| self.eval(&mut key_frame, k.expr).into_bits())
            .collect();
        if self.halted() {
            return (0, Vec::new());
        }
        let Some(scu) = self.scu.as_mut() else {
            return (0, Vec::new());
        };
        let state = &mut scu.rt.tables[t.index()];
        let (position, args, hit) = match state.lookup(&key) {
            Some(entry) => (entry.action, entry.args.clone(), true),
            None => (state.default.0, state.default.1.clone(), false),
        };
        let action = table.actions.get(position as usize).copied();
        let table_name = table.name.clone();
        let action_name = action
            .and_then(|a| self.scu.as_ref().map(|s| s.def.actions[a].name.clone()))
            .unwrap_or_default();
        self.effects.trace(|| {
            let keys: Vec<String> = key.iter().map(|k| format!("{k}")).collect();
            format!(
                "table {table_name} key ({}) {} -> {action_name}",
                keys.join(", "),
                if hit { "hit" } else { "miss" }
            )
        });
        if let Some(action) = action {
            self.run_action(action, args.clone());
        }
        (position, args)
    }

    /// Runs an action's body with its data.
    pub fn run_action(&mut self, action: ActionId, args: Vec<Bits>) {
        let Some(scu) = &self.scu else { return };
        let def = &scu.def.actions[action];
        let module = self.module;
        if def.body.block.stmts.is_empty() {
            return;
        }
        let cache = self.caches.get(&def.body, module);
        let mut frame = Frame::new(&def.body, cache, module);
        for (i, a) in args.into_iter().enumerate() {
            frame.set_param(i, Value::Bits(a));
        }
        // `drop()` inside the action marks the effects; the caller's block stops on it.
        let _ = self.block(&mut frame, &def.body.block);
    }
}
