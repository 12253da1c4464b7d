//! Looking names up at module level: a file's own items, then what its `use` declarations import.
//!
//! Imported names are not re-exported: `use` in module `a` makes names visible in `a` only. That
//! keeps lookups one level deep and free of cycles between modules that import each other.

use super::index::{module_index, ItemEntry};
use super::module_key;
use crate::ast::UseNames;
use crate::db::{SourceFile, Workspace};
use crate::stdlib;

/// Where a module-level name leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleRes {
    /// A definition in some file.
    Item(SourceFile, ItemEntry),
    /// A module imported with `use name;`, or a standard module.
    Module(SourceFile),
    /// `hash` or `checksum`: an intrinsic module.
    Intrinsic(&'static str),
}

/// The file a module key names, if it is loaded.
pub fn module_file(db: &dyn salsa::Database, key: &str) -> Option<SourceFile> {
    Workspace::get(db).modules(db).get(key).copied()
}

/// Looks `name` up at module level in `file`: its own items, then imported names, then the intrinsic
/// modules.
pub fn lookup_module_name(
    db: &dyn salsa::Database,
    file: SourceFile,
    name: &str,
) -> Option<ModuleRes> {
    let index = module_index(db, file);
    if let Some(entry) = index.items.get(name) {
        return Some(ModuleRes::Item(file, entry.clone()));
    }
    for use_entry in &index.uses {
        let decl = &use_entry.decl;
        let Some(module) = module_file(db, &module_key(file.name(db), decl)) else {
            continue;
        };
        match &decl.names {
            UseNames::List(names) if names.iter().any(|n| n.name == name) => {
                if let Some(found) = lookup_in_module(db, module, name) {
                    return Some(found);
                }
            }
            UseNames::Glob(_) => {
                if let Some(entry) = module_index(db, module).items.get(name) {
                    return Some(ModuleRes::Item(module, entry.clone()));
                }
            }
            UseNames::Module if decl.module.last().is_some_and(|m| m.name == name) => {
                return Some(ModuleRes::Module(module));
            }
            _ => {}
        }
    }
    stdlib::INTRINSIC_MODULES
        .iter()
        .find(|m| **m == name)
        .map(|m| ModuleRes::Intrinsic(m))
}

/// Looks `name` up among the items `module` defines itself.
pub fn lookup_in_module(
    db: &dyn salsa::Database,
    module: SourceFile,
    name: &str,
) -> Option<ModuleRes> {
    module_index(db, module)
        .items
        .get(name)
        .map(|entry| ModuleRes::Item(module, entry.clone()))
}

/// Every name visible at module level in `file` (for "did you mean" suggestions).
pub fn visible_module_names(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let index = module_index(db, file);
    let mut names: Vec<String> = index.items.keys().cloned().collect();
    for use_entry in &index.uses {
        match &use_entry.decl.names {
            UseNames::List(list) => names.extend(list.iter().map(|n| n.name.clone())),
            UseNames::Glob(_) => {
                if let Some(module) = module_file(db, &module_key(file.name(db), &use_entry.decl)) {
                    names.extend(module_index(db, module).items.keys().cloned());
                }
            }
            UseNames::Module => names.extend(use_entry.decl.module.last().map(|m| m.name.clone())),
        }
    }
    names
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub fn similar_name<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // One edit per three characters; names of one or two characters only match up to case, since
    // any single edit turns them into an unrelated name (`t` is not a typo of `G`).
    let len = name.chars().count();
    if len < 3 {
        return candidates
            .into_iter()
            .find(|c| *c != name && c.eq_ignore_ascii_case(name));
    }
    let limit = len / 3;
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(similar_name("ipv5", ["ipv4", "ipv6", "tcp"]), Some("ipv4"));
        assert_eq!(similar_name("xyz", ["ethernet"]), None);
    }
}
