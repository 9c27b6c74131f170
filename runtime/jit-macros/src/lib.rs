//! The proc macros of `cuprite::jit` (use them as `cp::jit::kernel`,
//! `cp::jit::elementwise`): a Rust function in the documented subset is
//! translated into CUDA C source text at compile time, and also kept as
//! Rust, compiled natively, for the CPU backend. The expansion names
//! `::cuprite::jit::__private`, so it needs the `cuprite` crate: as a
//! dependency named `cuprite`, or re-exported by `cuprite-cells`, the one
//! library notebook cells link (where `::cuprite` names nothing: see
//! `runtime_path`).
//!
//! Why a translator of our own rather than `cubecl`'s `#[cube]`: cubecl
//! kernels launch only through cubecl's own `ComputeClient`, which owns its
//! CUDA context, streams, memory pool and compile cache, so they could not
//! run on Cuprite's arrays and streams without copies; and its CPU runtime
//! is not the user's Rust run natively.

mod cpu;
mod expand;
mod reduction_parts;
mod translate;
mod types;

use proc_macro::TokenStream;
use proc_macro2::{Spacing, TokenTree};
/// evcxr's name for a notebook cell's crate.
const CELL_CRATE: &str = "ctx";
/// How a notebook cell names the runtime, set by the kernel for its cell
/// builds (a path such as `::cuprite_cells::cuprite`).
const CELL_RUNTIME_ENV: &str = "CUPRITE_JIT_CELL_RUNTIME";

