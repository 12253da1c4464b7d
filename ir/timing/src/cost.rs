//! The cost model: cycles of latency of each IR operation at the NIC clock, and why.
//!
//! Every figure is an ESTIMATE for a 391 MHz clock (2.56 ns) on an UltraScale+ or Versal fabric (LUT6,
//! CARRY8, DSP48E2 / DSP58, 36 Kb BRAM with a registered output), in whole cycles, the way Vitis HLS
//! schedules a pipelined function: logic that fits in a few LUT levels is chained into a neighbour's
//! cycle and costs 0, anything with a carry chain, a DSP or a memory read costs whole cycles.
//!
//! | operation | cycles | why |
//! |---|---|---|
//! | constants, locals, CSRs, params, header fields, slices, concatenation, casts, `&` `\|` `^` `~` `!`, `&&` `\|\|`, struct/array literals, constant indices | 0 | wiring or one LUT level |
//! | shift by a constant | 0 | wiring |
//! | shift by a run-time amount, `x[lo +: w]` | 0 for ≤ 2 live amount bits, else ⌈⌈bits/2⌉/3⌉ | barrel shifter: a LUT6 is a 4:1 mux (2 shift levels), 3 LUT levels per cycle |
//! | index / header-stack element by a run-time index | same as a shift, over ⌈log2 n⌉ bits | an n:1 mux |
//! | `+` `-` unary `-` `\|+\|` `\|-\|` `<` `<=` `>` `>=` `min` `max` | 0 for ≤ 4 bits, else ⌈w/64⌉ | a carry chain: 64 bits (8 CARRY8) fit one cycle; each further 64 bits is another pipelined cycle; saturation and min/max select chain on the carry out |
//! | `==` `!=` | 0 for ≤ 3 bits (≤ 6 against a constant), 1 up to 512 bits, else 2 | an XOR per bit and an AND tree of LUT6 (log6 depth) |
//! | `*` by 0 or a power of two | 0 | a shift |
//! | `*` by a constant with two set bits | as `+` | shift and add |
//! | `*`, `mul_scaled` | 2 + ⌈log4 tiles⌉, tiles = ⌈a/26⌉·⌈b/17⌉ | DSP48E2 (27×18 signed) with its input, product and output registers; wider products sum partial products in the DSP cascade: 16×16 → 2, 32×32 → 3, 64×64 → 4 |
//! | `/` `%` by 0 or a power of two | 0 (+ an add for `int`) | a shift or a mask (rounding toward zero needs an add for signed values) |
//! | `/` `%` by another constant | a multiply + 1 (+ another multiply for `%`) | multiply by the reciprocal, correct, multiply back for the remainder |
//! | `/` `%` `div_scaled` by a run-time value | dividend bits + 4 | a radix-2 divider: one subtract stage per quotient bit (Vitis' `udiv_64ns_64ns_64_68`: 68 cycles for 64 bits); pipelined, so II stays 1, but it costs dividend-bits stages of subtractors — always worth a warning |
//! | `crc32`, `crc16`, `toeplitz` over n bits | ⌈⌈log6 n⌉ / 3⌉, at least 1 | every output bit is an XOR of input bits: a tree of LUT6, 3 levels per cycle |
//! | `murmur3` of n bytes | 4 multiplies + 2 per 4-byte block | the per-block `k·c1·c2` run in parallel (2 multiplies), the `h = h·5 + c` chain is sequential (2 adds per block), the finaliser has 2 more multiplies |
//! | `ones_complement` over n bits | ⌈log2(n/16)/2⌉ + 1 | a tree of short adds (two levels per cycle) and the end-around-carry fold |
//! | `checksum::update` | 2 | RFC 1624: two one's-complement adds |
//! | `extract`, `lookahead` | 1 (+ waiting for beats, see the parser path) | aligning the header out of the 512-bit beat: a shifter by the parse offset |
//! | `emit` | 1 | aligning the header into the output beat; emits chain on the output offset |
//! | table apply, exact keys | 3 | hash the key (1) and read a BRAM/URAM (2, registered output); the ways are probed in parallel |
//! | table apply, lpm/ternary/range | 3 up to 64 entries, + ⌈log2(size/64)/2⌉ beyond | a CAM: compare every entry in parallel (1), priority-encode (1), read the action data (1); each 4× more entries adds a level to the priority tree |
//! | table apply, all constant, ≤ 16 entries | 1 | the entries are LUT logic |
//! | map get/contains | registers 0, BRAM array 2, hash 3 | an `array` of ≤ 16 cells is a register file (a mux); bigger arrays are a BRAM read; hash maps add the hash |
//! | map insert/remove | registers 0, BRAM 1, + a hash probe (3) for hash maps unless the same key was just looked up | the write, after finding the slot |
//! | counter update | registers 1, BRAM 3 | read (2), add (1), write; an extern with a forwarding register, so II stays 1 |
//! | meter check | registers 2, BRAM 4 | read the bucket (2), compare (1), subtract and write (1); refill runs in the background |
//! | cc per-flow state | read 2 at the start, write-back 1 at the end (registers for ≤ 16 flows: 0) | the flow's record is one wide BRAM/URAM word indexed by the flow |
//! | `if`/`else`, `match` | the condition, then both arms in parallel, joined | if-conversion: arms are computed speculatively, effects wait for the condition; the join is a mux of ≤ 4 inputs per LUT, chained (0) |
//! | function and action calls | inlined | their operations are scheduled in place |
//! | `for` | unrolled | iterations are scheduled one after another; independent iterations overlap, as dependencies allow |
//! | packet outputs, `notify`, `pass`, `push`, `restart`, `set_valid` | 0 | a flag or a FIFO write |

