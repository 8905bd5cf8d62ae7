//! Forward mode against an independent oracle: every primitive that `#[differentiable]`
//! differentiates inline, and the language around it, checked at many random points.
//!
//! Each function under test is written a second time over `num_dual::Dual64` (forward-mode dual
//! numbers, with their own derivative rules). Where num-dual has no such function (`hypot`,
//! `min`, `max`, `clamp`, `floor` and the other piecewise-constant functions, `fract`, `%`,
//! `copysign`, `abs` at 0, `to_degrees`, `to_radians`, a `powf` or `log` with an active exponent
//! or base) the oracle builds it from what num-dual has, by its mathematical definition:
//! `hypot(a, b) = sqrt(a^2 + b^2)` (its value taken from `f64::hypot`), `a % b = a - b trunc(a / b)` with the integer `trunc(a / b)`
//! constant, `copysign(x, s) = |x| sign(s)`, `x^p = exp(p ln x)`, `log_b x = ln x / ln b`,
//! `x.to_degrees() = x (180 / pi)`, and the piecewise-constant functions as constants. No finite
//! differences are needed.
//!
//! The functions under test and their oracles, the sampler and the tolerances the two modes have
//! in common are in the module `oracle` (`tests/oracle/mod.rs`), shared with
//! `test_oracle_reverse.rs`; this file holds the forward-mode checks.
//!
//! At every point three things are asserted:
//! - the value from `ad::jvp` is bit-identical to calling the function itself: the generated
//!   code evaluates the primal with the very same expressions;
//! - the value agrees with the oracle's to `1e-15 * max(1, |a|, |b|)`: the oracle evaluates the
//!   same math by other expressions (`a / b` as `a * (1 / b)`, `tanh` as `sinh / cosh`, `x^p`
//!   as `exp(p ln x)`), each a few roundings, so a few ulps apart ([`VAL_TOL_REWRITTEN`] where
//!   such rewritten terms cancel);
//! - the tangent agrees with the oracle's to `1e-12 * max(1, |a|, |b|)`: both are short chains
//!   of correctly rounded operations on well-conditioned inputs (domains keep away from
//!   singularities and kinks), so they differ by some ulps times modest condition numbers (all
//!   within 1e-14 over 6000 points per test with other seeds), while a wrong rule (a missing factor, a wrong sign, a swapped partial) is off by
//!   O(1). The floor of 1 makes the bound absolute near zero, where a relative bound would demand
//!   more than rounding allows (a tangent that cancels to about 0).
//!
//! Directions are unit vectors for the first samples (each partial alone) and random in
//! [-1, 1]^n for the rest. Points come from a splitmix64 generator with fixed seeds.

mod oracle;

use oracle::*;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// Values against the oracle, which computes them by other expressions.
const VAL_TOL: f64 = 1e-15;
/// Values against an oracle that rewrites a primitive (`a / b` as `a * (1 / b)`, `x^n` as
/// `x^(n-3) x x x`, `x^p` as `exp(p ln x)`) in a function whose terms cancel: each rewritten term
/// is a few ulps of its own magnitude off, which is up to about 10 times the result's. Seen up to
/// 2.7e-15 over 12000 random points; the value itself is pinned bit-exactly to the primal anyway.
const VAL_TOL_REWRITTEN: f64 = 1e-14;

/// Checks one f64 result of `ad::jvp`: `got` = (value, tangent), `primal` = the function called
/// directly, `want` = the oracle.
#[track_caller]
fn check(name: &str, at: &dyn std::fmt::Debug, got: (f64, f64), primal: f64, want: D) {
    check_with(name, at, got, primal, want, VAL_TOL);
}

/// [`check`] with the tolerance of the value against the oracle given.
#[track_caller]
fn check_with(
    name: &str,
    at: &dyn std::fmt::Debug,
    got: (f64, f64),
    primal: f64,
    want: D,
    val_tol: f64,
) {
    assert_eq!(
        got.0.to_bits(),
        primal.to_bits(),
        "{name} {at:?}: jvp value {:e} differs from the function's own {:e}",
        got.0,
        primal
    );
    assert!(
        close(got.0, want.re, val_tol),
        "{name} {at:?}: value {:e}, oracle {:e}",
        got.0,
        want.re
    );
    assert!(
        close(got.1, want.eps, DER_TOL),
        "{name} {at:?}: tangent {:e}, oracle {:e} (difference {:e})",
        got.1,
        want.eps,
        (got.1 - want.eps).abs()
    );
}

/// Checks one f32 result of `ad::jvp` against the f64 oracle, at [`F32_TOL`].
#[track_caller]
fn check32(name: &str, at: &dyn std::fmt::Debug, got: (f32, f32), primal: f32, want: D) {
    assert_eq!(
        got.0.to_bits(),
        primal.to_bits(),
        "{name} {at:?}: jvp value {:e} differs from the function's own {:e}",
        got.0,
        primal
    );
    assert!(
        close(f64::from(got.0), want.re, F32_TOL),
        "{name} {at:?}: value {:e}, oracle {:e}",
        got.0,
        want.re
    );
    assert!(
        close(f64::from(got.1), want.eps, F32_TOL),
        "{name} {at:?}: tangent {:e}, oracle {:e} (difference {:e})",
        got.1,
        want.eps,
        (f64::from(got.1) - want.eps).abs()
    );
}

