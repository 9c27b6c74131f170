//! Arrays as MIME bundles: golden text/plain and HTML, summarization, size
//! caps, the bundle's JSON shape and evcxr's markers.

mod support;

use cuprite as cp;
use cuprite::num_complex::Complex64;
use cuprite_display::{array_html, MimeBundle, RichDisplay};
use support::{check_golden, count};

/// The arrays whose text and HTML are kept as golden files.
fn samples() -> cp::Result<Vec<(&'static str, cp::Array)>> {
    Ok(vec![
        (
            "scalar_f64",
            cp::asarray(vec![2.5f64])?.reshape(Vec::<usize>::new())?,
        ),
        ("vector_i64", cp::arange(7)?),
        (
            "matrix_f32",
            cp::arange(12)?.reshape([3, 4])?.astype(cp::f32)?,
        ),
        (
            "matrix_f64_mixed",
            cp::asarray(vec![
                vec![1.5f64, -2.25, 3.0],
                vec![f64::NAN, f64::INFINITY, 0.001],
            ])?,
        ),
        ("vector_bool", cp::asarray(vec![true, false, true])?),
        (
            "matrix_c128",
            cp::asarray(vec![
                vec![Complex64::new(1.0, 2.0), Complex64::new(0.0, -0.5)],
                vec![Complex64::new(3.25, 0.0), Complex64::new(-1.0, 1.0)],
            ])?,
        ),
        (
            "cube_i32",
            cp::arange(24)?.reshape([2, 3, 4])?.astype(cp::i32)?,
        ),
        // Summarized (2000 > threshold 1000): edge items and ellipses.
        ("vector_2000_f64", cp::arange(2000)?.astype(cp::f64)?),
        (
            "matrix_100x1000_i64",
            cp::arange(100_000)?.reshape([100, 1000])?,
        ),
        // A non-contiguous view (transpose) must show the logical order.
        (
            "transposed_u8",
            cp::arange(6)?.reshape([2, 3])?.astype(cp::u8)?.t(),
        ),
        ("empty_0x3", cp::zeros([0, 3], cp::f32)?),
    ])
}

#[test]
fn golden_text_and_html() -> cp::Result<()> {
    let mut index =
        String::from("<!doctype html><meta charset=\"utf-8\"><title>array goldens</title>\n");
    for (name, a) in samples()? {
        let b = a.bundle();
        let text = b.get("text/plain").expect("text/plain");
        let html = b.get("text/html").expect("text/html");
        check_golden(&format!("array_{name}.txt"), &format!("{text}\n"));
        check_golden(&format!("array_{name}.html"), html);
        index.push_str(&format!(
            "<h3>{name}</h3>\n{html}<pre>{}</pre>\n",
            cuprite_display::html::escape(text)
        ));
    }
    // One page with every sample, to review the goldens in a browser.
    check_golden("arrays_index.html", &index);
    Ok(())
}

#[test]
fn header_names_shape_dtype_device_and_bytes() -> cp::Result<()> {
    let a = cp::zeros([3, 4], cp::f32)?;
    let html = array_html(&a);
    assert!(
        html.contains("shape (3, 4) · float32 · cpu · 48 B"),
        "{html}"
    );
    let big = cp::zeros([1024, 1024], cp::f64)?;
    let html = array_html(&big);
    assert!(html.contains("8.00 MiB (8388608 bytes)"), "{html}");
    let s = cp::zeros(Vec::<usize>::new(), cp::i64)?;
    assert!(array_html(&s).contains("scalar array · shape () · int64"));
    Ok(())
}

#[test]
fn two_d_table_has_labels_and_right_cells() -> cp::Result<()> {
    let a = cp::arange(6)?.reshape([2, 3])?;
    let html = array_html(&a);
    assert_eq!(count(&html, "<table>"), 1);
    // Header row: corner + 3 column indices; 2 rows with a label each.
    assert!(html.contains("<thead><tr><th></th><th>0</th><th>1</th><th>2</th></tr></thead>"));
    assert!(html.contains("<tr><th>1</th><td>3</td><td>4</td><td>5</td></tr>"));
    Ok(())
}

