//! Adversarial programs for the adjoints a replayed loop carries from one iteration to the next
//! (`carried.rs`): elements read at the loop variable plus or minus a literal. Each function is
//! checked with `jvp`, `value_and_grad` and `vjp` against central finite differences; the cases
//! either take the path or sit just outside its conditions.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec,
    clippy::reversed_empty_ranges,
    clippy::identity_op,
    clippy::manual_memcpy,
    unused_mut,
    unused_variables
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// Rosenbrock: offsets 0 and 1.
#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + 100.0 * b * b;
    }
    s
}
probe!(
    rosenbrock_offsets_zero_and_one,
    rosenbrock,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4]
);
probe!(rosenbrock_one_iteration, rosenbrock, [0.3, -1.2]);
probe!(rosenbrock_no_iteration, rosenbrock, [0.3]);

/// A three-point stencil: offsets -1, 0 and 1, from a start of 1.
#[differentiable]
fn stencil(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() - 1 {
        let lap = x[i - 1] - 2.0 * x[i] + x[i + 1];
        s += lap * lap * x[i];
    }
    s
}
probe!(
    three_point_stencil,
    stencil,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1]
);
probe!(three_point_stencil_one_iteration, stencil, [0.3, -1.2, 0.8]);
probe!(three_point_stencil_no_iteration, stencil, [0.3, -1.2]);

/// Offsets 0 and 3 with nothing read between: the locals between only move along.
#[differentiable]
fn gap(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 3 {
        s += x[i] * x[i + 3] * x[i + 3];
    }
    s
}
probe!(
    offsets_with_a_gap,
    gap,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1]
);

/// A start that is not zero and offsets below zero only.
#[differentiable]
fn behind(x: &[f64], from: usize) -> f64 {
    let mut s = 0.0;
    for i in from..x.len() {
        s += (x[i - 2] - x[i - 1]) * x[i - 2];
    }
    s
}
probe!(
    offsets_below_zero,
    behind,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4],
    3
);

/// Reads under an `if`: one within the offsets of the body itself, which uses their locals, and
/// one beyond them, guarded by a test of bounds, which adds to the buffer itself.
#[differentiable]
fn under_if(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n - 2 {
        let a = x[i] * x[i + 2];
        if a > 0.0 {
            s += x[i + 1] * a;
        } else {
            s -= x[i + 1];
        }
        if i + 3 < n {
            s += x[i + 3] * x[i];
        }
    }
    s
}
probe!(
    reads_under_an_if,
    under_if,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1]
);

/// Reads in an inner loop at the outer loop's variable plus a literal, which use the outer
/// loop's locals, and an inner loop that carries its own.
#[differentiable]
fn inner(x: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i] * x[i + 1];
        for j in 0..m {
            s += x[i + 1] * x[j] * x[j + 1];
        }
    }
    s
}
probe!(
    reads_in_an_inner_loop,
    inner,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4],
    3
);
probe!(
    reads_in_an_empty_inner_loop,
    inner,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4],
    0
);

/// Two variables carried by one loop, one of them a local `Vec` written before the loop.
#[differentiable]
fn two_vars(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..n - 1 {
        s += v[i + 1] * x[i] - v[i] * x[i + 1];
    }
    s
}
probe!(
    two_variables_one_a_local_vec,
    two_vars,
    [0.3, -1.2, 0.8, 2.0, 0.7]
);

/// One offset, read more than once: a local `Vec` squared, and a slice read three times, once
/// under an `if`.
#[differentiable]
fn one_offset(x: &[f64], d: usize) -> f64 {
    let mut q = vec![0.0; d];
    let mut total = 0.0;
    for i in 0..x.len() / d {
        for j in 0..d {
            q[j] = x[i * d + j] * x[j];
        }
        let mut sq = 0.0;
        for j in 0..d {
            sq += q[j] * q[j];
            if x[j] > 0.0 {
                sq += x[j] * x[j] * x[j];
            }
        }
        total += sq.sqrt();
    }
    total
}
probe!(
    one_offset_read_more_than_once,
    one_offset,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1, 0.5, -0.9],
    3
);

