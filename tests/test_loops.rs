//! Loops over integers and `while` loops, in both modes: forward-mode tangents against central
//! finite differences (h = 1e-6; truncation ~h^2 f''' and rounding ~eps |f| / h stay below 1e-8
//! relative for these O(1)-conditioned functions) and reverse-mode gradients against forward mode
//! along every unit vector (the same arithmetic in another order: a few ulps).

use ad::differentiable;

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// Horner's rule for p(x) = sum_k (k + 1) x^k, k < n.
#[differentiable]
fn horner(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for k in (0..n).rev() {
        acc = acc * x + (k + 1) as f64;
    }
    acc
}

/// A damped oscillator stepped with explicit Euler: x'' = -k x - c x'.
#[differentiable]
fn oscillator(k: f64, c: f64, x0: f64, steps: i32) -> f64 {
    let dt = 0.01;
    let mut x = x0;
    let mut v = 0.0;
    for _ in 0..steps {
        let a = -k * x - c * v;
        x += dt * v;
        v += dt * a;
    }
    x
}

/// Newton's iteration for sqrt(a), while the step is large: a float-dependent condition.
#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    let mut step: f64 = 1.0;
    while step.abs() > 1e-15 * x {
        let next = 0.5 * (x + a / x);
        step = next - x;
        x = next;
    }
    x
}

/// Nested loops, with a branch and a step, summing x^(i + j) for even i + j.
#[differentiable]
fn nested(x: f64) -> f64 {
    let mut s = 0.0;
    for i in (0..6).step_by(2) {
        for j in 0..=3 {
            let e = i + j;
            if e % 2 == 0 {
                s += x.powi(e);
            } else {
                s -= 0.5 * x;
            }
        }
    }
    s
}

#[test]
fn forward_mode_through_loops() {
    for x in [-0.7, 0.3, 1.1] {
        let (v, d) = ad::jvp(horner, (x, 6), (1.0, ad::NoTangent));
        assert_eq!(v, horner(x, 6));
        assert!(close(d, fd(|x| horner(x, 6), x), 1e-8));
        let (v, d) = ad::jvp(nested, (x,), (1.0,));
        assert_eq!(v, nested(x));
        assert!(close(d, fd(nested, x), 1e-8));
    }
    let (v, d) = ad::jvp(
        oscillator,
        (4.0, 0.3, 1.0, 300),
        (1.0, 0.0, 0.0, ad::NoTangent),
    );
    assert_eq!(v, oscillator(4.0, 0.3, 1.0, 300));
    assert!(close(d, fd(|k| oscillator(k, 0.3, 1.0, 300), 4.0), 1e-7));
    // d sqrt(a) = 1 / (2 sqrt a), through the converged iteration.
    for a in [0.25, 2.0, 9.0] {
        let (v, d) = ad::jvp(newton_sqrt, (a,), (1.0,));
        assert_eq!(v, newton_sqrt(a));
        assert!(close(d, 0.5 / a.sqrt(), 1e-12), "a = {a}: {d}");
    }
}

#[test]
fn reverse_mode_through_loops_matches_forward_mode() {
    for x in [-0.7, 0.3, 1.1] {
        let (v, (g, _)) = ad::value_and_grad(horner, (x, 6));
        assert_eq!(v, horner(x, 6));
        assert!(close(
            g,
            ad::jvp(horner, (x, 6), (1.0, ad::NoTangent)).1,
            1e-14
        ));
        let (_, (g,)) = ad::value_and_grad(nested, (x,));
        assert!(close(g, ad::jvp(nested, (x,), (1.0,)).1, 1e-14));
    }
    let args = (4.0, 0.3, 1.0, 300);
    let (v, (gk, gc, gx, _)) = ad::value_and_grad(oscillator, args);
    assert_eq!(v, oscillator(4.0, 0.3, 1.0, 300));
    let unit = |i: usize| {
        let t = [0.0, 0.0, 0.0];
        let mut t = t;
        t[i] = 1.0;
        ad::jvp(oscillator, args, (t[0], t[1], t[2], ad::NoTangent)).1
    };
    assert!(close(gk, unit(0), 1e-12) && close(gc, unit(1), 1e-12) && close(gx, unit(2), 1e-12));
    for a in [0.25, 2.0, 9.0] {
        let (_, (g,)) = ad::value_and_grad(newton_sqrt, (a,));
        assert!(close(g, 0.5 / a.sqrt(), 1e-12), "a = {a}: {g}");
    }
}

/// Values that are computed and never used, and a variable only read by a condition: they carry
/// no adjoint, and the gradient is that of the rest.
#[allow(unused_variables)]
#[differentiable]
fn with_dead_values(x: f64) -> f64 {
    let unused = x.sin() * 3.0;
    let _ = x * 2.0;
    let mut gate: f64 = x;
    gate *= 2.0;
    if gate > 1.0 { x * x } else { x }
}

#[test]
fn dead_values_and_condition_only_variables() {
    assert_eq!(ad::grad(with_dead_values, (2.0,)), (4.0,));
    assert_eq!(ad::grad(with_dead_values, (0.25,)), (1.0,));
    assert_eq!(ad::jvp(with_dead_values, (2.0,), (1.0,)).1, 4.0);
}

/// The value of an `if` inside a loop, with a constant branch: s_{i+1} = 1.2 s_i + w_i, w_i =
/// cos s_i for even i, 1/2 otherwise. The constant branch has no derivative, and the adjoint of
/// the `if`'s value must not carry over into the iteration before.
#[differentiable]
fn constant_branch(x: f64, n: i32) -> f64 {
    let mut s = x;
    for i in 0..n {
        let w = if i % 2 == 0 { s.cos() } else { 0.5 };
        s = s * 1.2 + w;
    }
    s
}

#[test]
fn if_value_with_a_constant_branch_inside_a_loop() {
    for n in 0..6 {
        for x in [-0.7, 0.3, 1.1] {
            let (v, d) = ad::jvp(constant_branch, (x, n), (1.0, ad::NoTangent));
            assert_eq!(v, constant_branch(x, n));
            assert!(close(d, fd(|x| constant_branch(x, n), x), 1e-8));
            let (gv, (g, _)) = ad::value_and_grad(constant_branch, (x, n));
            assert_eq!(gv, v);
            assert!(close(g, d, 1e-14), "x = {x}, n = {n}: {g} vs {d}");
        }
    }
}
