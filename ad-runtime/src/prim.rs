//! Partial derivatives of the inherent float methods, for generated code.
//!
//! Each function takes the primal inputs and the primal result `y` (already computed by the
//! generated code with the user's own method call, so values are bit-identical to the primal) and
//! returns the partial derivatives of the result with respect to the receiver and each float
//! argument, in order. Generated code multiplies each partial by its input's tangent, leaving out
//! inputs that are inactive, so an unused partial (say `ln x` at `x = 0`) is never formed into a
//! NaN and is removed by the optimiser.
//!
//! Values chosen where a function has a kink or a jump (documented in the README):
//! - `abs` at 0, `signum`, `floor`, `ceil`, `round`, `trunc`: 0;
//! - `max`/`min` with equal arguments: half to each (the symmetric choice, as JAX makes); with a
//!   NaN argument: all to the other argument, whose value the method returns;
//! - `clamp` at a bound: to `self` (the interval is closed);
//! - `hypot(0, 0)` and `atan2(0, 0)`: 0 to both;
//! - `powf(x, p)` with `p == 0`: 0 for `x`; with `x <= 0` or `x^p == 0`: 0 for `p`;
//!   `powi(x, 0)`: 0.

use crate::tangent::Differentiable;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// `f32` or `f64`, with the inherent methods that generated code differentiates.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no differentiable float methods",
    note = "float methods are differentiated for f64 and f32; if this value is an integer, give its `let` an integer type so that it is not differentiated"
)]
pub trait FloatOps:
    Copy
    + PartialOrd
    + Differentiable<Tangent = Self>
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The constant `v`, rounded to this type.
    fn c(v: f64) -> Self;
    fn real_sqrt(self) -> Self;
    fn real_sin(self) -> Self;
    fn real_cos(self) -> Self;
    fn real_sinh(self) -> Self;
    fn real_cosh(self) -> Self;
    fn real_ln(self) -> Self;
    fn real_powi(self, n: i32) -> Self;
    fn real_powf(self, p: Self) -> Self;
    fn real_hypot(self, other: Self) -> Self;
    fn real_is_nan(self) -> bool;
    fn real_is_sign_negative(self) -> bool;
}

macro_rules! real {
    ($($t:ident)*) => {$(
        impl FloatOps for $t {
            #[inline(always)] fn c(v: f64) -> $t { v as $t }
            #[inline(always)] fn real_sqrt(self) -> $t { $t::sqrt(self) }
            #[inline(always)] fn real_sin(self) -> $t { $t::sin(self) }
            #[inline(always)] fn real_cos(self) -> $t { $t::cos(self) }
            #[inline(always)] fn real_sinh(self) -> $t { $t::sinh(self) }
            #[inline(always)] fn real_cosh(self) -> $t { $t::cosh(self) }
            #[inline(always)] fn real_ln(self) -> $t { $t::ln(self) }
            #[inline(always)] fn real_powi(self, n: i32) -> $t { $t::powi(self, n) }
            #[inline(always)] fn real_powf(self, p: $t) -> $t { $t::powf(self, p) }
            #[inline(always)] fn real_hypot(self, other: $t) -> $t { $t::hypot(self, other) }
            #[inline(always)] fn real_is_nan(self) -> bool { $t::is_nan(self) }
            #[inline(always)] fn real_is_sign_negative(self) -> bool { $t::is_sign_negative(self) }
        }
    )*};
}
real!(f32 f64);

const LN_2: f64 = core::f64::consts::LN_2;
const LN_10: f64 = core::f64::consts::LN_10;

