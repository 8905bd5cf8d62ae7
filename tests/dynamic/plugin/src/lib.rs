//! Rules for `softplus` that take effect when this library is loaded: `inventory` runs their
//! constructors at load time, into the registry of the shared dylib.

use ad_dynamic_shared::ad;
use ad_dynamic_shared::{PLUGIN_RULE_CALLS, cube_root, softplus};
use core::sync::atomic::Ordering;

/// The logistic function, the derivative of `softplus`.
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[ad::custom_rule(forward, of = softplus, crate = ad_dynamic_shared::ad)]
fn softplus_forward(x: f64, dx: f64) -> (f64, f64) {
    PLUGIN_RULE_CALLS.fetch_add(1, Ordering::Relaxed);
    (softplus(x), sigmoid(x) * dx)
}

#[ad::custom_rule(reverse, of = softplus, crate = ad_dynamic_shared::ad)]
fn softplus_reverse(x: f64, _value: f64, bar: f64) -> f64 {
    PLUGIN_RULE_CALLS.fetch_add(1, Ordering::Relaxed);
    sigmoid(x) * bar
}

/// A forward rule only: reverse mode converts it.
#[ad::custom_rule(forward, of = cube_root, crate = ad_dynamic_shared::ad)]
fn cube_root_forward(x: f64, dx: f64) -> (f64, f64) {
    let value = cube_root(x);
    (value, dx / (3.0 * value * value))
}
