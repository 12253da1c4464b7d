//! CSRs recovered from `@scenic_csr("name", offset, "access", init)` annotations, and the SCENIC
//! shell's inputs in Vitis user metadata.
//!
//! scenicc's P4 backend (docs/p4.md, "CSRs and params") keeps a CSR in one of three places and
//! annotates each with the CSR's name, word offset, host access (`read-write`, `readonly`,
//! `param`) and initial value (a typed literal). This module turns every annotated declaration
//! back into an IR [`Csr`], so the host-facing register file of a program read back from P4 is the
//! original one:
//!
//! | annotated declaration | IR |
//! |---|---|
//! | v1model `register<bit<W>>(1) r` | CSR `r`; `r.read(v, i)` is `v = csr`, `r.write(i, v)` is `csr = v` |
//! | Vitis `Counter<bit<64>, bit<S>>(1, ...) c` | CSR `c`; `c.count(i)` is `csr = csr + 1` |
//! | Vitis user-metadata field `T csr_x` | CSR `x`; the field holds its value from the start (the shell fills it) |
//!
//! Vitis user-metadata fields named `ingress_port`, `packet_length` and `timestamp_ns` are the
//! shell's inputs (`packet.port`, `packet.len`, `packet.timestamp`, cast to the field's width),
//! also filled before the parser runs.
//!
//! Invariants: CSRs are pushed in ascending annotation offset, and an offset must equal the CSR's
//! position (the IR's word offset), so a gap is reported rather than silently renumbered; names
//! and offsets are unique (a repeat is reported, never merged); an
//! annotation that cannot be read is reported with its span, never guessed at. A register CSR
//! ignores its index (it has one cell); both run inside one packet, which the host never
//! interleaves with. A control instantiated twice shares its annotated CSRs (there is one CSR file
//! per program).

use super::body::Fx;
use super::Lw;
use num_bigint::BigInt;
use num_traits::Num;
use scenic_frontend::p4::ast::{Annotation, DeclKind, Local};
use scenic_frontend::p4::check::{ArchKind, DeclRef, InstanceInfo, Ty};
use scenic_ir::body::{Block, Expr, PacketField, Place, Stmt};
use scenic_ir::entities::CsrId;
use scenic_ir::program::Csr;
use scenic_ir::span::Span;
use scenic_ir::types::{Const, Type};

/// One `@scenic_csr` annotation, read.
struct Annotated {
    name: String,
    offset: u64,
    access: String,
    init: BigInt,
    ty: Type,
    place: Where,
    span: scenic_frontend::span::Span,
}

/// Where an annotated CSR lives in the P4 program.
enum Where {
    /// A register or counter instance.
    Instance(DeclRef),
    /// A field of the user metadata, by position.
    MetaField(u32),
}

