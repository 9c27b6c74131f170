//! `#[cp::jit::reduction]` on a `mod` holding the reduction's parts as
//! Rust items:
//!
//! ```ignore
//! #[cp::jit::reduction]
//! mod l2_norm {
//!     const IDENTITY: T = T::from_f64(0.0);       // the fold's start
//!     fn map<T: cp::jit::Float>(x: T) -> T { x * x }          // per element
//!     fn combine<T: cp::jit::Float>(a: T, b: T) -> T { a + b } // associative
//!     fn post<T: cp::jit::Float>(a: T, n: usize) -> T { a.sqrt() } // optional
//! }
//! ```
//!
//! On a GPU the parts become the device functions that the map, reduce and
//! post-map expressions of a `ReductionKernel` call (so its launch, axes
//! and two-pass splitting are reused); on the CPU they run natively, each
//! output folded left to right from the identity.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use crate::expand::{device_function, float_instances, param_table_of, placeholders_of};
use crate::types::{parse_type, Scalar, Ty};

/// The items of the annotated `mod`.
struct Parts {
    map: syn::ItemFn,
    combine: syn::ItemFn,
    post: Option<syn::ItemFn>,
    identity: syn::ItemFn,
}

const HELP: &str = "a `#[cp::jit::reduction]` mod holds `fn map`, `fn combine`, an optional `fn post` and `const IDENTITY`";

fn parts(m: &syn::ItemMod) -> syn::Result<Parts> {
    let Some((_, items)) = &m.content else {
        return Err(syn::Error::new(
            m.span(),
            format!("{HELP}: write them inside `mod {} {{ ... }}`", m.ident),
        ));
    };
    let (mut map, mut combine, mut post, mut identity) = (None, None, None, None);
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                let slot = match f.sig.ident.to_string().as_str() {
                    "map" => &mut map,
                    "combine" => &mut combine,
                    "post" => &mut post,
                    other => {
                        return Err(syn::Error::new(
                            f.sig.ident.span(),
                            format!("`fn {other}` is not a part of a reduction; {HELP} (a helper cannot be called from them)"),
                        ))
                    }
                };
                *slot = Some(f.clone());
            }
            syn::Item::Const(c) if c.ident == "IDENTITY" => {
                identity = Some(c.clone());
            }
            syn::Item::Use(_) => {}
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    format!("not a part of a reduction: {HELP}"),
                ))
            }
        }
    }
    // The identity as a function returning it, so that it is translated
    // (and type-checked) as the other parts are; generic as `map` is.
    let identity = match identity {
        Some(c) => {
            let (ty, e) = (&c.ty, &c.expr);
            let g = placeholder_generics(&map, &combine);
            Some(syn::parse2::<syn::ItemFn>(
                quote!(fn identity #g () -> #ty { #e }),
            )?)
        }
        None => None,
    };
    let missing = |what: &str| {
        syn::Error::new(
            m.ident.span(),
            format!("this reduction has no {what}; {HELP}"),
        )
    };
    Ok(Parts {
        map: map.ok_or_else(|| missing("`fn map(x: T, ...) -> A` (the value of each element)"))?,
        combine: combine.ok_or_else(|| {
            missing("`fn combine(a: A, b: A) -> A` (two partial results into one)")
        })?,
        identity: identity
            .ok_or_else(|| missing("`const IDENTITY: A = ...;` (the start of the fold)"))?,
        post,
    })
}

/// The generics of `map` or `combine` (whichever is seen first), for the
/// identity's function.
fn placeholder_generics(map: &Option<syn::ItemFn>, combine: &Option<syn::ItemFn>) -> syn::Generics {
    map.as_ref()
        .or(combine.as_ref())
        .map(|f| f.sig.generics.clone())
        .unwrap_or_default()
}

fn ret_scalar(f: &syn::ItemFn, ph: &[String]) -> syn::Result<Scalar> {
    match &f.sig.output {
        syn::ReturnType::Type(_, ty) => match parse_type(ty, ph, false)? {
            Ty::Scalar(s) => Ok(s),
            _ => Err(syn::Error::new(
                ty.span(),
                "a reduction part returns a scalar",
            )),
        },
        syn::ReturnType::Default => Err(syn::Error::new(
            f.sig.span(),
            format!("`fn {}` returns its value: add `-> T`", f.sig.ident),
        )),
    }
}

