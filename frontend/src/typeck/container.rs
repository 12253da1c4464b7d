//! Checks across the members of one `scu` or `cc`: required parts, misplaced members, recursion,
//! one apply per table per packet, unused members, headers parsed but never emitted.

use super::{check_body, PathCounts, PathKey};
use crate::ast::MemberKind;
use crate::db::{chunk_ast, ChunkKey, SourceFile};
use crate::diag::{codes, Diagnostic, Loc};
use crate::parse::ChunkAst;
use crate::resolve::index::{module_index, Container, MemberDefKind};
use crate::span::Span;
use crate::typeck::signature::{sig_of, signature, Attach, SigKind};
use indexmap::{IndexMap, IndexSet};
use std::sync::Arc;

/// Functions by name: their chunk and the calls they make (callee, call site).
type CallGraph = IndexMap<String, (u32, Vec<(String, Span)>)>;

/// Cross-member diagnostics of the container whose head is chunk `key` (chunk locations).
#[salsa::tracked(returns(clone))]
pub fn container_diagnostics<'db>(
    db: &'db dyn salsa::Database,
    key: ChunkKey<'db>,
) -> Arc<Vec<Diagnostic>> {
    let file = key.file(db);
    let index = module_index(db, file);
    let Some(container) = index.container_by_head(key.index(db)) else {
        return Arc::new(Vec::new());
    };
    let mut cx = ContainerCx {
        db,
        file,
        container,
        diags: Vec::new(),
    };
    let misplaced = cx.placement();
    // With a member that could not be parsed, or braces that do not balance, what is missing or
    // unused is not known.
    let broken = container.broken || !crate::db::file_split(db, file).errors.is_empty();
    if !broken {
        cx.required_parts();
    }
    cx.recursion();
    cx.apply_once();
    if !broken {
        cx.unused(&misplaced);
    }
    cx.unemitted_headers();
    Arc::new(cx.diags)
}

struct ContainerCx<'a> {
    db: &'a dyn salsa::Database,
    file: SourceFile,
    container: &'a Container,
    diags: Vec<Diagnostic>,
}

