//! `scenicc`: the compiler and toolchain for SCENIC Stream Compute Units.
//!
//! This crate is the thin command line: it parses arguments with clap, wires them to the library
//! crates and turns outcomes into output and exit codes. It holds no compiler logic. This file has the
//! clap definitions and the dispatch; each subcommand lives in a module of its own ([`check`],
//! [`explain`]), and [`output`] prints diagnostics, summaries and messages. scenicc's own errors are
//! typed per command family ([`errors`]) and drawn by miette ([`failure`]).
//!
//! Exit codes: 0 success (warnings allowed), 1 the program has errors, 2 usage errors and I/O problems.

mod build;
mod build_p4;
mod cc_sim;
mod check;
mod compile;
mod compiled;
mod emit;
mod errors;
mod explain;
mod failure;
mod hls;
mod output;
mod p4;
mod p4_input;
mod sim;
mod sim_capture;
mod sim_output;
mod test;

use clap::builder::styling::Style;
use clap::builder::StyledStr;
use clap::{Args, Parser, Subcommand};
use output::{Color, MessageFormat, Output};
use std::process::ExitCode;

/// Exit code: the input has errors.
pub const EXIT_ERRORS: u8 = 1;
/// Exit code: bad usage, or a file could not be read.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: a bug in scenicc itself (the IR failed validation after lowering or a pass).
pub const EXIT_INTERNAL: u8 = 101;

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "scenicc",
    version,
    about = "The scenic compiler: checks and builds Stream Compute Units for the SCENIC SmartNIC",
    long_about = "The scenic compiler: one language for parsers, match-action tables, maps, stream kernels \
                  and congestion controllers on the Stream Compute Units of the SCENIC SmartNIC.",
    subcommand_required = true,
    arg_required_else_help = true,
    after_help = examples(&[
        ("Build a program into an SCU package (the same as `scenicc build`)", "scenicc examples/firewall.sn -o out/firewall"),
        ("Build the Vitis kernel object (runs v++ or vitis_hls when installed)", "scenicc firewall.sn -o scu.xo"),
        ("Check a program and print its diagnostics", "scenicc check examples/firewall.sn"),
        ("Diagnostics as JSON lines, for editors and CI", "scenicc check --message-format json src/*.sn"),
        ("Explain a diagnostic code", "scenicc explain E0202"),
    ]),
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: GlobalArgs,
}