fn arg_types(
    f: &syn::ItemFn,
    ph: &[String],
) -> syn::Result<Vec<(syn::Ident, Scalar, proc_macro2::Span)>> {
    let mut out = Vec::new();
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(
                input.span(),
                "a reduction part is a free function (no `self`)",
            ));
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new(
                pt.pat.span(),
                "parameters are plain names (`x: f32`)",
            ));
        };
        let Ty::Scalar(s) = parse_type(&pt.ty, ph, false)? else {
            return Err(syn::Error::new(
                pt.ty.span(),
                "reduction parts take scalars",
            ));
        };
        out.push((pi.ident.clone(), s, pt.ty.span()));
    }
    Ok(out)
}

/// The parts agree: one placeholder name, `combine(A, A) -> A` with `A`
/// map's result, `post(A[, usize])`, `IDENTITY: A`.
fn check(p: &Parts, ph: &[String]) -> syn::Result<Scalar> {
    let acc = ret_scalar(&p.map, ph)?;
    let c = arg_types(&p.combine, ph)?;
    let usage = format!(
        "write `fn combine(a: {0}, b: {0}) -> {0}` ({0} is what `map` returns)",
        acc.rust()
    );
    // Point at what is wrong: an extra parameter, a missing one, a type.
    let wrong = if c.len() > 2 {
        Some((
            c[2].2,
            format!(
                "`combine` folds two partial results, not {}: {usage}",
                c.len()
            ),
        ))
    } else if c.len() < 2 {
        Some((
            p.combine.sig.ident.span(),
            format!(
                "`combine` folds two partial results but takes {}: {usage}",
                c.len()
            ),
        ))
    } else if let Some((_, _, at)) = c.iter().find(|(_, s, _)| *s != acc) {
        Some((
            *at,
            format!("`combine`'s parameters are partial results: {usage}"),
        ))
    } else if ret_scalar(&p.combine, ph)? != acc {
        Some((
            output_span(&p.combine),
            format!("`combine` returns a partial result: {usage}"),
        ))
    } else {
        None
    };
    if let Some((at, msg)) = wrong {
        return Err(syn::Error::new(at, msg));
    }
    if ret_scalar(&p.identity, ph)? != acc {
        return Err(syn::Error::new(
            output_span(&p.identity),
            format!(
                "`IDENTITY` has the type `map` returns: `const IDENTITY: {} = ...;`",
                acc.rust()
            ),
        ));
    }
    if let Some(post) = &p.post {
        let a = arg_types(post, ph)?;
        let ok = match a.as_slice() {
            [(_, s, _)] => *s == acc,
            [(_, s, _), (_, n, _)] => *s == acc && *n == Scalar::Usize,
            _ => false,
        };
        if !ok {
            return Err(syn::Error::new(
                post.sig.inputs.span(),
                format!(
                    "`post` takes the folded value and optionally the count: write `fn post(a: {}, n: usize) -> R`",
                    acc.rust()
                ),
            ));
        }
        ret_scalar(post, ph)?;
    }
    Ok(acc)
}

/// The span of a function's return type (the type itself, which for the
/// identity is the user's `const` type).
fn output_span(f: &syn::ItemFn) -> proc_macro2::Span {
    match &f.sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => f.sig.ident.span(),
    }
}

/// One placeholder name across the parts (`T` in each generic part).
fn common_placeholders(p: &Parts) -> syn::Result<Vec<String>> {
    let mut ph: Vec<String> = Vec::new();
    for f in [Some(&p.map), Some(&p.combine), p.post.as_ref()]
        .into_iter()
        .flatten()
    {
        let mine = placeholders_of(f)?;
        if !mine.is_empty() && !ph.is_empty() && mine != ph {
            return Err(syn::Error::new(
                f.sig.generics.span(),
                format!(
                    "the parts of a reduction share one type placeholder: name it `{}` here too",
                    ph[0]
                ),
            ));
        }
        if ph.is_empty() {
            ph = mine;
        }
    }
    Ok(ph)
}

