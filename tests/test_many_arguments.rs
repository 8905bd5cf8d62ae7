//! Functions of many arguments, up to the limit of sixteen: differentiated in both modes through
//! every entry point, called from inside other differentiable functions (once and in a loop),
//! and given custom rules (`many_arguments/`). Every derivative is checked against its closed
//! form, written out here by hand.

// Loops over indices are the language `#[differentiable]` reads; the functions under test have
// many arguments on purpose.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use ad::{Const, NoTangent, differentiable};

#[path = "many_arguments/calls.rs"]
mod calls;
#[path = "many_arguments/rules.rs"]
mod rules;

/// 1e-14 relative: the closed forms and the derivatives evaluate the same terms in another
/// order (a sum over the slice, `-x6 / x7^2` against `-(x6 / x7) / x7`), so they differ by a few
/// rounding errors at most, far below any misrouted adjoint (the test points give every
/// partial a different size).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1.0)
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!(close(got, want), "{what}: got {got}, want {want}");
}

/// Sixteen arguments: thirteen floats, an integer, a slice and a constant, interleaved.
///
/// f = x1 x2 + c n x1 + sin x3 + x4^3 + e^x5 + x6 / x7 + x8 x9 x10 + (x11 - x12)^2
///     + x13 sum_i w_i^2
#[differentiable]
fn sixteen(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    x5: f64,
    n: i32,
    x6: f64,
    x7: f64,
    w: &[f64],
    x8: f64,
    x9: f64,
    c: Const<f64>,
    x10: f64,
    x11: f64,
    x12: f64,
    x13: f64,
) -> f64 {
    let mut sq = 0.0;
    for i in 0..w.len() {
        sq += w[i] * w[i];
    }
    let d = x11 - x12;
    x1 * x2
        + c.0 * (n as f64) * x1
        + x3.sin()
        + x4 * x4 * x4
        + x5.exp()
        + x6 / x7
        + x8 * x9 * x10
        + d * d
        + x13 * sq
}

/// The partials of `sixteen` by hand, the floats in order x1..x13 and then the slice:
/// df/dx1 = x2 + c n, df/dx2 = x1, df/dx3 = cos x3, df/dx4 = 3 x4^2, df/dx5 = e^x5,
/// df/dx6 = 1 / x7, df/dx7 = -x6 / x7^2, df/dx8 = x9 x10, df/dx9 = x8 x10, df/dx10 = x8 x9,
/// df/dx11 = 2 (x11 - x12), df/dx12 = -2 (x11 - x12), df/dx13 = sum_i w_i^2,
/// df/dw_i = 2 x13 w_i.
fn sixteen_partials(x: &[f64; 13], w: &[f64], n: i32, c: f64) -> ([f64; 13], Vec<f64>) {
    let sq: f64 = w.iter().map(|wi| wi * wi).sum();
    let d = x[10] - x[11];
    let dx = [
        x[1] + c * f64::from(n),
        x[0],
        x[2].cos(),
        3.0 * x[3] * x[3],
        x[4].exp(),
        1.0 / x[6],
        -x[5] / (x[6] * x[6]),
        x[8] * x[9],
        x[7] * x[9],
        x[7] * x[8],
        2.0 * d,
        -2.0 * d,
        sq,
    ];
    let dw = w.iter().map(|wi| 2.0 * x[12] * wi).collect();
    (dx, dw)
}

/// The value of `sixteen` by hand.
fn sixteen_value(x: &[f64; 13], w: &[f64], n: i32, c: f64) -> f64 {
    let sq: f64 = w.iter().map(|wi| wi * wi).sum();
    x[0] * x[1]
        + c * f64::from(n) * x[0]
        + x[2].sin()
        + x[3].powi(3)
        + x[4].exp()
        + x[5] / x[6]
        + x[7] * x[8] * x[9]
        + (x[10] - x[11]).powi(2)
        + x[12] * sq
}

type Args16<'a> = (
    f64,
    f64,
    f64,
    f64,
    f64,
    i32,
    f64,
    f64,
    &'a [f64],
    f64,
    f64,
    Const<f64>,
    f64,
    f64,
    f64,
    f64,
);

type Grads16 = (
    f64,
    f64,
    f64,
    f64,
    f64,
    NoTangent,
    f64,
    f64,
    Vec<f64>,
    f64,
    f64,
    NoTangent,
    f64,
    f64,
    f64,
    f64,
);

fn args16<'a>(x: &[f64; 13], w: &'a [f64], n: i32, c: f64) -> Args16<'a> {
    (
        x[0],
        x[1],
        x[2],
        x[3],
        x[4],
        n,
        x[5],
        x[6],
        w,
        x[7],
        x[8],
        Const(c),
        x[9],
        x[10],
        x[11],
        x[12],
    )
}

/// The floats' adjoints of a gradient of `sixteen`, in the order x1..x13, and the slice's.
fn floats_of(g: Grads16) -> ([f64; 13], Vec<f64>) {
    let (g1, g2, g3, g4, g5, gn, g6, g7, gw, g8, g9, gc, g10, g11, g12, g13) = g;
    assert_eq!((gn, gc), (NoTangent, NoTangent), "no adjoint for n and c");
    ([g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13], gw)
}

/// Every adjoint of `got` against the partials times `scale` (the seed of the reverse sweep).
fn check_sixteen(got: ([f64; 13], Vec<f64>), want: &([f64; 13], Vec<f64>), scale: f64, how: &str) {
    for k in 0..13 {
        assert_close(
            got.0[k],
            scale * want.0[k],
            &format!("{how}: df/dx{}", k + 1),
        );
    }
    assert_eq!(got.1.len(), want.1.len());
    for i in 0..want.1.len() {
        assert_close(got.1[i], scale * want.1[i], &format!("{how}: df/dw[{i}]"));
    }
}

