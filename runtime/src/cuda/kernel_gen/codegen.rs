//! The elementwise kernel generator, CuPy-style: typedefs for type
//! placeholders, the operation in a `__device__` function (the user's code
//! behind `#line` directives, so NVRTC reports the user's own line
//! numbers), per-argument index math, and a grid-stride loop with plain
//! `x[i]` indexing when every operand is contiguous. User
//! `ElementwiseKernel`s, the built-in ufuncs, `fuse` and the reduction
//! generator's shared pieces are built from here.
//!
//! Everything here is pure string building, tested on the CPU.

use std::fmt::Write;

use crate::core::dtype::DType;
use crate::ops::c_types::{cast_expr, ctype};

/// The kernel prelude (half, bfloat16 and complex types, stdint typedefs).
pub(crate) use crate::cuda::runtime::compile::PRELUDE;

/// How one parameter reaches the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Pass {
    /// One element per index.
    Each,
    /// A broadcast array whose every stride is 0: read once.
    Once,
    /// A scalar passed by value.
    Value,
    /// A whole array (`raw`), indexed by the user's code.
    Raw { ndim: usize, contiguous: bool },
}

/// One parameter as the generated code sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct GenParam {
    /// The user's name.
    pub name: String,
    pub pass: Pass,
    /// The dtype in memory (arrays) or passed (scalars).
    pub actual: DType,
    /// The declared (resolved) dtype the user's code sees.
    pub ty: DType,
    /// An output parameter (a reference the code assigns).
    pub out: bool,
}

/// Source text that tracks its own line count for `#line` directives.
pub(crate) struct Src {
    text: String,
    file: String,
}

impl Src {
    pub fn new(file: &str) -> Src {
        Src {
            text: String::new(),
            file: file.to_string(),
        }
    }

    /// Appends generated text.
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
    }

    /// Appends the user's `code`, numbered from line 1 of `label` in
    /// compiler messages, then returns to the generated file's numbering.
    pub fn user(&mut self, label: &str, code: &str) {
        if !self.text.ends_with('\n') && !self.text.is_empty() {
            self.text.push('\n');
        }
        let _ = writeln!(self.text, "#line 1 \"{label}\"");
        self.text.push_str(code);
        self.text.push('\n');
        let next = self.text.matches('\n').count() + 2;
        let _ = writeln!(self.text, "#line {next} \"{}\"", self.file);
    }

    pub fn finish(self) -> String {
        self.text
    }
}

/// `CArray<T, ND, C>`: a `raw` array argument; `x[i]` takes a C-order flat
/// index (plain `data[i]` when the array is C-contiguous), `x.size()`,
/// `x.shape()[k]`, `x.strides()[k]` (in elements).
pub(crate) const CARRAY: &str = r#"
template <class T, int ND, bool C> struct CArray {
  T* data_;
  long long size_;
  long long shape_[ND];
  long long strides_[ND];
  __device__ __forceinline__ long long size() const { return size_; }
  __device__ __forceinline__ int ndim() const { return ND; }
  __device__ __forceinline__ const long long* shape() const { return shape_; }
  __device__ __forceinline__ const long long* strides() const { return strides_; }
  __device__ __forceinline__ T* data() const { return data_; }
  __device__ __forceinline__ T& operator[](long long i) const {
    if (C) return data_[i];
    long long off = 0;
    for (int ax = ND - 1; ax >= 0; --ax) { long long q = i / shape_[ax]; off += (i - q * shape_[ax]) * strides_[ax]; i = q; }
    return data_[off];
  }
  __device__ __forceinline__ T& operator[](const long long* idx) const {
    long long off = 0;
    for (int ax = 0; ax < ND; ++ax) off += idx[ax] * strides_[ax];
    return data_[off];
  }
};
"#;

/// The size object behind `_ind.size()`, `_in_ind.size()`, `_out_ind.size()`.
pub(crate) const SIZE_T: &str =
    "struct _cp_Size { long long n_; __device__ __forceinline__ long long size() const { return n_; } };\n";

