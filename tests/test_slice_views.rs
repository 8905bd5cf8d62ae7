//! Slices bound by `let` (`let row = &m[i * n..(i + 1) * n];`) of slice parameters and of local
//! `Vec`s: indexed, measured, looped over, summed in chains, checked in `assert!`s and passed on,
//! in both modes, against dual numbers (each function written a second time over
//! `num_dual::Dual64`; tolerance 1e-12 relative, tests/dual_check/mod.rs says why). Indexing past
//! a view's end panics as the slice would.

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
    a.iter().zip(b).map(|(p, q)| *p * *q).sum()
}

/// Rows of a row-major matrix as views: indexed in a loop over `0..row.len()`, passed on, and
/// a tail and a whole view looped over and summed.
#[differentiable]
#[allow(clippy::redundant_slicing)] // a view of the whole slice, as the test means
fn rows(m: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..m.len() / n {
        let row = &m[i * n..(i + 1) * n];
        assert_eq!(row.len(), n);
        let mut r = 0.0;
        for j in 0..row.len() {
            r += row[j] * x[j];
        }
        s += r.tanh() + dot(row, x) * 0.5;
    }
    let tail = &m[m.len() - n..];
    for v in tail.iter() {
        s += v * v;
    }
    let all = &m[..];
    let twice: f64 = tail.iter().map(|t| t * 2.0).sum();
    s + all[0] * twice + all[all.len() - 1]
}

fn rows_d(m: &[D], x: &[D]) -> D {
    let n = x.len();
    let mut s = D::from(0.0);
    for i in 0..m.len() / n {
        let row = &m[i * n..(i + 1) * n];
        let r = dot_d(row, x);
        s += r.tanh() + r * 0.5;
    }
    let tail = &m[m.len() - n..];
    for v in tail {
        s += *v * *v;
    }
    let twice: D = tail.iter().map(|t| *t * 2.0).sum();
    s + m[0] * twice + m[m.len() - 1]
}

/// A view of a local `Vec`, inclusive range, read after the `Vec` is written (the view reads
/// the `Vec` as it is when read, as the borrow checker makes the user's code do).
#[differentiable]
fn local_view(x: &[f64]) -> f64 {
    let mut h = vec![0.0; x.len()];
    for i in 0..x.len() {
        h[i] = x[i].sin() * x[0];
    }
    let part = &h[1..=2];
    let mut s = part[0] * part[1];
    for p in part {
        s += p * x[1];
    }
    s + dot(part, &x[..2])
}

fn local_view_d(x: &[D]) -> D {
    let h: Vec<D> = x.iter().map(|xi| xi.sin() * x[0]).collect();
    let part = &h[1..=2];
    let mut s = part[0] * part[1];
    for p in part {
        s += *p * x[1];
    }
    s + dot_d(part, &x[..2])
}

/// Every derivative of `$f` at `($a, $b)` against the oracle `$o`, along each coordinate of
/// both slices.
macro_rules! check {
    ($f:ident, $o:ident, $a:expr, $b:expr) => {{
        let (a, b): (&[f64], &[f64]) = ($a, $b);
        let value = $f(a, b);
        let (gv, (ga, gb)) = ad::value_and_grad($f, (a, b));
        let (_, pullback) = ad::vjp($f, (a, b));
        let (pa, pb) = pullback(1.0);
        assert_eq!(gv.to_bits(), value.to_bits());
        for k in 0..a.len() + b.len() {
            let seed = |i: usize| if i == k { 1.0 } else { 0.0 };
            let ad_: Vec<D> = (0..a.len()).map(|i| D::new(a[i], seed(i))).collect();
            let bd: Vec<D> = (0..b.len())
                .map(|i| D::new(b[i], seed(a.len() + i)))
                .collect();
            let want = $o(&ad_, &bd);
            assert!(close(want.re, value, TOL));
            let da: Vec<f64> = (0..a.len()).map(seed).collect();
            let db: Vec<f64> = (0..b.len()).map(|i| seed(a.len() + i)).collect();
            let (_, t) = ad::jvp($f, (a, b), (&da[..], &db[..]));
            let (g, p) = if k < a.len() {
                (ga[k], pa[k])
            } else {
                (gb[k - a.len()], pb[k - a.len()])
            };
            assert!(close(t, want.eps, TOL), "jvp {k}: {t}, oracle {}", want.eps);
            assert!(
                close(g, want.eps, TOL),
                "grad {k}: {g}, oracle {}",
                want.eps
            );
            assert!(close(p, want.eps, TOL), "vjp {k}: {p}, oracle {}", want.eps);
        }
    }};
}

