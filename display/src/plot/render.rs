//! Drawing a [`Figure`] with plotters on any backend (SVG text or an RGB buffer).

use std::sync::Once;

use cuprite::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::raster::Raster;
use super::{finite_range, Axes, Figure, Heatmap, Series, SeriesKind, PALETTE};

const FONT: &str = "sans-serif";
const TITLE_SIZE: u32 = 22;
const PANEL_TITLE_SIZE: u32 = 17;
const DESC_SIZE: u32 = 15;
const TICK_SIZE: u32 = 12;
const LEGEND_SIZE: u32 = 13;
const MARGIN: i32 = 12;
const COLORBAR_WIDTH: i32 = 84;

/// Registers the embedded DejaVu Sans as plotters' `sans-serif` (once per
/// copy of this crate: under evcxr each cell links its own, with its own
/// plotters font table).
fn ensure_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

fn draw_error(e: impl std::fmt::Display) -> Error {
    Error::InvalidArgument {
        op: "plot",
        detail: format!("drawing the figure failed: {e}"),
    }
}

/// Sizes in pixels at a scale: SVG draws at 1, PNG at [`SUPERSAMPLE`] and is
/// then averaged down, which smooths lines and markers.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    s: i32,
}

impl Ctx {
    fn px(self, v: i32) -> i32 {
        v * self.s
    }
    fn font(self, size: u32) -> u32 {
        size * self.s as u32
    }
}

/// How many times larger a PNG is drawn before it is averaged down.
pub(crate) const SUPERSAMPLE: u32 = 2;

/// The figure as an SVG document.
pub(crate) fn svg(fig: &Figure) -> Result<String> {
    ensure_fonts();
    let (w, h) = fig.pixel_size();
    let mut out = String::new();
    let rasters = {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        let rasters = draw(fig, &root, Ctx { s: 1 }).map_err(draw_error)?;
        root.present().map_err(draw_error)?;
        rasters
    };
    if !rasters.is_empty() {
        let mut images = String::new();
        for r in &rasters {
            images.push_str(&r.svg_element()?);
        }
        let at = out.rfind("</svg>").unwrap_or(out.len());
        out.insert_str(at, &images);
    }
    Ok(out)
}

/// The figure as RGB pixels at its pixel size.
pub(crate) fn rgb(fig: &Figure) -> Result<Vec<u8>> {
    ensure_fonts();
    let (w, h) = fig.pixel_size();
    let k = SUPERSAMPLE;
    let (bw, bh) = (w * k, h * k);
    let mut buf = vec![255u8; bw as usize * bh as usize * 3];
    let rasters = {
        let root = BitMapBackend::with_buffer(&mut buf, (bw, bh)).into_drawing_area();
        let rasters = draw(fig, &root, Ctx { s: k as i32 }).map_err(draw_error)?;
        root.present().map_err(draw_error)?;
        rasters
    };
    for r in &rasters {
        r.paint(&mut buf, bw, bh);
    }
    Ok(downsample(&buf, w, h, k))
}

/// Averages `k × k` blocks of an RGB image of `(w·k) × (h·k)` pixels.
fn downsample(buf: &[u8], w: u32, h: u32, k: u32) -> Vec<u8> {
    let (w, h, k) = (w as usize, h as usize, k as usize);
    let bw = w * k;
    let mut out = vec![0u8; w * h * 3];
    let n = (k * k) as u32;
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0u32; 3];
            for dy in 0..k {
                let row = (y * k + dy) * bw;
                for dx in 0..k {
                    let p = (row + x * k + dx) * 3;
                    acc[0] += buf[p] as u32;
                    acc[1] += buf[p + 1] as u32;
                    acc[2] += buf[p + 2] as u32;
                }
            }
            let o = (y * w + x) * 3;
            for c in 0..3 {
                out[o + c] = ((acc[c] + n / 2) / n) as u8;
            }
        }
    }
    out
}

type DrawResult<T, DB> =
    std::result::Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(
    fig: &Figure,
    root: &DrawingArea<DB, Shift>,
    cx: Ctx,
) -> DrawResult<Vec<Raster>, DB> {
    root.fill(&WHITE)?;
    let area = match &fig.title {
        Some(t) => title_strip(root, t, cx.font(TITLE_SIZE))?,
        None => root.clone(),
    };
    let (rows, cols) = fig.layout();
    let cells = area.split_evenly((rows, cols));
    let mut rasters = Vec::new();
    let empty = Axes::default();
    let panels: Vec<&Axes> = if fig.panels.is_empty() {
        vec![&empty]
    } else {
        fig.panels.iter().collect()
    };
    for (ax, cell) in panels.into_iter().zip(cells.iter()) {
        draw_axes(ax, cell, &mut rasters, cx)?;
    }
    Ok(rasters)
}

