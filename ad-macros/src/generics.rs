//! The generic parameters of a differentiable function or a rule: the generics its derivatives
//! declare, and the instantiations the registration names.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

/// The generics of a derivative: the function's own parameters and bounds, and on each type
/// parameter the bound that the generated arithmetic needs, `ad::Real`.
///
/// The function's lifetime parameters are left out, and with them every bound that names one
/// (`T: 'a`): the derivatives' parameters elide their lifetimes (see [`elide_lifetimes`]), so
/// that each derivative is as general over lifetimes as the rule type it is registered as.
pub fn derivative_generics(
    generics: &syn::Generics,
    krate: &TokenStream,
) -> (TokenStream, TokenStream) {
    let generics = without_lifetimes(generics);
    let (impl_generics, _, _) = generics.split_for_impl();
    (quote!(#impl_generics), where_with_real(&generics, krate))
}

/// The type parameters bound by `Fn`, `FnMut` or `FnOnce` (inline or in the `where` clause):
/// those of function arguments, which have no derivative of their own.
pub fn function_params(generics: &syn::Generics) -> Vec<String> {
    let is_fn = is_fn_bound;
    let mut names: Vec<String> = generics
        .type_params()
        .filter(|t| t.bounds.iter().any(is_fn))
        .map(|t| t.ident.to_string())
        .collect();
    if let Some(w) = &generics.where_clause {
        for p in &w.predicates {
            if let syn::WherePredicate::Type(t) = p
                && t.bounds.iter().any(is_fn)
                && let syn::Type::Path(tp) = &t.bounded_ty
                && let Some(ident) = tp.path.get_ident()
            {
                names.push(ident.to_string());
            }
        }
    }
    names
}

/// Traits a float type parameter is bounded by in numerics code: a parameter bounded by none but
/// these (or by nothing) is a scalar, registered at each float type. Any other bound (a user's
/// `Energy`) makes it a user type's parameter, registered at its first call (decision 14).
const SCALAR_BOUNDS: &[&str] = &[
    "Float",
    "FloatCore",
    "FloatConst",
    "Real",
    "RealField",
    "ComplexField",
    "Num",
    "NumCast",
    "NumAssign",
    "NumAssignOps",
    "NumOps",
    "Signed",
    "Zero",
    "One",
    "FromPrimitive",
    "ToPrimitive",
    "Bounded",
    "Copy",
    "Clone",
    "Debug",
    "Display",
    "Default",
    "PartialEq",
    "PartialOrd",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "Neg",
    "AddAssign",
    "SubAssign",
    "MulAssign",
    "DivAssign",
    "RemAssign",
    "Sum",
    "Product",
    "Send",
    "Sync",
    "Sized",
    "From",
    "Into",
    "LowerExp",
    "UpperExp",
];

/// The traits that make a type parameter a float whatever else bounds it (`T: Float + Wide`).
const FLOAT_BOUNDS: &[&str] = &["Float", "FloatCore", "Real", "RealField", "ComplexField"];

/// The type parameters of a user's type (`E: Energy`): bound by a trait that is not a float's
/// nor an operator's, and not by `Fn`, nor by a float trait. The others are scalars.
pub fn user_type_params(generics: &syn::Generics) -> Vec<String> {
    let name = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    let functions = function_params(generics);
    generics
        .type_params()
        .filter(|t| !functions.contains(&t.ident.to_string()))
        .filter(|t| {
            let inline = t.bounds.iter();
            let in_where = generics
                .where_clause
                .iter()
                .flat_map(|w| &w.predicates)
                .filter_map(|p| match p {
                    syn::WherePredicate::Type(p)
                        if matches!(&p.bounded_ty, syn::Type::Path(tp) if tp.path.is_ident(&t.ident)) =>
                    {
                        Some(p.bounds.iter())
                    }
                    _ => None,
                })
                .flatten();
            let names: Vec<String> = inline.chain(in_where).filter_map(name).collect();
            names.iter().any(|n| !SCALAR_BOUNDS.contains(&n.as_str()))
                && !names.iter().any(|n| FLOAT_BOUNDS.contains(&n.as_str()))
        })
        .map(|t| t.ident.to_string())
        .collect()
}

/// The type parameters each instantiation registers itself at (decision 14): every type
/// parameter of a function with a user type's, none otherwise (scalars are registered at each
/// float type).
pub fn late_type_params(generics: &syn::Generics) -> Vec<String> {
    if user_type_params(generics).is_empty() {
        return Vec::new();
    }
    let functions = function_params(generics);
    generics
        .type_params()
        .map(|t| t.ident.to_string())
        .filter(|t| !functions.contains(t))
        .collect()
}

/// The bounds of a late type parameter in the primal and its registration, as `where`
/// predicates: a user type's, or `ad::Real` for a scalar.
pub fn late_predicates(
    generics: &syn::Generics,
    ident: &Ident,
    krate: &TokenStream,
) -> Vec<syn::WherePredicate> {
    if user_type_params(generics).contains(&ident.to_string()) {
        user_type_predicates(ident, krate)
    } else {
        vec![syn::parse_quote!(#ident: #krate::Real)]
    }
}

/// Adds `predicates` to `generics`, each bound of a type parameter where the user bounds it
/// already (inline, or in the `where` clause), so that one parameter's bounds stay in one
/// place; other predicates go to the `where` clause.
pub fn add_bounds(generics: &mut syn::Generics, predicates: Vec<syn::WherePredicate>) {
    for p in predicates {
        let syn::WherePredicate::Type(pt) = &p else {
            generics.make_where_clause().predicates.push(p);
            continue;
        };
        let ident = match &pt.bounded_ty {
            syn::Type::Path(tp) if pt.lifetimes.is_none() => tp.path.get_ident().cloned(),
            _ => None,
        };
        let Some(ident) = ident else {
            generics.make_where_clause().predicates.push(p);
            continue;
        };
        let in_where = generics.where_clause.as_mut().and_then(|w| {
            w.predicates.iter_mut().find_map(|q| match q {
                syn::WherePredicate::Type(q)
                    if matches!(&q.bounded_ty, syn::Type::Path(tp) if tp.path.is_ident(&ident)) =>
                {
                    Some(q)
                }
                _ => None,
            })
        });
        if let Some(q) = in_where {
            q.bounds.extend(pt.bounds.iter().cloned());
        } else if let Some(t) = generics.type_params_mut().find(|t| t.ident == ident) {
            t.bounds.extend(pt.bounds.iter().cloned());
        }
    }
}

/// The `where` clause of a registration generic over late type parameters: the function's,
/// with each parameter's bound of the derivatives.
pub fn late_where(generics: &syn::Generics, krate: &TokenStream) -> TokenStream {
    if user_type_params(generics).is_empty() {
        return TokenStream::new();
    }
    where_with_real(&without_lifetimes(generics), krate)
}

/// The bounds a derivative and the primal put on a user type's parameter: what the generated
/// code of a value of a derived struct needs, passed by value or by reference.
pub fn user_type_predicates(ident: &Ident, krate: &TokenStream) -> Vec<syn::WherePredicate> {
    vec![
        syn::parse_quote!(#ident: #krate::__private::UserType),
        syn::parse_quote!(for<'__ad_u> &'__ad_u #ident: #krate::Param<
            Marker = #krate::Ref<#ident>,
            Shadow = <#ident as #krate::Differentiable>::Tangent,
            Bar = (),
            Store = <#ident as #krate::Differentiable>::Tangent,
            Grad = <#ident as #krate::Differentiable>::Tangent,
            Seed = <#ident as #krate::Differentiable>::Tangent,
        >),
        syn::parse_quote!(<#ident as #krate::Differentiable>::Tangent:
            #krate::__private::MakeSeed<<#ident as #krate::Differentiable>::Tangent>),
    ]
}

/// Whether a parameter's type is a function: a type parameter of [`function_params`] or a
/// function pointer type `fn(..) -> ..`.
pub fn is_function_type(ty: &syn::Type, function_params: &[String]) -> bool {
    match ty {
        syn::Type::FnPtr(_) => true,
        syn::Type::Paren(p) => is_function_type(&p.elem, function_params),
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| function_params.contains(&i.to_string())),
        _ => false,
    }
}

/// `generics` without its lifetime parameters and the bounds that name them.
fn without_lifetimes(generics: &syn::Generics) -> syn::Generics {
    let mut out = generics.clone();
    out.params = generics
        .params
        .iter()
        .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        .cloned()
        .map(|mut p| {
            if let syn::GenericParam::Type(t) = &mut p {
                t.bounds = t
                    .bounds
                    .iter()
                    .filter(|b| !matches!(b, syn::TypeParamBound::Lifetime(_)))
                    .cloned()
                    .collect();
            }
            p
        })
        .collect();
    if let Some(w) = &mut out.where_clause {
        w.predicates = w
            .predicates
            .iter()
            .filter(|p| !matches!(p, syn::WherePredicate::Lifetime(_)))
            .cloned()
            .map(|mut p| {
                if let syn::WherePredicate::Type(t) = &mut p {
                    t.bounds = t
                        .bounds
                        .iter()
                        .filter(|b| !matches!(b, syn::TypeParamBound::Lifetime(_)))
                        .cloned()
                        .collect();
                }
                p
            })
            .filter(|p| !matches!(p, syn::WherePredicate::Type(t) if t.bounds.is_empty()))
            .collect();
    }
    out
}

/// `ty` with the function's own lifetime parameters elided (`&'a [T]` becomes `&'_ [T]`).
pub fn elide_lifetimes(ty: &syn::Type, generics: &syn::Generics) -> syn::Type {
    let names: Vec<String> = generics
        .lifetimes()
        .map(|l| l.lifetime.ident.to_string())
        .collect();
    if names.is_empty() {
        return ty.clone();
    }
    fn walk(tokens: TokenStream, names: &[String]) -> TokenStream {
        let mut out = Vec::new();
        let mut after_quote = false;
        for t in tokens {
            let t = match t {
                proc_macro2::TokenTree::Ident(i)
                    if after_quote && names.contains(&i.to_string()) =>
                {
                    proc_macro2::TokenTree::Ident(Ident::new("_", i.span()))
                }
                proc_macro2::TokenTree::Group(g) => {
                    let mut inner = proc_macro2::Group::new(g.delimiter(), walk(g.stream(), names));
                    inner.set_span(g.span());
                    proc_macro2::TokenTree::Group(inner)
                }
                other => other,
            };
            after_quote = matches!(&t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '\'');
            out.push(t);
        }
        out.into_iter().collect()
    }
    syn::parse2(walk(quote!(#ty), &names)).unwrap_or_else(|_| ty.clone())
}

/// The function's `where` clause with `T: ad::Real` added for each type parameter.
fn where_with_real(generics: &syn::Generics, krate: &TokenStream) -> TokenStream {
    let mut predicates: Vec<TokenStream> = generics
        .where_clause
        .as_ref()
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let functions = function_params(generics);
    let users = user_type_params(generics);
    for t in generics.type_params() {
        let ident = &t.ident;
        if functions.contains(&ident.to_string()) {
            // A function argument, called through the registry by its type.
            predicates.push(quote!(#ident: ::core::marker::Copy + ::core::marker::Send + ::core::marker::Sync + 'static));
        } else if users.contains(&ident.to_string()) {
            predicates.extend(
                user_type_predicates(ident, krate)
                    .iter()
                    .map(|p| quote!(#p)),
            );
        } else {
            predicates.push(quote!(#ident: #krate::Real));
        }
    }
    if predicates.is_empty() {
        TokenStream::new()
    } else {
        quote!(where #(#predicates),*)
    }
}

/// The float types every type parameter is instantiated at, in the order registered.
const FLOATS: [&str; 2] = ["f64", "f32"];

/// Errors for generic parameters the registration cannot instantiate: const parameters, and
/// `impl Trait` parameters (anonymous, so no turbofish can name them).
pub fn check(sig: &syn::Signature, attribute: &str) -> Vec<syn::Error> {
    let mut errors: Vec<syn::Error> = sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            // `f: impl Fn(..)`: a function argument, named in the derivatives.
            syn::FnArg::Typed(pt) if impl_fn(&pt.ty).is_some() => None,
            syn::FnArg::Typed(pt) => impl_trait_in(&pt.ty),
            syn::FnArg::Receiver(_) => None,
        })
        .map(|t| {
            syn::Error::new_spanned(
                t,
                format!(
                    "#[{attribute}] needs the type parameters named: write `fn f<T: Float>(x: T)` instead of `x: impl Float`, since the registration names each instantiation (`f::<f64>`)"
                ),
            )
        })
        .collect();
    // A differentiable function registers each instantiation at its first call; a rule's
    // instantiations are named in statics.
    if attribute != "differentiable" {
        errors.extend(const_params(&sig.generics, attribute));
    }
    errors
}

/// Whether a bound is `Fn(..)`, `FnMut(..)` or `FnOnce(..)`.
fn is_fn_bound(b: &syn::TypeParamBound) -> bool {
    matches!(b, syn::TypeParamBound::Trait(t)
        if t.path.segments.last().is_some_and(|s| matches!(s.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce")))
}

/// A parameter type `impl Fn(..) -> ..` (also `FnMut`, `FnOnce`, with other bounds beside).
pub fn impl_fn(ty: &syn::Type) -> Option<&syn::TypeImplTrait> {
    match ty {
        syn::Type::ImplTrait(t) if t.bounds.iter().any(is_fn_bound) => Some(t),
        syn::Type::Paren(p) => impl_fn(&p.elem),
        _ => None,
    }
}

/// `generics` with a named type parameter for each `impl Fn(..)` or `fn(..)` parameter of
/// `sig`, and each such parameter's type replaced by it: the derivatives need the function's
/// type by name. A caller's derivative passes the function item itself (decision 10), so a
/// `fn(..)` pointer parameter is the item there, and a call of it resolves by the item's
/// identity, run-time rules and all, not by an address.
pub fn name_impl_fns(sig: &syn::Signature) -> (syn::Generics, Vec<Option<syn::Type>>) {
    let mut generics = sig.generics.clone();
    let types = sig
        .inputs
        .iter()
        .enumerate()
        .map(|(i, arg)| match arg {
            syn::FnArg::Typed(pt) => {
                let ident = Ident::new(&format!("__AdFn{i}"), Span::mixed_site());
                if let Some(t) = impl_fn(&pt.ty) {
                    let bounds = &t.bounds;
                    generics.params.push(syn::parse_quote!(#ident: #bounds));
                    Some(syn::parse_quote!(#ident))
                } else if let Some(f) = fn_pointer(&pt.ty) {
                    let inputs = f.inputs.iter().map(|a| &a.ty);
                    let output = &f.output;
                    generics
                        .params
                        .push(syn::parse_quote!(#ident: ::core::ops::Fn(#(#inputs),*) #output));
                    Some(syn::parse_quote!(#ident))
                } else {
                    None
                }
            }
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    (generics, types)
}

/// A parameter type `fn(..) -> ..`.
fn fn_pointer(ty: &syn::Type) -> Option<&syn::TypeFnPtr> {
    match ty {
        syn::Type::FnPtr(f) if f.variadic.is_none() && f.abi.is_none() && f.unsafety.is_none() => {
            Some(f)
        }
        syn::Type::Paren(p) => fn_pointer(&p.elem),
        syn::Type::Group(g) => fn_pointer(&g.elem),
        _ => None,
    }
}

/// An `impl Trait` inside a parameter's type.
fn impl_trait_in(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::ImplTrait(_) => Some(ty),
        syn::Type::Reference(r) => impl_trait_in(&r.elem),
        syn::Type::Slice(s) => impl_trait_in(&s.elem),
        syn::Type::Array(a) => impl_trait_in(&a.elem),
        syn::Type::Paren(p) => impl_trait_in(&p.elem),
        syn::Type::Group(g) => impl_trait_in(&g.elem),
        syn::Type::Tuple(t) => t.elems.iter().find_map(impl_trait_in),
        syn::Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => impl_trait_in(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

fn const_params(generics: &syn::Generics, attribute: &str) -> Vec<syn::Error> {
    generics
        .const_params()
        .map(|c| {
            syn::Error::new_spanned(
                c,
                format!(
                    "#[{attribute}] does not support const generic parameters: a rule is registered for each instantiation, and a const parameter has too many; write the rule for one length (`of = f::<3>`), or for a slice `&[T]`"
                ),
            )
        })
        .collect()
}

/// The rule loaders of a registration, and the items they need.
///
/// `loaders` are the bodies of the loaders of one function or rule, each an expression of type
/// `(FnInfo, Box<dyn Any + Send + Sync>)` built from the turbofish it is given (`::<f64>`
/// or nothing). Without type parameters each body is one loader, as it is. With type
/// parameters, each body is the method of a trait implemented for the tuple of the type
/// parameters under the function's own bounds, and each instantiation's loader calls it by
/// autoref: where the bounds hold for the float type, the method is the body; where they do not
/// (a bound `f32` does not meet), method resolution falls back to a method that loads nothing,
/// so a bound that rules out `f32` leaves `f32` out instead of breaking the build.
///
/// `callees` are the bodies of the callee list's loaders of a generic function (expressions of
/// type `FnInfo`, written with the type parameters in scope), made methods of the same traits:
/// each instantiation names its callees at its own types, and one whose bounds fail names none.
///
/// Returns the items, the loaders of each instantiation in the order of `loaders`, and the
/// callee loaders of each instantiation in the order of `callees`.
pub fn loaders(
    krate: &TokenStream,
    generics: &syn::Generics,
    loaders: &[&dyn Fn(&TokenStream) -> TokenStream],
    callees: &[TokenStream],
) -> (TokenStream, Vec<Vec<TokenStream>>, Vec<Vec<TokenStream>>) {
    let users = late_type_params(generics);
    let types: Vec<&Ident> = generics
        .type_params()
        .map(|t| &t.ident)
        .filter(|t| !users.contains(&t.to_string()))
        .collect();
    // Const parameters and those of user types stay parameters: the loaders of a function with
    // some are made inside a function generic over them (see `expand::differentiable`).
    let user_idents: Vec<&Ident> = generics
        .type_params()
        .map(|t| &t.ident)
        .filter(|t| users.contains(&t.to_string()))
        .collect();
    let late: Vec<TokenStream> = user_idents
        .iter()
        .map(|t| quote!(#t))
        .chain(generics.const_params().map(|c| {
            let ident = &c.ident;
            quote!(#ident)
        }))
        .collect();
    let late_decls: Vec<TokenStream> = user_idents
        .iter()
        .map(|t| quote!(#t))
        .chain(generics.const_params().map(|c| quote!(#c)))
        .collect();
    // The turbofish of the function at one instantiation: each type parameter as `at` gives
    // it, each const parameter as itself, in the order declared.
    let turbofish_at = |at: &dyn Fn(&Ident) -> TokenStream| -> TokenStream {
        let args: Vec<TokenStream> = generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) if users.contains(&t.ident.to_string()) => {
                    let ident = &t.ident;
                    Some(quote!(#ident))
                }
                syn::GenericParam::Type(t) => Some(at(&t.ident)),
                syn::GenericParam::Const(c) => {
                    let ident = &c.ident;
                    Some(quote!(#ident))
                }
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        if args.is_empty() {
            TokenStream::new()
        } else {
            quote!(::<#(#args),*>)
        }
    };
    if types.is_empty() {
        let turbofish = turbofish_at(&|t| quote!(#t));
        let loads = loaders
            .iter()
            .map(|body| {
                let body = body(&turbofish);
                quote!(|| #body)
            })
            .collect();
        return (TokenStream::new(), vec![loads], vec![Vec::new()]);
    }
    let at = Ident::new("__AdAt", Span::mixed_site());
    let exact = Ident::new("__AdLoad", Span::mixed_site());
    let none = Ident::new("__AdLoadNone", Span::mixed_site());
    let methods: Vec<Ident> = (0..loaders.len())
        .map(|k| Ident::new(&format!("load_{k}"), Span::mixed_site()))
        .collect();
    let loaded = quote!(#krate::__private::LoadedRule);
    let info = quote!(#krate::__private::FnInfo);
    let turbofish = turbofish_at(&|t| quote!(#t));
    let bodies = loaders.iter().map(|body| body(&turbofish));
    let callee_methods: Vec<Ident> = (0..callees.len())
        .map(|k| Ident::new(&format!("callee_{k}"), Span::mixed_site()))
        .collect();
    let generics = without_lifetimes(generics);
    let (impl_generics, _, _) = generics.split_for_impl();
    let where_clause = where_with_real(&generics, krate);
    let items = quote! {
        struct #at<T, #(#late_decls),*>(::core::marker::PhantomData<fn() -> (T, #(#user_idents,)*)>);

        trait #exact {
            #(fn #methods(&self) -> #loaded;)*
            #(fn #callee_methods(&self) -> #info;)*
        }

        #[allow(clippy::extra_unused_type_parameters)]
        impl #impl_generics #exact for #at<(#(#types,)*), #(#late),*> #where_clause {
            #(
                fn #methods(&self) -> #loaded {
                    #bodies
                }
            )*
            #(
                fn #callee_methods(&self) -> #info {
                    #callees
                }
            )*
        }

        trait #none {
            #(
                fn #methods(&self) -> #loaded {
                    #krate::__private::absent()
                }
            )*
            #(
                fn #callee_methods(&self) -> #info {
                    #krate::__private::absent().0
                }
            )*
        }

        impl<T, #(#late_decls),*> #none for &#at<T, #(#late),*> {}
    };
    let at_float = |float: &str, methods: &[Ident]| -> Vec<TokenStream> {
        let float = Ident::new(float, Span::call_site());
        let tuple: Vec<&Ident> = types.iter().map(|_| &float).collect();
        methods
            .iter()
            .map(|m| quote!(|| (&#at::<(#(#tuple,)*), #(#late),*>(::core::marker::PhantomData)).#m()))
            .collect()
    };
    let instantiations = FLOATS.iter().map(|f| at_float(f, &methods)).collect();
    let callee_loads = FLOATS
        .iter()
        .map(|f| at_float(f, &callee_methods))
        .collect();
    (items, instantiations, callee_loads)
}

/// The function a generic rule is for, at the rule's instantiation: `of = f` of a rule generic
/// over `T` names `f::<T>`, since a rule's signature cannot tell rustc the type parameters of a
/// generic function inside a generic impl. `of` with generic arguments of its own is kept as
/// written (it may name the rule's parameters: `of = f::<T, 3>`).
pub fn of_instantiated(of: &syn::Path, generics: &syn::Generics) -> syn::Path {
    let mut of = of.clone();
    let types: Vec<&Ident> = generics.type_params().map(|t| &t.ident).collect();
    if let Some(last) = of.segments.last_mut()
        && !types.is_empty()
        && last.arguments.is_none()
    {
        last.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(::<#(#types),*>));
    }
    of
}

/// The runtime function that casts a tangent or an adjoint to `ty`: by the source's `CastTo`
/// (`source`), or, when `ty` is a type parameter of the function, by the target's `CastFrom`
/// (`target`), which the parameter's `ad::Real` bound provides from `f64` and `f32`.
pub fn cast_fn(generics: &syn::Generics, ty: &syn::Type, source: &str, target: &str) -> Ident {
    let to_parameter = match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| generics.type_params().any(|t| t.ident == *i)),
        _ => false,
    };
    Ident::new(
        if to_parameter { target } else { source },
        Span::call_site(),
    )
}

/// Whether `callee` is an associated function of a type parameter or of a float type called
/// without arguments (`T::one()`, `T::PI()`, `f64::epsilon()`): a constant of generic code,
/// which the reverse sweep can compute again.
pub fn names_type_constant(generics: &syn::Generics, callee: &TokenStream) -> bool {
    let Ok(path) = syn::parse2::<syn::Path>(callee.clone()) else {
        return false;
    };
    let [ty, _] = path.segments.iter().collect::<Vec<_>>()[..] else {
        return false;
    };
    path.leading_colon.is_none()
        && path.segments.iter().all(|s| s.arguments.is_none())
        && (generics.type_params().any(|t| t.ident == ty.ident)
            || ty.ident == "f64"
            || ty.ident == "f32")
}
