//! Compiling the statements with effects outside the body: copies of the packet, notifications,
//! stream words, counters, extraction and emission of headers, validity, cc timer restarts.
//!
//! Each evaluates its operands first and performs its effect only when none stopped.

use super::stmt::flow;
use super::{Compiler, Flow, Step};
use crate::context::{Cx, Destination, Notification};
use crate::headers::HeaderStore;
use cranelift_entity::EntityRef;
use scenic_ir::body::{NotifyTarget, Stmt};
use scenic_ir::entities::*;
use scenic_ir::program::CounterKind;

impl Compiler<'_> {
    /// A statement with effects (everything but control flow and assignment).
    pub fn effect(&mut self, stmt: &Stmt) -> Step {
        match stmt {
            Stmt::ToHost => Box::new(|cx| {
                cx.effects.copies.push(Destination::Host);
                Flow::Next
            }),
            Stmt::ToNetwork(port) => {
                let port = self.scalar(*port);
                Box::new(move |cx| {
                    flow(port(cx).map(|p| {
                        let port = p.to_u64() as u8;
                        cx.effects.copies.push(Destination::Network(port));
                    }))
                })
            }
            Stmt::ToScu(scu) => {
                let scu = *scu;
                Box::new(move |cx| {
                    cx.effects.copies.push(Destination::Scu(scu));
                    Flow::Next
                })
            }
            Stmt::Notify(target, value) => {
                let (to_arm, value) = (*target == NotifyTarget::Arm, self.scalar(*value));
                Box::new(move |cx| {
                    flow(value(cx).map(|v| {
                        let note = Notification {
                            time_ns: cx.now_ns,
                            source: cx.source_name(),
                            to_arm,
                            value: v.to_u64() as u32,
                        };
                        cx.effects.notifications.push(note);
                    }))
                })
            }
            Stmt::Pass(word) => {
                let word = self.scalar(*word);
                Box::new(move |cx| flow(word(cx).map(|w| cx.effects.passes.push(w))))
            }
            Stmt::Push(out, index, word) => {
                let (out, index, word) = (*out, self.index(*index), self.scalar(*word));
                Box::new(move |cx| {
                    let r = index(cx).and_then(|i| Ok((i, word(cx)?)));
                    flow(r.map(|(i, w)| cx.effects.pushes.push((out, i, w))))
                })
            }
            Stmt::Count(counter, index) => {
                let (counter, index) = (*counter, self.index(*index));
                Box::new(move |cx| flow(index(cx).map(|i| count(cx, counter, i))))
            }
            Stmt::Extract(inst) => self.extract(*inst),
            Stmt::Emit(inst) => {
                let inst = *inst;
                Box::new(move |cx| {
                    emit(cx, inst);
                    Flow::Next
                })
            }
            Stmt::SetValid(inst, index, valid) => {
                let (inst, index, valid) = (*inst, self.index(*index), *valid);
                Box::new(move |cx| {
                    flow(index(cx).map(|i| {
                        if let Some(p) = cx.pkt.as_mut() {
                            p.headers.set_valid(inst, i, valid);
                        }
                    }))
                })
            }
            Stmt::Restart(timer) => {
                let timer = *timer;
                Box::new(move |cx| {
                    cx.effects.restarts.push(timer);
                    Flow::Next
                })
            }
            // Control flow and assignments are compiled by `stmt`.
            _ => Box::new(|_| Flow::Next),
        }
    }
}

impl Compiler<'_> {
    /// `extract(inst)`: for a plain instance of the running scu, with its slot and length
    /// resolved now.
    fn extract(&mut self, inst: InstId) -> Step {
        let plain = self
            .scu
            .and_then(|scu| HeaderStore::new(self.module, scu).extraction(inst));
        let Some(x) = plain else {
            return Box::new(move |cx| extract(cx, inst));
        };
        Box::new(move |cx| {
            let r = cx.pkt.as_mut().map(|p| {
                let r = p.headers.extract_plain(p.data, p.cursor, x);
                if let Ok(bits) = r {
                    p.cursor += bits;
                }
                r
            });
            extracted(cx, inst, r)
        })
    }
}

/// Counts the packet in cell `i` of `counter`.
fn count(cx: &mut Cx<'_>, counter: CounterId, i: usize) {
    let len = cx.pkt.as_ref().map_or(0, |p| p.data.len() as u64);
    let Some(s) = cx.scu.as_mut() else { return };
    let Some(def) = s.def.counters.get(counter) else {
        return;
    };
    let kind = def.kind;
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

/// Extracts the next header: rejects with `packet_too_short` when the packet ends first, and with
/// `stack_overflow` when a stack is full.
fn extract(cx: &mut Cx<'_>, inst: InstId) -> Flow {
    let r = cx.pkt.as_mut().map(|p| {
        let r = p.headers.extract(p.data, p.cursor, inst);
        if let Ok(bits) = r {
            p.cursor += bits;
        }
        r
    });
    extracted(cx, inst, r)
}

/// What follows an extraction that gave `r` (`None`: there is no packet): a trace line, or the
/// rejection.
#[inline]
fn extracted(cx: &mut Cx<'_>, inst: InstId, r: Option<Result<usize, &'static str>>) -> Flow {
    match r {
        None => Flow::Next,
        Some(Ok(bits)) => {
            if cx.effects.trace.is_some() {
                trace_extraction(cx, inst, bits);
            }
            Flow::Next
        }
        Some(Err(error)) => {
            cx.reject(error);
            Flow::Stop
        }
    }
}

/// The trace line of an extraction (kept out of the extraction's code: tracing is rare).
#[cold]
#[inline(never)]
fn trace_extraction(cx: &mut Cx<'_>, inst: InstId, bits: usize) {
    let name = cx
        .scu
        .as_ref()
        .and_then(|s| s.def.instances.get(inst))
        .map_or_else(String::new, |i| i.name.clone());
    cx.effects
        .trace(|| format!("extract {name} ({} bytes)", bits / 8));
}

/// Appends a valid header (each valid element of a stack) to the output being deparsed.
pub(crate) fn emit(cx: &mut Cx<'_>, inst: InstId) {
    if let Some(p) = &cx.pkt {
        p.headers.emit(p.data, inst, &mut cx.emitted);
    }
}
