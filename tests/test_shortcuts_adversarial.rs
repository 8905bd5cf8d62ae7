//! Programs chosen to break the two reverse-sweep shortcuts:
//! - a product with a finite float literal (or a local bound once to one), or a quotient by a
//!   nonzero one, passes its adjoint on without testing it for zero: a value the function does
//!   not use must still contribute exactly 0 (never `0 * inf = NaN`);
//! - before replaying a `for` loop, the reverse sweep reads the last iteration's elements
//!   `p[i]` / `p[i + k]` of slice and array parameters: that must never panic where the primal
//!   did not, never change a derivative, and never make valid code fail to compile.
//!
//! Derivatives are checked against central finite differences (`fd_check`), or against the exact
//! value 0 where a zero adjoint meets an infinite partial.

#![allow(
    clippy::assign_op_pattern,
    clippy::eq_op,
    clippy::useless_vec,
    clippy::needless_range_loop,
    clippy::reversed_empty_ranges,
    clippy::int_plus_one,
    clippy::identity_op,
    clippy::double_parens,
    clippy::explicit_counter_loop,
    unused_mut,
    unused_variables,
    unused_parens,
    unused_assignments,
    unused_macros,
    non_contiguous_range_endpoints,
    non_upper_case_globals
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

use fd_check::check;

/// The adjoint of `x` from `value_and_grad` and from `vjp` of `f(x, c)`.
fn both<F>(f: F, x: f64, c: f64) -> [f64; 2]
where
    F: ad::Function<(f64, f64), Output = f64, Grads = (f64, f64)> + Copy,
{
    [
        ad::value_and_grad(f, (x, c)).1.0,
        (ad::vjp(f, (x, c)).1)(1.0).0,
    ]
}

// =============================================================================================
// Contract 1: zero adjoints through products and quotients with finite literals.
// =============================================================================================

