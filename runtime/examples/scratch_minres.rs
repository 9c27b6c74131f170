use cp::sparse::linalg::{minres, spsolve, SolveOptions};
use cp::sparse::CsrMatrix;
use cp::{DType, Device};
use cuprite as cp;
fn main() -> cp::Result<()> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/scipy/sparse_linalg.npz"
    );
    let f = cp::load_npz_with(path, &cp::LoadOptions::default().device(Some(Device::Cpu)))?;
    let shape = f["poisson/shape"].to_vec::<i64>()?;
    let p = CsrMatrix::new(
        &f["poisson/data"],
        &f["poisson/indices"],
        &f["poisson/indptr"],
        (shape[0] as usize, shape[1] as usize),
    )?;
    let devs: Vec<Device> = if cp::device_count() > 0 {
        vec![Device::Cpu, Device::Cuda(0)]
    } else {
        vec![Device::Cpu]
    };
    for dev in devs {
        for batching in [true, false] {
            if dev.is_cuda() {
                cp::cuda::set_small_op_batching(batching)?;
            } else if !batching {
                continue;
            }
            for seed in 0..3u64 {
                let b = cp::random::default_rng(seed)
                    .standard_normal_as([shape[0] as usize], DType::Float64)?;
                let exact = spsolve(&p, &b)?.to_vec::<f64>()?;
                let p32 = p.astype(DType::Float32)?;
                let (p32, b32) = (
                    p32.to_device(&dev)?,
                    b.astype(DType::Float32)?.to_device(&dev)?,
                );
                let r =
                    cp::with_device(dev, || minres(&p32, &b32, SolveOptions::new().rtol(1e-5)))?;
                let x = r.x.astype(DType::Float64)?.to_vec::<f64>()?;
                let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let err = x
                    .iter()
                    .zip(&exact)
                    .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
                    / scale;
                println!("{dev} batching {batching} seed {seed}: iterations {} converged {} residual {:e} err {err:e} x[..3] {:?}", r.iterations, r.converged, r.residual, &x[..3]);
            }
        }
    }
    Ok(())
}
