//! Rows for `cp::linalg`, the matrix products and `cp::fft`.

use super::check::{run_table, Row};
use super::derive::{count, pick, size};
use crate::rows;
use cuprite as cp;
use cuprite::fft::{FftOptions, FftnOptions};
use cuprite::linalg::{NormOrd, Trans};

fn trans(i: i64) -> Trans {
    pick(i, &[Trans::N, Trans::T, Trans::C])
}

fn fft_options(g: &super::strategies::Built) -> FftOptions {
    FftOptions {
        n: (g.n >= 0).then_some(g.n as usize),
        axis: g.axis,
        ..FftOptions::default()
    }
}

fn fftn_options(g: &super::strategies::Built) -> FftnOptions {
    let o = FftnOptions::new().axes(g.axes.clone());
    if g.flag {
        o.s(g.axes.iter().map(|a| a.unsigned_abs()).collect::<Vec<_>>())
    } else {
        o
    }
}

pub fn linalg() -> Vec<Row> {
    rows![
        "matmul(fn)" => |g| cp::matmul(&g.a, &g.b),
        "dot(fn)" => |g| cp::dot(&g.a, &g.b),
        "vdot" => |g| cp::vdot(&g.a, &g.b),
        "inner" => |g| cp::inner(&g.a, &g.b),
        "outer" => |g| cp::outer(&g.a, &g.b),
        "tensordot" => |g| cp::tensordot(&g.a, &g.b, count(g.n)),
        "einsum" => |g| cp::einsum(if g.flag { "ij,jk->ik" } else { "...i,...i" }, &[&g.a, &g.b]),
        "solve" => |g| cp::linalg::solve(&g.m, &g.b),
        "solve(square)" => |g| cp::linalg::solve(&g.m, &g.m),
        "inv" => |g| cp::linalg::inv(&g.m),
        "inv(any)" => |g| cp::linalg::inv(&g.a),
        "det" => |g| cp::linalg::det(&g.m),
        "slogdet" => |g| cp::linalg::slogdet(&g.m),
        "cholesky" => |g| cp::linalg::cholesky(&g.m),
        "qr" => |g| cp::linalg::qr(&g.a, cp::linalg::QrMode::default()).map(|(q, r)| { let mut v = q.into_iter().collect::<Vec<_>>(); v.push(r); v }),
        "eigh" => |g| cp::linalg::eigh(&g.m),
        "eigvalsh" => |g| cp::linalg::eigvalsh(&g.m),
        "norm" => |g| cp::linalg::norm(&g.a, cp::linalg::NormOrd::Default, g.flag.then_some(&g.axes[..]), g.flag),
        "pinv" => |g| cp::linalg::pinv(&g.m, 1e-15),
        "matrix_rank" => |g| cp::linalg::matrix_rank(&g.m, None),
        "trace" => |g| cp::linalg::trace(&g.a),
        "det(any)" => |g| cp::linalg::det(&g.a),
        "eig" => |g| cp::linalg::eig(&g.m),
        "eigvals" => |g| cp::linalg::eigvals(&g.a),
        "cond" => |g| cp::linalg::cond(&g.m, pick(g.n, &[NormOrd::Default, NormOrd::Fro, NormOrd::Nuc, NormOrd::Inf, NormOrd::NegInf, NormOrd::P(g.scalar)])),
        "kron" => |g| cp::linalg::kron(&g.a, &g.b),
        "matrix_power" => |g| cp::linalg::matrix_power(&g.m, pick(g.n, &[0, 1, 2, -1, 5, i64::MAX, i64::MIN])),
        "multi_dot" => |g| cp::linalg::multi_dot(&[&g.a, &g.b, &g.m][..count(g.n).min(3)]),
        "lu_factor" => |g| cp::linalg::lu_factor(&g.m),
        "lu_solve" => |g| { let (lu, piv) = cp::linalg::lu_factor(&g.m)?; cp::linalg::lu_solve(&lu, if g.flag { &piv } else { &g.a }, &g.b, trans(g.n)) },
        "solve_triangular" => |g| cp::linalg::solve_triangular(&g.m, &g.b, g.flag, trans(g.n), g.axis > 0),
        "svd" => |g| cp::linalg::svd(&g.a, g.flag, g.n % 2 == 0).map(|s| { let mut v = vec![s.s]; v.extend([s.u, s.vh].into_iter().flatten()); v }),
        "lstsq" => |g| cp::linalg::lstsq(&g.m, &g.b, g.flag.then_some(g.scalar)).map(|l| vec![l.x, l.residuals, l.s]),
        "matmul_precision" => |_g| Ok(format!("{:?}", cp::matmul_precision())),
        "set_matmul_precision" => |_g| { cp::set_matmul_precision(cp::matmul_precision()); Ok(()) },
    ]
}

