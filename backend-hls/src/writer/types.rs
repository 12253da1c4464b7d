//! Headers, structs and arrays as C++ structs, with their zeroing constructors, their builders
//! (`make_*`, for struct literals) and their packing into bit records (`pack_*`/`unpack_*`).
//!
//! Packing: a header's wire bits put its first field in the most significant bits (big-endian, as
//! on the wire); a struct or array record puts its first field or element in the LEAST significant
//! bits (the layout of `scenic_scu_abi::control` records and Vitis `aggregate`). Every member is
//! initialised by the constructor; an invalid header's fields are zero.

use super::{Code, ScuWriter};
use crate::analysis::{reachable_functions, scu_bodies};
use crate::conv;
use crate::Error;
use scenic_ir::types::Type;
use scenic_ir::{Module, Scu};
use scenic_scu_abi::control::type_bits;
use std::collections::BTreeSet;

/// Every aggregate type (struct, array) the kernel uses, dependencies first; `extra` are types the
/// kernel holds without any body naming them (a cc's state, [`ScuWriter::state_types`]).
pub fn aggregates(module: &Module, scu: &Scu, extra: &[Type]) -> Vec<Type> {
    let mut roots: Vec<Type> = extra.to_vec();
    let mut bodies = scu_bodies(scu);
    let funcs = reachable_functions(module, scu);
    bodies.extend(
        funcs
            .iter()
            .filter_map(|f| module.functions.get(*f).map(|f| &f.body)),
    );
    for body in bodies {
        roots.extend(body.locals.values().map(|l| l.ty.clone()));
        roots.extend(body.types.values().cloned());
    }
    roots.extend(scu.maps.values().map(|m| m.value.clone()));
    roots.extend(scu.meta.map(Type::Struct));
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for ty in roots {
        visit(module, &ty, &mut seen, &mut order);
    }
    order
}

fn visit(module: &Module, ty: &Type, seen: &mut BTreeSet<String>, order: &mut Vec<Type>) {
    match ty {
        Type::Struct(s) => {
            if !seen.insert(ty.to_string()) {
                return;
            }
            for f in module.structs.get(*s).map_or(&[][..], |l| &l.fields) {
                visit(module, &f.ty, seen, order);
            }
            order.push(ty.clone());
        }
        Type::Array(elem, _) => {
            if !seen.insert(ty.to_string()) {
                return;
            }
            visit(module, elem, seen, order);
            order.push(ty.clone());
        }
        Type::Tuple(items) => items.iter().for_each(|t| visit(module, t, seen, order)),
        _ => {}
    }
}

impl ScuWriter<'_> {
    /// The C++ type of an IR type (`void` for `Unit`; tuples are never materialised).
    pub fn ty(&self, ty: &Type) -> String {
        match ty {
            Type::Header(h) => self.names.hdr[*h].clone(),
            Type::Struct(s) => self.names.st[*s].clone(),
            Type::Array(..) => self.names.array(ty),
            Type::Unit | Type::Tuple(_) => "void".into(),
            scalar => conv::scalar(self.module, scalar).unwrap_or_else(|| "void".into()),
        }
    }

    /// The zero value of a type.
    pub fn zero(&self, ty: &Type) -> String {
        conv::zero_scalar(self.module, ty).unwrap_or_else(|| format!("{}()", self.ty(ty)))
    }

    /// Bits of a type's record.
    pub fn record_bits(&self, ty: &Type) -> u32 {
        type_bits(self.module, self.info, ty).max(1)
    }

    /// A value as its record bits (`ap_uint<record_bits>`).
    pub fn pack(&self, ty: &Type, x: &str) -> String {
        match ty {
            Type::Struct(_) | Type::Array(..) => format!("pack_{}({x})", self.ty(ty)),
            Type::Header(h) => format!("pack_{}({x})", self.names.hdr[*h]),
            _ => format!("scn::bits({x})"),
        }
    }

    /// A value from its record bits.
    pub fn unpack(&self, ty: &Type, raw: &str) -> String {
        match ty {
            Type::Struct(_) | Type::Array(..) => format!("unpack_{}({raw})", self.ty(ty)),
            Type::Bool => format!("bool(({raw}) != 0)"),
            Type::Int(n) => format!("ap_int<{n}>({raw})"),
            other => format!("{}({raw})", self.ty(other)),
        }
    }
}