impl ContainerCx<'_> {
    fn loc(&self, chunk: u32, span: Span) -> Loc {
        Loc::Chunk {
            file: self.file.id(self.db),
            chunk,
            span,
        }
    }

    /// The parse of a chunk (borrowed through the `Arc`: ASTs can be deep, so never cloned).
    fn parsed(&self, chunk: u32) -> std::sync::Arc<crate::parse::ParsedChunk> {
        chunk_ast(self.db, ChunkKey::new(self.db, self.file, chunk))
    }

    /// A span over the first word of a member, for labels.
    fn head_span(&self, chunk: u32) -> Span {
        let len = match &self.parsed(chunk).ast {
            ChunkAst::Member(m) => keyword(&m.kind).len(),
            ChunkAst::Item(_) => 1,
        };
        Span::new(0, len)
    }

    /// Reports members in the wrong kind of container (E0510); returns their chunks.
    fn placement(&mut self) -> Vec<u32> {
        let is_cc = self.container.is_cc;
        let mut misplaced_chunks = Vec::new();
        for &chunk in &self.container.chunks {
            let parsed = self.parsed(chunk);
            let ChunkAst::Member(member) = &parsed.ast else {
                continue;
            };
            let word = keyword(&member.kind);
            let scu_only = matches!(
                member.kind,
                MemberKind::Csr(_)
                    | MemberKind::Headers(_)
                    | MemberKind::Meta(_)
                    | MemberKind::Errors(_)
                    | MemberKind::Parser(_)
                    | MemberKind::Table(_)
                    | MemberKind::Action(_)
                    | MemberKind::Map(_)
                    | MemberKind::Counter(_)
                    | MemberKind::Meter(_)
                    | MemberKind::Out(_)
                    | MemberKind::Control(_)
                    | MemberKind::Deparser(_)
                    | MemberKind::Stream(_)
                    | MemberKind::Every(_)
            );
            let cc_only = matches!(member.kind, MemberKind::State(_) | MemberKind::Output(_));
            let misplaced = (is_cc && scu_only) || (!is_cc && cc_only);
            if misplaced {
                let (here, there) = if is_cc {
                    ("a cc", "an scu")
                } else {
                    ("an scu", "a cc")
                };
                let diag = Diagnostic::at(codes::E0510, self.loc(chunk, Span::new(0, word.len())), format!("`{word}` is not allowed in {here}"))
                    .label(format!("only {there} has `{word}`"))
                    .note(if is_cc {
                        "a cc has const, param, state, output, handlers (`on ...`) and fn"
                    } else {
                        "per-flow `state` and `output` belong to congestion controllers (`cc`); an scu keeps state in csr, map, counter and meter"
                    });
                self.diags.push(diag);
                misplaced_chunks.push(chunk);
            }
        }
        misplaced_chunks
    }

    fn attach(&self) -> Option<Attach> {
        match &sig_of(self.db, self.file, self.container.head).kind {
            SigKind::Scu { attach, .. } => *attach,
            _ => None,
        }
    }

    fn required_parts(&mut self) {
        let head = self.container.head;
        let name_span = Span::new(0, 3);
        let parts = &self.container.parts;
        if self.container.is_cc {
            self.cc_required_parts();
            return;
        }
        let attach = self.attach();
        if let (Some(Attach::SlowPath), Some(stream)) = (attach, parts.stream) {
            self.diags.push(
                Diagnostic::at(
                    codes::E0507,
                    self.loc(stream, self.head_span(stream)),
                    "a stream kernel needs a payload stream",
                )
                .label("not available on `slow_path`")
                .help(
                    "attach the scu to `rdma(qp)` or `tcp(flow)`, or process packets in `control`",
                ),
            );
        }
        let has_work = parts.control.is_some()
            || parts.stream.is_some()
            || parts.parser.is_some()
            || !parts.every.is_empty()
            || !parts.handlers.is_empty();
        if !has_work {
            self.diags.push(
                Diagnostic::at(codes::E0509, self.loc(head, name_span), format!("scu `{}` does nothing", self.container.name))
                    .label("no `control`, `stream`, `parser` or `every`")
                    .help("add `control { ... }` to process packets or `stream(word: bit<512>) { ... }` for payloads"),
            );
        }
        // Header instances are only ever filled by a parser; without `headers` an scu may well work
        // on `packet.*` alone.
        if parts.control.is_some()
            && parts.parser.is_none()
            && parts.headers.is_some()
            && attach == Some(Attach::SlowPath)
        {
            self.diags.push(
                Diagnostic::at(
                    codes::E0509,
                    self.loc(head, name_span),
                    format!(
                        "scu `{}` has a control block but no parser",
                        self.container.name
                    ),
                )
                .label("no `parser` fills its `headers`")
                .help("add `parser { state start { extract(eth); accept } }`"),
            );
        }
        for (name, &chunk) in &parts.handlers {
            if name == "parser_error" && parts.parser.is_none() {
                self.diags.push(
                    Diagnostic::at(
                        codes::E0509,
                        self.loc(chunk, self.head_span(chunk)),
                        "`on parser_error` without a parser",
                    )
                    .label("there is no parser to fail"),
                );
            }
        }
    }

    /// A controller needs an `output` and at least one handler (E0509).
    fn cc_required_parts(&mut self) {
        let head = self.container.head;
        let name_span = Span::new(0, 2);
        let parts = &self.container.parts;
        if parts.output.is_none() {
            self.diags.push(
                Diagnostic::at(
                    codes::E0509,
                    self.loc(head, name_span),
                    format!(
                        "congestion controller `{}` has no `output`",
                        self.container.name
                    ),
                )
                .label("what does it control?")
                .help(
                    "add `output rate rc;` (a rate state) or `output window cwnd;` (a size state)",
                ),
            );
        }
        if parts.handlers.is_empty() {
            self.diags.push(
                Diagnostic::at(
                    codes::E0509,
                    self.loc(head, name_span),
                    format!(
                        "congestion controller `{}` handles no events",
                        self.container.name
                    ),
                )
                .label("no `on ...` handler")
                .help("add handlers such as `on ack(a) { }` and `on cnp { }`"),
            );
        }
    }

    /// Functions and actions of the container and whom they call.
    fn call_graph(&self) -> CallGraph {
        let mut graph = IndexMap::new();
        for (name, entry) in &self.container.members {
            if matches!(entry.kind, MemberDefKind::Fn | MemberDefKind::Action) {
                let check = check_body(self.db, ChunkKey::new(self.db, self.file, entry.chunk));
                graph.insert(name.clone(), (entry.chunk, check.summary.calls.clone()));
            }
        }
        graph
    }

    fn recursion(&mut self) {
        let graph = self.call_graph();
        if let Some(diag) = find_cycle(&graph, |chunk, span| self.loc(chunk, span)) {
            self.diags.push(diag);
        }
    }

    /// Worst-path counts of `counts`, with calls replaced by their callees' counts.
    fn expand(&self, counts: &PathCounts, graph: &CallGraph, depth: u32) -> PathCounts {
        let mut out = PathCounts::new();
        for (key, n) in counts {
            match key {
                PathKey::Apply(_) => *out.entry(key.clone()).or_insert(0) += n,
                PathKey::Call(callee) if depth < 16 => {
                    if let Some((chunk, _)) = graph.get(callee) {
                        let check = check_body(self.db, ChunkKey::new(self.db, self.file, *chunk));
                        for (k, m) in self.expand(&check.summary.counts, graph, depth + 1) {
                            *out.entry(k).or_insert(0) += m.saturating_mul(*n);
                        }
                    }
                }
                PathKey::Call(_) => {}
            }
        }
        out
    }

    fn apply_once(&mut self) {
        let graph = self.call_graph();
        let mut roots: Vec<u32> = self.container.parts.control.into_iter().collect();
        roots.extend(self.container.parts.handlers.get("parser_error"));
        for root in roots {
            let check = check_body(self.db, ChunkKey::new(self.db, self.file, root));
            for (key, n) in self.expand(&check.summary.counts, &graph, 0) {
                let PathKey::Apply(table) = key else { continue };
                if n <= 1 {
                    continue;
                }
                let sites = self.apply_sites(&table, root, &check.summary.apply_sites, &graph);
                let (chunk, span) = sites.first().copied().unwrap_or((root, Span::default()));
                let mut diag = Diagnostic::at(codes::E0405, self.loc(chunk, span), format!("table `{table}` can be applied {n} times to one packet"))
                    .label(if sites.len() > 1 { "applied here" } else { "applied here, more than once (a loop or a repeated call)" })
                    .note("a table is looked up at most once per packet (one pipeline stage, as in Vitis Networking P4)")
                    .help("apply it in one place and branch on the action it chose: `match t.apply() { ... }`");
                if let Some((chunk, span)) = sites.get(1) {
                    diag = diag.secondary_at(self.loc(*chunk, *span), "and applied here");
                }
                self.diags.push(diag);
            }
        }
    }

    /// The first two places `table` is applied: in `root`, then in the functions it calls. One
    /// place only when that place runs more than once (a loop, a function called twice).
    fn apply_sites(
        &self,
        table: &str,
        root: u32,
        sites: &IndexMap<String, Vec<Span>>,
        graph: &CallGraph,
    ) -> Vec<(u32, Span)> {
        let mut found: Vec<(u32, Span)> = sites
            .get(table)
            .into_iter()
            .flatten()
            .map(|span| (root, *span))
            .collect();
        for (chunk, _) in graph.values() {
            if found.len() >= 2 {
                break;
            }
            let check = check_body(self.db, ChunkKey::new(self.db, self.file, *chunk));
            if let Some(spans) = check.summary.apply_sites.get(table) {
                found.extend(spans.iter().map(|span| (*chunk, *span)));
            }
        }
        found.truncate(2);
        found
    }

    fn used_names(&self) -> IndexSet<String> {
        let mut used = IndexSet::new();
        let mut chunks = self.container.chunks.clone();
        chunks.push(self.container.head);
        for chunk in chunks {
            let key = ChunkKey::new(self.db, self.file, chunk);
            used.extend(check_body(self.db, key).summary.used.iter().cloned());
            used.extend(signature(self.db, key).uses.iter().cloned());
        }
        used
    }

    /// Members never used (W0001); `misplaced` members were already reported (E0510).
    fn unused(&mut self, misplaced: &[u32]) {
        let used = self.used_names();
        let extracted = self.headers_of(self.container.parts.parser);
        for (name, entry) in &self.container.members {
            let syntax_error = !chunk_ast(self.db, ChunkKey::new(self.db, self.file, entry.chunk))
                .diagnostics
                .is_empty();
            if used.contains(name)
                || name.starts_with('_')
                || extracted.contains(name)
                || misplaced.contains(&entry.chunk)
                || syntax_error
            {
                continue;
            }
            let kind = super::name::member_kind_name(entry.kind);
            let message = match entry.kind {
                MemberDefKind::Timer | MemberDefKind::ByteCounter => continue,
                MemberDefKind::Table => format!("table `{name}` is never applied"),
                MemberDefKind::Fn | MemberDefKind::Action => {
                    format!("{kind} `{name}` is never called")
                }
                _ => format!("{kind} `{name}` is never used"),
            };
            self.diags.push(
                Diagnostic::at(
                    codes::W0001,
                    self.loc(entry.chunk, entry.name_span),
                    message,
                )
                .label("unused")
                .help(format!(
                    "remove it, or rename it `_{name}` if it is unused on purpose"
                )),
            );
        }
    }

    fn headers_of(&self, chunk: Option<u32>) -> IndexSet<String> {
        chunk.map_or_else(IndexSet::new, |c| {
            check_body(self.db, ChunkKey::new(self.db, self.file, c))
                .summary
                .headers
                .clone()
        })
    }

    fn unemitted_headers(&mut self) {
        let Some(deparser) = self.container.parts.deparser else {
            return;
        };
        let extracted = self.headers_of(self.container.parts.parser);
        let emitted = self.headers_of(Some(deparser));
        for name in extracted.difference(&emitted) {
            let Some(entry) = self.container.members.get(name) else {
                continue;
            };
            self.diags.push(
                Diagnostic::at(codes::W0007, self.loc(entry.chunk, entry.name_span), format!("header `{name}` is parsed but the deparser never emits it"))
                    .label("removed from every packet that has it")
                    .secondary_at(self.loc(deparser, Span::new(0, 8)), "no `emit` for it here")
                    .help(format!("add `emit({name});` to the deparser, or `{name}.set_invalid()` where removing it is intended")),
            );
        }
    }
}

