//! Building a [`Manifest`] from a validated module, its [`ModuleInfo`] and its timing report.
//!
//! Everything here reads the module as given: if a pass rewrote it (joined table keys, say), the
//! manifest describes the rewritten form, which is what a kernel built from it accepts. Lookups that
//! could miss (an id the info does not cover, a body the timing report lacks) fall back to empty
//! defaults rather than panicking; the validator guarantees they do not miss for a validated module.

use super::types::*;
use super::{Manifest, ManifestError, FORMAT_VERSION};
use crate::control::{ControlLayout, ScuControl, TableControl};
use scenic_ir::program::{
    Attach, Cc, CounterKind, MapKind, MatchKind, Module, OutKind, OutputKind, Scu, Table,
};
use scenic_ir::types::{Const, Dimension, Type};
use scenic_ir::valid::{ModuleInfo, ScuInfo, CSR_WINDOW_BASE};
use scenic_timing::{BodyKind, BodyTiming, TimingReport};
use sha2::{Digest, Sha256};

/// Bytes per CSR word (Coyote's 64-bit AXI-Lite).
const CSR_WORD_BYTES: u64 = 8;
/// Bytes of Coyote's user CSR window (64 KiB from `CSR_WINDOW_BASE`).
pub const CSR_WINDOW_BYTES: u64 = 0x10000;

/// Bytes between consecutive scus' CSR word 0: the largest CSR-and-mailbox block, rounded up to a
/// power of two so the bridge selects the scu with address bits alone.
fn stride_bytes(control: &ControlLayout) -> u64 {
    let words = control
        .scus
        .iter()
        .map(|s| u64::from(s.mailbox.end))
        .max()
        .unwrap_or(1);
    words.max(1).next_power_of_two() * CSR_WORD_BYTES
}

impl Manifest {
    /// Builds the manifest of `module`: `info` is what the validator returned for it, `timing` the
    /// report of `scenic_timing::analyze` on it, `source` the root file it was compiled from,
    /// and `backend` the kernels and control layout (empty for a manifest without a backend).
    pub fn build(
        module: &Module,
        info: &ModuleInfo,
        timing: &TimingReport,
        source: Source<'_>,
        backend: &BackendFacts,
    ) -> Result<Manifest, ManifestError> {
        if !backend.kernels.is_empty() && backend.kernels.len() != module.scus.len() {
            return Err(ManifestError::KernelCount {
                kernels: backend.kernels.len(),
                scus: module.scus.len(),
            });
        }
        let control = ControlLayout::new(module, info);
        let stride_bytes = stride_bytes(&control);
        let window = stride_bytes.saturating_mul(module.scus.len() as u64);
        if window > CSR_WINDOW_BYTES {
            return Err(ManifestError::CsrWindowFull {
                needed: window,
                available: CSR_WINDOW_BYTES,
            });
        }
        let cx = Cx { module, info };
        let scus = module
            .scus
            .iter()
            .enumerate()
            .map(|(i, (id, scu))| {
                let kernel = backend.kernels.get(i).cloned();
                let base = CSR_WINDOW_BASE + stride_bytes * i as u64;
                let scu_control = control.scus.get(i);
                cx.scu(scu, &info.scus[id], (i, base), kernel, scu_control, timing)
            })
            .collect();
        let ccs = module
            .ccs
            .iter()
            .enumerate()
            .map(|(i, (id, cc))| cx.cc(cc, id, i, timing, backend.cc_kernels.get(i).cloned()))
            .collect();
        Ok(Manifest {
            format_version: FORMAT_VERSION,
            program: program(source),
            csr_window: CsrWindow {
                base: CSR_WINDOW_BASE,
                word_bytes: CSR_WORD_BYTES,
                stride_bytes,
            },
            scus,
            ccs,
            control,
            estimates: estimates(timing),
        })
    }
}

