//! `queue.svg`/`.png`: the bottleneck queue depth over time, in KB, with the marking thresholds
//! Kmin and Kmax as dashed reference lines when ECN marking is on.

use super::frame::{self, Entry, TimeAxis, MAX_POINTS};
use super::render::{DrawResult, Figure};
use crate::report::Summary;
use crate::stats::TimeSeries;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The figure, in axis units (time, KB).
pub struct Queue {
    title: String,
    time: TimeAxis,
    x_max: f64,
    line: Vec<(f64, f64)>,
    thresholds: Option<(f64, f64)>,
}

const QUEUE_COLOR: RGBColor = RGBColor(31, 119, 180);
const KMIN_COLOR: RGBColor = RGBColor(255, 127, 14);
const KMAX_COLOR: RGBColor = RGBColor(214, 39, 40);

impl Queue {
    /// The figure of a run.
    pub fn new(summary: &Summary, series: &TimeSeries) -> Queue {
        let time = TimeAxis::for_duration(summary.duration_us);
        let axis: Vec<(f64, f64)> = series
            .queue
            .iter()
            .map(|&(t, q)| (t / time.per_unit, q as f64 / 1e3))
            .collect();
        Queue {
            title: format!("{}: bottleneck queue", summary.scenario),
            time,
            x_max: summary.duration_us / time.per_unit,
            line: frame::envelope(&axis, MAX_POINTS),
            thresholds: series
                .ecn_thresholds
                .map(|(kmin, kmax)| (kmin as f64 / 1e3, kmax as f64 / 1e3)),
        }
    }

    fn y_max(&self) -> f64 {
        let queue = self.line.iter().map(|p| p.1).fold(0.0, f64::max);
        queue.max(self.thresholds.map_or(0.0, |(_, kmax)| kmax))
    }

    fn legend(&self) -> Vec<Entry> {
        let mut entries = vec![Entry {
            color: Some(QUEUE_COLOR),
            label: "bottleneck queue".to_string(),
        }];
        if let Some((kmin, kmax)) = self.thresholds {
            for (name, k, color) in [("Kmin", kmin, KMIN_COLOR), ("Kmax", kmax, KMAX_COLOR)] {
                entries.push(Entry {
                    color: Some(color),
                    label: format!("{name} = {} KB", frame::tick(k)),
                });
            }
        }
        entries
    }
}

impl Figure for Queue {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let area = frame::titled(root, &self.title)?;
        let entries = self.legend();
        let (area, column) = frame::beside_legend(&area, &entries);
        let y = (self.y_max(), "queue (KB)");
        let mut chart = frame::time_chart(&area, &self.time, self.x_max, y, 80)?;
        if let Some((kmin, kmax)) = self.thresholds {
            for (k, color) in [(kmin, KMIN_COLOR), (kmax, KMAX_COLOR)] {
                let ends = [(0.0, k), (self.x_max, k)];
                let style = color.stroke_width(1);
                chart.draw_series(DashedLineSeries::new(ends, 8, 6, style))?;
            }
        }
        let style = QUEUE_COLOR.stroke_width(2);
        chart.draw_series(LineSeries::new(self.line.iter().copied(), style))?;
        frame::legend(&column, &entries)
    }
}
