//! The STF line parser: one function per command, on the tokens of [`super::lex`].

use super::lex::{is_name, merge_colons, tokenize, Line, Tok};
use super::*;
use crate::value::{parse_match, parse_quantity, parse_scalar, parse_uint, to_u64};
use scenic_ir::types::Dimension;

/// Parses a whole file, stopping at the first error.
pub fn parse(text: &str) -> Result<Vec<Command>, StfError> {
    let mut commands = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = parse_line(line_number(i), line)? {
            commands.push(c);
        }
    }
    Ok(commands)
}

/// Parses a whole file, collecting every line's error (lines with errors are left out).
pub fn parse_all(text: &str) -> (Vec<Command>, Vec<StfError>) {
    let mut commands = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_line(line_number(i), line) {
            Ok(Some(c)) => commands.push(c),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (commands, errors)
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// Parses one line; `None` for a blank or comment line.
fn parse_line(line: u32, text: &str) -> Result<Option<Command>, StfError> {
    let toks = tokenize(text);
    let end_col = u32::try_from(text.chars().count() + 1).unwrap_or(u32::MAX);
    let mut l = Line {
        line,
        toks,
        next: 0,
        end_col,
    };
    let Some(keyword) = l.take() else {
        return Ok(None);
    };
    let pos = Pos {
        line,
        column: keyword.col,
    };
    let kind = match keyword.text.to_ascii_lowercase().as_str() {
        "packet" => packet(&mut l)?,
        "expect" => expect(&mut l)?,
        "no_packet" => CommandKind::NoPacket,
        "add" => CommandKind::Add(add(&mut l)?),
        "setdefault" => setdefault(&mut l)?,
        "remove" => remove(&mut l)?,
        "check_counter" => CommandKind::CheckCounter(check_counter(&mut l)?),
        "wait" => match l.peek() {
            None => CommandKind::Wait,
            Some(_) => CommandKind::Advance {
                ns: l.value("duration", |s| parse_quantity(s, Dimension::Duration))?,
            },
        },
        "time" => CommandKind::Time {
            ns: l.value("time", |s| parse_quantity(s, Dimension::Duration))?,
        },
        "event" => super::event::event(&mut l)?,
        "check_rate" | "check_window" => {
            check_output(&mut l, keyword.text.eq_ignore_ascii_case("check_rate"))?
        }
        "set_csr" => {
            let name = l.name("a CSR name")?.text.to_string();
            CommandKind::SetCsr {
                name,
                value: l.value("CSR value", parse_scalar)?,
            }
        }
        "check_csr" => {
            let name = l.name("a CSR name")?.text.to_string();
            let op = l.op()?;
            CommandKind::CheckCsr {
                name,
                op,
                value: l.value("CSR value", parse_scalar)?,
            }
        }
        "words" => {
            let flow = l.u64("flow")?;
            CommandKind::Words {
                flow,
                data: hex_bytes(&mut l)?,
            }
        }
        "expect_dma" => expect_dma(&mut l)?,
        "expect_notify" => expect_notify(&mut l)?,
        "map_write" => {
            let map = l.name("a map name")?.text.to_string();
            let key = l.value("map key", parse_scalar)?;
            CommandKind::MapWrite {
                map,
                key,
                value: l.value("map value", parse_scalar)?,
            }
        }
        "check_map" => check_map(&mut l)?,
        _ => {
            let found = keyword.text.to_string();
            return Err(StfError::UnknownCommand {
                line,
                column: keyword.col,
                found,
            });
        }
    };
    l.end()?;
    Ok(Some(Command { pos, kind }))
}

const HEX_EXPECTED: &str = "a hexadecimal byte string";

/// The rest of the line as whole bytes of hex (at least one).
fn hex_bytes(l: &mut Line<'_>) -> Result<Vec<u8>, StfError> {
    let first = l.peek().ok_or_else(|| l.expected(HEX_EXPECTED, None))?;
    let mut digits = Vec::new();
    while let Some(t) = l.take() {
        match t.text.chars().find(|c| !c.is_ascii_hexdigit()) {
            None => digits.extend(
                t.text
                    .bytes()
                    .filter_map(|b| (b as char).to_digit(16))
                    .map(|d| d as u8),
            ),
            Some(_) => return Err(l.expected(HEX_EXPECTED, Some(t))),
        }
    }
    if digits.len() % 2 != 0 {
        return Err(StfError::OddDigits {
            line: l.line,
            column: first.col,
            digits: digits.len(),
        });
    }
    Ok(digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// The rest of the line as an expected-data pattern (possibly empty).
fn pattern(l: &mut Line<'_>) -> Result<ExpectPattern, StfError> {
    let mut p = ExpectPattern::default();
    while let Some(t) = l.take() {
        if p.exact {
            return Err(l.expected("end of line after `$`", Some(t)));
        }
        let body = match t.text.strip_suffix('$') {
            Some(body) => {
                p.exact = true;
                body
            }
            None => t.text,
        };
        for c in body.chars() {
            match c {
                '*' => p.nibbles.push(None),
                c => match c.to_digit(16) {
                    Some(d) => p.nibbles.push(Some(d as u8)),
                    None => {
                        return Err(l.expected("hexadecimal digits, `*` or a final `$`", Some(t)))
                    }
                },
            }
        }
    }
    Ok(p)
}

fn port(l: &mut Line<'_>) -> Result<u32, StfError> {
    let t = l.word("a port number")?;
    t.text
        .parse()
        .map_err(|_| l.expected("a port number", Some(t)))
}

fn packet(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    let port = port(l)?;
    Ok(CommandKind::Packet {
        port,
        data: hex_bytes(l)?,
    })
}

fn expect(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    let port = port(l)?;
    Ok(CommandKind::Expect {
        port,
        pattern: pattern(l)?,
    })
}

fn expect_dma(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    const WHAT: &str = "an output name, optionally indexed (`out` or `out[2]`)";
    let t = l.word(WHAT)?;
    let (out, index) = match t.text.split_once('[') {
        None => (t.text, None),
        Some((name, rest)) => {
            let index = rest.strip_suffix(']').and_then(|i| i.parse::<u32>().ok());
            match index {
                Some(i) => (name, Some(i)),
                None => return Err(l.expected(WHAT, Some(t))),
            }
        }
    };
    if !is_name(out) {
        return Err(l.expected(WHAT, Some(t)));
    }
    Ok(CommandKind::ExpectDma {
        out: out.to_string(),
        index,
        pattern: pattern(l)?,
    })
}

/// `<action>[(<p>:<v>, …)]` starting at the current token.
fn action_call(l: &mut Line<'_>) -> Result<ActionCall, StfError> {
    let name = l.name("an action name")?.text.to_string();
    let mut args = Vec::new();
    if l.peek().map(|t| t.text) != Some("(") {
        return Ok(ActionCall { name, args });
    }
    l.take();
    let mut group: Vec<Tok<'_>> = Vec::new();
    loop {
        let t = l.take().ok_or_else(|| l.expected("`)`", None))?;
        if t.text == "," || t.text == ")" {
            if group.is_empty() && !(t.text == ")" && args.is_empty()) {
                return Err(l.expected("an argument `name:value`", Some(t)));
            }
            if !group.is_empty() {
                args.push(action_arg(l, &group, &args)?);
                group.clear();
            }
            if t.text == ")" {
                return Ok(ActionCall { name, args });
            }
        } else if t.text == "(" {
            return Err(l.expected("an argument `name:value`", Some(t)));
        } else {
            group.push(t);
        }
    }
}

/// One `name:value` argument from its tokens.
fn action_arg(l: &Line<'_>, group: &[Tok<'_>], seen: &[Arg]) -> Result<Arg, StfError> {
    const WHAT: &str = "an argument `name:value`";
    let merged = merge_colons(group);
    let [(text, col)] = merged.as_slice() else {
        let extra = merged.get(1).map(|(text, col)| Tok { text, col: *col });
        return Err(l.expected("`,` or `)`", extra));
    };
    let bad = || l.expected(WHAT, group.first().copied());
    let (name, value) = text.split_once(':').ok_or_else(bad)?;
    if !is_name(name) {
        return Err(bad());
    }
    if seen.iter().any(|a| a.name == name) {
        return Err(StfError::Duplicate {
            line: l.line,
            column: *col,
            name: name.to_string(),
        });
    }
    let value_col = col.saturating_add(name.chars().count() as u32 + 1);
    let value =
        parse_uint(value).map_err(|e| l.value_error("argument value", value, value_col, e))?;
    Ok(Arg {
        name: name.to_string(),
        value,
    })
}

fn add(l: &mut Line<'_>) -> Result<AddEntry, StfError> {
    let table = l.name("a table name")?.text.to_string();
    // The action is the token before the first `(`, or the last name before `=`/the end.
    let rest = &l.toks[l.next..];
    let paren = rest.iter().position(|t| t.text == "(");
    let stop = rest
        .iter()
        .position(|t| t.text.starts_with('='))
        .unwrap_or(rest.len());
    let action_at = match paren {
        Some(p) if p > 0 && p <= stop => p - 1,
        _ => stop
            .checked_sub(1)
            .ok_or_else(|| l.expected("key matches and an action", l.peek()))?,
    };
    let region = merge_colons(&rest[..action_at]);
    let mut priority = None;
    let mut keys: Vec<KeyField> = Vec::new();
    for (i, (text, col)) in region.iter().enumerate() {
        if i == 0 && text.bytes().all(|b| b.is_ascii_digit()) {
            let v = text.parse().map_err(|_| {
                l.expected(
                    "a priority (0 to 4294967295)",
                    Some(Tok { text, col: *col }),
                )
            })?;
            priority = Some(v);
            continue;
        }
        keys.push(key_field(l, text, *col, &keys)?);
    }
    l.next += action_at;
    let action = action_call(l)?;
    let id = entry_id(l)?;
    Ok(AddEntry {
        table,
        priority,
        keys,
        action,
        id,
    })
}

/// One `key:match`.
fn key_field(l: &Line<'_>, text: &str, col: u32, seen: &[KeyField]) -> Result<KeyField, StfError> {
    let bad = || l.expected("a key match `name:value`", Some(Tok { text, col }));
    let (name, value) = text.split_once(':').ok_or_else(bad)?;
    if !is_name(name) {
        return Err(bad());
    }
    if seen.iter().any(|k| k.name == name) {
        return Err(StfError::Duplicate {
            line: l.line,
            column: col,
            name: name.to_string(),
        });
    }
    let value_col = col.saturating_add(name.chars().count() as u32 + 1);
    let value =
        parse_match(value).map_err(|e| l.value_error("match value", value, value_col, e))?;
    Ok(KeyField {
        name: name.to_string(),
        value,
    })
}

/// An optional `= id` (or `=id`).
fn entry_id(l: &mut Line<'_>) -> Result<Option<String>, StfError> {
    let Some(t) = l.take() else { return Ok(None) };
    let id = match t.text.strip_prefix('=') {
        Some("") => l.word("an entry id")?,
        Some(rest) => Tok {
            text: rest,
            col: t.col + 1,
        },
        None => return Err(l.expected("`= id` or end of line", Some(t))),
    };
    if !id
        .text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    {
        return Err(l.expected("an entry id", Some(id)));
    }
    Ok(Some(id.text.to_string()))
}

fn setdefault(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    let table = l.name("a table name")?.text.to_string();
    Ok(CommandKind::SetDefault {
        table,
        action: action_call(l)?,
    })
}

fn remove(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    let t = l.name("`all` or a table name")?;
    if t.text.eq_ignore_ascii_case("all") {
        return Ok(CommandKind::Remove(Removal::Everything));
    }
    let table = t.text.to_string();
    let id = l.word("`all` or an entry id")?;
    if id.text.eq_ignore_ascii_case("all") {
        return Ok(CommandKind::Remove(Removal::Table(table)));
    }
    let id = id.text.strip_prefix('$').unwrap_or(id.text).to_string();
    Ok(CommandKind::Remove(Removal::Entry { table, id }))
}

fn check_counter(l: &mut Line<'_>) -> Result<CounterCheck, StfError> {
    let name = l.name("a counter name")?.text.to_string();
    let mut index = CounterIndex::Index(0);
    if l.peek().map(|t| t.text) == Some("(") {
        l.take();
        let t = l.word("a cell index or `$id`")?;
        index = match t.text.strip_prefix('$') {
            Some(id) if !id.is_empty() => CounterIndex::Entry(id.to_string()),
            _ => {
                let v = parse_uint(t.text).and_then(|v| to_u64(v, 0));
                CounterIndex::Index(v.map_err(|e| l.value_error("cell index", t.text, t.col, e))?)
            }
        };
        l.punct(")", "`)`")?;
    }
    if l.peek().is_none() {
        return Ok(CounterCheck {
            name,
            index,
            compare: None,
        });
    }
    let count = match l.peek().map(|t| t.text.to_ascii_lowercase()) {
        Some(w) if w == "packets" || w == "bytes" => {
            l.take();
            if w == "packets" {
                Count::Packets
            } else {
                Count::Bytes
            }
        }
        _ => Count::Packets,
    };
    let op = l.op()?;
    let value = l.u64("count")?;
    Ok(CounterCheck {
        name,
        index,
        compare: Some((count, op, value)),
    })
}

fn check_output(l: &mut Line<'_>, rate: bool) -> Result<CommandKind, StfError> {
    let cc = l.name("a congestion controller name")?.text.to_string();
    let flow = l.u64("flow")?;
    let op = l.op()?;
    Ok(if rate {
        CommandKind::CheckRate {
            cc,
            flow,
            op,
            bps: l.value("rate", |s| parse_quantity(s, Dimension::Rate))?,
        }
    } else {
        CommandKind::CheckWindow {
            cc,
            flow,
            op,
            bytes: l.value("window", |s| parse_quantity(s, Dimension::Size))?,
        }
    })
}

fn expect_notify(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    const TARGET: &str = "`host` or `arm`";
    let t = l.word(TARGET)?;
    let to_arm = match t.text.to_ascii_lowercase().as_str() {
        "host" => false,
        "arm" => true,
        _ => return Err(l.expected(TARGET, Some(t))),
    };
    let v = l
        .peek()
        .ok_or_else(|| l.expected("a 32-bit notification value", None))?;
    let wide = l.value("notification value", parse_scalar)?;
    let value =
        u32::try_from(wide).map_err(|_| l.expected("a 32-bit notification value", Some(v)))?;
    let from = match l.peek() {
        None => None,
        Some(t) if t.text.eq_ignore_ascii_case("from") => {
            l.take();
            Some(l.name("an scu or cc name")?.text.to_string())
        }
        Some(t) => return Err(l.expected("`from <name>` or end of line", Some(t))),
    };
    Ok(CommandKind::ExpectNotify {
        to_arm,
        value,
        from,
    })
}

fn check_map(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    let map = l.name("a map name")?.text.to_string();
    let key = l.value("map key", parse_scalar)?;
    let check = match l.peek() {
        Some(t) if t.text.eq_ignore_ascii_case("absent") => {
            l.take();
            MapCheck::Absent
        }
        _ => {
            let op = l.op()?;
            MapCheck::Compare(op, l.value("map value", parse_scalar)?)
        }
    };
    Ok(CommandKind::CheckMap { map, key, check })
}
