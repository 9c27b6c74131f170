//! Several GPUs: copies between devices and NCCL collectives (`cp::nccl`).
//!
//! * Tests named `anywhere_*` run on every machine (a world of one rank on
//!   the CPU, argument checks, errors instead of panics).
//! * `one_gpu_*` need one GPU: skipped with a notice without one, failing
//!   when `CUPRITE_REQUIRE_GPU` is set.
//! * `two_gpus_*` need two GPUs: skipped with a notice with fewer, failing
//!   when `CUPRITE_REQUIRE_GPUS=2` (or more) is set. Every result is checked
//!   against values computed on the host from the inputs as stored; outputs
//!   are filled with NaN (or an integer that no result can take) first, and
//!   NaN never passes. Keep `NCCL_NVLS_ENABLE=0` in the environment of the
//!   machine that runs them.

mod common;

use std::sync::{Mutex, MutexGuard, OnceLock};

use cp::nccl::{Communicator, ReduceOp, UniqueId};
use cp::{Array, DType, Device, Error, Scalar};
use cuprite as cp;
use num_complex::Complex64;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// NCCL work of two tests must not interleave on the GPUs (collectives of
/// different communicators queued in different orders on two GPUs wait for
/// each other forever), so the GPU tests run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// True when `n` GPUs are usable; otherwise prints why the test is skipped,
/// or panics when `CUPRITE_REQUIRE_GPUS` asks for at least `n`.
fn gpus_or_skip(n: usize) -> bool {
    let have = cp::device_count();
    if have >= n {
        return true;
    }
    let required = std::env::var("CUPRITE_REQUIRE_GPUS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let why = format!(
        "needs {n} CUDA devices, found {have} ({})",
        cp::device::cuda_status().reason
    );
    if required >= n {
        panic!("CUPRITE_REQUIRE_GPUS={required} but this test {why}");
    }
    eprintln!("skipped: {why}");
    false
}

/// The communicator over cuda:0 and cuda:1 shared by the two-GPU tests.
fn pair() -> Option<&'static Communicator> {
    if !gpus_or_skip(2) {
        return None;
    }
    static PAIR: OnceLock<Result<Communicator, String>> = OnceLock::new();
    match PAIR.get_or_init(|| {
        Communicator::init_all(&[Device::cuda(0), Device::cuda(1)]).map_err(|e| e.to_string())
    }) {
        Ok(c) => {
            assert!(c.uses_nccl(), "{c}");
            Some(c)
        }
        Err(e) => panic!("two GPUs are usable but NCCL is not: {e}"),
    }
}

/// Uniform values in [0, 1) from a xorshift generator.
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn is_float(d: DType) -> bool {
    matches!(
        d,
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64
    )
}

/// The range of test values for `dtype` under `op`: the reduction of two
/// ranks never overflows, integer averages take non-negative values (so
/// truncation is floor), and unsigned types get no negative values.
fn value_range(dtype: DType, op: Option<ReduceOp>) -> (f64, f64) {
    if is_float(dtype) {
        return (-4.0, 4.0);
    }
    let unsigned = matches!(
        dtype,
        DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64
    );
    match (dtype, op) {
        (DType::Int8, Some(ReduceOp::Prod)) => (-10.0, 11.0),
        (DType::UInt8, Some(ReduceOp::Prod)) => (0.0, 16.0),
        (_, Some(ReduceOp::Prod)) if unsigned => (0.0, 1001.0),
        (_, Some(ReduceOp::Prod)) => (-1000.0, 1001.0),
        (DType::Int8, Some(ReduceOp::Avg)) => (0.0, 60.0),
        (DType::Int8, _) => (-50.0, 51.0),
        (DType::UInt8, _) => (0.0, 100.0),
        (_, Some(ReduceOp::Avg)) => (0.0, 1e6),
        _ if unsigned || dtype == DType::Bool => (0.0, 1e6),
        _ => (-1e6, 1e6),
    }
}

/// An array of `dtype` and `shape` on `device` with values in the range for
/// `op`, and its values as stored (after rounding to `dtype`).
fn make(
    device: Device,
    dtype: DType,
    shape: &[usize],
    op: Option<ReduceOp>,
    seed: u64,
) -> (Array, Vec<f64>) {
    let n: usize = shape.iter().product();
    let (lo, hi) = value_range(dtype, op);
    let mut v: Vec<f64> = uniform(n, seed)
        .into_iter()
        .map(|u| lo + u * (hi - lo))
        .collect();
    if !is_float(dtype) {
        v.iter_mut().for_each(|x| *x = x.floor());
    }
    if dtype == DType::Bool {
        v.iter_mut()
            .for_each(|x| *x = if *x > 5e5 { 1.0 } else { 0.0 });
    }
    let a = cp::with_device(device, || {
        cp::from_shape_vec(shape.to_vec(), v, cp::Order::C)?.astype(dtype)
    })
    .unwrap();
    assert_eq!(a.device(), device);
    let stored = values(&a);
    (a, stored)
}

/// Complex values: an array on `device` and its values as stored.
fn make_complex(device: Device, dtype: DType, n: usize, seed: u64) -> (Array, Vec<Complex64>) {
    let re = uniform(n, seed);
    let im = uniform(n, seed + 1000);
    let v: Vec<Complex64> = re
        .iter()
        .zip(&im)
        .map(|(&a, &b)| Complex64::new(4.0 * a - 2.0, 4.0 * b - 2.0))
        .collect();
    let a = cp::with_device(device, || {
        cp::from_shape_vec([n], v, cp::Order::C)?.astype(dtype)
    })
    .unwrap();
    let stored = complex_values(&a);
    (a, stored)
}

fn values(a: &Array) -> Vec<f64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

fn complex_values(a: &Array) -> Vec<Complex64> {
    a.astype(DType::Complex128)
        .unwrap()
        .to_vec::<Complex64>()
        .unwrap()
}

/// A value no test result takes: NaN for floats, an extreme integer otherwise.
fn poison(dtype: DType) -> Scalar {
    match dtype {
        DType::Int8 => Scalar::Int(i8::MIN as i64),
        DType::Int32 => Scalar::Int(i32::MIN as i64),
        DType::Int64 => Scalar::Int(i64::MIN),
        DType::UInt8 => Scalar::UInt(u8::MAX as u64),
        DType::UInt32 => Scalar::UInt(u32::MAX as u64),
        DType::UInt64 => Scalar::UInt(u64::MAX),
        DType::Bool => Scalar::Bool(false),
        DType::Complex64 | DType::Complex128 => Scalar::Complex(Complex64::new(f64::NAN, f64::NAN)),
        _ => Scalar::Float(f64::NAN),
    }
}

/// A poisoned C-contiguous array of `shape` and `dtype` on `device`.
fn poisoned(device: Device, dtype: DType, shape: &[usize]) -> Array {
    let mut a = cp::with_device(device, || cp::empty(shape.to_vec(), dtype)).unwrap();
    a.fill(poison(dtype)).unwrap();
    a
}

