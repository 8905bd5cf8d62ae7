//! Functions of twelve and sixteen arguments called from inside other differentiable functions,
//! once and in a loop, in both modes.

use super::{C, W, assert_close, sixteen, sixteen_partials, sixteen_value};
use ad::{Const, NoTangent, differentiable};

/// Twelve arguments: t(a) = sum_{k=1}^{12} k a_k a_{k+1}, with a_13 = a_1.
#[differentiable]
fn twelve(
    a1: f64,
    a2: f64,
    a3: f64,
    a4: f64,
    a5: f64,
    a6: f64,
    a7: f64,
    a8: f64,
    a9: f64,
    a10: f64,
    a11: f64,
    a12: f64,
) -> f64 {
    a1 * a2
        + 2.0 * a2 * a3
        + 3.0 * a3 * a4
        + 4.0 * a4 * a5
        + 5.0 * a5 * a6
        + 6.0 * a6 * a7
        + 7.0 * a7 * a8
        + 8.0 * a8 * a9
        + 9.0 * a9 * a10
        + 10.0 * a10 * a11
        + 11.0 * a11 * a12
        + 12.0 * a12 * a1
}

/// dt/da_j = j a_{j+1} + (j - 1) a_{j-1}, the indices cyclic (a_0 = a_12, a_13 = a_1, and the
/// coefficient of a_0 in dt/da_1 is 12).
fn twelve_partials(a: &[f64; 12]) -> [f64; 12] {
    core::array::from_fn(|i| {
        let j = (i + 1) as f64;
        let next = a[(i + 1) % 12];
        let (prev, k) = if i == 0 {
            (a[11], 12.0)
        } else {
            (a[i - 1], j - 1.0)
        };
        j * next + k * prev
    })
}

/// Calls `twelve` twice in a loop, at a_k = k x + y + r for r = 0, 1: the call's record (the
/// twelve arguments) goes on the tape once per iteration.
///
/// g(x, y) = sum_r t(a^(r)): dg/dx = sum_r sum_k k dt/da_k(a^(r)), dg/dy = sum_r sum_k
/// dt/da_k(a^(r)).
#[differentiable]
fn calls_twelve(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for r in 0..2 {
        let t = y + (r as f64);
        s += twelve(
            x + t,
            2.0 * x + t,
            3.0 * x + t,
            4.0 * x + t,
            5.0 * x + t,
            6.0 * x + t,
            7.0 * x + t,
            8.0 * x + t,
            9.0 * x + t,
            10.0 * x + t,
            11.0 * x + t,
            12.0 * x + t,
        );
    }
    s
}

/// Calls `sixteen` with each float argument a different linear map of (x, y),
/// x_k = alpha_k x + beta_k y (the maps below), and `w`, `n` and `c` passed on.
///
/// h(x, y, w) = f(x_1..x_13, w): dh/dx = sum_k alpha_k df/dx_k, dh/dy = sum_k beta_k df/dx_k,
/// dh/dw_i = df/dw_i = 2 x_13 w_i.
#[differentiable]
fn calls_sixteen(x: f64, y: f64, w: &[f64], c: Const<f64>) -> f64 {
    sixteen(
        x,
        y,
        x + y,
        0.5 * x,
        x - y,
        3,
        2.0 * y,
        1.5 + 0.25 * x,
        w,
        3.0 * x,
        -y,
        c,
        x + 2.0 * y,
        0.5 * y,
        -x,
        0.25 * x + y,
    )
}

/// The maps of `calls_sixteen`: (alpha_k, beta_k, constant_k) for x_k = alpha x + beta y + const.
const MAPS: [(f64, f64, f64); 13] = [
    (1.0, 0.0, 0.0),
    (0.0, 1.0, 0.0),
    (1.0, 1.0, 0.0),
    (0.5, 0.0, 0.0),
    (1.0, -1.0, 0.0),
    (0.0, 2.0, 0.0),
    (0.25, 0.0, 1.5),
    (3.0, 0.0, 0.0),
    (0.0, -1.0, 0.0),
    (1.0, 2.0, 0.0),
    (0.0, 0.5, 0.0),
    (-1.0, 0.0, 0.0),
    (0.25, 1.0, 0.0),
];

