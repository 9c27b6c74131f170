//! Rust function bodies into CUDA C: statements here, expressions in
//! `expr`, built-ins and math methods in `calls`.
//!
//! The translator types what it can (parameters, annotated and inferred
//! `let`s, built-ins) so that unsuffixed literals get the C spelling of the
//! type Rust would give them (`x * 0.5` on an `f32` is `x * 0.5f`, not a
//! double product). Anything outside the subset is a `syn::Error` spanned
//! on the construct, with a sentence saying what to write instead.

pub mod calls;
mod expr;

use std::collections::{HashMap, HashSet};

use syn::spanned::Spanned;

use crate::types::{c_ident, parse_type, Scalar, Ty};

/// A translated expression: C text and its type when known (`None` for an
/// unsuffixed literal whose type comes from its neighbours).
#[derive(Clone, Debug)]
pub struct CExpr {
    pub code: String,
    pub ty: Option<Ty>,
}

/// What the whole translation found besides the text.
#[derive(Default, Clone, Debug)]
pub struct Facts {
    /// `sync_threads` or a warp shuffle is called: on the CPU the threads
    /// of a block run concurrently so the barrier holds.
    pub needs_threads: bool,
    /// Bytes of `shared_array`s.
    pub static_shared_bytes: u64,
    pub uses_dynamic_shared: bool,
    pub uses_lane_id: bool,
}

/// The state of one function's translation.
#[derive(Clone)]
pub struct Translator {
    scopes: Vec<HashMap<String, (String, Ty)>>,
    c_names: HashSet<String>,
    placeholders: Vec<String>,
    /// The return type of a device function (`None` in a kernel).
    ret: Option<Scalar>,
    pub facts: Facts,
    out: String,
    depth: usize,
    loop_vars: usize,
    /// Set while probing a later assignment's type: names not yet in
    /// scope (a loop variable) are read as untyped instead of an error.
    lenient: bool,
}

impl Translator {
    pub fn new(placeholders: Vec<String>, ret: Option<Scalar>) -> Translator {
        Translator {
            scopes: vec![HashMap::new()],
            c_names: HashSet::new(),
            placeholders,
            ret,
            facts: Facts::default(),
            out: String::new(),
            depth: 1,
            loop_vars: 0,
            lenient: false,
        }
    }

    /// Declares a Rust name; returns its C name (fresh when the name was
    /// used before, since C++ forbids redeclaring in one block).
    pub fn declare(&mut self, rust: &str, ty: Ty) -> String {
        let base = c_ident(rust);
        let mut c = base.clone();
        let mut k = 1;
        while self.c_names.contains(&c) {
            c = format!("{base}_{k}");
            k += 1;
        }
        self.c_names.insert(c.clone());
        if let Some(s) = self.scopes.last_mut() {
            s.insert(rust.to_string(), (c.clone(), ty));
        }
        c
    }

    fn lookup(&self, rust: &str) -> Option<&(String, Ty)> {
        self.scopes.iter().rev().find_map(|s| s.get(rust))
    }

    /// Whether this is a per-element or reduction function (it returns a
    /// value) rather than a kernel.
    pub fn is_device_function(&self) -> bool {
        self.ret.is_some()
    }

    pub fn placeholders(&self) -> &[String] {
        &self.placeholders
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The translated body text (statements, indented one level).
    pub fn body(&self) -> &str {
        &self.out
    }

    /// Translates a function body; a device function's tail expression
    /// becomes its `return`.
    pub fn block_body(&mut self, block: &syn::Block) -> syn::Result<()> {
        let n = block.stmts.len();
        for (k, s) in block.stmts.iter().enumerate() {
            let is_tail = k + 1 == n;
            match s {
                syn::Stmt::Expr(e, None) if is_tail && self.ret.is_some() && !is_statement(e) => {
                    let expected = self.ret.clone().map(Ty::Scalar);
                    let v = self.expr(e, expected.as_ref())?;
                    self.line(&format!("return {};", v.code));
                }
                _ => self.stmt(s, &block.stmts[k + 1..])?,
            }
        }
        Ok(())
    }

    fn nested_block(&mut self, block: &syn::Block) -> syn::Result<()> {
        self.scopes.push(HashMap::new());
        self.depth += 1;
        for (k, s) in block.stmts.iter().enumerate() {
            self.stmt(s, &block.stmts[k + 1..])?;
        }
        self.depth -= 1;
        self.scopes.pop();
        Ok(())
    }

    fn stmt(&mut self, s: &syn::Stmt, rest: &[syn::Stmt]) -> syn::Result<()> {
        match s {
            syn::Stmt::Local(l) => self.local(l, rest),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e),
            syn::Stmt::Item(i) => Err(syn::Error::new(
                i.span(),
                "items (fn, struct, use, const) cannot be declared inside a GPU kernel; write the code inline or pass values as parameters",
            )),
            syn::Stmt::Macro(m) => Err(expr::macro_error(&m.mac)),
        }
    }

