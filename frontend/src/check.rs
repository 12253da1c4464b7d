//! Everything found in one file: the union of all stages' diagnostics, rebased to file offsets.

use crate::db::{self, chunk_count, ChunkKey, SourceFile};
use crate::diag::Diagnostic;
use crate::resolve::imports::import_diagnostics;
use crate::resolve::index::module_index;
use crate::typeck::signature::signature;
use crate::typeck::{check_body, container::container_diagnostics};
use std::sync::Arc;

/// All diagnostics of `file`, with file locations.
#[salsa::tracked(returns(clone))]
pub fn file_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let mut out: Vec<Diagnostic> = db::syntax_diagnostics(db, file).iter().cloned().collect();
    let index = module_index(db, file);
    let rebase = |d: &Diagnostic, chunk: u32| db::rebase(db, file, chunk, d.clone());
    out.extend(index.diagnostics.iter().map(|d| rebase(d, 0)));
    out.extend(import_diagnostics(db, file).iter().map(|d| rebase(d, 0)));
    for chunk in 0..chunk_count(db, file) {
        let key = ChunkKey::new(db, file, chunk);
        out.extend(signature(db, key).diags.iter().map(|d| rebase(d, chunk)));
        out.extend(check_body(db, key).diags.iter().map(|d| rebase(d, chunk)));
    }
    for container in &index.containers {
        let key = ChunkKey::new(db, file, container.head);
        out.extend(
            container_diagnostics(db, key)
                .iter()
                .map(|d| rebase(d, container.head)),
        );
    }
    out.extend(
        crate::typeck::container::module_recursion(db, file)
            .iter()
            .map(|d| rebase(d, 0)),
    );
    dedup(&mut out);
    Arc::new(out)
}

/// Drops exact repeats (the same problem found through two routes).
fn dedup(diags: &mut Vec<Diagnostic>) {
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| seen.insert(d.clone()));
}
