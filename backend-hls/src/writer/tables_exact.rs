//! Large exact tables: a table whose keys are all `exact` and whose size is above
//! [`CAM_MAX_SLOTS`] becomes a hash in block RAM (`scenic::exact_table`,
//! `include/scenic_exact_table.hpp`) instead of the register CAM of [`super::tables`].
//!
//! **Why 64.** The timing model (`scenic_timing`, docs/timing.md) charges an exact table 3
//! cycles at any size, and a CAM 3 cycles only up to 64 slots (each 4× more slots adds a level to
//! its priority tree). Above 64 slots a CAM would make the manifest's latency and II untrue, and
//! it would spend registers linearly (a 4096-slot 5-tuple CAM: 4096 × 209 compared bits = 856,064
//! flip-flops as limits.rs counts them, a third of the U55C's); the hash probes two 8-way buckets and an 8-entry stash, 3
//! cycles and a fixed 24-way compare whatever the size. At ≤ 64 slots the CAM is cheap (≤ 13,376
//! flip-flops for a 5-tuple) while any hash costs 2 × 8 key and 2 × 8 payload BRAM arrays.
//!
//! **What the generated struct keeps.** The same interface as a CAM struct (`init`, `lookup`,
//! `insert`, `modify`, `remove`, `clear`, `set_default`), so the control decoder, `init_state` and
//! the `apply_*` functions are shared. The hash maps the packed key to the entry's action and data;
//! a handle table (BRAM, one row per slot of the declared size) maps each run-time entry's handle
//! to its key, because the host removes and modifies entries by handle
//! (`scenic_scu_abi::control::Op::TableRemove`, `TableModify`) while the hash works by key. A
//! modification rewrites the entry's data where it is stored (`exact_table::update`): no row,
//! generation or slot moves. A handle is `generation << HB | row`: rows are reused in FIFO
//! order and a row's generation moves on when its entry leaves, so a stale handle is refused
//! (`NOT_FOUND`) until 2^32 adds later, like the CAM's 32-bit handle counter.
//!
//! **Packed key.** Element 0 most significant; each element is its value followed by one "any"
//! bit (the record's aux bit). Lookups set every "any" bit to 0, so an entry added with `_` on a
//! key wider than one bit never matches, and two such entries are duplicates — the interpreter's
//! `exact_value` (a 1-bit zero for "any") gives the same answers.
//!
//! **Invariants.** Statuses are the CAM's and the interpreter's: `FULL` when the table holds
//! `size` entries, constant ones included (checked first), then `DUPLICATE` for a present key.
//! The hash is sized for at most 50% load at `size` entries ([`Geometry`]), so the bucketed
//! cuckoo walk and the stash place every key of any realistic key set; `scenic::TABLE_OVERFLOW`
//! (status 11, which is no `scenic_scu_abi::control::Status`) is the one way the kernel could differ
//! from the interpreter, and it is never silent: the host (and the C-simulation device) sees an
//! unknown status, and `store.overflows()` counts it. A fixed hash cannot exclude it for every key
//! set: 25 keys chosen to share both candidate buckets (CRC is linear, so they are easy to
//! construct) fill 16 ways and 8 stash slots. For keys that are not so chosen, an overflow needs
//! nine insertions whose 64-step cuckoo walks all fail at ≤ 50% load, which the support
//! library's fills (random, sequential and strided keys, to 90% load) never produced.

use super::tables::{args_bits, args_lo};
use super::{Code, ScuWriter};
use crate::Error;
use scenic_ir::entities::TableId;
use scenic_ir::program::Table;
use scenic_scu_abi::control::{TableControl, TableStrategy};

/// The largest exact table kept in a register CAM; larger ones are hashed in BRAM.
pub const CAM_MAX_SLOTS: u64 = 64;

/// The hash's ways per bucket and stash slots (`scenic::exact_table`'s `WAYS` and `STASH`).
const WAYS: u64 = 8;
const STASH: u64 = 8;

/// Whether the table is hashed in BRAM rather than a register CAM.
pub fn is_hashed(table: &Table, tc: &TableControl) -> bool {
    tc.strategy == TableStrategy::Exact && !tc.keys.is_empty() && table.size > CAM_MAX_SLOTS
}

