//! A model whose derivative calls `softplus` of the shared crate.

use ad_dynamic_shared::ad;
use ad_dynamic_shared::softplus;

/// `x softplus(x)`.
#[ad::differentiable(crate = ad_dynamic_shared::ad)]
pub fn model(x: f64) -> f64 {
    x * softplus(x)
}

/// `2 cbrt(x)`: its derivative needs a rule that only the plugin has.
#[ad::differentiable(crate = ad_dynamic_shared::ad)]
pub fn side(x: f64) -> f64 {
    2.0 * ad_dynamic_shared::cube_root(x)
}
