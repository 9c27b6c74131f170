//! Distributed arrays over worlds of 1 to 4 processes, started as `srun`
//! would start them (`SLURM_PROCID/NTASKS/LOCALID`, `MASTER_ADDR=127.0.0.1`
//! and a free port). On the CPU (`CUPRITE_COMM=host`) always; with
//! `CUPRITE_REQUIRE_GPU` and 2 or more GPUs, once more with one GPU per
//! rank over NCCL. Every rank computes each result twice, as a DistArray
//! and as one ordinary array of the whole, and compares them (uneven
//! blocks included: 37 rows over 2, 3 and 4 ranks). Then bad input: ranks
//! that disagree on the shape, an axis out of range, more ranks than rows,
//! each an error on every rank and no hang.

mod nccl_common;

use std::time::Duration;

use cp::dist::DistArray;
use cp::{Array, DType};
use cuprite as cp;
use nccl_common::{free_port, run_world_limited, slurm_tcp};

const WORLD_LIMIT: Duration = Duration::from_secs(120);

/// Does nothing in a normal run; in a child, is one rank of the job.
#[test]
fn child_rank() {
    let Some(role) = nccl_common::child_role() else {
        return;
    };
    let outcome = match role.as_str() {
        "checks" => checks(),
        "shape-mismatch" => shape_mismatch(),
        "bad-axis" => DistArray::zeros([6, 4], cp::f64, Some(2)).map(|_| "made".to_string()),
        "too-few-rows" => DistArray::zeros([2, 4], cp::f64, Some(0)).map(|_| "made".to_string()),
        other => Err(cp::Error::InvalidArgument {
            op: "test",
            detail: format!("unknown role {other}"),
        }),
    };
    nccl_common::report(&match outcome {
        Ok(done) => format!("OK {done}"),
        Err(e) => format!("ERR {e}"),
    });
}

fn env(world: usize, port: u16, rank: usize, cpu: bool) -> Vec<(String, String)> {
    let mut e = slurm_tcp(rank, world, port, "60");
    if cpu {
        e.push(("CUPRITE_COMM".into(), "host".into()));
    }
    e.push(("NCCL_NVLS_ENABLE".into(), "0".into()));
    e
}

fn run(role: &str, world: usize, cpu: bool) -> Vec<Result<String, String>> {
    let port = free_port();
    let dir = std::env::temp_dir().join(format!("cuprite-dist-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder for the ranks' files");
    let envs = (0..world)
        .map(|r| {
            let mut e = env(world, port, r, cpu);
            e.push(("DIST_TEST_DIR".into(), dir.display().to_string()));
            e
        })
        .collect();
    let results = run_world_limited(role, envs, WORLD_LIMIT);
    let _ = std::fs::remove_dir_all(&dir);
    results
}

fn expect_all_ok(role: &str, world: usize, cpu: bool) {
    for (r, res) in run(role, world, cpu).into_iter().enumerate() {
        match res {
            Ok(line) if line.starts_with("OK") => {}
            Ok(line) => panic!("world of {world} (cpu: {cpu}), rank {r}: {line}"),
            Err(why) => panic!("world of {world} (cpu: {cpu}): {why}"),
        }
    }
}

fn expect_all_err(role: &str, world: usize, words: &[&str]) {
    for (r, res) in run(role, world, true).into_iter().enumerate() {
        let line = res.unwrap_or_else(|why| panic!("{role}, world of {world}: {why}"));
        assert!(
            line.starts_with("ERR"),
            "{role}, rank {r} of {world}: expected an error, got {line}"
        );
        for w in words {
            assert!(
                line.contains(w),
                "{role}, rank {r} of {world}: {line:?} does not say {w:?}"
            );
        }
    }
}

#[test]
fn cpu_worlds_of_one_to_four_processes() {
    for world in 1..=4 {
        expect_all_ok("checks", world, true);
    }
}

#[test]
fn bad_input_fails_every_rank_without_a_hang() {
    expect_all_err("shape-mismatch", 3, &["disagree"]);
    expect_all_err("bad-axis", 2, &["axis 2"]);
    expect_all_err("too-few-rows", 3, &["fewer than the 3 ranks"]);
    expect_all_err("too-few-rows", 4, &["fewer than the 4 ranks"]);
}

#[test]
fn gpu_worlds_of_two_and_four() {
    if std::env::var_os("CUPRITE_REQUIRE_GPU").is_none() {
        eprintln!("skipped: set CUPRITE_REQUIRE_GPU=1 on a machine with 2 or more GPUs");
        return;
    }
    let gpus = cp::device_count();
    for world in [2, 4].into_iter().filter(|&w| w <= gpus) {
        expect_all_ok("checks", world, false);
    }
}

// ---------------------------------------------------------------------------
// One rank's checks
// ---------------------------------------------------------------------------

type Outcome = cp::Result<String>;

fn fail(what: &str, detail: String) -> cp::Error {
    cp::Error::InvalidArgument {
        op: "dist test",
        detail: format!("{what}: {detail}"),
    }
}

/// `got` equals `want` in shape and dtype, values within `rel` (NaN only
/// where NaN is expected).
fn same(what: &str, got: &Array, want: &Array, rel: f64) -> cp::Result<()> {
    if got.shape() != want.shape() || got.dtype() != want.dtype() {
        return Err(fail(
            what,
            format!(
                "shape/dtype {:?} {} where {:?} {} was expected",
                got.shape(),
                got.dtype(),
                want.shape(),
                want.dtype()
            ),
        ));
    }
    let g: Vec<f64> = got
        .to_device(&cp::Device::Cpu)?
        .astype(DType::Float64)?
        .to_vec()?;
    let w: Vec<f64> = want
        .to_device(&cp::Device::Cpu)?
        .astype(DType::Float64)?
        .to_vec()?;
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || (a - b).abs() <= rel * b.abs().max(1.0);
        if !ok {
            return Err(fail(what, format!("element {i} is {a}, expected {b}")));
        }
    }
    Ok(())
}