/// The C type of a raw parameter.
pub(crate) fn carray_type(ty: DType, ndim: usize, contiguous: bool) -> String {
    format!("CArray<{}, {}, {}>", ctype(ty), ndim.max(1), contiguous)
}

/// C statements adding to each `(var, stride_at)` the offset of C-order
/// index `idx` over `nd` dimensions whose extents start at `_g.v[shape_at]`.
pub(crate) fn unravel(
    idx: &str,
    nd: usize,
    shape_at: usize,
    targets: &[(String, usize)],
) -> String {
    unravel_as("long long", idx, nd, shape_at, targets)
}

/// [`unravel`] computing in the C integer type `ty` (`int` where every
/// offset fits, so the divisions are 32-bit).
fn unravel_as(
    ty: &str,
    idx: &str,
    nd: usize,
    shape_at: usize,
    targets: &[(String, usize)],
) -> String {
    let mut s = String::new();
    if nd == 0 || targets.is_empty() {
        return s;
    }
    let _ = write!(s, "{{ {ty} _r = ({idx}), _q, _d; ");
    for ax in (1..nd).rev() {
        let _ = write!(
            s,
            "_q = _r / _g.v[{sh}]; _d = _r - _q * _g.v[{sh}]; ",
            sh = shape_at + ax
        );
        for (v, st) in targets {
            let _ = write!(s, "{v} += _d * _g.v[{}]; ", st + ax);
        }
        s.push_str("_r = _q; ");
    }
    for (v, st) in targets {
        let _ = write!(s, "{v} += _r * _g.v[{st}]; ");
    }
    s.push_str("(void)_q; (void)_d; }");
    s
}

/// Placeholder typedefs (`typedef float T;`).
pub(crate) fn typedefs(src: &mut Src, placeholders: &[(char, DType)]) {
    for (c, d) in placeholders {
        src.push(&format!("typedef {} {c};\n", ctype(*d)));
    }
}

/// The user's function parameter for `p`.
pub(crate) fn op_param(p: &GenParam) -> String {
    match p.pass {
        Pass::Raw { ndim, contiguous } => {
            format!("const {}& {}", carray_type(p.ty, ndim, contiguous), p.name)
        }
        _ if p.out => format!("{}& {}", ctype(p.ty), p.name),
        _ => format!("const {} {}", ctype(p.ty), p.name),
    }
}

/// The kernel parameter that carries `p`.
pub(crate) fn kernel_param(p: &GenParam) -> String {
    match p.pass {
        Pass::Raw { ndim, contiguous } => {
            format!("{} _raw_{}", carray_type(p.ty, ndim, contiguous), p.name)
        }
        Pass::Value => format!("const {} _raw_{}", ctype(p.ty), p.name),
        _ if p.out => format!("{}* _raw_{}", ctype(p.actual), p.name),
        _ => format!("const {}* _raw_{}", ctype(p.actual), p.name),
    }
}

/// Whether `operation` only ever assigns `name` (`name = ...` at the start
/// of a statement) and so never reads it: then an output can be written
/// from registers with vector stores, without loading its old values.
/// Conservative: any other use (`+=`, `&name`, a read) says no.
pub(crate) fn assigned_only(operation: &str, name: &str) -> bool {
    let b = operation.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut found = false;
    let mut at = 0;
    while let Some(k) = operation[at..].find(name) {
        let start = at + k;
        let end = start + name.len();
        at = end;
        if (start > 0 && ident(b[start - 1])) || (end < b.len() && ident(b[end])) {
            continue;
        }
        let before = operation[..start].trim_end().bytes().last();
        if !matches!(before, None | Some(b';' | b'{' | b'}')) {
            return false;
        }
        let after = operation[end..].trim_start().as_bytes();
        if after.first() != Some(&b'=') || after.get(1) == Some(&b'=') {
            return false;
        }
        found = true;
    }
    found
}

