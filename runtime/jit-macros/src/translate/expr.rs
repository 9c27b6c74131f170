//! Expressions: literals, locals, operators, casts, indexing, `if` values.

use syn::spanned::Spanned;

use super::{CExpr, Translator};
use crate::types::{parse_type, Scalar, Ty};

/// The C operator of a compound assignment (`+=` → `+`).
pub fn compound_op(op: &syn::BinOp) -> Option<&'static str> {
    use syn::BinOp::*;
    Some(match op {
        AddAssign(_) => "+",
        SubAssign(_) => "-",
        MulAssign(_) => "*",
        DivAssign(_) => "/",
        RemAssign(_) => "%",
        BitXorAssign(_) => "^",
        BitAndAssign(_) => "&",
        BitOrAssign(_) => "|",
        ShlAssign(_) => "<<",
        ShrAssign(_) => ">>",
        _ => return None,
    })
}

/// A literal (or an expression of literals) spelled as type `ty`.
pub fn literal_as(code: &str, ty: &Ty) -> String {
    let Ty::Scalar(s) = ty else {
        return code.to_string();
    };
    let is_number = code
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == 'e' || c == '-');
    let has_point = code.contains('.') || code.contains('e');
    if s.is_struct_like() {
        // A half or a placeholder: converted from a float literal.
        return match (is_number, has_point) {
            (true, true) => format!("cp_as<{}>({code}f)", s.c()),
            (true, false) => format!("cp_as<{}>({code}.0f)", s.c()),
            (false, _) => format!("cp_as<{}>({code})", s.c()),
        };
    }
    if !is_number {
        return format!("(({})({code}))", s.c());
    }
    match s {
        Scalar::F32 if has_point => format!("{code}f"),
        Scalar::F32 => format!("{code}.0f"),
        Scalar::F64 if has_point => code.to_string(),
        Scalar::F64 => format!("{code}.0"),
        Scalar::U32 => format!("{code}u"),
        Scalar::I64 | Scalar::Isize => format!("{code}ll"),
        Scalar::U64 | Scalar::Usize => format!("{code}ull"),
        Scalar::I32 => code.to_string(),
        _ => format!("(({})({code}))", s.c()),
    }
}

/// The message for a macro call in a kernel.
pub fn macro_error(m: &syn::Macro) -> syn::Error {
    let name = m
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let msg = match name.as_str() {
        "panic" | "assert" | "assert_eq" | "assert_ne" | "unreachable" | "todo" | "unimplemented" => {
            "a GPU kernel cannot panic: check the condition with `if` and `return` early (or write a flag into an output array)"
        }
        "vec" => "heap allocation is not available in a GPU kernel: use `shared_array::<T, N>()` or pass an output array",
        "println" | "print" | "eprintln" | "format" | "write" | "writeln" | "dbg" => {
            "strings and printing are not available in a GPU kernel: write values into an output array and print them on the host"
        }
        _ => "macros cannot be translated for the GPU: write the code they expand to",
    };
    syn::Error::new(m.span(), format!("`{name}!` in a kernel: {msg}"))
}

