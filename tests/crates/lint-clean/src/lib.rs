//! Every feature of `#[differentiable]` and `#[custom_rule]` under the strictest lints: the
//! generated code must not make a user's `deny` fail. `cargo clippy --workspace --all-targets`
//! checks this crate; its tests check a few derivatives, so that the code is also run.

#![deny(warnings, clippy::all, clippy::pedantic)]

use ad::{custom_rule, differentiable};

/// f(x, y) = x^2 sin y, with float methods.
#[differentiable]
#[must_use]
pub fn wave(x: f64, y: f64) -> f64 {
    x * x * y.sin() + x.exp().ln_1p() - y.hypot(x).sqrt()
}

/// The same in `f32`, with `f32::atan2` written as a path.
#[differentiable]
#[must_use]
pub fn wave32(x: f32, y: f32) -> f32 {
    let r = x.mul_add(2.0, y);
    f32::atan2(r, 1.5) * x.powi(3) + y.max(x).abs()
}

/// An integer parameter (no derivative), a conversion, a `match` on the integer, an
/// `if`/`else` expression, an `assert!` and a nested constant.
///
/// # Panics
///
/// If `n` is zero.
#[differentiable]
#[must_use]
pub fn scaled(x: f64, n: i32) -> f64 {
    const OFFSET: f64 = 0.5;
    assert!(n != 0, "n must not be zero");
    let k = f64::from(n);
    let bias = match n {
        1 => 1.0,
        _ => 2.0,
    };
    let y = if n > 2 { x * k } else { x / k };
    y.powi(n) + k + bias * OFFSET
}

/// Tuple parameters and a tuple result.
#[differentiable]
#[must_use]
pub fn polar(p: (f64, f64)) -> (f64, f64) {
    let (r, t) = p;
    (r * t.cos(), r * t.sin())
}

/// Calls between differentiable functions and a tuple field.
#[differentiable]
#[must_use]
pub fn radius_after(r: f64, t: f64) -> f64 {
    let q = polar((r, t));
    let s = wave(q.0, q.1);
    (q.0 * q.0 + q.1 * q.1).sqrt() + s
}

/// Loops over integer ranges (also `.rev().step_by(2)`), a `while` loop, compound assignment
/// and an early return.
#[differentiable]
#[must_use]
pub fn iterate(x: f64, steps: u32) -> f64 {
    if x < 0.0 {
        return -x;
    }
    let mut y = x;
    for i in 0..steps {
        let w = 1.0 / (1.0 + f64::from(i));
        y += w * y.cos();
    }
    for i in (0..steps).rev().step_by(2) {
        y -= 1e-3 * f64::from(i) * y;
    }
    let mut k: u32 = 0;
    while k < 3 && y > 1e-3 {
        y *= 0.5;
        k += 1;
    }
    y
}

/// Arrays: a parameter, indexing, element writes and an array result.
#[differentiable]
#[must_use]
pub fn rotate(a: [f64; 2], t: f64) -> [f64; 2] {
    let mut out = [0.0; 2];
    out[0] = a[0] * t.cos() - a[1] * t.sin();
    out[1] = a[0] * t.sin() + a[1] * t.cos();
    out
}

/// `Vec`: `vec!`, indexing, `.len()`, `.iter().sum()`, and loops over elements with
/// `enumerate`, `&v` and `zip`.
#[differentiable]
#[must_use]
// `ad` passes arguments by value; the lengths here are far below 2^52.
#[allow(clippy::needless_pass_by_value, clippy::cast_precision_loss)]
pub fn variance(v: Vec<f64>) -> f64 {
    let n = v.len() as f64;
    let total: f64 = v.iter().sum();
    let mean = total / n;
    let mut squares = vec![0.0; v.len()];
    for (i, x) in v.iter().enumerate() {
        squares[i] = (x - mean) * (x - mean);
    }
    let mut cubes = 0.0;
    for x in &v {
        cubes += x * x * x;
    }
    let weights = [1.0, 0.5, 0.25];
    for (x, w) in v.iter().zip(weights.iter()) {
        cubes += w * x;
    }
    let s: f64 = squares.iter().sum();
    s / n + v[0] * 0.0 + cubes * 1e-3
}

/// The stable softplus `ln(1 + e^x)`, with a forward rule.
#[must_use]
pub fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// d softplus = logistic(x) dx, which stays finite where `e^x` overflows.
#[custom_rule(forward, of = softplus)]
fn softplus_jvp(x: f64, dx: f64) -> (f64, f64) {
    (softplus(x), dx / (1.0 + (-x).exp()))
}

