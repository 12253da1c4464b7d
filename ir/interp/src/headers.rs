//! The header instances of one packet: validity, field values, and the parser's stack positions.
//!
//! A [`HeaderStore`] belongs to one scu and is reused for every packet it processes ([`reset`]
//! makes every instance invalid again), so a packet allocates nothing here. Field values are
//! read lazily: an extracted header only records where it sits in the packet, its fields are read
//! from the packet's bytes when the program reads them, and the deparser copies the original bytes
//! back unless a field was written. Only a write (or a whole-header assignment) copies the fields
//! into the element's own storage.
//!
//! Invariants: an element whose source is `Src::Wire` lies entirely inside the packet it was
//! extracted from (extraction checks the length first) and the store is only read with that
//! packet's bytes; `Src::Owned` fields have their layout's widths; a reset element reads as
//! invalid with zero fields, as `docs/interpreter.md` specifies for a fresh packet.
//!
//! [`reset`]: HeaderStore::reset

use super::value::{width_of, HeaderVal};
use cranelift_entity::EntityRef;
use scenic_ir::entities::InstId;
use scenic_ir::proc::bits::{read_bits, read_field, read_field_u64, write_bits, Bits};
use scenic_ir::program::{Module, Scu};

/// Where the field values of a header element are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// All zero (a fresh element, or `set_valid()`).
    Zero,
    /// In the packet, from this bit offset (an extracted header nobody wrote to).
    Wire(usize),
    /// In the element's `fields`.
    Owned,
}

/// One element of a header instance (the only one of a plain instance).
#[derive(Clone, Debug)]
struct Slot {
    valid: bool,
    src: Src,
    /// The field values when `src` is `Owned` (allocated once, overwritten in place).
    fields: Vec<Bits>,
}

/// The wire layout of a header: each field's bit offset and width, and the total width.
#[derive(Clone, Debug)]
struct Layout {
    fields: Vec<(usize, u32)>,
    bits: usize,
    /// The fields tile the header exactly, so an untouched header's bytes are its fields'.
    tiled: bool,
}

/// No place in the emit order.
const NOT_EMITTED: u32 = u32::MAX;

/// Whether the packet's headers, as deparsed, are still its own first bytes (see
/// [`HeaderStore::unchanged_prefix`]).
#[derive(Clone, Debug, Default)]
struct Prefix {
    /// Each instance's place in the deparser's emit order ([`NOT_EMITTED`] for none); empty when
    /// the deparser does more than emit.
    rank: Vec<u32>,
    /// Every extraction so far continued the one before, in emit order, and nothing has changed a
    /// header.
    intact: bool,
    /// Where the last extracted header ends, in bits.
    end: usize,
    /// The emit place of the last extracted instance.
    last: Option<u32>,
}

/// The headers of one scu's packet. See the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub struct HeaderStore {
    slots: Vec<Slot>,
    /// For each instance: its first slot, its number of elements (1, or a stack's size), its
    /// layout (an index into `layouts`) and whether it is a stack.
    insts: Vec<Inst>,
    layouts: Vec<Layout>,
    /// Stack elements filled so far, per instance.
    filled: Vec<usize>,
    prefix: Prefix,
}

#[derive(Clone, Copy, Debug)]
struct Inst {
    first: usize,
    count: usize,
    layout: usize,
    stack: bool,
}

/// Where a field of a plain (non-stack) instance is, resolved when code is compiled
/// ([`HeaderStore::locate`]) so that a read goes straight to its slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldLoc {
    slot: usize,
    field: usize,
    offset: usize,
    width: u32,
}

impl FieldLoc {
    /// The field's width in bits.
    pub(crate) fn width(&self) -> u32 {
        self.width
    }
}

/// Where a plain instance goes and how long it is, resolved when code is compiled
/// ([`HeaderStore::extraction`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extraction {
    inst: InstId,
    slot: usize,
    bits: usize,
    tiled: bool,
}

/// Why an extraction failed (the parser error it raises).
pub type ExtractError = &'static str;

