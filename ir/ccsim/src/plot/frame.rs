//! What every plot shares: the title, text styles, the legend (in a column right of the chart, so
//! it never hides a line), the time axis and the thinning of long series.
//!
//! Text is laid out without measuring it (plotters measures text only through a font, and the SVGs
//! must not need one): the legend column's width is estimated from its longest label, so an SVG
//! is the same with or without a font installed.

use super::font::FAMILY;
use super::render::SIZE;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Height of the title band.
const TITLE_HEIGHT: u32 = 40;
/// Font size of axis labels and the legend (pixels).
pub const LABEL_SIZE: u32 = 16;
/// Most legend entries shown; beyond, the last line counts the rest.
pub const LEGEND_MAX: usize = 10;
/// Most points drawn per line (an envelope of the samples, [`envelope`]).
pub const MAX_POINTS: usize = 2000;

/// The text style of labels.
pub fn label_style() -> TextStyle<'static> {
    (FAMILY, LABEL_SIZE).into_font().color(&BLACK)
}

/// The colour of series `i`.
pub fn series_color(i: usize) -> RGBColor {
    let (r, g, b) = Palette99::pick(i).rgb();
    RGBColor(r, g, b)
}

/// Draws `title` centred at the top of `root` and returns the area below it.
pub fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = (FAMILY, 22)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw(&Text::new(
        title.to_string(),
        (SIZE.0 as i32 / 2, 10),
        style,
    ))?;
    Ok(root.margin(TITLE_HEIGHT, 10, 10, 25))
}

/// A legend entry: a colour swatch (none for a note) and a label.
pub struct Entry {
    /// The swatch's colour.
    pub color: Option<RGBColor>,
    /// The text.
    pub label: String,
}

/// At most [`LEGEND_MAX`] entries: the first ones, then a line counting the others.
pub fn capped(mut entries: Vec<Entry>, noun: &str) -> Vec<Entry> {
    if entries.len() > LEGEND_MAX {
        let more = entries.len() - (LEGEND_MAX - 1);
        entries.truncate(LEGEND_MAX - 1);
        entries.push(Entry {
            color: None,
            label: format!("and {more} more {noun}"),
        });
    }
    entries
}

/// Splits `area` into the chart (left) and a column for the legend `entries` (right, as wide as
/// the longest label needs).
pub fn beside_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let longest = entries.iter().map(|e| e.label.chars().count()).max();
    // About 0.6 em per character of a sans-serif font: no font is needed to lay it out.
    let text = (longest.unwrap_or(0) as f64 * 0.6 * f64::from(LABEL_SIZE)) as i32;
    let column = SWATCH + 8 + text + 2 * PAD;
    let (width, _) = area.dim_in_pixel();
    area.split_horizontally(width as i32 - column)
}

/// Side of a legend swatch; padding around the legend's contents (pixels).
const SWATCH: i32 = 12;
const PAD: i32 = 10;

/// Draws `entries` at the top of `column` (from [`beside_legend`]), in a box.
pub fn legend<DB: DrawingBackend>(
    column: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if entries.is_empty() {
        return Ok(());
    }
    let (width, _) = column.dim_in_pixel();
    let line = LABEL_SIZE as i32 + 6;
    let (x0, y0, x1) = (PAD, PAD, width as i32 - 1);
    let y1 = y0 + line * entries.len() as i32 + 8;
    column.draw(&Rectangle::new([(x0, y0), (x1, y1)], BLACK.stroke_width(1)))?;
    for (k, entry) in entries.iter().enumerate() {
        let y = y0 + 4 + line * k as i32 + line / 2;
        let x = x0 + 8;
        if let Some(color) = entry.color {
            let swatch = [(x, y - SWATCH / 2), (x + SWATCH, y + SWATCH / 2)];
            column.draw(&Rectangle::new(swatch, color.filled()))?;
        }
        let style = label_style().pos(Pos::new(HPos::Left, VPos::Center));
        column.draw(&Text::new(entry.label.clone(), (x + SWATCH + 8, y), style))?;
    }
    Ok(())
}