macro_rules! unary {
    ($($(#[$m:meta])* fn $name:ident($x:ident, $y:ident) $body:block)*) => {$(
        $(#[$m])*
        #[inline(always)]
        #[allow(unused_variables)]
        pub fn $name<S: FloatOps>($x: S, $y: S) -> S $body
    )*};
}

unary! {
    /// d sqrt(x) = 1 / (2 sqrt x)
    fn sqrt(x, y) { S::c(0.5) / y }
    /// d cbrt(x) = 1 / (3 cbrt(x)^2)
    fn cbrt(x, y) { S::c(1.0 / 3.0) / (y * y) }
    /// d e^x = e^x
    fn exp(x, y) { y }
    /// d 2^x = ln 2 * 2^x
    fn exp2(x, y) { S::c(LN_2) * y }
    /// d (e^x - 1) = e^x
    fn exp_m1(x, y) { y + S::c(1.0) }
    /// d ln x = 1 / x
    fn ln(x, y) { S::c(1.0) / x }
    /// d ln(1 + x) = 1 / (1 + x)
    fn ln_1p(x, y) { S::c(1.0) / (S::c(1.0) + x) }
    /// d log2 x = 1 / (x ln 2)
    fn log2(x, y) { S::c(1.0) / (x * S::c(LN_2)) }
    /// d log10 x = 1 / (x ln 10)
    fn log10(x, y) { S::c(1.0) / (x * S::c(LN_10)) }
    /// d sin x = cos x
    fn sin(x, y) { x.real_cos() }
    /// d cos x = -sin x
    fn cos(x, y) { -x.real_sin() }
    /// d tan x = 1 + tan^2 x
    fn tan(x, y) { S::c(1.0) + y * y }
    /// d asin x = 1 / sqrt(1 - x^2)
    fn asin(x, y) { S::c(1.0) / (S::c(1.0) - x * x).real_sqrt() }
    /// d acos x = -1 / sqrt(1 - x^2)
    fn acos(x, y) { -(S::c(1.0) / (S::c(1.0) - x * x).real_sqrt()) }
    /// d atan x = 1 / (1 + x^2)
    fn atan(x, y) { S::c(1.0) / (S::c(1.0) + x * x) }
    /// d sinh x = cosh x
    fn sinh(x, y) { x.real_cosh() }
    /// d cosh x = sinh x
    fn cosh(x, y) { x.real_sinh() }
    /// d tanh x = 1 - tanh^2 x
    fn tanh(x, y) { S::c(1.0) - y * y }
    /// d asinh x = 1 / sqrt(x^2 + 1)
    fn asinh(x, y) { S::c(1.0) / (x * x + S::c(1.0)).real_sqrt() }
    /// d acosh x = 1 / sqrt(x^2 - 1)
    fn acosh(x, y) { S::c(1.0) / (x * x - S::c(1.0)).real_sqrt() }
    /// d atanh x = 1 / (1 - x^2)
    fn atanh(x, y) { S::c(1.0) / (S::c(1.0) - x * x) }
    /// d |x| = sign x, and 0 at 0
    fn abs(x, y) {
        if x > S::c(0.0) { S::c(1.0) } else if x < S::c(0.0) { S::c(-1.0) } else { S::c(0.0) }
    }
    /// signum is piecewise constant
    fn signum(x, y) { S::c(0.0) }
    /// d (1 / x) = -1 / x^2
    fn recip(x, y) { -(y * y) }
    /// floor is piecewise constant
    fn floor(x, y) { S::c(0.0) }
    /// ceil is piecewise constant
    fn ceil(x, y) { S::c(0.0) }
    /// round is piecewise constant
    fn round(x, y) { S::c(0.0) }
    /// round_ties_even is piecewise constant
    fn round_ties_even(x, y) { S::c(0.0) }
    /// trunc is piecewise constant
    fn trunc(x, y) { S::c(0.0) }
    /// fract x = x - trunc x has slope 1
    fn fract(x, y) { S::c(1.0) }
    /// d (x 180 / pi)
    fn to_degrees(x, y) { S::c(180.0 / core::f64::consts::PI) }
    /// d (x pi / 180)
    fn to_radians(x, y) { S::c(core::f64::consts::PI / 180.0) }
}

/// d x^n = n x^(n-1), and 0 for n = 0.
#[inline(always)]
pub fn powi<S: FloatOps>(x: S, n: i32, _y: S) -> S {
    match n.checked_sub(1) {
        _ if n == 0 => S::c(0.0),
        Some(m) => S::c(f64::from(n)) * x.real_powi(m),
        // n = i32::MIN: n - 1 is not an i32
        None => S::c(f64::from(n)) * x.real_powf(S::c(f64::from(n) - 1.0)),
    }
}

/// d x^p = (p x^(p-1), x^p ln x); 0 for x when p = 0; 0 for p when x <= 0 or x^p = 0 (for
/// x < 0, x^p is real only at integer p, so it has no derivative along p; a NaN there would
/// also spoil the derivative along x whenever p carries a zero tangent).
#[inline(always)]
pub fn powf<S: FloatOps>(x: S, p: S, y: S) -> (S, S) {
    let dx = if p == S::c(0.0) {
        S::c(0.0)
    } else {
        p * x.real_powf(p - S::c(1.0))
    };
    let dp = if x <= S::c(0.0) || y == S::c(0.0) {
        S::c(0.0)
    } else {
        y * x.real_ln()
    };
    (dx, dp)
}

/// d log_b x = (1 / (x ln b), -log_b x / (b ln b)).
#[inline(always)]
pub fn log<S: FloatOps>(x: S, b: S, y: S) -> (S, S) {
    let ln_b = b.real_ln();
    (S::c(1.0) / (x * ln_b), -(y / (b * ln_b)))
}

/// d atan2(y, x) = (x / (x^2 + y^2), -y / (x^2 + y^2)), and (0, 0) at the origin. The squared
/// radius is formed as `hypot^2` in two divisions, so it neither overflows nor underflows
/// where `x^2 + y^2` would.
#[inline(always)]
pub fn atan2<S: FloatOps>(y: S, x: S, _r: S) -> (S, S) {
    let h = y.real_hypot(x);
    if h == S::c(0.0) {
        (S::c(0.0), S::c(0.0))
    } else {
        (x / h / h, -(y / h / h))
    }
}

/// d hypot(a, b) = (a / h, b / h), and (0, 0) at the origin.
#[inline(always)]
pub fn hypot<S: FloatOps>(a: S, b: S, h: S) -> (S, S) {
    if h == S::c(0.0) {
        (S::c(0.0), S::c(0.0))
    } else {
        (a / h, b / h)
    }
}

/// d (a b + c) = (b, a, 1).
#[inline(always)]
pub fn mul_add<S: FloatOps>(a: S, b: S, _c: S, _y: S) -> (S, S, S) {
    (b, a, S::c(1.0))
}

/// d max(a, b): to the larger; half each on a tie; to the other of a NaN.
#[inline(always)]
pub fn max<S: FloatOps>(a: S, b: S, _y: S) -> (S, S) {
    if a > b || b.real_is_nan() {
        (S::c(1.0), S::c(0.0))
    } else if a < b || a.real_is_nan() {
        (S::c(0.0), S::c(1.0))
    } else {
        (S::c(0.5), S::c(0.5))
    }
}

/// d min(a, b): to the smaller; half each on a tie; to the other of a NaN.
#[inline(always)]
pub fn min<S: FloatOps>(a: S, b: S, _y: S) -> (S, S) {
    if a < b || b.real_is_nan() {
        (S::c(1.0), S::c(0.0))
    } else if a > b || a.real_is_nan() {
        (S::c(0.0), S::c(1.0))
    } else {
        (S::c(0.5), S::c(0.5))
    }
}

/// d clamp(x, lo, hi): to the bound that is returned, to `x` inside the closed interval.
#[inline(always)]
pub fn clamp<S: FloatOps>(x: S, lo: S, hi: S, _y: S) -> (S, S, S) {
    if x < lo {
        (S::c(0.0), S::c(1.0), S::c(0.0))
    } else if x > hi {
        (S::c(0.0), S::c(0.0), S::c(1.0))
    } else {
        (S::c(1.0), S::c(0.0), S::c(0.0))
    }
}

/// d copysign(x, s) = (±1, 0): the magnitude follows x, the sign is piecewise constant.
#[inline(always)]
pub fn copysign<S: FloatOps>(x: S, s: S, _y: S) -> (S, S) {
    let same = x.real_is_sign_negative() == s.real_is_sign_negative();
    (if same { S::c(1.0) } else { S::c(-1.0) }, S::c(0.0))
}