/// The sizes of a hashed table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Declared entries (constant ones included).
    pub size: u64,
    /// Buckets per bank: the least power of two with `2 × 8 × buckets ≥ 2 × size`.
    pub buckets: u64,
    /// The `N` passed to `scenic::exact_table`, chosen so that its own sizing rule
    /// (`pow2_ceil(ceil(10 N / 144))` buckets) gives `buckets`; its own full check (at `N`)
    /// never fires before the table's (at `size`).
    pub hash_n: u64,
    /// Bits of the packed key (each element's value and its "any" bit).
    pub key_bits: u32,
    /// Bits of the stored data (action position and arguments).
    pub data_bits: u32,
    /// Bits of a handle's row index.
    pub row_bits: u32,
}

impl Geometry {
    /// The geometry of a hashed table.
    pub fn of(tc: &TableControl) -> Geometry {
        let size = tc.size.max(1);
        // Sizes come from the program: saturate rather than overflow (limits.rs refuses them).
        let buckets = size
            .div_ceil(WAYS)
            .checked_next_power_of_two()
            .unwrap_or(1 << 63);
        Geometry {
            size,
            buckets,
            hash_n: (buckets.saturating_mul(144) / 10).max(size),
            key_bits: tc.keys.iter().map(|k| k.width + 1).sum(),
            data_bits: 8 + args_bits(tc),
            row_bits: (64 - (size - 1).leading_zeros()).max(1),
        }
    }

    /// Block RAM bits: both banks (key, data, valid and constant flags per way) and the handle
    /// table (key, used flag, generation and free-list row per row).
    pub fn ram_bits(&self) -> u64 {
        let banks = (self.buckets.saturating_mul(2 * WAYS))
            .saturating_mul(u64::from(self.key_bits + self.data_bits + 2));
        let handles = self.size.saturating_mul(u64::from(self.key_bits + 1 + 32));
        banks.saturating_add(handles)
    }

    /// Register bits: the stash (key, data, two candidate buckets, valid and constant flags).
    pub fn register_bits(&self) -> u64 {
        let bbits = 64 - (self.buckets - 1).leading_zeros();
        STASH * u64::from(self.key_bits + self.data_bits + 2 * bbits + 2)
    }

    /// Most keys the hash could hold: both banks and the stash.
    fn hash_slots(&self) -> u64 {
        self.buckets.saturating_mul(2 * WAYS).saturating_add(STASH)
    }
}

/// Where each key element sits in the packed key: (value's lowest bit, "any" bit).
fn key_offsets(tc: &TableControl) -> Vec<(u32, u32)> {
    let mut at = 0;
    let mut out: Vec<(u32, u32)> = tc
        .keys
        .iter()
        .rev()
        .map(|k| {
            let o = (at + 1, at);
            at += k.width + 1;
            o
        })
        .collect();
    out.reverse();
    out
}

/// Writes a hashed table's struct.
pub fn write_table(
    w: &ScuWriter<'_>,
    c: &mut Code,
    t: TableId,
    tc: &TableControl,
) -> Result<(), Error> {
    let table = &w.scu.tables[t];
    let g = Geometry::of(tc);
    if g.row_bits > 24 {
        return Err(w.unsupported(
            format!(
                "table `{}` of {} entries (a handle needs 8 generation bits)",
                table.name, table.size
            ),
            table.span,
        ));
    }
    let place = w
        .loc(table.span)
        .map_or(String::new(), |l| format!(" ({l})"));
    c.line(format!(
        "// table {}{place}, {} entries, all keys exact: a hash in block RAM (scenic::exact_table),",
        table.name, table.size
    ));
    c.line(format!(
        "// 2 banks x {} buckets x 8 ways + an 8-entry stash ({} keys), at most 50% full at {}",
        g.buckets,
        g.hash_slots(),
        table.size
    ));
    c.line(format!(
        "// entries; {} bits of BRAM with the handle table. Lookup: 3 cycles at any size.",
        g.ram_bits()
    ));
    c.open(format!("struct {}", w.names.table_ty[t]));
    c.line(format!("static const int SLOTS = {};", table.size));
    c.line(format!(
        "static const int RECORD_BITS = {};",
        tc.record_bits
    ));
    c.line(format!("static const int ARG_BITS = {};", args_bits(tc)));
    c.line(format!(
        "static const int KW = {};  // packed key: per element, value then an \"any\" bit",
        g.key_bits
    ));
    c.line(format!(
        "static const int HB = {};  // handle = generation << HB | row",
        g.row_bits
    ));
    c.line("typedef ap_uint<8 + ARG_BITS> data_t;  // action position, arguments above it");
    c.line(format!(
        "scenic::exact_table<KW, data_t, {}> store;  // sized for {} buckets per bank",
        g.hash_n, g.buckets
    ));
    c.line("ap_uint<KW> hkey[SLOTS];  // run-time entries by handle row: the key");
    c.line("bool hused[SLOTS];");
    c.line("ap_uint<32 - HB> hgen[SLOTS];  // the row's generation, never 0");
    c.line("ap_uint<HB> ring[SLOTS];  // free rows, oldest first");
    c.line("int rhead;");
    c.line("int rfree;");
    c.line("ap_uint<8> def_act;");
    c.line("ap_uint<ARG_BITS> def_args;");
    c.blank();
    write_init(w, c, t, tc)?;
    write_lookup(c, tc);
    write_insert(c, tc);
    write_modify(c, tc);
    write_remove(c);
    c.close(";");
    c.blank();
    Ok(())
}

