//! Local `Vec`s made by `vec![..]` at the top of the body and never assigned or read whole keep
//! their length, and the reverse sweep holds their adjoints in buffers of that length
//! (`reverse/dense.rs`): with the length written again from the parameters, or noted by the
//! forward sweep (on the tape when the sweeps run apart: `vjp` and its pullback, a callee's
//! sweeps inside a caller's). Each function is checked by `jvp`, `value_and_grad` and `vjp`
//! against central finite differences (see `fd_check` for h and the tolerance); the cases take
//! each path, and some sit just outside the conditions.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec,
    unused_mut,
    unused_assignments
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// Lengths written again from the parameters: `vec![0.0; n]` with `n` bound once to a length,
/// read and written by index, updated in place, summed, and carried across a loop's iterations
/// (`w[j]` and `w[j + 1]`).
#[differentiable]
fn from_parameters(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut w = vec![1.0; n + 1];
    for j in 0..n {
        v[j] = x[j] * x[j];
        w[j + 1] += v[j] * x[(j + 1) % n];
    }
    for j in 0..n {
        v[j] += w[j] * w[j + 1];
    }
    let mut s = 0.0;
    for j in 0..n {
        s += v[j].sin() * w[j];
    }
    s + v.iter().sum::<f64>()
}
probe!(
    lengths_from_parameters,
    from_parameters,
    [0.3, -1.2, 0.8, 2.0]
);

/// A length that the reverse sweep cannot compute again (a local assigned after its `let`): the
/// forward sweep notes it, and pushes it when the sweeps run apart.
#[differentiable]
fn noted(x: &[f64]) -> f64 {
    let mut m = x.len();
    m += 2;
    let mut v = vec![0.0; m];
    for j in 0..x.len() {
        v[j + 2] = x[j].exp() * v[j + 1] + x[j];
        v[j] = v[j + 2] * x[j];
    }
    let mut s = 0.0;
    for j in 0..m {
        s += v[j] * v[j];
    }
    s
}
probe!(a_length_the_forward_sweep_notes, noted, [0.3, -1.2, 0.8]);

/// `vec![a, b, c]` of values with derivatives: the whole adjoint goes to the elements at the
/// `let`, the buffer's length a literal count.
#[differentiable]
fn listed(x: &[f64]) -> f64 {
    let mut v = vec![x[0] * x[1], x[1].cos(), 2.0 * x[2]];
    for j in 0..3 {
        v[j] = v[j] * v[(j + 1) % 3];
    }
    v[0] + v[1] * v[2]
}
probe!(a_listed_vec, listed, [0.3, -1.2, 0.8]);

/// Two lengths noted and two written again in one function: the noted ones come off the tape in
/// the reverse of the order they went on.
#[differentiable]
fn several(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = n;
    a += 1;
    let mut b = n;
    b *= 2;
    let mut p = vec![0.0; a];
    let mut q = vec![0.0; n];
    let mut r = vec![0.0; b];
    let mut t = vec![0.5, 0.25];
    for j in 0..n {
        p[j + 1] = x[j] * t[j % 2];
        q[j] = p[j + 1] * p[j];
        r[2 * j + 1] = q[j].tanh();
        t[j % 2] += r[2 * j + 1];
    }
    let mut s = t[0] * t[1];
    for j in 0..b {
        s += r[j] * x[j / 2];
    }
    s
}
probe!(
    noted_and_written_lengths_together,
    several,
    [0.3, -1.2, 0.8, 0.4]
);

/// An early return before the `let` and one after it: the sweep that starts at each return
/// finds the buffer as long as the forward sweep left the `Vec`, or empty and untouched.
#[differentiable]
fn returns(x: &[f64]) -> f64 {
    if x[0] > 1.5 {
        return x[0] * x[1];
    }
    let mut m = x.len();
    m += 0;
    let mut v = vec![0.0; m];
    for j in 0..x.len() {
        v[j] = x[j] * x[0];
        if v[j] > 3.0 {
            return v[j] * v[0];
        }
    }
    v[1] * v[2] + v[0]
}
probe!(returns_before_the_let, returns, [2.0, -1.2, 0.8]);
probe!(returns_after_the_let, returns, [-1.9, -1.2, 0.8]);
probe!(no_return, returns, [0.3, -1.2, 0.8]);