/// Writes every header, struct and array type of the kernel.
pub fn write(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- types ---------------------------------------------------------------------");
    c.blank();
    let mut headers: BTreeSet<scenic_ir::HeaderId> = BTreeSet::new();
    headers.extend(w.scu.instances.values().map(|i| i.header));
    for ty in aggregates(w.module, w.scu, &w.state_types) {
        if let Type::Header(h) = ty {
            headers.insert(h);
        }
    }
    for h in headers {
        write_header(w, c, h);
    }
    for ty in aggregates(w.module, w.scu, &w.state_types) {
        match &ty {
            Type::Struct(s) => write_struct(w, c, *s),
            Type::Array(elem, n) => write_array(w, c, &ty, elem, *n),
            _ => {}
        }
    }
    Ok(())
}

fn write_header(w: &ScuWriter<'_>, c: &mut Code, h: scenic_ir::HeaderId) {
    let layout = &w.module.headers[h];
    let name = &w.names.hdr[h];
    let fields = &w.names.hdr_fields[h];
    let bits = layout.bits;
    c.line(format!("// header {} ({} bytes)", layout.name, bits / 8));
    c.open(format!("struct {name}"));
    c.line("bool valid;");
    let mut init = vec!["valid(false)".to_string()];
    for (f, n) in layout.fields.iter().zip(fields) {
        c.line(format!("{} {n};", w.ty(&f.ty)));
        init.push(format!("{n}(0)"));
    }
    c.line(format!("{name}() : {} {{}}", init.join(", ")));
    c.close(";");
    c.line("// Wire bits: the first field in the most significant bits.");
    c.open(format!(
        "static inline {name} unpack_{name}(const ap_uint<{bits}>& b)"
    ));
    c.line(format!("{name} h;"));
    c.line("h.valid = true;");
    for (f, n) in layout.fields.iter().zip(fields) {
        let wd = conv::width(w.module, &f.ty).unwrap_or(1);
        let hi = bits - 1 - f.offset;
        let lo = bits - f.offset - wd;
        let raw = format!("ap_uint<{wd}>(b.range({hi}, {lo}))");
        c.line(format!("h.{n} = {};", w.unpack(&f.ty, &raw)));
    }
    c.line("return h;");
    c.close("");
    c.open(format!(
        "static inline ap_uint<{bits}> pack_{name}(const {name}& h)"
    ));
    c.line(format!("ap_uint<{bits}> b = 0;"));
    for (f, n) in layout.fields.iter().zip(fields) {
        let wd = conv::width(w.module, &f.ty).unwrap_or(1);
        let hi = bits - 1 - f.offset;
        let lo = bits - f.offset - wd;
        c.line(format!("b.range({hi}, {lo}) = scn::bits(h.{n});"));
    }
    c.line("return b;");
    c.close("");
    let params: Vec<String> = layout
        .fields
        .iter()
        .zip(fields)
        .map(|(f, n)| format!("const {}& {n}", w.ty(&f.ty)))
        .collect();
    c.open(format!(
        "static inline {name} make_{name}({})",
        params.join(", ")
    ));
    c.line(format!("{name} h;"));
    c.line("h.valid = true;");
    for n in fields {
        c.line(format!("h.{n} = {n};"));
    }
    c.line("return h;");
    c.close("");
    c.blank();
}

