//! Charts drawn with `plotters`, shown as PNG and SVG: line, scatter,
//! histogram and heatmap (`imshow`) panels, with legends, titles, axis
//! labels and several panels per [`Figure`].
//!
//! ```
//! use cuprite as cp;
//! use cuprite_display::{plot, RichDisplay};
//! let x = cp::linspace(0.0, 6.28, 50)?;
//! let y = x.astype(cp::f32)?;
//! let fig = plot::line_xy(&x, &y)?.label("y = x").title("A line").xlabel("x").size(480, 320);
//! let b = fig.bundle();
//! assert!(b.get("image/png").is_some() && b.get("image/svg+xml").is_some());
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! Text is drawn with DejaVu Sans embedded in the crate (no system fonts).

mod raster;
mod render;

use crate::bundle::{
    base64_encode, image_size_metadata, MimeBundle, Png, RichDisplay, IMAGE_PNG, IMAGE_SVG,
};
use cuprite::{Array, DType, Error, Result};

pub use raster::{encode_png, Colormap, NAN_COLOR};

/// The largest width or height of a figure, in pixels (larger sizes are scaled down).
pub const MAX_SIDE: u32 = 2000;
/// The smallest width or height of a figure, in pixels.
pub const MIN_SIDE: u32 = 100;
/// The size of a one-panel figure when none is given.
pub const DEFAULT_SIZE: (u32, u32) = (640, 480);
/// The SVG of a figure is left out of its bundle beyond this many bytes (PNG only).
pub const MAX_SVG_BYTES: usize = 2_000_000;
/// Figures with more marks than this skip SVG (each mark is an SVG element).
pub const MAX_SVG_MARKS: usize = 40_000;
/// The most bins a histogram may have.
pub const MAX_BINS: usize = 10_000;

/// An RGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Parses `#rrggbb`.
    pub fn hex(text: &str) -> Result<Rgb> {
        let t = text.trim().trim_start_matches('#');
        let bad = || Error::InvalidArgument {
            op: "plot::Rgb::hex",
            detail: format!("{text:?} is not a colour; use \"#rrggbb\""),
        };
        if t.len() != 6 || !t.is_ascii() {
            return Err(bad());
        }
        let p = |i: usize| u8::from_str_radix(&t[i..i + 2], 16).map_err(|_| bad());
        Ok(Rgb(p(0)?, p(2)?, p(4)?))
    }
}

/// The colours series take in turn (matplotlib's `tab10`).
pub const PALETTE: [Rgb; 10] = [
    Rgb(0x1f, 0x77, 0xb4),
    Rgb(0xff, 0x7f, 0x0e),
    Rgb(0x2c, 0xa0, 0x2c),
    Rgb(0xd6, 0x27, 0x28),
    Rgb(0x94, 0x67, 0xbd),
    Rgb(0x8c, 0x56, 0x4b),
    Rgb(0xe3, 0x77, 0xc2),
    Rgb(0x7f, 0x7f, 0x7f),
    Rgb(0xbc, 0xbd, 0x22),
    Rgb(0x17, 0xbe, 0xcf),
];

/// How a series is drawn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SeriesKind {
    Line,
    Scatter,
    /// Histogram bars: `x` holds the bin edges (one more than `y`, the counts).
    Bars,
    /// Timeline bars: `x` holds `[start, end]` pairs, `y` the lane of each.
    Spans,
}

/// One bar of a timeline ([`timeline`]): an interval of the x axis on a
/// lane (a row, from 0 at the bottom: a stream, a GPU, a rank), with the
/// label that gives it its colour and legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The row, from 0 at the bottom.
    pub lane: usize,
    /// Where the bar begins on the x axis.
    pub start: f64,
    /// Where it ends (at or after `start`).
    pub end: f64,
    /// Its legend entry; spans of one label share a colour.
    pub label: String,
}

impl Span {
    /// A span of `label` on `lane` from `start` to `end`.
    pub fn new(lane: usize, label: impl Into<String>, start: f64, end: f64) -> Span {
        Span {
            lane,
            start,
            end,
            label: label.into(),
        }
    }