/// `x y` with a reverse rule.
#[must_use]
pub fn product(x: f64, y: f64) -> f64 {
    x * y
}

/// The adjoints of `x y`: `(y bar, x bar)`.
#[custom_rule(reverse, of = product)]
fn product_vjp(x: f64, y: f64, _value: f64, bar: f64) -> (f64, f64) {
    (y * bar, x * bar)
}

/// `ln(e^a + e^b)`, with a reverse rule with residuals.
#[must_use]
pub fn log_sum_exp(a: f64, b: f64) -> f64 {
    (a.exp() + b.exp()).ln()
}

/// The value and, as residuals, the softmax weights.
fn log_sum_exp_forward(a: f64, b: f64) -> (f64, (f64, f64)) {
    let s = a.exp() + b.exp();
    (s.ln(), (a.exp() / s, b.exp() / s))
}

/// The adjoints of `log_sum_exp` from the weights.
#[custom_rule(reverse, of = log_sum_exp, augmented = log_sum_exp_forward)]
fn log_sum_exp_reverse(weights: (f64, f64), bar: f64) -> (f64, f64) {
    (weights.0 * bar, weights.1 * bar)
}

/// A generic function: the rule below is for its `f64` instance, named with its type.
#[must_use]
pub fn cube<T: core::ops::Mul<Output = T> + Copy>(x: T) -> T {
    x * x * x
}

/// d x^3 = 3 x^2 dx.
#[custom_rule(forward, of = cube::<f64>)]
fn cube_jvp(x: f64, dx: f64) -> (f64, f64) {
    (cube(x), 3.0 * x * x * dx)
}

/// Calls of functions whose derivatives are custom rules (a generic one named with its instance).
#[differentiable]
#[must_use]
pub fn model(w: f64, x: f64) -> f64 {
    softplus(w * x) + product(w, x) + log_sum_exp(w, 2.0 * x) + cube::<f64>(w)
}

/// Through a re-exported path, with the `crate = ...` override.
pub mod reexported {
    use ad_test_reexport::math::autodiff;

    /// `e^x`, whose derivative is a rule given through the re-exported path.
    #[must_use]
    pub fn grow(x: f64) -> f64 {
        x.exp()
    }

    /// d e^x = e^x dx.
    #[autodiff::custom_rule(forward, of = grow, crate = ad_test_reexport::math::autodiff)]
    fn grow_jvp(x: f64, dx: f64) -> (f64, f64) {
        (x.exp(), x.exp() * dx)
    }

    /// `x^2 e^x`.
    #[autodiff::differentiable(crate = ad_test_reexport::math::autodiff)]
    #[must_use]
    pub fn grown(x: f64) -> f64 {
        x * x * grow(x)
    }
}

/// A generic function over `num_traits::Float`, calling another with its type spelled out,
/// with a generic rule for a generic function beside it.
///
/// # Panics
///
/// If `T` cannot hold one half.
#[differentiable]
#[must_use]
#[allow(clippy::explicit_iter_loop)] // `for &xi in x` over a slice is not accepted yet
pub fn generic_energy<T>(x: &[T], k: T) -> T
where
    T: num_traits::Float + num_traits::FromPrimitive,
{
    let half = T::from_f64(0.5).unwrap();
    let mut e = T::zero();
    for &xi in x.iter() {
        e = e + half * k * generic_square::<T>(xi);
    }
    e
}

/// `x^2`, with no derivative of its own: the generic rule below gives it one.
#[must_use]
pub fn generic_square<T: num_traits::Float>(x: T) -> T {
    x * x
}

