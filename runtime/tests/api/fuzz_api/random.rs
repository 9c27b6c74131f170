//! Rows for `cp::random`: a seeded `Generator`'s methods (same stream on
//! every device, so values are compared) with hostile parameters (NaN and
//! infinite bounds, inverted ranges, negative counts, shapes whose size
//! overflows), and the legacy functions over the process-wide generator
//! (other tests draw from it too, so only shape and dtype are compared).

use super::check::{run_table, Row};
use super::derive::{count, pick, size};
use super::strategies::Built;
use crate::rows;
use cuprite::random::{self as r, default_rng, Generator};
use cuprite::{Array, DType};

/// The case's second shape, or one whose element count overflows.
fn shape(g: &Built) -> Vec<usize> {
    match g.n {
        -3 => vec![usize::MAX, 2],
        -2 => vec![1 << 40, 1 << 40],
        _ => g.b.shape().to_vec(),
    }
}

fn rng(g: &Built) -> Generator {
    let mut rng = default_rng(g.n as u64);
    rng.set_position(pick(g.axis as i64, &[0, 1, u64::MAX - 1, u64::MAX]));
    rng
}

/// Shape and dtype only: the value depends on other tests' draws.
fn described(a: cuprite::Result<Array>) -> cuprite::Result<String> {
    a.map(|a| format!("{:?} {}", a.shape(), a.dtype()))
}

fn low_high(g: &Built) -> (i64, i64) {
    (
        pick(g.axis as i64, &[0, -5, i64::MIN, 3]),
        pick(g.n, &[10, 0, i64::MAX, -1, 1]),
    )
}

pub fn random() -> Vec<Row> {
    rows![
        "default_rng" => |g| { let rng = rng(g); Ok(format!("{} {}", rng.seed(), rng.position())) },
        "seed" => |g| Ok(default_rng(g.n as u64).seed()),
        "position" => |g| { let mut rng = rng(g); rng.random(shape(g))?; Ok(rng.position()) },
        "set_position" => |g| { let mut rng = default_rng(1); rng.set_position(g.n as u64); rng.random(count(g.axis as i64)) },
        "values_per_block" => |g| Ok(Generator::values_per_block(g.a.dtype())),
        "random(generator)" => |g| rng(g).random(shape(g)),
        "uniform" => |g| rng(g).uniform(g.scalar, 1.0, shape(g)),
        "standard_normal" => |g| rng(g).standard_normal(shape(g)),
        "normal" => |g| rng(g).normal(0.0, g.scalar, shape(g)),
        "exponential" => |g| rng(g).exponential(g.scalar, shape(g)),
        "integers" => |g| { let (lo, hi) = low_high(g); rng(g).integers(lo, hi, shape(g)) },
        "random_as" => |g| rng(g).random_as(shape(g), g.a.dtype()),
        "uniform_as" => |g| rng(g).uniform_as(-1.0, g.scalar, shape(g), g.a.dtype()),
        "standard_normal_as" => |g| rng(g).standard_normal_as(shape(g), g.a.dtype()),
        "normal_as" => |g| rng(g).normal_as(g.scalar, 1.0, shape(g), g.a.dtype()),
        "exponential_as" => |g| rng(g).exponential_as(1.0, shape(g), g.a.dtype()),
        "integers_as" => |g| { let (lo, hi) = low_high(g); rng(g).integers_as(lo, hi, shape(g), g.a.dtype()) },
        "permutation" => |g| rng(g).permutation(size(g.n)),
        "permuted" => |g| rng(g).permuted(&g.a),
        "shuffle" => |g| { let mut a = g.a.copy()?; rng(g).shuffle(&mut a).map(|()| a) },
        "choice" => |g| rng(g).choice(size(g.n), shape(g), g.flag),
        "choice_from" => |g| rng(g).choice_from(&g.a, shape(g), g.flag),
        "poisson" => |g| rng(g).poisson(g.scalar, shape(g)),
        "binomial" => |g| rng(g).binomial(g.n, pick(g.axis as i64, &[0.5, g.scalar, 0.0, 1.0]), shape(g)),
        "geometric" => |g| rng(g).geometric(g.scalar, shape(g)),
        "multivariate_normal" => |g| rng(g).multivariate_normal(&g.a, &g.m, shape(g)),
        "with_global" => |g| Ok(r::with_global(|rng| rng.random(count(g.n)).map(|a| a.shape().to_vec()))?),
        "rand" => |g| described(r::rand(shape(g))),
        "rand_as" => |g| described(r::rand_as(shape(g), g.a.dtype())),
        "random" => |g| described(r::random(shape(g))),
        "randn" => |g| described(r::randn(shape(g))),
        "randn_as" => |g| described(r::randn_as(shape(g), g.a.dtype())),
        "randint" => |g| { let (lo, hi) = low_high(g); described(r::randint(lo, hi, shape(g))) },
        "randint_as" => |g| { let (lo, hi) = low_high(g); described(r::randint_as(lo, hi, shape(g), g.a.dtype())) },
        "seed(global)" => |g| { r::seed(g.n as u64); Ok(DType::Bool) },
    ]
}

#[test]
fn random_functions() {
    run_table("random", random());
}
