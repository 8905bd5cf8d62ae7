//! Programs chosen to break shared element indices, trip counts computed again and call
//! arguments computed again in the reverse sweep.
//! Each function is checked in forward mode (`jvp` along each unit vector) and in reverse mode
//! (`value_and_grad`, `vjp`) against central finite differences of the primal: h = 1e-6 on
//! smooth functions gives an error near h^2 |f'''| + eps |f| / h, about 1e-10 here, so a
//! tolerance of 1e-6 relative (absolute floor 1) separates rounding from a wrong derivative.

#![allow(
    clippy::assign_op_pattern,
    clippy::manual_is_multiple_of,
    clippy::redundant_closure_call,
    clippy::single_match,
    clippy::eq_op,
    clippy::useless_vec,
    clippy::needless_range_loop,
    clippy::reversed_empty_ranges,
    unused_mut,
    unused_variables,
    unused_parens,
    unused_assignments
)]

use ad::differentiable;

#[macro_use]
mod fd_check;

use fd_check::check;

macro_rules! bump {
    ($v:ident) => {
        $v += 1
    };
}

#[differentiable]
fn h2(a: f64, b: f64) -> f64 {
    a * b.sin() + a * a
}

#[differentiable]
fn hs(p: &[f64], q: &[f64]) -> f64 {
    p[0] * q[1] + p[1] * q[0] * q[0]
}

#[differentiable]
fn hf32(a: f32, b: f32) -> f32 {
    a * b + a.sin()
}

// ---- trip counts ----

#[differentiable]
fn trip_macro_bump(x: &[f64], mut n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[0];
    }
    bump!(n);
    s * x[n]
}
probe!(
    t_trip_macro_bump,
    trip_macro_bump,
    [0.7, -1.3, 1.1, 0.4],
    2usize
);

#[differentiable]
fn trip_assign_after(x: &[f64], mut n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[0];
    }
    n = 1;
    n += 1;
    s * x[n]
}
probe!(
    t_trip_assign_after,
    trip_assign_after,
    [0.7, -1.3, 1.1, 0.4],
    3usize
);

#[differentiable]
fn trip_shadow_top(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[0];
    }
    let n = 1;
    let x = [2.0, 3.0];
    s * x[n]
}
probe!(
    t_trip_shadow_top,
    trip_shadow_top,
    [0.7, -1.3, 1.1, 0.4],
    3usize
);

#[differentiable]
fn trip_shadow_inner(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        for i in 0..n {
            let n = 1;
            s += x[i] * x[n] * x[k];
        }
        let n = 3;
        for j in 0..n {
            s += x[j] * x[j];
        }
    }
    s
}
probe!(
    t_trip_shadow_inner,
    trip_shadow_inner,
    [0.7, -1.3, 1.1, 0.4],
    2usize
);

#[differentiable]
fn trip_triangular(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += x[i] * x[j] * x[i];
        }
        for j in i..=i {
            s += x[j] * x[j] * x[j];
        }
    }
    s
}
probe!(
    t_trip_triangular,
    trip_triangular,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn trip_incl(x: &[f64], lo: usize, hi: usize) -> f64 {
    let mut s = 0.0;
    for i in lo..=hi {
        s += x[i] * x[i] * x[lo];
    }
    for i in hi..=lo {
        s += x[i] * x[i] * x[i];
    }
    for i in hi..lo {
        s += x[i] * x[i] * x[i];
    }
    s
}
probe!(
    t_trip_incl,
    trip_incl,
    [0.7, -1.3, 1.1, 0.4],
    1usize,
    3usize
);

#[differentiable]
fn trip_rev_step(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in (0..n).rev() {
        s = s * x[i] + x[i] * x[i];
    }
    for i in (0..n).step_by(2) {
        s = s * x[i] + x[i] * x[i];
    }
    s
}
probe!(
    t_trip_rev_step,
    trip_rev_step,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn trip_out_len(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..y.len() {
        y[i] = x[i] * x[i];
        s += y[i] * x[i];
    }
    for i in 0..y.len() - 1 {
        y[i + 1] = y[i] * x[i];
        s += y[i + 1] * y[i];
    }
    s
}
#[test]
fn t_trip_out_len() {
    let x = [0.7, -1.3, 1.9, 0.4];
    let f = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        trip_out_len(x, &mut y)
    };
    let g = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        ad::value_and_grad(trip_out_len, (x, &mut y[..])).1.0
    };
    let j = |x: &[f64], d: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut dy = vec![0.0; x.len()];
        ad::jvp(trip_out_len, (x, &mut y[..]), (d, &mut dy[..])).1
    };
    check("trip_out_len", &x, &f, &g, &g, &j);
}

