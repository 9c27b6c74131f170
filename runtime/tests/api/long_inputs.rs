//! Arg-reductions, variances, scans, sorts and gathers of inputs large
//! enough to take every path of the GPU kernels: rows split over several
//! blocks, scans of many tiles and chunks (three phases, nested), radix
//! sorts with several lanes and an odd number of passes, `put` with more
//! indices than the pairwise check takes, bounds errors found among
//! hundreds of thousands of indices.
//!
//! Expected values are computed independently in the test: closed forms
//! (noted where used) or plain sequential Rust loops over the same inputs
//! (the reference for stable sorts is `slice::sort_by`, which is stable).

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::half::{bf16, f16};
use cuprite::num_complex::Complex64;
use cuprite::prelude::*;
use cuprite::{Error, IndexMode, PutMode};
use std::cmp::Ordering;

/// `count` pseudo-random values in `0..modulus` (a 64-bit LCG).
fn lcg(count: usize, modulus: u64, seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..count)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % modulus
        })
        .collect()
}

/// Index of the first extreme (`max`) in the CPU backend's sense: the first
/// NaN if there is one, else the first occurrence of the largest (smallest) value.
fn first_extreme(v: &[f64], max: bool) -> i64 {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i as i64;
    }
    let mut at = 0;
    for (i, &x) in v.iter().enumerate() {
        if (max && x > v[at]) || (!max && x < v[at]) {
            at = i;
        }
    }
    at as i64
}

/// NumPy's sort order for floats: NaNs last and equal to each other.
fn nan_last(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Stable argsort of each lane of a C-ordered (rows, n) matrix along its
/// last axis, by `cmp`.
fn argsort_rows<T: Copy>(v: &[T], n: usize, cmp: impl Fn(T, T) -> Ordering) -> Vec<i64> {
    let mut out = Vec::with_capacity(v.len());
    for row in v.chunks(n) {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| cmp(row[a], row[b]));
        out.extend(idx.iter().map(|&i| i as i64));
    }
    out
}

/// The transpose of a C-ordered (r, c) matrix.
fn transpose<T: Copy>(v: &[T], r: usize, c: usize) -> Vec<T> {
    (0..c * r).map(|k| v[(k % r) * c + k / r]).collect()
}

// ---------------------------------------------------------------------------
// argmax / argmin
// ---------------------------------------------------------------------------