    /// The span between two recorded CUDA events, in milliseconds after
    /// `origin` (an event recorded before both).
    pub fn between_events(
        lane: usize,
        label: impl Into<String>,
        origin: &cuprite::cuda::Event,
        start: &cuprite::cuda::Event,
        end: &cuprite::cuda::Event,
    ) -> Result<Span> {
        let t0 = cuprite::cuda::Event::elapsed_ms(origin, start)? as f64;
        let t1 = cuprite::cuda::Event::elapsed_ms(origin, end)? as f64;
        Ok(Span::new(lane, label, t0, t1))
    }
}

/// One data series of a panel.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    pub kind: SeriesKind,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub label: Option<String>,
    pub color: Option<Rgb>,
}

/// The largest side of the grid a heatmap keeps (larger arrays are
/// averaged down in blocks, which also avoids aliasing).
pub const MAX_HEATMAP_SIDE: usize = 1024;

/// A heatmap of a `rows × cols` array, kept as a grid of at most
/// [`MAX_HEATMAP_SIDE`] cells a side (block means of the data).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Heatmap {
    /// The array's shape (the axes show these coordinates).
    pub rows: usize,
    pub cols: usize,
    /// The grid drawn, in C order.
    pub grid_rows: usize,
    pub grid_cols: usize,
    pub values: Vec<f64>,
    /// The finite range of the full data.
    pub data_range: Option<(f64, f64)>,
    pub colormap: Colormap,
    pub vmin: Option<f64>,
    pub vmax: Option<f64>,
    pub colorbar: bool,
}

impl Heatmap {
    /// The value range mapped to the colormap's ends.
    pub fn range(&self) -> (f64, f64) {
        let (mut lo, mut hi) = self.data_range.unwrap_or((0.0, 1.0));
        if let Some(v) = self.vmin {
            lo = v;
        }
        if let Some(v) = self.vmax {
            hi = v;
        }
        (lo, hi)
    }
}

/// One panel: its series or heatmap, title and axis labels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Axes {
    pub(crate) title: Option<String>,
    pub(crate) xlabel: Option<String>,
    pub(crate) ylabel: Option<String>,
    pub(crate) series: Vec<Series>,
    pub(crate) heatmap: Option<Heatmap>,
    pub(crate) xlim: Option<(f64, f64)>,
    pub(crate) ylim: Option<(f64, f64)>,
    pub(crate) hide_grid: bool,
}

fn check_limits(op: &'static str, lo: f64, hi: f64) -> Result<(f64, f64)> {
    if !(lo.is_finite() && hi.is_finite()) || lo >= hi {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("limits ({lo}, {hi}) must be finite with low < high"),
        });
    }
    Ok((lo, hi))
}

/// The values of a real array as `f64` in C order (bool as 0/1).
/// Fails for complex values, which have no place on an axis.
fn real_only(op: &'static str, a: &Array) -> Result<()> {
    if a.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!(
                "cannot plot {} values; plot the real part, the imaginary part or the magnitude",
                a.dtype()
            ),
        });
    }
    Ok(())
}

fn to_f64(op: &'static str, a: &Array) -> Result<Vec<f64>> {
    real_only(op, a)?;
    a.astype(DType::Float64)?.to_vec::<f64>()
}

fn one_d(op: &'static str, what: &str, a: &Array) -> Result<Vec<f64>> {
    if a.ndim() != 1 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "{what} must be 1-D, got shape {}; use .ravel() or select a row",
                crate::html::fmt_shape(a.shape())
            ),
        });
    }
    to_f64(op, a)
}

fn pair(op: &'static str, x: &Array, y: &Array) -> Result<(Vec<f64>, Vec<f64>)> {
    let xs = one_d(op, "x", x)?;
    let ys = one_d(op, "y", y)?;
    if xs.len() != ys.len() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "x and y must have the same length, got {} and {}",
                xs.len(),
                ys.len()
            ),
        });
    }
    Ok((xs, ys))
}

