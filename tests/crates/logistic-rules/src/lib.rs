//! The linker pitfall: a crate of rules only. Nothing in it is meant to be called, so a binary
//! that never names it does not link it, and then its rules are absent; `use
//! ad_test_logistic_rules as _;` links it.

use ad_test_special::logistic;

/// d logistic(x) = logistic(x) (1 - logistic(x)) dx.
#[ad::custom_rule(forward, of = ad_test_special::logistic)]
fn logistic_jvp(x: f64, dx: f64) -> (f64, f64) {
    let s = logistic(x);
    (s, s * (1.0 - s) * dx)
}