on_every_device!(argmax_argmin_of_long_rows_and_columns, |_dev| {
    // A long 1-D array (one row split over many blocks): values i % 1000
    // with planted extremes; of equal extremes the first wins.
    let n = 1_000_003usize;
    let mut v: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    v[654_321] = 5000.0;
    v[900_001] = 5000.0;
    v[12_345] = -7.0;
    v[999_999] = -7.0;
    let x = cp::asarray(v.clone())?;
    assert_exact(&x.argmax()?, &[], &[654_321i64]);
    assert_exact(&x.argmin()?, &[], &[12_345i64]);
    assert_exact(&cp::argmax(&x, None, true)?, &[1], &[654_321i64]);
    // Reversed: x[::-1].argmax() is the later 5000 seen first.
    let r = x.slice(s![..;-1])?;
    assert_exact(&r.argmax()?, &[], &[(n - 1 - 900_001) as i64]);
    assert_exact(&r.argmin()?, &[], &[(n - 1 - 999_999) as i64]);
    // The first NaN wins both, wherever the extremes are.
    v[800_000] = f32::NAN;
    v[700_000] = f32::NAN;
    let y = cp::asarray(v.clone())?;
    assert_exact(&y.argmax()?, &[], &[700_000i64]);
    assert_exact(&y.argmin()?, &[], &[700_000i64]);
    // float16 (integers up to 2048 are exact), int16 and bool.
    let h: Vec<f16> = (0..300_000)
        .map(|i| f16::from_f32(((i * 7) % 2000) as f32))
        .collect();
    let hv: Vec<f64> = h.iter().map(|x| x.to_f64()).collect();
    let hx = cp::asarray(h)?;
    assert_exact(&hx.argmax()?, &[], &[first_extreme(&hv, true)]);
    assert_exact(&hx.argmin()?, &[], &[first_extreme(&hv, false)]);
    let iv: Vec<i16> = (0..400_000)
        .map(|i| ((i * 13) % 30011) as i16 - 15000)
        .collect();
    let ivf: Vec<f64> = iv.iter().map(|&x| x as f64).collect();
    let ix = cp::asarray(iv)?;
    assert_exact(&ix.argmax()?, &[], &[first_extreme(&ivf, true)]);
    assert_exact(&ix.argmin()?, &[], &[first_extreme(&ivf, false)]);
    let mut b = vec![false; 600_000];
    b[333_333] = true;
    b[500_000] = true;
    let bx = cp::asarray(b)?;
    assert_exact(&bx.argmax()?, &[], &[333_333i64]);
    assert_exact(&bx.argmin()?, &[], &[0i64]);

    // A (4000, 300) matrix with many ties: along axis 0 a thread per column
    // (rows split over blocks), along axis 1 a block per row.
    let (rr, cc) = (4000usize, 300usize);
    let m: Vec<f64> = (0..rr * cc)
        .map(|k| ((k / cc * 31 + k % cc * 17) % 997) as f64)
        .collect();
    let mx = cp::asarray(m.clone())?.reshape([rr as isize, cc as isize])?;
    let col = |j: usize| -> Vec<f64> { (0..rr).map(|i| m[i * cc + j]).collect() };
    let want0: Vec<i64> = (0..cc).map(|j| first_extreme(&col(j), true)).collect();
    let want0min: Vec<i64> = (0..cc).map(|j| first_extreme(&col(j), false)).collect();
    let want1: Vec<i64> = m.chunks(cc).map(|r| first_extreme(r, true)).collect();
    assert_exact(&mx.argmax_axis(0, false)?, &[cc], &want0);
    assert_exact(&mx.argmin_axis(0, true)?, &[1, cc], &want0min);
    assert_exact(&mx.argmax_axis(1, false)?, &[rr], &want1);
    // The transpose reduces the same lanes through strided rows.
    assert_exact(&mx.t().argmax_axis(1, false)?, &[cc], &want0);
    assert_exact(&mx.t().argmax_axis(0, false)?, &[rr], &want1);
    // Few long rows: each row split over several blocks.
    let (r2, c2) = (300usize, 40_000usize);
    let w: Vec<f64> = (0..r2 * c2)
        .map(|k| ((k * 7 + k / c2 * 13) % 1009) as f64)
        .collect();
    let wx = cp::asarray(w.clone())?.reshape([r2 as isize, c2 as isize])?;
    let want: Vec<i64> = w.chunks(c2).map(|r| first_extreme(r, false)).collect();
    assert_exact(&wx.argmin_axis(-1, false)?, &[r2], &want);
});

// ---------------------------------------------------------------------------
// var / std
// ---------------------------------------------------------------------------

