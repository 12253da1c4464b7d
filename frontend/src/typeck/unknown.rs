//! Names that cannot be found (E0101): the message, the suggestion, and the names not to report
//! again because an earlier error already explains them.

use super::name::{std_net_has, BUILTINS};
use super::Checker;
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::resolve::lookup;

impl Checker<'_> {
    /// Whether an unknown `name` was already reported elsewhere: it is imported by a `use` that
    /// failed (E0103/E0104), or declared by an item or member that could not be parsed.
    pub(crate) fn already_reported(&self, name: &str) -> bool {
        let imported = self.index.uses.iter().any(|u| {
            matches!(&u.decl.names, UseNames::List(names) if names.iter().any(|n| n.name == name))
        });
        imported
            || self.index.broken_names.iter().any(|n| n == name)
            || self
                .container()
                .is_some_and(|c| c.broken_names.iter().any(|n| n == name))
    }

    pub(crate) fn unknown_type(&mut self, path: &Path, name: &str) {
        let mut diag = Diagnostic::new(
            codes::E0101,
            path.span,
            format!("cannot find type `{name}`"),
        )
        .label("unknown type");
        let mut candidates: Vec<String> =
            ["bit", "int", "bool", "fixed", "duration", "size", "rate"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        candidates.extend(lookup::visible_module_names(self.db, self.file));
        if std_net_has(self.db, name) {
            diag = diag.help(format!(
                "`{name}` is in the standard library: add `use std::net::{name};`"
            ));
        } else if let Some(s) = lookup::similar_name(name, candidates.iter().map(String::as_str)) {
            diag = diag.help(format!("did you mean `{s}`?"));
        }
        self.report(diag);
    }

    pub(crate) fn unresolved(&mut self, name: &Ident) {
        if self.already_reported(&name.name) {
            return;
        }
        let mut candidates: Vec<String> = self
            .scopes
            .iter()
            .flatten()
            .map(|l| l.name.clone())
            .collect();
        if let Some(c) = self.container() {
            candidates.extend(c.members.keys().cloned());
        }
        candidates.extend(lookup::visible_module_names(self.db, self.file));
        candidates.extend(BUILTINS.iter().map(|b| b.to_string()));
        let suggestion = lookup::similar_name(&name.name, candidates.iter().map(String::as_str))
            .map(str::to_string);
        let mut diag = Diagnostic::new(
            codes::E0101,
            name.span,
            format!("cannot find `{}` in this scope", name.name),
        )
        .label("not found");
        let owner = self
            .index
            .containers
            .iter()
            .find(|c| c.members.contains_key(&name.name))
            .filter(|_| self.container().is_none());
        if let Some(owner) = owner {
            diag = diag.help(format!(
                "`{}` is a member of `{}`; a top-level `fn` sees only its parameters, constants and builtins: declare the function inside `{}`",
                name.name, owner.name, owner.name
            ));
        } else if let Some(s) = suggestion {
            diag = diag.help(format!("a name with a similar spelling exists: `{s}`"));
        } else if std_net_has(self.db, &name.name) {
            diag = diag.help(format!(
                "`{}` is in the standard library: add `use std::net::{};`",
                name.name, name.name
            ));
        }
        self.report(diag);
    }
}
