//! Everything found in one file: the union of all stages' diagnostics, rebased to file offsets.

use crate::db::{self, SourceFile};
use crate::diag::Diagnostic;
use std::sync::Arc;

/// All diagnostics of `file`, with file locations.
#[salsa::tracked(returns(clone))]
pub fn file_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let out: Vec<Diagnostic> = db::syntax_diagnostics(db, file).iter().cloned().collect();
    Arc::new(out)
}