fn write_init(w: &ScuWriter<'_>, c: &mut Code, t: TableId, tc: &TableControl) -> Result<(), Error> {
    let table = &w.scu.tables[t];
    c.line("// Handle rows, the default action and the constant entries (in source order).");
    c.open("void init()");
    c.open("for (int i = 0; i < SLOTS; ++i)");
    c.line("hgen[i] = 1;");
    c.close("");
    c.line("free_rows();");
    super::tables::write_default_and_constants(w, c, table, tc)?;
    c.close("");
    c.blank();
    c.line("// Every row free, in row order (at init and after clear).");
    c.open("void free_rows()");
    c.open("for (int i = 0; i < SLOTS; ++i)");
    c.line("hused[i] = false;");
    c.line("ring[i] = i;");
    c.close("");
    c.line("rhead = 0;");
    c.line("rfree = SLOTS;");
    c.close("");
    c.blank();
    Ok(())
}

fn write_lookup(c: &mut Code, tc: &TableControl) {
    let params: Vec<String> = tc
        .keys
        .iter()
        .enumerate()
        .map(|(i, k)| format!("const ap_uint<{}>& k{i}", k.width))
        .collect();
    c.line("// The entry's action and data, or the default's; whether there was one.");
    c.open(format!(
        "bool lookup({}, ap_uint<8>& a, ap_uint<ARG_BITS>& d)",
        params.join(", ")
    ));
    c.line("#pragma HLS BIND_STORAGE variable=hkey type=RAM_2P impl=BRAM");
    c.line("#pragma HLS BIND_STORAGE variable=hgen type=RAM_2P impl=BRAM");
    c.line("#pragma HLS BIND_STORAGE variable=ring type=RAM_2P impl=BRAM");
    c.line("ap_uint<KW> key = 0;  // the \"any\" bits stay 0: an \"any\" entry never matches");
    for (i, (k, (lo, _))) in tc.keys.iter().zip(key_offsets(tc)).enumerate() {
        c.line(format!("key.range({}, {lo}) = k{i};", lo + k.width - 1));
    }
    c.line("data_t v = 0;");
    c.line("bool hit = store.lookup(key, v);");
    c.line("a = hit ? ap_uint<8>(v.range(7, 0)) : def_act;");
    c.line("d = hit ? ap_uint<ARG_BITS>(v.range(8 + ARG_BITS - 1, 8)) : def_args;");
    c.line("return hit;");
    c.close("");
    c.blank();
}

fn write_insert(c: &mut Code, tc: &TableControl) {
    let alo = args_lo(tc);
    c.line("// Adds an entry record (scenic_ir::control): a status code and the entry's handle.");
    c.line("// FULL (constant entries count) before DUPLICATE, as the interpreter; scenic::");
    c.line(
        "// TABLE_OVERFLOW (11) only if the hash cannot place a key below the size (see above).",
    );
    c.open("ap_uint<8> insert(const ap_uint<RECORD_BITS>& rec, bool is_const, ap_uint<32>& h)");
    c.line("h = 0;");
    c.open("if (!is_const && (store.size() >= SLOTS || rfree == 0))");
    c.line("return ST_FULL;");
    c.close("");
    c.line("ap_uint<KW> key = 0;");
    for (k, (lo, any)) in tc.keys.iter().zip(key_offsets(tc)) {
        c.line(format!(
            "key.range({}, {lo}) = rec.range({}, {});",
            lo + k.width - 1,
            k.value.lo + k.width - 1,
            k.value.lo
        ));
        c.line(format!("key[{any}] = rec[{}];", k.aux.lo));
    }
    write_data_of_record(c, tc);
    c.open("if (is_const)");
    c.line("return status(store.insert_const(key, v));");
    c.close("");
    c.line("ap_uint<8> r = status(store.insert(key, v));");
    c.open("if (r != ST_OK)");
    c.line("return r;");
    c.close("");
    c.line("ap_uint<HB> row = ring[rhead];");
    c.line("rhead = rhead + 1 == SLOTS ? 0 : rhead + 1;");
    c.line("rfree--;");
    c.line("hused[row] = true;");
    c.line("hkey[row] = key;");
    c.line("h = (ap_uint<32>(hgen[row]) << HB) | ap_uint<32>(row);");
    c.line("return ST_OK;");
    c.close("");
    c.blank();
    c.line(
        "// The library's codes as scenic_ir::control statuses (OVERFLOW has none: kept as 11).",
    );
    c.open("static ap_uint<8> status(const ap_uint<8>& r)");
    c.open("if (r == scenic::TABLE_OK)");
    c.line("return ST_OK;");
    c.close("");
    c.open("if (r == scenic::TABLE_FULL)");
    c.line("return ST_FULL;");
    c.close("");
    c.open("if (r == scenic::TABLE_DUPLICATE)");
    c.line("return ST_DUPLICATE;");
    c.close("");
    c.line("return r;");
    c.close("");
    c.blank();
    c.open("void set_default(const ap_uint<RECORD_BITS>& rec)");
    c.line("def_act = rec.range(7, 0);");
    if tc.record_bits > alo {
        c.line(format!("def_args = rec.range(RECORD_BITS - 1, {alo});"));
    } else {
        c.line("def_args = 0;");
    }
    c.close("");
    c.blank();
}

