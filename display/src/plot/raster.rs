//! Raster images inside figures (heatmaps, colorbars), colormaps and PNG encoding.
//!
//! plotters draws axes and text; the pixels of a heatmap are painted
//! afterwards: straight into the RGB buffer for PNG, and as one embedded
//! `<image>` (a PNG at data resolution) for SVG, so a 1000×1000 heatmap is
//! one element rather than a million rectangles.

use cuprite::{Error, Result};
use plotters::style::colors::colormaps::ViridisRGB;

use super::Rgb;
use crate::bundle::base64_encode;

/// The largest side of the PNG embedded in an SVG heatmap (data is sub-sampled beyond).
pub const MAX_EMBEDDED_SIDE: usize = 1024;

/// Maps values in `[0, 1]` to colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Colormap {
    /// matplotlib's default: dark blue to yellow, perceptually uniform.
    #[default]
    Viridis,
    /// Black to white.
    Gray,
}

/// The colour for NaN cells.
pub const NAN_COLOR: Rgb = Rgb(0xd0, 0xd0, 0xd0);

impl Colormap {
    /// The colour at `t` in `[0, 1]` (clipped).
    pub fn color(self, t: f64) -> Rgb {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        match self {
            Colormap::Viridis => {
                let c = ViridisRGB::get_color(t as f32);
                Rgb(c.0, c.1, c.2)
            }
            Colormap::Gray => {
                let v = (t * 255.0).round() as u8;
                Rgb(v, v, v)
            }
        }
    }

    /// The colour of `v` on the scale `lo..hi` (NaN: [`NAN_COLOR`]).
    pub fn color_of(self, v: f64, lo: f64, hi: f64) -> Rgb {
        if v.is_nan() {
            return NAN_COLOR;
        }
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        self.color(t)
    }
}

/// An image (`rows × cols` RGB cells) stretched over a pixel rectangle.
#[derive(Debug, Clone)]
pub(crate) struct Raster {
    /// Left, top, right (exclusive), bottom (exclusive) in figure pixels.
    pub rect: (i32, i32, i32, i32),
    pub rows: usize,
    pub cols: usize,
    /// Row-major RGB, 3 bytes a cell.
    pub rgb: Vec<u8>,
}

impl Raster {
    /// A heatmap of `values` (`rows × cols`, C order).
    pub fn heatmap(
        rect: (i32, i32, i32, i32),
        rows: usize,
        cols: usize,
        values: &[f64],
        cmap: Colormap,
        (lo, hi): (f64, f64),
    ) -> Raster {
        let mut rgb = Vec::with_capacity(values.len() * 3);
        for &v in values {
            let c = cmap.color_of(v, lo, hi);
            rgb.extend_from_slice(&[c.0, c.1, c.2]);
        }
        Raster {
            rect,
            rows,
            cols,
            rgb,
        }
    }

    /// A vertical gradient, top = 1, bottom = 0.
    pub fn gradient(rect: (i32, i32, i32, i32), cmap: Colormap) -> Raster {
        const STEPS: usize = 256;
        let mut rgb = Vec::with_capacity(STEPS * 3);
        for i in 0..STEPS {
            let c = cmap.color(1.0 - i as f64 / (STEPS - 1) as f64);
            rgb.extend_from_slice(&[c.0, c.1, c.2]);
        }
        Raster {
            rect,
            rows: STEPS,
            cols: 1,
            rgb,
        }
    }

    /// Paints the raster (nearest cell per pixel) into an RGB buffer.
    pub fn paint(&self, buf: &mut [u8], width: u32, height: u32) {
        let (l, t, r, b) = self.rect;
        let (w, h) = ((r - l).max(1) as f64, (b - t).max(1) as f64);
        let x0 = l.max(0);
        let x1 = r.min(width as i32);
        let y0 = t.max(0);
        let y1 = b.min(height as i32);
        for py in y0..y1 {
            let row = (((py - t) as f64 + 0.5) / h * self.rows as f64) as usize;
            let row = row.min(self.rows - 1);
            for px in x0..x1 {
                let col = (((px - l) as f64 + 0.5) / w * self.cols as f64) as usize;
                let col = col.min(self.cols - 1);
                let s = (row * self.cols + col) * 3;
                let d = (py as usize * width as usize + px as usize) * 3;
                buf[d..d + 3].copy_from_slice(&self.rgb[s..s + 3]);
            }
        }
    }

    /// The raster as an SVG `<image>` element holding a PNG (sub-sampled to
    /// at most [`MAX_EMBEDDED_SIDE`] cells a side).
    pub fn svg_element(&self) -> Result<String> {
        let step_r = self.rows.div_ceil(MAX_EMBEDDED_SIDE).max(1);
        let step_c = self.cols.div_ceil(MAX_EMBEDDED_SIDE).max(1);
        let (rows, cols) = (self.rows.div_ceil(step_r), self.cols.div_ceil(step_c));
        let mut rgb = Vec::with_capacity(rows * cols * 3);
        for r in (0..self.rows).step_by(step_r) {
            for c in (0..self.cols).step_by(step_c) {
                let s = (r * self.cols + c) * 3;
                rgb.extend_from_slice(&self.rgb[s..s + 3]);
            }
        }
        let png = encode_png(&rgb, cols as u32, rows as u32)?;
        let (l, t, r, b) = self.rect;
        Ok(format!(
            "<image x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" \
             image-rendering=\"pixelated\" style=\"image-rendering:pixelated\" \
             href=\"data:image/png;base64,{}\"/>\n",
            (r - l).max(1),
            (b - t).max(1),
            base64_encode(&png)
        ))
    }
}

/// Encodes RGB pixels (row-major, 3 bytes a pixel) as a PNG file.
pub fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>> {
    let need = width as usize * height as usize * 3;
    if width == 0 || height == 0 || rgb.len() != need {
        return Err(Error::InvalidArgument {
            op: "plot::encode_png",
            detail: format!(
                "{} bytes do not make a {width}x{height} RGB image ({need} bytes, both sides > 0)",
                rgb.len()
            ),
        });
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let fail = |e: png::EncodingError| Error::InvalidArgument {
            op: "plot::encode_png",
            detail: format!("PNG encoding failed: {e}"),
        };
        let mut w = enc.write_header().map_err(fail)?;
        w.write_image_data(rgb).map_err(fail)?;
        w.finish().map_err(fail)?;
    }
    Ok(out)
}
