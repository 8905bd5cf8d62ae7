//! The one copy of `ad` (and of its registry) that a host and its plugins link dynamically,
//! with a function that both use.

pub use ad;

/// Counts the calls of the plugin's rules, so the host can tell which rule ran.
pub static PLUGIN_RULE_CALLS: core::sync::atomic::AtomicUsize =
    core::sync::atomic::AtomicUsize::new(0);

/// `ln(1 + e^x)`, written naively: its generated derivative is exact, and a plugin gives it a
/// rule of its own.
#[ad::differentiable(crate = ad)]
pub fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

/// The cube root, with no derivative of its own: only the plugin gives it one.
#[must_use]
pub fn cube_root(x: f64) -> f64 {
    x.cbrt()
}