/// Unit roundoff (doubled for slack) of a float dtype; 0 for integers.
fn eps(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 2f64.powi(-10),
        DType::BFloat16 => 2f64.powi(-7),
        DType::Float32 => 2f64.powi(-23),
        DType::Float64 => 2f64.powi(-52),
        _ => 0.0,
    }
}

/// The reduction of `xs` (one value per rank) under `op` in f64, and the
/// scale of its rounding error.
fn reduce_host(op: ReduceOp, dtype: DType, xs: &[f64]) -> (f64, f64) {
    let w = xs.len() as f64;
    let abs_sum: f64 = xs.iter().map(|x| x.abs()).sum();
    match op {
        ReduceOp::Sum => (xs.iter().sum(), abs_sum),
        ReduceOp::Prod => {
            let p: f64 = xs.iter().product();
            (p, p.abs())
        }
        ReduceOp::Max => (xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max), 0.0),
        ReduceOp::Min => (xs.iter().cloned().fold(f64::INFINITY, f64::min), 0.0),
        ReduceOp::Avg => {
            let s: f64 = xs.iter().sum();
            if is_float(dtype) {
                (s / w, abs_sum / w)
            } else {
                ((s / w).trunc(), 0.0)
            }
        }
    }
}

/// Checks `got` against `expected` with errors up to `eps(dtype) * scale`
/// (plus the spacing of float16 subnormals); NaN never passes.
#[track_caller]
fn assert_values(what: &str, dtype: DType, got: &[f64], expected: &[(f64, f64)]) {
    assert_eq!(got.len(), expected.len(), "{what}: element count");
    let e = eps(dtype);
    let atol = if dtype == DType::Float16 {
        2f64.powi(-24)
    } else {
        0.0
    };
    for (i, (&g, &(x, scale))) in got.iter().zip(expected).enumerate() {
        let ok = !g.is_nan() && (g - x).abs() <= e * scale + atol;
        assert!(
            ok,
            "{what} ({dtype}): element {i} of {}: got {g}, expected {x}",
            got.len()
        );
    }
}

fn exact(v: &[f64]) -> Vec<(f64, f64)> {
    v.iter().map(|&x| (x, 0.0)).collect()
}

const ALL_DTYPES: [DType; 10] = [
    DType::Int8,
    DType::UInt8,
    DType::Int32,
    DType::UInt32,
    DType::Int64,
    DType::UInt64,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

const ALL_OPS: [ReduceOp; 5] = [
    ReduceOp::Sum,
    ReduceOp::Prod,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::Avg,
];

// ---------------------------------------------------------------------------
// Anywhere: the CPU world of one rank and argument checks
// ---------------------------------------------------------------------------

#[test]
fn anywhere_world_of_one_on_the_cpu_runs_every_collective() {
    let comm = Communicator::init_all(&[Device::Cpu]).unwrap();
    assert_eq!(comm.world_size(), 1);
    assert_eq!(comm.devices(), vec![Device::Cpu]);
    assert_eq!(comm.ranks(), vec![0]);
    assert_eq!(comm.rank_of(Device::Cpu), Some(0));
    assert!(!comm.uses_nccl());
    assert!(comm.to_string().contains("world size 1"), "{comm}");

    let (x, xv) = make(Device::Cpu, DType::Float32, &[3, 4], Some(ReduceOp::Sum), 1);
    for op in ALL_OPS {
        let out = comm.all_reduce(std::slice::from_ref(&x), op).unwrap();
        assert_eq!(out[0].shape(), &[3, 4]);
        assert_values("all_reduce", DType::Float32, &values(&out[0]), &exact(&xv));
        assert!(!out[0].shares_memory(&x));
    }
    let mut outs = vec![poisoned(Device::Cpu, DType::Float32, &[3, 4])];
    comm.all_reduce_into(std::slice::from_ref(&x), &mut outs, ReduceOp::Max)
        .unwrap();
    assert_values(
        "all_reduce_into",
        DType::Float32,
        &values(&outs[0]),
        &exact(&xv),
    );

    let g = comm.all_gather(std::slice::from_ref(&x)).unwrap();
    assert_eq!(g[0].shape(), &[3, 4]);
    let s = comm
        .reduce_scatter(std::slice::from_ref(&x), ReduceOp::Sum)
        .unwrap();
    assert_eq!(s[0].shape(), &[3, 4]);
    assert_values(
        "reduce_scatter",
        DType::Float32,
        &values(&s[0]),
        &exact(&xv),
    );
    let r = comm
        .reduce(std::slice::from_ref(&x), ReduceOp::Sum, 0)
        .unwrap()
        .expect("rank 0 is here");
    assert_values("reduce", DType::Float32, &values(&r), &exact(&xv));
    let b = comm.broadcast_from(&x).unwrap();
    assert_values(
        "broadcast_from",
        DType::Float32,
        &values(&b[0]),
        &exact(&xv),
    );
    let mut inplace = vec![x.copy().unwrap()];
    comm.broadcast(&mut inplace, 0).unwrap();
    assert_values(
        "broadcast",
        DType::Float32,
        &values(&inplace[0]),
        &exact(&xv),
    );

    // A 0-d array gathers into shape (1,).
    let z = cp::with_device(Device::Cpu, || cp::full((), 2.5, cp::f64)).unwrap();
    let g = comm.all_gather(&[z]).unwrap();
    assert_eq!(g[0].shape(), &[1]);
    assert_eq!(g[0].to_vec::<f64>().unwrap(), vec![2.5]);

    // Send to and receive from oneself is a copy.
    let mut y = poisoned(Device::Cpu, DType::Float32, &[3, 4]);
    let mut grp = comm.group();
    grp.send(&x, 0).unwrap().recv(&mut y, 0).unwrap();
    grp.run().unwrap();
    assert_values("send/recv", DType::Float32, &values(&y), &exact(&xv));
}

#[test]
fn anywhere_all_devices_never_panics_and_explains() {
    let _s = serial();
    let comm = Communicator::all_devices().unwrap();
    println!("{comm}");
    assert_eq!(comm.world_size(), cp::device_count().max(1));
    if cp::device_count() == 0 {
        assert!(comm.to_string().contains("no CUDA device"), "{comm}");
    }
    comm.synchronize().unwrap();
    let status = cp::nccl::status();
    println!("{status}");
    assert!(status.contains("NCCL"), "{status}");
}

#[test]
fn anywhere_dtype_and_shape_errors_name_the_operation() {
    let comm = Communicator::init_all(&[Device::Cpu]).unwrap();
    let on_cpu = |f: &dyn Fn() -> cp::Result<Array>| cp::with_device(Device::Cpu, f).unwrap();

    // Bool: moved, never reduced.
    let flags = on_cpu(&|| cp::asarray(vec![true, false, true]));
    let e = comm
        .all_reduce(std::slice::from_ref(&flags), ReduceOp::Sum)
        .unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::DType { .. }), "{text}");
    assert!(
        text.contains("nccl::all_reduce") && text.contains("bool"),
        "{text}"
    );
    let moved = comm.broadcast_from(&flags).unwrap();
    assert_eq!(moved[0].to_vec::<bool>().unwrap(), vec![true, false, true]);
    let g = comm.all_gather(std::slice::from_ref(&flags)).unwrap();
    assert_eq!(g[0].to_vec::<bool>().unwrap(), vec![true, false, true]);

    // Complex: sum and avg only.
    let z = on_cpu(&|| cp::asarray(vec![Complex64::new(1.0, -2.0)]));
    let s = comm
        .all_reduce(std::slice::from_ref(&z), ReduceOp::Sum)
        .unwrap();
    assert_eq!(
        s[0].to_vec::<Complex64>().unwrap(),
        vec![Complex64::new(1.0, -2.0)]
    );
    for op in [ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min] {
        let e = comm.all_reduce(std::slice::from_ref(&z), op).unwrap_err();
        assert!(e.to_string().contains("complex128"), "{e}");
    }
    let e = comm
        .reduce_scatter(&[on_cpu(&|| cp::ones([4], cp::i16))], ReduceOp::Max)
        .unwrap_err();
    assert!(
        e.to_string().contains("int16") && e.to_string().contains("reduce_scatter"),
        "{e}"
    );

    // One array per rank.
    let x = on_cpu(&|| cp::ones([4], cp::f32));
    let e = comm
        .all_reduce(&[x.clone(), x.clone()], ReduceOp::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("one array per rank"), "{e}");
    let e = comm.all_gather(&[]).unwrap_err();
    assert!(e.to_string().contains("got 0 array"), "{e}");

    // Outputs: shape, dtype, contiguity.
    let mut wrong_shape = vec![on_cpu(&|| cp::zeros([5], cp::f32))];
    let e = comm
        .all_reduce_into(std::slice::from_ref(&x), &mut wrong_shape, ReduceOp::Sum)
        .unwrap_err();
    assert!(
        matches!(e, Error::Shape { .. }) && e.to_string().contains("(4,)"),
        "{e}"
    );
    let mut wrong_dtype = vec![on_cpu(&|| cp::zeros([4], cp::f64))];
    let e = comm
        .all_reduce_into(std::slice::from_ref(&x), &mut wrong_dtype, ReduceOp::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("float64"), "{e}");
    let m = on_cpu(&|| cp::zeros([3, 2], cp::f32));
    let mut transposed = vec![m.t()];
    let e = comm.broadcast(&mut transposed, 0).unwrap_err();
    assert!(e.to_string().contains("C-contiguous"), "{e}");
    let src = on_cpu(&|| cp::ones([2, 3], cp::f32));
    let e = comm
        .all_reduce_into(std::slice::from_ref(&src), &mut transposed, ReduceOp::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("C-contiguous"), "{e}");
    // Inputs of any layout are fine.
    let t = on_cpu(&|| Ok(cp::arange(6.0)?.reshape([2, 3])?.t()));
    let r = comm
        .all_reduce(std::slice::from_ref(&t), ReduceOp::Sum)
        .unwrap();
    assert_eq!(
        r[0].to_vec::<f64>().unwrap(),
        vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    );

    // Roots and reduce_scatter's first axis.
    let mut xs = vec![x.clone()];
    let e = comm.broadcast(&mut xs, 1).unwrap_err();
    assert!(e.to_string().contains("root 1"), "{e}");
    let e = comm
        .reduce(std::slice::from_ref(&x), ReduceOp::Sum, 3)
        .unwrap_err();
    assert!(e.to_string().contains("nccl::reduce"), "{e}");
    let scalar = on_cpu(&|| cp::full((), 1.0, cp::f32));
    let e = comm.reduce_scatter(&[scalar], ReduceOp::Sum).unwrap_err();
    assert!(
        matches!(e, Error::Shape { .. }) && e.to_string().contains("0-d"),
        "{e}"
    );
    let e = comm
        .broadcast_from(
            &on_cpu(&|| cp::ones([1], cp::f32))
                .to_device(&Device::Cpu)
                .unwrap(),
        )
        .map(|_| ());
    assert!(e.is_ok());
}