/// The chart every time plot draws on: x from 0 to `x_max` in `time`'s unit, y from 0 with
/// headroom over `y_max`, the mesh with both axes described and ticks formatted by [`tick`].
pub fn time_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    time: &TimeAxis,
    x_max: f64,
    (y_max, y_desc): (f64, &str),
    y_label_area: u32,
) -> Result<TimeChart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area)
        .x_label_area_size(50)
        .y_label_area_size(y_label_area)
        .build_cartesian_2d(0.0..x_max, headroom(y_max))?;
    chart
        .configure_mesh()
        .x_desc(time.desc())
        .y_desc(y_desc)
        .label_style(label_style())
        .axis_desc_style(label_style())
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()?;
    Ok(chart)
}

/// A chart with linear time and value axes.
pub type TimeChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How the time axis is labelled: microseconds, or milliseconds for runs of 2 ms or more.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeAxis {
    /// Microseconds per axis unit.
    pub per_unit: f64,
    /// The unit's name.
    pub unit: &'static str,
}

impl TimeAxis {
    /// The axis for a run of `duration_us`.
    pub fn for_duration(duration_us: f64) -> TimeAxis {
        if duration_us >= 2000.0 {
            TimeAxis {
                per_unit: 1000.0,
                unit: "ms",
            }
        } else {
            TimeAxis {
                per_unit: 1.0,
                unit: "us",
            }
        }
    }

    /// The axis description.
    pub fn desc(self) -> String {
        format!("time ({})", self.unit)
    }
}

/// `0..max` with 10% headroom, or `0..1` when every value is zero.
pub fn headroom(max: f64) -> std::ops::Range<f64> {
    if max > 0.0 && max.is_finite() {
        0.0..max * 1.1
    } else {
        0.0..1.0
    }
}

/// A tick label: no more decimals than the value needs, at most three.
pub fn tick(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// At most `max_points` of `points` (sorted by x) that keep their shape: the points are cut into
/// `max_points / 2` runs and each run gives its lowest and highest point, in x order. Shorter
/// series come back whole.
pub fn envelope(points: &[(f64, f64)], max_points: usize) -> Vec<(f64, f64)> {
    let buckets = (max_points / 2).max(1);
    if points.len() <= max_points {
        return points.to_vec();
    }
    let per = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(2 * buckets);
    for run in points.chunks(per) {
        let low = run
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
        let high = run
            .iter()
            .enumerate()
            .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
        if let (Some((i, &lo)), Some((j, &hi))) = (low, high) {
            match i.cmp(&j) {
                std::cmp::Ordering::Less => out.extend([lo, hi]),
                std::cmp::Ordering::Greater => out.extend([hi, lo]),
                std::cmp::Ordering::Equal => out.push(lo),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_keeps_each_runs_extremes_in_order() {
        let points: Vec<(f64, f64)> = [3.0, 9.0, 1.0, 5.0, 5.0, 2.0, 7.0, 4.0]
            .iter()
            .enumerate()
            .map(|(i, &y)| (i as f64, y))
            .collect();
        // Two runs of four, (3 9 1 5) and (5 2 7 4): each gives its lowest and highest point,
        // in x order: 9 then 1, 2 then 7.
        let ys: Vec<f64> = envelope(&points, 4).iter().map(|p| p.1).collect();
        assert_eq!(ys, vec![9.0, 1.0, 2.0, 7.0]);
        let thin = envelope(&points, 2);
        // One run of eight: its lowest (1, at x 2) then its highest (9, at x 1), in x order.
        assert_eq!(thin, vec![(1.0, 9.0), (2.0, 1.0)]);
        assert_eq!(envelope(&points[..3], 4), points[..3].to_vec());
    }

    #[test]
    fn a_long_legend_counts_the_rest() {
        let entries = (0..25)
            .map(|i| Entry {
                color: Some(series_color(i)),
                label: format!("flow {i}"),
            })
            .collect();
        let shown = capped(entries, "flows");
        assert_eq!(shown.len(), LEGEND_MAX);
        assert_eq!(shown[LEGEND_MAX - 1].label, "and 16 more flows");
        assert_eq!(
            (tick(2.5), tick(100.0), tick(0.0)),
            ("2.5".into(), "100".into(), "0".into())
        );
    }
}