#[test]
fn twelve_arguments_called_in_a_loop_in_both_modes() {
    let (x, y) = (0.35, -0.2);
    let (mut dx, mut dy, mut value) = (0.0, 0.0, 0.0);
    for r in 0..2 {
        let a: [f64; 12] = core::array::from_fn(|i| (i + 1) as f64 * x + y + f64::from(r));
        let p = twelve_partials(&a);
        value += (0..12)
            .map(|i| (i + 1) as f64 * a[i] * a[(i + 1) % 12])
            .sum::<f64>();
        dx += (0..12).map(|i| (i + 1) as f64 * p[i]).sum::<f64>();
        dy += p.iter().sum::<f64>();
    }

    let (v, (gx, gy)) = ad::value_and_grad(calls_twelve, (x, y));
    assert_close(v, value, "value");
    assert_close(gx, dx, "grad: dg/dx");
    assert_close(gy, dy, "grad: dg/dy");
    // The forward sweep alone, then the reverse sweep from the tape.
    let (_, pullback) = ad::vjp(calls_twelve, (x, y));
    let (gx, gy) = pullback(2.0);
    assert_close(gx, 2.0 * dx, "vjp: dg/dx");
    assert_close(gy, 2.0 * dy, "vjp: dg/dy");

    let (v, d) = ad::jvp(calls_twelve, (x, y), (1.0, 0.0));
    assert_close(v, value, "jvp: value");
    assert_close(d, dx, "jvp along x");
    let (_, d) = ad::jvp(calls_twelve, (x, y), (0.0, 1.0));
    assert_close(d, dy, "jvp along y");
}

#[test]
fn sixteen_arguments_called_from_another_function_in_both_modes() {
    let (x, y) = (0.6, -0.9);
    let xs: [f64; 13] = core::array::from_fn(|k| MAPS[k].0 * x + MAPS[k].1 * y + MAPS[k].2);
    let (p, dw) = sixteen_partials(&xs, &W, 3, C);
    let value = sixteen_value(&xs, &W, 3, C);
    let dx: f64 = (0..13).map(|k| MAPS[k].0 * p[k]).sum();
    let dy: f64 = (0..13).map(|k| MAPS[k].1 * p[k]).sum();

    let (v, (gx, gy, gw, gc)) = ad::value_and_grad(calls_sixteen, (x, y, &W[..], Const(C)));
    assert_close(v, value, "value");
    assert_close(gx, dx, "grad: dh/dx");
    assert_close(gy, dy, "grad: dh/dy");
    assert_eq!(gc, NoTangent);
    for i in 0..3 {
        assert_close(gw[i], dw[i], &format!("grad: dh/dw[{i}]"));
    }
    // The forward sweep alone, then the reverse sweep from the tape.
    let (_, pullback) = ad::vjp(calls_sixteen, (x, y, &W[..], Const(C)));
    let (gx, gy, gw, _) = pullback(-1.5);
    assert_close(gx, -1.5 * dx, "vjp: dh/dx");
    assert_close(gy, -1.5 * dy, "vjp: dh/dy");
    for i in 0..3 {
        assert_close(gw[i], -1.5 * dw[i], &format!("vjp: dh/dw[{i}]"));
    }

    let args = (x, y, &W[..], Const(C));
    let (v, d) = ad::jvp(calls_sixteen, args, (1.0, 0.0, &[0.0; 3][..], NoTangent));
    assert_close(v, value, "jvp: value");
    assert_close(d, dx, "jvp along x");
    let (_, d) = ad::jvp(calls_sixteen, args, (0.0, 1.0, &[0.0; 3][..], NoTangent));
    assert_close(d, dy, "jvp along y");
    let (_, d) = ad::jvp(
        calls_sixteen,
        args,
        (0.0, 0.0, &[0.0, 1.0, 0.0][..], NoTangent),
    );
    assert_close(d, dw[1], "jvp along w[1]");
}