#[test]
fn anywhere_bad_device_lists_are_errors() {
    let e = Communicator::init_all(&[]).unwrap_err();
    assert!(e.to_string().contains("at least one device"), "{e}");
    let e = Communicator::init_all(&[Device::cuda(0), Device::cuda(0)]).unwrap_err();
    assert!(e.to_string().contains("appears twice"), "{e}");
    let e = Communicator::init_all(&[Device::Cpu, Device::Cpu]).unwrap_err();
    assert!(e.to_string().contains("appears twice"), "{e}");
    let e = Communicator::init_all(&[Device::Cpu, Device::cuda(0)]).unwrap_err();
    assert!(matches!(e, Error::NeedsCuda { .. }), "{e}");
    assert!(e.to_string().contains("CPU"), "{e}");
    let e = Communicator::init_all(&[Device::cuda(0), Device::cuda(99)]).unwrap_err();
    assert!(matches!(e, Error::NeedsCuda { .. }), "{e}");
    assert!(e.to_string().contains("cuda:99"), "{e}");
    println!("{e}");
}

#[test]
fn anywhere_from_rank_checks_its_arguments() {
    let id = UniqueId::from_bytes([7; 128]);
    let e = Communicator::from_rank(0, 0, &id).unwrap_err();
    assert!(e.to_string().contains("world of 0"), "{e}");
    let e = Communicator::from_rank(2, 2, &id).unwrap_err();
    assert!(e.to_string().contains("rank 2"), "{e}");
    cp::with_device(Device::Cpu, || {
        let e = Communicator::from_rank(2, 0, &id).unwrap_err();
        assert!(matches!(e, Error::NeedsCuda { .. }), "{e}");
        let one = Communicator::from_rank(1, 0, &id).unwrap();
        assert_eq!(one.world_size(), 1);
        assert_eq!(one.devices(), vec![Device::Cpu]);
    });
}

#[test]
fn anywhere_unique_ids_travel_as_text_and_files() {
    let id = match UniqueId::new() {
        Ok(id) => id,
        Err(e) => {
            // Without NCCL: a clear error, not a panic.
            assert!(matches!(e, Error::MissingLibrary { .. }), "{e}");
            assert!(e.to_string().contains("libnccl.so.2"), "{e}");
            let mut b = [0u8; 128];
            b[0] = 2;
            b[127] = 0xfe;
            UniqueId::from_bytes(b)
        }
    };
    let path = std::env::temp_dir().join(format!("cuprite-nccl-id-{}.txt", std::process::id()));
    id.save(&path).unwrap();
    let back = UniqueId::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(back, id);
    assert_eq!(id.to_hex().parse::<UniqueId>().unwrap(), id);
    assert!(UniqueId::load(&path).is_err());
    assert!(UniqueId::from_hex("abc").is_err());
}