use num_bigint::BigUint;
use scenic_ir::body::BinaryOp;
use scenic_ir::program::{MapKind, MatchKind, Module};
use scenic_ir::types::Type;

/// Cells up to which a map, counter, meter or per-flow state array is a register file, not a BRAM.
pub const REGISTER_CELLS: u64 = 16;
/// Latency of a BRAM or URAM read with a registered output.
pub const BRAM_READ: u32 = 2;
/// Latency of a BRAM write (it is visible to reads one cycle later).
pub const BRAM_WRITE: u32 = 1;
/// Hashing a key for a hash table (a few XOR levels and a short add).
pub const HASH: u32 = 1;
/// Aligning an extracted header out of the beat (or a lookahead).
pub const EXTRACT: u32 = 1;
/// Aligning an emitted header into the output beat.
pub const EMIT: u32 = 1;
/// The RFC 1624 incremental checksum update.
pub const CHECKSUM_UPDATE: u32 = 2;
/// Extra latency of a run-time divider beyond one stage per quotient bit.
pub const DIVIDER_OVERHEAD: u32 = 4;

/// Where a stateful array lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A register file: reads are a mux, writes are visible at the next edge.
    Registers,
    /// A BRAM or URAM: reads take [`BRAM_READ`], writes [`BRAM_WRITE`].
    Bram,
}

/// The cost of one operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Cycles of latency.
    pub cycles: u32,
    /// What it is, for reports ("multiply 64×16 bits").
    pub what: String,
}

impl Cost {
    /// An operation of `cycles` cycles.
    pub fn new(cycles: u32, what: impl Into<String>) -> Cost {
        Cost {
            cycles,
            what: what.into(),
        }
    }

    /// A free operation (wiring, LUT logic).
    pub fn free() -> Cost {
        Cost::new(0, "")
    }
}