fn program(source: Source<'_>) -> Program {
    let path = std::path::Path::new(source.file);
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.file.to_string());
    Program {
        name,
        source_file: source.file.to_string(),
        source_sha256: sha256_hex(source.text.as_bytes()),
        compiler: "scenicc".to_string(),
        compiler_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// SHA-256 of `bytes` as 64 lower-case hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A constant as the manifest writes it: `0x` and lower-case hex digits.
fn hex(c: &Const) -> String {
    format!("{:#x}", c.0)
}

fn position(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The module and its facts, for the helpers that need both.
struct Cx<'a> {
    module: &'a Module,
    info: &'a ModuleInfo,
}

impl Cx<'_> {
    /// A type as the program spells it, with layouts by name.
    fn ty(&self, ty: &Type) -> String {
        let m = self.module;
        match ty {
            Type::Enum(e) => m
                .enums
                .get(*e)
                .map_or_else(|| ty.to_string(), |d| d.name.clone()),
            Type::Header(h) => m
                .headers
                .get(*h)
                .map_or_else(|| ty.to_string(), |d| d.name.clone()),
            Type::Struct(s) => m
                .structs
                .get(*s)
                .map_or_else(|| ty.to_string(), |d| d.name.clone()),
            Type::Array(elem, n) => format!("[{}; {n}]", self.ty(elem)),
            _ => ty.to_string(),
        }
    }

    /// The bits a value of `ty` occupies (the validator's widths: a header adds its validity bit).
    fn width(&self, ty: &Type) -> u64 {
        let m = self.module;
        match ty {
            Type::Header(h) => m.headers.get(*h).map_or(0, |l| u64::from(l.bits) + 1),
            Type::Struct(s) => self.info.struct_bits[*s],
            Type::Array(elem, n) => self.width(elem).saturating_mul(u64::from(*n)),
            Type::Tuple(items) => items.iter().map(|t| self.width(t)).sum(),
            Type::Unit => 0,
            _ => ty
                .scalar_width(|e| m.enums.get(e).map_or(0, |d| d.width))
                .map_or(0, u64::from),
        }
    }

    /// Lays `(name, type)` parts out first part lowest.
    fn layout<'n>(&self, parts: impl Iterator<Item = (&'n str, &'n Type)>) -> Vec<FieldLayout> {
        let mut lo = 0u64;
        parts
            .map(|(name, ty)| {
                let width = self.width(ty);
                let field = FieldLayout {
                    name: name.to_string(),
                    ty: self.ty(ty),
                    width,
                    lo,
                };
                lo = lo.saturating_add(width);
                field
            })
            .collect()
    }

    fn scu(
        &self,
        scu: &Scu,
        info: &ScuInfo,
        (index, csr_base): (usize, u64),
        kernel: Option<Kernel>,
        control: Option<&ScuControl>,
        timing: &TimingReport,
    ) -> ScuManifest {
        let csrs = self.csrs(scu, info, csr_base);
        let tables = scu
            .tables
            .values()
            .enumerate()
            .map(|(i, t)| {
                let records = control.and_then(|c| c.tables.get(i));
                self.table(scu, t, i, records)
            })
            .collect();
        let maps = self.maps(scu, info, control);
        ScuManifest {
            name: scu.name.clone(),
            index: position(index),
            attach: match scu.attach {
                Attach::SlowPath => AttachKind::SlowPath,
                Attach::Rdma => AttachKind::Rdma,
                Attach::Tcp => AttachKind::Tcp,
            },
            kernel,
            csr_base,
            csrs,
            tables,
            maps,
            counters: counters(scu),
            meters: meters(scu),
            outs: outs(scu),
            every: every(scu),
            parser_errors: scu.errors.values().cloned().collect(),
            summary: ScuSummary {
                packet: find(timing, &scu.name, BodyKind::Packet).map(summary),
                stream: find(timing, &scu.name, BodyKind::Stream).map(summary),
            },
        }
    }

    /// The manifest entries of an scu's CSRs, with their addresses in the window at `csr_base`.
    fn csrs(&self, scu: &Scu, info: &ScuInfo, csr_base: u64) -> Vec<CsrEntry> {
        scu.csrs
            .iter()
            .map(|(id, c)| {
                let offset = info.csrs[id].offset;
                CsrEntry {
                    name: c.name.clone(),
                    offset,
                    byte_address: csr_base + CSR_WORD_BYTES * u64::from(offset),
                    width: info.csrs[id].width,
                    ty: self.ty(&c.ty),
                    access: match (c.is_param, c.host_readonly) {
                        (true, _) => CsrAccess::Param,
                        (false, true) => CsrAccess::Readonly,
                        (false, false) => CsrAccess::ReadWrite,
                    },
                    init: hex(&c.init),
                }
            })
            .collect()
    }

    /// The manifest entries of an scu's maps, with the value layout from the control layout.
    fn maps(&self, scu: &Scu, info: &ScuInfo, control: Option<&ScuControl>) -> Vec<MapEntry> {
        scu.maps
            .iter()
            .enumerate()
            .map(|(i, (id, m))| MapEntry {
                name: m.name.clone(),
                index: position(i),
                kind: match m.kind {
                    MapKind::Array => MapKindName::Array,
                    MapKind::Hash => MapKindName::Hash,
                    MapKind::LruHash => MapKindName::LruHash,
                },
                key_bits: info.maps[id].key_bits,
                value_bits: info.maps[id].value_bits,
                value_ty: self.ty(&m.value),
                value_fields: control
                    .and_then(|c| c.maps.get(i))
                    .map(|c| {
                        let fields = c.value_fields.iter();
                        fields
                            .map(|f| NamedBits {
                                name: f.name.clone(),
                                lo: f.lo,
                                width: f.width,
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                size: m.size,
            })
            .collect()
    }

    fn table(
        &self,
        scu: &Scu,
        t: &Table,
        index: usize,
        records: Option<&TableControl>,
    ) -> TableEntry {
        let unplaced = BitField { lo: 0, width: 0 };
        let place = |f: &crate::control::FieldLayout| BitField {
            lo: f.lo,
            width: f.width,
        };
        let widths: Vec<u32> = t
            .keys
            .iter()
            .map(|k| u32::try_from(self.width(&k.ty)).unwrap_or(u32::MAX))
            .collect();
        let key_bits = widths.iter().fold(0u32, |a, w| a.saturating_add(*w));
        let keys = t
            .keys
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (k, &width))| {
                let record = records.and_then(|r| r.keys.get(i));
                KeyField {
                    name: k.name.clone(),
                    match_kind: match k.kind {
                        MatchKind::Exact => MatchKindName::Exact,
                        MatchKind::Lpm => MatchKindName::Lpm,
                        MatchKind::Ternary => MatchKindName::Ternary,
                        MatchKind::Range => MatchKindName::Range,
                    },
                    ty: self.ty(&k.ty),
                    width,
                    encoding: record.map_or_else(String::new, |r| snake(&r.encoding)),
                    value: record.map_or(unplaced, |r| place(&r.value)),
                    aux: record.map_or(unplaced, |r| place(&r.aux)),
                }
            })
            .collect();
        let actions = self.table_actions(scu, t, records);
        let default = default_action(scu, t);
        TableEntry {
            name: t.name.clone(),
            index: position(index),
            size: t.size,
            const_entries: t.const_entries.len() as u64,
            is_const: t.is_const,
            ranking: ranking(t),
            key_bits,
            keys,
            actions,
            record_bits: records.map_or(0, |r| r.record_bits),
            action_field: records.map_or(unplaced, |r| place(&r.action)),
            priority_field: records.map_or(unplaced, |r| place(&r.priority)),
            default,
        }
    }

    /// A table's actions with their parameters, placed where the control layout puts them in the
    /// entry record.
    fn table_actions(
        &self,
        scu: &Scu,
        t: &Table,
        records: Option<&TableControl>,
    ) -> Vec<ActionEntry> {
        t.actions
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                let (name, mut params) = match scu.actions.get(a) {
                    Some(action) => {
                        let body = &action.body;
                        let params = body
                            .params
                            .iter()
                            .filter_map(|&p| body.locals.get(p))
                            .map(|l| (l.name.as_str(), &l.ty));
                        (action.name.clone(), self.layout(params))
                    }
                    None => (format!("{a}"), Vec::new()),
                };
                // Positions in the entry record, where the control layout puts the arguments.
                let placed = records.and_then(|r| r.actions.get(i)).map(|a| &a.params);
                for (p, at) in params.iter_mut().zip(placed.into_iter().flatten()) {
                    p.lo = u64::from(at.lo);
                }
                ActionEntry {
                    id: position(i),
                    name,
                    data_bits: params.iter().map(|p| p.width).sum(),
                    params,
                }
            })
            .collect()
    }

    fn cc(
        &self,
        cc: &Cc,
        id: scenic_ir::entities::CcId,
        index: usize,
        timing: &TimingReport,
        kernel: Option<Kernel>,
    ) -> CcManifest {
        let info = &self.info.ccs[id];
        let state_bits = info.state_bits;
        let state = cc
            .state
            .iter()
            .map(|(sid, s)| CcStateEntry {
                name: s.name.clone(),
                ty: self.ty(&s.ty),
                width: self.width(&s.ty),
                lo: info.state_offsets[sid],
                init: hex(&s.init),
            })
            .collect();
        let handler_timings: Vec<&BodyTiming> = timing
            .bodies
            .iter()
            .filter(|b| b.kind == BodyKind::CcHandler && b.unit == cc.name)
            .collect();
        let handlers = handler_timings
            .iter()
            .map(|b| HandlerEntry {
                event: b.part.clone(),
                latency: b.latency,
                ii: b.ii,
                budget: b.budget,
                over_budget: b.over_budget(),
            })
            .collect();
        CcManifest {
            name: cc.name.clone(),
            index: position(index),
            kernel,
            flows: cc.flows,
            budget_cycles: cc.budget,
            output: match cc.output.0 {
                OutputKind::Rate => CcOutputKind::Rate,
                OutputKind::Window => CcOutputKind::Window,
            },
            output_state: cc
                .state
                .get(cc.output.1)
                .map_or_else(String::new, |s| s.name.clone()),
            params: cc
                .params
                .values()
                .enumerate()
                .map(|(i, p)| CcParamEntry {
                    name: p.name.clone(),
                    index: position(i),
                    ty: self.ty(&p.ty),
                    width: self.width(&p.ty),
                    default: hex(&p.default),
                })
                .collect(),
            state,
            state_bits,
            state_memory_bits: info.state_memory_bits,
            timers: cc
                .timers
                .values()
                .map(|t| TimerEntry {
                    name: t.name.clone(),
                    period: t.period.1,
                    unit: match t.period.0 {
                        Dimension::Size => TimerUnit::Bytes,
                        _ => TimerUnit::Ns,
                    },
                })
                .collect(),
            handlers,
        }
    }
}

