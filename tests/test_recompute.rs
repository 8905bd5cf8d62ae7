//! Hard cases for the reverse sweep's recompute logic (what it keeps on the tape and what
//! it computes again). Every function is checked in forward mode (`jvp` along each unit vector),
//! in reverse mode with both sweeps in one call (`value_and_grad`) and with split sweeps through
//! the tape (`vjp`), against central finite differences (h = 1e-6, tolerance 1e-6 relative with
//! an absolute floor of 1).

// The cases are spelled as the shapes under test, not as idiomatic Rust.
#![allow(
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::mut_range_bound,
    clippy::useless_vec,
    clippy::needless_range_loop,
    clippy::reversed_empty_ranges,
    unused_mut,
    unused_variables,
    unused_parens
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

use fd_check::{check, close, fd};

// ---------------------------------------------------------------------------------------------
// Loop variables shadowed inside the body.

/// The loop variable shadowed by a `let` of an expression of itself.
#[differentiable]
fn shadow_loop_var(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let i = i + 1;
        s += x[i] * x[i] * x[0];
    }
    s
}

#[test]
fn t_shadow_loop_var() {
    let x = [0.7, -1.3, 2.1, 0.4];
    check(
        "shadow_loop_var",
        &x,
        &|x| shadow_loop_var(x),
        &|x| ad::value_and_grad(shadow_loop_var, (x,)).1.0,
        &|x| (ad::vjp(shadow_loop_var, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(shadow_loop_var, (x,), (d,)).1,
    );
}

/// A local bound once to `x[i]`, used inside an inner loop whose variable is also `i`.
#[differentiable]
fn bound_then_inner_shadow(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        let a = x[i];
        for i in 2..x.len() {
            s += a * x[i];
        }
    }
    s
}

#[test]
fn t_bound_then_inner_shadow() {
    let x = [0.7, -1.3, 2.1, 0.4, 1.5];
    check(
        "bound_then_inner_shadow",
        &x,
        &|x| bound_then_inner_shadow(x),
        &|x| ad::value_and_grad(bound_then_inner_shadow, (x,)).1.0,
        &|x| (ad::vjp(bound_then_inner_shadow, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(bound_then_inner_shadow, (x,), (d,)).1,
    );
}

/// A local bound once to `x[k]` for a parameter `k`, used inside a loop whose variable is `k`.
#[differentiable]
fn bound_param_index_then_loop_shadow(x: &[f64], k: usize) -> f64 {
    let a = x[k];
    let mut s = 0.0;
    for k in 0..x.len() {
        s += a * x[k];
    }
    s
}

#[test]
fn t_bound_param_index_then_loop_shadow() {
    let x = [0.7, -1.3, 2.1, 0.4];
    let f = |x: &[f64]| bound_param_index_then_loop_shadow(x, 3);
    check(
        "bound_param_index_then_loop_shadow",
        &x,
        &f,
        &|x| {
            ad::value_and_grad(bound_param_index_then_loop_shadow, (x, 3))
                .1
                .0
        },
        &|x| (ad::vjp(bound_param_index_then_loop_shadow, (x, 3)).1)(1.0).0,
        &|x, d| {
            ad::jvp(
                bound_param_index_then_loop_shadow,
                (x, 3),
                (d, ad::NoTangent),
            )
            .1
        },
    );
}

/// An enclosing loop variable shadowed, then used as an inner loop's start.
#[differentiable]
fn shadowed_enclosing_start(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n / 2 {
        let i = 2 * i + 1;
        for j in i..n {
            s += x[i] * x[j] * x[j];
        }
    }
    s
}

#[test]
fn t_shadowed_enclosing_start() {
    let x = [0.7, -1.3, 2.1, 0.4, 1.1, -0.6];
    check(
        "shadowed_enclosing_start",
        &x,
        &|x| shadowed_enclosing_start(x),
        &|x| ad::value_and_grad(shadowed_enclosing_start, (x,)).1.0,
        &|x| (ad::vjp(shadowed_enclosing_start, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(shadowed_enclosing_start, (x,), (d,)).1,
    );
}

/// A never-assigned parameter shadowed by a local of the same name, then used as a start.
#[differentiable]
fn shadowed_param_start(x: &[f64], k: usize) -> f64 {
    let k = k + 2;
    let mut s = 0.0;
    for j in k..x.len() {
        s += x[j] * x[j] * x[j];
    }
    s
}

#[test]
fn t_shadowed_param_start() {
    let x = [0.7, -1.3, 2.1, 0.4, 1.1];
    check(
        "shadowed_param_start",
        &x,
        &|x| shadowed_param_start(x, 0),
        &|x| ad::value_and_grad(shadowed_param_start, (x, 0)).1.0,
        &|x| (ad::vjp(shadowed_param_start, (x, 0)).1)(1.0).0,
        &|x, d| ad::jvp(shadowed_param_start, (x, 0), (d, ad::NoTangent)).1,
    );
}

/// A float parameter shadowed by a local of the same name after a product that reads it.
#[differentiable]
fn shadowed_float_param(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..3 {
        s += x * y;
    }
    let y = s.sin();
    s * y
}

#[test]
fn t_shadowed_float_param() {
    let x = [0.7, -1.3];
    let f = |x: &[f64]| shadowed_float_param(x[0], x[1]);
    check(
        "shadowed_float_param",
        &x,
        &f,
        &|x| {
            let g = ad::value_and_grad(shadowed_float_param, (x[0], x[1])).1;
            vec![g.0, g.1]
        },
        &|x| {
            let g = (ad::vjp(shadowed_float_param, (x[0], x[1])).1)(1.0);
            vec![g.0, g.1]
        },
        &|x, d| ad::jvp(shadowed_float_param, (x[0], x[1]), (d[0], d[1])).1,
    );
}

/// An array parameter read by index, then shadowed by a local array of the same name.
#[differentiable]
fn shadowed_array_param(x: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += x[i] * x[i] * x[0];
    }
    let x = [s * 2.0, s * 3.0, s];
    s * x[1]
}

#[test]
fn t_shadowed_array_param() {
    let x = [0.7, -1.3, 0.4];
    let a = |x: &[f64]| [x[0], x[1], x[2]];
    check(
        "shadowed_array_param",
        &x,
        &|x| shadowed_array_param(a(x)),
        &|x| {
            ad::value_and_grad(shadowed_array_param, (a(x),))
                .1
                .0
                .to_vec()
        },
        &|x| (ad::vjp(shadowed_array_param, (a(x),)).1)(1.0).0.to_vec(),
        &|x, d| ad::jvp(shadowed_array_param, (a(x),), (a(d),)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Range starts that are assigned parameters.

/// A parameter start assigned before the loop.
#[differentiable]
fn param_start_assigned_before(x: &[f64], mut k: usize) -> f64 {
    k += 1;
    let mut s = 0.0;
    for j in k..x.len() {
        s += x[j] * x[j] * x[j];
    }
    s
}

/// A parameter start assigned after the loop, and between two loops.
#[differentiable]
fn param_start_assigned_between(x: &[f64], mut k: usize) -> f64 {
    let mut s = 0.0;
    for j in k..x.len() {
        s += x[j] * x[j] * x[k];
    }
    k = 0;
    for j in k..x.len() {
        s += x[j].sin() * x[j];
    }
    k += 2;
    s * x[k]
}

#[test]
fn t_param_start_assigned() {
    let x = [0.7, -1.3, 2.1, 0.4, 1.1];
    check(
        "param_start_assigned_before",
        &x,
        &|x| param_start_assigned_before(x, 1),
        &|x| ad::value_and_grad(param_start_assigned_before, (x, 1)).1.0,
        &|x| (ad::vjp(param_start_assigned_before, (x, 1)).1)(1.0).0,
        &|x, d| ad::jvp(param_start_assigned_before, (x, 1), (d, ad::NoTangent)).1,
    );
    check(
        "param_start_assigned_between",
        &x,
        &|x| param_start_assigned_between(x, 2),
        &|x| ad::value_and_grad(param_start_assigned_between, (x, 2)).1.0,
        &|x| (ad::vjp(param_start_assigned_between, (x, 2)).1)(1.0).0,
        &|x, d| ad::jvp(param_start_assigned_between, (x, 2), (d, ad::NoTangent)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Nested and inclusive ranges, zero trips, constants and expressions as starts.

/// A triangular double loop: the inner start depends on the outer variable.
#[differentiable]
fn triangular(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += x[i] * x[j] * (x[i] - x[j]);
        }
    }
    s
}

/// Inclusive ranges, nested, with a parameter start.
#[differentiable]
fn inclusive(x: &[f64], a: usize, last: usize) -> f64 {
    let mut s = 0.0;
    for i in a..=last {
        for j in i..=i + 1 {
            s += x[i] * x[j % x.len()] * x[j % x.len()];
        }
    }
    s
}

/// Zero-trip loops with replayable starts, and loops that are empty in some iterations only.
#[differentiable]
fn zero_trips(x: &[f64], k: usize) -> f64 {
    let mut s = x[0] * x[1];
    for i in k..k {
        s += x[i] * x[i];
    }
    for i in 3..2 {
        s *= x[i];
    }
    for i in 0..x.len() {
        for j in i..i {
            s += x[j] * s;
        }
        for j in 0..i {
            s += x[j] * x[i] * 0.1;
        }
    }
    s
}

const OFFSET: usize = 1;

/// Starts that are a `const` item, and expressions of a parameter.
#[differentiable]
fn const_and_expr_starts(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in OFFSET..x.len() {
        s += x[i] * x[i - OFFSET];
    }
    for i in n - 1..x.len() {
        s += x[i] * x[i] * x[n - 1];
    }
    for i in OFFSET + n..x.len() {
        s += x[i] * s;
    }
    for i in n / 2 + 1..n * 2 {
        s += x[i] * x[i] * x[i];
    }
    s
}

#[test]
fn t_ranges() {
    let x = [0.7, -1.3, 2.1, 0.4, 1.1, -0.6];
    check(
        "triangular",
        &x,
        &|x| triangular(x),
        &|x| ad::value_and_grad(triangular, (x,)).1.0,
        &|x| (ad::vjp(triangular, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(triangular, (x,), (d,)).1,
    );
    check(
        "inclusive",
        &x,
        &|x| inclusive(x, 2, 5),
        &|x| ad::value_and_grad(inclusive, (x, 2, 5)).1.0,
        &|x| (ad::vjp(inclusive, (x, 2, 5)).1)(1.0).0,
        &|x, d| ad::jvp(inclusive, (x, 2, 5), (d, ad::NoTangent, ad::NoTangent)).1,
    );
    check(
        "zero_trips",
        &x,
        &|x| zero_trips(x, 2),
        &|x| ad::value_and_grad(zero_trips, (x, 2)).1.0,
        &|x| (ad::vjp(zero_trips, (x, 2)).1)(1.0).0,
        &|x, d| ad::jvp(zero_trips, (x, 2), (d, ad::NoTangent)).1,
    );
    check(
        "const_and_expr_starts",
        &x,
        &|x| const_and_expr_starts(x, 3),
        &|x| ad::value_and_grad(const_and_expr_starts, (x, 3)).1.0,
        &|x| (ad::vjp(const_and_expr_starts, (x, 3)).1)(1.0).0,
        &|x, d| ad::jvp(const_and_expr_starts, (x, 3), (d, ad::NoTangent)).1,
    );
}

/// `.rev()` and `.step_by()` ranges, and a parenthesised range.
#[differentiable]
fn rev_and_step(x: &[f64], n: usize) -> f64 {
    let mut s = 1.0;
    for i in (0..x.len()).rev() {
        s = s * x[i] + x[i] * x[i];
    }
    for i in (1..x.len()).step_by(2) {
        s += x[i] * x[i - 1] * s;
    }
    for i in (0..x.len() - 1) {
        s += x[i] * x[i + 1];
    }
    for i in (0..=n - 2).rev().step_by(3) {
        s += x[i].sin() * x[i + 1];
    }
    s
}

#[test]
fn t_rev_and_step() {
    let x = [0.7, -1.3, 2.1, 0.4, 1.1, -0.6];
    check(
        "rev_and_step",
        &x,
        &|x| rev_and_step(x, 6),
        &|x| ad::value_and_grad(rev_and_step, (x, 6)).1.0,
        &|x| (ad::vjp(rev_and_step, (x, 6)).1)(1.0).0,
        &|x, d| ad::jvp(rev_and_step, (x, 6), (d, ad::NoTangent)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Elements of parameters that are written.

/// An array parameter read by index and also written.
#[differentiable]
fn array_param_written(mut x: [f64; 3]) -> f64 {
    let a = x[1] * x[2];
    let b = x[0];
    x[1] = a * x[0];
    let mut s = 0.0;
    for i in 0..3 {
        s += x[i] * x[i] * b;
    }
    x[0] = s;
    s * x[0] + a * b
}

#[test]
fn t_array_param_written() {
    let x = [0.7, -1.3, 0.4];
    let a = |x: &[f64]| [x[0], x[1], x[2]];
    check(
        "array_param_written",
        &x,
        &|x| array_param_written(a(x)),
        &|x| {
            ad::value_and_grad(array_param_written, (a(x),))
                .1
                .0
                .to_vec()
        },
        &|x| (ad::vjp(array_param_written, (a(x),)).1)(1.0).0.to_vec(),
        &|x, d| ad::jvp(array_param_written, (a(x),), (a(d),)).1,
    );
}

/// A local bound once from an element of a written array parameter, used after the write.
#[differentiable]
fn bound_before_write(mut x: [f64; 3]) -> f64 {
    let a = x[0];
    x[0] = x[1] * x[2];
    let mut s = 0.0;
    for i in 0..3 {
        let e = x[i];
        x[i] = e * a;
        s += a * e * x[i];
    }
    s
}

#[test]
fn t_bound_before_write() {
    let x = [0.7, -1.3, 0.4];
    let a = |x: &[f64]| [x[0], x[1], x[2]];
    check(
        "bound_before_write",
        &x,
        &|x| bound_before_write(a(x)),
        &|x| ad::value_and_grad(bound_before_write, (a(x),)).1.0.to_vec(),
        &|x| (ad::vjp(bound_before_write, (a(x),)).1)(1.0).0.to_vec(),
        &|x, d| ad::jvp(bound_before_write, (a(x),), (a(d),)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Early exits around plain loops.

/// `break` and `continue` in an outer loop with plain inner loops.
#[differentiable]
fn exits_with_inner_plain(x: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 2.0 {
            break;
        }
        if i % 2 == 1 {
            continue;
        }
        for j in 0..m {
            s += x[i] * x[(i + j) % x.len()] * x[j];
        }
        for j in i..x.len() {
            s += x[j] * s * 0.1;
        }
    }
    s
}

/// A plain outer loop whose inner loop breaks.
#[differentiable]
fn inner_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        for j in i..x.len() {
            if x[j] < -1.0 {
                break;
            }
            s += x[i] * x[j] * x[i - 1];
        }
    }
    s
}

/// A `return` inside an inner plain-looking loop, and `loop` with a value.
#[differentiable]
fn return_and_loop_value(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..i {
            s += x[i] * x[j];
            if s > 50.0 {
                return s * x[j];
            }
        }
    }
    let mut k = 0;
    let t = loop {
        s += x[k] * x[k];
        k += 1;
        if k == 3 {
            break s * x[0];
        }
    };
    t + s
}

#[test]
fn t_exits() {
    let x = [0.7, -1.3, 1.9, 0.4, 2.5, -0.6];
    check(
        "exits_with_inner_plain",
        &x,
        &|x| exits_with_inner_plain(x, 3),
        &|x| ad::value_and_grad(exits_with_inner_plain, (x, 3)).1.0,
        &|x| (ad::vjp(exits_with_inner_plain, (x, 3)).1)(1.0).0,
        &|x, d| ad::jvp(exits_with_inner_plain, (x, 3), (d, ad::NoTangent)).1,
    );
    check(
        "inner_break",
        &x,
        &|x| inner_break(x),
        &|x| ad::value_and_grad(inner_break, (x,)).1.0,
        &|x| (ad::vjp(inner_break, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(inner_break, (x,), (d,)).1,
    );
    check(
        "return_and_loop_value",
        &x,
        &|x| return_and_loop_value(x),
        &|x| ad::value_and_grad(return_and_loop_value, (x,)).1.0,
        &|x| (ad::vjp(return_and_loop_value, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(return_and_loop_value, (x,), (d,)).1,
    );
    let y = [3.0, 2.5, 1.9, 4.0, 2.5, 3.6];
    check(
        "return_and_loop_value (returns)",
        &y,
        &|x| return_and_loop_value(x),
        &|x| ad::value_and_grad(return_and_loop_value, (x,)).1.0,
        &|x| (ad::vjp(return_and_loop_value, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(return_and_loop_value, (x,), (d,)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Element loops, index arithmetic, outputs, calls.

/// `zip` of a parameter slice and a local `Vec`, and `enumerate` feeding an inner start.
#[differentiable]
fn zip_param_and_local(x: &[f64]) -> f64 {
    let mut w = vec![0.0; x.len()];
    for i in 0..x.len() {
        w[i] = x[i].sin();
    }
    let mut s = 0.0;
    for (a, b) in x.iter().zip(w.iter()) {
        s += a * b * a;
    }
    for (i, a) in x.iter().enumerate() {
        for j in i..x.len() {
            s += a * x[j];
        }
    }
    s
}

/// Index arithmetic with casts and mirrored indices.
#[differentiable]
fn index_casts(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 1..n {
        let k = (i as i64 * 2 - 1) as usize;
        s += x[k] * x[n - 1 - i] * x[(i * 3) % n];
        let m = n - i;
        s += x[m] * x[m];
    }
    s
}

#[test]
fn t_elements_and_indices() {
    let x = [0.7, -1.3, 1.9, 0.4, 2.5, -0.6];
    check(
        "zip_param_and_local",
        &x,
        &|x| zip_param_and_local(x),
        &|x| ad::value_and_grad(zip_param_and_local, (x,)).1.0,
        &|x| (ad::vjp(zip_param_and_local, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(zip_param_and_local, (x,), (d,)).1,
    );
    check(
        "index_casts",
        &x,
        &|x| index_casts(x, 3),
        &|x| ad::value_and_grad(index_casts, (x, 3)).1.0,
        &|x| (ad::vjp(index_casts, (x, 3)).1)(1.0).0,
        &|x, d| ad::jvp(index_casts, (x, 3), (d, ad::NoTangent)).1,
    );
}

/// A `&mut [f64]` output read back after it is written.
#[differentiable]
fn output_read_back(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += y[i] * x[i];
        y[i] = s * y[i];
    }
    s
}

#[test]
fn t_output_read_back() {
    let x = [0.7, -1.3, 1.9, 0.4];
    let w = [0.3, -0.2, 0.5, 1.0];
    // The scalar objective s + w . y.
    let f = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let s = output_read_back(x, &mut y);
        s + y.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    };
    let rev = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut xb = vec![0.0; x.len()];
        let mut yb = w.to_vec();
        ad::vjp_into(
            output_read_back,
            (x, &mut y[..]),
            (&mut xb[..], &mut yb[..]),
            1.0,
        );
        xb
    };
    let fwd = |x: &[f64], d: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut dy = vec![0.0; x.len()];
        let (_, ds) = ad::jvp(output_read_back, (x, &mut y[..]), (d, &mut dy[..]));
        ds + dy.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    };
    check("output_read_back", &x, &f, &rev, &rev, &fwd);
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// The same slice passed twice to a differentiable callee.
#[differentiable]
fn same_slice_twice(x: &[f64]) -> f64 {
    dot(x, x) * x[0]
}

#[test]
fn t_same_slice_twice() {
    let x = [0.7, -1.3, 1.9, 0.4];
    check(
        "same_slice_twice",
        &x,
        &|x| same_slice_twice(x),
        &|x| ad::value_and_grad(same_slice_twice, (x,)).1.0,
        &|x| (ad::vjp(same_slice_twice, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(same_slice_twice, (x,), (d,)).1,
    );
    // At top level: the two adjoints add up to the gradient of x . x.
    check(
        "dot(x, x) at top level",
        &x,
        &|x| dot(x, x),
        &|x| {
            let (a, b) = ad::value_and_grad(dot, (x, x)).1;
            a.iter().zip(&b).map(|(p, q)| p + q).collect()
        },
        &|x| {
            let (a, b) = (ad::vjp(dot, (x, x)).1)(1.0);
            a.iter().zip(&b).map(|(p, q)| p + q).collect()
        },
        &|x, d| ad::jvp(dot, (x, x), (d, d)).1,
    );
}

#[differentiable]
fn pair(a: f64, b: f64) -> f64 {
    a * b.sin() + a * a
}

#[differentiable]
fn at(v: &[f64], i: usize) -> f64 {
    v[i] * v[(i + 1) % v.len()]
}

/// Calls inside loops with arguments that depend on the loop.
#[differentiable]
fn calls_in_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += pair(x[i], x[(i + 2) % x.len()]) * (i as f64);
        for j in i..x.len() {
            s += at(x, j) * x[i];
        }
    }
    s
}

#[test]
fn t_calls_in_loops() {
    let x = [0.7, -1.3, 1.9, 0.4];
    check(
        "calls_in_loops",
        &x,
        &|x| calls_in_loops(x),
        &|x| ad::value_and_grad(calls_in_loops, (x,)).1.0,
        &|x| (ad::vjp(calls_in_loops, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(calls_in_loops, (x,), (d,)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// f32.

#[differentiable]
fn single(x: &[f32], k: usize) -> f32 {
    let mut s = 0.0;
    for i in k..x.len() {
        s += 2.0 * x[i] * x[i] + 0.5 / x[i];
        for j in i..x.len() {
            s += x[i] * x[j] * 0.25;
        }
    }
    s
}

#[test]
fn t_single() {
    let x = [0.7f32, -1.3, 1.9, 0.4];
    let k = 1;
    let (_, (g,)) = (
        ad::value_and_grad(single, (&x[..], k)).0,
        (ad::value_and_grad(single, (&x[..], k)).1.0,),
    );
    let v = (ad::vjp(single, (&x[..], k)).1)(1.0f32).0;
    for i in 0..x.len() {
        // the exact gradient, in f64
        let xi = f64::from(x[i]);
        let mut want = 0.0;
        if i >= k {
            want += 4.0 * xi - 0.5 / (xi * xi);
        }
        for a in k..x.len() {
            for b in a..x.len() {
                let (xa, xb) = (f64::from(x[a]), f64::from(x[b]));
                if a == i {
                    want += 0.25 * xb;
                }
                if b == i {
                    want += 0.25 * xa;
                }
            }
        }
        let mut e = [0.0f32; 4];
        e[i] = 1.0;
        let t = ad::jvp(single, (&x[..], k), (&e[..], ad::NoTangent)).1;
        for (what, got) in [("grad", g[i]), ("vjp", v[i]), ("jvp", t)] {
            assert!(
                close(f64::from(got), want, 1e-5),
                "single {what} {i}: {got} vs {want}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Loop variables used as operands.

/// A loop variable cast to a float operand, and `match` on it.
#[differentiable]
fn loop_var_operands(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * (i as f64) * c;
        s += match i % 3 {
            0 => x[i] * c,
            1 => x[i] * x[i],
            _ => c * c * x[0],
        };
    }
    s
}

#[test]
fn t_loop_var_operands() {
    let x = [0.7, -1.3, 1.9, 0.4, 0.9];
    let f = |z: &[f64]| loop_var_operands(&z[..5], z[5]);
    let z = [0.7, -1.3, 1.9, 0.4, 0.9, 1.7];
    check(
        "loop_var_operands",
        &z,
        &f,
        &|z| {
            let (a, b) = ad::value_and_grad(loop_var_operands, (&z[..5], z[5])).1;
            let mut v = a;
            v.push(b);
            v
        },
        &|z| {
            let (a, b) = (ad::vjp(loop_var_operands, (&z[..5], z[5])).1)(1.0);
            let mut v = a;
            v.push(b);
            v
        },
        &|z, d| ad::jvp(loop_var_operands, (&z[..5], z[5]), (&d[..5], d[5])).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Names resolved by spelling rather than by binding.

/// A parameter `k`, shadowed by the variable of an outer loop that is not replayed (`.rev()`),
/// used as an inner start.
#[differentiable]
fn param_name_shadowed_by_unreplayed_loop(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for k in (0..2).rev() {
        for j in k..x.len() {
            s += x[j] * x[j] * x[k];
        }
    }
    s
}

#[test]
fn t_param_name_shadowed_by_unreplayed_loop() {
    // With k = 3 instead of 0 the reverse sweep indexes out of bounds (index 6 of 4).
    let x = [0.7, -1.3, 2.1, 0.4];
    check(
        "param_name_shadowed_by_unreplayed_loop",
        &x,
        &|x| param_name_shadowed_by_unreplayed_loop(x, 0),
        &|x| {
            ad::value_and_grad(param_name_shadowed_by_unreplayed_loop, (x, 0))
                .1
                .0
        },
        &|x| (ad::vjp(param_name_shadowed_by_unreplayed_loop, (x, 0)).1)(1.0).0,
        &|x, d| {
            ad::jvp(
                param_name_shadowed_by_unreplayed_loop,
                (x, 0),
                (d, ad::NoTangent),
            )
            .1
        },
    );
}

/// A `while` loop around a replayed loop, and `enumerate` whose index starts an inner loop.
#[differentiable]
fn while_and_enumerate(x: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    let mut t = 0;
    while t < 2 {
        for i in m..x.len() {
            s += x[i] * x[i - m] * (t as f64 + 1.0);
        }
        t += 1;
    }
    for (i, a) in x.iter().enumerate() {
        for j in i..x.len() {
            s += a * x[j] * a;
        }
    }
    s
}

#[test]
fn t_while_and_enumerate() {
    let x = [0.7, -1.3, 2.1, 0.4];
    check(
        "while_and_enumerate",
        &x,
        &|x| while_and_enumerate(x, 1),
        &|x| ad::value_and_grad(while_and_enumerate, (x, 1)).1.0,
        &|x| (ad::vjp(while_and_enumerate, (x, 1)).1)(1.0).0,
        &|x, d| ad::jvp(while_and_enumerate, (x, 1), (d, ad::NoTangent)).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Loop counters of other integer types than `usize`, and inclusive ranges over a length.

mod other_counters {
    use ad::differentiable;

    /// An `i32` loop variable, which the reverse sweep counts down in its own type.
    #[differentiable]
    fn powi_loop_var(x: f64, n: i32) -> f64 {
        let mut s = 0.0;
        for i in 0..n {
            s += x.powi(i);
        }
        s
    }

    /// An `i32` start.
    #[differentiable]
    fn i32_start(x: f64, a: i32, b: i32) -> f64 {
        let mut s = 0.0;
        for i in a..b {
            s += x * x * f64::from(i);
        }
        s
    }

    /// `..=` over a slice's length: the `=` of `..=` is not an assignment.
    #[differentiable]
    fn inclusive_len(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..=x.len() - 1 {
            s += x[i] * x[i];
        }
        s
    }

    #[test]
    fn they_compile_and_are_right() {
        let g = ad::grad(powi_loop_var, (1.5, 4)).0;
        assert!((g - (1.0 + 2.0 * 1.5 + 3.0 * 1.5 * 1.5)).abs() < 1e-12);
        let g = ad::grad(i32_start, (1.5, -2, 3)).0;
        assert!((g - 2.0 * 1.5 * 0.0).abs() < 1e-12);
        assert_eq!(
            ad::grad(inclusive_len, (&[1.0, 2.0][..],)).0,
            vec![2.0, 4.0]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Float arithmetic computed again instead of kept, and operands kept once.

/// Locals bound to sums, differences and products of elements of a slice the function never
/// writes (Rosenbrock's terms), a literal bound to a local and folded into products (`0.5 * h`),
/// and indices built from `x.len()`.
#[differentiable]
fn recomputed_terms(x: &[f64], c: f64) -> f64 {
    let n = x.len();
    let half = n / 2;
    let h = 0.1;
    let mut s = 0.0;
    for i in 0..n - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        let e = -(a * c) + 0.5 * h * x[i];
        s += a * a + 100.0 * b * b + e * e.sin() + x[(i + half) % n] * (2.0 * h);
    }
    s
}

#[test]
fn t_recomputed_terms() {
    let x = [0.7, -1.3, 2.1, 0.4, -0.9];
    let f = |x: &[f64]| recomputed_terms(&x[..5], x[5]);
    let xc = [0.7, -1.3, 2.1, 0.4, -0.9, 1.7];
    let both = |x: &[f64]| {
        let (_, (mut g, gc)) = ad::value_and_grad(recomputed_terms, (&x[..5], x[5]));
        g.push(gc);
        g
    };
    let split = |x: &[f64]| {
        let (mut g, gc) = (ad::vjp(recomputed_terms, (&x[..5], x[5])).1)(1.0);
        g.push(gc);
        g
    };
    check("recomputed_terms", &xc, &f, &both, &split, &|x, d| {
        ad::jvp(recomputed_terms, (&x[..5], x[5]), (&d[..5], d[5])).1
    });
    // Kept per iteration: the value of `sin`, by `sin` and by the product it enters (its
    // operand `e` and everything else is computed again). The trip count is not kept: the
    // range `0..n - 1` reads only a local bound once to `x.len()`, so the reverse sweep
    // computes its length again.
    let _ = ad::value_and_grad(recomputed_terms, (&x[..], 1.7));
    assert_eq!(ad::__private::last_tape_high_water(), 4 * 2);
}

/// Squares of a reassigned local and of an element of a local `Vec`: both operands of the
/// product are one value, kept once; and a product of two reads with a write between them,
/// which are not one value.
#[differentiable]
fn squares_of_locals(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    let mut p = 1.0;
    let mut s = 0.0;
    for i in 0..x.len() {
        p = p * 0.5 + x[i];
        v[i] = x[i] * p;
        s += p * p + v[i] * v[i];
        let q = v[i];
        v[i] = q + 1.0;
        s += q * v[i];
    }
    s
}

#[test]
fn t_squares_of_locals() {
    let x = [0.7, -1.3, 2.1, 0.4];
    check(
        "squares_of_locals",
        &x,
        &|x| squares_of_locals(x),
        &|x| ad::value_and_grad(squares_of_locals, (x,)).1.0,
        &|x| (ad::vjp(squares_of_locals, (x,)).1)(1.0).0,
        &|x, d| ad::jvp(squares_of_locals, (x,), (d,)).1,
    );
}

/// Literal-only products (`0.5 * h`) and float chains in f32: the recomputed expressions take
/// the function's float type.
#[differentiable]
fn single_chains(x: &[f32], c: f32) -> f32 {
    let h = 0.25;
    let mut y = c;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = 0.5 * h * x[i] - (2.0 - x[i]);
        y = y + h * a * y;
        s += a * a * c + y;
    }
    s
}

#[test]
fn t_single_chains() {
    let x = [0.7f32, -1.3, 1.9, 0.4];
    let c = 0.8f32;
    // The same function in f64, differentiated by central differences (h = 1e-6: the f32
    // gradient is compared to 1e-4 relative, far above both errors).
    let f64_version = |x: &[f64], c: f64| {
        let h = 0.25;
        let mut y = c;
        let mut s = 0.0;
        for &xi in x {
            let a = 0.5 * h * xi - (2.0 - xi);
            y += h * a * y;
            s += a * a * c + y;
        }
        s
    };
    let mut p: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    p.push(f64::from(c));
    let want = fd(&|p: &[f64]| f64_version(&p[..4], p[4]), &p);
    let (_, (g, gc)) = ad::value_and_grad(single_chains, (&x[..], c));
    let (v, vc) = (ad::vjp(single_chains, (&x[..], c)).1)(1.0f32);
    for i in 0..5 {
        let (got_g, got_v) = if i < 4 { (g[i], v[i]) } else { (gc, vc) };
        for (what, got) in [("grad", got_g), ("vjp", got_v)] {
            assert!(
                close(f64::from(got), want[i], 1e-4),
                "single_chains {what} {i}: {got} vs {}",
                want[i]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// An element of a slice parameter kept as its index, shared by the product and the read.

/// A triangular sweep with a running index (`w[idx] * v[a]`, GMM's shape): the product keeps
/// `idx` instead of `w[idx]`, and the read of `w[idx]` takes its index from the product; `w`
/// also meets itself (`w[idx] * w[idx]`, two reads, two indices shared) and a product whose
/// other operand has no adjoint.
#[differentiable]
fn running_index(w: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    for j in 0..n {
        v[j] = x[j] * x[j] + 1.0;
    }
    let mut s = 0.0;
    let mut idx = n;
    for a in 0..n {
        for b in a + 1..n {
            s += w[idx] * v[a] + w[idx] * w[idx] * 0.5;
            idx += 1;
        }
    }
    let mut k = 0;
    for a in 0..n {
        s += 2.0 * w[k];
        k += 1;
    }
    s
}

#[test]
fn t_running_index() {
    // w: n + n(n-1)/2 entries (n = 4), then x.
    let p = [
        0.3, -0.7, 1.1, 0.2, 0.9, -1.4, 0.6, 0.8, -0.2, 1.3, 0.5, -0.9, 1.7, 0.4,
    ];
    let f = |p: &[f64]| running_index(&p[..10], &p[10..]);
    let grad = |p: &[f64]| {
        let (_, (gw, gx)) = ad::value_and_grad(running_index, (&p[..10], &p[10..]));
        [gw, gx].concat()
    };
    let vjp = |p: &[f64]| {
        let (gw, gx) = (ad::vjp(running_index, (&p[..10], &p[10..])).1)(1.0);
        [gw, gx].concat()
    };
    let jvp =
        |p: &[f64], d: &[f64]| ad::jvp(running_index, (&p[..10], &p[10..]), (&d[..10], &d[10..])).1;
    check("running_index", &p, &f, &grad, &vjp, &jvp);
}

/// The index changes between the read and the product, the slice is a shadowing local, and the
/// product sits in a loop a `continue` can leave: none of these may share the index.
#[differentiable]
fn running_index_not_shared(w: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut idx = 0;
    for a in 0..n {
        let e = w[idx];
        idx += 1;
        s += e * x[a] * w[idx];
    }
    {
        let w = vec![x[0] * 2.0, x[1] * x[1], x[2]];
        let mut k = 0;
        for a in 0..3 {
            s += w[k] * x[a];
            k += 1;
        }
    }
    let mut m = 1;
    for a in 0..n {
        if x[a] > 1.0 {
            m += 1;
            continue;
        }
        s += w[m] * x[a];
        m += 1;
    }
    s
}

#[test]
fn t_running_index_not_shared() {
    let p = [0.3, -0.7, 1.1, 0.2, 0.9, -1.4, 1.6, 0.8, -0.2, 1.3];
    let f = |p: &[f64]| running_index_not_shared(&p[..6], &p[6..]);
    let grad = |p: &[f64]| {
        let (_, (gw, gx)) = ad::value_and_grad(running_index_not_shared, (&p[..6], &p[6..]));
        [gw, gx].concat()
    };
    let vjp = |p: &[f64]| {
        let (gw, gx) = (ad::vjp(running_index_not_shared, (&p[..6], &p[6..])).1)(1.0);
        [gw, gx].concat()
    };
    let jvp = |p: &[f64], d: &[f64]| {
        ad::jvp(
            running_index_not_shared,
            (&p[..6], &p[6..]),
            (&d[..6], &d[6..]),
        )
        .1
    };
    check("running_index_not_shared", &p, &f, &grad, &vjp, &jvp);
}

// ---------------------------------------------------------------------------------------------
// Arguments of calls written again in the reverse sweep instead of kept.

/// A callee with parameters of both kinds: the caller passes it parameters it never assigns.
#[differentiable]
fn damped(x: f64, v: f64, c: f64, k: f64) -> f64 {
    -k * x * x - c * v
}

/// A callee that takes a slice: its call goes through the slice path of the reverse sweep.
#[differentiable]
fn weighted(w: &[f64], c: f64, t: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i] * c * t;
    }
    s
}

/// Calls whose arguments are unchanged parameters (`c`, `k`), an element of a slice parameter
/// at the loop index (`w[i]`), changing locals (`x`, `v`, kept), a shadowing local named like a
/// parameter (`c` after `let c = ...`, kept or computed from the parameter, never mistaken for
/// it) and a parameter assigned later (`m`, kept).
#[differentiable]
fn call_args_again(w: &[f64], x0: f64, c: f64, k: f64, mut m: f64) -> f64 {
    let mut x = x0;
    let mut v = 0.5;
    for i in 0..w.len() {
        let a = damped(x, v, c, k);
        let b = damped(w[i], x, k, m);
        v += 0.1 * a;
        x += 0.1 * v + 0.01 * b + 0.01 * weighted(w, c, x);
    }
    let r = damped(x, v, c, m);
    m = m * 1.5;
    let c = c * x;
    let s = damped(x, c, k, m);
    r + s + damped(v, x, c, k)
}

#[test]
fn t_call_args_again() {
    let p = [0.4, -0.3, 0.9, 0.8, 0.35, 1.2, 0.6];
    let f = |p: &[f64]| call_args_again(&p[..3], p[3], p[4], p[5], p[6]);
    let grad = |p: &[f64]| {
        let (_, (gw, g1, g2, g3, g4)) =
            ad::value_and_grad(call_args_again, (&p[..3], p[3], p[4], p[5], p[6]));
        [gw, vec![g1, g2, g3, g4]].concat()
    };
    let vjp = |p: &[f64]| {
        let (gw, g1, g2, g3, g4) =
            (ad::vjp(call_args_again, (&p[..3], p[3], p[4], p[5], p[6])).1)(1.0);
        [gw, vec![g1, g2, g3, g4]].concat()
    };
    let jvp = |p: &[f64], d: &[f64]| {
        ad::jvp(
            call_args_again,
            (&p[..3], p[3], p[4], p[5], p[6]),
            (&d[..3], d[3], d[4], d[5], d[6]),
        )
        .1
    };
    check("call_args_again", &p, &f, &grad, &vjp, &jvp);
}

// ---------------------------------------------------------------------------------------------
// Trip counts computed again from the range.

fn three() -> usize {
    3
}

/// Ranges the reverse sweep computes again (`i + 1..m` with `m` a local bound once, `0..x.len()`,
/// `lo..=hi` of parameters) and ranges it must not: a bound reassigned after the loop (`n`), a
/// local named like a parameter that shadows it (`lo`), a mutable local changed inside the
/// loop (`e`: the range is evaluated once, before), and a call (`three()`).
#[differentiable]
fn ranges_again(x: &[f64], lo: usize, hi: usize, mut n: usize) -> f64 {
    let m = x.len() - 1;
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in i + 1..m {
            s += x[i] * x[j];
        }
    }
    for i in lo..=hi {
        s += x[i] * x[i] * x[0];
    }
    for i in 0..n {
        s += x[i] * s;
    }
    n = 1;
    for i in 0..n {
        s += x[i] * x[i + 1];
    }
    {
        let lo = hi - 1;
        for i in lo..hi {
            s += x[i] * s * 0.5;
        }
    }
    let mut e = 2;
    for i in 0..e {
        e += 1;
        s += x[i] * x[e] * s;
    }
    for i in 0..three() {
        s += x[i] * x[i + 1] * 0.25;
    }
    s
}

#[test]
fn t_ranges_again() {
    let x = [0.7, -1.3, 0.9, 0.4, -0.6, 1.1];
    check(
        "ranges_again",
        &x,
        &|x| ranges_again(x, 1, 3, 2),
        &|x| ad::value_and_grad(ranges_again, (x, 1, 3, 2)).1.0,
        &|x| (ad::vjp(ranges_again, (x, 1, 3, 2)).1)(1.0).0,
        &|x, d| {
            ad::jvp(
                ranges_again,
                (x, 1, 3, 2),
                (d, ad::NoTangent, ad::NoTangent, ad::NoTangent),
            )
            .1
        },
    );
}

/// A callee that takes its `Vec` by value.
#[differentiable]
fn vec_total(v: Vec<f64>, c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * c;
    }
    s
}

/// A `Vec` parameter moved into a call after a loop over its length, and a float parameter
/// passed on: the loop's trip count is kept (the reverse sweep cannot read `v.len()` again) and
/// `c` is written again.
#[differentiable]
fn moved_after_loop(v: Vec<f64>, c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * c;
    }
    s * vec_total(v, c)
}

#[test]
fn t_moved_after_loop() {
    let p = [0.7, -1.3, 0.9, 1.4];
    let f = |p: &[f64]| moved_after_loop(p[..3].to_vec(), p[3]);
    let grad = |p: &[f64]| {
        let (_, (mut g, gc)) = ad::value_and_grad(moved_after_loop, (p[..3].to_vec(), p[3]));
        g.push(gc);
        g
    };
    let vjp = |p: &[f64]| {
        let (mut g, gc) = (ad::vjp(moved_after_loop, (p[..3].to_vec(), p[3])).1)(1.0);
        g.push(gc);
        g
    };
    let jvp = |p: &[f64], d: &[f64]| {
        ad::jvp(
            moved_after_loop,
            (p[..3].to_vec(), p[3]),
            (d[..3].to_vec(), d[3]),
        )
        .1
    };
    check("moved_after_loop", &p, &f, &grad, &vjp, &jvp);
}