fn dual(x: f64, dx: f64) -> D {
    D::new(x, dx)
}

fn dual32(x: f32, dx: f32) -> D {
    D::new(f64::from(x), f64::from(dx))
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// `f(x, y) = -(x y + 3x - y / (1 + x^2)) + x / y - (2.5 - y)(-x)`: the operators `+ - * /`
/// and unary minus, with active and constant operands on either side.
#[test]
fn arithmetic_operators() {
    for ([x, y], [dx, dy]) in samples(1, [(-3.0, 3.0), (0.5, 2.0)], |_| true) {
        let got = ad::jvp(arith, (x, y), (dx, dy));
        let want = arith_d(dual(x, dx), dual(y, dy));
        let at = (x, y, dx, dy);
        check_with("arith", &at, got, arith(x, y), want, VAL_TOL_REWRITTEN);
    }
}

/// `f(x, y) = x % y + x % 1.5 + 7.25 % y`, with `d(a % b) = da - trunc(a / b) db`: all three
/// operand activities of `%`, away from the jumps where `a / b` is an integer.
#[test]
fn remainder_operator() {
    let ok = |[x, y]: [f64; 2]| {
        off_grid(x / y, 1.0) > 1e-6
            && off_grid(x / 1.5, 1.0) > 1e-6
            && off_grid(7.25 / y, 1.0) > 1e-6
    };
    for ([x, y], [dx, dy]) in samples(2, [(-6.0, 6.0), (1.0, 3.0)], ok) {
        let got = ad::jvp(remainder, (x, y), (dx, dy));
        let want = remainder_d(dual(x, dx), dual(y, dy));
        check("remainder", &(x, y, dx, dy), got, remainder(x, y), want);
    }
}

/// `f(x, n) = n x^2 + x / (n^2 + 1)`, `n: i32` inactive with tangent `NoTangent`, `i32 as f64`
/// casts: `df = (2 n x + 1 / (n^2 + 1)) dx`.
#[test]
fn integer_parameter_and_int_to_float_cast() {
    let mut ints = Rng(103);
    for ([x], [dx]) in samples(3, [(-3.0, 3.0)], |_| true) {
        let n = ints.int(-5, 5);
        let got = ad::jvp(scaled_by_int, (x, n), (dx, ad::NoTangent));
        let want = scaled_by_int_d(dual(x, dx), n);
        check("scaled_by_int", &(x, n, dx), got, scaled_by_int(x, n), want);
    }
}

/// `f(x, y) = sin(f32(x) y) x + f64(y)` computed through `f64 as f32` and `f32 as f64` casts:
/// `df = (cos(x y) y x + sin(x y)) dx + (cos(x y) x^2 + 1) dy`, checked at f32 tolerance
/// because the casts round to f32.
#[test]
fn float_casts_between_f64_and_f32() {
    for ([x, y], [dx, dy]) in samples(4, [(-2.0, 2.0), (-2.0, 2.0)], |_| true) {
        let y = y as f32;
        let dy = dy as f32;
        let (v, t) = ad::jvp(via_f32, (x, y), (dx, dy));
        let want = via_f32_d(dual(x, dx), dual32(y, dy));
        let at = (x, y, dx, dy);
        assert_eq!(v.to_bits(), via_f32(x, y).to_bits(), "via_f32 {at:?}");
        assert!(
            close(v, want.re, F32_TOL),
            "via_f32 {at:?}: value {v:e}, oracle {:e}",
            want.re
        );
        assert!(
            close(t, want.eps, F32_TOL),
            "via_f32 {at:?}: tangent {t:e}, oracle {:e}",
            want.eps
        );
    }
}

/// `f(x) = sqrt(x) cbrt(x) + cbrt(-x) / (1 + sqrt x)` on x > 0 (so `cbrt` also of negative
/// numbers): `sqrt' = 1 / (2 sqrt x)`, `cbrt' = 1 / (3 cbrt(x)^2)`.
#[test]
fn roots_sqrt_cbrt() {
    for ([x], [dx]) in samples(5, [(0.1, 5.0)], |_| true) {
        let got = ad::jvp(roots, (x,), (dx,));
        let want = roots_d(dual(x, dx));
        check("roots", &(x, dx), got, roots(x), want);
    }
}

/// `f(x) = e^x - 2 * 2^x + (e^(x/2) - 1) x`: `exp' = exp`, `exp2' = ln 2 * 2^x`,
/// `exp_m1' = e^x`.
#[test]
fn exponentials_exp_exp2_exp_m1() {
    for ([x], [dx]) in samples(6, [(-3.0, 3.0)], |_| true) {
        let got = ad::jvp(exps, (x,), (dx,));
        let want = exps_d(dual(x, dx));
        check("exps", &(x, dx), got, exps(x), want);
    }
}

/// `f(x) = ln x + 2 ln(1 + x) - x log2 x + log10(x) / 3` on x > 0: `ln' = 1/x`,
/// `ln_1p' = 1/(1+x)`, `log2' = 1/(x ln 2)`, `log10' = 1/(x ln 10)`.
#[test]
fn logarithms_ln_ln_1p_log2_log10() {
    for ([x], [dx]) in samples(7, [(0.05, 10.0)], |_| true) {
        let got = ad::jvp(logs, (x,), (dx,));
        let want = logs_d(dual(x, dx));
        check("logs", &(x, dx), got, logs(x), want);
    }
}

/// `f(x, b) = log_b x + x log_b 3 + log_10 x` with an active base:
/// `d log_b x = dx / (x ln b) - ln x db / (b ln^2 b)`.
#[test]
fn logarithm_with_active_base() {
    for ([x, b], [dx, db]) in samples(8, [(0.1, 10.0), (1.5, 6.0)], |_| true) {
        let got = ad::jvp(log_base, (x, b), (dx, db));
        let want = log_base_d(dual(x, dx), dual(b, db));
        check("log_base", &(x, b, dx, db), got, log_base(x, b), want);
    }
}

/// `f(x, n) = x^n + x^3 - 2 x^-2 + x^0` with `n: i32` drawn in -4..=5 (0 included):
/// `d x^n = n x^(n-1) dx`.
#[test]
fn integer_powers_powi() {
    let mut ints = Rng(109);
    for ([x], [dx]) in samples(9, [(-2.5, 2.5)], |[x]| x.abs() > 0.3) {
        let n = ints.int(-4, 5);
        let got = ad::jvp(powers, (x, n), (dx, ad::NoTangent));
        let want = powers_d(dual(x, dx), n);
        check_with(
            "powers",
            &(x, n, dx),
            got,
            powers(x, n),
            want,
            VAL_TOL_REWRITTEN,
        );
    }
}

/// `f(x, p) = x^p + x^2.5 - 2^p x`, exponent active and constant, base active and constant:
/// `d x^p = p x^(p-1) dx + x^p ln x dp` against num-dual's `exp(p ln x)`.
#[test]
fn real_powers_powf() {
    for ([x, p], [dx, dp]) in samples(10, [(0.2, 3.0), (-2.0, 2.0)], |_| true) {
        let got = ad::jvp(powers_real, (x, p), (dx, dp));
        let want = powers_real_d(dual(x, dx), dual(p, dp));
        let (at, primal) = ((x, p, dx, dp), powers_real(x, p));
        check_with("powers_real", &at, got, primal, want, VAL_TOL_REWRITTEN);
    }
}

/// `f(x) = sin x cos x + tan(x/2)`: `sin' = cos`, `cos' = -sin`, `tan' = 1 + tan^2`.
#[test]
fn trigonometric_sin_cos_tan() {
    for ([x], [dx]) in samples(11, [(-2.5, 2.5)], |_| true) {
        let got = ad::jvp(trig, (x,), (dx,));
        let want = trig_d(dual(x, dx));
        check("trig", &(x, dx), got, trig(x), want);
    }
}

/// `f(x) = asin x + 2 acos x - atan 3x` on |x| < 0.95: `asin' = 1/sqrt(1-x^2) = -acos'`,
/// `atan' = 1/(1+x^2)`.
#[test]
fn inverse_trigonometric_asin_acos_atan() {
    for ([x], [dx]) in samples(12, [(-0.95, 0.95)], |_| true) {
        let got = ad::jvp(inverse_trig, (x,), (dx,));
        let want = inverse_trig_d(dual(x, dx));
        let primal = inverse_trig(x);
        check("inverse_trig", &(x, dx), got, primal, want);
    }
}

/// `f(y, x) = atan2(y, x) + atan2(2y, 1) + atan2(0.5, x)` in all four quadrants (including
/// across the branch cut, where atan2 jumps but its derivative does not):
/// `d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)`.
#[test]
fn two_argument_arctangent_atan2() {
    let ok = |[y, x]: [f64; 2]| x * x + y * y > 0.1 && x.abs() > 0.05;
    for ([y, x], [dy, dx]) in samples(13, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(angle, (y, x), (dy, dx));
        let want = angle_d(dual(y, dy), dual(x, dx));
        check("angle", &(y, x, dy, dx), got, angle(y, x), want);
    }
}

/// `f(x) = sinh x - cosh(x)/2 + x tanh 2x`: `sinh' = cosh`, `cosh' = sinh`,
/// `tanh' = 1 - tanh^2`.
#[test]
fn hyperbolic_sinh_cosh_tanh() {
    for ([x], [dx]) in samples(14, [(-3.0, 3.0)], |_| true) {
        let got = ad::jvp(hyperbolic, (x,), (dx,));
        let want = hyperbolic_d(dual(x, dx));
        check("hyperbolic", &(x, dx), got, hyperbolic(x), want);
    }
}

/// `f(x) = asinh x + 2 acosh x - atanh(1/x)` on x in [1.1, 4]: `asinh' = 1/sqrt(x^2+1)`,
/// `acosh' = 1/sqrt(x^2-1)`, `atanh' = 1/(1-x^2)`.
#[test]
fn inverse_hyperbolic_asinh_acosh_atanh() {
    for ([x], [dx]) in samples(15, [(1.1, 4.0)], |_| true) {
        let got = ad::jvp(inverse_hyperbolic, (x,), (dx,));
        let want = inverse_hyperbolic_d(dual(x, dx));
        let primal = inverse_hyperbolic(x);
        check("inverse_hyperbolic", &(x, dx), got, primal, want);
    }
}

/// `f(a, b) = hypot(a, b) + hypot(2a, 1) - hypot(3, b)` away from the origin:
/// `d hypot(a, b) = (a da + b db) / hypot(a, b)`, against `sqrt(a^2 + b^2)`.
#[test]
fn hypotenuse_hypot() {
    let ok = |[a, b]: [f64; 2]| a * a + b * b > 0.01;
    for ([a, b], [da, db]) in samples(16, [(-3.0, 3.0), (-3.0, 3.0)], ok) {
        let got = ad::jvp(hypotenuse, (a, b), (da, db));
        let want = hypotenuse_d(dual(a, da), dual(b, db));
        check("hypotenuse", &(a, b, da, db), got, hypotenuse(a, b), want);
    }
}

/// `f(x) = 2|x| + sqrt|x^2 - 1| + 1/x` away from the kinks 0 and ±1: `abs' = sign x`,
/// `recip' = -1/x^2`.
#[test]
fn absolute_value_and_reciprocal() {
    let ok = |[x]: [f64; 1]| x.abs() > 0.05 && (x * x - 1.0).abs() > 0.05;
    for ([x], [dx]) in samples(17, [(-3.0, 3.0)], ok) {
        let got = ad::jvp(magnitude, (x,), (dx,));
        let want = magnitude_d(dual(x, dx));
        check("magnitude", &(x, dx), got, magnitude(x), want);
    }
}

/// `f(x) = floor x + 2 ceil x + round x - round_ties_even x + 3 trunc x + signum x` is piecewise
/// constant: its tangent is exactly 0 (not merely small) at every point between the jumps.
#[test]
fn piecewise_constant_functions_have_zero_derivative() {
    let ok = |[x]: [f64; 1]| off_grid(x, 0.5) > 1e-6;
    for ([x], [dx]) in samples(18, [(-5.0, 5.0)], ok) {
        let got = ad::jvp(steps, (x,), (dx,));
        assert_eq!(
            got.1, 0.0,
            "steps at {x}: tangent {:e} is not exactly 0",
            got.1
        );
        check("steps", &(x, dx), got, steps(x), c(steps_value(x)));
    }
}

/// `f(x) = x floor x + fract(x) ceil x` between integers: `fract' = 1`, `floor' = ceil' = 0`, so
/// `df = (floor x + ceil x) dx`.
#[test]
fn fractional_part_fract() {
    let ok = |[x]: [f64; 1]| off_grid(x, 1.0) > 1e-6;
    for ([x], [dx]) in samples(19, [(-5.0, 5.0)], ok) {
        let got = ad::jvp(stepped_slope, (x,), (dx,));
        let want = stepped_slope_d(dual(x, dx));
        let primal = stepped_slope(x);
        check("stepped_slope", &(x, dx), got, primal, want);
        // the same derivative written out exactly: (floor x + ceil x) dx
        let exact = (x.floor() + x.ceil()) * dx;
        assert!(
            close(got.1, exact, DER_TOL),
            "stepped_slope {x}: {:e} vs {exact:e}",
            got.1
        );
    }
}

/// `f(a, b, c) = fma(a, b, c) + fma(a, 2, 1) fma(2, b, c)`: `d fma(a, b, c) = b da + a db + dc`,
/// with active and constant operands in each position.
#[test]
fn fused_multiply_add_mul_add() {
    for ([a, b, cc], [da, db, dc]) in samples(20, [(-2.0, 2.0); 3], |_| true) {
        let got = ad::jvp(fused, (a, b, cc), (da, db, dc));
        let want = fused_d(dual(a, da), dual(b, db), dual(cc, dc));
        check("fused", &(a, b, cc, da, db, dc), got, fused(a, b, cc), want);
    }
}

/// `f(x, y) = 2 max(x, y) + min(x, y) - max(x, y/2) min(x, 1)` away from ties: the derivative
/// of `max`/`min` is that of the argument selected.
#[test]
fn minimum_and_maximum() {
    let ok = |[x, y]: [f64; 2]| {
        (x - y).abs() > 1e-3 && (x - 0.5 * y).abs() > 1e-3 && (x - 1.0).abs() > 1e-3
    };
    for ([x, y], [dx, dy]) in samples(21, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(extremes, (x, y), (dx, dy));
        let want = extremes_d(dual(x, dx), dual(y, dy));
        check("extremes", &(x, y, dx, dy), got, extremes(x, y), want);
    }
}

/// `f(x, lo, hi) = x clamp(x, lo, hi) + clamp(2x, -1, 1)` away from the bounds: the derivative
/// of `clamp` is that of `x` inside the interval and that of the bound outside.
#[test]
fn clamp_to_an_interval() {
    let ok = |[x, lo, hi]: [f64; 3]| {
        (x - lo).abs() > 1e-3 && (x - hi).abs() > 1e-3 && ((2.0 * x).abs() - 1.0).abs() > 1e-3
    };
    let ranges = [(-2.0, 2.0), (-1.5, -0.2), (0.2, 1.5)];
    for ([x, lo, hi], [dx, dlo, dhi]) in samples(22, ranges, ok) {
        let got = ad::jvp(clamped, (x, lo, hi), (dx, dlo, dhi));
        let want = clamped_d(dual(x, dx), dual(lo, dlo), dual(hi, dhi));
        let primal = clamped(x, lo, hi);
        check("clamped", &(x, lo, hi, dx, dlo, dhi), got, primal, want);
    }
}

/// `f(x, s) = 2 copysign(x, s) + x copysign(s, x) + copysign(x, -1)` away from 0:
/// `d copysign(x, s) = sign(x) sign(s) dx`, and 0 for `s`.
#[test]
fn copy_sign_copysign() {
    let ok = |[x, s]: [f64; 2]| x.abs() > 1e-3 && s.abs() > 1e-3;
    for ([x, s], [dx, ds]) in samples(23, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(with_sign, (x, s), (dx, ds));
        let want = with_sign_d(dual(x, dx), dual(s, ds));
        check("with_sign", &(x, s, dx, ds), got, with_sign(x, s), want);
    }
}

/// `f(x) = x.to_degrees() / 90 + 60 sin(x.to_radians())`: `to_degrees' = 180/pi`,
/// `to_radians' = pi/180`.
#[test]
fn angle_units_to_degrees_to_radians() {
    for ([x], [dx]) in samples(24, [(-10.0, 10.0)], |_| true) {
        let got = ad::jvp(angles, (x,), (dx,));
        let want = angles_d(dual(x, dx));
        check("angles", &(x, dx), got, angles(x), want);
    }
}

/// `f(x, y) = sqrt x + max(x, y) - min(x, 2) atan2(y, x) + hypot(x, y) + x^3 + fma(x, y, 1)
/// + clamp(y, -1/2, 1/2) + e^-x + x^y + |y|`, every call in the `f64::method(a, ..)` form.
#[test]
fn primitives_called_as_associated_functions() {
    let ok = |[x, y]: [f64; 2]| {
        (x - y).abs() > 1e-3
            && (x - 2.0).abs() > 1e-3
            && (y.abs() - 0.5).abs() > 1e-3
            && y.abs() > 1e-3
    };
    for ([x, y], [dx, dy]) in samples(25, [(0.2, 3.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(ufcs, (x, y), (dx, dy));
        let want = ufcs_d(dual(x, dx), dual(y, dy));
        check("ufcs", &(x, y, dx, dy), got, ufcs(x, y), want);
    }
}

/// `f(x) = pi x^2 + e^x - x / tau + eps + sqrt 2`, the constants written as paths
/// (`std::f64::consts::PI`, `core::f64::consts::E`, an imported `TAU`, `f64::EPSILON`):
/// `df = (2 pi x + e^x - 1/tau) dx`.
#[test]
fn named_constants() {
    for ([x], [dx]) in samples(26, [(-3.0, 3.0)], |_| true) {
        let got = ad::jvp(constants, (x,), (dx,));
        let want = constants_d(dual(x, dx));
        check("constants", &(x, dx), got, constants(x), want);
    }
}

/// `let`, `let` with a type, `let mut`, and the compound assignments `+= -= *= /= %=` on floats
/// (and `+=` on an integer): `acc = (((x y + x) y - sin(x y)) / (1 + x^2)) % 4 + x^3`, whose
/// derivative is that of the expression before `% 4` plus `3 x^2`.
#[test]
fn let_bindings_and_compound_assignment() {
    let ok = |[x, y]: [f64; 2]| off_grid(accumulate_before_rem(x, y), 4.0) > 1e-6;
    for ([x, y], [dx, dy]) in samples(27, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(accumulate, (x, y), (dx, dy));
        let want = accumulate_d(dual(x, dx), dual(y, dy));
        check("accumulate", &(x, y, dx, dy), got, accumulate(x, y), want);
    }
}

/// `if`/`else` as statements (with and without `else`) and as an `else if` expression chain:
/// the derivative is that of the branch taken, away from the switching lines.
#[test]
fn if_else_statements_and_expressions() {
    let ok = |[x, y]: [f64; 2]| {
        x.abs() > 1e-3 && (x - y).abs() > 1e-3 && (x + y).abs() > 1e-3 && (y - 1.0).abs() > 1e-3
    };
    for ([x, y], [dx, dy]) in samples(28, [(-2.0, 2.0), (0.05, 2.0)], ok) {
        let got = ad::jvp(branches, (x, y), (dx, dy));
        let want = branches_d(dual(x, dx), dual(y, dy));
        check("branches", &(x, y, dx, dy), got, branches(x, y), want);
    }
    // negative y reaches the `x < -y` branch from the other side
    for ([x, y], [dx, dy]) in samples(128, [(-2.0, 2.0), (-2.0, -0.05)], ok) {
        let got = ad::jvp(branches, (x, y), (dx, dy));
        let want = branches_d(dual(x, dx), dual(y, dy));
        check("branches", &(x, y, dx, dy), got, branches(x, y), want);
    }
}

/// Early `return` from inside an `if`, and a `let r: f64;` initialised in both branches:
/// `f = x y` for x < -1, else `sqrt y + x` (y > 0) or `x sqrt(-y) + x` (y < 0).
#[test]
fn early_return_and_deferred_initialisation() {
    let ok = |[x, y]: [f64; 2]| (x + 1.0).abs() > 1e-3 && y.abs() > 0.05;
    for ([x, y], [dx, dy]) in samples(29, [(-3.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(early_return, (x, y), (dx, dy));
        let want = early_return_d(dual(x, dx), dual(y, dy));
        let primal = early_return(x, y);
        check("early_return", &(x, y, dx, dy), got, primal, want);
    }
}

/// A tuple result `(hypot(x, y), atan2(y, x))`: the tangent is the tuple
/// `((x dx + y dy) / r, (x dy - y dx) / r^2)`.
#[test]
fn tuple_result() {
    let ok = |[x, y]: [f64; 2]| x * x + y * y > 0.1 && x.abs() > 0.05;
    for ([x, y], [dx, dy]) in samples(30, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let ((r, t), (dr, dt)) = ad::jvp(polar, (x, y), (dx, dy));
        let (pr, pt) = polar(x, y);
        let (wr, wt) = polar_d(dual(x, dx), dual(y, dy));
        check("polar.0", &(x, y, dx, dy), (r, dr), pr, wr);
        check("polar.1", &(x, y, dx, dy), (t, dt), pt, wt);
    }
}

/// A tuple result with an integer element, `(x - floor x, floor x as i32, x^2)`:
/// the tangent is `(dx, NoTangent, 2 x dx)`; `f64 as i32` and `i32 as f64` casts.
#[test]
fn tuple_result_with_an_integer_element() {
    let ok = |[x]: [f64; 1]| off_grid(x, 1.0) > 1e-6;
    for ([x], [dx]) in samples(31, [(-5.0, 5.0)], ok) {
        let ((a, k, b), (da, dk, db)) = ad::jvp(split, (x,), (dx,));
        let (pa, pk, pb) = split(x);
        let xd = dual(x, dx);
        check("split.0", &(x, dx), (a, da), pa, xd - c(x.floor()));
        assert_eq!(k, pk, "split.1 at {x}");
        assert_eq!(dk, ad::NoTangent);
        check("split.2", &(x, dx), (b, db), pb, xd * xd);
    }
}

/// Calls from one `#[differentiable]` function to others, nested and with a tuple result:
/// `f(x, y) = softplus(x y) + r cos t + g(y, 3) softplus(softplus x)` with `(r, t) = polar(x, y)`
/// and `g = scaled_by_int`; the chain rule through the registry.
#[test]
fn calls_between_differentiable_functions() {
    let ok = |[x, y]: [f64; 2]| x * x + y * y > 0.1 && x.abs() > 0.05;
    for ([x, y], [dx, dy]) in samples(32, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(composed, (x, y), (dx, dy));
        let want = composed_d(dual(x, dx), dual(y, dy));
        check("composed", &(x, y, dx, dy), got, composed(x, y), want);
    }
    for ([x], [dx]) in samples(33, [(-10.0, 10.0)], |_| true) {
        let got = ad::jvp(softplus, (x,), (dx,));
        let want = softplus_d(dual(x, dx));
        check("softplus", &(x, dx), got, softplus(x), want);
    }
}

/// An integer parameter that decides the branch: `f(x, k) = x^k` for even k, `k x` for odd k.
#[test]
fn integer_parameter_in_control_flow() {
    let mut ints = Rng(134);
    for ([x], [dx]) in samples(34, [(0.3, 2.0)], |_| true) {
        let k = ints.int(-4, 6);
        let got = ad::jvp(int_branch, (x, k), (dx, ad::NoTangent));
        let want = int_branch_d(dual(x, dx), k);
        let primal = int_branch(x, k);
        check("int_branch", &(x, k, dx), got, primal, want);
    }
}

/// f32: `f(x, y) = sin(x y) + e^x / (1 + y^2) - ln(x^2 + 1) cos y + tanh x`, the f32 instances
/// of the operators and of `sin exp ln cos tanh`.
#[test]
fn f32_smooth_function() {
    for ([x, y], [dx, dy]) in samples32(35, [(-2.0, 2.0), (-2.0, 2.0)], |_| true) {
        let got = ad::jvp(smooth32, (x, y), (dx, dy));
        let want = smooth32_d(dual32(x, dx), dual32(y, dy));
        check32("smooth32", &(x, y, dx, dy), got, smooth32(x, y), want);
    }
}

/// f32: `f(x, p, n) = x^p + sqrt x cbrt x - x^3 + hypot(x, p) + n x^n` with `n: i32`, and the
/// `i32 as f32` cast.
#[test]
fn f32_powers_and_roots() {
    let mut ints = Rng(136);
    for ([x, p], [dx, dp]) in samples32(36, [(0.2, 3.0), (-2.0, 2.0)], |_| true) {
        let n = ints.int(-3, 4);
        let got = ad::jvp(powers32, (x, p, n), (dx, dp, ad::NoTangent));
        let want = powers32_d(dual32(x, dx), dual32(p, dp), n);
        check32("powers32", &(x, p, n, dx, dp), got, powers32(x, p, n), want);
    }
}

/// f32: `f(x, y) = max(x, y) - min(x, 1/2) + clamp(x, -1, 1) |y| + floor x + fract y` away from
/// the kinks and jumps.
#[test]
fn f32_piecewise_functions() {
    let ok = |[x, y]: [f64; 2]| {
        (x - y).abs() > 1e-3
            && (x - 0.5).abs() > 1e-3
            && (x.abs() - 1.0).abs() > 1e-3
            && off_grid(x, 1.0) > 1e-3
            && off_grid(y, 1.0) > 1e-3
    };
    for ([x, y], [dx, dy]) in samples32(37, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let got = ad::jvp(piecewise32, (x, y), (dx, dy));
        let want = piecewise32_d(dual32(x, dx), dual32(y, dy));
        check32("piecewise32", &(x, y, dx, dy), got, piecewise32(x, y), want);
    }
}

/// f32: the sum of `asin acos atan sinh cosh asinh acosh atanh exp2 exp_m1 ln_1p log2 log10 log
/// tan recip to_degrees to_radians ceil round trunc signum copysign mul_add` at x in (0.2, 0.8):
/// each f32 partial derivative rule at once.
#[test]
fn f32_every_other_primitive() {
    let ok = |[x]: [f64; 1]| (x - 0.5).abs() > 1e-3;
    for ([x], [dx]) in samples32(38, [(0.2, 0.8)], ok) {
        let got = ad::jvp(many32, (x,), (dx,));
        check32("many32", &(x, dx), got, many32(x), many32_d(dual32(x, dx)));
    }
}

/// f32: a tuple result with `let mut` and an `if`, and a caller that destructures it and calls
/// another f32 function, with an `f32 as f64 as f32` round trip.
#[test]
fn f32_tuple_result_and_calls() {
    let ok = |[x, y]: [f64; 2]| {
        let r2 = x * x + y * y;
        r2 > 0.1 && x.abs() > 0.05 && (r2 - 1.0).abs() > 1e-3
    };
    for ([x, y], [dx, dy]) in samples32(39, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let at = (x, y, dx, dy);
        let ((r, t), (dr, dt)) = ad::jvp(polar32, (x, y), (dx, dy));
        let (pr, pt) = polar32(x, y);
        let (wr, wt) = polar32_d(dual32(x, dx), dual32(y, dy));
        check32("polar32.0", &at, (r, dr), pr, wr);
        check32("polar32.1", &at, (t, dt), pt, wt);
        let got = ad::jvp(caller32, (x, y), (dx, dy));
        let want = caller32_d(dual32(x, dx), dual32(y, dy));
        check32("caller32", &at, got, caller32(x, y), want);
    }
}

/// The documented conventions where the derivative does not exist, exactly: `abs'(0) = 0`;
/// `max`/`min` on a tie give half to each argument, `d max(x, x) = (dx + dy) / 2`, and with a
/// NaN all to the other argument; `clamp` at a bound follows `x`, outside it the bound; the
/// piecewise-constant functions have derivative 0 at their jumps and `fract` has 1;
/// `copysign(x, s)` has `±dx` by the sign bits (also of `-0.0`) and nothing from `s`;
/// `hypot(0, 0)` has 0; `powi(x, 0)` has 0 even at 0; `powf(x, 0)` has 0 for `x`; `powf(x, p)`
/// has 0 for `p` where `x <= 0`. Tangents are dyadic so that every expected sum is exact.
#[test]
fn conventions_at_kinks() {
    // abs at 0, from either zero; and a sanity check either side
    assert_eq!(ad::jvp(abs1, (0.0,), (1.0,)), (0.0, 0.0));
    assert_eq!(ad::jvp(abs1, (-0.0,), (1.0,)).1, 0.0);
    assert_eq!(ad::jvp(abs1, (2.0,), (0.75,)), (2.0, 0.75));
    assert_eq!(ad::jvp(abs1, (-2.0,), (0.75,)), (2.0, -0.75));

    // max and min: ties split evenly, (0.25 + 0.75) / 2 = 0.5
    assert_eq!(ad::jvp(max2, (1.5, 1.5), (0.25, 0.75)), (1.5, 0.5));
    assert_eq!(ad::jvp(min2, (1.5, 1.5), (0.25, 0.75)), (1.5, 0.5));
    assert_eq!(ad::jvp(max2, (0.0, -0.0), (1.0, 0.5)).1, 0.75);
    assert_eq!(ad::jvp(max32, (1.5, 1.5), (0.25, 0.75)), (1.5, 0.5));
    // distinct arguments: all to the one selected
    assert_eq!(ad::jvp(max2, (2.0, 1.0), (0.25, 0.75)), (2.0, 0.25));
    assert_eq!(ad::jvp(min2, (2.0, 1.0), (0.25, 0.75)), (1.0, 0.75));
    // NaN: the method returns the other argument, and the derivative follows it
    assert_eq!(ad::jvp(max2, (f64::NAN, 2.0), (0.25, 0.75)), (2.0, 0.75));
    assert_eq!(ad::jvp(max2, (2.0, f64::NAN), (0.25, 0.75)), (2.0, 0.25));
    assert_eq!(ad::jvp(min2, (f64::NAN, 2.0), (0.25, 0.75)), (2.0, 0.75));
    assert_eq!(ad::jvp(min2, (2.0, f64::NAN), (0.25, 0.75)), (2.0, 0.25));

    // clamp with tangents (dx, dlo, dhi) = (0.25, 0.5, 0.125) on [lo, hi] = [-1, 2]
    let t = (0.25, 0.5, 0.125);
    for (x, want, why) in [
        (-1.0, (-1.0, 0.25), "at lo: to x"),
        (2.0, (2.0, 0.25), "at hi: to x"),
        (0.5, (0.5, 0.25), "inside: to x"),
        (-3.0, (-1.0, 0.5), "below: to lo"),
        (3.0, (2.0, 0.125), "above: to hi"),
    ] {
        assert_eq!(
            ad::jvp(clamp3, (x, -1.0, 2.0), t),
            want,
            "clamp at {x}, {why}"
        );
    }
    assert_eq!(
        ad::jvp(clamp3, (1.0, 1.0, 1.0), t),
        (1.0, 0.25),
        "lo == hi: to x"
    );

    // piecewise-constant functions at their jumps (integers, halves, 0) and fract
    for x in [-2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0] {
        let (v, d) = ad::jvp(jumps, (x,), (0.75,));
        assert_eq!(v, jumps(x), "values at {x}");
        assert_eq!(d, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75), "tangents at {x}");
    }

    // copysign: +-dx by the sign bits, never anything from s
    let t = (0.25, 0.75);
    assert_eq!(ad::jvp(copysign2, (2.0, -1.0), t), (-2.0, -0.25));
    assert_eq!(ad::jvp(copysign2, (2.0, 1.0), t), (2.0, 0.25));
    assert_eq!(ad::jvp(copysign2, (-2.0, 1.0), t), (2.0, -0.25));
    assert_eq!(ad::jvp(copysign2, (-2.0, -1.0), t), (-2.0, 0.25));
    assert_eq!(ad::jvp(copysign2, (2.0, -0.0), t), (-2.0, -0.25));
    assert_eq!(ad::jvp(copysign2, (-2.0, -0.0), t), (-2.0, 0.25));
    assert_eq!(ad::jvp(copysign2, (2.0, 0.0), t), (2.0, 0.25));

    // hypot at the origin
    assert_eq!(ad::jvp(hypot2, (0.0, 0.0), (0.25, 0.75)), (0.0, 0.0));
    // powi: x^0 = 1 has derivative 0, also at x = 0 where n x^(n-1) would be 0 * inf
    assert_eq!(ad::jvp(powi2, (0.0, 0), (1.0, ad::NoTangent)), (1.0, 0.0));
    assert_eq!(ad::jvp(powi2, (0.0, 1), (0.75, ad::NoTangent)), (0.0, 0.75));
    assert_eq!(ad::jvp(powi2, (0.0, 2), (0.75, ad::NoTangent)), (0.0, 0.0));
    // powf: nothing for x when p = 0 (only x^p ln x dp = ln 2 / 4), nothing for p when x^p = 0
    // (where ln x = -inf)
    let ln2_4 = 2.0_f64.ln() * 0.25;
    assert_eq!(ad::jvp(powf2, (2.0, 0.0), (0.75, 0.25)), (1.0, ln2_4));
    assert_eq!(ad::jvp(powf2, (0.0, 2.0), (0.75, 0.25)), (0.0, 0.0));
    // powf at a negative base: real only at integer p, so nothing for p; the derivative along
    // x is p x^(p-1) = 2 (-2) = -4, not spoiled by ln(-2) = NaN
    assert_eq!(ad::jvp(powf2, (-2.0, 2.0), (1.0, 0.0)), (4.0, -4.0));
    assert_eq!(ad::jvp(powf2, (-2.0, 3.0), (0.5, 0.25)), (-8.0, 6.0));
    // and at 0^0 = 1: nothing for p (0^p jumps from 1 to 0), nothing for x (p = 0)
    assert_eq!(ad::jvp(powf2, (0.0, 0.0), (1.0, 1.0)), (1.0, 0.0));
}
