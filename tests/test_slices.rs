//! Slices as parameters: `&[T]` inputs and `&mut [T]` outputs, in both modes, through `jvp`,
//! `grad`, `vjp` and `vjp_into`, with generated derivatives and with rules of the user's. The
//! oracle is central finite differences on each input coordinate: h = 1e-6 keeps truncation
//! (~h^2 |f'''|) and rounding (~eps |f| / h) below 1e-8 relative for these smooth, O(1)-scaled
//! functions, so 1e-7 is a safe tolerance.

// Index loops are the spelling under test.
#![allow(clippy::needless_range_loop)]

use ad::{custom_rule, differentiable};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

fn fd_at(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut hi, mut lo) = (x.to_vec(), x.to_vec());
    hi[i] += h;
    lo[i] -= h;
    (f(&hi) - f(&lo)) / (2.0 * h)
}

/// A least-squares loss of weights against data pairs (x, y) stored one after the other.
#[differentiable]
fn loss(w: &[f64], data: &[f64]) -> f64 {
    let n = data.len() / 2;
    let mut total = 0.0;
    for k in 0..n {
        let x = data[2 * k];
        let mut p = 0.0;
        for (j, wj) in w.iter().enumerate() {
            p += wj * x.powi(j as i32);
        }
        let r = p - data[2 * k + 1];
        total += r * r;
    }
    let ridge: f64 = w.iter().sum();
    total / n as f64 + 1e-3 * ridge * ridge
}

#[test]
fn gradient_of_a_loss_over_slices_returns_vectors() {
    let w = vec![0.3, -0.7, 0.25];
    let data = vec![0.5, 1.0, -1.0, 0.2, 1.5, -0.4, 2.0, 0.9];
    let (value, (gw, gdata)) = ad::value_and_grad(loss, (&w, &data));
    assert_eq!(value, loss(&w, &data));
    assert_eq!((gw.len(), gdata.len()), (3, 8));
    let joined: Vec<f64> = w.iter().chain(&data).copied().collect();
    let f = |z: &[f64]| loss(&z[..3], &z[3..]);
    for i in 0..joined.len() {
        let g = if i < 3 { gw[i] } else { gdata[i - 3] };
        let fd = fd_at(&f, &joined, i);
        assert!(close(g, fd, 1e-7), "reverse {i}: {g} vs {fd}");
    }
    // Forward mode along each weight, the data held still.
    let zero = vec![0.0; data.len()];
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (v, d) = ad::jvp(loss, (&w[..], &data[..]), (&e[..], &zero[..]));
        assert_eq!(v, value);
        assert!(close(d, gw[i], 1e-12), "forward {i}: {d} vs {}", gw[i]);
    }
    // The pullback, twice.
    let (_, pullback) = ad::vjp(loss, (&w[..], &data[..]));
    let (g2, _) = pullback(2.0);
    for i in 0..3 {
        assert!(close(g2[i], 2.0 * gw[i], 1e-12));
    }
    assert_eq!(pullback(1.0).0, gw);
}

/// y = A x for a row-major `m x n` matrix `a`, written into `y`.
#[differentiable]
fn matvec(a: &[f64], x: &[f64], y: &mut [f64]) {
    let n = x.len();
    for i in 0..y.len() {
        let mut s = 0.0;
        for j in 0..n {
            s += a[i * n + j] * x[j];
        }
        y[i] = s;
    }
}

#[test]
fn outputs_written_in_place_in_both_modes() {
    let a = [1.0, 2.0, -1.0, 0.5, 3.0, 0.25];
    let x = [0.3, -1.1];
    let mut y = [0.0; 3];
    // Forward: the outputs and their tangents are written into the caller's buffers.
    let mut dy = [0.0; 3];
    let dx = [1.0, 0.0];
    let da = [0.0; 6];
    let ((), _) = ad::jvp(
        matvec,
        (&a[..], &x[..], &mut y[..]),
        (&da[..], &dx[..], &mut dy[..]),
    );
    let mut primal = [0.0; 3];
    matvec(&a, &x, &mut primal);
    assert_eq!(y, primal);
    assert!(close(y[0], 0.3 - 2.2, 1e-15) && close(y[2], 0.9 - 0.275, 1e-15));
    assert_eq!(dy, [1.0, -1.0, 3.0]); // the first column of A
    // Reverse: the output's adjoint comes in its buffer and is consumed.
    let mut a_bar = [0.0; 6];
    let mut x_bar = [0.0; 2];
    let mut y_bar = [1.0, 2.0, 3.0];
    ad::vjp_into(
        matvec,
        (&a[..], &x[..], &mut y[..]),
        (&mut a_bar[..], &mut x_bar[..], &mut y_bar[..]),
        ad::NoTangent,
    );
    assert_eq!(y_bar, [0.0; 3]);
    // x_bar = A^T y_bar, a_bar = y_bar x^T
    assert_eq!(x_bar, [1.0 - 2.0 + 3.0 * 3.0, 2.0 + 2.0 * 0.5 + 3.0 * 0.25]);
    for i in 0..3 {
        for j in 0..2 {
            assert!(close(a_bar[i * 2 + j], (i + 1) as f64 * x[j], 1e-15));
        }
    }
    // Buffers accumulate: a second call adds the same again.
    let mut y_bar = [1.0, 2.0, 3.0];
    ad::vjp_into(
        matvec,
        (&a[..], &x[..], &mut y[..]),
        (&mut a_bar[..], &mut x_bar[..], &mut y_bar[..]),
        ad::NoTangent,
    );
    assert_eq!(x_bar, [2.0 * 8.0, 2.0 * 3.75]);
}

