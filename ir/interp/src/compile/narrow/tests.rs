//! The narrow operators against the [`Bits`] ones: every kernel, cast and field read on random
//! operands of every width from 1 to 64 bits, with the edge values (0, 1, all ones, the sign bit)
//! drawn often.

use super::*;
use scenic_ir::proc::bits::{read_field, read_field_u64};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value of `w` bits, an edge value one time in four.
    fn value(&mut self, w: u32) -> u64 {
        let edges = [
            0,
            1,
            u64::MAX,
            1u64 << (w - 1),
            (1u64 << (w - 1)).wrapping_sub(1),
        ];
        let v = match self.next() % 8 {
            k @ 0..=1 => edges[(k as usize + self.next() as usize) % edges.len()],
            _ => self.next(),
        };
        v & mask(w)
    }
}

const KERNELS: [Kernel; 17] = [
    Kernel::Add,
    Kernel::Sub,
    Kernel::SatAdd,
    Kernel::SatSub,
    Kernel::SatAddSigned,
    Kernel::SatSubSigned,
    Kernel::Mul,
    Kernel::Div,
    Kernel::Rem,
    Kernel::DivSigned,
    Kernel::RemSigned,
    Kernel::And,
    Kernel::Or,
    Kernel::Xor,
    Kernel::ShrSigned,
    Kernel::LogicalAnd,
    Kernel::LogicalOr,
];

#[test]
fn binary_kernels_compute_what_bits_compute() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let compares = [
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
    ];
    let kernels = KERNELS.iter().copied().chain(
        compares
            .iter()
            .flat_map(|&op| [false, true].map(|signed| Kernel::Compare { op, signed })),
    );
    for k in kernels {
        for w in 1..=64 {
            for _ in 0..200 {
                let (a, b) = (rng.value(w), rng.value(w));
                let want = k.apply(&Bits::from_u64(w, a), &Bits::from_u64(w, b));
                assert_eq!(
                    binary(k, w, w, a, b),
                    want.to_u64(),
                    "{k:?} {w} bits: {a:#x}, {b:#x}"
                );
            }
        }
    }
}

#[test]
fn shifts_by_any_amount_compute_what_bits_compute() {
    let mut rng = Rng(7);
    for k in [Kernel::Shl, Kernel::Shr] {
        for w in 1..=64 {
            for wr in [1, 7, 8, 16, 32, 64] {
                for _ in 0..60 {
                    let a = rng.value(w);
                    let b = match rng.next() % 3 {
                        0 => rng.value(wr),
                        _ => (rng.next() % 70) & mask(wr),
                    };
                    let want = k.apply(&Bits::from_u64(w, a), &Bits::from_u64(wr, b));
                    assert_eq!(
                        binary(k, w, wr, a, b),
                        want.to_u64(),
                        "{k:?} {w}/{wr}: {a:#x} by {b}"
                    );
                }
            }
        }
    }
}

#[test]
fn casts_compute_what_bits_compute() {
    let mut rng = Rng(11);
    let module = scenic_ir::Module::default();
    for from in 1..=64u32 {
        for to in 1..=64u32 {
            let frac = rng.next() as u32 % 20;
            let cases = [
                (Type::Bits(from), Type::Bits(to)),
                (Type::Int(from), Type::Int(to)),
                (Type::Int(from), Type::Bits(to)),
            ];
            let fixed = (frac < from).then(|| {
                (
                    Type::Fixed {
                        int: from - frac,
                        frac,
                    },
                    Type::Bits(to),
                )
            });
            let to_fixed = (frac < to).then(|| {
                (
                    Type::Bits(from),
                    Type::Fixed {
                        int: to - frac,
                        frac,
                    },
                )
            });
            for (f, t) in cases.into_iter().chain(fixed).chain(to_fixed) {
                let plan = ops::cast_plan(&f, &t);
                let a = rng.value(from);
                let want = plan.apply(&Bits::from_u64(from, a), &f, &t, &module);
                assert_eq!(cast(plan, from, to, a), want.to_u64(), "{f} as {t}: {a:#x}");
            }
        }
    }
}

#[test]
fn field_reads_give_what_bits_reads_give() {
    let mut rng = Rng(3);
    let bytes: Vec<u8> = (0..24).map(|_| rng.next() as u8).collect();
    for offset in 0..(24 * 8) {
        for width in 1..=64u32 {
            let want = read_field(&bytes, offset, width).to_u64();
            assert_eq!(
                read_field_u64(&bytes, offset, width),
                want,
                "{offset}+{width}"
            );
        }
    }
}

#[test]
fn masks() {
    assert_eq!(mask(0), 0);
    assert_eq!(mask(1), 1);
    assert_eq!(mask(63), u64::MAX >> 1);
    assert_eq!(mask(64), u64::MAX);
    assert_eq!(mask(200), u64::MAX);
}
