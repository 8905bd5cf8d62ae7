//! The reverse sweep's recomputation, kept operands and plain float adjoints, on programs
//! chosen to break them: shadowing, reassignment, block-local items, macros that write.
//! Each function is checked in forward mode (`jvp` along each unit vector) and in reverse mode
//! (`value_and_grad`, `vjp`) against central finite differences of the primal: h = 1e-6 on
//! smooth functions gives an error near h^2 |f'''| + eps |f| / h, about 1e-10 here, so a
//! tolerance of 1e-6 relative (absolute floor 1) separates rounding from a wrong derivative.

#![allow(
    clippy::assign_op_pattern,
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

use fd_check::{check, close, fd};

// ---------------------------------------------------------------------------------------------
// Reassignment after use, compound assignment.

#[differentiable]
fn reassign_after_use(x: &[f64]) -> f64 {
    let mut a = x[0];
    let b = x[1];
    let s = a * b;
    a = 3.0;
    let t = a * b;
    let mut c = x[2] * x[2];
    let u = c * c;
    c = c * x[0];
    let mut d = 0.5;
    let e = d * x[1];
    d += x[2];
    let f = d * e;
    d *= d;
    s + t * u + c * c + f * d
}
probe!(t_reassign_after_use, reassign_after_use, [0.7, -1.3, 1.1]);

#[differentiable]
fn compound(x: &[f64]) -> f64 {
    let mut s = 1.0;
    let mut a = x[0];
    for i in 0..x.len() {
        s *= s * 0.5 + x[i];
        a += a * a * 0.1;
        a -= x[i] * 0.5;
        a *= a * 0.3 + x[i];
        s += a;
    }
    s
}
probe!(t_compound, compound, [0.7, -0.3, 0.4]);

// ---------------------------------------------------------------------------------------------
// Shadowing inside and outside loops and blocks.

#[differentiable]
fn shadow_literals(x: &[f64]) -> f64 {
    let h = 0.5;
    let a = h * x[0];
    let h = x[1];
    let b = h * x[0] * a;
    let mut s = a * b;
    for i in 0..x.len() {
        let h = 0.25 * h;
        let k = h * x[i];
        s += k * x[i];
        {
            let h = 2.0;
            let k = h * k;
            s += h * x[i] * k;
        }
        s += h * k;
    }
    let h = h * h;
    s * h
}
probe!(t_shadow_literals, shadow_literals, [0.7, -1.3, 1.1]);

#[differentiable]
fn shadow_param(x: &[f64], c: f64) -> f64 {
    let a = c * x[0];
    let c = x[1] * 2.0;
    let b = a * c;
    let x0 = x[0];
    let mut s = b * a;
    for i in 0..x.len() {
        let c = c * x[i];
        let a = a - c;
        s += a * c * x0;
    }
    s
}
#[test]
fn t_shadow_param() {
    let x = [0.7, -1.3, 1.1, 0.2];
    check(
        "shadow_param",
        &x,
        &|x| shadow_param(&x[..3], x[3]),
        &|x| {
            let (_, (mut g, gc)) = ad::value_and_grad(shadow_param, (&x[..3], x[3]));
            g.push(gc);
            g
        },
        &|x| {
            let (mut g, gc) = (ad::vjp(shadow_param, (&x[..3], x[3])).1)(1.0);
            g.push(gc);
            g
        },
        &|x, d| ad::jvp(shadow_param, (&x[..3], x[3]), (&d[..3], d[3])).1,
    );
}

