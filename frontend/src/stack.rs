//! Stack growth for the few walks whose depth valid programs control without brackets: `else if`
//! chains (nested `if`s) and constants defined by other constants (nested signature queries).
//! Bracket nesting and expression depth are bounded instead (E0014).

/// Space left on the stack below which [`grow`] switches to a new segment.
const RED_ZONE: usize = 256 * 1024;

/// Size of each new stack segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, on a fresh heap-allocated stack segment if the current stack is nearly used up.
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
