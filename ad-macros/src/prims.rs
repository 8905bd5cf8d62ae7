//! The inherent float methods that are differentiated inline, with no dispatch.

/// How a primitive's partial derivatives are computed (see `ad_runtime::prim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `x.m()`: one partial, `prim::m(x, y)`.
    Unary,
    /// `x.powi(n)`: one partial, `prim::powi(x, n, y)`; `n` is an integer.
    PowI,
    /// `x.m(a, ..)` with `n` float inputs counting the receiver: `prim::m(x, a, .., y)` returns
    /// a tuple of `n` partials.
    Multi(usize),
}

pub struct Prim {
    pub name: &'static str,
    pub shape: Shape,
}

const fn p(name: &'static str, shape: Shape) -> Prim {
    Prim { name, shape }
}

use Shape::{Multi, PowI, Unary};

pub static PRIMS: &[Prim] = &[
    p("sqrt", Unary),
    p("cbrt", Unary),
    p("exp", Unary),
    p("exp2", Unary),
    p("exp_m1", Unary),
    p("ln", Unary),
    p("ln_1p", Unary),
    p("log", Multi(2)),
    p("log2", Unary),
    p("log10", Unary),
    p("powi", PowI),
    p("powf", Multi(2)),
    p("sin", Unary),
    p("cos", Unary),
    p("tan", Unary),
    p("asin", Unary),
    p("acos", Unary),
    p("atan", Unary),
    p("atan2", Multi(2)),
    p("sinh", Unary),
    p("cosh", Unary),
    p("tanh", Unary),
    p("asinh", Unary),
    p("acosh", Unary),
    p("atanh", Unary),
    p("hypot", Multi(2)),
    p("abs", Unary),
    p("signum", Unary),
    p("recip", Unary),
    p("mul_add", Multi(3)),
    p("min", Multi(2)),
    p("max", Multi(2)),
    p("clamp", Multi(3)),
    p("floor", Unary),
    p("ceil", Unary),
    p("round", Unary),
    p("round_ties_even", Unary),
    p("trunc", Unary),
    p("fract", Unary),
    p("copysign", Multi(2)),
    p("to_degrees", Unary),
    p("to_radians", Unary),
];

/// Float methods whose result carries no derivative: kept verbatim for their value.
pub static INACTIVE_METHODS: &[&str] = &[
    "is_nan",
    "is_infinite",
    "is_finite",
    "is_normal",
    "is_subnormal",
    "is_sign_positive",
    "is_sign_negative",
    "classify",
    "total_cmp",
    "partial_cmp",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
];

/// Unary primitives whose partial costs a second transcendental function (`sin`'s is `cos`):
/// reverse mode computes the partial in the forward sweep, beside the value (the compiler joins
/// `sin` and `cos` of one argument into one `sincos`), and keeps it in the record instead of
/// the value, so that a reverse sweep, or each of several pullbacks, does not compute it again.
pub fn partial_kept(name: &str) -> bool {
    matches!(name, "sin" | "cos" | "sinh" | "cosh")
}

/// Unary primitives whose partial reads the value alone, not the argument (`tanh`'s is
/// `1 - y^2`), or neither: the record keeps the value only, and the argument need not live
/// past the function's call in the forward sweep (a float live across a call is spilled to
/// memory, and a loop summing into it that precedes `z.tanh()` ran through memory too).
pub fn value_only(name: &str) -> bool {
    matches!(
        name,
        "sqrt"
            | "cbrt"
            | "exp"
            | "exp2"
            | "exp_m1"
            | "tan"
            | "tanh"
            | "recip"
            | "signum"
            | "floor"
            | "ceil"
            | "round"
            | "round_ties_even"
            | "trunc"
            | "fract"
            | "to_degrees"
            | "to_radians"
    )
}

pub fn lookup(name: &str) -> Option<&'static Prim> {
    PRIMS.iter().find(|p| p.name == name)
}

/// Types whose values carry no derivative.
pub fn is_inactive_type_name(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "bool"
            | "char"
    )
}

/// `f32` or `f64` (or a path ending in them, such as `core::primitive::f64`).
pub fn is_float_type_name(name: &str) -> bool {
    matches!(name, "f32" | "f64")
}

/// The primal call of a float method, written as the user wrote it: `x.sin()` or `f64::sin(x)`
/// (the latter keeps an unsuffixed literal receiver well typed).
pub fn call_tokens(
    ufcs: Option<&syn::Ident>,
    method: &syn::Ident,
    recv: &proc_macro2::TokenStream,
    args: &[proc_macro2::TokenStream],
) -> proc_macro2::TokenStream {
    match ufcs {
        Some(ty) => quote::quote!(#ty::#method(#recv #(, #args)*)),
        None => quote::quote!(#recv.#method(#(#args),*)),
    }
}
