//! Statements → C++ statements.
//!
//! Control flow maps one to one (`if`, `match` as an `if`/`else if` chain over the scrutinee held
//! in temporaries, `for` as a C++ loop with `#pragma HLS UNROLL`); `return` leaves the function;
//! `drop()` marks the packet and leaves. An assignment evaluates its value first, then the
//! indices of its place, root first, as the interpreter does; a write into a header (or a header
//! value) that is invalid is skipped, which keeps "invalid ⇒ all fields zero".

use super::body::BodyWriter;
use super::state::{DEST_HOST, DEST_SCU};
use super::Code;
use crate::Error;
use cranelift_entity::EntityRef;
use scenic_ir::body::{Block, Case, Expr, NotifyTarget, Pattern, Place, Stmt};
use scenic_ir::entities::*;
use scenic_ir::types::Type;
use scenic_ir::Span;

impl BodyWriter<'_, '_> {
    /// Writes a block's statements.
    pub fn block(&mut self, block: &Block) -> Result<(), Error> {
        scenic_ir::stack::grow(|| {
            for (i, stmt) in block.stmts.iter().enumerate() {
                let span = block.spans.get(i).copied().unwrap_or_default();
                self.source_comment(span);
                self.stmt(stmt, span)?;
            }
            Ok(())
        })
    }

    fn nested(&mut self, head: &str, block: &Block) -> Result<(), Error> {
        self.c.open(head);
        self.block(block)?;
        self.c.close("");
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt, span: Span) -> Result<(), Error> {
        match stmt {
            Stmt::Let(l, e) => {
                let v = self.expr(*e)?;
                let name = self.locals[*l].clone();
                self.c.line(format!("{name} = {v};"));
            }
            Stmt::Assign(place, e) => self.assign(place, *e)?,
            Stmt::Eval(e) => {
                let v = self.expr(*e)?;
                if !v.is_empty() {
                    // The value is discarded (`let _ = m.insert(k, v);`): its effect happened.
                    self.c.line(format!("(void)({v});"));
                }
            }
            Stmt::If(cond, then, otherwise) => self.if_stmt(*cond, then, otherwise)?,
            Stmt::Switch { on, cases, default } => self.switch(*on, cases, default)?,
            Stmt::For {
                var,
                first,
                last,
                body,
            } => self.for_stmt(*var, *first, *last, body)?,
            Stmt::Return(value) => match value {
                Some(e) => {
                    let v = self.expr(*e)?;
                    self.c.line(format!("return {v};"));
                }
                None => self.c.line("return;"),
            },
            Stmt::Block(b) => self.nested("", b)?,
            Stmt::Drop => {
                self.c.line("pk_drop(pk);");
                let ret = self.halt_return.clone();
                self.c.line(ret);
            }
            Stmt::ToHost => self
                .c
                .line(format!("pk_copy(pk, ap_uint<16>({DEST_HOST:#x}));")),
            Stmt::ToNetwork(port) => {
                let p = self.expr(*port)?;
                self.c.line(format!("pk_copy(pk, ap_uint<16>({p}));"));
            }
            Stmt::ToScu(s) => self.c.line(format!(
                "pk_copy(pk, ap_uint<16>({:#x}));  // scu {}",
                DEST_SCU + s.index() as u32,
                self.w.module.scus[*s].name
            )),
            Stmt::Notify(target, e) => {
                let v = self.expr(*e)?;
                let arm = *target == NotifyTarget::Arm;
                self.c.line(format!(
                    "pk_notify(pk, {arm}, ap_uint<32>(scn::bits({v})));"
                ));
            }
            Stmt::Count(counter, index) => self.count(*counter, *index)?,
            Stmt::SetValid(inst, index, valid) => self.set_valid(*inst, *index, *valid)?,
            Stmt::Extract(inst) => super::parser::extract(self, *inst)?,
            Stmt::Emit(inst) => super::deparser::emit(self, *inst),
            Stmt::Pass(_) | Stmt::Push(..) => super::stream::word_stmt(self, stmt, span)?,
            Stmt::Restart(t) => match &self.cc {
                Some(cc) => self.c.line(cc.restart(*t)),
                None => return Err(self.w.unsupported("congestion-controller timers", span)),
            },
        }
        Ok(())
    }

    /// `if (c) { then } else { otherwise }`, without the `else` when `otherwise` is empty.
    fn if_stmt(&mut self, cond: ExprId, then: &Block, otherwise: &Block) -> Result<(), Error> {
        let c = self.expr(cond)?;
        self.c.open(format!("if ({c})"));
        self.block(then)?;
        // An `else if` chain is written as one (`} else if (c) {`), so that N arms are not nested N
        // deep: the C++ would be quadratic in indentation and past the compilers' bracket depth.
        // An arm whose condition needs statements first opens an `else` block for them.
        let mut opened = 0usize;
        let mut rest = otherwise;
        while let Some((cond, then, otherwise)) = else_if(rest) {
            let (c, setup) = self.expr_apart(cond)?;
            if setup.is_empty() {
                self.c.close(&format!(" else if ({c}) {{"));
            } else {
                self.c.close(" else {");
                self.c.append(setup);
                self.c.open(format!("if ({c})"));
                opened += 1;
            }
            // The arm's own source line, which `block` would have written before a nested `if`.
            self.source_comment(rest.spans.first().copied().unwrap_or_default());
            self.block(then)?;
            rest = otherwise;
        }
        if !rest.stmts.is_empty() {
            self.c.close(" else {");
            self.block(rest)?;
        }
        for _ in 0..=opened {
            self.c.close("");
        }
        Ok(())
    }

