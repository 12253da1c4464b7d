//! Stream kernels: one 512-bit payload word at a time, with batched DMA outputs.
//!
//! Byte order: payload byte `i` of a word is bits `8i+7..8i`, and bit `i` of `keep` says whether it
//! is valid (the last word of a message may be partial). `pass(w)` sends a word on to the stream's own
//! destination with the input word's `keep`. `out.push(w)` appends the whole word, 64 bytes, to the
//! output's buffer (and reports it in [`WordOutcome::pushed`]); a batched output transfers `batch`
//! bytes at a time and flushes the rest on the last word; an unbatched one transfers each word.

use super::context::{BeatState, Cx, Effects, Notification, ScuCx};
use super::runtime::Machine;
use super::value::Value;
use cranelift_entity::EntityRef;
use scenic_ir::entities::ScuId;
use scenic_ir::proc::bits::Bits;

/// A DMA transfer made by an output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DmaTransfer {
    /// The output's name.
    pub out: String,
    /// The element of an output array (0 otherwise).
    pub index: usize,
    /// The bytes transferred.
    pub data: Vec<u8>,
}

/// What one payload word produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordOutcome {
    /// Words passed on, with the input's `keep`.
    pub passed: Vec<(Bits, u64)>,
    /// Words pushed to outputs by this word (output name, element, the word's bytes), before
    /// batching.
    pub pushed: Vec<(String, usize, Vec<u8>)>,
    /// DMA transfers completed by this word.
    pub transfers: Vec<DmaTransfer>,
    /// Notifications raised.
    pub notifications: Vec<Notification>,
}

/// The bytes of a word in payload order, keeping those whose `keep` bit is set.
pub fn word_bytes(word: &Bits, keep: u64) -> Vec<u8> {
    let be = word.resize(512).to_bytes_be();
    (0..64)
        .filter(|i| keep >> i & 1 == 1)
        .map(|i| be[63 - i])
        .collect()
}

/// A word from payload bytes (byte `i` at bits `8i+7..8i`), and its `keep` mask.
pub fn bytes_word(bytes: &[u8]) -> (Bits, u64) {
    let mut be = [0u8; 64];
    for (i, b) in bytes.iter().take(64).enumerate() {
        be[63 - i] = *b;
    }
    let n = bytes.len().min(64);
    let keep = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    (Bits::from_bytes_be(512, &be), keep)
}

impl<'m> Machine<'m> {
    /// Runs `scu`'s stream kernel on one word of `flow`'s payload.
    pub fn process_word(
        &mut self,
        scu: ScuId,
        flow: u64,
        word: &Bits,
        last: bool,
        keep: u64,
        now_ns: u64,
    ) -> WordOutcome {
        let mut outcome = WordOutcome {
            notifications: self.advance_time(now_ns),
            ..WordOutcome::default()
        };
        let module = self.module;
        let Some(def) = module.scus.get(scu) else {
            return outcome;
        };
        let (Some(rt), Some(code)) = (
            self.scus.get_mut(scu.index()),
            self.program.scus.get(scu.index()),
        ) else {
            return outcome;
        };
        let Some(kernel) = &code.stream else {
            return outcome;
        };
        let mut effects = Effects::default();
        let mut cx = Cx::new(
            module,
            &self.program,
            &mut self.frames,
            &mut effects,
            now_ns,
        );
        cx.scu = Some(ScuCx { def, code, rt });
        cx.beat = Some(BeatState { last, keep });
        cx.flow_id = flow;
        kernel.run_top(&mut cx, &[Value::Bits(word.resize(512))]);
        drop(cx);
        outcome.passed = effects.passes.into_iter().map(|w| (w, keep)).collect();
        // `every` runs that came due are already in `self.notifications` (advance_time records
        // them); only what this word raised is added below.
        let raised = effects.notifications;
        let rt = &mut self.scus[scu.index()];
        for (out, index, w) in effects.pushes {
            // A pushed word is a whole 512-bit word (§7.14): the input word's `keep` describes the
            // input, not what the kernel pushes (a staging word flushed on the last beat holds rows
            // from earlier words).
            let bytes = word_bytes(&w, u64::MAX);
            outcome
                .pushed
                .push((def.outs[out].name.clone(), index, bytes.clone()));
            rt.out_buffers
                .entry((out, index))
                .or_default()
                .extend(bytes);
        }
        for (out_id, out) in def.outs.iter() {
            let elements = out.count.unwrap_or(1) as usize;
            for index in 0..elements {
                let Some(buffer) = rt.out_buffers.get_mut(&(out_id, index)) else {
                    continue;
                };
                let chunk = out.batch.unwrap_or(64).max(1) as usize;
                while buffer.len() >= chunk {
                    let data: Vec<u8> = buffer.drain(..chunk).collect();
                    outcome.transfers.push(DmaTransfer {
                        out: out.name.clone(),
                        index,
                        data,
                    });
                }
                if last && !buffer.is_empty() {
                    let data = std::mem::take(buffer);
                    outcome.transfers.push(DmaTransfer {
                        out: out.name.clone(),
                        index,
                        data,
                    });
                }
            }
        }
        self.notifications.extend(raised.iter().cloned());
        outcome.notifications.extend(raised);
        outcome
    }
}