/// Test points at which every partial differs from every other, so that an adjoint or a tangent
/// delivered to the wrong argument cannot pass.
const X: [f64; 13] = [
    0.3, -1.2, 0.7, 1.1, -0.4, 2.5, 1.6, 0.9, -0.8, 1.3, 0.45, -0.6, 0.75,
];
const W: [f64; 3] = [0.5, -1.5, 2.0];
const N: i32 = 3;
const C: f64 = 0.25;

#[test]
fn sixteen_arguments_in_reverse_mode_through_every_entry_point() {
    let want = sixteen_partials(&X, &W, N, C);
    let value = sixteen_value(&X, &W, N, C);

    let (v, g) = ad::value_and_grad(sixteen, args16(&X, &W, N, C));
    assert_close(v, value, "value_and_grad: value");
    check_sixteen(floats_of(g), &want, 1.0, "value_and_grad");

    check_sixteen(
        floats_of(ad::grad(sixteen, args16(&X, &W, N, C))),
        &want,
        1.0,
        "grad",
    );

    let (v, g) = ad::try_value_and_grad(sixteen, args16(&X, &W, N, C)).unwrap();
    assert_close(v, value, "try_value_and_grad: value");
    check_sixteen(floats_of(g), &want, 1.0, "try_value_and_grad");

    // The pullback is linear in the seed: seeded with s, each adjoint is s times the partial.
    let (v, pullback) = ad::vjp(sixteen, args16(&X, &W, N, C));
    assert_close(v, value, "vjp: value");
    check_sixteen(floats_of(pullback(1.0)), &want, 1.0, "vjp, seed 1");
    check_sixteen(floats_of(pullback(-2.5)), &want, -2.5, "vjp, seed -2.5");

    let (v, pullback) = ad::try_vjp(sixteen, args16(&X, &W, N, C)).unwrap();
    assert_close(v, value, "try_vjp: value");
    check_sixteen(floats_of(pullback(0.5)), &want, 0.5, "try_vjp, seed 0.5");

    // vjp_into adds the slice's adjoint into the caller's buffer: 0.125 + seed df/dw_i.
    let mut w_bar = [0.125; 3];
    let bars = (
        (),
        (),
        (),
        (),
        (),
        (),
        (),
        (),
        &mut w_bar[..],
        (),
        (),
        (),
        (),
        (),
        (),
        (),
    );
    let (v, g) = ad::vjp_into(sixteen, args16(&X, &W, N, C), bars, 3.0);
    assert_close(v, value, "vjp_into: value");
    let (g1, g2, g3, g4, g5, _, g6, g7, gw, g8, g9, _, g10, g11, g12, g13) = g;
    assert_eq!(
        gw, NoTangent,
        "vjp_into: the slice's adjoint goes into its buffer"
    );
    let floats = [g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13];
    let buffer = w_bar.iter().map(|b| b - 0.125).collect();
    check_sixteen((floats, buffer), &want, 3.0, "vjp_into");
}

/// The tangents of `sixteen`'s arguments.
type Tangents16<'a> = (
    f64,
    f64,
    f64,
    f64,
    f64,
    NoTangent,
    f64,
    f64,
    &'a [f64],
    f64,
    f64,
    NoTangent,
    f64,
    f64,
    f64,
    f64,
);

/// The tangents of `sixteen`'s arguments: `dx` for the floats in order x1..x13, `dw` for the
/// slice, none for the integer and the constant.
fn tangents16<'a>(dx: &[f64; 13], dw: &'a [f64]) -> Tangents16<'a> {
    (
        dx[0], dx[1], dx[2], dx[3], dx[4], NoTangent, dx[5], dx[6], dw, dx[7], dx[8], NoTangent,
        dx[9], dx[10], dx[11], dx[12],
    )
}

#[test]
fn sixteen_arguments_in_forward_mode_one_coordinate_at_a_time() {
    let want = sixteen_partials(&X, &W, N, C);
    let value = sixteen_value(&X, &W, N, C);
    // Along the unit tangent of one coordinate, the JVP is that coordinate's partial.
    for k in 0..13 {
        let mut dx = [0.0; 13];
        dx[k] = 1.0;
        let (v, d) = ad::jvp(sixteen, args16(&X, &W, N, C), tangents16(&dx, &[0.0; 3]));
        assert_close(v, value, "jvp: value");
        assert_close(d, want.0[k], &format!("jvp along x{}", k + 1));
    }
    for i in 0..3 {
        let mut dw = [0.0; 3];
        dw[i] = 1.0;
        let (_, d) = ad::jvp(sixteen, args16(&X, &W, N, C), tangents16(&[0.0; 13], &dw));
        assert_close(d, want.1[i], &format!("jvp along w[{i}]"));
    }
    // Along a tangent with every coordinate set: the sum of partials times tangents.
    let dx: [f64; 13] = core::array::from_fn(|k| 1.0 / (k as f64 + 2.0));
    let dw = [0.5, 0.25, -1.0];
    let along: f64 = (0..13).map(|k| want.0[k] * dx[k]).sum::<f64>()
        + (0..3).map(|i| want.1[i] * dw[i]).sum::<f64>();
    let (v, d) = ad::try_jvp(sixteen, args16(&X, &W, N, C), tangents16(&dx, &dw)).unwrap();
    assert_close(v, value, "try_jvp: value");
    assert_close(d, along, "try_jvp along every coordinate");
}