/// Draws `text` centred in a strip at the top of `area`; returns the rest.
fn title_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
) -> DrawResult<DrawingArea<DB, Shift>, DB> {
    let strip = (size as f64 * 1.7).round() as i32;
    let (top, rest) = area.split_vertically(strip);
    let (w, h) = top.dim_in_pixel();
    let style = TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
    top.draw_text(text, &style, (w as i32 / 2, h as i32 / 2))?;
    Ok(rest)
}

/// Tick labels: short, without trailing zeros; scientific for very large or small.
pub(crate) fn fmt_tick(v: &f64) -> String {
    let v = *v;
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.2e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A data range padded by 5% (or ±0.5 around a single value).
fn padded(range: Option<(f64, f64)>) -> (f64, f64) {
    match range {
        None => (0.0, 1.0),
        Some((lo, hi)) if lo == hi => {
            let d = if lo == 0.0 { 0.5 } else { lo.abs() * 0.1 };
            (lo - d, hi + d)
        }
        Some((lo, hi)) => {
            let d = (hi - lo) * 0.05;
            (lo - d, hi + d)
        }
    }
}

fn union(a: Option<(f64, f64)>, b: Option<(f64, f64)>) -> Option<(f64, f64)> {
    match (a, b) {
        (Some((a0, a1)), Some((b0, b1))) => Some((a0.min(b0), a1.max(b1))),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The x and y ranges of a panel of series.
fn series_ranges(ax: &Axes) -> ((f64, f64), (f64, f64)) {
    let (mut xr, mut yr) = (None, None);
    let mut bars = false;
    for s in &ax.series {
        xr = union(xr, finite_range(&s.x));
        yr = union(yr, finite_range(&s.y));
        if s.kind == SeriesKind::Bars {
            bars = true;
            yr = union(yr, Some((0.0, 0.0)));
        }
        if s.kind == SeriesKind::Spans {
            // Lanes are bars of height 0.7 around their index.
            let lanes = finite_range(&s.y).map(|(lo, hi)| (lo - 0.5, hi + 0.5));
            yr = union(yr, lanes);
        }
    }
    let mut x = padded(xr);
    let mut y = padded(yr);
    if bars {
        // Bars stand on zero.
        if let Some((lo, hi)) = yr {
            y = (lo.min(0.0), if hi > 0.0 { hi * 1.05 } else { 1.0 });
        }
    }
    if let Some(l) = ax.xlim {
        x = l;
    }
    if let Some(l) = ax.ylim {
        y = l;
    }
    (x, y)
}

fn to_color(c: super::Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// Line points with at most ~4 per pixel column when x is sorted (first,
/// min, max and last of each column), NaN kept so that lines break there.
fn decimate(x: &[f64], y: &[f64], columns: usize) -> Vec<(f64, f64)> {
    let n = x.len();
    let sorted = x.windows(2).all(|w| w[0] <= w[1]);
    let (x0, x1) = (
        x.first().copied().unwrap_or(0.0),
        x.last().copied().unwrap_or(0.0),
    );
    let span_ok = x0.is_finite() && x1.is_finite() && x1 > x0;
    if n <= 4 * columns.max(1) || !sorted || !span_ok {
        return x.iter().copied().zip(y.iter().copied()).collect();
    }
    let mut out = Vec::with_capacity(4 * columns + 2);
    let bucket_of = |v: f64| (((v - x0) / (x1 - x0) * columns as f64) as usize).min(columns - 1);
    let mut i = 0;
    while i < n {
        let b = bucket_of(x[i]);
        let start = i;
        let (mut lo, mut hi) = (i, i);
        let mut nan_at = None;
        while i < n && bucket_of(x[i]) == b {
            if y[i].is_nan() {
                nan_at.get_or_insert(i);
            } else {
                if y[lo].is_nan() || y[i] < y[lo] {
                    lo = i;
                }
                if y[hi].is_nan() || y[i] > y[hi] {
                    hi = i;
                }
            }
            i += 1;
        }
        let mut keep = vec![start, lo, hi, i - 1];
        if let Some(k) = nan_at {
            keep.push(k);
        }
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|k| (x[k], y[k])));
    }
    out
}

/// Splits a polyline at non-finite points.
fn segments(points: Vec<(f64, f64)>) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for p in points {
        if p.0.is_finite() && p.1.is_finite() {
            cur.push(p);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn draw_axes<DB: DrawingBackend>(
    ax: &Axes,
    cell: &DrawingArea<DB, Shift>,
    rasters: &mut Vec<Raster>,
    cx: Ctx,
) -> DrawResult<(), DB> {
    let mut area = match &ax.title {
        Some(t) => title_strip(cell, t, cx.font(PANEL_TITLE_SIZE))?,
        None => cell.clone(),
    };
    let heat = ax.heatmap.as_ref();
    let mut colorbar_area = None;
    if let Some(h) = heat {
        if h.colorbar {
            let (w, _) = area.dim_in_pixel();
            let (main, bar) =
                area.split_horizontally((w as i32 - cx.px(COLORBAR_WIDTH)).max(w as i32 / 2));
            area = main;
            colorbar_area = Some(bar);
        }
    }
    let x_area = cx.px(if ax.xlabel.is_some() { 46 } else { 28 });
    let y_area = cx.px(if ax.ylabel.is_some() { 72 } else { 54 });
    let m = cx.px(MARGIN);
    let mut margins = [m; 4]; // top, bottom, left, right
    if let Some(h) = heat {
        // Square cells: shrink the longer side of the plotting area.
        let (w, hgt) = area.dim_in_pixel();
        let pw = (w as i32 - y_area - 2 * m).max(1) as f64;
        let ph = (hgt as i32 - x_area - 2 * m).max(1) as f64;
        let want = h.cols as f64 / h.rows as f64;
        if pw / ph > want {
            let extra = (pw - ph * want) as i32;
            margins[2] += extra / 2;
            margins[3] += extra - extra / 2;
        } else {
            let extra = (ph - pw / want) as i32;
            margins[0] += extra / 2;
            margins[1] += extra - extra / 2;
        }
    }
    let mut builder = ChartBuilder::on(&area);
    builder
        .margin_top(margins[0])
        .margin_bottom(margins[1])
        .margin_left(margins[2])
        .margin_right(margins[3])
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    let ((x0, x1), (y0, y1)) = match heat {
        // Row r spans y in [-(r + 1), -r], so row 0 is at the top and the
        // ticks (labelled -y) count rows downwards.
        Some(h) => ((0.0, h.cols as f64), (-(h.rows as f64), 0.0)),
        None => series_ranges(ax),
    };
    let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1)?;
    let flip = |v: &f64| fmt_tick(&-*v);
    {
        let mut mesh = chart.configure_mesh();
        mesh.label_style((FONT, cx.font(TICK_SIZE)))
            .axis_desc_style((FONT, cx.font(DESC_SIZE)))
            .set_all_tick_mark_size(cx.px(4))
            .x_labels(8)
            .y_labels(8)
            .max_light_lines(0)
            .x_label_formatter(&fmt_tick);
        if heat.is_some() {
            // Row 0 at the top, as images are shown.
            mesh.y_label_formatter(&flip);
        } else {
            mesh.y_label_formatter(&fmt_tick);
        }
        if let Some(l) = &ax.xlabel {
            mesh.x_desc(l.as_str());
        }
        if let Some(l) = &ax.ylabel {
            mesh.y_desc(l.as_str());
        }
        if heat.is_some() || ax.hide_grid {
            mesh.disable_mesh();
        } else {
            mesh.bold_line_style(RGBColor(226, 226, 226).stroke_width(cx.s as u32));
        }
        mesh.draw()?;
    }
    let (px, py) = chart.plotting_area().get_pixel_range();
    if let Some(h) = heat {
        let rect = (px.start, py.start, px.end, py.end);
        rasters.push(Raster::heatmap(
            rect,
            h.grid_rows,
            h.grid_cols,
            &h.values,
            h.colormap,
            h.range(),
        ));
    }
    let mut labelled = false;
    for (k, s) in ax.series.iter().enumerate() {
        let color = to_color(s.color.unwrap_or(PALETTE[k % PALETTE.len()]));
        labelled |= s.label.is_some();
        let columns = (px.end - px.start).max(1) as usize;
        draw_series(&mut chart, s, color, columns, (x0, x1, y0, y1), cx)?;
    }
    if labelled {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(190, 190, 190))
            .label_font((FONT, cx.font(LEGEND_SIZE)))
            .legend_area_size(cx.px(26))
            .margin(cx.px(10))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    if let (Some(h), Some(bar)) = (heat, colorbar_area) {
        draw_colorbar(h, &bar, py, rasters, cx)?;
    }
    Ok(())
}

fn draw_series<DB: DrawingBackend>(
    chart: &mut ChartContext<
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    s: &Series,
    color: RGBColor,
    columns: usize,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
    cx: Ctx,
) -> DrawResult<(), DB> {
    let s1 = cx.s;
    let width = 2 * s1 as u32;
    let inside = |x: f64, y: f64| {
        x.is_finite()
            && y.is_finite()
            && x >= x0.min(x1)
            && x <= x0.max(x1)
            && y >= y0.min(y1)
            && y <= y0.max(y1)
    };
    match s.kind {
        SeriesKind::Line => {
            let style = color.stroke_width(width);
            let parts = segments(decimate(&s.x, &s.y, columns));
            let mut annotated = false;
            for seg in parts {
                let anno = chart.draw_series(LineSeries::new(seg, style))?;
                if !annotated {
                    if let Some(l) = &s.label {
                        anno.label(l.as_str()).legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20 * s1, y)], style)
                        });
                    }
                    annotated = true;
                }
            }
            if !annotated {
                if let Some(l) = &s.label {
                    chart
                        .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                        .label(l.as_str())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20 * s1, y)], style)
                        });
                }
            }
        }
        SeriesKind::Scatter => {
            let style = color.mix(0.85).filled();
            let points: Vec<(f64, f64)> =
                s.x.iter()
                    .zip(&s.y)
                    .map(|(x, y)| (*x, *y))
                    .filter(|(x, y)| inside(*x, *y))
                    .collect();
            let anno =
                chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3 * s1, style)))?;
            if let Some(l) = &s.label {
                anno.label(l.as_str())
                    .legend(move |(x, y)| Circle::new((x + 10 * s1, y), 4 * s1, style));
            }
        }
        SeriesKind::Spans => {
            let style = color.mix(0.9).filled();
            let bars: Vec<Rectangle<(f64, f64)>> = (0..s.y.len())
                .map(|i| {
                    let (lane, a, b) = (s.y[i], s.x[2 * i], s.x[2 * i + 1]);
                    Rectangle::new([(a, lane - 0.35), (b, lane + 0.35)], style)
                })
                .collect();
            let anno = chart.draw_series(bars)?;
            if let Some(l) = &s.label {
                anno.label(l.as_str()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5 * s1), (x + 16 * s1, y + 5 * s1)], style)
                });
            }
        }
        SeriesKind::Bars => {
            let style = color.mix(0.9).filled();
            let bars: Vec<Rectangle<(f64, f64)>> = (0..s.y.len())
                .filter(|&i| s.y[i] > 0.0)
                .map(|i| Rectangle::new([(s.x[i], 0.0), (s.x[i + 1], s.y[i])], style))
                .collect();
            let anno = chart.draw_series(bars)?;
            if let Some(l) = &s.label {
                anno.label(l.as_str()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5 * s1), (x + 16 * s1, y + 5 * s1)], style)
                });
            }
        }
    }
    Ok(())
}

