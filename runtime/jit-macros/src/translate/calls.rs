//! Calls: the GPU built-ins of `cp::jit`, the math methods of the float
//! and integer types, and associated constants (`f32::MAX`, `PI`).

use syn::spanned::Spanned;

use super::{CExpr, Translator};
use crate::types::{Scalar, Ty};

/// The last path segment of a called function (`cp::jit::sync_threads` → `sync_threads`).
pub fn call_name(func: &syn::Expr) -> Option<String> {
    match func {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The built-ins whose CPU form can fail (a barrier or an index): the CPU
/// body calls them with `?`.
pub const FALLIBLE: &[&str] = &[
    "sync_threads",
    "shfl_down_sync",
    "shfl_xor_sync",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_cas",
    "shared_array",
    "dynamic_shared",
];

/// Every built-in name, for the CPU rewrite.
pub const BUILTINS: &[&str] = &[
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "lane_id",
    "grid_stride",
    "sync_threads",
    "shfl_down_sync",
    "shfl_xor_sync",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_cas",
    "shared_array",
    "dynamic_shared",
];

/// `shared_array::<T, N>()` / `dynamic_shared::<T>()` as a `let` value:
/// the element type and the length (`None`: dynamic).
pub fn shared_decl(
    t: &mut Translator,
    e: &syn::Expr,
) -> syn::Result<Option<(Scalar, Option<u64>)>> {
    let syn::Expr::Call(c) = e else {
        return Ok(None);
    };
    let syn::Expr::Path(p) = &*c.func else {
        return Ok(None);
    };
    let Some(last) = p.path.segments.last() else {
        return Ok(None);
    };
    let name = last.ident.to_string();
    if name != "shared_array" && name != "dynamic_shared" {
        return Ok(None);
    }
    let usage = if name == "shared_array" {
        "write `let tile = shared_array::<f32, 256>();` (a type and a literal length)"
    } else {
        "write `let buf = dynamic_shared::<f32>();` (the size is the launch's shared-memory bytes)"
    };
    let bad = || syn::Error::new(c.span(), usage);
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Err(bad());
    };
    let mut it = args.args.iter();
    let Some(syn::GenericArgument::Type(ty)) = it.next() else {
        return Err(bad());
    };
    let elem = match crate::types::parse_type(ty, t.placeholders(), false)? {
        Ty::Scalar(s) if !matches!(s, Scalar::Placeholder(_)) => s,
        _ => return Err(bad()),
    };
    let len = if name == "shared_array" {
        let n = match it.next() {
            Some(syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }))) => i.base10_parse::<u64>()?,
            Some(syn::GenericArgument::Const(syn::Expr::Block(b))) => {
                match b.block.stmts.as_slice() {
                    [syn::Stmt::Expr(
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(i),
                            ..
                        }),
                        None,
                    )] => i.base10_parse::<u64>()?,
                    _ => return Err(bad()),
                }
            }
            _ => return Err(bad()),
        };
        if n == 0 {
            return Err(syn::Error::new(
                c.span(),
                "a shared array needs at least one element",
            ));
        }
        t.facts.static_shared_bytes += n * elem.size() as u64;
        Some(n)
    } else {
        t.facts.uses_dynamic_shared = true;
        None
    };
    if !c.args.is_empty() {
        return Err(bad());
    }
    Ok(Some((elem, len)))
}

