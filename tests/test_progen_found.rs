//! Programs of the supported language that the program generator (`progen/`) found rejected by
//! `#[differentiable]`, each now accepted and its derivative checked in both modes. The oracle is
//! each function's derivative written out by hand from its branches (every branch is taken at
//! some of the inputs); the functions are piecewise linear or sums, so the derivatives are exact
//! and compared with `==`.

use ad::differentiable;

/// `return;` in a function that returns `()` and writes its `&mut` output.
#[differentiable]
fn early_unit(y: &mut [f64], x: f64) {
    if x > 0.0 {
        y[0] = x * x;
        return;
    }
    y[0] = 2.0 * x;
}

#[test]
fn a_bare_return_in_a_function_of_outputs() {
    for x in [-1.5, -0.25, 0.0, 0.5, 3.0] {
        let expected = if x > 0.0 { 2.0 * x } else { 2.0 };
        let mut y = [9.0];
        let mut dy = [0.0];
        ad::jvp(early_unit, (&mut y[..], x), (&mut dy[..], 1.0));
        assert_eq!(y[0], if x > 0.0 { x * x } else { 2.0 * x });
        assert_eq!(dy[0], expected, "forward at {x}");
        let mut y_bar = [1.0];
        let (_, (_, x_bar)) = ad::vjp_into(
            early_unit,
            (&mut y[..], x),
            (&mut y_bar[..], ()),
            ad::NoTangent,
        );
        assert_eq!(x_bar, expected, "reverse at {x}");
    }
}

/// A block with a `let` inside the condition of an `if`.
#[differentiable]
fn let_in_condition(x: f64) -> f64 {
    if x < {
        let b = 1.0;
        b
    } {
        return x * 3.0;
    }
    x * 2.0
}

#[test]
fn a_block_with_a_let_in_a_condition() {
    for x in [-2.0, 0.5, 0.999, 1.0, 4.0] {
        let expected = if x < 1.0 { 3.0 } else { 2.0 };
        assert_eq!(ad::jvp(let_in_condition, (x,), (1.0,)).1, expected);
        assert_eq!(ad::grad(let_in_condition, (x,)).0, expected);
    }
}

/// A `Vec` result that carries no derivative.
#[differentiable]
fn constant_vec(_x: f64) -> Vec<f64> {
    vec![0.5, 0.5]
}

/// A `Vec` result returned early.
#[differentiable]
fn early_vec(x: f64) -> Vec<f64> {
    if x > 0.0 {
        return vec![x, x * x];
    }
    vec![x, 2.0 * x]
}

/// A tuple with a `Vec` that carries no derivative beside a float that does.
#[differentiable]
fn vec_beside(x: f64) -> (Vec<f64>, f64) {
    (vec![1.0, 2.0], 3.0 * x)
}

#[test]
fn vec_results_without_derivative_or_returned_early() {
    let (v, dv) = ad::jvp(constant_vec, (1.0,), (1.0,));
    assert_eq!((v, dv), (vec![0.5, 0.5], vec![0.0, 0.0]));
    let (_, pullback) = ad::vjp(constant_vec, (1.0,));
    assert_eq!(pullback(vec![1.0, 1.0]), (0.0,));

    for x in [-1.0, 0.0, 0.5, 2.0] {
        let jac = if x > 0.0 {
            vec![1.0, 2.0 * x]
        } else {
            vec![1.0, 2.0]
        };
        let (v, dv) = ad::jvp(early_vec, (x,), (1.0,));
        assert_eq!(v, early_vec(x));
        assert_eq!(dv, jac, "forward at {x}");
        let (_, pullback) = ad::vjp(early_vec, (x,));
        assert_eq!(pullback(vec![1.0, 0.0]).0, jac[0], "reverse at {x}");
        assert_eq!(pullback(vec![0.0, 1.0]).0, jac[1], "reverse at {x}");
    }

    let ((v, s), (dv, ds)) = ad::jvp(vec_beside, (2.0,), (1.0,));
    assert_eq!((v, s, dv, ds), (vec![1.0, 2.0], 6.0, vec![0.0, 0.0], 3.0));
    let (_, pullback) = ad::vjp(vec_beside, (2.0,));
    assert_eq!(pullback((vec![1.0, 1.0], 1.0)), (3.0,));
}

/// `*x` of `for x in a.iter()` inside `debug_assert!`.
#[differentiable]
fn checked_sum(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in a.iter() {
        debug_assert!((*x).is_finite());
        s += *x * *x;
    }
    s
}

/// The same `*x` in a `match` guard.
#[differentiable]
fn guarded(q: [f64; 5]) -> f64 {
    let mut s = 0.0;
    for x in q.iter() {
        s += match 1 {
            0 => 0.5,
            _ if q[1] <= *x => 3.0 * *x,
            _ => 1.5,
        };
    }
    s
}

#[test]
fn a_dereferenced_element_in_an_assertion_and_a_guard() {
    let a = [0.5, -1.0, 2.0];
    let mut a_bar = [0.0; 3];
    ad::vjp_into(checked_sum, (&a[..],), (&mut a_bar[..],), 1.0);
    assert_eq!(a_bar, [1.0, -2.0, 4.0]);
    let da = [1.0, 1.0, 1.0];
    assert_eq!(
        ad::jvp(checked_sum, (&a[..],), (&da[..],)).1,
        1.0 - 2.0 + 4.0
    );

    let q = [0.25, 1.0, 2.0, -3.0, 1.5];
    // 3 q[j] for every j with q[1] <= q[j] (j = 1, 2, 4 here), 1.5 for the others; no element
    // is near the threshold, so the branches hold in a neighbourhood.
    let expected = [0.0, 3.0, 3.0, 0.0, 3.0];
    let g = ad::grad(guarded, (q,)).0;
    assert_eq!(g, expected);
    for j in 0..5 {
        let mut dq = [0.0; 5];
        dq[j] = 1.0;
        assert_eq!(
            ad::jvp(guarded, (q,), (dq,)).1,
            expected[j],
            "forward along q[{j}]"
        );
    }
}