impl Lw<'_> {
    /// Finds every `@scenic_csr` annotation and declares the CSRs, in offset order.
    pub(crate) fn declare_csrs(&mut self) {
        let mut found = Vec::new();
        self.annotated_instances(&mut found);
        if self.arch.kind == ArchKind::Xilinx {
            self.annotated_meta_fields(&mut found);
        }
        found.sort_by_key(|a| a.offset);
        for (i, a) in found.iter().enumerate() {
            let repeat = found[..i]
                .iter()
                .any(|b| b.name == a.name || b.offset == a.offset);
            if repeat {
                self.unsupported(
                    a.span,
                    "two `@scenic_csr` annotations with one name or offset",
                );
                continue;
            }
            // The IR's word offset is the CSR's position, so the offsets must be 0, 1, 2, ...
            let position = self.scu.csrs.len() as u64;
            if a.offset != position {
                let what = format!(
                    "a `@scenic_csr` offset that leaves a gap (offset {}, expected {position}: \
                     CSR offsets are positions 0, 1, 2, ...)",
                    a.offset
                );
                self.unsupported(a.span, what);
                continue;
            }
            let width = a.ty.scalar_width(|_| 64).unwrap_or(64);
            let id = self.scu.csrs.push(Csr {
                name: a.name.clone(),
                ty: a.ty.clone(),
                init: Const::from_bigint(&a.init, width),
                host_readonly: a.access == "readonly",
                is_param: a.access == "param",
            });
            match a.place {
                Where::Instance(at) => {
                    self.csr_instances.insert(at, id);
                }
                Where::MetaField(f) => self.csr_meta_fields.push((f, id)),
            }
        }
    }

    /// Annotated `register`s and `Counter`s declared in controls.
    fn annotated_instances(&mut self, found: &mut Vec<Annotated>) {
        for (d, decl) in self.ck.program.decls.iter().enumerate() {
            let DeclKind::Control(c) = &decl.kind else {
                continue;
            };
            for (li, local) in c.locals.iter().enumerate() {
                let Local::Instance(inst) = local else {
                    continue;
                };
                let Some(ann) = csr_annotation(&inst.annotations) else {
                    continue;
                };
                let at = DeclRef {
                    decl: d,
                    local: Some(li),
                };
                let ty = match self.ck.instances.get(&at) {
                    Some(InstanceInfo::Register {
                        ty: Ty::Bits(w),
                        size: 1,
                    }) if *w <= 64 => Type::Bits(*w),
                    Some(InstanceInfo::Counter { size: 1, .. }) => Type::Bits(64),
                    _ => {
                        self.unsupported(
                            ann.span,
                            "`@scenic_csr` on anything but a one-cell `register<bit<W>>` (W <= 64) or `Counter`",
                        );
                        continue;
                    }
                };
                if let Some(a) = self.read_annotation(ann, ty, Where::Instance(at)) {
                    found.push(a);
                }
            }
        }
    }

    /// Annotated fields of the user metadata struct (Vitis CSR inputs).
    fn annotated_meta_fields(&mut self, found: &mut Vec<Annotated>) {
        let meta = &self.ck.env.aggregates[self.arch.meta];
        let decl = self.ck.program.decls.iter().find_map(|d| match &d.kind {
            DeclKind::Aggregate(a) if a.name.name == meta.name => Some(a),
            _ => None,
        });
        let Some(decl) = decl else {
            return;
        };
        for (i, field) in decl.fields.iter().enumerate() {
            let Some(ann) = csr_annotation(&field.annotations) else {
                continue;
            };
            let ty = match meta.fields.get(i).map(|f| &f.1) {
                Some(Ty::Bits(w)) if *w <= 64 => Type::Bits(*w),
                Some(Ty::Bool) => Type::Bool,
                _ => {
                    self.unsupported(ann.span, "`@scenic_csr` on a field wider than 64 bits");
                    continue;
                }
            };
            if let Some(a) = self.read_annotation(ann, ty, Where::MetaField(i as u32)) {
                found.push(a);
            }
        }
    }

    /// Reads `("name", offset, "access", init)`.
    fn read_annotation(&mut self, ann: &Annotation, ty: Type, place: Where) -> Option<Annotated> {
        let body = ann.body.as_deref().unwrap_or("");
        let inner = body
            .trim()
            .strip_prefix('(')
            .and_then(|b| b.strip_suffix(')'))
            .unwrap_or(body);
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        let unquote = |s: &str| {
            s.strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .map(str::to_string)
        };
        let read = match parts.as_slice() {
            [name, offset, access, init] => (|| {
                let name = unquote(name)?;
                let access = unquote(access)?;
                let known = matches!(access.as_str(), "read-write" | "readonly" | "param");
                Some(Annotated {
                    name,
                    offset: offset.parse().ok()?,
                    access: known.then_some(access)?,
                    init: literal(init)?,
                    ty,
                    place,
                    span: ann.span,
                })
            })(),
            _ => None,
        };
        if read.is_none() {
            self.unsupported(
                ann.span,
                "a `@scenic_csr` annotation other than `(\"name\", offset, \"read-write\"|\"readonly\"|\"param\", literal)`",
            );
        }
        read
    }

    /// Vitis: the shell's inputs and the CSR inputs in user metadata, set before the parser.
    pub(crate) fn shell_inputs(&mut self, fx: &mut Fx, block: &mut Block, span: Span) {
        let meta = self.ck.env.aggregates[self.arch.meta].clone();
        let inputs = [
            ("ingress_port", PacketField::Port, Type::Bits(8)),
            ("packet_length", PacketField::Len, Type::Bits(16)),
            ("timestamp_ns", PacketField::Timestamp, Type::Bits(64)),
        ];
        for (name, field, from) in inputs {
            let Some(i) = meta.field(name) else {
                continue;
            };
            let Ty::Bits(w) = meta.fields[i].1 else {
                continue;
            };
            let x = fx.body.add(Expr::Packet(field), from.clone(), span);
            let x = if from == Type::Bits(w) {
                x
            } else {
                fx.body.add(Expr::Cast(x), Type::Bits(w), span)
            };
            block.push(Stmt::Assign(self.user_meta_place(i as u32), x), span);
        }
        for (f, id) in self.csr_meta_fields.clone() {
            let ty = self.scu.csrs[id].ty.clone();
            let x = fx.body.add(Expr::Csr(id), ty, span);
            block.push(Stmt::Assign(self.user_meta_place(f), x), span);
        }
    }

    fn user_meta_place(&self, field: u32) -> Place {
        Place::Field(Box::new(Place::Meta(self.user_field)), field)
    }

    /// The CSR an annotated register or counter instance holds, if any.
    pub(crate) fn csr_of(&self, at: DeclRef) -> Option<CsrId> {
        self.csr_instances.get(&at).copied()
    }
}

/// The `@scenic_csr` annotation among `anns`.
fn csr_annotation(anns: &[Annotation]) -> Option<&Annotation> {
    anns.iter().find(|a| a.name.name == "scenic_csr")
}

/// A P4 literal as the backend writes them: `true`, `false`, `48w0x20000000001`, `(-8s5)`, `7`.
fn literal(text: &str) -> Option<BigInt> {
    let t = text.trim();
    let t = t
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(t)
        .trim();
    match t {
        "true" => return Some(BigInt::from(1)),
        "false" => return Some(BigInt::from(0)),
        _ => {}
    }
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim()),
        None => (false, t),
    };
    // A width prefix (`48w`, `8s`) only says how to read the value; the CSR's type is the
    // declaration's.
    let t = match t.find(['w', 's']) {
        Some(i) if i > 0 && t[..i].bytes().all(|b| b.is_ascii_digit()) => &t[i + 1..],
        _ => t,
    };
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let (radix, digits) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0d") => (10, &lower[2..]),
        _ => (10, lower.as_str()),
    };
    let v = BigInt::from_str_radix(digits, radix).ok()?;
    Some(if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::literal;
    use num_bigint::BigInt;

    #[test]
    fn literals_as_the_backend_writes_them() {
        assert_eq!(
            literal("48w0x20000000001"),
            Some(BigInt::from(0x20000000001u64))
        );
        assert_eq!(literal("8w1"), Some(BigInt::from(1)));
        assert_eq!(literal("(-8s5)"), Some(BigInt::from(-5)));
        assert_eq!(literal("true"), Some(BigInt::from(1)));
        assert_eq!(literal("16w0b1_0"), Some(BigInt::from(2)));
        assert_eq!(literal("12"), Some(BigInt::from(12)));
        assert_eq!(literal("0xzz"), None);
    }
}
