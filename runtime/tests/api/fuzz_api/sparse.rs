//! Rows for `cp::sparse` (CSR, CSC and COO matrices, their methods,
//! `diags`, `random`) and `cp::sparse::linalg` (operators, direct and
//! iterative solvers, eigsh, svds, expm_multiply). Matrices come from the
//! case's arrays through `from_dense` (which must refuse what is not a
//! matrix) or `from_triplets` (indices out of range, negative, unsorted).

use super::check::{run_table, Row};
use super::derive::{complexes, count, flat, pick, size};
use super::strategies::Built;
use crate::rows;
use cuprite as cp;
use cuprite::sparse::linalg::{
    self as sl, EigshOptions, LinearOperator, LsqrOptions, SolveOptions, Which,
};
use cuprite::sparse::{self as sp, CooMatrix, CscMatrix, CsrMatrix};
use cuprite::{Array, DType};

/// The case's square matrix as CSR (a batch of them is refused).
fn square(g: &Built) -> cuprite::Result<CsrMatrix> {
    CsrMatrix::from_dense(&g.m)
}

/// Triplets from the case: data `a` (flattened), row and column indices
/// drawn around the shape (out of range and negative among them).
fn triplets(g: &Built) -> cuprite::Result<(Array, Array, Array)> {
    let data = g.a.ravel()?;
    let n = data.size() as i64;
    let idx = |k: i64| {
        cp::asarray(
            (0..n)
                .map(|i| (i * k + g.n) % 4 - (g.axis == -7) as i64)
                .collect::<Vec<i64>>(),
        )
    };
    Ok((data, idx(3)?, idx(5)?))
}

fn shape(g: &Built) -> Option<(usize, usize)> {
    g.flag
        .then(|| (count(g.n), pick(g.axis as i64, &[4, 0, 1, usize::MAX])))
}

fn solve_options<'a>(g: &Built, x0: &'a Array) -> SolveOptions<'a> {
    let o = SolveOptions::default()
        .rtol(pick(g.n, &[1e-5, 0.0, g.scalar]))
        .atol(pick(g.axis as i64, &[0.0, g.scalar]))
        .maxiter(pick(g.n, &[1, 0, 5, 50]))
        .restart(pick(g.axis as i64, &[3, 0, 1, 20]));
    if g.flag {
        o.x0(x0)
    } else {
        o
    }
}

fn solved(r: sl::SolveResult) -> String {
    format!("{} {} {}", r.iterations, r.converged, r.info)
}

fn solution(r: cuprite::Result<sl::SolveResult>) -> cuprite::Result<Vec<Array>> {
    r.map(|r| vec![r.x])
}

