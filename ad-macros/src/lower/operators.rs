//! Binary operators: which are compound assignments, and the arithmetic each stands for.

use crate::ir::Arith;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::BinOp;
use syn::spanned::Spanned;

pub(super) fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

pub(super) fn arith_of(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::Add(_) => Arith::Add,
        BinOp::Sub(_) => Arith::Sub,
        BinOp::Mul(_) => Arith::Mul,
        BinOp::Div(_) => Arith::Div,
        BinOp::Rem(_) => Arith::Rem,
        _ => return None,
    })
}

pub(super) fn arith_of_compound(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::AddAssign(_) => Arith::Add,
        BinOp::SubAssign(_) => Arith::Sub,
        BinOp::MulAssign(_) => Arith::Mul,
        BinOp::DivAssign(_) => Arith::Div,
        BinOp::RemAssign(_) => Arith::Rem,
        _ => return None,
    })
}

/// The operator of a compound assignment without its `=`: `+=` gives `+`.
pub(super) fn compound_base(op: &BinOp) -> TokenStream {
    let span = op.span();
    let s = op.to_token_stream().to_string();
    let base = s.trim_end_matches('=').replace(' ', "");
    let op: BinOp = syn::parse_str(&base).expect("a binary operator");
    let mut ts = op.to_token_stream();
    ts = ts
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect();
    ts
}
