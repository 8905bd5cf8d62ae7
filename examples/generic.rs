//! Differentiates numerics code written generically over the float type, the way optimisation
//! test functions are written (`T: num_traits::Float + FromPrimitive`), at `f64` and at `f32`,
//! also over a const length (`[T; N]`), and checks each gradient against a hand-written one.
//!
//! Run it with `cargo run --release --example generic`.

use ad::differentiable;
use num_traits::{Float, FloatConst, FromPrimitive};
use std::iter::Sum;

/// The Rastrigin function, `A n + sum (x_i^2 - A cos(2 pi x_i))` with `A = 10`, written as
/// optimisation test functions are written: an iterator chain and a closure.
#[differentiable]
fn rastrigin<T: Float + FloatConst + FromPrimitive + Sum>(param: &[T]) -> T {
    let a = T::from_f64(10.0).unwrap();
    let wave = |x: T| a * (T::from(2.0).unwrap() * T::PI() * x).cos();
    a * T::from_usize(param.len()).unwrap() + param.iter().map(|&x| x.powi(2) - wave(x)).sum()
}

/// The Booth function, calling a generic helper: `(x + 2y - 7)^2 + (2x + y - 5)^2`.
#[differentiable]
fn booth<T: Float + FromPrimitive>(x: T, y: T) -> T {
    let two = T::from_f64(2.0).unwrap();
    square(x + two * y - T::from_f64(7.0).unwrap())
        + square(two * x + y - T::from_f64(5.0).unwrap())
}

#[differentiable]
fn square<T: Float>(v: T) -> T {
    v * v
}

/// The sphere function over a fixed-length point, generic over the float type and the length:
/// `sum x_i^2`. Each length registers its derivatives the first time one is asked for.
#[differentiable]
fn sphere<T: Float, const N: usize>(x: [T; N]) -> T {
    x.iter().fold(T::zero(), |s, &v| s + v * v)
}

/// Rastrigin's gradient by hand: `2 x_i + 2 pi A sin(2 pi x_i)`.
fn rastrigin_gradient(param: &[f64]) -> Vec<f64> {
    let tau = std::f64::consts::TAU;
    param
        .iter()
        .map(|&x| 2.0 * x + tau * 10.0 * (tau * x).sin())
        .collect()
}

fn main() {
    let point = [0.3, -1.2, 2.05];

    let (value, (grad,)) = ad::value_and_grad(rastrigin::<f64>, (&point[..],));
    let by_hand = rastrigin_gradient(&point);
    println!("rastrigin::<f64> at {point:?}: {value:.6}");
    println!("  gradient  {grad:?}");
    println!("  by hand   {by_hand:?}");
    assert!(
        grad.iter()
            .zip(&by_hand)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs().max(1.0))
    );

    let point32 = point.map(|v| v as f32);
    let (value32, (grad32,)) = ad::value_and_grad(rastrigin::<f32>, (&point32[..],));
    println!("rastrigin::<f32>: {value32:.4}, gradient {grad32:?}");
    assert!(
        grad32
            .iter()
            .zip(&by_hand)
            .all(|(&a, b)| (f64::from(a) - b).abs() <= 1e-3 * b.abs().max(1.0))
    );

    // Forward mode: the derivative along (1, 1) is the sum of the partials,
    // 2 (x + 2y - 7)(1 + 2) + 2 (2x + y - 5)(2 + 1).
    let (x, y) = (1.0, 2.0);
    let (_, along) = ad::jvp(booth::<f64>, (x, y), (1.0, 1.0));
    let by_hand = 6.0 * (x + 2.0 * y - 7.0) + 6.0 * (2.0 * x + y - 5.0);
    println!("booth::<f64> along (1, 1) at ({x}, {y}): {along} (by hand {by_hand})");
    assert_eq!(along, by_hand);
    let (_, along32) = ad::jvp(booth::<f32>, (1.0, 2.0), (1.0, 1.0));
    println!("booth::<f32> along (1, 1): {along32}");
    assert_eq!(along32, by_hand as f32);

    // Gradient descent at f32 finds Booth's minimum, (1, 3).
    let (mut x, mut y) = (0.0_f32, 0.0_f32);
    for _ in 0..200 {
        let (gx, gy) = ad::grad(booth::<f32>, (x, y));
        x -= 0.05 * gx;
        y -= 0.05 * gy;
    }
    println!(
        "booth::<f32> minimised by gradient descent: ({x:.4}, {y:.4}); the minimum is at (1, 3)"
    );
    assert!((x - 1.0).abs() < 1e-3 && (y - 3.0).abs() < 1e-3);

    // A const length: the gradient of the sphere function is 2 x, at any length and float type.
    let (_, (g3,)) = ad::value_and_grad(sphere::<f64, 3>, (point,));
    println!("sphere::<f64, 3> at {point:?}: gradient {g3:?}");
    assert_eq!(g3, point.map(|v| 2.0 * v));
    let (_, (g2,)) = ad::value_and_grad(sphere::<f32, 2>, ([1.5_f32, -0.5],));
    println!("sphere::<f32, 2> at [1.5, -0.5]: gradient {g2:?}");
    assert_eq!(g2, [3.0, -1.0]);
}
