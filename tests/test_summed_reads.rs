//! Reads of one element in every iteration of a loop (`xc[a]` inside `for b in ..`), whose
//! adjoints the reverse sweep adds up in a local and adds to the element once after the loop;
//! and programs where that must not happen (the element written in the loop, the index changing,
//! the read under an `if`, a loop that runs no iteration, the element also read at the loop
//! variable). Each function is checked in both modes against central finite differences (see
//! `fd_check` for h and the tolerance).

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::useless_vec,
    unused_assignments
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// GMM's triangular product: `xc[a]` in every iteration of the inner loop.
#[differentiable]
fn triangular(x: &[f64]) -> f64 {
    let d = x.len();
    let l = [0.5, -0.4, 1.5, 0.2, 0.7, -1.1];
    let mut xc = vec![0.0; d];
    for j in 0..d {
        xc[j] = x[j] * x[j] - 0.5;
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
probe!(
    a_local_read_at_the_outer_index,
    triangular,
    [0.3, -1.2, 0.8, 2.0]
);

/// A slice read at a parameter index, and also at the loop variable: the same element when
/// `j == k`.
#[differentiable]
fn at_parameter(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[k] * x[j].sin();
    }
    s
}
probe!(
    a_slice_read_at_a_parameter,
    at_parameter,
    [0.3, -1.2, 0.8, 2.0],
    2
);

/// At a literal index, in a `while` loop.
#[differentiable]
fn in_while(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut j = 1;
    while j < x.len() {
        s += x[0] * x[j];
        j += 1;
    }
    s
}
probe!(
    a_literal_index_in_a_while_loop,
    in_while,
    [0.3, -1.2, 0.8, 2.0]
);

/// The element is written in the loop: no sum.
#[differentiable]
fn written_in_loop(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    v[0] = x[0];
    let mut s = 0.0;
    for j in 1..x.len() {
        s += v[0] * x[j];
        v[0] = v[0] * x[j];
    }
    s + v[0]
}
probe!(
    an_element_written_in_the_loop,
    written_in_loop,
    [0.3, -1.2, 0.8, 2.0]
);

/// The index changes in the loop (`k += 1`), and a local of the loop body is used as one.
#[differentiable]
fn moving_index(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    for j in 0..x.len() - 1 {
        let i = j + 1;
        s += x[k] * x[i];
        k += 1;
    }
    s
}
probe!(an_index_that_changes, moving_index, [0.3, -1.2, 0.8, 2.0]);

/// The read under an `if`, and a loop that runs no iteration.
#[differentiable]
fn guarded(x: &[f64], n: usize) -> f64 {
    let mut s = x[1];
    for j in 0..n {
        if x[j] > 0.0 {
            s += x[0] * x[j];
        }
        s += x[1] * x[j];
    }
    s
}
probe!(a_read_under_an_if, guarded, [0.3, -1.2, 0.8, 2.0], 4);
probe!(a_loop_without_iterations, guarded, [0.3, -1.2, 0.8, 2.0], 0);

/// An array parameter and an outer loop's variable as the index, two reads of the element.
#[differentiable]
fn outer_index(a: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            s += a[i] * a[i] * a[j].cos();
        }
    }
    s
}

#[test]
fn an_array_element_at_the_outer_variable() {
    let a = [0.4, -0.9, 1.3];
    let f = |x: &[f64]| outer_index([x[0], x[1], x[2]]);
    let want = fd_check::fd(&f, &a);
    let (_, (g,)) = ad::value_and_grad(outer_index, (a,));
    let (_, pullback) = ad::vjp(outer_index, (a,));
    let (v,) = pullback(1.0);
    for i in 0..3 {
        assert!(fd_check::close(g[i], want[i], 1e-6), "{g:?} {want:?}");
        assert!(fd_check::close(v[i], want[i], 1e-6), "{v:?} {want:?}");
    }
}
