//! Fields of records: headers, structs, `meta`, and the builtin records (`packet`, `beat`, event data).
//!
//! Builtin records are ordinary struct types whose [`DefId`] points at no real file
//! ([`BUILTIN_FILE`]); their chunk number selects the record.

use super::Checker;
use crate::diag::FileId;
use crate::typeck::signature::{sig_of, SigKind};
use crate::types::{DefId, Ty, TypeRef};
use std::sync::Arc;

/// The file id of builtin records.
pub const BUILTIN_FILE: FileId = FileId(u32::MAX);

/// The builtin records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `packet`: the packet being processed.
    Packet = 0,
    /// `beat`: the payload word being processed.
    Beat = 1,
    /// `on ack(a)`: the acknowledgement.
    Ack = 2,
    /// `on int(h)`: one hop of in-band network telemetry.
    Int = 3,
}

const RECORDS: &[(&str, &[(&str, Ty)])] = &[
    (
        "packet",
        &[
            ("len", Ty::Bit(16)),
            ("port", Ty::Bit(8)),
            ("timestamp", Ty::Bit(64)),
        ],
    ),
    ("beat", &[("last", Ty::Bool), ("keep", Ty::Bit(64))]),
    ("ack", &[("bytes", Ty::Size), ("ecn", Ty::Bool)]),
    // The fields of scenic_ir::IntHop, in its order (the frontend does not depend on the IR).
    (
        "int",
        &[
            ("hop", Ty::Bit(8)),
            ("hops", Ty::Bit(8)),
            ("qlen", Ty::Size),
            ("tx_bytes", Ty::Size),
            ("ts", Ty::Duration),
            ("rate", Ty::Rate),
        ],
    ),
];

/// The name of a builtin record (`ack`, `int`, ...).
pub fn builtin_name(which: Builtin) -> &'static str {
    RECORDS[which as usize].0
}

/// The struct type of a builtin record.
pub fn builtin_ty(which: Builtin) -> Ty {
    let index = which as usize;
    Ty::Struct(TypeRef {
        def: DefId {
            file: BUILTIN_FILE,
            chunk: index as u32,
        },
        name: Arc::from(RECORDS[index].0),
    })
}

impl Checker<'_> {
    /// The fields of a header or struct type, in order; `None` if `ty` has no fields.
    pub(crate) fn record_fields(&self, ty: &Ty) -> Option<Vec<(String, Ty)>> {
        let tref = match ty {
            Ty::Header(t) | Ty::Struct(t) => t,
            _ => return None,
        };
        if tref.def.file == BUILTIN_FILE {
            let (_, fields) = RECORDS.get(tref.def.chunk as usize)?;
            return Some(
                fields
                    .iter()
                    .map(|(n, t)| (n.to_string(), t.clone()))
                    .collect(),
            );
        }
        let file = self.file_by_id(tref.def.file)?;
        let sig = sig_of(self.db, file, tref.def.chunk);
        match &sig.kind {
            SigKind::Header { fields, .. }
            | SigKind::Struct { fields }
            | SigKind::Meta { fields } => Some(
                fields
                    .iter()
                    .map(|f| (f.name.clone(), f.ty.clone()))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// A struct must not contain itself, directly or through other structs and arrays (E0108):
    /// its size would be infinite.
    pub(crate) fn struct_recursion(
        &mut self,
        decl: &crate::ast::RecordDecl,
        fields: &[crate::typeck::signature::FieldSig],
    ) {
        let me = DefId {
            file: self.file.id(self.db),
            chunk: self.chunk_of(&decl.name.name),
        };
        for field in fields {
            let mut seen = Vec::new();
            if self.contains_struct(&field.ty, me, &mut seen) {
                self.report(
                    crate::diag::Diagnostic::new(
                        crate::diag::codes::E0108,
                        field.span,
                        format!("struct `{}` contains itself", decl.name.name),
                    )
                    .label(format!(
                        "field `{}` holds a `{}` again",
                        field.name, decl.name.name
                    ))
                    .note("a struct is a value of fixed size, so it cannot contain itself")
                    .help("remove the field, or store an index or a key instead"),
                );
                return;
            }
        }
    }

    fn chunk_of(&self, item: &str) -> u32 {
        self.index.items.get(item).map_or(u32::MAX, |e| e.chunk)
    }

    /// Whether a value of type `ty` contains a value of the struct `target`.
    fn contains_struct(&self, ty: &Ty, target: DefId, seen: &mut Vec<DefId>) -> bool {
        match ty {
            Ty::Array(elem, _) => self.contains_struct(elem, target, seen),
            Ty::Struct(t) if t.def == target => true,
            Ty::Struct(t) if !seen.contains(&t.def) => {
                seen.push(t.def);
                self.record_fields(ty)
                    .unwrap_or_default()
                    .iter()
                    .any(|(_, fty)| self.contains_struct(fty, target, seen))
            }
            _ => false,
        }
    }

    /// The source file with id `id`.
    pub(crate) fn file_by_id(&self, id: FileId) -> Option<crate::db::SourceFile> {
        if self.file.id(self.db) == id {
            return Some(self.file);
        }
        crate::db::Workspace::get(self.db)
            .modules(self.db)
            .values()
            .copied()
            .find(|f| f.id(self.db) == id)
    }

    /// The type of `meta` in the current scu: a struct over its `meta { }` block.
    pub(crate) fn meta_ty(&self) -> Option<Ty> {
        let chunk = self.container()?.parts.meta?;
        Some(Ty::Struct(TypeRef {
            def: DefId {
                file: self.file.id(self.db),
                chunk,
            },
            name: Arc::from("meta"),
        }))
    }
}
