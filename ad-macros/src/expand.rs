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

/// The names of the items that fit a call's arguments to its callee (see [`fit_items`]).
fn fit_names() -> (Ident, Ident, Ident) {
    (
        Ident::new("__AdFit", Span::mixed_site()),
        Ident::new("__AdFitExact", Span::mixed_site()),
        Ident::new("__AdFitOther", Span::mixed_site()),
    )
}

/// The items behind [`call_site`]'s fitting, emitted once beside the derivatives of a function
/// that calls others.
///
/// A call whose arguments do not fit the callee (a wrong count, a wrong type) is an error in the
/// user's own function, where rustc reports it. The generated call must not report it again, so
/// its arguments go through `__AdFit<F, A>`, where `F` is the callee and `A` the tuple of the
/// arguments as written. When `F` is a function of the arguments `A`, method resolution finds the
/// exact `fit`, the identity, and `A` is tied to the callee's parameters (an unsuffixed literal
/// argument gets the parameter's type). Otherwise it falls back, by autoref, to a `fit` that
/// gives the value whatever type the call needs: that type-checks without a word and never runs,
/// since the user's function, and with it the crate, does not compile.
fn fit_items(krate: &TokenStream) -> TokenStream {
    let (fit, exact, other) = fit_names();
    quote! {
        struct #fit<F, A>(::core::marker::PhantomData<fn() -> (F, A)>);

        impl<F, A> #fit<F, A> {
            #[inline]
            fn of(_: &F, _: &A) -> Self {
                #fit(::core::marker::PhantomData)
            }
        }

        trait #exact<A> {
            fn fit<P>(&self, value: P) -> P;
            fn fit_tangents<P>(&self, value: P) -> P;
        }

        impl<F: #krate::__private::Function<A>, A> #exact<A> for #fit<F, A> {
            #[inline]
            fn fit<P>(&self, value: P) -> P {
                value
            }

            #[inline]
            fn fit_tangents<P>(&self, value: P) -> P {
                value
            }
        }

        trait #other<A> {
            fn fit<P, B>(&self, value: P) -> B;
            fn fit_tangents<P>(&self, value: P) -> <A as #krate::__private::Differentiable>::Tangent
            where
                A: #krate::__private::Differentiable;
        }

        impl<F, A> #other<A> for &#fit<F, A> {
            fn fit<P, B>(&self, _: P) -> B {
                ::core::unreachable!("ad: the arguments of a call do not fit the function it calls, which rustc reports on the call")
            }

            fn fit_tangents<P>(&self, _: P) -> <A as #krate::__private::Differentiable>::Tangent
            where
                A: #krate::__private::Differentiable,
            {
                ::core::unreachable!("ad: the arguments of a call do not fit the function it calls, which rustc reports on the call")
            }
        }
    }
}

