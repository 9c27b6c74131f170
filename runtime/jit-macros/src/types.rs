//! The types a kernel may use: Rust's scalar types, type placeholders,
//! slices of them, shared-memory arrays and the `Dim3` of the built-ins,
//! with their CUDA C spelling and the runtime's dtype for each.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

/// A scalar type of the subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
    /// `half::f16` / `half::bf16` (`cp::half`): the prelude's `f16` / `bf16`
    /// storage types in CUDA C, computed through float.
    F16,
    BF16,
    /// A type placeholder (`T` of `fn f<T: cp::jit::Float>`), resolved per call.
    Placeholder(String),
}

impl Scalar {
    /// The scalar named by a Rust identifier, if it is one.
    pub fn from_name(name: &str, placeholders: &[String]) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "isize" => Scalar::Isize,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "usize" => Scalar::Usize,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "f16" => Scalar::F16,
            "bf16" => Scalar::BF16,
            p if placeholders.iter().any(|q| q == p) => Scalar::Placeholder(p.to_string()),
            _ => return None,
        })
    }

    /// The CUDA C spelling.
    pub fn c(&self) -> String {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "signed char",
            Scalar::I16 => "short",
            Scalar::I32 => "int",
            Scalar::I64 | Scalar::Isize => "long long",
            Scalar::U8 => "unsigned char",
            Scalar::U16 => "unsigned short",
            Scalar::U32 => "unsigned int",
            Scalar::U64 | Scalar::Usize => "unsigned long long",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
            Scalar::F16 => "f16",
            Scalar::BF16 => "bf16",
            Scalar::Placeholder(p) => return p.clone(),
        }
        .to_string()
    }

    /// The Rust type.
    pub fn rust(&self) -> TokenStream {
        match self {
            Scalar::Bool => quote!(bool),
            Scalar::I8 => quote!(i8),
            Scalar::I16 => quote!(i16),
            Scalar::I32 => quote!(i32),
            Scalar::I64 => quote!(i64),
            Scalar::Isize => quote!(isize),
            Scalar::U8 => quote!(u8),
            Scalar::U16 => quote!(u16),
            Scalar::U32 => quote!(u32),
            Scalar::U64 => quote!(u64),
            Scalar::Usize => quote!(usize),
            Scalar::F32 => quote!(f32),
            Scalar::F64 => quote!(f64),
            Scalar::F16 => quote!(::cuprite::half::f16),
            Scalar::BF16 => quote!(::cuprite::half::bf16),
            Scalar::Placeholder(p) => {
                let id = syn::Ident::new(p, proc_macro2::Span::call_site());
                quote!(#id)
            }
        }
    }

    /// The runtime's `DType` (usize travels as uint64, isize as int64);
    /// `None` for a placeholder.
    pub fn dtype(&self) -> Option<TokenStream> {
        let d = match self {
            Scalar::Bool => quote!(Bool),
            Scalar::I8 => quote!(Int8),
            Scalar::I16 => quote!(Int16),
            Scalar::I32 => quote!(Int32),
            Scalar::I64 | Scalar::Isize => quote!(Int64),
            Scalar::U8 => quote!(UInt8),
            Scalar::U16 => quote!(UInt16),
            Scalar::U32 => quote!(UInt32),
            Scalar::U64 | Scalar::Usize => quote!(UInt64),
            Scalar::F32 => quote!(Float32),
            Scalar::F64 => quote!(Float64),
            Scalar::F16 => quote!(Float16),
            Scalar::BF16 => quote!(BFloat16),
            Scalar::Placeholder(_) => return None,
        };
        Some(quote!(::cuprite::DType::#d))
    }

    /// The CuPy parameter spelling (`float32`, or the placeholder's letter).
    pub fn cupy_name(&self) -> String {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "int8",
            Scalar::I16 => "int16",
            Scalar::I32 => "int32",
            Scalar::I64 | Scalar::Isize => "int64",
            Scalar::U8 => "uint8",
            Scalar::U16 => "uint16",
            Scalar::U32 => "uint32",
            Scalar::U64 | Scalar::Usize => "uint64",
            Scalar::F32 => "float32",
            Scalar::F64 => "float64",
            Scalar::F16 => "float16",
            Scalar::BF16 => "bfloat16",
            Scalar::Placeholder(p) => return p.clone(),
        }
        .to_string()
    }

    /// Size in bytes (placeholders: unknown, 0).
    pub fn size(&self) -> usize {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::BF16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::Isize | Scalar::U64 | Scalar::Usize | Scalar::F64 => 8,
            Scalar::Placeholder(_) => 0,
        }
    }

    pub fn is_float(&self) -> bool {
        matches!(
            self,
            Scalar::F32 | Scalar::F64 | Scalar::F16 | Scalar::BF16 | Scalar::Placeholder(_)
        )
    }

    /// A type whose C spelling is a struct (the half types) or unknown
    /// until the call (a placeholder): conversions go through `cp_as<T>`
    /// and math through the overloads of the jit support code.
    pub fn is_struct_like(&self) -> bool {
        matches!(self, Scalar::F16 | Scalar::BF16 | Scalar::Placeholder(_))
    }

    pub fn is_integer(&self) -> bool {
        !self.is_float() && *self != Scalar::Bool
    }
}

/// The type of a kernel value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Scalar(Scalar),
    /// `&[T]` / `&mut [T]` parameters (pointer plus length in C).
    Slice {
        elem: Scalar,
        mutable: bool,
    },
    /// `View2<T>` / `View3Mut<T>`... parameters: pointer, shape and
    /// strides (in elements) in C, so a transposed or sliced array is
    /// passed without a copy.
    View {
        elem: Scalar,
        rank: usize,
        mutable: bool,
    },
    /// What a view's `.shape()` returns (the C name is the view's): index
    /// it with a literal axis.
    ShapeOf {
        rank: usize,
    },
    /// A shared-memory array (`len`: `None` for dynamic shared memory).
    Shared {
        elem: Scalar,
        len: Option<u64>,
    },
    /// What `thread_idx()` and its siblings return.
    Dim3,
}

