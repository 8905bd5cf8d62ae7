//! Adversarial programs for the values a replayed loop keeps once per run (`kept.rs`): elements
//! every iteration reads, and counters advanced by a literal once per iteration. Each function is
//! checked with `jvp`, `value_and_grad` and `vjp` against central finite differences; the cases
//! either take the shortcut or sit just outside its conditions.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::useless_vec,
    clippy::reversed_empty_ranges,
    unused_mut,
    unused_variables,
    unused_assignments
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// GMM's triangular product: `l[idx] * xc[a]` with `idx` a counter and `xc[a]` the same in every
/// iteration of the inner loop, `xc` written again by the outer loop.
#[differentiable]
fn triangle(x: &[f64], d: usize) -> f64 {
    let n = x.len() / d;
    let mut xc = vec![0.0; d];
    let mut q = vec![0.0; d];
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..d {
            xc[j] = x[i * d + j] * x[j];
            q[j] = xc[j];
        }
        let mut idx = 0;
        for a in 0..d {
            for b in a + 1..d {
                q[b] += x[idx] * xc[a];
                idx += 1;
            }
        }
        for j in 0..d {
            total += q[j] * q[j];
        }
    }
    total
}
probe!(
    triangular_product,
    triangle,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 1.1, 0.5, -0.9],
    3
);
probe!(triangular_product_one_column, triangle, [0.3, -1.2, 0.8], 1);

/// A step of 2, the counter read after its advance.
#[differentiable]
fn step_two_after(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..x.len() / 2 {
        k += 2;
        s += x[k - 1] * x[j] * x[k - 2];
    }
    s
}
probe!(
    step_two_read_after,
    step_two_after,
    [0.3, -1.2, 0.8, 2.0, 0.7, -0.4]
);

/// Counting down, read before and after the step.
#[differentiable]
fn down(x: &[f64]) -> f64 {
    let mut k = x.len() - 1;
    let mut s = 0.0;
    for j in 1..x.len() {
        let before = x[k];
        k -= 1;
        s += before * x[k] * x[j];
    }
    s
}
probe!(counting_down, down, [0.3, -1.2, 0.8, 2.0, 0.7]);

/// `k = 1 + k`, read under an `if` and in an inner loop of the body.
#[differentiable]
fn nested_reads(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..x.len() - 1 {
        if x[j] > 0.0 {
            s += x[k] * x[k + 1];
        } else {
            s -= x[k] * x[j];
        }
        k = 1 + k;
        for t in 0..2 {
            s += x[k] * x[t] * x[t];
        }
    }
    s
}
probe!(
    reads_under_if_and_inner_loop,
    nested_reads,
    [0.3, -1.2, 0.8, 2.0, -0.7]
);

/// Advanced under an `if`: not a counter.
#[differentiable]
fn advanced_under_if(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[k] * x[j] * x[j];
        if x[j] > 0.0 {
            k += 1;
        }
    }
    s
}
probe!(
    advance_under_if,
    advanced_under_if,
    [0.3, -1.2, 0.8, 2.0, -0.7]
);

/// Advanced again in an inner loop: not a counter of the outer loop, a counter of the inner.
#[differentiable]
fn advanced_inside(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..3 {
        s += x[k] * x[j];
        k += 1;
        for t in 0..j {
            s += x[k] * x[t] * x[t];
            k += 1;
        }
        k -= j;
    }
    s
}
probe!(
    advance_in_inner_loop,
    advanced_inside,
    [0.3, -1.2, 0.8, 2.0, -0.7, 0.4]
);

/// A counter indexing only a local `Vec` of unwritten type: kept per iteration.
#[differentiable]
fn local_index(x: &[f64]) -> f64 {
    let v = vec![x[0] * x[1], x[2] * x[2], x[3], x[0]];
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..x.len() {
        s += v[k] * x[j] * x[j];
        k += 1;
    }
    s
}
probe!(counter_of_local_vec, local_index, [0.3, -1.2, 0.8, 2.0]);

/// The element read is written later in the same iteration: not the same in every iteration.
#[differentiable]
fn written_in_loop(x: &[f64], a: usize) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * 0.5;
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += v[a] * x[j] * x[j];
        v[a] = v[a] * x[j];
    }
    s + v[a]
}
probe!(
    element_written_in_loop,
    written_in_loop,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Written in an inner loop that runs only sometimes.
#[differentiable]
fn written_in_inner(x: &[f64], a: usize) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i].sin();
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += v[a] * x[j] * x[j];
        for t in 0..j % 2 {
            v[a] = v[a] * x[t];
        }
    }
    s
}
probe!(
    element_written_in_inner_loop,
    written_in_inner,
    [0.3, -1.2, 0.8, 2.0],
    2
);

/// The index is the loop variable through a local: different in every iteration.
#[differentiable]
fn through_local(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        let t = j;
        s += v[t] * v[t] * x[j];
    }
    s
}
probe!(
    index_is_loop_variable_through_local,
    through_local,
    [0.3, -1.2, 0.8, 2.0]
);

/// The element exists only if the loop runs: `v[a + 1]` at `a = n - 1` is out of bounds, and the
/// inner loop is empty there.
#[differentiable]
fn only_if_ran(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for a in 0..n {
        for b in a + 1..n {
            s += v[a + 1] * x[b] * x[a];
        }
    }
    s
}
probe!(
    element_read_only_if_the_loop_ran,
    only_if_ran,
    [0.3, -1.2, 0.8, 2.0]
);

// Kept elements at other indices than the loop variable's: a literal, a variable the body
// shadows after the read, a parameter.

