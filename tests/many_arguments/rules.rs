//! Rules of functions of many arguments: custom rules of both modes, honoured in each, also
//! inside other differentiable functions, and a rule of one mode converted into the other.

use super::assert_close;
use ad::{Const, NoTangent, differentiable};

/// Ten arguments and no derivative of its own: r(x) = sum_k k round(x_k), whose true
/// derivative is zero wherever it exists. Its rules give the straight-through derivative
/// instead, dr/dx_k = k in forward mode, and a reverse rule that differs from it on purpose,
/// dr/dx_k = k + 1/2, so that which rule ran is visible.
fn ten(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
) -> f64 {
    [x1, x2, x3, x4, x5, x6, x7, x8, x9, x10]
        .iter()
        .enumerate()
        .map(|(k, x)| (k + 1) as f64 * x.round())
        .sum()
}

#[ad::custom_rule(forward, of = ten)]
fn ten_jvp(
    x1: f64,
    d1: f64,
    x2: f64,
    d2: f64,
    x3: f64,
    d3: f64,
    x4: f64,
    d4: f64,
    x5: f64,
    d5: f64,
    x6: f64,
    d6: f64,
    x7: f64,
    d7: f64,
    x8: f64,
    d8: f64,
    x9: f64,
    d9: f64,
    x10: f64,
    d10: f64,
) -> (f64, f64) {
    let d = [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10];
    let tangent = d
        .iter()
        .enumerate()
        .map(|(k, dk)| (k + 1) as f64 * dk)
        .sum();
    (ten(x1, x2, x3, x4, x5, x6, x7, x8, x9, x10), tangent)
}

#[ad::custom_rule(reverse, of = ten)]
fn ten_vjp(
    _x1: f64,
    _x2: f64,
    _x3: f64,
    _x4: f64,
    _x5: f64,
    _x6: f64,
    _x7: f64,
    _x8: f64,
    _x9: f64,
    _x10: f64,
    _value: f64,
    bar: f64,
) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
    let g = |k: f64| (k + 0.5) * bar;
    (
        g(1.0),
        g(2.0),
        g(3.0),
        g(4.0),
        g(5.0),
        g(6.0),
        g(7.0),
        g(8.0),
        g(9.0),
        g(10.0),
    )
}

/// u(x, y) = x r(x, y, x, y, ..) with r's arguments alternating: by the rules, du/dx = r +
/// x sum_{k odd} r_k and du/dy = x sum_{k even} r_k, where r_k = k in forward mode and
/// k + 1/2 in reverse mode.
#[differentiable]
fn calls_ten(x: f64, y: f64) -> f64 {
    x * ten(x, y, x, y, x, y, x, y, x, y)
}