/// How a table ranks matching entries (docs/language.md §7.9.6).
fn ranking(t: &Table) -> Ranking {
    let kinds = || t.keys.iter().map(|k| k.kind);
    if kinds().any(|k| matches!(k, MatchKind::Ternary | MatchKind::Range)) {
        Ranking::Priority
    } else if kinds().any(|k| k == MatchKind::Lpm) {
        Ranking::LongestPrefix
    } else {
        Ranking::Exact
    }
}

/// The manifest entries of an scu's meters.
fn meters(scu: &Scu) -> Vec<MeterEntry> {
    scu.meters
        .values()
        .enumerate()
        .map(|(i, m)| MeterEntry {
            name: m.name.clone(),
            index: position(i),
            size: m.size,
            rate_bps: m.rate,
            burst_bytes: m.burst,
        })
        .collect()
}

/// The manifest entries of an scu's `every` blocks.
fn every(scu: &Scu) -> Vec<EveryEntry> {
    scu.every
        .iter()
        .enumerate()
        .map(|(i, e)| EveryEntry {
            index: position(i),
            period_ns: e.period_ns,
        })
        .collect()
}

/// A table's default action: its position among the table's actions and its arguments.
fn default_action(scu: &Scu, t: &Table) -> DefaultAction {
    let (default_id, default_args) = &t.default;
    let default_pos = t.actions.iter().position(|a| a == default_id);
    DefaultAction {
        action: default_pos.map_or(u32::MAX, position),
        name: scu
            .actions
            .get(*default_id)
            .map_or_else(|| format!("{default_id}"), |a| a.name.clone()),
        args: default_args.iter().map(hex).collect(),
        host_may_change: !t.is_const,
    }
}

