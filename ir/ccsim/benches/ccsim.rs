//! Simulator speed: `cargo bench -p scenic-ccsim --bench ccsim [-- MS]`.
//!
//! Runs examples/dcqcn.sn on an 8-to-1, 200 Gb/s incast (examples/scenarios/incast8.toml) for MS
//! milliseconds of simulated time (default 100) and prints the wall time and the simulated events
//! per second, then the wall time of writing the outputs (summary, CSVs, plots) into a temporary
//! directory. Also prints the thread's CPU time where /proc/thread-self/schedstat has it (the
//! machine may be shared).

use scenic_ccsim::Scenario;
use scenic_frontend::Session;
use std::path::Path;
use std::time::Instant;

fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let ms: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut session = Session::new();
    if let Err(err) = session.add_path(&root.join("examples/dcqcn.sn")) {
        eprintln!("cannot read examples/dcqcn.sn: {err}");
        std::process::exit(2);
    }
    let module = match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(err) => {
            eprintln!("cannot lower examples/dcqcn.sn: {err}");
            std::process::exit(2);
        }
    };
    let path = root.join("examples/scenarios/incast8.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let text = text
        .replace("duration = \"10ms\"", &format!("duration = \"{ms}ms\""))
        .replace(
            "measure_from = \"5ms\"",
            &format!("measure_from = \"{}us\"", ms * 500),
        );
    let scenario = match Scenario::parse("incast8.toml", &text) {
        Ok(s) => s,
        Err(err) => {
            eprintln!("{err}");
            std::process::exit(2);
        }
    };
    let cpu0 = cpu_ns();
    let t = Instant::now();
    let out = match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => out,
        Err(err) => {
            eprintln!("{err}");
            std::process::exit(2);
        }
    };
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu0.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e9);
    let events = out.summary.events;
    print!("{}", out.summary.text());
    println!(
        "incast 8->1 at 200 Gb/s, {ms} ms simulated: {events} events, wall {wall:.2} s ({:.2} M events/s){}",
        events as f64 / wall / 1e6,
        cpu.map_or(String::new(), |c| format!(", CPU {c:.2} s ({:.2} M events/s)", events as f64 / c / 1e6))
    );
    report_writing(&out);
}

/// Times `Outcome::write` (the summary, the CSVs and the plots) into a temporary directory.
fn report_writing(out: &scenic_ccsim::Outcome) {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => {
            eprintln!("cannot make a temporary directory: {err}");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    match out.write(dir.path()) {
        Ok(written) => println!(
            "writing {}: wall {:.3} s{}",
            written.files.join(", "),
            t.elapsed().as_secs_f64(),
            written
                .warnings
                .iter()
                .map(|w| format!(" (warning: {w})"))
                .collect::<String>()
        ),
        Err(err) => eprintln!("cannot write the outputs: {err}"),
    }
}
