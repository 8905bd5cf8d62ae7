//! A damped oscillator `x'' = -k x - c x'`, integrated with classic RK4 for 1,000 steps of
//! h = 0.01; the result is the final energy-like `x^2 + v^2`. Inputs: x0, v0, c, k.

use crate::real::Real;
use ad::differentiable;

/// The acceleration: a helper, as one would write it, so that each RK4 stage is a call between
/// differentiable functions (four per step).
#[differentiable]
pub fn acceleration(x: f64, v: f64, c: f64, k: f64) -> f64 {
    -k * x - c * v
}

/// The number of steps.
pub const STEPS: usize = 1000;

#[differentiable]
pub fn rk4_oscillator(x0: f64, v0: f64, c: f64, k: f64) -> f64 {
    let h = 0.01;
    let mut x = x0;
    let mut v = v0;
    for _ in 0..1000 {
        let k1x = v;
        let k1v = acceleration(x, v, c, k);
        let k2x = v + 0.5 * h * k1v;
        let k2v = acceleration(x + 0.5 * h * k1x, v + 0.5 * h * k1v, c, k);
        let k3x = v + 0.5 * h * k2v;
        let k3v = acceleration(x + 0.5 * h * k2x, v + 0.5 * h * k2v, c, k);
        let k4x = v + h * k3v;
        let k4v = acceleration(x + h * k3x, v + h * k3v, c, k);
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    x * x + v * v
}

/// The same integrator with the acceleration written inline, to separate the cost of the four
/// calls per step from the rest.
#[differentiable]
pub fn rk4_oscillator_inline(x0: f64, v0: f64, c: f64, k: f64) -> f64 {
    let h = 0.01;
    let mut x = x0;
    let mut v = v0;
    for _ in 0..1000 {
        let k1x = v;
        let k1v = -k * x - c * v;
        let k2x = v + 0.5 * h * k1v;
        let k2v = -k * (x + 0.5 * h * k1x) - c * (v + 0.5 * h * k1v);
        let k3x = v + 0.5 * h * k2v;
        let k3v = -k * (x + 0.5 * h * k2x) - c * (v + 0.5 * h * k2v);
        let k4x = v + h * k3v;
        let k4v = -k * (x + h * k3x) - c * (v + h * k3v);
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    x * x + v * v
}

fn accel_generic<T: Real>(x: T, v: T, c: T, k: T) -> T {
    -k * x - c * v
}

/// The same integrator over any scalar; `p` = (x0, v0, c, k).
pub fn rk4_generic<T: Real>(p: &[T]) -> T {
    let (c, k) = (p[2], p[3]);
    let h = 0.01;
    let mut x = p[0];
    let mut v = p[1];
    for _ in 0..STEPS {
        let k1x = v;
        let k1v = accel_generic(x, v, c, k);
        let k2x = v + k1v * (0.5 * h);
        let k2v = accel_generic(x + k1x * (0.5 * h), v + k1v * (0.5 * h), c, k);
        let k3x = v + k2v * (0.5 * h);
        let k3v = accel_generic(x + k2x * (0.5 * h), v + k2v * (0.5 * h), c, k);
        let k4x = v + k3v * h;
        let k4v = accel_generic(x + k3x * h, v + k3v * h, c, k);
        x += (k1x + k2x * 2.0 + k3x * 2.0 + k4x) * (h / 6.0);
        v += (k1v + k2v * 2.0 + k3v * 2.0 + k4v) * (h / 6.0);
    }
    x * x + v * v
}