/// `windows`, `chunks` and `chunks_exact` of views: of rows of a parameter, of a view of a view,
/// of a local `Vec` and of a mutable view, in `for` loops and in a chain; each reads the part
/// of the variable the view stands for (the last chunk cut at the view's end, not the
/// variable's). `iter_mut` of a mutable view writes that part.
#[differentiable]
fn windowed(m: &[f64], x: &[f64]) -> f64 {
    let n = 5;
    let mut s = 0.0;
    let mut h = vec![0.0; m.len()];
    for i in 0..m.len() / n {
        let row = &m[i * n..(i + 1) * n];
        for w in row.windows(2) {
            s += (w[1] - w[0]) * w[0] * x[i % x.len()];
        }
        for c in row.chunks(2) {
            s += c[0] * c[c.len() - 1];
        }
        for c in row.chunks_exact(2) {
            s += c[1].sin();
        }
        s += row.windows(3).map(|w| w[0] * w[2]).sum::<f64>();
        let tail = &row[1..];
        for w in tail.windows(2) {
            s += w[0] * w[1] * 0.5;
        }
        let out = &mut h[i * n..(i + 1) * n];
        for (j, v) in out.iter_mut().enumerate() {
            *v = row[j] * x[j % x.len()];
        }
        for v in out.iter_mut().rev().skip(1) {
            *v *= 1.5;
        }
        for c in out.chunks(3) {
            s += c[c.len() - 1] * c[0];
        }
    }
    let part = &h[2..9];
    for c in part.chunks(3) {
        s += c.iter().sum::<f64>() * c[0];
    }
    s
}

fn windowed_d(m: &[D], x: &[D]) -> D {
    let n = 5;
    let mut s = D::from_re(0.0);
    let mut h = vec![D::from_re(0.0); m.len()];
    for i in 0..m.len() / n {
        let row = &m[i * n..(i + 1) * n];
        for w in row.windows(2) {
            s += (w[1] - w[0]) * w[0] * x[i % x.len()];
        }
        for c in row.chunks(2) {
            s += c[0] * c[c.len() - 1];
        }
        for c in row.chunks_exact(2) {
            s += c[1].sin();
        }
        s += row.windows(3).map(|w| w[0] * w[2]).sum::<D>();
        for w in row[1..].windows(2) {
            s += w[0] * w[1] * 0.5;
        }
        for j in 0..n {
            h[i * n + j] = row[j] * x[j % x.len()];
        }
        for j in 0..n - 1 {
            h[i * n + j] *= 1.5;
        }
        for c in h[i * n..(i + 1) * n].chunks(3) {
            s += c[c.len() - 1] * c[0];
        }
    }
    for c in h[2..9].chunks(3) {
        s += c.iter().copied().sum::<D>() * c[0];
    }
    s
}

#[test]
fn windows_and_chunks_of_views() {
    let x = [0.4, -0.9, 0.3];
    let m: Vec<f64> = (0..15).map(|i| ((i * 7) % 11) as f64 * 0.3 - 1.0).collect();
    check!(windowed, windowed_d, &m, &x);
}

#[test]
fn rows_of_a_matrix_bound_as_views() {
    let x = [0.4, -0.9, 0.3];
    let m: Vec<f64> = (0..12).map(|i| ((i * 7) % 5) as f64 * 0.2 - 0.4).collect();
    check!(rows, rows_d, &m, &x);
}

#[test]
fn a_view_of_a_local_vec() {
    let x = [0.7, -0.2, 1.3, 0.5];
    let value = local_view(&x);
    let (_, (g,)) = ad::value_and_grad(local_view, (&x[..],));
    for k in 0..4 {
        let xs: Vec<D> = (0..4)
            .map(|i| D::new(x[i], if i == k { 1.0 } else { 0.0 }))
            .collect();
        let want = local_view_d(&xs);
        assert!(close(want.re, value, TOL));
        let mut dx = [0.0; 4];
        dx[k] = 1.0;
        let (_, t) = ad::jvp(local_view, (&x[..],), (&dx[..],));
        assert!(close(t, want.eps, TOL), "jvp {k}: {t}, oracle {}", want.eps);
        assert!(
            close(g[k], want.eps, TOL),
            "grad {k}: {}, oracle {}",
            g[k],
            want.eps
        );
    }
}

#[differentiable]
fn past_the_end(x: &[f64]) -> f64 {
    let head = &x[..2];
    head[2]
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn indexing_past_a_views_end_panics() {
    let x = [1.0, 2.0, 3.0];
    let _ = past_the_end(&x);
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn indexing_past_a_views_end_panics_in_the_gradient() {
    let x = [1.0, 2.0, 3.0];
    let _ = ad::grad(past_the_end, (&x[..],));
}
