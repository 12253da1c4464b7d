//! One message of payload words through a stream kernel, recorded in a transcript: the words
//! passed on (as STF sees them: one packet on the pass port per message, the valid bytes of the
//! passed words in order), each word pushed to an output (STF `expect_dma`), the DMA transfers
//! the outputs' batching made (transcript only: STF matches pushed words), and notifications.

use super::compare::Transcript;
use super::inputs::hex;
use scenic_interp::stream::{bytes_word, word_bytes};
use scenic_interp::Machine;
use scenic_ir::entities::ScuId;

/// The STF port of words passed on (docs/testing.md, "Ports and the order of things").
const PASS_PORT: u32 = 257;

/// Runs message `bytes` of `flow` (input `i`) through `scu`'s kernel at `now`.
pub fn words(
    t: &mut Transcript,
    m: &mut Machine<'_>,
    scu: ScuId,
    i: usize,
    flow: u64,
    bytes: &[u8],
    now: u64,
) {
    let chunks: Vec<&[u8]> = bytes.chunks(64).collect();
    let mut passed = Vec::new();
    let mut pushes = Vec::new();
    for (k, chunk) in chunks.iter().enumerate() {
        let (word, keep) = bytes_word(chunk);
        let last = k + 1 == chunks.len();
        let out = m.process_word(scu, flow, &word, last, keep, now);
        for (w, keep) in &out.passed {
            passed.extend(word_bytes(w, *keep));
        }
        for (o, index, data) in &out.pushed {
            t.lines
                .push(format!("{i}: word {k} push {o}[{index}] {}", hex(data)));
            pushes.push((o.clone(), *index, data.clone()));
        }
        for d in &out.transfers {
            t.lines.push(format!(
                "{i}: word {k} dma {}[{}] {}",
                d.out,
                d.index,
                hex(&d.data)
            ));
        }
        t.notes(&out.notifications);
    }
    if !passed.is_empty() {
        t.lines
            .push(format!("{i}: out {PASS_PORT} {}", hex(&passed)));
        t.stf.push(format!("expect {PASS_PORT} {} $", hex(&passed)));
    }
    for (o, index, data) in pushes {
        t.stf
            .push(format!("expect_dma {o}[{index}] {} $", hex(&data)));
    }
    t.stf.push("wait".into());
}