/// Declares `v`, the stored data (action position, then arguments) of the record `rec`.
fn write_data_of_record(c: &mut Code, tc: &TableControl) {
    let alo = args_lo(tc);
    c.line("data_t v = 0;");
    c.line("v.range(7, 0) = rec.range(7, 0);");
    if tc.record_bits > alo {
        c.line(format!(
            "v.range({}, 8) = rec.range(RECORD_BITS - 1, {alo});",
            8 + tc.record_bits - alo - 1
        ));
    }
}

/// `modify`: the run-time entry with handle `h` takes a record's action and arguments, stored in
/// place under its key (no row, generation or hash slot moves).
fn write_modify(c: &mut Code, tc: &TableControl) {
    c.line("// Replaces the action and data of the run-time entry with handle `h` by a record's");
    c.line("// (its key, row and generation stay); whether there was one.");
    c.open("bool modify(const ap_uint<32>& h, const ap_uint<RECORD_BITS>& rec)");
    c.line("ap_uint<32> row = h.range(HB - 1, 0);");
    c.line("ap_uint<32 - HB> gen = h.range(31, HB);");
    c.open("if (row >= SLOTS || !hused[row] || hgen[row] != gen)");
    c.line("return false;");
    c.close("");
    write_data_of_record(c, tc);
    c.line("// Present: a row is used exactly while its entry is in the hash.");
    c.line("return store.update(hkey[row], v);");
    c.close("");
    c.blank();
}

fn write_remove(c: &mut Code) {
    c.line("// Removes the run-time entry with handle `h`; whether there was one.");
    c.open("bool remove(const ap_uint<32>& h)");
    c.line("ap_uint<32> row = h.range(HB - 1, 0);");
    c.line("ap_uint<32 - HB> gen = h.range(31, HB);");
    c.open("if (row >= SLOTS || !hused[row] || hgen[row] != gen)");
    c.line("return false;");
    c.close("");
    c.line("// Present: a row is used exactly while its entry is in the hash.");
    c.line("store.remove(hkey[row]);");
    c.line("hused[row] = false;");
    c.line("hgen[row] = next_gen(hgen[row]);");
    c.line("int tail = rhead + rfree;");
    c.line("ring[tail >= SLOTS ? tail - SLOTS : tail] = row;");
    c.line("rfree++;");
    c.line("return true;");
    c.close("");
    c.blank();
    c.line("// Removes every run-time entry; constant ones stay. Every used row's handle expires.");
    c.open("void clear()");
    c.line("store.clear();");
    c.open("for (int i = 0; i < SLOTS; ++i)");
    c.open("if (hused[i])");
    c.line("hgen[i] = next_gen(hgen[i]);");
    c.close("");
    c.close("");
    c.line("free_rows();");
    c.close("");
    c.blank();
    c.line("// A row's next generation: wraps past the top to 1 (0 is no handle's).");
    c.open("static ap_uint<32 - HB> next_gen(const ap_uint<32 - HB>& g)");
    c.line("ap_uint<32 - HB> n = g + 1;");
    c.line("return n == 0 ? ap_uint<32 - HB>(1) : n;");
    c.close("");
}
