//! The 2-D heat equation of `notebooks/15-multi-node.ipynb`: an explicit
//! 5-point stencil on an N×N grid cut into row slabs, one per rank, halo rows
//! exchanged with `send`/`recv` in a group and the residual summed with
//! `all_reduce`. The slabs' grid must equal, bit for bit, the same steps on
//! one array (each point is computed by the same arithmetic in the same
//! order); the residual, a sum taken in another order, agrees to rounding.
//!
//! Here the world has one rank (on the CPU, and on GPU 0 when there is one),
//! and the decomposition itself is checked with several slabs in one
//! process whose halos are copied directly.

use crate::common;

use cp::nccl::{Communicator, ReduceOp};
use cp::{s, Array};
use cuprite as cp;

const N: usize = 34;
const ALPHA: f64 = 0.2;
const STEPS: usize = 40;

/// Rows `[lo, hi)` of an `n`-row grid owned by rank `r` of `w` (the first
/// `n % w` ranks take one row more).
fn slab_rows(n: usize, w: usize, r: usize) -> (usize, usize) {
    let (base, extra) = (n / w, n % w);
    let lo = r * base + r.min(extra);
    (lo, lo + base + usize::from(r < extra))
}

/// The starting temperatures: a hot top edge, a warm left edge, a hot block
/// inside, zero elsewhere; the edges stay fixed.
fn initial_grid(n: usize) -> cp::Result<Array> {
    let mut u = cp::zeros([n, n], cp::f64)?;
    u.slice_assign(s![.., 0..1], 0.5)?;
    u.slice_assign(s![0..1, ..], 1.0)?;
    u.slice_assign(s![10..16, 5..12], 2.0)?;
    Ok(u)
}

/// One explicit step on rows `a..b` of `grid` (not its first or last
/// column), reading rows `a-1..b+1`; returns the sum of squared changes.
fn update_rows(grid: &mut Array, a: usize, b: usize) -> cp::Result<Array> {
    let n = grid.shape()[1];
    let centre = grid.slice(s![a..b, 1..n - 1])?;
    let up = grid.slice(s![a - 1..b - 1, 1..n - 1])?;
    let down = grid.slice(s![a + 1..b + 1, 1..n - 1])?;
    let left = grid.slice(s![a..b, 0..n - 2])?;
    let right = grid.slice(s![a..b, 2..n])?;
    let laplacian = &up + &down + &left + &right - &centre * 4.0;
    let next = &centre + laplacian * ALPHA;
    let change = (&next - &centre).square()?.sum()?;
    grid.slice_assign(s![a..b, 1..n - 1], &next)?;
    Ok(change)
}

/// `steps` steps on the whole grid; the final grid and each step's residual.
fn run_single(mut u: Array, steps: usize) -> cp::Result<(Array, Vec<f64>)> {
    let n = u.shape()[0];
    let mut residuals = Vec::with_capacity(steps);
    for _ in 0..steps {
        residuals.push(update_rows(&mut u, 1, n - 1)?.item::<f64>()?);
    }
    Ok((u, residuals))
}

/// One rank's part: its rows of the grid with a halo row above and below.
struct Slab {
    rank: usize,
    lo: usize,
    hi: usize,
    /// Global rows `lo-1..hi+1` (a halo row outside the grid stays zero).
    grid: Array,
}

impl Slab {
    fn new(u0: &Array, w: usize, rank: usize) -> cp::Result<Slab> {
        let n = u0.shape()[0];
        let (lo, hi) = slab_rows(n, w, rank);
        let mut grid = cp::zeros([hi - lo + 2, n], u0.dtype())?;
        let from = lo.saturating_sub(1);
        let to = (hi + 1).min(n);
        let at = from + 1 - lo;
        grid.slice_assign(s![at..at + (to - from), ..], &u0.slice(s![from..to, ..])?)?;
        Ok(Slab { rank, lo, hi, grid })
    }

    fn row(&self, i: usize) -> cp::Result<Array> {
        self.grid.slice(s![i..i + 1, ..])
    }

    /// Its first and last own rows, and its two halo rows.
    fn first(&self) -> cp::Result<Array> {
        self.row(1)
    }
    fn last(&self) -> cp::Result<Array> {
        self.row(self.hi - self.lo)
    }
    fn halo_above(&self) -> cp::Result<Array> {
        self.row(0)
    }
    fn halo_below(&self) -> cp::Result<Array> {
        self.row(self.hi - self.lo + 1)
    }

