//! The architecture glue: which block runs when, the standard metadata the target fills in, and
//! how the outcome of the pipeline becomes a drop or a destination (see the table in the module
//! doc of [`super`]).

use super::body::Fx;
use super::{Bound, Inst, Lw};
use scenic_frontend::p4::check::{ArchKind, BlockRole, Owner, ParamRole, Ty};
use scenic_ir::body::{BinaryOp, Block, Expr, PacketField, Place, Stmt};
use scenic_ir::entities::*;
use scenic_ir::program::Function;
use scenic_ir::span::Span;
use scenic_ir::types::Type;
use std::collections::HashMap;

/// The v1model port that drops (`mark_to_drop`).
const DROP_PORT: u64 = 511;
/// The port of the host: scenicc's STF port for copies to the host (`sim::HOST_PORT`).
const CPU_PORT: u64 = 256;

impl Lw<'_> {
    /// Builds the scu.
    pub(crate) fn run(&mut self) {
        let arch = self.arch;
        self.declare_errors();
        let std_ty = self.ir_ty(&Ty::Agg(arch.std_meta));
        self.std_field = self.meta_field("standard_metadata".into(), std_ty);
        let user_ty = self.ir_ty(&Ty::Agg(arch.meta));
        self.user_field = self.meta_field("meta".into(), user_ty);
        if arch.kind == ArchKind::V1Model {
            self.port_field = Some(self.meta_field("$port".into(), Type::Bits(9)));
        }
        self.declare_csrs();
        self.flatten_headers(arch.headers, "");
        self.scu.span = self.span(arch.span);
        for &(role, d) in &arch.blocks {
            if role == BlockRole::Parser {
                let inst = self.top_inst(role, d);
                let parser = self.lower_parser(&inst, d, |lw, fx, block| lw.prologue(fx, block));
                self.scu.parser = parser;
            }
        }
        let mut control = Fx::default();
        let block = self.pipeline(&mut control, Block::default());
        control.body.block = block;
        self.scu.control = Some(control.body);
        let mut on_error = Fx::default();
        let param = on_error.body.local("error", Type::ParserError, false);
        on_error.body.params.push(param);
        let mut first = Block::default();
        let span = self.scu.span;
        let e = on_error
            .body
            .add(Expr::Local(param), Type::ParserError, span);
        if let Some(p) = self.std_place("parser_error") {
            first.push(Stmt::Assign(p, e), span);
        }
        let block = self.pipeline(&mut on_error, first);
        on_error.body.block = block;
        self.scu.on_parser_error = Some(on_error.body);
        if let Some(&(_, d)) = arch.blocks.iter().find(|(r, _)| *r == BlockRole::Deparser) {
            let inst = self.top_inst(BlockRole::Deparser, d);
            let mut fx = Fx::default();
            let block = self.control_body(&mut fx, &inst, d);
            fx.body.block = block;
            self.scu.deparser = Some(fx.body);
        }
        if arch.kind == ArchKind::V1Model && !self.reads_std_field("ingress_global_timestamp") {
            self.drop_prologue_write("ingress_global_timestamp");
        }
    }

    /// Whether any body of the program may read the standard metadata's field `name`: a read of
    /// that field, or of the whole struct other than to take another field of it. Conservative:
    /// expressions no statement reaches count too.
    fn reads_std_field(&self, name: &str) -> bool {
        let Some(Place::Field(_, wanted)) = self.std_place(name) else {
            return false;
        };
        let std = self.std_field;
        let scu = &self.scu;
        let mut bodies: Vec<&scenic_ir::body::Body> = Vec::new();
        bodies.extend(scu.parser.as_ref().map(|p| &p.body));
        bodies.extend(scu.control.iter().chain(&scu.on_parser_error));
        bodies.extend(scu.deparser.iter());
        bodies.extend(scu.actions.values().map(|a| &a.body));
        bodies.extend(scu.tables.values().map(|t| &t.key_body));
        bodies.extend(self.module.functions.values().map(|f| &f.body));
        bodies.iter().any(|body| {
            let is_std = |e: ExprId| body.exprs.get(e) == Some(&Expr::Meta(std));
            let other_fields: Vec<ExprId> = body
                .exprs
                .values()
                .filter_map(|e| match e {
                    Expr::Field { base, field } if is_std(*base) && *field != wanted => Some(*base),
                    _ => None,
                })
                .collect();
            body.exprs.iter().any(|(id, e)| match e {
                Expr::Field { base, field } => is_std(*base) && *field == wanted,
                Expr::Meta(m) => *m == std && !other_fields.contains(&id),
                _ => false,
            })
        })
    }

    /// Removes the prologue's write of the standard metadata's field `name` from the parser's
    /// first state, and the expressions of its value.
    fn drop_prologue_write(&mut self, name: &str) {
        let Some(place) = self.std_place(name) else {
            return;
        };
        let Some(parser) = self.scu.parser.as_mut() else {
            return;
        };
        let Some(start) = parser.states.get_mut(parser.start) else {
            return;
        };
        let block = &mut start.block;
        if let Some(i) = block
            .stmts
            .iter()
            .position(|s| matches!(s, Stmt::Assign(p, _) if *p == place))
        {
            block.stmts.remove(i);
            block.spans.remove(i);
            // The validator wants every expression used once: drop the value's expressions.
            scenic_ir::proc::compact::compact_code(scenic_ir::proc::walk::CodeMut::Parser(parser));
        }
    }

    /// The instance of a top-level block, its parameters bound by role.
    fn top_inst(&self, role: BlockRole, d: usize) -> Inst {
        let arch = self.arch;
        let bounds = arch
            .roles(d)
            .iter()
            .map(|r| match r {
                ParamRole::Packet => Bound::Packet,
                ParamRole::Headers => Bound::Headers {
                    agg: arch.headers,
                    prefix: String::new(),
                },
                ParamRole::Meta => Bound::Place(Place::Meta(self.user_field), Ty::Agg(arch.meta)),
                ParamRole::StdMeta => {
                    Bound::Place(Place::Meta(self.std_field), Ty::Agg(arch.std_meta))
                }
            })
            .collect();
        let top = match &self.ck.program.decls.get(d).map(|x| &x.kind) {
            Some(scenic_frontend::p4::ast::DeclKind::Control(c)) => c.proto.name.name.clone(),
            Some(scenic_frontend::p4::ast::DeclKind::Parser(p)) => p.proto.name.name.clone(),
            _ => String::new(),
        };
        Inst {
            path: String::new(),
            key: role_key(role).to_string(),
            top,
            params: HashMap::from([(Owner::Block(d), bounds)]),
        }
    }

    /// What the target sets before the parser runs.
    fn prologue(&mut self, fx: &mut Fx, block: &mut Block) {
        let span = self.scu.span;
        let no_error = self.error_named("NoError");
        let e = Self::const_of(fx, u64::from(no_error.as_u32()), Type::ParserError, span);
        let place = self.std_place("parser_error");
        self.push_assign(block, place, e, span);
        match self.arch.kind {
            ArchKind::V1Model => {
                let port =
                    self.packet_field(fx, PacketField::Port, Type::Bits(8), Type::Bits(9), span);
                let place = self.std_place("ingress_port");
                self.push_assign(block, place, port, span);
                let len =
                    self.packet_field(fx, PacketField::Len, Type::Bits(16), Type::Bits(32), span);
                let place = self.std_place("packet_length");
                self.push_assign(block, place, len, span);
                // BMv2's global timestamps count microseconds. Removed again when nothing reads it
                // (`drop_prologue_write`): the division would keep the program from being written
                // back to P4 targets, which cannot divide by 1000.
                let ns = fx
                    .body
                    .add(Expr::Packet(PacketField::Timestamp), Type::Bits(64), span);
                let k = Self::const_of(fx, 1000, Type::Bits(64), span);
                let us = fx
                    .body
                    .add(Expr::Binary(BinaryOp::Div, ns, k), Type::Bits(64), span);
                let us = fx.body.add(Expr::Cast(us), Type::Bits(48), span);
                let place = self.std_place("ingress_global_timestamp");
                self.push_assign(block, place, us, span);
            }
            ArchKind::Xilinx => {
                let ns = fx
                    .body
                    .add(Expr::Packet(PacketField::Timestamp), Type::Bits(64), span);
                let place = self.std_place("ingress_timestamp");
                self.push_assign(block, place, ns, span);
                self.shell_inputs(fx, block, span);
            }
        }
    }

    fn packet_field(
        &mut self,
        fx: &mut Fx,
        f: PacketField,
        from: Type,
        to: Type,
        span: Span,
    ) -> ExprId {
        let x = fx.body.add(Expr::Packet(f), from, span);
        fx.body.add(Expr::Cast(x), to, span)
    }

    /// The controls in pipeline order, then the drop and destination logic.
    fn pipeline(&mut self, fx: &mut Fx, mut out: Block) -> Block {
        let arch = self.arch;
        let span = self.scu.span;
        let block_of = |role: BlockRole| {
            arch.blocks
                .iter()
                .find(|(r, _)| *r == role)
                .map(|(_, d)| *d)
        };
        match arch.kind {
            ArchKind::V1Model => {
                for role in [BlockRole::VerifyChecksum, BlockRole::Ingress] {
                    if let Some(d) = block_of(role) {
                        self.run_control(fx, role, d, &mut out);
                    }
                }
                self.drop_if_spec_is_drop_port(fx, &mut out);
                let spec = self.read_std(fx, "egress_spec", span);
                if let Some(p) = self.std_place("egress_port") {
                    out.push(Stmt::Assign(p, spec), span);
                }
                let spec = self.read_std(fx, "egress_spec", span);
                if let Some(f) = self.port_field {
                    out.push(Stmt::Assign(Place::Meta(f), spec), span);
                }
                for role in [BlockRole::Egress] {
                    if let Some(d) = block_of(role) {
                        self.run_control(fx, role, d, &mut out);
                    }
                }
                self.drop_if_spec_is_drop_port(fx, &mut out);
                if let Some(d) = block_of(BlockRole::ComputeChecksum) {
                    self.run_control(fx, BlockRole::ComputeChecksum, d, &mut out);
                }
                if let Some(f) = self.port_field {
                    let port = fx.body.add(Expr::Meta(f), Type::Bits(9), span);
                    let port = fx.body.add(Expr::Cast(port), Type::Bits(16), span);
                    self.send_to_port(fx, port, &mut out);
                }
            }
            ArchKind::Xilinx => {
                if let Some(d) = block_of(BlockRole::MatchAction) {
                    self.run_control(fx, BlockRole::MatchAction, d, &mut out);
                }
                let drop = self.read_std(fx, "drop", span);
                let one = Self::const_of(fx, 1, Type::Bits(1), span);
                let is_drop = fx
                    .body
                    .add(Expr::Binary(BinaryOp::Eq, drop, one), Type::Bool, span);
                let mut then = Block::default();
                then.push(Stmt::Drop, span);
                out.push(Stmt::If(is_drop, then, Block::default()), span);
                self.xilinx_destination(fx, &mut out);
            }
        }
        out
    }

    /// A control's code inline, or a call of a function made from it when it uses `exit`.
    fn run_control(&mut self, fx: &mut Fx, role: BlockRole, d: usize, out: &mut Block) {
        let inst = self.top_inst(role, d);
        let span = self.scu.span;
        if !self.exits(d, 0) {
            let body = self.control_body(fx, &inst, d);
            out.push(Stmt::Block(body), span);
            return;
        }
        let id = match self.functions.get(&inst.key) {
            Some(&f) => f,
            None => {
                let mut f = Fx::default();
                let block = self.control_body(&mut f, &inst, d);
                f.body.block = block;
                let id = self.module.functions.push(Function {
                    name: inst.top.clone(),
                    owner: scenic_ir::program::Owner::Scu(ScuId::from_u32(0)),
                    ret: Type::Unit,
                    body: f.body,
                    span,
                });
                self.functions.insert(inst.key.clone(), id);
                id
            }
        };
        let call = fx.body.add(Expr::Call(id, Vec::new()), Type::Unit, span);
        out.push(Stmt::Eval(call), span);
    }

    fn read_std(&mut self, fx: &mut Fx, field: &str, span: Span) -> ExprId {
        let agg = &self.ck.env.aggregates[self.arch.std_meta];
        let Some(i) = agg.field(field) else {
            return Self::const_of(fx, 0, Type::Bits(1), span);
        };
        let ty = self.ir_ty(&agg.fields[i].1.clone());
        let base = fx.body.add(
            Expr::Meta(self.std_field),
            self.meta_fields[self.std_field as usize].ty.clone(),
            span,
        );
        fx.body.add(
            Expr::Field {
                base,
                field: i as u32,
            },
            ty,
            span,
        )
    }

    fn drop_if_spec_is_drop_port(&mut self, fx: &mut Fx, out: &mut Block) {
        let span = self.scu.span;
        let spec = self.read_std(fx, "egress_spec", span);
        let drop = Self::const_of(fx, DROP_PORT, Type::Bits(9), span);
        let is_drop = fx
            .body
            .add(Expr::Binary(BinaryOp::Eq, spec, drop), Type::Bool, span);
        let mut then = Block::default();
        then.push(Stmt::Drop, span);
        out.push(Stmt::If(is_drop, then, Block::default()), span);
    }

    /// Ports 0–255 are network ports, 256 the host; anything else drops. `port` is `bit<16>`.
    fn send_to_port(&mut self, fx: &mut Fx, port: ExprId, out: &mut Block) {
        let span = self.scu.span;
        let tmp = fx.body.local("$out_port", Type::Bits(16), false);
        out.push(Stmt::Let(tmp, port), span);
        let read = |fx: &mut Fx| fx.body.add(Expr::Local(tmp), Type::Bits(16), span);
        let p = read(fx);
        let limit = Self::const_of(fx, CPU_PORT, Type::Bits(16), span);
        let network = fx
            .body
            .add(Expr::Binary(BinaryOp::Lt, p, limit), Type::Bool, span);
        let p = read(fx);
        let byte = fx.body.add(Expr::Cast(p), Type::Bits(8), span);
        let mut to_network = Block::default();
        to_network.push(Stmt::ToNetwork(byte), span);
        let p = read(fx);
        let cpu = Self::const_of(fx, CPU_PORT, Type::Bits(16), span);
        let is_cpu = fx
            .body
            .add(Expr::Binary(BinaryOp::Eq, p, cpu), Type::Bool, span);
        let mut to_host = Block::default();
        to_host.push(Stmt::ToHost, span);
        let mut drop = Block::default();
        drop.push(Stmt::Drop, span);
        let mut otherwise = Block::default();
        otherwise.push(Stmt::If(is_cpu, to_host, drop), span);
        out.push(Stmt::If(network, to_network, otherwise), span);
    }

    /// Vitis: `meta.to_host == 1` sends to the host; else `meta.egress_port` names the port.
    fn xilinx_destination(&mut self, fx: &mut Fx, out: &mut Block) {
        let span = self.scu.span;
        let meta = self.ck.env.aggregates[self.arch.meta].clone();
        let scalar = |name: &str| {
            meta.field(name)
                .filter(|i| matches!(meta.fields[*i].1, Ty::Bits(_)))
                .map(|i| (i as u32, meta.fields[i].1.clone()))
        };
        let port_field = scalar("egress_port");
        let mut rest = Block::default();
        if let Some((i, ty)) = port_field {
            let ir = self.ir_ty(&ty);
            let port = self.user_meta_field(fx, i, ir.clone(), span);
            let wide = if ir == Type::Bits(16) {
                port
            } else {
                fx.body.add(Expr::Cast(port), Type::Bits(16), span)
            };
            self.send_to_port(fx, wide, &mut rest);
        }
        match scalar("to_host") {
            Some((i, ty)) => {
                let ir = self.ir_ty(&ty);
                let flag = self.user_meta_field(fx, i, ir.clone(), span);
                let one = Self::const_of(fx, 1, ir, span);
                let set = fx
                    .body
                    .add(Expr::Binary(BinaryOp::Eq, flag, one), Type::Bool, span);
                let mut then = Block::default();
                then.push(Stmt::ToHost, span);
                out.push(Stmt::If(set, then, rest), span);
            }
            None => {
                let (stmts, spans) = rest.into_parts();
                for (s, sp) in stmts.into_iter().zip(spans) {
                    out.push(s, sp);
                }
            }
        }
    }

    fn user_meta_field(&mut self, fx: &mut Fx, i: u32, ty: Type, span: Span) -> ExprId {
        let base_ty = self.meta_fields[self.user_field as usize].ty.clone();
        let base = fx.body.add(Expr::Meta(self.user_field), base_ty, span);
        fx.body.add(Expr::Field { base, field: i }, ty, span)
    }
}

/// The key (and meta-field prefix) of a top-level block.
fn role_key(role: BlockRole) -> &'static str {
    match role {
        BlockRole::Parser => "parser",
        BlockRole::VerifyChecksum => "verify_checksum",
        BlockRole::Ingress => "ingress",
        BlockRole::Egress => "egress",
        BlockRole::ComputeChecksum => "compute_checksum",
        BlockRole::MatchAction => "match_action",
        BlockRole::Deparser => "deparser",
    }
}