/// The smallest and largest finite values, if any.
pub(crate) fn finite_range(v: &[f64]) -> Option<(f64, f64)> {
    let mut it = v.iter().copied().filter(|x| x.is_finite());
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
}

/// NumPy's `np.histogram(x, bins)`: `bins + 1` equal-width edges over the
/// finite values' range (±0.5 around a single value) and the count per
/// bin, the last bin closed. Non-finite values are ignored. The values are
/// binned on their device (`cp::histogram`); only the range and the counts
/// come back.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0f64, 2.0, 2.0, 3.0, 4.0])?;
/// let (edges, counts) = cuprite_display::plot::histogram(&x, 3)?;
/// assert_eq!(edges, vec![1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(counts, vec![1, 2, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogram(x: &Array, bins: usize) -> Result<(Vec<f64>, Vec<u64>)> {
    const OP: &str = "plot::histogram";
    if bins == 0 || bins > MAX_BINS {
        return Err(Error::InvalidArgument {
            op: OP,
            detail: format!("bins must be between 1 and {MAX_BINS}, got {bins}"),
        });
    }
    real_only(OP, x)?;
    let (lo, hi) = device_finite_range(x)?.unwrap_or((0.0, 1.0));
    let opts = cuprite::HistogramOptions::new().bins(bins).range(lo, hi);
    let (counts, edges) = cuprite::histogram_with(x, opts)?;
    let counts = counts
        .to_vec::<i64>()?
        .into_iter()
        .map(|c| c as u64)
        .collect();
    Ok((edges.astype(DType::Float64)?.to_vec::<f64>()?, counts))
}

/// The smallest and largest finite values of `x`, if any, reduced on its
/// device: the plain minimum and maximum when both are finite (then no
/// value is NaN or infinite), else those of the finite values.
fn device_finite_range(x: &Array) -> Result<Option<(f64, f64)>> {
    if x.size() == 0 {
        return Ok(None);
    }
    let read = |a: Array| -> Result<f64> { Ok(a.astype(DType::Float64)?.to_vec::<f64>()?[0]) };
    let (lo, hi) = (read(x.min()?)?, read(x.max()?)?);
    if lo.is_finite() && hi.is_finite() {
        return Ok(Some((lo, hi)));
    }
    let finite = cuprite::where_(cuprite::isfinite(x)?, x, f64::NAN)?;
    let lo = read(cuprite::nanmin(&finite, None, false)?)?;
    let hi = read(cuprite::nanmax(&finite, None, false)?)?;
    Ok(lo.is_finite().then_some((lo, hi)))
}

/// Averages `rows × cols` values in blocks so that no side exceeds `max`
/// (NaN only where a block has no finite value); returns the new grid.
fn block_means(v: &[f64], rows: usize, cols: usize, max: usize) -> (usize, usize, Vec<f64>) {
    let (fr, fc) = (rows.div_ceil(max).max(1), cols.div_ceil(max).max(1));
    if fr == 1 && fc == 1 {
        return (rows, cols, v.to_vec());
    }
    let (gr, gc) = (rows.div_ceil(fr), cols.div_ceil(fc));
    let mut sum = vec![0.0f64; gr * gc];
    let mut n = vec![0u32; gr * gc];
    for r in 0..rows {
        let row = &v[r * cols..(r + 1) * cols];
        let base = (r / fr) * gc;
        for (c, &x) in row.iter().enumerate() {
            if x.is_finite() {
                sum[base + c / fc] += x;
                n[base + c / fc] += 1;
            }
        }
    }
    let out = sum
        .iter()
        .zip(&n)
        .map(|(s, &k)| if k == 0 { f64::NAN } else { s / k as f64 })
        .collect();
    (gr, gc, out)
}

impl Axes {
    /// An empty panel.
    pub fn new() -> Axes {
        Axes::default()
    }

    fn push(mut self, kind: SeriesKind, x: Vec<f64>, y: Vec<f64>) -> Axes {
        self.series.push(Series {
            kind,
            x,
            y,
            label: None,
            color: None,
        });
        self
    }