#[differentiable]
fn trip_while_for(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    while j < 3 {
        let m = n;
        for i in 0..m {
            s += x[i] * x[j] * x[i];
        }
        let m2 = j;
        for i in 0..m2 {
            s += x[i] * x[i] * x[j];
        }
        j += 1;
    }
    s
}
probe!(
    t_trip_while_for,
    trip_while_for,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn trip_break(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i == 2 {
            break;
        }
        s += x[i] * x[i] * x[0];
    }
    for i in 0..n {
        s += x[i] * x[i] * x[1];
        if i == 1 {
            continue;
        }
        s += x[i] * x[2];
    }
    s
}
probe!(t_trip_break, trip_break, [0.7, -1.3, 1.1, 0.4], 4usize);

#[differentiable]
fn trip_match_break(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[0];
        match i {
            1 => break,
            _ => {}
        }
    }
    s
}
probe!(
    t_trip_match_break,
    trip_match_break,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn trip_return(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[0];
        if i == 2 {
            return s * x[1];
        }
    }
    s
}
probe!(t_trip_return, trip_return, [0.7, -1.3, 1.1, 0.4], 4usize);

#[differentiable]
fn trip_local_bound(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let m = 3;
    for i in 0..m {
        let k = i + 1;
        for j in 0..k {
            s += x[j] * x[i] * x[j];
        }
        let w = n - i;
        for j in 0..w {
            s += x[j] * x[j] * x[3];
        }
    }
    s
}
probe!(
    t_trip_local_bound,
    trip_local_bound,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn trip_const(x: &[f64]) -> f64 {
    let mut s = 0.0;
    {
        const N: usize = 2;
        for i in 0..N {
            s += x[i] * x[i] * x[N];
        }
    }
    const M: usize = 3;
    let m = M;
    for i in 0..m {
        s += x[i] * x[i] * x[M];
    }
    s
}
probe!(t_trip_const, trip_const, [0.7, -1.3, 1.1, 0.4]);

#[differentiable]
fn trip_signed(x: &[f64], lo: i32, hi: i32) -> f64 {
    let mut s = 0.0;
    for i in lo..hi {
        let k = (i - lo) as usize;
        s += x[k] * x[k] * x[0];
    }
    s
}
probe!(
    t_trip_signed,
    trip_signed,
    [0.7, -1.3, 1.1, 0.4],
    -2i32,
    1i32
);

#[differentiable]
fn trip_array(a: [f64; 3], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * a[i] * a[0];
    }
    for i in n..a.len() {
        s += a[i] * a[i] * a[2];
    }
    s
}
#[test]
fn t_trip_array() {
    let x = [0.7, -1.3, 1.1];
    let f = |x: &[f64]| trip_array([x[0], x[1], x[2]], 1);
    let g = |x: &[f64]| {
        ad::value_and_grad(trip_array, ([x[0], x[1], x[2]], 1usize))
            .1
            .0
            .to_vec()
    };
    let j = |x: &[f64], d: &[f64]| {
        ad::jvp(
            trip_array,
            ([x[0], x[1], x[2]], 1usize),
            ([d[0], d[1], d[2]], ad::NoTangent),
        )
        .1
    };
    check("trip_array", &x, &f, &g, &g, &j);
}

