//! Tables: keys, action lists, default actions, constant entries and other properties.

use super::{span_of, Builder, Rule};
use crate::p4::ast::*;
use pest::iterators::Pair;

impl<'t> Builder<'t> {
    pub(super) fn table_decl(&mut self, pair: Pair<'t, Rule>) -> TableDecl {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let annotations = self.take_annotations(&mut it);
        let _kw = it.next();
        let name = it.next().map(|n| self.name(n)).unwrap_or(Ident {
            name: String::new(),
            span,
        });
        let props = it
            .filter(|p| p.as_rule() == Rule::table_prop)
            .filter_map(|p| p.into_inner().next())
            .filter_map(|p| self.table_prop(p))
            .collect();
        TableDecl {
            name,
            props,
            annotations,
            span,
        }
    }

    fn table_prop(&mut self, pair: Pair<'t, Rule>) -> Option<TableProp> {
        let span = span_of(&pair);
        Some(match pair.as_rule() {
            Rule::key_prop => {
                let keys = pair
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::key_elem)
                    .filter_map(|k| self.key_elem(k))
                    .collect();
                TableProp::Key(keys, span)
            }
            Rule::actions_prop => {
                let actions = pair
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::action_ref)
                    .map(|a| self.action_ref(a))
                    .collect();
                TableProp::Actions(actions, span)
            }
            Rule::default_action_prop => {
                let mut is_const = false;
                let mut action = None;
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::kw_const => is_const = true,
                        Rule::action_ref => action = Some(self.action_ref(p)),
                        _ => {}
                    }
                }
                TableProp::DefaultAction {
                    action: action?,
                    is_const,
                    span,
                }
            }
            Rule::entries_prop => {
                let mut is_const = false;
                let mut entries = Vec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::kw_const => is_const = true,
                        Rule::entry => entries.push(self.entry(p)?),
                        _ => {}
                    }
                }
                TableProp::Entries {
                    entries,
                    is_const,
                    span,
                }
            }
            _ => {
                let mut name = None;
                let mut value = None;
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::prop_name => name = p.into_inner().next().map(|n| self.ident(&n)),
                        Rule::expr => value = Some(self.expr(p)),
                        _ => {}
                    }
                }
                TableProp::Other {
                    name: name?,
                    value: value?,
                    span,
                }
            }
        })
    }

    fn key_elem(&mut self, pair: Pair<'t, Rule>) -> Option<KeyElement> {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let expr = self.expr(it.next()?);
        let match_kind = self.name(it.next()?);
        let annotations = it.next().map(|a| self.annotations(a)).unwrap_or_default();
        Some(KeyElement {
            expr,
            match_kind,
            annotations,
            span,
        })
    }

    fn action_ref(&mut self, pair: Pair<'t, Rule>) -> ActionRef {
        let span = span_of(&pair);
        let mut annotations = Vec::new();
        let mut name = Ident {
            name: String::new(),
            span,
        };
        let mut args = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::annotations => annotations = self.annotations(p),
                Rule::dotted_name => name = self.ident(&p),
                Rule::args => args = Some(self.args(p)),
                _ => {}
            }
        }
        ActionRef {
            name,
            args,
            annotations,
            span,
        }
    }

    fn entry(&mut self, pair: Pair<'t, Rule>) -> Option<EntryDecl> {
        let span = span_of(&pair);
        let mut priority = None;
        let mut keys = Vec::new();
        let mut action = None;
        let mut annotations = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::entry_priority => {
                    priority = p
                        .into_inner()
                        .find(|e| e.as_rule() == Rule::expr)
                        .map(|e| self.expr(e))
                }
                Rule::keyset => keys = self.keyset(p),
                Rule::action_ref => action = Some(self.action_ref(p)),
                Rule::annotations => annotations = self.annotations(p),
                _ => {}
            }
        }
        Some(EntryDecl {
            keys,
            action: action?,
            priority,
            annotations,
            span,
        })
    }
}