#[test]
fn anywhere_group_transfers_must_pair_up() {
    let comm = Communicator::init_all(&[Device::Cpu]).unwrap();
    let x = cp::with_device(Device::Cpu, || cp::ones([4], cp::f32)).unwrap();
    let mut y = cp::with_device(Device::Cpu, || cp::zeros([5], cp::f32)).unwrap();
    let mut g = comm.group();
    g.send(&x, 0).unwrap();
    let e = g.run().unwrap_err();
    assert!(e.to_string().contains("sends 1 array(s)"), "{e}");
    let mut g = comm.group();
    g.send(&x, 0).unwrap().recv(&mut y, 0).unwrap();
    let e = g.run().unwrap_err();
    assert!(e.to_string().contains("sends 4 elements"), "{e}");
    let mut g = comm.group();
    let e = g.send(&x, 1).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("nccl::send"), "{e}");
    // Nothing was written by the failed groups.
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 5]);
}

// ---------------------------------------------------------------------------
// One GPU: a world of one rank on cuda:0 (through NCCL when it is installed)
// ---------------------------------------------------------------------------

#[test]
fn one_gpu_world_of_one_rank() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _s = serial();
    let comm = Communicator::init_all(&[dev]).unwrap();
    println!("{comm}");
    assert_eq!(comm.world_size(), 1);
    let n = 1000003;
    for dtype in [DType::Float32, DType::Int64, DType::BFloat16] {
        let (x, xv) = make(dev, dtype, &[n], Some(ReduceOp::Sum), 3);
        let mut out = vec![poisoned(dev, dtype, &[n])];
        comm.all_reduce_into(std::slice::from_ref(&x), &mut out, ReduceOp::Sum)
            .unwrap();
        assert_values("all_reduce, one rank", dtype, &values(&out[0]), &exact(&xv));
        let g = comm.all_gather(std::slice::from_ref(&x)).unwrap();
        assert_values("all_gather, one rank", dtype, &values(&g[0]), &exact(&xv));
    }
    comm.synchronize().unwrap();
    // Two ranks cannot fit on one GPU: the error says why.
    if cp::device_count() == 1 {
        let e = Communicator::init_all(&[Device::cuda(0), Device::cuda(1)]).unwrap_err();
        assert!(e.to_string().contains("1 CUDA device"), "{e}");
    }
}

// ---------------------------------------------------------------------------
// Two GPUs
// ---------------------------------------------------------------------------

#[test]
fn two_gpus_to_device_preserves_data_for_every_layout_and_dtype() {
    if !gpus_or_skip(2) {
        return;
    }
    let _s = serial();
    let (d0, d1) = (Device::cuda(0), Device::cuda(1));
    println!(
        "peer access 0->1: {}, 1->0: {}",
        cp::cuda::can_access_peer(0, 1).unwrap(),
        cp::cuda::can_access_peer(1, 0).unwrap()
    );
    // Both copy paths: the driver's peer copy (used while the pools are
    // closed to each other) and the plain device-to-device copy (once a
    // communicator has opened them, where the GPUs have peer access).
    let peers =
        cp::cuda::can_access_peer(0, 1).unwrap() && cp::cuda::can_access_peer(1, 0).unwrap();
    for round in 0..2 {
        if round == 1 {
            pair();
        }
        for dtype in [
            DType::Bool,
            DType::Int8,
            DType::UInt16,
            DType::Int64,
            DType::Float16,
            DType::BFloat16,
            DType::Float32,
            DType::Float64,
        ] {
            for (from, to) in [(d0, d1), (d1, d0)] {
                let (x, xv) = make(from, dtype, &[1000003], None, 11 + round);
                let y = x.to_device(&to).unwrap();
                assert_eq!((y.device(), y.dtype(), y.shape()), (to, dtype, x.shape()));
                assert!(y.is_c_contiguous());
                assert_values("to_device", dtype, &values(&y), &exact(&xv));
                let ord = |d: Device| if d == d0 { 0 } else { 1 };
                let y = cp::cuda::copy_between_gpus_for_tests(&x, ord(to), true).unwrap();
                assert_values("cuMemcpyPeerAsync", dtype, &values(&y), &exact(&xv));
                if round == 1 && peers {
                    // Opening the pools is best effort: say so when it did not happen.
                    match cp::cuda::copy_between_gpus_for_tests(&x, ord(to), false) {
                        Ok(y) => {
                            assert_values("device-to-device copy", dtype, &values(&y), &exact(&xv))
                        }
                        Err(e) if e.to_string().contains("is not open") => {
                            eprintln!("device-to-device path not tested: {e}")
                        }
                        Err(e) => panic!("device-to-device copy: {e}"),
                    }
                }
            }
        }
        for dtype in [DType::Complex64, DType::Complex128] {
            let (x, xv) = make_complex(d0, dtype, 4099, 5 + round);
            let y = x.to_device(&d1).unwrap();
            assert_eq!(y.device(), d1);
            assert_eq!(complex_values(&y), xv);
        }
    }

    // Layouts: F order is kept; views are gathered; offsets are honoured.
    let (base, _) = make(d0, DType::Float64, &[37, 53], None, 21);
    let host = |a: &Array| a.to_device(&Device::Cpu).unwrap().to_vec::<f64>().unwrap();
    let f = base.copy_order(cp::Order::F).unwrap();
    let views = [
        ("C", base.clone()),
        ("F", f.clone()),
        ("transposed", base.t()),
        ("strided", base.slice(cp::s![1..;3, ..;-2]).unwrap()),
        ("row", base.slice(cp::s![5]).unwrap()),
        ("0-d", base.slice(cp::s![4, 7]).unwrap()),
        ("empty", base.slice(cp::s![3..3]).unwrap()),
    ];
    for (name, v) in views {
        let y = v.to_device(&d1).unwrap();
        assert_eq!(y.shape(), v.shape(), "{name}");
        assert_eq!(y.device(), d1, "{name}");
        assert_eq!(host(&y), host(&v), "{name}");
    }
    let yf = f.to_device(&d1).unwrap();
    assert!(yf.is_f_contiguous() && !yf.is_c_contiguous());

    // The copy is independent of its source, and ordered after pending work.
    let mut src = cp::with_device(d0, || cp::zeros([1 << 22], cp::f32)).unwrap();
    src.fill(3.0).unwrap(); // queued on cuda:0, copied on cuda:1 right after
    let copy = src.to_device(&d1).unwrap();
    src.fill(-1.0).unwrap();
    let got = copy.to_vec::<f32>().unwrap();
    assert!(
        got.iter().all(|&v| v == 3.0),
        "copy saw later or earlier writes"
    );
    // And back, through the CPU too.
    let via_cpu = copy
        .to_device(&Device::Cpu)
        .unwrap()
        .to_device(&d0)
        .unwrap();
    assert_eq!(via_cpu.to_vec::<f32>().unwrap(), got);

    // Mixing devices in one operation is an error that names to_device.
    let a = cp::with_device(d0, || cp::ones([3], cp::f32)).unwrap();
    let b = cp::with_device(d1, || cp::ones([3], cp::f32)).unwrap();
    let e = cp::add(&a, &b).unwrap_err();
    assert!(e.to_string().contains("to_device"), "{e}");
    let sum = cp::add(&a, b.to_device(&d0).unwrap()).unwrap();
    assert_eq!(sum.to_vec::<f32>().unwrap(), vec![2.0; 3]);
}

