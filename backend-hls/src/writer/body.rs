//! [`BodyWriter`]: one IR body → the statements of one C++ function; and the functions, actions,
//! control and `on parser_error` of an scu.
//!
//! Every local of the body that the function uses is declared at its top, zero-initialised (the IR
//! scopes locals by statement position; hoisting them keeps every variable initialised whatever
//! path runs). Temporaries (`t0`, `t1`, …) hold values that must be evaluated in order (see
//! [`super::expr`]). `halt_return` is the statement that leaves the function when `pk.halt` is set.

use super::{Code, ScuWriter};
use crate::analysis::{
    is_effect, operands, place_exprs, reachable_functions, stmt_blocks, stmt_exprs,
};
use crate::namer::Namer;
use crate::Error;
use cranelift_entity::SecondaryMap;
use scenic_ir::body::{Block, Body, Expr, Place, Stmt};
use scenic_ir::entities::*;
use scenic_ir::types::Type;
use std::collections::{BTreeSet, HashMap};

/// Where a body runs, which decides what it may touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctx {
    /// Per-packet code: `pk` is the packet.
    Packet,
    /// An `every` block: `pk` only collects notifications.
    Every,
}

/// Writes the statements of one body.
pub struct BodyWriter<'w, 'a> {
    /// The scu's writer.
    pub w: &'w ScuWriter<'a>,
    /// The body.
    pub body: &'a Body,
    /// The output, inside the function's braces.
    pub c: Code,
    /// C++ names of the body's locals.
    pub locals: SecondaryMap<LocalId, String>,
    namer: Namer,
    /// Which expressions contain an effect.
    pub effectful: SecondaryMap<ExprId, bool>,
    /// The statement that leaves the function when the packet halted.
    pub halt_return: String,
    /// Table applications evaluated so far: their temporaries.
    pub applies: HashMap<ExprId, String>,
    /// Where the body runs.
    pub ctx: Ctx,
    /// Parser states: the cursor in bits where it is known at generation time.
    pub static_cur: Option<u32>,
    /// In a congestion controller's kernel: the C++ names of its state, params and timers.
    pub cc: Option<super::cc::CcNames>,
    last_loc: Option<String>,
}

impl<'w, 'a> BodyWriter<'w, 'a> {
    /// A writer for `body`, indented at `level`, whose parameters are named `params` by the caller
    /// (or get fresh names when `params` is empty).
    pub fn new(w: &'w ScuWriter<'a>, body: &'a Body, level: usize, ctx: Ctx) -> Self {
        let mut namer = Namer::new();
        for fixed in ["st", "pk", "r", "i_"] {
            namer.reserve(fixed);
        }
        let mut effectful: SecondaryMap<ExprId, bool> = SecondaryMap::new();
        for (id, e) in &body.exprs {
            let inner = operands(e).iter().any(|o| effectful[*o]);
            effectful[id] = is_effect(e) || inner;
        }
        let mut locals = SecondaryMap::new();
        for p in &body.params {
            locals[*p] = namer.name(&body.locals[*p].name);
        }
        BodyWriter {
            w,
            body,
            c: Code::at(level),
            locals,
            namer,
            effectful,
            halt_return: "return;".into(),
            applies: HashMap::new(),
            ctx,
            static_cur: None,
            cc: None,
            last_loc: None,
        }
    }

    /// A fresh temporary name.
    pub fn fresh(&mut self, base: &str) -> String {
        self.namer.name(base)
    }

    /// Declares (zero-initialised) every non-parameter local used in `blocks` and `exprs`.
    pub fn declare_locals(&mut self, blocks: &[&Block], exprs: &[ExprId]) {
        let mut used = BTreeSet::new();
        for b in blocks {
            locals_in_block(self.body, b, &mut used);
        }
        for e in exprs {
            locals_in_expr(self.body, *e, &mut used);
        }
        for l in used {
            if self.body.params.contains(&l) || self.locals.get(l).is_some_and(|n| !n.is_empty()) {
                continue;
            }
            let local = &self.body.locals[l];
            let name = self.namer.name(&local.name);
            let ty = self.w.ty(&local.ty);
            let zero = self.w.zero(&local.ty);
            self.c.line(format!("{ty} {name} = {zero};"));
            self.locals[l] = name;
        }
    }

    /// A `// file.sn:LINE` comment when the statement is on a new line of source.
    pub fn source_comment(&mut self, span: scenic_ir::Span) {
        if let Some(loc) = self.w.loc(span) {
            if self.last_loc.as_deref() != Some(loc.as_str()) {
                self.c.line(format!("// {loc}"));
                self.last_loc = Some(loc);
            }
        }
    }

    /// The type of expression `e`.
    pub fn ty_of(&self, e: ExprId) -> &'a Type {
        &self.body.types[e]
    }

    /// An error for a construct this backend cannot generate, at expression `e`.
    pub fn unsupported_expr(&self, what: &str, e: ExprId) -> Error {
        self.w.unsupported(what, self.body.spans[e])
    }
}