#[differentiable]
fn shadow_scalar_params(x: f64, y: f64) -> f64 {
    let p = x * y;
    let x = y - 1.0;
    let q = p * x;
    let y = 0.25;
    let r = q * y + x * p;
    r * r
}
#[test]
fn t_shadow_scalar_params() {
    let x = [0.7, -1.3];
    check(
        "shadow_scalar_params",
        &x,
        &|x| shadow_scalar_params(x[0], x[1]),
        &|x| {
            let (_, (a, b)) = ad::value_and_grad(shadow_scalar_params, (x[0], x[1]));
            vec![a, b]
        },
        &|x| {
            let (a, b) = (ad::vjp(shadow_scalar_params, (x[0], x[1])).1)(1.0);
            vec![a, b]
        },
        &|x, d| ad::jvp(shadow_scalar_params, (x[0], x[1]), (d[0], d[1])).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Values modified in loops, element writes between reads, index copies.

#[differentiable]
fn loop_carried(x: &[f64]) -> f64 {
    let mut p = 1.0;
    let mut s = 0.0;
    for i in 0..x.len() {
        let q = p * x[i];
        p = p * 0.5 + x[i];
        s += q * p + p * p;
        let r = p;
        p = r * r * 0.1;
        s += r * p;
    }
    s
}
probe!(t_loop_carried, loop_carried, [0.7, -1.3, 1.1, 0.4]);

#[differentiable]
fn elem_write_between(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    let mut s = 0.0;
    for i in 0..x.len() {
        v[i] = x[i] * 2.0;
        let j = i;
        s += v[i] * v[j];
        let t = v[i] * {
            v[i] = x[i] * x[0];
            v[i]
        };
        s += t + v[i] * v[i];
        v[j] = v[i] * x[i];
        s += v[j] * v[i];
        v[i] *= v[j];
        s += v[i];
    }
    s
}
probe!(t_elem_write_between, elem_write_between, [0.7, -1.3, 1.1]);

#[differentiable]
fn array_local_same(x: &[f64]) -> f64 {
    let mut v = [0.0; 3];
    let mut s = 0.0;
    for k in 0..2 {
        for i in 0..3 {
            v[i] = v[i] * 0.5 + x[i];
            s += v[i] * v[i];
        }
    }
    s
}
probe!(t_array_local_same, array_local_same, [0.7, -1.3, 1.1]);

#[differentiable]
fn index_changed(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i + 1 < x.len() {
        let j = i;
        i += 1;
        s += x[j] * x[i] * x[j];
        let a = x[i] * x[i];
        s += a * x[j];
    }
    s
}
probe!(t_index_changed, index_changed, [0.7, -1.3, 1.1, 0.4]);

#[differentiable]
fn while_var_recompute(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < n {
        let k = i;
        let a = x[k] - x[0] * 0.5;
        i += 1;
        let b = x[k] * a;
        s += a * b * x[k];
    }
    s
}
probe!(
    t_while_var_recompute,
    while_var_recompute,
    [0.7, -1.3, 1.1, 0.4],
    3usize
);

// ---------------------------------------------------------------------------------------------
// Exits in loops with recomputed values.

#[differentiable]
fn exits(x: &[f64], c: f64) -> f64 {
    let h = 0.5;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = h * x[i] + c;
        if i == 1 {
            continue;
        }
        s += a * a * x[i];
        for j in i..x.len() {
            let b = x[j] - c * h;
            if j > i + 1 {
                break;
            }
            s += b * b * a;
        }
        if s > 3.0 {
            return s * a * a;
        }
    }
    s * c
}
#[test]
fn t_exits() {
    for x in [
        [0.7, -1.3, 1.1, 0.4, 0.3],
        [0.2, 0.1, 0.3, 0.1, 0.2],
        [2.7, 1.3, 2.1, 1.4, 0.8],
    ] {
        check(
            "exits",
            &x,
            &|x| exits(&x[..4], x[4]),
            &|x| {
                let (_, (mut g, gc)) = ad::value_and_grad(exits, (&x[..4], x[4]));
                g.push(gc);
                g
            },
            &|x| {
                let (mut g, gc) = (ad::vjp(exits, (&x[..4], x[4])).1)(1.0);
                g.push(gc);
                g
            },
            &|x, d| ad::jvp(exits, (&x[..4], x[4]), (&d[..4], d[4])).1,
        );
    }
}

#[differentiable]
fn loop_value(x: &[f64]) -> f64 {
    let h = 0.25;
    let mut i = 0;
    let r = loop {
        let a = x[i] * h;
        if i + 1 == x.len() {
            break a * a;
        }
        i += 1;
    };
    let mut s = r;
    for k in 0..x.len() {
        let t = x[k] * x[k];
        if k % 2 == 1 {
            continue;
        }
        s += t * t;
    }
    s
}
probe!(t_loop_value, loop_value, [0.7, -1.3, 1.1]);

#[differentiable]
fn inner_exit_outer_plain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut j = 0;
        loop {
            if j > i {
                break;
            }
            let p = x[i] * x[j];
            s += p * x[i];
            j += 1;
        }
    }
    s
}
probe!(
    t_inner_exit_outer_plain,
    inner_exit_outer_plain,
    [0.7, -1.3, 1.1]
);