#[differentiable]
fn z_shadowed_literal(x: f64, c: f64) -> f64 {
    let k = 2.0;
    let k = f64::INFINITY;
    let y = x * k;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_shadowed_in_block(x: f64, c: f64) -> f64 {
    let k = 2.0;
    let y = {
        let k = f64::MAX;
        let k = k * 4.0;
        x * k
    };
    let z = x * k;
    if c > 0.0 { y + z } else { 1.0 }
}

#[differentiable]
fn z_literal_after_ln(x: f64, c: f64) -> f64 {
    // At x = 0: t = -inf, its partial is inf; y is not used.
    let t = x.ln();
    let y = t * 2.0;
    let w = 0.5 * t;
    if c > 0.0 { y + w } else { 1.0 }
}

#[differentiable]
fn z_over_subnormal(x: f64, c: f64) -> f64 {
    let y = x / 5e-324;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_bound_chain(x: f64, c: f64) -> f64 {
    let a = 1e308;
    let b = a;
    // x * 1e308 * 1e308 overflows; its partial is 1e616 = inf.
    let y = x * b * b;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_sqrt_over_let(x: f64, c: f64) -> f64 {
    let h = 0.5;
    let y = x.sqrt() / h;
    let z = (x.sqrt() * 0.0) / 4.0;
    if c > 0.0 { y + z } else { 1.0 }
}

#[differentiable]
fn z_times_zero_literal(x: f64, c: f64) -> f64 {
    // The partial of x through `t * 0.0` is 0; t's own partial at x = 0 is infinite.
    let t = x.sqrt();
    let y = t * 0.0;
    if c > 0.0 { y + x } else { x }
}

#[differentiable]
fn z_match_literal(x: f64, c: f64) -> f64 {
    let k = match c > 0.0 {
        true => 2.0,
        false => f64::INFINITY,
    };
    let y = x * k;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_if_literal(x: f64, c: f64) -> f64 {
    let k = if c > 0.0 { 2.0 } else { f64::INFINITY };
    let y = x * k;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_mut_literal(x: f64, c: f64) -> f64 {
    let mut k = 2.0;
    k *= f64::INFINITY;
    let y = x * k;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_tuple_literal(x: f64, c: f64) -> f64 {
    let (a, b) = (2.0, f64::INFINITY);
    let y = x * b * a;
    if c > 0.0 { y } else { 1.0 }
}

#[differentiable]
fn z_literal_in_loop(x: f64, c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let t = (x - 1.0).sqrt();
        let k = 3.0;
        let y = t * k / 2.0;
        if c > 0.0 {
            s += y;
        } else {
            s += x;
        }
    }
    s
}

#[test]
fn z_unused_products_contribute_zero() {
    // Each function by name: in a release build some have identical code and one address, and
    // a call through a pointer to them is ambiguous (see the README).
    macro_rules! unused {
        ($($f:ident at $x:expr),*) => {$(
            for g in both($f, $x, -1.0) {
                assert_eq!(g, 0.0, "{}: the product is not used", stringify!($f));
            }
        )*};
    }
    unused!(
        z_shadowed_literal at 0.7,
        z_shadowed_in_block at 0.7,
        z_literal_after_ln at 0.0,
        z_over_subnormal at 0.7,
        z_bound_chain at 0.7,
        z_sqrt_over_let at 0.0,
        z_match_literal at 0.7,
        z_if_literal at 0.7,
        z_mut_literal at 0.7,
        z_tuple_literal at 0.7
    );
    assert_eq!(both(z_times_zero_literal, 0.0, -1.0), [1.0; 2]);
    // Used: the adjoint of t is exactly 0 (1 * 0.0), so the infinite partial of sqrt is skipped.
    assert_eq!(both(z_times_zero_literal, 0.0, 1.0), [1.0; 2]);
    // In a loop, at x = 1: sqrt'(0) = inf, y unused in every iteration.
    assert_eq!(both(z_literal_in_loop, 1.0, -1.0), [3.0; 2]);
}

#[test]
fn z_used_products_keep_their_partials() {
    assert_eq!(both(z_shadowed_literal, 0.7, 1.0), [f64::INFINITY; 2]);
    assert_eq!(both(z_bound_chain, 0.7, 1.0), [f64::INFINITY; 2]);
    assert_eq!(both(z_over_subnormal, 0.7, 1.0), [f64::INFINITY; 2]);
    assert_eq!(both(z_mut_literal, 0.7, 1.0), [f64::INFINITY; 2]);
    assert_eq!(both(z_tuple_literal, 0.7, 1.0), [f64::INFINITY; 2]);
    let g = both(z_literal_in_loop, 1.5, 1.0);
    let want = 3.0 * 1.5 / (2.0 * 0.5_f64.sqrt());
    for v in g {
        assert!((v - want).abs() < 1e-12, "{v} {want}");
    }
    let g = both(z_shadowed_in_block, 0.7, 1.0);
    assert_eq!(g, [f64::INFINITY; 2]);
}

#[differentiable]
fn z_f32_overflow(x: f32, c: f32) -> f32 {
    let y = x * 3.0e38 * 3.0e38;
    let z = x / 1e-45;
    if c > 0.0 { y + z } else { 1.0 }
}

#[test]
fn z_f32_unused_products() {
    let (_, (g, _)) = ad::value_and_grad(z_f32_overflow, (0.7f32, -1.0f32));
    assert_eq!(g, 0.0);
    let (_, (g, _)) = ad::value_and_grad(z_f32_overflow, (0.7f32, 1.0f32));
    assert_eq!(g, f32::INFINITY);
}

// A macro declared in the body, after `let mut k`, that writes `k` without naming it at the call
// site: `k` is not seen as assigned, so it counts as a local bound once to the literal 2.0.
// Once computed the literal 2.0 again in the reverse sweep (derivative 2 instead of inf): a
// function that defines a macro now counts every variable as possibly written.
#[differentiable]
fn z_macro_writes_literal_local(x: f64, c: f64) -> f64 {
    let mut k = 2.0;
    {
        macro_rules! blow {
            () => {
                k = f64::INFINITY
            };
        }
        blow!();
    }
    let y = x * k;
    if c > 0.0 { y } else { 1.0 }
}

#[test]
fn z_macro_writes_literal_local_unused() {
    for g in both(z_macro_writes_literal_local, 0.7, -1.0) {
        assert_eq!(g, 0.0);
    }
}

#[test]
fn z_macro_writes_literal_local_used() {
    let (_, t) = ad::jvp(z_macro_writes_literal_local, (0.7, 1.0), (1.0, 0.0));
    assert_eq!(t, f64::INFINITY, "forward mode");
    assert_eq!(
        both(z_macro_writes_literal_local, 0.7, 1.0),
        [f64::INFINITY; 2]
    );
}

// The same macro, and a read of `k` that lowering marks `needs_copy` (an assignment to another
// variable named `k` later in the same statement): the product keeps k's value (inf) on the tape
// instead of the literal, but plan.rs still puts the read in `self.finite` (the
// `Inst::Read { .. } if finite_vars.contains_key(..)` arm does not check `needs_copy`, unlike
// `bound`), so reverse_sweep.rs (`Inst::Arith` Mul, `linear`) passes the zero adjoint through
// `take_linear`: 0 * inf.
// Once gave a NaN gradient for the unused product, instead of 0.
#[differentiable]
fn z_macro_writes_kept_literal_local(x: f64, c: f64) -> f64 {
    let mut k = 2.0;
    {
        macro_rules! blow {
            () => {
                k = f64::INFINITY
            };
        }
        blow!();
    }
    let y = x * k + {
        let mut k = 0.0;
        k = 1.0;
        k
    };
    if c > 0.0 { y } else { 1.0 }
}

#[test]
fn z_macro_writes_kept_literal_local_unused() {
    assert_eq!(
        ad::jvp(z_macro_writes_kept_literal_local, (0.7, -1.0), (1.0, 0.0)).1,
        0.0
    );
    for g in both(z_macro_writes_kept_literal_local, 0.7, -1.0) {
        assert_eq!(g, 0.0, "not NaN");
    }
}

#[test]
fn z_macro_writes_kept_literal_local_used() {
    assert_eq!(
        both(z_macro_writes_kept_literal_local, 0.7, 1.0),
        [f64::INFINITY; 2]
    );
}

#[differentiable]
fn z_literals_fd(x: &[f64]) -> f64 {
    let h = 0.25;
    let k = 3.0;
    let mut s = 0.0;
    for i in 0..x.len() {
        let t = x[i] * h;
        s = s * 0.5 + t * k / 1.5 - (x[i] / 4.0) * x[i];
        let h = x[i] * 0.1;
        s += h * h * 2.0;
    }
    s * s
}
probe!(z_literals_fd_check, z_literals_fd, [0.7, -1.3, 1.1, 0.4]);

// =============================================================================================
// Contract 2: reads at the last iteration's index before a replayed loop.
// =============================================================================================

/// `f(x, y)` checked as a function of the concatenation of its two slices.
macro_rules! probe2 {
    ($t:ident, $f:ident, [$($x:expr),*], [$($y:expr),*] $(, $extra:expr)*) => {
        #[test]
        fn $t() {
            let x = [$($x),*];
            let y = [$($y),*];
            let n = x.len();
            let mut xy = x.to_vec();
            xy.extend_from_slice(&y);
            check(
                stringify!($f),
                &xy,
                &|v| $f(&v[..n], &v[n..] $(, $extra)*),
                &|v| {
                    let (_, (mut a, b, ..)) = ad::value_and_grad($f, (&v[..n], &v[n..], $($extra,)*));
                    a.extend(b);
                    a
                },
                &|v| {
                    let (mut a, b, ..) = (ad::vjp($f, (&v[..n], &v[n..], $($extra,)*)).1)(1.0);
                    a.extend(b);
                    a
                },
                &|v, d| ad::jvp(
                    $f,
                    (&v[..n], &v[n..], $($extra,)*),
                    (&d[..n], &d[n..], $({ let _ = $extra; ad::NoTangent },)*),
                ).1,
            );
        }
    };
}

#[differentiable]
fn l_gather(x: &[f64], idx: &[usize]) -> f64 {
    // An integer slice: its elements have no adjoint.
    let mut s = 0.0;
    for k in 0..idx.len() {
        let j = idx[k];
        s += x[j] * x[j] * x[k];
    }
    s
}

#[test]
fn l_gather_integer_slice() {
    for idx in [&[2usize, 0, 1][..], &[][..], &[1][..]] {
        let x = [0.3, -1.2, 0.8];
        let zeros = vec![ad::NoTangent; idx.len()];
        check(
            "l_gather",
            &x,
            &|x| l_gather(x, idx),
            &|x| ad::value_and_grad(l_gather, (x, idx)).1.0,
            &|x| (ad::vjp(l_gather, (x, idx)).1)(1.0).0,
            &|x, d| ad::jvp(l_gather, (x, idx), (d, &zeros[..])).1,
        );
    }
}

#[differentiable]
fn l_inclusive(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..=n {
        s += x[i] * x[i + 1];
    }
    s
}
probe!(
    l_inclusive_range,
    l_inclusive,
    [0.3, -1.2, 0.8, 2.0],
    2usize
);
probe!(l_inclusive_range_one, l_inclusive, [0.3, -1.2], 0usize);

#[differentiable]
fn l_inclusive_from(x: &[f64], k: usize, n: usize) -> f64 {
    let mut s = x[0];
    for i in k..=n {
        s += x[i] * x[i];
    }
    s
}
probe!(
    l_inclusive_empty,
    l_inclusive_from,
    [0.3, -1.2],
    5usize,
    1usize
);
probe!(
    l_inclusive_last,
    l_inclusive_from,
    [0.3, -1.2, 0.5],
    1usize,
    2usize
);

#[differentiable]
fn l_u32_range(x: &[f64], m: u32) -> f64 {
    let mut s = 0.0;
    for i in 0..m {
        s += x[i as usize] * x[(i + 1) as usize];
    }
    s
}
probe!(
    l_u32_loop_variable,
    l_u32_range,
    [0.3, -1.2, 0.8, 2.0],
    3u32
);

#[differentiable]
fn l_i64_range(x: &[f64], m: i64) -> f64 {
    let mut s = 0.0;
    for i in -1..m {
        let j = (i + 1) as usize;
        s += x[j] * x[j];
    }
    s
}
probe!(
    l_i64_loop_variable,
    l_i64_range,
    [0.3, -1.2, 0.8, 2.0],
    3i64
);

#[differentiable]
fn l_u8_typed(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0u8..3 {
        let j = i as usize;
        s += x[j] * x[j + 1];
    }
    s
}
probe!(l_u8_loop_variable, l_u8_typed, [0.3, -1.2, 0.8, 2.0]);

#[differentiable]
fn l_step_by(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len() - 1).step_by(2) {
        s += x[i] * x[i + 1];
    }
    s
}
probe!(l_step_by_range, l_step_by, [0.3, -1.2, 0.8, 2.0, 0.5]);

#[differentiable]
fn l_rev(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len() - 1).rev() {
        s = s * x[i] + x[i + 1];
    }
    s
}
probe!(l_rev_range, l_rev, [0.3, -1.2, 0.8, 2.0]);

#[differentiable]
fn l_paren_range(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (1..x.len()) {
        s += x[i] * x[i - 1];
    }
    s
}
probe!(l_parenthesised_range, l_paren_range, [0.3, -1.2, 0.8]);

#[differentiable]
fn l_continue(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i + 1 >= x.len() {
            continue;
        }
        s += x[i] * x[i + 1];
    }
    s
}
probe!(l_continue_skips_reads, l_continue, [0.3, -1.2, 0.8], 6usize);

#[differentiable]
fn l_break(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i + 1 >= x.len() {
            break;
        }
        s += x[i + 1] * x[i];
    }
    s
}
probe!(l_break_before_reads, l_break, [0.3, -1.2, 0.8], 9usize);

#[differentiable]
fn l_return(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i + 1 >= x.len() {
            return s * 2.0;
        }
        s += x[i + 1] * x[i];
    }
    s
}
probe!(l_return_before_reads, l_return, [0.3, -1.2, 0.8], 9usize);

