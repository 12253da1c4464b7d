//! The architecture: which package `main` instantiates and the role of each block it names.
//!
//! Two packages are supported. v1model's `V1Switch(parser, verifyChecksum, ingress, egress,
//! computeChecksum, deparser)` and VNP4's `XilinxPipeline(parser, matchAction, deparser)`. Each
//! block's parameters are checked against the package's signature and given a role (the packet,
//! the headers, the user metadata, the standard metadata), which is how the lowering knows what
//! `hdr.ipv4` or `standard_metadata.egress_spec` refers to, whatever the program calls them.

use super::types::Ty;
use super::{Binding, Checker};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use crate::span::Span;

/// The supported architectures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchKind {
    /// p4c's v1model (BMv2 simple_switch): `V1Switch`.
    V1Model,
    /// AMD Vitis Networking P4: `XilinxPipeline`.
    Xilinx,
}

/// What a block of the package does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockRole {
    /// The parser.
    Parser,
    /// v1model's checksum verification control.
    VerifyChecksum,
    /// v1model's ingress.
    Ingress,
    /// v1model's egress.
    Egress,
    /// v1model's checksum computation control.
    ComputeChecksum,
    /// VNP4's match-action control.
    MatchAction,
    /// The deparser.
    Deparser,
}

/// What a block parameter is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamRole {
    /// `packet_in` / `packet_out`.
    Packet,
    /// The headers struct.
    Headers,
    /// The user metadata struct.
    Meta,
    /// `standard_metadata_t`.
    StdMeta,
}

/// The instantiated architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    /// Which package.
    pub kind: ArchKind,
    /// The blocks in package order: role and declaration index.
    pub blocks: Vec<(BlockRole, usize)>,
    /// Parameter roles of each block declaration, by position.
    pub params: Vec<(usize, Vec<ParamRole>)>,
    /// The headers struct (an aggregate index).
    pub headers: usize,
    /// The user metadata struct.
    pub meta: usize,
    /// The `standard_metadata_t` struct.
    pub std_meta: usize,
    /// Where `main` is declared.
    pub span: Span,
}

impl Arch {
    /// The parameter roles of a block declaration.
    pub fn roles(&self, decl: usize) -> &[ParamRole] {
        self.params
            .iter()
            .find(|(d, _)| *d == decl)
            .map_or(&[], |(_, r)| r.as_slice())
    }
}

use ParamRole::{Headers as H, Meta as M, Packet as P, StdMeta as S};

/// A block of a package: its role, whether it is the parser, and its parameters' roles and
/// directions.
type BlockSig = (BlockRole, bool, Vec<(ParamRole, Direction)>);

/// The blocks of each package.
fn signature(kind: ArchKind) -> Vec<BlockSig> {
    use Direction::*;
    match kind {
        ArchKind::V1Model => vec![
            (
                BlockRole::Parser,
                true,
                vec![(P, None), (H, Out), (M, InOut), (S, InOut)],
            ),
            (
                BlockRole::VerifyChecksum,
                false,
                vec![(H, InOut), (M, InOut)],
            ),
            (
                BlockRole::Ingress,
                false,
                vec![(H, InOut), (M, InOut), (S, InOut)],
            ),
            (
                BlockRole::Egress,
                false,
                vec![(H, InOut), (M, InOut), (S, InOut)],
            ),
            (
                BlockRole::ComputeChecksum,
                false,
                vec![(H, InOut), (M, InOut)],
            ),
            (BlockRole::Deparser, false, vec![(P, None), (H, In)]),
        ],
        ArchKind::Xilinx => vec![
            (
                BlockRole::Parser,
                true,
                vec![(P, None), (H, Out), (M, InOut), (S, InOut)],
            ),
            (
                BlockRole::MatchAction,
                false,
                vec![(H, InOut), (M, InOut), (S, InOut)],
            ),
            (
                BlockRole::Deparser,
                false,
                vec![(P, None), (H, In), (M, InOut), (S, InOut)],
            ),
        ],
    }
}