    /// Adds a line through `y` against its index (`plt.plot(y)`).
    pub fn line(self, y: &Array) -> Result<Axes> {
        let ys = one_d("plot::line", "y", y)?;
        let xs = (0..ys.len()).map(|i| i as f64).collect();
        Ok(self.push(SeriesKind::Line, xs, ys))
    }

    /// Adds a line through the points `(x[i], y[i])`.
    pub fn line_xy(self, x: &Array, y: &Array) -> Result<Axes> {
        let (xs, ys) = pair("plot::line_xy", x, y)?;
        Ok(self.push(SeriesKind::Line, xs, ys))
    }

    /// Adds the points `(x[i], y[i])` as markers.
    pub fn scatter(self, x: &Array, y: &Array) -> Result<Axes> {
        let (xs, ys) = pair("plot::scatter", x, y)?;
        Ok(self.push(SeriesKind::Scatter, xs, ys))
    }

    /// Adds a Gantt-style timeline: a bar per span on its lane, one colour
    /// and legend entry per distinct label (in order of first use).
    pub fn timeline(mut self, spans: &[Span]) -> Result<Axes> {
        let op = "plot::timeline";
        if let Some(s) = spans
            .iter()
            .find(|s| !(s.start.is_finite() && s.end.is_finite()) || s.end < s.start)
        {
            let detail = format!(
                "span {:?} on lane {} runs from {} to {}; a span needs finite ends, start <= end",
                s.label, s.lane, s.start, s.end
            );
            return Err(Error::InvalidArgument { op, detail });
        }
        let mut labels: Vec<&str> = Vec::new();
        for s in spans {
            if !labels.contains(&s.label.as_str()) {
                labels.push(&s.label);
            }
        }
        for label in labels {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for s in spans.iter().filter(|s| s.label == label) {
                x.extend([s.start, s.end]);
                y.push(s.lane as f64);
            }
            self = self.push(SeriesKind::Spans, x, y).label(label);
        }
        Ok(self)
    }

    /// Adds a histogram of all values of `x` (any shape) in `bins` equal bins.
    pub fn hist(self, x: &Array, bins: usize) -> Result<Axes> {
        let (edges, counts) = histogram(x, bins).map_err(|e| rename(e, "plot::hist"))?;
        Ok(self.push(
            SeriesKind::Bars,
            edges,
            counts.into_iter().map(|c| c as f64).collect(),
        ))
    }

    /// Shows a 2-D array as a heatmap (row 0 at the top) with a colorbar.
    pub fn imshow(mut self, a: &Array) -> Result<Axes> {
        const OP: &str = "plot::imshow";
        if a.ndim() != 2 || a.size() == 0 {
            return Err(Error::Shape {
                op: OP,
                detail: format!(
                    "imshow needs a non-empty 2-D array, got shape {}",
                    crate::html::fmt_shape(a.shape())
                ),
            });
        }
        let values = to_f64(OP, a)?;
        let (rows, cols) = (a.shape()[0], a.shape()[1]);
        let data_range = finite_range(&values);
        let (grid_rows, grid_cols, values) = block_means(&values, rows, cols, MAX_HEATMAP_SIDE);
        self.heatmap = Some(Heatmap {
            rows,
            cols,
            grid_rows,
            grid_cols,
            values,
            data_range,
            colormap: Colormap::Viridis,
            vmin: None,
            vmax: None,
            colorbar: true,
        });
        Ok(self)
    }

    /// Sets the panel's title.
    pub fn title(mut self, title: impl Into<String>) -> Axes {
        self.title = Some(title.into());
        self
    }

    /// Sets the x-axis label.
    pub fn xlabel(mut self, label: impl Into<String>) -> Axes {
        self.xlabel = Some(label.into());
        self
    }

    /// Sets the y-axis label.
    pub fn ylabel(mut self, label: impl Into<String>) -> Axes {
        self.ylabel = Some(label.into());
        self
    }

    /// Names the last series added (it appears in the legend).
    pub fn label(mut self, label: impl Into<String>) -> Axes {
        if let Some(s) = self.series.last_mut() {
            s.label = Some(label.into());
        }
        self
    }

