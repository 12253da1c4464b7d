//! Helpers shared by the backend's tests: lowering a program, writing it, rendering its errors the
//! way `scenicc emit` does (codespan-reporting through the frontend's renderer).

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use scenic_backend_p4::{write_p4, Error, Errors, Options, Target};
use scenic_frontend::diag::render::SourceMap;
use scenic_frontend::diag::{Code, Diagnostic, Loc};
use scenic_frontend::span::Span as FileSpan;
use scenic_frontend::{CheckOptions, Session};
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every example program, by stem, sorted.
pub fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("examples"))
        .expect("examples directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sn"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// Checks and lowers a program given by its path relative to the repository root (the name in
/// messages stays relative, so goldens do not depend on where the repository is).
pub fn lower(relative: &str) -> (scenic_ir::Module, SourceMap) {
    let text = std::fs::read_to_string(root().join(relative)).expect("readable program");
    if relative.ends_with(".p4") {
        return read_p4(relative, &text);
    }
    lower_text(relative, &text)
}

/// Reads a P4 program through scenicc's P4 reader; panics with the diagnostics if it cannot.
pub fn read_p4(name: &str, text: &str) -> (scenic_ir::Module, SourceMap) {
    let (report, module) = scenic_lower::p4::compile_source(name, text);
    match module {
        Some(m) if report.error_count() == 0 => (m, report.sources),
        _ => panic!("{name} has errors:\n{}", report.render_plain()),
    }
}

/// Checks and lowers program text.
pub fn lower_text(name: &str, text: &str) -> (scenic_ir::Module, SourceMap) {
    let mut session = Session::new();
    let file = session.add_source(name, text);
    let report = scenic_lower::check::check(&mut session, CheckOptions::default());
    assert_eq!(
        report.error_count(),
        0,
        "{name} has errors:\n{}",
        report.render_plain()
    );
    let module = scenic_lower::lower_file(session.db(), file).expect("program lowers");
    (module, report.sources)
}

/// Writes a module for a target.
pub fn emit(module: &scenic_ir::Module, target: Target) -> Result<String, Errors> {
    let info = scenic_ir::Validator::new()
        .validate(module)
        .expect("valid IR");
    write_p4(module, &info, &Options::new(target))
}

/// The errors rendered as `scenicc emit` prints them (without colour).
pub fn render(errors: &Errors, sources: &SourceMap) -> String {
    let mut diags = Vec::new();
    let mut plain = String::new();
    for err in &errors.0 {
        match diagnostic(err) {
            Some(d) => diags.push(d),
            None => plain.push_str(&format!("error: {err}\n")),
        }
    }
    plain + &scenic_frontend::diag::render::to_plain_string(&diags, sources)
}

fn diagnostic(err: &Error) -> Option<Diagnostic> {
    let loc = |s: scenic_ir::Span| Loc::File {
        file: scenic_frontend::diag::FileId(s.file.0),
        span: FileSpan { lo: s.lo, hi: s.hi },
    };
    let code = Code {
        id: err.code(),
        title: "not expressible on this target",
    };
    let mut d = Diagnostic::at(code, loc(err.span()?), err.to_string()).label(err.label());
    for (span, label) in err.related() {
        d = d.secondary_at(loc(*span), label.clone());
    }
    for note in err.notes() {
        d = d.note(note);
    }
    for help in err.help() {
        d = d.help(help);
    }
    Some(d)
}