on_every_device!(var_and_std_of_long_inputs, |_dev| {
    // Closed forms: var(arange(N)) = (N^2 - 1) / 12; with ddof=1, N (N + 1) / 12.
    let n = 1_000_000f64;
    let x = cp::arange(1_000_000)?;
    assert_close(&x.var(0)?, &[], cp::f64, &[(n * n - 1.0) / 12.0], 1e-12);
    assert_close(
        &x.std(1)?,
        &[],
        cp::f64,
        &[(n * (n + 1.0) / 12.0).sqrt()],
        1e-12,
    );
    // float32 accumulates in float32: var(arange(1e5)) = (1e10 - 1) / 12.
    let f = cp::arange(100_000)?.astype(cp::f32)?;
    assert_close(&f.var(0)?, &[], cp::f32, &[(1e10 - 1.0) / 12.0], 1e-5);
    // Columns of arange(N).reshape(N / 4, 4) are 4 i + j: var = 16 ((N/4)^2 - 1) / 12.
    let q = 250_000f64;
    let g = x.reshape([250_000, 4])?;
    assert_close(
        &g.var_axis(0, 0)?,
        &[4],
        cp::f64,
        &[16.0 * (q * q - 1.0) / 12.0; 4],
        1e-12,
    );
    // Rows of the same: var([4i, 4i+1, 4i+2, 4i+3]) = 1.25 for every row.
    let rows = g.var_axes([1], 0, true)?;
    assert_eq!(rows.shape(), &[250_000, 1]);
    assert!(values_f64(&rows).iter().all(|&v| (v - 1.25).abs() < 1e-9));
    // Complex: z = k + 2k i over k < 10^5 has var = (1 + 4) (10^10 - 1) / 12 (real, float64).
    let z: Vec<Complex64> = (0..100_000)
        .map(|k| Complex64::new(k as f64, 2.0 * k as f64))
        .collect();
    let zx = cp::asarray(z)?;
    assert_close(
        &zx.var(0)?,
        &[],
        cp::f64,
        &[5.0 * (1e10 - 1.0) / 12.0],
        1e-12,
    );
    // float16 accumulates in float32 and rounds the result: var(arange(200)) = 3333.25.
    let h = cp::arange(200)?.astype(cp::f16)?;
    assert_close(&h.var(0)?, &[], cp::f16, &[3333.25], 1e-3);
    assert_close(&h.std(0)?, &[], cp::f16, &[3333.25f64.sqrt()], 1e-3);
});

// ---------------------------------------------------------------------------
// cumsum / cumprod
// ---------------------------------------------------------------------------

on_every_device!(scans_of_many_tiles_and_chunks, |_dev| {
    // cumsum(ones(N, int32)) = 1..=N (int64).
    let n = 1_000_000usize;
    let ones = cp::ones([n], cp::i32)?;
    let want: Vec<i64> = (1..=n as i64).collect();
    assert_exact(&ones.cumsum(None)?, &[n], &want);
    // cumsum(arange(M, float64))[k] = k (k + 1) / 2, exact in float64.
    let m = 300_000usize;
    let a = cp::arange(m as i64)?.astype(cp::f64)?;
    let want: Vec<f64> = (0..m).map(|k| (k * (k + 1) / 2) as f64).collect();
    assert_exact(&a.cumsum(Some(0))?, &[m], &want);
    // cumprod of +-1 (int64): the sign flips at every k with k % 7 == 3.
    let p: Vec<i64> = (0..100_000)
        .map(|k| if k % 7 == 3 { -1 } else { 1 })
        .collect();
    let mut s = 1i64;
    let want: Vec<i64> = p
        .iter()
        .map(|&v| {
            s *= v;
            s
        })
        .collect();
    assert_exact(&cp::asarray(p)?.cumprod(None)?, &[100_000], &want);
    // Along axis 0 of (5000, 40): few lanes, each cut into chunks.
    let c = cp::ones([5000, 40], cp::i16)?;
    let want: Vec<i64> = (0..5000 * 40).map(|k| (k / 40 + 1) as i64).collect();
    assert_exact(&c.cumsum(Some(0))?, &[5000, 40], &want);
    // Along axis 1 of (50, 20000): several tiles per row.
    let vals: Vec<i32> = (0..50 * 20_000).map(|k: i32| k % 101 - 50).collect();
    let mut want = Vec::with_capacity(vals.len());
    for row in vals.chunks(20_000) {
        let mut acc = 0i64;
        for &v in row {
            acc += v as i64;
            want.push(acc);
        }
    }
    let r = cp::asarray(vals.clone())?.reshape([50, 20_000])?;
    assert_exact(&r.cumsum(Some(1))?, &[50, 20_000], &want);
    // cumprod along axis 1 of the same, in uint64 (wraps).
    let u = r.astype(cp::u32)?;
    let mut want = Vec::with_capacity(vals.len());
    for row in vals.chunks(20_000) {
        let mut acc = 1u64;
        for &v in row {
            acc = acc.wrapping_mul(v as u32 as u64);
            want.push(acc);
        }
    }
    assert_exact(&u.cumprod(Some(-1))?, &[50, 20_000], &want);
    // Flattened cumsum of a transposed (400, 500) matrix walks it in C order.
    let t: Vec<i64> = (0..400 * 500).map(|k| (k % 13) as i64).collect();
    let tt = transpose(&t, 400, 500);
    let mut acc = 0i64;
    let want: Vec<i64> = tt
        .iter()
        .map(|&v| {
            acc += v;
            acc
        })
        .collect();
    let tx = cp::asarray(t)?.reshape([400, 500])?.t();
    assert_exact(&tx.cumsum(None)?, &[200_000], &want);
    // float16 keeps a float32 running value and rounds each output.
    let h = cp::ones([3000], cp::f16)?;
    let want: Vec<f16> = (1..=3000).map(|k| f16::from_f32(k as f32)).collect();
    assert_exact(&h.cumsum(None)?, &[3000], &want);
    // uint8 widens to uint64: cumsum(full(70000, 255, uint8))[k] = 255 (k + 1).
    let b = cp::full([70_000], 255, cp::u8)?;
    let want: Vec<u64> = (1..=70_000u64).map(|k| 255 * k).collect();
    assert_exact(&b.cumsum(None)?, &[70_000], &want);
});