// ---- call arguments ----

#[differentiable]
fn call_index_changed(x: &[f64]) -> f64 {
    let mut i = 0;
    let a = h2(x[i], x[1]);
    i += 2;
    let b = h2(x[i], x[i + 1]);
    a * b
}
probe!(
    t_call_index_changed,
    call_index_changed,
    [0.7, -1.3, 1.1, 0.4]
);

#[differentiable]
fn call_param_index_bumped(x: &[f64], mut k: usize) -> f64 {
    let a = h2(x[k], x[k + 1]);
    bump!(k);
    let b = h2(x[k], x[0]);
    a * b
}
probe!(
    t_call_param_index_bumped,
    call_param_index_bumped,
    [0.7, -1.3, 1.1, 0.4],
    0usize
);

#[differentiable]
fn call_out_elem(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..y.len() {
        y[i] = x[i] * x[i];
        s += h2(y[i], x[i]);
        y[i] = x[i];
        s += h2(x[i], y[i]);
    }
    s
}
#[test]
fn t_call_out_elem() {
    let x = [0.7, -1.3, 1.9, 0.4];
    let f = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        call_out_elem(x, &mut y)
    };
    let g = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        ad::value_and_grad(call_out_elem, (x, &mut y[..])).1.0
    };
    let j = |x: &[f64], d: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut dy = vec![0.0; x.len()];
        ad::jvp(call_out_elem, (x, &mut y[..]), (d, &mut dy[..])).1
    };
    check("call_out_elem", &x, &f, &g, &g, &j);
}

#[differentiable]
fn call_same_slice(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        s += hs(x, x) * x[i];
        s += hs(x, x) * h2(x[i], x[i + 1]);
    }
    s
}
probe!(t_call_same_slice, call_same_slice, [0.7, -1.3, 1.1, 0.4]);

#[differentiable]
fn call_while_var(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < n {
        let k = i;
        s += h2(x[k], x[i]) * h2(x[i], (i as f64) * x[0]);
        i += 1;
    }
    s
}
probe!(
    t_call_while_var,
    call_while_var,
    [0.7, -1.3, 1.1, 0.4],
    3usize
);

#[differentiable]
fn call_num_params(x: &[f64], c: f64, mut d: f64) -> f64 {
    let a = h2(x[0] * c, d);
    let b = h2(c, x[1] * d);
    d = d * 2.0;
    let e = h2(d, x[2]);
    a * b + e
}
#[test]
fn t_call_num_params() {
    let x = [0.7, -1.3, 1.1, 0.4, 0.9];
    let f = |x: &[f64]| call_num_params(&x[..3], x[3], x[4]);
    let g = |x: &[f64]| {
        let (_, (mut g, gc, gd)) = ad::value_and_grad(call_num_params, (&x[..3], x[3], x[4]));
        g.push(gc);
        g.push(gd);
        g
    };
    let j = |x: &[f64], d: &[f64]| {
        ad::jvp(
            call_num_params,
            (&x[..3], x[3], x[4]),
            (&d[..3], d[3], d[4]),
        )
        .1
    };
    check("call_num_params", &x, &f, &g, &g, &j);
}

#[differentiable]
fn call_num_bumped(x: &[f64], c: f64) -> f64 {
    let mut c = c;
    let a = h2(x[0], c);
    c = c + x[1];
    let b = h2(c, x[1]);
    a * b
}
#[test]
fn t_call_num_bumped() {
    let x = [0.7, -1.3, 1.1, 0.4];
    let f = |x: &[f64]| call_num_bumped(&x[..3], x[3]);
    let g = |x: &[f64]| {
        let (_, (mut g, gc)) = ad::value_and_grad(call_num_bumped, (&x[..3], x[3]));
        g.push(gc);
        g
    };
    let j = |x: &[f64], d: &[f64]| ad::jvp(call_num_bumped, (&x[..3], x[3]), (&d[..3], d[3])).1;
    check("call_num_bumped", &x, &f, &g, &g, &j);
}

