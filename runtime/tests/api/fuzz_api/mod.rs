//! Property-based fuzzing of the public API (issue 38).
//!
//! Each table (`ufuncs`, `arrays`, `reductions`, `linalg_fft`, `extras`,
//! `signal`, `signal_design`, `ndimage`, `sparse`, `stats`, `interpolate`,
//! `random`) names public functions with a way to call them on generated
//! arguments (`gen`, and `derive` for host numbers, names and 1-D float
//! signals drawn from a case): arrays of every dtype, rank 0-5, empty and size-1 axes, transposed, stepped and
//! reversed views, NaN/±inf/-0.0/extreme integers; axes in and out of range.
//! `check` runs each row and asserts that the call never panics, that an
//! `Err` names its operation, and that a GPU `Ok` equals the CPU's (the GPU
//! half skips without a GPU). `identities` checks metamorphic laws,
//! `coverage` that every public function has a row or a reason, and
//! `regressions` keeps each panic the fuzzing found.
//!
//! Budget: `CUPRITE_FUZZ_CASES` cases per row (default 32, CI's); a fixed
//! seed unless `CUPRITE_FUZZ_SEED` is set (`random`, or a number to replay);
//! `CUPRITE_FUZZ_ROW=name` runs only the rows whose name contains `name`.
//! Run: `cargo test -p cuprite --test api fuzz_api::`.

pub mod check;
mod coverage;
pub mod derive;
mod identities;
mod regressions;
pub mod strategies;

mod arrays;
mod extras;
mod interpolate;
mod linalg_fft;
mod ndimage;
mod random;
mod reductions;
mod signal;
mod signal_design;
mod sparse;
mod stats;
mod ufuncs;