#[differentiable]
fn l_return_in_inner(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..2 {
            if i + j + 1 >= x.len() {
                return s;
            }
        }
        s += x[i + 1] * x[i];
    }
    s
}
probe!(
    l_return_in_an_inner_loop,
    l_return_in_inner,
    [0.3, -1.2, 0.8, 1.5],
    9usize
);

#[differentiable]
fn l_outer_read_in_empty_inner(x: &[f64], n: usize, m: usize) -> f64 {
    // x[i] is read only inside the inner loop, which runs no iteration when m = 0: n may
    // exceed the length of x.
    let mut s = x[0] * x[0];
    for i in 0..n {
        for j in 0..m {
            s += x[i] * x[j];
        }
    }
    s
}
probe!(
    l_outer_index_in_empty_inner,
    l_outer_read_in_empty_inner,
    [0.3, -1.2],
    5usize,
    0usize
);
probe!(
    l_outer_index_in_inner,
    l_outer_read_in_empty_inner,
    [0.3, -1.2, 0.7],
    3usize,
    2usize
);

#[differentiable]
fn l_triangle(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..i {
            s += x[j] * x[i] * x[j + 1];
        }
    }
    s
}
probe!(l_inner_empty_first, l_triangle, [0.3, -1.2, 0.8, 2.0]);

