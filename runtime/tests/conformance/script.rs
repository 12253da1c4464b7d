//! The conformance scenario format (docs/device.md §8.1): one step per line, `#` to the end of a
//! line is a comment. Registers are named as device.md names them: a global register by its name
//! (`STEER_KEY`), a slot block's as `S<k>.NAME` (`S0.SLOT_ERROR`; `SA`/`SB` are CC slots A and B),
//! a CSR window word as `S<k>.CSR[n]`. Values are `a | b<<n | …` of numbers (hex `0x…` or
//! decimal), `$VAR` and §6 status names. Every name resolves through `scenic_runtime::abi`, the
//! one source of the document's numbers.

use scenic_runtime::abi::codes::Code;
use scenic_runtime::abi::global::{self, CcOp, SteerOp};
use scenic_runtime::abi::slot::{self, SlotOp};
use scenic_runtime::abi::{self, Reg};
use std::collections::HashMap;

/// A register of the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A global register, by its name.
    Global(String),
    /// Register `name` of slot block `k`.
    Slot(u8, String),
    /// CSR window word `n` of slot block `k`.
    Csr(u8, u64),
}

impl Target {
    fn parse(text: &str) -> Result<Target, String> {
        let Some(rest) = text.strip_prefix('S').filter(|r| r.contains('.')) else {
            return find(GLOBALS, text)
                .map(|_| Target::Global(text.to_string()))
                .ok_or_else(|| format!("no global register `{text}`"));
        };
        let (k, name) = rest.split_once('.').unwrap_or((rest, ""));
        let k = match k {
            "A" => abi::CC_SLOT_A,
            "B" => abi::CC_SLOT_B,
            n => n
                .parse()
                .map_err(|_| format!("bad slot `{n}` in `{text}`"))?,
        };
        if let Some(n) = name.strip_prefix("CSR[").and_then(|n| n.strip_suffix(']')) {
            let n = number(n).ok_or_else(|| format!("bad CSR word in `{text}`"))?;
            return Ok(Target::Csr(k, n));
        }
        find(&[slot::SLOT], name)
            .map(|_| Target::Slot(k, name.to_string()))
            .ok_or_else(|| format!("no slot register `{name}`"))
    }

    /// Its byte offset in the map.
    pub fn address(&self) -> Option<u64> {
        match self {
            Target::Global(name) => find(GLOBALS, name),
            Target::Slot(k, name) => Some(abi::slot_block(*k)? + find(&[slot::SLOT], name)?),
            Target::Csr(k, n) => Some(abi::slot_block(*k)? + slot::CSR_WINDOW + 8 * n),
        }
    }

    /// The result register paired with a command register (§1.2).
    pub fn result(&self) -> Option<u64> {
        let paired = |name: &str| match name {
            "RESET" => Some("RESET_RESULT".to_string()),
            n => n.strip_suffix("_CMD").map(|b| format!("{b}_RESULT")),
        };
        match self {
            Target::Global(name) => Target::Global(paired(name)?).address(),
            Target::Slot(k, name) => Target::Slot(*k, paired(name)?).address(),
            Target::Csr(..) => None,
        }
    }
}

const GLOBALS: &[&[Reg]] = &[
    global::GLOBAL,
    global::STEER,
    global::RING,
    global::INTERRUPT,
    global::CC,
    global::EVENT,
];

fn find(tables: &[&[Reg]], name: &str) -> Option<u64> {
    tables
        .iter()
        .flat_map(|t| t.iter())
        .find(|r| r.name == name)
        .map(|r| r.offset)
}

fn number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
        None => text.replace('_', "").parse().ok(),
    }
}

fn status(name: &str) -> Option<u16> {
    Code::ALL
        .iter()
        .find(|c| c.doc_name() == name)
        .map(|c| c.number())
}

