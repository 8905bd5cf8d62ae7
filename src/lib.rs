#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

/// Differentiates a function at compile time.
///
/// `#[differentiable]` keeps the function as it is and emits beside it its forward-mode
/// derivative (JVP) and its reverse-mode derivative (a forward and a reverse sweep over a tape)
/// as plain Rust, registered in the rule registry so that [`jvp`], [`grad`], [`vjp`] and the
/// derivatives of other functions find them. Float parameters (`f64`, `f32`), and arrays,
/// `Vec`s and slices of them, carry derivatives; integer and `bool` parameters do not; a
/// `&mut [T]` parameter is an output written in place. Calls to other functions go through the
/// registry, so a callee's custom rule is honoured whenever and wherever it is defined.
///
/// ```
/// #[ad::differentiable]
/// fn softplus(x: f64) -> f64 { (1.0 + x.exp()).ln() }
///
/// let (y, dy) = ad::jvp(softplus, (0.0,), (1.0,));
/// assert!((y - 2.0_f64.ln()).abs() < 1e-15);
/// assert!((dy - 0.5).abs() < 1e-15); // the logistic function at 0
/// ```
///
/// A construct it cannot differentiate is a compile error at that construct; see the README for
/// the supported language. `#[differentiable(crate = path::to::ad)]` names the `ad` crate when it
/// is re-exported under another path.
pub use ad_macros::differentiable;

/// Gives a function a derivative of your own.
///
/// `#[custom_rule(forward, of = f)]` makes the annotated function the forward rule of `f`: it
/// takes each argument of `f` followed by that argument's tangent, and returns `f`'s value and
/// its tangent. The rule may stand anywhere in the program, in any module or crate, before or
/// after the code that uses `f`; it is found at link time. A rule whose signature does not fit
/// `f` is a compile error that spells out the expected signature.
///
/// ```
/// // f(x) = ln(1 + e^x), written stably for large x
/// fn softplus(x: f64) -> f64 { if x > 30.0 { x } else { x.exp().ln_1p() } }
///
/// #[ad::custom_rule(forward, of = softplus)]
/// fn softplus_jvp(x: f64, dx: f64) -> (f64, f64) {
///     (softplus(x), dx / (1.0 + (-x).exp()))
/// }
///
/// let (_, dy) = ad::jvp(softplus, (800.0,), (1.0,));
/// assert_eq!(dy, 1.0);
/// ```
///
/// `#[custom_rule(reverse, of = f)]` makes it a reverse rule: it takes the arguments of `f`,
/// its value and the value's adjoint, and returns the arguments' adjoints (a tuple for two or
/// more arguments). With `augmented = f_forward`, the rule has residuals: `f_forward` returns the
/// value and residuals, and the annotated function maps the residuals and the value's adjoint to
/// the arguments' adjoints. A rule of one mode also serves the other, converted.
///
/// `of` may name a function of another crate (`libm::erf`), or a function with no Rust source
/// behind a one-line Rust wrapper (an `extern "C"` function does not implement Rust's `Fn`
/// traits). Two `#[custom_rule]`s for the same function and mode are reported as a conflict, with
/// both locations, when the derivative is needed.
pub use ad_macros::custom_rule;

/// Makes a struct of your own a value with a derivative.
///
/// `#[derive(ad::Differentiable)]` gives the struct a tangent type: the struct itself when every
/// field is built from floats (`f64`, `f32`, a type parameter, and arrays, `Vec`s, `Option`s and
/// tuples of these), otherwise a companion struct `{Name}Tangent` with one field per field,
/// each of that field's tangent type (`ad::NoTangent` for an integer, a `bool`, a field marked
/// `#[ad(skip)]` or one of a type without a derivative). A gradient with respect to a struct
/// is its tangent. An enum without data derives no derivative (configuration).
///
/// ```
/// #[derive(Clone, Debug, PartialEq, ad::Differentiable)]
/// struct Point { x: f64, y: f64 }
///
/// #[derive(Clone, Debug, PartialEq, ad::Differentiable)]
/// struct Body { at: Point, mass: f64, id: usize }
///
/// use ad::Differentiable;
/// let b = Body { at: Point { x: 1.0, y: 2.0 }, mass: 3.0, id: 7 };
/// // `Point` is its own tangent; `Body` has `BodyTangent`, whose `id` has none.
/// let t: BodyTangent = b.zero_tangent();
/// assert_eq!(t, BodyTangent { at: Point { x: 0.0, y: 0.0 }, mass: 0.0, id: ad::NoTangent });
/// ```
pub use ad_macros::Differentiable;

pub use ad_runtime::{
    Accumulate, AddTangent, Arg, ArrayRef, Const, ConstSlice, Differentiable, Dup, DupMut, Error,
    ForwardClosure, Function, Linear, Location, Mode, NoDerivative, NoTangent, Origin, Param, Real,
    Ref, ReverseClosure, Seed, ShapeMismatch, ShapelessZero, Slice, SliceMut, Tan, grad, jvp,
    try_jvp, try_value_and_grad, try_vjp, value_and_grad, vjp, vjp_into,
};

/// Rules registered at run time.
pub mod rules {
    pub use ad_runtime::rules::{
        BACKEND, RuleGuard, RuleInfo, check, list, register_forward, register_reverse,
    };
}

#[doc(hidden)]
pub use ad_runtime::__private;