#[differentiable]
fn l_not_loop_var(x: &[f64], k: usize, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[k] * x[0] + x[k + 1];
    }
    s
}
probe!(
    l_index_not_the_loop_variable,
    l_not_loop_var,
    [0.3, -1.2, 0.8],
    1usize,
    4usize
);
probe!(
    l_index_not_the_loop_variable_empty,
    l_not_loop_var,
    [0.3, -1.2, 0.8],
    7usize,
    0usize
);

#[differentiable]
fn l_decreasing(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[n - 1 - i] * x[n - 1 - i] * x[0];
    }
    s
}
probe!(l_decreasing_index, l_decreasing, [0.3, -1.2, 0.8], 3usize);

#[differentiable]
fn l_shadow_decreasing(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n + 3 {
        let i = n + 2 - i;
        let i = i / 2;
        s += x[i] * x[i];
    }
    s
}
probe!(
    l_shadowed_to_decreasing,
    l_shadow_decreasing,
    [0.3, -1.2, 0.8]
);

#[differentiable]
fn l_shadow_to_param(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() + 5 {
        let i = k;
        s += x[i] * x[i + 1];
    }
    s
}
probe!(
    l_shadowed_to_a_parameter,
    l_shadow_to_param,
    [0.3, -1.2, 0.8],
    1usize
);

