//! Iterator adapters lowered to the loops they stand for, in both modes: `iter_mut` in a `for`
//! loop, and `windows`, `chunks` and `chunks_exact` in `for` loops and chains.
//!
//! Oracles: closed forms written out in each test, and for the longer bodies central
//! differences (step 1e-6 at f64: truncation near h^2 f''' ~ 1e-11 and rounding near
//! 1e-16 / 1e-6 = 1e-10 for these bodies of size ~10, so a tolerance of 1e-6 relative).

use ad::differentiable;

fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut up, mut down) = (x.to_vec(), x.to_vec());
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (2.0 * h)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// The unit vector `e_i` of length `n`.
fn unit(n: usize, i: usize) -> Vec<f64> {
    let mut e = vec![0.0; n];
    e[i] = 1.0;
    e
}

/// Checks the gradient `g` of `f` at `x` against central differences, and each directional
/// derivative `jvp(e_i)` against the same.
fn check(f: fn(&[f64]) -> f64, plain: fn(&[f64]) -> f64, x: &[f64]) {
    let (value, (g,)) = ad::value_and_grad(f, (x,));
    assert_eq!(value, plain(x));
    for i in 0..x.len() {
        let d = fd(plain, x, i);
        assert!(close(g[i], d), "grad d/dx{i}: {} vs {d}", g[i]);
        let e = unit(x.len(), i);
        let (v, t) = ad::jvp(f, (x,), (&e[..],));
        assert_eq!(v, value);
        assert!(close(t, d), "jvp d/dx{i}: {t} vs {d}");
    }
}

// ---- iter_mut ----------------------------------------------------------------------------

/// Writes `out_i = x_i^2 * s` through `iter_mut` of the output, then scales a local `Vec` in
/// place with `*v *= 3` and `*v += x_0`. With `y_i = 3 x_i^2 s + x_0`, the result is
/// `sum_i y_i out_i = sum_i (3 x_i^2 s + x_0) x_i^2 s`.
#[differentiable]
fn through_iter_mut(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut k = 0;
    for v in out.iter_mut() {
        *v = x[k] * x[k] * s;
        k += 1;
    }
    let mut y = vec![0.0; x.len()];
    for (i, v) in y.iter_mut().enumerate() {
        *v = out[i];
    }
    for v in y.iter_mut() {
        *v *= 3.0;
        *v += x[0];
    }
    let mut total = 0.0;
    for (a, b) in y.iter().zip(out.iter()) {
        total += a * b;
    }
    total
}

#[test]
fn iter_mut_writes_elements_by_index() {
    let (x, s) = ([0.5, -1.5, 2.0], 0.75);
    let mut out = [0.0; 3];
    let (_, (gx, gs, _)) = ad::value_and_grad(through_iter_mut, (&x[..], s, &mut out[..]));
    // f = sum_i 3 s^2 x_i^4 + x_0 s x_i^2
    // df/dx_i = 12 s^2 x_i^3 + 2 x_0 s x_i (+ s sum_j x_j^2 for i = 0)
    // df/ds = sum_i 6 s x_i^4 + x_0 x_i^2
    let sq: f64 = x.iter().map(|v| v * v).sum();
    for i in 0..3 {
        let mut want = 12.0 * s * s * x[i].powi(3) + 2.0 * x[0] * s * x[i];
        if i == 0 {
            want += s * sq;
        }
        assert!(close(gx[i], want), "d/dx{i}: {} vs {want}", gx[i]);
    }
    let want_s: f64 = x.iter().map(|v| 6.0 * s * v.powi(4) + x[0] * v * v).sum();
    assert!(close(gs, want_s));
    let mut out = [0.0; 3];
    let mut t_out = [0.0; 3];
    let (_, t) = ad::jvp(
        through_iter_mut,
        (&x[..], s, &mut out[..]),
        (&[0.0; 3][..], 1.0, &mut t_out[..]),
    );
    assert!(close(t, want_s));
    // The output slice holds x_i^2 s, and its tangent along s holds x_i^2.
    for i in 0..3 {
        assert_eq!(out[i], x[i] * x[i] * s);
        assert!(close(t_out[i], x[i] * x[i]));
    }
}

