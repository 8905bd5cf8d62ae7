//! Local `Vec`s and arrays lent to a callee that writes them (`f(&mut v)`, `f(&mut v[..])`,
//! `f(&mut v[a..b])`), in both modes, against dual numbers: each function is written a second
//! time over `num_dual::Dual64` and seeded along each input, and every derivative of `ad`
//! (forward, reverse in one call, reverse through `ad::vjp`) must agree with it to 1e-12
//! relative (tests/dual_check/mod.rs says why that tolerance).
//!
//! The reverse sweep keeps a copy of the part lent as it was before the call, lends it to the
//! callee's reverse sweep again with the part of the local's adjoint, which the callee turns
//! from the adjoint of the values after the call into that of the values before. What would go
//! wrong otherwise, each tested here: the callee's reverse sweep seeing the values after the
//! call (`forms`, where the callee reads what it writes), reads of the local before and after
//! the call (`rows`), a local that only the call makes active, and one that no call makes active
//! (`through`), a callee that takes `&mut [T; N]` (`arrays`), sweeps split through the tape
//! (`nested`), rules of the callee (`ruled`).

// Index loops are the spelling under test.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, c, grid};

/// One explicit Euler-like step that reads what it writes.
#[differentiable]
fn step(h: f64, s: &mut [f64]) {
    let n = s.len();
    for i in 0..n {
        s[i] += h * (s[i] * s[(i + 1) % n]).sin();
    }
}

fn step_d(h: D, s: &mut [D]) {
    let n = s.len();
    for i in 0..n {
        let next = s[(i + 1) % n];
        s[i] += h * (s[i] * next).sin();
    }
}

/// Every form of lending: `&mut v[..]`, parts (`a..b`, `a..=b`, `a..`, `..b`), `&mut v` of a
/// `Vec` and of an array.
#[differentiable]
fn forms(x: f64, y: f64) -> f64 {
    let mut v = vec![0.0; 5];
    v[0] = x * y;
    v[4] = y;
    step(x, &mut v[..]);
    step(y, &mut v[1..3]);
    step(x * y, &mut v);
    step(0.5, &mut v[2..=4]);
    step(y, &mut v[3..]);
    step(x, &mut v[..2]);
    let mut w = [1.0, y, x];
    step(x, &mut w);
    step(y, &mut w[1..]);
    v[0] * v[1] + v[2] * v[3] - v[4].cos() + w[0] * w[1] * w[2]
}

fn forms_d(x: D, y: D) -> D {
    let mut v = vec![c(0.0); 5];
    v[0] = x * y;
    v[4] = y;
    step_d(x, &mut v[..]);
    step_d(y, &mut v[1..3]);
    step_d(x * y, &mut v);
    step_d(c(0.5), &mut v[2..=4]);
    step_d(y, &mut v[3..]);
    step_d(x, &mut v[..2]);
    let mut w = [c(1.0), y, x];
    step_d(x, &mut w);
    step_d(y, &mut w[1..]);
    v[0] * v[1] + v[2] * v[3] - v[4].cos() + w[0] * w[1] * w[2]
}

#[test]
fn every_form_of_lending_mutably() {
    for x in grid(-0.9, 1.2, 4) {
        for y in grid(-1.1, 0.8, 3) {
            seen2!(forms, forms_d, x, y).check(&format!("forms({x}, {y})"));
        }
    }
}

/// A `Vec` updated a row at a time in loops, read before and after each call.
#[differentiable]
fn rows(x: f64, y: f64, n: usize) -> f64 {
    let mut m = vec![0.0; 2 * n];
    for i in 0..n {
        m[2 * i] = x + i as f64;
        m[2 * i + 1] = y;
    }
    let mut s = 0.0;
    for k in 0..3 {
        for i in 0..n {
            let before = m[2 * i];
            step(x * (k + 1) as f64, &mut m[2 * i..2 * i + 2]);
            s += before * m[2 * i + 1];
        }
    }
    s + m[0]
}

