//! Arguments held constant with `ad::Const`: slices, numbers, arrays and `Vec`s of data that
//! carry no derivative. The derivatives with respect to the other arguments are checked against
//! central finite differences (h = 1e-6 on smooth functions: error about h^2 |f'''| + eps |f| / h,
//! near 1e-10 here, so 1e-6 relative with an absolute floor of 1 separates rounding from a wrong
//! derivative); the constant ones must come back as `NoTangent`, and each mode is run: `jvp`,
//! `value_and_grad`, `vjp`, calls between differentiable functions, rules of the user's.

#![allow(clippy::needless_range_loop)]

use ad::{Const, NoTangent, differentiable};
use std::sync::Mutex;

/// Rules registered at run time hold for the whole process: the tests that register one or
/// depend on their absence take turns.
static RULES: Mutex<()> = Mutex::new(());

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// The central difference of `f` along coordinate `i` of `p`.
fn fd(f: &dyn Fn(&[f64]) -> f64, p: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut hi, mut lo) = (p.to_vec(), p.to_vec());
    hi[i] += h;
    lo[i] -= h;
    (f(&hi) - f(&lo)) / (2.0 * h)
}

/// A weighted least-squares fit of `w` to the data `(x, y)`, with a `Const<f64>` weight: the
/// data are read by index, measured and looped over, and multiply the parameters.
#[differentiable]
fn fit(w: &[f64], x: Const<&[f64]>, y: Const<&[f64]>, scale: Const<f64>) -> f64 {
    let k = w.len();
    let n = y.len();
    let mut s = 0.0;
    for i in 0..n {
        let mut z = 0.0;
        for j in 0..k {
            z += w[j] * x[i * k + j];
        }
        let r = z.tanh() - y[i];
        s += scale.0 * r * r;
    }
    s / (n as f64)
}

const X: [f64; 6] = [0.3, -1.2, 0.8, 2.0, -0.5, 0.7];
const Y: [f64; 3] = [0.1, -0.4, 0.9];

#[test]
fn slices_and_a_number_held_constant() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let w = [0.4, -0.3];
    let f = |w: &[f64]| fit(w, Const(&X[..]), Const(&Y[..]), Const(1.5));
    let (value, (gw, gx, gy, gs)) =
        ad::value_and_grad(fit, (&w[..], Const(&X[..]), Const(&Y[..]), Const(1.5)));
    assert_eq!(value, f(&w));
    assert_eq!((gx, gy, gs), (NoTangent, NoTangent, NoTangent));
    let (_, pullback) = ad::vjp(fit, (&w[..], Const(&X[..]), Const(&Y[..]), Const(1.5)));
    let (vw, ..) = pullback(1.0);
    for i in 0..w.len() {
        let want = fd(&f, &w, i);
        let mut e = [0.0; 2];
        e[i] = 1.0;
        let (_, d) = ad::jvp(
            fit,
            (&w[..], Const(&X[..]), Const(&Y[..]), Const(1.5)),
            (&e[..], NoTangent, NoTangent, NoTangent),
        );
        assert!(
            close(gw[i], want),
            "value_and_grad {gw:?}, want {want} at {i}"
        );
        assert!(close(vw[i], want), "vjp {vw:?}, want {want} at {i}");
        assert!(close(d, want), "jvp {d}, want {want} at {i}");
    }
}

/// An array and a `Vec` held constant, beside float arguments: `(a sin(c0) + b c1)^2 + v . (a, b)`.
#[differentiable]
fn values(a: f64, c: Const<[f64; 2]>, b: f64, v: Const<Vec<f64>>) -> f64 {
    let t = a * c[0].sin() + b * c[1];
    t * t + v[0] * a + v[1] * b
}