/// How the calling crate names the runtime, when not `::cuprite`: in a
/// notebook cell, whose crate depends on `cuprite-cells` only (the kernel's
/// `use cuprite_cells::cuprite` at the cell's root is not in the extern
/// prelude, so `::cuprite` does not resolve there), the path the kernel puts
/// in `CUPRITE_JIT_CELL_RUNTIME`. Read from the environment rather than from
/// the caller's manifest: a TOML parser in this macro's dependencies built
/// the runtime twice in CI (its features unify differently under `cargo
/// test --workspace` than under `cargo build -p cuprite-kernel`).
fn runtime_path() -> Option<proc_macro2::TokenStream> {
    if std::env::var("CARGO_CRATE_NAME").ok()? != CELL_CRATE {
        return None;
    }
    let path = std::env::var(CELL_RUNTIME_ENV).ok()?;
    let path: syn::Path = syn::parse_str(&path).ok()?;
    Some(quote::quote!(#path))
}

/// `tokens` with every `::cuprite` path start replaced by `with`.
fn rename_runtime(
    tokens: proc_macro2::TokenStream,
    with: &proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        let path_start = matches!(
            (&trees[i], trees.get(i + 1), trees.get(i + 2)),
            (TokenTree::Punct(a), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(c)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint
                    && b.as_char() == ':' && c == "cuprite"
        ) && !is_path_tail(&out);
        if path_start {
            out.extend(with.clone());
            i += 3;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), rename_runtime(g.stream(), with));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// Whether the token before a `::` makes it the middle of a path (`a::cuprite`,
/// `crate::cuprite`, `<T>::cuprite`), not its start (`use ::cuprite`,
/// `: ::cuprite`). A keyword ends no path, except the path roots `crate`,
/// `self`, `super` and `Self`, which are left out of this list.
fn is_path_tail(before: &[TokenTree]) -> bool {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern",
        "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
        "ref", "return", "static", "struct", "trait", "type", "unsafe", "use", "where", "while",
        "yield",
    ];
    match before {
        [.., TokenTree::Ident(id)] => !KEYWORDS.contains(&id.to_string().as_str()),
        // `->` and `=>` end in `>` too.
        [.., TokenTree::Punct(arrow), TokenTree::Punct(p)]
            if p.as_char() == '>'
                && arrow.spacing() == Spacing::Joint
                && matches!(arrow.as_char(), '-' | '=') =>
        {
            false
        }
        [.., TokenTree::Punct(p)] => p.as_char() == '>',
        _ => false,
    }
}

/// The expansion, naming the runtime as the calling crate can.
fn finish(tokens: proc_macro2::TokenStream) -> TokenStream {
    match runtime_path() {
        Some(with) => rename_runtime(tokens, &with).into(),
        None => tokens.into(),
    }
}

fn no_arguments(attr: TokenStream, what: &str) -> Result<(), syn::Error> {
    if attr.is_empty() {
        Ok(())
    } else {
        Err(syn::Error::new(
            proc_macro2::TokenStream::from(attr)
                .into_iter()
                .next()
                .map(|t| t.span())
                .unwrap_or_else(proc_macro2::Span::call_site),
            format!("`#[cp::jit::{what}]` takes no arguments"),
        ))
    }
}

fn run(
    attr: TokenStream,
    item: TokenStream,
    what: &str,
    f: fn(syn::ItemFn) -> syn::Result<proc_macro2::TokenStream>,
) -> TokenStream {
    let result = no_arguments(attr, what)
        .and_then(|_| syn::parse::<syn::ItemFn>(item))
        .and_then(f);
    match result {
        Ok(t) => finish(t),
        Err(e) => e.to_compile_error().into(),
    }
}

/// A GPU kernel written in Rust: `saxpy.launch((blocks,), (threads,), (a, &x, &y, &mut out))?`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    run(attr, item, "kernel", expand::kernel)
}

/// A per-element function applied with broadcasting: `axpb.call((&x, 2.0f32, 1.0f32))?`.
#[proc_macro_attribute]
pub fn elementwise(attr: TokenStream, item: TokenStream) -> TokenStream {
    run(attr, item, "elementwise", expand::elementwise)
}

/// A reduction from Rust parts, on a `mod` holding `fn map`, `fn combine`,
/// an optional `fn post` and `const IDENTITY`: `sum_squares.call(&x)?`.
#[proc_macro_attribute]
pub fn reduction(attr: TokenStream, item: TokenStream) -> TokenStream {
    let result = no_arguments(attr, "reduction")
        .and_then(|_| syn::parse::<syn::ItemMod>(item))
        .and_then(reduction_parts::reduction);
    match result {
        Ok(t) => finish(t),
        Err(e) => e.to_compile_error().into(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn runtime_paths_are_renamed_where_they_start() {
        let with = quote::quote!(::cuprite_cells::cuprite);
        let expansion = quote::quote! {
            static K: ::cuprite::jit::Kernel = {
                use ::cuprite::jit::__private::NumFloat as _;
                f::<::cuprite::DType>(a::cuprite::b, [::cuprite::x])
            };
            fn g() -> ::cuprite::Result<()> { match 1 { _ => ::cuprite::y } }
            fn h() { if ::cuprite::z { match ::cuprite::w {} } crate::cuprite::v; }
        };
        let out = crate::rename_runtime(expansion, &with).to_string();
        assert!(!out.contains(": :: cuprite ::"), "{out}");
        assert!(
            out.contains("static K : :: cuprite_cells :: cuprite :: jit :: Kernel"),
            "{out}"
        );
        assert!(
            out.contains("use :: cuprite_cells :: cuprite :: jit :: __private"),
            "{out}"
        );
        assert!(
            out.contains("f :: < :: cuprite_cells :: cuprite :: DType >"),
            "{out}"
        );
        assert!(
            out.contains("a :: cuprite :: b"),
            "a path's middle stays: {out}"
        );
        assert!(out.contains("[:: cuprite_cells :: cuprite :: x]"), "{out}");
        assert!(
            out.contains("-> :: cuprite_cells :: cuprite :: Result"),
            "{out}"
        );
        assert!(out.contains("=> :: cuprite_cells :: cuprite :: y"), "{out}");
        assert!(out.contains("if :: cuprite_cells :: cuprite :: z"), "{out}");
        assert!(
            out.contains("match :: cuprite_cells :: cuprite :: w"),
            "{out}"
        );
        assert!(
            out.contains("crate :: cuprite :: v"),
            "a path's middle stays: {out}"
        );
    }

    fn kernel_src(code: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(code).unwrap();
        match crate::expand::kernel_source(&f) {
            Ok((s, _)) => s,
            Err(e) => panic!("{e}"),
        }
    }

    fn kernel_err(code: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(code).unwrap();
        match crate::expand::kernel_source(&f) {
            Ok((s, _)) => panic!("translated:\n{s}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn saxpy_translates() {
        let s = kernel_src(
            "fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
                let tid = (block_idx().x * block_dim().x + thread_idx().x) as usize;
                if tid < x.len() { out[tid] = a * x[tid] + y[tid]; }
            }",
        );
        assert!(s.contains("extern \"C\" __global__ void saxpy(float a, const float* x, unsigned long long cp_len_x, const float* y, unsigned long long cp_len_y, float* out, unsigned long long cp_len_out)"), "{s}");
        assert!(s.contains("unsigned long long tid = ((unsigned long long)((((blockIdx.x * blockDim.x) + threadIdx.x))));"), "{s}");
        assert!(s.contains("if ((tid < cp_len_x)) {"), "{s}");
        assert!(s.contains("out[tid] = ((a * x[tid]) + y[tid]);"), "{s}");
    }

    #[test]
    fn literals_take_their_neighbours_type() {
        let s = kernel_src(
            "fn k(x: &[f32], out: &mut [f32]) {
                let mut s = 0.0;
                for i in 0..x.len() { s += x[i] * 0.5; }
                let h = 1 << 3;
                out[0] = s + 1.0;
                let j: u32 = 7;
                out[1] = (j + 1) as f32;
            }",
        );
        assert!(s.contains("float s = 0.0f;"), "{s}");
        assert!(s.contains("(x[i] * 0.5f)"), "{s}");
        assert!(
            s.contains("for (unsigned long long i = 0ull, cp_end1 = cp_len_x"),
            "{s}"
        );
        assert!(s.contains("int h = (1 << 3);"), "{s}");
        assert!(s.contains("out[0ull] = (s + 1.0f);"), "{s}");
        assert!(s.contains("((float)(((j + 1u))))"), "{s}");
    }

    #[test]
    fn shared_memory_barriers_and_shuffles() {
        let s = kernel_src(
            "fn block_sum(x: &[f32], out: &mut [f32]) {
                let partial = shared_array::<f32, 32>();
                let buf = dynamic_shared::<f32>();
                let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
                let mut v = if i < x.len() { x[i] } else { 0.0 };
                let mut off = 16;
                while off > 0 { v += shfl_down_sync(0xffffffff, v, off); off /= 2; }
                if lane_id() == 0 { partial[(thread_idx().x / 32) as usize] = v; }
                sync_threads();
                buf[0] = v;
                if thread_idx().x == 0 { atomic_add(out, 0, partial[0]); }
            }",
        );
        assert!(s.contains("__shared__ float partial[32];"), "{s}");
        assert!(
            s.contains("float* buf = reinterpret_cast<float*>(cp_dynamic_smem);"),
            "{s}"
        );
        assert!(
            s.contains("float v = ((i < cp_len_x) ? x[i] : 0.0f);"),
            "{s}"
        );
        assert!(
            s.contains("v += __shfl_down_sync(4294967295u, v, off);"),
            "{s}"
        );
        assert!(s.contains("__syncthreads();"), "{s}");
        assert!(s.contains("atomicAdd(&out[0ull], partial[0ull]);"), "{s}");
        assert!(s.contains("cp_lane_id()"), "{s}");
    }

    #[test]
    fn math_methods_and_constants() {
        let s = kernel_src(
            "fn m(x: &[f64], y: &mut [f32]) {
                let a = x[0].sin().mul_add(2.0, x[1].sqrt());
                let b = (a as f32).exp().max(f32::MIN);
                y[0] = b.powf(2.0) + std::f32::consts::PI;
                let mut i = 0;
                while i < 4 { if i == 2 { break; } i += 1; }
                for k in (0..10).step_by(3) { y[k] = 0.0; }
                let x = 3; y[2] = x as f32;
            }",
        );
        assert!(
            s.contains("double a = fma(sin(x[0ull]), 2.0, sqrt(x[1ull]));"),
            "{s}"
        );
        assert!(
            s.contains("fmaxf(expf((((float)(a)))), __int_as_float("),
            "{s}"
        );
        assert!(s.contains("powf(b, 2.0f)"), "{s}");
        assert!(
            s.contains("int x_1 = 3;"),
            "shadowing gets a fresh C name: {s}"
        );
        assert!(
            s.contains("for (int k = 0, cp_end1 = 10, cp_step1 = 3; k < cp_end1; k += cp_step1)"),
            "{s}"
        );
    }

    #[test]
    fn unsupported_constructs_say_what_to_write() {
        let e = kernel_err("fn k(out: &mut [f32]) { let f = |x: f32| x; }");
        assert!(e.contains("closures cannot run on the GPU"), "{e}");
        let e = kernel_err("fn k(out: &mut [f32]) { out[0] = SCALE; }");
        assert!(e.contains("`SCALE` is not a parameter or a local"), "{e}");
        let e = kernel_err("fn k(out: &mut [f32]) { let v = vec![1.0]; }");
        assert!(e.contains("heap allocation"), "{e}");
        let e = kernel_err("fn k(out: &mut [f32]) { panic!(\"no\"); }");
        assert!(e.contains("cannot panic"), "{e}");
        let e = kernel_err("fn k(s: String) {}");
        assert!(e.contains("`String` cannot be used"), "{e}");
        let e = kernel_err("fn k(s: &dyn Fn()) {}");
        assert!(e.contains("trait objects cannot run on the GPU"), "{e}");
        let e = kernel_err("fn k(out: &mut [f32]) { out[0] = helper(1.0); }");
        assert!(e.contains("`helper` cannot be called"), "{e}");
        let e = kernel_err("fn k(x: &[f32]) { atomic_add(x, 0, 1.0); }");
        assert!(e.contains("`&mut [T]` parameter"), "{e}");
    }

    #[test]
    fn generic_device_functions() {
        let f: syn::ItemFn = syn::parse_str(
            "fn axpb<T: cp::jit::Float>(x: T, a: T, b: T) -> T { let t = a * x; t + b * T::from_f64(2.0) }",
        )
        .unwrap();
        let s = crate::expand::device_function(&f, "cp_jit_axpb", &["T".into()]).unwrap();
        assert!(
            s.contains("__device__ __forceinline__ T cp_jit_axpb(T x, T a, T b)"),
            "{s}"
        );
        assert!(s.contains("T t = (a * x);"), "{s}");
        assert!(s.contains("return (t + (b * cp_as<T>(2.0)));"), "{s}");
    }

    #[test]
    fn half_types_convert_through_cp_as() {
        let s = kernel_src(
            "fn h(a: cp::half::f16, x: &[f16], y: &mut [half::bf16]) {
                let i = thread_idx().x as usize;
                let v = x[i] * a + f16::from_f32(0.5);
                let w = v.sqrt().max(f16::ONE).to_f32();
                y[i] = bf16::from_f32(w) + bf16::MAX;
            }",
        );
        assert!(
            s.contains("void h(f16 a, const f16* x, unsigned long long cp_len_x, bf16* y"),
            "{s}"
        );
        assert!(
            s.contains("f16 v = ((x[i] * a) + cp_as<f16>(0.5f));"),
            "{s}"
        );
        assert!(
            s.contains("float w = cp_as<float>(fmax(sqrt(v), cp_f16_bits(0x3c00)));"),
            "{s}"
        );
        assert!(
            s.contains("y[i] = (cp_as<bf16>(w) + cp_bf16_bits(0x7f7f));"),
            "{s}"
        );
    }

    #[test]
    fn views_index_through_their_strides() {
        let s = kernel_src(
            "fn t(x: View2<f32>, out: View2Mut<f32>, v: cp::jit::View3<f64>) {
                let i = thread_idx().x as usize;
                for j in 0..x.cols() {
                    out[(j, i)] = x[(i, j)] + v[(0, i, j)] as f32;
                }
                out[(0, 0)] += (x.len() + x.shape()[0] + v.shape()[2]) as f32;
            }",
        );
        assert!(s.contains("void t(const float* x, unsigned long long cp_shape_x_0, unsigned long long cp_shape_x_1, long long cp_stride_x_0, long long cp_stride_x_1, float* out,"), "{s}");
        assert!(
            s.contains("for (unsigned long long j = 0ull, cp_end1 = cp_shape_x_1"),
            "{s}"
        );
        assert!(s.contains("out[(long long)(j) * cp_stride_out_0 + (long long)(i) * cp_stride_out_1] = (x[(long long)(i) * cp_stride_x_0 + (long long)(j) * cp_stride_x_1]"), "{s}");
        assert!(s.contains("(cp_shape_x_0 * cp_shape_x_1)"), "{s}");
        assert!(s.contains("cp_shape_v_2"), "{s}");
        let e = kernel_err("fn t(x: View2<f32>) { let a = x[(0, 1, 2)]; }");
        assert!(
            e.contains("a View2 takes 2 indices but 3 were given"),
            "{e}"
        );
        let e = kernel_err("fn t(x: View2<f32>) { x[(0, 1)] = 1.0; }");
        assert!(e.contains("read-only"), "{e}");
        let e = kernel_err("fn t(x: &[f32]) { let a = x[(0, 1)]; }");
        assert!(e.contains("declare the parameter as a view"), "{e}");
        let e = kernel_err("fn t(x: View2<f32>, n: usize) { let a = x.shape()[n]; }");
        assert!(e.contains("literal axis"), "{e}");
    }
}