/// A callee with a dense local whose length is noted, called from a differentiable function:
/// in reverse mode the callee's forward sweep runs inside the caller's and its reverse sweep
/// later, so the length goes through the tape, between the caller's own records.
#[differentiable]
fn callee(x: &[f64]) -> f64 {
    let mut m = x.len();
    m -= 1;
    let mut v = vec![0.0; m];
    for j in 0..m {
        v[j] = x[j] * x[j + 1];
    }
    let mut s = 0.0;
    for j in 0..m {
        s += v[j] * v[j];
    }
    s
}

#[differentiable]
fn caller(x: &[f64]) -> f64 {
    let a = x[0].sin();
    let inner = callee(x);
    let b = callee(x) * a;
    inner * x[1] + b
}
probe!(a_callee_with_a_noted_length, caller, [0.3, -1.2, 0.8, 0.5]);

/// Outside the conditions: a `Vec` assigned whole, one declared in a loop (a new length each
/// iteration), one read whole (copied), one inside a block. Their adjoints stay growable.
#[differentiable]
fn not_dense(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    a = vec![1.0; n + 1];
    let mut s = 0.0;
    for i in 1..n {
        let mut c = vec![0.0; i];
        for j in 0..i {
            c[j] = x[j] * a[j + 1];
            a[j] += c[j];
        }
        s += c[i - 1];
    }
    let mut d = vec![0.0; n];
    d[0] = x[0] * x[1];
    let e = d;
    let f = {
        let mut g = vec![0.0; 2];
        g[1] = x[2] * s;
        g[1] * g[1]
    };
    s * a[0] + e[0] + f
}
probe!(outside_the_conditions, not_dense, [0.3, -1.2, 0.8, 0.5]);

/// `f32` elements: the buffer has the element's tangent type. The closed form:
/// `f = sum_j (x_j^2 + x_j)^2`, `df/dx_j = 2 (x_j^2 + x_j) (2 x_j + 1)`.
#[differentiable]
fn single(x: &[f32]) -> f32 {
    let n = x.len();
    let mut v = vec![0.0f32; n];
    for j in 0..n {
        v[j] = x[j] * x[j];
        v[j] += x[j];
    }
    let mut s = 0.0f32;
    for j in 0..n {
        s += v[j] * v[j];
    }
    s
}

#[test]
fn single_precision_elements() {
    let x = [0.5f32, -1.25, 2.0];
    let want: Vec<f32> = x
        .iter()
        .map(|&t| 2.0 * (t * t + t) * (2.0 * t + 1.0))
        .collect();
    let (_, (g,)) = ad::value_and_grad(single, (&x[..],));
    let (_, pullback) = ad::vjp(single, (&x[..],));
    let (v,) = pullback(1.0);
    for (got, w) in [g, v].iter().flat_map(|g| g.iter().zip(&want)) {
        // Each coordinate is a few f32 operations from the closed form's: relative 1e-5.
        assert!(
            (got - w).abs() <= 1e-5 * w.abs().max(1.0),
            "{got} against {w}"
        );
    }
}

/// One pullback run twice, and two pullbacks of one function interleaved: each reverse sweep
/// pops the noted length its own forward sweep pushed.
#[test]
fn pullbacks_run_twice_and_interleaved() {
    let x = [0.3, -1.2, 0.8];
    let y = [1.1, 0.4, -0.6];
    let want_x = fd_check::fd(&|x| noted(x), &x);
    let want_y = fd_check::fd(&|y| noted(y), &y);
    let (_, px) = ad::vjp(noted, (&x[..],));
    let (_, py) = ad::vjp(noted, (&y[..],));
    let gy = py(1.0).0;
    let gx = px(1.0).0;
    let gx2 = px(2.0).0;
    for i in 0..3 {
        assert!(
            fd_check::close(gx[i], want_x[i], 1e-6),
            "{gx:?} against {want_x:?}"
        );
        assert!(
            fd_check::close(gy[i], want_y[i], 1e-6),
            "{gy:?} against {want_y:?}"
        );
        assert!(fd_check::close(gx2[i], 2.0 * want_x[i], 1e-6), "{gx2:?}");
    }
}
