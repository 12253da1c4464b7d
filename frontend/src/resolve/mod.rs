//! Name resolution: what each name refers to.

use crate::ast::{ItemKind, UseDecl, UseNames};
use crate::db::{chunk_ast, chunk_count, ChunkKey, SourceFile};
use crate::parse::ChunkAst;
pub mod imports;
pub mod index;
pub mod lookup;

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
    module_key_of_path(&path)
}

/// `use a::b;` imports item `b` of module `a` when `a` exists, and otherwise module `a::b` itself
/// (so `use std::net;` and `use common;`-style imports of nested modules work). The index stores the
/// normalised form, so lookups need not care.
pub fn normalize_use(db: &dyn salsa::Database, file: SourceFile, decl: &UseDecl) -> UseDecl {
    let UseNames::List(names) = &decl.names else {
        return decl.clone();
    };
    let [single] = names.as_slice() else {
        return decl.clone();
    };
    let exists = |d: &UseDecl| {
        let key = module_key(file.name(db), d);
        lookup::module_file(db, &key).is_some()
            || matches!(key.as_str(), "std::hash" | "std::checksum")
    };
    if exists(decl) {
        return decl.clone();
    }
    let mut module = decl.module.clone();
    module.push(single.clone());
    let as_module = UseDecl {
        module_span: decl.module_span.to(single.span),
        module,
        names: UseNames::Module,
    };
    if exists(&as_module) {
        as_module
    } else {
        decl.clone()
    }
}

/// The module keys of every `use` in `file` (for a single imported name, also the key of the
/// module that name would be).
pub fn imported_module_keys(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let mut keys = Vec::new();
    for index in 0..chunk_count(db, file) {
        let parsed = chunk_ast(db, ChunkKey::new(db, file, index));
        if let ChunkAst::Item(item) = &parsed.ast {
            if let ItemKind::Use(decl) = &item.kind {
                if !decl.module.is_empty() {
                    keys.push(module_key(file.name(db), decl));
                }
                if let UseNames::List(names) = &decl.names {
                    if let [single] = names.as_slice() {
                        let mut module = decl.module.clone();
                        module.push(single.clone());
                        let nested = UseDecl {
                            module,
                            names: UseNames::Module,
                            module_span: decl.module_span,
                        };
                        keys.push(module_key(file.name(db), &nested));
                    }
                }
            }
        }
    }
    keys
}

/// The module key of a user file: its path as written, with `/` separators.
pub fn module_key_of_path(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}