// ---------------------------------------------------------------------------------------------
// `match` and `if` branches, calls with recomputed values.

#[differentiable]
fn branches(x: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let h = 0.5;
        let t = match (i + m) % 3 {
            0 => h * x[i] * x[i],
            1 => {
                let h = 2.0;
                h * x[i] - x[0] * x[i]
            }
            _ => -(x[i] * h),
        };
        s += if i % 2 == 0 {
            t * t
        } else {
            let k = 3.0 * h;
            k * t * x[i]
        };
    }
    s
}
probe!(t_branches, branches, [0.7, -1.3, 1.1, 0.4], 1usize);

#[differentiable]
fn helper(a: f64, b: f64) -> f64 {
    a * b.sin()
}

#[differentiable]
fn calls(x: &[f64], c: f64) -> f64 {
    let h = 0.3;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = x[i] * c + h;
        s += helper(a, h * x[i]) * a + helper(2.0 * h, a - c) * helper(x[i] * x[i], -a);
    }
    s
}
#[test]
fn t_calls() {
    let x = [0.7, -1.3, 1.1, 0.4];
    check(
        "calls",
        &x,
        &|x| calls(&x[..3], x[3]),
        &|x| {
            let (_, (mut g, gc)) = ad::value_and_grad(calls, (&x[..3], x[3]));
            g.push(gc);
            g
        },
        &|x| {
            let (mut g, gc) = (ad::vjp(calls, (&x[..3], x[3])).1)(1.0);
            g.push(gc);
            g
        },
        &|x, d| ad::jvp(calls, (&x[..3], x[3]), (&d[..3], d[3])).1,
    );
}

// ---------------------------------------------------------------------------------------------
// Outputs written then read, `len()` of `&mut` slices and of arrays.

#[differentiable]
fn outputs(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..y.len() {
        y[i] = x[i] * x[i];
        s += y[i] * y[i];
        y[i] = y[i] * x[i] + 0.5 * (y.len() as f64);
        s += y[i] * x[i] * y[i];
    }
    s
}
#[test]
fn t_outputs() {
    let x = [0.7, -1.3, 1.9, 0.4];
    let w = [0.3, -0.2, 0.5, 1.0];
    let f = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let s = outputs(x, &mut y);
        s + y.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    };
    let rev = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut xb = vec![0.0; x.len()];
        let mut yb = w.to_vec();
        ad::vjp_into(outputs, (x, &mut y[..]), (&mut xb[..], &mut yb[..]), 1.0);
        xb
    };
    let fwd = |x: &[f64], d: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut dy = vec![0.0; x.len()];
        let (_, ds) = ad::jvp(outputs, (x, &mut y[..]), (d, &mut dy[..]));
        ds + dy.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    };
    check("outputs", &x, &f, &rev, &rev, &fwd);
    // grad with the output adjoint zero
    let gx = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        ad::value_and_grad(outputs, (x, &mut y[..])).1.0
    };
    let fs = |x: &[f64]| {
        let mut y = vec![0.0; x.len()];
        outputs(x, &mut y)
    };
    let fwd0 = |x: &[f64], d: &[f64]| {
        let mut y = vec![0.0; x.len()];
        let mut dy = vec![0.0; x.len()];
        ad::jvp(outputs, (x, &mut y[..]), (d, &mut dy[..])).1
    };
    check("outputs (s only)", &x, &fs, &gx, &gx, &fwd0);
}

#[differentiable]
fn array_len(a: [f64; 3], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        let n = a.len();
        s += a[i] * a[(i + 1) % n] * c + a[i] * (n as f64);
    }
    s
}
#[test]
fn t_array_len() {
    let x = [0.7, -1.3, 1.1, 0.4];
    check(
        "array_len",
        &x,
        &|x| array_len([x[0], x[1], x[2]], x[3]),
        &|x| {
            let (_, (g, gc)) = ad::value_and_grad(array_len, ([x[0], x[1], x[2]], x[3]));
            vec![g[0], g[1], g[2], gc]
        },
        &|x| {
            let (g, gc) = (ad::vjp(array_len, ([x[0], x[1], x[2]], x[3])).1)(1.0);
            vec![g[0], g[1], g[2], gc]
        },
        &|x, d| {
            ad::jvp(
                array_len,
                ([x[0], x[1], x[2]], x[3]),
                ([d[0], d[1], d[2]], d[3]),
            )
            .1
        },
    );
}