/// Elements per 16-byte access when every per-element array of a
/// contiguous launch has one item size, every output is assigned only and
/// stored as its declared type; 1 (no vector accesses) otherwise.
/// The caller also checks that the arrays are 16-byte aligned.
pub(crate) fn vector_lanes(operation: &str, params: &[GenParam]) -> usize {
    let each: Vec<&GenParam> = params.iter().filter(|p| p.pass == Pass::Each).collect();
    let Some(first) = each.first() else { return 1 };
    let size = first.actual.itemsize();
    let ok = each.iter().all(|p| {
        p.actual.itemsize() == size
            && (!p.out || (p.ty == p.actual && assigned_only(operation, &p.name)))
    });
    if ok && matches!(size, 1 | 2 | 4 | 8) && each.iter().any(|p| p.out) {
        16 / size
    } else {
        1
    }
}

/// The elementwise kernel the user described, specialised for one call's
/// dtypes and layouts. `ndim` is the merged rank of the non-raw arrays;
/// `contiguous` says each of them is unit-stride (or a broadcast scalar)
/// over one merged axis; `small` selects 32-bit indices.
#[allow(clippy::too_many_arguments)]
pub(crate) fn elementwise_source(
    name: &str,
    operation: &str,
    preamble: &str,
    placeholders: &[(char, DType)],
    params: &[GenParam],
    ndim: usize,
    contiguous: bool,
    small: bool,
    lanes: usize,
) -> String {
    generate(&Elementwise {
        name,
        title: &format!("ElementwiseKernel `{name}`, generated by cuprite"),
        operation,
        preamble,
        support: "",
        placeholders,
        params,
        ndim,
        contiguous,
        small,
        lanes,
        restrict: false,
    })
}

/// One specialisation of an elementwise kernel: what it computes and the
/// layout it is compiled for.
pub(crate) struct Elementwise<'a> {
    /// The kernel's symbol.
    pub name: &'a str,
    /// A comment naming the kernel in its source.
    pub title: &'a str,
    /// The statements run per element (user code, `#line`-numbered).
    pub operation: &'a str,
    /// User code before the kernel (`#line`-numbered), or empty.
    pub preamble: &'a str,
    /// Generated device functions the operation calls, or empty.
    pub support: &'a str,
    pub placeholders: &'a [(char, DType)],
    pub params: &'a [GenParam],
    /// The merged rank of the non-raw arrays.
    pub ndim: usize,
    /// Every non-raw array is unit-stride (or read once) over one merged axis.
    pub contiguous: bool,
    /// Every index and offset fits 32 bits.
    pub small: bool,
    /// Elements per 16-byte vector access (1: none; see [`vector_lanes`]).
    pub lanes: usize,
    /// Array pointers are `__restrict__` (no output partially overlaps an input).
    pub restrict: bool,
}

/// The kernel of [`generate`]: its shape's loop, then the per-element call.
const KERNEL: &str = include_str!("../kernels/elementwise.cu");

