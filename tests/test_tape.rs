//! What goes on the tape in reverse mode. A gradient runs both sweeps of the function it is
//! asked for in one call, so the values of its straight-line code stay in locals; the tape holds
//! only what must outlive a call or an iteration: branch decisions, loop trip counts, and the
//! records of instructions inside loops and of callees.

use ad::differentiable;

/// Straight-line code with nonlinear operations: nothing on the tape.
#[differentiable]
fn straight(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin() / y;
    z.exp() * z.powi(3)
}

/// One branch: one decision.
#[differentiable]
fn branchy(x: f64) -> f64 {
    if x > 0.0 { x * x } else { x.exp() }
}

/// A loop of n iterations with one product each: per iteration the operand that changes (one
/// word; `x` is a parameter the function never assigns, which the reverse sweep reads again),
/// plus the trip count.
#[differentiable]
fn looped(x: f64, n: i32) -> f64 {
    let mut p = 1.0;
    for _ in 0..n {
        p *= x;
    }
    p
}

/// A loop whose products meet constants and parameters only: nothing to keep per iteration.
#[differentiable]
fn scaled(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for _ in 0..n {
        s += 3.0 * x;
    }
    s
}

/// A call: the callee's forward sweep runs on the tape (its records and the rule it used).
#[differentiable]
fn calls(x: f64) -> f64 {
    straight(x, 2.0) + 1.0
}

#[test]
fn the_tape_holds_only_what_outlives_a_call_or_an_iteration() {
    let (_, (dx, dy)) = ad::value_and_grad(straight, (0.5, 1.5));
    assert_eq!(ad::__private::last_tape_high_water(), 0);
    assert!(dx.is_finite() && dy.is_finite());

    assert_eq!(ad::grad(branchy, (2.0,)), (4.0,));
    assert_eq!(ad::__private::last_tape_high_water(), 1);

    let (_, (d, _)) = ad::value_and_grad(looped, (1.5, 10));
    assert!((d - 10.0 * 1.5_f64.powi(9)).abs() < 1e-12 * d);
    assert_eq!(ad::__private::last_tape_high_water(), 10 + 1);

    assert_eq!(ad::grad(scaled, (0.5, 4)).0, 12.0);
    assert_eq!(ad::__private::last_tape_high_water(), 1);

    let _ = ad::grad(calls, (0.5,));
    let callee_words = ad::__private::last_tape_high_water();
    assert!(callee_words > 0, "a callee's records go on the tape");
}

/// A sum of squares over a slice the function never writes: the reverse sweep reads the
/// elements again at the loop index it counts down, so nothing is kept per iteration.
#[differentiable]
#[allow(clippy::needless_range_loop)] // the index loop is what is measured
fn sum_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

/// A reassigned accumulator inside the loop keeps its changing operand, one word an iteration.
#[differentiable]
fn product_of(v: &[f64]) -> f64 {
    let mut p = 1.0;
    for x in v.iter() {
        p *= x;
    }
    p
}

/// A running index into a slice parameter, multiplied by a local's element (GMM's triangular
/// loop): per iteration the product keeps the index and the local's element, and the read of
/// `w[idx]` takes the index from the product instead of keeping it again.
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)] // the index loops are measured
fn running_index(w: &[f64], v: &[f64]) -> f64 {
    let mut u = vec![0.0; v.len()];
    for j in 0..v.len() {
        u[j] = v[j];
    }
    let mut s = 0.0;
    let mut idx = 0;
    for a in 0..u.len() {
        s += w[idx] * u[a];
        idx += 2;
    }
    s
}

