//! Fixed nasty inputs (deep nesting, huge literals, NUL bytes, ...), each checked in a child process
//! so that a stack overflow is reported instead of aborting the test binary.

use super::*;

// ---------------------------------------------------------------------------------------------------
// Fixed nasty inputs, each checked in a child process.

/// `(name, bytes)` of every fixed nasty input. Fuzzer crashes become regression tests here.
pub(crate) fn nasty_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let nest = |open: &str, inner: &str, close: &str, depth: usize| -> String {
        let mut s = open.repeat(depth);
        s.push_str(inner);
        s.push_str(&close.repeat(depth));
        s
    };
    let digits: String = (0..1_000_000)
        .map(|i| char::from(b'0' + (i % 10) as u8))
        .collect();
    let long_ident = "a".repeat(100_000);
    vec![
        ("empty file", Vec::new()),
        ("only whitespace", b" \n\t\r\n   \n".to_vec()),
        (
            "only comments",
            b"// one\n/* two */\n/* three\n spans */ // four\n".to_vec(),
        ),
        (
            "unterminated block comment",
            b"const A: bit<8> = 1;\n/* never closed\nconst B: bit<8> = 2;\n".to_vec(),
        ),
        ("only `/*`", b"/*".to_vec()),
        (
            "10,000 nested `{` unclosed",
            "{".repeat(10_000).into_bytes(),
        ),
        (
            "10,000 nested `{` balanced at top level",
            nest("{", "", "}", 10_000).into_bytes(),
        ),
        (
            "10,000 nested blocks in a control body",
            format!(
                "scu x on slow_path {{\n    control {{\n{}\n    }}\n}}\n",
                nest("{ ", "", " }", 10_000)
            )
            .into_bytes(),
        ),
        (
            "10,000 nested `(` in a const expression",
            format!("const A: bit<8> = {};\n", nest("(", "1", ")", 10_000)).into_bytes(),
        ),
        (
            "10,000 nested `(` unclosed in a const expression",
            format!("const A: bit<8> = {}1;\n", "(".repeat(10_000)).into_bytes(),
        ),
        ("a 1 MB line of digits", digits.clone().into_bytes()),
        (
            "a 1 MB integer literal in a const",
            format!("const A: bit<8> = {digits};\n").into_bytes(),
        ),
        (
            "`scu x on slow_path {` repeated",
            "scu x on slow_path {\n".repeat(2_000).into_bytes(),
        ),
        (
            "a 100,000-character identifier",
            format!("const {long_ident}: bit<8> = 1;\nconst B: bit<8> = {long_ident};\n")
                .into_bytes(),
        ),
        ("NUL bytes only", vec![0u8; 64]),
        // Former stack overflows: nesting that pest accepts but the recursive AST builder could not
        // walk on a 2 MiB stack (in the test profile: `(` from ~531 deep and blocks from ~381 deep;
        // from ~759 and ~940 pest's own stack guard turned them into a syntax error; now E0014), and
        // flat chains that pest parses iteratively but the type checker walked recursively.
        (
            "600 nested `(` in a const expression",
            format!("const A: bit<8> = {};\n", nest("(", "1", ")", 600)).into_bytes(),
        ),
        (
            "600 nested blocks in a control body",
            format!(
                "scu x on slow_path {{\n    control {{\n{}\n    }}\n}}\n",
                nest("{ ", "", " }", 600)
            )
            .into_bytes(),
        ),
        (
            "a sum of 10,000 terms",
            format!("const A: bit<8> = 1{};\n", " + 1".repeat(10_000)).into_bytes(),
        ),
        (
            "10,000 prefix `-`",
            format!("const A: bit<8> = {}1;\n", "-".repeat(10_000)).into_bytes(),
        ),
        (
            "10,000 index postfixes",
            format!("const A: bit<8> = a{};\n", "[0]".repeat(10_000)).into_bytes(),
        ),
        // An `else if` chain is not bracket nesting (each block is closed before the next `else`),
        // so the E0014 bound does not apply: the grammar reads the arms as a repetition, and the
        // walks over the nested `if`s grow their stack.
        (
            "10,000 `else if` arms",
            format!(
                "scu x on slow_path {{\n    control {{\n        if true {{ }}{}\n    }}\n}}\n",
                " else if true { }".repeat(10_000)
            )
            .into_bytes(),
        ),
        // A valid program: each constant is defined by the next one, so checking the first one asks
        // for the signature of the second, which asks for the third, ... (salsa queries nest).
        (
            "300 constants, each defined by the next",
            consts_defined_by_the_next(300).into_bytes(),
        ),
        (
            "NUL bytes in a program",
            b"const A\0: bit<8> = 1;\0\nscu x on slow_path { control { let a = \0; } }\n\0"
                .to_vec(),
        ),
    ]
}

/// `const A0: bit<8> = A1; const A1: bit<8> = A2; ... const A{n}: bit<8> = 1;`, one per line.
pub(crate) fn consts_defined_by_the_next(n: usize) -> String {
    let mut text: String = (0..n)
        .map(|i| format!("const A{i}: bit<8> = A{};\n", i + 1))
        .collect();
    text.push_str(&format!("const A{n}: bit<8> = 1;\n"));
    text
}

/// The environment variable that tells the child which nasty input to check.
pub(crate) const NASTY_ENV: &str = "SCENIC_NASTY_INPUT";

