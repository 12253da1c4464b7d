//! Drawing a [`Figure`] onto plotters' backends: SVG into a string, PNG through the bitmap
//! backend's RGB buffer and the `png` encoder. Every figure has the same size, [`SIZE`].
//!
//! Invariant: the output depends only on the figure (and, for PNG, the registered font): no time
//! stamps, no random ids, so one run's plots are byte-identical to the next one's.

use plotters::backend::RGBPixel;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::io;

/// Width and height of every plot, in pixels.
pub const SIZE: (u32, u32) = (1000, 600);

/// What drawing failed with.
pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A plot that can be drawn on any backend.
pub trait Figure {
    /// Draws the whole figure on `root` (a [`SIZE`] canvas, already white).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB>;
}

/// The figure as an SVG document.
pub fn svg(figure: &impl Figure) -> io::Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        paint(figure, &root)?;
    }
    Ok(out)
}

/// The figure as a PNG image (text in the registered font).
pub fn png(figure: &impl Figure) -> io::Result<Vec<u8>> {
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let backend = BitMapBackend::<RGBPixel>::with_buffer_and_format(&mut rgb, SIZE)
            .map_err(io::Error::other)?;
        paint(figure, &backend.into_drawing_area())?;
    }
    encode_png(&rgb, w, h)
}

fn paint<DB: DrawingBackend>(
    figure: &impl Figure,
    root: &DrawingArea<DB, Shift>,
) -> io::Result<()> {
    root.fill(&WHITE).map_err(drawing_error)?;
    figure.draw(root).map_err(drawing_error)?;
    root.present().map_err(drawing_error)
}

fn drawing_error<E: std::error::Error + Send + Sync>(err: DrawingAreaErrorKind<E>) -> io::Error {
    io::Error::other(format!("cannot draw a plot: {err}"))
}

fn encode_png(rgb: &[u8], w: u32, h: u32) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(io::Error::other)?;
    writer.write_image_data(rgb).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)?;
    Ok(out)
}
