//! Benchmark cases for cp::sparse::linalg (cupy_extra.py has CuPy's side
//! with the same matrices, float64, and the same fixed amount of work:
//! tolerances of 0 so neither side stops early).
//!
//! - `cg_poisson2d_2048sq`: 100 CG iterations on the 5-point Laplacian of a
//!   2048 x 2048 grid (4M unknowns), b = 1.
//! - `gmres_convdiff_1M`: GMRES(20), 5 restart cycles (100 inner steps) on
//!   upwind convection-diffusion of a 1024 x 1024 grid.
//! - `eigsh_laplacian_1M_k10`: 10 largest eigenvalues of the graph Laplacian
//!   of a 1024 x 1024 grid, ncv = 42 (CuPy's default), 10 restarts.
//! - `spsolve_poisson2d_512sq`: a direct solve with the 512 x 512 grid's
//!   Laplacian (cuSOLVER's sparse QR on both sides).
//! - `lsmr_convdiff_1M`: 100 LSMR iterations on the convection-diffusion
//!   matrix of `gmres_convdiff_1M` (A^T built once, outside the timing, as
//!   CuPy's `A.H` is).
//! - `cg_ic0_poisson2d_512sq`: IC(0) of the 512 x 512 grid's Laplacian
//!   (cuSPARSE csric02) and 50 preconditioned CG iterations (two SpSV
//!   triangular solves each). CuPy has no IC(0): its side is ILU(0) from
//!   `spilu(A, fill_factor=1)` (csrilu02 on the GPU), the same
//!   preconditioner for a symmetric matrix (L U = L_ic L_ic^T).

use super::Bench;
use cp::sparse::linalg::{
    cg, eigsh, gmres, ic0, lsmr, spsolve, EigshOptions, LinearOperator, LsmrOptions, SolveOptions,
    Which,
};
use cp::sparse::CsrMatrix;
use cuprite as cp;

/// Which 5-point operator on an m x m grid (row-major nodes).
#[derive(Clone, Copy)]
enum Grid {
    /// Dirichlet Laplacian: 4 on the diagonal, -1 to each neighbour.
    Poisson,
    /// Upwind convection in x (coefficient c) plus diffusion.
    ConvDiff(f64),
    /// The grid graph's Laplacian: degree on the diagonal.
    GraphLaplacian,
}

/// The CSR matrix of `kind` on an m x m grid, built on the host (setup, not timed).
fn grid(m: usize, kind: Grid) -> cp::Result<CsrMatrix> {
    let n = m * m;
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::with_capacity(5 * n);
    let mut data = Vec::with_capacity(5 * n);
    indptr.push(0i32);
    for i in 0..m {
        for j in 0..m {
            let row = i * m + j;
            let neighbours = [
                (i > 0, row.wrapping_sub(m), "y"),
                (j > 0, row.wrapping_sub(1), "left"),
                (true, row, "self"),
                (j + 1 < m, row + 1, "right"),
                (i + 1 < m, row + m, "y"),
            ];
            let degree = neighbours
                .iter()
                .filter(|(ok, _, w)| *ok && *w != "self")
                .count() as f64;
            for (ok, col, which) in neighbours {
                if !ok {
                    continue;
                }
                let v = match (kind, which) {
                    (Grid::Poisson, "self") => 4.0,
                    (Grid::ConvDiff(c), "self") => 4.0 + c,
                    (Grid::ConvDiff(c), "left") => -1.0 - c,
                    (Grid::GraphLaplacian, "self") => degree,
                    _ => -1.0,
                };
                indices.push(col as i32);
                data.push(v);
            }
            indptr.push(indices.len() as i32);
        }
    }
    CsrMatrix::new(
        &cp::asarray(data)?,
        &cp::asarray(indices)?,
        &cp::asarray(indptr)?,
        (n, n),
    )
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let fixed = || SolveOptions::new().rtol(0.0).atol(0.0);

    let a = grid(2048, Grid::Poisson)?;
    let ones = cp::ones(a.shape().0, cp::f64)?;
    b.case("cg_poisson2d_2048sq", None, None, 5, 1, || {
        cg(&a, &ones, fixed().maxiter(100))
    })?;
    drop((a, ones));

    let a = grid(1024, Grid::ConvDiff(0.05))?;
    let ones = cp::ones(a.shape().0, cp::f64)?;
    b.case("gmres_convdiff_1M", None, None, 5, 1, || {
        gmres(&a, &ones, fixed().restart(20).maxiter(5))
    })?;
    drop((a, ones));

    let a = grid(1024, Grid::GraphLaplacian)?;
    b.case("eigsh_laplacian_1M_k10", None, None, 3, 1, || {
        // Ten thick restarts (42 + 9 x 32 Lanczos steps), tolerance 0: the
        // same work as CuPy's side, which counts maxiter in Lanczos steps.
        let opts = EigshOptions::new()
            .which(Which::LA)
            .ncv(42)
            .maxiter(10)
            .tol(0.0);
        eigsh(&a, 10, opts)
    })?;
    drop(a);

    let a = grid(512, Grid::Poisson)?;
    let ones = cp::ones(a.shape().0, cp::f64)?;
    b.case("spsolve_poisson2d_512sq", None, None, 3, 1, || {
        spsolve(&a, &ones)
    })?;
    drop((a, ones));

    let a = grid(1024, Grid::ConvDiff(0.05))?;
    let at = a.tocsc()?.transpose();
    let ones = cp::ones(a.shape().0, cp::f64)?;
    let (fwd, shape) = (a.clone(), a.shape());
    let op = LinearOperator::new(shape, cp::f64, move |x: &cp::Array| fwd.dot(x))
        .with_rmatvec(move |y: &cp::Array| at.dot(y));
    b.case("lsmr_convdiff_1M", None, None, 5, 1, || {
        let opts = LsmrOptions::new().tol(0.0, 0.0).iter_lim(100);
        lsmr(&op, &ones, opts)
    })?;
    drop((op, ones));

    let a = grid(512, Grid::Poisson)?;
    let ones = cp::ones(a.shape().0, cp::f64)?;
    b.case("cg_ic0_poisson2d_512sq", None, None, 5, 1, || {
        let m = ic0(&a)?;
        cg(&a, &ones, fixed().maxiter(50).m(&m))
    })?;
    Ok(())
}