#[differentiable]
fn local_vec_len(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    let mut s = 0.0;
    for i in 0..v.len() {
        v[i] = x[i] * x[i];
    }
    v = vec![x[0], x[1], x[2]];
    for i in 0..v.len() {
        s += v[i] * v[i] * (v.len() as f64);
    }
    s
}
probe!(t_local_vec_len, local_vec_len, [0.7, -1.3, 1.1]);

// ---------------------------------------------------------------------------------------------
// Nested loops.

#[differentiable]
fn nested(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut t = 0;
    while t < 2 {
        for i in 0..n {
            for j in i..n {
                let p = x[i * n + j] * x[j * n + i];
                let q = x[i] - x[j];
                s += p * q * q + (t as f64) * p;
            }
        }
        t += 1;
    }
    s
}
probe!(t_nested, nested, [0.7, -1.3, 1.1, 0.4], 2usize);

// ---------------------------------------------------------------------------------------------
// f32 with literals.

#[differentiable]
fn f32_lits(x: &[f32], c: f32) -> f32 {
    let h = 0.1;
    let k = h * h * 3.0;
    let m = -k;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = k * x[i] + m * c;
        s += a * a + h * x[i] * c + (0.5 * h) * (x[i] * x[i]) + (k * a).sin() + x[i] / (h * 2.0);
    }
    s
}
#[test]
fn t_f32_lits() {
    let x = [0.7f32, -1.3, 1.9, 0.4];
    let c = 0.8f32;
    let f64_version = |x: &[f64], c: f64| {
        let h = 0.1f32 as f64;
        let k = (0.1f32 * 0.1f32 * 3.0f32) as f64;
        let m = -k;
        let mut s = 0.0;
        for &xi in x {
            let a = k * xi + m * c;
            s += a * a + h * xi * c + (0.5 * h) * (xi * xi) + (k * a).sin() + xi / (h * 2.0);
        }
        s
    };
    let mut p: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    p.push(f64::from(c));
    let want = fd(&|p: &[f64]| f64_version(&p[..4], p[4]), &p);
    let (_, (g, gc)) = ad::value_and_grad(f32_lits, (&x[..], c));
    let (v, vc) = (ad::vjp(f32_lits, (&x[..], c)).1)(1.0f32);
    for i in 0..5 {
        let (got_g, got_v) = if i < 4 { (g[i], v[i]) } else { (gc, vc) };
        let mut dx = [0.0f32; 4];
        let mut dc = 0.0f32;
        if i < 4 {
            dx[i] = 1.0;
        } else {
            dc = 1.0;
        }
        let got_t = ad::jvp(f32_lits, (&x[..], c), (&dx[..], dc)).1;
        for (what, got) in [("grad", got_g), ("vjp", got_v), ("jvp", got_t)] {
            assert!(
                close(f64::from(got), want[i], 1e-4),
                "f32_lits {what} {i}: {got} vs {}",
                want[i]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Zero adjoints: no NaN out of nothing, and NaN / inf where they belong.

#[differentiable]
fn sqrt_times_zero(x: f64) -> f64 {
    x.sqrt() * 0.0
}
#[differentiable]
fn sqrt_plain(x: f64) -> f64 {
    x.sqrt()
}
#[differentiable]
fn sqrt_times_y(x: f64, y: f64) -> f64 {
    let t = x.sqrt();
    t * y + x
}
#[differentiable]
fn sqrt_cancel(x: f64) -> f64 {
    let t = x.sqrt();
    let u = t - t;
    u + x
}
#[differentiable]
fn sqrt_linear_zero(x: f64) -> f64 {
    let t = x.sqrt();
    let u = -t + t * 0.0;
    let w = u * 0.0;
    w + x * x
}
#[differentiable]
fn sqrt_neg_zero(x: f64) -> f64 {
    x.sqrt() * -0.0 + x
}
#[differentiable]
fn sqrt_twice(x: f64) -> f64 {
    (x.sqrt() + x.sqrt()) * 2.0
}
#[differentiable]
fn sqrt_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sqrt() * (i as f64);
    }
    s
}

#[test]
fn t_zero_adjoints() {
    assert_eq!(ad::grad(sqrt_times_zero, (0.0,)).0, 0.0);
    assert_eq!((ad::vjp(sqrt_times_zero, (0.0,)).1)(1.0).0, 0.0);
    let g = ad::grad(sqrt_plain, (0.0,)).0;
    assert!(g.is_infinite() && g > 0.0, "sqrt at 0: {g}");
    let g = (ad::vjp(sqrt_plain, (0.0,)).1)(1.0).0;
    assert!(g.is_infinite() && g > 0.0, "sqrt at 0 vjp: {g}");
    // seed zero: zero, not NaN
    assert_eq!((ad::vjp(sqrt_plain, (0.0,)).1)(0.0).0, 0.0);
    assert_eq!((ad::vjp(sqrt_plain, (0.0,)).1)(-0.0).0, 0.0);
    // seed NaN: NaN
    assert!((ad::vjp(sqrt_plain, (4.0,)).1)(f64::NAN).0.is_nan());
    let (gx, gy) = ad::grad(sqrt_times_y, (0.0, 0.0));
    assert_eq!((gx, gy), (1.0, 0.0));
    let (gx, gy) = ad::grad(sqrt_times_y, (0.0, 2.0));
    assert!(gx.is_infinite(), "{gx}");
    assert_eq!(ad::grad(sqrt_cancel, (0.0,)).0, 1.0);
    assert_eq!(ad::grad(sqrt_linear_zero, (0.0,)).0, 0.0);
    assert_eq!(ad::grad(sqrt_neg_zero, (0.0,)).0, 1.0);
    let g = ad::grad(sqrt_twice, (0.0,)).0;
    assert!(g.is_infinite(), "{g}");
    let g = ad::grad(sqrt_in_loop, (&[0.0, 0.0, 4.0][..],)).0;
    assert_eq!(g[0], 0.0);
    assert!(g[1].is_infinite(), "{g:?}");
    assert_eq!(g[2], 0.5);
    // (forward mode gives NaN for sqrt(x) * 0 at 0: 0 * inf; not touched by this change)
}

// ---------------------------------------------------------------------------------------------
// vjp pullbacks: repeated, with other seeds, after other gradients, nested.

#[differentiable]
fn pb_target(x: &[f64], c: f64) -> f64 {
    let h = 0.5;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = x[i] * c - h;
        s += a * a * x[i] + (a * h).sin();
    }
    s
}

#[differentiable]
fn pb_other(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] * x[i];
    }
    s.exp()
}