#[test]
fn an_array_and_a_vec_held_constant() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = (0.7, -1.3);
    let c = [0.4, 2.5];
    let v = vec![0.25, -3.0];
    let f = |p: &[f64]| values(p[0], Const(c), p[1], Const(v.clone()));
    let (_, (ga, gc, gb, gv)) = ad::value_and_grad(values, (a, Const(c), b, Const(v.clone())));
    assert_eq!((gc, gv), (NoTangent, NoTangent));
    let (_, da) = ad::jvp(
        values,
        (a, Const(c), b, Const(v.clone())),
        (1.0, NoTangent, 0.0, NoTangent),
    );
    let (_, pullback) = ad::vjp(values, (a, Const(c), b, Const(v.clone())));
    let (va, _, vb, _) = pullback(1.0);
    let want = [fd(&f, &[a, b], 0), fd(&f, &[a, b], 1)];
    assert!(close(ga, want[0]) && close(da, want[0]) && close(va, want[0]));
    assert!(close(gb, want[1]) && close(vb, want[1]));
}

/// A constant slice passed on to another differentiable function, in both modes: the callee's
/// derivative gets it as it is, with no tangent and no adjoint buffer.
#[differentiable]
fn inner(a: f64, x: Const<&[f64]>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (a * x[i]).sin();
    }
    s
}

#[differentiable]
fn outer(a: f64, x: Const<&[f64]>) -> f64 {
    let u = inner(a * a, x);
    u * a + inner(a, x)
}

#[test]
fn a_constant_passed_on_to_a_callee() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let a = 0.8;
    let f = |p: &[f64]| outer(p[0], Const(&X[..]));
    let want = fd(&f, &[a], 0);
    let (_, (g, gx)) = ad::value_and_grad(outer, (a, Const(&X[..])));
    let (_, d) = ad::jvp(outer, (a, Const(&X[..])), (1.0, NoTangent));
    let (_, pullback) = ad::vjp(outer, (a, Const(&X[..])));
    assert_eq!(gx, NoTangent);
    assert!(close(g, want), "{g} against {want}");
    assert!(close(d, want), "{d} against {want}");
    assert!(close(pullback(1.0).0, want));
}

/// `inner` with a rule of the user's registered at run time: a reverse rule takes the constant
/// as it is and returns `NoTangent` for it; the derivative of `outer`, which calls `inner`,
/// honours it in both modes (the forward mode by converting it, one VJP per output).
#[test]
fn rules_of_a_function_with_a_constant() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let a = 0.8;
    // The rule says d inner / da = 2 (not the true derivative), so its use is visible.
    let guard =
        ad::rules::register_reverse(inner, |_a: f64, x: Const<&[f64]>, _y: f64, bar: f64| {
            assert_eq!(x.len(), X.len());
            (2.0 * bar, NoTangent)
        });
    // outer = inner(a^2) a + inner(a): d/da = 2 (2a) a + inner(a^2) + 2.
    let want = 4.0 * a * a + inner(a * a, Const(&X[..])) + 2.0;
    let (_, (g, _)) = ad::value_and_grad(outer, (a, Const(&X[..])));
    let (_, d) = ad::jvp(outer, (a, Const(&X[..])), (1.0, NoTangent));
    assert!(close(g, want), "{g} against {want}");
    assert!(close(d, want), "{d} against {want}");
    drop(guard);
    let f = |p: &[f64]| outer(p[0], Const(&X[..]));
    let (_, (g, _)) = ad::value_and_grad(outer, (a, Const(&X[..])));
    assert!(close(g, fd(&f, &[a], 0)));
}

/// `inner` with a forward rule registered at run time: it takes the constant and its
/// `NoTangent`; both modes of `outer` honour it (the reverse mode by converting it: the
/// constant has no coordinates, so only `a`'s JVP is run).
#[test]
fn forward_rule_of_a_function_with_a_constant() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let a = 0.7;
    // The rule says d inner / da = -3 (not the true derivative), so its use is visible.
    let guard = ad::rules::register_forward(
        inner,
        |a: f64, da: f64, x: Const<&[f64]>, _dx: NoTangent| (inner(a, x), -3.0 * da),
    );
    // outer = inner(a^2) a + inner(a): d/da = -3 (2a) a + inner(a^2) - 3.
    let want = -6.0 * a * a + inner(a * a, Const(&X[..])) - 3.0;
    let (_, d) = ad::jvp(outer, (a, Const(&X[..])), (1.0, NoTangent));
    let (_, (g, gx)) = ad::value_and_grad(outer, (a, Const(&X[..])));
    assert!(close(d, want), "{d} against {want}");
    assert!(close(g, want), "{g} against {want}");
    assert_eq!(gx, NoTangent);
    drop(guard);
}