impl Checker<'_> {
    /// Finds `main`, identifies the architecture and checks its blocks.
    pub(super) fn find_main(&mut self) {
        let main = self.prog.decls.iter().find_map(|d| match &d.kind {
            DeclKind::Instance(i) if i.name.name == "main" => Some(i),
            _ => None,
        });
        let Some(main) = main else {
            if !self.diags.iter().any(|d| d.is_error()) {
                let end = self.source_text.len();
                self.error(
                    Diagnostic::new(
                        codes::E0709,
                        Span::new(end, end),
                        "the program has no `main`",
                    )
                    .label("expected `V1Switch(...) main;` or `XilinxPipeline(...) main;`")
                    .help("instantiate the architecture's package as `main`"),
                );
            }
            return;
        };
        let TypeKind::Named(pkg, _) = &main.ty.kind else {
            return self.bad_main(main.ty.span);
        };
        let kind = match (pkg.name.as_str(), self.lookup(&pkg.name)) {
            ("V1Switch", Some(Binding::Package(_))) => ArchKind::V1Model,
            ("XilinxPipeline", Some(Binding::Package(_))) => ArchKind::Xilinx,
            (_, None) => return self.unknown_name(pkg, "package"),
            _ => return self.bad_main(pkg.span),
        };
        let sig = signature(kind);
        if main.args.len() != sig.len() {
            self.error(
                Diagnostic::new(
                    codes::E0709,
                    main.span,
                    format!(
                        "`{}` takes {} blocks, but {} were given",
                        pkg.name,
                        sig.len(),
                        main.args.len()
                    ),
                )
                .label(format!("expected {}", sig.len())),
            );
            return;
        }
        let mut arch = Arch {
            kind,
            blocks: Vec::new(),
            params: Vec::new(),
            headers: usize::MAX,
            meta: usize::MAX,
            std_meta: usize::MAX,
            span: main.span,
        };
        for (arg, (role, is_parser, params)) in main.args.iter().zip(&sig) {
            let Some(decl) = self.block_arg(arg, *is_parser) else {
                continue;
            };
            arch.blocks.push((*role, decl));
            self.block_signature(&mut arch, decl, params);
        }
        let complete = arch.blocks.len() == sig.len()
            && [arch.headers, arch.meta, arch.std_meta]
                .iter()
                .all(|a| *a != usize::MAX);
        if complete {
            self.out.arch = Some(arch);
        }
    }

    fn bad_main(&mut self, span: Span) {
        self.error(
            Diagnostic::new(
                codes::E0709,
                span,
                "`main` must instantiate `V1Switch` or `XilinxPipeline`",
            )
            .label("not a supported architecture")
            .help("include <v1model.p4> or <xsa.p4> and instantiate its package"),
        );
    }

    /// The declaration a package argument (`ingress()`) instantiates.
    fn block_arg(&mut self, arg: &Arg, is_parser: bool) -> Option<usize> {
        let Arg::Expr(e) = arg else {
            self.unsupported(arg.span(), "named or `_` package arguments");
            return None;
        };
        let ExprKind::Call { callee, args, .. } = &e.kind else {
            self.unsupported(e.span, "package arguments other than `block()`");
            return None;
        };
        let ExprKind::Name(n) = &callee.kind else {
            self.unsupported(e.span, "package arguments other than `block()`");
            return None;
        };
        if !args.is_empty() {
            self.unsupported(e.span, "constructor arguments of parsers and controls");
        }
        let what = if is_parser { "a parser" } else { "a control" };
        match (self.lookup(&n.name), is_parser) {
            (Some(Binding::Parser(d)), true) | (Some(Binding::Control(d)), false) => Some(d),
            (None, _) => {
                self.unknown_name(n, "parser or control");
                None
            }
            _ => {
                self.error(
                    Diagnostic::new(codes::E0709, n.span, format!("`{}` is not {what}", n.name))
                        .label(format!("the package expects {what} here")),
                );
                None
            }
        }
    }

    /// Checks a block's parameters against the package and records their roles.
    fn block_signature(&mut self, arch: &mut Arch, decl: usize, want: &[(ParamRole, Direction)]) {
        let proto = match self.prog.decls.get(decl).map(|d| &d.kind) {
            Some(DeclKind::Parser(p)) => &p.proto,
            Some(DeclKind::Control(c)) => &c.proto,
            _ => return,
        };
        if proto.params.len() != want.len() {
            self.error(
                Diagnostic::new(
                    codes::E0709,
                    proto.name.span,
                    format!(
                        "`{}` has {} parameters, but the package passes {}",
                        proto.name.name,
                        proto.params.len(),
                        want.len()
                    ),
                )
                .label("parameters do not match the architecture"),
            );
            return;
        }
        let roles: Vec<ParamRole> = want.iter().map(|(r, _)| *r).collect();
        for (p, (role, dir)) in proto.params.iter().zip(want) {
            let ty = self.resolve_type(&p.ty);
            if ty.is_unknown() {
                continue;
            }
            if p.dir != *dir {
                self.error(
                    Diagnostic::new(
                        codes::E0709,
                        p.span,
                        format!("parameter `{}` should be `{}`", p.name.name, dir_name(*dir)),
                    )
                    .label("direction does not match the architecture"),
                );
            }
            self.param_role(arch, p, *role, &ty);
        }
        arch.params.push((decl, roles));
    }

    fn param_role(&mut self, arch: &mut Arch, p: &Param, role: ParamRole, ty: &Ty) {
        let slot = match role {
            ParamRole::Packet => {
                if !matches!(ty, Ty::Extern(x) if x == "packet_in" || x == "packet_out") {
                    self.role_error(p, "`packet_in` or `packet_out`");
                }
                return;
            }
            ParamRole::Headers => &mut arch.headers,
            ParamRole::Meta => &mut arch.meta,
            ParamRole::StdMeta => &mut arch.std_meta,
        };
        let Ty::Agg(a) = ty else {
            return self.role_error(p, "a struct");
        };
        if *slot != usize::MAX && *slot != *a {
            let first = self.out.env.show(&Ty::Agg(*slot)).to_string();
            return self.role_error(p, &format!("`{first}`, as in the other blocks"));
        }
        // The struct's contents are checked once, at its first block.
        let first = *slot == usize::MAX;
        *slot = *a;
        let is_struct = self.out.env.is_struct(ty);
        if !is_struct {
            self.role_error(p, "a struct");
        } else if first && role == ParamRole::Headers {
            self.check_headers_struct(p, *a);
        } else if first && role == ParamRole::Meta {
            self.check_meta_struct(p, *a);
        }
    }

    fn role_error(&mut self, p: &Param, want: &str) {
        self.error(
            Diagnostic::new(
                codes::E0709,
                p.ty.span,
                format!("parameter `{}` should be {want}", p.name.name),
            )
            .label("type does not match the architecture"),
        );
    }

    /// The headers struct holds headers, header stacks and structs of them.
    fn check_headers_struct(&mut self, p: &Param, a: usize) {
        let mut stack = vec![a];
        let mut seen = Vec::new();
        while let Some(s) = stack.pop() {
            if seen.contains(&s) {
                continue;
            }
            seen.push(s);
            let Some(agg) = self.out.env.aggregates.get(s).cloned() else {
                continue;
            };
            for (name, t) in &agg.fields {
                match t {
                    Ty::Stack(..) => {}
                    t if self.out.env.is_header(t) => {}
                    Ty::Agg(inner) if self.out.env.is_struct(t) => stack.push(*inner),
                    t if t.is_unknown() => {}
                    _ => self.unsupported(
                        p.ty.span,
                        &format!(
                            "field `{name}` of the headers struct `{}`, which is not a header",
                            agg.name
                        ),
                    ),
                }
            }
        }
    }

    /// The metadata struct holds values and structs of them (no headers).
    fn check_meta_struct(&mut self, p: &Param, a: usize) {
        let Some(agg) = self.out.env.aggregates.get(a).cloned() else {
            return;
        };
        for (name, t) in &agg.fields {
            let bad = match t {
                Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Error | Ty::Enum(_) | Ty::Unknown => {
                    false
                }
                t if self.out.env.is_struct(t) => {
                    if let Ty::Agg(inner) = t {
                        self.check_meta_struct(p, *inner);
                    }
                    false
                }
                _ => true,
            };
            if bad {
                self.unsupported(
                    p.ty.span,
                    &format!("field `{name}` of the metadata struct `{}` (headers and stacks in metadata)", agg.name),
                );
            }
        }
    }
}

fn dir_name(d: Direction) -> &'static str {
    match d {
        Direction::None => "without direction",
        Direction::In => "in",
        Direction::Out => "out",
        Direction::InOut => "inout",
    }
}
