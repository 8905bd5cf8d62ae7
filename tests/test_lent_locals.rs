//! Local `Vec`s and arrays lent to a differentiable callee as shared slices (`f(&v)`,
//! `f(&v[..])`), also twice in one call, also written after the call (the reverse sweep lends
//! the callee the value it had at the call), in both modes, against dual numbers: each function
//! is written a second time over `num_dual::Dual64` and seeded along each input, and every
//! derivative of `ad` (forward, reverse in one call, reverse through `ad::vjp`) must agree with
//! it to 1e-12 relative (tests/dual_check/mod.rs says why that tolerance).

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, TOL, close};

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

fn dot_d(a: &[D], b: &[D]) -> D {
    let mut s = D::from(0.0);
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// Loops over the slice itself (`for x in v`).
#[differentiable]
fn norm2(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v {
        s += x * x;
    }
    s
}

fn norm2_d(v: &[D]) -> D {
    v.iter().map(|x| *x * *x).sum()
}

/// `h = tanh(w x)` built in a `Vec`, lent to `dot` and written after the call; an array lent
/// twice in one call.
#[differentiable]
fn lent(x: &[f64], w: f64) -> f64 {
    let mut h = vec![0.0; x.len()];
    for i in 0..x.len() {
        h[i] = (x[i] * w).tanh();
    }
    let a = dot(&h, x);
    h[0] *= a;
    let arr = [w, w * w, x[0]];
    let b = dot(&arr, &arr[..]);
    a * dot(&h[..], &h) + b + norm2(&h)
}

fn lent_d(x: &[D], w: D) -> D {
    let mut h: Vec<D> = x.iter().map(|xi| (*xi * w).tanh()).collect();
    let a = dot_d(&h, x);
    h[0] *= a;
    let arr = [w, w * w, x[0]];
    let b = dot_d(&arr, &arr);
    a * dot_d(&h, &h) + b + norm2_d(&h)
}

#[test]
fn locals_lent_as_slices_in_both_modes() {
    let x = [0.3, -0.7, 1.1, 0.4];
    let w = 0.8;
    let value = lent(&x, w);
    let (gv, (gx, gw)) = ad::value_and_grad(lent, (&x[..], w));
    let (pv, pullback) = ad::vjp(lent, (&x[..], w));
    let (px, pw) = pullback(1.0);
    assert_eq!(gv.to_bits(), value.to_bits());
    assert_eq!(pv.to_bits(), value.to_bits());
    // Along each of the five inputs.
    for k in 0..5 {
        let xs: Vec<D> = (0..4)
            .map(|i| D::new(x[i], if i == k { 1.0 } else { 0.0 }))
            .collect();
        let want = lent_d(&xs, D::new(w, if k == 4 { 1.0 } else { 0.0 }));
        assert!(close(want.re, value, TOL));
        let mut dx = [0.0; 4];
        let dw = if k == 4 { 1.0 } else { 0.0 };
        if k < 4 {
            dx[k] = 1.0;
        }
        let (tv, t) = ad::jvp(lent, (&x[..], w), (&dx[..], dw));
        assert_eq!(tv.to_bits(), value.to_bits());
        let (g, p) = if k < 4 { (gx[k], px[k]) } else { (gw, pw) };
        assert!(
            close(t, want.eps, TOL),
            "jvp along {k}: {t}, oracle {}",
            want.eps
        );
        assert!(
            close(g, want.eps, TOL),
            "grad {k}: {g}, oracle {}",
            want.eps
        );
        assert!(close(p, want.eps, TOL), "vjp {k}: {p}, oracle {}", want.eps);
    }
}

/// A lent local in a loop: each iteration lends the `Vec` as it is then, and writes it after.
#[differentiable]
fn lent_in_loop(x: &[f64], n: usize) -> f64 {
    let mut v = vec![1.0; x.len()];
    let mut s = 0.0;
    for k in 0..n {
        s += dot(&v, x) * (k + 1) as f64;
        for i in 0..v.len() {
            v[i] = v[i] * x[i] + 0.1;
        }
    }
    s
}

fn lent_in_loop_d(x: &[D], n: usize) -> D {
    let mut v = vec![D::from(1.0); x.len()];
    let mut s = D::from(0.0);
    for k in 0..n {
        s += dot_d(&v, x) * (k + 1) as f64;
        for i in 0..v.len() {
            v[i] = v[i] * x[i] + 0.1;
        }
    }
    s
}

#[test]
fn a_local_lent_in_each_iteration_of_a_loop() {
    let x = [0.9, -0.4, 1.3];
    for n in 0..4 {
        let (value, (g, _)) = ad::value_and_grad(lent_in_loop, (&x[..], n));
        let (_, pullback) = ad::vjp(lent_in_loop, (&x[..], n));
        let (p, _) = pullback(1.0);
        assert_eq!(value.to_bits(), lent_in_loop(&x, n).to_bits());
        for k in 0..3 {
            let xs: Vec<D> = (0..3)
                .map(|i| D::new(x[i], if i == k { 1.0 } else { 0.0 }))
                .collect();
            let want = lent_in_loop_d(&xs, n).eps;
            let mut dx = [0.0; 3];
            dx[k] = 1.0;
            let (_, t) = ad::jvp(lent_in_loop, (&x[..], n), (&dx[..], ad::NoTangent));
            assert!(close(t, want, TOL), "n = {n}, jvp {k}: {t}, oracle {want}");
            assert!(
                close(g[k], want, TOL),
                "n = {n}, grad {k}: {}, oracle {want}",
                g[k]
            );
            assert!(
                close(p[k], want, TOL),
                "n = {n}, vjp {k}: {}, oracle {want}",
                p[k]
            );
        }
    }
}

/// Parts of a slice parameter and of a local (`&w[..n]`, `&w[n..2 * n]`, `&h[1..=2]`, `&h[n..]`)
/// passed on, the parameter's parts also twice in one call.
#[differentiable]
fn parts(w: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let a = dot(&w[..n], x);
    let b = dot(&w[n..2 * n], x);
    let mut h = vec![0.0; 2 * n];
    for i in 0..n {
        h[i] = (w[i] * a).tanh();
        h[n + i] = w[n + i] * b;
    }
    let c = dot(&h[0..n], &h[n..]);
    let d = dot(&h[1..=2], &w[2 * n..2 * n + 2]);
    h[0] = 5.0;
    let e = dot(&w[..2], &w[1..3]);
    c + d * a + norm2(&w[..=1]) + e * h[0]
}

fn parts_d(w: &[D], x: &[D]) -> D {
    let n = x.len();
    let a = dot_d(&w[..n], x);
    let b = dot_d(&w[n..2 * n], x);
    let mut h = vec![D::from(0.0); 2 * n];
    for i in 0..n {
        h[i] = (w[i] * a).tanh();
        h[n + i] = w[n + i] * b;
    }
    let c = dot_d(&h[0..n], &h[n..]);
    let d = dot_d(&h[1..=2], &w[2 * n..2 * n + 2]);
    h[0] = D::from(5.0);
    let e = dot_d(&w[..2], &w[1..3]);
    c + d * a + norm2_d(&w[..=1]) + e * h[0]
}

#[test]
fn parts_of_parameters_and_locals_passed_on() {
    let x = [0.5, -0.3, 0.8];
    let w: Vec<f64> = (0..8).map(|i| 0.1 * i as f64 - 0.35).collect();
    let value = parts(&w, &x);
    let (gv, (gw, gx)) = ad::value_and_grad(parts, (&w[..], &x[..]));
    let (_, pullback) = ad::vjp(parts, (&w[..], &x[..]));
    let (pw, px) = pullback(1.0);
    assert_eq!(gv.to_bits(), value.to_bits());
    for k in 0..11 {
        let seed = |i: usize| if i == k { 1.0 } else { 0.0 };
        let ws: Vec<D> = (0..8).map(|i| D::new(w[i], seed(i))).collect();
        let xs: Vec<D> = (0..3).map(|i| D::new(x[i], seed(8 + i))).collect();
        let want = parts_d(&ws, &xs);
        assert!(close(want.re, value, TOL));
        let dw: Vec<f64> = (0..8).map(seed).collect();
        let dx: Vec<f64> = (0..3).map(|i| seed(8 + i)).collect();
        let (_, t) = ad::jvp(parts, (&w[..], &x[..]), (&dw[..], &dx[..]));
        let (g, p) = if k < 8 {
            (gw[k], pw[k])
        } else {
            (gx[k - 8], px[k - 8])
        };
        assert!(
            close(t, want.eps, TOL),
            "jvp along {k}: {t}, oracle {}",
            want.eps
        );
        assert!(
            close(g, want.eps, TOL),
            "grad {k}: {g}, oracle {}",
            want.eps
        );
        assert!(close(p, want.eps, TOL), "vjp {k}: {p}, oracle {}", want.eps);
    }
}
