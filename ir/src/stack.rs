//! Stack growth for the IR's recursive walks over statements. A valid program controls their depth
//! without brackets: an `else if` chain of N arms is N nested `if`s, each in the `else` block of
//! the one before (a 10,000-arm chain checks and builds). Expression depth is bounded by the
//! frontend instead (E0014), so walks over expressions need no growth.
//!
//! Every function that recurses from a statement into the blocks it holds calls [`grow`] around
//! the recursion: it runs on the current stack while enough is left, and on a new heap-allocated
//! segment otherwise.

/// Space left on the stack below which [`grow`] switches to a new segment.
const RED_ZONE: usize = 256 * 1024;

/// Size of each new stack segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, on a fresh heap-allocated stack segment if the current stack is nearly used up.
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