    /// Sets the colour of the last series added.
    pub fn color(mut self, color: Rgb) -> Axes {
        if let Some(s) = self.series.last_mut() {
            s.color = Some(color);
        }
        self
    }

    /// Fixes the x-axis range.
    pub fn xlim(mut self, lo: f64, hi: f64) -> Result<Axes> {
        self.xlim = Some(check_limits("plot::xlim", lo, hi)?);
        Ok(self)
    }

    /// Fixes the y-axis range.
    pub fn ylim(mut self, lo: f64, hi: f64) -> Result<Axes> {
        self.ylim = Some(check_limits("plot::ylim", lo, hi)?);
        Ok(self)
    }

    /// Draws grid lines (on by default for line, scatter and histogram panels).
    pub fn grid(mut self, on: bool) -> Axes {
        self.hide_grid = !on;
        self
    }

    /// Sets the heatmap's colormap.
    pub fn colormap(mut self, colormap: Colormap) -> Axes {
        if let Some(h) = &mut self.heatmap {
            h.colormap = colormap;
        }
        self
    }

    /// Sets the heatmap's value range (values outside are clipped to the ends).
    pub fn vrange(mut self, vmin: f64, vmax: f64) -> Result<Axes> {
        let (lo, hi) = check_limits("plot::vrange", vmin, vmax)?;
        if let Some(h) = &mut self.heatmap {
            h.vmin = Some(lo);
            h.vmax = Some(hi);
        }
        Ok(self)
    }

    /// Shows or hides the heatmap's colorbar.
    pub fn colorbar(mut self, on: bool) -> Axes {
        if let Some(h) = &mut self.heatmap {
            h.colorbar = on;
        }
        self
    }

    /// Number of drawn marks (points, bars, heatmap cells) to budget SVG size.
    fn marks(&self) -> usize {
        let s: usize = self
            .series
            .iter()
            .map(|s| match s.kind {
                SeriesKind::Line => s.x.len().min(4 * MAX_SIDE as usize) / 16,
                SeriesKind::Scatter | SeriesKind::Bars | SeriesKind::Spans => s.y.len(),
            })
            .sum();
        s
    }

    fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .series
            .iter()
            .map(|s| {
                let kind = match s.kind {
                    SeriesKind::Line => format!("line ({} points)", s.x.len()),
                    SeriesKind::Scatter => format!("scatter ({} points)", s.x.len()),
                    SeriesKind::Bars => format!("histogram ({} bins)", s.y.len()),
                    SeriesKind::Spans => format!("timeline ({} spans)", s.y.len()),
                };
                match &s.label {
                    Some(l) => format!("{kind} {l:?}"),
                    None => kind,
                }
            })
            .collect();
        if let Some(h) = &self.heatmap {
            parts.push(format!("heatmap {}x{}", h.rows, h.cols));
        }
        let body = if parts.is_empty() {
            "empty".to_string()
        } else {
            parts.join(", ")
        };
        match &self.title {
            Some(t) => format!("{t:?}: {body}"),
            None => body,
        }
    }
}

fn rename(e: Error, op: &'static str) -> Error {
    match e {
        Error::InvalidArgument { detail, .. } => Error::InvalidArgument { op, detail },
        Error::DType { detail, .. } => Error::DType { op, detail },
        other => other,
    }
}

/// A figure: one or more panels in a grid, a size and an optional title.
/// Methods that add data or labels act on the last panel, so a one-panel
/// figure reads like pyplot: `plot::line(&y)?.label("y").title("t")`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figure {
    pub(crate) width: Option<u32>,
    pub(crate) height: Option<u32>,
    pub(crate) title: Option<String>,
    pub(crate) columns: Option<usize>,
    pub(crate) panels: Vec<Axes>,
}

impl Figure {
    /// An empty figure (add panels with [`Figure::panel`]).
    pub fn new() -> Figure {
        Figure::default()
    }