/// An array parameter.
#[differentiable]
fn array(a: [f64; 5], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..4 {
        s += a[i] * a[i + 1] * w;
    }
    s
}

#[test]
fn array_parameter() {
    let a = [0.3, -1.2, 0.8, 2.0, 0.7];
    let w = 1.5;
    let (_, (ga, gw)) = ad::value_and_grad(array, (a, w));
    let h = 1e-6;
    for k in 0..5 {
        let (mut hi, mut lo) = (a, a);
        hi[k] += h;
        lo[k] -= h;
        let want = (array(hi, w) - array(lo, w)) / (2.0 * h);
        assert!(fd_check::close(ga[k], want, 1e-6), "{k}: {} {want}", ga[k]);
    }
    let want = (array(a, w + h) - array(a, w - h)) / (2.0 * h);
    assert!(fd_check::close(gw, want, 1e-6), "w: {gw} {want}");
}

/// Also read at a fixed index in the loop, which adds to the buffer while locals hold other
/// elements, some of them the same element.
#[differentiable]
fn fixed_too(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i] * x[i + 1] * x[1];
    }
    s
}
probe!(
    also_read_at_a_fixed_index,
    fixed_too,
    [0.3, -1.2, 0.8, 2.0, 0.7]
);

/// Outside the conditions: the variable is written in the loop (a recurrence).
#[differentiable]
fn recurrence(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i];
    }
    for i in 0..v.len() - 1 {
        v[i + 1] = v[i + 1] * v[i] + x[i];
    }
    v[v.len() - 1]
}
probe!(written_in_the_loop, recurrence, [0.3, -1.2, 0.8, 2.0, 0.7]);

#[differentiable]
fn pair_d(x: &[f64], i: usize) -> f64 {
    x[i] * x[i + 1]
}

/// Outside the conditions: the variable is passed to a call in the loop.
#[differentiable]
fn passed_d(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 2 {
        s += x[i + 2] * x[i] + pair_d(x, i);
    }
    s
}
probe!(
    passed_to_a_differentiable_call,
    passed_d,
    [0.3, -1.2, 0.8, 2.0, 0.7]
);

/// `vjp_into` adds to what the caller's buffer holds: the carried locals reach it once, after
/// the loop's other contributions to the same element.
#[test]
fn adds_to_what_the_buffer_holds() {
    let x = [0.3, -1.2, 0.8, 2.0, 0.7, -0.4];
    let held = [10.0, -20.0, 30.0, -40.0, 50.0, 0.5];
    let mut bar = held;
    let (v, _) = ad::vjp_into(stencil, (&x[..],), (&mut bar[..],), 2.0);
    assert_eq!(v.to_bits(), stencil(&x).to_bits());
    let want = fd_check::fd(&|x| stencil(x), &x);
    for k in 0..x.len() {
        let expected = held[k] + 2.0 * want[k];
        assert!(
            fd_check::close(bar[k], expected, 1e-6),
            "{k}: {} {expected}",
            bar[k]
        );
    }
}

/// f32 elements.
#[differentiable]
fn rosenbrock32(x: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let b = x[i + 1] - x[i] * x[i];
        s += (1.0 - x[i]) * (1.0 - x[i]) + 100.0 * b * b;
    }
    s
}

#[test]
fn f32_elements() {
    let x = [0.3f32, -1.2, 0.8, 2.0];
    let (_, (g,)) = ad::value_and_grad(rosenbrock32, (&x[..],));
    // The gradient by hand, in f64.
    let n = x.len();
    let mut want = vec![0.0f64; n];
    for i in 0..n - 1 {
        let (xi, xj) = (f64::from(x[i]), f64::from(x[i + 1]));
        let b = xj - xi * xi;
        want[i] += -2.0 * (1.0 - xi) - 400.0 * b * xi;
        want[i + 1] += 200.0 * b;
    }
    for k in 0..n {
        let got = f64::from(g[k]);
        assert!(
            (got - want[k]).abs() <= 1e-4 * want[k].abs().max(1.0),
            "{k}: {got} {}",
            want[k]
        );
    }
}
