//! Runs the passes in order and assembles what the macros emit.

use crate::activity;
use crate::attr;
use crate::forward::{CalleeSite, Forward};
use crate::lower::Lower;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
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

fn fn_id(krate: &TokenStream, parts: &Ident) -> TokenStream {
    quote! {
        #krate::__private::FnId {
            key: #parts.key,
            ptr_type: #parts.ptr_type,
            name: #parts.name,
            ptr: &{ #parts.ptr },
            address: #parts.address,
        }
    }
}

fn location(krate: &TokenStream, span: Span) -> TokenStream {
    quote_spanned! {span=>
        #krate::__private::Location { file: ::core::file!(), line: ::core::line!(), column: ::core::column!() }
    }
}

fn entry_attrs(krate: &TokenStream) -> TokenStream {
    quote! {
        #[#krate::__private::linkme::distributed_slice(#krate::__private::RULES)]
        #[linkme(crate = #krate::__private::linkme)]
    }
}

pub fn differentiable(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = attr::differentiable(args);
    let func = parse_fn(item, "differentiable");
    let (args, func) = match (args, func) {
        (Ok(a), Ok(f)) => (a, f),
        (Err(mut a), Err(b)) => {
            a.combine(b);
            return Err(a);
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
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
    let name = &func.sig.ident;
    let name_str = name.to_string();
    let parts = Ident::new("__ad_parts", Span::mixed_site());
    let rule = Ident::new("__ad_rule", Span::mixed_site());
    let function = fn_id(krate, &parts);
    let attrs = entry_attrs(krate);
    let here = location(krate, name.span());
    let (callee_lets, callees) = callee_list(krate, &fwd.callees);
    let entry = Ident::new("__AD_FORWARD_ENTRY", Span::mixed_site());

    Ok(quote! {
        #func

        #[doc(hidden)]
        const _: () = {
            #jvp

            #attrs
            static #entry: #krate::__private::RuleEntry = {
                let (#parts, #rule) = #krate::__private::forward_rule(#name, #name, #jvp_name);
                #(#callee_lets)*
                #krate::__private::RuleEntry {
                    function: #function,
                    mode: #krate::__private::Mode::Forward,
                    origin: #krate::__private::Origin::Generated,
                    rule_name: ::core::concat!(::core::module_path!(), "::", #name_str),
                    location: #here,
                    rule: &{ #rule },
                    callees: &[#(#callees),*],
                }
            };
        };
    })
}

fn callee_list(krate: &TokenStream, sites: &[CalleeSite]) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut lets = Vec::new();
    let mut callees = Vec::new();
    for (i, site) in sites.iter().enumerate() {
        let parts = Ident::new(&format!("__ad_callee{i}"), Span::mixed_site());
        let callee = &site.callee;
        lets.push(quote!(let #parts = #krate::__private::fn_parts(#callee, #callee);));
        let function = fn_id(krate, &parts);
        let location = location(krate, site.span);
        callees
            .push(quote!(#krate::__private::Callee { function: #function, location: #location }));
    }
    (lets, callees)
}

pub fn custom_rule(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = attr::custom_rule(args);
    let func = parse_fn(item, "custom_rule");
    let (args, func) = match (args, func) {
        (Ok(a), Ok(f)) => (a, f),
        (Err(mut a), Err(b)) => {
            a.combine(b);
            return Err(a);
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
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
    let rule_str = rule_ident.to_string();
    let parts = Ident::new("__ad_parts", Span::mixed_site());
    let rule = Ident::new("__ad_rule", Span::mixed_site());
    let function = fn_id(krate, &parts);
    let attrs = entry_attrs(krate);
    let here = location(krate, rule_ident.span());
    let entry = Ident::new("__AD_RULE_ENTRY", Span::mixed_site());
    let attr::RuleMode::Forward = args.mode;
    let checked =
        quote_spanned!(func.sig.span()=> #krate::__private::forward_rule(#of, #of, #rule_ident));

    Ok(quote! {
        #func

        #[doc(hidden)]
        const _: () = {
            #attrs
            static #entry: #krate::__private::RuleEntry = {
                let (#parts, #rule) = #checked;
                #krate::__private::RuleEntry {
                    function: #function,
                    mode: #krate::__private::Mode::Forward,
                    origin: #krate::__private::Origin::Custom,
                    rule_name: ::core::concat!(::core::module_path!(), "::", #rule_str),
                    location: #here,
                    rule: &{ #rule },
                    callees: &[],
                }
            };
        };
    })
}