// ---------------------------------------------------------------------------
// sort / argsort
// ---------------------------------------------------------------------------

on_every_device!(radix_sorts_of_long_inputs, |_dev| {
    // A permutation of -n/2..n/2 (7919 is prime and does not divide n), with
    // NaNs and signed zeros planted: NaNs go last and zeros keep their order.
    let n = (1usize << 20) + 7;
    assert_ne!(n % 7919, 0);
    let mut v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % n) as f32 - (n / 2) as f32)
        .collect();
    for at in [10, 500_000, 1_000_000] {
        v[at] = f32::NAN;
    }
    v[20] = -0.0;
    v[30] = 0.0;
    v[40] = -0.0;
    let x = cp::asarray(v.clone())?;
    let order = argsort_rows(&v, n, |a, b| nan_last(a as f64, b as f64));
    assert_exact(&x.argsort_axis(0)?, &[n], &order);
    let sorted = x.sort_axis(0)?.to_vec::<f32>()?;
    for (k, &i) in order.iter().enumerate() {
        let (g, w) = (sorted[k], v[i as usize]);
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "sorted[{k}] = {g}, expected {w}"
        );
    }
    // int64 (8 passes) and uint8 (one pass: the result is the other buffer).
    let iv: Vec<i64> = (0..200_000)
        .map(|i| ((i * 7919) % 200_003) as i64 * 1_000_000_007 - (1i64 << 50))
        .collect();
    let mut want = iv.clone();
    want.sort();
    assert_exact(&cp::asarray(iv)?.sort_axis(-1)?, &[200_000], &want);
    let u: Vec<u8> = (0..300_000).map(|i| ((i * 37) % 251) as u8).collect();
    let order = argsort_rows(&u, u.len(), |a, b| a.cmp(&b));
    let ux = cp::asarray(u.clone())?;
    assert_exact(&ux.argsort_axis(0)?, &[300_000], &order);
    let mut want = u.clone();
    want.sort();
    assert_exact(&ux.sort_axis(0)?, &[300_000], &want);
    // bool argsort is stable: falses in order, then trues in order.
    let bv: Vec<bool> = (0..100_000).map(|i| i % 3 == 1).collect();
    let order = argsort_rows(&bv, bv.len(), |a, b| a.cmp(&b));
    assert_exact(&cp::asarray(bv)?.argsort_axis(0)?, &[100_000], &order);

    // Many lanes (the lane number takes two more passes): a (600, 700)
    // float64 matrix with ties, along each axis.
    let (r, c) = (600usize, 700usize);
    let mv: Vec<f64> = (0..r * c)
        .map(|k| ((k * 31) % 211) as f64 - 100.5)
        .collect();
    let mx = cp::asarray(mv.clone())?.reshape([r as isize, c as isize])?;
    let want1 = argsort_rows(&mv, c, nan_last);
    assert_exact(&mx.argsort_axis(1)?, &[r, c], &want1);
    let sorted1: Vec<f64> = want1
        .iter()
        .enumerate()
        .map(|(k, &i)| mv[k / c * c + i as usize])
        .collect();
    assert_exact(&mx.sort_axis(1)?, &[r, c], &sorted1);
    let mt = transpose(&mv, r, c);
    let want0 = transpose(&argsort_rows(&mt, r, nan_last), c, r);
    assert_exact(&mx.argsort_axis(0)?, &[r, c], &want0);
    let sorted0: Vec<f64> = want0
        .iter()
        .enumerate()
        .map(|(k, &i)| mv[i as usize * c + k % c])
        .collect();
    assert_exact(&mx.sort_axis(0)?, &[r, c], &sorted0);
    // float16 lanes along the last axis of a transposed view, and bfloat16 with NaNs.
    let hv: Vec<f16> = (0..300 * 50)
        .map(|k| f16::from_f32(((k * 17) % 89) as f32 * 0.5 - 20.0))
        .collect();
    let hx = cp::asarray(hv.clone())?.reshape([300, 50])?.t(); // (50, 300)
    let ht = transpose(&hv, 300, 50);
    let want = argsort_rows(&ht, 300, |a, b| nan_last(a.to_f64(), b.to_f64()));
    assert_exact(&hx.argsort_axis(1)?, &[50, 300], &want);
    let bfv: Vec<bf16> = (0..100_000)
        .map(|k| {
            if k % 997 == 5 {
                bf16::NAN
            } else {
                bf16::from_f32(((k * 13) % 301) as f32 - 150.0)
            }
        })
        .collect();
    let want = argsort_rows(&bfv, bfv.len(), |a, b| nan_last(a.to_f64(), b.to_f64()));
    assert_exact(&cp::asarray(bfv)?.argsort_axis(0)?, &[100_000], &want);
});

