//! The CPU backend's strided loops: one to three inputs broadcast to a
//! shape, walked in C order one run of the last merged axis at a time.

use crate::core::element::Element;
use crate::core::layout::Layout;
use crate::core::storage::{CpuData, Storage};
use crate::core::view::View;

/// Runs `f` with the CPU buffers of `arrays`, all of element type `T`,
/// locking each distinct buffer once (views may see the same buffer).
fn with_slices<T: Element, R, const N: usize>(
    arrays: [View<'_>; N],
    f: impl FnOnce([&[T]; N]) -> R,
) -> R {
    let mut guards = Vec::with_capacity(N);
    let mut which = [0usize; N];
    for i in 0..N {
        if let Some(j) = (0..i).find(|&j| arrays[j].shares_memory(&arrays[i])) {
            which[i] = which[j];
        } else {
            which[i] = guards.len();
            guards.push(match arrays[i].storage {
                Storage::Cpu(s) => s.read(),
                Storage::Cuda(_) => {
                    unreachable!("CPU loops run on host arrays only (see `on_host`)")
                }
            });
        }
    }
    let slices: [&[T]; N] = std::array::from_fn(|i| {
        T::slice(&guards[which[i]]).expect("the buffer holds the array's dtype")
    });
    f(slices)
}

/// Walks `shape` (merged axes, non-empty) in C order, calling
/// `f(start positions, length, strides)` for each run along the last axis.
fn runs<const N: usize>(
    shape: &[usize],
    strides: &[Vec<isize>],
    start: [isize; N],
    mut f: impl FnMut([isize; N], usize, [isize; N]),
) {
    let nd = shape.len();
    if nd == 0 {
        f(start, 1, [0; N]);
        return;
    }
    let inner = shape[nd - 1];
    let inner_strides: [isize; N] = std::array::from_fn(|k| strides[k][nd - 1]);
    let outer = nd - 1;
    let mut index = vec![0usize; outer];
    let mut base = start;
    loop {
        f(base, inner, inner_strides);
        let mut ax = outer;
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            index[ax] += 1;
            for k in 0..N {
                base[k] += strides[k][ax];
            }
            if index[ax] < shape[ax] {
                break;
            }
            for k in 0..N {
                base[k] -= strides[k][ax] * shape[ax] as isize;
            }
            index[ax] = 0;
        }
    }
}

/// `f` of every element of `x` (element type `T`), in C order.
pub(crate) fn map1<T: Element, O: Element>(x: View<'_>, f: impl Fn(T) -> O) -> CpuData {
    let n = x.size();
    let mut out: Vec<O> = Vec::with_capacity(n);
    if n > 0 {
        with_slices::<T, _, 1>([x], |[d]| {
            let l = x.layout;
            let (shape, strides) = Layout::merge_axes(&[l]);
            runs(&shape, &strides, [l.offset() as isize], |[p], len, [s]| {
                if s == 1 {
                    let p = p as usize;
                    out.extend(d[p..p + len].iter().map(|&v| f(v)));
                } else {
                    out.extend((0..len as isize).map(|i| f(d[(p + i * s) as usize])));
                }
            });
        });
    }
    O::into_data(out)
}

/// `f` of `a` and `b` (element type `T`) broadcast to `shape`, in C order.
pub(crate) fn map2<T: Element, O: Element>(
    a: View<'_>,
    b: View<'_>,
    shape: &[usize],
    f: impl Fn(T, T) -> O,
) -> CpuData {
    let n: usize = shape.iter().product();
    let mut out: Vec<O> = Vec::with_capacity(n);
    if n > 0 {
        let la = a.layout.broadcast_to(shape).expect("shapes were checked");
        let lb = b.layout.broadcast_to(shape).expect("shapes were checked");
        with_slices::<T, _, 2>([a, b], |[da, db]| {
            let (mshape, mstrides) = Layout::merge_axes(&[&la, &lb]);
            let start = [la.offset() as isize, lb.offset() as isize];
            runs(&mshape, &mstrides, start, |[pa, pb], len, [sa, sb]| {
                let (ua, ub) = (pa as usize, pb as usize);
                match (sa, sb) {
                    (1, 1) => out.extend(
                        da[ua..ua + len]
                            .iter()
                            .zip(&db[ub..ub + len])
                            .map(|(&x, &y)| f(x, y)),
                    ),
                    (1, 0) => {
                        let y = db[ub];
                        out.extend(da[ua..ua + len].iter().map(|&x| f(x, y)));
                    }
                    (0, 1) => {
                        let x = da[ua];
                        out.extend(db[ub..ub + len].iter().map(|&y| f(x, y)));
                    }
                    _ => out.extend(
                        (0..len as isize)
                            .map(|i| f(da[(pa + i * sa) as usize], db[(pb + i * sb) as usize])),
                    ),
                }
            });
        });
    }
    O::into_data(out)
}

/// `f` of three views (element type `T`) broadcast to `shape`, in C order.
pub(crate) fn map3<T: Element, O: Element>(
    arrays: [View<'_>; 3],
    shape: &[usize],
    f: impl Fn(T, T, T) -> O,
) -> CpuData {
    let n: usize = shape.iter().product();
    let mut out: Vec<O> = Vec::with_capacity(n);
    if n > 0 {
        let ls: Vec<Layout> = arrays
            .iter()
            .map(|a| a.layout.broadcast_to(shape).expect("shapes were checked"))
            .collect();
        with_slices::<T, _, 3>(arrays, |[d0, d1, d2]| {
            let (mshape, mstrides) = Layout::merge_axes(&[&ls[0], &ls[1], &ls[2]]);
            let start: [isize; 3] = std::array::from_fn(|k| ls[k].offset() as isize);
            runs(
                &mshape,
                &mstrides,
                start,
                |[p0, p1, p2], len, [s0, s1, s2]| {
                    if (s0, s1, s2) == (1, 0, 0) {
                        let (u0, lo, hi) = (p0 as usize, d1[p1 as usize], d2[p2 as usize]);
                        out.extend(d0[u0..u0 + len].iter().map(|&x| f(x, lo, hi)));
                    } else {
                        out.extend((0..len as isize).map(|i| {
                            f(
                                d0[(p0 + i * s0) as usize],
                                d1[(p1 + i * s1) as usize],
                                d2[(p2 + i * s2) as usize],
                            )
                        }));
                    }
                },
            );
        });
    }
    O::into_data(out)
}
