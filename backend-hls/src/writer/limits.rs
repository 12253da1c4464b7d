//! Honest limits: what the generated kernel cannot do at line rate on the target device is a
//! compile error naming the construct, the figure and the limit, never a silent slowdown.
//!
//! Checked here: the register bits of all table CAMs (the compared fields) and of the stashes of
//! hashed exact tables against [`crate::Options::register_budget_bits`], the on-chip RAM bits of
//! all maps, CAM payloads and hashed exact tables (banks and handle table,
//! [`crate::writer::tables_exact::Geometry::ram_bits`]) against
//! [`crate::Options::ram_budget_bits`], and `every`
//! periods shorter than one invocation of `process` (which could then not run them on time). The
//! header window and the per-packet buffers are checked where they are sized
//! ([`crate::writer`]), a stream kernel's II and batch buffers in [`crate::writer::stream::plan`];
//! a cc's per-flow memory and its handlers' cycles against the `budget` are checked by
//! [`check_cc`] (a handler over budget is also E0604 of `scenicc check`).

use crate::writer::{tables_exact, ScuWriter};
use crate::Error;
use scenic_scu_abi::control::type_bits;

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The on-chip RAM of the tables so far (`ram`, ending with `table`'s) against the budget.
fn ram_check(w: &ScuWriter<'_>, table: &scenic_ir::program::Table, ram: u64) -> Result<(), Error> {
    if ram <= w.options.ram_budget_bits {
        return Ok(());
    }
    Err(Error::Limit {
        scu: w.scu.name.clone(),
        what: format!(
            "table `{}` ({} entries hashed in block RAM)",
            table.name, table.size
        ),
        figure: format!(
            "{} bits of on-chip RAM for the tables so far",
            thousands(ram)
        ),
        limit: format!(
            "{} bits (Options::ram_budget_bits, {})",
            thousands(w.options.ram_budget_bits),
            w.options.part
        ),
        span: table.span,
    })
}

/// Checks one scu's kernel against the device.
pub fn check(w: &ScuWriter<'_>) -> Result<(), Error> {
    let table_ram_bits = check_tables(w)?;
    check_maps(w, table_ram_bits)?;
    check_every_periods(w)
}

/// Checks the tables' register CAMs against the register budget (and hashed tables' RAM against
/// the RAM budget); returns the block RAM bits the tables take.
fn check_tables(w: &ScuWriter<'_>) -> Result<u64, Error> {
    // A CAM keeps only what every lookup compares in registers (each key's value and mask or
    // bound, and a used bit); the action, data, rank and handle of a slot sit in block RAM and
    // are read once the winner is known. A hashed exact table (writer::tables_exact) keeps its
    // banks and handle table in block RAM and only its 8-entry stash in registers.
    let mut cam_total = 0u64;
    let mut payload_total = 0u64;
    let mut biggest: Option<(u64, &scenic_ir::program::Table)> = None;
    for (t, table) in &w.scu.tables {
        let Some(tc) = w.control.tables.get(cranelift_entity::EntityRef::index(t)) else {
            continue;
        };
        if tables_exact::is_hashed(table, tc) {
            let g = tables_exact::Geometry::of(tc);
            cam_total = cam_total.saturating_add(g.register_bits());
            payload_total = payload_total.saturating_add(g.ram_bits());
            ram_check(w, table, payload_total)?;
            continue;
        }
        let compared: u64 = tc.keys.iter().map(|k| u64::from(k.width) * 2).sum::<u64>() + 1;
        let bits = table.size.saturating_mul(compared);
        let payload = u64::from(tc.record_bits) + 33 + 32 + 1;
        payload_total = payload_total.saturating_add(table.size.saturating_mul(payload));
        cam_total = cam_total.saturating_add(bits);
        if biggest.is_none_or(|(b, _)| bits > b) {
            biggest = Some((bits, table));
        }
    }
    if cam_total > w.options.register_budget_bits {
        if let Some((bits, table)) = biggest {
            return Err(Error::Limit {
                scu: w.scu.name.clone(),
                what: format!(
                    "table `{}` ({} slots in a register CAM; all tables: {} flip-flops)",
                    table.name,
                    table.size,
                    thousands(cam_total)
                ),
                figure: format!("{} flip-flops", thousands(bits)),
                limit: format!(
                    "{} flip-flops for all CAMs (Options::register_budget_bits, {})",
                    thousands(w.options.register_budget_bits),
                    w.options.part
                ),
                span: table.span,
            });
        }
    }
    Ok(payload_total)
}

/// Checks the maps, added to the tables' `table_ram_bits`, against the RAM budget.
fn check_maps(w: &ScuWriter<'_>, table_ram_bits: u64) -> Result<(), Error> {
    let mut ram = table_ram_bits;
    for m in w.scu.maps.values() {
        let entry = u64::from(type_bits(w.module, w.info, &m.key))
            + u64::from(type_bits(w.module, w.info, &m.value));
        // Hashed maps keep at most half their slots full (two banks of 8-way buckets).
        let factor = if m.kind == scenic_ir::program::MapKind::Array {
            1
        } else {
            2
        };
        ram = ram.saturating_add(m.size.saturating_mul(entry).saturating_mul(factor));
        if ram > w.options.ram_budget_bits {
            return Err(Error::Limit {
                scu: w.scu.name.clone(),
                what: format!("map `{}` ({} entries of {entry} bits)", m.name, m.size),
                figure: format!("{} bits of on-chip RAM for the maps so far", thousands(ram)),
                limit: format!(
                    "{} bits (Options::ram_budget_bits, {})",
                    thousands(w.options.ram_budget_bits),
                    w.options.part
                ),
                span: w.scu.span,
            });
        }
    }
    Ok(())
}

/// Checks that no `every` block's period is shorter than one invocation of the process stage.
fn check_every_periods(w: &ScuWriter<'_>) -> Result<(), Error> {
    let invocation_ns = w.options.timing.cycle_ns() * f64::from(w.ii);
    for every in &w.scu.every {
        if (every.period_ns as f64) < invocation_ns {
            return Err(Error::Limit {
                scu: w.scu.name.clone(),
                what: "an `every` block".into(),
                figure: format!("a period of {} ns", every.period_ns),
                limit: format!(
                    "{invocation_ns:.3} ns, one invocation of the process stage (II {} at {} MHz)",
                    w.ii, w.options.timing.clock_mhz
                ),
                span: every.span,
            });
        }
    }
    Ok(())
}

/// Checks one cc's kernel against the device: its per-flow memory (state record, one 64-bit
/// word per timer or byte counter, a started bit, times `per flow[N]`) against
/// [`crate::Options::ram_budget_bits`], every timer's period against one idle scan over the
/// flow slots (N cycles), and every handler's estimated cycles — its latency, and
/// at least the kernel's II, since an event of any kind occupies the pipeline that long —
/// against the cc's `budget` (`times`: the handlers' `(part, latency, ii)` in handler order).
pub fn check_cc(
    module: &scenic_ir::Module,
    info: &scenic_ir::ModuleInfo,
    options: &crate::Options,
    cc: &scenic_ir::program::Cc,
    times: &[(String, u32, u32)],
    ii: u32,
) -> Result<(), Error> {
    let state_bits: u64 = cc
        .state
        .values()
        .map(|s| u64::from(type_bits(module, info, &s.ty)))
        .sum();
    let timer_bits = 64 * cc.timers.len() as u64;
    let per_flow = state_bits + timer_bits + 1;
    let total = cc.flows.saturating_mul(per_flow);
    if total > options.ram_budget_bits {
        return Err(Error::Limit {
            scu: cc.name.clone(),
            what: format!(
                "the per-flow state of cc `{}` ({} flows × {per_flow} bits: {state_bits} of state, \
                 {timer_bits} of timers and byte counters, 1 started bit)",
                cc.name,
                thousands(cc.flows)
            ),
            figure: format!("{} bits of on-chip RAM", thousands(total)),
            limit: format!(
                "{} bits (Options::ram_budget_bits, {})",
                thousands(options.ram_budget_bits),
                options.part
            ),
            span: cc.span,
        });
    }
    // In synthesis the idle scan visits one flow slot per cycle and fires at most one period of
    // each timer per visit, so a timer must not come due again before the scan is back.
    let scan_ns = cc.flows as f64 * options.timing.cycle_ns();
    for t in cc.timers.values() {
        if t.period.0 != scenic_ir::types::Dimension::Size && (t.period.1 as f64) < scan_ns {
            return Err(Error::Limit {
                scu: cc.name.clone(),
                what: format!("timer `{}` of cc `{}`", t.name, cc.name),
                figure: format!("a period of {} ns", t.period.1),
                limit: format!(
                    "{scan_ns:.0} ns, one scan over the {} flow slots at {} MHz",
                    thousands(cc.flows),
                    options.timing.clock_mhz
                ),
                span: cc.span,
            });
        }
    }
    let Some(budget) = cc.budget else {
        return Ok(());
    };
    for (h, (part, latency, _)) in cc.handlers.iter().zip(times) {
        let cycles = u64::from((*latency).max(ii));
        if cycles > budget {
            return Err(Error::Limit {
                scu: cc.name.clone(),
                what: format!("handler `{part}` of cc `{}`", cc.name),
                figure: format!(
                    "{cycles} cycles per event (latency {latency}, kernel II {ii}, at {} MHz)",
                    options.timing.clock_mhz
                ),
                limit: format!("its budget of {budget} cycles"),
                span: h.span,
            });
        }
    }
    Ok(())
}