/// `#[cp::jit::reduction]`.
pub fn reduction(m: syn::ItemMod) -> syn::Result<TokenStream> {
    let p = parts(&m)?;
    let ph = common_placeholders(&p)?;
    let acc = check(&p, &ph)?;
    let name_str = m.ident.to_string();
    // The parts live in the namespace `cp_jit_acc`, where the runtime
    // types the placeholder as the accumulator (float for half inputs).
    let c = |part: &str| format!("cp_jit_{name_str}_{part}");
    let q = |part: &str| format!("cp_jit_acc::{}", c(part));
    let mut preamble = String::new();
    for (f, part) in [
        (&p.map, "map"),
        (&p.combine, "combine"),
        (&p.identity, "identity"),
    ] {
        preamble.push_str(&device_function(f, &c(part), &ph)?);
    }
    if let Some(post) = &p.post {
        preamble.push_str(&device_function(post, &c("post"), &ph)?);
    }
    let inputs = arg_types(&p.map, &ph)?;
    let in_params: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(k, (_, s, _))| format!("{} cp_x{k}", s.cupy_name()))
        .collect();
    let map_args: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(k, (_, s, _))| match s {
            Scalar::Placeholder(p) => format!("cp_as<cp_jit_acc::{p}>(cp_x{k})"),
            _ => format!("cp_x{k}"),
        })
        .collect();
    let out = match &p.post {
        Some(post) => ret_scalar(post, &ph)?,
        None => acc.clone(),
    };
    let post_expr = match &p.post {
        Some(post) if post.sig.inputs.len() == 2 => format!(
            "cp_store(cp_out, {}(a, (unsigned long long)(_in_ind.size() / (_out_ind.size() > 0 ? _out_ind.size() : 1))))",
            q("post")
        ),
        Some(_) => format!("cp_store(cp_out, {}(a))", q("post")),
        None => "cp_store(cp_out, a)".to_string(),
    };
    let in_params = in_params.join(", ");
    let out_param = format!("{} cp_out", out.cupy_name());
    let map_expr = format!("{}({})", q("map"), map_args.join(", "));
    let reduce_expr = format!("{}(a, b)", q("combine"));
    let identity = format!("{}()", q("identity"));
    let reduce_type = acc.cupy_name();
    // Half inputs accumulate in float when the accumulator is the placeholder.
    let half_reduce_type = match &acc {
        Scalar::Placeholder(_) => "float32".to_string(),
        other => other.cupy_name(),
    };
    let placeholder = ph.first().cloned().unwrap_or_default();
    let table = param_table_of(
        inputs
            .iter()
            .map(|(id, s, _)| (id.to_string(), Ty::Scalar(s.clone()))),
    );

    // The CPU side: the parts as Rust functions, instantiated per dtype.
    let rename = |f: &syn::ItemFn, to: &str| {
        let mut g = f.clone();
        g.sig.ident = format_ident!("{to}");
        g.attrs.clear();
        g.vis = syn::Visibility::Inherited;
        g
    };
    let map_fn = rename(&p.map, "__cp_map");
    let combine_fn = rename(&p.combine, "__cp_combine");
    let identity_fn = rename(&p.identity, "__cp_identity");
    let post_fn = p.post.as_ref().map(|f| rename(f, "__cp_post"));
    let post_generic = p
        .post
        .as_ref()
        .is_some_and(|f| !f.sig.generics.params.is_empty());
    let post_two = p.post.as_ref().is_some_and(|f| f.sig.inputs.len() == 2);
    // Each arm: the dtype pattern, the placeholder's Rust type for the
    // parts, and the dtype the result is converted to (half inputs fold in
    // f32 and come back as their own dtype where the result is the placeholder).
    type Arm = (TokenStream, Option<TokenStream>, Option<TokenStream>);
    let out_generic = matches!(out, Scalar::Placeholder(_));
    let arms: Vec<Arm> = if ph.is_empty() {
        vec![(quote!(_), None, None)]
    } else {
        float_instances()
            .into_iter()
            .map(|(d, r)| match r {
                Scalar::F16 | Scalar::BF16 => {
                    let back = out_generic.then(|| r.dtype()).flatten();
                    (d, Some(Scalar::F32.rust()), back)
                }
                _ => (d, Some(r.rust()), None),
            })
            .collect()
    };
    let generic_of = |f: &syn::ItemFn| !f.sig.generics.params.is_empty();
    let concrete = |s: &Scalar, inst: &Option<TokenStream>| match (s, inst) {
        (Scalar::Placeholder(_), Some(r)) => r.clone(),
        _ => s.rust(),
    };
    let has_post = post_fn.is_some();
    let arm_code = arms.iter().map(|(pat, inst, back)| {
        let tf = |generic: bool| {
            if generic {
                inst.as_ref().map(|i| quote!(::<#i>))
            } else {
                None
            }
        };
        let (tm, tc, ti, tp) = (
            tf(generic_of(&p.map)),
            tf(generic_of(&p.combine)),
            tf(generic_of(&p.identity)),
            tf(post_generic),
        );
        let cols = inputs.iter().enumerate().map(|(k, (_, s, _))| {
            let v = format_ident!("__cp_p{k}");
            let r = concrete(s, inst);
            quote!(let #v = __cp_call.column::<#r>(#k)?;)
        });
        let vals = (0..inputs.len()).map(|k| {
            let v = format_ident!("__cp_p{k}");
            quote!(#v.at(__cp_k))
        });
        let a = concrete(&acc, inst);
        let r = concrete(&out, inst);
        let post_call = match (has_post, post_two) {
            (true, true) => quote!(__cp_post #tp (__cp_a, __cp_n)),
            (true, false) => quote!(__cp_post #tp (__cp_a)),
            (false, _) => quote!(__cp_a),
        };
        let convert = back
            .as_ref()
            .map(|d| quote!(.and_then(|__cp_r| __cp_r.astype(#d))));
        quote!(#pat => {
            #(#cols)*
            __cp_call.fold::<#a, #r>(
                __cp_identity #ti (),
                |__cp_k| __cp_map #tm (#(#vals),*),
                |__cp_x, __cp_y| __cp_combine #tc (__cp_x, __cp_y),
                |__cp_a, __cp_n| #post_call,
            ) #convert
        })
    });
    let fallback = if ph.is_empty() {
        quote!()
    } else {
        quote!(__cp_d => ::core::result::Result::Err(__cp_call.unsupported(__cp_d)),)
    };
    let name = &m.ident;
    let vis = &m.vis;
    let attrs = &m.attrs;
    let post_fn = post_fn.map(|f| quote!(#[allow(unused_variables, clippy::all)] #f));
    Ok(quote! {
        #(#attrs)*
        #[allow(non_upper_case_globals)]
        #vis static #name: ::cuprite::jit::Reduction = {
            // The math methods of the half types are num_traits::Float's.
            #[allow(unused_imports)]
            use ::cuprite::jit::__private::NumFloat as _;
            #[allow(clippy::all)]
            #map_fn
            #[allow(clippy::all)]
            #combine_fn
            #[allow(clippy::all)]
            #identity_fn
            #post_fn
            #[allow(unreachable_patterns, clippy::all)]
            fn __cp_cpu(
                __cp_call: &::cuprite::jit::__private::RedCall<'_>,
            ) -> ::cuprite::Result<::cuprite::Array> {
                match __cp_call.placeholder() {
                    #(#arm_code)*
                    #fallback
                }
            }
            ::cuprite::jit::Reduction::__new(::cuprite::jit::__private::ReductionInfo {
                name: #name_str,
                in_params: #in_params,
                out_param: #out_param,
                map_expr: #map_expr,
                reduce_expr: #reduce_expr,
                post_map_expr: #post_expr,
                identity: #identity,
                reduce_type: #reduce_type,
                half_reduce_type: #half_reduce_type,
                placeholder: #placeholder,
                preamble: #preamble,
                params: &[#(#table),*],
                cpu: __cp_cpu,
            })
        };
    })
}