/// The element at a literal index, in inner loops of which some are empty.
#[differentiable]
fn literal_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut s = 0.0;
    for a in 0..n {
        v[0] = x[a] * x[a] + v[0];
        for b in a + 1..n {
            s += v[0] * x[b];
        }
    }
    s
}
probe!(
    element_at_a_literal_index,
    literal_index,
    [0.3, -1.2, 0.8, 2.0]
);

/// The body declares a new `a` after reading `v[a]`: after the loop, `a` is the outer one again.
#[differentiable]
fn shadowed_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut s = 0.0;
    for a in 0..n {
        v[a] = x[a].sin();
        for b in a..n {
            let t = v[a] * x[b];
            let a = b + 1;
            s += t * (a as f64);
        }
    }
    s
}
probe!(
    index_shadowed_after_the_read,
    shadowed_index,
    [0.3, -1.2, 0.8, 2.0]
);

/// The index is a parameter, the element a local `Vec`'s that an outer loop writes.
#[differentiable]
fn parameter_index(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut s = 0.0;
    for i in 0..n {
        v[i] = x[i] * x[n - 1 - i];
        for j in 0..i {
            s += v[k] * x[j];
        }
    }
    s
}
probe!(
    element_at_a_parameter_index,
    parameter_index,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Kept values of two nested loops, each with its own counter.
#[differentiable]
fn nested_groups(x: &[f64]) -> f64 {
    let n = x.len();
    let mut w = vec![0.0; n];
    for i in 0..n {
        w[i] = x[i].cos();
    }
    let mut s = 0.0;
    let mut outer = 0;
    for a in 0..n {
        let mut inner = n - 1;
        for b in 0..a {
            s += x[inner] * w[a] * x[b];
            inner -= 1;
        }
        s += x[outer] * w[0] * x[a];
        outer += 1;
    }
    s
}
probe!(
    nested_loops_with_kept_values,
    nested_groups,
    [0.3, -1.2, 0.8, 2.0, 0.6]
);

/// The element goes to a call.
#[differentiable]
fn mul3(a: f64, b: f64, c: f64) -> f64 {
    a * b * c
}
#[differentiable]
fn element_to_call(x: &[f64], a: usize) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i].exp();
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += mul3(v[a], x[j], x[j]);
    }
    s
}
probe!(
    element_passed_to_call,
    element_to_call,
    [0.3, -1.2, 0.8, 2.0],
    3
);

/// The element is an index: `x[perm[a]]`.
#[differentiable]
fn permuted(x: &[f64]) -> f64 {
    let perm = vec![3, 0, 2, 1];
    let mut s = 0.0;
    for a in 0..4 {
        for b in 0..4 {
            s += x[perm[a]] * x[b] * x[b];
        }
    }
    s
}
probe!(element_used_as_index, permuted, [0.3, -1.2, 0.8, 2.0]);

/// More kept values than a record holds.
#[differentiable]
fn many_kept(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    let mut k = 0;
    for j in 0..x.len() {
        s += x[k] * v[0] * v[1] * v[2] * v[3] * v[4];
        s += v[5] * v[6] * v[7] * v[8] * v[9] * x[j];
        k += 1;
    }
    s
}
probe!(
    more_kept_values_than_a_record_holds,
    many_kept,
    [0.3, -1.2, 0.8, 2.0, 0.5, -0.6, 0.9, 1.1, -0.3, 0.4]
);

/// A counter that is a parameter, and two counters in one loop.
#[differentiable]
fn two_counters(x: &[f64], mut k: usize) -> f64 {
    let mut m = x.len() - 1;
    let mut s = 0.0;
    for j in 0..3 {
        s += x[k] * x[m] * x[j];
        k += 1;
        m -= 1;
    }
    s
}
probe!(
    parameter_and_second_counter,
    two_counters,
    [0.3, -1.2, 0.8, 2.0, 0.5],
    1
);

/// The trip count is on the tape (the end is a local written before the loop).
#[differentiable]
fn trips_on_tape(x: &[f64]) -> f64 {
    let mut end = 1;
    if x[0] < x[1] {
        end = 3;
    }
    let mut v = vec![0.0; 2];
    v[1] = x[1] * x[2];
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..end {
        s += x[k] * v[1] * x[j];
        k += 1;
    }
    s
}
probe!(trip_count_on_the_tape, trips_on_tape, [0.3, 1.2, 0.8, 2.0]);
probe!(
    trip_count_on_the_tape_one_trip,
    trips_on_tape,
    [1.3, 1.2, 0.8, 2.0]
);

/// In a loop an exit can leave: the kept record is popped only where the reverse sweep is live.
#[differentiable]
fn inside_exit_loop(x: &[f64], stop: usize) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    let mut s = 0.0;
    for a in 0..n {
        v[a] = x[a] * x[a];
        if a == stop {
            break;
        }
        let mut k = 0;
        for b in 0..a {
            s += v[a] * x[k] * x[b];
            k += 1;
        }
    }
    s
}
probe!(
    inside_a_loop_that_breaks,
    inside_exit_loop,
    [0.3, -1.2, 0.8, 2.0, 0.5],
    3
);
probe!(
    inside_a_loop_that_does_not_break,
    inside_exit_loop,
    [0.3, -1.2, 0.8, 2.0, 0.5],
    9
);

/// An index array written through a reference taken in the loop.
#[differentiable]
fn index_written_through_reference(x: &[f64]) -> f64 {
    let mut perm: Vec<usize> = vec![3, 0, 2, 1];
    let mut s = 0.0;
    for b in 0..4 {
        s += x[perm[0]] * x[b] * x[b];
        let r = &mut perm;
        r[0] = (r[0] + 1) % 4;
    }
    s
}
probe!(
    index_written_through_a_reference,
    index_written_through_reference,
    [0.3, -1.2, 0.8, 2.0]
);