#[test]
fn t_pullbacks() {
    let x = [0.7, -1.3, 1.1];
    let c = 0.4;
    let f = |p: &[f64]| pb_target(&p[..3], p[3]);
    let mut p = x.to_vec();
    p.push(c);
    let want = fd(&f, &p);
    let (v, pb) = ad::vjp(pb_target, (&x[..], c));
    assert_eq!(v, pb_target(&x, c));
    let (v2, pb2) = ad::vjp(pb_other, (&x[..],));
    for seed in [1.0, -2.5, 0.0, 3.0, 1.0] {
        // other gradients on this thread in between
        let _ = ad::grad(pb_other, (&x[..],));
        let _ = pb2(0.5);
        let (g, gc) = pb(seed);
        for i in 0..4 {
            let got = if i < 3 { g[i] } else { gc };
            assert!(
                close(got, seed * want[i], 1e-6),
                "seed {seed} coordinate {i}: {got} vs {}",
                seed * want[i]
            );
        }
        // nested: a pullback called inside another pullback's use
        let inner = pb2(seed);
        let want2 = fd(&|x: &[f64]| pb_other(x), &x);
        for i in 0..3 {
            assert!(close(inner.0[i], seed * want2[i], 1e-6));
        }
    }
    // pullbacks on another thread
    let h = std::thread::spawn(move || {
        let (_, pb) = ad::vjp(pb_target, (&[0.7, -1.3, 1.1][..], 0.4));
        pb(1.0)
    });
    let (g, gc) = h.join().unwrap();
    for i in 0..4 {
        let got = if i < 3 { g[i] } else { gc };
        assert!(close(got, want[i], 1e-6));
    }
}

