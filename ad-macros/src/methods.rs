//! `#[differentiable]` on an `impl` block: each method differentiated as the free function it
//! stands for, and registered under the method's own path (`<Spring>::energy`), so that the
//! entry points and the registry know the method (`ad::grad(Spring::energy, (&s,))`).
//!
//! The block stays as written. For each method with a body, the macro differentiates a free
//! function of the same signature in which the receiver is a parameter (`&self` becomes
//! `__ad_self: &Spring`, `self` a `Spring` by value, `&mut self` an output slice of one
//! element, `__ad_selfs: &mut [Spring]`) and `Self` is the block's type; the
//! derivatives and their registration stand outside the block, beside it.

use crate::expand::{Method, derivatives};
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
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
    let mut mut_receiver = false;
    if let Some(FnArg::Receiver(r)) = sig.inputs.first() {
        let kind = match &r.kind {
            syn::ReceiverKind::Value => Receiver::Value,
            syn::ReceiverKind::Reference(_, _, None) => Receiver::Ref,
            syn::ReceiverKind::Reference(_, _, Some(_)) => Receiver::Mut,
            _ => {
                return Err(syn::Error::new_spanned(
                    r,
                    "#[differentiable] differentiates methods that take `self`, `&self` or `&mut self`; write a free function for this receiver",
                ));
            }
        };
        let span = r.self_token.span;
        receiver_span = Some(span);
        let ident = syn::Ident::new("__ad_self", span);
        let arg: FnArg = match kind {
            Receiver::Ref => syn::parse_quote!(#ident: &#self_ty),
            Receiver::Value => {
                let m = r.mutability;
                syn::parse_quote!(#m #ident: #self_ty)
            }
            // The receiver an output of one element, as `&mut [T]` is; the body works on a
            // copy it writes back at the end (see `mut_body`).
            Receiver::Mut => {
                let ident = syn::Ident::new("__ad_selfs", span);
                mut_receiver = true;
                syn::parse_quote!(#ident: &mut [#self_ty])
            }
        };
        let rest: Vec<FnArg> = sig.inputs.iter().skip(1).cloned().collect();
        sig.inputs = std::iter::once(arg).chain(rest).collect();
    }
    let sig_tokens = replace(sig.to_token_stream(), self_ty, receiver_span, false);
    let mut body = replace(
        method.block.to_token_stream(),
        self_ty,
        receiver_span,
        mut_receiver,
    );
    if mut_receiver {
        body = mut_body(body, self_ty, &sig.output, method.block.span());
    }
    let attrs = &method.attrs;
    syn::parse2(quote!(#(#attrs)* #sig_tokens #body))
}

/// The kinds of receiver a differentiable method takes.
enum Receiver {
    Value,
    Ref,
    Mut,
}

/// The body of a `&mut self` method as the free function's: the receiver copied out of its
/// one-element slice, the method's body run on the copy as a labelled block (its `return`s
/// already written as breaks out of it), the copy written back, the block's value returned.
/// The derivative sees an ordinary local struct, read and written, and one write of a whole
/// element to an output slice, which both modes take as they take `&mut [T]` outputs.
fn mut_body(
    body: TokenStream,
    self_ty: &syn::Type,
    output: &syn::ReturnType,
    span: Span,
) -> TokenStream {
    let this = syn::Ident::new("__ad_self", span);
    let these = syn::Ident::new("__ad_selfs", span);
    let result = match output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => replace(ty.to_token_stream(), self_ty, None, false),
    };
    quote_spanned! {span=> {
        let mut #this: #self_ty = #these[0].clone();
        let __ad_result: #result = '__ad_body: #body;
        #these[0] = #this;
        __ad_result
    }}
}

/// `tokens` with `Self` written as the block's type and, for a method with a receiver, `self`
/// as `__ad_self`; with `returns`, each `return` as a break out of the labelled block
/// `'__ad_body` (a `return` inside a closure or a nested item, which that break cannot leave,
/// is then rustc's error at the `return`, never a different program). With `returns` too (a
/// `&mut self` method, whose body works on a copy held by value), `self` as the reference
/// the body means: `*self` is the copy, `self.x`, `&self` and `&mut self` reach it as written,
/// and a bare `self` passed on (`Type::step(self, dt)`) lends it, `&mut __ad_self`.
fn replace(
    tokens: TokenStream,
    self_ty: &syn::Type,
    receiver: Option<Span>,
    returns: bool,
) -> TokenStream {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let punct =
        |k: usize, c: char| matches!(tts.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    for (k, t) in tts.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let mut inner = Group::new(
                    g.delimiter(),
                    replace(g.stream(), self_ty, receiver, returns),
                );
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            TokenTree::Ident(i) if i == "Self" => out.extend(self_ty.to_token_stream()),
            TokenTree::Ident(i) if returns && i == "return" => {
                let label = syn::Lifetime::new("'__ad_body", i.span());
                out.extend(quote_spanned!(i.span()=> break #label));
            }
            TokenTree::Ident(i) if i == "self" && receiver.is_some() => {
                // At the token's own span, so that an error in the body points there.
                let this = syn::Ident::new("__ad_self", i.span());
                if !returns {
                    out.push(TokenTree::Ident(this));
                    continue;
                }
                // `*self`: the copy itself (a `*` that is not a product's, after an operand).
                let operand = |t: Option<&TokenTree>| match t {
                    Some(TokenTree::Ident(m)) => m != "mut",
                    Some(TokenTree::Literal(_) | TokenTree::Group(_)) => true,
                    _ => false,
                };
                let deref = k > 0 && punct(k - 1, '*') && !operand(tts.get(k.wrapping_sub(2)));
                let borrowed = k > 0
                    && (punct(k - 1, '&')
                        || matches!(&tts[k - 1], TokenTree::Ident(m) if m == "mut")
                            && k > 1
                            && punct(k - 2, '&'));
                if deref {
                    out.pop();
                    out.push(TokenTree::Ident(this));
                } else if borrowed || punct(k + 1, '.') {
                    out.push(TokenTree::Ident(this));
                } else {
                    out.extend(quote_spanned!(i.span()=> &mut #this));
                }
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}