fn rows_d(x: D, y: D, n: usize) -> D {
    let mut m = vec![c(0.0); 2 * n];
    for i in 0..n {
        m[2 * i] = x + i as f64;
        m[2 * i + 1] = y;
    }
    let mut s = c(0.0);
    for k in 0..3 {
        for i in 0..n {
            let before = m[2 * i];
            step_d(x * (k + 1) as f64, &mut m[2 * i..2 * i + 2]);
            s += before * m[2 * i + 1];
        }
    }
    s + m[0]
}

#[test]
fn rows_updated_in_loops() {
    for n in [1, 2, 4] {
        for x in grid(-0.6, 0.7, 3) {
            let y = 0.4 - x;
            seen2!(rows, rows_d, x, y, n).check(&format!("rows({x}, {y}, {n})"));
        }
    }
}

/// Scales `s` by `a` and returns the sum of what it wrote.
#[differentiable]
fn scale(a: f64, s: &mut [f64]) -> f64 {
    let mut t = 0.0;
    for i in 0..s.len() {
        s[i] *= a;
        t += s[i];
    }
    t
}

fn scale_d(a: D, s: &mut [D]) -> D {
    let mut t = c(0.0);
    for i in 0..s.len() {
        s[i] *= a;
        t += s[i];
    }
    t
}

/// `c` is lent to a call without a derivative; `v` holds constants until a call writes the
/// arguments' derivatives into it; the calls' results are used too.
#[differentiable]
fn through(x: f64, y: f64) -> f64 {
    let mut c = vec![1.0, 2.0, 3.0];
    scale(2.0, &mut c);
    let mut v = vec![1.0; 3];
    let t = scale(x, &mut v);
    let u = scale(y, &mut v[1..]);
    t * u + v[0] * c[2] + v[2]
}

fn through_d(x: D, y: D) -> D {
    let mut cs = vec![c(1.0), c(2.0), c(3.0)];
    scale_d(c(2.0), &mut cs);
    let mut v = vec![c(1.0); 3];
    let t = scale_d(x, &mut v);
    let u = scale_d(y, &mut v[1..]);
    t * u + v[0] * cs[2] + v[2]
}

#[test]
fn locals_made_active_by_the_call_and_not() {
    for x in grid(-1.0, 1.0, 3) {
        for y in grid(-0.5, 1.5, 3) {
            seen2!(through, through_d, x, y).check(&format!("through({x}, {y})"));
        }
    }
}

/// A callee that takes `&mut [T; N]`.
#[differentiable]
fn rotate(t: f64, p: &mut [f64; 2]) {
    let (c, s) = (t.cos(), t.sin());
    let x = p[0];
    p[0] = c * x - s * p[1];
    p[1] = s * x + c * p[1];
}

fn rotate_d(t: D, p: &mut [D; 2]) {
    let (c, s) = (t.cos(), t.sin());
    let x = p[0];
    p[0] = c * x - s * p[1];
    p[1] = s * x + c * p[1];
}

#[differentiable]
fn arrays(x: f64, y: f64) -> f64 {
    let mut p = [x, y * y];
    rotate(x * y, &mut p);
    let mut q = [1.0, 2.0];
    rotate(0.3, &mut q);
    rotate(y, &mut p);
    p[0] * p[1] + q[0] * p[0]
}

fn arrays_d(x: D, y: D) -> D {
    let mut p = [x, y * y];
    rotate_d(x * y, &mut p);
    let mut q = [c(1.0), c(2.0)];
    rotate_d(c(0.3), &mut q);
    rotate_d(y, &mut p);
    p[0] * p[1] + q[0] * p[0]
}

#[test]
fn a_callee_that_takes_a_mutable_array() {
    for x in grid(-1.0, 1.0, 3) {
        for y in grid(-0.5, 1.5, 3) {
            seen2!(arrays, arrays_d, x, y).check(&format!("arrays({x}, {y})"));
        }
    }
}

/// Functions that lend locals, called by another: their sweeps run apart, through the tape.
#[differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        s += forms(x * y, y + k as f64) * through(y, x) + rows(x, y, k + 1);
    }
    s
}

fn nested_d(x: D, y: D) -> D {
    let mut s = c(0.0);
    for k in 0..2 {
        s += forms_d(x * y, y + k as f64) * through_d(y, x) + rows_d(x, y, k + 1);
    }
    s
}

