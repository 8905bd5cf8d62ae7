//! Two shortcuts of the reverse sweep, and the programs that would catch them being taken where
//! they must not be.
//!
//! - A product with a finite float literal, or a quotient by a nonzero one, passes its adjoint on
//!   without testing it for zero. Where the factor is not such a literal (a path constant that is
//!   infinite, a product of literals that overflows, a divisor that is zero, or zero as an `f32`),
//!   an exactly zero adjoint must still be skipped: the gradient of a value the function does not
//!   use is 0, not `0 * inf = NaN`.
//! - Before replaying a loop, the reverse sweep reads, at the last iteration's index, the slice
//!   elements every iteration reads at the loop variable plus a literal. A read under an `if`, or
//!   a loop that runs no iteration, must not be read there: it would panic where the function did
//!   not.
//!
//! - `sin`, `cos`, `sinh` and `cosh` keep their partial in the record, computed in the forward
//!   sweep, instead of their value: checked in loops, through repeated pullbacks, and with a zero
//!   adjoint where the partial is infinite.
//!
//! Derivatives are checked against central finite differences (see `fd_check` for h and the
//! tolerance) or, for the zero-adjoint cases, against the exact value 0 or the textbook partial.

#![allow(clippy::needless_range_loop)]

use ad::differentiable;

#[macro_use]
mod fd_check;

// ---- zero adjoints through products and quotients ----

#[differentiable]
fn times_infinity(x: f64, c: f64) -> f64 {
    let y = x * f64::INFINITY;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn times_overflow(x: f64, c: f64) -> f64 {
    let y = x * (1e300 * 1e300);
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn over_zero(x: f64, c: f64) -> f64 {
    let y = x / 0.0;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn over_tiny(x: f32, c: f32) -> f32 {
    // Zero as an f32.
    let y = x / 1e-50;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn times_literals(x: f64, c: f64) -> f64 {
    let k = 3.0;
    let y = (x * k) / 2.0 * 1.5e2;
    if c > 0.0 { y } else { 1.0 }
}

/// The adjoint of `x` from `value_and_grad` and from `vjp`.
fn both<F>(f: F, x: f64, c: f64) -> [f64; 2]
where
    F: ad::Function<(f64, f64), Output = f64, Grads = (f64, f64)> + Copy,
{
    [
        ad::value_and_grad(f, (x, c)).1.0,
        (ad::vjp(f, (x, c)).1)(1.0).0,
    ]
}

#[test]
fn an_unused_product_with_a_non_finite_factor_contributes_zero() {
    // Each function by name: in a release build two of them compile to the same code, and a
    // call through a pointer to that code is ambiguous (see the README).
    for g in both(times_infinity, 0.7, -1.0)
        .into_iter()
        .chain(both(times_overflow, 0.7, -1.0))
        .chain(both(over_zero, 0.7, -1.0))
    {
        assert_eq!(g, 0.0, "the product is not used; its partial is infinite");
    }
    let g32 = ad::value_and_grad(over_tiny, (0.7f32, -1.0f32)).1.0;
    assert_eq!(g32, 0.0, "1e-50 is zero as an f32");
}

#[test]
fn a_product_with_finite_literals_passes_its_adjoint_on() {
    // Unused: zero, from a zero adjoint times finite literals.
    for g in both(times_literals, 0.7, -1.0) {
        assert_eq!(g, 0.0);
    }
    // Used: the textbook partial 3 / 2 * 150 = 225.
    for g in both(times_literals, 0.7, 1.0) {
        assert!((g - 225.0).abs() <= 1e-12, "{g}");
    }
    // And the infinite factors, used, give their infinite partials.
    assert_eq!(both(times_infinity, 0.7, 1.0), [f64::INFINITY; 2]);
    assert_eq!(both(over_zero, 0.7, 1.0), [f64::INFINITY; 2]);
}

// ---- zero adjoints through products of two values ----
//
// A product of two values takes its adjoint without a branch: each partial is -0 (what adding
// nothing gives) where the adjoint is zero, whatever the factor. The factor is infinite here.

#[differentiable]
fn unused_product(x: f64, y: f64, c: f64) -> f64 {
    let p = x * y;
    if c > 0.0 { p } else { 1.0 }
}

#[test]
fn an_unused_product_of_two_values_contributes_zero() {
    let (_, (gx, gy, _)) = ad::value_and_grad(unused_product, (0.7, f64::INFINITY, -1.0));
    assert_eq!(gx.to_bits(), 0.0f64.to_bits(), "{gx}");
    assert_eq!(gy.to_bits(), 0.0f64.to_bits(), "{gy}");
    let (gx, gy, _) = (ad::vjp(unused_product, (0.7, f64::INFINITY, -1.0)).1)(1.0);
    assert_eq!((gx, gy), (0.0, 0.0));
    // Used, the textbook partials: y and x.
    let (_, (gx, gy, _)) = ad::value_and_grad(unused_product, (0.7, -2.5, 1.0));
    assert_eq!((gx, gy), (-2.5, 0.7));
}

/// `exp(-a_i b_i)` is 0 where `b_i` is infinite: its adjoint reaches the product as zero.
#[differentiable]
fn decays(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += (-(a[i] * b[i])).exp();
    }
    s
}

#[test]
fn a_zero_adjoint_in_a_loop_meets_an_infinite_factor() {
    let a = [0.5, 1.0, -0.3];
    let b = [0.8, f64::INFINITY, 1.7];
    // The caller's buffers hold values already: where the adjoint is zero, they keep them bit
    // for bit, as if the product had been skipped (-0 is what adding nothing gives).
    let mut a_bar = [0.25, -0.0, 1.5];
    let mut b_bar = [0.0, 2.0, -0.0];
    let (v, _) = ad::vjp_into(
        decays,
        (&a[..], &b[..]),
        (&mut a_bar[..], &mut b_bar[..]),
        1.0,
    );
    assert_eq!(v, (-0.4f64).exp() + (0.51f64).exp());
    assert_eq!(a_bar[1].to_bits(), (-0.0f64).to_bits());
    assert_eq!(b_bar[1].to_bits(), 2.0f64.to_bits());
    // Elsewhere the textbook partials: -b_i exp(-a_i b_i) and -a_i exp(-a_i b_i), added.
    for i in [0, 2] {
        let e = (-(a[i] * b[i])).exp();
        let (a0, b0) = ([0.25, -0.0, 1.5][i], [0.0, 2.0, -0.0][i]);
        assert!(
            (a_bar[i] - (a0 - b[i] * e)).abs() <= 1e-15,
            "{i}: {}",
            a_bar[i]
        );
        assert!(
            (b_bar[i] - (b0 - a[i] * e)).abs() <= 1e-15,
            "{i}: {}",
            b_bar[i]
        );
    }
    // The gradient from zero buffers.
    let (_, (ga, gb)) = ad::value_and_grad(decays, (&a[..], &b[..]));
    assert_eq!((ga[1], gb[1]), (0.0, 0.0));
    assert!(ga.iter().chain(&gb).all(|g| g.is_finite()));
}

// ---- reads at the last iteration's index ----

#[differentiable]
fn window(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n - 2 {
        s += x[i] * x[i + 1] + x[i + 2].sin();
    }
    s
}
probe!(
    window_reads_three_elements,
    window,
    [0.3, -1.2, 0.8, 2.0, 0.1]
);
probe!(window_without_iterations, window, [0.3, -1.2]);

#[differentiable]
fn from_k(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in k..n - 1 {
        s += x[i + 1] * x[i] * x[i];
    }
    s + x[0]
}
probe!(loop_from_a_parameter, from_k, [0.3, -1.2, 0.8, 2.0], 1);
probe!(
    loop_from_a_parameter_empty,
    from_k,
    [0.3, -1.2, 0.8, 2.0],
    3
);

#[differentiable]
fn guarded_tail(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        // x[i + 1] is read on every iteration but the last.
        if i + 1 < n {
            s += x[i + 1] * x[i];
        } else {
            s += x[i] * 2.0;
        }
    }
    s
}
probe!(
    a_read_under_an_if_is_not_read_early,
    guarded_tail,
    [0.3, -1.2, 0.8, 2.0]
);

#[differentiable]
fn one_element(x: &[f64]) -> f64 {
    let mut s = x[0] * 2.0;
    for i in 0..x.len() - 1 {
        s += x[i + 1] * x[i];
    }
    s
}
probe!(a_loop_without_iterations_reads_nothing, one_element, [0.4]);
probe!(a_loop_with_iterations, one_element, [0.4, 1.5, -0.5]);

#[differentiable]
fn triangle(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i..n - 1 {
            s += x[j + 1] * x[i];
        }
    }
    s
}
probe!(
    an_inner_loop_from_the_outer_variable,
    triangle,
    [0.3, -1.2, 0.8, 2.0]
);

#[differentiable]
fn shifted(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let i = i + 1;
        s += x[i] * x[i] - x[i - 1];
    }
    s
}
probe!(a_shadowed_loop_variable, shifted, [0.3, -1.2, 0.8, 2.0]);

