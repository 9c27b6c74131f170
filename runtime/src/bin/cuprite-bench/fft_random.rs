//! Benchmark cases for cp::fft and cp::random.

use super::Bench;
use cuprite as cp;

pub fn run(_b: &mut Bench) -> cp::Result<()> {
    Ok(())
}