#[test]
fn lending_functions_called_by_another() {
    for x in grid(-0.5, 0.5, 3) {
        let y = 0.3 + x * x;
        seen2!(nested, nested_d, x, y).check(&format!("nested({x}, {y})"));
    }
}

/// Output slices passed on in part (`&mut y[1..]`) and whole as a reborrow (`&mut *y`), and a
/// `&mut [T; N]` parameter passed on whole and in part.
#[differentiable]
fn outputs(x: f64, y: &mut [f64], p: &mut [f64; 2]) {
    step(x, &mut y[1..]);
    step(x * x, &mut *y);
    step(0.5, &mut y[..=1]);
    rotate(x, p);
    step(x, &mut p[1..]);
    step(y[0], p);
}

fn outputs_d(x: D, y: &mut [D], p: &mut [D; 2]) {
    step_d(x, &mut y[1..]);
    step_d(x * x, &mut *y);
    step_d(c(0.5), &mut y[..=1]);
    rotate_d(x, p);
    step_d(x, &mut p[1..]);
    step_d(y[0], p);
}

#[differentiable]
fn calls_outputs(x: f64, w: f64) -> f64 {
    let mut y = vec![w, 0.3, x];
    let mut p = [x * w, 1.0];
    outputs(x, &mut y, &mut p);
    y[0] * y[1] - y[2] + p[0] * p[1]
}

fn calls_outputs_d(x: D, w: D) -> D {
    let mut y = vec![w, c(0.3), x];
    let mut p = [x * w, c(1.0)];
    outputs_d(x, &mut y, &mut p);
    y[0] * y[1] - y[2] + p[0] * p[1]
}

#[test]
fn outputs_passed_on_in_part_and_as_reborrows() {
    for x in grid(-0.8, 0.9, 3) {
        for w in grid(-0.4, 1.2, 3) {
            seen2!(calls_outputs, calls_outputs_d, x, w).check(&format!("outputs({x}, {w})"));
        }
    }
    // The entry points on `outputs` itself: forward mode writes the outputs' tangents.
    let (x, y0, p0) = (0.7, [0.2, -0.5, 0.9], [0.4, 1.1]);
    let (mut y, mut p) = (y0, p0);
    let (mut dy, mut dp) = ([0.0; 3], [0.0; 2]);
    ad::jvp(
        outputs,
        (x, &mut y[..], &mut p),
        (1.0, &mut dy[..], &mut dp),
    );
    let mut yd: Vec<D> = y0.iter().map(|v| c(*v)).collect();
    let mut pd = [c(p0[0]), c(p0[1])];
    outputs_d(D::new(x, 1.0), &mut yd, &mut pd);
    for i in 0..3 {
        assert_eq!(y[i].to_bits(), yd[i].re.to_bits());
        assert!(
            dual_check::close(dy[i], yd[i].eps, dual_check::TOL),
            "dy[{i}]"
        );
    }
    for i in 0..2 {
        assert!(
            dual_check::close(dp[i], pd[i].eps, dual_check::TOL),
            "dp[{i}]"
        );
    }
}

/// `y[i] = y[i] a + a^2`, with rules of its own in both modes (no generated derivative).
fn affine(a: f64, y: &mut [f64]) {
    for v in y.iter_mut() {
        *v = *v * a + a * a;
    }
}

#[ad::custom_rule(forward, of = affine)]
fn affine_jvp(a: f64, da: f64, y: &mut [f64], dy: &mut [f64]) -> ((), ad::NoTangent) {
    for i in 0..y.len() {
        dy[i] = dy[i] * a + y[i] * da + 2.0 * a * da;
        y[i] = y[i] * a + a * a;
    }
    ((), ad::NoTangent)
}

/// `y.value` is the part lent as it was before the call.
#[ad::custom_rule(reverse, of = affine)]
fn affine_vjp(a: f64, y: ad::DupMut<f64>, _: (), _: ad::NoTangent) -> (f64, ad::NoTangent) {
    let mut a_bar = 0.0;
    for i in 0..y.value.len() {
        a_bar += y.adjoint[i] * (y.value[i] + 2.0 * a);
        y.adjoint[i] *= a;
    }
    (a_bar, ad::NoTangent)
}

