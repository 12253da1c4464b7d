//! The module index: every name a file defines, where, and what kind of thing it is.
//!
//! The index is built from the chunk ASTs alone (no types), so it is cheap and only changes when a
//! definition is added, removed or renamed: editing a function body leaves it equal, and salsa reuses
//! everything that depends on it. Spans are chunk-relative and paired with the chunk index.
//! Imports are recorded but not followed here; `lookup` follows them lazily, which keeps modules
//! that import each other free of query cycles.

use crate::ast::*;
use crate::db::{chunk_ast, file_split, ChunkKey, SourceFile};
use crate::diag::{codes, Diagnostic, Loc};
use crate::parse::ChunkAst;
use crate::span::Span;
use crate::split::ChunkKind;
use indexmap::IndexMap;
use std::sync::Arc;

/// What a top-level name defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    /// `const`.
    Const,
    /// `header`.
    Header,
    /// `struct`.
    Struct,
    /// `enum`.
    Enum,
    /// `fn`.
    Fn,
    /// `scu`.
    Scu,
    /// `cc`.
    Cc,
}

/// A top-level definition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ItemEntry {
    /// The chunk that defines it.
    pub chunk: u32,
    /// What it is.
    pub kind: DefKind,
    /// Where its name is written (chunk-relative).
    pub name_span: Span,
}

/// What a member name defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemberDefKind {
    /// `csr`.
    Csr,
    /// A header instance or stack in `headers { }`.
    HeaderInst,
    /// `table`.
    Table,
    /// `action`.
    Action,
    /// `map`.
    Map,
    /// `counter`.
    Counter,
    /// `meter`.
    Meter,
    /// `out`.
    Out,
    /// `fn`.
    Fn,
    /// `const`.
    Const,
    /// `param`.
    Param,
    /// `state` (congestion controllers).
    State,
    /// `on timer NAME every ...`.
    Timer,
    /// `on bytes NAME every ...`.
    ByteCounter,
}

/// A member definition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemberEntry {
    /// The chunk that defines it.
    pub chunk: u32,
    /// What it is.
    pub kind: MemberDefKind,
    /// Where its name is written (chunk-relative).
    pub name_span: Span,
    /// Position within the chunk, for names that share one (header instances).
    pub position: u32,
}

/// The parts of an `scu`/`cc` that are not named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    /// `headers { }`.
    pub headers: Option<u32>,
    /// `meta { }`.
    pub meta: Option<u32>,
    /// `errors { }`.
    pub errors: Option<u32>,
    /// `parser { }`.
    pub parser: Option<u32>,
    /// `control { }`.
    pub control: Option<u32>,
    /// `deparser { }`.
    pub deparser: Option<u32>,
    /// `stream(...) { }`.
    pub stream: Option<u32>,
    /// `output ...;`.
    pub output: Option<u32>,
    /// `on EVENT { }` handlers by event name (`timer`/`bytes` handlers by their own name).
    pub handlers: IndexMap<String, u32>,
    /// `every T { }` blocks.
    pub every: Vec<u32>,
}

/// An `scu` or `cc` and its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    /// The head chunk.
    pub head: u32,
    /// `cc` rather than `scu`.
    pub is_cc: bool,
    /// Its name.
    pub name: String,
    /// Named members.
    pub members: IndexMap<String, MemberEntry>,
    /// Unnamed parts.
    pub parts: Parts,
    /// Every member chunk, in order.
    pub chunks: Vec<u32>,
    /// Whether some member could not be parsed: then what is missing or unused is unknown.
    pub broken: bool,
    /// Names the members that could not be parsed would probably have declared (see
    /// [`guessed_names`]); references to them are not reported again as unknown names.
    pub broken_names: Vec<String>,
}

/// A `use` declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UseEntry {
    /// The chunk of the `use`.
    pub chunk: u32,
    /// The declaration.
    pub decl: UseDecl,
}

/// Everything a file defines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleIndex {
    /// Top-level definitions.
    pub items: IndexMap<String, ItemEntry>,
    /// `use` declarations.
    pub uses: Vec<UseEntry>,
    /// `scu` and `cc` items.
    pub containers: Vec<Container>,
    /// Which container each member chunk belongs to.
    pub container_of: IndexMap<u32, usize>,
    /// Duplicate definitions (E0102), with chunk locations.
    pub diagnostics: Vec<Diagnostic>,
    /// Names the top-level items that could not be parsed would probably have declared.
    pub broken_names: Vec<String>,
}