#[differentiable]
fn l_let_plus(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let two = 2;
    for i in 0..x.len() - 2 {
        let j = i + two;
        let i = i + 1usize;
        s += x[j] * x[i] + x[(i)];
    }
    s
}
probe!(l_let_bound_offsets, l_let_plus, [0.3, -1.2, 0.8, 2.0]);

#[differentiable]
fn l_param_offset(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - k {
        s += x[i + k] * x[i];
    }
    s
}
probe!(
    l_parameter_offset,
    l_param_offset,
    [0.3, -1.2, 0.8, 2.0],
    2usize
);
probe!(
    l_parameter_offset_all,
    l_param_offset,
    [0.3, -1.2, 0.8, 2.0],
    4usize
);

#[differentiable]
fn l_mut_slice(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += y[i] * x[i];
    }
    for i in 0..x.len() {
        y[i] = x[i] * 2.0;
    }
    s
}

#[test]
fn l_mut_slice_parameter() {
    let x = [0.3, -1.2, 0.8];
    let f = |v: &[f64]| {
        let mut y = [v[3], v[4], v[5]];
        l_mut_slice(&v[..3], &mut y)
    };
    let v = [0.3, -1.2, 0.8, 1.0, 2.0, 3.0];
    let want = fd_check::fd(&f, &v);
    let mut y = [1.0, 2.0, 3.0];
    let (mut xb, mut yb) = ([0.0; 3], [0.0; 3]);
    ad::vjp_into(
        l_mut_slice,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    for i in 0..3 {
        assert!(fd_check::close(xb[i], want[i], 1e-6), "{xb:?} {want:?}");
        assert!(fd_check::close(yb[i], want[3 + i], 1e-6), "{yb:?} {want:?}");
    }
}

#[differentiable]
fn l_array(a: [f64; 5], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a[i + 2] * a[i].sin();
    }
    s
}

#[differentiable]
fn l_array_rows(m: [[f64; 2]; 3], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let row = m[i];
        s += row[0] * row[1];
    }
    s
}

#[differentiable]
fn l_array_written(mut a: [f64; 3], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a[i] * a[i + 1];
    }
    a[0] = 5.0;
    s * a[0]
}

#[test]
fn l_arrays() {
    let a = [0.3, -1.2, 0.8, 2.0, 0.5];
    for n in [0usize, 3] {
        let f = |x: &[f64]| l_array([x[0], x[1], x[2], x[3], x[4]], n);
        let want = fd_check::fd(&f, &a);
        let (_, (g, _)) = ad::value_and_grad(l_array, (a, n));
        for i in 0..5 {
            assert!(fd_check::close(g[i], want[i], 1e-6), "{g:?} {want:?}");
        }
    }
    let m = [[0.3, -1.2], [0.8, 2.0], [0.5, 1.5]];
    for n in [0usize, 3] {
        let (_, (g, _)) = ad::value_and_grad(l_array_rows, (m, n));
        let mut want = [[0.0; 2]; 3];
        for i in 0..n {
            want[i] = [m[i][1], m[i][0]];
        }
        assert_eq!(g, want);
    }
    let a3 = [0.3, -1.2, 0.8];
    for n in [0usize, 2] {
        let f = |x: &[f64]| l_array_written([x[0], x[1], x[2]], n);
        let want = fd_check::fd(&f, &a3);
        let (_, (g, _)) = ad::value_and_grad(l_array_written, (a3, n));
        for i in 0..3 {
            assert!(fd_check::close(g[i], want[i], 1e-6), "{g:?} {want:?}");
        }
    }
}

