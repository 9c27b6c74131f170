//! Benchmark cases of file input and output, beside `cupy_extra.py`'s
//! (`cp.asarray(np.load(..))`, `np.save(.., cp.asnumpy(..))`,
//! `np.loadtxt`): a 1 GB float32 `.npy` file loaded to and saved from the
//! GPU (the file in the page cache: written once, then timed), and a
//! 100 MB CSV table. Files go to `$CUPRITE_BENCH_TMP`, else the system's
//! temporary directory, and are removed at the end.

use std::io::Write;

use super::{host_random, Bench};
use cuprite as cp;

/// Rows of the CSV case: 10 columns of `%.3f` values, about 100 MB.
const CSV_ROWS: usize = 1_310_720;

/// The CSV table of the `loadtxt_csv_100MB` case (cupy_extra.py writes the
/// same values): row `i`, column `j` holds `((10 i + j) % 1000003) / 1000`.
fn write_csv(path: &std::path::Path) -> std::io::Result<u64> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    for i in 0..CSV_ROWS {
        for j in 0..10 {
            let v = ((10 * i + j) % 1_000_003) as f64 / 1000.0;
            let sep = if j == 9 { '\n' } else { ',' };
            write!(w, "{v:.3}{sep}")?;
        }
    }
    w.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let dir = std::env::var_os("CUPRITE_BENCH_TMP")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("cuprite-bench-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| cp::Error::Io {
        op: "cuprite-bench",
        path: dir.display().to_string(),
        detail: e.to_string(),
    })?;
    let dev = cp::current_device();
    let n: usize = 1 << 28;
    let gb = 4.0 * n as f64;
    let x = cp::asarray(host_random(n, 31))?;
    let load_path = dir.join("load.npy");
    cp::save(&load_path, &x)?;
    b.case("npy_load_1GB_to_device", Some(gb), None, 5, 1, || {
        cp::load_to(&load_path, &dev)
    })?;
    let save_path = dir.join("save.npy");
    b.case("npy_save_1GB_from_device", Some(gb), None, 5, 1, || {
        cp::save(&save_path, &x)
    })?;
    drop(x);
    let csv_path = dir.join("table.csv");
    let csv_bytes = write_csv(&csv_path).map_err(|e| cp::Error::Io {
        op: "cuprite-bench",
        path: csv_path.display().to_string(),
        detail: e.to_string(),
    })?;
    let opts = cp::TextOptions::default().delimiter(Some(','));
    b.case(
        "loadtxt_csv_100MB",
        Some(csv_bytes as f64),
        None,
        3,
        1,
        || cp::loadtxt(&csv_path, &opts),
    )?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
