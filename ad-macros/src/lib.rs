//! Procedural macros of the `ad` crate. Use them through `ad`: `#[ad::differentiable]`,
//! `#[ad::custom_rule]`.

mod activity;
mod attr;
mod call_site;
mod derive;
mod expand;
mod forward;
mod generics;
mod ir;
mod lower;
mod methods;
mod prims;
mod reverse;
mod signature;

use proc_macro::TokenStream;

/// See `ad::differentiable`.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    let original = proc_macro2::TokenStream::from(item.clone());
    expand::with_fallback(original, expand::differentiable(args.into(), item.into())).into()
}

/// See `ad::custom_rule`.
#[proc_macro_attribute]
pub fn custom_rule(args: TokenStream, item: TokenStream) -> TokenStream {
    let original = proc_macro2::TokenStream::from(item.clone());
    expand::with_fallback(original, expand::custom_rule(args.into(), item.into())).into()
}

/// See `ad::Differentiable`.
#[proc_macro_derive(Differentiable, attributes(ad))]
pub fn derive_differentiable(input: TokenStream) -> TokenStream {
    derive::differentiable(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
