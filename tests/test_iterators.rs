//! Iterator chains consumed in an expression (`map`, `sum`, `product`, `fold` over `iter`,
//! `enumerate`, `zip`, `skip`, `take`, slices of variables), closures bound by `let` and called
//! (also capturing values that carry a derivative), `array.map(..)` and `.into()`, in both
//! modes.
//!
//! Oracles: closed forms written out in each test, and for the longer bodies central
//! differences (step 1e-6, truncation and rounding near 1e-10 for these bodies: tolerance 1e-7).

use ad::differentiable;

fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut up, mut down) = (x.to_vec(), x.to_vec());
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (2.0 * h)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 * a.abs().max(b.abs()).max(1.0)
}

/// `sum x_i^2 w_i` with a chain over a zip, and `prod (1 + x_i)` with `product`.
#[differentiable]
fn chains(x: &[f64], w: &[f64]) -> f64 {
    let s: f64 = x.iter().zip(w.iter()).map(|(a, b)| a * a * b).sum();
    let p: f64 = x.iter().map(|v| 1.0 + v).product();
    s + p
}

#[test]
fn sum_and_product_of_maps() {
    let (x, w) = ([0.5, -1.5, 2.0], [1.0, 2.0, 3.0]);
    let (value, (gx, gw)) = ad::value_and_grad(chains, (&x[..], &w[..]));
    let p: f64 = x.iter().map(|v| 1.0 + v).product();
    assert_eq!(value, 0.25 + 4.5 + 12.0 + p);
    for i in 0..3 {
        // d/dx_i = 2 x_i w_i + p / (1 + x_i), d/dw_i = x_i^2
        assert!(close(gx[i], 2.0 * x[i] * w[i] + p / (1.0 + x[i])));
        assert!(close(gw[i], x[i] * x[i]));
    }
    let (_, t) = ad::jvp(
        chains,
        (&x[..], &w[..]),
        (&[1.0, 0.0, 0.0][..], &[0.0; 3][..]),
    );
    assert!(close(t, gx[0]));
}

/// `fold` with a closure and with a function, `enumerate`, `skip` and `take`, a slice of a
/// variable, and a chain of two `map`s.
#[differentiable]
fn shapes(x: &[f64]) -> f64 {
    let top = x.iter().map(|v| 2.0 * v).fold(f64::NEG_INFINITY, f64::max);
    let weighted = x
        .iter()
        .enumerate()
        .fold(0.0, |acc, (i, &v)| acc + (i as f64) * v);
    let tail: f64 = x.iter().skip(1).take(2).map(|v| v.sin()).sum();
    let inner: f64 = x[1..x.len() - 1]
        .iter()
        .map(|&v| v * v)
        .map(|q| q.sqrt() * 3.0)
        .sum();
    top + weighted + tail + inner
}

fn shapes_plain(x: &[f64]) -> f64 {
    let top = x.iter().map(|v| 2.0 * v).fold(f64::NEG_INFINITY, f64::max);
    let weighted = x
        .iter()
        .enumerate()
        .fold(0.0, |acc, (i, &v)| acc + (i as f64) * v);
    let tail: f64 = x.iter().skip(1).take(2).map(|v| v.sin()).sum();
    let inner: f64 = x[1..x.len() - 1]
        .iter()
        .map(|&v| v * v)
        .map(|q| q.sqrt() * 3.0)
        .sum();
    top + weighted + tail + inner
}

#[test]
fn fold_enumerate_skip_take_and_slices() {
    let x = [0.3, 1.7, -0.4, 0.9, 0.2];
    let (value, (g,)) = ad::value_and_grad(shapes, (&x[..],));
    assert_eq!(value, shapes_plain(&x));
    for i in 0..x.len() {
        let d = fd(shapes_plain, &x, i);
        assert!(close(g[i], d), "d/dx{i}: {} vs {d}", g[i]);
        let mut e = [0.0; 5];
        e[i] = 1.0;
        let (_, t) = ad::jvp(shapes, (&x[..],), (&e[..],));
        assert!(close(t, d));
    }
}

/// A closure that captures a parameter with a derivative, called twice, and used in a chain.
#[differentiable]
fn captured(x: f64, ys: &[f64]) -> f64 {
    let scale = |t: f64| t * x * x;
    let through: f64 = ys.iter().map(|&y| scale(y)).sum();
    scale(2.0) + scale(x) + through
}

