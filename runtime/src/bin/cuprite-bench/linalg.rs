//! Benchmark cases for matmul and cp::linalg (issue: linear algebra).

use super::Bench;
use cuprite as cp;

pub fn run(_b: &mut Bench) -> cp::Result<()> {
    Ok(())
}