    /// Sets the size in pixels (scaled down to at most [`MAX_SIDE`] on each
    /// side, keeping the aspect ratio; at least [`MIN_SIDE`]).
    pub fn size(mut self, width: u32, height: u32) -> Figure {
        self.width = Some(width);
        self.height = Some(height);
        self
    }

    /// Sets the figure's title, drawn above all panels.
    pub fn title(mut self, title: impl Into<String>) -> Figure {
        self.title = Some(title.into());
        self
    }

    /// Lays the panels out in `n` columns (by default: one row of up to three,
    /// else a near-square grid).
    pub fn columns(mut self, n: usize) -> Figure {
        self.columns = Some(n.max(1));
        self
    }

    /// Adds a panel.
    pub fn panel(mut self, axes: Axes) -> Figure {
        self.panels.push(axes);
        self
    }

    /// The panels.
    pub fn panels(&self) -> &[Axes] {
        &self.panels
    }

    fn current(mut self, f: impl FnOnce(Axes) -> Axes) -> Figure {
        let axes = self.panels.pop().unwrap_or_default();
        self.panels.push(f(axes));
        self
    }

    fn current_try(mut self, f: impl FnOnce(Axes) -> Result<Axes>) -> Result<Figure> {
        let axes = self.panels.pop().unwrap_or_default();
        self.panels.push(f(axes)?);
        Ok(self)
    }

    /// Adds a line (against the index) to the last panel.
    pub fn line(self, y: &Array) -> Result<Figure> {
        self.current_try(|a| a.line(y))
    }

    /// Adds a line through `(x, y)` to the last panel.
    pub fn line_xy(self, x: &Array, y: &Array) -> Result<Figure> {
        self.current_try(|a| a.line_xy(x, y))
    }

    /// Adds a scatter series to the last panel.
    pub fn scatter(self, x: &Array, y: &Array) -> Result<Figure> {
        self.current_try(|a| a.scatter(x, y))
    }

    /// Adds a histogram to the last panel.
    pub fn hist(self, x: &Array, bins: usize) -> Result<Figure> {
        self.current_try(|a| a.hist(x, bins))
    }

    /// Shows a 2-D array as a heatmap in the last panel.
    pub fn imshow(self, a: &Array) -> Result<Figure> {
        self.current_try(|ax| ax.imshow(a))
    }

    /// Names the last series of the last panel (for the legend).
    pub fn label(self, label: impl Into<String>) -> Figure {
        self.current(|a| a.label(label))
    }

    /// Sets the colour of the last series of the last panel.
    pub fn color(self, color: Rgb) -> Figure {
        self.current(|a| a.color(color))
    }

    /// Sets the last panel's x-axis label.
    pub fn xlabel(self, label: impl Into<String>) -> Figure {
        self.current(|a| a.xlabel(label))
    }

    /// Sets the last panel's y-axis label.
    pub fn ylabel(self, label: impl Into<String>) -> Figure {
        self.current(|a| a.ylabel(label))
    }

    /// Sets the last panel's title.
    pub fn panel_title(self, title: impl Into<String>) -> Figure {
        self.current(|a| a.title(title))
    }

    /// Fixes the last panel's x-axis range.
    pub fn xlim(self, lo: f64, hi: f64) -> Result<Figure> {
        self.current_try(|a| a.xlim(lo, hi))
    }

    /// Fixes the last panel's y-axis range.
    pub fn ylim(self, lo: f64, hi: f64) -> Result<Figure> {
        self.current_try(|a| a.ylim(lo, hi))
    }

    /// Sets the colormap of the last panel's heatmap.
    pub fn colormap(self, colormap: Colormap) -> Figure {
        self.current(|a| a.colormap(colormap))
    }

    /// Sets the value range of the last panel's heatmap.
    pub fn vrange(self, vmin: f64, vmax: f64) -> Result<Figure> {
        self.current_try(|a| a.vrange(vmin, vmax))
    }

    /// Turns grid lines of the last panel on or off.
    pub fn grid(self, on: bool) -> Figure {
        self.current(|a| a.grid(on))
    }