    /// One step on its rows that are not on the grid's edge.
    fn step(&mut self, n: usize) -> cp::Result<Array> {
        let a = self.lo.max(1) - self.lo + 1;
        let b = self.hi.min(n - 1) - self.lo + 1;
        if a >= b {
            return cp::zeros([], self.grid.dtype());
        }
        update_rows(&mut self.grid, a, b)
    }

    fn own_rows(&self) -> cp::Result<Array> {
        self.grid.slice(s![1..self.hi - self.lo + 1, ..])
    }
}

/// This process's slab of `comm`'s world: halos through `send`/`recv` with
/// the ranks above and below, the residual through `all_reduce`.
fn run_slab(comm: &Communicator, u0: &Array, steps: usize) -> cp::Result<(Slab, Vec<f64>)> {
    let (rank, world) = (comm.rank(), comm.world_size());
    let n = u0.shape()[0];
    let mut slab = Slab::new(u0, world, rank)?;
    let mut residuals = Vec::with_capacity(steps);
    for _ in 0..steps {
        let mut g = comm.group();
        if rank > 0 {
            g.send(&slab.first()?, rank - 1)?;
            g.recv(&mut slab.halo_above()?, rank - 1)?;
        }
        if rank + 1 < world {
            g.send(&slab.last()?, rank + 1)?;
            g.recv(&mut slab.halo_below()?, rank + 1)?;
        }
        g.run()?;
        let change = slab.step(n)?;
        let total = comm.all_reduce(&[change], ReduceOp::Sum)?;
        residuals.push(total[0].item::<f64>()?);
    }
    Ok((slab, residuals))
}

/// `w` slabs in this process, their halos copied directly.
fn run_local_slabs(u0: &Array, w: usize, steps: usize) -> cp::Result<(Vec<Slab>, Vec<f64>)> {
    let n = u0.shape()[0];
    let mut slabs: Vec<Slab> = (0..w)
        .map(|r| Slab::new(u0, w, r))
        .collect::<cp::Result<_>>()?;
    let mut residuals = Vec::with_capacity(steps);
    for _ in 0..steps {
        for r in 1..w {
            slabs[r].halo_above()?.assign(&slabs[r - 1].last()?)?;
            slabs[r - 1].halo_below()?.assign(&slabs[r].first()?)?;
        }
        let mut total = 0.0;
        for slab in &mut slabs {
            total += slab.step(n)?.item::<f64>()?;
        }
        residuals.push(total);
    }
    Ok((slabs, residuals))
}

fn assert_same_rows(slab: &Slab, whole: &Array) {
    let own = slab.own_rows().unwrap().to_vec::<f64>().unwrap();
    let want = whole
        .slice(s![slab.lo..slab.hi, ..])
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(
        own, want,
        "rank {}: rows {}..{} differ",
        slab.rank, slab.lo, slab.hi
    );
}

fn assert_close_residuals(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * w.abs().max(1e-300),
            "step {k}: {g} vs {w}"
        );
    }
}

#[test]
fn slab_rows_cover_the_grid() {
    assert_eq!(slab_rows(34, 4, 0), (0, 9));
    assert_eq!(slab_rows(34, 4, 1), (9, 18));
    assert_eq!(slab_rows(34, 4, 3), (26, 34));
    assert_eq!(slab_rows(5, 1, 0), (0, 5));
}

on_every_device!(one_rank_equals_one_array, |_dev| {
    cp::cuda::reset_host_fallbacks();
    let u0 = initial_grid(N)?;
    let (whole, want) = run_single(u0.copy()?, STEPS)?;
    // Heat flows: the residual shrinks, the grid stays within its bounds.
    assert!(want[STEPS - 1] < want[0], "{want:?}");
    assert!(whole.max()?.item::<f64>()? <= 2.0 && whole.min()?.item::<f64>()? >= 0.0);
    let comm = Communicator::init_all(&[cp::current_device()])?;
    let (slab, got) = run_slab(&comm, &u0, STEPS)?;
    assert_same_rows(&slab, &whole);
    assert_close_residuals(&got, &want);
    common::assert_no_host_fallback("heat slabs");
});

on_every_device!(several_slabs_equal_one_array, |_dev| {
    cp::cuda::reset_host_fallbacks();
    let u0 = initial_grid(N)?;
    let (whole, want) = run_single(u0.copy()?, STEPS)?;
    for w in [2, 3, 4, 7] {
        let (slabs, got) = run_local_slabs(&u0, w, STEPS)?;
        for slab in &slabs {
            assert_same_rows(slab, &whole);
        }
        assert_close_residuals(&got, &want);
    }
    common::assert_no_host_fallback("heat slabs");
});
