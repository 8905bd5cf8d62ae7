//! Every shape of what a generated reverse derivative returns, run every way the runtime runs
//! it. A function of one argument returns its value or its adjoint in registers (`Swept`), a
//! function of none or of several returns both in a tuple (`Tupled`); each is called through
//! the registry (its forward sweep alone, then its reverse sweep), with its value unused (the
//! reverse sweep only pops), as the function an entry point differentiates (both sweeps in one
//! call, or the forward sweep and later the reverse sweep), and replaced by a rule registered at
//! run time. The derivatives are checked against their closed forms, written out by hand.

// Loops over indices are the language `#[differentiable]` reads.
#![allow(clippy::needless_range_loop)]

use ad::differentiable;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A rule registered at run time holds for the whole process, so the tests here, which the
/// harness runs on parallel threads, take turns.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// 1e-14 relative: the closed forms and the derivatives evaluate the same terms in a different
/// order, so they differ by a few rounding errors at most.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1.0)
}

/// One float argument, and a loop, whose trip count goes on the tape: `x^3`.
#[differentiable]
fn cube(x: f64) -> f64 {
    let mut p = 1.0;
    for _ in 0..3 {
        p *= x;
    }
    p
}

/// One float argument, a pair as the result: `(cos t, sin t)`.
#[differentiable]
fn polar(t: f64) -> (f64, f64) {
    (t.cos(), t.sin())
}

/// One slice argument, whose adjoint goes into a buffer: `sum v_i^2`.
#[differentiable]
fn sum_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

/// Two arguments: `x e^y`.
#[differentiable]
fn mix(x: f64, y: f64) -> f64 {
    x * y.exp()
}

/// No argument.
#[differentiable]
fn half() -> f64 {
    0.5
}

/// `x^3 cos x + sin(x) e^x + 0.5 sum v_i^2`, through all the callees above, one of them
/// with its value unused.
#[differentiable]
fn caller(x: f64, v: &[f64]) -> f64 {
    let _unused = cube(x);
    let (c, s) = polar(x);
    cube(x) * c + mix(s, x) + half() * sum_sq(v)
}

fn caller_value(x: f64, v: &[f64]) -> f64 {
    x.powi(3) * x.cos() + x.sin() * x.exp() + 0.5 * v.iter().map(|e| e * e).sum::<f64>()
}

/// d/dx: 3x^2 cos x - x^3 sin x + (cos x + sin x) e^x; d/dv_i: v_i.
fn caller_dx(x: f64) -> f64 {
    3.0 * x * x * x.cos() - x.powi(3) * x.sin() + (x.cos() + x.sin()) * x.exp()
}

const XS: [f64; 4] = [-1.3, 0.0, 0.4, 2.1];

#[test]
fn a_caller_gets_every_callee_shape_right_in_both_entry_points() {
    let _turn = one_at_a_time();
    let v = [0.5, -2.0, 3.0];
    for x in XS {
        let (value, (gx, gv)) = ad::value_and_grad(caller, (x, &v[..]));
        assert!(close(value, caller_value(x, &v)), "value at {x}");
        assert!(close(gx, caller_dx(x)), "d/dx at {x}: {gx}");
        assert_eq!(gv, v.to_vec(), "d/dv at {x}");

        let (value, pullback) = ad::vjp(caller, (x, &v[..]));
        assert!(close(value, caller_value(x, &v)), "vjp value at {x}");
        let (gx, gv) = pullback(2.0);
        assert!(close(gx, 2.0 * caller_dx(x)), "vjp d/dx at {x}: {gx}");
        let twice: Vec<f64> = v.iter().map(|e| 2.0 * e).collect();
        assert_eq!(gv, twice, "vjp d/dv at {x}");
    }
}

#[test]
fn each_shape_differentiated_by_itself() {
    let _turn = one_at_a_time();
    for x in XS {
        // One argument, both sweeps in one call, and then apart.
        let (value, (g,)) = ad::value_and_grad(cube, (x,));
        assert!(
            close(value, x.powi(3)) && close(g, 3.0 * x * x),
            "cube at {x}"
        );
        let (value, pullback) = ad::vjp(cube, (x,));
        assert!(close(value, x.powi(3)) && close(pullback(-1.5).0, -4.5 * x * x));

        // A pair as the result: the adjoint (a, b) gives -a sin t + b cos t.
        let (value, pullback) = ad::vjp(polar, (x,));
        assert_eq!(value, (x.cos(), x.sin()));
        let (g,) = pullback((0.25, -3.0));
        assert!(close(g, -0.25 * x.sin() - 3.0 * x.cos()), "polar at {x}");

        let (value, (gx, gy)) = ad::value_and_grad(mix, (x, 0.5 * x));
        assert!(close(value, x * (0.5 * x).exp()), "mix at {x}");
        assert!(close(gx, (0.5 * x).exp()) && close(gy, x * (0.5 * x).exp()));
    }
    let v = [1.0, -0.5, 4.0];
    let (value, (g,)) = ad::value_and_grad(sum_sq, (&v[..],));
    assert!(close(value, 17.25));
    assert_eq!(g, vec![2.0, -1.0, 8.0]);
    assert_eq!(ad::value_and_grad(half, ()), (0.5, ()));
}

#[test]
fn a_rule_registered_later_replaces_a_one_argument_callee_in_every_sweep() {
    let _turn = one_at_a_time();
    let v = [0.5, -2.0];
    let x = 0.7_f64;
    // cube'(x) := 100 from now on, deliberately not the true derivative.
    let guard = ad::rules::register_reverse(cube, |_x: f64, _y: f64, y_bar: f64| 100.0 * y_bar);
    let want = 100.0 * x.cos() - x.powi(3) * x.sin() + (x.cos() + x.sin()) * x.exp();
    let (value, (gx, _)) = ad::value_and_grad(caller, (x, &v[..]));
    assert!(close(value, caller_value(x, &v)), "the value is still x^3");
    assert!(close(gx, want), "the rule is used: {gx} against {want}");
    let (_, pullback) = ad::vjp(caller, (x, &v[..]));
    assert!(close(pullback(1.0).0, want));
    drop(guard);
    let (_, (gx, _)) = ad::value_and_grad(caller, (x, &v[..]));
    assert!(close(gx, caller_dx(x)), "the generated derivative again");
}
