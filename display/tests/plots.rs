//! Charts: SVG structure (root, title, one path per series, legend), PNG
//! header and pixel size, size caps, bundles and input errors.

mod support;

use cuprite as cp;
use cuprite_display::plot::{self, Axes, Figure, Rgb, PALETTE};
use cuprite_display::RichDisplay;
use support::{check_golden, count};

fn wave(n: usize, f: impl Fn(f64) -> f64) -> cp::Result<cp::Array> {
    cp::asarray((0..n).map(|i| f(i as f64 / 10.0)).collect::<Vec<f64>>())
}

fn hex(c: Rgb) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Data polylines drawn in colour `c` (a line series draws one, plus one in the legend).
fn polylines_in(svg: &str, c: Rgb) -> usize {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| {
            p.split("/>")
                .next()
                .unwrap_or("")
                .contains(&format!("stroke=\"{}\"", hex(c)))
        })
        .count()
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

/// Decodes a PNG to RGB and returns the number of distinct colours seen.
fn png_colours(bytes: &[u8]) -> usize {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = dec.read_info().expect("a readable PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let mut seen = std::collections::HashSet::new();
    for px in buf[..info.buffer_size()].chunks(3) {
        seen.insert((px[0], px[1], px[2]));
    }
    seen.len()
}

/// The SVG reduced to its element names, one per line, for a structure golden.
fn svg_outline(svg: &str) -> String {
    let mut out = String::new();
    for part in svg.split('<').skip(1) {
        let name: String = part
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '/')
            .collect();
        if !name.is_empty() && !name.starts_with('/') {
            out.push_str(&name);
            out.push('\n');
        }
    }
    out
}

#[test]
fn line_plot_svg_structure() -> cp::Result<()> {
    let y1 = wave(200, f64::sin)?;
    let y2 = wave(200, f64::cos)?;
    let fig = plot::line(&y1)?
        .label("sin")
        .line(&y2)?
        .label("cos")
        .title("Waves & <friends>")
        .xlabel("t [s]")
        .ylabel("amplitude");
    let svg = fig.to_svg()?;
    assert!(svg.starts_with("<svg width=\"640\" height=\"480\" viewBox=\"0 0 640 480\" xmlns=\"http://www.w3.org/2000/svg\">"));
    assert!(svg.trim_end().ends_with("</svg>"));
    // Title (escaped), axis labels and legend entries are text elements.
    assert!(svg.contains("Waves &amp; &lt;friends&gt;"), "title text");
    assert!(svg.contains("\nt [s]\n") && svg.contains("\namplitude\n"));
    assert!(svg.contains("\nsin\n") && svg.contains("\ncos\n"));
    // One data path and one legend sample per series, in palette order.
    assert_eq!(polylines_in(&svg, PALETTE[0]), 2);
    assert_eq!(polylines_in(&svg, PALETTE[1]), 2);
    assert_eq!(polylines_in(&svg, PALETTE[2]), 0);
    check_golden("plot_line.svg.outline", &svg_outline(&svg));
    Ok(())
}

#[test]
fn nan_breaks_a_line_into_paths() -> cp::Result<()> {
    let y = cp::asarray(vec![0.0f64, 1.0, f64::NAN, 2.0, 3.0, f64::NAN, 1.0, 0.0])?;
    let svg = plot::line(&y)?.to_svg()?;
    assert_eq!(polylines_in(&svg, PALETTE[0]), 3);
    Ok(())
}

#[test]
fn series_without_labels_have_no_legend() -> cp::Result<()> {
    let y = wave(50, f64::sin)?;
    let svg = plot::line(&y)?.line(&y)?.to_svg()?;
    assert_eq!(polylines_in(&svg, PALETTE[0]), 1);
    assert_eq!(polylines_in(&svg, PALETTE[1]), 1);
    Ok(())
}

#[test]
fn scatter_draws_one_marker_per_finite_point() -> cp::Result<()> {
    let x = cp::asarray(vec![0.0f64, 1.0, 2.0, f64::NAN, 4.0])?;
    let y = cp::asarray(vec![1.0f64, 3.0, 2.0, 5.0, f64::INFINITY])?;
    let svg = plot::scatter(&x, &y)?.label("pts").to_svg()?;
    // 3 finite points + 1 legend marker.
    assert_eq!(count(&svg, "<circle"), 4);
    Ok(())
}