#[test]
fn two_gpus_all_reduce_every_op_and_dtype() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    for dtype in ALL_DTYPES {
        for (k, op) in ALL_OPS.into_iter().enumerate() {
            // Odd sizes, never divisible by the world size; the largest for
            // one op per dtype to keep the run short.
            let n = if k == 0 {
                1000003
            } else {
                [1, 7, 4099, 65537][k - 1]
            };
            let (xs, vs): (Vec<Array>, Vec<Vec<f64>>) = devs
                .iter()
                .enumerate()
                .map(|(r, &d)| make(d, dtype, &[n], Some(op), 100 + r as u64 * 7 + k as u64))
                .unzip();
            let expected: Vec<(f64, f64)> = (0..n)
                .map(|i| reduce_host(op, dtype, &[vs[0][i], vs[1][i]]))
                .collect();
            let mut outs: Vec<Array> = devs.iter().map(|&d| poisoned(d, dtype, &[n])).collect();
            comm.all_reduce_into(&xs, &mut outs, op).unwrap();
            for (r, o) in outs.iter().enumerate() {
                assert_eq!(o.device(), devs[r]);
                assert_values(
                    &format!("all_reduce {op} n={n} rank {r}"),
                    dtype,
                    &values(o),
                    &expected,
                );
            }
            // The allocating form and the in-place form agree.
            if k % 2 == 0 {
                let fresh = comm.all_reduce(&xs, op).unwrap();
                assert_values(
                    &format!("all_reduce {op}"),
                    dtype,
                    &values(&fresh[1]),
                    &expected,
                );
            } else {
                let mut inplace: Vec<Array> = xs.to_vec();
                comm.all_reduce_into(&xs, &mut inplace, op).unwrap();
                assert_values(
                    &format!("in-place all_reduce {op}"),
                    dtype,
                    &values(&xs[0]),
                    &expected,
                );
            }
        }
    }
    // Complex sums and averages, as pairs of floats.
    for dtype in [DType::Complex64, DType::Complex128] {
        let n = 30001;
        let (xs, vs): (Vec<Array>, Vec<Vec<Complex64>>) = devs
            .iter()
            .enumerate()
            .map(|(r, &d)| make_complex(d, dtype, n, 40 + r as u64))
            .unzip();
        for op in [ReduceOp::Sum, ReduceOp::Avg] {
            let out = comm.all_reduce(&xs, op).unwrap();
            let div = if op == ReduceOp::Avg { 2.0 } else { 1.0 };
            let tol = if dtype == DType::Complex64 {
                1e-6
            } else {
                1e-14
            };
            for o in &out {
                for (i, (g, (a, b))) in complex_values(o)
                    .iter()
                    .zip(vs[0].iter().zip(&vs[1]))
                    .enumerate()
                {
                    let want = (a + b) / div;
                    assert!(
                        !g.re.is_nan() && !g.im.is_nan() && (g - want).norm() <= tol * 8.0,
                        "complex {op} element {i}: got {g}, expected {want}"
                    );
                }
            }
        }
    }
    // Inputs of any layout: a transposed view on each GPU.
    let ts: Vec<Array> = devs
        .iter()
        .map(|&d| {
            cp::with_device(d, || -> cp::Result<Array> {
                Ok(cp::arange(12.0)?.reshape([3, 4])?.t())
            })
            .unwrap()
        })
        .collect();
    let out = comm.all_reduce(&ts, ReduceOp::Sum).unwrap();
    let want: Vec<f64> = (0..12)
        .map(|i| 2.0 * ((i % 3) * 4 + i / 3) as f64)
        .collect();
    assert_eq!(out[1].shape(), &[4, 3]);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), want);
    comm.synchronize().unwrap();
}

#[test]
fn two_gpus_broadcast_from_either_root() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    for dtype in [
        DType::Float32,
        DType::Float16,
        DType::Int8,
        DType::Bool,
        DType::UInt64,
    ] {
        for n in [1, 1000003] {
            for root in 0..2 {
                let (src, sv) = make(devs[root], dtype, &[n], None, 7 + root as u64);
                // In place: every other rank's buffer is overwritten.
                let mut bufs: Vec<Array> = (0..2)
                    .map(|r| {
                        if r == root {
                            src.clone()
                        } else {
                            poisoned(devs[r], dtype, &[n])
                        }
                    })
                    .collect();
                comm.broadcast(&mut bufs, root).unwrap();
                for (r, b) in bufs.iter().enumerate() {
                    assert_eq!(b.device(), devs[r]);
                    assert_values(
                        &format!("broadcast root {root} n={n} rank {r}"),
                        dtype,
                        &values(b),
                        &exact(&sv),
                    );
                }
                // From an array: fresh copies on every GPU.
                let copies = comm.broadcast_from(&src).unwrap();
                for (r, c) in copies.iter().enumerate() {
                    assert_eq!(c.device(), devs[r]);
                    assert!(!c.shares_memory(&src));
                    assert_values(
                        &format!("broadcast_from root {root} rank {r}"),
                        dtype,
                        &values(c),
                        &exact(&sv),
                    );
                }
            }
        }
    }
    let (z, zv) = make_complex(devs[1], DType::Complex128, 1001, 3);
    let copies = comm.broadcast_from(&z).unwrap();
    assert_eq!(complex_values(&copies[0]), zv);
    // A 2-D source keeps its shape.
    let (m, mv) = make(devs[0], DType::Float64, &[33, 17], None, 9);
    let copies = comm.broadcast_from(&m).unwrap();
    assert_eq!(copies[1].shape(), &[33, 17]);
    assert_values(
        "broadcast_from 2-D",
        DType::Float64,
        &values(&copies[1]),
        &exact(&mv),
    );
}

