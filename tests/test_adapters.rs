//! Iterator adapters lowered to the loops they stand for, in both modes: `iter_mut` in a `for`
//! loop, `windows`, `chunks` and `chunks_exact` in `for` loops and chains, `filter`, `min_by`
//! and `max_by` with an unwrap, `fold` with `max` and `min`, `collect` into a `Vec`, and `for`
//! loops over mapped chains; at f64, f32 and in a function generic over `num_traits::Float`.
//!
//! Oracles: closed forms written out in each test, and for the longer bodies central
//! differences (step 1e-6 at f64: truncation near h^2 f''' ~ 1e-11 and rounding near
//! 1e-16 / 1e-6 = 1e-10 for these bodies of size ~10, so a tolerance of 1e-6 relative).

// The loops index the windows and the derivatives by position, as the functions under test do.
#![allow(clippy::needless_range_loop)]

use ad::differentiable;
use num_traits::Float;

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
    // The plain function may add the same terms in another order.
    assert!(close(value, plain(x)), "value: {value} vs {}", plain(x));
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
    for (v, xi) in out.iter_mut().zip(x.iter()) {
        *v = xi * xi * s;
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

// ---- filter and for loops over mapped chains ---------------------------------------------

/// `filter` decides which items count; its predicate carries no derivative.
/// `a = sum_{x_i > 0} x_i^2` (filter before map), `b = sum_{x_i^3 > 0.1} x_i^3` (filter after
/// map: the predicate sees the mapped value), `c = sum_{i even, x_i < 1} i x_i` (two filters
/// over `enumerate`), and in `for` loops `d = sum_{x_i > 0} x_i sin(x_i)` and
/// `e = sum_i exp(x_i / 2)` over a mapped chain, `g = sum_{2 x_i > 1} cos(2 x_i)` (map then filter).
#[differentiable]
fn filtered(x: &[f64]) -> f64 {
    let a: f64 = x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum();
    let b: f64 = x.iter().map(|v| v * v * v).filter(|c| *c > 0.1).sum();
    let c = x
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .filter(|(_, v)| **v < 1.0)
        .fold(0.0, |acc, (i, v)| acc + i as f64 * v);
    let mut d = 0.0;
    for v in x.iter().filter(|v| v.is_sign_positive()) {
        d += v * v.sin();
    }
    let mut e = 0.0;
    for y in x.iter().map(|v| (v / 2.0).exp()) {
        e += y;
    }
    let mut g = 0.0;
    for t in x.iter().copied().map(|v| 2.0 * v).filter(|t| *t > 1.0) {
        g += t.cos();
    }
    a + b + c + d + e + g
}

fn filtered_plain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate() {
        if v > 0.0 {
            s += v * v + v * v.sin();
        }
        if v * v * v > 0.1 {
            s += v * v * v;
        }
        if i % 2 == 0 && v < 1.0 {
            s += i as f64 * v;
        }
        s += (v / 2.0).exp();
        if 2.0 * v > 1.0 {
            s += (2.0 * v).cos();
        }
    }
    s
}

#[test]
fn filter_decides_and_the_kept_items_differentiate() {
    // No element sits on a predicate's boundary, where the derivative jumps.
    check(filtered, filtered_plain, &[0.3, 1.7, -0.4, 0.9, -1.2, 0.6]);
    // A dropped element gets no derivative from the terms that drop it: x_4 = -1.2 is
    // dropped by a, b, d and g, and kept by c (i = 4 is even, x_4 < 1) and e, so
    // d/dx_4 = 4 + exp(x_4 / 2) / 2.
    let x = [0.3, 1.7, -0.4, 0.9, -1.2, 0.6];
    let (_, (g,)) = ad::value_and_grad(filtered, (&x[..],));
    assert!(close(g[4], 4.0 + (x[4] / 2.0).exp() / 2.0));
}

/// A filter that drops every element: the sum is its empty value, the gradient zero.
#[differentiable]
fn nothing_kept(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 10.0).map(|v| v.ln()).sum::<f64>() + x[0]
}

#[test]
fn filter_that_keeps_nothing() {
    let x = [1.0, 2.0, 3.0];
    let (value, (g,)) = ad::value_and_grad(nothing_kept, (&x[..],));
    // f = x_0: df/dx = (1, 0, 0)
    assert_eq!((value, g), (1.0, vec![1.0, 0.0, 0.0]));
    let (_, t) = ad::jvp(nothing_kept, (&x[..],), (&[1.0, 1.0, 1.0][..],));
    assert_eq!(t, 1.0);
}

// ---- min_by, max_by and fold with max and min -------------------------------------------