#[differentiable]
fn on_array(a: [f64; 4]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += a[i + 1] * a[i].cos();
    }
    s
}

#[test]
fn an_array_parameter() {
    let a = [0.3, -1.2, 0.8, 2.0];
    let f = |x: &[f64]| on_array([x[0], x[1], x[2], x[3]]);
    let want = fd_check::fd(&f, &a);
    let (_, (g,)) = ad::value_and_grad(on_array, (a,));
    for i in 0..4 {
        assert!(fd_check::close(g[i], want[i], 1e-6), "{g:?} {want:?}");
        let mut e = [0.0; 4];
        e[i] = 1.0;
        let (_, t) = ad::jvp(on_array, (a,), (e,));
        assert!(fd_check::close(t, want[i], 1e-6), "{t} {want:?}");
    }
}

// ---- partials kept in the record ----

#[differentiable]
fn trig(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i].sin() * x[i + 1].cos() + (x[i] * 0.3).sinh() - f64::cosh(x[i + 1]);
    }
    s * x[0].cos()
}
probe!(
    trigonometric_partials_in_a_loop,
    trig,
    [0.3, -1.2, 0.8, 2.0]
);

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin() + t.sinh())
}

#[test]
fn each_pullback_uses_the_kept_partials() {
    let (r, t) = (1.7, 0.4);
    let (_, pullback) = ad::vjp(polar, (r, t));
    for _ in 0..2 {
        // The Jacobian rows, by the textbook partials.
        let (dr, dt) = pullback((1.0, 0.0));
        assert!((dr - t.cos()).abs() < 1e-15 && (dt + r * t.sin()).abs() < 1e-15);
        let (dr, dt) = pullback((0.0, 1.0));
        assert!((dr - t.sin()).abs() < 1e-15);
        assert!((dt - (r * t.cos() + t.cosh())).abs() < 1e-15);
    }
}

#[differentiable]
fn unused_sinh(x: f64, c: f64) -> f64 {
    let y = (x * 1000.0).sinh();
    if c > 0.0 { y } else { 1.0 }
}

#[test]
fn an_unused_sinh_with_an_infinite_partial_contributes_zero() {
    for g in both(unused_sinh, 1.0, -1.0) {
        assert_eq!(g, 0.0);
    }
    assert_eq!(both(unused_sinh, 1.0, 1.0), [f64::INFINITY; 2]);
}