#[differentiable]
fn l_macros(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        debug_assert!(i < x.len());
        assert!(x[i].is_finite());
        let t = x[i];
        s += t * x[i + 1];
    }
    s
}
probe!(l_read_only_macros, l_macros, [0.3, -1.2, 0.8, 2.0], 3usize);
probe!(l_read_only_macros_empty, l_macros, [0.3], 0usize);

#[differentiable]
fn l_zip(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y.iter()) {
        s += a * b * b;
    }
    for (i, a) in y.iter().enumerate() {
        s += a * x[0] * (i as f64);
    }
    s
}
probe2!(
    l_zip_unequal_lengths,
    l_zip,
    [0.3, -1.2, 0.8, 2.0],
    [0.5, 1.5]
);
probe2!(l_zip_empty, l_zip, [0.3], []);

#[differentiable]
fn l_elements_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        if *v > 1.0 {
            break;
        }
        s += v * v;
    }
    s
}
probe!(
    l_element_loop_with_break,
    l_elements_break,
    [0.3, -1.2, 1.8, 2.0]
);

#[differentiable]
fn l_early_return_before_loop(x: &[f64], n: usize) -> f64 {
    if n > x.len() {
        return x[0] * 3.0;
    }
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i];
    }
    s
}
probe!(
    l_return_before_a_too_long_loop,
    l_early_return_before_loop,
    [0.3, -1.2],
    7usize
);
probe!(
    l_return_before_loop_not_taken,
    l_early_return_before_loop,
    [0.3, -1.2],
    2usize
);

#[differentiable]
fn l_loop_in_branch(x: &[f64], n: usize, flag: bool) -> f64 {
    let mut s = x[0];
    if flag {
        for i in 0..n {
            s += x[i] * x[i + 1];
        }
    }
    s
}
probe!(
    l_loop_in_a_branch_not_taken,
    l_loop_in_branch,
    [0.3, -1.2],
    9usize,
    false
);
probe!(
    l_loop_in_a_branch_taken,
    l_loop_in_branch,
    [0.3, -1.2, 0.5],
    2usize,
    true
);

#[differentiable]
fn l_break_before_inner(x: &[f64], n: usize) -> f64 {
    let mut s = x[0];
    for k in 0..3 {
        if n + k > x.len() {
            break;
        }
        for i in 0..n {
            s += x[i] * x[i];
        }
    }
    s
}
probe!(
    l_break_before_an_inner_loop,
    l_break_before_inner,
    [0.3, -1.2],
    2usize
);
probe!(
    l_break_before_any_inner_loop,
    l_break_before_inner,
    [0.3, -1.2],
    5usize
);

#[differentiable]
fn l_continue_before_inner(x: &[f64], n: usize) -> f64 {
    let mut s = x[0];
    for k in 0..3 {
        if n > x.len() {
            continue;
        }
        for i in 0..n {
            s += x[i] * x[i] * x[k];
        }
    }
    s
}
probe!(
    l_continue_before_every_inner_loop,
    l_continue_before_inner,
    [0.3, -1.2, 0.4],
    4usize
);
probe!(
    l_continue_never,
    l_continue_before_inner,
    [0.3, -1.2, 0.4],
    3usize
);

#[differentiable]
fn l_while_outer(x: &[f64], n: usize, m: usize) -> f64 {
    let mut s = x[0];
    let mut k = 0;
    while k < m {
        for i in 0..n {
            s += x[i] * x[i + 1];
        }
        k += 1;
    }
    s
}
probe!(
    l_while_never_runs,
    l_while_outer,
    [0.3, -1.2],
    9usize,
    0usize
);
probe!(
    l_while_runs,
    l_while_outer,
    [0.3, -1.2, 0.4],
    2usize,
    2usize
);

#[differentiable]
fn l_f32(x: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i] * x[i + 1];
    }
    s
}

#[test]
fn l_f32_slices() {
    let x = [0.5f32, 1.5, -2.0];
    let (_, (g,)) = ad::value_and_grad(l_f32, (&x[..],));
    assert_eq!(g, vec![1.5, 0.5 - 2.0, 1.5]);
    let (_, (g,)) = ad::value_and_grad(l_f32, (&x[..1],));
    assert_eq!(g, vec![0.0]);
}