impl HeaderStore {
    /// The store for `scu`'s instances, every element invalid.
    pub fn new(module: &Module, scu: &Scu) -> HeaderStore {
        let mut store = HeaderStore::default();
        for inst in scu.instances.values() {
            let Some(header) = module.headers.get(inst.header) else {
                continue;
            };
            let fields: Vec<(usize, u32)> = header
                .fields
                .iter()
                .map(|f| (f.offset as usize, width_of(&f.ty, module)))
                .collect();
            let bits = header.bits as usize;
            let mut end = 0;
            let tiled = fields.iter().all(|&(offset, width)| {
                let next = offset == end;
                end = offset + width as usize;
                next
            }) && end == bits
                && bits % 8 == 0;
            let layout = Layout {
                fields,
                bits,
                tiled,
            };
            let zeros: Vec<Bits> = layout.fields.iter().map(|(_, w)| Bits::zero(*w)).collect();
            let count = inst.stack.map_or(1, |n| n as usize);
            store.insts.push(Inst {
                first: store.slots.len(),
                count,
                layout: store.layouts.len(),
                stack: inst.stack.is_some(),
            });
            store.layouts.push(layout);
            store.slots.extend((0..count).map(|_| Slot {
                valid: false,
                src: Src::Zero,
                fields: zeros.clone(),
            }));
        }
        store.filled = vec![0; store.insts.len()];
        store
    }

    /// Makes every element invalid with zero fields and empties every stack (a new packet).
    pub fn reset(&mut self) {
        for slot in &mut self.slots {
            slot.valid = false;
            slot.src = Src::Zero;
        }
        self.filled.fill(0);
        self.prefix.intact = !self.prefix.rank.is_empty();
        self.prefix.end = 0;
        self.prefix.last = None;
    }

    /// The slot of element `i` of `inst` and the instance's layout.
    #[inline]
    fn slot(&self, inst: InstId, i: usize) -> Option<(&Slot, &Layout)> {
        let info = self.insts.get(inst.index())?;
        if i >= info.count {
            return None;
        }
        Some((
            self.slots.get(info.first + i)?,
            self.layouts.get(info.layout)?,
        ))
    }

    /// Whether element `i` of `inst` is valid.
    #[inline]
    pub fn valid(&self, inst: InstId, i: usize) -> bool {
        self.slot(inst, i).is_some_and(|(s, _)| s.valid)
    }

    /// Field `f` of element `i` of `inst`: zero when the element is invalid. `data` is the packet.
    #[inline]
    pub fn field(&self, data: &[u8], inst: InstId, i: usize, f: u32) -> Bits {
        let Some((slot, layout)) = self.slot(inst, i) else {
            return Bits::zero(1);
        };
        let Some(&(offset, width)) = layout.fields.get(f as usize) else {
            return Bits::zero(1);
        };
        if !slot.valid {
            return Bits::zero(width);
        }
        match slot.src {
            Src::Wire(base) => read_field(data, base + offset, width),
            Src::Owned => slot
                .fields
                .get(f as usize)
                .cloned()
                .unwrap_or_else(|| Bits::zero(width)),
            Src::Zero => Bits::zero(width),
        }
    }

    /// Where field `f` of plain instance `inst` is, in every store made by [`HeaderStore::new`]
    /// for the same scu (the layout depends only on the scu); `None` for a stack or a field that
    /// does not exist.
    pub(crate) fn locate(&self, inst: InstId, f: u32) -> Option<FieldLoc> {
        let info = self.insts.get(inst.index())?;
        if info.stack {
            return None;
        }
        let &(offset, width) = self.layouts.get(info.layout)?.fields.get(f as usize)?;
        Some(FieldLoc {
            slot: info.first,
            field: f as usize,
            offset,
            width,
        })
    }

    /// How to extract a plain (non-stack) instance, resolved when code is compiled.
    pub(crate) fn extraction(&self, inst: InstId) -> Option<Extraction> {
        let info = self.insts.get(inst.index())?;
        if info.stack {
            return None;
        }
        let layout = self.layouts.get(info.layout)?;
        Some(Extraction {
            inst,
            slot: info.first,
            bits: layout.bits,
            tiled: layout.tiled,
        })
    }

    /// [`HeaderStore::extract`] of the plain instance `x` describes.
    #[inline]
    pub(crate) fn extract_plain(
        &mut self,
        data: &[u8],
        cursor: usize,
        x: Extraction,
    ) -> Result<usize, ExtractError> {
        if cursor + x.bits > data.len() * 8 {
            return Err("packet_too_short");
        }
        self.note_extraction(x.inst, false, x.tiled, cursor, x.bits);
        if let Some(slot) = self.slots.get_mut(x.slot) {
            slot.valid = true;
            slot.src = Src::Wire(cursor);
        }
        Ok(x.bits)
    }

    /// The field at `loc` (see [`HeaderStore::field`]).
    #[inline(always)]
    pub(crate) fn field_at(&self, data: &[u8], loc: FieldLoc) -> Bits {
        match self.slots.get(loc.slot) {
            Some(slot) if slot.valid => match slot.src {
                Src::Wire(base) => read_field(data, base + loc.offset, loc.width),
                Src::Owned => slot
                    .fields
                    .get(loc.field)
                    .cloned()
                    .unwrap_or_else(|| Bits::zero(loc.width)),
                Src::Zero => Bits::zero(loc.width),
            },
            _ => Bits::zero(loc.width),
        }
    }