impl Translator {
    /// Translates `e`; `expected` types unsuffixed literals.
    pub fn expr(&mut self, e: &syn::Expr, expected: Option<&Ty>) -> syn::Result<CExpr> {
        match e {
            syn::Expr::Lit(l) => self.lit(&l.lit, expected),
            syn::Expr::Paren(p) => {
                let v = self.expr(&p.expr, expected)?;
                Ok(CExpr { code: format!("({})", v.code), ty: v.ty })
            }
            syn::Expr::Group(g) => self.expr(&g.expr, expected),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Binary(b) => self.binary(b, expected),
            syn::Expr::Unary(u) => self.unary(u, expected),
            syn::Expr::Cast(c) => {
                let to = parse_type(&c.ty, self.placeholders(), false)?;
                let v = self.expr(&c.expr, None)?;
                let to_c = to.scalar().map(|s| s.c()).unwrap_or_default();
                let structs = |t: &Option<Ty>| matches!(t, Some(Ty::Scalar(s)) if s.is_struct_like());
                let code = if structs(&Some(to.clone())) || structs(&v.ty) {
                    format!("cp_as<{to_c}>({})", v.code)
                } else {
                    format!("(({to_c})({}))", v.code)
                };
                Ok(CExpr { code, ty: Some(to) })
            }
            syn::Expr::Index(i) => self.index(i),
            syn::Expr::Field(f) => self.field(f),
            syn::Expr::MethodCall(m) => self.method(m, expected),
            syn::Expr::Call(c) => self.call(c, expected),
            syn::Expr::If(i) => self.if_value(i, expected),
            syn::Expr::Macro(m) => Err(macro_error(&m.mac)),
            syn::Expr::Closure(c) => Err(syn::Error::new(
                c.span(),
                "closures cannot run on the GPU: write the code inline (a loop or an `if`)",
            )),
            syn::Expr::Reference(r) => Err(syn::Error::new(
                r.span(),
                "references cannot be taken in a kernel: index the array where it is used; atomics take the array and the index, `atomic_add(hist, i, 1)`",
            )),
            syn::Expr::Unsafe(u) => Err(syn::Error::new(u.span(), "`unsafe` blocks are not needed or supported in a kernel")),
            syn::Expr::Range(r) => Err(syn::Error::new(r.span(), "ranges are only supported as `for` loop bounds")),
            syn::Expr::Tuple(t) => Err(syn::Error::new(t.span(), "tuples are not in the GPU subset: use separate `let`s")),
            syn::Expr::Array(a) => Err(syn::Error::new(
                a.span(),
                "array literals are not in the GPU subset: use `shared_array::<T, N>()` or an array parameter",
            )),
            syn::Expr::Struct(s) => Err(syn::Error::new(s.span(), "structs are not in the GPU subset: pass their fields as parameters")),
            syn::Expr::Try(t) => Err(syn::Error::new(t.span(), "`?` is not available in a kernel: nothing in it can fail")),
            syn::Expr::Block(b) => Err(syn::Error::new(b.span(), "a block is not a value in the GPU subset: use `if c { a } else { b }` or a `let`")),
            other => Err(syn::Error::new(
                other.span(),
                "this expression is not in the GPU subset (see cp::jit's documentation for what is)",
            )),
        }
    }