#[differentiable]
fn pb_outer(x: f64) -> f64 {
    x * x * x
}

#[test]
fn t_pullback_inside_pullback_closure() {
    // A pullback called from inside a closure that itself runs a gradient and another vjp.
    let (_, pb) = ad::vjp(pb_outer, (1.5,));
    let run = || {
        let (_, pb_in) = ad::vjp(pb_target, (&[0.7, -1.3, 1.1][..], 0.4));
        let a = pb(1.0).0;
        let b = pb_in(2.0);
        let c = pb(3.0).0;
        (a, b, c)
    };
    let (a, b, c) = run();
    assert!(close(a, 3.0 * 1.5 * 1.5, 1e-12));
    assert!(close(c, 9.0 * 1.5 * 1.5, 1e-12));
    let (g1, _) = ad::vjp(pb_target, (&[0.7, -1.3, 1.1][..], 0.4)).1(1.0);
    for i in 0..3 {
        assert!(close(b.0[i], 2.0 * g1[i], 1e-12));
    }
}

// ---------------------------------------------------------------------------------------------
// Literal-bound locals used as indices and as operands, constants in blocks.

#[differentiable]
fn literal_index(x: &[f64]) -> f64 {
    let k = 2;
    let h = 1.5;
    let m = k - 1;
    let a = x[k] * x[k];
    let b = x[m] * h * x[k - 1];
    a * b + h * h * x[0]
}
probe!(t_literal_index, literal_index, [0.7, -1.3, 1.1]);

const K_OUTER: f64 = 2.0;

// A `const` item inside a loop body: the reverse sweep stands outside the block that declares
// it, so it must not name `W`.
#[differentiable]
fn const_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        const W: f64 = 1.5;
        s += W * x[i] * x[i] + K_OUTER * x[i];
    }
    s
}
probe!(t_const_in_loop, const_in_loop, [0.7, -1.3, 1.1]);

// A block-local `const` bound to a local, shadowing a global of the same name: the reverse
// sweep must use the block's value, not the global's.
const W2: f64 = 2.0;

#[differentiable]
fn const_shadow_bound(x: &[f64]) -> f64 {
    let mut s = W2 * x[0];
    for i in 0..x.len() {
        const W2: f64 = 1.5;
        let w = W2;
        s += w * x[i] * x[i];
    }
    s
}
probe!(t_const_shadow_bound, const_shadow_bound, [0.7, -1.3, 1.1]);

// `V * 2.0` must not be recomputed by name outside the block.
#[differentiable]
fn const_block_bound(x: &[f64]) -> f64 {
    let mut s = 0.0;
    {
        const V: f64 = 1.5;
        let w = V * 2.0;
        s += w * x[0] * x[1];
    }
    s
}
probe!(t_const_block_bound, const_block_bound, [0.7, -1.3, 1.1]);

// ---------------------------------------------------------------------------------------------
// Variables the lowering may not see as assigned.

// (`for mut i` is rejected with a clear message: nothing to probe.)

// An integer parameter changed by a user macro between two uses as an index: the reverse
// sweep must not read it again after the change.
macro_rules! bump {
    ($v:ident) => {
        $v += 1
    };
}

#[differentiable]
fn macro_bumps_param(x: &[f64], mut k: usize) -> f64 {
    let a = x[k] * x[k];
    bump!(k);
    let b = x[k] * x[k + 1];
    a * b
}
probe!(
    t_macro_bumps_param,
    macro_bumps_param,
    [0.7, -1.3, 1.1, 0.4],
    0usize
);

