//! The cost of a call between differentiable functions: a tiny callee called a million times,
//! through the registry from generated derivative code, against the same loop with the callee's
//! body written inline.

use ad::differentiable;

/// The tiny callee: one multiply-add.
#[differentiable]
pub fn tiny(s: f64) -> f64 {
    s * 0.999_999 + 0.000_001
}

/// Calls `tiny` `n` times.
#[differentiable]
pub fn chain_calls(x: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = tiny(s);
    }
    s
}

/// The same loop with `tiny`'s body inline.
#[differentiable]
pub fn chain_inline(x: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = s * 0.999_999 + 0.000_001;
    }
    s
}

/// A tiny callee of four arguments, the shape of RK4's acceleration: its arguments and tangents
/// no longer fit in registers.
#[differentiable]
pub fn tiny4(s: f64, a: f64, b: f64, c: f64) -> f64 {
    s * a + b * c
}

/// Calls `tiny4` `n` times.
#[differentiable]
pub fn chain_calls4(x: f64, a: f64, b: f64, c: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = tiny4(s, a, b, c);
    }
    s
}

/// The same loop with `tiny4`'s body inline.
#[differentiable]
pub fn chain_inline4(x: f64, a: f64, b: f64, c: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = s * a + b * c;
    }
    s
}

/// A one-multiply function, to time the entry points (`ad::jvp`, `ad::value_and_grad`) alone.
#[differentiable]
pub fn square(x: f64) -> f64 {
    x * x
}