#[test]
fn elements_of_slices_never_written_are_read_again() {
    let v = [1.0, -2.0, 3.0, 0.5];
    let (s, (g,)) = ad::value_and_grad(sum_sq, (&v[..],));
    assert_eq!(s, 14.25);
    assert_eq!(g, vec![2.0, -4.0, 6.0, 1.0]);
    // Nothing: not even the trip count, which the reverse sweep computes again from the
    // range `0..v.len()` (`v` cannot change).
    assert_eq!(ad::__private::last_tape_high_water(), 0);

    let (_, (g,)) = ad::value_and_grad(product_of, (&v[..],));
    assert_eq!(g, vec![-3.0, 1.5, -1.0, -6.0]);
    // One word an iteration; the trip count is the length of `v`, computed again.
    assert_eq!(ad::__private::last_tape_high_water(), 4);

    let w = [1.0, 0.0, 2.0, 0.0, 3.0];
    let (_, (gw, gv)) = ad::value_and_grad(running_index, (&w[..], &v[..3]));
    assert_eq!(gw, vec![1.0, 0.0, -2.0, 0.0, 3.0]);
    assert_eq!(gv, vec![1.0, 2.0, 3.0]);
    // One word an iteration (`u[a]`; `w[idx]` is read again, and `idx`, a counter, is computed
    // from its start, kept once per run of the loop), the start, and the trip count of the loop
    // over `u.len()` (`u` is a local: its length is not computed again; that of the loop over
    // `v.len()` is).
    assert_eq!(ad::__private::last_tape_high_water(), 3 + 1 + 1);
}

/// GMM's triangular product: every iteration of the inner loop reads `xc[a]`, and `idx` advances
/// by one per iteration.
#[differentiable]
#[allow(clippy::needless_range_loop)] // the index loops are measured
fn triangle(l: &[f64], x: &[f64]) -> f64 {
    let d = x.len();
    let mut xc = vec![0.0; d];
    for j in 0..d {
        xc[j] = x[j] * x[j];
    }
    let mut q = vec![0.0; d];
    let mut idx = 0;
    for a in 0..d {
        for b in a + 1..d {
            q[b] += l[idx] * xc[a];
            idx += 1;
        }
    }
    let mut s = 0.0;
    for j in 0..d {
        s += q[j] * q[j];
    }
    s
}

#[test]
#[allow(clippy::needless_range_loop)] // the oracle follows the function's indices
fn a_loop_keeps_what_its_iterations_share_once() {
    let d = 6;
    let x: Vec<f64> = (0..d).map(|i| 0.5 + i as f64 * 0.25).collect();
    let l: Vec<f64> = (0..d * (d - 1) / 2).map(|i| 1.0 - i as f64 * 0.1).collect();
    let (_, (gl, gx)) = ad::value_and_grad(triangle, (&l[..], &x[..]));
    // The oracle: the gradient written out by hand. q[b] = sum over a < b of l[idx(a, b)] x[a]^2.
    let mut q = vec![0.0; d];
    let mut at = vec![(0, 0); l.len()];
    let mut idx = 0;
    for a in 0..d {
        for b in a + 1..d {
            q[b] += l[idx] * x[a] * x[a];
            at[idx] = (a, b);
            idx += 1;
        }
    }
    for (k, &(a, b)) in at.iter().enumerate() {
        assert!((gl[k] - 2.0 * q[b] * x[a] * x[a]).abs() < 1e-12);
    }
    for a in 0..d {
        let want: f64 = at
            .iter()
            .enumerate()
            .filter(|(_, (aa, _))| *aa == a)
            .map(|(k, &(_, b))| 2.0 * q[b] * l[k] * 2.0 * x[a])
            .sum();
        assert!((gx[a] - want).abs() < 1e-12 * want.abs().max(1.0));
    }
    // Per run of the inner loop that ran (a < d - 1), its record: `idx` at the start and
    // `xc[a]`, two words; per iteration nothing (`l[idx]` is read again at `idx` computed from
    // the start). Then `q[j]` per iteration of the last loop. Trip counts are computed again.
    // Kept per iteration, the inner loop alone would need d (d - 1) words.
    assert_eq!(ad::__private::last_tape_high_water(), 2 * (d - 1) + d);
}
