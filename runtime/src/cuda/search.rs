//! `searchsorted` and `unique` on the GPU.
//!
//! `searchsorted`: a thread per needle walks a binary search of the sorted
//! vector in NumPy's order (NaNs last; complex by NaN class, then real
//! part, then imaginary part, as the radix sort orders them).
//!
//! `unique`: the radix sort (keys alone, or the stable argsort when first
//! positions or the inverse are asked for, reading the input through the
//! permutation), a flag where each run of equal values starts, the running
//! count of the flags (`cuda::scan`), one read-back of the count to size
//! the results, and a scatter of each run's first value, position and end
//! (and every element's run number for the inverse). Counts are the
//! differences of the ends.

use super::sort::contiguous;
use super::CudaBackend;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::{CudaStorage, Storage};
use crate::core::view::{OwnedView, View};
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, ptr, read_one, session_of};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::transfer::alloc;
use crate::ops::c_types::ctype;
use crate::ops::sort::{SearchSorted, Sort, UniqueParts, UniqueWant};

const THREADS: usize = 256;
/// The kernels of searchsorted and unique (`cuda/kernel_gen/template.rs`).
const TEMPLATE: &str = include_str!("kernels/search.cu");

fn cfg(s: &DeviceSession, n: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, n, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Which kernels a source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Part {
    Search,
    Unique { equal_nan: bool },
}

/// `x` as the C type its order is decided in: half floats as float.
fn order_value(dt: DType, x: &str) -> String {
    match dt {
        DType::Float16 | DType::BFloat16 => format!("to_float({x})"),
        _ => x.to_string(),
    }
}

/// The body of `before(a, b)`: `a` sorts strictly before `b` in NumPy's
/// order. Complex values order by NaN class (`2 * isnan(re) + isnan(im)`),
/// then by the parts that are not NaN, real first, as the sort does.
fn before_body(dt: DType) -> String {
    if dt.is_complex() {
        return "const int ca = (a.re != a.re ? 2 : 0) | (a.im != a.im ? 1 : 0); \
                const int cb = (b.re != b.re ? 2 : 0) | (b.im != b.im ? 1 : 0); \
                if (ca != cb) return ca < cb; \
                if (!(ca & 2) && a.re != b.re) return a.re < b.re; \
                return !(ca & 1) && a.im < b.im;"
            .into();
    }
    if dt.is_float() {
        let (a, b) = (order_value(dt, "a"), order_value(dt, "b"));
        return format!(
            "const auto x = {a}; const auto y = {b}; return x < y || (y != y && x == x);"
        );
    }
    "return a < b;".into()
}

/// The body of `same(a, b)`: neighbours of the sorted order are one value
/// (equal; or, with `equal_nan`, both NaN, complex: a NaN in either part).
fn same_body(dt: DType, equal_nan: bool) -> String {
    if dt.is_complex() {
        let nan = if equal_nan {
            "const bool an = a.re != a.re || a.im != a.im, bn = b.re != b.re || b.im != b.im; if (an || bn) return an && bn; "
        } else {
            ""
        };
        return format!("{nan}return a.re == b.re && a.im == b.im;");
    }
    if dt.is_float() {
        let (a, b) = (order_value(dt, "a"), order_value(dt, "b"));
        let nan = if equal_nan {
            " || (x != x && y != y)"
        } else {
            ""
        };
        return format!("const auto x = {a}; const auto y = {b}; return x == y{nan};");
    }
    "return a == b;".into()
}

fn source(dt: DType, part: Part) -> String {
    let (flag, same) = match part {
        Part::Search => ("SEARCH", String::new()),
        Part::Unique { equal_nan } => ("UNIQUE", same_body(dt, equal_nan)),
    };
    let kernels = render(
        TEMPLATE,
        &[
            ("T", ctype(dt)),
            ("BEFORE", &before_body(dt)),
            ("SAME", &same),
        ],
        &[flag],
    );
    format!("{PRELUDE}{kernels}")
}

/// The device address of a buffer the backend made.
fn dptr(s: &Storage) -> u64 {
    match s {
        Storage::Cuda(c) => c.buffer.ptr,
        Storage::Cpu(_) => unreachable!("the CUDA backend makes device buffers"),
    }
}

/// Where each element of `v` goes in the sorted 1-D `a` (see
/// `ops::sort::Sort::searchsorted`).
pub(crate) fn searchsorted(
    op: &'static str,
    b: &CudaBackend,
    search: SearchSorted<'_>,
) -> Result<()> {
    let SearchSorted { a, v, right, out } = search;
    let total = v.size();
    if total == 0 {
        return Ok(());
    }
    let s = session_of(op, v)?;
    let copied = contiguous(op, b, v)?;
    let v = copied.as_ref().map_or(v, OwnedView::view);
    let dt = v.dtype();
    let n = a.size();
    let step = if n > 1 { a.strides()[0] } else { 1 };
    let f = kernel(
        s,
        key(("searchsorted", dt)),
        op,
        "cuprite_searchsorted",
        || source(dt, Part::Search),
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, a)?);
    args.push(n as i64);
    args.push(step as i64);
    args.push(ptr(op, v)?);
    args.push(ptr(op, out)?);
    args.push(total as i64);
    args.push(i32::from(right));
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)
}

