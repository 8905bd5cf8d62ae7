//! Runs the passes in order and assembles what the macros emit.

use crate::activity;
use crate::attr;
use crate::forward::{CalleeSite, Forward};
use crate::lower::Lower;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use quote::{quote, quote_spanned};
use syn::{Ident, ItemFn};

/// On error, the user's item is still emitted beside the errors, so the rest of their crate
/// compiles and they see the error that matters, not its echoes.
pub fn with_fallback(original: TokenStream, result: syn::Result<TokenStream>) -> TokenStream {
    match result {
        Ok(ts) => ts,
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#original #errors)
        }
    }
}

fn parse_fn(item: TokenStream, attribute: &str) -> syn::Result<ItemFn> {
    if let Ok(f) = syn::parse2::<ItemFn>(item.clone()) {
        return Ok(f);
    }
    // Say what the attribute is on, so the fix can be specific.
    let bodiless = syn::parse2::<syn::TraitItemFn>(item.clone())
        .ok()
        .filter(|f| f.default.is_none());
    let (tokens, message): (TokenStream, String) = if let Some(f) = bodiless {
        // `fn f(..);` with no body: a trait item, or a function of an `extern` block.
        let semi = f.semi_token.map(|s| s.to_token_stream());
        let sig = f.sig.to_token_stream();
        let fix = if attribute == "differentiable" {
            "write a free function with a body, and call it from the trait's implementations"
        } else {
            "write the rule as a free function with a body"
        };
        (
            quote!(#sig #semi),
            format!(
                "#[{attribute}] needs the function's body, and this `fn` has none (it is declared in a trait or an `extern` block); {fix}"
            ),
        )
    } else {
        let shape = "free functions (`fn name(x: f64) -> f64 { .. }`)";
        let to_fn = "put it on a function";
        // The item's keyword and name, not its whole body.
        let head = |keyword: &dyn ToTokens, name: &dyn ToTokens| {
            let mut ts = keyword.to_token_stream();
            name.to_tokens(&mut ts);
            ts
        };
        let (head, what, fix) = match syn::parse2::<syn::Item>(item.clone()) {
            Ok(syn::Item::Impl(i)) => (
                head(&i.impl_token, &i.self_ty),
                "an `impl` block",
                "methods are not supported; write free functions that take the value as an argument",
            ),
            Ok(syn::Item::Trait(t)) => (
                head(&t.trait_token, &t.ident),
                "a trait",
                "write free functions and call them from the trait's implementations",
            ),
            Ok(syn::Item::Mod(m)) => (
                head(&m.mod_token, &m.ident),
                "a module",
                "put it on each function of the module",
            ),
            Ok(syn::Item::Struct(s)) => (head(&s.struct_token, &s.ident), "a struct", to_fn),
            Ok(syn::Item::Enum(e)) => (head(&e.enum_token, &e.ident), "an enum", to_fn),
            Ok(syn::Item::Const(c)) => (head(&c.const_token, &c.ident), "a constant", to_fn),
            Ok(syn::Item::Static(s)) => (head(&s.static_token, &s.ident), "a `static`", to_fn),
            Ok(syn::Item::Type(t)) => (head(&t.type_token, &t.ident), "a type alias", to_fn),
            _ => (item, "this item", to_fn),
        };
        (
            head,
            format!("#[{attribute}] applies to {shape}, not to {what}: {fix}"),
        )
    };
    Err(syn::Error::new_spanned(tokens, message))
}

fn location(krate: &TokenStream, span: Span) -> TokenStream {
    quote_spanned! {span=>
        #krate::__private::Location { file: ::core::file!(), line: ::core::line!(), column: ::core::column!() }
    }
}

/// `tokens` with every span set to `span`, so that an expression built from them spans only the
/// user's tokens it stands for.
pub fn respan(tokens: &TokenStream, span: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

fn loader_locals() -> (Ident, Ident) {
    (
        Ident::new("rule", Span::mixed_site()),
        Ident::new("info", Span::mixed_site()),
    )
}

/// Both results, or all their errors together.
fn both<A, B>(a: syn::Result<A>, b: syn::Result<B>) -> syn::Result<(A, B)> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(mut a), Err(b)) => {
            a.combine(b);
            Err(a)
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// The errors of `errors` together, if there are any.
fn combined(errors: Vec<syn::Error>) -> Option<syn::Error> {
    errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    })
}

