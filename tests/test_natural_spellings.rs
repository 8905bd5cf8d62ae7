//! Spellings that once failed to compile: a loop range over `.len()` with `.rev()` or
//! `.step_by(k)`, and a `Vec` parameter passed by value to a differentiable callee.

// Index loops are the spelling under test.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

// Horner's rule written with `for i in (0..coeffs.len()).rev()`: the loop range reads the
// length of the active `Vec` inside `.rev()` (also `.step_by(k)`). Checked against the closed
// forms d p / d coeffs[i] = x^i and d p / dx = p'(x) in both modes.

#[ad::differentiable]
fn horner(coeffs: Vec<f64>, x: f64) -> f64 {
    let mut acc = 0.0;
    for i in (0..coeffs.len()).rev() {
        acc = acc * x + coeffs[i];
    }
    acc
}

#[ad::differentiable]
fn sum_backwards(a: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in (0..a.len()).step_by(1) {
        s += a[a.len() - 1 - i] * (i + 1) as f64;
    }
    s
}

#[test]
fn ranges_over_len_with_rev_and_step_by() {
    let coeffs = vec![0.5, -1.25, 2.0, 0.75];
    let x = 0.625_f64;
    let (y, (gc, gx)) = ad::value_and_grad(horner, (coeffs.clone(), x));
    assert_eq!(y, horner(coeffs.clone(), x));
    for (i, g) in gc.iter().enumerate() {
        assert!((g - x.powi(i as i32)).abs() < 1e-15, "d p / d c{i} = {g}");
    }
    let slope = -1.25 + 2.0 * 2.0 * x + 3.0 * 0.75 * x * x;
    assert!((gx - slope).abs() < 1e-14, "d p / dx = {gx}, want {slope}");
    let (_, t) = ad::jvp(horner, (coeffs.clone(), x), (vec![0.0; 4], 1.0));
    assert!((t - slope).abs() < 1e-14, "jvp {t}, want {slope}");

    let (_, (g,)) = ad::value_and_grad(sum_backwards, ([1.0, 2.0, 3.0],));
    assert_eq!(g, [3.0, 2.0, 1.0]);
    assert_eq!(
        ad::jvp(sum_backwards, ([1.0, 2.0, 3.0],), ([0.0, 0.0, 1.0],)).1,
        1.0
    );
}

// A `Vec` parameter passed by value to another `#[differentiable]` function, as in the GMM
// objective's `n * logsumexp(alphas)`: the reverse sweep must not need the parameter after the
// call took it. Checked: the gradients of `sum_twice` (analytic) and of the GMM objective's
// alpha terms with `alphas` passed directly against the same objective with `alphas` copied
// into a local first (itself checked against an oracle in `test_programs.rs`).

#[ad::differentiable]
fn total(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for &x in &v {
        s += x;
    }
    s
}

#[ad::differentiable]
fn sum_twice(v: Vec<f64>) -> f64 {
    2.0 * total(v)
}

#[ad::differentiable]
fn logsumexp(v: Vec<f64>) -> f64 {
    let mut top = v[0];
    for i in 1..v.len() {
        top = top.max(v[i]);
    }
    let mut s = 0.0;
    for &x in &v {
        s += (x - top).exp();
    }
    top + s.ln()
}

/// The alpha terms of the GMM objective: sum_i lse_k(alpha_k - 0.5 |x_i - mu_k|^2)
/// - n lse(alpha), with `alphas` passed to `logsumexp` directly.
#[ad::differentiable]
fn gmm_alpha_terms(alphas: Vec<f64>, means: Vec<f64>, x: Vec<f64>) -> f64 {
    let k_count = alphas.len();
    let n = x.len();
    let mut slse = 0.0;
    for i in 0..n {
        let mut beta = vec![0.0; k_count];
        for k in 0..k_count {
            let z = x[i] - means[k];
            beta[k] = alphas[k] - 0.5 * z * z;
        }
        slse += logsumexp(beta);
    }
    slse - n as f64 * logsumexp(alphas)
}

/// The same with `alphas` copied into a local `Vec` first.
#[ad::differentiable]
fn gmm_alpha_terms_copied(alphas: Vec<f64>, means: Vec<f64>, x: Vec<f64>) -> f64 {
    let k_count = alphas.len();
    let n = x.len();
    let mut slse = 0.0;
    for i in 0..n {
        let mut beta = vec![0.0; k_count];
        for k in 0..k_count {
            let z = x[i] - means[k];
            beta[k] = alphas[k] - 0.5 * z * z;
        }
        slse += logsumexp(beta);
    }
    let mut copy = vec![0.0; k_count];
    for k in 0..k_count {
        copy[k] = alphas[k];
    }
    slse - n as f64 * logsumexp(copy)
}

#[test]
fn vec_parameter_passed_by_value_to_a_callee() {
    let v = vec![0.5, -1.0, 2.0];
    assert_eq!(ad::grad(sum_twice, (v.clone(),)), (vec![2.0; 3],));
    assert_eq!(ad::jvp(sum_twice, (v.clone(),), (vec![1.0; 3],)).1, 6.0);

    let args = (
        vec![0.3, -0.2, 1.1],
        vec![0.1, 0.5, 0.9],
        vec![0.2, 0.7, -0.4, 1.3],
    );
    let (y, g) = ad::value_and_grad(gmm_alpha_terms, args.clone());
    let (y_copied, g_copied) = ad::value_and_grad(gmm_alpha_terms_copied, args.clone());
    assert_eq!(y, y_copied);
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(p, q)| (p - q).abs() < 1e-13);
    assert!(close(&g.0, &g_copied.0) && close(&g.1, &g_copied.1) && close(&g.2, &g_copied.2));
}