pub fn matrices() -> Vec<Row> {
    rows![
        "from_dense" => |g| CsrMatrix::from_dense(&g.a)?.to_dense(),
        "from_dense(csc)" => |g| CscMatrix::from_dense(&g.a)?.toarray(),
        "from_dense(coo)" => |g| CooMatrix::from_dense(&g.a)?.toarray(),
        "from_triplets" => |g| { let (d, r, c) = triplets(g)?; CsrMatrix::from_triplets(&d, &r, &c, shape(g))?.to_dense() },
        "from_triplets(csc)" => |g| { let (d, r, c) = triplets(g)?; CscMatrix::from_triplets(&d, &r, &c, shape(g))?.to_dense() },
        "data" => |g| { let a = CsrMatrix::from_dense(&g.a)?; Ok(vec![a.data().clone(), a.indptr().clone()]) },
        "indptr" => |g| Ok(CscMatrix::from_dense(&g.a)?.indptr().clone()),
        "row" => |g| { let a = CooMatrix::from_dense(&g.a)?; Ok(vec![a.row().clone(), a.col().clone(), a.data().clone()]) },
        "col" => |g| Ok(CooMatrix::from_dense(&g.m)?.col().clone()),
        "nnz" => |g| { let a = CsrMatrix::from_dense(&g.a)?; Ok(format!("{} {} {} {:?}", a.nnz(), a.dtype(), a.has_canonical_format(), a.shape())) },
        "dtype(coo)" => |g| { let a = CooMatrix::from_dense(&g.a)?; Ok(format!("{} {} {:?}", a.nnz(), a.dtype(), a.shape())) },
        "device" => |g| { let a = CsrMatrix::from_dense(&g.a)?; Ok((a.device() == CooMatrix::from_dense(&g.a)?.device()).to_string()) },
        "sum_duplicates" => |g| { let (d, r, c) = triplets(g)?; let mut a = CsrMatrix::from_triplets(&d, &r, &c, None)?; a.sum_duplicates()?; a.to_dense() },
        "sort_indices" => |g| { let (d, r, c) = triplets(g)?; let mut a = CscMatrix::from_triplets(&d, &r, &c, None)?; a.sort_indices()?; a.to_dense() },
        "eliminate_zeros" => |g| { let mut a = CsrMatrix::from_dense(&g.a)?; a.eliminate_zeros()?; Ok(vec![a.data().clone(), a.to_dense()?]) },
        "sum_duplicates(coo)" => |g| { let mut a = CooMatrix::from_dense(&g.a)?; a.sum_duplicates()?; a.eliminate_zeros()?; a.to_dense() },
        "mul_scalar" => |g| CsrMatrix::from_dense(&g.a)?.mul_scalar(g.scalar)?.to_dense(),
        "div_scalar" => |g| CscMatrix::from_dense(&g.a)?.div_scalar(g.scalar)?.to_dense(),
        "mul_scalar(coo)" => |g| { let a = CooMatrix::from_dense(&g.a)?; Ok(vec![a.mul_scalar(g.scalar)?.to_dense()?, a.div_scalar(g.n)?.to_dense()?]) },
        "sub" => |g| CsrMatrix::from_dense(&g.a)?.sub(&CsrMatrix::from_dense(&g.b)?)?.to_dense(),
        "sub(coo)" => |g| CooMatrix::from_dense(&g.a)?.sub(&CooMatrix::from_dense(&g.b)?)?.to_dense(),
        "to_dense" => |g| CscMatrix::from_dense(&g.a)?.tocoo()?.to_dense(),
        "toarray" => |g| CooMatrix::from_dense(&g.a)?.tocoo()?.toarray(),
        "tocoo" => |g| CsrMatrix::from_dense(&g.a)?.tocoo()?.tocsc()?.toarray(),
        "tocsr" => |g| Ok(vec![CsrMatrix::from_dense(&g.a)?.tocsr()?.toarray()?, CscMatrix::from_dense(&g.a)?.tocsr()?.toarray()?, CooMatrix::from_dense(&g.a)?.tocsr()?.toarray()?]),
        "tocsc" => |g| Ok(vec![CsrMatrix::from_dense(&g.a)?.tocsc()?.toarray()?, CscMatrix::from_dense(&g.a)?.tocsc()?.toarray()?, CooMatrix::from_dense(&g.a)?.tocsc()?.toarray()?]),
        "diags" => |g| sp::diags(&[&g.a, &g.b][..count(g.n).min(2)], &g.axes, shape(g), g.flag.then_some(DType::Float32))?.to_dense(),
        "random(sparse)" => |g| sp::random(size(g.n), pick(g.axis as i64, &[3, 0, usize::MAX, 1 << 40]), g.scalar, 7, g.a.dtype())?.to_dense(),
    ]
}