fn opcode(name: &str) -> Option<u8> {
    let found = SteerOp::ALL
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(op, _)| *op as u8);
    let found = found.or_else(|| {
        SlotOp::ALL
            .iter()
            .find(|op| op.doc_name() == name)
            .map(|op| *op as u8)
    });
    found
        .or_else(|| {
            CcOp::ALL
                .iter()
                .find(|(_, n)| *n == name)
                .map(|(op, _)| *op as u8)
        })
        .or_else(|| number(name).and_then(|n| u8::try_from(n).ok()))
}

/// `a | b<<n | …`.
#[derive(Debug, Clone)]
pub struct Expr(Vec<(Atom, u32)>);

#[derive(Debug, Clone)]
enum Atom {
    Number(u64),
    Var(String),
}

/// Values bound by `let`.
#[derive(Debug, Default)]
pub struct Vars(HashMap<String, u64>);

impl Vars {
    pub fn set(&mut self, name: &str, value: u64) {
        self.0.insert(name.to_string(), value);
    }
}

impl Expr {
    fn parse(text: &str) -> Result<Expr, String> {
        let mut terms = Vec::new();
        for term in text.split('|') {
            let (atom, shift) = match term.split_once("<<") {
                Some((a, s)) => (
                    a.trim(),
                    number(s.trim()).ok_or(format!("bad shift in `{term}`"))?,
                ),
                None => (term.trim(), 0),
            };
            let atom = if let Some(var) = atom.strip_prefix('$') {
                Atom::Var(var.to_string())
            } else if let Some(code) = status(atom) {
                Atom::Number(u64::from(code))
            } else {
                Atom::Number(number(atom).ok_or_else(|| format!("bad value `{atom}`"))?)
            };
            terms.push((atom, u32::try_from(shift).map_err(|_| "shift too large")?));
        }
        Ok(Expr(terms))
    }

    /// Its value; an unbound `$VAR` is an error.
    pub fn eval(&self, vars: &Vars) -> Result<u64, String> {
        let mut v = 0u64;
        for (atom, shift) in &self.0 {
            let a = match atom {
                Atom::Number(n) => *n,
                Atom::Var(name) => *vars.0.get(name).ok_or(format!("`${name}` is not set"))?,
            };
            v |= a.checked_shl(*shift).ok_or("shift too large")?;
        }
        Ok(v)
    }
}

/// One step.
#[derive(Debug, Clone)]
pub enum Op {
    /// `load SLOT EXAMPLE`: examples/EXAMPLE.sn's unit 0 loaded (and, in an SCU slot, active).
    Load { slot: u8, example: String },
    /// `let NAME = REG [& MASK] [>> N]`.
    Let {
        name: String,
        target: Target,
        mask: u64,
        shift: u32,
    },
    /// `write REG VALUE`.
    Write { target: Target, value: Expr },
    /// `read REG [& MASK] == VALUE`.
    Read {
        target: Target,
        mask: Option<Expr>,
        value: Expr,
    },
    /// `fence`: §1.3's fence pair.
    Fence,
    /// `error REG CODE OFFSET`: an error word (§2.2 `ERROR`, §3.2 `SLOT_ERROR`) holds CODE at OFFSET.
    Error {
        target: Target,
        code: u16,
        offset: Expr,
    },
    /// `cmd REG OPCODE ARG -> STATUS [detail D]`: a command with a fresh `seq`, its result awaited.
    Cmd {
        target: Target,
        opcode: u8,
        arg: Expr,
        status: u16,
        detail: Option<Expr>,
    },
}

/// A step and its line.
#[derive(Debug, Clone)]
pub struct Step {
    pub line: usize,
    pub op: Op,
}

/// `scenario ID [needs FEATURE…]` and its steps.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub id: String,
    /// What an implementation must have to run it (`slot-commands`); one without says so and
    /// skips it.
    pub needs: Vec<String>,
    pub steps: Vec<Step>,
}