    /// Grid of the layout: (rows, columns).
    pub fn layout(&self) -> (usize, usize) {
        let n = self.panels.len().max(1);
        let cols = match self.columns {
            Some(c) => c.min(n),
            None if n <= 3 => n,
            None => (n as f64).sqrt().ceil() as usize,
        };
        (n.div_ceil(cols), cols)
    }

    /// The pixel size the figure is drawn at (after the caps).
    pub fn pixel_size(&self) -> (u32, u32) {
        let (rows, cols) = self.layout();
        let (dw, dh) = if rows * cols == 1 {
            DEFAULT_SIZE
        } else {
            (400 * cols as u32, 320 * rows as u32 + 40)
        };
        let w = self.width.unwrap_or(dw).max(1) as f64;
        let h = self.height.unwrap_or(dh).max(1) as f64;
        let scale = (MAX_SIDE as f64 / w).min(MAX_SIDE as f64 / h).min(1.0);
        let w = ((w * scale).round() as u32).clamp(MIN_SIDE, MAX_SIDE);
        let h = ((h * scale).round() as u32).clamp(MIN_SIDE, MAX_SIDE);
        (w, h)
    }

    /// The figure as an SVG document.
    pub fn to_svg(&self) -> Result<String> {
        render::svg(self)
    }

    /// The figure as a PNG image.
    pub fn to_png(&self) -> Result<Png> {
        let (w, h) = self.pixel_size();
        let rgb = render::rgb(self)?;
        Ok(Png {
            bytes: encode_png(&rgb, w, h)?,
            width: w,
            height: h,
        })
    }

    /// The figure as raw RGB pixels (row-major, 3 bytes a pixel) at [`Figure::pixel_size`].
    pub fn to_rgb(&self) -> Result<Vec<u8>> {
        render::rgb(self)
    }

    /// A one-line description (the bundle's `text/plain`).
    pub fn describe(&self) -> String {
        let (w, h) = self.pixel_size();
        let panels: Vec<String> = self.panels.iter().map(Axes::describe).collect();
        let title = self
            .title
            .as_ref()
            .map(|t| format!(" {t:?}"))
            .unwrap_or_default();
        let n = self.panels.len();
        format!(
            "<Figure{title} {w}x{h}, {n} panel{}: {}>",
            if n == 1 { "" } else { "s" },
            if panels.is_empty() {
                "empty".to_string()
            } else {
                panels.join("; ")
            }
        )
    }

    fn marks(&self) -> usize {
        self.panels.iter().map(Axes::marks).sum()
    }
}

impl RichDisplay for Figure {
    fn bundle(&self) -> MimeBundle {
        let mut b = MimeBundle::new(self.describe());
        match self.to_png() {
            Ok(png) => {
                b.insert(IMAGE_PNG, base64_encode(&png.bytes));
                b.set_metadata(IMAGE_PNG, image_size_metadata(png.width, png.height));
            }
            Err(e) => {
                b.insert(
                    "text/plain",
                    format!("{}\n(drawing failed: {e})", self.describe()),
                );
                return b;
            }
        }
        if self.marks() <= MAX_SVG_MARKS {
            if let Ok(svg) = self.to_svg() {
                if svg.len() <= MAX_SVG_BYTES {
                    b.insert(IMAGE_SVG, svg);
                }
            }
        }
        b
    }
}

/// A figure with a Gantt-style timeline of `spans` (see [`Axes::timeline`]):
/// for example copies and kernels on two streams, timed by CUDA events.
///
/// ```
/// use cuprite_display::plot::{timeline, Span};
/// let fig = timeline(&[
///     Span::new(0, "copy", 0.0, 1.5),
///     Span::new(1, "kernel", 1.0, 3.0),
///     Span::new(0, "copy", 2.0, 2.5),
/// ])?;
/// assert_eq!(fig.panels().len(), 1);
/// # Ok::<(), cuprite::Error>(())
/// ```
pub fn timeline(spans: &[Span]) -> Result<Figure> {
    let axes = Axes::new().timeline(spans)?;
    Ok(Figure::new().panel(axes.xlabel("time (ms)").ylabel("lane")))
}

