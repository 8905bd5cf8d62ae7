//! Minimises the Rosenbrock function of two variables by gradient descent with momentum, using
//! gradients from `ad`'s reverse mode, and prints where the path ends.
//!
//! Run it with `cargo run --release --example gradient_descent`.

use ad::differentiable;

/// f(x, y) = (a - x)^2 + b (y - x^2)^2 with a = 1, b = 100: a curved valley with its minimum
/// f = 0 at (1, 1).
#[differentiable]
fn rosenbrock(x: f64, y: f64) -> f64 {
    let a = 1.0;
    let b = 100.0;
    (a - x).powi(2) + b * (y - x * x).powi(2)
}

fn main() {
    let (mut x, mut y) = (-1.5_f64, 2.0_f64);
    let (mut vx, mut vy) = (0.0, 0.0);
    let (rate, momentum) = (2e-4, 0.95);
    let steps = 20_000;
    for step in 0..=steps {
        let (f, (gx, gy)) = ad::value_and_grad(rosenbrock, (x, y));
        if step % 4_000 == 0 {
            println!(
                "step {step:>6}: f = {f:.3e} at ({x:.6}, {y:.6}), |grad| = {:.3e}",
                gx.hypot(gy)
            );
        }
        vx = momentum * vx - rate * gx;
        vy = momentum * vy - rate * gy;
        x += vx;
        y += vy;
    }
    println!("last point: ({x:.9}, {y:.9}); the minimum is at (1, 1)");
}
