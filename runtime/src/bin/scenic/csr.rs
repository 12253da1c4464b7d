//! `scenic csr NAME SLOT get CSR [--json]` and `scenic csr NAME SLOT set CSR VALUE`: a CSR of the
//! slot's active bank, by name or by word offset (a number), through the CSR window.

use serde_json::json;

use crate::common::{attach, finish, open, parse_u64, slot_package, Failure};

/// What to do.
#[derive(clap::Subcommand, Debug)]
pub enum CsrAction {
    /// Reads a CSR (by name, or by word offset).
    Get {
        /// The CSR's name, or its word offset (`0`, `0x3`).
        csr: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Writes a CSR; a readonly CSR or a value wider than the CSR is refused before anything is
    /// written.
    Set {
        /// The CSR's name, or its word offset.
        csr: String,
        /// The value (decimal, `0x`, `0b`, an address).
        value: String,
    },
}

/// Runs the command; the exit code.
pub fn run(name: &str, slot: u8, action: &CsrAction) -> u8 {
    finish(csr(name, slot, action))
}

fn csr(name: &str, slot: u8, action: &CsrAction) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let (pkg, unit) = slot_package(name, &state, slot)?;
    let scu = attach(&dev, &state, slot, &pkg, &unit)?;
    let resolve = |text: &str| match text.parse::<u32>().ok().or_else(|| {
        text.strip_prefix("0x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    }) {
        Some(offset) => scu.csr_at(offset).cloned(),
        None => scu.csr(text).cloned(),
    };
    match action {
        CsrAction::Get { csr, json } => {
            let c = resolve(csr)?;
            let value = scu.csr_get_offset(c.offset)?;
            if *json {
                let v = json!({
                    "slot": slot, "csr": c.name, "offset": c.offset, "width": c.width,
                    "readonly": c.host_readonly, "value": value,
                });
                println!("{v:#}");
            } else {
                println!("{} = {value} ({value:#x})", c.name);
            }
        }
        CsrAction::Set { csr, value } => {
            let c = resolve(csr)?;
            let v = parse_u64("value", value)?;
            scu.csr_set_offset(c.offset, v)?;
            println!("{} = {v} ({v:#x})", c.name);
        }
    }
    Ok(())
}
