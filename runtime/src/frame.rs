//! Entry framing of the slot rings (`docs/device.md` §3.6, §3.7) and the CC event ring (§4.3):
//! byte layouts of control request and response entries, notification records and CC events.
//!
//! Everything is little-endian. A control entry is 256 bytes: a 16-byte header (op, flags, target,
//! index, tag, data words) and up to 30 data words (1920 bits), data bit `j` being bit `j mod 64`
//! of word `j / 64`. Decoding a request checks what the framing shows (reserved flag bits and
//! header bytes, the data word count) and answers with the device status the device would send
//! (`DS_BAD_FLAGS`, `DS_BAD_LENGTH`); the op code and the bank's `D` are checked by whoever knows
//! them (the queue engine, next stage). Nothing here panics on any input.

use crate::abi::codes::DeviceStatus;
use crate::abi::slot::{CQ_ENTRY_BYTES, NQ_ENTRY_BYTES};

/// Data words a control entry holds: `(256 − 16) / 8`.
pub const CQ_DATA_WORDS: usize = 30;
/// Request flag bit 0: address the non-active bank.
pub const FLAG_OTHER_BANK: u8 = 1;

/// A control request or response entry (§3.6). For a response, `op` holds the status byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlEntry {
    /// Request: the `Op` code; response: the status.
    pub op: u8,
    /// Flags (bit 0 `OTHER_BANK`; echoed in the response).
    pub flags: u8,
    /// `Request::target`.
    pub target: u16,
    /// `Request::index`.
    pub index: u32,
    /// Echoed in the response.
    pub tag: u32,
    /// Data words that follow (0..=30).
    pub data_words: u16,
    /// The data; words past `data_words` are 0.
    pub data: [u64; CQ_DATA_WORDS],
}

impl ControlEntry {
    /// An entry with no data.
    pub fn new(op: u8, flags: u8, target: u16, index: u32, tag: u32) -> ControlEntry {
        ControlEntry {
            op,
            flags,
            target,
            index,
            tag,
            data_words: 0,
            data: [0; CQ_DATA_WORDS],
        }
    }

    /// Sets the data; `None` when more than 30 words are given.
    pub fn with_data(mut self, words: &[u64]) -> Option<ControlEntry> {
        if words.len() > CQ_DATA_WORDS {
            return None;
        }
        self.data = [0; CQ_DATA_WORDS];
        self.data[..words.len()].copy_from_slice(words);
        self.data_words = words.len() as u16;
        Some(self)
    }

    /// The 256 bytes of the entry.
    pub fn encode(&self) -> [u8; CQ_ENTRY_BYTES as usize] {
        let mut b = [0u8; CQ_ENTRY_BYTES as usize];
        b[0] = self.op;
        b[1] = self.flags;
        b[2..4].copy_from_slice(&self.target.to_le_bytes());
        b[4..8].copy_from_slice(&self.index.to_le_bytes());
        b[8..12].copy_from_slice(&self.tag.to_le_bytes());
        b[12..14].copy_from_slice(&self.data_words.to_le_bytes());
        for (w, chunk) in self.data.iter().zip(b[16..].chunks_exact_mut(8)) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// Reads an entry without checks (a response, or a request before [`ControlEntry::check_request`]).
    pub fn decode(b: &[u8; CQ_ENTRY_BYTES as usize]) -> ControlEntry {
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut data = [0u64; CQ_DATA_WORDS];
        for (w, chunk) in data.iter_mut().zip(b[16..].chunks_exact(8)) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            *w = u64::from_le_bytes(word);
        }
        ControlEntry {
            op: b[0],
            flags: b[1],
            target: u16_at(2),
            index: u32_at(4),
            tag: u32_at(8),
            data_words: u16_at(12),
            data,
        }
    }

    /// The framing checks of §3.6 for a request read as `raw`: reserved flag bits or header bytes
    /// (`DS_BAD_FLAGS`), more data words than `max_words` (`D/64`) or data past them
    /// (`DS_BAD_LENGTH`).
    pub fn check_request(
        raw: &[u8; CQ_ENTRY_BYTES as usize],
        max_words: usize,
    ) -> Result<ControlEntry, DeviceStatus> {
        let e = ControlEntry::decode(raw);
        if e.flags & !FLAG_OTHER_BANK != 0 || raw[14] != 0 || raw[15] != 0 {
            return Err(DeviceStatus::BadFlags);
        }
        let words = usize::from(e.data_words);
        if words > max_words.min(CQ_DATA_WORDS) || e.data[words..].iter().any(|w| *w != 0) {
            return Err(DeviceStatus::BadLength);
        }
        Ok(e)
    }
}

