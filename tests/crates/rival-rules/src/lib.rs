//! Conflicts across crates: this crate gives `ad_test_model::activation` a forward rule, as
//! `ad-test-stable-rules` does. A binary that links both must get both locations reported, not
//! one rule picked.

/// A crude rule for `activation(x) = ln(1 + e^x)`: the slope of its asymptote for x > 0.
#[ad::custom_rule(forward, of = ad_test_model::activation)]
fn rival_activation_jvp(x: f64, dx: f64) -> (f64, f64) {
    (ad_test_model::activation(x), if x > 0.0 { dx } else { 0.0 })
}
