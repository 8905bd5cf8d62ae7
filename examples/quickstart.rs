//! A first tour of `ad`: differentiate ordinary Rust functions in forward and reverse mode, give
//! a function a derivative of your own, and see a rule registered at run time take effect.
//!
//! Run it with `cargo run --release --example quickstart`.

use ad::{custom_rule, differentiable};

/// The function to study: f(x, y) = x^2 sin(y) + e^(x y).
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x * x * y.sin() + (x * y).exp()
}

/// A projectile's height after `t` seconds, thrown up at `v` m/s: h = v t - g t^2 / 2, clamped
/// at the ground.
#[differentiable]
fn height(v: f64, t: f64) -> f64 {
    let h = v * t - 0.5 * 9.81 * t * t;
    if h > 0.0 { h } else { 0.0 }
}

/// `softplus(x) = ln(1 + e^x)`, written stably; its derivative comes from the rule below.
fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// d softplus = logistic(x) dx, without overflow for large x.
#[custom_rule(forward, of = softplus)]
fn softplus_jvp(x: f64, dx: f64) -> (f64, f64) {
    (softplus(x), dx / (1.0 + (-x).exp()))
}

/// A one-neuron model that calls `softplus`: its derivative uses the custom rule.
#[differentiable]
fn neuron(w: f64, b: f64, x: f64) -> f64 {
    softplus(w * x + b)
}

fn main() {
    let (x, y) = (1.0, 2.0);
    let (value, dfdx) = ad::jvp(f, (x, y), (1.0, 0.0));
    let (_, dfdy) = ad::jvp(f, (x, y), (0.0, 1.0));
    println!("f(x, y) = x^2 sin(y) + e^(x y) at ({x}, {y})");
    println!("  f     = {value:.12}");
    println!(
        "  df/dx = {dfdx:.12}   (closed form 2x sin y + y e^(xy) = {:.12})",
        2.0 * x * y.sin() + y * (x * y).exp()
    );
    println!(
        "  df/dy = {dfdy:.12}   (closed form x^2 cos y + x e^(xy) = {:.12})",
        x * x * y.cos() + x * (x * y).exp()
    );

    // Reverse mode: the whole gradient in one sweep back.
    let (value, (gx, gy)) = ad::value_and_grad(f, (x, y));
    println!("  value_and_grad: f = {value:.12}, gradient = ({gx:.12}, {gy:.12})");

    let (h, dh_dt) = ad::jvp(height, (20.0, 1.5), (0.0, 1.0));
    println!(
        "projectile thrown at 20 m/s, after 1.5 s: height {h:.4} m, vertical speed {dh_dt:.4} m/s"
    );

    let (out, dout_dw) = ad::jvp(neuron, (0.5, 0.1, 900.0), (1.0, 0.0, 0.0));
    println!(
        "neuron(w = 0.5, b = 0.1, x = 900) = {out}, d/dw = {dout_dw} (the custom rule keeps it finite)"
    );
    let (gw, gb, gx) = ad::grad(neuron, (0.5, 0.1, 900.0));
    println!("its gradient by reverse mode, through the same forward rule: ({gw}, {gb}, {gx})");

    let guard = ad::rules::register_forward(softplus, |x: f64, dx: f64| (softplus(x), 0.0 * dx));
    let (_, frozen) = ad::jvp(neuron, (0.5, 0.1, 900.0), (1.0, 0.0, 0.0));
    println!("with a run-time rule that freezes softplus: d/dw = {frozen}");
    drop(guard);
    let (_, again) = ad::jvp(neuron, (0.5, 0.1, 900.0), (1.0, 0.0, 0.0));
    println!("guard dropped, the custom rule is back: d/dw = {again}");
}
