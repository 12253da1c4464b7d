//! Lowering an `scu` and its members.
//!
//! Two passes: first every named member gets its id (so bodies can refer to members declared after
//! them), then bodies, tables and the parser are lowered.

use super::expr::BodyCx;
use super::{container_span, Lowerer, ScuCx};
use scenic_frontend::ast::MemberKind;
use scenic_frontend::db::SourceFile;
use scenic_frontend::resolve::index::Container;
use scenic_frontend::typeck::signature::{self as sig, sig_of, SigKind};
use scenic_frontend::typeck::BUILTIN_PARSER_ERRORS;
use scenic_frontend::types::Ty;
use scenic_ir::body::Body;
use scenic_ir::entities::*;
use scenic_ir::program::*;
use scenic_ir::types::{Const, Type};

impl Lowerer<'_> {
    pub(crate) fn lower_scu(&mut self, file: SourceFile, container: &Container) {
        let attach = match &sig_of(self.db, file, container.head).kind {
            SigKind::Scu {
                attach: Some(sig::Attach::Rdma),
                ..
            } => Attach::Rdma,
            SigKind::Scu {
                attach: Some(sig::Attach::Tcp),
                ..
            } => Attach::Tcp,
            _ => Attach::SlowPath,
        };
        let mut scu = Scu {
            name: container.name.clone(),
            attach,
            csrs: Default::default(),
            instances: Default::default(),
            meta: None,
            errors: Default::default(),
            parser: None,
            tables: Default::default(),
            actions: Default::default(),
            maps: Default::default(),
            counters: Default::default(),
            meters: Default::default(),
            outs: Default::default(),
            control: None,
            on_parser_error: None,
            deparser: None,
            stream: None,
            every: Vec::new(),
            span: container_span(self.db, file, container),
        };
        let scu_id = self
            .scu_ids
            .get(&container.name)
            .copied()
            .unwrap_or(ScuId::from_u32(0));
        let flow_binding = match &sig_of(self.db, file, container.head).kind {
            SigKind::Scu { binding, .. } => binding.clone(),
            _ => None,
        };
        let mut cx = ScuCx {
            scu: Some(scu_id),
            flow_binding,
            ..ScuCx::default()
        };
        for name in BUILTIN_PARSER_ERRORS {
            let id = scu.errors.push(name.to_string());
            cx.errors.insert(name.to_string(), id);
        }
        for &chunk in &container.chunks {
            self.declare_member(file, chunk, &mut scu, &mut cx);
        }
        // Tables first: bodies that apply them need their action lists.
        let (tables, others): (Vec<u32>, Vec<u32>) = container.chunks.iter().partition(|&&c| {
            matches!(&self.ast(file, c).ast, scenic_frontend::parse::ChunkAst::Member(m) if matches!(m.kind, MemberKind::Table(_)))
        });
        for chunk in tables.into_iter().chain(others) {
            self.define_member(file, chunk, &mut scu, &mut cx);
        }
        let pushed = self.module.scus.push(scu);
        debug_assert_eq!(pushed, scu_id);
    }

    /// Pass 1: ids and outsides.
    fn declare_member(&mut self, file: SourceFile, chunk: u32, scu: &mut Scu, cx: &mut ScuCx) {
        let parsed = self.ast(file, chunk);
        let scenic_frontend::parse::ChunkAst::Member(member) = &parsed.ast else {
            return;
        };
        let sig = sig_of(self.db, file, chunk);
        match (&member.kind, &sig.kind) {
            (MemberKind::Csr(d), SigKind::Csr { ty, readonly }) => {
                let ty = self.lower_ty(ty, cx);
                let init = self.init_const(file, chunk, d.init.as_ref(), &ty);
                let id = scu.csrs.push(Csr {
                    name: d.name.name.clone(),
                    ty,
                    init,
                    host_readonly: *readonly,
                    is_param: false,
                });
                cx.csrs.insert(d.name.name.clone(), id);
            }
            (MemberKind::Param(p), SigKind::Param { ty, value }) => {
                let ty = self.lower_ty(ty, cx);
                let init = value
                    .as_ref()
                    .map_or(Const::zero(), |v| self.const_of(v, &ty));
                let id = scu.csrs.push(Csr {
                    name: p.name.name.clone(),
                    ty,
                    init,
                    host_readonly: false,
                    is_param: true,
                });
                cx.csrs.insert(p.name.name.clone(), id);
            }
            (MemberKind::Headers(_), SigKind::Headers { instances }) => {
                for inst in instances {
                    let (header, stack) = match &inst.ty {
                        Ty::Header(t) => (self.header(t), None),
                        Ty::Array(elem, n) => match &**elem {
                            Ty::Header(t) => (self.header(t), Some(*n)),
                            _ => continue,
                        },
                        _ => continue,
                    };
                    let id = scu.instances.push(Instance {
                        name: inst.name.clone(),
                        header,
                        stack,
                    });
                    cx.instances.insert(inst.name.clone(), id);
                    cx.instance_headers.insert(id, header);
                }
            }
            (MemberKind::Meta(_), SigKind::Meta { fields }) => self.declare_meta(fields, scu, cx),
            (MemberKind::Errors(_), SigKind::Errors { names }) => {
                for name in names {
                    let id = scu.errors.push(name.clone());
                    cx.errors.insert(name.clone(), id);
                }
            }
            _ => self.declare_resource(file, chunk, &member.kind, &sig.kind, scu, cx),
        }
    }

    fn declare_meta(&mut self, fields: &[sig::FieldSig], scu: &mut Scu, cx: &mut ScuCx) {
        let lowered: Vec<Field> = fields
            .iter()
            .map(|f| Field {
                name: f.name.clone(),
                ty: self.lower_ty(&f.ty, cx),
                offset: 0,
            })
            .collect();
        cx.meta_fields = lowered.iter().map(|f| f.name.clone()).collect();
        let id = self.module.structs.push(StructLayout {
            name: format!("{}_meta", scu.name),
            fields: lowered,
        });
        scu.meta = Some(id);
        cx.meta = Some(id);
    }

    /// Tables, actions, maps, counters, meters, outputs and functions get their ids.
    fn declare_resource(
        &mut self,
        file: SourceFile,
        chunk: u32,
        kind: &MemberKind,
        sig: &SigKind,
        scu: &mut Scu,
        cx: &mut ScuCx,
    ) {
        match (kind, sig) {
            (MemberKind::Table(t), SigKind::Table(_)) => {
                let id = scu.tables.push(placeholder_table(&t.name.name));
                cx.tables.insert(t.name.name.clone(), id);
            }
            (MemberKind::Action(a), SigKind::Action { params }) => {
                let id = scu.actions.push(Action {
                    name: a.name.name.clone(),
                    body: Body::default(),
                });
                cx.actions.insert(a.name.name.clone(), id);
                let tys = params.iter().map(|(_, t)| self.lower_ty(t, cx)).collect();
                cx.action_params.insert(id, tys);
            }
            (
                MemberKind::Map(m),
                SigKind::Map {
                    kind,
                    key,
                    value,
                    size,
                },
            ) => {
                let map = self.lower_map(&m.name.name, kind, key, value, *size, cx);
                let types = (map.key.clone(), map.value.clone());
                let id = scu.maps.push(map);
                cx.maps.insert(m.name.name.clone(), id);
                cx.map_types.insert(id, types);
            }
            (MemberKind::Counter(c), SigKind::Counter { size }) => {
                let id = scu.counters.push(lower_counter(c, *size));
                cx.counters.insert(c.name.name.clone(), id);
            }
            (MemberKind::Meter(m), SigKind::Meter { size }) => {
                let (rate, burst) = self.meter_options(file, chunk, m);
                let id = scu.meters.push(Meter {
                    name: m.name.name.clone(),
                    size: *size,
                    rate,
                    burst,
                });
                cx.meters.insert(m.name.name.clone(), id);
            }
            (MemberKind::Out(o), SigKind::Out { kind, count }) => {
                let out = self.lower_out(file, chunk, o, kind, *count);
                let id = scu.outs.push(out);
                cx.outs.insert(o.name.name.clone(), id);
            }
            (MemberKind::Fn(f), SigKind::Fn { params, ret }) => {
                let id = self.new_function(
                    &f.name.name,
                    Owner::Scu(cx.scu.unwrap_or(ScuId::from_u32(0))),
                    params,
                    ret,
                    file,
                    chunk,
                    cx,
                );
                cx.functions.insert(f.name.name.clone(), id);
            }
            _ => {}
        }
    }

    /// The IR map `name` of the given kind, key and value types and size.
    fn lower_map(
        &mut self,
        name: &str,
        kind: &sig::MapKind,
        key: &Ty,
        value: &Ty,
        size: u64,
        cx: &ScuCx,
    ) -> Map {
        Map {
            name: name.to_string(),
            kind: match kind {
                sig::MapKind::Array => MapKind::Array,
                sig::MapKind::Hash => MapKind::Hash,
                sig::MapKind::LruHash => MapKind::LruHash,
            },
            key: self.lower_ty(key, cx),
            value: self.lower_ty(value, cx),
            size,
        }
    }

    /// The IR output of `out` declaration `o`; its batch size is the value of its `batch`
    /// expression, if it has one.
    fn lower_out(
        &self,
        file: SourceFile,
        chunk: u32,
        o: &scenic_frontend::ast::OutDecl,
        kind: &sig::OutKind,
        count: Option<u32>,
    ) -> Out {
        let batch = o
            .batch
            .as_ref()
            .and_then(|b| self.expr_value(file, chunk, b))
            .and_then(|v| v.as_u64());
        let kind = match kind {
            sig::OutKind::Dma => OutKind::Dma,
            sig::OutKind::Host => OutKind::Host,
        };
        Out {
            name: o.name.name.clone(),
            kind,
            count,
            batch,
        }
    }

    fn meter_options(
        &self,
        file: SourceFile,
        chunk: u32,
        m: &scenic_frontend::ast::MeterDecl,
    ) -> (Option<u64>, Option<u64>) {
        let mut rate = None;
        let mut burst = None;
        for (key, value) in &m.options {
            let v = self.expr_value(file, chunk, value).and_then(|v| v.as_u64());
            match key.name.as_str() {
                "rate" => rate = v,
                "burst" => burst = v,
                _ => {}
            }
        }
        (rate, burst)
    }

    /// The constant value the checker found for an initialiser, as type `ty` (zero when absent).
    pub(crate) fn init_const(
        &self,
        file: SourceFile,
        chunk: u32,
        init: Option<&scenic_frontend::ast::Expr>,
        ty: &Type,
    ) -> Const {
        init.and_then(|e| self.expr_value(file, chunk, e))
            .map_or(Const::zero(), |v| self.const_of(&v, ty))
    }

    /// The constant value recorded for an expression of a chunk (signature or body).
    pub(crate) fn expr_value(
        &self,
        file: SourceFile,
        chunk: u32,
        e: &scenic_frontend::ast::Expr,
    ) -> Option<scenic_frontend::consteval::Value> {
        let key = scenic_frontend::db::ChunkKey::new(self.db, file, chunk);
        let sig = scenic_frontend::typeck::signature::signature(self.db, key);
        if let Some(v) = sig.infos.get(e.id).and_then(|i| i.value.clone()) {
            return Some(v);
        }
        let body = scenic_frontend::typeck::check_body(self.db, key);
        body.infos.get(e.id).and_then(|i| i.value.clone())
    }

    /// Pass 2: bodies.
    fn define_member(&mut self, file: SourceFile, chunk: u32, scu: &mut Scu, cx: &mut ScuCx) {
        let parsed = self.ast(file, chunk);
        let scenic_frontend::parse::ChunkAst::Member(member) = &parsed.ast else {
            return;
        };
        match &member.kind {
            MemberKind::Table(t) => self.lower_table(file, chunk, t, scu, cx),
            MemberKind::Action(a) => {
                let Some(&id) = cx.actions.get(&a.name.name) else {
                    return;
                };
                let mut bcx = BodyCx::new(file, chunk, self.db);
                self.params(&mut bcx, &a.params, cx);
                self.lower_block_into(&mut bcx, &a.body, cx);
                scu.actions[id].body = bcx.finish();
            }
            MemberKind::Parser(p) => scu.parser = self.lower_parser(file, chunk, p, cx),
            MemberKind::Control(b) => scu.control = Some(self.simple_body(file, chunk, b, cx)),
            MemberKind::Deparser(b) => scu.deparser = Some(self.simple_body(file, chunk, b, cx)),
            MemberKind::Stream(s) => {
                let mut bcx = BodyCx::new(file, chunk, self.db);
                for p in &s.params {
                    let local = bcx.body.local(p.name.name.clone(), Type::Bits(512), false);
                    bcx.body.params.push(local);
                    bcx.bind(&p.name.name, local);
                }
                self.lower_block_into(&mut bcx, &s.body, cx);
                scu.stream = Some(bcx.finish());
            }
            MemberKind::Every(e) => {
                let period_ns = self
                    .expr_value(file, chunk, &e.period)
                    .and_then(|v| v.as_u64())
                    .unwrap_or(1);
                let body = self.simple_body(file, chunk, &e.body, cx);
                // The head: from `every` to the end of the period.
                let base = scenic_frontend::db::chunk_span(self.db, file, chunk).lo;
                let span = scenic_ir::span::Span {
                    file: crate::ir_file(file.id(self.db)),
                    lo: base + member.span.lo,
                    hi: base + e.period.span.hi.max(member.span.lo),
                };
                scu.every.push(Every {
                    period_ns,
                    body,
                    span,
                });
            }
            MemberKind::On(h) => {
                if let scenic_frontend::ast::Event::Simple { binding, .. } = &h.event {
                    let mut bcx = BodyCx::new(file, chunk, self.db);
                    if let Some(b) = binding {
                        let local = bcx.body.local(b.name.clone(), Type::ParserError, false);
                        bcx.body.params.push(local);
                        bcx.bind(&b.name, local);
                    }
                    self.lower_block_into(&mut bcx, &h.body, cx);
                    scu.on_parser_error = Some(bcx.finish());
                }
            }
            MemberKind::Fn(f) => {
                if let Some(&id) = cx.functions.get(&f.name.name) {
                    self.pending.push((id, file, chunk, Some(cx.clone())));
                }
            }
            _ => {}
        }
    }

    /// A body with no parameters.
    pub(crate) fn simple_body(
        &mut self,
        file: SourceFile,
        chunk: u32,
        block: &scenic_frontend::ast::Block,
        cx: &ScuCx,
    ) -> Body {
        let mut bcx = BodyCx::new(file, chunk, self.db);
        self.lower_block_into(&mut bcx, block, cx);
        bcx.finish()
    }

    /// Declares a function (its body is lowered later, from `pending`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_function(
        &mut self,
        name: &str,
        owner: Owner,
        params: &[(String, Ty)],
        ret: &Ty,
        file: SourceFile,
        chunk: u32,
        cx: &ScuCx,
    ) -> FuncId {
        let mut body = Body::default();
        for (pname, pty) in params {
            let ty = self.lower_ty(pty, cx);
            let local = body.local(pname.clone(), ty, false);
            body.params.push(local);
        }
        let span = scenic_frontend::db::chunk_span(self.db, file, chunk);
        let ret = self.lower_ty(ret, cx);
        self.module.functions.push(Function {
            name: name.to_string(),
            owner,
            ret,
            body,
            span: scenic_ir::span::Span {
                file: crate::ir_file(file.id(self.db)),
                lo: span.lo,
                hi: span.hi,
            },
        })
    }

    /// Lowers the body of a function declared by [`Lowerer::new_function`].
    pub(crate) fn lower_function_body(
        &mut self,
        id: FuncId,
        file: SourceFile,
        chunk: u32,
        cx: ScuCx,
    ) {
        let parsed = self.ast(file, chunk);
        let Some(member_or_item) = fn_decl(&parsed) else {
            return;
        };
        let mut bcx = BodyCx::new(file, chunk, self.db);
        bcx.body = std::mem::take(&mut self.module.functions[id].body);
        for (decl, local) in member_or_item.params.iter().zip(bcx.body.params.clone()) {
            bcx.bind(&decl.name.name, local);
        }
        bcx.ret = self.module.functions[id].ret.clone();
        self.lower_block_into(&mut bcx, &member_or_item.body, &cx);
        self.module.functions[id].body = bcx.finish();
    }

    /// Declares parameters of an action or function body.
    pub(crate) fn params(
        &mut self,
        bcx: &mut BodyCx,
        params: &[scenic_frontend::ast::FieldDecl],
        cx: &ScuCx,
    ) {
        let sig = sig_of(self.db, bcx.file, bcx.chunk);
        let tys: Vec<Ty> = match &sig.kind {
            SigKind::Action { params } | SigKind::Fn { params, .. } => {
                params.iter().map(|(_, t)| t.clone()).collect()
            }
            _ => Vec::new(),
        };
        for (decl, ty) in params.iter().zip(tys) {
            let ty = self.lower_ty(&ty, cx);
            let local = bcx.body.local(decl.name.name.clone(), ty, false);
            bcx.body.params.push(local);
            bcx.bind(&decl.name.name, local);
        }
    }
}

