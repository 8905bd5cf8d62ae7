//! Runs the passes in order and assembles what the macros emit.

use crate::activity;
use crate::attr;
use crate::forward::{CalleeSite, Forward};
use crate::lower::Lower;
use proc_macro2::{Span, TokenStream};
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
    syn::parse2::<ItemFn>(item.clone()).map_err(|_| {
        syn::Error::new_spanned(
            item,
            format!("#[{attribute}] applies to free functions (`fn name(x: f64) -> f64 {{ .. }}`)"),
        )
    })
}

fn location(krate: &TokenStream, span: Span) -> TokenStream {
    quote_spanned! {span=>
        #krate::__private::Location { file: ::core::file!(), line: ::core::line!(), column: ::core::column!() }
    }
}

/// `tokens` with every span set to `span`, so that an expression built from them spans only the
/// user's tokens it stands for.
/// A call through the registry: a `static` cache for the call site, then `call`, which carries
/// the user's span so that a type error in it points at the user's call.
pub fn call_site(
    krate: &TokenStream,
    caller: &TokenStream,
    span: Span,
    method: &str,
    args: TokenStream,
    callee: &TokenStream,
) -> TokenStream {
    let site = Ident::new("__AD_SITE", Span::mixed_site());
    let line = quote_spanned!(span=> ::core::line!());
    let column = quote_spanned!(span=> ::core::column!());
    let krate_here = respan(krate, span);
    let method = Ident::new(method, span);
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
    let call = quote_spanned! {span=>
        #krate_here::__private::Function::#method(#callee, &#site, #args)
    };
    quote! {
        {
            static #site: #krate::__private::CallSite =
                #krate::__private::CallSite::new(#caller, ::core::file!(), #line, #column);
            #call
        }
    }
}

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

pub fn differentiable(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = attr::differentiable(args);
    let func = parse_fn(item, "differentiable");
    let (args, func) = both(args, func)?;
    let krate = &args.krate;

    let ir = Lower::new().function(&func)?;
    let act = activity::analyse(&ir);
    let mut errors = Vec::new();
    activity::check(&ir, &act, &mut errors);
    if let Some(e) = errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return Err(e);
    }

    let mut fwd = Forward::new(&ir, &act, krate);
    let jvp = fwd.emit();
    let jvp_name = Forward::fn_name(&ir);
    let mut rev = crate::reverse::Reverse::new(&ir, &act, krate);
    let vjp = rev.emit();
    let vjp_name = crate::reverse::Reverse::fn_name(&ir);
    let name = &func.sig.ident;
    let name_str = syn::ext::IdentExt::unraw(name).to_string();
    let here = location(krate, name.span());
    let callees = callee_list(krate, &fwd.callees);
    let entry = |parts_fn: &str, rule_fn: &Ident, mode: &str| {
        let (rule, info) = loader_locals();
        let parts_fn = Ident::new(parts_fn, Span::call_site());
        let mode = Ident::new(mode, Span::call_site());
        quote! {
            #krate::__private::register_rule!(#krate::__private::RuleEntry {
                load: || {
                    #[allow(unused_assignments)]
                    let (mut #rule, #info) = #krate::__private::Function::#parts_fn(&#name, #name as usize);
                    #rule = #rule_fn;
                    (#info, #krate::__private::boxed(#rule))
                },
                mode: #krate::__private::Mode::#mode,
                origin: #krate::__private::Origin::Generated,
                rule_name: ::core::concat!(::core::module_path!(), "::", #name_str),
                location: #here,
                callees: &[#(#callees),*],
            });
        }
    };
    let forward_entry = entry("__forward_parts", &jvp_name, "Forward");
    let reverse_entry = entry("__reverse_parts", &vjp_name, "Reverse");

    Ok(quote! {
        #func

        // `f as usize` in the loader is the function's address, which the function-pointer
        // fallback matches against: the cast is what is meant.
        #[doc(hidden)]
        #[allow(function_casts_as_integer)]
        const _: () = {
            #jvp
            #vjp

            #reverse_entry
            #forward_entry
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
    let func = parse_fn(item, "custom_rule");
    let (args, func) = both(args, func)?;
    if !func.sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &func.sig.generics,
            "#[custom_rule] functions cannot be generic: a rule has the one signature fixed by the function it is for",
        ));
    }
    if let Some(r) = func.sig.receiver() {
        return Err(syn::Error::new_spanned(
            r,
            "#[custom_rule] applies to free functions, not methods",
        ));
    }
    let krate = &args.krate;
    let of = &args.of;
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
    let parts =
        quote_spanned!(of_span=> #krate_at_of::__private::Function::#parts_fn(&#of, #of as usize));
    // Hygienic locals: a rule function named `rule` must not be shadowed by them.
    let (rule, info) = loader_locals();
    let assign = quote_spanned!(rule_ident.span()=> #rule = #rule_ident;);
    let load = if let Some(augmented) = &args.augmented {
        // A reverse rule with residuals: the annotated function is the reverse part, and
        // `augmented` the forward part; each is checked on its own tokens.
        let aug = Ident::new("augmented", Span::mixed_site());
        let aug_span = syn::spanned::Spanned::span(augmented);
        let residual_parts = quote_spanned!(of_span=> #krate_at_of::__private::Function::__residual_parts(&#of, #of as usize));
        let assign_aug = quote_spanned!(aug_span=> #aug = #augmented;);
        quote! {
            || {
                #[allow(unused_assignments)]
                let (mut #aug, mut #rule, #info) = #residual_parts;
                #assign_aug
                #assign
                (#info, #krate::__private::boxed(#krate::__private::Function::__split_rule(&#of, #aug, #rule)))
            }
        }
    } else {
        quote! {
            || {
                #[allow(unused_assignments)]
                let (mut #rule, #info) = #parts;
                #assign
                (#info, #krate::__private::boxed(#rule))
            }
        }
    };

    Ok(quote! {
        #func

        #[doc(hidden)]
        #[allow(function_casts_as_integer)]
        const _: () = {
            #krate::__private::register_rule!(#krate::__private::RuleEntry {
                load: #load,
                mode: #krate::__private::Mode::#mode,
                origin: #krate::__private::Origin::Custom,
                rule_name: ::core::concat!(::core::module_path!(), "::", #rule_str),
                location: #here,
                callees: &[],
            });
        };
    })
}
