//! The plots a run writes (docs/cc-sim.md, "Outputs"): which files, that they are well-formed
//! SVG and PNG, that one seed gives the same bytes, and the FCT slowdown against the ideal FCT
//! computed by hand from its definition.

mod common;

use scenic_ccsim::{Outcome, Scenario, Written};
use std::path::Path;

/// Two sized flows and an unbounded one into one receiver, 300 us.
const MIXED: &str = r#"
name = "mixed"
duration = "300us"
[topology]
kind = "incast"
[[flow]]
size = "20KB"
[[flow]]
size = "200KB"
start = "10us"
[[flow]]
start = "20us"
"#;

fn run(text: &str) -> Outcome {
    let module = common::example("dcqcn.sn");
    let scenario = match Scenario::parse("test.toml", text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    };
    match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    }
}

fn write(out: &Outcome, dir: &Path) -> Written {
    match out.write(dir) {
        Ok(written) => written,
        Err(err) => panic!("{err}"),
    }
}

fn tempdir() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(err) => panic!("{err}"),
    }
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    match std::fs::read(dir.join(name)) {
        Ok(bytes) => bytes,
        Err(err) => panic!("{name}: {err}"),
    }
}

fn svg(dir: &Path, name: &str) -> String {
    let text = String::from_utf8(read(dir, name)).unwrap_or_default();
    assert!(text.starts_with("<svg"), "{name} starts with <svg");
    assert!(
        text.trim_end().ends_with("</svg>"),
        "{name} ends with </svg>"
    );
    text
}

/// The strokes of the coloured (data) polylines: axes and ticks are black.
fn line_strokes(svg: &str) -> Vec<String> {
    svg.split("<polyline")
        .skip(1)
        .filter_map(|p| p.split("stroke=\"").nth(1)?.split('"').next())
        .filter(|stroke| *stroke != "#000000")
        .map(str::to_string)
        .collect()
}

/// The PNG signature, then the IHDR chunk's width and height (big-endian).
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    if bytes.get(..8)? != SIGNATURE || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let word = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    Some((word(16)?, word(20)?))
}

#[test]
fn the_plots_are_written_and_well_formed() {
    let out = run(MIXED);
    let dir = tempdir();
    let written = write(&out, dir.path());
    let png = scenic_ccsim::plot::font::system().is_ok();
    for stem in ["rates", "queue", "fct_slowdown"] {
        assert!(
            written.files.contains(&format!("{stem}.svg")),
            "{written:?}"
        );
        assert_eq!(
            written.files.contains(&format!("{stem}.png")),
            png,
            "{written:?}"
        );
        if png {
            let size = png_size(&read(dir.path(), &format!("{stem}.png")));
            assert_eq!(size, Some(scenic_ccsim::plot::render::SIZE), "{stem}.png");
        }
    }
    assert_eq!(written.warnings.is_empty(), png, "{:?}", written.warnings);
    // One line per flow, each in its own colour.
    let mut strokes = line_strokes(&svg(dir.path(), "rates.svg"));
    assert_eq!(strokes.len(), 3, "{strokes:?}");
    strokes.sort();
    strokes.dedup();
    assert_eq!(strokes.len(), 3, "{strokes:?}");
    // The queue, and the scenario's default Kmin and Kmax (100 KB, 400 KB) as reference lines.
    let queue = svg(dir.path(), "queue.svg");
    assert!(!line_strokes(&queue).is_empty());
    assert!(queue.contains("Kmin = 100 KB") && queue.contains("Kmax = 400 KB"));
    // One point per completed sized flow.
    let completed = out.summary.flows.iter().filter(|f| f.slowdown.is_some());
    let slowdown = svg(dir.path(), "fct_slowdown.svg");
    assert_eq!(completed.count(), 2);
    assert_eq!(slowdown.matches("<circle").count(), 2);
}

#[test]
fn without_sized_flows_there_is_no_slowdown_plot_and_without_ecn_no_thresholds() {
    let text = MIXED
        .replace("size = \"20KB\"\n", "")
        .replace("size = \"200KB\"\n", "")
        .replace(
            "kind = \"incast\"",
            "kind = \"incast\"\n[switch]\necn = false",
        );
    let out = run(&text);
    let dir = tempdir();
    let written = write(&out, dir.path());
    assert!(!written.files.iter().any(|f| f.starts_with("fct_slowdown")));
    assert!(!dir.path().join("fct_slowdown.svg").exists());
    assert!(!svg(dir.path(), "queue.svg").contains("Kmin"));
}

#[test]
fn without_a_font_only_the_svgs_are_written_with_a_warning() {
    let out = run(MIXED);
    let dir = tempdir();
    let why = "no font here";
    let written = match out.write_with_font(dir.path(), Err(why)) {
        Ok(written) => written,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(written.warnings, vec![why.to_string()]);
    assert!(
        !written.files.iter().any(|f| f.ends_with(".png")),
        "{written:?}"
    );
    assert!(!dir.path().join("rates.png").exists());
    svg(dir.path(), "rates.svg");
}

#[test]
fn one_seed_gives_byte_identical_plots() {
    let dirs = [tempdir(), tempdir()];
    let mut lists = Vec::new();
    for dir in &dirs {
        lists.push(write(&run(MIXED), dir.path()).files);
    }
    assert_eq!(lists[0], lists[1]);
    for name in &lists[0] {
        let (a, b) = (read(dirs[0].path(), name), read(dirs[1].path(), name));
        assert!(a == b, "{name} differs between two runs");
    }
}

/// One 100 KB flow alone on the incast (host links and the switch port 200 Gb/s, 1 us each,
/// 1000-byte payloads with 64-byte headers). By hand, from the definition: 100 packets of 1064 B,
/// 42.56 ns each at 200 Gb/s. The host link is the first of the equally slow links, so it sends
/// the whole train (4256 ns); the last packet then crosses the switch port (42.56 ns); plus two
/// 1 us propagation delays: 6298.56 ns. DCQCN starts at line rate, so the flow achieves it.
#[test]
fn a_lone_flows_slowdown_is_one_against_the_hand_computed_ideal() {
    let text = "duration = \"50us\"\n[topology]\nkind = \"incast\"\n[[flow]]\nsize = \"100KB\"\n";
    let flow = &run(text).summary.flows[0];
    let ideal = flow.ideal_fct_us.unwrap_or(0.0);
    assert!((ideal - 6.29856).abs() < 1e-9, "ideal {ideal} us");
    let slowdown = flow.slowdown.unwrap_or(0.0);
    assert!((1.0..1.01).contains(&slowdown), "slowdown {slowdown}");
}

/// The same flow through a 100 Gb/s switch port: now the port is the slowest link. By hand: the
/// first packet crosses the host link (42.56 ns), the port sends the 100 packets (85.12 ns each,
/// 8512 ns), plus 2 us: 10554.56 ns.
#[test]
fn behind_a_slower_port_the_ideal_is_the_train_at_that_port() {
    let text = "duration = \"50us\"\n[topology]\nkind = \"incast\"\nbottleneck_rate = \"100Gbps\"\n[[flow]]\nsize = \"100KB\"\n";
    let flow = &run(text).summary.flows[0];
    let ideal = flow.ideal_fct_us.unwrap_or(0.0);
    assert!((ideal - 10.55456).abs() < 1e-9, "ideal {ideal} us");
    let slowdown = flow.slowdown.unwrap_or(0.0);
    assert!((1.0..1.01).contains(&slowdown), "slowdown {slowdown}");
}