/// A notification record (§3.7), 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notification {
    /// `NOW_NS` when the unit raised it.
    pub time_ns: u64,
    /// Source slot.
    pub slot: u8,
    /// 0 host, 1 Arm.
    pub target: u8,
    /// The bank that raised it.
    pub bank: u8,
    /// Bit 0 `FROM_SHADOW`.
    pub flags: u8,
    /// The 32-bit value.
    pub value: u32,
    /// Per-slot notification number (a gap = loss).
    pub seq: u64,
}

impl Notification {
    /// The 32 bytes of the record.
    pub fn encode(&self) -> [u8; NQ_ENTRY_BYTES as usize] {
        let mut b = [0u8; NQ_ENTRY_BYTES as usize];
        b[0..8].copy_from_slice(&self.time_ns.to_le_bytes());
        b[8] = self.slot;
        b[9] = self.target;
        b[10] = self.bank;
        b[11] = self.flags;
        b[12..16].copy_from_slice(&self.value.to_le_bytes());
        b[16..24].copy_from_slice(&self.seq.to_le_bytes());
        b
    }

    /// Reads a record.
    pub fn decode(b: &[u8; NQ_ENTRY_BYTES as usize]) -> Notification {
        let u64_at = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(w)
        };
        Notification {
            time_ns: u64_at(0),
            slot: b[8],
            target: b[9],
            bank: b[10],
            flags: b[11],
            value: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
            seq: u64_at(16),
        }
    }
}

/// A CC event (§4.3): the 384-bit `cc_event_in` record in a 64-byte ring entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CcEvent {
    /// 0 tick, 1 ack, 2 cnp, 3 ecn, 4 loss, 5 timeout, 6 rtt, 7 sent, 8 int.
    pub kind: u8,
    /// The flow slot.
    pub flow: u32,
    /// Ack: the ECN echo.
    pub ecn: bool,
    /// Ack/sent: bytes; rtt: ns; int: the hop's queue length in bytes; else 0.
    pub value: u64,
    /// When.
    pub time_ns: u64,
    /// Int: the rest of the hop's telemetry (zero for every other kind).
    pub int: IntFields,
}

/// The fields of an `int` event (kind 8) beyond `value` (its queue length).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntFields {
    /// The hop's position, 0 = the first switch (bits 48..56).
    pub hop: u8,
    /// Hops on the ACK's path (bits 56..64).
    pub hops: u8,
    /// Bytes the hop's egress port had sent in total (bits 192..256).
    pub tx_bytes: u64,
    /// The switch's time in ns when the packet left (bits 256..320).
    pub ts_ns: u64,
    /// The egress link's rate in bit/s (bits 320..384).
    pub rate_bps: u64,
}

/// Bytes of a CC event ring entry (`EV_INFO`'s entry bytes).
pub const CC_EVENT_ENTRY_BYTES: usize = crate::abi::global::EV_ENTRY_BYTES as usize;