#[test]
fn custom_rules_of_ten_arguments_are_honoured_in_both_modes() {
    let xs: [f64; 10] = [0.4, 1.6, -2.3, 0.9, 3.2, -0.7, 1.1, 2.6, -1.4, 0.2];
    let args = (
        xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7], xs[8], xs[9],
    );
    let value: f64 = (0..10).map(|k| (k + 1) as f64 * xs[k].round()).sum();

    // Forward mode, the forward rule: along tangents v_k the JVP is sum_k k v_k.
    let directions: [f64; 10] = core::array::from_fn(|k| 1.0 + k as f64 / 10.0);
    let (v, d) = ad::jvp(
        ten,
        args,
        (
            directions[0],
            directions[1],
            directions[2],
            directions[3],
            directions[4],
            directions[5],
            directions[6],
            directions[7],
            directions[8],
            directions[9],
        ),
    );
    assert_close(v, value, "jvp: value");
    let along: f64 = (0..10).map(|k| (k + 1) as f64 * directions[k]).sum();
    assert_close(d, along, "jvp: sum_k k v_k");

    // Reverse mode, the reverse rule: dr/dx_k = k + 1/2.
    let (v, g) = ad::value_and_grad(ten, args);
    assert_close(v, value, "value_and_grad: value");
    let (g1, g2, g3, g4, g5, g6, g7, g8, g9, g10) = g;
    let got = [g1, g2, g3, g4, g5, g6, g7, g8, g9, g10];
    for k in 0..10 {
        assert_close(
            got[k],
            (k + 1) as f64 + 0.5,
            &format!("grad: dr/dx{}", k + 1),
        );
    }

    // Inside another function, each mode through its own rule.
    let (x, y) = (0.8_f64, -1.3_f64);
    let r = 25.0 * x.round() + 30.0 * y.round(); // odd k sum to 25, even k to 30
    let (odd_fwd, even_fwd) = (25.0, 30.0);
    let (odd_rev, even_rev) = (25.0 + 2.5, 30.0 + 2.5);
    let (v, d) = ad::jvp(calls_ten, (x, y), (1.0, 0.0));
    assert_close(v, x * r, "calls_ten: value");
    assert_close(d, r + x * odd_fwd, "calls_ten: jvp along x");
    let (_, d) = ad::jvp(calls_ten, (x, y), (0.0, 1.0));
    assert_close(d, x * even_fwd, "calls_ten: jvp along y");
    let (gx, gy) = ad::grad(calls_ten, (x, y));
    assert_close(gx, r + x * odd_rev, "calls_ten: grad dx");
    assert_close(gy, x * even_rev, "calls_ten: grad dy");
}

/// Sixteen arguments, fourteen floats with an integer and a constant among them, and no
/// derivative of its own: l(x, n, c) = c n sum_k k x_k, linear, so dl/dx_k = c n k.
fn linear(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    n: i32,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
    c: Const<f64>,
    x11: f64,
    x12: f64,
    x13: f64,
    x14: f64,
) -> f64 {
    let x = [x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14];
    let s: f64 = x
        .iter()
        .enumerate()
        .map(|(k, xk)| (k + 1) as f64 * xk)
        .sum();
    c.0 * f64::from(n) * s
}

/// The same function under another name, for a rule registered at run time.
fn linear_too(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    n: i32,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
    c: Const<f64>,
    x11: f64,
    x12: f64,
    x13: f64,
    x14: f64,
) -> f64 {
    linear(
        x1, x2, x3, x4, n, x5, x6, x7, x8, x9, x10, c, x11, x12, x13, x14,
    )
}

/// l's forward rule: the tangent c n sum_k k dx_k.
#[ad::custom_rule(forward, of = linear)]
fn linear_jvp(
    x1: f64,
    d1: f64,
    x2: f64,
    d2: f64,
    x3: f64,
    d3: f64,
    x4: f64,
    d4: f64,
    n: i32,
    _dn: NoTangent,
    x5: f64,
    d5: f64,
    x6: f64,
    d6: f64,
    x7: f64,
    d7: f64,
    x8: f64,
    d8: f64,
    x9: f64,
    d9: f64,
    x10: f64,
    d10: f64,
    c: Const<f64>,
    _dc: NoTangent,
    x11: f64,
    d11: f64,
    x12: f64,
    d12: f64,
    x13: f64,
    d13: f64,
    x14: f64,
    d14: f64,
) -> (f64, f64) {
    let d = [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14];
    let t: f64 = d
        .iter()
        .enumerate()
        .map(|(k, dk)| (k + 1) as f64 * dk)
        .sum();
    (
        linear(
            x1, x2, x3, x4, n, x5, x6, x7, x8, x9, x10, c, x11, x12, x13, x14,
        ),
        c.0 * f64::from(n) * t,
    )
}

type LinearArgs = (
    f64,
    f64,
    f64,
    f64,
    i32,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    Const<f64>,
    f64,
    f64,
    f64,
    f64,
);

