//! `rates.svg`/`.png`: every flow's controller output over time (rate in Gb/s, or window in KB
//! for window controllers), one line per flow, drawn while the flow is active. The output is the
//! one that paces the flow, so after a hot swap (`--swap`) the lines are the new controller's; a
//! dashed vertical line marks the instant the standby took over.

use super::frame::{self, Entry, TimeAxis, MAX_POINTS};
use super::render::{DrawResult, Figure};
use crate::report::Summary;
use crate::stats::TimeSeries;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Most points drawn over all lines together (so thousands of flows stay a sane file).
const POINT_BUDGET: usize = 200_000;

/// The hot-swap marker.
const SWAP_COLOR: RGBColor = RGBColor(90, 90, 90);

/// The figure, its lines in axis units.
pub struct Rates {
    title: String,
    y_desc: &'static str,
    time: TimeAxis,
    x_max: f64,
    lines: Vec<Vec<(f64, f64)>>,
    /// Where the standby took over (axis units) and its cc's name.
    swap: Option<(f64, String)>,
}

impl Rates {
    /// The figure of a run.
    pub fn new(summary: &Summary, series: &TimeSeries) -> Rates {
        let rate = summary.output == "rate";
        let time = TimeAxis::for_duration(summary.duration_us);
        // Rates are already in Gb/s; windows go from bytes to KB.
        let scale = if rate { 1.0 } else { 1e-3 };
        let per_line = (POINT_BUDGET / series.flows.len().max(1)).clamp(100, MAX_POINTS);
        let lines = series
            .flows
            .iter()
            .map(|points| {
                let axis: Vec<(f64, f64)> = points
                    .iter()
                    .map(|&(t, v)| (t / time.per_unit, v * scale))
                    .collect();
                frame::envelope(&axis, per_line)
            })
            .collect();
        let what = if rate { "rate" } else { "window" };
        Rates {
            title: format!("{}: `{}` {what} per flow", summary.scenario, summary.cc),
            y_desc: if rate { "rate (Gb/s)" } else { "window (KB)" },
            time,
            x_max: summary.duration_us / time.per_unit,
            lines,
            swap: summary.swap.as_ref().and_then(|s| {
                let at = s.switched_at_us? / time.per_unit;
                Some((at, s.to_cc.clone()))
            }),
        }
    }

    fn y_max(&self) -> f64 {
        let values = self.lines.iter().flatten().map(|p| p.1);
        values.fold(0.0, f64::max)
    }

    fn legend(&self) -> Vec<Entry> {
        let entries = (0..self.lines.len())
            .map(|i| Entry {
                color: Some(frame::series_color(i)),
                label: format!("flow {i}"),
            })
            .collect();
        let mut entries = frame::capped(entries, "flows");
        if let Some((_, to)) = &self.swap {
            entries.push(Entry {
                color: Some(SWAP_COLOR),
                label: format!("swap to `{to}`"),
            });
        }
        entries
    }
}

impl Figure for Rates {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let area = frame::titled(root, &self.title)?;
        let entries = self.legend();
        let (area, column) = frame::beside_legend(&area, &entries);
        let y = (self.y_max(), self.y_desc);
        let mut chart = frame::time_chart(&area, &self.time, self.x_max, y, 70)?;
        let width = if self.lines.len() > 16 { 1 } else { 2 };
        for (i, line) in self.lines.iter().enumerate() {
            if line.is_empty() {
                continue;
            }
            let style = frame::series_color(i).stroke_width(width);
            chart.draw_series(LineSeries::new(line.iter().copied(), style))?;
        }
        if let Some((at, _)) = &self.swap {
            let ends = [(*at, 0.0), (*at, frame::headroom(self.y_max()).end)];
            let style = SWAP_COLOR.stroke_width(1);
            chart.draw_series(DashedLineSeries::new(ends, 8, 6, style))?;
        }
        frame::legend(&column, &entries)
    }
}