/// An output that is read back after it is written, and overwritten.
#[differentiable]
fn smooth_in_place(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    let mut total = 0.0;
    for i in 0..y.len() {
        let v = y[i];
        y[i] = v.tanh();
        total += y[i] * v;
    }
    total
}

#[test]
fn outputs_read_back_and_overwritten() {
    let x = [0.4, -0.8, 1.2];
    let value = |z: &[f64]| {
        let mut y = [0.0; 3];
        smooth_in_place(z, &mut y)
    };
    let mut y = [0.0; 3];
    let mut x_bar = [0.0; 3];
    let mut y_bar = [0.0; 3]; // no adjoint on the written values: the result's only
    let (v, _) = ad::vjp_into(
        smooth_in_place,
        (&x[..], &mut y[..]),
        (&mut x_bar[..], &mut y_bar[..]),
        1.0,
    );
    assert_eq!(v, value(&x));
    for i in 0..3 {
        let fd = fd_at(&value, &x, i);
        assert!(
            close(x_bar[i], fd, 1e-7),
            "reverse {i}: {} vs {fd}",
            x_bar[i]
        );
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let mut y = [0.0; 3];
        let mut dy = [0.0; 3];
        let (_, d) = ad::jvp(smooth_in_place, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        assert!(close(d, fd, 1e-7), "forward {i}: {d} vs {fd}");
        // The tangent of each written output is that of tanh(x^2).
        for (k, dyk) in dy.iter().enumerate() {
            let expected = if k == i {
                2.0 * x[k] * (1.0 - (x[k] * x[k]).tanh().powi(2))
            } else {
                0.0
            };
            assert!(close(*dyk, expected, 1e-12));
        }
    }
}

/// Horner's rule over a slice of coefficients, in f32.
#[differentiable]
fn horner32(c: &[f32], x: f32) -> f32 {
    let mut acc = 0.0;
    for i in (0..c.len()).rev() {
        acc = acc * x + c[i];
    }
    acc
}

/// f32 against the closed forms d/dc_i = x^i, d/dx = p'(x); a handful of f32 operations on
/// O(1) values: 1e-5 relative.
#[test]
fn f32_slices() {
    let c = [0.5f32, -1.0, 0.25, 2.0];
    let x = 0.75f32;
    let (_, (gc, gx)) = ad::value_and_grad(horner32, (&c[..], x));
    for (i, g) in gc.iter().enumerate() {
        assert!((g - x.powi(i as i32)).abs() <= 1e-5);
    }
    let slope = -1.0 + 2.0 * 0.25 * x + 3.0 * 2.0 * x * x;
    assert!((gx - slope).abs() <= 1e-5 * slope.abs());
}

/// A dot product with rules of its own in both modes, checked through the API.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[custom_rule(forward, of = dot)]
fn dot_jvp(a: &[f64], da: &[f64], b: &[f64], db: &[f64]) -> (f64, f64) {
    (dot(a, b), dot(da, b) + dot(a, db))
}

#[custom_rule(reverse, of = dot)]
fn dot_vjp(
    a: ad::Dup<f64>,
    b: ad::Dup<f64>,
    _value: f64,
    bar: f64,
) -> (ad::NoTangent, ad::NoTangent) {
    for i in 0..a.value.len() {
        a.adjoint[i] += b.value[i] * bar;
        b.adjoint[i] += a.value[i] * bar;
    }
    (ad::NoTangent, ad::NoTangent)
}

#[test]
fn rules_of_functions_with_slices() {
    let a = [1.0, 2.0, 3.0];
    let b = [4.0, 5.0, 6.0];
    assert_eq!(
        ad::jvp(dot, (&a[..], &b[..]), (&[1.0, 0.0, 0.0][..], &[0.0; 3][..])),
        (32.0, 4.0)
    );
    let (ga, gb) = ad::grad(dot, (&a[..], &b[..]));
    assert_eq!((ga, gb), (b.to_vec(), a.to_vec()));
}

/// Only a forward rule: a gradient would need a conversion, which slices do not allow.
fn only_forward(a: &[f64]) -> f64 {
    a[0]
}

#[custom_rule(forward, of = only_forward)]
fn only_forward_jvp(a: &[f64], da: &[f64]) -> (f64, f64) {
    (a[0], da[0])
}

#[test]
fn a_rule_of_the_other_mode_is_not_converted_for_slices() {
    let err = ad::try_value_and_grad(only_forward, (&[1.0][..],)).unwrap_err();
    assert!(matches!(err, ad::Error::NotConvertible { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("#[ad::custom_rule(reverse, of = only_forward)]"),
        "{msg}"
    );
}

#[test]
fn a_tangent_slice_of_the_wrong_length_is_named() {
    let w = [1.0, 2.0];
    let data = [0.5, 1.0];
    let err = ad::try_jvp(loss, (&w[..], &data[..]), (&[1.0][..], &data[..])).unwrap_err();
    assert!(
        err.to_string().contains(
            "the tangent of argument 1 of `test_slices::loss` has 1 elements where the value has 2"
        ),
        "{err}"
    );
}

/// A weighted sum of squares, called by `fit_loss` with slices passed on whole.
#[differentiable]
fn weighted_sq(v: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += w[i] * v[i] * v[i];
    }
    s
}

/// Writes the residuals of a line through the points into `r`.
#[differentiable]
fn residuals(p: &[f64], xs: &[f64], ys: &[f64], r: &mut [f64]) {
    for i in 0..xs.len() {
        r[i] = p[0] + p[1] * xs[i] - ys[i];
    }
}

/// Passes its slices on to other differentiable functions, an output buffer among them, and to
/// a function with rules of its own.
#[differentiable]
fn fit_loss(p: &[f64], xs: &[f64], ys: &[f64], w: &[f64], r: &mut [f64]) -> f64 {
    residuals(p, xs, ys, r);
    let mut t = 0.0;
    for i in 0..r.len() {
        t += r[i].sin();
    }
    weighted_sq(r, w) + t + dot(p, p)
}

#[test]
fn slices_passed_on_to_other_functions() {
    let p = [0.3, 1.2];
    let xs = [0.0, 0.5, 1.0, 2.0];
    let ys = [0.1, 0.9, 1.4, 2.7];
    let w = [1.0, 2.0, 0.5, 1.5];
    let value = |z: &[f64]| {
        let mut r = [0.0; 4];
        fit_loss(&z[..2], &xs, &ys, &z[2..], &mut r)
    };
    let z: Vec<f64> = p.iter().chain(&w).copied().collect();
    // Reverse, with the caller's buffers.
    let mut r = [0.0; 4];
    let (mut p_bar, mut xs_bar, mut ys_bar, mut w_bar, mut r_bar) =
        ([0.0; 2], [0.0; 4], [0.0; 4], [0.0; 4], [0.0; 4]);
    let (v, _) = ad::vjp_into(
        fit_loss,
        (&p[..], &xs[..], &ys[..], &w[..], &mut r[..]),
        (
            &mut p_bar[..],
            &mut xs_bar[..],
            &mut ys_bar[..],
            &mut w_bar[..],
            &mut r_bar[..],
        ),
        1.0,
    );
    assert_eq!(v, value(&z));
    for i in 0..6 {
        let fd = fd_at(&value, &z, i);
        let g = if i < 2 { p_bar[i] } else { w_bar[i - 2] };
        assert!(close(g, fd, 1e-7), "reverse {i}: {g} vs {fd}");
        // Forward, along the same coordinate.
        let mut e = [0.0; 6];
        e[i] = 1.0;
        let (mut r, mut dr) = ([0.0; 4], [0.0; 4]);
        let zero = [0.0; 4];
        let (_, d) = ad::jvp(
            fit_loss,
            (&p[..], &xs[..], &ys[..], &w[..], &mut r[..]),
            (&e[..2], &zero[..], &zero[..], &e[2..], &mut dr[..]),
        );
        assert!(close(d, fd, 1e-7), "forward {i}: {d} vs {fd}");
    }
    // The residuals' buffer brought no adjoint in, and is left at zero.
    assert_eq!(r_bar, [0.0; 4]);
}