// ---------------------------------------------------------------------------
// take, masks, put, nonzero, where_
// ---------------------------------------------------------------------------

on_every_device!(gathers_and_scatters_of_long_inputs, |_dev| {
    let n = 1_000_000usize;
    let a = cp::arange(n as i64)?.astype(cp::f32)?;
    // take with 200000 indices in -n..n (negatives count from the end).
    let idx: Vec<i64> = lcg(200_000, 2 * n as u64, 1)
        .into_iter()
        .map(|u| u as i64 - n as i64)
        .collect();
    let want: Vec<f32> = idx
        .iter()
        .map(|&i| ((i + n as i64) % n as i64) as f32)
        .collect();
    assert_exact(&a.take(idx.clone(), None)?, &[200_000], &want);
    // Along axis 1 of a (1000, 1000) matrix, wrapping indices up to 3000.
    let g = a.reshape([1000, 1000])?;
    let widx: Vec<i32> = lcg(5000, 6000, 2)
        .into_iter()
        .map(|u| u as i32 - 3000)
        .collect();
    let want: Vec<f32> = (0..1000 * 5000)
        .map(|q| {
            let (row, k) = (q / 5000, q % 5000);
            (row * 1000 + (widx[k] as i64).rem_euclid(1000) as usize) as f32
        })
        .collect();
    assert_exact(
        &g.take_mode(widx, Some(1), IndexMode::Wrap)?,
        &[1000, 5000],
        &want,
    );
    // Out of range among 300000 indices: the first in C order is reported.
    let mut bad: Vec<i64> = lcg(300_000, n as u64, 3)
        .into_iter()
        .map(|u| u as i64)
        .collect();
    bad[250_000] = n as i64 + 5;
    bad[290_000] = -(n as i64) - 1;
    match a.take(bad, None) {
        Err(Error::IndexOutOfBounds {
            index, axis, size, ..
        }) => assert_eq!((index, axis, size), (n as i64 + 5, 0, n)),
        other => panic!("expected IndexOutOfBounds, got {other:?}"),
    }
    // Boolean mask over every element, and over the leading axis.
    let keep: Vec<bool> = (0..n).map(|i| i % 3 == 0 || i % 7 == 1).collect();
    let want: Vec<f32> = (0..n).filter(|&i| keep[i]).map(|i| i as f32).collect();
    let mx = cp::asarray(keep.clone())?;
    assert_exact(&a.mask(&mx)?, &[want.len()], &want);
    let rows: Vec<bool> = (0..1000).map(|i| i % 4 != 2).collect();
    let want: Vec<f32> = (0..n)
        .filter(|&k| rows[k / 1000])
        .map(|k| k as f32)
        .collect();
    assert_exact(&g.mask(rows.clone())?, &[750, 1000], &want);
    // mask_assign: a scalar, then one value per selected element.
    let mut b = a.copy()?;
    b.mask_assign(&mx, -1.0)?;
    let want: Vec<f32> = (0..n)
        .map(|i| if keep[i] { -1.0 } else { i as f32 })
        .collect();
    assert_exact(&b, &[n], &want);
    let count = keep.iter().filter(|&&k| k).count();
    let vals = cp::arange(count as i64)?;
    let mut b = a.copy()?;
    b.mask_assign(&mx, &vals)?;
    let mut next = 0;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            if keep[i] {
                next += 1;
                (next - 1) as f32
            } else {
                i as f32
            }
        })
        .collect();
    assert_exact(&b, &[n], &want);
    // put with repeated targets: the last index naming a target wins, for
    // 20000 indices (stably sorted by target) and for 3000 (pairwise).
    for k in [20_000usize, 3000] {
        let size = 50_000usize;
        let pidx: Vec<i64> = lcg(k, size as u64, 4)
            .into_iter()
            .map(|u| u as i64)
            .collect();
        let pv: Vec<f64> = (0..k).map(|i| i as f64 + 0.5).collect();
        let mut want = vec![0.0f64; size];
        for (&i, &v) in pidx.iter().zip(&pv) {
            want[i as usize] = v;
        }
        let mut z = cp::zeros([size], cp::f64)?;
        z.put(pidx, cp::asarray(pv)?, PutMode::Raise)?;
        assert_exact(&z, &[size], &want);
    }
    // nonzero of a (1000, 1000) pattern.
    let nzv: Vec<i32> = (0..n).map(|k| ((k % 11 == 0) as i32) * 3).collect();
    let nz = cp::asarray(nzv.clone())?.reshape([1000, 1000])?.nonzero()?;
    let hits: Vec<usize> = (0..n).filter(|&k| nzv[k] != 0).collect();
    let rows_w: Vec<i64> = hits.iter().map(|&k| (k / 1000) as i64).collect();
    let cols_w: Vec<i64> = hits.iter().map(|&k| (k % 1000) as i64).collect();
    assert_exact(&nz[0], &[hits.len()], &rows_w);
    assert_exact(&nz[1], &[hits.len()], &cols_w);
    // where_ over the same length.
    let w = cp::where_(&mx, &a, -2.0)?;
    let want: Vec<f32> = (0..n)
        .map(|i| if keep[i] { i as f32 } else { -2.0 })
        .collect();
    assert_exact(&w, &[n], &want);
});
