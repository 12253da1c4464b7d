//! [`CsimDevice::word`](scenic_sim::device::Device::word) for stream kernels: one payload word
//! through the testbench's `word` command ([`scenic_backend_hls::writer::testbench::stream`]).
//!
//! What the device reports, and why it differs in timing (never in content) from the
//! interpreter's `WordOutput`: the kernel batches pushed words on chip and only a finished DMA
//! transfer leaves it, so `pushed` holds the 64-byte words of the transfers this word completed
//! (a batch is a whole number of words, so a transfer splits into words exactly), and every
//! transfer is also kept in [`CsimDevice::transfers`]. STF's `expect_dma` compares the words of
//! each output element in order at the next `wait`, which this satisfies as long as the message
//! has ended by then; the differential test compares transfers with the interpreter's
//! `WordOutcome::transfers` word by word.
//!
//! Invariants: time moves for every scu's kernel before the word runs (as the interpreter's
//! `every` blocks of all scus see it); the flow is sent as its low 24 bits, the width of the
//! `word_in_meta` field, which is also what the interpreter keeps of it (`qp` is a `bit<24>`,
//! `flow` a `bit<16>`).

use super::{unhex, CsimDevice};
use scenic_interp::stream::{word_bytes, DmaTransfer};
use scenic_ir::entities::ScuId;
use scenic_ir::proc::bits::Bits;
use scenic_sim::device::{DeviceError, WordOutput};

fn bad(line: &str) -> DeviceError {
    DeviceError::Protocol {
        device: "hls-csim",
        problem: format!("unexpected line `{line}`"),
    }
}

impl CsimDevice<'_> {
    /// Runs one payload word of `flow` through scu `scu`'s stream kernel.
    pub(super) fn stream_word(
        &mut self,
        scu: ScuId,
        flow: u64,
        word: &Bits,
        keep: u64,
        last: bool,
        now_ns: u64,
    ) -> Result<WordOutput, DeviceError> {
        for i in 0..self.tbs.len() {
            let other = cranelift_entity::EntityRef::new(i);
            if other != scu {
                let lines = self.tb(other)?.request(&format!("time {now_ns}"))?;
                for l in lines {
                    self.note(other, &l);
                }
            }
        }
        let data: String = word_bytes(word, u64::MAX)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let line = format!(
            "word {} {now_ns} {keep:x} {} {data}",
            flow & 0xff_ffff,
            u8::from(last)
        );
        let lines = self.tb(scu)?.request(&line)?;
        let mut output = WordOutput::default();
        for l in &lines {
            if self.note(scu, l) {
                continue;
            }
            let parts: Vec<&str> = l.split_whitespace().collect();
            match parts[..] {
                ["pass", bytes] => output.passed.push(unhex(bytes).ok_or_else(|| bad(l))?),
                ["dma", out, element, bytes] => {
                    let transfer = self
                        .transfer(scu, out, element, bytes)
                        .ok_or_else(|| bad(l))?;
                    for chunk in transfer.data.chunks(64) {
                        output
                            .pushed
                            .push((transfer.out.clone(), transfer.index, chunk.to_vec()));
                    }
                    self.transfers.push(transfer);
                }
                _ => return Err(bad(l)),
            }
        }
        Ok(output)
    }

    /// A `dma` line's transfer, with the output's name.
    fn transfer(&self, scu: ScuId, out: &str, element: &str, bytes: &str) -> Option<DmaTransfer> {
        let out: usize = out.parse().ok()?;
        let index: usize = element.parse().ok()?;
        let def = self.module.scus.get(scu)?;
        let (_, o) = def.outs.iter().nth(out)?;
        Some(DmaTransfer {
            out: o.name.clone(),
            index,
            data: unhex(bytes)?,
        })
    }
}