/// The best item: the derivative flows through the element selected, as `max` does.
/// `hi = max_i x_i^2` (max_by over a map), `lo = lo2 = min_i x_i` (min_by with `total_cmp`),
/// `top = max_i x_i` (max_by over references, dereferenced), `f1 = max_i 2 x_i` (fold with
/// `f64::max`), `f2 = min_i x_i^3` (fold with `f64::min`), `f3 = max_{x_i < 1} x_i` (a filter,
/// and a fold with a closure).
#[differentiable]
fn best(x: &[f64]) -> f64 {
    let hi = x
        .iter()
        .map(|v| v * v)
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let lo = x
        .iter()
        .copied()
        .min_by(|a, b| a.total_cmp(b))
        .expect("not empty");
    let lo2 = x.iter().copied().min_by(f64::total_cmp).unwrap();
    let top = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let f1 = x.iter().map(|v| 2.0 * v).fold(f64::NEG_INFINITY, f64::max);
    let f2 = x.iter().map(|v| v * v * v).fold(f64::INFINITY, f64::min);
    let f3 = x
        .iter()
        .copied()
        .filter(|v| *v < 1.0)
        .fold(f64::NEG_INFINITY, |a, b| a.max(b));
    hi + 2.0 * lo + 3.0 * top + 5.0 * f1 + 7.0 * f2 + 11.0 * f3 + 13.0 * lo2
}

#[test]
fn min_by_max_by_and_folds_select_one_element() {
    // x_1 = -1.9 has the largest square and is the smallest; x_2 = 1.4 is the largest;
    // x_3 = 0.8 is the largest below 1.
    let x = [0.5, -1.9, 1.4, 0.8];
    let (value, (g,)) = ad::value_and_grad(best, (&x[..],));
    let want_value = 1.9 * 1.9 - 2.0 * 1.9 + 3.0 * 1.4 + 5.0 * 2.8 - 7.0 * 1.9f64.powi(3)
        + 11.0 * 0.8
        - 13.0 * 1.9;
    assert!(close(value, want_value));
    // d/dx_1 = 2 x_1 (hi) + 2 + 13 (lo, lo2) + 7 * 3 x_1^2 (f2); d/dx_2 = 3 + 5 * 2;
    // d/dx_3 = 11.
    let want = [
        0.0,
        2.0 * x[1] + 15.0 + 21.0 * x[1] * x[1],
        3.0 + 10.0,
        11.0,
    ];
    for i in 0..4 {
        assert!(close(g[i], want[i]), "d/dx{i}: {} vs {}", g[i], want[i]);
        let (_, t) = ad::jvp(best, (&x[..],), (&unit(4, i)[..],));
        assert!(close(t, want[i]), "jvp d/dx{i}: {t} vs {}", want[i]);
    }
}

/// Ties: `max_by` keeps the last of equal items, `min_by` the first, as the standard library
/// does; the derivative goes to that element. `f = max(x) + 10 min(x)` at x = (1, 0, 1, 0).
#[differentiable]
fn ties(x: &[f64]) -> f64 {
    let hi = x
        .iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let lo = x
        .iter()
        .copied()
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    hi + 10.0 * lo
}

#[test]
fn ties_go_to_the_element_the_standard_library_returns() {
    let x = [1.0, 0.0, 1.0, 0.0];
    let (_, (g,)) = ad::value_and_grad(ties, (&x[..],));
    assert_eq!(g, vec![0.0, 10.0, 1.0, 0.0]);
    let t: Vec<f64> = (0..4)
        .map(|i| ad::jvp(ties, (&x[..],), (&unit(4, i)[..],)).1)
        .collect();
    assert_eq!(t, vec![0.0, 10.0, 1.0, 0.0]);
}

// ---- collect -----------------------------------------------------------------------------

/// `collect` of a `map` chain into a `Vec`, then read: `y_i = x_i^2` and `z` the `x_i > 0`
/// scaled by 3 (a filter: z is shorter than x). `f = sum_i y_i y_i x_i + sum_j z_j^2 + y.len()`.
#[differentiable]
fn collected(x: &[f64]) -> f64 {
    let y: Vec<f64> = x.iter().map(|v| v * v).collect();
    let z = x
        .iter()
        .filter(|v| **v > 0.0)
        .map(|v| 3.0 * v)
        .collect::<Vec<_>>();
    let mut s = 0.0;
    for (a, b) in y.iter().zip(x.iter()) {
        s += a * a * b;
    }
    for c in z.iter() {
        s += c * c;
    }
    s + y.len() as f64
}

fn collected_plain(x: &[f64]) -> f64 {
    let mut s = x.len() as f64;
    for &v in x {
        s += v.powi(5);
        if v > 0.0 {
            s += 9.0 * v * v;
        }
    }
    s
}

#[test]
fn collect_into_a_vec_then_read_it() {
    check(collected, collected_plain, &[0.3, -1.7, 0.4, 0.9]);
    // d/dx_i = 5 x_i^4 + 18 x_i [x_i > 0]
    let x = [0.3, -1.7, 0.4, 0.9];
    let (_, (g,)) = ad::value_and_grad(collected, (&x[..],));
    for i in 0..4 {
        let want = 5.0 * x[i].powi(4) + if x[i] > 0.0 { 18.0 * x[i] } else { 0.0 };
        assert!(close(g[i], want));
    }
}