#[differentiable]
fn call_shadow_loop(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let a = h2(x[i], x[n]);
        let n = 0;
        let i = n + 1;
        s += a * h2(x[i], x[n]);
    }
    s
}
probe!(
    t_call_shadow_loop,
    call_shadow_loop,
    [0.7, -1.3, 1.1, 0.4],
    3usize
);

#[differentiable]
fn call_const_arg(x: &[f64]) -> f64 {
    let mut s = 0.0;
    {
        const K: usize = 2;
        use core::f64::consts::PI;
        s += h2(x[K], x[0]) * h2(PI, x[1]);
    }
    s
}
probe!(t_call_const_arg, call_const_arg, [0.7, -1.3, 1.1, 0.4]);

#[differentiable]
fn call_array_swap(x: &[f64], mut a: [f64; 3]) -> f64 {
    let p = h2(x[0], a[0]);
    a[0] = a[1] * x[0];
    let q = h2(x[1], a[0]);
    p * q
}
#[test]
fn t_call_array_swap() {
    let x = [0.7, -1.3];
    let f = |x: &[f64]| call_array_swap(x, [0.3, 0.9, 1.2]);
    let g = |x: &[f64]| {
        ad::value_and_grad(call_array_swap, (x, [0.3, 0.9, 1.2]))
            .1
            .0
    };
    let j = |x: &[f64], d: &[f64]| ad::jvp(call_array_swap, (x, [0.3, 0.9, 1.2]), (d, [0.0; 3])).1;
    check("call_array_swap", &x, &f, &g, &g, &j);
}

// ---- shared index word ----

#[differentiable]
fn shared_dead_mul(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let e = x[i];
        let p = e * c;
        s += e * 0.5 + e.sin();
    }
    s
}
#[test]
fn t_shared_dead_mul() {
    let x = [0.7, -1.3, 1.1, 0.4];
    let f = |x: &[f64]| shared_dead_mul(&x[..3], x[3]);
    let g = |x: &[f64]| {
        let (_, (mut g, gc)) = ad::value_and_grad(shared_dead_mul, (&x[..3], x[3]));
        g.push(gc);
        g
    };
    let j = |x: &[f64], d: &[f64]| ad::jvp(shared_dead_mul, (&x[..3], x[3]), (&d[..3], d[3])).1;
    check("shared_dead_mul", &x, &f, &g, &g, &j);
}

#[differentiable]
fn shared_index_mutated(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < 3 {
        let e = x[i];
        let f = x[i + 1] * e;
        let g = e * f;
        i += 1;
        s += g * x[i];
    }
    s
}
probe!(
    t_shared_index_mutated,
    shared_index_mutated,
    [0.7, -1.3, 1.1, 0.4]
);

#[differentiable]
fn shared_shadow_after(x: &[f64], off: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..4 {
        let i = (k * 3 + off) % 4;
        let e = x[i];
        let p = e * x[0] * e;
        let x = [5.0, 7.0, 9.0, 11.0];
        let i = 3 - i;
        s += p * x[i];
    }
    s
}
probe!(
    t_shared_shadow_after,
    shared_shadow_after,
    [0.7, -1.3, 1.1, 0.4],
    1usize
);

#[differentiable]
fn shared_bump(x: &[f64], mut k: usize) -> f64 {
    let mut s = 0.0;
    for t in 0..2 {
        let e = x[k];
        let p = e * x[t];
        bump!(k);
        s += p * x[k];
    }
    s
}
probe!(t_shared_bump, shared_bump, [0.7, -1.3, 1.1, 0.4], 0usize);

#[differentiable]
fn shared_if(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if x[i] > 0.0 {
            let e = x[i];
            s += e * s + e * e;
        } else {
            s += x[i] * x[n - 1 - i];
        }
    }
    s
}
probe!(t_shared_if, shared_if, [0.7, -1.3, 1.1, 0.4], 4usize);