fn whole(what: &str, d: &DistArray, want: &Array, rel: f64) -> cp::Result<()> {
    same(what, &d.to_array()?, want, rel)
}

/// A replicated DistArray's value, checked to be replicated.
fn value(what: &str, d: &DistArray) -> cp::Result<Array> {
    if d.split().is_some() {
        return Err(fail(what, "the result is not replicated".into()));
    }
    Ok(d.local().clone())
}

fn checks() -> Outcome {
    let world = cp::nccl::world()?;
    let device = world.devices()[0];
    cp::with_device(device, || checks_on(world.world_size()))
}

fn checks_on(world: usize) -> Outcome {
    // Creation.
    whole(
        "zeros",
        &DistArray::zeros([37, 3], cp::f32, Some(0))?,
        &cp::zeros([37, 3], cp::f32)?,
        0.0,
    )?;
    whole(
        "ones split 1",
        &DistArray::ones([5, 9], cp::i32, Some(1))?,
        &cp::ones([5, 9], cp::i32)?,
        0.0,
    )?;
    whole(
        "full",
        &DistArray::full([7, 4], 2.5, cp::f64, None)?,
        &cp::full([7, 4], 2.5, cp::f64)?,
        0.0,
    )?;
    whole(
        "arange",
        &DistArray::arange(37, Some(0))?,
        &cp::arange(37)?.astype(DType::Int64)?,
        0.0,
    )?;
    whole(
        "linspace",
        &DistArray::linspace(-1.0, 3.0, 41, Some(0))?,
        &cp::linspace(-1.0, 3.0, 41)?,
        0.0,
    )?;
    for split in [Some(0), Some(1), None] {
        for dtype in [cp::f32, cp::f64] {
            let d = DistArray::random([37, 5], dtype, 7, split)?;
            let want = cp::random::default_rng(7).random_as([37, 5], dtype)?;
            whole(&format!("random {dtype} split {split:?}"), &d, &want, 0.0)?;
        }
    }
    let a_whole = cp::random::default_rng(1).standard_normal([37, 5])?;
    let b_whole = cp::random::default_rng(2).standard_normal([37, 5])?;
    let c_whole = cp::random::default_rng(3).standard_normal([5])?;
    let a = DistArray::from_array(&a_whole, Some(0))?;
    let b = DistArray::from_array(&b_whole, Some(1))?;
    let c = DistArray::from_array(&c_whole, None)?;
    if a.local().shape()[0] != DistArray::blocks(&a)[a.rank()].1 {
        return Err(fail(
            "blocks",
            "the block length differs from blocks()".into(),
        ));
    }

    // Elementwise: aligned, misaligned (resplit), broadcast against replicated.
    whole("a + a", &(&a + &a), &(&a_whole + &a_whole), 0.0)?;
    whole(
        "a * b (misaligned)",
        &a.multiply(&b)?,
        &cp::multiply(&a_whole, &b_whole)?,
        0.0,
    )?;
    whole(
        "a - c (broadcast)",
        &a.subtract(&c)?,
        &cp::subtract(&a_whole, &c_whole)?,
        0.0,
    )?;
    whole(
        "b / c",
        &b.divide(&c)?,
        &cp::divide(&b_whole, &c_whole)?,
        0.0,
    )?;
    whole(
        "sin(a) * 2",
        &a.sin()?.mul_scalar(2.0)?,
        &(cp::sin(&a_whole)? * 2.0),
        0.0,
    )?;
    whole("map exp", &a.map(|x| cp::exp(x))?, &cp::exp(&a_whole)?, 0.0)?;
    whole(
        "zip_array",
        &a.zip_array(&c_whole, |x, y| cp::arctan2(x, y))?,
        &cp::arctan2(&a_whole, &c_whole)?,
        0.0,
    )?;
    let cond = a.greater(&b)?;
    whole(
        "where",
        &DistArray::where_(&cond, &a, &b)?,
        &cp::where_(&cp::greater(&a_whole, &b_whole)?, &a_whole, &b_whole)?,
        0.0,
    )?;
    whole(
        "astype",
        &a.astype(cp::f32)?,
        &a_whole.astype(cp::f32)?,
        0.0,
    )?;

    // Reductions over everything and along each axis, split along each axis.
    let tol = 1e-12;
    for (name, d) in [
        ("split 0", &a),
        ("split 1", &a.resplit(Some(1))?),
        ("replicated", &c_as_matrix(&a)?),
    ] {
        same(
            &format!("sum {name}"),
            &value("sum", &d.sum()?)?,
            &a_whole.sum()?,
            tol,
        )?;
        same(
            &format!("mean {name}"),
            &value("mean", &d.mean()?)?,
            &a_whole.mean()?,
            tol,
        )?;
        same(
            &format!("min {name}"),
            &value("min", &d.min()?)?,
            &a_whole.min()?,
            0.0,
        )?;
        same(
            &format!("max {name}"),
            &value("max", &d.max()?)?,
            &a_whole.max()?,
            0.0,
        )?;
        same(
            &format!("var {name}"),
            &value("var", &d.var(1)?)?,
            &a_whole.var(1)?,
            tol,
        )?;
        same(
            &format!("std {name}"),
            &value("std", &d.std(0)?)?,
            &cp::sqrt(&a_whole.var(0)?)?,
            tol,
        )?;
        let norm = cp::linalg::norm(&a_whole, cp::linalg::NormOrd::Default, None, false)?;
        same(
            &format!("norm {name}"),
            &value("norm", &d.norm()?)?,
            &norm,
            tol,
        )?;
        same(
            &format!("argmin {name}"),
            &value("argmin", &d.argmin()?)?,
            &a_whole.argmin()?,
            0.0,
        )?;
        same(
            &format!("argmax {name}"),
            &value("argmax", &d.argmax()?)?,
            &a_whole.argmax()?,
            0.0,
        )?;
        let positive = d.greater(&DistArray::from_array(&cp::zeros([37, 5], cp::f64)?, None)?)?;
        same(
            &format!("any {name}"),
            &value("any", &positive.any()?)?,
            &cp::greater(&a_whole, 0.0)?.any()?,
            0.0,
        )?;
        same(
            &format!("all {name}"),
            &value("all", &positive.all()?)?,
            &cp::greater(&a_whole, 0.0)?.all()?,
            0.0,
        )?;
        for axis in [0isize, 1, -1] {
            let at = format!("{name} axis {axis}");
            whole(
                &format!("sum {at}"),
                &d.sum_axis(axis)?,
                &a_whole.sum_axis(axis)?,
                tol,
            )?;
            whole(
                &format!("mean {at}"),
                &d.mean_axis(axis)?,
                &a_whole.mean_axis(axis)?,
                tol,
            )?;
            whole(
                &format!("min {at}"),
                &d.min_axis(axis)?,
                &a_whole.min_axis(axis)?,
                0.0,
            )?;
            whole(
                &format!("max {at}"),
                &d.max_axis(axis)?,
                &a_whole.max_axis(axis)?,
                0.0,
            )?;
            whole(
                &format!("var {at}"),
                &d.var_axis(axis, 1)?,
                &a_whole.var_axis(axis, 1)?,
                tol,
            )?;
        }
    }
    // NaN propagates through max and is what argmax finds first.
    let mut with_nan = a_whole.copy()?;
    with_nan.slice_assign(cp::s![20, 3], f64::NAN)?;
    with_nan.slice_assign(cp::s![30, 1], f64::NAN)?;
    let n = DistArray::from_array(&with_nan, Some(0))?;
    same(
        "max with NaN",
        &value("max", &n.max()?)?,
        &with_nan.max()?,
        0.0,
    )?;
    same(
        "argmax with NaN",
        &value("argmax", &n.argmax()?)?,
        &with_nan.argmax()?,
        0.0,
    )?;
    same(
        "argmin with NaN, split 1",
        &value("argmin", &n.resplit(Some(1))?.argmin()?)?,
        &with_nan.argmin()?,
        0.0,
    )?;

    // Moving blocks.
    whole("resplit 0 -> 1", &a.resplit(Some(1))?, &a_whole, 0.0)?;
    whole("resplit 1 -> 0", &b.resplit(Some(0))?, &b_whole, 0.0)?;
    whole(
        "resplit None -> 0",
        &c_as_matrix(&a)?.resplit(Some(0))?,
        &a_whole,
        0.0,
    )?;
    let gathered = a.gather(Some(world - 1))?;
    match (a.rank() == world - 1, gathered) {
        (true, Some(g)) => same("gather to the last rank", &g, &a_whole, 0.0)?,
        (false, None) => {}
        (here, got) => {
            return Err(fail(
                "gather",
                format!("root here: {here}, got an array: {}", got.is_some()),
            ))
        }
    }
    let scattered = DistArray::scatter((a.rank() == 0).then_some(&b_whole), 0, Some(0))?;
    whole("scatter", &scattered, &b_whole, 0.0)?;

    // Blocks of other lengths: rank r gives r + 1 rows.
    let r = a.rank();
    let mine = cp::full([r + 1, 2], r as f64, cp::f64)?;
    let uneven = DistArray::from_local(mine, Some(0))?;
    let parts: Vec<Array> = (0..world)
        .map(|q| cp::full([q + 1, 2], q as f64, cp::f64))
        .collect::<cp::Result<_>>()?;
    let refs: Vec<&Array> = parts.iter().collect();
    whole(
        "from_local, uneven",
        &uneven,
        &cp::concatenate(&refs, 0)?,
        0.0,
    )?;

    // Halos: ghost rows equal the neighbours' rows.
    for periodic in [false, true] {
        let width = 2usize.min(37 / world);
        let got = a.halo(width, periodic)?;
        let (lo, len) = a.blocks()[r];
        let rows: Vec<isize> = (0..len + 2 * width)
            .map(|i| lo as isize + i as isize - width as isize)
            .filter(|&g| periodic || (0..37).contains(&g))
            .map(|g| g.rem_euclid(37))
            .collect();
        let want = a_whole.take(
            cp::asarray(rows.iter().map(|&g| g as i64).collect::<Vec<_>>())?,
            Some(0),
        )?;
        same(&format!("halo periodic {periodic}"), &got, &want, 0.0)?;
    }
    // Products and transforms.
    let m_whole = cp::random::default_rng(4).standard_normal([5, 6])?;
    let m = DistArray::from_array(&m_whole, None)?;
    whole(
        "matmul rows x replicated",
        &a.matmul(&m)?,
        &cp::matmul(&a_whole, &m_whole)?,
        1e-12,
    )?;
    let m_cols = DistArray::from_array(
        &cp::random::default_rng(5).standard_normal([5, 8])?,
        Some(1),
    )?;
    whole(
        "matmul rows x column-split",
        &a.matmul(&m_cols)?,
        &cp::matmul(&a_whole, &m_cols.to_array()?)?,
        1e-12,
    )?;
    let at = DistArray::from_array(&a_whole.t().copy()?, Some(1))?; // (5, 37), split along the inner axis
    let inner = at.matmul(&a)?;
    same(
        "matmul inner-split",
        &value("matmul", &inner)?,
        &cp::matmul(&a_whole.t().copy()?, &a_whole)?,
        1e-12,
    )?;
    let v_whole = cp::random::default_rng(6).standard_normal([37])?;
    let v = DistArray::from_array(&v_whole, Some(0))?;
    let u = DistArray::from_array(&cp::sin(&v_whole)?, Some(0))?;
    same(
        "dot",
        &value("dot", &v.dot(&u)?)?,
        &cp::dot(&v_whole, &cp::sin(&v_whole)?)?,
        1e-12,
    )?;
    same(
        "vdot",
        &value("vdot", &v.vdot(&u)?)?,
        &cp::vdot(&v_whole, &cp::sin(&v_whole)?)?,
        1e-12,
    )?;
    // TSQR: 37 x 5 (blocks of 9 or 10 rows), and 9 x 4, whose blocks of 2
    // or 3 rows on 3 and 4 ranks are shorter than the matrix is wide.
    for (rows, cols, seed) in [(37usize, 5usize, 7u64), (9, 4, 8)] {
        let m_whole = cp::random::default_rng(seed).standard_normal([rows, cols])?;
        tsqr_matches_one_array(&DistArray::from_array(&m_whole, Some(0))?, &m_whole)?;
    }
    if DistArray::from_array(&cp::ones([4, 6], cp::f64)?, Some(0))
        .and_then(|w| w.qr())
        .is_ok()
    {
        return Err(fail("qr of a wide matrix", "no error".into()));
    }
    whole(
        "fft along the local axis",
        &a.fft(1)?,
        &cp::fft::fft(&a_whole)?,
        1e-12,
    )?;
    let f2 = a.fft2()?;
    if f2.split() != Some(1) {
        return Err(fail(
            "fft2",
            format!("split {:?}, expected Some(1)", f2.split()),
        ));
    }
    whole("fft2 (slabs)", &f2, &cp::fft::fft2(&a_whole)?, 1e-12)?;
    if a.fft(0).is_ok() {
        return Err(fail("fft along the split axis", "no error".into()));
    }

    // Slices and elements in global indices.
    whole(
        "slice rows",
        &a.slice(cp::s![3..30, 1..4])?,
        &a_whole.slice(cp::s![3..30, 1..4])?,
        0.0,
    )?;
    whole(
        "slice with a step",
        &a.slice(cp::s![1..36;5])?,
        &a_whole.slice(cp::s![1..36;5])?,
        0.0,
    )?;
    whole(
        "slice reversed",
        &a.slice(cp::s![..;-1])?,
        &a_whole.slice(cp::s![..;-1])?,
        0.0,
    )?;
    whole(
        "slice one row",
        &a.slice(cp::s![17])?,
        &a_whole.slice(cp::s![17])?,
        0.0,
    )?;
    whole(
        "slice few rows",
        &a.slice(cp::s![0..2])?,
        &a_whole.slice(cp::s![0..2])?,
        0.0,
    )?;
    whole(
        "slice a column",
        &a.slice(cp::s![.., 2])?,
        &a_whole.slice(cp::s![.., 2])?,
        0.0,
    )?;
    if a.get(&[-3, 4])? != a_whole.get(&[-3, 4])? {
        return Err(fail("get", "a different element".into()));
    }

    // .npy written by all ranks, read by all ranks.
    let dir = std::env::var("DIST_TEST_DIR").map_err(|_| fail("npy", "no DIST_TEST_DIR".into()))?;
    let path = std::path::Path::new(&dir).join("a.npy");
    a.save_npy(&path)?;
    same("save_npy then cp::load", &cp::load(&path)?, &a_whole, 0.0)?;
    for split in [Some(0), Some(1), None] {
        whole(
            &format!("load_npy split {split:?}"),
            &DistArray::load_npy(&path, split)?,
            &a_whole,
            0.0,
        )?;
    }
    b.save_npy(&path)?; // split along axis 1: resplit to rows first
    same(
        "save_npy of a column-split array",
        &cp::load(&path)?,
        &b_whole,
        0.0,
    )?;
    Ok(format!("rank {r} of {world}: all checks passed"))
}

