//! The user-facing entry points.

use crate::dispatch::fail;
use crate::error::Error;
use crate::function::{Function, Tan};
use crate::registry::{self, Location, Mode};

/// Forward mode: the value of `f` at `args` and its directional derivative along `tangents`.
///
/// `args` is the tuple of arguments, `tangents` the tuple of their tangents (a float's tangent is
/// a float of the same type; an integer's or a bool's is [`NoTangent`](crate::NoTangent)). The
/// derivative is found through the registry, so `f` may be a `#[differentiable]` function, a
/// function with a `#[custom_rule(forward, ..)]` or one with a rule registered at run time.
///
/// ```
/// #[ad::differentiable]
/// fn g(x: f64, y: f64) -> f64 { x * x * y.sin() }
///
/// // d/dt g(1 + t, 2) at t = 0 is 2 x sin(y)
/// let (value, tangent) = ad::jvp(g, (1.0, 2.0), (1.0, 0.0));
/// assert_eq!(value, 2.0_f64.sin());
/// assert!((tangent - 2.0 * 2.0_f64.sin()).abs() < 1e-15);
/// ```
///
/// # Panics
/// If `f`, or a function that its derivative calls, has no forward derivative, or has two
/// conflicting `#[custom_rule]`s; the message names the function and the fix. [`try_jvp`] returns
/// these as an [`Error`] instead.
#[track_caller]
#[inline]
pub fn jvp<F, A>(f: F, args: A, tangents: F::Tangents) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
    A: 'static,
{
    let location = Location::caller();
    match registry::resolve_forward(f, "ad::jvp", location) {
        Ok((_, rule)) => rule.call(args, tangents),
        Err(error) => fail(&error),
    }
}

/// Like [`jvp`], but first checks that `f` and every function its derivative calls resolve, and
/// returns a missing or conflicting rule as an [`Error`] instead of panicking.
///
/// ```
/// #[ad::differentiable]
/// fn g(x: f64) -> f64 { helper(x) * 2.0 }
///
/// fn helper(x: f64) -> f64 { x + 1.0 } // no derivative anywhere
///
/// let err = ad::try_jvp(g, (1.0,), (1.0,)).unwrap_err();
/// assert!(err.to_string().contains("helper"));
/// ```
///
/// A rule removed by another thread between the check and the call can still make the call panic.
#[track_caller]
pub fn try_jvp<F, A>(
    f: F,
    args: A,
    tangents: F::Tangents,
) -> Result<(F::Output, Tan<F::Output>), Error>
where
    F: Function<A>,
    A: 'static,
{
    let location = Location::caller();
    registry::check_function(f, Mode::Forward, "ad::try_jvp", location)?;
    let (_, rule) = registry::resolve_forward(f, "ad::try_jvp", location)?;
    Ok(rule.call(args, tangents))
}