#[differentiable]
fn shared_f32(x: &[f32], n: usize) -> f32 {
    let mut s = 0.0f32;
    for i in 0..n {
        let e = x[i];
        s += e * x[0] * hf32(e, x[i]) + x[i] * x[i];
    }
    s
}
#[test]
fn t_shared_f32() {
    let x = [0.7f64, -1.3, 1.1, 0.4];
    let to = |x: &[f64]| x.iter().map(|v| *v as f32).collect::<Vec<f32>>();
    let want: Vec<f64> = (0..4)
        .map(|i| {
            let h = 1e-2;
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[i] += h;
            b[i] -= h;
            ((shared_f32(&to(&a), 4) - shared_f32(&to(&b), 4)) as f64) / (2.0 * h)
        })
        .collect();
    let g = ad::value_and_grad(shared_f32, (&to(&x)[..], 4usize)).1.0;
    let v = (ad::vjp(shared_f32, (&to(&x)[..], 4usize)).1)(1.0).0;
    for i in 0..4 {
        assert!(
            (g[i] as f64 - want[i]).abs() < 1e-2 * want[i].abs().max(1.0),
            "{g:?} {want:?}"
        );
        assert!(
            (v[i] as f64 - want[i]).abs() < 1e-2 * want[i].abs().max(1.0),
            "{v:?} {want:?}"
        );
    }
}

// ---- shared index word with an index the tape keeps ----

#[differentiable]
fn shared_taped_dead(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    while j < 3 {
        let e = x[j];
        let p = e * c;
        s += e * 0.5 + e.sin();
        j += 1;
    }
    s
}
#[test]
fn t_shared_taped_dead() {
    let x = [0.7, -1.3, 1.1, 0.4];
    let f = |x: &[f64]| shared_taped_dead(&x[..3], x[3]);
    let g = |x: &[f64]| {
        let (_, (mut g, gc)) = ad::value_and_grad(shared_taped_dead, (&x[..3], x[3]));
        g.push(gc);
        g
    };
    let j = |x: &[f64], d: &[f64]| ad::jvp(shared_taped_dead, (&x[..3], x[3]), (&d[..3], d[3])).1;
    check("shared_taped_dead", &x, &f, &g, &g, &j);
}

#[differentiable]
fn shared_taped_shadow(x: &[f64], off: usize) -> f64 {
    let mut s = 0.0;
    let mut i = off;
    for k in 0..4 {
        let e = x[i];
        let f = x[3 - i];
        let p = e * f * e;
        let q = f * x[i];
        let x = [5.0, 7.0, 9.0, 11.0];
        let i2 = 3 - i;
        s += p * x[i2] + q;
        i = (i + 3) % 4;
    }
    s
}
probe!(
    t_shared_taped_shadow,
    shared_taped_shadow,
    [0.7, -1.3, 1.1, 0.4],
    1usize
);

#[differentiable]
fn trip_swap(x: &[f64], mut n: usize, mut m: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[0];
    }
    core::mem::swap(&mut n, &mut m);
    s * x[n]
}
probe!(
    t_trip_swap,
    trip_swap,
    [0.7, -1.3, 1.1, 0.4],
    3usize,
    1usize
);

#[differentiable]
fn shared_f32_taped(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    let mut j = 0;
    while j < 4 {
        let e = x[j];
        let p = x[0] * e;
        s += p * hf32(e, x[j]) + e * e;
        j += 1;
    }
    s
}
#[test]
fn t_shared_f32_taped() {
    let x = [0.7f64, -1.3, 1.1, 0.4];
    let to = |x: &[f64]| x.iter().map(|v| *v as f32).collect::<Vec<f32>>();
    let want: Vec<f64> = (0..4)
        .map(|i| {
            let h = 1e-2;
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[i] += h;
            b[i] -= h;
            ((shared_f32_taped(&to(&a)) - shared_f32_taped(&to(&b))) as f64) / (2.0 * h)
        })
        .collect();
    let g = ad::value_and_grad(shared_f32_taped, (&to(&x)[..],)).1.0;
    for i in 0..4 {
        assert!(
            (g[i] as f64 - want[i]).abs() < 1e-2 * want[i].abs().max(1.0),
            "{g:?} {want:?}"
        );
    }
}

