//! Adversarial programs for the summed reads of `sums.rs` (reads of one element in every
//! iteration of a plain loop, whose adjoints add up in a local until the loop is replayed).
//! Each function is checked in both modes against central finite differences; most of them were
//! checked, in their expansion, to take the summed path.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::useless_vec,
    clippy::reversed_empty_ranges,
    clippy::neg_multiply,
    unused_mut,
    unused_variables,
    unused_assignments
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

/// `&mut [f64]` output parameter read at a fixed index and written at the loop variable
/// through a callee.
#[differentiable]
fn write_first(o: &mut [f64], j: usize, y: f64) {
    o[j] = o[j] * y + y;
}
#[differentiable]
fn out_param_callee(x: &[f64], o: &mut [f64], k: usize) -> f64 {
    for j in 0..x.len() {
        o[j] = x[j] * 0.5;
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += o[k] * x[j];
        write_first(o, j, x[j]);
    }
    s
}
probe_out!(
    out_param_written_by_callee,
    out_param_callee,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Output parameter written directly at the loop variable, read at a param.
#[differentiable]
fn out_direct(x: &[f64], o: &mut [f64], k: usize) -> f64 {
    for j in 0..x.len() {
        o[j] = x[j].sin();
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += o[k] * x[j];
        o[j] = o[j] + x[j] * x[j];
    }
    s + o[k]
}
probe_out!(
    out_param_written_directly,
    out_direct,
    [0.3, -1.2, 0.8, 2.0],
    2
);

/// Output parameter only read in the loop (not written), written after.
#[differentiable]
fn out_read_only(x: &[f64], o: &mut [f64], k: usize) -> f64 {
    for j in 0..x.len() {
        o[j] = x[j].cos();
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += o[k] * x[j];
    }
    o[k] = s * s;
    s + o[k] * o[0]
}
probe_out!(
    out_param_read_in_loop,
    out_read_only,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Output parameter read in a loop that also passes it to a read-only callee.
#[differentiable]
fn out_to_reader(x: &[f64], o: &mut [f64], k: usize) -> f64 {
    for j in 0..x.len() {
        o[j] = x[j].cos();
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += o[k] * x[j] + total(o);
    }
    s
}
probe_out!(out_param_to_reader, out_to_reader, [0.3, -1.2, 0.8, 2.0], 1);

/// Whole slice passed to a differentiable callee inside the loop.
#[differentiable]
fn total(v: &[f64]) -> f64 {
    let mut t = 0.0;
    for i in 0..v.len() {
        t += v[i] * v[i];
    }
    t
}
#[differentiable]
fn whole_to_callee(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..3 {
        s += x[k] * total(x);
    }
    s
}
probe!(
    whole_slice_to_callee,
    whole_to_callee,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// `iter().sum()` inside the loop of a local.
#[differentiable]
fn iter_sum_inside(x: &[f64], k: usize) -> f64 {
    let v = vec![x[0] * x[1], x[2], x[3] * x[3]];
    let mut s = 0.0;
    for j in 0..x.len() {
        let t: f64 = v.iter().sum();
        s += v[k] * t * x[j];
    }
    s
}
probe!(iter_sum_in_loop, iter_sum_inside, [0.3, -1.2, 0.8, 2.0], 2);

/// Local Vec read twice at the same element, and at another index in an inner loop.
#[differentiable]
fn twice_and_inner(x: &[f64], k: usize) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += v[k] * v[k] * x[j];
        for t in 0..j {
            s += v[t] * v[k];
        }
        s += v[j];
    }
    s
}
probe!(
    read_twice_and_inner,
    twice_and_inner,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Write of the element after the loop, and a second loop reading the new value.
#[differentiable]
fn written_after(x: &[f64], k: usize) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * 3.0;
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += v[k] * x[j];
    }
    v[k] = s * x[0];
    for j in 0..x.len() {
        s += v[k] * x[j];
    }
    s
}
probe!(
    element_written_between_loops,
    written_after,
    [0.3, -1.2, 0.8, 2.0],
    2
);