/// `f32::MAX`, `f64::consts::PI`, `i32::MIN`...
pub fn constant(t: &mut Translator, p: &syn::ExprPath) -> syn::Result<CExpr> {
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let ty = segs
        .iter()
        .find_map(|s| Scalar::from_name(s, t.placeholders()));
    let name = segs.last().cloned().unwrap_or_default();
    let unknown = || {
        syn::Error::new(
            p.span(),
            format!(
                "`{}` is not available in a GPU kernel: pass the value as a parameter",
                segs.join("::")
            ),
        )
    };
    let Some(ty) = ty else { return Err(unknown()) };
    let f32_bits = |bits: u32| format!("__int_as_float({bits:#x})");
    let half_bits = |bits: u16| match ty {
        Scalar::BF16 => format!("cp_bf16_bits({bits:#x})"),
        _ => format!("cp_f16_bits({bits:#x})"),
    };
    let is_f16 = ty == Scalar::F16;
    let pick = |f16: u16, bf16: u16| half_bits(if is_f16 { f16 } else { bf16 });
    let f64_bits = |bits: u64| format!("__longlong_as_double({bits:#x}ll)");
    let code = match (&ty, name.as_str()) {
        (Scalar::F32, "MAX") => f32_bits(f32::MAX.to_bits()),
        (Scalar::F32, "MIN") => f32_bits(f32::MIN.to_bits()),
        (Scalar::F32, "EPSILON") => f32_bits(f32::EPSILON.to_bits()),
        (Scalar::F32, "INFINITY") => f32_bits(f32::INFINITY.to_bits()),
        (Scalar::F32, "NEG_INFINITY") => f32_bits(f32::NEG_INFINITY.to_bits()),
        (Scalar::F32, "NAN") => f32_bits(f32::NAN.to_bits()),
        (Scalar::F32, "PI") => f32_bits(std::f32::consts::PI.to_bits()),
        (Scalar::F32, "E") => f32_bits(std::f32::consts::E.to_bits()),
        (Scalar::F64, "MAX") => f64_bits(f64::MAX.to_bits()),
        (Scalar::F64, "MIN") => f64_bits(f64::MIN.to_bits()),
        (Scalar::F64, "EPSILON") => f64_bits(f64::EPSILON.to_bits()),
        (Scalar::F64, "INFINITY") => f64_bits(f64::INFINITY.to_bits()),
        (Scalar::F64, "NEG_INFINITY") => f64_bits(f64::NEG_INFINITY.to_bits()),
        (Scalar::F64, "NAN") => f64_bits(f64::NAN.to_bits()),
        (Scalar::F64, "PI") => f64_bits(std::f64::consts::PI.to_bits()),
        (Scalar::F64, "E") => f64_bits(std::f64::consts::E.to_bits()),
        (Scalar::F16 | Scalar::BF16, c) => match c {
            "MAX" => pick(0x7bff, 0x7f7f),
            "MIN" => pick(0xfbff, 0xff7f),
            "EPSILON" => pick(0x1400, 0x3c00),
            "INFINITY" => pick(0x7c00, 0x7f80),
            "NEG_INFINITY" => pick(0xfc00, 0xff80),
            "NAN" => pick(0x7e00, 0x7fc0),
            "PI" => pick(0x4248, 0x4049),
            "E" => pick(0x4170, 0x402e),
            "ZERO" => pick(0, 0),
            "ONE" => pick(0x3c00, 0x3f80),
            "NEG_ONE" => pick(0xbc00, 0xbf80),
            _ => return Err(unknown()),
        },
        (Scalar::I32, "MAX") => format!("{}", i32::MAX),
        (Scalar::I32, "MIN") => "(-2147483647 - 1)".into(),
        (Scalar::U32, "MAX") => format!("{}u", u32::MAX),
        (Scalar::I64, "MAX") => format!("{}ll", i64::MAX),
        (Scalar::I64, "MIN") => "(-9223372036854775807ll - 1)".into(),
        (Scalar::U64 | Scalar::Usize, "MAX") => format!("{}ull", u64::MAX),
        (Scalar::U32 | Scalar::U64 | Scalar::Usize, "MIN") => literal(0, &ty),
        _ => return Err(unknown()),
    };
    Ok(CExpr {
        code,
        ty: Some(Ty::Scalar(ty)),
    })
}

fn literal(v: i64, ty: &Scalar) -> String {
    super::expr::literal_as(&v.to_string(), &Ty::Scalar(ty.clone()))
}

fn arity(c: &syn::ExprCall, n: usize, usage: &str) -> syn::Result<()> {
    if c.args.len() != n {
        return Err(syn::Error::new(
            c.span(),
            format!("wrong number of arguments: write `{usage}`"),
        ));
    }
    Ok(())
}