/// A table whose definition is filled in by pass 2.
fn placeholder_table(name: &str) -> Table {
    Table {
        name: name.to_string(),
        key_body: Body::default(),
        keys: Vec::new(),
        actions: Vec::new(),
        default: (ActionId::from_u32(0), Vec::new()),
        size: 0,
        const_entries: Vec::new(),
        is_const: false,
        span: Default::default(),
    }
}

/// The function or action declared by a chunk, borrowed (ASTs are never cloned: they can be deep).
fn fn_decl(parsed: &scenic_frontend::parse::ParsedChunk) -> Option<&scenic_frontend::ast::FnDecl> {
    match &parsed.ast {
        scenic_frontend::parse::ChunkAst::Member(m) => match &m.kind {
            MemberKind::Fn(f) | MemberKind::Action(f) => Some(f),
            _ => None,
        },
        scenic_frontend::parse::ChunkAst::Item(item) => match &item.kind {
            scenic_frontend::ast::ItemKind::Fn(f) => Some(f),
            _ => None,
        },
    }
}

/// The IR counter of counter declaration `c` with `size` cells (a kind it does not name counts
/// packets).
fn lower_counter(c: &scenic_frontend::ast::CounterDecl, size: u64) -> Counter {
    let kind = match c.kind.name.as_str() {
        "bytes" => CounterKind::Bytes,
        "packets_and_bytes" => CounterKind::PacketsAndBytes,
        _ => CounterKind::Packets,
    };
    Counter {
        name: c.name.name.clone(),
        kind,
        size,
    }
}
