//! Reverse mode against an independent oracle: every function of `test_oracle_forward.rs`
//! (every primitive that `#[differentiable]` differentiates inline, and the language around it),
//! its gradient checked at the same random points.
//!
//! The functions under test and their oracles are the ones `test_oracle_forward.rs` checks, shared
//! with it through the module `oracle` (`tests/oracle/mod.rs`), and the tests use the same domains
//! and seeds, so the points are the same. Each oracle is the function written a second time over
//! `num_dual::Dual64` (forward-mode dual numbers with their own derivative rules, and the
//! primitives num-dual lacks built from their definitions; see `test_oracle_forward.rs`). A
//! partial derivative of the oracle is one dual evaluation with a unit tangent on one float input
//! and zero tangents on the others. This file holds the reverse-mode checks.
//!
//! At every point these are asserted:
//! - the value from `ad::value_and_grad` (or `ad::vjp`) is bit-identical to calling the function
//!   itself: the forward sweep evaluates the primal with the very same expressions;
//! - each adjoint agrees with the oracle's partial derivative to `1e-12 * max(1, |a|, |b|)`
//!   ([`close`], the same bound as the forward file): the adjoint and the oracle's tangent are
//!   both the same sum of products of local partial derivatives, each a short chain of correctly
//!   rounded operations on well-conditioned inputs (the domains keep away from singularities and
//!   kinks); reverse mode only multiplies them in the other order (from the result back to the
//!   inputs), so the two differ by some ulps times modest condition numbers, while a wrong rule
//!   (a missing factor, a wrong sign, an adjoint sent to the wrong input, one dropped where a
//!   value is used twice) is off by O(1). The floor of 1 makes the bound absolute near zero,
//!   where an adjoint that cancels to about 0 cannot be relatively accurate;
//! - the gradient is the transpose of the directional derivative: `grad . v == jvp(v)` to the
//!   same bound, for the forward file's directions (the unit vectors first, then uniform in
//!   [-1, 1]^n): both modes compute the same linear map, each to within rounding;
//! - for a tuple result, `ad::vjp`'s pullback at each unit output adjoint is a row of the
//!   oracle's Jacobian, and at random output adjoints `w` it satisfies the defining identity of
//!   the adjoint, `pullback(w) . v == w . jvp(v)`, to the same bound; calling the pullback again
//!   with the same `w` gives the same adjoints bit for bit (it replays the same tape);
//! - integer arguments get the adjoint `ad::NoTangent`.
//!
//! f32 functions are checked against the f64 oracle at [`F32_TOL`] = 1e-5, as in the forward
//! file: f32 has eps = 1.19e-7, and a function of some ten operations with condition numbers up to
//! about 10 accumulates up to about 1e-6 of relative error in either mode, so 1e-5 (about 80 ulps)
//! is safe for correct code and still 5 orders of magnitude below the O(1) error of a wrong rule.
//! The oracle runs in f64 at the f32 inputs, which are exactly representable, so it is the exact
//! derivative for this purpose. The same bound holds `grad . v` (summed in f64 from the f32
//! adjoints) against the f32 `jvp(v)`.
//!
//! Where a primitive has no derivative (the kinks and jumps of `abs`, `max`, `min`, `clamp`,
//! the piecewise-constant functions, `copysign`, `hypot` and `atan2` at the origin, `powi` and
//! `powf` at 0 or a negative base), forward mode documents a convention. Reverse mode must follow
//! the same conventions exactly: there `ad::grad` is compared bit for bit with `ad::jvp` along
//! each unit vector, and with the value derived by hand.

mod oracle;

use oracle::*;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// Output adjoints for `ad::vjp`: uniform in [-1, 1], rounded to f32 so that the same values
/// serve f64 and f32 functions exactly.
fn adjoints<const M: usize>(rng: &mut Rng) -> [f64; M] {
    std::array::from_fn(|_| f64::from(rng.range(-1.0, 1.0) as f32))
}

/// The oracle's inputs at `p`: dual numbers with a unit tangent on input `i`, zero on the others.
fn seeded<const K: usize>(p: [f64; K], i: usize) -> [D; K] {
    std::array::from_fn(|j| D::new(p[j], if i == j { 1.0 } else { 0.0 }))
}