fn locals_in_block(body: &Body, block: &Block, used: &mut BTreeSet<LocalId>) {
    scenic_ir::stack::grow(|| {
        for s in &block.stmts {
            match s {
                Stmt::Let(l, _) => {
                    used.insert(*l);
                }
                Stmt::For { var, .. } => {
                    used.insert(*var);
                }
                Stmt::Assign(p, _) => place_locals(p, used),
                _ => {}
            }
            let mut exprs = stmt_exprs(s);
            if let Stmt::Assign(p, _) = s {
                place_exprs(p, &mut exprs);
            }
            for e in exprs {
                locals_in_expr(body, e, used);
            }
            for b in stmt_blocks(s) {
                locals_in_block(body, b, used);
            }
        }
    })
}

fn place_locals(p: &Place, used: &mut BTreeSet<LocalId>) {
    match p {
        Place::Local(l) => {
            used.insert(*l);
        }
        Place::Field(b, _) | Place::Index(b, _) | Place::Slice(b, _, _) => place_locals(b, used),
        _ => {}
    }
}

fn locals_in_expr(body: &Body, e: ExprId, used: &mut BTreeSet<LocalId>) {
    let Some(expr) = body.exprs.get(e) else {
        return;
    };
    if let Expr::Local(l) = expr {
        used.insert(*l);
    }
    for o in operands(expr) {
        locals_in_expr(body, o, used);
    }
}

/// The parameter list `const T& name, …` of a body (names from `bw.locals`).
pub fn params(bw: &BodyWriter<'_, '_>) -> Vec<String> {
    bw.body
        .params
        .iter()
        .map(|p| {
            let ty = bw.w.ty(&bw.body.locals[*p].ty);
            format!("const {ty}& {}", bw.locals[*p])
        })
        .collect()
}

/// Writes a whole function: signature, `(void)` uses (so that -Wunused-parameter stays quiet for
/// parameters a body ignores), locals, statements.
pub fn write_function(
    c: &mut Code,
    mut bw: BodyWriter<'_, '_>,
    ret: &str,
    name: &str,
    extra: &[String],
) -> Result<(), Error> {
    let mut ps = vec!["state_t& st".to_string(), "pkt_t& pk".to_string()];
    ps.extend(extra.iter().cloned());
    ps.extend(params(&bw));
    c.open(format!("static {ret} {name}({})", ps.join(", ")));
    bw.c = Code::at(c.level());
    bw.c.line("(void)st;");
    bw.c.line("(void)pk;");
    for p in bw.body.params.clone() {
        let n = bw.locals[p].clone();
        bw.c.line(format!("(void){n};"));
    }
    let body = bw.body;
    bw.declare_locals(&[&body.block], &[]);
    bw.block(&body.block)?;
    c.append(bw.c);
    c.close("");
    c.blank();
    Ok(())
}

/// Writes the functions, actions, table applications, control and `on parser_error`.
pub fn write_bodies(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- functions, actions, tables, control ------------------------------------");
    c.blank();
    let funcs = reachable_functions(w.module, w.scu);
    for f in &funcs {
        let func = &w.module.functions[*f];
        let bw = BodyWriter::new(w, &func.body, 0, Ctx::Packet);
        let ps = params(&bw);
        let mut all = vec!["state_t& st".to_string(), "pkt_t& pk".to_string()];
        all.extend(ps);
        c.line(format!(
            "static {} {}({});",
            w.ty(&func.ret),
            w.names.func[*f],
            all.join(", ")
        ));
    }
    for (a, act) in &w.scu.actions {
        if act.body.block.stmts.is_empty() {
            continue;
        }
        let bw = BodyWriter::new(w, &act.body, 0, Ctx::Packet);
        let mut all = vec!["state_t& st".to_string(), "pkt_t& pk".to_string()];
        all.extend(params(&bw));
        c.line(format!(
            "static void {}({});",
            w.names.action[a],
            all.join(", ")
        ));
    }
    for (t, _) in &w.scu.tables {
        c.line(format!(
            "static {} {}(state_t& st, pkt_t& pk);",
            w.names.table_res[t], w.names.apply[t]
        ));
    }
    c.blank();
    for f in &funcs {
        let func = &w.module.functions[*f];
        let mut bw = BodyWriter::new(w, &func.body, 0, Ctx::Packet);
        bw.halt_return = match func.ret {
            Type::Unit => "return;".into(),
            ref t => format!("return {};", w.zero(t)),
        };
        if let Some(loc) = w.loc(func.span) {
            c.line(format!("// fn {} ({loc})", func.name));
        }
        write_function(c, bw, &w.ty(&func.ret), &w.names.func[*f], &[])?;
    }
    for (a, act) in &w.scu.actions {
        if act.body.block.stmts.is_empty() {
            continue;
        }
        c.line(format!("// action {}", act.name));
        let bw = BodyWriter::new(w, &act.body, 0, Ctx::Packet);
        write_function(c, bw, "void", &w.names.action[a], &[])?;
    }
    super::tables::write_applies(w, c)?;
    if let Some(control) = &w.scu.control {
        c.line("// control");
        let bw = BodyWriter::new(w, control, 0, Ctx::Packet);
        write_function(c, bw, "void", "control", &[])?;
    }
    if let Some(handler) = &w.scu.on_parser_error {
        c.line("// on parser_error");
        let bw = BodyWriter::new(w, handler, 0, Ctx::Packet);
        write_function(c, bw, "void", "on_parser_error", &[])?;
    }
    Ok(())
}