#[test]
fn histogram_bars() -> cp::Result<()> {
    let x = cp::asarray(vec![1.0f64, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0])?;
    let svg = plot::hist(&x, 3)?.color(Rgb::hex("#123456")?).to_svg()?;
    // NumPy 2.4: np.histogram([1,2,2,3,3,3,4], 3) -> counts [1, 2, 4]: three bars.
    assert_eq!(count(&svg, "fill=\"#123456\""), 3);
    let (edges, counts) = plot::histogram(&x, 3)?;
    assert_eq!(counts, vec![1, 2, 4]);
    assert_eq!(edges, vec![1.0, 2.0, 3.0, 4.0]);
    Ok(())
}

#[test]
fn timeline_draws_a_bar_per_span_and_a_legend_entry_per_label() -> cp::Result<()> {
    use plot::Span;
    let spans = [
        Span::new(0, "H2D copy", 0.0, 1.5),
        Span::new(1, "kernel", 1.0, 3.0),
        Span::new(0, "H2D copy", 2.0, 2.5),
        Span::new(1, "D2H copy", 3.0, 3.2),
    ];
    let svg = plot::timeline(&spans)?.to_svg()?;
    // Palette colours in order of first use: two copies, one kernel, one D2H,
    // each with one more rectangle in the legend.
    assert_eq!(count(&svg, &format!("fill=\"{}\"", hex(PALETTE[0]))), 3);
    assert_eq!(count(&svg, &format!("fill=\"{}\"", hex(PALETTE[1]))), 2);
    assert_eq!(count(&svg, &format!("fill=\"{}\"", hex(PALETTE[2]))), 2);
    for label in ["H2D copy", "kernel", "D2H copy", "time (ms)"] {
        assert!(svg.contains(label), "{label}");
    }
    let bad = plot::timeline(&[Span::new(0, "x", 2.0, 1.0)]).unwrap_err();
    assert!(bad.to_string().contains("start <= end"), "{bad}");
    assert!(plot::timeline(&[Span::new(0, "x", f64::NAN, 1.0)]).is_err());
    Ok(())
}

#[test]
fn imshow_embeds_one_image_and_a_colorbar() -> cp::Result<()> {
    let a = cp::arange(12)?.reshape([3, 4])?;
    let svg = plot::imshow(&a)?.to_svg()?;
    // The heatmap and the colorbar gradient, each one embedded PNG.
    assert_eq!(count(&svg, "<image "), 2);
    assert_eq!(count(&svg, "href=\"data:image/png;base64,"), 2);
    // No grid of rectangles per cell.
    assert!(count(&svg, "<rect") < 5);
    // Colorbar ticks cover the data range 0..11.
    assert!(svg.contains("\n0\n") && svg.contains("\n10\n"));
    let png = plot::imshow(&a)?.to_png()?;
    assert_eq!(png_size(&png.bytes), (640, 480));
    // Viridis has many colours.
    assert!(png_colours(&png.bytes) > 20);
    Ok(())
}

#[test]
fn big_heatmap_svg_stays_small() -> cp::Result<()> {
    let a = cp::arange(2_000_000)?
        .reshape([1000, 2000])?
        .astype(cp::f32)?;
    let svg = plot::imshow(&a)?.to_svg()?;
    assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
    Ok(())
}

#[test]
fn png_header_and_size() -> cp::Result<()> {
    let y = wave(100, f64::sin)?;
    let png = plot::line(&y)?.size(500, 300).to_png()?;
    assert_eq!(png_size(&png.bytes), (500, 300));
    assert_eq!((png.width, png.height), (500, 300));
    assert!(png_colours(&png.bytes) > 2);
    Ok(())
}

#[test]
fn images_are_capped() -> cp::Result<()> {
    let y = wave(10, f64::sin)?;
    let fig = plot::line(&y)?.size(10_000, 5_000);
    assert_eq!(fig.pixel_size(), (2000, 1000));
    let png = fig.to_png()?;
    assert_eq!(png_size(&png.bytes), (2000, 1000));
    let svg = fig.to_svg()?;
    assert!(svg.starts_with("<svg width=\"2000\" height=\"1000\""));
    Ok(())
}