/// The comma-separated parts of `tokens`; tuples and calls inside them are groups.
fn split_commas(tokens: TokenStream) -> Vec<TokenStream> {
    let mut parts = vec![TokenStream::new()];
    for t in tokens {
        match &t {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' => {
                parts.push(TokenStream::new());
            }
            _ => parts.last_mut().expect("a part").extend([t]),
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// A call of `callee` through the registry, by `method` of `Function`:
/// - `__forward`, with `args` the argument tuple and the tangent tuple;
/// - `__augmented`, with `args` the tape and the argument tuple;
/// - `__backward`, with `args` the tape, the call's record `(arguments, value)` and the value's
///   adjoint; its result is the tuple of the arguments' adjoints, one per argument as written.
///
/// The call site's `static` cache is declared here, or with `site` by [`site_static`] where the
/// reverse sweep can name it too: the reverse sweep of a call looks there first for the rule its
/// forward sweep recorded (see `ad_runtime::dispatch`). The call carries the user's span, so
/// that a type error in it points at the user's call. The arguments go through the fitting of
/// [`fit_items`] first, so that arguments that do not fit the callee are reported once, on the
/// user's own call, and not again on the generated one.
pub fn call_site(
    krate: &TokenStream,
    caller: &TokenStream,
    span: Span,
    method: &str,
    args: TokenStream,
    (callee, site, partial): (&TokenStream, Option<&Ident>, Option<&Partial>),
) -> TokenStream {
    if let Some(partial) = partial {
        return partial.call(krate, span, method, args);
    }
    let local = Ident::new("__AD_SITE", Span::mixed_site());
    let krate_here = respan(krate, span);
    let method_ident = Ident::new(method, span);
    // The argument tuples carry the call's span too (their contents keep their own).
    let args: TokenStream = args
        .into_iter()
        .map(|mut t| {
            if let proc_macro2::TokenTree::Group(_) | proc_macro2::TokenTree::Punct(_) = t {
                t.set_span(span);
            }
            t
        })
        .collect();
    let (fit, _, _) = fit_names();
    let arguments = Ident::new("__ad_args", Span::mixed_site());
    let tangents = Ident::new("__ad_tangents", Span::mixed_site());
    let fitting = Ident::new("__ad_fit", Span::mixed_site());
    let function = quote_spanned!(span=> #krate_here::__private::Function::#method_ident);
    let fitter = quote_spanned!(span=> let #fitting = #fit::of(&#callee, &#arguments););
    let fitted = |value: TokenStream| quote_spanned!(span=> (&#fitting).fit(#value));
    let static_site = match site {
        Some(_) => TokenStream::new(),
        None => site_static(krate, caller, span, &local),
    };
    let site = site.unwrap_or(&local);
    match (method, split_commas(args).as_slice()) {
        ("__forward", [values, tangent_values]) => {
            let pair = fitted(quote!((#arguments, #tangents)));
            quote! {
                {
                    #static_site
                    // The tangents first: a zero tangent borrows its argument, which the
                    // argument tuple then takes (a `Vec` moved into the call).
                    let #tangents = #tangent_values;
                    let #arguments = #values;
                    #fitter
                    let (#arguments, #tangents) = #pair;
                    #function(#callee, &#site, #arguments, #tangents)
                }
            }
        }
        ("__augmented", [tape, values]) => {
            let fitted = fitted(quote!(#arguments));
            quote! {
                {
                    #static_site
                    let #arguments = #values;
                    #fitter
                    #function(#callee, &#site, #tape, #fitted)
                }
            }
        }
        ("__backward", [tape, record, adjoint]) => {
            let fitted = fitted(quote!(#arguments));
            let adjoints = quote_spanned!(span=> (&#fitting).fit_tangents(#function(#callee, &#site, #tape, #fitted, #record.1, #adjoint)));
            quote! {
                {
                    #static_site
                    let #arguments = #record.0;
                    #fitter
                    #adjoints
                }
            }
        }
        ("__backward_into", [tape, values, buffers, value, adjoint]) => {
            let fitted = fitted(quote!(#arguments));
            let adjoints = quote_spanned!(span=> (&#fitting).fit_tangents(#function(#callee, &#site, #tape, #fitted, #buffers, #value, #adjoint)));
            quote! {
                {
                    #static_site
                    let #arguments = #values;
                    #fitter
                    #adjoints
                }
            }
        }
        _ => unreachable!("a generated call of an unknown shape: {method}"),
    }
}

/// A call with function items among its arguments (`rk4(field, y0, p)`), seen as the partial
/// application of the callee to them (`|y0, p| rk4(field, y0, p)`). The callee cannot be in the
/// registry (its instantiations are over function item types, which its macro cannot name), so
/// the call runs the callee's generated derivatives, from the module of the callee's name that
/// `#[differentiable]` gives a function with function parameters, with the function items in
/// place and the other arguments under the conventions of `ad::Function`.
pub struct Partial {
    /// The callee's path as written.
    pub callee: TokenStream,
    /// Per argument of the call: the function item's path, if it is one.
    pub functions: Vec<Option<TokenStream>>,
}

impl Partial {
    fn param(k: usize) -> Ident {
        Ident::new(&format!("__ad_p{k}"), Span::mixed_site())
    }

    fn tangent(k: usize) -> Ident {
        Ident::new(&format!("__ad_d{k}"), Span::mixed_site())
    }

    /// The callee's derivative of one mode, in the module of its name, without generic
    /// arguments (rustc infers them from the function items).
    fn derivative(&self, prefix: &str) -> TokenStream {
        let Ok(mut path) = syn::parse2::<syn::Path>(self.callee.clone()) else {
            return self.callee.clone();
        };
        for seg in path.segments.iter_mut() {
            seg.arguments = syn::PathArguments::None;
        }
        let last = path.segments.last().expect("a path").ident.clone();
        let name = Ident::new(
            &format!("{prefix}{}", syn::ext::IdentExt::unraw(&last)),
            last.span(),
        );
        quote!(#path::#name)
    }

    /// The arguments of the callee or of one of its derivatives: the function items in place,
    /// the partial application's own parameters (`per` each) between them.
    fn full_args(&self, per: &dyn Fn(usize) -> TokenStream) -> Vec<TokenStream> {
        let mut k = 0;
        self.functions
            .iter()
            .map(|f| match f {
                Some(path) => path.clone(),
                None => {
                    k += 1;
                    per(k - 1)
                }
            })
            .collect()
    }

    /// The partial application a call stands for, if function items are among its arguments
    /// (`written` gives an argument's tokens).
    pub fn of(
        callee: &TokenStream,
        args: &[crate::ir::Value],
        functions: &[bool],
        written: &dyn Fn(crate::ir::Value) -> TokenStream,
    ) -> Option<Partial> {
        functions.contains(&true).then(|| Partial {
            callee: callee.clone(),
            functions: args
                .iter()
                .zip(functions)
                .map(|(a, f)| f.then(|| written(*a)))
                .collect(),
        })
    }

    fn arity(&self) -> usize {
        self.functions.iter().filter(|f| f.is_none()).count()
    }

    fn call(
        &self,
        krate: &TokenStream,
        span: Span,
        method: &str,
        args: TokenStream,
    ) -> TokenStream {
        let n = self.arity();
        let params: Vec<Ident> = (0..n).map(Self::param).collect();
        let callee = &self.callee;
        let full = self.full_args(&|k| {
            let p = Self::param(k);
            quote!(#p)
        });
        let closure = quote!(|#(#params),*| #callee(#(#full),*));
        let private = quote_spanned!(span=> #krate::__private);
        match (method, split_commas(args).as_slice()) {
            ("__forward", [values, tangents]) => {
                let derivative = self.derivative("__ad_forward_");
                let pairs: Vec<TokenStream> = (0..n)
                    .map(|k| {
                        let (p, d) = (Self::param(k), Self::tangent(k));
                        quote!(#p, #d)
                    })
                    .collect();
                let with = self.full_args(&|k| {
                    let (p, d) = (Self::param(k), Self::tangent(k));
                    quote!(#p, #d)
                });
                quote!({
                    let __ad_tangents = #tangents;
                    let __ad_args = #values;
                    #private::forward_with(#closure, |#(#pairs),*| #derivative(#(#with),*), __ad_args, __ad_tangents)
                })
            }
            (method, rest) => {
                let derivative = self.derivative("__ad_reverse_");
                let rule = quote!(|#(#params,)* __ad_t, __ad_a, __ad_j, __ad_o| #derivative(#(#full,)* __ad_t, __ad_a, __ad_j, __ad_o));
                match (method, rest) {
                    ("__augmented", [tape, values]) => {
                        quote!(#private::augmented_with(#closure, #rule, #tape, #values))
                    }
                    ("__backward", [tape, record, adjoint]) => quote!({
                        let __ad_record = #record;
                        #private::backward_with(#closure, #rule, #tape, __ad_record.0, __ad_record.1, #adjoint)
                    }),
                    ("__backward_into", [tape, values, buffers, value, adjoint]) => quote! {
                        #private::backward_into_with(#closure, #rule, #tape, #values, #buffers, #value, #adjoint)
                    },
                    _ => unreachable!("a generated call of an unknown shape: {method}"),
                }
            }
        }
    }
}

/// The `static` cache of a call site, named `site`, for [`call_site`].
pub fn site_static(
    krate: &TokenStream,
    caller: &TokenStream,
    span: Span,
    site: &Ident,
) -> TokenStream {
    let line = quote_spanned!(span=> ::core::line!());
    let column = quote_spanned!(span=> ::core::column!());
    quote! {
        static #site: #krate::__private::CallSite =
            #krate::__private::CallSite::new(#caller, ::core::file!(), #line, #column);
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
    let args = attr::differentiable(args);
    // With arguments in error, the lowering still reports its own errors, with the default path.
    let krate = args
        .as_ref()
        .map_or_else(|_| quote!(::ad), |a| a.krate.clone());
    let lowered = parse_fn(item, "differentiable")
        .and_then(|func| lower_and_check(&func, &krate).map(|(ir, act)| (func, ir, act)));
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
    // The callees of a generic function are instantiated with it: not listed for now.
    let callees = if func.sig.generics.type_params().next().is_some() {
        Vec::new()
    } else {
        callee_list(krate, &fwd.callees)
    };
    // A loader: the function and its generated rule of one mode, at one instantiation.
    let loader = |parts_fn: &str, rule_fn: &Ident, turbofish: &TokenStream| {
        let (rule, info) = loader_locals();
        // On the function's name: a signature `ad` cannot differentiate is reported there.
        let parts_fn = Ident::new(parts_fn, name.span());
        let krate_at_name = respan(krate, name.span());
        let parts = quote_spanned!(name.span()=> #krate_at_name::__private::Function::#parts_fn(&#name #turbofish, #name #turbofish as usize));
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
    let (loader_items, instantiations) = crate::generics::loaders(
        krate,
        &func.sig.generics,
        &[&reverse_loader, &forward_loader],
    );
    let entry = |load: &TokenStream, mode: &str| {
        let mode = Ident::new(mode, Span::call_site());
        quote! {
            #krate::__private::RuleEntry {
                load: #load,
                mode: #krate::__private::Mode::#mode,
                origin: #krate::__private::Origin::Generated,
                rule_name: ::core::concat!(::core::module_path!(), "::", #name_str),
                location: #here,
                callees: &[#(#callees),*],
            }
        }
    };
    let entries: Vec<TokenStream> = instantiations
        .iter()
        .flat_map(|loads| [entry(&loads[0], "Reverse"), entry(&loads[1], "Forward")])
        .collect();

    let fit_items = (!fwd.callees.is_empty()).then(|| fit_items(krate));

    // A function with function parameters cannot be registered (its instantiations are over
    // function item types): its derivatives live in a module of its name, where its callers'
    // derivatives call them with the function items in place (`Partial`).
    if ir.params.iter().any(|p| p.function) {
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
        return Ok(quote! {
            #func

            #[doc(hidden)]
            #[allow(non_snake_case, unused_imports, clippy::all, clippy::pedantic)]
            #vis mod #name {
                use super::*;
                #fit_items
                #jvp
                #vjp
            }
        });
    }

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

            // Both rules in one registration: one static per function.
            #krate::__private::register_rule!(#(#entries),*);
        };
    })
}

fn callee_list(krate: &TokenStream, sites: &[CalleeSite]) -> Vec<TokenStream> {
    sites
        .iter()
        .map(|site| {
            let callee = &site.callee;
            let location = location(krate, site.span);
            quote! {
                #krate::__private::Callee {
                    load: || #krate::__private::Function::__info(&#callee, #callee as usize),
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
    let (loader_items, instantiations) =
        crate::generics::loaders(krate, &func.sig.generics, &[&load]);
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
