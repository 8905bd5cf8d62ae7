//! Arrays `[T; N]` and `Vec<T>` as parameters, locals and results, with indexing (also computed
//! indices), element writes, `.len()`, `iter().sum()` and `for` loops over elements, in both
//! modes. The oracle is central finite differences on each input coordinate: h = 1e-6 gives a
//! truncation error ~h^2 |f'''| and a rounding error ~eps |f| / h, both below 1e-8 relative for
//! these smooth, O(1)-conditioned functions, so 1e-7 is a safe tolerance.

// The tests index on purpose, and test `vec!` itself.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use ad::differentiable;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// Central difference of `f` along coordinate `i` of `x`.
fn fd_at(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let mut hi = x.to_vec();
    let mut lo = x.to_vec();
    hi[i] += h;
    lo[i] -= h;
    (f(&hi) - f(&lo)) / (2.0 * h)
}

fn to3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

/// A quadratic form through element reads with computed indices.
#[differentiable]
fn quad(a: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let w = (i * 3 + j + 1) as f64;
            s += w * a[i] * a[j];
        }
    }
    s
}

/// Element writes, a local array written twice in one place, and a result built from it.
#[differentiable]
fn rotate(a: [f64; 3], t: f64) -> [f64; 3] {
    let mut out = [0.0; 3];
    out[0] = a[0] * t.cos() - a[1] * t.sin();
    out[1] = a[0] * t.sin() + a[1] * t.cos();
    out[2] = a[2];
    out[2] = out[2] * out[2];
    out[0] += a[2];
    out
}

fn rotate_sum(a: [f64; 3], t: f64) -> f64 {
    let r = rotate(a, t);
    r[0] + 2.0 * r[1] + 3.0 * r[2]
}

/// A `Vec` parameter, `.len()`, `iter().sum()` and loops over elements.
#[differentiable]
fn stats(v: Vec<f64>) -> f64 {
    let n = v.len() as f64;
    let total: f64 = v.iter().sum();
    let mean = total / n;
    let mut var = 0.0;
    for x in v.iter() {
        var += (x - mean) * (*x - mean);
    }
    var / n + mean.powi(2)
}

/// `enumerate` and `zip` over two vectors, and a local `vec!` written by index.
#[differentiable]
fn weighted(a: Vec<f64>, b: Vec<f64>) -> f64 {
    let mut prod = vec![0.0; a.len()];
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        prod[i] = x * y * (i as f64 + 1.0);
    }
    let mut s = 0.0;
    for &p in &prod {
        s += p.sin();
    }
    s
}

/// A `vec![a, b]` literal and an array literal of active values.
#[differentiable]
fn literals(x: f64, y: f64) -> f64 {
    let v = vec![x * y, x + y, 2.0];
    let a = [v[0], v[1] * v[2], y];
    a[0] * a[1] + a[2]
}

#[test]
fn arrays_forward_and_reverse() {
    let f = |x: &[f64]| quad(to3(x));
    for x in [[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]] {
        let (v, g) = ad::value_and_grad(quad, (x,));
        assert_eq!(v, quad(x));
        for i in 0..3 {
            let fd = fd_at(&f, &x, i);
            assert!(close(g.0[i], fd, 1e-7), "reverse {i}: {} vs {fd}", g.0[i]);
            let mut e = [0.0; 3];
            e[i] = 1.0;
            let (v, d) = ad::jvp(quad, (x,), (e,));
            assert_eq!(v, quad(x));
            assert!(close(d, fd, 1e-7), "forward {i}: {d} vs {fd}");
        }
    }
}

#[test]
fn array_results_and_element_writes() {
    let x = [0.4, -0.9, 1.3];
    let t = 0.6;
    let w = [1.0, 2.0, 3.0];
    let (v, pullback) = ad::vjp(rotate, (x, t));
    assert_eq!(v, rotate(x, t));
    let (gx, gt) = pullback(w);
    let f = |z: &[f64]| rotate_sum(to3(z), z[3]);
    let z = [x[0], x[1], x[2], t];
    for i in 0..3 {
        let fd = fd_at(&f, &z, i);
        assert!(close(gx[i], fd, 1e-7), "reverse {i}: {} vs {fd}", gx[i]);
    }
    assert!(close(gt, fd_at(&f, &z, 3), 1e-7));
    let (_, d) = ad::jvp(rotate, (x, t), ([0.0; 3], 1.0));
    let dsum = d[0] + 2.0 * d[1] + 3.0 * d[2];
    assert!(close(dsum, fd_at(&f, &z, 3), 1e-7));
}