#[differentiable]
fn l_same_name_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    for i in 1..x.len() - 1 {
        s += x[i + 1] * x[i - 1];
    }
    {
        let x = 2.0;
        s = s * x;
    }
    s
}
probe!(
    l_two_loops_same_variable,
    l_same_name_loops,
    [0.3, -1.2, 0.8, 2.0]
);
probe!(l_two_loops_same_variable_short, l_same_name_loops, [0.3]);

#[differentiable]
fn l_shadow_param_after(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    let x = [y[0]];
    s * x[0]
}
probe2!(
    l_slice_parameter_shadowed_after_loop,
    l_shadow_param_after,
    [0.3, -1.2, 0.8, 2.0],
    [0.5]
);

#[differentiable]
fn l_wild(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    for _ in 0..n {
        s += x[k] * x[k];
        k += 1;
    }
    s
}
probe!(l_wildcard_loop_variable, l_wild, [0.3, -1.2, 0.8], 2usize);

#[differentiable]
fn l_start_expr(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in x.len() - 2..x.len() {
        s += x[i] * x[i];
    }
    for i in x.len()..x.len() + 4 {
        s += x[i - x.len()];
    }
    s
}
probe!(
    l_range_start_expression,
    l_start_expr,
    [0.3, -1.2, 0.8, 2.0, 1.0]
);

#[differentiable]
fn l_read_in_if_condition(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        if x[i + 1] > 0.0 {
            s += x[i] * x[i];
        }
        s += match x[i] > 0.0 {
            true => x[i + 1],
            false => 0.0,
        };
    }
    s
}
probe!(
    l_reads_in_conditions,
    l_read_in_if_condition,
    [0.3, -1.2, 0.8, 2.0]
);

#[differentiable]
fn l_short_circuit(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i + 1 < x.len() && x[i + 1] > 0.0 {
            s += x[i];
        }
        let ok = i >= x.len() || x[i] < 5.0;
        if ok && i < x.len() {
            s += x[i] * 2.0;
        }
    }
    s
}
probe!(
    l_short_circuit_reads,
    l_short_circuit,
    [0.3, -1.2, 0.8],
    6usize
);

#[differentiable]
fn l_block_read(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let v = if i < x.len() { x[i] } else { 0.0 };
        let w = { if i + 1 < x.len() { x[i + 1] * v } else { v } };
        s += w;
    }
    s
}
probe!(l_reads_in_blocks, l_block_read, [0.3, -1.2, 0.8], 6usize);

#[differentiable]
fn l_callee_loop(v: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in k..v.len() {
        s += v[i] * v[i - k];
    }
    s
}

#[differentiable]
fn l_caller(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..y.len() {
        s += l_callee_loop(x, i) * y[i];
    }
    s + l_callee_loop(y, 0) * l_callee_loop(x, 9)
}
probe2!(
    l_slice_loop_in_callee,
    l_caller,
    [0.3, -1.2, 0.8, 2.0],
    [0.5, 1.5]
);
probe2!(l_slice_loop_in_callee_empty, l_caller, [0.3], []);

#[differentiable]
fn l_callee_twice(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() - 1 {
        s += a[i] * b[i + 1];
    }
    s
}

#[differentiable]
fn l_caller_twice(x: &[f64], y: &mut [f64]) -> f64 {
    let s = l_callee_twice(x, x);
    for i in 0..y.len() {
        y[i] = x[i] * 3.0;
    }
    s + l_callee_twice(y, x)
}

#[test]
fn l_slice_passed_twice_and_an_output() {
    let x = [0.3, -1.2, 0.8, 2.0, 0.7];
    let f = |v: &[f64]| {
        let mut y = [0.0; 3];
        l_caller_twice(v, &mut y)
    };
    let want = fd_check::fd(&f, &x);
    let mut y = [0.0; 3];
    let (mut xb, mut yb) = ([0.0; 5], [0.0; 3]);
    ad::vjp_into(
        l_caller_twice,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    for i in 0..x.len() {
        assert!(fd_check::close(xb[i], want[i], 1e-6), "{xb:?} {want:?}");
    }
}

#[differentiable]
fn l_inner_from_outer(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += x[j] * x[i] + x[(j)];
        }
    }
    s
}
probe!(
    l_inner_loop_from_outer_plus_one,
    l_inner_from_outer,
    [0.3, -1.2, 0.8, 2.0]
);