#[test]
fn summarized_arrays_show_edges_and_ellipses() -> cp::Result<()> {
    let a = cp::arange(100_000)?.reshape([100, 1000])?;
    let html = array_html(&a);
    // 3 + 3 rows and columns (default edgeitems), one ellipsis row and column.
    assert_eq!(count(&html, "<td>"), 36);
    assert!(html.contains("<th class=\"e\">…</th>"));
    assert!(html.contains("<td class=\"e\">⋱</td>"));
    assert!(html.contains("<th>999</th>") && html.contains("<th>99</th>"));
    assert!(html.contains("<td>99999</td>"));
    assert!(html.contains("summarized: 100000 elements &gt; threshold 1000"));
    Ok(())
}

#[test]
fn nd_arrays_show_leading_slices_with_captions() -> cp::Result<()> {
    let a = cp::arange(24)?.reshape([2, 3, 4])?;
    let html = array_html(&a);
    assert_eq!(count(&html, "<table>"), 2);
    assert!(html.contains("<caption>[0, :, :]</caption>"));
    assert!(html.contains("<caption>[1, :, :]</caption>"));
    // Many small slices: at most 16 tables and a note for the rest.
    let many = cp::arange(400)?.reshape([100, 2, 2])?;
    let html = array_html(&many);
    assert_eq!(count(&html, "<table>"), 16);
    assert!(html.contains("⋮ 84 more slices"), "{html}");
    // Summarized leading axes (4-D, 2000 elements): 3 + 3 slices on each.
    let big = cp::arange(2000)?.reshape([10, 10, 4, 5])?;
    let html = array_html(&big);
    assert!(html.contains("<caption>[0, 0, :, :]</caption>"));
    assert!(html.contains("<caption>[9, 9, :, :]</caption>"));
    assert!(count(&html, "<table>") <= 16);
    Ok(())
}

#[test]
fn ten_million_elements_stay_under_100_kb() -> cp::Result<()> {
    let a = cp::arange(10_000_000)?.astype(cp::f64)?;
    let b = a.bundle();
    let html = b.get("text/html").unwrap();
    assert!(html.len() < 100_000, "{} bytes of HTML", html.len());
    assert!(b.text_plain().len() < 100_000);
    assert!(html.contains("<td>9999999.</td>") || html.contains("9.999999e+06"));
    // The same elements as a 3-D array.
    let c = a.reshape([10, 1000, 1000])?;
    let html = array_html(&c);
    assert!(html.len() < 100_000, "{} bytes of HTML", html.len());
    Ok(())
}

#[test]
fn hard_cap_applies_even_when_print_options_ask_for_everything() -> cp::Result<()> {
    let opts = cp::PrintOptions {
        threshold: usize::MAX,
        edgeitems: 10_000,
        ..cp::PrintOptions::default()
    };
    let a = cp::arange(1_000_000)?
        .reshape([1000, 1000])?
        .astype(cp::c128)?;
    let html = cuprite_display::array::array_html_with(&a, &opts);
    assert!(
        html.len() <= cuprite_display::array::MAX_HTML_BYTES,
        "{} bytes",
        html.len()
    );
    assert!(html.contains("summarized for display"));
    let many_axes = cp::zeros(vec![3usize; 12], cp::f32)?;
    let html = cuprite_display::array::array_html_with(&many_axes, &opts);
    assert!(
        html.len() <= cuprite_display::array::MAX_HTML_BYTES,
        "{} bytes",
        html.len()
    );
    Ok(())
}

#[test]
fn bool_and_complex_cells() -> cp::Result<()> {
    let b = cp::asarray(vec![true, false])?;
    let html = array_html(&b);
    assert!(html.contains("<td> True</td><td>False</td>"), "{html}");
    let c = cp::asarray(vec![Complex64::new(1.0, -2.0), Complex64::new(0.5, 0.25)])?;
    let html = array_html(&c);
    assert!(
        html.contains("<td>1. -2.j  </td><td>0.5+0.25j</td>"),
        "{html}"
    );
    Ok(())
}