impl ModuleIndex {
    /// The container that member chunk `chunk` belongs to.
    pub fn container(&self, chunk: u32) -> Option<&Container> {
        self.container_of
            .get(&chunk)
            .and_then(|i| self.containers.get(*i))
    }

    /// The container whose head is chunk `head`.
    pub fn container_by_head(&self, head: u32) -> Option<&Container> {
        self.containers.iter().find(|c| c.head == head)
    }
}

/// Builds the index of `file`.
#[salsa::tracked(returns(clone))]
pub fn module_index(db: &dyn salsa::Database, file: SourceFile) -> Arc<ModuleIndex> {
    let split = file_split(db, file);
    let mut builder = IndexBuilder {
        file,
        db,
        index: ModuleIndex::default(),
    };
    for (i, chunk) in split.chunks.iter().enumerate() {
        let i = i as u32;
        let parsed = chunk_ast(db, ChunkKey::new(db, file, i));
        let text = || file.text(db).get(chunk.span.range()).unwrap_or("");
        match (&parsed.ast, chunk.kind) {
            (ChunkAst::Item(item), _) if matches!(item.kind, ItemKind::Error) => {
                builder.index.broken_names.extend(guessed_names(text()));
            }
            (ChunkAst::Item(item), _) => builder.item(i, item),
            (ChunkAst::Member(member), ChunkKind::Member { parent }) => {
                builder.member(i, parent, member);
                if matches!(member.kind, MemberKind::Error) {
                    builder.broken_member(parent, text());
                }
            }
            _ => {}
        }
    }
    Arc::new(builder.index)
}

struct IndexBuilder<'a> {
    file: SourceFile,
    db: &'a dyn salsa::Database,
    index: ModuleIndex,
}

