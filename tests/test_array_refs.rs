//! References to arrays as parameters (`&[T; N]`), read through `*p`, indexed, and destructured
//! by array patterns (`let [x, y] = *p;`), as optimisation test functions are written. A
//! reference to an array is differentiated as the array: its tangent and its adjoint are arrays.
//! A mutable one (`&mut [T; N]`) is an output, differentiated as the `&mut [T]` it derefs to.
//!
//! Oracles: closed-form derivatives written out in each test.

use ad::differentiable;

/// Booth's function: `(x + 2y - 7)^2 + (2x + y - 5)^2`.
#[differentiable]
fn booth(param: &[f64; 2]) -> f64 {
    let [x1, x2] = *param;
    (x1 + 2.0 * x2 - 7.0).powi(2) + (2.0 * x1 + x2 - 5.0).powi(2)
}

fn booth_gradient(p: [f64; 2]) -> [f64; 2] {
    let (a, b) = (p[0] + 2.0 * p[1] - 7.0, 2.0 * p[0] + p[1] - 5.0);
    [2.0 * a + 4.0 * b, 4.0 * a + 2.0 * b]
}

#[test]
fn booth_in_both_modes() {
    for p in [[0.0, 0.0], [1.0, 3.0], [-2.5, 0.75]] {
        let g = booth_gradient(p);
        assert_eq!(ad::grad(booth, (&p,)), (g,));
        assert_eq!(ad::jvp(booth, (&p,), ([1.0, 0.0],)).1, g[0]);
        assert_eq!(ad::jvp(booth, (&p,), ([0.0, 1.0],)).1, g[1]);
    }
}

/// A pattern with a rest (`[a, b, ..]`), `*p` read whole, indexing, and a loop over the
/// elements: `f(p) = a b + sum p_i^2 + p_2` for `p = [a, b, c]`.
#[differentiable]
fn mixed(p: &[f64; 3]) -> f64 {
    let [a, b, ..] = *p;
    let q = *p;
    let mut s = a * b;
    for &v in q.iter() {
        s += v * v;
    }
    s + p[2]
}

#[test]
fn rest_patterns_copies_and_indexing() {
    let p = [1.5, -2.0, 0.5];
    let (value, (g,)) = ad::value_and_grad(mixed, (&p,));
    assert_eq!(value, 1.5 * -2.0 + 1.5 * 1.5 + 4.0 + 0.25 + 0.5);
    // d/da = b + 2a, d/db = a + 2b, d/dc = 2c + 1
    assert_eq!(g, [-2.0 + 3.0, 1.5 - 4.0, 1.0 + 1.0]);
    let (_, t) = ad::jvp(mixed, (&p,), ([0.0, 0.0, 1.0],));
    assert_eq!(t, 2.0);
}

/// A reference to an array among other parameters, with a tuple result.
#[differentiable]
fn scaled(k: f64, p: &[f64; 2]) -> (f64, f64) {
    let [x, y] = *p;
    (k * x, k * y * y)
}

#[test]
fn with_other_parameters_and_tuple_results() {
    let p = [2.0, 3.0];
    let (_, pullback) = ad::vjp(scaled, (0.5, &p));
    assert_eq!(pullback((1.0, 0.0)), (2.0, [0.5, 0.0]));
    assert_eq!(pullback((0.0, 1.0)), (9.0, [0.0, 3.0]));
}

/// A rule of a function with a reference to an array takes the reference and an array of
/// tangents.
fn norm2(p: &[f64; 2]) -> f64 {
    p[0] * p[0] + p[1] * p[1]
}

#[ad::custom_rule(forward, of = norm2)]
fn norm2_jvp(p: &[f64; 2], dp: [f64; 2]) -> (f64, f64) {
    (norm2(p), 20.0 * (p[0] * dp[0] + p[1] * dp[1]))
}

#[test]
fn rules_of_functions_of_array_references() {
    let p = [1.0, 2.0];
    assert_eq!(ad::jvp(norm2, (&p,), ([1.0, 0.0],)).1, 20.0);
    // Converted to reverse mode: one JVP per coordinate of the array.
    assert_eq!(ad::grad(norm2, (&p,)), ([20.0, 40.0],));
}

/// `&mut [T; N]` outputs, written in place and read back: differentiated as the `&mut [T]`
/// they deref to. `y_i <- y_i x` for each element, then `y_0 + y_1^2` returned.
#[differentiable]
fn scale_in_place(y: &mut [f64; 3], x: f64) -> f64 {
    for v in y.iter_mut() {
        *v *= x;
    }
    y[0] + y[1] * y[1]
}

#[test]
fn mutable_array_references_are_outputs() {
    let y0 = [1.0, 2.0, -3.0];
    let x = 1.5;
    // Forward: with y' = y x, r = y'_0 + y'_1^2:
    // dy'_i = dy_i x + y_i dx, dr = dy'_0 + 2 y'_1 dy'_1.
    let mut y = y0;
    let mut dy = [0.5, -1.0, 2.0];
    let dx = 0.25;
    let (r, dr) = ad::jvp(scale_in_place, (&mut y, x), (&mut dy, dx));
    let expected_dy = [0.5 * x + y0[0] * dx, -x + y0[1] * dx, 2.0 * x + y0[2] * dx];
    assert_eq!(y, y0.map(|v| v * x));
    assert_eq!(r, y[0] + y[1] * y[1]);
    assert_eq!(dy, expected_dy);
    assert_eq!(dr, expected_dy[0] + 2.0 * y[1] * expected_dy[1]);
    // Reverse: with the result's adjoint 1 and the outputs' adjoints w:
    // y_bar_i = x (w_i + [i = 0] + [i = 1] 2 y'_1), x_bar = sum_i y_i (same bracket).
    let mut y = y0;
    let w = [0.25, 0.5, 1.0];
    let mut y_bar = w;
    let (_, (_, x_bar)) = ad::vjp_into(scale_in_place, (&mut y, x), (&mut y_bar[..], ()), 1.0);
    let seed = [w[0] + 1.0, w[1] + 2.0 * y0[1] * x, w[2]];
    assert_eq!(y_bar, seed.map(|s| s * x));
    let expected_x: f64 = (0..3).map(|i| y0[i] * seed[i]).sum();
    assert!((x_bar - expected_x).abs() <= 1e-14 * expected_x.abs());
    // grad: the outputs' adjoints start at 0.
    let mut y = y0;
    let (gy, gx) = ad::grad(scale_in_place, (&mut y, x));
    assert_eq!(gy, vec![x, 2.0 * y0[1] * x * x, 0.0]);
    assert!((gx - (y0[0] + 2.0 * y0[1] * y0[1] * x)).abs() <= 1e-14);
}
