//! `fct_slowdown.svg`/`.png`: every completed sized flow's FCT slowdown (FCT over the ideal FCT,
//! [`crate::ideal`]) against its size, sizes on a log axis, with the ideal (slowdown 1) dashed.

use super::frame::{self, Entry};
use super::render::{DrawResult, Figure};
use crate::report::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;

const POINT_COLOR: RGBColor = RGBColor(31, 119, 180);
const IDEAL_COLOR: RGBColor = RGBColor(127, 127, 127);

/// The figure: `(size in bytes, slowdown)` per completed sized flow.
pub struct Slowdown {
    title: String,
    points: Vec<(f64, f64)>,
}

impl Slowdown {
    /// The figure of a run, if any sized flow completed.
    pub fn new(summary: &Summary) -> Option<Slowdown> {
        let points: Vec<(f64, f64)> = summary
            .flows
            .iter()
            .filter_map(|f| Some((f.size_bytes? as f64, f.slowdown?)))
            .collect();
        (!points.is_empty()).then(|| Slowdown {
            title: format!("{}: FCT slowdown of `{}`", summary.scenario, summary.cc),
            points,
        })
    }

    /// The size axis: the sizes with half a decade of room each side.
    fn x_range(&self) -> std::ops::Range<f64> {
        let sizes = self.points.iter().map(|p| p.0);
        let lo = sizes.clone().fold(f64::INFINITY, f64::min);
        let hi = sizes.fold(0.0, f64::max);
        (lo / 3.0).max(1.0)..hi * 3.0
    }

    fn y_max(&self) -> f64 {
        self.points.iter().map(|p| p.1).fold(1.0, f64::max)
    }

    fn legend(&self) -> Vec<Entry> {
        vec![
            Entry {
                color: Some(POINT_COLOR),
                label: format!("{} completed flows", self.points.len()),
            },
            Entry {
                color: Some(IDEAL_COLOR),
                label: "ideal (slowdown 1)".to_string(),
            },
        ]
    }
}

/// A size tick: `10 KB`, `1 MB`, ...
fn size_label(bytes: f64) -> String {
    let units = [(1e9, "GB"), (1e6, "MB"), (1e3, "KB")];
    for (scale, unit) in units {
        if bytes >= scale {
            return format!("{} {unit}", frame::tick(bytes / scale));
        }
    }
    format!("{} B", frame::tick(bytes))
}

impl Figure for Slowdown {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let area = frame::titled(root, &self.title)?;
        let entries = self.legend();
        let (area, column) = frame::beside_legend(&area, &entries);
        let x = self.x_range();
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(x.clone().log_scale(), frame::headroom(self.y_max()))?;
        chart
            .configure_mesh()
            .x_desc("flow size")
            .y_desc("FCT slowdown (FCT / ideal FCT)")
            .label_style(frame::label_style())
            .axis_desc_style(frame::label_style())
            .x_label_formatter(&|v| size_label(*v))
            .y_label_formatter(&|v| frame::tick(*v))
            .draw()?;
        let ideal = [(x.start, 1.0), (x.end, 1.0)];
        let style = IDEAL_COLOR.stroke_width(1);
        chart.draw_series(DashedLineSeries::new(ideal, 8, 6, style))?;
        let dots = self
            .points
            .iter()
            .map(|&p| Circle::new(p, 4, POINT_COLOR.filled()));
        chart.draw_series(dots)?;
        frame::legend(&column, &entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_labelled_in_decimal_units() {
        assert_eq!(size_label(100_000.0), "100 KB");
        assert_eq!(size_label(2_500_000.0), "2.5 MB");
        assert_eq!(size_label(64.0), "64 B");
    }
}
