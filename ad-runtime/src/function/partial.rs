//! Calls of functions that take a function argument (`rk4(field, y0, p)`), for generated code.
//!
//! Such a callee cannot be registered: its instantiations are over function item types, which
//! no macro can name. The caller can: `#[differentiable]` gives the callee's derivatives a
//! module of the callee's name (`rk4::__ad_forward_rk4`), and the caller's derivative calls them
//! with the function argument in place, as the partial application `|y0, p| rk4(field, y0, p)`.
//! These helpers run such a call with the conventions of `Function` for the partial
//! application's other arguments, but with the rule given instead of resolved. The function
//! argument's own calls inside the callee resolve through the registry as every call does.

use super::{Function, Tan};
use crate::tape::Tape;

/// A forward-mode call of `callee` through its generated derivative `rule`.
#[inline(always)]
pub fn forward_with<F: Function<A>, A>(
    _callee: F,
    rule: F::Forward,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, Tan<F::Output>) {
    F::call_forward(rule, args, tangents)
}

/// The forward sweep of a reverse-mode call of `callee` through its generated derivative.
#[inline(always)]
pub fn augmented_with<F: Function<A>, A>(
    _callee: F,
    rule: F::Reverse,
    tape: &mut Tape,
    args: A,
) -> F::Output {
    let mut stores = F::empty_stores();
    F::call_reverse(rule, args, &mut stores, tape, None, false, &mut None).value()
}

/// The reverse sweep of a call recorded by [`augmented_with`], without slice arguments.
#[inline(always)]
pub fn backward_with<F: Function<A>, A>(
    _callee: F,
    rule: F::Reverse,
    tape: &mut Tape,
    args: A,
    value: F::Output,
    adjoint: Option<Tan<F::Output>>,
) -> F::Gradient {
    let mut stores = F::stores(&args);
    sweep::<F, A>(rule, tape, args, &mut stores, &value, adjoint)
}

/// The reverse sweep of a call recorded by [`augmented_with`], whose slice arguments come with
/// the caller's adjoint buffers.
#[inline(always)]
pub fn backward_into_with<F: Function<A>, A>(
    _callee: F,
    rule: F::Reverse,
    tape: &mut Tape,
    args: A,
    bars: F::Bars,
    value: F::Output,
    adjoint: Option<Tan<F::Output>>,
) -> F::Gradient {
    let mut stores = F::stores_from(&bars);
    let gradient = sweep::<F, A>(rule, tape, args, &mut stores, &value, adjoint);
    F::stores_into(stores, bars);
    gradient
}

#[inline(always)]
fn sweep<F: Function<A>, A>(
    rule: F::Reverse,
    tape: &mut Tape,
    args: A,
    stores: &mut F::Stores,
    value: &F::Output,
    adjoint: Option<Tan<F::Output>>,
) -> F::Gradient {
    // A function with slices gets adjoints through its buffers as well as through its value:
    // its derivative runs even when the value has none (then only to pop, as a call does).
    let adjoint = match adjoint {
        None if F::BUFFERS => Some(crate::Differentiable::zero_tangent(value)),
        other => other,
    };
    let discard = adjoint.is_none();
    F::call_reverse(rule, args, stores, tape, adjoint, discard, &mut None).gradient()
}