/// `ceil(log2(n))` for n ≥ 1 (0 for 0 and 1).
pub fn log2_ceil(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// The width in bits of a value of type `ty` (aggregates: the sum of their parts; at least 1).
pub fn width(module: &Module, ty: &Type) -> u32 {
    width_at(module, ty, 0)
}

/// Types nest at most this deep (deeper, or recursive, layouts in unchecked IR count as 1 bit).
const MAX_TYPE_DEPTH: u32 = 64;

fn width_at(module: &Module, ty: &Type, depth: u32) -> u32 {
    if depth > MAX_TYPE_DEPTH {
        return 1;
    }
    let sum = |tys: &mut dyn Iterator<Item = &Type>| {
        tys.map(|t| width_at(module, t, depth + 1))
            .fold(0u32, u32::saturating_add)
    };
    let w = match ty {
        Type::Header(h) => module
            .headers
            .get(*h)
            .map_or(0, |l| l.bits.saturating_add(1)),
        Type::Struct(s) => module
            .structs
            .get(*s)
            .map_or(0, |l| sum(&mut l.fields.iter().map(|f| &f.ty))),
        Type::Array(elem, n) => width_at(module, elem, depth + 1).saturating_mul(*n),
        Type::Tuple(items) => sum(&mut items.iter()),
        other => other
            .scalar_width(|e| module.enums.get(e).map_or(8, |d| d.width))
            .unwrap_or(1),
    };
    w.max(1)
}

/// A carry chain of `w` bits: adders, subtractors, magnitude comparators.
pub fn carry_chain(w: u32) -> u32 {
    if w <= 4 {
        0
    } else {
        w.div_ceil(64)
    }
}

/// Equality of `w`-bit values (`against_const`: one side is a constant).
pub fn equality(w: u32, against_const: bool) -> u32 {
    let lut_inputs = if against_const { 6 } else { 3 };
    if w <= lut_inputs {
        0
    } else if w <= 512 {
        1
    } else {
        2
    }
}

/// A mux or barrel shifter steered by `bits` live select bits.
pub fn mux_levels(bits: u32) -> u32 {
    let luts = bits.div_ceil(2);
    if luts <= 1 {
        0
    } else {
        luts.div_ceil(3)
    }
}

/// A multiplier of an `a`-bit by a `b`-bit operand in DSP48E2 slices.
pub fn multiplier(a: u32, b: u32) -> u32 {
    let tiles = u64::from(a.div_ceil(26).max(1)) * u64::from(b.div_ceil(17).max(1));
    2 + log2_ceil(tiles).div_ceil(2)
}

/// A run-time divider whose dividend has `bits` bits.
pub fn divider(bits: u32) -> u32 {
    bits.saturating_add(DIVIDER_OVERHEAD)
}

/// An XOR tree over `n` input bits (CRCs, Toeplitz).
pub fn xor_tree(n: u32) -> u32 {
    let mut levels: u32 = 0;
    let mut reach: u64 = 1;
    while reach < u64::from(n.max(2)) {
        reach *= 6;
        levels += 1;
    }
    levels.div_ceil(3).max(1)
}

/// MurmurHash3 x86_32 of `bytes` bytes.
pub fn murmur3(bytes: u32) -> u32 {
    let blocks = bytes.div_ceil(4).max(1);
    4 * multiplier(32, 32) + 2 * blocks
}

/// The Internet checksum of `bits` bits.
pub fn ones_complement(bits: u32) -> u32 {
    let words = u64::from(bits.div_ceil(16).max(1));
    log2_ceil(words).div_ceil(2) + 1
}

/// Where a map of this kind and size lives.
pub fn map_storage(kind: MapKind, size: u64) -> Storage {
    array_storage(kind == MapKind::Array, size)
}

/// Where an array of `size` cells lives (`indexed`: addressed directly, not hashed).
pub fn array_storage(indexed: bool, size: u64) -> Storage {
    if indexed && size <= REGISTER_CELLS {
        Storage::Registers
    } else {
        Storage::Bram
    }
}

/// A map lookup (`get`, `contains`).
pub fn map_read(kind: MapKind, size: u64) -> u32 {
    match (map_storage(kind, size), kind) {
        (Storage::Registers, _) => 0,
        (Storage::Bram, MapKind::Array) => BRAM_READ,
        (Storage::Bram, _) => HASH + BRAM_READ,
    }
}

/// A map write (`insert`, `remove`) once the slot is known.
pub fn map_write(kind: MapKind, size: u64) -> u32 {
    match map_storage(kind, size) {
        Storage::Registers => 0,
        Storage::Bram => BRAM_WRITE,
    }
}

/// A counter update of a `size`-cell counter array.
pub fn counter(size: u64) -> u32 {
    match array_storage(true, size) {
        Storage::Registers => carry_chain(64),
        Storage::Bram => BRAM_READ + carry_chain(64),
    }
}

/// A meter check of a `size`-cell meter array.
pub fn meter(size: u64) -> u32 {
    match array_storage(true, size) {
        Storage::Registers => 2,
        Storage::Bram => BRAM_READ + 2,
    }
}

/// A table lookup with keys of these kinds.
pub fn table(kinds: &[MatchKind], size: u64, const_entries: usize, is_const: bool) -> u32 {
    if kinds.is_empty() {
        return 0;
    }
    if is_const && const_entries <= REGISTER_CELLS as usize {
        return 1;
    }
    if kinds.iter().all(|k| *k == MatchKind::Exact) {
        return HASH + BRAM_READ;
    }
    let extra = log2_ceil(size.div_ceil(64)).div_ceil(2);
    3 + extra
}

/// A binary operator's inputs as the cost model sees them.
#[derive(Clone, Copy, Debug)]
pub struct BinaryInputs<'a> {
    /// Width of the left operand.
    pub lhs: u32,
    /// Width of the right operand.
    pub rhs: u32,
    /// Whether the operator reads its operands as signed.
    pub signed: bool,
    /// The right operand's value, when it is a constant.
    pub rhs_const: Option<&'a BigUint>,
    /// The left operand's value, when it is a constant.
    pub lhs_const: Option<&'a BigUint>,
    /// Live bits of a run-time shift amount (its width minus its known-zero low bits).
    pub shift_bits: u32,
}