#[test]
fn figure_bundle_has_png_svg_and_text() -> cp::Result<()> {
    let y = wave(30, f64::sin)?;
    let fig = plot::line(&y)?.label("s").title("T").size(320, 240);
    let b = fig.bundle();
    assert_eq!(
        b.mimes().collect::<Vec<_>>(),
        ["text/plain", "image/png", "image/svg+xml"]
    );
    assert_eq!(
        b.text_plain(),
        "<Figure \"T\" 320x240, 1 panel: line (30 points) \"s\">"
    );
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(b.get("image/png").unwrap())
        .expect("valid base64");
    assert_eq!(png_size(&png), (320, 240));
    let j = b.to_json();
    assert_eq!(j["metadata"]["image/png"]["width"], 320);
    assert_eq!(j["metadata"]["image/png"]["height"], 240);
    Ok(())
}

#[test]
fn huge_scatter_skips_svg_but_keeps_png() -> cp::Result<()> {
    let n = 60_000;
    let x = cp::arange(n)?.astype(cp::f64)?;
    let b = plot::scatter(&x, &x)?.size(300, 200).bundle();
    assert!(b.get("image/png").is_some());
    assert!(b.get("image/svg+xml").is_none());
    Ok(())
}

#[test]
fn long_lines_are_decimated_in_svg() -> cp::Result<()> {
    let y = wave(1_000_000, f64::sin)?;
    let svg = plot::line(&y)?.to_svg()?;
    assert!(svg.len() < 200_000, "{} bytes", svg.len());
    Ok(())
}

#[test]
fn figure_with_several_panels() -> cp::Result<()> {
    let y = wave(50, f64::sin)?;
    let img = cp::arange(16)?.reshape([4, 4])?;
    let fig = Figure::new()
        .title("Panels")
        .panel(Axes::new().line(&y)?.title("first").label("a"))
        .panel(Axes::new().hist(&y, 5)?.title("second"))
        .panel(Axes::new().imshow(&img)?.title("third"))
        .columns(2);
    assert_eq!(fig.layout(), (2, 2));
    assert_eq!(fig.pixel_size(), (800, 680));
    let svg = fig.to_svg()?;
    for t in ["Panels", "first", "second", "third"] {
        assert!(svg.contains(&format!("\n{t}\n")), "{t}");
    }
    assert_eq!(count(&svg, "<image "), 2);
    check_golden("plot_panels.svg.outline", &svg_outline(&svg));
    let png = fig.to_png()?;
    assert_eq!(png_size(&png.bytes), (800, 680));
    Ok(())
}

#[test]
fn empty_figure_draws_empty_axes() -> cp::Result<()> {
    let svg = Figure::new().to_svg()?;
    assert!(svg.starts_with("<svg"));
    assert_eq!(
        Figure::new().describe(),
        "<Figure 640x480, 0 panels: empty>"
    );
    let empty = cp::zeros(0usize, cp::f64)?;
    let png = plot::line(&empty)?.to_png()?;
    assert_eq!(png_size(&png.bytes), (640, 480));
    Ok(())
}

#[test]
fn bad_input_is_an_error_not_a_panic() -> cp::Result<()> {
    let m = cp::zeros([2, 3], cp::f64)?;
    let v = cp::zeros(3usize, cp::f64)?;
    let w = cp::zeros(4usize, cp::f64)?;
    let z = cp::zeros(3usize, cp::c128)?;
    let msg = |r: cp::Result<Figure>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg(plot::line(&m)).contains("y must be 1-D, got shape (2, 3)"));
    assert!(msg(plot::line_xy(&v, &w)).contains("same length, got 3 and 4"));
    assert!(msg(plot::scatter(&v, &w)).contains("plot::scatter"));
    assert!(msg(plot::line(&z)).contains("cannot plot complex128 values"));
    assert!(msg(plot::hist(&v, 0)).contains("plot::hist: bins must be between 1 and"));
    assert!(msg(plot::imshow(&v)).contains("imshow needs a non-empty 2-D array, got shape (3,)"));
    assert!(msg(plot::line(&v)?.xlim(1.0, 1.0)).contains("low < high"));
    assert!(msg(plot::imshow(&m)?.vrange(f64::NAN, 1.0)).contains("plot::vrange"));
    assert!(Rgb::hex("#12345").is_err() && Rgb::hex("zz0000").is_err());
    assert_eq!(Rgb::hex("#ff8000")?, Rgb(255, 128, 0));
    Ok(())
}