/// A figure with a line through `y` against its index.
pub fn line(y: &Array) -> Result<Figure> {
    Figure::new().line(y)
}

/// A figure with a line through the points `(x[i], y[i])`.
pub fn line_xy(x: &Array, y: &Array) -> Result<Figure> {
    Figure::new().line_xy(x, y)
}

/// A figure with the points `(x[i], y[i])` as markers.
pub fn scatter(x: &Array, y: &Array) -> Result<Figure> {
    Figure::new().scatter(x, y)
}

/// A figure with a histogram of the values of `x` in `bins` bins.
pub fn hist(x: &Array, bins: usize) -> Result<Figure> {
    Figure::new().hist(x, bins)
}

/// A figure with a 2-D array as a heatmap (viridis) and a colorbar.
pub fn imshow(a: &Array) -> Result<Figure> {
    Figure::new().imshow(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_matches_numpy() -> Result<()> {
        let hist = |v: Vec<f64>, bins| histogram(&cuprite::asarray(v)?, bins);
        // NumPy 2.4: np.histogram([0.0, 0.1, 0.2, 0.3, 1.0], 3)
        //   -> counts [4, 0, 1], edges [0., 0.33333333, 0.66666667, 1.]
        let (e, c) = hist(vec![0.0, 0.1, 0.2, 0.3, 1.0], 3)?;
        assert_eq!(c, vec![4, 0, 1]);
        assert_eq!(e.len(), 4);
        assert!((e[1] - 1.0 / 3.0).abs() < 1e-15);
        // NumPy 2.4: np.histogram([5., 5.], 2) -> counts [0, 2], edges [4.5, 5., 5.5]
        let (e, c) = hist(vec![5.0, 5.0], 2)?;
        assert_eq!(e, vec![4.5, 5.0, 5.5]);
        assert_eq!(c, vec![0, 2]);
        // NumPy 2.4: x = np.sin(np.arange(1000)*0.37)*3 + np.arange(1000)%7; np.histogram(x, 10)[0]
        let x: Vec<f64> = (0..1000)
            .map(|i| (i as f64 * 0.37).sin() * 3.0 + (i % 7) as f64)
            .collect();
        let (_, c) = hist(x, 10)?;
        assert_eq!(c, vec![61, 71, 94, 116, 155, 164, 114, 93, 75, 57]);
        // Non-finite values are ignored: np.histogram([0., 1., 2.], 2) -> [1, 2]
        let (e, c) = hist(vec![0.0, f64::NAN, 1.0, f64::INFINITY, 2.0], 2)?;
        assert_eq!((e, c), (vec![0.0, 1.0, 2.0], vec![1, 2]));
        let (e, c) = hist(vec![f64::NAN], 2)?;
        assert_eq!((e, c), (vec![0.0, 0.5, 1.0], vec![0, 0]));
        Ok(())
    }

    #[test]
    fn big_heatmaps_are_averaged_in_blocks() {
        let v: Vec<f64> = (0..5 * 4).map(|i| i as f64).collect();
        assert_eq!(block_means(&v, 5, 4, 8), (5, 4, v.clone()));
        // 2x2 blocks (the last row block has one row): [[2.5, 4.5], [10.5, 12.5], [16.5, 18.5]]
        let (r, c, m) = block_means(&v, 5, 4, 3);
        assert_eq!((r, c), (3, 2));
        assert_eq!(m, vec![2.5, 4.5, 10.5, 12.5, 16.5, 18.5]);
        let (_, _, m) = block_means(&[f64::NAN, f64::NAN, 1.0, f64::NAN], 1, 4, 2);
        assert!(m[0].is_nan() && m[1] == 1.0);
    }

    #[test]
    fn sizes_are_capped() {
        let f = Figure::new().size(8000, 4000);
        assert_eq!(f.pixel_size(), (2000, 1000));
        let f = Figure::new().size(10, 10);
        assert_eq!(f.pixel_size(), (MIN_SIDE, MIN_SIDE));
        assert_eq!(Figure::new().pixel_size(), DEFAULT_SIZE);
    }
}