    /// The field at `loc` as a `u64` (for fields of at most 64 bits: see [`FieldLoc::width`]).
    #[inline(always)]
    pub(crate) fn field_u64_at(&self, data: &[u8], loc: FieldLoc) -> u64 {
        match self.slots.get(loc.slot) {
            Some(slot) if slot.valid => match slot.src {
                Src::Wire(base) => read_field_u64(data, base + loc.offset, loc.width),
                Src::Owned => slot.fields.get(loc.field).map_or(0, Bits::to_u64),
                Src::Zero => 0,
            },
            _ => 0,
        }
    }

    /// The mutable slot of element `i` of `inst`, its fields made the element's own.
    fn owned(&mut self, data: &[u8], inst: InstId, i: usize) -> Option<&mut Slot> {
        self.prefix.intact = false;
        let info = *self.insts.get(inst.index())?;
        if i >= info.count {
            return None;
        }
        let layout = self.layouts.get(info.layout)?;
        let slot = self.slots.get_mut(info.first + i)?;
        match slot.src {
            Src::Owned => {}
            Src::Wire(base) => {
                for (value, &(offset, width)) in slot.fields.iter_mut().zip(&layout.fields) {
                    *value = read_bits(data, base + offset, width);
                }
            }
            Src::Zero => {
                for (value, &(_, width)) in slot.fields.iter_mut().zip(&layout.fields) {
                    *value = Bits::zero(width);
                }
            }
        }
        slot.src = Src::Owned;
        Some(slot)
    }

    /// Writes field `f` of element `i` of `inst` (resized to the field's width); ignored when the
    /// element is invalid.
    pub fn set_field(&mut self, data: &[u8], inst: InstId, i: usize, f: u32, value: &Bits) {
        if !self.valid(inst, i) {
            return;
        }
        if let Some(slot) = self.owned(data, inst, i) {
            if let Some(field) = slot.fields.get_mut(f as usize) {
                *field = value.resize(field.width());
            }
        }
    }

    /// Element `i` of `inst` as a value (its fields even when invalid, as a header value keeps
    /// them).
    pub fn value(&self, data: &[u8], inst: InstId, i: usize) -> HeaderVal {
        let Some((slot, layout)) = self.slot(inst, i) else {
            return HeaderVal {
                valid: false,
                fields: Vec::new(),
            };
        };
        let fields = match slot.src {
            Src::Owned => slot.fields.clone(),
            Src::Wire(base) => layout
                .fields
                .iter()
                .map(|&(offset, width)| read_bits(data, base + offset, width))
                .collect(),
            Src::Zero => layout.fields.iter().map(|&(_, w)| Bits::zero(w)).collect(),
        };
        HeaderVal {
            valid: slot.valid,
            fields,
        }
    }

    /// Replaces element `i` of `inst` by a header value (validity included); each field is
    /// resized to the layout's width.
    pub fn set_value(&mut self, inst: InstId, i: usize, value: &HeaderVal) {
        self.prefix.intact = false;
        let Some(info) = self.insts.get(inst.index()).copied() else {
            return;
        };
        if i >= info.count {
            return;
        }
        if let Some(slot) = self.slots.get_mut(info.first + i) {
            slot.valid = value.valid;
            slot.src = Src::Owned;
            for (k, field) in slot.fields.iter_mut().enumerate() {
                *field = match value.fields.get(k) {
                    Some(v) => v.resize(field.width()),
                    None => Bits::zero(field.width()),
                };
            }
        }
    }

    /// `set_valid()` or `set_invalid()` (fields kept) of element `i`. `set_valid()` makes an invalid
    /// element valid with zero fields and leaves a valid one unchanged (language.md §3.6).
    pub fn set_valid(&mut self, inst: InstId, i: usize, valid: bool) {
        let Some(info) = self.insts.get(inst.index()).copied() else {
            return;
        };
        if i >= info.count {
            return;
        }
        if let Some(slot) = self.slots.get_mut(info.first + i) {
            if valid && slot.valid {
                return;
            }
            self.prefix.intact = false;
            slot.valid = valid;
            if valid {
                slot.src = Src::Zero;
            }
        }
    }