/// The first call cycle in `graph`, as an E0503 diagnostic.
pub(crate) fn find_cycle(graph: &CallGraph, loc: impl Fn(u32, Span) -> Loc) -> Option<Diagnostic> {
    let mut g: petgraph::graphmap::DiGraphMap<usize, ()> = petgraph::graphmap::DiGraphMap::new();
    for (i, (_, (_, calls))) in graph.iter().enumerate() {
        g.add_node(i);
        for (callee, _) in calls {
            if let Some(j) = graph.get_index_of(callee) {
                g.add_edge(i, j, ());
            }
        }
    }
    for scc in petgraph::algo::tarjan_scc(&g) {
        let cyclic = scc.len() > 1 || scc.first().is_some_and(|&s| g.contains_edge(s, s));
        if !cyclic {
            continue;
        }
        let first = *scc.iter().min()?;
        let (name, (chunk, calls)) = graph.get_index(first)?;
        let site = calls.iter().find(|(c, _)| {
            scc.iter()
                .any(|&s| graph.get_index(s).is_some_and(|(n, _)| n == c))
        })?;
        let mut names: Vec<&str> = scc
            .iter()
            .filter_map(|&s| graph.get_index(s).map(|(n, _)| n.as_str()))
            .collect();
        names.sort_unstable();
        return Some(
            Diagnostic::at(
                codes::E0503,
                loc(*chunk, site.1),
                format!("`{name}` is recursive"),
            )
            .label(format!("calls `{}`, which leads back to `{name}`", site.0))
            .note(format!("functions in the cycle: {}", names.join(", ")))
            .note("hardware has no call stack: every call is inlined, so recursion is not allowed")
            .help("rewrite it with a bounded `for` loop"),
        );
    }
    None
}