    fn lit(&mut self, l: &syn::Lit, expected: Option<&Ty>) -> syn::Result<CExpr> {
        let suffixed = |suffix: &str, digits: &str| -> syn::Result<CExpr> {
            let ty = Scalar::from_name(suffix, &[])
                .ok_or_else(|| syn::Error::new(l.span(), "unsupported literal suffix"))?;
            let t = Ty::Scalar(ty);
            Ok(CExpr {
                code: literal_as(digits, &t),
                ty: Some(t),
            })
        };
        match l {
            syn::Lit::Int(i) => {
                let digits = i.base10_digits().to_string();
                if !i.suffix().is_empty() {
                    return suffixed(i.suffix(), &digits);
                }
                match expected {
                    Some(t @ Ty::Scalar(_)) => Ok(CExpr { code: literal_as(&digits, t), ty: Some(t.clone()) }),
                    _ => Ok(CExpr { code: digits, ty: None }),
                }
            }
            syn::Lit::Float(f) => {
                let mut digits = f.base10_digits().to_string();
                if !digits.contains('.') && !digits.contains('e') {
                    digits.push_str(".0");
                }
                if !f.suffix().is_empty() {
                    return suffixed(f.suffix(), &digits);
                }
                match expected {
                    Some(t @ Ty::Scalar(s)) if s.is_float() => Ok(CExpr { code: literal_as(&digits, t), ty: Some(t.clone()) }),
                    _ => Ok(CExpr { code: digits, ty: None }),
                }
            }
            syn::Lit::Bool(b) => Ok(CExpr { code: b.value.to_string(), ty: Some(Ty::Scalar(Scalar::Bool)) }),
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => Err(syn::Error::new(
                l.span(),
                "strings cannot be used in a GPU kernel (no `String` or `&str` on the device): pass numbers and arrays",
            )),
            _ => Err(syn::Error::new(l.span(), "only numbers and `true`/`false` are literals in a kernel")),
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> syn::Result<CExpr> {
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            return match self.lookup(&name) {
                Some((c, ty)) => Ok(CExpr { code: c.clone(), ty: Some(ty.clone()) }),
                None if self.lenient => Ok(CExpr { code: name, ty: None }),
                None if self.is_device_function() => Err(syn::Error::new(
                    id.span(),
                    format!("`{name}` is not a parameter or a local of this function: GPU code cannot read outer variables; add a parameter and pass `{name}` as a scalar argument of the call"),
                )),
                None => Err(syn::Error::new(
                    id.span(),
                    format!("`{name}` is not a parameter or a local of this kernel: a GPU kernel cannot read outer variables; pass `{name}` as a parameter"),
                )),
            };
        }
        super::calls::constant(self, p)
    }

    fn binary(&mut self, b: &syn::ExprBinary, expected: Option<&Ty>) -> syn::Result<CExpr> {
        use syn::BinOp::*;
        if compound_op(&b.op).is_some() {
            return Err(syn::Error::new(
                b.span(),
                "a compound assignment is a statement: end it with `;`",
            ));
        }
        let (op, logical, comparison, shift) = match &b.op {
            Add(_) => ("+", false, false, false),
            Sub(_) => ("-", false, false, false),
            Mul(_) => ("*", false, false, false),
            Div(_) => ("/", false, false, false),
            Rem(_) => ("%", false, false, false),
            And(_) => ("&&", true, false, false),
            Or(_) => ("||", true, false, false),
            BitXor(_) => ("^", false, false, false),
            BitAnd(_) => ("&", false, false, false),
            BitOr(_) => ("|", false, false, false),
            Shl(_) => ("<<", false, false, true),
            Shr(_) => (">>", false, false, true),
            Eq(_) => ("==", false, true, false),
            Lt(_) => ("<", false, true, false),
            Le(_) => ("<=", false, true, false),
            Ne(_) => ("!=", false, true, false),
            Ge(_) => (">=", false, true, false),
            Gt(_) => (">", false, true, false),
            _ => return Err(syn::Error::new(b.span(), "unsupported operator")),
        };
        let bool_ty = Ty::Scalar(Scalar::Bool);
        if logical {
            let l = self.expr(&b.left, Some(&bool_ty))?;
            let r = self.expr(&b.right, Some(&bool_ty))?;
            return Ok(CExpr {
                code: format!("({} {op} {})", l.code, r.code),
                ty: Some(bool_ty),
            });
        }
        let operand_hint = if comparison || shift { None } else { expected };
        let mut l = self.expr(&b.left, operand_hint)?;
        let r = if shift {
            self.expr(&b.right, None)?
        } else {
            let hint = l.ty.clone().or_else(|| operand_hint.cloned());
            let r = self.expr(&b.right, hint.as_ref())?;
            if l.ty.is_none() {
                if let Some(t) = r.ty.clone() {
                    l = self.expr(&b.left, Some(&t))?;
                }
            }
            r
        };
        let ty = if comparison {
            Some(bool_ty)
        } else {
            l.ty.clone().or(r.ty.clone())
        };
        // Rust's `%` on floats is C's fmod (C has no `%` for them); `cp_fmod`
        // (jit_support.cuh) picks the overload, the half types included.
        let code = if op == "%" && is_float(&ty) {
            format!("cp_fmod({}, {})", l.code, r.code)
        } else {
            format!("({} {op} {})", l.code, r.code)
        };
        Ok(CExpr { code, ty })
    }

    fn unary(&mut self, u: &syn::ExprUnary, expected: Option<&Ty>) -> syn::Result<CExpr> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let v = self.expr(&u.expr, expected)?;
                if v.ty.is_none() {
                    return Ok(CExpr { code: format!("-{}", v.code), ty: None });
                }
                Ok(CExpr { code: format!("(-{})", v.code), ty: v.ty })
            }
            syn::UnOp::Not(_) => {
                let v = self.expr(&u.expr, expected)?;
                let op = match &v.ty {
                    Some(Ty::Scalar(s)) if s.is_integer() => "~",
                    _ => "!",
                };
                Ok(CExpr { code: format!("({op}{})", v.code), ty: v.ty })
            }
            _ => Err(syn::Error::new(
                u.span(),
                "dereferencing is not in the GPU subset: index arrays (`x[i]`) and use locals by name",
            )),
        }
    }

    fn index(&mut self, i: &syn::ExprIndex) -> syn::Result<CExpr> {
        let base = self.expr(&i.expr, None)?;
        let elem = match &base.ty {
            Some(Ty::Slice { elem, .. }) | Some(Ty::Shared { elem, .. }) => elem.clone(),
            Some(Ty::View { elem, rank, .. }) => {
                let (elem, rank) = (elem.clone(), *rank);
                return self.view_index(i, &base.code, elem, rank);
            }
            Some(Ty::ShapeOf { rank }) => return shape_index(i, &base.code, *rank),
            _ => {
                return Err(syn::Error::new(
                    i.expr.span(),
                    "only array parameters, views and shared arrays can be indexed",
                ))
            }
        };
        if let syn::Expr::Tuple(t) = &*i.index {
            return Err(syn::Error::new(
                t.span(),
                "a slice takes one index; for `x[(i, j)]` declare the parameter as a view (`View2<f32>`)",
            ));
        }
        let idx = self.integer_index(&i.index)?;
        Ok(CExpr {
            code: format!("{}[{}]", base.code, idx),
            ty: Some(Ty::Scalar(elem)),
        })
    }

    fn integer_index(&mut self, e: &syn::Expr) -> syn::Result<String> {
        let idx = self.expr(e, Some(&Ty::Scalar(Scalar::Usize)))?;
        if let Some(Ty::Scalar(s)) = &idx.ty {
            if !s.is_integer() {
                return Err(syn::Error::new(
                    e.span(),
                    "an index must be an integer (`x[i as usize]`)",
                ));
            }
        }
        Ok(idx.code)
    }

    /// `x[(i, j)]` of a view: the offset from its strides (in elements).
    fn view_index(
        &mut self,
        i: &syn::ExprIndex,
        c: &str,
        elem: Scalar,
        rank: usize,
    ) -> syn::Result<CExpr> {
        let parts: Vec<&syn::Expr> = match &*i.index {
            syn::Expr::Tuple(t) => t.elems.iter().collect(),
            syn::Expr::Paren(p) if rank == 1 => vec![&*p.expr],
            e if rank == 1 => vec![e],
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    format!(
                        "a View{rank} takes {rank} indices: `x[({})]`",
                        index_names(rank)
                    ),
                ))
            }
        };
        if parts.len() != rank {
            return Err(syn::Error::new(
                i.index.span(),
                format!(
                    "a View{rank} takes {rank} indices but {} were given: `x[({})]`",
                    parts.len(),
                    index_names(rank)
                ),
            ));
        }
        let mut terms = Vec::new();
        for (k, e) in parts.into_iter().enumerate() {
            let idx = self.integer_index(e)?;
            terms.push(format!("(long long)({idx}) * cp_stride_{c}_{k}"));
        }
        Ok(CExpr {
            code: format!("{c}[{}]", terms.join(" + ")),
            ty: Some(Ty::Scalar(elem)),
        })
    }
    fn field(&mut self, f: &syn::ExprField) -> syn::Result<CExpr> {
        let base = self.expr(&f.base, None)?;
        let name = match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(_) => String::new(),
        };
        if base.ty != Some(Ty::Dim3) || !matches!(name.as_str(), "x" | "y" | "z") {
            return Err(syn::Error::new(
                f.span(),
                "fields are only `.x`, `.y`, `.z` of `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()`",
            ));
        }
        Ok(CExpr {
            code: format!("{}.{name}", base.code),
            ty: Some(Ty::Scalar(Scalar::U32)),
        })
    }

    fn if_value(&mut self, i: &syn::ExprIf, expected: Option<&Ty>) -> syn::Result<CExpr> {
        let single = |b: &syn::Block| -> Option<syn::Expr> {
            match b.stmts.as_slice() {
                [syn::Stmt::Expr(e, None)] => Some(e.clone()),
                _ => None,
            }
        };
        let then = single(&i.then_branch);
        let other = match &i.else_branch {
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => single(&b.block),
                syn::Expr::If(_) => Some((**e).clone()),
                _ => None,
            },
            None => None,
        };
        let (Some(then), Some(other)) = (then, other) else {
            return Err(syn::Error::new(
                i.span(),
                "an `if` used as a value needs one expression in each branch: `if c { a } else { b }`",
            ));
        };
        let c = self.expr(&i.cond, Some(&Ty::Scalar(Scalar::Bool)))?;
        let mut a = self.expr(&then, expected)?;
        let b = self.expr(&other, a.ty.as_ref().or(expected))?;
        if a.ty.is_none() {
            if let Some(t) = b.ty.clone() {
                a = self.expr(&then, Some(&t))?;
            }
        }
        Ok(CExpr {
            code: format!("({} ? {} : {})", c.code, a.code, b.code),
            ty: a.ty.or(b.ty),
        })
    }
}

/// Whether a value of type `ty` is a floating-point scalar.
pub(super) fn is_float(ty: &Option<Ty>) -> bool {
    matches!(ty, Some(Ty::Scalar(s)) if s.is_float())
}

pub fn index_names(rank: usize) -> &'static str {
    ["i", "i, j", "i, j, k"][rank.clamp(1, 3) - 1]
}

/// `x.shape()[k]` with a literal `k`.
fn shape_index(i: &syn::ExprIndex, c: &str, rank: usize) -> syn::Result<CExpr> {
    let k = match &*i.index {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<usize>().ok(),
        _ => None,
    };
    match k {
        Some(k) if k < rank => Ok(CExpr {
            code: format!("cp_shape_{c}_{k}"),
            ty: Some(Ty::Scalar(Scalar::Usize)),
        }),
        _ => Err(syn::Error::new(
            i.index.span(),
            format!("a view's shape is indexed with a literal axis below {rank}: `x.shape()[0]`"),
        )),
    }
}