/// `d.qr()` against the definition and against one array's QR: Q R = A,
/// QᵀQ = I, R upper triangular, and R equal to `cp::linalg::qr`'s up to the
/// signs of its rows.
fn tsqr_matches_one_array(d: &DistArray, a: &Array) -> cp::Result<()> {
    let (q, r) = d.qr()?;
    if q.split() != Some(0) || r.split().is_some() {
        return Err(fail(
            "qr",
            format!("splits Q {:?}, R {:?}", q.split(), r.split()),
        ));
    }
    let (q, r) = (q.to_array()?, r.local().clone());
    same("qr: Q R", &cp::matmul(&q, &r)?, a, 1e-12)?;
    let n = a.shape()[1];
    same(
        "qr: Q^T Q",
        &cp::matmul(&q.t().copy()?, &q)?,
        &cp::eye(n, None, 0, cp::f64)?,
        1e-12,
    )?;
    same(
        "qr: R below the diagonal",
        &cp::tril(&r, -1)?,
        &cp::zeros([n, n], cp::f64)?,
        0.0,
    )?;
    let (_, r_one) = cp::linalg::qr(a, cp::linalg::QrMode::Reduced)?;
    same("qr: |R|", &cp::abs(&r)?, &cp::abs(&r_one)?, 1e-10)
}

/// `a`'s global values, replicated on every rank.
fn c_as_matrix(a: &DistArray) -> cp::Result<DistArray> {
    a.resplit(None)
}

fn shape_mismatch() -> Outcome {
    let r = cp::nccl::world()?.rank();
    DistArray::zeros([10 + r, 2], cp::f64, Some(0)).map(|_| "made".into())
}