/// Nested: read in outer body, v written in inner loop of the outer body (other index).
#[differentiable]
fn nested_write(x: &[f64], k: usize) -> f64 {
    let mut v = vec![1.0; x.len()];
    let mut s = 0.0;
    for j in 0..x.len() {
        s += v[k] * x[j];
        for t in 0..x.len() {
            if t == k {
                v[t] = v[t] * x[j];
            }
        }
    }
    s
}
probe!(
    written_in_inner_loop,
    nested_write,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Array local re-bound by `let` inside the loop after the read.
#[differentiable]
fn rebound(x: &[f64]) -> f64 {
    let a = [x[0], x[1] * x[1]];
    let mut s = 0.0;
    for j in 0..x.len() {
        s += a[1] * x[j];
        let a = [x[j], s];
        s += a[1] * 0.5;
    }
    s + a[1]
}
probe!(rebound_in_loop, rebound, [0.3, -1.2, 0.8, 2.0]);

/// Local array assigned whole in the loop after the read.
#[differentiable]
fn reassigned(x: &[f64]) -> f64 {
    let mut a = [x[0], x[1] * x[1]];
    let mut s = 0.0;
    for j in 0..x.len() {
        s += a[1] * x[j];
        a = [x[j], s];
    }
    s + a[1]
}
probe!(reassigned_whole_in_loop, reassigned, [0.3, -1.2, 0.8, 2.0]);

/// Inclusive, reversed, stepped ranges and while loops.
#[differentiable]
fn ranges(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 1..=3 {
        s += x[k] * x[j];
    }
    for j in (0..x.len()).rev() {
        s += x[k] * x[j] * x[0];
    }
    for j in (0..x.len()).step_by(2) {
        s += x[k] * x[j].sin();
    }
    let mut j = 0;
    while j < x.len() && x[k] > -10.0 {
        s += x[k] * x[j].cos();
        j += 1;
    }
    for j in 5..2 {
        s += x[k] * x[0];
    }
    s
}
probe!(range_shapes, ranges, [0.3, -1.2, 0.8, 2.0], 3);

/// Loop in a branch not taken; zero-trip loop with index out of bounds.
#[differentiable]
fn not_taken(x: &[f64], k: usize, n: usize) -> f64 {
    let mut s = x[0];
    if k < x.len() {
        for j in 0..n {
            s += x[k] * x[j];
        }
    }
    for j in 0..n {
        s += x[k] * 2.0;
    }
    s
}
probe!(branch_not_taken, not_taken, [0.3, -1.2, 0.8, 2.0], 9, 0);
probe!(branch_taken, not_taken, [0.3, -1.2, 0.8, 2.0], 1, 3);

/// Loop-body local with the same name as the index variable, after the read.
#[differentiable]
fn shadow_index(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[k] * x[j];
        let k = j;
        s += x[k] * 0.5;
    }
    s
}
probe!(
    index_shadowed_in_body,
    shadow_index,
    [0.3, -1.2, 0.8, 2.0],
    2
);

/// Index shadowed by a top-level `let` after the loop.
#[differentiable]
fn shadow_after(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[k] * x[j];
    }
    let k = 0;
    s * x[k]
}
probe!(
    index_shadowed_after_loop,
    shadow_after,
    [0.3, -1.2, 0.8, 2.0],
    2
);

/// Index variable bound from the outer loop variable; nested sums.
#[differentiable]
fn bound_index(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let k = i;
        for j in 0..x.len() {
            s += x[k] * x[j] * x[i];
            for t in 0..2 {
                s += x[k] * x[i] * 0.1;
            }
        }
    }
    s
}
probe!(
    bound_from_outer_loop_var,
    bound_index,
    [0.3, -1.2, 0.8, 2.0]
);

/// Function with `return` elsewhere.
#[differentiable]
fn with_return(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[k] * x[j];
    }
    if s > 100.0 {
        return s;
    }
    s * 2.0
}
probe!(function_with_return, with_return, [0.3, -1.2, 0.8, 2.0], 1);

/// f32.
#[differentiable]
fn f32_sum(x: &[f32], k: usize) -> f32 {
    let mut s = 0.0f32;
    for j in 0..x.len() {
        s += x[k] * x[j];
    }
    s
}
#[test]
fn f32_summed() {
    let x = [0.5f32, -1.0, 2.0];
    let (v, (g, _)) = ad::value_and_grad(f32_sum, (&x[..], 1));
    assert!((v - (-1.0 * 1.5)).abs() < 1e-5);
    let want = [-1.0f32, 1.5 + -1.0, -1.0];
    for i in 0..3 {
        assert!((g[i] - want[i]).abs() < 1e-4, "{g:?}");
    }
}

/// Array of arrays local read at a steady index.
#[differentiable]
fn nested_arrays(x: &[f64], k: usize) -> f64 {
    let m = [[x[0], x[1]], [x[2] * x[3], x[3]]];
    let mut s = 0.0;
    for j in 0..x.len() {
        let r = m[k];
        s += r[0] * x[j] + r[1];
    }
    s
}
probe!(array_of_arrays, nested_arrays, [0.3, -1.2, 0.8, 2.0], 1);

