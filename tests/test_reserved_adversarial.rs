//! Adversarial programs for the room a loop makes on the tape before it runs (`Tape::reserve`,
//! `push_reserved`): a loop over a range whose body has no branch, inner loop, call or exit
//! pushes the same records in every iteration; where it also carries a float from one
//! iteration to the next (`s += ..`), it makes room for all of them first, so that its pushes
//! cannot allocate. A record counted wrong would panic or leave the tape out of step, so
//! each program is checked with `jvp`, `value_and_grad` and `vjp` (whose pullback replays the
//! tape) against central finite differences.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec,
    clippy::manual_memcpy,
    unused_mut
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// A running sum of squares of a local written again later: one word per iteration, with the
/// sum in a register.
#[differentiable]
fn sums_of_squares(x: &[f64], d: usize) -> f64 {
    let mut q = vec![0.0; d];
    let mut total = 0.0;
    for i in 0..x.len() / d {
        for j in 0..d {
            q[j] = x[i * d + j] * x[j];
        }
        let mut sq = 0.0;
        for j in 0..d {
            sq += q[j] * q[j];
        }
        total += sq.sqrt();
    }
    total
}
probe!(
    one_word_per_iteration,
    sums_of_squares,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1, 0.5, -0.9],
    3
);

/// Products of two locals (two words a record), a quotient and transcendental functions (their
/// partials on the tape), several records per iteration.
#[differentiable]
fn several_records(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    let mut b = vec![0.0; n];
    for i in 0..n {
        a[i] = x[i] + 1.5;
        b[i] = x[(i + 1) % n] - 0.5;
    }
    let mut s = 0.0;
    for i in 0..n {
        let p = a[i] * b[i];
        let t = p.sin() / (1.0 + b[i] * b[i]);
        s += t * a[i] + p.exp() * 0.1;
    }
    for i in 0..n {
        a[i] = 0.0;
        b[i] = 0.0;
    }
    s
}
probe!(
    several_records_per_iteration,
    several_records,
    [0.3, -1.2, 0.8, 2.0, 0.7]
);

/// An index that goes on the tape (a store at a computed index whose value the reverse sweep
/// cannot compute again), beside a running sum.
#[differentiable]
fn scattered(x: &[f64], stride: usize) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        k = (k + stride) % n;
        v[k] = v[k] + x[i] * x[i];
        s += v[k] * x[i];
    }
    for i in 0..n {
        s += v[i] * v[i];
    }
    s
}
probe!(
    an_index_on_the_tape,
    scattered,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4],
    4
);

// No iteration at all, and one.
probe!(no_iteration, sums_of_squares, [0.3, -1.2], 3);
probe!(one_iteration, sums_of_squares, [0.3, -1.2, 0.8], 3);

/// `f32` records in a loop over an inclusive range.
#[differentiable]
fn single(x: &[f32]) -> f32 {
    let mut w = vec![0.0f32; x.len()];
    for i in 0..x.len() {
        w[i] = x[i] * x[i];
    }
    let mut s = 0.0f32;
    for i in 0..=x.len() - 1 {
        s += (w[i] * x[i]).sin();
    }
    s
}

#[test]
fn single_precision_records() {
    let x = [0.3f32, -1.2, 0.8, 2.0];
    let (_, (g,)) = ad::value_and_grad(single, (&x[..],));
    let (_, pullback) = ad::vjp(single, (&x[..],));
    let (v,) = pullback(1.0);
    for k in 0..x.len() {
        // d/dx sin(x^3) = 3 x^2 cos(x^3), in f64.
        let xk = f64::from(x[k]);
        let want = 3.0 * xk * xk * (xk * xk * xk).cos();
        for got in [f64::from(g[k]), f64::from(v[k])] {
            assert!(
                (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{k}: {got} {want}"
            );
        }
    }
}

/// Many iterations: room for more words than the tape held before.
#[test]
fn many_iterations() {
    let x: Vec<f64> = (0..30_000).map(|i| (f64::from(i) * 0.37).sin()).collect();
    let (_, (g, _)) = ad::value_and_grad(sums_of_squares, (&x[..], 3));
    // Against the derivative by hand: total = sum_i |q_i|, q_ij = x_{3i+j} x_j.
    let d = 3;
    let mut want = vec![0.0; x.len()];
    for i in 0..x.len() / d {
        let q: Vec<f64> = (0..d).map(|j| x[i * d + j] * x[j]).collect();
        let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        for j in 0..d {
            let dq = q[j] / norm;
            want[i * d + j] += dq * x[j];
            want[j] += dq * x[i * d + j];
        }
    }
    for k in 0..x.len() {
        assert!(
            (g[k] - want[k]).abs() <= 1e-9 * want[k].abs().max(1.0),
            "{k}: {} {}",
            g[k],
            want[k]
        );
    }
}

/// Room made at the start of each iteration of an outer loop: inner ranges from the outer
/// loop's variable (a triangle, empty in the last iteration), a record after the inner loops.
#[differentiable]
fn triangle(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..n {
            v[j] = x[j] * x[i];
        }
        let mut s = 0.0;
        for j in i + 1..n {
            s += v[j] * v[j];
        }
        total += (s + 1.0).sqrt() * x[i];
    }
    total
}
probe!(
    room_per_iteration_triangle,
    triangle,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4]
);
probe!(room_per_iteration_one_element, triangle, [0.3]);

/// An inner range from a local of the outer body; some iterations run the inner loop no time.
#[differentiable]
fn local_range(x: &[f64]) -> f64 {
    let n = x.len();
    let mut w = vec![0.0; n];
    let mut total = 0.0;
    for i in 0..n {
        let m = i % 3;
        for j in 0..n {
            w[j] = x[j] - x[i];
        }
        let mut s = 0.0;
        for j in 0..m {
            s += w[j] * w[j] * x[i];
        }
        total += s.exp() * 0.5;
    }
    total
}
probe!(
    room_per_iteration_local_range,
    local_range,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4]
);

/// Outside the conditions: a local hides a parameter's name (the room would be counted with the
/// local); the loop pushes as before.
#[differentiable]
fn hidden(x: &[f64], d: usize) -> f64 {
    let mut q = vec![0.0; d];
    let mut total = 0.0;
    for i in 0..x.len() / d {
        let d = q.len();
        for j in 0..d {
            q[j] = x[i * d + j] * x[j];
        }
        let mut sq = 0.0;
        for j in 0..d {
            sq += q[j] * q[j];
        }
        total += sq.sqrt();
    }
    total
}
probe!(
    a_local_hides_a_parameter,
    hidden,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1, 0.5, -0.9],
    3
);