/// What `grad` returns for `linear`.
type LinearGrads = (
    f64,
    f64,
    f64,
    f64,
    NoTangent,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    NoTangent,
    f64,
    f64,
    f64,
    f64,
);

/// The floats of the arguments in order x1..x14, from the tuple of sixteen.
fn linear_floats(g: LinearGrads) -> [f64; 14] {
    let (g1, g2, g3, g4, _, g5, g6, g7, g8, g9, g10, _, g11, g12, g13, g14) = g;
    [g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14]
}

#[test]
fn rules_of_sixteen_arguments_serve_the_other_mode_too() {
    let x: [f64; 14] = core::array::from_fn(|k| 0.5 - 0.125 * k as f64);
    let (n, c) = (3, -0.75);
    let args: LinearArgs = (
        x[0],
        x[1],
        x[2],
        x[3],
        n,
        x[4],
        x[5],
        x[6],
        x[7],
        x[8],
        x[9],
        Const(c),
        x[10],
        x[11],
        x[12],
        x[13],
    );
    let scale = c * f64::from(n);
    let value = scale * (0..14).map(|k| (k + 1) as f64 * x[k]).sum::<f64>();
    let dir: [f64; 14] = core::array::from_fn(|k| 1.0 - 0.25 * k as f64);
    let along = scale * (0..14).map(|k| (k + 1) as f64 * dir[k]).sum::<f64>();
    let tangents = (
        dir[0], dir[1], dir[2], dir[3], NoTangent, dir[4], dir[5], dir[6], dir[7], dir[8], dir[9],
        NoTangent, dir[10], dir[11], dir[12], dir[13],
    );

    // The forward rule in forward mode, and converted (one JVP per coordinate) in reverse
    // mode: dl/dx_k = c n k.
    let (v, d) = ad::jvp(linear, args, tangents);
    assert_close(v, value, "jvp: value");
    assert_close(d, along, "jvp: c n sum_k k v_k");
    let (v, g) = ad::value_and_grad(linear, args);
    assert_close(v, value, "value_and_grad: value");
    let g = linear_floats(g);
    for k in 0..14 {
        assert_close(
            g[k],
            scale * (k + 1) as f64,
            &format!("grad through the forward rule: dl/dx{}", k + 1),
        );
    }

    // A reverse rule registered at run time, in reverse mode, and converted (one VJP per result
    // coordinate) in forward mode.
    let guard = ad::rules::register_reverse(
        linear_too,
        |_x1: f64,
         _x2: f64,
         _x3: f64,
         _x4: f64,
         n: i32,
         _x5: f64,
         _x6: f64,
         _x7: f64,
         _x8: f64,
         _x9: f64,
         _x10: f64,
         c: Const<f64>,
         _x11: f64,
         _x12: f64,
         _x13: f64,
         _x14: f64,
         _value: f64,
         bar: f64| {
            let g = |k: f64| c.0 * f64::from(n) * k * bar;
            (
                g(1.0),
                g(2.0),
                g(3.0),
                g(4.0),
                NoTangent,
                g(5.0),
                g(6.0),
                g(7.0),
                g(8.0),
                g(9.0),
                g(10.0),
                NoTangent,
                g(11.0),
                g(12.0),
                g(13.0),
                g(14.0),
            )
        },
    );
    let g = linear_floats(ad::grad(linear_too, args));
    for k in 0..14 {
        assert_close(
            g[k],
            scale * (k + 1) as f64,
            &format!("grad through the run-time rule: dl/dx{}", k + 1),
        );
    }
    let (v, d) = ad::jvp(linear_too, args, tangents);
    assert_close(v, value, "jvp through the run-time rule: value");
    assert_close(d, along, "jvp through the run-time rule: c n sum_k k v_k");
    drop(guard);
    assert!(
        ad::try_jvp(linear_too, args, tangents).is_err(),
        "no rule once the guard is dropped"
    );
}

