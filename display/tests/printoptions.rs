//! `cp::set_printoptions` drives the HTML summarization (its own test binary:
//! print options are process-wide).

mod support;

use cuprite as cp;
use cuprite_display::RichDisplay;
use support::{check_golden, count};

#[test]
fn print_options_change_html_and_text() -> cp::Result<()> {
    let a = cp::arange(40)?.reshape([5, 8])?.astype(cp::f64)?;
    let defaults = a.bundle().get("text/html").unwrap().to_string();
    assert_eq!(
        count(&defaults, "<td>"),
        40,
        "40 elements < threshold 1000: all shown"
    );

    cp::set_printoptions(cp::PrintOptions {
        threshold: 10,
        edgeitems: 2,
        precision: 3,
        ..cp::PrintOptions::default()
    });
    let b = a.bundle();
    let html = b.get("text/html").unwrap();
    // 2 + 2 rows and columns.
    assert_eq!(count(html, "<td>"), 16);
    assert!(html.contains("summarized: 40 elements &gt; threshold 10; 2 shown at each edge"));
    check_golden("printoptions_edge2.html", html);
    check_golden("printoptions_edge2.txt", &format!("{}\n", b.text_plain()));

    // Precision: NumPy 2.4 with precision=3: np.array([1/3, 2/3]) -> array([0.333, 0.667])
    let third = cp::asarray(vec![1.0f64 / 3.0, 2.0 / 3.0])?;
    let html = third.bundle().get("text/html").unwrap().to_string();
    assert!(html.contains("<td>0.333</td><td>0.667</td>"), "{html}");

    cp::set_printoptions(cp::PrintOptions::default());
    assert_eq!(a.bundle().get("text/html").unwrap(), defaults);
    Ok(())
}