/// Not a test by itself: the child-process half of `nasty_inputs_never_crash`. Without
/// `SCENIC_NASTY_INPUT` it does nothing.
#[test]
pub(crate) fn nasty_input_child() {
    let Ok(wanted) = std::env::var(NASTY_ENV) else {
        return;
    };
    let Some((name, bytes)) = nasty_inputs().into_iter().find(|(n, _)| *n == wanted) else {
        panic!("no nasty input called `{wanted}`");
    };
    let handle = std::thread::Builder::new()
        .name("nasty".to_string())
        .stack_size(NORMAL_STACK)
        .spawn(move || {
            let started = Instant::now();
            let result = check_input("nasty.sn", &bytes, true);
            (result, started.elapsed())
        })
        .expect("spawn the checking thread");
    let (result, elapsed) = handle
        .join()
        .expect("the checking thread panicked outside the check");
    match result {
        Ok(seen) => eprintln!(
            "nasty input `{name}`: {} diagnostics in {:.2} s",
            seen.diagnostics,
            elapsed.as_secs_f64()
        ),
        Err(problems) => panic!("nasty input `{name}`:\n    {}", problems.join("\n    ")),
    }
}

/// Runs nasty input `name` in a child process; `Err` describes a crash, a failure or a timeout.
pub(crate) fn run_nasty_child(name: &str) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "nasty::nasty_input_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(NASTY_ENV, name)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(stderr, &mut text);
        }
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > NASTY_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    let relevant: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            !l.trim().is_empty() && !l.starts_with("running ") && !l.contains("test result")
        })
        .collect();
    match status {
        None => Err(format!(
            "did not terminate within {} s",
            NASTY_TIMEOUT.as_secs()
        )),
        // A renamed test would make the child run nothing and pass; insist that it checked.
        Some(status) if status.success() && !stderr.contains(&format!("nasty input `{name}`")) => {
            Err("the child process checked nothing (is `nasty::nasty_input_child` renamed?)".into())
        }
        Some(status) if status.success() => Ok(relevant.join(" / ")),
        Some(status) => Err(format!(
            "child exited with {status}:\n      {}",
            relevant.join("\n      ")
        )),
    }
}

#[test]
pub(crate) fn nasty_inputs_never_crash() {
    let mut failures = Vec::new();
    for (name, _) in nasty_inputs() {
        if KNOWN_CRASHES.contains(&name) {
            eprintln!("nasty input `{name}`: skipped (known crash, see its #[ignore]d test)");
            continue;
        }
        match run_nasty_child(name) {
            Ok(output) => eprintln!("{output}"),
            Err(problem) => failures.push(format!("`{name}`: {problem}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} nasty inputs failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Checks nasty input `name` in a child process and fails with the child's stderr if it crashed.
pub(crate) fn assert_nasty_input_ok(name: &str) {
    if let Err(problem) = run_nasty_child(name) {
        panic!("nasty input `{name}`: {problem}");
    }
}

/// Nasty inputs that crash today (a stack overflow aborts the process); `nasty_inputs_never_crash`
/// skips them, and each has an `#[ignore]`d test below. Once the frontend bounds its recursion, remove
/// the name from this list and the `#[ignore]` from its test.
pub(crate) const KNOWN_CRASHES: &[&str] = &[];

/// Once a stack overflow in the AST builder (one recursion per `else if` arm, from 446 arms on a
/// 2 MiB stack), then pest's depth guard (a bogus E0001 from ~1,085 arms). The grammar now reads the
/// arms as a repetition and the builder nests them in a loop. Through `build`: cli/tests/deep.rs.
#[test]
pub(crate) fn else_if_chains_10000_long_do_not_crash() {
    assert_nasty_input_ok("10,000 `else if` arms");
}

/// Stack overflow through nested salsa queries, on a valid program: `typeck::signature::signature`
/// → `item_sig` (signature.rs:210) → `const_sig` (signature.rs:226) → `typeck::Checker::const_value`
/// (typeck/expr.rs:248) → `expr` → `resolve_path` → `resolve_single` (typeck/name.rs:86) →
/// `note_use` (typeck/mod.rs:328) → the signature of the next constant. From 165 constants on a 2 MiB
/// stack in the test profile; `scenicc check` (8 MiB main thread) aborts from 663.
#[test]
pub(crate) fn constant_chains_300_long_do_not_crash() {
    assert_nasty_input_ok("300 constants, each defined by the next");
}

/// Regression: the AST builder (`parse::Builder::expr`/`primary`) used to recurse once per `(` and
/// overflow the stack from ~531 deep; E0014 now bounds bracket nesting.
#[test]
pub(crate) fn parens_nested_600_deep_do_not_crash() {
    assert_nasty_input_ok("600 nested `(` in a const expression");
}

/// Regression: the AST builder (`parse::Builder::stmt`/`block`) used to recurse once per block and
/// overflow the stack from ~381 deep; E0014 now bounds bracket nesting.
#[test]
pub(crate) fn blocks_nested_600_deep_do_not_crash() {
    assert_nasty_input_ok("600 nested blocks in a control body");
}

/// Regression: `typeck::Checker::binary` used to recurse down the left-deep tree of a flat
/// `1 + 1 + ... + 1` and overflow the stack (≥ ~584 terms on a 2 MiB stack); it now folds the chain.
#[test]
pub(crate) fn sum_of_10000_terms_does_not_crash() {
    assert_nasty_input_ok("a sum of 10,000 terms");
}

/// Regression: `typeck::Checker::unary` used to recurse once per prefix `-` (≥ ~720 on a 2 MiB
/// stack); it now applies a run of prefix operators in a loop.
#[test]
pub(crate) fn prefix_minus_10000_times_does_not_crash() {
    assert_nasty_input_ok("10,000 prefix `-`");
}

/// Regression: `typeck::Checker::index` used to recurse once per `[0]` (≥ ~892 on a 2 MiB
/// stack); it now folds the chain of indices.
#[test]
pub(crate) fn index_postfixes_10000_times_do_not_crash() {
    assert_nasty_input_ok("10,000 index postfixes");
}