    fn local(&mut self, l: &syn::Local, rest: &[syn::Stmt]) -> syn::Result<()> {
        let (ident, annotated) = match &l.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (&p.ident, None),
            syn::Pat::Type(t) => match &*t.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (
                    &p.ident,
                    Some(parse_type(&t.ty, &self.placeholders, false)?),
                ),
                other => return Err(pattern_error(other)),
            },
            other => return Err(pattern_error(other)),
        };
        let name = ident.to_string();
        let Some(init) = &l.init else {
            let Some(ty) = annotated else {
                return Err(syn::Error::new(
                    l.span(),
                    "a `let` without a value needs a type: write `let x: f32;`",
                ));
            };
            let c = self.declare(&name, ty.clone());
            let cty = ty.scalar().map(|s| s.c()).unwrap_or_default();
            self.line(&format!("{cty} {c};"));
            return Ok(());
        };
        if let Some((_, diverge)) = &init.diverge {
            return Err(syn::Error::new(
                diverge.span(),
                "`let ... else` is not in the GPU subset; use `if` and `return`",
            ));
        }
        if let Some(shared) = calls::shared_decl(self, &init.expr)? {
            let (elem, len) = shared;
            let c = self.declare(
                &name,
                Ty::Shared {
                    elem: elem.clone(),
                    len,
                },
            );
            match len {
                Some(n) => self.line(&format!("__shared__ {} {c}[{n}];", elem.c())),
                None => self.line(&format!(
                    "{t}* {c} = reinterpret_cast<{t}*>(cp_dynamic_smem);",
                    t = elem.c()
                )),
            }
            return Ok(());
        }
        let mut value = self.expr(&init.expr, annotated.as_ref())?;
        let ty = match (&annotated, &value.ty) {
            (Some(t), _) => t.clone(),
            (None, Some(t)) => t.clone(),
            (None, None) => {
                // An unsuffixed literal: Rust takes its type from a later
                // assignment (`s += x[i]`), else i32 / f64.
                let t = self.later_assignment_type(&name, rest).unwrap_or_else(|| {
                    if value.code.contains('.') || value.code.contains('e') {
                        Ty::Scalar(Scalar::F64)
                    } else {
                        Ty::Scalar(Scalar::I32)
                    }
                });
                value = self.expr(&init.expr, Some(&t))?;
                t
            }
        };
        let Ty::Scalar(sc) = &ty else {
            return Err(syn::Error::new(
                init.expr.span(),
                "only scalars can be bound with `let`; index arrays where they are used (`x[i]`)",
            ));
        };
        let c = self.declare(&name, ty.clone());
        self.line(&format!("{} {c} = {};", sc.c(), value.code));
        Ok(())
    }

    /// The type of the first `name = e` / `name op= e` among `rest`.
    fn later_assignment_type(&self, name: &str, rest: &[syn::Stmt]) -> Option<Ty> {
        use syn::visit::Visit;
        struct Find<'a> {
            name: &'a str,
            found: Option<syn::Expr>,
        }
        impl<'ast> Visit<'ast> for Find<'_> {
            fn visit_expr(&mut self, e: &'ast syn::Expr) {
                if self.found.is_some() {
                    return;
                }
                let (lhs, rhs) = match e {
                    syn::Expr::Assign(a) => (&*a.left, &*a.right),
                    syn::Expr::Binary(b) if expr::compound_op(&b.op).is_some() => {
                        (&*b.left, &*b.right)
                    }
                    _ => return syn::visit::visit_expr(self, e),
                };
                if matches!(lhs, syn::Expr::Path(p) if p.path.is_ident(self.name)) {
                    self.found = Some(rhs.clone());
                } else {
                    syn::visit::visit_expr(self, e);
                }
            }
        }
        let mut f = Find { name, found: None };
        for s in rest {
            f.visit_stmt(s);
        }
        let rhs = f.found?;
        let mut probe = self.clone();
        probe.lenient = true;
        probe.expr(&rhs, None).ok()?.ty
    }

    fn expr_stmt(&mut self, e: &syn::Expr) -> syn::Result<()> {
        match e {
            syn::Expr::If(i) => self.if_stmt(i),
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::While(w) => {
                label_error(&w.label)?;
                let c = self.expr(&w.cond, Some(&Ty::Scalar(Scalar::Bool)))?;
                self.line(&format!("while ({}) {{", c.code));
                self.nested_block(&w.body)?;
                self.line("}");
                Ok(())
            }
            syn::Expr::Loop(l) => {
                label_error(&l.label)?;
                self.line("while (true) {");
                self.nested_block(&l.body)?;
                self.line("}");
                Ok(())
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                self.line("{");
                self.nested_block(&b.block)?;
                self.line("}");
                Ok(())
            }
            syn::Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return Err(syn::Error::new(
                        b.span(),
                        "only a plain `break;` is supported (no labels or values)",
                    ));
                }
                self.line("break;");
                Ok(())
            }
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    return Err(syn::Error::new(
                        c.span(),
                        "only a plain `continue;` is supported (no labels)",
                    ));
                }
                self.line("continue;");
                Ok(())
            }
            syn::Expr::Return(r) => {
                match (&r.expr, &self.ret) {
                    (None, None) => self.line("return;"),
                    (Some(v), Some(t)) => {
                        let v = self.expr(v, Some(&Ty::Scalar(t.clone())))?;
                        self.line(&format!("return {};", v.code));
                    }
                    (Some(v), None) => {
                        return Err(syn::Error::new(
                            v.span(),
                            "a kernel returns nothing: write results into a `&mut [T]` parameter",
                        ))
                    }
                    (None, Some(_)) => {
                        return Err(syn::Error::new(
                            r.span(),
                            "this function must return a value",
                        ))
                    }
                }
                Ok(())
            }
            syn::Expr::Assign(a) => {
                let lhs = self.place(&a.left)?;
                let rhs = self.expr(&a.right, lhs.ty.as_ref())?;
                self.line(&format!("{} = {};", lhs.code, rhs.code));
                Ok(())
            }
            syn::Expr::Binary(b) if expr::compound_op(&b.op).is_some() => {
                let lhs = self.place(&b.left)?;
                let rhs = self.expr(&b.right, lhs.ty.as_ref())?;
                let op = expr::compound_op(&b.op).unwrap_or("=");
                if op == "%" && expr::is_float(&lhs.ty) {
                    self.line(&format!("{0} = cp_fmod({0}, {1});", lhs.code, rhs.code));
                } else {
                    self.line(&format!("{} {op}= {};", lhs.code, rhs.code));
                }
                Ok(())
            }
            _ => {
                let v = self.expr(e, None)?;
                self.line(&format!("{};", v.code));
                Ok(())
            }
        }
    }

    /// The left side of an assignment: a local or an element.
    fn place(&mut self, e: &syn::Expr) -> syn::Result<CExpr> {
        match e {
            syn::Expr::Index(ix) => {
                let base = self.expr(&ix.expr, None)?;
                if let Some(Ty::Slice { mutable: false, .. } | Ty::View { mutable: false, .. }) =
                    &base.ty
                {
                    return Err(syn::Error::new(
                        ix.expr.span(),
                        "this array is read-only: declare the parameter `&mut [T]` (or `View2Mut<T>`) to write to it",
                    ));
                }
                self.expr(e, None)
            }
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let v = self.expr(e, None)?;
                if !matches!(v.ty, Some(Ty::Scalar(_))) {
                    return Err(syn::Error::new(
                        p.span(),
                        "only scalar locals and array elements can be assigned",
                    ));
                }
                Ok(v)
            }
            syn::Expr::Paren(p) => self.place(&p.expr),
            _ => Err(syn::Error::new(
                e.span(),
                "only a local (`s = ...`) or an element (`out[i] = ...`) can be assigned",
            )),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> syn::Result<()> {
        let c = self.expr(&i.cond, Some(&Ty::Scalar(Scalar::Bool)))?;
        self.line(&format!("if ({}) {{", c.code));
        self.nested_block(&i.then_branch)?;
        let mut tail = i.else_branch.as_ref();
        while let Some((_, e)) = tail {
            match &**e {
                syn::Expr::If(ei) => {
                    let c = self.expr(&ei.cond, Some(&Ty::Scalar(Scalar::Bool)))?;
                    self.line(&format!("}} else if ({}) {{", c.code));
                    self.nested_block(&ei.then_branch)?;
                    tail = ei.else_branch.as_ref();
                }
                syn::Expr::Block(b) => {
                    self.line("} else {");
                    self.nested_block(&b.block)?;
                    tail = None;
                }
                other => return Err(syn::Error::new(other.span(), "unsupported `else` branch")),
            }
        }
        self.line("}");
        Ok(())
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> syn::Result<()> {
        label_error(&f.label)?;
        let syn::Pat::Ident(p) = &*f.pat else {
            return Err(syn::Error::new(
                f.pat.span(),
                "a `for` loop binds one name: `for i in 0..n`",
            ));
        };
        let (start, end, inclusive, step) = self.loop_range(&f.expr)?;
        self.scopes.push(HashMap::new());
        let ty = start
            .ty
            .clone()
            .or_else(|| end.ty.clone())
            .unwrap_or(Ty::Scalar(Scalar::I32));
        let start = self.retype(&f.expr, start, &ty)?;
        let end = self.retype(&f.expr, end, &ty)?;
        let Ty::Scalar(sc) = &ty else {
            return Err(syn::Error::new(
                f.expr.span(),
                "loop bounds must be integers",
            ));
        };
        // The bound and step are evaluated once, as Rust evaluates the range once.
        self.loop_vars += 1;
        let k = self.loop_vars;
        let i = self.declare(&p.ident.to_string(), ty.clone());
        let cmp = if inclusive { "<=" } else { "<" };
        let step_code = match step {
            Some(s) => self.retype(&f.expr, s, &ty)?.code,
            None => "1".into(),
        };
        self.line(&format!(
            "for ({t} {i} = {}, cp_end{k} = {}, cp_step{k} = {step_code}; {i} {cmp} cp_end{k}; {i} += cp_step{k}) {{",
            start.code,
            end.code,
            t = sc.c()
        ));
        self.nested_block(&f.body)?;
        self.line("}");
        self.scopes.pop();
        Ok(())
    }

    /// `a..b`, `a..=b`, `(a..b).step_by(s)` or `grid_stride(n)`.
    #[allow(clippy::type_complexity)]
    fn loop_range(&mut self, e: &syn::Expr) -> syn::Result<(CExpr, CExpr, bool, Option<CExpr>)> {
        match e {
            syn::Expr::Paren(p) => self.loop_range(&p.expr),
            syn::Expr::Range(r) => {
                let (Some(a), Some(b)) = (&r.start, &r.end) else {
                    return Err(syn::Error::new(r.span(), "a loop range needs both ends: `a..b`"));
                };
                let a = self.expr(a, None)?;
                let b = self.expr(b, a.ty.as_ref())?;
                let a = match (&a.ty, &b.ty) {
                    (None, Some(t)) => {
                        let t = t.clone();
                        self.retype(e, a, &t)?
                    }
                    _ => a,
                };
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                Ok((a, b, inclusive, None))
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let (a, b, inc, _) = self.loop_range(&m.receiver)?;
                let ty = a.ty.clone().or_else(|| b.ty.clone());
                let s = self.expr(&m.args[0], ty.as_ref())?;
                Ok((a, b, inc, Some(s)))
            }
            syn::Expr::Call(c) if calls::call_name(&c.func).as_deref() == Some("grid_stride") => {
                if c.args.len() != 1 {
                    return Err(syn::Error::new(c.span(), "`grid_stride(n)` takes the element count"));
                }
                let n = self.expr(&c.args[0], Some(&Ty::Scalar(Scalar::Usize)))?;
                let t = Ty::Scalar(Scalar::Usize);
                let start = CExpr {
                    code: "((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)".into(),
                    ty: Some(t.clone()),
                };
                let step = CExpr {
                    code: "((unsigned long long)blockDim.x * gridDim.x)".into(),
                    ty: Some(t.clone()),
                };
                let n = CExpr { code: format!("((unsigned long long)({}))", n.code), ty: Some(t) };
                Ok((start, n, false, Some(step)))
            }
            _ => Err(syn::Error::new(
                e.span(),
                "a GPU `for` loop runs over a range: `for i in a..b`, `(a..b).step_by(s)` or `grid_stride(n)`; iterators and collections are not supported",
            )),
        }
    }

    /// A value re-spelled for type `ty` when its own type was open.
    fn retype(&mut self, _at: &syn::Expr, v: CExpr, ty: &Ty) -> syn::Result<CExpr> {
        if v.ty.is_some() {
            return Ok(v);
        }
        Ok(CExpr {
            code: expr::literal_as(&v.code, ty),
            ty: Some(ty.clone()),
        })
    }
}

fn is_statement(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) | syn::Expr::Assign(_)
    ) || matches!(e, syn::Expr::If(i) if i.else_branch.is_none())
}

fn pattern_error(p: &syn::Pat) -> syn::Error {
    syn::Error::new(
        p.span(),
        "only `let name = ...;` or `let mut name: T = ...;` is supported (no tuples or destructuring)",
    )
}

fn label_error(l: &Option<syn::Label>) -> syn::Result<()> {
    match l {
        Some(l) => Err(syn::Error::new(
            l.span(),
            "loop labels are not supported; use a flag variable",
        )),
        None => Ok(()),
    }
}