/// Literal index, array parameter.
#[differentiable]
fn array_param(a: [f64; 3], n: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..n {
        s += a[2] * a[j % 3] + a[0];
    }
    s
}
#[test]
fn array_param_literal() {
    let a = [0.5, -1.0, 2.0];
    let (_, (g, _)) = ad::value_and_grad(array_param, (a, 4));
    // s = sum_j a2*a_{j%3} + a0 ; j=0..3: a2*a0 + a2*a1 + a2*a2 + a2*a0 + 4 a0
    let want = [2.0 * a[2] + 4.0, a[2], 2.0 * a[0] + a[1] + 2.0 * a[2]];
    for i in 0..3 {
        assert!((g[i] - want[i]).abs() < 1e-12, "{g:?}");
    }
}

/// Summed inner loop inside an outer loop that breaks and continues.
#[differentiable]
fn in_exit_loop(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    let mut v = [x[0], x[1] * 2.0, x[2]];
    for i in 0..x.len() {
        if i == 1 {
            continue;
        }
        for j in 0..x.len() {
            s += v[k] * x[j] * x[i];
        }
        v[k] = v[k] * x[i];
        if s > 1e6 {
            break;
        }
        for j in 0..i {
            s += v[k] * 0.25;
        }
    }
    s
}
probe!(
    inside_a_loop_with_exits,
    in_exit_loop,
    [0.3, -1.2, 0.8, 2.0],
    1
);

/// Break in the last iteration, before a summed inner loop.
#[differentiable]
fn break_before(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    loop {
        s += x[i] * x[k];
        if i == 2 {
            break;
        }
        for j in 0..x.len() {
            s += x[k] * x[j] * s;
        }
        i += 1;
    }
    s
}
probe!(
    break_before_summed_loop,
    break_before,
    [0.3, -1.2, 0.8, 0.5],
    1
);

/// Plain outer loop with an inner loop that breaks, three levels of sums.
#[differentiable]
fn three_levels(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for a in 0..x.len() {
        s += x[a] * 0.5;
        for b in 0..x.len() {
            s += x[a] * x[b];
            for c in 0..2 {
                s += x[a] * x[b] * x[c];
                if c == 1 && b == 2 {
                    break;
                }
            }
            for c in 0..3 {
                s += x[b] * x[a] * 0.1;
            }
        }
    }
    s
}
probe!(three_levels_of_sums, three_levels, [0.3, -1.2, 0.8, 0.5]);

/// Array parameter by value, Vec parameter by value, and a bound index.
#[differentiable]
fn by_value(a: [f64; 3], v: Vec<f64>, n: usize) -> f64 {
    let k = n - 1;
    let last = v.len() - 1;
    let mut s = 0.0;
    for j in 0..n {
        s += a[k] * v[last] * a[j] + v[k];
    }
    s
}
#[test]
fn by_value_params() {
    let a = [0.5, -1.0, 2.0];
    let v = vec![1.5, 0.25, -0.75];
    let f = |a: [f64; 3], v: Vec<f64>| by_value(a, v, 3);
    let (_, (ga, gv, _)) = ad::value_and_grad(by_value, (a, v.clone(), 3));
    let h = 1e-6;
    for i in 0..3 {
        let (mut ap, mut am) = (a, a);
        ap[i] += h;
        am[i] -= h;
        let d = (f(ap, v.clone()) - f(am, v.clone())) / (2.0 * h);
        assert!((d - ga[i]).abs() < 1e-6, "a {i}: {d} vs {}", ga[i]);
        let (mut vp, mut vm) = (v.clone(), v.clone());
        vp[i] += h;
        vm[i] -= h;
        let d = (f(a, vp) - f(a, vm)) / (2.0 * h);
        assert!((d - gv[i]).abs() < 1e-6, "v {i}: {d} vs {}", gv[i]);
    }
}

/// Local f32 array, index from a bound expression of the outer loop variable.
#[differentiable]
fn f32_local(x: &[f32]) -> f32 {
    let a = [x[0] * x[1], x[2], x[0]];
    let mut s = 0.0f32;
    for i in 1..3 {
        let k = i - 1;
        for j in 0..x.len() {
            s += a[k] * x[j];
        }
    }
    s
}
#[test]
fn f32_local_array() {
    let x = [0.5f32, -1.0, 2.0];
    let (_, (g,)) = ad::value_and_grad(f32_local, (&x[..],));
    // s = (a0 + a1) * (x0+x1+x2), a0 = x0 x1, a1 = x2
    let t = x[0] + x[1] + x[2];
    let a = x[0] * x[1] + x[2];
    let want = [x[1] * t + a, x[0] * t + a, t + a];
    for i in 0..3 {
        assert!((g[i] - want[i]).abs() < 1e-4, "{g:?} {want:?}");
    }
}