fn counters(scu: &Scu) -> Vec<CounterEntry> {
    scu.counters
        .values()
        .enumerate()
        .map(|(i, c)| CounterEntry {
            name: c.name.clone(),
            index: position(i),
            kind: match c.kind {
                CounterKind::Packets => CounterKindName::Packets,
                CounterKind::Bytes => CounterKindName::Bytes,
                CounterKind::PacketsAndBytes => CounterKindName::PacketsAndBytes,
            },
            size: c.size,
            count_bits: 64,
        })
        .collect()
}

fn outs(scu: &Scu) -> Vec<OutEntry> {
    scu.outs
        .values()
        .enumerate()
        .map(|(i, o)| OutEntry {
            name: o.name.clone(),
            index: position(i),
            kind: match o.kind {
                OutKind::Dma => OutKindName::Dma,
                OutKind::Host => OutKindName::Host,
            },
            count: o.count,
            batch_bytes: o.batch,
        })
        .collect()
}

fn find<'t>(timing: &'t TimingReport, unit: &str, kind: BodyKind) -> Option<&'t BodyTiming> {
    timing
        .bodies
        .iter()
        .find(|b| b.kind == kind && b.unit == unit)
}

fn summary(b: &BodyTiming) -> BodySummary {
    BodySummary {
        latency: b.latency,
        ii: b.ii,
        line_rate_min_bytes: b.line_rate_min_bytes,
    }
}