/// The one elementwise kernel generator: user `ElementwiseKernel`s, the
/// built-in ufuncs and `fuse` (through `elementwise::generate`).
pub(crate) fn generate(e: &Elementwise<'_>) -> String {
    let &Elementwise {
        name,
        params,
        ndim,
        contiguous,
        small,
        lanes,
        restrict,
        ..
    } = e;
    let mut src = Src::new(&format!("{name}.cu"));
    op_function(&mut src, e);

    // Slots of the arrays read or written per element, in the geometry.
    let mem: Vec<usize> = (0..params.len())
        .filter(|&k| matches!(params[k].pass, Pass::Each | Pass::Once))
        .collect();
    let nd = ndim.max(1);
    // The geometry and offsets in the index width.
    let gty = if small { "_cp_idx" } else { "long long" };
    let mut kparams: Vec<String> = params
        .iter()
        .map(|p| {
            let k = kernel_param(p);
            match p.pass {
                Pass::Each | Pass::Once if restrict => {
                    k.replacen("* _raw_", "* __restrict__ _raw_", 1)
                }
                _ => k,
            }
        })
        .collect();
    if !contiguous {
        let len = (nd + nd * mem.len()).max(1);
        src.push(&format!("struct _cp_Geo {{ {gty} v[{len}]; }};\n"));
        kparams.push("const _cp_Geo _g".into());
    }
    kparams.push("const long long _n".into());
    let mut once = String::new();
    for p in params {
        if p.pass == Pass::Once && !p.out {
            let _ = writeln!(
                once,
                "  const {} _once_{} = {};",
                ctype(p.ty),
                p.name,
                cast_expr(p.actual, p.ty, &format!("_raw_{}[0]", p.name))
            );
        }
    }
    // The loop bodies of the kernel's shape (vector, unrolled or strided).
    let mut body = Body::default();
    let mode = if contiguous && lanes > 1 {
        body.vector = vector_loop(params, lanes);
        "VECTOR"
    } else if contiguous {
        body.unrolled = unrolled_loop(params);
        "UNROLL"
    } else {
        (body.offsets, body.unravel) = strided_offsets(params, &mem, gty, ndim, nd);
        "STRIDED"
    };
    // The call after the loops (the tail, or every element when strided).
    let last_call = if mode == "STRIDED" {
        let each = |p: &GenParam| cast_expr(p.actual, p.ty, &format!("_raw_{0}[_o_{0}]", p.name));
        let loc = |p: &GenParam| format!("_raw_{0}[_o_{0}]", p.name);
        op_call(params, "_i", &each, &loc)
    } else {
        let each = |p: &GenParam| cast_expr(p.actual, p.ty, &format!("_raw_{}[_i]", p.name));
        let loc = |p: &GenParam| format!("_raw_{}[_i]", p.name);
        op_call(params, "_i", &each, &loc)
    };
    let mut on = vec![mode];
    if !once.is_empty() {
        on.push("ONCE");
    }
    let lanes = lanes.to_string();
    let kernel = super::template::render(
        KERNEL,
        &[
            ("NAME", name),
            ("PARAMS", &kparams.join(", ")),
            ("ONCE", once.trim_end_matches('\n')),
            ("LANES", &lanes),
            ("VECTOR", body.vector.trim_end_matches('\n')),
            ("UNROLLED", body.unrolled.trim_end_matches('\n')),
            ("OFFSETS", body.offsets.trim_end_matches('\n')),
            ("UNRAVEL", &body.unravel),
            ("CALL", &last_call),
        ],
        &on,
    );
    src.push(&kernel);
    src.finish()
}

/// The loop bodies of the kernel's shape; the ones of other shapes stay empty.
#[derive(Default)]
struct Body {
    vector: String,
    unrolled: String,
    offsets: String,
    unravel: String,
}

/// The source before the kernel: prelude, support, typedefs, the user's
/// preamble, helper types, and the user's operation, once, as an inlined
/// function `_cp_op`.
fn op_function(src: &mut Src, e: &Elementwise<'_>) {
    let params = e.params;
    src.push(PRELUDE);
    src.push(e.support);
    src.push(&format!("\n// {}\n", e.title));
    typedefs(src, e.placeholders);
    if !e.preamble.trim().is_empty() {
        src.user("preamble", e.preamble);
    }
    if params.iter().any(|p| matches!(p.pass, Pass::Raw { .. })) {
        src.push(CARRAY);
    }
    src.push(SIZE_T);
    if e.contiguous && e.lanes > 1 {
        src.push("template <typename T, int L> struct alignas(16) _cp_vec { T v[L]; };\n");
    }
    src.push(&format!(
        "typedef {} _cp_idx;\n",
        if e.small { "int" } else { "long long" }
    ));
    let mut fparams = vec![
        "const _cp_idx i".to_string(),
        "const _cp_Size& _ind".to_string(),
    ];
    fparams.extend(params.iter().map(op_param));
    src.push(&format!(
        "__device__ __forceinline__ void _cp_op({}) {{",
        fparams.join(", ")
    ));
    // CuPy ends the operation with `;` too, so `y = x * 2` works.
    src.user("operation", &format!("{}\n;", e.operation));
    src.push("}\n");
}