#[test]
fn limits_clip_scatter_points() -> cp::Result<()> {
    let x = cp::asarray(vec![0.0f64, 1.0, 2.0, 3.0])?;
    let svg = plot::scatter(&x, &x)?.xlim(0.5, 2.5)?.to_svg()?;
    assert_eq!(count(&svg, "<circle"), 2);
    Ok(())
}

#[test]
fn report_combines_tables_figures_and_notes() -> cp::Result<()> {
    use cuprite_display::{report::Report, Cell, Table};
    let y = wave(20, f64::sin)?;
    let t = Table::new()
        .header(vec![Cell::head("stat"), Cell::head("GPU ms")])
        .row(vec![Cell::text("mean"), Cell::num("1.250")])
        .row(vec![Cell::text("max"), Cell::num("10.5")]);
    let r = Report::new("Timing <axpb>")
        .table(t)
        .figure(plot::hist(&y, 4)?.size(300, 200))
        .note("100 runs");
    let b = r.bundle();
    let html = b.get("text/html").unwrap();
    assert!(html.contains("<div class=\"cp-title\">Timing &lt;axpb&gt;</div>"));
    assert!(html.contains("<td>1.250</td>"));
    assert!(html.contains("<img width=\"300\" height=\"200\""));
    assert!(html.contains("src=\"data:image/png;base64,iVBORw0KGgo"));
    assert_eq!(
        b.text_plain(),
        "Timing <axpb>\nstat  GPU ms\n------------\nmean   1.250\nmax     10.5\n\
         <Figure 300x200, 1 panel: histogram (4 bins)>\n100 runs"
    );
    Ok(())
}

#[test]
fn timing_report() -> cp::Result<()> {
    use cuprite_display::Timings;
    let t = Timings {
        name: "axpb".into(),
        cpu_seconds: vec![12e-6, 11e-6, 13e-6, 12e-6],
        gpu_seconds: vec![10e-6, 10e-6, 12e-6, 8e-6],
        bytes: Some(8e6),
        flops: None,
        peak_bytes_per_second: Some(1.6e12),
        peak_flops_per_second: None,
    };
    let b = t.bundle();
    check_golden("timing_axpb.txt", &format!("{}\n", b.text_plain()));
    let html = b.get("text/html").unwrap();
    assert!(html.contains("<div class=\"cp-title\">axpb — 4 runs</div>"));
    assert!(html.contains("<th>mean (µs)</th>"));
    assert!(html.contains("achieved 800.0 GB/s (GPU median), 50% of the measured peak 1.600 TB/s"));
    assert!(html.contains("<img "), "histogram of the runs");
    // CPU only: throughput from the CPU times, no GPU row.
    let cpu = Timings {
        name: "sum".into(),
        cpu_seconds: vec![2e-3],
        flops: Some(1e9),
        ..Timings::default()
    };
    let text = cpu.bundle().text_plain().to_string();
    assert!(
        text.contains("achieved 500.0 GFLOP/s (CPU median)"),
        "{text}"
    );
    assert!(!text.contains("GPU"), "{text}");
    Ok(())
}

#[test]
fn degenerate_inputs_draw_without_panicking() -> cp::Result<()> {
    let all_nan = cp::asarray(vec![f64::NAN; 5])?;
    let one = cp::asarray(vec![3.0f64])?;
    let figs = vec![
        plot::imshow(&cp::arange(100_000)?.reshape([1, 100_000])?)?,
        plot::imshow(&cp::arange(100_000)?.reshape([100_000, 1])?)?,
        plot::imshow(&all_nan.reshape([1, 5])?)?,
        plot::imshow(&cp::ones([3, 3], cp::f32)?)?,
        plot::line(&all_nan)?.label("nothing"),
        plot::line(&one)?,
        plot::scatter(&one, &one)?,
        plot::hist(&all_nan, 3)?,
        plot::hist(&one, 10_000)?,
        plot::line(&one)?.size(0, 0),
        (0..20).try_fold(Figure::new(), |f, _| -> cp::Result<Figure> {
            Ok(f.panel(Axes::new().line(&one)?))
        })?,
    ];
    for f in figs {
        let png = f.to_png()?;
        assert_eq!(png_size(&png.bytes), f.pixel_size());
        assert!(f.to_svg()?.starts_with("<svg"));
    }
    Ok(())
}
