//! Benchmark cases for cp::signal and cp::sparse.

use super::Bench;
use cuprite as cp;

pub fn run(_b: &mut Bench) -> cp::Result<()> {
    Ok(())
}