impl CcEvent {
    /// The 64 bytes of the entry (bytes 48..64 are 0).
    pub fn encode(&self) -> [u8; CC_EVENT_ENTRY_BYTES] {
        let word0 = u64::from(self.kind)
            | u64::from(self.flow) << 8
            | u64::from(self.ecn) << 40
            | u64::from(self.int.hop) << 48
            | u64::from(self.int.hops) << 56;
        let words = [
            word0,
            self.value,
            self.time_ns,
            self.int.tx_bytes,
            self.int.ts_ns,
            self.int.rate_bps,
        ];
        let mut b = [0u8; CC_EVENT_ENTRY_BYTES];
        for (i, w) in words.iter().enumerate() {
            b[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// Reads an entry.
    pub fn decode(b: &[u8; CC_EVENT_ENTRY_BYTES]) -> CcEvent {
        let u64_at = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(w)
        };
        let word0 = u64_at(0);
        CcEvent {
            kind: word0 as u8,
            flow: (word0 >> 8) as u32,
            ecn: word0 >> 40 & 1 == 1,
            value: u64_at(8),
            time_ns: u64_at(16),
            int: IntFields {
                hop: (word0 >> 48) as u8,
                hops: (word0 >> 56) as u8,
                tx_bytes: u64_at(24),
                ts_ns: u64_at(32),
                rate_bps: u64_at(40),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/device.md §7, step 3: a TableAdd of `acl` with tag 7 and a 204-bit record.
    #[test]
    fn the_worked_example_request_bytes() {
        let r = [0x1111, 0x2222, 0x3333, 0x0FFF];
        let e = ControlEntry::new(0x10, 0, 0, 0, 7).with_data(&r).unwrap();
        let b = e.encode();
        assert_eq!(b[0], 0x10);
        assert_eq!(&b[1..8], &[0; 7]);
        assert_eq!(&b[8..12], &[7, 0, 0, 0]);
        assert_eq!(&b[12..14], &[4, 0]);
        assert_eq!(&b[16..24], &0x1111u64.to_le_bytes());
        assert_eq!(&b[40..48], &0x0FFFu64.to_le_bytes());
        assert!(b[48..].iter().all(|x| *x == 0));
        assert_eq!(ControlEntry::check_request(&b, 4), Ok(e));
    }

    #[test]
    fn framing_errors_are_device_statuses() {
        let e = ControlEntry::new(0x01, 0, 3, 0, 1)
            .with_data(&[1, 2])
            .unwrap();
        let mut b = e.encode();
        assert_eq!(
            ControlEntry::check_request(&b, 1),
            Err(DeviceStatus::BadLength)
        );
        b[1] = 2;
        assert_eq!(
            ControlEntry::check_request(&b, 4),
            Err(DeviceStatus::BadFlags)
        );
        b[1] = 1;
        b[15] = 9;
        assert_eq!(
            ControlEntry::check_request(&b, 4),
            Err(DeviceStatus::BadFlags)
        );
        b[15] = 0;
        b[16 + 8 * 5] = 1;
        assert_eq!(
            ControlEntry::check_request(&b, 30),
            Err(DeviceStatus::BadLength),
            "data past data_words"
        );
        b[12] = 31;
        assert_eq!(
            ControlEntry::check_request(&b, 30),
            Err(DeviceStatus::BadLength)
        );
        assert!(ControlEntry::new(0, 0, 0, 0, 0)
            .with_data(&[0; 31])
            .is_none());
    }

    #[test]
    fn records_round_trip() {
        let n = Notification {
            time_ns: 5,
            slot: 3,
            target: 1,
            bank: 1,
            flags: 1,
            value: 0xDEAD,
            seq: 9,
        };
        let b = n.encode();
        assert_eq!((b[8], b[9], b[10], b[11]), (3, 1, 1, 1));
        assert_eq!(Notification::decode(&b), n);
        let ev = CcEvent {
            kind: 1,
            flow: 0xABCD_EF01,
            ecn: true,
            value: 1500,
            time_ns: 77,
            int: IntFields::default(),
        };
        let b = ev.encode();
        assert_eq!(b[0], 1);
        assert_eq!(&b[1..5], &0xABCD_EF01u32.to_le_bytes());
        assert_eq!(b[5], 1, "bit 40: ecn");
        assert_eq!(&b[8..16], &1500u64.to_le_bytes(), "bits 64..128: value");
        assert_eq!(&b[16..24], &77u64.to_le_bytes(), "bits 128..192: time");
        assert_eq!(CcEvent::decode(&b), ev);
        assert!(b[24..].iter().all(|x| *x == 0));
        // device.md §4.3: an int hop's fields at bits 48..64 and 192..384, its queue in `value`.
        let hop = CcEvent {
            kind: 8,
            flow: 3,
            ecn: false,
            value: 10_000,
            time_ns: 5,
            int: IntFields {
                hop: 1,
                hops: 2,
                tx_bytes: 123_456,
                ts_ns: 15_000,
                rate_bps: 200_000_000_000,
            },
        };
        let b = hop.encode();
        assert_eq!((b[6], b[7]), (1, 2), "bits 48..56 hop, 56..64 hops");
        assert_eq!(
            &b[24..32],
            &123_456u64.to_le_bytes(),
            "bits 192..256: tx_bytes"
        );
        assert_eq!(&b[32..40], &15_000u64.to_le_bytes(), "bits 256..320: ts");
        assert_eq!(
            &b[40..48],
            &200_000_000_000u64.to_le_bytes(),
            "bits 320..384: rate"
        );
        assert!(b[48..].iter().all(|x| *x == 0));
        assert_eq!(CcEvent::decode(&b), hop);
    }
}