/// Sixteen arguments, no derivative of its own: lse(x) = ln sum_k e^(x_k), whose gradient is
/// the softmax, dlse/dx_k = e^(x_k) / sum_j e^(x_j).
fn lse16(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
    x11: f64,
    x12: f64,
    x13: f64,
    x14: f64,
    x15: f64,
    x16: f64,
) -> f64 {
    [
        x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15, x16,
    ]
    .iter()
    .map(|x| x.exp())
    .sum::<f64>()
    .ln()
}

/// The forward part of lse's reverse rule: the value, and the softmax weights as residuals,
/// which wait on the tape for the reverse part.
fn lse16_forward(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
    x11: f64,
    x12: f64,
    x13: f64,
    x14: f64,
    x15: f64,
    x16: f64,
) -> (f64, [f64; 16]) {
    let e = [
        x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15, x16,
    ]
    .map(f64::exp);
    let s: f64 = e.iter().sum();
    (s.ln(), e.map(|ek| ek / s))
}

/// The adjoints of sixteen floats.
type Floats16 = (
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
);

#[ad::custom_rule(reverse, of = lse16, augmented = lse16_forward)]
fn lse16_reverse(w: [f64; 16], bar: f64) -> Floats16 {
    let g = w.map(|wk| wk * bar);
    (
        g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13],
        g[14], g[15],
    )
}

/// s(x, y) = y lse(x, 2x, .., 16x) with x_k = k x: by the rule, ds/dx = y sum_k k p_k and
/// ds/dy = lse, p the softmax at (x, 2x, .., 16x).
#[differentiable]
fn calls_lse16(x: f64, y: f64) -> f64 {
    y * lse16(
        x,
        2.0 * x,
        3.0 * x,
        4.0 * x,
        5.0 * x,
        6.0 * x,
        7.0 * x,
        8.0 * x,
        9.0 * x,
        10.0 * x,
        11.0 * x,
        12.0 * x,
        13.0 * x,
        14.0 * x,
        15.0 * x,
        16.0 * x,
    )
}

#[test]
fn a_rule_with_residuals_of_sixteen_arguments() {
    let (x, y) = (0.15_f64, -1.25_f64);
    let e: [f64; 16] = core::array::from_fn(|k| ((k + 1) as f64 * x).exp());
    let s: f64 = e.iter().sum();
    let lse = s.ln();
    let dx = y * (0..16).map(|k| (k + 1) as f64 * e[k] / s).sum::<f64>();

    // Directly: the gradient is the softmax.
    let args = (
        x,
        2.0 * x,
        3.0 * x,
        4.0 * x,
        5.0 * x,
        6.0 * x,
        7.0 * x,
        8.0 * x,
        9.0 * x,
        10.0 * x,
        11.0 * x,
        12.0 * x,
        13.0 * x,
        14.0 * x,
        15.0 * x,
        16.0 * x,
    );
    let (v, g) = ad::value_and_grad(lse16, args);
    assert_close(v, lse, "lse16: value");
    let (g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14, g15, g16) = g;
    let g = [
        g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14, g15, g16,
    ];
    for k in 0..16 {
        assert_close(g[k], e[k] / s, &format!("lse16: softmax {}", k + 1));
    }

    // Inside another function, the residuals on the tape between the sweeps: joint, and the
    // forward sweep alone before the pullback.
    let (v, (gx, gy)) = ad::value_and_grad(calls_lse16, (x, y));
    assert_close(v, y * lse, "calls_lse16: value");
    assert_close(gx, dx, "calls_lse16: ds/dx");
    assert_close(gy, lse, "calls_lse16: ds/dy");
    let (_, pullback) = ad::vjp(calls_lse16, (x, y));
    let (gx, gy) = pullback(0.5);
    assert_close(gx, 0.5 * dx, "calls_lse16 pullback: ds/dx");
    assert_close(gy, 0.5 * lse, "calls_lse16 pullback: ds/dy");
}
