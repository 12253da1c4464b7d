//! The plots of a run, written next to `summary.json` and the CSVs: `rates`, `queue` and, when a
//! sized flow completed, `fct_slowdown`, each as SVG and PNG (docs/cc-sim.md, "Outputs").
//!
//! - [`rates`], [`queue`], [`slowdown`]: the three figures;
//! - [`frame`]: what they share (title, legend, axes, thinning of long series);
//! - [`render`]: SVG and PNG output; [`font`]: the system font the PNGs' text needs.
//!
//! Invariants: the SVGs need no font and are byte-identical for one seed; without a font the
//! PNGs are skipped (the caller is told why) and the SVGs are still written.

pub mod font;
pub mod frame;
pub mod queue;
pub mod rates;
pub mod render;
pub mod slowdown;

use crate::report::Summary;
use crate::stats::TimeSeries;
use render::Figure;
use std::io;
use std::path::Path;

/// Writes the plots into `dir`; `font` is the PNGs' font, or why there is none (then only the
/// SVGs are written). Returns the names of the files written.
pub fn write(
    dir: &Path,
    summary: &Summary,
    series: &TimeSeries,
    font: Result<&Path, &str>,
) -> io::Result<Vec<String>> {
    let png = font.is_ok();
    let mut files = Vec::new();
    write_figure(
        dir,
        "rates",
        &rates::Rates::new(summary, series),
        png,
        &mut files,
    )?;
    write_figure(
        dir,
        "queue",
        &queue::Queue::new(summary, series),
        png,
        &mut files,
    )?;
    if let Some(figure) = slowdown::Slowdown::new(summary) {
        write_figure(dir, "fct_slowdown", &figure, png, &mut files)?;
    }
    Ok(files)
}

fn write_figure(
    dir: &Path,
    name: &str,
    figure: &impl Figure,
    png: bool,
    files: &mut Vec<String>,
) -> io::Result<()> {
    let svg = format!("{name}.svg");
    std::fs::write(dir.join(&svg), render::svg(figure)?)?;
    files.push(svg);
    if png {
        let png = format!("{name}.png");
        std::fs::write(dir.join(&png), render::png(figure)?)?;
        files.push(png);
    }
    Ok(())
}
