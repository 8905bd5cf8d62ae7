//! Rosenbrock in n variables: `f(x) = sum_{i<n-1} (1 - x_i)^2 + 100 (x_{i+1} - x_i^2)^2`.

use crate::real::Real;
use ad::differentiable;

/// The function as `ad` differentiates it.
#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + 100.0 * b * b;
    }
    s
}

/// The primal baseline: the same source as [`rosenbrock`], on a slice.
pub fn rosenbrock_slice(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + 100.0 * b * b;
    }
    s
}

/// The same function over any scalar: the primal baseline at `T = f64`, and the peers'
/// versions.
pub fn rosenbrock_generic<T: Real>(x: &[T]) -> T {
    let n = x.len();
    let mut s = T::cst(0.0);
    for i in 0..n - 1 {
        let a = -x[i] + 1.0;
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + b * b * 100.0;
    }
    s
}

/// The hand-written gradient, into `g`: each term's partials are carried in registers, so
/// every `g[i]` is written once.
pub fn rosenbrock_gradient(x: &[f64], g: &mut [f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut carry = 0.0; // d/dx_i of the term i - 1: 200 b_{i-1}
    for i in 0..n - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + 100.0 * b * b;
        g[i] = carry - 2.0 * a - 400.0 * b * x[i];
        carry = 200.0 * b;
    }
    g[n - 1] = carry;
    s
}