fn draw_colorbar<DB: DrawingBackend>(
    h: &Heatmap,
    bar: &DrawingArea<DB, Shift>,
    main_y: std::ops::Range<i32>,
    rasters: &mut Vec<Raster>,
    cx: Ctx,
) -> DrawResult<(), DB> {
    let (_, by) = bar.get_pixel_range();
    let (mut lo, mut hi) = h.range();
    if lo >= hi {
        lo -= 0.5;
        hi += 0.5;
    }
    let mut builder = ChartBuilder::on(bar);
    builder
        .margin_top((main_y.start - by.start).max(0))
        .margin_bottom((by.end - main_y.end).max(0))
        .margin_left(cx.px(10))
        .margin_right(cx.px(4))
        .right_y_label_area_size(cx.px(56));
    let mut chart = builder.build_cartesian_2d(0.0..1.0, lo..hi)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(6)
        .set_all_tick_mark_size(cx.px(4))
        .label_style((FONT, cx.font(TICK_SIZE)))
        .y_label_formatter(&fmt_tick)
        .draw()?;
    let (px, py) = chart.plotting_area().get_pixel_range();
    rasters.push(Raster::gradient(
        (px.start, py.start, px.end, py.end),
        h.colormap,
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(fmt_tick(&0.0), "0");
        assert_eq!(fmt_tick(&2.5), "2.5");
        assert_eq!(fmt_tick(&3.0), "3");
        assert_eq!(fmt_tick(&-0.125), "-0.125");
        assert_eq!(fmt_tick(&150000.0), "1.5e5");
        assert_eq!(fmt_tick(&0.0001), "1e-4");
    }

    #[test]
    fn decimation_keeps_extremes() {
        let x: Vec<f64> = (0..10_000).map(|i| i as f64).collect();
        let mut y: Vec<f64> = x.iter().map(|v| (v / 100.0).sin()).collect();
        y[5000] = 10.0;
        y[7000] = f64::NAN;
        let d = decimate(&x, &y, 100);
        assert!(d.len() <= 5 * 100 + 2);
        assert!(d.iter().any(|p| p.1 == 10.0));
        assert!(d.iter().any(|p| p.1.is_nan()));
        assert_eq!(segments(d).len(), 2);
    }
}