fn write_struct(w: &ScuWriter<'_>, c: &mut Code, s: scenic_ir::StructId) {
    let layout = &w.module.structs[s];
    let name = &w.names.st[s];
    let fields = &w.names.st_fields[s];
    c.line(format!("// struct {}", layout.name));
    c.open(format!("struct {name}"));
    let mut init = Vec::new();
    for (f, n) in layout.fields.iter().zip(fields) {
        c.line(format!("{} {n};", w.ty(&f.ty)));
        init.push(match conv::zero_scalar(w.module, &f.ty) {
            Some(z) => format!("{n}({z})"),
            None => format!("{n}()"),
        });
    }
    if init.is_empty() {
        c.line(format!("{name}() {{}}"));
    } else {
        c.line(format!("{name}() : {} {{}}", init.join(", ")));
    }
    c.close(";");
    let params: Vec<String> = layout
        .fields
        .iter()
        .zip(fields)
        .map(|(f, n)| format!("const {}& {n}", w.ty(&f.ty)))
        .collect();
    c.open(format!(
        "static inline {name} make_{name}({})",
        params.join(", ")
    ));
    c.line(format!("{name} v;"));
    for n in fields {
        c.line(format!("v.{n} = {n};"));
    }
    c.line("return v;");
    c.close("");
    let ty = Type::Struct(s);
    let bits = w.record_bits(&ty);
    let parts: Vec<(String, Type)> = layout
        .fields
        .iter()
        .zip(fields)
        .map(|(f, n)| (format!("v.{n}"), f.ty.clone()))
        .collect();
    write_records(w, c, name, bits, &parts);
    c.blank();
}

fn write_array(w: &ScuWriter<'_>, c: &mut Code, ty: &Type, elem: &Type, n: u32) {
    let name = w.names.array(ty);
    let et = w.ty(elem);
    c.line(format!("// {ty}"));
    c.open(format!("struct {name}"));
    c.line(format!("{et} e[{n}];"));
    c.open(format!("{name}()"));
    c.open(format!("for (int i = 0; i < {n}; ++i)"));
    c.line(format!("e[i] = {};", w.zero(elem)));
    c.close("");
    c.close("");
    c.close(";");
    let params: Vec<String> = (0..n).map(|i| format!("const {et}& e{i}")).collect();
    c.open(format!(
        "static inline {name} make_{name}({})",
        params.join(", ")
    ));
    c.line(format!("{name} v;"));
    for i in 0..n {
        c.line(format!("v.e[{i}] = e{i};"));
    }
    c.line("return v;");
    c.close("");
    let bits = w.record_bits(ty);
    let parts: Vec<(String, Type)> = (0..n)
        .map(|i| (format!("v.e[{i}]"), elem.clone()))
        .collect();
    write_records(w, c, &name, bits, &parts);
    c.blank();
}

/// `pack_T`/`unpack_T` for a struct or array whose parts are `parts` (first part lowest).
fn write_records(w: &ScuWriter<'_>, c: &mut Code, name: &str, bits: u32, parts: &[(String, Type)]) {
    c.open(format!(
        "static inline ap_uint<{bits}> pack_{name}(const {name}& v)"
    ));
    c.line(format!("ap_uint<{bits}> b = 0;"));
    let mut lo = 0u32;
    for (p, t) in parts {
        let pw = w.record_bits(t);
        c.line(format!(
            "b.range({}, {lo}) = {};",
            lo + pw - 1,
            w.pack(t, p)
        ));
        lo += pw;
    }
    c.line("return b;");
    c.close("");
    c.open(format!(
        "static inline {name} unpack_{name}(const ap_uint<{bits}>& b)"
    ));
    c.line(format!("{name} v;"));
    let mut lo = 0u32;
    for (p, t) in parts {
        let pw = w.record_bits(t);
        let raw = format!("ap_uint<{pw}>(b.range({}, {lo}))", lo + pw - 1);
        c.line(format!("{p} = {};", w.unpack(t, &raw)));
        lo += pw;
    }
    c.line("return v;");
    c.close("");
}