impl Translator {
    pub(super) fn call(&mut self, c: &syn::ExprCall, expected: Option<&Ty>) -> syn::Result<CExpr> {
        let Some(name) = call_name(&c.func) else {
            return Err(syn::Error::new(
                c.func.span(),
                "only named functions can be called in a kernel",
            ));
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let dim = |code: &str| {
            Ok(CExpr {
                code: code.into(),
                ty: Some(Ty::Dim3),
            })
        };
        let u32_ty = Ty::Scalar(Scalar::U32);
        match name.as_str() {
            "thread_idx" => {
                arity(c, 0, "thread_idx()")?;
                dim("threadIdx")
            }
            "block_idx" => {
                arity(c, 0, "block_idx()")?;
                dim("blockIdx")
            }
            "block_dim" => {
                arity(c, 0, "block_dim()")?;
                dim("blockDim")
            }
            "grid_dim" => {
                arity(c, 0, "grid_dim()")?;
                dim("gridDim")
            }
            "lane_id" => {
                arity(c, 0, "lane_id()")?;
                self.facts.uses_lane_id = true;
                Ok(CExpr {
                    code: "cp_lane_id()".into(),
                    ty: Some(u32_ty),
                })
            }
            "sync_threads" => {
                arity(c, 0, "sync_threads()")?;
                self.facts.needs_threads = true;
                Ok(CExpr {
                    code: "__syncthreads()".into(),
                    ty: None,
                })
            }
            "shfl_down_sync" | "shfl_xor_sync" => {
                arity(c, 3, &format!("{name}(0xffffffff, value, offset)"))?;
                self.facts.needs_threads = true;
                let mask = self.expr(args[0], Some(&u32_ty))?;
                let v = self.expr(args[1], expected)?;
                let off = self.expr(args[2], Some(&Ty::Scalar(Scalar::I32)))?;
                Ok(CExpr {
                    code: format!("__{name}({}, {}, {})", mask.code, v.code, off.code),
                    ty: v.ty,
                })
            }
            "atomic_add" | "atomic_max" | "atomic_min" => self.atomic(c, &name, &args),
            "atomic_cas" => {
                arity(c, 4, "atomic_cas(array, index, compare, value)")?;
                let (place, elem) = self.atomic_place(args[0], args[1])?;
                if !elem.is_integer() {
                    return Err(syn::Error::new(
                        c.span(),
                        "atomic_cas works on integer arrays (i32, u32, u64)",
                    ));
                }
                let t = Ty::Scalar(elem);
                let cmp = self.expr(args[2], Some(&t))?;
                let v = self.expr(args[3], Some(&t))?;
                Ok(CExpr {
                    code: format!("atomicCAS({place}, {}, {})", cmp.code, v.code),
                    ty: Some(t),
                })
            }
            "grid_stride" => Err(syn::Error::new(
                c.span(),
                "`grid_stride(n)` is a loop range: `for i in grid_stride(n) { ... }`",
            )),
            "shared_array" | "dynamic_shared" => Err(syn::Error::new(
                c.span(),
                "shared memory is declared with a `let`: `let tile = shared_array::<f32, 256>();`",
            )),
            "min" | "max" if args.len() == 2 && path_has(&c.func, "cmp") => {
                let a = self.expr(args[0], expected)?;
                let b = self.expr(args[1], a.ty.as_ref())?;
                Ok(CExpr {
                    code: format!("{name}({}, {})", a.code, b.code),
                    ty: a.ty.or(b.ty),
                })
            }
            _ => self.associated_call(c, &name, &args, expected),
        }
    }

    /// `f32::sqrt(x)`, `T::from_f64(v)`: a math method called by its path.
    fn associated_call(
        &mut self,
        c: &syn::ExprCall,
        name: &str,
        args: &[&syn::Expr],
        expected: Option<&Ty>,
    ) -> syn::Result<CExpr> {
        let owner = match &*c.func {
            syn::Expr::Path(p) if p.path.segments.len() >= 2 => {
                let segs = &p.path.segments;
                Scalar::from_name(&segs[segs.len() - 2].ident.to_string(), self.placeholders())
            }
            _ => None,
        };
        let Some(owner) = owner else {
            return Err(syn::Error::new(
                c.func.span(),
                format!("`{name}` cannot be called in a GPU kernel: only the built-ins of cp::jit and the math methods of the number types can be; write the code inline"),
            ));
        };
        let t = Ty::Scalar(owner.clone());
        if matches!(
            name,
            "from_f64" | "from_f32" | "from_i32" | "from_usize" | "from"
        ) && args.len() == 1
        {
            let from = match name {
                "from_f64" => Some(Scalar::F64),
                "from_f32" => Some(Scalar::F32),
                "from_i32" => Some(Scalar::I32),
                "from_usize" => Some(Scalar::Usize),
                _ => None,
            }
            .map(Ty::Scalar);
            let v = self.expr(args[0], from.as_ref())?;
            let code = if owner.is_struct_like() || v_is_struct(&v) {
                format!("cp_as<{}>({})", owner.c(), v.code)
            } else {
                format!("(({})({}))", owner.c(), v.code)
            };
            return Ok(CExpr { code, ty: Some(t) });
        }
        let Some((first, rest)) = args.split_first() else {
            return Err(syn::Error::new(c.span(), format!("`{name}` needs a value")));
        };
        let recv = self.expr(first, Some(&t))?;
        let _ = expected;
        self.math(c.span(), recv, name, rest)
    }

    fn atomic_place(&mut self, arr: &syn::Expr, idx: &syn::Expr) -> syn::Result<(String, Scalar)> {
        let base = self.expr(arr, None)?;
        let elem =
            match &base.ty {
                Some(Ty::Slice {
                    elem,
                    mutable: true,
                })
                | Some(Ty::Shared { elem, .. }) => elem.clone(),
                _ => return Err(syn::Error::new(
                    arr.span(),
                    "the first argument of an atomic is a `&mut [T]` parameter or a shared array",
                )),
            };
        let i = self.expr(idx, Some(&Ty::Scalar(Scalar::Usize)))?;
        Ok((format!("&{}[{}]", base.code, i.code), elem))
    }

    fn atomic(&mut self, c: &syn::ExprCall, name: &str, args: &[&syn::Expr]) -> syn::Result<CExpr> {
        arity(c, 3, &format!("{name}(array, index, value)"))?;
        let (place, elem) = self.atomic_place(args[0], args[1])?;
        let ok = match name {
            "atomic_add" => matches!(
                elem,
                Scalar::I32 | Scalar::U32 | Scalar::U64 | Scalar::Usize | Scalar::F32 | Scalar::F64
            ),
            _ => matches!(
                elem,
                Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 | Scalar::Usize
            ),
        };
        if !ok {
            return Err(syn::Error::new(
                c.span(),
                format!(
                    "`{name}` on {} elements has no CUDA atomic: use i32, u32, u64{}",
                    elem.c(),
                    if name == "atomic_add" {
                        ", f32 or f64"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let t = Ty::Scalar(elem);
        let v = self.expr(args[2], Some(&t))?;
        let f = match name {
            "atomic_add" => "atomicAdd",
            "atomic_max" => "atomicMax",
            _ => "atomicMin",
        };
        Ok(CExpr {
            code: format!("{f}({place}, {})", v.code),
            ty: Some(t),
        })
    }

    pub(super) fn method(
        &mut self,
        m: &syn::ExprMethodCall,
        expected: Option<&Ty>,
    ) -> syn::Result<CExpr> {
        let name = m.method.to_string();
        if m.turbofish.is_some() {
            return Err(syn::Error::new(
                m.span(),
                "turbofish methods are not in the GPU subset",
            ));
        }
        let recv = self.expr(&m.receiver, expected)?;
        if let Some(v) = view_method(&recv, &name, m)? {
            return Ok(v);
        }
        if let ("to_f32" | "to_f64", Some(Ty::Scalar(s))) = (name.as_str(), &recv.ty) {
            if matches!(s, Scalar::F16 | Scalar::BF16) && m.args.is_empty() {
                let to = if name == "to_f32" {
                    Scalar::F32
                } else {
                    Scalar::F64
                };
                return Ok(CExpr {
                    code: format!("cp_as<{}>({})", to.c(), recv.code),
                    ty: Some(Ty::Scalar(to)),
                });
            }
        }
        if name == "len" && m.args.is_empty() {
            let usize_ty = Some(Ty::Scalar(Scalar::Usize));
            return match &recv.ty {
                Some(Ty::Slice { .. }) => Ok(CExpr {
                    code: format!("cp_len_{}", recv.code),
                    ty: usize_ty,
                }),
                Some(Ty::Shared { len: Some(n), .. }) => Ok(CExpr {
                    code: format!("{n}ull"),
                    ty: usize_ty,
                }),
                Some(Ty::Shared { elem, len: None }) => Ok(CExpr {
                    code: format!("(cp_dynamic_smem_size() / sizeof({}))", elem.c()),
                    ty: usize_ty,
                }),
                _ => Err(syn::Error::new(
                    m.span(),
                    "`.len()` is for array parameters and shared arrays",
                )),
            };
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        self.math(m.span(), recv, &name, &args)
    }

    /// A math method on a scalar receiver.
    fn math(
        &mut self,
        span: proc_macro2::Span,
        recv: CExpr,
        name: &str,
        args: &[&syn::Expr],
    ) -> syn::Result<CExpr> {
        let Some(Ty::Scalar(s)) = recv.ty.clone() else {
            return Err(syn::Error::new(
                span,
                format!(
                    "`.{name}()` needs a number of known type: add a suffix (`2.0f32`) or a cast"
                ),
            ));
        };
        let t = Ty::Scalar(s.clone());
        let mut a = Vec::new();
        for e in args {
            a.push(self.expr(e, Some(&t))?.code);
        }
        let x = recv.code;
        let (code, n) = if s.is_float() {
            let (base, n): (&str, usize) = match name {
                "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh"
                | "asinh" | "acosh" | "atanh" | "exp" | "exp2" | "log10" | "log2" | "sqrt"
                | "cbrt" | "floor" | "ceil" | "round" | "trunc" => (name, 0),
                "ln" => ("log", 0),
                "ln_1p" => ("log1p", 0),
                "exp_m1" => ("expm1", 0),
                "abs" => ("fabs", 0),
                "powf" => ("pow", 1),
                "atan2" | "hypot" | "copysign" => (name, 1),
                "min" => ("fmin", 1),
                "max" => ("fmax", 1),
                "mul_add" => ("fma", 2),
                "recip" => {
                    let one = super::expr::literal_as("1.0", &t);
                    return Ok(CExpr {
                        code: format!("({one} / {x})"),
                        ty: Some(t),
                    });
                }
                "powi" => {
                    let base = if s == Scalar::F32 { "powf" } else { "pow" };
                    if a.len() != 1 {
                        return Err(syn::Error::new(span, "`powi` takes one exponent"));
                    }
                    let e = if s.is_struct_like() {
                        format!("cp_as<{}>({})", s.c(), a[0])
                    } else {
                        format!("({})({})", s.c(), a[0])
                    };
                    return Ok(CExpr {
                        code: format!("{base}({x}, {e})"),
                        ty: Some(t),
                    });
                }
                _ => return Err(unsupported_method(span, name)),
            };
            // f32 calls the `f`-suffixed C function; a placeholder calls
            // the overload CUDA's headers declare for float and double (the
            // jit support code adds the half types').
            let suffix = if s == Scalar::F32 { "f" } else { "" };
            let mut all = vec![x.clone()];
            all.extend_from_slice(&a);
            (format!("{base}{suffix}({})", all.join(", ")), n)
        } else if s.is_integer() {
            match name {
                "min" | "max" => (
                    format!("{name}({x}, {})", a.first().cloned().unwrap_or_default()),
                    1,
                ),
                "abs" => (format!("abs({x})"), 0),
                _ => return Err(unsupported_method(span, name)),
            }
        } else {
            return Err(unsupported_method(span, name));
        };
        if a.len() != n {
            return Err(syn::Error::new(
                span,
                format!("`.{name}()` takes {n} argument(s)"),
            ));
        }
        Ok(CExpr { code, ty: Some(t) })
    }
}

fn path_has(func: &syn::Expr, seg: &str) -> bool {
    matches!(func, syn::Expr::Path(p) if p.path.segments.iter().any(|s| s.ident == seg))
}

fn unsupported_method(span: proc_macro2::Span, name: &str) -> syn::Error {
    syn::Error::new(
        span,
        format!("`.{name}()` is not in the GPU subset: the math methods of f32/f64 (sin, exp, sqrt, mul_add, powf, min, max, abs, ...), `.len()` of arrays, and min/max/abs of integers are"),
    )
}

fn v_is_struct(v: &CExpr) -> bool {
    matches!(&v.ty, Some(Ty::Scalar(s)) if s.is_struct_like())
}

/// `.len()`, `.shape()`, `.rows()`, `.cols()` of a view parameter.
fn view_method(recv: &CExpr, name: &str, m: &syn::ExprMethodCall) -> syn::Result<Option<CExpr>> {
    let Some(Ty::View { rank, .. }) = &recv.ty else {
        return Ok(None);
    };
    let (rank, c) = (*rank, &recv.code);
    if !m.args.is_empty() {
        return Err(syn::Error::new(
            m.span(),
            format!("`.{name}()` of a view takes no arguments"),
        ));
    }
    let usize_ty = Some(Ty::Scalar(Scalar::Usize));
    let axis = |k: usize| CExpr {
        code: format!("cp_shape_{c}_{k}"),
        ty: usize_ty.clone(),
    };
    Ok(Some(match name {
        "len" => CExpr {
            code: format!(
                "({})",
                (0..rank)
                    .map(|k| format!("cp_shape_{c}_{k}"))
                    .collect::<Vec<_>>()
                    .join(" * ")
            ),
            ty: usize_ty,
        },
        "shape" => CExpr {
            code: c.clone(),
            ty: Some(Ty::ShapeOf { rank }),
        },
        "rows" if rank == 2 => axis(0),
        "cols" if rank == 2 => axis(1),
        _ => {
            return Err(syn::Error::new(
                m.span(),
                format!(
                    "a View{rank} has `.len()`, `.shape()[axis]`{} and indexing `x[({})]`",
                    if rank == 2 {
                        ", `.rows()`, `.cols()`"
                    } else {
                        ""
                    },
                    super::expr::index_names(rank)
                ),
            ))
        }
    }))
}
