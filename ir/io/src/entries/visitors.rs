//! The serde visitors that walk an entries file: one per kind of JSON value in the format, each
//! holding the shared [`Ctx`] (path and first failure). serde_json does the parsing and positions.

use super::*;

/// The document.
pub(super) struct Doc<'c>(pub(super) &'c Ctx);
struct Tables<'c>(&'c Ctx);
struct Table<'c>(&'c Ctx);
struct EntryList<'c>(&'c Ctx);
struct EntrySeed<'c>(&'c Ctx);
struct Keys<'c>(&'c Ctx);
struct Match<'c>(&'c Ctx);
struct Uint<'c>(&'c Ctx);
struct Args<'c>(&'c Ctx);
struct DefaultAction<'c>(&'c Ctx);
struct Csrs<'c>(&'c Ctx);
struct Scalar<'c>(&'c Ctx);
struct Pair<'c>(&'c Ctx);

seed!(
    Doc,
    Tables,
    Table,
    EntryList,
    EntrySeed,
    Keys,
    Match,
    Uint,
    Args,
    DefaultAction,
    Csrs,
    Scalar,
    Pair
);

/// A JSON number as an integer, if it is one from 0 to 2^53.
fn number<E: de::Error>(ctx: &Ctx, v: u64) -> Result<u64, E> {
    if v > MAX_JSON_INTEGER {
        return Err(ctx.fail(Problem::Number(v.to_string())));
    }
    Ok(v)
}

/// Narrows to `u32`.
fn small<E: de::Error>(ctx: &Ctx, v: BigUint) -> Result<u32, E> {
    u32::try_from(&v).map_err(|_| ctx.fail(Problem::TooLarge { value: v, bits: 32 }))
}

/// Records a value error for `text`.
fn value_error<E: de::Error>(ctx: &Ctx, text: &str, error: ValueError) -> E {
    ctx.fail(Problem::Value {
        text: text.to_string(),
        error,
    })
}

impl<'de> Visitor<'de> for Doc<'_> {
    type Value = Entries;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entries object with `format_version`, `tables` and `csrs`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
        let ctx = self.0;
        let (mut version, mut doc) = (None, Entries::default());
        ctx.fields(&mut map, |map, key| {
            match key {
                "format_version" => {
                    let v = map.next_value_seed(Uint(ctx))?;
                    if v != BigUint::from(FORMAT_VERSION) {
                        return Err(ctx.fail(Problem::Version(v)));
                    }
                    version = Some(v);
                }
                "tables" => doc.tables = map.next_value_seed(Tables(ctx))?,
                "csrs" => doc.csrs = map.next_value_seed(Csrs(ctx))?,
                other => return Err(ctx.unknown(other, "format_version, tables or csrs")),
            }
            Ok(())
        })?;
        ctx.required(version, "format_version")?;
        Ok(doc)
    }
}

impl<'de> Visitor<'de> for Tables<'_> {
    type Value = IndexMap<String, TableEntries>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object mapping table names to entries")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut tables = IndexMap::new();
        self.0.fields(&mut map, |map, name| {
            tables.insert(name.to_string(), map.next_value_seed(Table(self.0))?);
            Ok(())
        })?;
        Ok(tables)
    }
}

impl<'de> Visitor<'de> for Table<'_> {
    type Value = TableEntries;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of entries, or an object with `entries` and `default`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TableEntries, A::Error> {
        let entries = EntryList(self.0).visit_seq(seq)?;
        Ok(TableEntries {
            entries,
            default: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TableEntries, A::Error> {
        let ctx = self.0;
        let mut table = TableEntries::default();
        ctx.fields(&mut map, |map, key| {
            match key {
                "entries" => table.entries = map.next_value_seed(EntryList(ctx))?,
                "default" => table.default = Some(map.next_value_seed(DefaultAction(ctx))?),
                other => return Err(ctx.unknown(other, "entries or default")),
            }
            Ok(())
        })?;
        Ok(table)
    }
}

impl<'de> Visitor<'de> for EntryList<'_> {
    type Value = Vec<Entry>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Entry>, A::Error> {
        self.0
            .elements(&mut seq, |seq| seq.next_element_seed(EntrySeed(self.0)))
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = Entry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entry object with `key`, `action`, `args` and `priority`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let ctx = self.0;
        let path = ctx.path();
        let (mut priority, mut keys, mut action, mut args) = (None, Vec::new(), None, Vec::new());
        ctx.fields(&mut map, |map, key| {
            match key {
                "priority" => priority = Some(small(ctx, map.next_value_seed(Uint(ctx))?)?),
                "key" => keys = map.next_value_seed(Keys(ctx))?,
                "action" => action = Some(map.next_value::<String>()?),
                "args" => args = map.next_value_seed(Args(ctx))?,
                other => return Err(ctx.unknown(other, "key, action, args or priority")),
            }
            Ok(())
        })?;
        let name = ctx.required(action, "action")?;
        Ok(Entry {
            priority,
            keys,
            action: ActionCall { name, args },
            path,
        })
    }
}

impl<'de> Visitor<'de> for DefaultAction<'_> {
    type Value = ActionCall;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with `action` and `args`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ActionCall, A::Error> {
        let ctx = self.0;
        let (mut action, mut args) = (None, Vec::new());
        ctx.fields(&mut map, |map, key| {
            match key {
                "action" => action = Some(map.next_value::<String>()?),
                "args" => args = map.next_value_seed(Args(ctx))?,
                other => return Err(ctx.unknown(other, "action or args")),
            }
            Ok(())
        })?;
        let name = ctx.required(action, "action")?;
        Ok(ActionCall { name, args })
    }
}