pub fn fft() -> Vec<Row> {
    rows![
        "fft" => |g| cp::fft::fft(&g.a),
        "fft_with" => |g| cp::fft::fft_with(&g.a, &fft_options(g)),
        "ifft" => |g| cp::fft::ifft(&g.a),
        "ifft_with" => |g| cp::fft::ifft_with(&g.a, &fft_options(g)),
        "rfft" => |g| cp::fft::rfft(&g.a),
        "rfft_with" => |g| cp::fft::rfft_with(&g.a, &fft_options(g)),
        "irfft" => |g| cp::fft::irfft(&g.a),
        "irfft_with" => |g| cp::fft::irfft_with(&g.a, &fft_options(g)),
        "hfft" => |g| cp::fft::hfft(&g.a),
        "hfft_with" => |g| cp::fft::hfft_with(&g.a, &fft_options(g)),
        "ihfft" => |g| cp::fft::ihfft(&g.a),
        "ihfft_with" => |g| cp::fft::ihfft_with(&g.a, &fft_options(g)),
        "fft2" => |g| cp::fft::fft2(&g.a),
        "fft2_with" => |g| cp::fft::fft2_with(&g.a, &fftn_options(g)),
        "ifft2" => |g| cp::fft::ifft2(&g.a),
        "ifft2_with" => |g| cp::fft::ifft2_with(&g.a, &fftn_options(g)),
        "rfft2" => |g| cp::fft::rfft2(&g.a),
        "rfft2_with" => |g| cp::fft::rfft2_with(&g.a, &fftn_options(g)),
        "irfft2" => |g| cp::fft::irfft2(&g.a),
        "irfft2_with" => |g| cp::fft::irfft2_with(&g.a, &fftn_options(g)),
        "fftn" => |g| cp::fft::fftn(&g.a),
        "fftn_with" => |g| cp::fft::fftn_with(&g.a, &fftn_options(g)),
        "ifftn" => |g| cp::fft::ifftn(&g.a),
        "ifftn_with" => |g| cp::fft::ifftn_with(&g.a, &fftn_options(g)),
        "rfftn" => |g| cp::fft::rfftn(&g.a),
        "rfftn_with" => |g| cp::fft::rfftn_with(&g.a, &fftn_options(g)),
        "irfftn" => |g| cp::fft::irfftn(&g.a),
        "irfftn_with" => |g| cp::fft::irfftn_with(&g.a, &fftn_options(g)),
        "dct" => |g| cp::fft::dct(&g.a, g.n as u8),
        "dct_with" => |g| cp::fft::dct_with(&g.a, (g.n as u8) % 5, &fft_options(g)),
        "idct" => |g| cp::fft::idct(&g.a, g.n as u8),
        "idct_with" => |g| cp::fft::idct_with(&g.a, (g.n as u8) % 5, &fft_options(g)),
        "dst" => |g| cp::fft::dst(&g.a, g.n as u8),
        "dst_with" => |g| cp::fft::dst_with(&g.a, (g.n as u8) % 5, &fft_options(g)),
        "idst" => |g| cp::fft::idst(&g.a, g.n as u8),
        "idst_with" => |g| cp::fft::idst_with(&g.a, (g.n as u8) % 5, &fft_options(g)),
        "fftfreq" => |g| cp::fft::fftfreq(count(g.n), g.scalar),
        "rfftfreq" => |g| cp::fft::rfftfreq(count(g.n), g.scalar),
        "fftshift" => |g| cp::fft::fftshift(&g.a, g.flag.then_some(&g.axes[..])),
        "ifftshift" => |g| cp::fft::ifftshift(&g.a, g.flag.then_some(&g.axes[..])),
        "n" => |g| cp::fft::fft_with(&g.a, &FftOptions::default().n(size(g.n))),
        "s" => |g| cp::fft::fftn_with(&g.a, &FftnOptions::new().s(vec![size(g.n); count(g.axis as i64).min(3)])),
        "axes" => |g| cp::fft::rfftn_with(&g.a, &FftnOptions::new().axes(g.axes.clone())),
        "plan_cache" => |_g| cp::fft::plan_cache().map(|_| ()),
        "plan_cache_of" => |g| cp::fft::plan_cache_of(g.a.device()).map(|_| ()),
        "set_capacity" => |_g| { let c = cp::fft::plan_cache()?.capacity; cp::fft::set_capacity(c) },
        "set_capacity_of" => |g| { let c = cp::fft::plan_cache_of(g.a.device())?.capacity; cp::fft::set_capacity_of(g.a.device(), usize::MAX)?; cp::fft::set_capacity_of(g.a.device(), c) },
        "clear_plan_cache" => |_g| cp::fft::clear_plan_cache(),
        "next_fast_len" => |g| Ok(cp::fft::next_fast_len(count(g.n))),
    ]
}

#[test]
fn linalg_functions() {
    run_table("linalg", linalg());
}

#[test]
fn fft_functions() {
    run_table("fft", fft());
}