/// Options every subcommand accepts.
#[derive(Debug, Args)]
struct GlobalArgs {
    /// How to print diagnostics: `human` (rustc-style, on stderr) or `json` (one object per line, on
    /// stdout).
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human, global = true)]
    message_format: MessageFormat,
    /// When to colour output: `auto` colours when stderr is a terminal.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = Color::Auto, global = true)]
    color: Color,
    /// Print diagnostics only, no summary lines.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print what is being done (`checking FILE`, `ok: ...`).
    #[arg(short, long, global = true)]
    verbose: bool,
    /// Deny a lint: `-D warnings` reports every warning as an error.
    #[arg(short = 'D', long = "deny", value_name = "LINT", value_parser = ["warnings"], global = true)]
    deny: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile a program into an SCU package, or a `.xo` (`scenicc FILE -o OUT` is the same).
    #[command(after_help = examples(&[
        ("Write the SCU package (manifest, HLS kernels, Coyote glue) into a directory", "scenicc build examples/firewall.sn -o out/firewall"),
        ("The same, as users type it", "scenicc examples/firewall.sn -o out/firewall"),
        ("A Vitis kernel object: runs v++/vitis_hls if on PATH, else says what to run", "scenicc firewall.sn -o scu.xo"),
        ("The package with the P4_16 program in p4/ (Vitis Networking P4 or v1model)", "scenicc build examples/l3_router.sn --target v1model -o out/l3_p4"),
    ]))]
    Build(build::BuildArgs),
    /// Check programs and report diagnostics, without building anything.
    #[command(after_help = examples(&[
        ("Check one program", "scenicc check examples/firewall.sn"),
        ("Check several files in one session", "scenicc check src/*.sn"),
        ("Fail on warnings too, as CI should", "scenicc check -D warnings examples/firewall.sn"),
        ("Diagnostics as JSON lines on stdout", "scenicc check --message-format json src/*.sn"),
    ]))]
    Check(check::CheckArgs),
    /// Print a compiler artifact (the IR, ...) to stdout.
    #[command(after_help = examples(&[
        ("Print the IR of a program", "scenicc emit ir examples/l3_router.sn"),
        ("The IR after inlining and constant folding", "scenicc emit ir --passes function-inlining,constant-folding prog.sn"),
        ("The IR after every optimisation", "scenicc emit ir --passes all prog.sn"),
        ("List the passes and aliases", "scenicc emit ir --passes help prog.sn"),
    ]))]
    Emit(emit::EmitArgs),
    /// Run a capture through a program in the reference interpreter.
    #[command(after_help = examples(&[
        ("Route a capture and write what leaves", "scenicc sim examples/l3_router.sn --in in.pcap --out out.pcap"),
        ("One pcap per destination, with entries and a CSR", "scenicc sim fw.sn --in in.pcapng --out-dir out/ --entries e.json --csr default_rate_mbps=500"),
        ("Show each packet's path", "scenicc sim examples/firewall.sn --in in.pcap --trace"),
    ]))]
    Sim(sim::SimArgs),
    /// Run STF packet tests on the reference interpreter and print `N passed, N failed`.
    #[command(after_help = examples(&[
        ("Run a program's tests", "scenicc test examples/l3_router.sn examples/l3_router.stf"),
        ("Pick the scu that receives the packets", "scenicc test --scu fw prog.sn prog.stf"),
        ("Run them on the C-simulated HLS kernel (g++, AMD's ap_types headers)", "scenicc test examples/l3_router.sn examples/l3_router.stf --backend hls-csim --ap-types \"$(scripts/fetch-ap-types.sh)\""),
        ("Test a P4 program (v1model, the subset of docs/p4.md)", "scenicc test examples/p4/basic_router.p4 examples/p4/basic_router.stf"),
    ]))]
    Test(test::TestArgs),
    /// Simulate a congestion controller on a RoCE-style fabric (incast, converging flows) and plot it.
    #[command(after_help = examples(&[
        ("DCQCN on an 8-to-1 incast: summary.json, CSVs, rates and queue plots (SVG, PNG) in out/incast8", "scenicc cc-sim examples/dcqcn.sn --scenario examples/scenarios/incast8.toml --out out/incast8"),
        ("Two DCQCN flows converging, another seed", "scenicc cc-sim examples/dcqcn.sn --scenario examples/scenarios/dcqcn_two_flows.toml --out out/two --seed 7"),
        ("A 3-switch parking lot: per-link utilisation and max-min fair shares", "scenicc cc-sim examples/dcqcn.sn --scenario examples/scenarios/parking_lot3.toml --out out/parking"),
        ("Hot swap at 5 ms to a standby DCQCN that heard every signal (no visible change)", "scenicc cc-sim examples/dcqcn.sn --scenario examples/scenarios/dcqcn_two_flows.toml --out out/swap --swap 5ms=examples/dcqcn.sn"),
    ]))]
    CcSim(cc_sim::CcSimArgs),
    /// Print the long explanation of a diagnostic code, with an example and the fix.
    #[command(after_help = examples(&[
        ("Explain a code (case does not matter)", "scenicc explain E0202"),
        ("List every code with its title", "scenicc explain --list"),
    ]))]
    Explain(explain::ExplainArgs),
}

/// An `Examples:` section for `after_help`: a comment and a command per example.
fn examples(items: &[(&str, &str)]) -> StyledStr {
    let heading = Style::new().bold().underline();
    let comment = Style::new().dimmed();
    let mut text = format!("{heading}Examples:{heading:#}\n");
    for (what, command) in items {
        text.push_str(&format!("  {comment}# {what}{comment:#}\n  {command}\n"));
    }
    text.into()
}

/// Global options that take a value (`--color never`), so [`with_build`] can skip it.
const VALUED_GLOBALS: [&str; 4] = ["--message-format", "--color", "-D", "--deny"];