#[test]
fn html_is_escaped() {
    // Table text is escaped (captions and cells); arrays only hold numbers.
    let t = cuprite_display::Table::new()
        .caption("<script>alert('x')</script> & more")
        .row(vec![cuprite_display::Cell::text("a<b>\"c\"")]);
    let html = t.bundle().get("text/html").unwrap().to_string();
    assert!(!html.contains("<script>"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more"));
    assert!(html.contains("a&lt;b&gt;&quot;c&quot;"));
}

#[test]
fn bundle_json_has_jupyter_shape() -> cp::Result<()> {
    let a = cp::arange(3)?;
    let j = a.bundle().to_json();
    assert_eq!(j["data"]["text/plain"], "array([0, 1, 2])");
    assert!(j["data"]["text/html"].as_str().unwrap().contains("<table>"));
    assert!(j["metadata"].is_object());
    assert_eq!(j.as_object().unwrap().len(), 2);
    Ok(())
}

#[test]
fn mime_bundle_keeps_order_and_text_plain() {
    let mut b = MimeBundle::new("x")
        .with("text/html", "<b>x</b>")
        .with("image/svg+xml", "<svg/>");
    b.insert("text/html", "<i>x</i>");
    let mimes: Vec<&str> = b.mimes().collect();
    assert_eq!(mimes, ["text/plain", "text/html", "image/svg+xml"]);
    assert_eq!(b.get("text/html"), Some("<i>x</i>"));
    assert_eq!(b.remove("text/plain"), None);
    assert_eq!(b.remove("image/svg+xml").as_deref(), Some("<svg/>"));
    assert_eq!(b.text_plain(), "x");
}

#[test]
fn evcxr_markers() {
    let b = MimeBundle::new("two\nlines").with("text/html", "<p>\nEVCXR_END_CONTENT\n</p>");
    assert_eq!(
        b.to_evcxr(),
        "EVCXR_BEGIN_CONTENT text/plain\ntwo\nlines\nEVCXR_END_CONTENT\n\
         EVCXR_BEGIN_CONTENT text/html\n<p>\n EVCXR_END_CONTENT\n</p>\nEVCXR_END_CONTENT\n"
    );
}

#[test]
fn formatting_matches_numpy_for_cells() -> cp::Result<()> {
    // NumPy 2.4: np.array([0.1, 0.3], dtype=np.float32) -> array([0.1, 0.3], dtype=float32)
    let a = cp::asarray(vec![0.1f32, 0.3])?;
    let html = array_html(&a);
    assert!(html.contains("<td>0.1</td><td>0.3</td>"), "{html}");
    // NumPy 2.4: np.array([1e-5, 1.5e-5, 100.]) -> array([1.0e-05, 1.5e-05, 1.0e+02])
    let a = cp::asarray(vec![1e-5f64, 1.5e-5, 100.0])?;
    let html = array_html(&a);
    assert!(
        html.contains("<td>1.0e-05</td><td>1.5e-05</td><td>1.0e+02</td>"),
        "{html}"
    );
    Ok(())
}

#[test]
fn memory_and_device_reports() {
    use cuprite_display::{DeviceInfo, MemoryReport, PoolStats};
    let m = MemoryReport {
        pools: vec![
            PoolStats {
                name: "device pool (cuda:0)".into(),
                used: 3 << 30,
                reserved: 4 << 30,
                peak: 5 << 30,
                limit: Some(80 << 30),
                allocations: 42,
            },
            PoolStats {
                name: "pinned host pool".into(),
                used: 1 << 20,
                reserved: 64 << 20,
                peak: 2 << 20,
                limit: None,
                allocations: 1,
            },
        ],
    };
    let b = m.bundle();
    check_golden("memory_pools.txt", &format!("{}\n", b.text_plain()));
    check_golden("memory_pools.html", b.get("text/html").unwrap());
    let d = DeviceInfo {
        device: "cuda:0".into(),
        name: "NVIDIA H100 80GB HBM3".into(),
        compute_capability: Some((9, 0)),
        multiprocessors: Some(132),
        memory: Some(85_031_714_816),
        extra: vec![
            ("driver".into(), "580.65".into()),
            ("CUDA runtime".into(), "13.0".into()),
        ],
    };
    let b = d.bundle();
    check_golden("device_info.txt", &format!("{}\n", b.text_plain()));
    assert!(b
        .get("text/html")
        .unwrap()
        .contains("<th>compute capability</th><td class=\"t\">9.0</td>"));
}