/// `Const` reads like what it holds outside generated code too.
#[test]
fn const_derefs_to_what_it_holds() {
    let c = Const(&X[..]);
    assert_eq!((c.len(), c[1], c.0[2]), (6, -1.2, 0.8));
    let n: Const<i32> = Const(4);
    assert_eq!(*n + 1, 5);
}

/// A constant slice bound to a local and passed on through it: the local is the parameter
/// again, read again by the reverse sweep like the parameter.
#[differentiable]
fn through_a_local(a: f64, x: Const<&[f64]>, c: Const<f64>) -> f64 {
    let y = x;
    let k = c;
    inner(a * k.0, y) + inner(a, y) * a
}

#[test]
fn a_constant_passed_on_through_a_local() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let a = 0.6;
    let f = |p: &[f64]| through_a_local(p[0], Const(&X[..]), Const(1.7));
    let want = fd(&f, &[a], 0);
    let (_, (g, gx, gc)) = ad::value_and_grad(through_a_local, (a, Const(&X[..]), Const(1.7)));
    let (_, d) = ad::jvp(
        through_a_local,
        (a, Const(&X[..]), Const(1.7)),
        (1.0, NoTangent, NoTangent),
    );
    assert_eq!((gx, gc), (NoTangent, NoTangent));
    assert!(close(g, want), "{g} against {want}");
    assert!(close(d, want), "{d} against {want}");
}

/// A constant slice walked by iterator, alone and zipped with the parameters.
#[differentiable]
fn walked(w: &[f64], x: Const<&[f64]>) -> f64 {
    let mut s = 0.0;
    for (wi, xi) in w.iter().zip(x.iter()) {
        s += (wi * xi).cos();
    }
    for &xi in x.iter() {
        s += w[0] * xi * w[1];
    }
    s
}

#[test]
fn a_constant_walked_by_iterator() {
    let w = [0.3, -0.9];
    let x = [1.4, 0.2, -0.6];
    let f = |w: &[f64]| walked(w, Const(&x[..]));
    let (_, (g, _)) = ad::value_and_grad(walked, (&w[..], Const(&x[..])));
    for i in 0..w.len() {
        let want = fd(&f, &w, i);
        let mut e = [0.0; 2];
        e[i] = 1.0;
        let (_, d) = ad::jvp(walked, (&w[..], Const(&x[..])), (&e[..], NoTangent));
        assert!(close(g[i], want), "{g:?} against {want} at {i}");
        assert!(close(d, want), "{d} against {want} at {i}");
    }
}

/// Constants of a value kind passed on to a callee: an array (`Copy`, read again by the
/// reverse sweep), a `Vec` (cloned for the call and kept) and a number.
#[differentiable]
fn weighted(a: f64, c: Const<[f64; 2]>, v: Const<Vec<f64>>, s: Const<f64>) -> f64 {
    (a * c[0]).sin() * v[1] + s.0 * a * c[1]
}

#[differentiable]
fn passes_values(a: f64, c: Const<[f64; 2]>, v: Const<Vec<f64>>, s: Const<f64>) -> f64 {
    let u = weighted(a * a, c, v.clone(), s);
    u * a + weighted(a, c, v, s)
}

#[test]
fn constant_values_passed_on_to_a_callee() {
    let _turn = RULES.lock().unwrap_or_else(|e| e.into_inner());
    let (a, c, v, s) = (0.9, [0.4, -1.1], vec![2.0, 0.7], 1.3);
    let f = |p: &[f64]| passes_values(p[0], Const(c), Const(v.clone()), Const(s));
    let want = fd(&f, &[a], 0);
    let args = (a, Const(c), Const(v.clone()), Const(s));
    let (_, (g, gc, gv, gs)) = ad::value_and_grad(passes_values, args.clone());
    let (_, d) = ad::jvp(
        passes_values,
        args.clone(),
        (1.0, NoTangent, NoTangent, NoTangent),
    );
    let (_, pullback) = ad::vjp(passes_values, args);
    assert_eq!((gc, gv, gs), (NoTangent, NoTangent, NoTangent));
    assert!(close(g, want), "{g} against {want}");
    assert!(close(d, want), "{d} against {want}");
    assert!(close(pullback(1.0).0, want));
}
