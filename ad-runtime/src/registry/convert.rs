//! Conversion of a rule between modes: a forward rule from a reverse one and back.

use super::resolve::{ForwardImpl, ReverseImpl, call_forward};
use crate::function::Function;
use crate::tape::Tape;

const NOT_CONVERTIBLE: &str =
    "ad: resolution converts rules only of functions without slice arguments";

/// The JVP from a reverse rule: the tangent's coordinate j is the adjoints of the unit adjoint
/// e_j of the result, dotted with the arguments' tangents.
#[cold]
pub(super) fn forward_from_reverse<F: Function<A>, A>(
    f: F,
    rule: &ReverseImpl<F::Sig>,
    args: A,
    tangents: &F::Tangents,
) -> (F::Output, crate::function::Tan<F::Output>) {
    use crate::tangent::Linear;
    let copy = |args: &A| F::clone_args(args).expect(NOT_CONVERTIBLE);
    let value = f.call(copy(&args));
    let mut tangent = crate::Differentiable::zero_tangent(&value);
    for j in 0..tangent.dim() {
        let unit = tangent.unit_like(j);
        let mut stores = F::stores(&args);
        let adjoints = match rule {
            ReverseImpl::Rule(r) => {
                F::call_reverse_rule(*r, copy(&args), &mut stores, F::clone_output(&value), unit)
            }
            ReverseImpl::DynRule(r) => {
                F::call_dyn_reverse_rule(r, copy(&args), &mut stores, F::clone_output(&value), unit)
            }
            ReverseImpl::Split(r) => {
                // One forward part's residuals for each reverse part, which pops them.
                let mut tape = Tape::new();
                crate::function::augment::<F, A>(r, copy(&args), &mut tape);
                crate::function::back::<F, A>(r, &mut tape, unit)
            }
            // Generated derivatives are never converted; a converted rule is the user's.
            ReverseImpl::Generated(_) | ReverseImpl::FromForward(_) => {
                unreachable!("ad: only a user's reverse rule is converted to forward mode")
            }
        };
        tangent.set(j, F::dot(&adjoints, tangents));
    }
    (value, tangent)
}

/// The VJP from a forward rule: the adjoint's coordinate i is the JVP along the unit tangent
/// e_i of the arguments, dotted with the result's adjoint.
#[cold]
pub(crate) fn reverse_from_forward<F: Function<A>, A>(
    f: F,
    rule: &ForwardImpl<F::Sig>,
    args: &A,
    adjoint: &crate::function::Tan<F::Output>,
) -> F::Gradient {
    use crate::tangent::Linear;
    let mut adjoints = F::zero_gradient(args);
    for i in 0..F::tangent_dim(args) {
        let copy = F::clone_args(args).expect(NOT_CONVERTIBLE);
        let (_, tangent) = call_forward(rule, f, copy, F::unit_tangents(args, i));
        F::set_gradient(&mut adjoints, i, tangent.dot(adjoint));
    }
    adjoints
}