fn affine_d(a: D, y: &mut [D]) {
    for v in y.iter_mut() {
        *v = *v * a + a * a;
    }
}

#[differentiable]
fn ruled(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y, x * y];
    affine(y, &mut v[1..]);
    affine(x, &mut v);
    let mut w = [y; 2];
    affine(x * x, &mut w);
    v[0] * v[1] + v[2] * w[0] - w[1]
}

fn ruled_d(x: D, y: D) -> D {
    let mut v = vec![x, y, x * y];
    affine_d(y, &mut v[1..]);
    affine_d(x, &mut v);
    let mut w = [y; 2];
    affine_d(x * x, &mut w);
    v[0] * v[1] + v[2] * w[0] - w[1]
}

#[test]
fn rules_of_the_callee_serve_locals_lent_mutably() {
    for x in grid(-0.9, 1.1, 3) {
        for y in grid(-0.7, 0.6, 3) {
            seen2!(ruled, ruled_d, x, y).check(&format!("ruled({x}, {y})"));
        }
    }
}

/// As `affine`, used by this test alone: its run-time rule is seen by no other test.
fn shift(a: f64, y: &mut [f64]) {
    for v in y.iter_mut() {
        *v += a;
    }
}

#[ad::custom_rule(reverse, of = shift)]
fn shift_vjp(_: f64, y: ad::DupMut<f64>, _: (), _: ad::NoTangent) -> (f64, ad::NoTangent) {
    (y.adjoint.iter().sum(), ad::NoTangent)
}

#[differentiable]
fn shifted(x: f64) -> f64 {
    let mut v = [x, 2.0 * x];
    shift(x, &mut v);
    v[0] * v[1]
}

#[test]
fn a_rule_registered_after_the_first_gradient_is_honoured_and_dropped() {
    let x = 0.75;
    // v = (2x, 3x): d/dx 6x^2 = 12x.
    let (exact,) = ad::grad(shifted, (x,));
    assert!(dual_check::close(exact, 12.0 * x, dual_check::TOL));
    // A rule that holds the shift constant (no adjoint for `a`): the derivative of
    // (x + c)(2x + c) at c = x, 3x + 2 (2x) = 7x.
    let guard = ad::rules::register_reverse(
        shift,
        |_: f64, y: ad::DupMut<f64>, _: (), _: ad::NoTangent| {
            let _ = &y.adjoint;
            (0.0, ad::NoTangent)
        },
    );
    let (ruled,) = ad::grad(shifted, (x,));
    assert!(
        dual_check::close(ruled, 7.0 * x, dual_check::TOL),
        "{ruled}"
    );
    drop(guard);
    let (again,) = ad::grad(shifted, (x,));
    assert_eq!(again.to_bits(), exact.to_bits());
}

/// Generic code: a local `Vec<T>` lent to a generic callee, with and without a turbofish.
#[differentiable]
fn relax<T: num_traits::Float>(w: T, s: &mut [T]) {
    for i in 1..s.len() {
        s[i] = s[i] * w + s[i - 1] * (T::one() - w);
    }
}

#[differentiable]
fn smooth<T: num_traits::Float>(x: T, y: T) -> T {
    let mut v = vec![x, y, x * y, T::one()];
    relax(x, &mut v[1..]);
    relax::<T>(y, &mut v);
    v[3] * v[2] + v[0]
}

fn relax_d(w: D, s: &mut [D]) {
    for i in 1..s.len() {
        s[i] = s[i] * w + s[i - 1] * (c(1.0) - w);
    }
}

fn smooth_d(x: D, y: D) -> D {
    let mut v = vec![x, y, x * y, c(1.0)];
    relax_d(x, &mut v[1..]);
    relax_d(y, &mut v);
    v[3] * v[2] + v[0]
}