/// `sum a_i b_i`.
fn dot<const K: usize>(a: [f64; K], b: [f64; K]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Checks one result of `ad::value_and_grad` of a function with float inputs `p` (any integer
/// inputs are fixed in `name` and `oracle`): `got` = (value, adjoints), `primal` = the function
/// called directly, `jvp` = the tangent of `ad::jvp` along `dir`, `oracle` = the function over
/// dual numbers. f32 functions pass everything widened to f64 (exactly) with `tol` = [`F32_TOL`].
#[track_caller]
fn check_grad<const K: usize>(
    name: &str,
    tol: f64,
    (p, dir): ([f64; K], [f64; K]),
    got: (f64, [f64; K]),
    primal: f64,
    jvp: f64,
    oracle: impl Fn([D; K]) -> D,
) {
    let (value, grad) = got;
    assert_eq!(
        value.to_bits(),
        primal.to_bits(),
        "{name} at {p:?}: value_and_grad value {value:e} differs from the function's own {primal:e}"
    );
    for (i, &adjoint) in grad.iter().enumerate() {
        let want = oracle(seeded(p, i)).eps;
        assert!(
            close(adjoint, want, tol),
            "{name} at {p:?}: adjoint {i} is {adjoint:e}, oracle {want:e} (difference {:e})",
            (adjoint - want).abs()
        );
    }
    let projected = dot(grad, dir);
    assert!(
        close(projected, jvp, tol),
        "{name} at {p:?} along {dir:?}: grad . v = {projected:e}, jvp = {jvp:e}"
    );
}

/// Checks `ad::vjp` of a function with float inputs `p` and `M` float results (the value is
/// checked by the caller): `pullback` maps output adjoints to input adjoints, `jvp` = the tangent
/// of `ad::jvp` along `dir`, `w` = random output adjoints, `oracle` = the function over dual
/// numbers. Each unit output adjoint must pull back to that row of the oracle's Jacobian,
/// `pullback(w) . dir` must equal `w . jvp`, and a second `pullback(w)` must repeat the first bit
/// for bit.
#[track_caller]
fn check_pullback<const K: usize, const M: usize>(
    name: &str,
    tol: f64,
    (p, dir): ([f64; K], [f64; K]),
    w: [f64; M],
    pullback: impl Fn([f64; M]) -> [f64; K],
    jvp: [f64; M],
    oracle: impl Fn([D; K]) -> [D; M],
) {
    let columns: [[D; M]; K] = std::array::from_fn(|i| oracle(seeded(p, i)));
    let jacobian: [[f64; K]; M] = std::array::from_fn(|j| columns.map(|column| column[j].eps));
    for (j, want_row) in jacobian.iter().enumerate() {
        let row = pullback(std::array::from_fn(|k| if k == j { 1.0 } else { 0.0 }));
        for (i, (&got, &want)) in row.iter().zip(want_row).enumerate() {
            assert!(
                close(got, want, tol),
                "{name} at {p:?}: d out{j} / d in{i} is {got:e}, oracle {want:e} (difference {:e})",
                (got - want).abs()
            );
        }
    }
    let first = pullback(w);
    let again = pullback(w);
    assert_eq!(
        first.map(f64::to_bits),
        again.map(f64::to_bits),
        "{name} at {p:?}: the pullback of {w:?} gave {first:?}, then {again:?}"
    );
    let (lhs, rhs) = (dot(first, dir), dot(w, jvp));
    assert!(
        close(lhs, rhs, tol),
        "{name} at {p:?}: pullback(w) . v = {lhs:e}, w . jvp(v) = {rhs:e} (w = {w:?}, v = {dir:?})"
    );
}

/// The partial derivatives of `f` from forward mode: `ad::jvp` along each unit vector.
fn jvp_grad1<F>(f: F, (x,): (f64,)) -> [f64; 1]
where
    F: ad::Function<(f64,), Output = f64, Tangents = (f64,)>,
{
    [ad::jvp(f, (x,), (1.0,)).1]
}

/// [`jvp_grad1`] for two arguments.
fn jvp_grad2<F>(f: F, p: (f64, f64)) -> [f64; 2]
where
    F: ad::Function<(f64, f64), Output = f64, Tangents = (f64, f64)>,
{
    [ad::jvp(f, p, (1.0, 0.0)).1, ad::jvp(f, p, (0.0, 1.0)).1]
}

/// [`jvp_grad1`] for three arguments.
fn jvp_grad3<F>(f: F, p: (f64, f64, f64)) -> [f64; 3]
where
    F: ad::Function<(f64, f64, f64), Output = f64, Tangents = (f64, f64, f64)>,
{
    [
        ad::jvp(f, p, (1.0, 0.0, 0.0)).1,
        ad::jvp(f, p, (0.0, 1.0, 0.0)).1,
        ad::jvp(f, p, (0.0, 0.0, 1.0)).1,
    ]
}

/// Asserts that reverse mode's adjoints `rev` equal forward mode's partials `fwd` bit for bit
/// (so also in the sign of a zero) and the value `want` derived by hand.
#[track_caller]
fn same_bits<const K: usize>(what: &str, rev: [f64; K], fwd: [f64; K], want: [f64; K]) {
    assert_eq!(
        rev.map(f64::to_bits),
        fwd.map(f64::to_bits),
        "{what}: ad::grad gives {rev:?}, ad::jvp along the unit vectors {fwd:?}"
    );
    assert_eq!(
        rev, want,
        "{what}: ad::grad gives {rev:?}, by hand {want:?}"
    );
}

/// f32 values widened to f64, exactly.
fn wide<const K: usize>(a: [f32; K]) -> [f64; K] {
    a.map(f64::from)
}

/// `atan2` alone, for its convention at the origin; only this file checks it, so it is not in
/// the shared table.
#[ad::differentiable]
fn atan2_2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// `f(x, y) = -(x y + 3x - y / (1 + x^2)) + x / y - (2.5 - y)(-x)`: the adjoints of the
/// operators `+ - * /` and unary minus, with active and constant operands on either side.
#[test]
fn arithmetic_operators() {
    for ([x, y], [dx, dy]) in samples(1, [(-3.0, 3.0), (0.5, 2.0)], |_| true) {
        let (v, (gx, gy)) = ad::value_and_grad(arith, (x, y));
        let jvp = ad::jvp(arith, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| arith_d(x, y);
        let pd = ([x, y], [dx, dy]);
        check_grad(
            "arith",
            DER_TOL,
            pd,
            (v, [gx, gy]),
            arith(x, y),
            jvp,
            oracle,
        );
    }
}

/// `f(x, y) = x % y + x % 1.5 + 7.25 % y`: the adjoints of `%`, `(1, -trunc(a / b))` for
/// `a % b`, for all three operand activities, away from the jumps.
#[test]
fn remainder_operator() {
    let ok = |[x, y]: [f64; 2]| {
        off_grid(x / y, 1.0) > 1e-6
            && off_grid(x / 1.5, 1.0) > 1e-6
            && off_grid(7.25 / y, 1.0) > 1e-6
    };
    for ([x, y], [dx, dy]) in samples(2, [(-6.0, 6.0), (1.0, 3.0)], ok) {
        let (v, (gx, gy)) = ad::value_and_grad(remainder, (x, y));
        let jvp = ad::jvp(remainder, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| remainder_d(x, y);
        let (pd, primal) = (([x, y], [dx, dy]), remainder(x, y));
        check_grad("remainder", DER_TOL, pd, (v, [gx, gy]), primal, jvp, oracle);
    }
}

/// `f(x, n) = n x^2 + x / (n^2 + 1)` with `n: i32`: `df/dx = 2 n x + 1 / (n^2 + 1)`, and the
/// integer's adjoint is `NoTangent`.
#[test]
fn integer_parameter_and_int_to_float_cast() {
    let mut ints = Rng(103);
    for ([x], [dx]) in samples(3, [(-3.0, 3.0)], |_| true) {
        let n = ints.int(-5, 5);
        let (v, (gx, gn)) = ad::value_and_grad(scaled_by_int, (x, n));
        assert_eq!(gn, ad::NoTangent);
        let jvp = ad::jvp(scaled_by_int, (x, n), (dx, ad::NoTangent)).1;
        let oracle = |[x]: [D; 1]| scaled_by_int_d(x, n);
        let (name, primal) = (format!("scaled_by_int n={n}"), scaled_by_int(x, n));
        check_grad(&name, DER_TOL, ([x], [dx]), (v, [gx]), primal, jvp, oracle);
    }
}

/// `f(x, y) = sin(f32(x) y) x + f64(y)` through `f64 as f32` and `f32 as f64` casts: the f64
/// adjoint of `x` and the f32 adjoint of `y`, at f32 tolerance because the casts round to f32.
#[test]
fn float_casts_between_f64_and_f32() {
    for ([x, y], [dx, dy]) in samples(4, [(-2.0, 2.0), (-2.0, 2.0)], |_| true) {
        let (y, dy) = (y as f32, dy as f32);
        let (v, (gx, gy)): (f64, (f64, f32)) = ad::value_and_grad(via_f32, (x, y));
        let jvp = ad::jvp(via_f32, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| via_f32_d(x, y);
        let pd = ([x, f64::from(y)], [dx, f64::from(dy)]);
        let got = (v, [gx, f64::from(gy)]);
        check_grad("via_f32", F32_TOL, pd, got, via_f32(x, y), jvp, oracle);
    }
}

/// `f(x) = sqrt(x) cbrt(x) + cbrt(-x) / (1 + sqrt x)` on x > 0: the adjoints of `sqrt` and
/// `cbrt`, `x` used three times.
#[test]
fn roots_sqrt_cbrt() {
    for ([x], [dx]) in samples(5, [(0.1, 5.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(roots, (x,));
        let jvp = ad::jvp(roots, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| roots_d(x);
        check_grad(
            "roots",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            roots(x),
            jvp,
            oracle,
        );
    }
}

/// `f(x) = e^x - 2 * 2^x + (e^(x/2) - 1) x`: the adjoints of `exp`, `exp2`, `exp_m1`.
#[test]
fn exponentials_exp_exp2_exp_m1() {
    for ([x], [dx]) in samples(6, [(-3.0, 3.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(exps, (x,));
        let jvp = ad::jvp(exps, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| exps_d(x);
        check_grad(
            "exps",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            exps(x),
            jvp,
            oracle,
        );
    }
}

/// `f(x) = ln x + 2 ln(1 + x) - x log2 x + log10(x) / 3` on x > 0: the adjoints of `ln`,
/// `ln_1p`, `log2`, `log10`.
#[test]
fn logarithms_ln_ln_1p_log2_log10() {
    for ([x], [dx]) in samples(7, [(0.05, 10.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(logs, (x,));
        let jvp = ad::jvp(logs, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| logs_d(x);
        check_grad(
            "logs",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            logs(x),
            jvp,
            oracle,
        );
    }
}

/// `f(x, b) = log_b x + x log_b 3 + log_10 x` with an active base: `d log_b x / dx = 1 / (x ln b)`
/// and `d log_b x / db = -ln x / (b ln^2 b)`.
#[test]
fn logarithm_with_active_base() {
    for ([x, b], [dx, db]) in samples(8, [(0.1, 10.0), (1.5, 6.0)], |_| true) {
        let (v, (gx, gb)) = ad::value_and_grad(log_base, (x, b));
        let jvp = ad::jvp(log_base, (x, b), (dx, db)).1;
        let oracle = |[x, b]: [D; 2]| log_base_d(x, b);
        let (pd, primal) = (([x, b], [dx, db]), log_base(x, b));
        check_grad("log_base", DER_TOL, pd, (v, [gx, gb]), primal, jvp, oracle);
    }
}

/// `f(x, n) = x^n + x^3 - 2 x^-2 + x^0` with `n: i32` in -4..=5 (0 included): the adjoint of
/// `powi`, `n x^(n-1)`, and `NoTangent` for `n`.
#[test]
fn integer_powers_powi() {
    let mut ints = Rng(109);
    for ([x], [dx]) in samples(9, [(-2.5, 2.5)], |[x]| x.abs() > 0.3) {
        let n = ints.int(-4, 5);
        let (v, (gx, gn)) = ad::value_and_grad(powers, (x, n));
        assert_eq!(gn, ad::NoTangent);
        let jvp = ad::jvp(powers, (x, n), (dx, ad::NoTangent)).1;
        let oracle = |[x]: [D; 1]| powers_d(x, n);
        let (name, primal) = (format!("powers n={n}"), powers(x, n));
        check_grad(&name, DER_TOL, ([x], [dx]), (v, [gx]), primal, jvp, oracle);
    }
}

/// `f(x, p) = x^p + x^2.5 - 2^p x`: the adjoints of `powf`, `p x^(p-1)` to the base and
/// `x^p ln x` to the exponent, with each of them active or constant.
#[test]
fn real_powers_powf() {
    for ([x, p], [dx, dp]) in samples(10, [(0.2, 3.0), (-2.0, 2.0)], |_| true) {
        let (v, (gx, gp)) = ad::value_and_grad(powers_real, (x, p));
        let jvp = ad::jvp(powers_real, (x, p), (dx, dp)).1;
        let oracle = |[x, p]: [D; 2]| powers_real_d(x, p);
        let (pd, primal) = (([x, p], [dx, dp]), powers_real(x, p));
        check_grad(
            "powers_real",
            DER_TOL,
            pd,
            (v, [gx, gp]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(x) = sin x cos x + tan(x/2)`: the adjoints of `sin`, `cos`, `tan`.
#[test]
fn trigonometric_sin_cos_tan() {
    for ([x], [dx]) in samples(11, [(-2.5, 2.5)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(trig, (x,));
        let jvp = ad::jvp(trig, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| trig_d(x);
        check_grad(
            "trig",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            trig(x),
            jvp,
            oracle,
        );
    }
}

/// `f(x) = asin x + 2 acos x - atan 3x` on |x| < 0.95: the adjoints of `asin`, `acos`, `atan`.
#[test]
fn inverse_trigonometric_asin_acos_atan() {
    for ([x], [dx]) in samples(12, [(-0.95, 0.95)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(inverse_trig, (x,));
        let jvp = ad::jvp(inverse_trig, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| inverse_trig_d(x);
        let primal = inverse_trig(x);
        check_grad(
            "inverse_trig",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(y, x) = atan2(y, x) + atan2(2y, 1) + atan2(0.5, x)` in all four quadrants: the adjoints
/// of `atan2(y, x)`, `x / r^2` to `y` and `-y / r^2` to `x`, each operand active or constant.
#[test]
fn two_argument_arctangent_atan2() {
    let ok = |[y, x]: [f64; 2]| x * x + y * y > 0.1 && x.abs() > 0.05;
    for ([y, x], [dy, dx]) in samples(13, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let (v, (gy, gx)) = ad::value_and_grad(angle, (y, x));
        let jvp = ad::jvp(angle, (y, x), (dy, dx)).1;
        let oracle = |[y, x]: [D; 2]| angle_d(y, x);
        let (pd, primal) = (([y, x], [dy, dx]), angle(y, x));
        check_grad("angle", DER_TOL, pd, (v, [gy, gx]), primal, jvp, oracle);
    }
}

/// `f(x) = sinh x - cosh(x)/2 + x tanh 2x`: the adjoints of `sinh`, `cosh`, `tanh`.
#[test]
fn hyperbolic_sinh_cosh_tanh() {
    for ([x], [dx]) in samples(14, [(-3.0, 3.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(hyperbolic, (x,));
        let jvp = ad::jvp(hyperbolic, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| hyperbolic_d(x);
        let primal = hyperbolic(x);
        check_grad(
            "hyperbolic",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(x) = asinh x + 2 acosh x - atanh(1/x)` on x in [1.1, 4]: the adjoints of `asinh`,
/// `acosh`, `atanh`.
#[test]
fn inverse_hyperbolic_asinh_acosh_atanh() {
    for ([x], [dx]) in samples(15, [(1.1, 4.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(inverse_hyperbolic, (x,));
        let jvp = ad::jvp(inverse_hyperbolic, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| inverse_hyperbolic_d(x);
        let (pd, primal) = (([x], [dx]), inverse_hyperbolic(x));
        check_grad(
            "inverse_hyperbolic",
            DER_TOL,
            pd,
            (v, [gx]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(a, b) = hypot(a, b) + hypot(2a, 1) - hypot(3, b)` away from the origin: the adjoints of
/// `hypot(a, b)`, `(a, b) / hypot(a, b)`, each operand active or constant.
#[test]
fn hypotenuse_hypot() {
    let ok = |[a, b]: [f64; 2]| a * a + b * b > 0.01;
    for ([a, b], [da, db]) in samples(16, [(-3.0, 3.0), (-3.0, 3.0)], ok) {
        let (v, (ga, gb)) = ad::value_and_grad(hypotenuse, (a, b));
        let jvp = ad::jvp(hypotenuse, (a, b), (da, db)).1;
        let oracle = |[a, b]: [D; 2]| hypotenuse_d(a, b);
        let (pd, primal) = (([a, b], [da, db]), hypotenuse(a, b));
        check_grad(
            "hypotenuse",
            DER_TOL,
            pd,
            (v, [ga, gb]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(x) = 2|x| + sqrt|x^2 - 1| + 1/x` away from the kinks 0 and ±1: the adjoints of `abs`
/// (`sign x`) and `recip` (`-1/x^2`).
#[test]
fn absolute_value_and_reciprocal() {
    let ok = |[x]: [f64; 1]| x.abs() > 0.05 && (x * x - 1.0).abs() > 0.05;
    for ([x], [dx]) in samples(17, [(-3.0, 3.0)], ok) {
        let (v, (gx,)) = ad::value_and_grad(magnitude, (x,));
        let jvp = ad::jvp(magnitude, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| magnitude_d(x);
        let primal = magnitude(x);
        check_grad(
            "magnitude",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(x) = floor x + 2 ceil x + round x - round_ties_even x + 3 trunc x + signum x` is piecewise
/// constant: its adjoint is exactly 0 (not merely small) at every point between the jumps.
#[test]
fn piecewise_constant_functions_have_zero_derivative() {
    let ok = |[x]: [f64; 1]| off_grid(x, 0.5) > 1e-6;
    for ([x], [dx]) in samples(18, [(-5.0, 5.0)], ok) {
        let (v, (gx,)) = ad::value_and_grad(steps, (x,));
        assert_eq!(gx, 0.0, "steps at {x}: adjoint {gx:e} is not exactly 0");
        let jvp = ad::jvp(steps, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| c(steps_value(x.re));
        check_grad(
            "steps",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            steps(x),
            jvp,
            oracle,
        );
    }
}

/// `f(x) = x floor x + fract(x) ceil x` between integers: `fract' = 1`, `floor' = ceil' = 0`,
/// so the adjoint is `floor x + ceil x`.
#[test]
fn fractional_part_fract() {
    let ok = |[x]: [f64; 1]| off_grid(x, 1.0) > 1e-6;
    for ([x], [dx]) in samples(19, [(-5.0, 5.0)], ok) {
        let (v, (gx,)) = ad::value_and_grad(stepped_slope, (x,));
        let jvp = ad::jvp(stepped_slope, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| stepped_slope_d(x);
        let primal = stepped_slope(x);
        check_grad(
            "stepped_slope",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            primal,
            jvp,
            oracle,
        );
        // the same adjoint written out exactly
        let exact = x.floor() + x.ceil();
        assert!(
            close(gx, exact, DER_TOL),
            "stepped_slope {x}: {gx:e} vs {exact:e}"
        );
    }
}

/// `f(a, b, c) = fma(a, b, c) + fma(a, 2, 1) fma(2, b, c)`: the adjoints of `mul_add`,
/// `(b, a, 1)`, with active and constant operands in each position.
#[test]
fn fused_multiply_add_mul_add() {
    for ([a, b, cc], [da, db, dc]) in samples(20, [(-2.0, 2.0); 3], |_| true) {
        let (v, (ga, gb, gc)) = ad::value_and_grad(fused, (a, b, cc));
        let jvp = ad::jvp(fused, (a, b, cc), (da, db, dc)).1;
        let oracle = |[a, b, cc]: [D; 3]| fused_d(a, b, cc);
        let (pd, primal) = (([a, b, cc], [da, db, dc]), fused(a, b, cc));
        check_grad("fused", DER_TOL, pd, (v, [ga, gb, gc]), primal, jvp, oracle);
    }
}

/// `f(x, y) = 2 max(x, y) + min(x, y) - max(x, y/2) min(x, 1)` away from ties: the adjoint of
/// `max`/`min` goes all to the argument selected.
#[test]
fn minimum_and_maximum() {
    let ok = |[x, y]: [f64; 2]| {
        (x - y).abs() > 1e-3 && (x - 0.5 * y).abs() > 1e-3 && (x - 1.0).abs() > 1e-3
    };
    for ([x, y], [dx, dy]) in samples(21, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let (v, (gx, gy)) = ad::value_and_grad(extremes, (x, y));
        let jvp = ad::jvp(extremes, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| extremes_d(x, y);
        let (pd, primal) = (([x, y], [dx, dy]), extremes(x, y));
        check_grad("extremes", DER_TOL, pd, (v, [gx, gy]), primal, jvp, oracle);
    }
}

/// `f(x, lo, hi) = x clamp(x, lo, hi) + clamp(2x, -1, 1)` away from the bounds: the adjoint of
/// `clamp` goes to `x` inside the interval and to the bound outside it.
#[test]
fn clamp_to_an_interval() {
    let ok = |[x, lo, hi]: [f64; 3]| {
        (x - lo).abs() > 1e-3 && (x - hi).abs() > 1e-3 && ((2.0 * x).abs() - 1.0).abs() > 1e-3
    };
    let ranges = [(-2.0, 2.0), (-1.5, -0.2), (0.2, 1.5)];
    for ([x, lo, hi], [dx, dlo, dhi]) in samples(22, ranges, ok) {
        let (v, (gx, glo, ghi)) = ad::value_and_grad(clamped, (x, lo, hi));
        let jvp = ad::jvp(clamped, (x, lo, hi), (dx, dlo, dhi)).1;
        let oracle = |[x, lo, hi]: [D; 3]| clamped_d(x, lo, hi);
        let (pd, primal) = (([x, lo, hi], [dx, dlo, dhi]), clamped(x, lo, hi));
        check_grad(
            "clamped",
            DER_TOL,
            pd,
            (v, [gx, glo, ghi]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `f(x, s) = 2 copysign(x, s) + x copysign(s, x) + copysign(x, -1)` away from 0: the adjoint of
/// `copysign(x, s)` is `sign(x) sign(s)` to `x` and 0 to `s`.
#[test]
fn copy_sign_copysign() {
    let ok = |[x, s]: [f64; 2]| x.abs() > 1e-3 && s.abs() > 1e-3;
    for ([x, s], [dx, ds]) in samples(23, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let (v, (gx, gs)) = ad::value_and_grad(with_sign, (x, s));
        let jvp = ad::jvp(with_sign, (x, s), (dx, ds)).1;
        let oracle = |[x, s]: [D; 2]| with_sign_d(x, s);
        let (pd, primal) = (([x, s], [dx, ds]), with_sign(x, s));
        check_grad("with_sign", DER_TOL, pd, (v, [gx, gs]), primal, jvp, oracle);
    }
}

/// `f(x) = x.to_degrees() / 90 + 60 sin(x.to_radians())`: the adjoints of `to_degrees`
/// (`180/pi`) and `to_radians` (`pi/180`).
#[test]
fn angle_units_to_degrees_to_radians() {
    for ([x], [dx]) in samples(24, [(-10.0, 10.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(angles, (x,));
        let jvp = ad::jvp(angles, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| angles_d(x);
        check_grad(
            "angles",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            angles(x),
            jvp,
            oracle,
        );
    }
}

/// `f(x, y) = sqrt x + max(x, y) - min(x, 2) atan2(y, x) + hypot(x, y) + x^3 + fma(x, y, 1) +
/// clamp(y, -1/2, 1/2) + e^-x + x^y + |y|`, every call in the `f64::method(a, ..)` form: the
/// same adjoints as the method form.
#[test]
fn primitives_called_as_associated_functions() {
    let ok = |[x, y]: [f64; 2]| {
        (x - y).abs() > 1e-3
            && (x - 2.0).abs() > 1e-3
            && (y.abs() - 0.5).abs() > 1e-3
            && y.abs() > 1e-3
    };
    for ([x, y], [dx, dy]) in samples(25, [(0.2, 3.0), (-2.0, 2.0)], ok) {
        let (v, (gx, gy)) = ad::value_and_grad(ufcs, (x, y));
        let jvp = ad::jvp(ufcs, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| ufcs_d(x, y);
        let pd = ([x, y], [dx, dy]);
        check_grad("ufcs", DER_TOL, pd, (v, [gx, gy]), ufcs(x, y), jvp, oracle);
    }
}

/// `f(x) = pi x^2 + e^x - x / tau + eps + sqrt 2`, the constants written as paths: the adjoint
/// `2 pi x + e^x - 1/tau`, constants contributing nothing.
#[test]
fn named_constants() {
    for ([x], [dx]) in samples(26, [(-3.0, 3.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(constants, (x,));
        let jvp = ad::jvp(constants, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| constants_d(x);
        let primal = constants(x);
        check_grad(
            "constants",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `let`, `let` with a type, `let mut`, and the compound assignments `+= -= *= /= %=` (and `+=`
/// on an integer): the adjoint flows back through every reassignment of `acc` to the values it
/// held at each point, and `a = x y`, read twice, collects both contributions.
#[test]
fn let_bindings_and_compound_assignment() {
    let ok = |[x, y]: [f64; 2]| off_grid(accumulate_before_rem(x, y), 4.0) > 1e-6;
    for ([x, y], [dx, dy]) in samples(27, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let (v, (gx, gy)) = ad::value_and_grad(accumulate, (x, y));
        let jvp = ad::jvp(accumulate, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| accumulate_d(x, y);
        let (pd, primal) = (([x, y], [dx, dy]), accumulate(x, y));
        check_grad(
            "accumulate",
            DER_TOL,
            pd,
            (v, [gx, gy]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// `if`/`else` as statements (with and without `else`) and as an `else if` expression chain:
/// the reverse sweep replays the branches taken, so the adjoint is that of the branch taken,
/// away from the switching lines; both signs of `y` reach every branch.
#[test]
fn if_else_statements_and_expressions() {
    let ok = |[x, y]: [f64; 2]| {
        x.abs() > 1e-3 && (x - y).abs() > 1e-3 && (x + y).abs() > 1e-3 && (y - 1.0).abs() > 1e-3
    };
    let oracle = |[x, y]: [D; 2]| branches_d(x, y);
    for (seed, ys) in [(28, (0.05, 2.0)), (128, (-2.0, -0.05))] {
        for ([x, y], [dx, dy]) in samples(seed, [(-2.0, 2.0), ys], ok) {
            let (v, (gx, gy)) = ad::value_and_grad(branches, (x, y));
            let jvp = ad::jvp(branches, (x, y), (dx, dy)).1;
            let (pd, primal) = (([x, y], [dx, dy]), branches(x, y));
            check_grad("branches", DER_TOL, pd, (v, [gx, gy]), primal, jvp, oracle);
        }
    }
}

/// Early `return` from inside an `if`, and a `let r: f64;` initialised in both branches: the
/// adjoint of `x y` for x < -1, else of `sqrt y + x` (y > 0) or `x sqrt(-y) + x` (y < 0).
#[test]
fn early_return_and_deferred_initialisation() {
    let ok = |[x, y]: [f64; 2]| (x + 1.0).abs() > 1e-3 && y.abs() > 0.05;
    for ([x, y], [dx, dy]) in samples(29, [(-3.0, 2.0), (-2.0, 2.0)], ok) {
        let (v, (gx, gy)) = ad::value_and_grad(early_return, (x, y));
        let jvp = ad::jvp(early_return, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| early_return_d(x, y);
        let (pd, primal) = (([x, y], [dx, dy]), early_return(x, y));
        check_grad(
            "early_return",
            DER_TOL,
            pd,
            (v, [gx, gy]),
            primal,
            jvp,
            oracle,
        );
    }
}

/// A tuple result `(hypot(x, y), atan2(y, x))` through `ad::vjp`: the value is the function's
/// own, each unit output adjoint pulls back to a row of the Jacobian
/// `[[x, y] / r, [-y, x] / r^2]`, and `pullback(w) . v == w . jvp(v)`, repeatably.
#[test]
fn tuple_result() {
    let ok = |[x, y]: [f64; 2]| x * x + y * y > 0.1 && x.abs() > 0.05;
    let mut ws = Rng(130);
    for ([x, y], [dx, dy]) in samples(30, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let (value, pullback) = ad::vjp(polar, (x, y));
        let primal = polar(x, y);
        assert_eq!(
            (value.0.to_bits(), value.1.to_bits()),
            (primal.0.to_bits(), primal.1.to_bits()),
            "polar at {x}, {y}: vjp value {value:?}, the function's own {primal:?}"
        );
        let pullback = |[wr, wt]: [f64; 2]| {
            let (gx, gy) = pullback((wr, wt));
            [gx, gy]
        };
        let (dr, dt) = ad::jvp(polar, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| {
            let (r, t) = polar_d(x, y);
            [r, t]
        };
        let (pd, w) = (([x, y], [dx, dy]), adjoints(&mut ws));
        check_pullback("polar", DER_TOL, pd, w, pullback, [dr, dt], oracle);
    }
}

/// A tuple result with an integer element, `(x - floor x, floor x as i32, x^2)`, through
/// `ad::vjp`: the integer element takes the adjoint `NoTangent`, and the pullback of
/// `(wa, NoTangent, wb)` is `wa + 2 x wb`.
#[test]
fn tuple_result_with_an_integer_element() {
    let ok = |[x]: [f64; 1]| off_grid(x, 1.0) > 1e-6;
    let mut ws = Rng(131);
    for ([x], [dx]) in samples(31, [(-5.0, 5.0)], ok) {
        let (value, pullback) = ad::vjp(split, (x,));
        let primal = split(x);
        assert_eq!(
            (value.0.to_bits(), value.1, value.2.to_bits()),
            (primal.0.to_bits(), primal.1, primal.2.to_bits()),
            "split at {x}: vjp value {value:?}, the function's own {primal:?}"
        );
        let pullback = |[wa, wb]: [f64; 2]| {
            let (gx,) = pullback((wa, ad::NoTangent, wb));
            [gx]
        };
        let (da, dk, db) = ad::jvp(split, (x,), (dx,)).1;
        assert_eq!(dk, ad::NoTangent);
        let oracle = |[x]: [D; 1]| [x - c(x.re.floor()), x * x];
        let w = adjoints(&mut ws);
        check_pullback("split", DER_TOL, ([x], [dx]), w, pullback, [da, db], oracle);
    }
}

/// Calls from one `#[differentiable]` function to others, nested and with a tuple result:
/// `f(x, y) = softplus(x y) + r cos t + g(y, 3) softplus(softplus x)` with `(r, t) = polar(x, y)`
/// and `g = scaled_by_int`: the callees' reverse sweeps run inside the caller's on one tape.
/// Also `ad::vjp` of the scalar `composed`: its pullback at 1 is the gradient, bit for bit.
#[test]
fn calls_between_differentiable_functions() {
    let ok = |[x, y]: [f64; 2]| x * x + y * y > 0.1 && x.abs() > 0.05;
    for ([x, y], [dx, dy]) in samples(32, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let (v, (gx, gy)) = ad::value_and_grad(composed, (x, y));
        let jvp = ad::jvp(composed, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| composed_d(x, y);
        let (pd, primal) = (([x, y], [dx, dy]), composed(x, y));
        check_grad("composed", DER_TOL, pd, (v, [gx, gy]), primal, jvp, oracle);
        let (value, pullback) = ad::vjp(composed, (x, y));
        assert_eq!(value.to_bits(), primal.to_bits(), "composed at {x}, {y}");
        let (px, py) = pullback(1.0);
        assert_eq!(
            (px.to_bits(), py.to_bits()),
            (gx.to_bits(), gy.to_bits()),
            "composed at {x}, {y}: pullback(1) = {:?}, grad = {:?}",
            (px, py),
            (gx, gy)
        );
    }
    for ([x], [dx]) in samples(33, [(-10.0, 10.0)], |_| true) {
        let (v, (gx,)) = ad::value_and_grad(softplus, (x,));
        let jvp = ad::jvp(softplus, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| softplus_d(x);
        check_grad(
            "softplus",
            DER_TOL,
            ([x], [dx]),
            (v, [gx]),
            softplus(x),
            jvp,
            oracle,
        );
    }
}

/// An integer parameter that decides the branch: `f(x, k) = x^k` for even k, `k x` for odd k;
/// the adjoint of the branch taken, `NoTangent` for `k`.
#[test]
fn integer_parameter_in_control_flow() {
    let mut ints = Rng(134);
    for ([x], [dx]) in samples(34, [(0.3, 2.0)], |_| true) {
        let k = ints.int(-4, 6);
        let (v, (gx, gk)) = ad::value_and_grad(int_branch, (x, k));
        assert_eq!(gk, ad::NoTangent);
        let jvp = ad::jvp(int_branch, (x, k), (dx, ad::NoTangent)).1;
        let oracle = |[x]: [D; 1]| int_branch_d(x, k);
        let (name, primal) = (format!("int_branch k={k}"), int_branch(x, k));
        check_grad(&name, DER_TOL, ([x], [dx]), (v, [gx]), primal, jvp, oracle);
    }
}

/// f32: `f(x, y) = sin(x y) + e^x / (1 + y^2) - ln(x^2 + 1) cos y + tanh x`: the f32 adjoints of
/// the operators and of `sin exp ln cos tanh`, at f32 tolerance.
#[test]
fn f32_smooth_function() {
    for ([x, y], [dx, dy]) in samples32(35, [(-2.0, 2.0), (-2.0, 2.0)], |_| true) {
        let (v, (gx, gy)) = ad::value_and_grad(smooth32, (x, y));
        let jvp = ad::jvp(smooth32, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| smooth32_d(x, y);
        let pd = (wide([x, y]), wide([dx, dy]));
        let got = (f64::from(v), wide([gx, gy]));
        let primal = f64::from(smooth32(x, y));
        check_grad("smooth32", F32_TOL, pd, got, primal, f64::from(jvp), oracle);
    }
}

/// f32: `f(x, p, n) = x^p + sqrt x cbrt x - x^3 + hypot(x, p) + n x^n` with `n: i32`: the f32
/// adjoints of `powf powi sqrt cbrt hypot`, `NoTangent` for `n`.
#[test]
fn f32_powers_and_roots() {
    let mut ints = Rng(136);
    for ([x, p], [dx, dp]) in samples32(36, [(0.2, 3.0), (-2.0, 2.0)], |_| true) {
        let n = ints.int(-3, 4);
        let (v, (gx, gp, gn)) = ad::value_and_grad(powers32, (x, p, n));
        assert_eq!(gn, ad::NoTangent);
        let jvp = ad::jvp(powers32, (x, p, n), (dx, dp, ad::NoTangent)).1;
        let oracle = |[x, p]: [D; 2]| powers32_d(x, p, n);
        let pd = (wide([x, p]), wide([dx, dp]));
        let got = (f64::from(v), wide([gx, gp]));
        let (name, primal) = (format!("powers32 n={n}"), f64::from(powers32(x, p, n)));
        check_grad(&name, F32_TOL, pd, got, primal, f64::from(jvp), oracle);
    }
}

/// f32: `f(x, y) = max(x, y) - min(x, 1/2) + clamp(x, -1, 1) |y| + floor x + fract y` away from
/// the kinks and jumps: the f32 adjoints of the piecewise functions.
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
        let (v, (gx, gy)) = ad::value_and_grad(piecewise32, (x, y));
        let jvp = ad::jvp(piecewise32, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| piecewise32_d(x, y);
        let pd = (wide([x, y]), wide([dx, dy]));
        let got = (f64::from(v), wide([gx, gy]));
        let primal = f64::from(piecewise32(x, y));
        check_grad(
            "piecewise32",
            F32_TOL,
            pd,
            got,
            primal,
            f64::from(jvp),
            oracle,
        );
    }
}

/// f32: the sum of `asin acos atan sinh cosh asinh acosh atanh exp2 exp_m1 ln_1p log2 log10 log
/// tan recip to_degrees to_radians ceil round trunc signum copysign mul_add` at x in (0.2, 0.8),
/// accumulated with `+=`: each f32 adjoint rule at once.
#[test]
fn f32_every_other_primitive() {
    let ok = |[x]: [f64; 1]| (x - 0.5).abs() > 1e-3;
    for ([x], [dx]) in samples32(38, [(0.2, 0.8)], ok) {
        let (v, (gx,)) = ad::value_and_grad(many32, (x,));
        let jvp = ad::jvp(many32, (x,), (dx,)).1;
        let oracle = |[x]: [D; 1]| many32_d(x);
        let pd = (wide([x]), wide([dx]));
        let got = (f64::from(v), wide([gx]));
        let primal = f64::from(many32(x));
        check_grad("many32", F32_TOL, pd, got, primal, f64::from(jvp), oracle);
    }
}

/// f32: a tuple result with `let mut` and an `if` through `ad::vjp` (rows of the Jacobian,
/// `pullback(w) . v == w . jvp(v)`, repeatable), and a caller that destructures it and calls
/// another f32 function, with an `f32 as f64 as f32` round trip, through `ad::value_and_grad`.
#[test]
fn f32_tuple_result_and_calls() {
    let ok = |[x, y]: [f64; 2]| {
        let r2 = x * x + y * y;
        r2 > 0.1 && x.abs() > 0.05 && (r2 - 1.0).abs() > 1e-3
    };
    let mut ws = Rng(139);
    for ([x, y], [dx, dy]) in samples32(39, [(-2.0, 2.0), (-2.0, 2.0)], ok) {
        let pd = (wide([x, y]), wide([dx, dy]));
        let (value, pullback) = ad::vjp(polar32, (x, y));
        let primal = polar32(x, y);
        assert_eq!(
            (value.0.to_bits(), value.1.to_bits()),
            (primal.0.to_bits(), primal.1.to_bits()),
            "polar32 at {x}, {y}: vjp value {value:?}, the function's own {primal:?}"
        );
        // the output adjoints are f32 values widened, so narrowing them is exact
        let pullback = |[wr, wt]: [f64; 2]| {
            let (gx, gy) = pullback((wr as f32, wt as f32));
            wide([gx, gy])
        };
        let (dr, dt) = ad::jvp(polar32, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| {
            let (r, t) = polar32_d(x, y);
            [r, t]
        };
        let (jvp, w) = (wide([dr, dt]), adjoints(&mut ws));
        check_pullback("polar32", F32_TOL, pd, w, pullback, jvp, oracle);

        let (v, (gx, gy)) = ad::value_and_grad(caller32, (x, y));
        let jvp = ad::jvp(caller32, (x, y), (dx, dy)).1;
        let oracle = |[x, y]: [D; 2]| caller32_d(x, y);
        let got = (f64::from(v), wide([gx, gy]));
        let primal = f64::from(caller32(x, y));
        check_grad("caller32", F32_TOL, pd, got, primal, f64::from(jvp), oracle);
    }
}

/// `abs`, `max` and `min` at their kinks, reverse against forward bit for bit: `abs'(0) = 0`
/// from either zero (and `±1` either side); `max`/`min` on a tie give half to each argument,
/// also for the tie `0.0` and `-0.0` and in f32; distinct arguments give all to the one
/// selected; with a NaN, all to the number, which they return.
#[test]
fn conventions_abs_max_min() {
    for (x, want) in [(0.0, 0.0), (-0.0, 0.0), (2.0, 1.0), (-2.0, -1.0)] {
        let (g,) = ad::grad(abs1, (x,));
        same_bits(&format!("abs at {x}"), [g], jvp_grad1(abs1, (x,)), [want]);
    }
    let cases = [
        ((1.5, 1.5), [0.5, 0.5], [0.5, 0.5]),
        ((0.0, -0.0), [0.5, 0.5], [0.5, 0.5]),
        ((2.0, 1.0), [1.0, 0.0], [0.0, 1.0]),
        ((f64::NAN, 2.0), [0.0, 1.0], [0.0, 1.0]),
        ((2.0, f64::NAN), [1.0, 0.0], [1.0, 0.0]),
    ];
    for (p, want_max, want_min) in cases {
        let (ga, gb) = ad::grad(max2, p);
        same_bits(
            &format!("max at {p:?}"),
            [ga, gb],
            jvp_grad2(max2, p),
            want_max,
        );
        let (ga, gb) = ad::grad(min2, p);
        same_bits(
            &format!("min at {p:?}"),
            [ga, gb],
            jvp_grad2(min2, p),
            want_min,
        );
    }
    let (ga, gb) = ad::grad(max32, (1.5, 1.5));
    let fa = ad::jvp(max32, (1.5, 1.5), (1.0, 0.0)).1;
    let fb = ad::jvp(max32, (1.5, 1.5), (0.0, 1.0)).1;
    assert_eq!((ga.to_bits(), gb.to_bits()), (fa.to_bits(), fb.to_bits()));
    assert_eq!((ga, gb), (0.5, 0.5), "f32 max on a tie");
}

/// `clamp(x, lo, hi)` on [-1, 2], reverse against forward bit for bit: at either bound (and
/// with `lo == hi`) the adjoint goes to `x`, as inside; below the interval to `lo`, above it to
/// `hi`.
#[test]
fn conventions_clamp() {
    for (p, want, why) in [
        ((-1.0, -1.0, 2.0), [1.0, 0.0, 0.0], "at lo: to x"),
        ((2.0, -1.0, 2.0), [1.0, 0.0, 0.0], "at hi: to x"),
        ((0.5, -1.0, 2.0), [1.0, 0.0, 0.0], "inside: to x"),
        ((-3.0, -1.0, 2.0), [0.0, 1.0, 0.0], "below: to lo"),
        ((3.0, -1.0, 2.0), [0.0, 0.0, 1.0], "above: to hi"),
        ((1.0, 1.0, 1.0), [1.0, 0.0, 0.0], "lo == hi: to x"),
    ] {
        let (gx, glo, ghi) = ad::grad(clamp3, p);
        let what = format!("clamp at {p:?}, {why}");
        same_bits(&what, [gx, glo, ghi], jvp_grad3(clamp3, p), want);
    }
}

/// `floor ceil round round_ties_even trunc signum fract` at their jumps (integers, halves, both
/// zeros), through `ad::vjp` of a 7-tuple: each unit output adjoint pulls back to exactly the
/// forward tangent of that element (0 for the piecewise-constant ones, 1 for `fract`), and
/// random output adjoints pull back to exactly the `fract` one.
#[test]
fn conventions_piecewise_constant_at_jumps() {
    let mut ws = Rng(140);
    for x in [-2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0] {
        let (value, pullback) = ad::vjp(jumps, (x,));
        assert_eq!(value, jumps(x), "values at {x}");
        let (t0, t1, t2, t3, t4, t5, t6) = ad::jvp(jumps, (x,), (1.0,)).1;
        let fwd = [t0, t1, t2, t3, t4, t5, t6];
        assert_eq!(fwd, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], "forward at {x}");
        let rev: [f64; 7] = std::array::from_fn(|j| {
            let e = |k: usize| if k == j { 1.0 } else { 0.0 };
            pullback((e(0), e(1), e(2), e(3), e(4), e(5), e(6))).0
        });
        same_bits(&format!("jumps at {x}"), rev, fwd, fwd);
        let w: [f64; 7] = adjoints(&mut ws);
        let (g,) = pullback((w[0], w[1], w[2], w[3], w[4], w[5], w[6]));
        assert_eq!(g, w[6], "jumps at {x}: pullback of {w:?}");
    }
}

/// `copysign(x, s)`, reverse against forward bit for bit: the adjoint to `x` is `±1` by the sign
/// bits of `x` and `s` (also of `s = -0.0`), and to `s` it is 0.
#[test]
fn conventions_copysign() {
    for (p, want) in [
        ((2.0, -1.0), [-1.0, 0.0]),
        ((2.0, 1.0), [1.0, 0.0]),
        ((-2.0, 1.0), [-1.0, 0.0]),
        ((-2.0, -1.0), [1.0, 0.0]),
        ((2.0, -0.0), [-1.0, 0.0]),
        ((-2.0, -0.0), [1.0, 0.0]),
        ((2.0, 0.0), [1.0, 0.0]),
    ] {
        let (gx, gs) = ad::grad(copysign2, p);
        let what = format!("copysign at {p:?}");
        same_bits(&what, [gx, gs], jvp_grad2(copysign2, p), want);
    }
}

/// `hypot` and `atan2` at the origin, from every combination of signed zeros: reverse gives 0
/// to both arguments, bit for bit what forward gives; and away from it the textbook adjoints
/// (`hypot(3, 4)`: `(3/5, 4/5)`; `atan2(0, 2)`: `(1/2, 0)`; `atan2(4, 0)`: `(0, -1/4)`).
#[test]
fn conventions_hypot_and_atan2_at_the_origin() {
    for p in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)] {
        let (ga, gb) = ad::grad(hypot2, p);
        same_bits(
            &format!("hypot at {p:?}"),
            [ga, gb],
            jvp_grad2(hypot2, p),
            [0.0; 2],
        );
        let (gy, gx) = ad::grad(atan2_2, p);
        same_bits(
            &format!("atan2 at {p:?}"),
            [gy, gx],
            jvp_grad2(atan2_2, p),
            [0.0; 2],
        );
    }
    // away from the origin, equal as numbers: where a partial is exactly 0 its sign may differ,
    // as `ad::jvp` along a unit vector adds `+0` times the other partial (`-0 + 0 = +0`)
    let (ga, gb) = ad::grad(hypot2, (3.0, 4.0));
    assert_eq!([ga, gb], jvp_grad2(hypot2, (3.0, 4.0)), "hypot at (3, 4)");
    assert_eq!([ga, gb], [0.6, 0.8], "hypot at (3, 4), by hand");
    for (p, want) in [((0.0, 2.0), [0.5, 0.0]), ((4.0, 0.0), [0.0, -0.25])] {
        let (gy, gx) = ad::grad(atan2_2, p);
        assert_eq!([gy, gx], jvp_grad2(atan2_2, p), "atan2 at {p:?}");
        assert_eq!([gy, gx], want, "atan2 at {p:?}, by hand");
    }
}

/// `powi` and `powf` where the textbook formula breaks, reverse against forward bit for bit:
/// `powi(x, 0)` has 0 even at 0; `powi(0, 1)` has 1 and `powi(0, 2)` 0. `powf(x, p)` has 0 for `x`
/// when `p = 0` (and `ln 2` for `p` at `x = 2`); 0 for `p` when `x^p = 0` or `x <= 0`; at a
/// negative base `p x^(p-1)` for `x`, not spoiled by `ln(-2) = NaN`; and 0 for both at `0^0`.
#[test]
fn conventions_powi_and_powf() {
    for (x, n, want) in [(0.0, 0, 0.0), (0.0, 1, 1.0), (0.0, 2, 0.0), (2.0, 0, 0.0)] {
        let (gx, gn) = ad::grad(powi2, (x, n));
        assert_eq!(gn, ad::NoTangent);
        let fwd = ad::jvp(powi2, (x, n), (1.0, ad::NoTangent)).1;
        same_bits(&format!("powi({x}, {n})"), [gx], [fwd], [want]);
    }
    for (p, want) in [
        ((2.0, 0.0), [0.0, 2.0_f64.ln()]),
        ((0.0, 2.0), [0.0, 0.0]),
        ((-2.0, 2.0), [-4.0, 0.0]),
        ((-2.0, 3.0), [12.0, 0.0]),
        ((0.0, 0.0), [0.0, 0.0]),
    ] {
        let (gx, gp) = ad::grad(powf2, p);
        let what = format!("powf at {p:?}");
        same_bits(&what, [gx, gp], jvp_grad2(powf2, p), want);
    }
}
