//! What generated code emits at a call of another function: the call through the registry (or,
//! for a callee that takes a function argument, through the callee's derivatives with the
//! function in place), its call site's cache, and the fitting that keeps a call the user wrote
//! wrong from being reported twice.

use crate::expand::respan;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;

/// What brings the fitting of a call's arguments to its callee into scope
/// (`ad_runtime::__private::Fit`), emitted once beside the derivatives of a function that
/// calls others: a call with arguments that do not fit its callee is reported once, on the
/// user's own call, and not again on the generated one.
pub fn fit_items(krate: &TokenStream) -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use #krate::__private::{FitExact as _, FitOther as _};
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
    let arguments = Ident::new("__ad_args", Span::mixed_site());
    let tangents = Ident::new("__ad_tangents", Span::mixed_site());
    let fitting = Ident::new("__ad_fit", Span::mixed_site());
    let function = quote_spanned!(span=> #krate_here::__private::Function::#method_ident);
    let fitter = quote_spanned!(span=> let #fitting = #krate_here::__private::Fit::of(&#callee, &#arguments););
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
        ("__backward_seeded", [tape, values, buffers, seeds, value, adjoint]) => {
            let fitted = fitted(quote!(#arguments));
            let adjoints = quote_spanned!(span=> (&#fitting).fit_tangents(#function(#callee, &#site, #tape, #fitted, #buffers, #seeds, #value, #adjoint)));
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