impl IndexBuilder<'_> {
    fn loc(&self, chunk: u32, span: Span) -> Loc {
        Loc::Chunk {
            file: self.file.id(self.db),
            chunk,
            span,
        }
    }

    fn duplicate(&mut self, name: &Ident, chunk: u32, first: (u32, Span), what: &str) {
        let diag = Diagnostic::at(
            codes::E0102,
            self.loc(chunk, name.span),
            format!("the {what} `{}` is defined more than once", name.name),
        )
        .label(format!("`{}` redefined here", name.name))
        .secondary_at(self.loc(first.0, first.1), "first defined here")
        .help("rename one of them");
        self.index.diagnostics.push(diag);
    }

    fn item(&mut self, chunk: u32, item: &Item) {
        let (name, kind) = match &item.kind {
            ItemKind::Use(decl) => {
                let decl = super::normalize_use(self.db, self.file, decl);
                self.index.uses.push(UseEntry { chunk, decl });
                return;
            }
            ItemKind::Const(c) => (&c.name, DefKind::Const),
            ItemKind::Header(r) => (&r.name, DefKind::Header),
            ItemKind::Struct(r) => (&r.name, DefKind::Struct),
            ItemKind::Enum(e) => (&e.name, DefKind::Enum),
            ItemKind::Fn(f) => (&f.name, DefKind::Fn),
            ItemKind::Scu(s) => (&s.name, DefKind::Scu),
            ItemKind::Cc(c) => (&c.name, DefKind::Cc),
            ItemKind::Error => return,
        };
        if matches!(kind, DefKind::Scu | DefKind::Cc) {
            self.index.containers.push(Container {
                head: chunk,
                is_cc: kind == DefKind::Cc,
                name: name.name.clone(),
                members: IndexMap::new(),
                parts: Parts::default(),
                chunks: Vec::new(),
                broken: false,
                broken_names: Vec::new(),
            });
        }
        if let Some(first) = self.index.items.get(&name.name) {
            let first = (first.chunk, first.name_span);
            self.duplicate(name, chunk, first, "item");
            return;
        }
        self.index.items.insert(
            name.name.clone(),
            ItemEntry {
                chunk,
                kind,
                name_span: name.span,
            },
        );
    }

    fn member(&mut self, chunk: u32, parent: u32, member: &Member) {
        let Some(ci) = self.index.containers.iter().position(|c| c.head == parent) else {
            return;
        };
        self.index.container_of.insert(chunk, ci);
        self.index.containers[ci].chunks.push(chunk);
        let named: Vec<(&Ident, MemberDefKind, u32)> = match &member.kind {
            MemberKind::Csr(d) => vec![(&d.name, MemberDefKind::Csr, 0)],
            MemberKind::Headers(fields) => fields
                .iter()
                .enumerate()
                .map(|(i, f)| (&f.name, MemberDefKind::HeaderInst, i as u32))
                .collect(),
            MemberKind::Table(t) => vec![(&t.name, MemberDefKind::Table, 0)],
            MemberKind::Action(a) => vec![(&a.name, MemberDefKind::Action, 0)],
            MemberKind::Map(m) => vec![(&m.name, MemberDefKind::Map, 0)],
            MemberKind::Counter(c) => vec![(&c.name, MemberDefKind::Counter, 0)],
            MemberKind::Meter(m) => vec![(&m.name, MemberDefKind::Meter, 0)],
            MemberKind::Out(o) => vec![(&o.name, MemberDefKind::Out, 0)],
            MemberKind::Fn(f) => vec![(&f.name, MemberDefKind::Fn, 0)],
            MemberKind::Const(c) => vec![(&c.name, MemberDefKind::Const, 0)],
            MemberKind::Param(p) => vec![(&p.name, MemberDefKind::Param, 0)],
            MemberKind::State(s) => vec![(&s.name, MemberDefKind::State, 0)],
            MemberKind::On(HandlerDecl {
                event: Event::Periodic { kind, name, .. },
                ..
            }) => {
                let def = if kind.name == "bytes" {
                    MemberDefKind::ByteCounter
                } else {
                    MemberDefKind::Timer
                };
                vec![(name, def, 0)]
            }
            _ => Vec::new(),
        };
        for (name, kind, position) in named {
            self.add_member(ci, chunk, name, kind, position);
        }
        self.part(ci, chunk, member);
    }

    /// Records a member of the container headed by chunk `parent` that could not be parsed.
    fn broken_member(&mut self, parent: u32, text: &str) {
        if let Some(c) = self.index.containers.iter_mut().find(|c| c.head == parent) {
            c.broken = true;
            c.broken_names.extend(guessed_names(text));
        }
    }

    fn add_member(
        &mut self,
        ci: usize,
        chunk: u32,
        name: &Ident,
        kind: MemberDefKind,
        position: u32,
    ) {
        if let Some(first) = self.index.containers[ci].members.get(&name.name) {
            let first = (first.chunk, first.name_span);
            self.duplicate(name, chunk, first, "member");
            return;
        }
        self.index.containers[ci].members.insert(
            name.name.clone(),
            MemberEntry {
                chunk,
                kind,
                name_span: name.span,
                position,
            },
        );
    }

    /// Records unnamed parts; a second `parser`, `control`, ... is a duplicate.
    fn part(&mut self, ci: usize, chunk: u32, member: &Member) {
        let head_span = Span::new(
            member.span.lo as usize,
            member.span.lo as usize + member_keyword_len(member),
        );
        let parts = &mut self.index.containers[ci].parts;
        let (slot, what): (&mut Option<u32>, &str) = match &member.kind {
            MemberKind::Headers(_) => (&mut parts.headers, "headers block"),
            MemberKind::Meta(_) => (&mut parts.meta, "meta block"),
            MemberKind::Errors(_) => (&mut parts.errors, "errors block"),
            MemberKind::Parser(_) => (&mut parts.parser, "parser"),
            MemberKind::Control(_) => (&mut parts.control, "control"),
            MemberKind::Deparser(_) => (&mut parts.deparser, "deparser"),
            MemberKind::Stream(_) => (&mut parts.stream, "stream kernel"),
            MemberKind::Output(_) => (&mut parts.output, "output"),
            MemberKind::Every(_) => {
                parts.every.push(chunk);
                return;
            }
            MemberKind::On(handler) => {
                let (key, span) = match &handler.event {
                    Event::Simple { name, .. } => (name.name.clone(), name.span),
                    Event::Periodic { name, .. } => {
                        (format!("{} {}", "periodic", name.name), name.span)
                    }
                };
                if let Some(&first) = parts.handlers.get(&key) {
                    if !key.starts_with("periodic ") {
                        let first_span = Span::default();
                        let diag = Diagnostic::at(
                            codes::E0102,
                            self.loc(chunk, span),
                            format!("a second handler for `{key}`"),
                        )
                        .label("handled again here")
                        .secondary_at(self.loc(first, first_span), "first handler")
                        .help("merge the two handlers into one");
                        self.index.diagnostics.push(diag);
                    }
                    return;
                }
                parts.handlers.insert(key, chunk);
                return;
            }
            _ => return,
        };
        match *slot {
            Some(first) => {
                let diag = Diagnostic::at(
                    codes::E0102,
                    self.loc(chunk, head_span),
                    format!("a second {what}"),
                )
                .label(format!("{what} defined again here"))
                .secondary_at(
                    self.loc(first, Span::new(0, head_span.len() as usize)),
                    format!("first {what}"),
                )
                .help(format!("an scu or cc has at most one {what}; merge them"));
                self.index.diagnostics.push(diag);
            }
            None => *slot = Some(chunk),
        }
    }
}