/// A function lowered to the IR and analysed, or all the errors found in it.
fn lower_and_check(
    func: &ItemFn,
    krate: &TokenStream,
) -> syn::Result<(crate::ir::Func, activity::Activity)> {
    let mut errors = crate::signature::check(&func.sig);
    errors.extend(crate::generics::check(&func.sig, "differentiable"));
    let ir = match Lower::new(krate.clone()).function(func) {
        Ok(ir) => ir,
        Err(e) => {
            errors.push(e);
            return Err(combined(errors).expect("an error"));
        }
    };
    let act = activity::analyse(&ir);
    activity::check(&ir, &act, &mut errors);
    match combined(errors) {
        Some(e) => Err(e),
        None => Ok((ir, act)),
    }
}

pub fn differentiable(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if let Ok(block) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return crate::methods::differentiable_impl(args, block);
    }
    let func = parse_fn(item, "differentiable");
    derivatives(args, func, None)
}

/// What a method is to the registry: its path (`<Spring>::energy`), in place of the free
/// function the macro differentiates for it, which is not emitted.
pub struct Method {
    pub path: TokenStream,
}

/// The derivatives of `func` and their registration, with `func` itself, or, for a method, for
/// the method's path without the free function that stands for it.
pub fn derivatives(
    args: TokenStream,
    func: syn::Result<ItemFn>,
    method: Option<&Method>,
) -> syn::Result<TokenStream> {
    let args = attr::differentiable(args);
    // With arguments in error, the lowering still reports its own errors, with the default path.
    let krate = args
        .as_ref()
        .map_or_else(|_| quote!(::ad), |a| a.krate.clone());
    let lowered =
        func.and_then(|func| lower_and_check(&func, &krate).map(|(ir, act)| (func, ir, act)));
    // Errors in the arguments and in the function, all together.
    let (args, (func, ir, act)) = both(args, lowered)?;
    let krate = &args.krate;

    let mut fwd = Forward::new(&ir, &act, krate);
    let jvp = fwd.emit();
    let jvp_name = Forward::fn_name(&ir);
    let mut rev = crate::reverse::Reverse::new(&ir, &act, krate);
    let vjp = rev.emit();
    let vjp_name = crate::reverse::Reverse::fn_name(&ir);
    let name = &func.sig.ident;
    let name_str = syn::ext::IdentExt::unraw(name).to_string();
    let here = location(krate, name.span());
    // The callees of a generic function are named by each instantiation's loaders (below);
    // those of a function with const parameters are not listed.
    let users = crate::generics::late_type_params(&func.sig.generics);
    let type_generic = func.sig.generics.type_params().next().is_some();
    // Const parameters and those of user types: each instantiation registers itself at its
    // first call (decisions 11 and 14).
    let const_generic = func.sig.generics.const_params().next().is_some() || !users.is_empty();
    let callees = if type_generic || const_generic {
        Vec::new()
    } else {
        callee_list(krate, &fwd.callees)
    };
    // A generic function's calls whose arguments' types the macro knows, named at those types
    // (`T` among them) inside the loaders' impl; the others are not listed.
    let generic_sites: Vec<&CalleeSite> = if type_generic && !const_generic {
        fwd.callees
            .iter()
            .filter(|site| site.arg_types.iter().all(Option::is_some))
            .collect()
    } else {
        Vec::new()
    };
    let callee_bodies: Vec<TokenStream> = generic_sites
        .iter()
        .map(|site| callee_identity(krate, site))
        .collect();
    // A loader: the function and its generated rule of one mode, at one instantiation.
    let loader = |parts_fn: &str, rule_fn: &Ident, turbofish: &TokenStream| {
        let (rule, info) = loader_locals();
        // On the function's name: a signature `ad` cannot differentiate is reported there.
        let parts_fn = Ident::new(parts_fn, name.span());
        let krate_at_name = respan(krate, name.span());
        // The arity named, so that rustc picks the one impl of `Function` that can fit
        // without trying those of every other arity.
        let holes = func.sig.inputs.iter().map(|_| quote!(_));
        let item = match method {
            Some(m) => m.path.clone(),
            None => quote!(#name #turbofish),
        };
        let parts = quote_spanned!(name.span()=> #krate_at_name::__private::Function::<(#(#holes,)*)>::#parts_fn(&#item, #item as usize));
        quote! {
            {
                #[allow(unused_assignments)]
                let (mut #rule, #info) = #parts;
                #rule = #rule_fn #turbofish;
                (#info, #krate::__private::boxed(#rule))
            }
        }
    };
    let reverse_loader = |t: &TokenStream| loader("__reverse_parts", &vjp_name, t);
    let forward_loader = |t: &TokenStream| loader("__forward_parts", &jvp_name, t);
    let (loader_items, instantiations, callee_loads) = crate::generics::loaders(
        krate,
        &func.sig.generics,
        &[&reverse_loader, &forward_loader],
        &callee_bodies,
    );
    // Inside the module of the function's name (below), the module's path is the function's.
    let in_module = const_generic;
    let rule_name = if in_module {
        quote!(::core::module_path!())
    } else {
        quote!(::core::concat!(::core::module_path!(), "::", #name_str))
    };
    let entry = |load: &TokenStream, mode: &str, callees: &TokenStream| {
        let mode = Ident::new(mode, Span::call_site());
        quote! {
            #krate::__private::RuleEntry {
                load: #load,
                mode: #krate::__private::Mode::#mode,
                origin: #krate::__private::Origin::Generated,
                rule_name: #rule_name,
                location: #here,
                callees: #callees,
            }
        }
    };
    // The list made above, once for both modes: each callee's loader is type-checked and
    // evaluated once.
    let shared = Ident::new("__AD_CALLEES", Span::mixed_site());
    let shared_list = (!callees.is_empty())
        .then(|| quote!(const #shared: &[#krate::__private::Callee] = &[#(#callees),*];));
    let entries: Vec<TokenStream> = instantiations
        .iter()
        .zip(&callee_loads)
        .flat_map(|(loads, callee_loads)| {
            // A generic function's callees at this instantiation, else the list made above.
            let listed = if !generic_sites.is_empty() {
                let listed = generic_sites.iter().zip(callee_loads).map(|(site, load)| {
                    let location = location(krate, site.span);
                    quote!(#krate::__private::Callee { load: #load, location: #location })
                });
                quote!(&[#(#listed),*])
            } else if callees.is_empty() {
                quote!(&[])
            } else {
                quote!(#shared)
            };
            [
                entry(&loads[0], "Reverse", &listed),
                entry(&loads[1], "Forward", &listed),
            ]
        })
        .collect();

    let fit_items = (!fwd.callees.is_empty()).then(|| crate::call_site::fit_items(krate));

    // A function with function parameters cannot be registered (its instantiations are over
    // function item types), nor can one with const parameters be registered in a static (they
    // have too many values): their derivatives live in a module of its name. Callers'
    // derivatives call those of the first kind there with the function items in place
    // (`Partial`); an instantiation of the second kind registers its own at its first call.
    let functions = ir.params.iter().any(|p| p.function);
    // The parameters an instantiation registers itself at: user types', then const ones.
    let user_params: Vec<&syn::TypeParam> = func
        .sig
        .generics
        .type_params()
        .filter(|t| users.contains(&t.ident.to_string()))
        .collect();
    let consts: Vec<&Ident> = user_params
        .iter()
        .map(|t| &t.ident)
        .chain(func.sig.generics.const_params().map(|c| &c.ident))
        .collect();
    if method.is_some() && functions {
        return Err(syn::Error::new_spanned(
            &func.sig.ident,
            "#[differentiable] does not differentiate methods that take functions yet: write a free function and call it from the method",
        ));
    }
    if functions || !consts.is_empty() {
        let vis = &func.vis;
        let public = |item: &TokenStream| -> TokenStream {
            match syn::parse2::<ItemFn>(item.clone()) {
                Ok(mut f) => {
                    f.vis = syn::parse_quote!(pub);
                    quote!(#f)
                }
                Err(e) => e.to_compile_error(),
            }
        };
        let (jvp, vjp) = (public(&jvp), public(&vjp));
        let mut func = func.clone();
        let registration = (!functions).then(|| {
            let register = Ident::new("__ad_register", Span::mixed_site());
            let const_decls: Vec<TokenStream> = user_params
                .iter()
                .map(|t| {
                    let mut t = (*t).clone();
                    t.bounds = t
                        .bounds
                        .into_iter()
                        .filter(|b| !matches!(b, syn::TypeParamBound::Lifetime(_)))
                        .collect();
                    quote!(#t)
                })
                .chain(func.sig.generics.const_params().map(|c| quote!(#c)))
                .collect();
            let register_where = crate::generics::late_where(&func.sig.generics, krate);
            // The primal needs the derivatives' bounds too, to name its instantiation's.
            for t in &user_params {
                let predicates =
                    crate::generics::late_predicates(&func.sig.generics, &t.ident, krate);
                crate::generics::add_bounds(&mut func.sig.generics, predicates);
            }
            let preamble: syn::Stmt = syn::parse_quote! {
                if #krate::__private::registering() {
                    #name::#register::<#(#consts),*>();
                }
            };
            func.block.stmts.insert(0, preamble);
            quote! {
                #loader_items

                /// Registers the derivatives of the instantiation of the function's const
                /// parameters (at each float type for its type parameters).
                pub fn #register<#(#const_decls),*>() #register_where {
                    #krate::__private::register_instantiation(&[#(#entries),*]);
                }
            }
        });
        return Ok(quote! {
            #func

            #[doc(hidden)]
            #[allow(non_snake_case, unused_imports, function_casts_as_integer, clippy::all, clippy::pedantic)]
            #vis mod #name {
                use super::*;
                #fit_items
                #jvp
                #vjp
                #registration
            }
        });
    }

    // A method stays where it is written, in its `impl` block.
    let func = method.is_none().then_some(func);
    Ok(quote! {
        #func

        // `f as usize` in the loader is the function's address, which the function-pointer
        // fallback matches against: the cast is what is meant.
        #[doc(hidden)]
        #[allow(function_casts_as_integer)]
        const _: () = {
            #fit_items
            #jvp
            #vjp
            #loader_items
            #shared_list

            // Both rules in one registration: one static per function.
            #krate::__private::register_rule!(#(#entries),*);
        };
    })
}

/// The identity of a callee, at the instantiation its arguments' types make where the macro
/// can tell some of them (a generic callee called without a turbofish: `softplus(x)` with
/// `x: f64`, `blend(k, 0.25)`, `blend(u, 0.25)` with `u` untyped), otherwise as it is written,
/// which names a callee that is not generic. Each argument's type is a declared one, the type
/// rustc gives a float literal written there (`ty_of(0.25)`: f64 where nothing else decides
/// it), or left to inference from the others.
///
/// The forms cost rustc differently (the instructions of a check of 100 functions, 30 calls,
/// `docs/PERFORMANCE.md`): the types named in the turbofish of `CalleeOf` are the cheapest, a
/// type left to inference there costs about 1.9 M instructions a call more than naming the
/// callee as written, and the witnesses of a literal more still; so each call takes the
/// cheapest form that names it.
fn callee_identity(krate: &TokenStream, site: &CalleeSite) -> TokenStream {
    let callee = &site.callee;
    let f = Ident::new("__ad_callee", Span::mixed_site());
    let known =
        site.arg_types.iter().any(Option::is_some) || site.arg_literals.iter().any(Option::is_some);
    if !known {
        return quote!(#krate::__private::Function::__info(&#callee, #callee as usize));
    }
    let of = if site.arg_literals.iter().all(Option::is_none) {
        let types = site
            .arg_types
            .iter()
            .map(|t| t.as_ref().map_or_else(|| quote!(_), |t| quote!(#t)));
        quote!(#krate::__private::CalleeOf::<_, (#(#types,)*)>::of(&#f))
    } else {
        let witnesses = site
            .arg_types
            .iter()
            .zip(&site.arg_literals)
            .map(|(ty, literal)| match (ty, literal) {
                (Some(t), _) => quote!(::core::marker::PhantomData::<#t>),
                (None, Some(l)) => quote!(#krate::__private::ty_of(#l)),
                (None, None) => quote!(::core::marker::PhantomData::<_>),
            });
        quote!(#krate::__private::CalleeOf::of_witness(&#f, (#(#witnesses,)*)))
    };
    quote!({
        use #krate::__private::{CalleeExact as _, CalleeOther as _};
        let #f = #callee;
        (&#of).info(#f as usize)
    })
}

fn callee_list(krate: &TokenStream, sites: &[CalleeSite]) -> Vec<TokenStream> {
    sites
        .iter()
        .map(|site| {
            let location = location(krate, site.span);
            let load = callee_identity(krate, site);
            quote! {
                #krate::__private::Callee {
                    load: || #load,
                    location: #location,
                }
            }
        })
        .collect()
}

pub fn custom_rule(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = attr::custom_rule(args);
    let func = parse_fn(item, "custom_rule").and_then(|func| {
        let mut errors = Vec::new();
        errors.extend(crate::generics::check(&func.sig, "custom_rule"));
        if let Some(r) = func.sig.receiver() {
            errors.push(syn::Error::new_spanned(
                r,
                "#[custom_rule] applies to free functions, not methods: write the rule as a free function outside the `impl`, taking what the rule's mode asks for (for a forward rule, each argument followed by its tangent)",
            ));
        }
        match combined(errors) {
            Some(e) => Err(e),
            None => Ok(func),
        }
    });
    // Errors in the arguments and in the function, all together.
    let (args, func) = both(args, func)?;
    let krate = &args.krate;
    let of = &crate::generics::of_instantiated(&args.of, &func.sig.generics);
    let rule_ident = &func.sig.ident;
    let rule_str = syn::ext::IdentExt::unraw(rule_ident).to_string();
    let here = location(krate, rule_ident.span());
    let (parts_fn, mode) = match args.mode {
        attr::RuleMode::Forward => ("__forward_parts", quote!(Forward)),
        attr::RuleMode::Reverse => ("__reverse_rule_parts", quote!(Reverse)),
    };
    // The rule is assigned over a placeholder of the expected type: a wrong signature is one
    // "mismatched types" on the rule's own name that spells out the expected signature.
    let of_span = syn::spanned::Spanned::span(of);
    let krate_at_of = respan(krate, of_span);
    let parts_fn = Ident::new(parts_fn, of_span);
    // `of` is named once, so that the rule's signature also infers the type parameters of a
    // generic function (`of = square` for `square::<f64>`).
    // On `of`'s own span, so that "not a function `ad` can differentiate" points there.
    let function = Ident::new("__ad_of", of_span);
    let bind_function = quote_spanned!(of_span=> let #function = #of;);
    let parts = quote_spanned!(of_span=> #krate_at_of::__private::Function::#parts_fn(&#function, #function as usize));
    // Hygienic locals: a rule function named `rule` must not be shadowed by them.
    let (rule, info) = loader_locals();
    // A generic rule is registered at each instantiation, named by turbofish; `of` is then
    // inferred from the rule's signature.
    let load = |turbofish: &TokenStream| {
        let assign = quote_spanned!(rule_ident.span()=> #rule = #rule_ident #turbofish;);
        if let Some(augmented) = &args.augmented {
            // A reverse rule with residuals: the annotated function is the reverse part, and
            // `augmented` the forward part; each is checked on its own tokens.
            let aug = Ident::new("augmented", Span::mixed_site());
            let aug_span = syn::spanned::Spanned::span(augmented);
            let residual_parts = quote_spanned!(of_span=> #krate_at_of::__private::Function::__residual_parts(&#function, #function as usize));
            let assign_aug = quote_spanned!(aug_span=> #aug = #augmented #turbofish;);
            quote! {
                {
                    #bind_function
                    #[allow(unused_assignments)]
                    let (mut #aug, mut #rule, #info) = #residual_parts;
                    #assign_aug
                    #assign
                    (#info, #krate::__private::boxed(#krate::__private::Function::__split_rule(&#function, #aug, #rule)))
                }
            }
        } else {
            quote! {
                {
                    #bind_function
                    #[allow(unused_assignments)]
                    let (mut #rule, #info) = #parts;
                    #assign
                    (#info, #krate::__private::boxed(#rule))
                }
            }
        }
    };
    let (loader_items, instantiations, _) =
        crate::generics::loaders(krate, &func.sig.generics, &[&load], &[]);
    let entries = instantiations.iter().map(|loads| {
        let load = &loads[0];
        quote! {
            #krate::__private::RuleEntry {
                load: #load,
                mode: #krate::__private::Mode::#mode,
                origin: #krate::__private::Origin::Custom,
                rule_name: ::core::concat!(::core::module_path!(), "::", #rule_str),
                location: #here,
                callees: &[],
            }
        }
    });

    Ok(quote! {
        #func

        #[doc(hidden)]
        #[allow(function_casts_as_integer)]
        const _: () = {
            #loader_items
            #krate::__private::register_rule!(#(#entries),*);
        };
    })
}