#[differentiable]
fn l_elements_array(a: [f64; 3], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in a.iter().enumerate() {
        s += v * v * (i as f64);
    }
    for (i, v) in x.iter().enumerate() {
        if i < 3 {
            s += v * a[i];
        }
    }
    for (v, w) in x.iter().zip(a.iter()) {
        s += v * w * w;
    }
    for v in &a {
        for w in x.iter() {
            s += v * w;
        }
    }
    s
}

#[test]
fn l_element_loops_over_arrays() {
    for x in [&[0.5, -1.5, 2.0, 0.1][..], &[0.5][..], &[][..]] {
        let a = [0.3, -1.2, 0.8];
        let mut v = a.to_vec();
        v.extend_from_slice(x);
        let f = |v: &[f64]| l_elements_array([v[0], v[1], v[2]], &v[3..]);
        let want = fd_check::fd(&f, &v);
        let (_, (ga, gx)) = ad::value_and_grad(l_elements_array, (a, x));
        let mut g = ga.to_vec();
        g.extend(gx);
        for i in 0..v.len() {
            assert!(fd_check::close(g[i], want[i], 1e-6), "{g:?} {want:?}");
        }
    }
}

#[differentiable]
fn l_index_from_integer_slice(x: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for i in 0..idx.len() - 1 {
        let m = idx[i + 1];
        s += x[m] * h_pair(x[i], x[i + 1]);
    }
    s
}

#[differentiable]
fn h_pair(a: f64, b: f64) -> f64 {
    a * b.sin()
}

#[test]
fn l_reads_as_call_arguments() {
    let idx = [0usize, 2, 1, 3];
    let x = [0.3, -1.2, 0.8, 2.0];
    let zeros = vec![ad::NoTangent; 4];
    check(
        "l_index_from_integer_slice",
        &x,
        &|x| l_index_from_integer_slice(x, &idx),
        &|x| {
            ad::value_and_grad(l_index_from_integer_slice, (x, &idx[..]))
                .1
                .0
        },
        &|x| (ad::vjp(l_index_from_integer_slice, (x, &idx[..])).1)(1.0).0,
        &|x, d| ad::jvp(l_index_from_integer_slice, (x, &idx[..]), (d, &zeros[..])).1,
    );
}

#[differentiable]
fn l_array_const_range_in_branch(a: [f64; 2], flag: bool) -> f64 {
    // Valid code: the loop would read a[2], but never runs.
    let mut s = a[0] * a[1];
    if flag {
        for i in 0..3 {
            s += a[i] * a[i];
        }
    }
    s
}

#[test]
fn l_array_loop_in_a_branch_not_taken() {
    let (_, (g, _)) = ad::value_and_grad(l_array_const_range_in_branch, ([1.0, 2.0], false));
    assert_eq!(g, [2.0, 1.0]);
}

// A `..=` range that ends at its type's MAX: the replayed loop once counted to `250u8 + 6`,
// which overflows (a panic in debug builds, a gradient of 0 instead of 12 in release builds).
// The replay now counts from the start, never past the last value the variable took.
#[differentiable]
fn l_u8_to_max(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 250u8..=255 {
        s += x * x;
    }
    s
}

#[test]
fn l_inclusive_range_to_the_type_max() {
    assert_eq!(ad::jvp(l_u8_to_max, (1.0,), (1.0,)), (6.0, 12.0));
    assert_eq!(ad::value_and_grad(l_u8_to_max, (1.0,)), (6.0, (12.0,)));
}

#[differentiable]
fn l_slice_of_arrays(x: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let p = x[i];
        let q = x[i + 1];
        s += p[0] * q[1] + p[1];
    }
    s
}

#[test]
fn l_slice_of_array_elements() {
    let x = [[0.3, -1.2], [0.8, 2.0], [0.5, 1.5]];
    let flat: Vec<f64> = x.iter().flatten().copied().collect();
    let f = |v: &[f64]| {
        let x: Vec<[f64; 2]> = v.chunks(2).map(|c| [c[0], c[1]]).collect();
        l_slice_of_arrays(&x)
    };
    let want = fd_check::fd(&f, &flat);
    let (_, (g,)) = ad::value_and_grad(l_slice_of_arrays, (&x[..],));
    let g: Vec<f64> = g.iter().flatten().copied().collect();
    for i in 0..flat.len() {
        assert!(fd_check::close(g[i], want[i], 1e-6), "{g:?} {want:?}");
    }
    let (_, (g,)) = ad::value_and_grad(l_slice_of_arrays, (&x[..1],));
    assert_eq!(g, vec![[0.0, 0.0]]);
}
