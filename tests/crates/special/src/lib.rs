//! Cross-crate scenario, first party: a "special functions" crate.
//!
//! It stands for a third-party numerics crate that knows nothing about `ad`: it does not depend
//! on it, has no `#[differentiable]` function and no rule. `ad-test-model` builds on it, and
//! `ad-test-stable-rules` gives derivatives to functions built on it.

/// `ln(1 + e^x)` (softplus), computed without overflow for large `x` and without loss of
/// precision for very negative `x`.
pub fn log1pexp(x: f64) -> f64 {
    if x > 33.3 {
        // e^-x < 2^-48 relative to x: ln(1 + e^x) = x + ln(1 + e^-x) rounds to x + e^-x.
        x + (-x).exp()
    } else if x > -37.0 {
        x.exp().ln_1p()
    } else {
        // ln(1 + e^x) = e^x - e^2x/2 + ..., and e^x < 2^-53 here.
        x.exp()
    }
}

/// The logistic function `1 / (1 + e^-x)`, the derivative of [`log1pexp`], computed without
/// overflow for any `x`.
pub fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}