#[test]
fn two_gpus_reduce_to_either_root() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    for (k, dtype) in [
        DType::Float32,
        DType::BFloat16,
        DType::Int32,
        DType::UInt8,
        DType::Float64,
    ]
    .into_iter()
    .enumerate()
    {
        for op in [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Avg] {
            for root in 0..2 {
                let n = if k == 0 { 1000003 } else { 5003 };
                let (xs, vs): (Vec<Array>, Vec<Vec<f64>>) = devs
                    .iter()
                    .enumerate()
                    .map(|(r, &d)| make(d, dtype, &[n], Some(op), 300 + r as u64 + k as u64))
                    .unzip();
                let expected: Vec<(f64, f64)> = (0..n)
                    .map(|i| reduce_host(op, dtype, &[vs[0][i], vs[1][i]]))
                    .collect();
                let mut out = poisoned(devs[root], dtype, &[n]);
                comm.reduce_into(&xs, &mut out, op, root).unwrap();
                assert_values(
                    &format!("reduce {op} root {root}"),
                    dtype,
                    &values(&out),
                    &expected,
                );
                let r = comm
                    .reduce(&xs, op, root)
                    .unwrap()
                    .expect("both ranks are here");
                assert_eq!(r.device(), devs[root]);
                assert_values(
                    &format!("reduce {op} root {root} (allocating)"),
                    dtype,
                    &values(&r),
                    &expected,
                );
                // The inputs are left alone.
                assert_values(
                    "reduce input",
                    dtype,
                    &values(&xs[1 - root]),
                    &exact(&vs[1 - root]),
                );
            }
        }
    }
    // Output on the wrong GPU.
    let xs: Vec<Array> = devs
        .iter()
        .map(|&d| cp::with_device(d, || cp::ones([8], cp::f32)).unwrap())
        .collect();
    let mut wrong = cp::with_device(devs[1], || cp::zeros([8], cp::f32)).unwrap();
    let e = comm
        .reduce_into(&xs, &mut wrong, ReduceOp::Sum, 0)
        .unwrap_err();
    assert!(e.to_string().contains("rank 0 runs on cuda:0"), "{e}");
}

#[test]
fn two_gpus_all_gather_concatenates_along_axis_0() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    let cases: [(&[usize], DType); 6] = [
        (&[1000003], DType::Float32),
        (&[3, 5], DType::Int64),
        (&[], DType::Float64),
        (&[7, 2, 3], DType::BFloat16),
        (&[4099], DType::Bool),
        (&[1], DType::UInt32),
    ];
    for (k, (shape, dtype)) in cases.into_iter().enumerate() {
        let (xs, vs): (Vec<Array>, Vec<Vec<f64>>) = devs
            .iter()
            .enumerate()
            .map(|(r, &d)| make(d, dtype, shape, None, 500 + 10 * k as u64 + r as u64))
            .unzip();
        let mut out_shape = shape.to_vec();
        match out_shape.first_mut() {
            Some(n0) => *n0 *= 2,
            None => out_shape.push(2),
        }
        let expected: Vec<f64> = vs[0].iter().chain(&vs[1]).copied().collect();
        let mut outs: Vec<Array> = devs
            .iter()
            .map(|&d| poisoned(d, dtype, &out_shape))
            .collect();
        comm.all_gather_into(&xs, &mut outs).unwrap();
        for (r, o) in outs.iter().enumerate() {
            assert_eq!(o.shape(), &out_shape[..]);
            assert_values(
                &format!("all_gather {:?} rank {r}", shape),
                dtype,
                &values(o),
                &exact(&expected),
            );
        }
        let fresh = comm.all_gather(&xs).unwrap();
        assert_eq!(fresh[0].shape(), &out_shape[..]);
        assert_values(
            "all_gather (allocating)",
            dtype,
            &values(&fresh[0]),
            &exact(&expected),
        );
    }
    // An output overlapping its input is refused.
    let big: Vec<Array> = devs
        .iter()
        .map(|&d| cp::with_device(d, || cp::zeros([8], cp::f32)).unwrap())
        .collect();
    let halves: Vec<Array> = big.iter().map(|b| b.slice(cp::s![..4]).unwrap()).collect();
    let mut outs = big.clone();
    let e = comm.all_gather_into(&halves, &mut outs).unwrap_err();
    assert!(e.to_string().contains("overlaps"), "{e}");
}

#[test]
fn two_gpus_reduce_scatter_splits_axis_0() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    let cases: [(&[usize], DType, ReduceOp); 6] = [
        (&[1000002], DType::Float32, ReduceOp::Sum),
        (&[6, 5], DType::Int32, ReduceOp::Max),
        (&[2], DType::Float64, ReduceOp::Avg),
        (&[4, 3, 2], DType::Float16, ReduceOp::Sum),
        (&[10], DType::UInt64, ReduceOp::Min),
        (&[2000], DType::BFloat16, ReduceOp::Prod),
    ];
    for (k, (shape, dtype, op)) in cases.into_iter().enumerate() {
        let (xs, vs): (Vec<Array>, Vec<Vec<f64>>) = devs
            .iter()
            .enumerate()
            .map(|(r, &d)| make(d, dtype, shape, Some(op), 700 + 10 * k as u64 + r as u64))
            .unzip();
        let n: usize = shape.iter().product();
        let block = n / 2;
        let mut out_shape = shape.to_vec();
        out_shape[0] /= 2;
        let mut outs: Vec<Array> = devs
            .iter()
            .map(|&d| poisoned(d, dtype, &out_shape))
            .collect();
        comm.reduce_scatter_into(&xs, &mut outs, op).unwrap();
        for (r, o) in outs.iter().enumerate() {
            let expected: Vec<(f64, f64)> = (r * block..(r + 1) * block)
                .map(|i| reduce_host(op, dtype, &[vs[0][i], vs[1][i]]))
                .collect();
            assert_eq!(o.shape(), &out_shape[..]);
            assert_values(
                &format!("reduce_scatter {op} {:?} rank {r}", shape),
                dtype,
                &values(o),
                &expected,
            );
        }
        let fresh = comm.reduce_scatter(&xs, op).unwrap();
        assert_eq!(fresh[1].shape(), &out_shape[..]);
    }
    // A first axis that does not split into equal blocks is an error.
    let odd: Vec<Array> = devs
        .iter()
        .map(|&d| cp::with_device(d, || cp::ones([1000003], cp::f32)).unwrap())
        .collect();
    let e = comm.reduce_scatter(&odd, ReduceOp::Sum).unwrap_err();
    assert!(matches!(e, Error::Shape { .. }), "{e}");
    assert!(e.to_string().contains("not a multiple of 2"), "{e}");
}

