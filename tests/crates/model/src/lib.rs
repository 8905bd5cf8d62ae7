//! Cross-crate scenario, second party: a model crate.
//!
//! [`activation`] has neither a derivative nor a rule here; [`neuron`] is `#[differentiable]`,
//! and its generated derivative calls `activation` through the rule registry. The rule for
//! `activation` lives in a third crate, `ad-test-stable-rules`, and the facade's test
//! `tests/test_cross_crate.rs` differentiates `neuron` from a fourth. [`gated_neuron`] also calls
//! [`ad_test_special::logistic`], for which no crate has a rule, so its derivative is missing.

/// The activation function, softplus: `ln(1 + e^x)`. No derivative and no rule in this crate.
pub fn activation(x: f64) -> f64 {
    ad_test_special::log1pexp(x)
}

/// One neuron: `activation(w x + b)`. Its derivative is generated; the derivative of
/// `activation` is looked up in the registry at every call.
#[ad::differentiable]
pub fn neuron(w: f64, x: f64, b: f64) -> f64 {
    activation(w * x + b)
}

/// A neuron whose output is gated by `logistic(x)`. `logistic` has no derivative anywhere, so
/// differentiating this function reports a missing rule naming `logistic`.
#[ad::differentiable]
pub fn gated_neuron(w: f64, x: f64, b: f64) -> f64 {
    activation(w * x + b) * ad_test_special::logistic(x)
}

/// A generic activation, `ln(1 + e^x)` written naively for any float type. No derivative and no
/// rule in this crate: `ad-test-stable-rules` gives it a generic forward rule.
pub fn generic_activation<T: num_traits::Float>(x: T) -> T {
    (T::one() + x.exp()).ln()
}

/// A generic neuron, `generic_activation(w x)`: its derivatives at `f64` and `f32` call
/// `generic_activation::<f64>` and `::<f32>` through the registry.
#[ad::differentiable]
pub fn generic_neuron<T: num_traits::Float>(w: T, x: T) -> T {
    generic_activation(w * x)
}

/// A neuron as a struct: its weight and bias.
#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
pub struct Cell {
    pub w: f64,
    pub b: f64,
}

impl Cell {
    /// `activation(w x + b)`. A method without a derivative or a rule in this crate:
    /// `ad-test-stable-rules` gives it one, by its path `ad_test_model::Cell::fire`.
    pub fn fire(&self, x: f64) -> f64 {
        activation(self.w * x + self.b)
    }
}

/// The cell's output times its input: the derivative calls `Cell::fire` through the registry,
/// as a method call on a parameter.
#[ad::differentiable]
pub fn cell_out(c: &Cell, x: f64) -> f64 {
    c.fire(x) * x
}