#[custom_rule(reverse, of = generic_square)]
fn generic_square_vjp<T: num_traits::Float>(x: T, _value: T, bar: T) -> T {
    (x + x) * bar
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `d/dx_i sum k x_i^2 / 2 = k x_i`, at `f64` and `f32`.
    #[test]
    fn generic_energy_gradient() {
        let (gx, gk) = ad::grad(generic_energy::<f64>, (&[1.0, -2.0][..], 3.0));
        assert_eq!((gx, gk), (vec![3.0, -6.0], 2.5));
        let (gx, _) = ad::grad(generic_energy::<f32>, (&[1.0_f32, -2.0][..], 3.0_f32));
        assert_eq!(gx, vec![3.0_f32, -6.0]);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    /// d/dx x^2 sin y = 2 x sin y at y = 0 is 0; d/dy = x^2 cos y.
    #[test]
    fn wave_partials() {
        let (x, y) = (1.5_f64, 0.0_f64);
        let (_, (_, dy)) = ad::value_and_grad(wave, (x, y));
        let expected = x * x * y.cos() - 0.5 / y.hypot(x).sqrt() * (y / y.hypot(x));
        assert!(close(dy, expected), "{dy} vs {expected}");
    }

    /// Through the forward rule of softplus, the reverse rule of the product and the residual
    /// rule of log-sum-exp, and the forward rule of the `f64` instance of the generic cube:
    /// d model / dw = x logistic(w x) + x + e^w / (e^w + e^(2x)) + 3 w^2.
    #[test]
    fn model_through_rules() {
        let (w, x) = (0.3_f64, 0.7_f64);
        let (gw, _) = ad::grad(model, (w, x));
        let logistic = 1.0 / (1.0 + (-w * x).exp());
        let weight = w.exp() / (w.exp() + (2.0 * x).exp());
        assert!(close(gw, x * logistic + x + weight + 3.0 * w * w));
        let (_, tangent) = ad::jvp(model, (w, x), (1.0, 0.0));
        assert!(close(tangent, gw));
    }

    /// d/dx x^2 e^x = (2x + x^2) e^x, through the re-exported path.
    #[test]
    fn reexported_rule() {
        let x = 0.4_f64;
        let (_, d) = ad::jvp(reexported::grown, (x,), (1.0,));
        assert!(close(d, (2.0 * x + x * x) * x.exp()));
    }

    /// The remaining functions run in both modes.
    #[test]
    fn everything_runs() {
        let _ = ad::grad(wave32, (0.5_f32, 0.25_f32));
        let _ = ad::jvp(scaled, (1.5, 3), (1.0, ad::NoTangent));
        let _ = ad::grad(radius_after, (1.0, 0.5));
        let _ = ad::grad(iterate, (2.0, 4));
        let (_, pullback) = ad::vjp(rotate, ([1.0, 2.0], 0.3));
        let _ = pullback([1.0, 0.0]);
        let _ = ad::grad(variance, (vec![1.0, 2.0, 4.0],));
    }
}

/// Patterns that bind, and labelled jumps: `match` on an `Option` with a guard on its binding,
/// `if let`, `while let`, `let ... else`, a tuple pattern whose parts carry derivatives, and a
/// labelled `break` with a value out of a nested loop.
#[differentiable]
#[must_use]
pub fn patterns(x: f64, n: u32) -> f64 {
    let mut steps = n.checked_sub(1);
    let mut level = x;
    while let Some(k) = steps {
        level = level * 0.5 + 1.0;
        steps = k.checked_sub(1);
    }
    let first = match steps {
        Some(k) if k > 3 => level * f64::from(k),
        Some(_) => level,
        None => -level,
    };
    let Some(count) = n.checked_add(1) else {
        return first;
    };
    let (low, high) = (first, level * f64::from(count));
    let mut rounds = 0;
    let found = 'outer: loop {
        for i in 0..count {
            if low * f64::from(i + rounds) > high {
                break 'outer low;
            }
        }
        rounds += 1;
        if rounds > 2 {
            break high;
        }
    };
    let capped = 'cap: {
        if found > 10.0 {
            break 'cap 10.0;
        }
        found
    };
    if let Some(twice) = count.checked_mul(2) {
        capped + f64::from(twice)
    } else {
        capped
    }
}

/// The squared norm of a slice: called with locals lent to it.
#[differentiable]
#[must_use]
pub fn norm2(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v {
        s += x * x;
    }
    s
}

/// Locals lent as slices: a `Vec` and an array.
#[differentiable]
#[must_use]
pub fn lent(x: f64, y: f64) -> f64 {
    let v = vec![x, y, x * y];
    let a = [y; 3];
    norm2(&v) + norm2(&a[..])
}

/// A function argument: `n` Euler steps of `y' = f(y)`.
#[differentiable]
#[must_use]
pub fn euler<F: Fn(f64) -> f64>(f: F, y0: f64, h: f64, n: u32) -> f64 {
    let mut y = y0;
    for _ in 0..n {
        y += h * f(y);
    }
    y
}

/// `y' = -y / 2`.
#[differentiable]
#[must_use]
pub fn halve(y: f64) -> f64 {
    -0.5 * y
}

/// Euler on `halve`.
#[differentiable]
#[must_use]
pub fn euler_halve(y0: f64) -> f64 {
    euler(halve, y0, 0.1, 4)
}