/// The command line with `build` inserted before a bare program path, so that `scenicc
/// firewall.sn -o scu.xo` means `scenicc build firewall.sn -o scu.xo`, as with gcc or rustc. The
/// first argument that is neither an option nor an option's value decides: a subcommand name is
/// left alone; anything that looks like a path (it has a `.` or `/`, or names an existing file) gets
/// `build` in front. Everything else is left for clap to report.
fn with_build(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].to_string_lossy();
        if arg == "--" {
            return args;
        }
        if VALUED_GLOBALS.contains(&arg.as_ref()) {
            i += 2;
            continue;
        }
        if arg.starts_with('-') {
            i += 1;
            continue;
        }
        let is_subcommand = <Cli as clap::CommandFactory>::command()
            .get_subcommands()
            .any(|c| c.get_name() == arg || c.get_all_aliases().any(|a| a == arg))
            || arg == "help";
        let looks_like_path =
            arg.contains('.') || arg.contains('/') || std::path::Path::new(arg.as_ref()).is_file();
        if is_subcommand || !looks_like_path {
            return args;
        }
        let mut out = args;
        out.insert(i, "build".into());
        return out;
    }
    args
}

/// `scenicc help --help` (or `-h`) as `scenicc help`: clap's `help` subcommand takes no options and
/// would refuse it with a usage error, where asking for help about help should just give help.
fn without_help_of_help(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    // The first word that is neither an option nor an option's value is the subcommand.
    let mut i = 1;
    while let Some(arg) = args.get(i).map(|a| a.to_string_lossy().into_owned()) {
        if VALUED_GLOBALS.contains(&arg.as_str()) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    if args.get(i).is_some_and(|a| a == "help") {
        let tail = args.split_off(i + 1);
        args.extend(tail.into_iter().filter(|a| a != "--help" && a != "-h"));
    }
    args
}

fn main() -> ExitCode {
    let args = without_help_of_help(std::env::args_os().collect());
    let cli = Cli::parse_from(with_build(args));
    let global = &cli.global;
    let output = Output::new(
        global.message_format,
        global.color,
        global.quiet,
        global.verbose,
    );
    let deny_warnings = global.deny.iter().any(|lint| lint == "warnings");
    match &cli.command {
        Command::Build(args) => build::run(args, &output, deny_warnings),
        Command::Check(args) => check::run(args, &output, deny_warnings),
        Command::Emit(args) => emit::run(args, &output, deny_warnings),
        Command::Explain(args) => explain::run(args, &output),
        Command::Sim(args) => sim::run(args, &output, deny_warnings),
        Command::Test(args) => test::run(args, &output, deny_warnings),
        Command::CcSim(args) => cc_sim::run(args, &output, deny_warnings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        let args: Vec<std::ffi::OsString> = line.split_whitespace().map(Into::into).collect();
        Cli::try_parse_from(with_build(args))
    }

    #[test]
    fn a_bare_file_means_build() {
        for line in [
            "scenicc firewall.sn -o scu.xo",
            "scenicc examples/firewall.sn -o out/firewall",
            "scenicc --color never firewall.sn -o scu.xo",
            "scenicc -q firewall.sn --output out",
            "scenicc build firewall.sn -o out --target hls",
        ] {
            let cli = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let Command::Build(args) = cli.command else {
                panic!("{line}: not a build");
            };
            assert_eq!(
                args.file.file_name(),
                Some(std::ffi::OsStr::new("firewall.sn"))
            );
        }
    }

    #[test]
    fn subcommands_still_parse() {
        let cases = [
            ("scenicc check a.sn b.sn", "check"),
            ("scenicc --color never check a.sn", "check"),
            ("scenicc emit ir a.sn", "emit"),
            ("scenicc emit manifest a.sn", "emit"),
            ("scenicc test a.sn a.stf", "test"),
            ("scenicc explain E0202", "explain"),
            ("scenicc sim a.sn --in i.pcap --out o.pcap", "sim"),
            (
                "scenicc cc-sim a.sn --scenario s.toml --out d --seed 3",
                "cc-sim",
            ),
            (
                "scenicc cc-sim a.sn --scenario s.toml --out d --swap 5ms=b.sn",
                "cc-sim",
            ),
        ];
        for (line, name) in cases {
            let cli = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let got = match cli.command {
                Command::Build(_) => "build",
                Command::Check(_) => "check",
                Command::Emit(_) => "emit",
                Command::Sim(_) => "sim",
                Command::Test(_) => "test",
                Command::Explain(_) => "explain",
                Command::CcSim(_) => "cc-sim",
            };
            assert_eq!(got, name, "{line}");
        }
        // A mistyped subcommand stays a clap error, not a build of a file called `chek`.
        assert!(parse("scenicc chek a.sn").is_err());
        assert!(parse("scenicc --version").is_err());
    }
}