/// The cost of a binary operator.
pub fn binary(op: BinaryOp, i: BinaryInputs<'_>) -> Cost {
    use BinaryOp as B;
    let w = i.lhs.max(i.rhs);
    match op {
        B::And | B::Or | B::Xor | B::Concat | B::LogicalAnd | B::LogicalOr => Cost::free(),
        B::Add | B::Sub | B::SatAdd | B::SatSub => {
            Cost::new(carry_chain(w), format!("{} ({w} bits)", name(op)))
        }
        B::Lt | B::Le | B::Gt | B::Ge => Cost::new(carry_chain(w), format!("compare ({w} bits)")),
        B::Eq | B::Ne => {
            let k = i.rhs_const.is_some() || i.lhs_const.is_some();
            Cost::new(equality(w, k), format!("equality ({w} bits)"))
        }
        B::Shl | B::Shr => match i.rhs_const {
            Some(_) => Cost::free(),
            None => Cost::new(
                mux_levels(i.shift_bits.min(log2_ceil(u64::from(i.lhs)))),
                format!("shift by a run-time amount ({} bits)", i.lhs),
            ),
        },
        B::Mul | B::MulScaled(_) => multiply(i),
        B::Div | B::Rem => divide(op, i, i.lhs),
        B::DivScaled(frac) => divide(op, i, i.lhs.saturating_add(frac)),
    }
}

fn name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "subtract",
        BinaryOp::SatAdd => "saturating add",
        BinaryOp::SatSub => "saturating subtract",
        _ => "operation",
    }
}

fn multiply(i: BinaryInputs<'_>) -> Cost {
    let constant = i.rhs_const.or(i.lhs_const);
    if let Some(c) = constant {
        let ones = c.count_ones();
        if ones <= 1 {
            return Cost::free();
        }
        let w = i.lhs.max(i.rhs);
        if ones == 2 {
            return Cost::new(carry_chain(w), format!("shift-and-add multiply ({w} bits)"));
        }
        let other = if i.rhs_const.is_some() { i.lhs } else { i.rhs };
        let cw = u32::try_from(c.bits()).unwrap_or(u32::MAX);
        return Cost::new(
            multiplier(other, cw),
            format!("multiply by a constant ({other}×{cw} bits)"),
        );
    }
    Cost::new(
        multiplier(i.lhs, i.rhs),
        format!("multiply ({}×{} bits)", i.lhs, i.rhs),
    )
}

