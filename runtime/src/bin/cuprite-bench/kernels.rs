//! Benchmark cases for custom kernels (ElementwiseKernel, ReductionKernel, RawKernel) and cp::fuse.

use super::Bench;
use cuprite as cp;

pub fn run(_b: &mut Bench) -> cp::Result<()> {
    Ok(())
}