/// The same element read in the while condition and the body; loop-body local named like the
/// array.
#[differentiable]
fn cond_and_body(x: &[f64], k: usize) -> f64 {
    let v = [x[0], x[1], x[2] * x[3]];
    let mut s = 0.0;
    let mut j = 0;
    while j < 3 && v[k] * s < 10.0 {
        s += v[k] * x[j] + 0.1;
        let v = [s, s];
        s += v[0] * 0.01;
        j += 1;
    }
    s
}
probe!(
    read_in_cond_and_body,
    cond_and_body,
    [0.3, -1.2, 0.8, 0.5],
    2
);

/// Loop-carried sum read of a slice element where the loop also reads the element through
/// `iter().sum()` of the slice and writes a different output.
#[differentiable]
fn sum_and_elem(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..3 {
        let t: f64 = x.iter().sum();
        s += x[k] * t * s + x[k];
    }
    s
}
probe!(
    slice_sum_and_element,
    sum_and_elem,
    [0.3, -1.2, 0.8, 0.5],
    0
);

/// A loop whose value is used (a block), and a read of an enclosing-block local.
#[differentiable]
fn in_block(x: &[f64], k: usize) -> f64 {
    let r = {
        let w = [x[1] * x[2], x[0]];
        let mut t = 0.0;
        for j in 0..x.len() {
            t += w[k] * x[j];
        }
        t
    };
    r * x[0]
}
probe!(loop_in_block_value, in_block, [0.3, -1.2, 0.8, 0.5], 0);

const KK: usize = 2;

/// Index from a module `const` and from a `const` item in the body; loop in a match arm;
/// labeled loops.
#[differentiable]
fn consts_and_match(x: &[f64], m: usize) -> f64 {
    const J: usize = 1;
    let mut s = 0.0;
    match m {
        0 => {
            for j in 0..x.len() {
                s += x[KK] * x[j] + x[J] * x[j];
            }
        }
        _ => {
            for j in 0..x.len() {
                for t in 0..2 {
                    s += x[KK] * x[t] * x[j];
                }
                s += x[J] * 0.5;
            }
        }
    }
    s
}
probe!(
    const_indices_match_arm0,
    consts_and_match,
    [0.3, -1.2, 0.8, 0.5],
    0
);
probe!(
    const_indices_match_arm1,
    consts_and_match,
    [0.3, -1.2, 0.8, 0.5],
    1
);

/// Rows of a `&[[f64; 2]]`-like local of arrays indexed by a parameter.
#[differentiable]
fn rows(x: &[f64], k: usize) -> f64 {
    let m = vec![[x[0], x[1]], [x[2], x[3] * x[0]]];
    let mut s = 0.0;
    for j in 0..x.len() {
        let r = m[k];
        let q = m[k];
        s += r[1] * q[0] * x[j];
    }
    s
}
probe!(rows_of_vec_of_arrays, rows, [0.3, -1.2, 0.8, 0.5], 1);

/// Tuples in an array local.
#[differentiable]
fn tuples(x: &[f64], k: usize) -> f64 {
    let m = [(x[0], x[1]), (x[2], x[3] * x[0])];
    let mut s = 0.0;
    for j in 0..x.len() {
        let r = m[k];
        s += r.1 * r.0 * x[j];
    }
    s
}
probe!(tuples_in_array, tuples, [0.3, -1.2, 0.8, 0.5], 1);

/// Element read feeding a method and a differentiable callee with a scalar.
#[differentiable]
fn sq(a: f64) -> f64 {
    a * a
}
#[differentiable]
fn methods(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[k].sin() * sq(x[k]) + x[k].powi(2) * x[j] + x[k].max(x[j]);
    }
    s
}
probe!(
    element_into_methods_and_callee,
    methods,
    [0.3, -1.2, 0.8, 0.5],
    2
);

