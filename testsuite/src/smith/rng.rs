//! The generator's random source: the repository's SplitMix64 ([`scenic_ir::rng`]), salted so a
//! smith seed names its own sequence (and the seeds of past campaigns keep naming the same
//! programs).

use scenic_ir::rng::SplitMix64;
use std::ops::{Deref, DerefMut};

/// Smith's generator: a salted [`SplitMix64`] (its methods through `Deref`).
#[derive(Clone, Debug)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed ^ 0x5eed_5c0f_a11c_e000))
    }
}

impl Deref for Rng {
    type Target = SplitMix64;

    fn deref(&self) -> &SplitMix64 {
        &self.0
    }
}

impl DerefMut for Rng {
    fn deref_mut(&mut self) -> &mut SplitMix64 {
        &mut self.0
    }
}