fn keyword(kind: &MemberKind) -> &'static str {
    match kind {
        MemberKind::Csr(_) => "csr",
        MemberKind::Headers(_) => "headers",
        MemberKind::Meta(_) => "meta",
        MemberKind::Errors(_) => "errors",
        MemberKind::Parser(_) => "parser",
        MemberKind::Table(_) => "table",
        MemberKind::Action(_) => "action",
        MemberKind::Map(_) => "map",
        MemberKind::Counter(_) => "counter",
        MemberKind::Meter(_) => "meter",
        MemberKind::Out(_) => "out",
        MemberKind::Control(_) => "control",
        MemberKind::Deparser(_) => "deparser",
        MemberKind::Stream(_) => "stream",
        MemberKind::Every(_) => "every",
        MemberKind::On(_) => "on",
        MemberKind::Fn(_) => "fn",
        MemberKind::Const(_) => "const",
        MemberKind::Param(_) => "param",
        MemberKind::State(_) => "state",
        MemberKind::Output(_) => "output",
        MemberKind::Error => "?",
    }
}

/// Recursion among top-level functions (chunk locations).
#[salsa::tracked(returns(clone))]
pub fn module_recursion(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let index = module_index(db, file);
    let mut graph = IndexMap::new();
    for (name, entry) in &index.items {
        if entry.kind == crate::resolve::index::DefKind::Fn {
            let check = check_body(db, ChunkKey::new(db, file, entry.chunk));
            graph.insert(name.clone(), (entry.chunk, check.summary.calls.clone()));
        }
    }
    let fid = file.id(db);
    let diag = find_cycle(&graph, |chunk, span| Loc::Chunk {
        file: fid,
        chunk,
        span,
    });
    Arc::new(diag.into_iter().collect())
}
