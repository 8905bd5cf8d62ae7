//! Cross-crate scenario, third party: a crate of rules only.
//!
//! It gives [`ad_test_model::activation`], a function of another crate that has no derivative,
//! a numerically stable forward rule. Nothing in it is meant to be called: a binary that links
//! this crate (even with just `use ad_test_stable_rules as _;`) gets the rule, and the derivative
//! that `#[differentiable]` generated for `ad_test_model::neuron` finds it through the registry.

use ad_test_special::{log1pexp, logistic};

/// The forward rule of `activation(x) = ln(1 + e^x)`: its derivative is `logistic(x)`, computed
/// without overflow.
#[ad::custom_rule(forward, of = ad_test_model::activation)]
fn activation_jvp(x: f64, dx: f64) -> (f64, f64) {
    (log1pexp(x), logistic(x) * dx)
}

/// The reverse rule of `activation`: the adjoint of `x` is `logistic(x)` times the value's.
#[ad::custom_rule(reverse, of = ad_test_model::activation)]
fn activation_vjp(x: f64, _value: f64, adjoint: f64) -> f64 {
    logistic(x) * adjoint
}

/// The forward rule of `generic_activation` at every float type: its derivative is the logistic
/// function, here `1 / (1 + e^-x)` (the value is computed as the function computes it).
#[ad::custom_rule(forward, of = ad_test_model::generic_activation)]
fn generic_activation_jvp<T: num_traits::Float>(x: T, dx: T) -> (T, T) {
    let value = ad_test_model::generic_activation(x);
    (value, dx / (T::one() + (-x).exp()))
}

/// The forward rule of a method of another crate's struct, named by its path: the derivative of
/// `activation(w x + b)` along `(dc, dx)`.
#[ad::custom_rule(forward, of = ad_test_model::Cell::fire)]
fn fire_jvp(c: &ad_test_model::Cell, dc: ad_test_model::Cell, x: f64, dx: f64) -> (f64, f64) {
    let z = c.w * x + c.b;
    (log1pexp(z), logistic(z) * (dc.w * x + c.w * dx + dc.b))
}
