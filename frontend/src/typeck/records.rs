//! Fields of records: headers, structs, `meta`, and the builtin records (`packet`, `beat`, event data).
//!
//! Builtin records are ordinary struct types whose [`DefId`] points at no real file
//! ([`BUILTIN_FILE`]); their chunk number selects the record.

use super::Checker;
use crate::diag::FileId;
use crate::resolve::signature::{sig_of, SigKind};
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
];

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
