//! The arguments of `#[differentiable(..)]` and `#[custom_rule(..)]`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Path;
use syn::parse::Parser;

/// `crate = path`, for crates that re-export `ad`.
fn crate_path(meta: &syn::meta::ParseNestedMeta<'_>, slot: &mut Option<Path>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("duplicate `crate = ..`"));
    }
    *slot = Some(meta.value()?.parse()?);
    Ok(())
}

fn krate(path: Option<Path>) -> TokenStream {
    match path {
        Some(p) => quote!(#p),
        None => quote!(::ad),
    }
}

pub struct DifferentiableArgs {
    pub krate: TokenStream,
}

pub fn differentiable(args: TokenStream) -> syn::Result<DifferentiableArgs> {
    let mut path = None;
    syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            crate_path(&meta, &mut path)
        } else {
            Err(meta.error(
                "unknown argument of #[differentiable]: the only one is `crate = path::to::ad`",
            ))
        }
    })
    .parse2(args)?;
    Ok(DifferentiableArgs { krate: krate(path) })
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RuleMode {
    Forward,
    Reverse,
}

pub struct RuleArgs {
    pub mode: RuleMode,
    pub of: Path,
    /// The forward part of a reverse rule with residuals.
    pub augmented: Option<Path>,
    pub krate: TokenStream,
}

pub fn custom_rule(args: TokenStream) -> syn::Result<RuleArgs> {
    let mut mode = None;
    let mut of: Option<Path> = None;
    let mut augmented: Option<Path> = None;
    let mut path = None;
    let mut unknown_mode = false;
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let span_all = args
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    let parsed = syn::meta::parser(|meta| {
        if meta.path.is_ident("forward") {
            if mode.is_some() {
                push(meta.error("the mode is given twice: write `forward` or `reverse` once"));
            }
            mode = Some(RuleMode::Forward);
            Ok(())
        } else if meta.path.is_ident("reverse") {
            if mode.is_some() {
                push(meta.error("the mode is given twice: write `forward` or `reverse` once"));
            }
            mode = Some(RuleMode::Reverse);
            Ok(())
        } else if meta.path.is_ident("of") {
            if of.is_some() {
                push(meta.error("`of` is given twice: a rule is for one function"));
                let _: Path = meta.value()?.parse()?;
                return Ok(());
            }
            of = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("augmented") {
            if augmented.is_some() {
                push(meta.error("`augmented` is given twice"));
            }
            augmented = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("crate") {
            crate_path(&meta, &mut path)
        } else if meta.input.peek(syn::Token![=]) {
            push(meta.error("unknown argument of #[custom_rule]: the arguments are a mode (`forward` or `reverse`), `of = function`, for a reverse rule with residuals `augmented = forward_part`, and optionally `crate = path::to::ad`"));
            // Skip the value and go on, so that the remaining arguments are still read.
            let _: syn::Expr = meta.value()?.parse()?;
            Ok(())
        } else {
            let name = meta.path.get_ident().map_or_else(|| "this".to_owned(), ToString::to_string);
            push(meta.error(format!("unknown mode `{name}` of #[custom_rule]: write `forward` or `reverse`")));
            unknown_mode = true;
            Ok(())
        }
    })
    .parse2(args);
    if let Err(e) = parsed {
        push(e);
    }
    if mode.is_none() && !unknown_mode {
        push(syn::Error::new(
            span_all,
            "#[custom_rule] needs a mode: write `#[custom_rule(forward, of = function)]`",
        ));
    }
    if of.is_none() {
        push(syn::Error::new(
            span_all,
            "#[custom_rule] needs the function the rule is for: write `#[custom_rule(forward, of = function)]`",
        ));
    }
    // `f64::sqrt`, `core::primitive::f64::sqrt`, `std::primitive::f32::max`, ...
    if let Some(of) = &of
        && let [.., ty, method] = of
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .as_slice()
        && crate::prims::is_float_type_name(ty)
        && crate::prims::lookup(method).is_some()
    {
        push(syn::Error::new_spanned(
            of,
            format!(
                "`{ty}::{method}` is a primitive: its derivative is built into #[differentiable] and cannot be replaced; write your own function that calls it and give that function the rule"
            ),
        ));
    }
    if let (Some(RuleMode::Forward), Some(a)) = (mode, &augmented) {
        push(syn::Error::new_spanned(
            a,
            "`augmented` belongs to reverse rules with residuals: write `#[custom_rule(reverse, of = f, augmented = f_forward_part)]`",
        ));
    }
    if let Some(e) = errors {
        return Err(e);
    }
    Ok(RuleArgs {
        augmented,
        mode: mode.expect("checked"),
        of: of.expect("checked"),
        krate: krate(path),
    })
}
