//! Rules for functions that have no Rust source to differentiate: `libm::erf` from another crate,
//! and `erfc` from the C library. An `extern "C"` function does not implement Rust's `Fn` traits,
//! so it is reached through a one-line Rust wrapper that carries the rule.

use ad::{custom_rule, differentiable};
use std::f64::consts::{FRAC_2_SQRT_PI, SQRT_2};

/// d erf(x) = 2/sqrt(pi) e^(-x^2) dx.
#[custom_rule(forward, of = libm::erf)]
fn erf_jvp(x: f64, dx: f64) -> (f64, f64) {
    (libm::erf(x), FRAC_2_SQRT_PI * (-x * x).exp() * dx)
}

/// The standard normal CDF, Phi(x) = (1 + erf(x / sqrt 2)) / 2.
#[differentiable]
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / SQRT_2))
}

/// The closed form of Phi', the standard normal density.
fn normal_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Relative tolerance between the derivative and the closed form at `x`. Both compute
/// `exp(-u)` with `u = x^2 / 2`, but round `u` differently (`(x / sqrt 2)^2` against `x^2 / 2`);
/// a relative error `d` in `u` becomes a relative error `u d` in `exp(-u)`, so allow a few ulps
/// plus `x^2` ulps.
fn tolerance(x: f64) -> f64 {
    (4.0 + x * x) * f64::EPSILON
}

#[test]
fn normal_cdf_derivative_is_the_density() {
    for i in -40..=40 {
        let x = f64::from(i) * 0.15;
        let (p, dp) = ad::jvp(normal_cdf, (x,), (1.0,));
        assert_eq!(p, normal_cdf(x));
        let expected = normal_pdf(x);
        assert!(
            (dp - expected).abs() <= tolerance(x) * expected,
            "x = {x}: {dp} vs {expected}"
        );
    }
}

mod c {
    mod ffi {
        unsafe extern "C" {
            /// The C library's complementary error function; safe to call for every `f64`.
            pub safe fn erfc(x: f64) -> f64;
        }
    }

    /// The Rust-ABI wrapper that the rule is for.
    pub fn erfc(x: f64) -> f64 {
        ffi::erfc(x)
    }
}

/// d erfc(x) = -2/sqrt(pi) e^(-x^2) dx.
#[custom_rule(forward, of = c::erfc)]
fn erfc_jvp(x: f64, dx: f64) -> (f64, f64) {
    (c::erfc(x), -FRAC_2_SQRT_PI * (-x * x).exp() * dx)
}

/// Upper tail of the standard normal, Q(x) = erfc(x / sqrt 2) / 2 = 1 - Phi(x).
#[differentiable]
fn normal_tail(x: f64) -> f64 {
    0.5 * c::erfc(x / SQRT_2)
}

#[test]
fn c_library_function_behind_a_wrapper_with_a_rule() {
    for i in -20..=20 {
        let x = f64::from(i) * 0.3;
        let (q, dq) = ad::jvp(normal_tail, (x,), (1.0,));
        assert_eq!(q, 0.5 * c::erfc(x / SQRT_2));
        let expected = -normal_pdf(x);
        assert!(
            (dq - expected).abs() <= tolerance(x) * expected.abs(),
            "x = {x}"
        );
    }
    // The foreign function is directly differentiable too.
    let (_, d) = ad::jvp(c::erfc, (0.0,), (1.0,));
    assert_eq!(d, -FRAC_2_SQRT_PI);
}