#[test]
fn two_gpus_send_and_receive_in_a_group() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    for dtype in [DType::Float32, DType::Complex64, DType::Int16] {
        let n = 1000003;
        let (a, av, b, bv) = if dtype == DType::Complex64 {
            let (a, av) = make_complex(devs[0], dtype, n, 1);
            let (b, bv) = make_complex(devs[1], dtype, n, 2);
            let f = |v: Vec<Complex64>| v.iter().flat_map(|z| [z.re, z.im]).collect::<Vec<f64>>();
            (a, f(av), b, f(bv))
        } else {
            let (a, av) = make(devs[0], dtype, &[n], None, 1);
            let (b, bv) = make(devs[1], dtype, &[n], None, 2);
            (a, av, b, bv)
        };
        let mut a_on_1 = poisoned(devs[1], dtype, &[n]);
        let mut b_on_0 = poisoned(devs[0], dtype, &[n]);
        let mut g = comm.group();
        g.send(&a, 1).unwrap().send(&b, 0).unwrap();
        g.recv(&mut a_on_1, 0)
            .unwrap()
            .recv(&mut b_on_0, 1)
            .unwrap();
        g.run().unwrap();
        let got = |x: &Array| {
            if dtype == DType::Complex64 {
                complex_values(x)
                    .iter()
                    .flat_map(|z| [z.re, z.im])
                    .collect()
            } else {
                values(x)
            }
        };
        assert_values("recv on cuda:1", dtype, &got(&a_on_1), &exact(&av));
        assert_values("recv on cuda:0", dtype, &got(&b_on_0), &exact(&bv));
    }
    // An unmatched send is refused before anything runs (NCCL would wait forever).
    let x = cp::with_device(devs[0], || cp::ones([4], cp::f32)).unwrap();
    let mut g = comm.group();
    g.send(&x, 1).unwrap();
    let e = g.run().unwrap_err();
    assert!(
        e.to_string().contains("rank 0 sends 1 array(s) to rank 1"),
        "{e}"
    );
    comm.synchronize().unwrap();
}

#[test]
fn two_gpus_arguments_are_checked() {
    let _s = serial();
    let Some(comm) = pair() else { return };
    let devs = comm.devices();
    let on = |d: Device, n: usize| cp::with_device(d, || cp::ones([n], cp::f32)).unwrap();
    // Arrays in the wrong order.
    let e = comm
        .all_reduce(&[on(devs[1], 4), on(devs[0], 4)], ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("array 0 is on cuda:1, but rank 0 runs on cuda:0"),
        "{e}"
    );
    // Too few arrays.
    let e = comm.all_gather(&[on(devs[0], 4)]).unwrap_err();
    assert!(
        e.to_string().contains("got 1 array(s) for 2 rank(s)"),
        "{e}"
    );
    // Different shapes or dtypes on the ranks.
    let e = comm
        .all_reduce(&[on(devs[0], 4), on(devs[1], 5)], ReduceOp::Sum)
        .unwrap_err();
    assert!(
        matches!(e, Error::Shape { .. }) && e.to_string().contains("(5,)"),
        "{e}"
    );
    let i = cp::with_device(devs[1], || cp::ones([4], cp::i32)).unwrap();
    let e = comm
        .all_reduce(&[on(devs[0], 4), i], ReduceOp::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("int32"), "{e}");
    // A partial overlap of input and output.
    let bigs = [on(devs[0], 8), on(devs[1], 8)];
    let ins: Vec<Array> = bigs.iter().map(|b| b.slice(cp::s![..4]).unwrap()).collect();
    let mut outs: Vec<Array> = bigs
        .iter()
        .map(|b| b.slice(cp::s![2..6]).unwrap())
        .collect();
    let e = comm
        .all_reduce_into(&ins, &mut outs, ReduceOp::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("overlaps"), "{e}");
    // Bool cannot be reduced, root out of range, source on no rank's GPU.
    let flags: Vec<Array> = devs
        .iter()
        .map(|&d| cp::with_device(d, || cp::ones([3], cp::bool_)).unwrap())
        .collect();
    let e = comm.all_reduce(&flags, ReduceOp::Max).unwrap_err();
    assert!(e.to_string().contains("bool"), "{e}");
    let e = comm.reduce(&bigs, ReduceOp::Sum, 2).unwrap_err();
    assert!(e.to_string().contains("root 2"), "{e}");
    let cpu = cp::with_device(Device::Cpu, || cp::ones([3], cp::f32)).unwrap();
    let e = comm.broadcast_from(&cpu).unwrap_err();
    assert!(e.to_string().contains("no rank of this process"), "{e}");
    // Nothing above broke the communicator.
    let ok = comm
        .all_reduce(&[on(devs[0], 4), on(devs[1], 4)], ReduceOp::Sum)
        .unwrap();
    assert_eq!(ok[1].to_vec::<f32>().unwrap(), vec![2.0; 4]);
    let text = comm.to_string();
    assert!(
        text.contains("NCCL") && text.contains("world size 2"),
        "{text}"
    );
    println!("{text}");
}