// ---- a free function named `len` in a range ----

static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn len() -> usize {
    // 3 on the first call of each evaluation, 1 on the next: not the same twice.
    if CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 2 == 0 {
        3
    } else {
        1
    }
}

#[differentiable]
fn trip_free_len(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..len() {
        s += x[i] * x[i] * x[3];
    }
    s
}
#[test]
fn t_trip_free_len() {
    let x = [0.7, -1.3, 1.1, 0.4];
    let f = |x: &[f64]| {
        CALLS.store(0, std::sync::atomic::Ordering::SeqCst);
        trip_free_len(x)
    };
    let g = |x: &[f64]| {
        CALLS.store(0, std::sync::atomic::Ordering::SeqCst);
        ad::value_and_grad(trip_free_len, (x,)).1.0
    };
    let j = |x: &[f64], d: &[f64]| {
        CALLS.store(0, std::sync::atomic::Ordering::SeqCst);
        ad::jvp(trip_free_len, (x,), (d,)).1
    };
    check("trip_free_len", &x, &f, &g, &g, &j);
}

// ---- shared index, the read used directly by the multiply ----

#[differentiable]
fn shared_direct(x: &[f64], y: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    let mut k = 2;
    while j < 3 {
        s += x[j] * c;
        s += x[j] * x[j] + x[k] * (y[j] + c * x[j + 1]);
        s = s * 0.5 + y[k] * x[k] * x[j];
        if x[j] > 0.0 {
            s += x[k] * x[j].sin() * s;
        }
        let t = x[j] * y[k];
        k = j;
        s += t * x[k];
        j += 1;
    }
    s
}
#[test]
fn t_shared_direct() {
    let x = [0.7, -1.3, 1.1, 0.4, 0.3, -0.8, 0.6, 1.2, 0.45];
    let f = |x: &[f64]| shared_direct(&x[..4], &x[4..8], x[8]);
    let g = |x: &[f64]| {
        let (_, (mut g, gy, gc)) = ad::value_and_grad(shared_direct, (&x[..4], &x[4..8], x[8]));
        g.extend(gy);
        g.push(gc);
        g
    };
    let j = |x: &[f64], d: &[f64]| {
        ad::jvp(
            shared_direct,
            (&x[..4], &x[4..8], x[8]),
            (&d[..4], &d[4..8], d[8]),
        )
        .1
    };
    check("shared_direct", &x, &f, &g, &g, &j);
}

#[differentiable]
fn shared_direct_f32(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    let mut j = 0;
    while j < 3 {
        s += x[j] * x[j + 1] + x[j] * x[j];
        j += 1;
    }
    s
}
#[test]
fn t_shared_direct_f32() {
    let x = [0.7f32, -1.3, 1.1, 0.4];
    let g = ad::value_and_grad(shared_direct_f32, (&x[..],)).1.0;
    let want = [
        2.0 * 0.7 + -1.3,
        0.7 + 2.0 * -1.3 + 1.1,
        -1.3 + 2.0 * 1.1 + 0.4,
        1.1,
    ];
    for i in 0..4 {
        assert!((g[i] - want[i]).abs() < 1e-5, "{g:?} {want:?}");
    }
}