    /// An expression written apart: its text, and the statements it needs first (at the current
    /// indentation), which [`Self::expr`] would have written into the body.
    fn expr_apart(&mut self, e: ExprId) -> Result<(String, Code), Error> {
        let level = self.c.level();
        let body = std::mem::replace(&mut self.c, Code::at(level));
        let text = self.expr(e);
        let setup = std::mem::replace(&mut self.c, body);
        Ok((text?, setup))
    }

    /// `for var in first..=last`: a fully unrolled C++ loop that sets `var` on each iteration.
    fn for_stmt(&mut self, var: LocalId, first: i64, last: i64, body: &Block) -> Result<(), Error> {
        let i = self.fresh("i");
        let name = self.locals[var].clone();
        let ty = self.w.ty(&self.body.locals[var].ty);
        self.c.open(format!(
            "for (long long {i} = {first}LL; {i} <= {last}LL; ++{i})"
        ));
        self.c.line("#pragma HLS UNROLL");
        self.c.line(format!("{name} = {ty}({i});"));
        self.block(body)?;
        self.c.close("");
        Ok(())
    }

    /// Counts the packet in cell `index` (0 when none is given) of `counter`.
    fn count(&mut self, counter: CounterId, index: Option<ExprId>) -> Result<(), Error> {
        let i = match index {
            Some(e) => self.expr(e)?,
            None => "0".into(),
        };
        self.c.line(format!(
            "st.{}.count(ap_uint<32>({i}), ap_uint<64>(pk.len));",
            self.w.names.counter[counter]
        ));
        Ok(())
    }

    /// `set_valid()` or `set_invalid()` of header instance `inst` (element `index` of a stack).
    fn set_valid(&mut self, inst: InstId, index: Option<ExprId>, valid: bool) -> Result<(), Error> {
        let i = match index {
            Some(e) => Some(self.expr(e)?),
            None => None,
        };
        let h = self.inst_ref(inst, i);
        let ty = &self.w.names.hdr[self.w.scu.instances[inst].header];
        // set_valid() makes an invalid header valid with zero fields and leaves a valid one
        // unchanged (language.md §3.6); set_invalid() zeroes it (an invalid header keeps zeros).
        if valid {
            self.c.open(format!("if (!{h}.valid)"));
            self.c.line(format!("{h} = {ty}();"));
            self.c.line(format!("{h}.valid = true;"));
            self.c.close("");
        } else {
            self.c.line(format!("{h} = {ty}();"));
        }
        Ok(())
    }

    fn assign(&mut self, place: &Place, value: ExprId) -> Result<(), Error> {
        let v = self.expr(value)?;
        let (lvalue, guards, _) = self.place(place)?;
        if guards.is_empty() {
            self.c.line(format!("{lvalue} = {v};"));
        } else {
            self.c.open(format!("if ({})", guards.join(" && ")));
            self.c.line(format!("{lvalue} = {v};"));
            self.c.close("");
        }
        Ok(())
    }

