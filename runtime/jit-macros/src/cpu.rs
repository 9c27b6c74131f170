//! The CPU form of a kernel body: the user's Rust with element access
//! through checked accessors (`x[i]` → `x.at(i)?`, `out[i] = v` →
//! `out.set(i, v)?`) and the built-ins called through
//! `cuprite::jit::__private`, so that an out-of-bounds index or a broken
//! barrier comes back as an error instead of a panic.

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;

use crate::translate::calls::{BUILTINS, FALLIBLE};

/// Rewrites a kernel body for the CPU.
pub fn rewrite(block: &syn::Block) -> syn::Block {
    let mut b = block.clone();
    Rewrite { shared_ids: 0 }.visit_block_mut(&mut b);
    b
}

struct Rewrite {
    shared_ids: u32,
}

fn builtin_name(func: &syn::Expr) -> Option<String> {
    let syn::Expr::Path(p) = func else {
        return None;
    };
    let last = p.path.segments.last()?.ident.to_string();
    BUILTINS.contains(&last.as_str()).then_some(last)
}

fn binop_of_compound(op: &syn::BinOp) -> Option<TokenStream> {
    use syn::BinOp::*;
    Some(match op {
        AddAssign(_) => quote!(+),
        SubAssign(_) => quote!(-),
        MulAssign(_) => quote!(*),
        DivAssign(_) => quote!(/),
        RemAssign(_) => quote!(%),
        BitXorAssign(_) => quote!(^),
        BitAndAssign(_) => quote!(&),
        BitOrAssign(_) => quote!(|),
        ShlAssign(_) => quote!(<<),
        ShrAssign(_) => quote!(>>),
        _ => return None,
    })
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Assign(a) => {
                if let syn::Expr::Index(ix) = &mut *a.left {
                    self.visit_expr_mut(&mut ix.expr);
                    self.visit_expr_mut(&mut ix.index);
                    self.visit_expr_mut(&mut a.right);
                    let (base, idx, rhs) = (&ix.expr, &ix.index, &a.right);
                    *e = syn::parse_quote!(#base.set(#idx, #rhs)?);
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            syn::Expr::Binary(b) if binop_of_compound(&b.op).is_some() => {
                if let syn::Expr::Index(ix) = &mut *b.left {
                    self.visit_expr_mut(&mut ix.expr);
                    self.visit_expr_mut(&mut ix.index);
                    self.visit_expr_mut(&mut b.right);
                    let (base, idx, rhs) = (&ix.expr, &ix.index, &b.right);
                    let op = binop_of_compound(&b.op);
                    *e = syn::parse_quote!({
                        let __cp_i = #idx;
                        let __cp_v = #rhs;
                        #base.set(__cp_i, #base.at(__cp_i)? #op __cp_v)?
                    });
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            // A view's shape is a plain `[usize; N]`.
            syn::Expr::Index(ix) if matches!(&*ix.expr, syn::Expr::MethodCall(m) if m.method == "shape") => {
                syn::visit_mut::visit_expr_mut(self, e)
            }
            syn::Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.expr);
                self.visit_expr_mut(&mut ix.index);
                let (base, idx) = (&ix.expr, &ix.index);
                *e = syn::parse_quote!((#base.at(#idx)?));
            }
            syn::Expr::Return(r) if r.expr.is_none() => {
                *e = syn::parse_quote!(return ::core::result::Result::Ok(()));
            }
            syn::Expr::Call(c) => {
                for a in c.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
                let Some(name) = builtin_name(&c.func) else {
                    syn::visit_mut::visit_expr_mut(self, e);
                    return;
                };
                let ident = syn::Ident::new(&name, proc_macro2::Span::call_site());
                // Keep the turbofish (`shared_array::<f32, 256>`).
                let generics = match &*c.func {
                    syn::Expr::Path(p) => p.path.segments.last().map(|s| s.arguments.clone()),
                    _ => None,
                };
                let mut args: Vec<TokenStream> = c.args.iter().map(|a| quote!(#a)).collect();
                if name == "shared_array" {
                    let id = self.shared_ids;
                    self.shared_ids += 1;
                    args.push(quote!(#id));
                }
                let call = quote!(::cuprite::jit::__private::#ident #generics (#(#args),*));
                *e = if FALLIBLE.contains(&name.as_str()) {
                    syn::parse_quote!((#call?))
                } else {
                    syn::parse_quote!(#call)
                };
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}