/// The length of the keyword that starts a member (`parser`, `control`, ...), for labels.
fn member_keyword_len(member: &Member) -> usize {
    match &member.kind {
        MemberKind::Headers(_) => 7,
        MemberKind::Meta(_) => 4,
        MemberKind::Errors(_) => 6,
        MemberKind::Parser(_) => 6,
        MemberKind::Control(_) => 7,
        MemberKind::Deparser(_) => 8,
        MemberKind::Stream(_) => 6,
        MemberKind::Output(_) => 6,
        _ => 2,
    }
}

/// The names a chunk that could not be parsed would probably have declared, guessed from its words:
/// the word after the keyword (`table routes {`, `csr hits: ...`, `register hits ...`), the timer of
/// `on timer NAME every ...`, and the instances of a `headers { eth: ethernet, ... }` block. Later
/// stages treat these names as known but poisoned, so one syntax error is reported once instead of
/// again at every use of the name.
pub fn guessed_names(text: &str) -> Vec<String> {
    let words = words(text);
    let name = |i: usize| words.get(i).map(|(w, _)| w.to_string());
    // A chunk may hold several declarations when a `;` is missing between them.
    let mut more: Vec<String> = words
        .windows(2)
        .skip(1)
        .filter(|w| DECLARING.contains(&w[0].0))
        .map(|w| w[1].0.to_string())
        .collect();
    let mut first = match words.first().map(|(w, _)| *w) {
        Some("headers") => words
            .iter()
            .filter(|(_, before_colon)| *before_colon)
            .map(|(w, _)| w.to_string())
            .collect(),
        Some("on") if matches!(name(1).as_deref(), Some("timer" | "bytes")) => {
            name(2).into_iter().collect()
        }
        Some(
            "on" | "parser" | "control" | "deparser" | "stream" | "every" | "errors" | "meta"
            | "output" | "use" | "scu" | "cc",
        )
        | None => Vec::new(),
        Some(_) => name(1).into_iter().collect(),
    };
    first.append(&mut more);
    first
}

/// Keywords followed by the name they declare.
const DECLARING: &[&str] = &[
    "const", "csr", "table", "action", "map", "counter", "meter", "out", "fn", "param", "state",
    "header", "struct", "enum",
];

/// The identifiers of `text` outside comments, each with whether a single `:` follows it.
fn words(text: &str) -> Vec<(&str, bool)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            i += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            i += rest
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(rest.len(), |p| p + 2);
        } else if bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' {
            let len = rest
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .unwrap_or(rest.len());
            let after = text[i + len..].trim_start();
            let before_colon = after.starts_with(':') && !after.starts_with("::");
            if !bytes[i].is_ascii_digit() {
                out.push((&text[i..i + len], before_colon));
            }
            i += len;
        } else {
            i += 1;
        }
    }
    out
}
