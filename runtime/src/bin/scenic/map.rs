//! `scenic map NAME SLOT MAP [get KEY | del KEY] [--json]`: a map of the slot's active bank; with
//! no subcommand every entry (the unit's iteration order). Values are shown field by field.

use num_bigint::BigUint;
use scenic_runtime::Scu;
use scenic_scu_abi::control::{get_field, MapControl};
use serde_json::json;

use crate::common::{attach, finish, open, slot_package, Failure};

/// What to do (nothing: list every entry).
#[derive(clap::Subcommand, Debug)]
pub enum MapAction {
    /// Looks a key up (no LRU refresh).
    Get {
        /// The key (decimal, `0x`, `0b`, an address).
        key: String,
    },
    /// Removes a key.
    Del {
        /// The key.
        key: String,
    },
}

/// Runs the command; the exit code.
pub fn run(name: &str, slot: u8, map: &str, action: Option<&MapAction>, as_json: bool) -> u8 {
    finish(show(name, slot, map, action, as_json))
}

fn fields(m: &MapControl, value: &BigUint) -> serde_json::Map<String, serde_json::Value> {
    let prefix = format!("{}.", m.name);
    m.value_fields
        .iter()
        .map(|f| {
            let name = f.name.strip_prefix(&prefix).unwrap_or(&f.name).to_string();
            let v = get_field(value, f.lo, f.width);
            let shown = match u64::try_from(&v) {
                Ok(n) => json!(n),
                Err(_) => json!(format!("{v:#x}")),
            };
            (name, shown)
        })
        .collect()
}

fn line(key: &BigUint, m: &MapControl, value: &BigUint) -> String {
    let f: Vec<String> = fields(m, value)
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    format!("{key:#x}: {}", f.join(", "))
}

fn parse_key(text: &str) -> Result<BigUint, Failure> {
    scenic_io::value::parse_uint(text).map_err(|e| Failure::new(format!("key `{text}`: {e}")))
}

fn show(
    name: &str,
    slot: u8,
    map: &str,
    action: Option<&MapAction>,
    as_json: bool,
) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let (pkg, unit) = slot_package(name, &state, slot)?;
    let scu = attach(&dev, &state, slot, &pkg, &unit)?;
    let m = scu.map(map)?.clone();
    match action {
        Some(MapAction::Get { key }) => get(&scu, &m, key, as_json),
        Some(MapAction::Del { key }) => {
            let k = parse_key(key)?;
            if scu.map_remove(map, &k)? {
                println!("removed {k:#x} from `{map}`");
                Ok(())
            } else {
                Err(Failure::new(format!("map `{map}` has no key {k:#x}")))
            }
        }
        None => {
            let entries = scu.map_entries(map)?;
            if as_json {
                let list: Vec<serde_json::Value> = entries
                    .iter()
                    .map(|(k, v)| json!({"key": format!("{k:#x}"), "value": fields(&m, v)}))
                    .collect();
                println!("{:#}", json!({"map": map, "size": m.size, "entries": list}));
            } else {
                for (k, v) in &entries {
                    println!("{}", line(k, &m, v));
                }
                println!("({} of {} entries)", entries.len(), m.size);
            }
            Ok(())
        }
    }
}

fn get(scu: &Scu<'_>, m: &MapControl, key: &str, as_json: bool) -> Result<(), Failure> {
    let k = parse_key(key)?;
    let Some(v) = scu.map_get(&m.name, &k)? else {
        return Err(Failure::new(format!("map `{}` has no key {k:#x}", m.name)));
    };
    if as_json {
        let value = json!({"key": format!("{k:#x}"), "value": fields(m, &v)});
        println!("{value:#}");
    } else {
        println!("{}", line(&k, m, &v));
    }
    Ok(())
}
