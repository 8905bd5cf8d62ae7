//! The late-rule scenario: derivatives are computed, then a rule for a function deep inside is
//! registered at run time, and the next derivative uses it; dropping the rule's guard brings the
//! generated derivative back. Systems that compile derivatives with "no rule here" baked in get
//! this wrong silently; `ad` resolves every call through the registry.
//!
//! Run it with `cargo run --release --example late_rule`.

use ad::differentiable;

/// A smoothed absolute value, `sqrt(x^2 + 0.01)`; its generated derivative is `x / sqrt(x^2 + 0.01)`.
#[differentiable]
fn smooth_abs(x: f64) -> f64 {
    (x * x + 1e-2).sqrt()
}

/// A loss that calls `smooth_abs` through another function, two levels deep.
#[differentiable]
fn residual(a: f64, b: f64) -> f64 {
    smooth_abs(a - b)
}

#[differentiable]
fn loss(a: f64) -> f64 {
    residual(a, 1.0) + 0.5 * residual(a, -1.0)
}

fn main() {
    let a = 0.25;
    let (l, dl) = ad::jvp(loss, (a,), (1.0,));
    println!(
        "before: loss({a}) = {l:.9}, dloss/da = {dl:.9}   (generated derivative of smooth_abs)"
    );

    // Switch smooth_abs to the exact subgradient sign(x), after derivatives were already computed.
    let guard = ad::rules::register_forward(smooth_abs, |x: f64, dx: f64| {
        (
            (x * x + 1e-2).sqrt(),
            if x > 0.0 {
                dx
            } else if x < 0.0 {
                -dx
            } else {
                0.0
            },
        )
    });
    let (l, dl) = ad::jvp(loss, (a,), (1.0,));
    println!(
        "with a run-time rule: loss({a}) = {l:.9}, dloss/da = {dl:.9}   (sign(a - 1) + 0.5 sign(a + 1) = -0.5)"
    );

    drop(guard);
    let (l, dl) = ad::jvp(loss, (a,), (1.0,));
    println!(
        "guard dropped: loss({a}) = {l:.9}, dloss/da = {dl:.9}   (generated derivative again)"
    );
}