#[test]
fn closures_capturing_values_with_a_derivative() {
    let (x, ys) = (1.5, [1.0, -2.0, 0.5]);
    let sy: f64 = ys.iter().sum();
    let (value, (gx, gys)) = ad::value_and_grad(captured, (x, &ys[..]));
    assert_eq!(value, 2.0 * x * x + x * x * x + sy * x * x);
    // d/dx = 4x + 3x^2 + 2 x sum y; d/dy_i = x^2
    assert!(close(gx, 4.0 * x + 3.0 * x * x + 2.0 * x * sy));
    assert!(gys.iter().all(|g| close(*g, x * x)));
    let (_, t) = ad::jvp(captured, (x, &ys[..]), (1.0, &[0.0; 3][..]));
    assert!(close(t, gx));
}

/// `array.map(..)` and `.into()`.
#[differentiable]
fn mapped(p: [f64; 3], q: f32) -> f64 {
    let [a, b, c] = p.map(|v| v * v - 1.0);
    let wide: f64 = q.into();
    a * b + c * wide
}

#[test]
fn array_map_and_into() {
    let (p, q) = ([1.5, -0.5, 2.0], 0.25_f32);
    let (_, (gp, gq)) = ad::value_and_grad(mapped, (p, q));
    let [a, b, c] = p.map(|v| v * v - 1.0);
    let w = f64::from(q);
    // d/dp0 = 2 p0 b, d/dp1 = 2 p1 a, d/dp2 = 2 p2 w, d/dq = c
    assert!(close(gp[0], 2.0 * p[0] * b) && close(gp[1], 2.0 * p[1] * a));
    assert!(close(gp[2], 2.0 * p[2] * w));
    assert!(close(f64::from(gq), c));
}

/// Chains inside a loop over elements: a closure that dereferences the loop's element, and one
/// whose parameter has the loop element's name. `f = sum_i sum_j b_j a_i + sum_i 2 sum_k a_k`.
#[differentiable]
fn nested(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in a.iter() {
        s += b.iter().map(|y| y * *x).sum::<f64>();
        s += a.iter().map(|x| *x * 2.0).sum::<f64>();
    }
    s
}

#[test]
fn chains_inside_loops_over_elements() {
    let (a, b) = ([1.0, 2.0], [0.5, -1.0, 3.0]);
    let (value, (ga, gb)) = ad::value_and_grad(nested, (&a[..], &b[..]));
    let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    assert_eq!(value, sa * sb + 2.0 * 2.0 * sa);
    // d/da_i = sum b + 2 n_a (each of the n_a iterations adds 2 sum a), d/db_j = sum a
    assert!(ga.iter().all(|g| close(*g, sb + 4.0)));
    assert!(gb.iter().all(|g| close(*g, sa)));
}

/// `rev`, `step_by` and `into_iter` over elements, in a chain and in a `for` loop, also with
/// `enumerate` before and after `rev`. With x = [x0, .., x4]:
/// `a = sum_k (k + 1) x_{4-k}` (enumerate after rev), `b = x0 x0 + x2 x2 + x4 x4` (step_by 2),
/// `c = sum_i i x_i` over `enumerate().rev()`, `d = sum x_i^3` (into_iter).
#[differentiable]
fn reversed(x: Vec<f64>) -> f64 {
    let a: f64 = x
        .iter()
        .rev()
        .enumerate()
        .map(|(k, &v)| (k as f64 + 1.0) * v)
        .sum();
    let b: f64 = x.iter().step_by(2).map(|v| v * v).sum();
    let mut c = 0.0;
    for (i, v) in x.iter().enumerate().rev() {
        c += (i as f64) * v;
    }
    let mut d = 0.0;
    for v in x.into_iter() {
        d += v * v * v;
    }
    a + b + c + d
}

#[test]
fn rev_step_by_and_into_iter() {
    let x = vec![0.5, -1.0, 2.0, 1.5, -0.25];
    let (_, (g,)) = ad::value_and_grad(reversed, (x.clone(),));
    for i in 0..5 {
        // d/dx_i: (5 - i) from a, 2 x_i for even i from b, i from c, 3 x_i^2 from d
        let b = if i % 2 == 0 { 2.0 * x[i] } else { 0.0 };
        let want = (5 - i) as f64 + b + i as f64 + 3.0 * x[i] * x[i];
        assert!(close(g[i], want), "d/dx{i}: {} vs {want}", g[i]);
    }
    let (_, t) = ad::jvp(reversed, (x.clone(),), (vec![0.0, 0.0, 1.0, 0.0, 0.0],));
    assert!(close(t, g[2]));
}