#[test]
fn generic_functions_lend_locals_at_f64_and_f32() {
    for x in grid(-0.9, 0.8, 3) {
        for y in grid(0.1, 1.4, 3) {
            seen2!(smooth::<f64>, smooth_d, x, y).check(&format!("smooth({x}, {y})"));
            // At f32: a few hundred operations' rounding, 1e-4 relative (f32's epsilon is
            // 1.2e-7), against the oracle at f64.
            let (xf, yf) = (x as f32, y as f32);
            let (gx, gy) = ad::grad(smooth::<f32>, (xf, yf));
            let (_, tx) = ad::jvp(smooth::<f32>, (xf, yf), (1.0, 0.0));
            let wx = smooth_d(D::new(xf as f64, 1.0), c(yf as f64)).eps;
            let wy = smooth_d(c(xf as f64), D::new(yf as f64, 1.0)).eps;
            assert!(
                dual_check::close(gx as f64, wx, 1e-4),
                "f32 d/dx {gx}, oracle {wx}"
            );
            assert!(
                dual_check::close(tx as f64, wx, 1e-4),
                "f32 jvp {tx}, oracle {wx}"
            );
            assert!(
                dual_check::close(gy as f64, wy, 1e-4),
                "f32 d/dy {gy}, oracle {wy}"
            );
        }
    }
}

/// An array parameter the function writes only through a call: its elements read before the
/// call are not the ones after, so the reverse sweep must not read them again from it.
#[differentiable]
fn param_lent(mut p: [f64; 2], x: f64) -> f64 {
    let a = p[0] * p[1];
    step(x, &mut p);
    let b = p[0] * x;
    step(a, &mut p[1..]);
    // A copy bound once, then written through a call: not the value it was bound to.
    let mut w = p;
    step(b, &mut w);
    a * b + p[1] * p[0] + w[0] * p[1] + total(&w)
}

#[differentiable]
fn total(v: &[f64]) -> f64 {
    v[0] + v[v.len() - 1]
}

fn param_lent_d(mut p: [D; 2], x: D) -> D {
    let a = p[0] * p[1];
    step_d(x, &mut p);
    let b = p[0] * x;
    step_d(a, &mut p[1..]);
    let mut w = p;
    step_d(b, &mut w);
    a * b + p[1] * p[0] + w[0] * p[1] + (w[0] + w[1])
}

#[test]
fn a_parameter_written_only_through_calls() {
    for x in grid(-0.8, 0.9, 3) {
        for y in grid(-0.6, 1.0, 3) {
            let p = [x, y];
            let value = param_lent(p, x * y);
            let (gv, (gp, gx)) = ad::value_and_grad(param_lent, (p, x * y));
            let (pv, pullback) = ad::vjp(param_lent, (p, x * y));
            let (pp, px) = pullback(1.0);
            assert_eq!(gv.to_bits(), value.to_bits());
            assert_eq!(pv.to_bits(), value.to_bits());
            for k in 0..3 {
                let seed = |i: usize| if i == k { 1.0 } else { 0.0 };
                let want = param_lent_d(
                    [D::new(x, seed(0)), D::new(y, seed(1))],
                    D::new(x * y, seed(2)),
                )
                .eps;
                let tp = [seed(0), seed(1)];
                let (_, t) = ad::jvp(param_lent, (p, x * y), (tp, seed(2)));
                let (g, b) = if k < 2 { (gp[k], pp[k]) } else { (gx, px) };
                assert!(
                    dual_check::close(t, want, dual_check::TOL),
                    "jvp {k}: {t}, oracle {want}"
                );
                assert!(
                    dual_check::close(g, want, dual_check::TOL),
                    "grad {k}: {g}, oracle {want}"
                );
                assert!(
                    dual_check::close(b, want, dual_check::TOL),
                    "vjp {k}: {b}, oracle {want}"
                );
            }
        }
    }
}

/// A loop that reads one element in every iteration and lends its variable to a call that
/// changes it: the reads' adjoints must not be summed as if the element stayed the same, nor
/// the element kept once for the whole loop.
#[differentiable]
fn same_element(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y];
    let mut s = 0.0;
    for _ in 0..4 {
        s += v[0] * y;
        step(x, &mut v);
    }
    let w = [y, x];
    let mut u = [0.5, x];
    for k in 0..3 {
        s += w[1] * u[1] + k as f64;
        step(w[0], &mut u[1..]);
    }
    s + v[1] * u[0]
}

