//! The closures accepted as rules registered at run time.

use super::{Function, Signature};
use std::sync::Arc;

/// A closure usable as a forward rule of a function of the argument tuple `Args`.
///
/// Implemented for every `Fn(A1, Tan<A1>, .., An, Tan<An>) -> (R, Tan<R>) + Send + Sync + 'static`
/// (with `&[Tan<E>]` tangents for slices). Annotate the closure's parameter types:
/// `|x: f64, dx: f64| (x * x, 2.0 * x * dx)`.
///
/// ```
/// fn square(x: f64) -> f64 { x * x }
/// let guard = ad::rules::register_forward(square, |x: f64, dx: f64| (x * x, 2.0 * x * dx));
/// assert_eq!(ad::jvp(square, (3.0,), (1.0,)), (9.0, 6.0));
/// drop(guard);
/// ```
#[diagnostic::on_unimplemented(
    message = "this closure is not a forward rule for a function of argument types `{Args}`",
    label = "expected a closure taking each argument followed by its tangent",
    note = "a forward rule of `fn(A1, .., An) -> R` is `|a1: A1, da1: Tan<A1>, .., an: An, dan: Tan<An>| -> (R, Tan<R>)`; annotate the closure's parameter types"
)]
pub trait ForwardClosure<F: Function<Args>, Args>: Send + Sync + 'static {
    /// Wraps the closure as the trait object the registry stores.
    fn into_dyn(self) -> Arc<F::DynForward>;
}

/// A closure usable as a reverse rule of a function of the argument tuple `Args`.
///
/// Implemented for every `Fn(D1, .., Dn, R, Tan<R>) -> Adjoints + Send + Sync + 'static`, where
/// `Di` is the argument (a [`Dup`](super::Dup) for a slice) and `Adjoints` is the argument's adjoint for one
/// argument and the tuple of the arguments' adjoints otherwise. Annotate the closure's parameter
/// types.
///
/// ```
/// fn product(x: f64, y: f64) -> f64 { x * y }
/// let guard = ad::rules::register_reverse(product, |x: f64, y: f64, _p: f64, bar: f64| (y * bar, x * bar));
/// assert_eq!(ad::grad(product, (2.0, 5.0)), (5.0, 2.0));
/// drop(guard);
/// ```
#[diagnostic::on_unimplemented(
    message = "this closure is not a reverse rule for a function of argument types `{Args}`",
    label = "expected a closure taking the arguments, the value and its adjoint",
    note = "a reverse rule of `fn(A1, .., An) -> R` is `|a1: A1, .., an: An, value: R, adjoint: Tan<R>|` returning the arguments' adjoints (a tuple for two or more arguments); a slice argument comes as `ad::Dup<E>`; annotate the closure's parameter types"
)]
pub trait ReverseClosure<F: Function<Args>, Args>: Send + Sync + 'static {
    /// Wraps the closure as the trait object the registry stores.
    fn into_dyn(self) -> Arc<F::DynReverseRule>;
}

/// A closure with a signature's forward rule type, by argument kinds.
#[doc(hidden)]
pub trait ForwardFn<S: Signature>: Send + Sync + 'static {
    fn into_dyn_forward(self) -> Arc<S::DynForward>;
}

/// A closure with a signature's reverse rule type, by argument kinds.
#[doc(hidden)]
pub trait ReverseFn<S: Signature>: Send + Sync + 'static {
    fn into_dyn_reverse(self) -> Arc<S::DynReverseRule>;
}

impl<F: Function<Args>, Args, C: ForwardFn<F::Sig>> ForwardClosure<F, Args> for C {
    fn into_dyn(self) -> Arc<F::DynForward> {
        self.into_dyn_forward()
    }
}

impl<F: Function<Args>, Args, C: ReverseFn<F::Sig>> ReverseClosure<F, Args> for C {
    fn into_dyn(self) -> Arc<F::DynReverseRule> {
        self.into_dyn_reverse()
    }
}
