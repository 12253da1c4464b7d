//! Lowering method calls (headers, tables, maps, meters) and calls of top-level functions.

use super::expr::BodyCx;
use super::{Lowerer, ScuCx};
use scenic_frontend::ast::{self, ExprKind};
use scenic_frontend::db::SourceFile;
use scenic_frontend::resolve::index::DefKind;
use scenic_frontend::resolve::lookup::{
    lookup_in_module, lookup_module_name, module_file, ModuleRes,
};
use scenic_frontend::typeck::signature::{sig_of, SigKind};
use scenic_frontend::types::DefId;
use scenic_ir::body::Expr;
use scenic_ir::entities::*;
use scenic_ir::program::Owner;
use scenic_ir::types::{Const, Type};

/// A method receiver that names an scu resource, possibly indexed (`limiter[c]`).
pub(crate) enum Receiver<'e> {
    /// A table.
    Table(TableId),
    /// A map.
    Map(MapId),
    /// A meter cell.
    Meter(MeterId, Option<&'e ast::Expr>),
    /// A counter.
    Counter(CounterId),
    /// An output (or one of an array of outputs).
    Out(OutId, Option<&'e ast::Expr>),
    /// A header instance (or stack element).
    Header(InstId, Option<&'e ast::Expr>),
}

/// Recognises receivers that name resources of the scu.
pub(crate) fn receiver<'e>(bcx: &BodyCx, e: &'e ast::Expr, cx: &ScuCx) -> Option<Receiver<'e>> {
    let (path, index) = match &e.kind {
        ExprKind::Path(p) => (p, None),
        ExprKind::Index { base, index } => match &base.kind {
            ExprKind::Path(p) => (p, Some(&**index)),
            _ => return None,
        },
        _ => return None,
    };
    let name = path.segments[0].name.as_str();
    if !path.is_single() || bcx.lookup(name).is_some() {
        return None;
    }
    if let Some(&t) = cx.tables.get(name) {
        return Some(Receiver::Table(t));
    }
    if let Some(&m) = cx.maps.get(name) {
        return Some(Receiver::Map(m));
    }
    if let Some(&m) = cx.meters.get(name) {
        return Some(Receiver::Meter(m, index));
    }
    if let Some(&c) = cx.counters.get(name) {
        return Some(Receiver::Counter(c));
    }
    if let Some(&o) = cx.outs.get(name) {
        return Some(Receiver::Out(o, index));
    }
    cx.instances.get(name).map(|&i| Receiver::Header(i, index))
}

impl Lowerer<'_> {
    /// A method call used as a value.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lower_method(
        &mut self,
        bcx: &mut BodyCx,
        recv: &ast::Expr,
        method: &ast::Ident,
        args: &[ast::Expr],
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        let expr = match (receiver(bcx, recv, cx), method.name.as_str()) {
            (Some(Receiver::Table(t)), "apply") => Expr::Apply(t),
            (Some(Receiver::Map(m)), name) => {
                let (key_ty, value_ty) = self.map_types(cx, m);
                let key = match args.first() {
                    Some(k) => self.lower_expr(bcx, k, Some(&key_ty), cx),
                    None => return self.zero(bcx, ty, e),
                };
                match (name, args.get(1)) {
                    ("get", _) => Expr::MapGet(m, key),
                    ("contains", _) => Expr::MapContains(m, key),
                    ("remove", _) => Expr::MapRemove(m, key),
                    (_, Some(v)) => {
                        let value = self.lower_expr(bcx, v, Some(&value_ty), cx);
                        Expr::MapInsert(m, key, value)
                    }
                    _ => return self.zero(bcx, ty, e),
                }
            }
            (Some(Receiver::Meter(m, index)), "exceeds") => {
                let index = index.map(|i| self.lower_expr(bcx, i, None, cx));
                let len = match args.first() {
                    Some(l) => self.lower_expr(bcx, l, Some(&Type::Bits(16)), cx),
                    None => return self.zero(bcx, ty, e),
                };
                Expr::MeterExceeds(m, index, len)
            }
            (Some(Receiver::Header(inst, index)), "valid") => {
                let index = index.map(|i| self.lower_expr(bcx, i, None, cx));
                Expr::HeaderValid { inst, index }
            }
            _ => {
                // A header value held in a local or stack element: `h.valid()`.
                if method.name == "valid" {
                    if let ExprKind::Index { base, index } = &recv.kind {
                        if let Some(Receiver::Header(inst, _)) = receiver(bcx, base, cx) {
                            let index = Some(self.lower_expr(bcx, index, None, cx));
                            return self.add(bcx, Expr::HeaderValid { inst, index }, ty, e);
                        }
                    }
                }
                self.unsupported(bcx.file, format!("the method `{}`", method.name), e.span.lo);
                Expr::Const(Const::zero())
            }
        };
        self.add(bcx, expr, ty, e)
    }

    fn zero(&mut self, bcx: &mut BodyCx, ty: Type, e: &ast::Expr) -> ExprId {
        self.unsupported(bcx.file, "a method call with missing arguments", e.span.lo);
        self.add(bcx, Expr::Const(Const::zero()), ty, e)
    }

    fn map_types(&self, cx: &ScuCx, m: MapId) -> (Type, Type) {
        cx.map_types
            .get(&m)
            .cloned()
            .unwrap_or((Type::Bits(32), Type::Bits(32)))
    }

    /// The parameter types of an scu action.
    pub(crate) fn action_param_types(&self, cx: &ScuCx, action: ActionId) -> Vec<Type> {
        cx.action_params.get(&action).cloned().unwrap_or_default()
    }

    /// The top-level function a path names, created (and queued for lowering) on first use.
    pub(crate) fn module_function(&mut self, file: SourceFile, path: &ast::Path) -> Option<FuncId> {
        let res = if path.is_single() {
            lookup_module_name(self.db, file, &path.segments[0].name)
        } else {
            let module = self.module_of_path(file, path)?;
            lookup_in_module(self.db, module, &path.last().name)
        };
        let ModuleRes::Item(def_file, entry) = res? else {
            return None;
        };
        if entry.kind != DefKind::Fn {
            return None;
        }
        let def = DefId {
            file: def_file.id(self.db),
            chunk: entry.chunk,
        };
        if let Some(&f) = self.functions.get(&def) {
            return Some(f);
        }
        let SigKind::Fn { params, ret } = sig_of(self.db, def_file, entry.chunk).kind.clone()
        else {
            return None;
        };
        let cx = ScuCx::default();
        let f = self.new_function(
            &path.last().name,
            Owner::Module,
            &params,
            &ret,
            def_file,
            entry.chunk,
            &cx,
        );
        self.functions.insert(def, f);
        self.pending.push((f, def_file, entry.chunk, None));
        Some(f)
    }

    fn module_of_path(&self, file: SourceFile, path: &ast::Path) -> Option<SourceFile> {
        let segments: Vec<&str> = path.segments.iter().map(|s| s.as_str()).collect();
        let (module, _) = segments.split_at(segments.len() - 1);
        if module.first() == Some(&"std") {
            return module_file(self.db, &module.join("::"));
        }
        match lookup_module_name(self.db, file, module.first()?)? {
            ModuleRes::Module(m) => Some(m),
            _ => None,
        }
    }
}
