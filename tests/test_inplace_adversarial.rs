//! Adversarial programs for updates of an element in place (`v[i] += e`, `inplace.rs`), whose
//! reverse sweep leaves the element's adjoint where it is. Each function is checked with `jvp`,
//! `value_and_grad` and `vjp` against central finite differences; the cases either take the
//! shortcut or sit just outside its conditions.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::manual_memcpy,
    unused_mut,
    unused_variables,
    unused_assignments
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// `+=`, `-=` and the spelled-out forms, on a local `Vec`.
#[differentiable]
fn spellings(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] += x[i] * x[i];
        v[i] -= x[(i + 1) % n] * 0.5;
        v[i] = v[i] + x[i].sin();
        v[i] = x[i] * 2.0 + v[i];
        v[i] = v[i] - x[i] * x[0];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += v[i] * v[i];
    }
    s
}
probe!(plus_minus_and_spelled_out, spellings, [0.3, -1.2, 0.8, 2.0]);

/// The element's old value also used elsewhere: the read is not used once.
#[differentiable]
fn read_used_twice(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![1.0; n];
    let mut s = 0.0;
    for i in 0..n {
        let old = v[i];
        v[i] = old + x[i];
        s += old * v[i];
        v[i] = v[i] + v[i] * x[i];
    }
    s + v[0] * v[n - 1]
}
probe!(old_value_used_again, read_used_twice, [0.3, -1.2, 0.8, 2.0]);

/// Different indices for the read and the store.
#[differentiable]
fn shifted(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n + 1];
    for i in 0..n {
        v[i] = x[i] * x[i];
    }
    for i in 0..n {
        v[i + 1] = v[i] + x[i];
    }
    v[n] * v[n]
}
probe!(
    read_and_store_at_different_indices,
    shifted,
    [0.3, -1.2, 0.8, 2.0]
);

/// The same element twice in the sum: `v[i] = v[i] + v[i]`.
#[differentiable]
fn doubled(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * x[i];
        v[i] = v[i] + v[i];
        v[i] += v[i] * x[i];
    }
    v[0] * v[1] + v[2] * v[3]
}
probe!(element_twice_in_the_sum, doubled, [0.3, -1.2, 0.8, 2.0]);

/// A call between the read and the store that writes the element.
#[differentiable]
fn bump(o: &mut [f64], i: usize, y: f64) {
    o[i] = o[i] * y;
}
#[differentiable]
fn call_between(x: &[f64], o: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        o[i] = x[i];
    }
    for i in 0..x.len() {
        o[i] = o[i] + {
            bump(o, i, x[i]);
            x[i]
        };
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += o[i] * o[i];
    }
    s
}
probe_out!(
    call_between_read_and_store,
    call_between,
    [0.3, -1.2, 0.8, 2.0]
);

/// An output slice updated in place, and an array.
#[differentiable]
fn out_and_array(x: &[f64], o: &mut [f64]) -> f64 {
    let mut a = [0.0; 4];
    for i in 0..4 {
        o[i] = x[i];
        o[i] += x[i] * x[(i + 1) % 4];
        a[i] = x[i];
        a[i] -= o[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..4 {
        s += o[i] * a[i];
    }
    s
}
probe_out!(
    output_slice_and_array_updated_in_place,
    out_and_array,
    [0.3, -1.2, 0.8, 2.0]
);

/// In a loop a `break` can leave, and at an index kept on the tape.
#[differentiable]
fn guarded(x: &[f64], stop: usize) -> f64 {
    let mut v = vec![0.0; x.len()];
    let mut j = 0;
    for i in 0..x.len() {
        if i == stop {
            break;
        }
        j = (j + 3) % x.len();
        v[j] += x[i] * x[j];
        v[i] = v[i] + x[i];
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += v[i] * v[i];
    }
    s
}
probe!(
    in_a_loop_that_breaks,
    guarded,
    [0.3, -1.2, 0.8, 2.0, 0.5],
    3
);
probe!(
    in_a_loop_that_does_not_break,
    guarded,
    [0.3, -1.2, 0.8, 2.0, 0.5],
    9
);