    /// Extracts `inst` (a stack's next element) at bit `cursor` of `data`; the header's width in
    /// bits, or the parser error: `stack_overflow` for a full stack, `packet_too_short` when the
    /// packet ends first.
    #[inline]
    pub fn extract(
        &mut self,
        data: &[u8],
        cursor: usize,
        inst: InstId,
    ) -> Result<usize, ExtractError> {
        let Some(info) = self.insts.get(inst.index()).copied() else {
            return Ok(0);
        };
        let element = if info.stack {
            self.filled.get(inst.index()).copied().unwrap_or(0)
        } else {
            0
        };
        if element >= info.count {
            return Err("stack_overflow");
        }
        let (bits, tiled) = self
            .layouts
            .get(info.layout)
            .map_or((0, false), |l| (l.bits, l.tiled));
        if cursor + bits > data.len() * 8 {
            return Err("packet_too_short");
        }
        self.note_extraction(inst, info.stack, tiled, cursor, bits);
        if let Some(slot) = self.slots.get_mut(info.first + element) {
            slot.valid = true;
            slot.src = Src::Wire(cursor);
        }
        if info.stack {
            if let Some(n) = self.filled.get_mut(inst.index()) {
                *n += 1;
            }
        }
        Ok(bits)
    }

    /// Appends the valid elements of `inst`, in index order, to `out` (the deparser's `emit`).
    pub fn emit(&self, data: &[u8], inst: InstId, out: &mut Vec<u8>) {
        let Some(info) = self.insts.get(inst.index()) else {
            return;
        };
        let Some(layout) = self.layouts.get(info.layout) else {
            return;
        };
        let bytes = layout.bits / 8;
        for slot in self.slots.iter().skip(info.first).take(info.count) {
            if !slot.valid {
                continue;
            }
            match slot.src {
                Src::Wire(base) if base % 8 == 0 && layout.tiled => {
                    // Untouched since extraction: the packet's own bytes.
                    let start = base / 8;
                    match data.get(start..start + bytes) {
                        Some(original) => out.extend_from_slice(original),
                        None => out.resize(out.len() + bytes, 0),
                    }
                }
                _ => {
                    let start = out.len();
                    out.resize(start + bytes, 0);
                    let Some(dst) = out.get_mut(start..) else {
                        continue;
                    };
                    for (k, &(offset, width)) in layout.fields.iter().enumerate() {
                        let value = match slot.src {
                            Src::Wire(base) => read_bits(data, base + offset, width),
                            Src::Owned => slot.fields.get(k).cloned().unwrap_or(Bits::zero(width)),
                            Src::Zero => continue,
                        };
                        write_bits(dst, offset, &value);
                    }
                }
            }
        }
    }

    /// Says which instances the deparser emits, in order (`None`: it does more than emit, so
    /// [`HeaderStore::unchanged_prefix`] is never true). An instance emitted twice also turns it
    /// off.
    pub fn set_emit_order(&mut self, order: Option<&[InstId]>) {
        self.prefix.rank.clear();
        let Some(order) = order else { return };
        let mut rank = vec![NOT_EMITTED; self.insts.len()];
        for (k, inst) in order.iter().enumerate() {
            match rank.get_mut(inst.index()) {
                Some(r) if *r == NOT_EMITTED => *r = k as u32,
                _ => return,
            }
        }
        self.prefix.rank = rank;
    }

    /// Whether deparsing (emitting the instances of [`HeaderStore::set_emit_order`]) would give
    /// exactly the packet's first `cursor` bits: every extraction so far continued the one before
    /// from bit 0, in emit order, each of a tiled byte-sized layout, nothing has changed a header
    /// since, and the parser stopped where the last header ended.
    pub fn unchanged_prefix(&self, cursor: usize) -> bool {
        self.prefix.intact && self.prefix.end == cursor
    }

    /// Records the extraction of `inst` (a stack if `stack`) at `cursor`, `bits` long, in the
    /// knowledge of [`HeaderStore::unchanged_prefix`].
    #[inline]
    fn note_extraction(
        &mut self,
        inst: InstId,
        stack: bool,
        tiled: bool,
        cursor: usize,
        bits: usize,
    ) {
        let p = &mut self.prefix;
        if !p.intact {
            return;
        }
        let rank = p.rank.get(inst.index()).copied().unwrap_or(NOT_EMITTED);
        let in_order = match p.last {
            None => true,
            Some(last) => rank > last || (rank == last && stack),
        };
        p.intact = rank != NOT_EMITTED && in_order && tiled && cursor == p.end;
        p.end = cursor + bits;
        p.last = Some(rank);
    }

    /// The number of instances.
    pub fn instances(&self) -> usize {
        self.insts.len()
    }
}
