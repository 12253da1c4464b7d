//! [`Compiled`]: what the front half hands every later stage, whichever reader made it (`.sn`
//! through `compile`, `.p4` through `p4_input`). Its own module so that the two readers share it
//! without depending on each other.

use scenic_frontend::diag::render::SourceMap;
use scenic_ir::Module;

/// A lowered program with the sources later stages point into.
pub struct Compiled {
    /// The IR.
    pub module: Module,
    /// Every file of the session, for rendering later errors at their spans.
    pub sources: SourceMap,
    /// The root file's frontend id and text.
    pub root: (u32, String),
}