/// One `_cp_op` call at index `idx`: `each(p)` gives an Each input's value,
/// `at(p)` an Each output's location.
fn op_call(
    params: &[GenParam],
    idx: &str,
    each: &dyn Fn(&GenParam) -> String,
    at: &dyn Fn(&GenParam) -> String,
) -> String {
    let mut a = vec![idx.to_string(), "_ind".to_string()];
    for p in params {
        a.push(match p.pass {
            Pass::Raw { .. } | Pass::Value => format!("_raw_{}", p.name),
            Pass::Once if !p.out => format!("_once_{}", p.name),
            Pass::Once => format!("_raw_{}[0]", p.name),
            Pass::Each if p.out => at(p),
            Pass::Each => each(p),
        });
    }
    format!("_cp_op({});", a.join(", "))
}

/// 16-byte loads and stores: `lanes` elements per access, two accesses per
/// array in flight per thread; the scalar loop after them finishes the tail.
fn vector_loop(params: &[GenParam], lanes: usize) -> String {
    let mut s = String::new();
    let vec = |p: &GenParam| format!("_cp_vec<{}, {lanes}>", ctype(p.actual));
    for (step, (cond, adv)) in [
        ("_v + _stride < _nv", "2 * _stride"),
        ("_v < _nv", "_stride"),
    ]
    .into_iter()
    .enumerate()
    {
        let copies = if step == 0 { 2 } else { 1 };
        let _ = writeln!(s, "  for (; {cond}; _v += {adv}) {{");
        for c in 0..copies {
            let at = if c == 0 { "_v" } else { "_v + _stride" };
            for p in params.iter().filter(|p| p.pass == Pass::Each) {
                if p.out {
                    let _ = writeln!(s, "    {} _w{c}_{};", vec(p), p.name);
                } else {
                    let _ = writeln!(
                        s,
                        "    const {} _r{c}_{} = reinterpret_cast<const {}*>(_raw_{})[{at}];",
                        vec(p),
                        p.name,
                        vec(p),
                        p.name
                    );
                }
            }
        }
        let _ = writeln!(s, "    #pragma unroll");
        let _ = writeln!(s, "    for (int _u = 0; _u < {lanes}; ++_u) {{");
        for c in 0..copies {
            let at = if c == 0 { "_v" } else { "(_v + _stride)" };
            let idx = format!("{at} * {lanes} + _u");
            let each = |p: &GenParam| cast_expr(p.actual, p.ty, &format!("_r{c}_{}.v[_u]", p.name));
            let loc = |p: &GenParam| format!("_w{c}_{}.v[_u]", p.name);
            let _ = writeln!(s, "      {}", op_call(params, &idx, &each, &loc));
        }
        let _ = writeln!(s, "    }}");
        for c in 0..copies {
            let at = if c == 0 { "_v" } else { "_v + _stride" };
            for p in params.iter().filter(|p| p.pass == Pass::Each && p.out) {
                let _ = writeln!(
                    s,
                    "    reinterpret_cast<{}*>(_raw_{})[{at}] = _w{c}_{};",
                    vec(p),
                    p.name,
                    p.name
                );
            }
        }
        let _ = writeln!(s, "  }}");
    }
    s
}

/// Four elements per thread and step, all loads issued before the first
/// store, so enough memory requests are in flight.
fn unrolled_loop(params: &[GenParam]) -> String {
    let mut s = String::new();
    let at = |u: usize| {
        if u == 0 {
            "_i".to_string()
        } else {
            format!("_i + {u} * _stride")
        }
    };
    for u in 0..4 {
        for p in params {
            if p.pass == Pass::Each && !p.out {
                let _ = writeln!(
                    s,
                    "    const {} _v{u}_{} = _raw_{}[{}];",
                    ctype(p.actual),
                    p.name,
                    p.name,
                    at(u)
                );
            }
        }
    }
    for u in 0..4 {
        let idx = at(u);
        let each = |p: &GenParam| cast_expr(p.actual, p.ty, &format!("_v{u}_{}", p.name));
        let loc = |p: &GenParam| format!("_raw_{}[{idx}]", p.name);
        let _ = writeln!(s, "    {}", op_call(params, &idx, &each, &loc));
    }
    s
}