fn same_element_d(x: D, y: D) -> D {
    let mut v = vec![x, y];
    let mut s = c(0.0);
    for _ in 0..4 {
        s += v[0] * y;
        step_d(x, &mut v);
    }
    let w = [y, x];
    let mut u = [c(0.5), x];
    for k in 0..3 {
        s += w[1] * u[1] + k as f64;
        step_d(w[0], &mut u[1..]);
    }
    s + v[1] * u[0]
}

#[test]
fn one_element_read_in_every_iteration_of_a_loop_that_lends_it() {
    for x in grid(-0.7, 0.8, 3) {
        for y in grid(-0.9, 0.6, 3) {
            seen2!(same_element, same_element_d, x, y).check(&format!("same_element({x}, {y})"));
        }
    }
}

/// Rows written through mutable views (`let row = &mut m[..];`), views of views, parts of
/// views lent on, and a view of an output slice.
#[differentiable]
fn through_views(x: f64, y: f64) -> f64 {
    let n = 3;
    let mut m = vec![0.0; 2 * n];
    for i in 0..2 {
        let row = &mut m[i * n..(i + 1) * n];
        for j in 0..row.len() {
            row[j] = x * (i + j) as f64 + y;
        }
        row[0] += x * y;
        step(y, row);
        step(x, &mut row[1..]);
        let head = &mut row[..2];
        head[1] *= x;
        scale(y, head);
    }
    let whole = &m[..];
    let tail = &whole[n..];
    let mut out = [y, 0.5, x];
    rows_out(x * y, &mut out);
    total(tail) * total(&whole[1..=2]) + tail[1] * m[0] + out[0] * out[2]
}

#[differentiable]
fn rows_out(x: f64, y: &mut [f64]) {
    let first = &mut y[..2];
    first[0] = x * first[1];
    step(x, first);
    let rest = &mut y[1..];
    rest[1] += x * rest[0];
}

fn through_views_d(x: D, y: D) -> D {
    let n = 3;
    let mut m = vec![c(0.0); 2 * n];
    for i in 0..2 {
        let row = &mut m[i * n..(i + 1) * n];
        for j in 0..row.len() {
            row[j] = x * (i + j) as f64 + y;
        }
        row[0] += x * y;
        step_d(y, row);
        step_d(x, &mut row[1..]);
        let head = &mut row[..2];
        head[1] *= x;
        scale_d(y, head);
    }
    let whole = &m[..];
    let tail = &whole[n..];
    let mut out = [y, c(0.5), x];
    rows_out_d(x * y, &mut out);
    let total_d = |v: &[D]| v[0] + v[v.len() - 1];
    total_d(tail) * total_d(&whole[1..=2]) + tail[1] * m[0] + out[0] * out[2]
}

fn rows_out_d(x: D, y: &mut [D]) {
    let first = &mut y[..2];
    first[0] = x * first[1];
    step_d(x, first);
    let rest = &mut y[1..];
    let r0 = rest[0];
    rest[1] += x * r0;
}

#[test]
fn mutable_views_and_views_of_views() {
    for x in grid(-0.8, 0.7, 3) {
        for y in grid(-0.5, 0.9, 3) {
            seen2!(through_views, through_views_d, x, y).check(&format!("through_views({x}, {y})"));
        }
    }
}

/// Swaps the first two entries: no derivative, and none needed.
fn swap_first(a: &mut [usize]) {
    a.swap(0, 1);
}

/// Integers lent to a function without a derivative, which writes them: kept as written.
#[differentiable]
fn integers(x: f64, y: f64) -> f64 {
    let mut order: Vec<usize> = vec![0, 1];
    swap_first(&mut order);
    let v = [x, y];
    v[order[0]] * x + v[order[1]]
}

fn integers_d(x: D, y: D) -> D {
    let mut order: Vec<usize> = vec![0, 1];
    swap_first(&mut order);
    let v = [x, y];
    v[order[0]] * x + v[order[1]]
}

#[test]
fn integers_lent_to_a_function_without_a_derivative() {
    seen2!(integers, integers_d, 0.6, -1.3).check("integers");
}