pub fn linalg() -> Vec<Row> {
    rows![
        "aslinearoperator" => |g| sl::aslinearoperator(&g.a)?.matvec(&g.b),
        "from_csr" => |g| { let a = CsrMatrix::from_dense(&g.a)?; let op = LinearOperator::from_csr(&a); Ok(format!("{:?} {} {:?} {}", op.shape(), op.dtype(), op.device().is_some(), op.has_rmatvec())) },
        "from_csc" => |g| LinearOperator::from_csc(&CscMatrix::from_dense(&g.a)?)?.matvec(&flat(&g.b)),
        "from_dense(operator)" => |g| LinearOperator::from_dense(&g.a)?.rmatvec(&g.b),
        "matvec" => |g| sl::aslinearoperator(&square(g)?)?.matvec(&g.b),
        "rmatvec" => |g| sl::aslinearoperator(&square(g)?)?.rmatvec(&flat(&g.b)),
        "with_rmatvec" => |g| { let m = square(g)?; let op = LinearOperator::from_csr(&m).with_rmatvec(|y| m.dot(y)); Ok(format!("{}", op.has_rmatvec())) },
        "has_rmatvec" => |g| Ok(sl::aslinearoperator(&g.a)?.has_rmatvec()),
        "jacobi" => |g| sl::jacobi(&square(g)?)?.matvec(&flat(&g.b)),
        "spsolve" => |g| sl::spsolve(&square(g)?, &g.b),
        "spsolve_triangular" => |g| sl::spsolve_triangular(&square(g)?, &g.b, g.flag, g.n % 2 == 0),
        "splu" => |g| { let lu = sl::splu(&square(g)?)?; Ok(vec![lu.solve(&g.b)?, cp::asarray(vec![lu.shape().0 as i64])?]) },
        "factorized" => |g| sl::factorized(&CscMatrix::from_dense(&g.m)?)?(&flat(&g.b)),
        "cg" => |g| { let x0 = flat(&g.b); solution(sl::cg(&square(g)?, &flat(&g.b), solve_options(g, &x0))) },
        "bicgstab" => |g| { let x0 = flat(&g.a); solution(sl::bicgstab(&g.m, &flat(&g.b), solve_options(g, &x0))) },
        "gmres" => |g| { let x0 = flat(&g.b); solution(sl::gmres(&square(g)?, &flat(&g.b), solve_options(g, &x0))) },
        "minres" => |g| { let x0 = flat(&g.b); solution(sl::minres(&square(g)?, &g.b, solve_options(g, &x0))) },
        "m" => |g| { let a = square(g)?; let p = sl::jacobi(&a)?; let x0 = flat(&g.b); solution(sl::cg(&a, &flat(&g.b), solve_options(g, &x0).m(&p))) },
        "callback" => |g| { let a = square(g)?; let mut calls = 0; let r = sl::gmres(&a, &flat(&g.b), SolveOptions::default().maxiter(count(g.n)).callback(|_| calls += 1))?; Ok(format!("{} {calls}", solved(r))) },
        "rtol" => |g| solution(sl::cg(&square(g)?, &flat(&g.b), SolveOptions::default().rtol(g.scalar))),
        "atol" => |g| solution(sl::bicgstab(&square(g)?, &flat(&g.b), SolveOptions::default().atol(g.scalar))),
        "maxiter" => |g| solution(sl::minres(&square(g)?, &flat(&g.b), SolveOptions::default().maxiter(size(g.n).min(1000)))),
        "restart" => |g| solution(sl::gmres(&square(g)?, &flat(&g.b), SolveOptions::default().restart(size(g.n)))),
        "x0" => |g| solution(sl::cg(&square(g)?, &flat(&g.b), SolveOptions::default().x0(&g.a))),
        "x0(lsqr)" => |g| solution(sl::lsqr(&square(g)?, &flat(&g.b), LsqrOptions::default().x0(&g.a))),
        "damp" => |g| solution(sl::lsqr(&g.m, &flat(&g.b), LsqrOptions::default().damp(g.scalar))),
        "iter_lim" => |g| solution(sl::lsqr(&g.a, &g.b, LsqrOptions::default().iter_lim(size(g.n).min(1000)))),
        "tol" => |g| solution(sl::lsqr(&g.m, &flat(&g.b), LsqrOptions::default().tol(g.scalar, -g.scalar))),
        "which" => |g| sl::eigsh(&square(g)?, 1, EigshOptions::new().which(pick(g.n, &[Which::LA, Which::SA, Which::LM]))).map(|e| e.vectors),
        "ncv" => |g| sl::eigsh(&square(g)?, 1, EigshOptions::new().ncv(size(g.n))).map(|e| e.vectors),
        "v0" => |g| sl::eigsh(&square(g)?, 1, EigshOptions::new().v0(&g.b)).map(|e| e.vectors),
        "values_only" => |g| sl::eigsh(&square(g)?, count(g.n), EigshOptions::new().values_only()).map(|e| format!("{}", e.values.len())),
        "has_canonical_format" => |g| { let (d, r, c) = triplets(g)?; Ok(CsrMatrix::from_triplets(&d, &r, &c, None)?.has_canonical_format()) },
        "lsqr" => |g| { let x0 = flat(&g.a); let o = LsqrOptions::default().damp(g.scalar).tol(1e-8, 1e-8).iter_lim(pick(g.n, &[1, 0, 20])); let o = if g.flag { o.x0(&x0) } else { o }; solution(sl::lsqr(&g.a, &flat(&g.b), o)) },
        "eigsh" => |g| { let v0 = flat(&g.b); let o = EigshOptions::new().which(pick(g.n, &[Which::LA, Which::SA, Which::LM])).ncv(count(g.axis as i64)).maxiter(pick(g.n, &[1, 0, 30])).tol(g.scalar.abs()); let o = if g.flag { o.v0(&v0).values_only() } else { o }; sl::eigsh(&square(g)?, size(g.n), o).map(|e| format!("{:?}", e.values.len())) },
        "svds" => |g| sl::svds(&g.a, size(g.n)).map(|s| vec![s.u, s.vt]),
        "expm_multiply" => |g| sl::expm_multiply(&square(g)?, &g.b, g.scalar),
        "spsolve(complex)" => |g| sl::spsolve(&square(g)?, &cp::asarray(complexes(&g.b))?),
        "lsmr" => |g| { let x0 = flat(&g.a); let o = sl::LsmrOptions::default().damp(g.scalar).tol(1e-8, 1e-8).iter_lim(pick(g.n, &[1, 0, 20])); let o = if g.flag { o.x0(&x0) } else { o }; solution(sl::lsmr(&g.a, &flat(&g.b), o)) },
        "ilu0" => |g| { let p = sl::ilu0(&square(g)?)?; Ok(vec![p.lu().to_dense()?, p.solve(&flat(&g.b))?]) },
        "ic0" => |g| { let p = sl::ic0(&square(g)?)?; Ok(vec![p.l().to_dense()?, p.solve(&flat(&g.b))?]) },
        "lu" => |g| Ok(sl::ilu0(&CscMatrix::from_dense(&g.m)?)?.lu().data().clone()),
        "l" => |g| Ok(sl::ic0(&square(g)?)?.l().indptr().clone()),
        "operator" => |g| sl::ilu0(&square(g)?)?.operator().matvec(&g.b),
        "m(ilu0)" => |g| { let a = square(g)?; let p = sl::ilu0(&a)?; solution(sl::bicgstab(&a, &flat(&g.b), SolveOptions::default().maxiter(count(g.n)).m(&p))) },
        "m(ic0)" => |g| { let a = square(g)?; let p = sl::ic0(&a)?; solution(sl::cg(&a, &flat(&g.b), SolveOptions::default().maxiter(count(g.n)).m(&p))) },
        "solve_trans" => |g| { let lu = sl::splu(&square(g)?)?; lu.solve_trans(&g.b, pick(g.n, &[sl::Trans::N, sl::Trans::T, sl::Trans::H])) },
    ]
}

#[test]
fn sparse_matrices() {
    run_table("sparse", matrices());
}

#[test]
fn sparse_linalg() {
    run_table("sparse linalg", linalg());
}