/// Every scenario of a file; an error names its line.
pub fn parse(text: &str) -> Result<Vec<Scenario>, String> {
    let mut out: Vec<Scenario> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |e: String| format!("line {}: {e}", i + 1);
        if let Some(rest) = line.strip_prefix("scenario ") {
            let (id, needs) = match rest.split_once(" needs ") {
                Some((id, needs)) => (id, needs.split_whitespace().map(str::to_string).collect()),
                None => (rest, Vec::new()),
            };
            out.push(Scenario {
                id: id.trim().to_string(),
                needs,
                steps: Vec::new(),
            });
            continue;
        }
        let op = step(line).map_err(err)?;
        let scenario = out
            .last_mut()
            .ok_or_else(|| err("a step before any `scenario`".into()))?;
        scenario.steps.push(Step { line: i + 1, op });
    }
    Ok(out)
}

fn step(line: &str) -> Result<Op, String> {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    let rest = rest.trim();
    let first = |r: &str| -> (String, String) {
        let (a, b) = r.split_once(' ').unwrap_or((r, ""));
        (a.to_string(), b.trim().to_string())
    };
    match word {
        "fence" => Ok(Op::Fence),
        "load" => {
            let (slot, example) = first(rest);
            let slot = match slot.as_str() {
                "A" => abi::CC_SLOT_A,
                "B" => abi::CC_SLOT_B,
                n => n.parse().map_err(|_| format!("bad slot `{n}`"))?,
            };
            Ok(Op::Load { slot, example })
        }
        "write" => {
            let (target, value) = first(rest);
            Ok(Op::Write {
                target: Target::parse(&target)?,
                value: Expr::parse(&value)?,
            })
        }
        "read" => {
            let (left, value) = rest.split_once("==").ok_or("`read` needs `== VALUE`")?;
            let (target, mask) = match left.split_once('&') {
                Some((t, m)) => (t.trim(), Some(Expr::parse(m)?)),
                None => (left.trim(), None),
            };
            Ok(Op::Read {
                target: Target::parse(target)?,
                mask,
                value: Expr::parse(value)?,
            })
        }
        "let" => {
            let (name, def) = rest.split_once('=').ok_or("`let` needs `= REG`")?;
            let (def, shift) = match def.split_once(">>") {
                Some((d, s)) => (d, number(s.trim()).ok_or("bad shift")? as u32),
                None => (def, 0),
            };
            let (target, mask) = match def.split_once('&') {
                Some((t, m)) => (t.trim(), number(m.trim()).ok_or("bad mask")?),
                None => (def.trim(), u64::MAX),
            };
            Ok(Op::Let {
                name: name.trim().to_string(),
                target: Target::parse(target)?,
                mask,
                shift,
            })
        }
        "error" => {
            let parts: Vec<&str> = rest.split_whitespace().collect();
            let [target, code, offset] = parts[..] else {
                return Err("`error` needs REG CODE OFFSET".into());
            };
            let code = status(code).ok_or_else(|| format!("no status `{code}`"))?;
            Ok(Op::Error {
                target: Target::parse(target)?,
                code,
                offset: Expr::parse(offset)?,
            })
        }
        "cmd" => cmd(rest),
        other => Err(format!("unknown step `{other}`")),
    }
}

fn cmd(rest: &str) -> Result<Op, String> {
    let (left, right) = rest.split_once("->").ok_or("`cmd` needs `-> STATUS`")?;
    let parts: Vec<&str> = left.split_whitespace().collect();
    let [target, op, arg] = parts[..] else {
        return Err("`cmd` needs REG OPCODE ARG".into());
    };
    let (name, detail) = match right.trim().split_once(" detail ") {
        Some((s, d)) => (s.trim(), Some(Expr::parse(d)?)),
        None => (right.trim(), None),
    };
    Ok(Op::Cmd {
        target: Target::parse(target)?,
        opcode: opcode(op).ok_or_else(|| format!("no opcode `{op}`"))?,
        arg: Expr::parse(arg)?,
        status: status(name).ok_or_else(|| format!("no status `{name}`"))?,
        detail,
    })
}