/// A `Vec` returned whole: `collect` of a chain over `windows`: `y_i = x_{i+1} - x_i`.
#[differentiable]
fn differences(x: Vec<f64>) -> Vec<f64> {
    x.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn collected_vec_as_the_result() {
    let x = vec![1.0, 4.0, 9.0, 16.0];
    let (y, t) = ad::jvp(differences, (x.clone(),), (vec![1.0, 2.0, 3.0, 4.0],));
    assert_eq!(y, vec![3.0, 5.0, 7.0]);
    // dy_i = dx_{i+1} - dx_i = 1 for this direction.
    assert_eq!(t, vec![1.0, 1.0, 1.0]);
    // The pullback of w: dx_i = w_{i-1} - w_i.
    let (_, pullback) = ad::vjp(differences, (x,));
    let (dx,) = pullback(vec![1.0, 10.0, 100.0]);
    assert_eq!(dx, vec![-1.0, -9.0, -90.0, 100.0]);
}

// ---- generic functions -------------------------------------------------------------------

/// Over `T: Float`, with `u = s x` written through `iter_mut`:
/// `f = sum_i (u_{i+1} - u_i)^2 [u_i > 0]` (windows, filter) `+ max u` (max_by) `+ min u^2`
/// (fold with `T::min`) `+ sum_chunks u_first u_last` (chunks of 2) `+ 2 sum u` (collect, then
/// fold) `+ max u` (fold from `T::neg_infinity()`) `+ min u` (min_by).
#[differentiable]
fn generic_adapters<T: Float + std::iter::Sum>(x: &[T], s: T) -> T {
    let mut u = vec![T::zero(); x.len()];
    for (v, xi) in u.iter_mut().zip(x.iter()) {
        *v = *xi;
    }
    for v in u.iter_mut() {
        *v = *v * s;
    }
    let a: T = u
        .windows(2)
        .filter(|w| w[0] > T::zero())
        .map(|w| (w[1] - w[0]) * (w[1] - w[0]))
        .sum();
    let b = u
        .iter()
        .copied()
        .max_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap();
    let c = u.iter().map(|v| *v * *v).fold(T::infinity(), T::min);
    let mut d = T::zero();
    for w in u.chunks(2) {
        d = d + w[0] * w[w.len() - 1];
    }
    let twice: Vec<T> = u.iter().map(|v| *v + *v).collect();
    let e = twice.iter().fold(T::zero(), |acc, t| acc + *t);
    let m = u.iter().copied().fold(T::neg_infinity(), |p, q| p.max(q));
    let n = u
        .iter()
        .copied()
        .min_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap();
    a + b + c + d + e + m + n
}

fn generic_plain(x: &[f64], s: f64) -> f64 {
    let u: Vec<f64> = x.iter().map(|v| v * s).collect();
    let mut f = 0.0;
    for i in 0..u.len() - 1 {
        if u[i] > 0.0 {
            f += (u[i + 1] - u[i]).powi(2);
        }
    }
    f += 2.0 * u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    f += u.iter().copied().fold(f64::INFINITY, f64::min);
    f += u.iter().map(|v| v * v).fold(f64::INFINITY, f64::min);
    for w in u.chunks(2) {
        f += w[0] * w[w.len() - 1];
    }
    f + 2.0 * u.iter().sum::<f64>()
}

#[test]
fn generic_function_at_f64_and_f32() {
    let (x, s) = ([0.5, -1.25, 2.0, 0.75, -0.25], 1.5);
    let (value, (gx, gs)) = ad::value_and_grad(generic_adapters::<f64>, (&x[..], s));
    assert!(close(value, generic_plain(&x, s)));
    for i in 0..x.len() {
        let d = fd(|x| generic_plain(x, s), &x, i);
        assert!(close(gx[i], d), "d/dx{i}: {} vs {d}", gx[i]);
        let (_, t) = ad::jvp(generic_adapters::<f64>, (&x[..], s), (&unit(5, i)[..], 0.0));
        assert!(close(t, d));
    }
    let ds = (generic_plain(&x, s + 1e-6) - generic_plain(&x, s - 1e-6)) / 2e-6;
    assert!(close(gs, ds));
    // At f32 the same function, against the f64 derivatives: f32 rounding (~6e-8 relative)
    // through sums of ~10 terms of size ~10 leaves ~1e-5; tolerance 1e-4 relative.
    let x32 = x.map(|v| v as f32);
    let (value32, (gx32, gs32)) = ad::value_and_grad(generic_adapters::<f32>, (&x32[..], s as f32));
    let near = |a: f32, b: f64| (f64::from(a) - b).abs() <= 1e-4 * b.abs().max(1.0);
    assert!(near(value32, value));
    for i in 0..x.len() {
        assert!(
            near(gx32[i], gx[i]),
            "f32 d/dx{i}: {} vs {}",
            gx32[i],
            gx[i]
        );
        let (_, t) = ad::jvp(
            generic_adapters::<f32>,
            (&x32[..], s as f32),
            (
                &unit(5, i).iter().map(|v| *v as f32).collect::<Vec<_>>()[..],
                0.0,
            ),
        );
        assert!(near(t, gx[i]));
    }
    assert!(near(gs32, gs));
}