#[differentiable]
fn tuple_param(p: (f64, f64), c: f64) -> f64 {
    let (a, b) = p;
    let s = a * b * c;
    let a = 2.0;
    let c = b * c;
    s * a * c
}
#[test]
fn t_tuple_param() {
    let x = [0.7, -1.3, 1.1];
    check(
        "tuple_param",
        &x,
        &|x| tuple_param((x[0], x[1]), x[2]),
        &|x| {
            let (_, ((a, b), c)) = ad::value_and_grad(tuple_param, ((x[0], x[1]), x[2]));
            vec![a, b, c]
        },
        &|x| {
            let ((a, b), c) = (ad::vjp(tuple_param, ((x[0], x[1]), x[2])).1)(1.0);
            vec![a, b, c]
        },
        &|x, d| ad::jvp(tuple_param, ((x[0], x[1]), x[2]), ((d[0], d[1]), d[2])).1,
    );
}

#[differentiable]
fn return_in_inner(x: &[f64], c: f64) -> f64 {
    let h = 0.5;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = x[i] * h - c;
        for j in 0..x.len() {
            let b = x[j] * a;
            s += b * b;
            if s > 4.0 {
                return s * a;
            }
        }
        s += a * a;
    }
    s
}
#[test]
fn t_return_in_inner() {
    for x in [
        [0.7, -1.3, 1.1, 0.4],
        [0.2, 0.1, 0.3, 0.1],
        [2.7, 1.3, 2.1, 1.4],
    ] {
        check(
            "return_in_inner",
            &x,
            &|x| return_in_inner(&x[..3], x[3]),
            &|x| {
                let (_, (mut g, gc)) = ad::value_and_grad(return_in_inner, (&x[..3], x[3]));
                g.push(gc);
                g
            },
            &|x| {
                let (mut g, gc) = (ad::vjp(return_in_inner, (&x[..3], x[3])).1)(1.0);
                g.push(gc);
                g
            },
            &|x, d| ad::jvp(return_in_inner, (&x[..3], x[3]), (&d[..3], d[3])).1,
        );
    }
}

#[differentiable]
fn rev_step_recompute(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev() {
        let a = x[i] * x[i] - 0.5;
        s += a * a * x[i];
    }
    for i in (0..x.len()).step_by(2) {
        let a = x[i] + x[0];
        s += a * a;
    }
    for (k, &v) in x.iter().enumerate() {
        let a = v * x[k] + x[x.len() - 1 - k];
        s += a * a;
    }
    s
}
probe!(
    t_rev_step_recompute,
    rev_step_recompute,
    [0.7, -1.3, 1.1, 0.4]
);

#[differentiable]
fn f32_shadow(x: &[f32]) -> f32 {
    let h = 0.1;
    let mut s = 0.0;
    for i in 0..x.len() {
        let h = h * 3.0;
        let k = h * h;
        s += k * x[i] * x[i] + h * x[i];
    }
    let h = 2.5;
    s * h
}
#[test]
fn t_f32_shadow() {
    let x = [0.7f32, -1.3, 1.9];
    let (_, (g,)) = ad::value_and_grad(f32_shadow, (&x[..],));
    let v = (ad::vjp(f32_shadow, (&x[..],)).1)(1.0f32).0;
    let h = 0.1f32 * 3.0;
    let k = f64::from(h * h);
    for i in 0..3 {
        let xi = f64::from(x[i]);
        let want = 2.5 * (2.0 * k * xi + f64::from(h));
        let mut e = [0.0f32; 3];
        e[i] = 1.0;
        let t = ad::jvp(f32_shadow, (&x[..],), (&e[..],)).1;
        for (what, got) in [("grad", g[i]), ("vjp", v[i]), ("jvp", t)] {
            assert!(
                close(f64::from(got), want, 1e-5),
                "f32_shadow {what} {i}: {got} vs {want}"
            );
        }
    }
}

// A block-local `const` read through a local.
#[differentiable]
fn const_block_direct(x: &[f64]) -> f64 {
    let mut s = 0.0;
    {
        const V3: f64 = 1.5;
        let w = V3;
        s += w * x[0] * x[1];
    }
    s
}
probe!(t_const_block_direct, const_block_direct, [0.7, -1.3, 1.1]);

// The same with a `use` inside a block.
#[differentiable]
fn use_in_block(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        use std::f64::consts::PI;
        let p = PI;
        s += p * x[i] * x[i];
    }
    s
}
probe!(t_use_in_block, use_in_block, [0.7, -1.3, 1.1]);

// A block-local `const` used directly, shadowing a global of the same name.
const W4: f64 = 2.0;