#[test]
fn two_gpus_ranks_from_a_unique_id_in_two_threads() {
    if !gpus_or_skip(2) {
        return;
    }
    let _s = serial();
    let id = UniqueId::new().unwrap();
    // Thread 1 gets the id as text, as another process would.
    let text = id.to_string();
    let n = 1000003;
    let results: Vec<(usize, Vec<f64>, Vec<f64>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2usize)
            .map(|rank| {
                let text = text.clone();
                scope.spawn(move || {
                    let dev = Device::cuda(rank);
                    cp::with_device(dev, || {
                        let id: UniqueId = if rank == 0 { id } else { text.parse().unwrap() };
                        let comm = Communicator::from_rank(2, rank, &id).unwrap();
                        assert_eq!(comm.world_size(), 2);
                        assert_eq!(comm.ranks(), vec![rank]);
                        assert_eq!(comm.devices(), vec![dev]);
                        let (x, xv) = make(
                            dev,
                            DType::Float32,
                            &[n],
                            Some(ReduceOp::Sum),
                            900 + rank as u64,
                        );
                        let sum = comm.all_reduce(&[x], ReduceOp::Sum).unwrap();
                        let gathered = comm
                            .all_gather(&[sum[0].slice(cp::s![..3]).unwrap()])
                            .unwrap();
                        assert_eq!(gathered[0].shape(), &[6]);
                        comm.synchronize().unwrap();
                        (rank, xv, values(&sum[0]))
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (a, b) = (&results[0], &results[1]);
    let expected: Vec<(f64, f64)> = (0..n)
        .map(|i| reduce_host(ReduceOp::Sum, DType::Float32, &[a.1[i], b.1[i]]))
        .collect();
    for (rank, _, got) in &results {
        assert_values(
            &format!("from_rank all_reduce rank {rank}"),
            DType::Float32,
            got,
            &expected,
        );
    }
}

// ---------------------------------------------------------------------------
// The code of notebooks/13-multi-gpu.ipynb, cell by cell, so that it is known
// to compile and run on any machine (the notebook runs on CI's CPU machine).
// ---------------------------------------------------------------------------

#[test]
fn anywhere_notebook_13_cells_run() {
    let _s = serial();
    notebook_13().unwrap();
}

#[allow(clippy::needless_range_loop)]
fn notebook_13() -> cp::Result<()> {
    // cell: devices
    let n_gpus = cp::device_count();
    println!("CUDA devices: {n_gpus}");
    for i in 0..n_gpus {
        let info = cp::cuda::device_info(i)?;
        println!(
            "  cuda:{i}: {} ({:.0} GiB)",
            info.name,
            info.total_memory as f64 / (1u64 << 30) as f64
        );
    }
    println!("{}", cp::nccl::status());

    // cell: arrays live on the current device
    let last = if n_gpus > 0 {
        cp::Device::cuda(n_gpus - 1)
    } else {
        cp::Device::cpu()
    };
    let x = cp::with_device(last, || -> cp::Result<cp::Array> {
        cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)
    })?;
    println!("x lives on {}", x.device());

    // cell: copies between devices
    if n_gpus >= 2 {
        println!(
            "peer access cuda:1 -> cuda:0: {}",
            cp::cuda::can_access_peer(1, 0)?
        );
        let y = x.to_device(&cp::Device::cuda(0))?;
        println!(
            "y lives on {}; same values: {}",
            y.device(),
            y.to_vec::<f32>()? == x.to_vec::<f32>()?
        );
    } else {
        println!("{n_gpus} GPU(s) here: copies between GPUs need two. To the CPU and back:");
        let back = x.to_device(&cp::Device::cpu())?.to_device(&x.device())?;
        println!(
            "back on {}; same values: {}",
            back.device(),
            back.to_vec::<f32>()? == x.to_vec::<f32>()?
        );
    }

    // cell: mixing devices is an error
    if n_gpus >= 2 {
        let a = cp::with_device(cp::Device::cuda(0), || cp::ones([3], cp::f32))?;
        let b = cp::with_device(cp::Device::cuda(1), || cp::ones([3], cp::f32))?;
        match cp::add(&a, &b) {
            Ok(_) => println!("unexpected: mixing devices worked"),
            Err(e) => println!("error, as expected: {e}"),
        }
        let c = cp::add(&a, b.to_device(&a.device())?)?;
        println!("after to_device: {:?}", c.to_vec::<f32>()?);
    } else {
        println!("skipped: mixing devices needs two GPUs");
    }

    // cell: a communicator over every GPU
    let comm = cp::nccl::Communicator::all_devices()?;
    println!("{comm}");

    // cell: a data-parallel sum, checked against one device
    let n: usize = 10_000_003;
    let full = cp::random::default_rng(7).random([n])?;
    let world = comm.world_size();
    let chunk = n.div_ceil(world);
    let mut partial = Vec::new();
    for (r, d) in comm.devices().into_iter().enumerate() {
        let part = full.slice(cp::s![r * chunk..((r + 1) * chunk).min(n)])?;
        let on_rank = part.to_device(&d)?;
        partial.push(cp::with_device(d, || on_rank.sum())?);
    }
    let totals = comm.all_reduce(&partial, cp::nccl::ReduceOp::Sum)?;
    let one_device = full.sum()?.item::<f64>()?;
    let everywhere: Vec<f64> = totals
        .iter()
        .map(|t| t.item::<f64>())
        .collect::<cp::Result<_>>()?;
    println!("{world} rank(s), up to {chunk} elements each; sum on every rank: {everywhere:?}");
    println!("one device: {one_device}");
    let rel = (everywhere[0] - one_device).abs() / one_device.abs();
    println!("relative difference: {rel:.1e}");
    assert!(rel < 1e-12, "{rel}");

    // cell: the other collectives
    let xs: Vec<cp::Array> = comm
        .devices()
        .into_iter()
        .enumerate()
        .map(|(r, d)| cp::with_device(d, || cp::full([4], (r + 1) as f64, cp::f32)))
        .collect::<cp::Result<_>>()?;
    for op in [
        cp::nccl::ReduceOp::Sum,
        cp::nccl::ReduceOp::Max,
        cp::nccl::ReduceOp::Avg,
    ] {
        let out = comm.all_reduce(&xs, op)?;
        println!(
            "all_reduce {op}: {:?} on {}",
            out[0].to_vec::<f32>()?,
            out[0].device()
        );
    }
    let gathered = comm.all_gather(&xs)?;
    println!(
        "all_gather: shape {:?}, {:?}",
        gathered[0].shape(),
        gathered[0].to_vec::<f32>()?
    );
    let scattered = comm.reduce_scatter(&gathered, cp::nccl::ReduceOp::Sum)?;
    println!(
        "reduce_scatter: rank 0 gets {:?}",
        scattered[0].to_vec::<f32>()?
    );
    let copies = comm.broadcast_from(&xs[0])?;
    let last_copy = copies[copies.len() - 1].clone(); // a view, kept by the notebook
    println!(
        "broadcast_from rank 0: {:?} on {}",
        last_copy.to_vec::<f32>()?,
        last_copy.device()
    );

    // cell: what a larger world needs
    match cp::nccl::Communicator::init_all(&[cp::Device::cuda(0), cp::Device::cuda(1)]) {
        Ok(c) => println!("two GPUs: {c}"),
        Err(e) => println!("two GPUs are not available here: {e}"),
    }

    // cell: all-reduce bandwidth (as nccl-tests reports it)
    if world >= 2 {
        let elems: usize = 64 << 20; // 256 MB of float32
        let bufs: Vec<cp::Array> = comm
            .devices()
            .into_iter()
            .map(|d| cp::with_device(d, || cp::ones([elems], cp::f32)))
            .collect::<cp::Result<_>>()?;
        let mut outs = comm.all_reduce(&bufs, cp::nccl::ReduceOp::Sum)?;
        comm.synchronize()?;
        let reps = 10;
        let t = std::time::Instant::now();
        for _ in 0..reps {
            comm.all_reduce_into(&bufs, &mut outs, cp::nccl::ReduceOp::Sum)?;
        }
        comm.synchronize()?;
        let secs = t.elapsed().as_secs_f64() / reps as f64;
        let algbw = (elems * 4) as f64 / secs / 1e9;
        let busbw = algbw * 2.0 * (world - 1) as f64 / world as f64;
        println!(
            "all_reduce of 256 MB over {world} GPUs: {:.2} ms, algbw {algbw:.0} GB/s, busbw {busbw:.0} GB/s",
            secs * 1e3
        );
    } else {
        println!("skipped: bandwidth between GPUs needs two GPUs");
    }

    // cell: several processes
    match cp::nccl::UniqueId::new() {
        Ok(id) => println!(
            "an id for the other ranks: {}... (256 hex digits)",
            &id.to_hex()[..32]
        ),
        Err(e) => println!("no unique id without NCCL: {e}"),
    }
    Ok(())
}