// ---- windows and chunks ------------------------------------------------------------------

/// Differences and window sums: `a = sum_i (x_{i+1} - x_i)^2` over `windows(2)` in a chain,
/// `b = sum_i x_i x_{i+1} x_{i+2}` over `windows(3)` in a `for` loop (with `w.len()`),
/// `c = sum_chunks (sum of the chunk)^2` over `chunks(2)` (the last chunk has one element for
/// odd lengths), `d = sum_chunks w_0 w_1` over `chunks_exact(2)`, and `e = sum_windows
/// sum_{v in w} v sin(v)` through `w.iter()`.
#[differentiable]
fn views(x: &[f64]) -> f64 {
    let a: f64 = x.windows(2).map(|w| (w[1] - w[0]) * (w[1] - w[0])).sum();
    let mut b = 0.0;
    for w in x.windows(3) {
        let mut p = 1.0;
        for j in 0..w.len() {
            p *= w[j];
        }
        b += p;
    }
    let mut c = 0.0;
    for w in x.chunks(2) {
        let mut s = 0.0;
        for v in w.iter() {
            s += v;
        }
        c += s * s;
    }
    let d: f64 = x.chunks_exact(2).map(|w| w[0] * w[1]).sum();
    let mut e = 0.0;
    for w in x.windows(2) {
        e += w.iter().map(|v| v * v.sin()).sum::<f64>();
    }
    a + b + c + d + e
}

fn views_plain(x: &[f64]) -> f64 {
    let a: f64 = x.windows(2).map(|w| (w[1] - w[0]) * (w[1] - w[0])).sum();
    let b: f64 = x.windows(3).map(|w| w[0] * w[1] * w[2]).sum();
    let c: f64 = x.chunks(2).map(|w| w.iter().sum::<f64>().powi(2)).sum();
    let d: f64 = x.chunks_exact(2).map(|w| w[0] * w[1]).sum();
    let e: f64 = x
        .windows(2)
        .map(|w| w.iter().map(|v| v * v.sin()).sum::<f64>())
        .sum();
    a + b + c + d + e
}

#[test]
fn windows_and_chunks_read_the_slice_at_their_start() {
    // Odd length: `chunks(2)` ends with a chunk of one, `chunks_exact(2)` leaves it out.
    check(views, views_plain, &[0.3, 1.7, -0.4, 0.9, 0.2]);
    check(views, views_plain, &[0.3, 1.7, -0.4, 0.9]);
}

/// A window length held in a variable: `sum_i (x_i + .. + x_{i+k-1})^2` with `k = 3`, as
/// `chunks` of `k` in reverse with `enumerate` and `zip` around them.
#[differentiable]
fn window_length_in_variable(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for w in x.windows(k) {
        let mut t = 0.0;
        for j in 0..w.len() {
            t += w[j];
        }
        s += t * t;
    }
    for (i, (w, y)) in x.chunks(k).rev().zip(x.iter()).enumerate() {
        s += (i as f64 + 1.0) * w[0] * y;
    }
    s
}

#[test]
fn window_length_from_an_integer_variable() {
    let x = [0.3, 1.7, -0.4, 0.9, 0.2, 1.1, -0.8];
    let k = 3;
    let plain = |x: &[f64]| {
        let mut s: f64 = x.windows(3).map(|w| w.iter().sum::<f64>().powi(2)).sum();
        for (i, (w, y)) in x.chunks(3).rev().zip(x.iter()).enumerate() {
            s += (i as f64 + 1.0) * w[0] * y;
        }
        s
    };
    let (_, (g, _)) = ad::value_and_grad(window_length_in_variable, (&x[..], k));
    for i in 0..x.len() {
        let d = fd(plain, &x, i);
        assert!(close(g[i], d), "d/dx{i}: {} vs {d}", g[i]);
        let e = unit(x.len(), i);
        let (_, t) = ad::jvp(
            window_length_in_variable,
            (&x[..], k),
            (&e[..], ad::NoTangent),
        );
        assert!(close(t, d));
    }
}