/// The offset variables of the Each arrays and the code that unravels the
/// flat index `_i` into them through the geometry.
fn strided_offsets(
    params: &[GenParam],
    mem: &[usize],
    gty: &str,
    ndim: usize,
    nd: usize,
) -> (String, String) {
    let mut offsets = String::new();
    let mut targets = Vec::new();
    for (slot, &k) in mem.iter().enumerate() {
        if params[k].pass == Pass::Each {
            let _ = writeln!(offsets, "    {gty} _o_{} = 0;", params[k].name);
            targets.push((format!("_o_{}", params[k].name), nd + slot * nd));
        }
    }
    let unravel = unravel_as(gty, "_i", ndim, 0, &targets);
    (offsets, unravel)
}

/// The bytes of an elementwise geometry (`_cp_Geo`) and their alignment:
/// 32-bit values for a `small` kernel, else 64-bit.
pub(crate) fn geo_bytes(geo: &[i64], small: bool) -> (Vec<u8>, usize) {
    if small {
        (
            geo.iter().flat_map(|&v| (v as i32).to_ne_bytes()).collect(),
            4,
        )
    } else {
        (geo.iter().flat_map(|v| v.to_ne_bytes()).collect(), 8)
    }
}

/// The strides of the `slot`-th memory operand in an elementwise geometry.
pub(crate) fn elementwise_geo(shape: &[usize], strides: &[Vec<isize>]) -> Vec<i64> {
    let mut v: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    if v.is_empty() {
        v.push(1);
    }
    let nd = v.len();
    for st in strides {
        let mut s: Vec<i64> = st.iter().map(|&x| x as i64).collect();
        s.resize(nd, 0);
        v.extend(s);
    }
    v
}