fn divide(op: BinaryOp, i: BinaryInputs<'_>, dividend: u32) -> Cost {
    let rem = op == BinaryOp::Rem;
    let what = if rem { "remainder" } else { "divide" };
    match i.rhs_const {
        Some(c) if c.count_ones() <= 1 => {
            let fix = if i.signed { carry_chain(i.lhs) } else { 0 };
            Cost::new(fix, format!("{what} by a power of two ({} bits)", i.lhs))
        }
        Some(c) => {
            let cw = u32::try_from(c.bits()).unwrap_or(u32::MAX);
            let mul = multiplier(dividend, cw);
            let cycles = mul + 1 + if rem { mul } else { 0 };
            Cost::new(
                cycles,
                format!("{what} by a constant ({dividend} bits, reciprocal multiply)"),
            )
        }
        None => Cost::new(
            divider(dividend),
            format!("{what} by a run-time value ({dividend}-bit divider)"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(lhs: u32, rhs: u32) -> BinaryInputs<'static> {
        BinaryInputs {
            lhs,
            rhs,
            signed: false,
            rhs_const: None,
            lhs_const: None,
            shift_bits: log2_ceil(u64::from(lhs)),
        }
    }

    #[test]
    fn the_table_in_the_module_doc() {
        assert_eq!(binary(BinaryOp::Xor, inputs(512, 512)).cycles, 0);
        assert_eq!(binary(BinaryOp::Add, inputs(64, 64)).cycles, 1);
        assert_eq!(binary(BinaryOp::Add, inputs(128, 128)).cycles, 2);
        assert_eq!(binary(BinaryOp::Add, inputs(2, 2)).cycles, 0);
        assert_eq!(binary(BinaryOp::Mul, inputs(16, 16)).cycles, 2);
        assert_eq!(binary(BinaryOp::Mul, inputs(32, 32)).cycles, 3);
        assert_eq!(binary(BinaryOp::Mul, inputs(64, 64)).cycles, 4);
        assert_eq!(binary(BinaryOp::Div, inputs(64, 64)).cycles, 68);
        assert_eq!(binary(BinaryOp::Div, inputs(32, 32)).cycles, 36);
        assert_eq!(binary(BinaryOp::Shl, inputs(64, 6)).cycles, 1);
        assert_eq!(binary(BinaryOp::Shl, inputs(512, 9)).cycles, 2);
    }

    #[test]
    fn constants_make_multiplies_and_divides_cheap() {
        let two = BigUint::from(2u32);
        let five = BigUint::from(5u32);
        let big = BigUint::from(0xcc9e_2d51u32);
        let with = |c| BinaryInputs {
            rhs_const: Some(c),
            ..inputs(64, 64)
        };
        assert_eq!(binary(BinaryOp::Mul, with(&two)).cycles, 0);
        assert_eq!(binary(BinaryOp::Div, with(&two)).cycles, 0);
        assert_eq!(binary(BinaryOp::Mul, with(&five)).cycles, 1);
        assert_eq!(binary(BinaryOp::Mul, with(&big)).cycles, 4);
        assert_eq!(binary(BinaryOp::Div, with(&five)).cycles, 4);
    }

    #[test]
    fn hashes_tables_and_maps() {
        assert_eq!(xor_tree(104), 1);
        assert_eq!(xor_tree(296), 2);
        assert_eq!(murmur3(8), 16);
        assert_eq!(ones_complement(160), 3);
        assert_eq!(table(&[MatchKind::Exact], 1 << 20, 0, false), 3);
        assert_eq!(table(&[MatchKind::Lpm], 64, 0, false), 3);
        assert_eq!(table(&[MatchKind::Lpm], 16384, 3, false), 7);
        assert_eq!(table(&[MatchKind::Ternary], 8, 3, true), 1);
        assert_eq!(map_read(MapKind::Array, 4), 0);
        assert_eq!(map_read(MapKind::Array, 1024), 2);
        assert_eq!(map_read(MapKind::Hash, 4), 3);
        assert_eq!(counter(256), 3);
        assert_eq!(counter(4), 1);
    }
}
