//! `#[differentiable]` on an `impl` block: each method differentiated as the free function it
//! stands for, and registered under the method's own path (`<Spring>::energy`), so that the
//! entry points and the registry know the method (`ad::grad(Spring::energy, (&s,))`).
//!
//! The block stays as written. For each method with a body, the macro differentiates a free
//! function of the same signature in which the receiver is a parameter (`&self` becomes
//! `__ad_self: &Spring`, `self` a `Spring` by value) and `Self` is the block's type; the
//! derivatives and their registration stand outside the block, beside it.

use crate::expand::{Method, derivatives};
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{FnArg, ImplItem, ItemFn, ItemImpl};

pub fn differentiable_impl(args: TokenStream, block: ItemImpl) -> syn::Result<TokenStream> {
    if let Some(lifetime) = block.generics.lifetimes().next() {
        return Err(syn::Error::new_spanned(
            lifetime,
            "#[differentiable] does not differentiate the methods of an `impl` block with lifetime parameters: differentiate free functions instead, and call them from the methods",
        ));
    }
    let self_ty = &block.self_ty;
    let mut out = block.to_token_stream();
    let mut errors: Option<syn::Error> = None;
    for item in &block.items {
        let ImplItem::Fn(method) = item else {
            continue;
        };
        let name = &method.sig.ident;
        let path = match &block.trait_ {
            Some((t, _)) => quote!(<#self_ty as #t>::#name),
            None => quote!(<#self_ty>::#name),
        };
        let func = free_function(method, self_ty, &block.generics);
        match derivatives(args.clone(), func, Some(&Method { path })) {
            Ok(ts) => out.extend(ts),
            Err(e) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The free function a method stands for: its receiver a parameter named `__ad_self` (at the
/// receiver's span; the body's `self` at its own), `Self` the block's type.
fn free_function(
    method: &syn::ImplItemFn,
    self_ty: &syn::Type,
    generics: &syn::Generics,
) -> syn::Result<ItemFn> {
    if !method.sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &method.sig.generics,
            "#[differentiable] does not differentiate generic methods yet: write a free function generic over the type and call it from the method",
        ));
    }
    let mut sig = method.sig.clone();
    // A generic block's parameters are the function's (`impl<T: Float> Params<T>`).
    sig.generics = generics.clone();
    let mut receiver_span = None;
    if let Some(FnArg::Receiver(r)) = sig.inputs.first() {
        let by_ref = match &r.kind {
            syn::ReceiverKind::Value => false,
            syn::ReceiverKind::Reference(_, _, None) => true,
            syn::ReceiverKind::Reference(_, _, Some(_)) => {
                return Err(syn::Error::new_spanned(
                    r,
                    "#[differentiable] does not differentiate methods that take `&mut self` yet: return the new value instead, or write a free function",
                ));
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    r,
                    "#[differentiable] differentiates methods that take `self` or `&self`; write a free function for this receiver",
                ));
            }
        };
        let span = r.self_token.span;
        receiver_span = Some(span);
        let ident = syn::Ident::new("__ad_self", span);
        let ty: syn::Type = if by_ref {
            syn::parse_quote!(&#self_ty)
        } else {
            syn::parse_quote!(#self_ty)
        };
        let m = (!by_ref).then_some(r.mutability).flatten();
        let arg: FnArg = syn::parse_quote!(#m #ident: #ty);
        let rest: Vec<FnArg> = sig.inputs.iter().skip(1).cloned().collect();
        sig.inputs = std::iter::once(arg).chain(rest).collect();
    }
    let sig_tokens = replace(sig.to_token_stream(), self_ty, receiver_span);
    let body = replace(method.block.to_token_stream(), self_ty, receiver_span);
    let attrs = &method.attrs;
    syn::parse2(quote!(#(#attrs)* #sig_tokens #body))
}

/// `tokens` with `Self` written as the block's type and, for a method with a receiver, `self`
/// as `__ad_self`.
fn replace(tokens: TokenStream, self_ty: &syn::Type, receiver: Option<Span>) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|t| -> Vec<TokenTree> {
            match t {
                TokenTree::Group(g) => {
                    let mut inner =
                        Group::new(g.delimiter(), replace(g.stream(), self_ty, receiver));
                    inner.set_span(g.span());
                    vec![TokenTree::Group(inner)]
                }
                TokenTree::Ident(i) if i == "Self" => {
                    self_ty.to_token_stream().into_iter().collect()
                }
                TokenTree::Ident(i) if i == "self" => match receiver {
                    // At the token's own span, so that an error in the body points there.
                    Some(_) => vec![TokenTree::Ident(syn::Ident::new("__ad_self", i.span()))],
                    None => vec![TokenTree::Ident(i)],
                },
                other => vec![other],
            }
        })
        .collect()
}