/// Index from the variable of an outer loop that breaks or continues.
#[differentiable]
fn exit_loop_var(x: &[f64], stop: usize) -> f64 {
    let mut s = 0.0f64;
    for i in 0..x.len() {
        if i == 1 {
            continue;
        }
        for j in 0..x.len() {
            s += x[i] * x[j] * s.sin();
        }
        if i == stop {
            break;
        }
        let k = i;
        for j in 0..i {
            s += x[k] * x[j];
        }
    }
    s
}
probe!(
    index_from_exit_loop_var_break,
    exit_loop_var,
    [0.3, -1.2, 0.8, 0.5],
    2
);
probe!(
    index_from_exit_loop_var_nobreak,
    exit_loop_var,
    [0.3, -1.2, 0.8, 0.5],
    9
);

/// Outer `while` loop with `continue`, counter index read in an inner loop.
#[differentiable]
fn while_continue(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < x.len() {
        i += 1;
        if i == 2 {
            continue;
        }
        let k = i - 1;
        for j in 0..x.len() {
            s += x[k] * x[j] + s * 0.1;
        }
    }
    s
}
probe!(while_with_continue, while_continue, [0.3, -1.2, 0.8, 0.5]);

/// A slice parameter bound to a local; odd ranges; an index bound to `len - 1`.
#[differentiable]
fn aliases_and_ranges(x: &[f64], n: usize) -> f64 {
    let w = [x[0], x[1], x[2], x[3]];
    let last = x.len() - 1;
    let mut s = 0.0;
    for j in (0..=n).rev().step_by(2) {
        s += w[last] * x[j] + x[last] * w[j];
    }
    for i in 250u8..=255 {
        let f = i as f64 - 250.0;
        s += x[last] * f * x[0];
    }
    for j in 4..=3 {
        s += x[last] * 100.0;
    }
    s
}
probe!(
    alias_odd_ranges,
    aliases_and_ranges,
    [0.3, -1.2, 0.8, 0.5],
    3
);

/// Summed read and `iter().sum()` of the same local in an inner loop, and a local array
/// copied whole inside the loop and then written.
#[differentiable]
fn copy_then_write(x: &[f64], k: usize) -> f64 {
    let a = [x[0] * x[1], x[2], x[3]];
    let mut s = 0.0;
    for j in 0..x.len() {
        let mut b = a;
        b[k] = b[k] * x[j];
        s += a[k] * b[k];
        for t in 0..2 {
            let u: f64 = a.iter().sum();
            s += u * 0.1;
        }
    }
    s
}
probe!(
    copy_then_write_copy,
    copy_then_write,
    [0.3, -1.2, 0.8, 0.5],
    1
);

/// Output slice read in a loop and never written after it, with a non-zero incoming output
/// adjoint: the sum adds to the seeded buffer.
#[differentiable]
fn out_seeded(x: &[f64], o: &mut [f64], k: usize) -> f64 {
    for j in 0..x.len() {
        o[j] = x[j] * x[j];
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += o[k] * x[j];
        if j == k {
            s += o[k] * 0.5;
        }
    }
    s
}
#[test]
fn output_adjoint_seeded() {
    let x = [0.3, -1.2, 0.8, 0.5];
    let ob0 = [0.7, -0.3, 1.1, 0.2];
    let k = 2;
    let f = |x: &[f64]| {
        let mut o = vec![0.0; 4];
        let s = out_seeded(x, &mut o, k);
        s + (0..4).map(|i| ob0[i] * o[i]).sum::<f64>()
    };
    let mut o = vec![0.0; 4];
    let mut xb = vec![0.0; 4];
    let mut ob = ob0.to_vec();
    ad::vjp_into(
        out_seeded,
        (&x[..], &mut o[..], k),
        (&mut xb[..], &mut ob[..], ()),
        1.0,
    );
    let want = fd_check::fd(&f, &x);
    for i in 0..4 {
        assert!(
            fd_check::close(xb[i], want[i], 1e-6),
            "{i}: {} vs {}",
            xb[i],
            want[i]
        );
    }
}

/// Nested array element type and a guarded extra read of the same element.
#[differentiable]
fn nested2(x: &[f64], k: usize) -> f64 {
    let m = [
        [[x[0], x[1]], [x[2], x[3]]],
        [[x[1], x[0]], [x[3] * x[2], x[2]]],
    ];
    let mut s = 0.0;
    for j in 0..x.len() {
        let r = m[k];
        let q = r[1];
        s += q[0] * x[j];
        if j > 1 {
            let r2 = m[k];
            let q2 = r2[0];
            s += q2[1] * x[j];
        }
    }
    s
}
probe!(
    nested_arrays_guarded_extra_read,
    nested2,
    [0.3, -1.2, 0.8, 0.5],
    1
);
