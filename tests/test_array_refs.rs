//! References to arrays as parameters (`&[T; N]`), read through `*p`, indexed, and destructured
//! by array patterns (`let [x, y] = *p;`), as optimisation test functions are written. A
//! reference to an array is differentiated as the array: its tangent and its adjoint are arrays.
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