impl Ty {
    pub fn scalar(&self) -> Option<&Scalar> {
        match self {
            Ty::Scalar(s) => Some(s),
            _ => None,
        }
    }
}

/// The `View2` / `View3Mut`... parameter named by the last path segment:
/// `(rank, mutable)`.
fn view_kind(name: &str) -> Option<(usize, bool)> {
    Some(match name {
        "View1" => (1, false),
        "View2" => (2, false),
        "View3" => (3, false),
        "View1Mut" => (1, true),
        "View2Mut" => (2, true),
        "View3Mut" => (3, true),
        _ => return None,
    })
}

fn view_type(
    p: &syn::TypePath,
    rank: usize,
    mutable: bool,
    placeholders: &[String],
) -> syn::Result<Ty> {
    let last = p.path.segments.last().map(|s| &s.arguments);
    let usage = || {
        syn::Error::new(
            p.span(),
            format!(
                "a view names its element type: `View{rank}{}<f32>`",
                if mutable { "Mut" } else { "" }
            ),
        )
    };
    let Some(syn::PathArguments::AngleBracketed(args)) = last else {
        return Err(usage());
    };
    let mut it = args.args.iter();
    let (Some(syn::GenericArgument::Type(elem)), None) = (it.next(), it.next()) else {
        return Err(usage());
    };
    match parse_type(elem, placeholders, false)? {
        Ty::Scalar(elem) => Ok(Ty::View {
            elem,
            rank,
            mutable,
        }),
        _ => Err(usage()),
    }
}

/// A parameter or `let` type: a scalar, or (for parameters) a slice or a
/// view.
pub fn parse_type(ty: &syn::Type, placeholders: &[String], allow_slice: bool) -> syn::Result<Ty> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let name = p.path.segments.last().map(|s| s.ident.to_string());
            // `f16`, `half::f16` and `cp::half::f16` all name the half type.
            let known = name
                .as_deref()
                .filter(|n| p.path.segments.len() == 1 || matches!(*n, "f16" | "bf16"))
                .and_then(|n| Scalar::from_name(n, placeholders));
            if let Some((rank, mutable)) = name.as_deref().and_then(view_kind) {
                if !allow_slice {
                    return Err(syn::Error::new(
                        ty.span(),
                        "views are kernel parameters; index them where they are used (`x[(i, j)]`)",
                    ));
                }
                return view_type(p, rank, mutable, placeholders);
            }
            match known {
                Some(s) => Ok(Ty::Scalar(s)),
                None if name.as_deref() == Some("String") => Err(syn::Error::new(
                    ty.span(),
                    "`String` cannot be used in a GPU kernel (no heap on the device); pass numbers and arrays",
                )),
                None => Err(syn::Error::new(
                    ty.span(),
                    "unsupported type in a GPU kernel: use bool, i8..i64, u8..u64, usize, isize, f32, f64, f16, bf16, a type placeholder, a slice of one (`&[f32]`, `&mut [f32]`) or a view (`View2<f32>`, `View2Mut<f32>`)",
                )),
            }
        }
        syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::TraitObject(_)) => Err(syn::Error::new(
            r.elem.span(),
            "trait objects cannot run on the GPU (no dynamic dispatch there); use a concrete scalar type, a slice, or a type placeholder `T: cp::jit::Float`",
        )),
        syn::Type::Reference(r) if allow_slice => match &*r.elem {
            syn::Type::Slice(s) => match parse_type(&s.elem, placeholders, false)? {
                Ty::Scalar(elem) => Ok(Ty::Slice {
                    elem,
                    mutable: r.mutability.is_some(),
                }),
                _ => Err(syn::Error::new(s.elem.span(), "slice elements must be scalars")),
            },
            _ => Err(syn::Error::new(
                r.span(),
                "a reference parameter must be a slice of scalars: write `&[f32]` or `&mut [f32]` (or a view, `View2<f32>`, for a strided n-d array)",
            )),
        },
        syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => Err(syn::Error::new(
            ty.span(),
            "trait objects and `impl Trait` cannot run on the GPU; use a concrete scalar type or a type placeholder `T: cp::jit::Float`",
        )),
        _ => Err(syn::Error::new(
            ty.span(),
            "unsupported type in a GPU kernel: use a scalar type (f32, i32, ...) or, for parameters, a slice `&[T]` / `&mut [T]` or a view `View2<T>` / `View2Mut<T>`",
        )),
    }
}

/// C++ keywords that are valid Rust identifiers get a trailing `_`.
pub fn c_ident(name: &str) -> String {
    const RESERVED: &[&str] = &[
        "auto",
        "char",
        "class",
        "default",
        "delete",
        "double",
        "float",
        "int",
        "long",
        "new",
        "private",
        "public",
        "register",
        "short",
        "signed",
        "sizeof",
        "switch",
        "template",
        "this",
        "typename",
        "union",
        "unsigned",
        "void",
        "volatile",
        "case",
        "goto",
        "inline",
        "operator",
        "namespace",
        "friend",
        "virtual",
        "typedef",
        "extern",
        "static",
        "const",
        "signed",
        "asm",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "warpSize",
    ];
    if RESERVED.contains(&name) || name.starts_with("cp_") {
        format!("{name}_")
    } else {
        name.to_string()
    }
}