impl<'de> Visitor<'de> for Keys<'_> {
    type Value = Vec<KeyField>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object mapping key names to matches")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<KeyField>, A::Error> {
        let mut keys = Vec::new();
        self.0.fields(&mut map, |map, name| {
            let value = map.next_value_seed(Match(self.0))?;
            keys.push(KeyField {
                name: name.to_string(),
                value,
            });
            Ok(())
        })?;
        Ok(keys)
    }
}

impl<'de> Visitor<'de> for Args<'_> {
    type Value = Vec<Arg>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object mapping parameter names to values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Arg>, A::Error> {
        let mut args = Vec::new();
        self.0.fields(&mut map, |map, name| {
            let value = map.next_value_seed(Uint(self.0))?;
            args.push(Arg {
                name: name.to_string(),
                value,
            });
            Ok(())
        })?;
        Ok(args)
    }
}

impl<'de> Visitor<'de> for Match<'_> {
    type Value = MatchValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a match: a string, a number, a boolean, null or an object")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<MatchValue, E> {
        parse_match(s).map_err(|e| value_error(self.0, s, e))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<MatchValue, E> {
        Uint(self.0).visit_u64(v).map(MatchValue::Exact)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<MatchValue, E> {
        Uint(self.0).visit_i64(v).map(MatchValue::Exact)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<MatchValue, E> {
        Uint(self.0).visit_f64(v).map(MatchValue::Exact)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<MatchValue, E> {
        Ok(MatchValue::Exact(BigUint::from(u8::from(v))))
    }

    fn visit_unit<E: de::Error>(self) -> Result<MatchValue, E> {
        Ok(MatchValue::Any)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MatchValue, A::Error> {
        let ctx = self.0;
        let (mut value, mut mask, mut prefix_len, mut range) = (None, None, None, None);
        ctx.fields(&mut map, |map, key| {
            match key {
                "value" => value = Some(map.next_value_seed(Uint(ctx))?),
                "mask" => mask = Some(map.next_value_seed(Uint(ctx))?),
                "prefix_len" => prefix_len = Some(small(ctx, map.next_value_seed(Uint(ctx))?)?),
                "range" => range = Some(map.next_value_seed(Pair(ctx))?),
                other => return Err(ctx.unknown(other, "value, mask, prefix_len or range")),
            }
            Ok(())
        })?;
        match (value, mask, prefix_len, range) {
            (Some(value), Some(mask), None, None) => Ok(MatchValue::Ternary { value, mask }),
            (Some(value), None, Some(prefix_len), None) => {
                Ok(MatchValue::Lpm { value, prefix_len })
            }
            (None, None, None, Some((lo, hi))) => Ok(MatchValue::Range { lo, hi }),
            _ => Err(ctx.fail(Problem::MatchObject)),
        }
    }
}

impl<'de> Visitor<'de> for Pair<'_> {
    type Value = (BigUint, BigUint);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of two bounds [lo, hi]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ctx = self.0;
        let mut bounds = ctx.elements(&mut seq, |seq| seq.next_element_seed(Uint(ctx)))?;
        if bounds.len() != 2 {
            return Err(ctx.fail(Problem::MatchObject));
        }
        let (hi, lo) = (
            bounds.pop().unwrap_or_default(),
            bounds.pop().unwrap_or_default(),
        );
        if lo > hi {
            return Err(ctx.fail(Problem::ReversedRange { lo, hi }));
        }
        Ok((lo, hi))
    }
}

impl<'de> Visitor<'de> for Uint<'_> {
    type Value = BigUint;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative integer (a number, or a string such as \"0x2a\")")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<BigUint, E> {
        parse_uint(s).map_err(|e| value_error(self.0, s, e))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<BigUint, E> {
        number(self.0, v).map(BigUint::from)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<BigUint, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(self.0.fail(Problem::Number(v.to_string()))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<BigUint, E> {
        Err(self.0.fail(Problem::Number(v.to_string())))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<BigUint, E> {
        Ok(BigUint::from(u8::from(v)))
    }
}

impl<'de> Visitor<'de> for Csrs<'_> {
    type Value = IndexMap<String, u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object mapping CSR names to values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut csrs = IndexMap::new();
        self.0.fields(&mut map, |map, name| {
            csrs.insert(name.to_string(), map.next_value_seed(Scalar(self.0))?);
            Ok(())
        })?;
        Ok(csrs)
    }
}

impl<'de> Visitor<'de> for Scalar<'_> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a 64-bit value (a number, or a string such as \"0xff\" or \"40Mbps\")")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<u64, E> {
        parse_scalar(s).map_err(|e| value_error(self.0, s, e))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        number(self.0, v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(self.0.fail(Problem::Number(v.to_string()))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        Err(self.0.fail(Problem::Number(v.to_string())))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<u64, E> {
        Ok(u64::from(v))
    }
}