#[differentiable]
fn const_shadow_direct(x: &[f64]) -> f64 {
    let mut s = W4 * x[0];
    for i in 0..x.len() {
        const W4: f64 = 1.5;
        s += W4 * x[i] * x[i];
    }
    s
}
probe!(t_const_shadow_direct, const_shadow_direct, [0.7, -1.3, 1.1]);

// (Destructuring assignment `(i, j) = (j, i)` is rejected with a clear message.)

// Arrays through calls in loops: whole arrays kept for the callee's reverse sweep.
#[differentiable]
fn norm3(a: [f64; 3]) -> f64 {
    a[0] * a[0] + a[1] * a[2] * a[1] + (a[2] * a[0]).sin()
}

#[differentiable]
fn arrays_through_calls(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 2 {
        let a = [x[i], x[i + 1] * 0.5, x[i + 2]];
        let t = norm3(a);
        s += t * t + norm3([t, a[1], a[2] * t]);
    }
    s
}
probe!(
    t_arrays_through_calls,
    arrays_through_calls,
    [0.7, -1.3, 1.1, 0.4]
);

#[differentiable]
fn nested_array_local(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 3];
    let mut s = 0.0;
    for i in 0..3 {
        let mut row = [0.0; 2];
        for j in 0..2 {
            row[j] = x[i] * x[j] + 0.25;
        }
        m[i] = row;
    }
    for i in 0..3 {
        let r = m[i];
        s += r[0] * r[1] * r[0];
    }
    s
}
probe!(t_nested_array_local, nested_array_local, [0.7, -1.3, 1.1]);

// f32: a square kept once, `len()` recomputed, literal-bound locals in a `while` loop.
#[differentiable]
fn f32_mixed(x: &[f32]) -> f32 {
    let h = 0.5;
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = x[i] * x[i] - 1.0;
        s += a * a / (x.len() as f32) + (a * h).sin() * a;
    }
    let mut k = 0;
    while s < 50.0 && k < 3 {
        let b = s * h;
        s += b * b;
        k += 1;
    }
    s
}
#[test]
fn t_f32_mixed() {
    let x = [0.7f32, -1.3, 1.9];
    let f64_version = |x: &[f64]| {
        let h = 0.5;
        let mut s = 0.0;
        for &xi in x {
            let a = xi * xi - 1.0;
            s += a * a / (x.len() as f64) + (a * h).sin() * a;
        }
        let mut k = 0;
        while s < 50.0 && k < 3 {
            let b = s * h;
            s += b * b;
            k += 1;
        }
        s
    };
    let p: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let want = fd(&|p: &[f64]| f64_version(p), &p);
    let (_, (g,)) = ad::value_and_grad(f32_mixed, (&x[..],));
    let v = (ad::vjp(f32_mixed, (&x[..],)).1)(1.0f32).0;
    for i in 0..3 {
        let mut e = [0.0f32; 3];
        e[i] = 1.0;
        let t = ad::jvp(f32_mixed, (&x[..],), (&e[..],)).1;
        for (what, got) in [("grad", g[i]), ("vjp", v[i]), ("jvp", t)] {
            assert!(
                close(f64::from(got), want[i], 1e-4),
                "f32_mixed {what} {i}: {got} vs {}",
                want[i]
            );
        }
    }
}

// Zero adjoints of elements: no NaN from `sqrt` at 0 reached through an array or a `Vec`.
#[differentiable]
fn arr_sqrt(x: f64, y: f64) -> f64 {
    let v = [x.sqrt(), y * y];
    let w = vec![x.sqrt(), y];
    v[1] * 2.0 + v[0] * 0.0 + (w[0] - w[0]) + w[1] * w[0] * 0.0
}

#[test]
fn t_arr_sqrt() {
    let (gx, gy) = ad::grad(arr_sqrt, (0.0, 1.5));
    assert_eq!((gx, gy), (0.0, 6.0));
    let (gx, gy) = (ad::vjp(arr_sqrt, (0.0, 1.5)).1)(1.0);
    assert_eq!((gx, gy), (0.0, 6.0));
    let (gx, _) = ad::grad(arr_sqrt, (4.0, 1.5));
    assert_eq!(gx, 0.0);
}
