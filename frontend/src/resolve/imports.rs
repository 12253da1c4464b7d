//! Checking `use` declarations: the module must exist and export the names imported.

use super::index::module_index;
use super::lookup::{module_file, similar_name};
use super::module_key;
use crate::ast::UseNames;
use crate::db::SourceFile;
use crate::diag::{codes, Diagnostic, Loc};
use std::sync::Arc;

/// Problems with the `use` declarations of `file` (chunk locations).
#[salsa::tracked(returns(clone))]
pub fn import_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let index = module_index(db, file);
    let mut out = Vec::new();
    let fid = file.id(db);
    for entry in &index.uses {
        let decl = &entry.decl;
        let loc = |span| Loc::Chunk {
            file: fid,
            chunk: entry.chunk,
            span,
        };
        let key = module_key(file.name(db), decl);
        if let Some(path) = module_file(db, &key).and_then(|m| import_path_back(db, m, file)) {
            out.push(cycle_diagnostic(
                loc(decl.module_span),
                &path,
                file.name(db),
            ));
        }
        let Some(module) = module_file(db, &key) else {
            let shown: Vec<&str> = decl.module.iter().map(|m| m.as_str()).collect();
            let note = if key.starts_with("std::") {
                "the standard modules are `std::net`, `std::hash` and `std::checksum`".to_string()
            } else {
                format!("looked for the file `{key}`")
            };
            let is_intrinsic = matches!(key.as_str(), "std::hash" | "std::checksum");
            if !is_intrinsic {
                out.push(
                    Diagnostic::at(
                        codes::E0103,
                        loc(decl.module_span),
                        format!("cannot find module `{}`", shown.join("::")),
                    )
                    .label("no such module")
                    .note(note),
                );
            }
            continue;
        };
        let UseNames::List(names) = &decl.names else {
            continue;
        };
        let items = module_index(db, module);
        for name in names {
            if items.items.contains_key(&name.name) {
                continue;
            }
            let mut diag = Diagnostic::at(
                codes::E0104,
                loc(name.span),
                format!(
                    "`{}` is not defined in `{}`",
                    name.name,
                    decl.module
                        .iter()
                        .map(|m| m.as_str())
                        .collect::<Vec<_>>()
                        .join("::")
                ),
            )
            .label("not in this module");
            if let Some(s) = similar_name(&name.name, items.items.keys().map(String::as_str)) {
                diag = diag.help(format!("did you mean `{s}`?"));
            }
            out.push(diag);
        }
    }
    Arc::new(out)
}

/// The chain of module names by which `from` imports `target` again, if it does.
fn import_path_back(
    db: &dyn salsa::Database,
    from: SourceFile,
    target: SourceFile,
) -> Option<Vec<String>> {
    let mut stack = vec![(from, vec![from.name(db).clone()])];
    let mut seen = vec![from];
    while let Some((file, path)) = stack.pop() {
        for key in super::imported_module_keys(db, file) {
            let Some(next) = module_file(db, &key) else {
                continue;
            };
            if next == target {
                return Some(path);
            }
            if !seen.contains(&next) {
                seen.push(next);
                let mut longer = path.clone();
                longer.push(next.name(db).clone());
                stack.push((next, longer));
            }
        }
    }
    None
}

/// E0108 at a `use` whose module imports the importing file back through `path`.
fn cycle_diagnostic(loc: Loc, path: &[String], file: &str) -> Diagnostic {
    Diagnostic::at(
        codes::E0108,
        loc,
        format!(
            "import cycle: `{}` imports `{file}` back",
            path.join("` -> `")
        ),
    )
    .label("import cycle")
    .note("modules may not import each other, directly or through other modules")
    .help("move the shared items into a module that both import")
}