    /// A place as an lvalue, the validity conditions its write needs, and its type.
    fn place(&mut self, place: &Place) -> Result<(String, Vec<String>, Type), Error> {
        let w = self.w;
        Ok(match place {
            Place::Local(l) => (
                self.locals[*l].clone(),
                vec![],
                self.body.locals[*l].ty.clone(),
            ),
            Place::Csr(c) => (
                format!("st.{}", w.names.csr[*c]),
                vec![],
                w.scu.csrs[*c].ty.clone(),
            ),
            Place::Meta(f) => {
                let m = w
                    .scu
                    .meta
                    .ok_or_else(|| w.unsupported("`meta` without a meta block", w.scu.span))?;
                let field = &w.module.structs[m].fields[*f as usize];
                let name = &w.names.st_fields[m][*f as usize];
                (format!("pk.meta.{name}"), vec![], field.ty.clone())
            }
            Place::HeaderField { inst, index, field } => {
                let i = self.index(*index)?;
                let h = self.inst_ref(*inst, i);
                let hdr = w.scu.instances[*inst].header;
                let fname = &w.names.hdr_fields[hdr][*field as usize];
                let fty = w.module.headers[hdr].fields[*field as usize].ty.clone();
                (format!("{h}.{fname}"), vec![format!("{h}.valid")], fty)
            }
            Place::Header { inst, index } => {
                let i = self.index(*index)?;
                let h = self.inst_ref(*inst, i);
                (h, vec![], Type::Header(w.scu.instances[*inst].header))
            }
            Place::CcState(s) => match &self.cc {
                Some(cc) => (cc.state(*s), vec![], cc.state_ty(*s)),
                None => return Err(w.unsupported("congestion-controller state", w.scu.span)),
            },
            Place::Field(base, f) => {
                let (b, mut guards, ty) = self.place(base)?;
                match ty {
                    Type::Struct(s) => {
                        let fty = w.module.structs[s].fields[*f as usize].ty.clone();
                        (
                            format!("{b}.{}", w.names.st_fields[s][*f as usize]),
                            guards,
                            fty,
                        )
                    }
                    Type::Header(h) => {
                        guards.push(format!("{b}.valid"));
                        let fty = w.module.headers[h].fields[*f as usize].ty.clone();
                        (
                            format!("{b}.{}", w.names.hdr_fields[h][*f as usize]),
                            guards,
                            fty,
                        )
                    }
                    _ => return Err(w.unsupported("a field of a non-struct place", w.scu.span)),
                }
            }
            Place::Index(base, e) => {
                let (b, guards, ty) = self.place(base)?;
                let i = self.expr(*e)?;
                match ty {
                    Type::Array(elem, _) => (format!("{b}.e[{i}]"), guards, *elem),
                    _ => return Err(w.unsupported("an index of a non-array place", w.scu.span)),
                }
            }
            Place::Slice(base, hi, lo) => {
                let (b, guards, _) = self.place(base)?;
                (
                    format!("{b}.range({hi}, {lo})"),
                    guards,
                    Type::Bits(hi - lo + 1),
                )
            }
        })
    }

    fn index(&mut self, index: Option<ExprId>) -> Result<Option<String>, Error> {
        index.map(|e| self.expr(e)).transpose()
    }

    /// A `match`: the scrutinee (or each element of a tuple scrutinee) once, then the arms in
    /// order as an `if`/`else if` chain.
    fn switch(&mut self, on: ExprId, cases: &[Case], default: &Block) -> Result<(), Error> {
        let values = self.scrutinee(on)?;
        let mut first = true;
        for case in cases {
            let cond = self.case_condition(on, &values, &case.patterns);
            if first {
                self.c.open(format!("if ({cond})"));
                first = false;
            } else {
                self.c.close(&format!(" else if ({cond}) {{"));
            }
            self.block(&case.body)?;
        }
        if first {
            // No arms: the default runs unconditionally.
            return self.nested("", default);
        }
        if default.stmts.is_empty() {
            self.c.close("");
        } else {
            self.c.close(" else {");
            self.block(default)?;
            self.c.close("");
        }
        Ok(())
    }

    /// The scrutinee's value(s), each evaluated once into a temporary (or a local).
    pub fn scrutinee(&mut self, on: ExprId) -> Result<Vec<(String, Type)>, Error> {
        let items: Vec<ExprId> = match &self.body.exprs[on] {
            Expr::Tuple(items) => items.clone(),
            _ => vec![on],
        };
        let mut out = Vec::new();
        for item in items {
            let v = self.expr(item)?;
            let ty = self.ty_of(item).clone();
            let simple = matches!(self.body.exprs[item], Expr::Local(_) | Expr::Const(_))
                || (self.effectful[item] && !v.contains('('));
            if simple {
                out.push((v, ty));
            } else {
                let t = self.fresh("s");
                self.c.line(format!("{} {t} = {v};", self.w.ty(&ty)));
                out.push((t, ty));
            }
        }
        Ok(out)
    }

    /// Whether any of `patterns` matches the scrutinee values.
    pub fn case_condition(
        &self,
        on: ExprId,
        values: &[(String, Type)],
        patterns: &[Pattern],
    ) -> String {
        let tuple = matches!(self.body.exprs[on], Expr::Tuple(_));
        let alts: Vec<String> = patterns
            .iter()
            .map(|p| match (tuple, p) {
                (true, Pattern::Tuple(ps)) => {
                    let parts: Vec<String> = ps
                        .iter()
                        .zip(values)
                        .map(|(p, (v, t))| super::parser::pattern(self.w, p, t, v))
                        .filter(|c| c != "true")
                        .collect();
                    if parts.is_empty() {
                        "true".into()
                    } else {
                        parts.join(" && ")
                    }
                }
                (true, Pattern::Any) => "true".into(),
                (true, _) => "false".into(),
                (false, p) => values.first().map_or("false".into(), |(v, t)| {
                    super::parser::pattern(self.w, p, t, v)
                }),
            })
            .collect();
        if alts.len() == 1 {
            alts.into_iter().next().unwrap_or_default()
        } else {
            alts.iter()
                .map(|a| format!("({a})"))
                .collect::<Vec<_>>()
                .join(" || ")
        }
    }
}

/// The `if` that is the whole `else` block of another: an `else if` arm.
fn else_if(block: &Block) -> Option<(ExprId, &Block, &Block)> {
    match block.stmts.as_slice() {
        [Stmt::If(cond, then, otherwise)] => Some((*cond, then, otherwise)),
        _ => None,
    }
}