#[differentiable]
fn shared_loop_continue(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    for t in 0..n {
        s += x[j] * x[t] * x[j];
        j = (j + 1) % 3;
        if t == 1 {
            continue;
        }
        s += x[j] * s;
    }
    s
}
probe!(
    t_shared_loop_continue,
    shared_loop_continue,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn trip_after_return(x: &[f64], n: usize) -> f64 {
    if x[0] > 0.0 {
        return x[1] * x[1] * x[0];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[1];
    }
    s
}
probe!(
    t_trip_after_return_pos,
    trip_after_return,
    [0.7, -1.3, 1.1, 0.4],
    3usize
);
probe!(
    t_trip_after_return_neg,
    trip_after_return,
    [-0.7, -1.3, 1.1, 0.4],
    3usize
);

#[differentiable]
fn trip_while_break(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    while j < 10 {
        for i in j..n {
            s += x[i] * x[j] * h2(x[i], x[j]);
        }
        if j == 2 {
            break;
        }
        j += 1;
    }
    s
}
probe!(
    t_trip_while_break,
    trip_while_break,
    [0.7, -1.3, 1.1, 0.4],
    4usize
);

#[differentiable]
fn hv(p: &[f64], a: f64, q: &[f64], b: f64) -> f64 {
    p[0] * a * q[1] + b * b * q[0] + a * b
}

#[differentiable]
fn hw(out: &mut [f64], a: f64, q: &[f64]) -> f64 {
    out[0] = out[0] * a + q[0];
    out[1] = q[1] * out[0];
    a * out[1]
}

#[differentiable]
fn call_mixed(x: &[f64], y: &mut [f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        y[i] = x[i] * c;
        s += hv(x, x[i + 1], y, c) * hv(y, c, x, x[i]);
        s += hw(y, x[i], x) + hw(y, c, x) * x[i];
        y[0] = y[1] * x[i];
        s += hv(x, x[i], x, x[i]);
    }
    s + y[0] * y[1]
}
#[test]
fn t_call_mixed() {
    let x = [0.7, -1.3, 1.1, 0.4, 0.6];
    let f = |x: &[f64]| {
        let mut y = vec![0.5; 3];
        call_mixed(&x[..4], &mut y, x[4])
    };
    let g = |x: &[f64]| {
        let mut y = vec![0.5; 3];
        let (_, (mut g, _, gc)) = ad::value_and_grad(call_mixed, (&x[..4], &mut y[..], x[4]));
        g.push(gc);
        g
    };
    let j = |x: &[f64], d: &[f64]| {
        let mut y = vec![0.5; 3];
        let mut dy = vec![0.0; 3];
        ad::jvp(
            call_mixed,
            (&x[..4], &mut y[..], x[4]),
            (&d[..4], &mut dy[..], d[4]),
        )
        .1
    };
    check("call_mixed", &x, &f, &g, &g, &j);
}

fn cr(a: f64, b: f64) -> f64 {
    a * b.sin()
}

#[ad::custom_rule(reverse, of = cr)]
fn cr_vjp(a: f64, b: f64, _y: f64, bar: f64) -> (f64, f64) {
    (b.sin() * bar, a * b.cos() * bar)
}

#[ad::custom_rule(forward, of = cr)]
fn cr_jvp(a: f64, da: f64, b: f64, db: f64) -> (f64, f64) {
    (a * b.sin(), b.sin() * da + a * b.cos() * db)
}

#[differentiable]
fn call_rule(x: &[f64], c: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += cr(x[i], c) * cr(c, x[i + 1]) + cr(x[i], x[i]);
    }
    s
}
#[test]
fn t_call_rule() {
    let x = [0.7, -1.3, 1.1, 0.4];
    let f = |x: &[f64]| call_rule(&x[..3], x[3], 2);
    let g = |x: &[f64]| {
        let (_, (mut g, gc, _)) = ad::value_and_grad(call_rule, (&x[..3], x[3], 2usize));
        g.push(gc);
        g
    };
    let j = |x: &[f64], d: &[f64]| {
        ad::jvp(
            call_rule,
            (&x[..3], x[3], 2usize),
            (&d[..3], d[3], ad::NoTangent),
        )
        .1
    };
    check("call_rule", &x, &f, &g, &g, &j);
}

#[differentiable]
fn trip_closure(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let m = n + 1;
    for i in 0..(|m| m + 1)(m) {
        s += x[i] * x[i] * x[3];
    }
    s
}
probe!(t_trip_closure, trip_closure, [0.7, -1.3, 1.1, 0.4], 1usize);