/// The bytes of a `CArray` kernel argument: pointer, size, extents, strides.
pub(crate) fn carray_bytes(ptr: u64, shape: &[usize], strides: &[isize]) -> Vec<u8> {
    let mut v: Vec<i64> = vec![ptr as i64, shape.iter().product::<usize>() as i64];
    if shape.is_empty() {
        v.extend([1, 0]);
    } else {
        v.extend(shape.iter().map(|&d| d as i64));
        v.extend(strides.iter().map(|&d| d as i64));
    }
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Size in bytes of a C accumulator type when it is a known scalar type.
pub(crate) fn c_type_size(t: &str, placeholders: &[(char, DType)]) -> Option<usize> {
    let t = t.trim();
    if let Some((_, d)) = placeholders
        .iter()
        .find(|(c, _)| t.len() == 1 && t.starts_with(*c))
    {
        return Some(d.itemsize());
    }
    if let Some(d) = DType::ALL.iter().find(|d| d.name() == t || ctype(**d) == t) {
        return Some(d.itemsize());
    }
    Some(match t {
        "char" | "signed char" | "unsigned char" => 1,
        "short" | "unsigned short" => 2,
        "int" | "unsigned int" | "unsigned" => 4,
        "long" | "long long" | "unsigned long" | "unsigned long long" | "size_t" | "ptrdiff_t" => 8,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, pass: Pass, actual: DType, ty: DType, out: bool) -> GenParam {
        GenParam {
            name: name.into(),
            pass,
            actual,
            ty,
            out,
        }
    }

    #[test]
    fn line_directives_number_the_users_code_from_one() {
        let mut s = Src::new("k.cu");
        s.push("a\nb\n");
        s.user("operation", "x\ny");
        s.push("z\n");
        let text = s.finish();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "#line 1 \"operation\"");
        assert_eq!(lines[3], "x");
        // The directive names the physical line that follows it.
        assert_eq!(lines[5], "#line 7 \"k.cu\"");
        assert_eq!(lines[6], "z");
    }

    #[test]
    fn unravel_accumulates_every_target() {
        let code = unravel("_i", 2, 0, &[("_o_x".into(), 2), ("_o_y".into(), 4)]);
        assert!(code.contains("_q = _r / _g.v[1]; _d = _r - _q * _g.v[1]; _o_x += _d * _g.v[3]; _o_y += _d * _g.v[5];"), "{code}");
        assert!(
            code.contains("_o_x += _r * _g.v[2]; _o_y += _r * _g.v[4];"),
            "{code}"
        );
        assert_eq!(unravel("_i", 0, 0, &[("_o".into(), 0)]), "");
    }

    #[test]
    fn only_assigned_outputs_are_written_from_registers() {
        assert!(assigned_only("y = a * x + b;", "y"));
        assert!(assigned_only("if (x > 0) { y = x; } else { y = 0; }", "y"));
        assert!(assigned_only("float t = x;\ny = t * t;", "y"));
        // Reads, compound assignments, addresses and comparisons say no.
        assert!(!assigned_only("y += x;", "y"));
        assert!(!assigned_only("y = y * x;", "y"));
        assert!(!assigned_only("f(&y, x);", "y"));
        assert!(!assigned_only("z = (y == x);", "y"));
        assert!(!assigned_only("y == x;", "y"));
        assert!(!assigned_only("z = x;", "y"));
        // Other identifiers that contain the name do not count.
        assert!(assigned_only("y = yy + y_0 + xy;", "y"));
        let p = |name: &str, dt: DType, out: bool| GenParam {
            name: name.into(),
            pass: Pass::Each,
            actual: dt,
            ty: dt,
            out,
        };
        let params = [
            p("x", DType::Float32, false),
            GenParam {
                pass: Pass::Value,
                ..p("a", DType::Float32, false)
            },
            p("y", DType::Float32, true),
        ];
        assert_eq!(vector_lanes("y = a * x;", &params), 4);
        assert_eq!(vector_lanes("y += a * x;", &params), 1);
        let mixed = [p("x", DType::Float64, false), p("y", DType::Float32, true)];
        assert_eq!(vector_lanes("y = x;", &mixed), 1);
        let src = elementwise_source("ax", "y = a * x;", "", &[], &params, 1, true, true, 4);
        assert!(src.contains("struct alignas(16) _cp_vec"), "{src}");
        assert!(src.contains(
            "const _cp_vec<float, 4> _r0_x = reinterpret_cast<const _cp_vec<float, 4>*>(_raw_x)[_v];"
        ));
        assert!(src.contains("reinterpret_cast<_cp_vec<float, 4>*>(_raw_y)[_v + _stride] = _w1_y;"));
        assert!(
            src.contains("_cp_op(_v * 4 + _u, _ind, _r0_x.v[_u], _raw_a, _w0_y.v[_u]);"),
            "{src}"
        );
        assert!(src.contains("for (_i = _nv * 4 + (_cp_idx)blockIdx.x * blockDim.x + threadIdx.x;"));
        crate::cuda::kernel_gen::helpers::dump_source("ek_vector_axpb", &src);
    }

    #[test]
    fn contiguous_axpb_uses_plain_indexing_and_a_grid_stride_loop() {
        let f = DType::Float32;
        let params = [
            p("x", Pass::Each, f, f, false),
            p("a", Pass::Value, f, f, false),
            p("b", Pass::Value, f, f, false),
            p("y", Pass::Each, f, f, true),
        ];
        let src = elementwise_source("axpb", "y = a * x + b;", "", &[], &params, 1, true, true, 1);
        assert!(src.contains("extern \"C\" __global__ void axpb(const float* _raw_x, const float _raw_a, const float _raw_b, float* _raw_y, const long long _n)"), "{src}");
        assert!(src.contains("__device__ __forceinline__ void _cp_op(const _cp_idx i, const _cp_Size& _ind, const float x, const float a, const float b, float& y) {\n#line 1 \"operation\"\ny = a * x + b;\n"), "{src}");
        assert!(src.contains("const float _v3_x = _raw_x[_i + 3 * _stride];"));
        assert!(
            src.contains(
                "_cp_op(_i + 2 * _stride, _ind, _v2_x, _raw_a, _raw_b, _raw_y[_i + 2 * _stride]);"
            ),
            "{src}"
        );
        assert!(src.contains("_cp_op(_i, _ind, _raw_x[_i], _raw_a, _raw_b, _raw_y[_i]);"));
        assert!(src.contains("typedef int _cp_idx;"));
        assert!(!src.contains("_cp_Geo"));
    }

    #[test]
    fn strided_kernels_unravel_per_operand_and_cast_inputs() {
        let params = [
            p("x", Pass::Each, DType::Int32, DType::Float64, false),
            p("s", Pass::Once, DType::Float32, DType::Float64, false),
            p(
                "t",
                Pass::Raw {
                    ndim: 2,
                    contiguous: false,
                },
                DType::Float64,
                DType::Float64,
                false,
            ),
            p("y", Pass::Each, DType::Float64, DType::Float64, true),
        ];
        let src = elementwise_source(
            "k",
            "y = x * s + t[i];",
            "",
            &[('T', DType::Float64)],
            &params,
            2,
            false,
            false,
            1,
        );
        assert!(src.contains("typedef double T;"));
        assert!(src.contains("template <class T, int ND, bool C> struct CArray"));
        assert!(src.contains("const CArray<double, 2, false>& t"));
        assert!(src.contains("struct _cp_Geo { long long v[8]; };"), "{src}");
        assert!(
            src.contains("const double _once_s = (double)(_raw_s[0]);"),
            "{src}"
        );
        // x uses slot 0 (strides at 2..4), s slot 1, y slot 2 (strides at 6..8).
        assert!(
            src.contains("_o_x += _d * _g.v[3]; _o_y += _d * _g.v[7];"),
            "{src}"
        );
        assert!(
            src.contains(
                "_cp_op(_i, _ind, (double)(_raw_x[_o_x]), _once_s, _raw_t, _raw_y[_o_y]);"
            ),
            "{src}"
        );
        assert!(src.contains("typedef long long _cp_idx;"));
    }

    /// The kernel template rendered for each loop shape: every placeholder
    /// filled, and the source compiles (NVRTC, where present).
    #[test]
    fn the_kernel_template_renders_every_shape() {
        let f = DType::Float32;
        let params = [
            p("x", Pass::Each, f, f, false),
            p("a", Pass::Once, DType::Float64, f, false),
            p("s", Pass::Value, f, f, false),
            p("y", Pass::Each, f, f, true),
        ];
        for (name, nd, contiguous, small, lanes) in [
            ("tpl_vector", 1, true, true, 4),
            ("tpl_unrolled", 1, true, false, 1),
            ("tpl_strided", 3, false, true, 1),
            ("tpl_strided64", 2, false, false, 1),
        ] {
            let src = elementwise_source(
                name,
                "y = a * x + s;",
                "",
                &[],
                &params,
                nd,
                contiguous,
                small,
                lanes,
            );
            assert_eq!(
                crate::cuda::kernel_gen::template::unfilled(&src),
                None,
                "{src}"
            );
            assert!(
                src.contains("const float _once_a = (float)(_raw_a[0]);"),
                "{src}"
            );
            assert!(src.contains("_cp_op(_i, _ind, "), "{src}");
            crate::cuda::kernel_gen::helpers::dump_source(name, &src);
        }
    }

    #[test]
    fn carray_arguments_pack_pointer_size_shape_strides() {
        let b = carray_bytes(0x1000, &[2, 3], &[3, 1]);
        let words: Vec<i64> = b
            .chunks(8)
            .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, vec![0x1000, 6, 2, 3, 3, 1]);
        assert_eq!(carray_bytes(8, &[], &[]).len(), 4 * 8);
        assert_eq!(c_type_size("float", &[]), Some(4));
        assert_eq!(c_type_size("T", &[('T', DType::Float64)]), Some(8));
        assert_eq!(c_type_size("my_pair", &[]), None);
    }
}