/// The sorted distinct values of the 1-D `x` (see `ops::sort::Sort::unique`).
pub(crate) fn unique(
    op: &'static str,
    b: &CudaBackend,
    x: View<'_>,
    want: UniqueWant,
) -> Result<UniqueParts> {
    let (dt, n, ord) = (x.dtype(), x.size(), b.ordinal);
    let s = session_of(op, x)?;
    let buffer = |dt: DType, len: usize| -> Result<CudaStorage> { alloc(op, ord, dt, len) };
    let optional = |wanted: bool, len: usize| -> Result<Option<CudaStorage>> {
        wanted.then(|| buffer(DType::Int64, len)).transpose()
    };
    if n == 0 {
        let none = |w: bool| optional(w, 0).map(|o| o.map(Storage::Cuda));
        return Ok(UniqueParts {
            values: Storage::Cuda(buffer(dt, 0)?),
            count: 0,
            index: none(want.index)?,
            inverse: none(want.inverse)?,
            counts: none(want.counts)?,
        });
    }
    // The sorted values, or the input (contiguous) and the stable
    // permutation that sorts it, read through by the kernels.
    let by_perm = want.index || want.inverse;
    let (sorted, perm, copied);
    let (x_at, perm_at) = if by_perm {
        perm = b.sort(op, x, 0, true)?;
        copied = contiguous(op, b, x)?;
        let xc = copied.as_ref().map_or(x, OwnedView::view);
        (ptr(op, xc)?, dptr(&perm))
    } else {
        sorted = b.sort(op, x, 0, false)?;
        (dptr(&sorted), 0)
    };
    let part = Part::Unique {
        equal_nan: want.equal_nan,
    };
    // The kernel cache holds one function per key: a key per kernel.
    let fkey = |which: &str| key(("unique", which, dt, part));
    let src = || source(dt, part);
    let flags = OwnedView::contiguous(Storage::Cuda(buffer(DType::Bool, n)?), &[n], DType::Bool);
    let f = kernel(s, fkey("flags"), op, "cuprite_unique_flags", src)?;
    let mut args = KernelArgs::new();
    args.push(x_at);
    args.push(perm_at);
    args.push(dptr(&flags.storage));
    args.push(n as i64);
    launch(s, op, f, cfg(s, n), &current_stream(), &mut args)?;
    let runs = OwnedView::contiguous(Storage::Cuda(buffer(DType::Int64, n)?), &[n], DType::Int64);
    super::scan::scan(flags.view(), false, None, runs.view())?;
    drop(flags);
    let count = read_one::<i64>(runs.view(), n - 1)? as usize;

    let values = buffer(dt, count)?;
    let index = optional(want.index, count)?;
    let inverse = optional(want.inverse, n)?;
    let ends = optional(want.counts, count)?;
    let at = |o: &Option<CudaStorage>| o.as_ref().map_or(0, |c| c.buffer.ptr);
    let f = kernel(s, fkey("scatter"), op, "cuprite_unique_scatter", src)?;
    let mut args = KernelArgs::new();
    args.push(x_at);
    args.push(perm_at);
    args.push(dptr(&runs.storage));
    args.push(values.buffer.ptr);
    args.push(at(&index));
    args.push(at(&inverse));
    args.push(at(&ends));
    args.push(n as i64);
    launch(s, op, f, cfg(s, n), &current_stream(), &mut args)?;
    let counts = match ends {
        Some(ends) => {
            let counts = buffer(DType::Int64, count)?;
            let f = kernel(s, fkey("counts"), op, "cuprite_unique_counts", src)?;
            let mut args = KernelArgs::new();
            args.push(ends.buffer.ptr);
            args.push(counts.buffer.ptr);
            args.push(count as i64);
            launch(s, op, f, cfg(s, count), &current_stream(), &mut args)?;
            Some(counts)
        }
        None => None,
    };
    Ok(UniqueParts {
        values: Storage::Cuda(values),
        count,
        index: index.map(Storage::Cuda),
        inverse: inverse.map(Storage::Cuda),
        counts: counts.map(Storage::Cuda),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernel_gen::helpers::dump_source;

    #[test]
    fn orders_put_nans_last() {
        assert_eq!(
            before_body(DType::Float32),
            "const auto x = a; const auto y = b; return x < y || (y != y && x == x);"
        );
        assert!(before_body(DType::BFloat16).contains("const auto x = to_float(a);"));
        assert_eq!(before_body(DType::UInt16), "return a < b;");
        assert!(before_body(DType::Complex64).contains("if (ca != cb) return ca < cb;"));
        assert!(same_body(DType::Float64, true).ends_with("return x == y || (x != x && y != y);"));
        assert!(same_body(DType::Float64, false).ends_with("return x == y;"));
        assert!(same_body(DType::Complex128, true).contains("if (an || bn) return an && bn;"));
        assert_eq!(same_body(DType::Int8, true), "return a == b;");
    }

    #[test]
    fn every_dtype_generates_both_sources() {
        for dt in DType::ALL {
            for part in [
                Part::Search,
                Part::Unique { equal_nan: true },
                Part::Unique { equal_nan: false },
            ] {
                let src = source(dt, part);
                assert_eq!(
                    crate::cuda::kernel_gen::template::unfilled(&src),
                    None,
                    "{src}"
                );
                let has = |k: &str| src.contains(k);
                match part {
                    Part::Search => {
                        assert!(has("cuprite_searchsorted") && !has("cuprite_unique_flags"))
                    }
                    Part::Unique { .. } => {
                        assert!(!has("cuprite_searchsorted") && has("cuprite_unique_scatter"))
                    }
                }
                let label =
                    format!("search_{}_{part:?}", dt.name()).replace([' ', '{', '}', ':'], "");
                dump_source(&label, &src);
            }
        }
    }
}