#[test]
fn vectors_forward_and_reverse() {
    let x = vec![0.3, -1.2, 0.7, 2.0];
    let f = |z: &[f64]| stats(z.to_vec());
    let (v, g) = ad::value_and_grad(stats, (x.clone(),));
    assert_eq!(v, stats(x.clone()));
    assert_eq!(g.0.len(), x.len());
    for i in 0..x.len() {
        let fd = fd_at(&f, &x, i);
        assert!(close(g.0[i], fd, 1e-7), "reverse {i}: {} vs {fd}", g.0[i]);
        let mut e = vec![0.0; x.len()];
        e[i] = 1.0;
        let (_, d) = ad::jvp(stats, (x.clone(),), (e,));
        assert!(close(d, fd, 1e-7), "forward {i}: {d} vs {fd}");
    }

    let a = vec![0.5, -0.3, 1.1];
    let b = vec![1.2, 0.8, -0.6];
    let (v, (ga, gb)) = ad::value_and_grad(weighted, (a.clone(), b.clone()));
    assert_eq!(v, weighted(a.clone(), b.clone()));
    let ab: Vec<f64> = a.iter().chain(b.iter()).copied().collect();
    let f = |z: &[f64]| weighted(z[..3].to_vec(), z[3..].to_vec());
    for i in 0..3 {
        assert!(close(ga[i], fd_at(&f, &ab, i), 1e-7));
        assert!(close(gb[i], fd_at(&f, &ab, i + 3), 1e-7));
    }
}

#[test]
fn literals_forward_and_reverse() {
    let (x, y) = (0.7, -1.3);
    let f = |z: &[f64]| literals(z[0], z[1]);
    let (v, (gx, gy)) = ad::value_and_grad(literals, (x, y));
    assert_eq!(v, literals(x, y));
    assert!(close(gx, fd_at(&f, &[x, y], 0), 1e-7));
    assert!(close(gy, fd_at(&f, &[x, y], 1), 1e-7));
    let (_, d) = ad::jvp(literals, (x, y), (0.0, 1.0));
    assert!(close(d, gy, 1e-12));
}

/// The same constructs in `f32`.
#[differentiable]
fn norm32(v: Vec<f32>, scale: [f32; 2]) -> f32 {
    let mut s = 0.0;
    for (i, x) in v.iter().enumerate() {
        s += x * x * scale[i % 2];
    }
    s.sqrt()
}

/// f32 against the closed form d/dv_i sqrt(sum w_i v_i^2) = w_i v_i / norm: the f32 evaluation
/// has a relative error of a few ulps (~1e-6), so 1e-5 relative is a safe bound.
#[test]
fn f32_vectors_and_arrays() {
    let v = vec![0.5f32, -1.5, 2.0];
    let scale = [1.0f32, 3.0];
    let norm = norm32(v.clone(), scale);
    let (value, (gv, gs)) = ad::value_and_grad(norm32, (v.clone(), scale));
    assert_eq!(value, norm);
    for i in 0..3 {
        let expected = scale[i % 2] * v[i] / norm;
        assert!((gv[i] - expected).abs() <= 1e-5 * expected.abs().max(1.0));
    }
    let expected0 = (v[0] * v[0] + v[2] * v[2]) / (2.0 * norm);
    assert!((gs[0] - expected0).abs() <= 1e-5 * expected0.abs().max(1.0));
    let (_, d) = ad::jvp(
        norm32,
        (v.clone(), scale),
        (vec![0.0, 1.0, 0.0], [0.0, 0.0]),
    );
    assert!((d - gv[1]).abs() <= 1e-5);
}

/// The first partial sum of the elements that exceeds `limit`, scaled, with a `break` and a
/// `continue` inside a loop over elements, and a `match` on the index.
#[differentiable]
fn first_crossing(v: Vec<f64>, limit: f64) -> f64 {
    let mut s = 0.0;
    for (i, x) in v.iter().enumerate() {
        if *x < 0.0 {
            continue;
        }
        let w = match i % 3 {
            0 => 1.0,
            1 => 2.0,
            _ => x.sqrt(),
        };
        s += w * x;
        if s > limit {
            break;
        }
    }
    s * limit
}

#[test]
fn exits_inside_loops_over_elements() {
    let f = |z: &[f64]| first_crossing(z[..5].to_vec(), z[5]);
    for z in [
        [0.5, -1.0, 2.0, 0.7, 3.0, 2.5],
        [0.1, 0.2, -0.3, 0.4, 0.5, 10.0],
        [4.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    ] {
        let v = z[..5].to_vec();
        let (value, (gv, gl)) = ad::value_and_grad(first_crossing, (v.clone(), z[5]));
        assert_eq!(value, first_crossing(v.clone(), z[5]));
        for i in 0..5 {
            let fd = fd_at(&f, &z, i);
            assert!(close(gv[i], fd, 1e-7), "reverse {i}: {} vs {fd}", gv[i]);
            let mut e = vec![0.0; 5];
            e[i] = 1.0;
            let (_, d) = ad::jvp(first_crossing, (v.clone(), z[5]), (e, 0.0));
            assert!(close(d, fd, 1e-7), "forward {i}: {d} vs {fd}");
        }
        assert!(close(gl, fd_at(&f, &z, 5), 1e-7));
    }
}
