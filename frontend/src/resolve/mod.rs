//! Name resolution: what each name refers to.

use crate::ast::{ItemKind, UseDecl};
use crate::db::{chunk_ast, chunk_count, ChunkKey, SourceFile};
use crate::parse::ChunkAst;
pub mod imports;
pub mod index;
pub mod lookup;
pub mod signature;

use std::path::Path;

/// The module key a `use` names, seen from `file`: `std::net` for the standard library, otherwise
/// the path of `seg1/seg2.sn` next to the importing file.
pub fn module_key(importer_name: &str, decl: &UseDecl) -> String {
    let segments: Vec<&str> = decl.module.iter().map(|s| s.as_str()).collect();
    if segments.first() == Some(&"std") {
        return segments.join("::");
    }
    let dir = Path::new(importer_name).parent().unwrap_or(Path::new(""));
    let mut path = dir.to_path_buf();
    for segment in &segments {
        path.push(segment);
    }
    path.set_extension("sn");
    crate::driver::module_key_of_path(&path)
}

/// The module keys of every `use` in `file`.
pub fn imported_module_keys(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let mut keys = Vec::new();
    for index in 0..chunk_count(db, file) {
        let parsed = chunk_ast(db, ChunkKey::new(db, file, index));
        if let ChunkAst::Item(item) = &parsed.ast {
            if let ItemKind::Use(decl) = &item.kind {
                if !decl.module.is_empty() {
                    keys.push(module_key(file.name(db), decl));
                }
            }
        }
    }
    keys
}
