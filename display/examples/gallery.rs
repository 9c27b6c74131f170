//! Writes a sample of every renderer to a folder (default `target/display-gallery`):
//! `cargo run -p cuprite-display --example gallery [DIR]`.

use cuprite as cp;
use cuprite_display::{plot, RichDisplay};

fn main() -> cp::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/display-gallery".to_string());
    std::fs::create_dir_all(&dir).expect("create the output folder");
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(format!("{dir}/{name}"), bytes).expect("write a gallery file")
    };

    let arrays = [
        ("a2d", cp::arange(12)?.reshape([3, 4])?.astype(cp::f32)?),
        ("big", cp::arange(100_000)?.reshape([100, 1000])?),
        ("cube", cp::arange(60)?.reshape([3, 4, 5])?),
    ];
    let mut page = String::from("<html><body>");
    for (name, a) in &arrays {
        let b = a.bundle();
        page.push_str(&format!("<h3>{name}</h3>"));
        page.push_str(b.get("text/html").unwrap_or_default());
        page.push_str(&format!(
            "<pre>{}</pre>",
            cuprite_display::html::escape(b.text_plain())
        ));
    }
    page.push_str("</body></html>");
    write("arrays.html", page.as_bytes());

    let x = cp::linspace(0.0, 12.0, 400)?;
    let xs = x.to_vec::<f64>()?;
    let sin = cp::asarray(xs.iter().map(|v| v.sin()).collect::<Vec<f64>>())?;
    let cos = cp::asarray(
        xs.iter()
            .map(|v| (v * 0.7).cos() * 0.8)
            .collect::<Vec<f64>>(),
    )?;
    let noise: Vec<f64> = (0..5000)
        .map(|i| {
            let u = ((i as f64 * 12.9898).sin() * 43758.5453).fract();
            let v = ((i as f64 * 78.233).sin() * 12345.678).fract();
            (u + v) * 2.0 - 1.0
        })
        .collect();
    let noise = cp::asarray(noise)?;
    let grid: Vec<f64> = (0..48 * 64)
        .map(|k| {
            let (r, c) = ((k / 64) as f64, (k % 64) as f64);
            (r / 6.0).sin() * (c / 9.0).cos()
        })
        .collect();
    let img = cp::asarray(grid)?.reshape([48, 64])?;

    let figs = [
        (
            "line",
            plot::line_xy(&x, &sin)?
                .label("sin(x)")
                .line_xy(&x, &cos)?
                .label("0.8 cos(0.7x)")
                .title("Two series")
                .xlabel("x")
                .ylabel("y"),
        ),
        (
            "scatter",
            plot::scatter(&sin, &cos)?
                .label("points")
                .xlabel("sin")
                .ylabel("cos"),
        ),
        (
            "hist",
            plot::hist(&noise, 30)?.xlabel("value").ylabel("count"),
        ),
        ("imshow", plot::imshow(&img)?.title("Heatmap")),
        (
            "panels",
            plot::Figure::new()
                .title("Several panels")
                .panel(plot::Axes::new().line(&sin)?.title("line"))
                .panel(plot::Axes::new().hist(&noise, 20)?.title("hist"))
                .panel(plot::Axes::new().imshow(&img)?.title("imshow"))
                .panel(plot::Axes::new().scatter(&x, &sin)?.title("scatter"))
                .columns(2),
        ),
    ];
    let mut page = String::from("<!doctype html><meta charset=\"utf-8\"><body>");
    for (name, fig) in &figs {
        write(&format!("{name}.png"), &fig.to_png()?.bytes);
        write(&format!("{name}.svg"), fig.to_svg()?.as_bytes());
        page.push_str(&format!(
            "<h3>{name}</h3><img src=\"{name}.png\"><img src=\"{name}.svg\">"
        ));
        println!("{name}: {}", fig.describe());
    }

    let timings = cuprite_display::Timings {
        name: "axpb (float32, 2^24 elements)".into(),
        cpu_seconds: (0..100)
            .map(|i| 2.1e-4 + 1e-5 * ((i * 7 % 11) as f64))
            .collect(),
        gpu_seconds: (0..100)
            .map(|i| 1.9e-4 + 8e-6 * ((i * 5 % 13) as f64))
            .collect(),
        bytes: Some(3.0 * 4.0 * 16_777_216.0),
        flops: Some(2.0 * 16_777_216.0),
        peak_bytes_per_second: Some(3.35e12),
        peak_flops_per_second: Some(6.7e13),
    };
    let memory = cuprite_display::MemoryReport {
        pools: vec![
            cuprite_display::PoolStats {
                name: "device pool (cuda:0)".into(),
                used: 3 << 30,
                reserved: 5 << 30,
                peak: 6 << 30,
                limit: Some(80 << 30),
                allocations: 42,
            },
            cuprite_display::PoolStats {
                name: "pinned host pool".into(),
                used: 8 << 20,
                reserved: 64 << 20,
                peak: 16 << 20,
                limit: None,
                allocations: 3,
            },
        ],
    };
    let progress = cuprite_display::progress::ProgressState {
        description: Some("training".into()),
        done: 40,
        total: Some(100),
        elapsed: 3.2,
        finished: false,
    };
    for (name, b) in [
        ("timing", timings.bundle()),
        ("memory", memory.bundle()),
        ("progress", progress.bundle()),
    ] {
        page.push_str(&format!("<h3>{name}</h3>"));
        page.push_str(b.get("text/html").unwrap_or_default());
        page.push_str(&format!(
            "<pre>{}</pre>",
            cuprite_display::html::escape(b.text_plain())
        ));
    }
    write("index.html", page.as_bytes());
    Ok(())
}