/// A unit enum's serde spelling (`parser_state`, `ternary`), so the documents agree on names.
fn snake(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn estimates(timing: &TimingReport) -> Estimates {
    let o = &timing.options;
    Estimates {
        clock_mhz: o.clock_mhz,
        clock_period_ns: o.cycle_ns(),
        datapath_bits: o.datapath_bits,
        line_rate_bps: o.line_rate_bps,
        mtu_bytes: o.mtu_bytes,
        mtu_budget_cycles: timing.mtu_budget,
        min_packet_budget_cycles: timing.min_packet_budget,
        bodies: timing
            .bodies
            .iter()
            .map(|b| BodyEstimate {
                name: b.name.clone(),
                kind: snake(&b.kind),
                latency: b.latency,
                ii: b.ii,
                ii_limit: b.ii_limit.as_ref().map(|l| IiLimitEntry {
                    object: l.object.clone(),
                    cycles: l.cycles,
                    reason: l.reason.clone(),
                }),
                budget: b.budget,
                line_rate_min_bytes: b.line_rate_min_bytes,
                costly: b
                    .costly
                    .iter()
                    .map(|c| CostlyEntry {
                        what: c.what.clone(),
                        cycles: c.cycles,
                        count: c.count,
                    })
                    .collect(),
            })
            .collect(),
    }
}
