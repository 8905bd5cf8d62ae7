//! Structs of the user's own as values with derivatives (`#[derive(ad::Differentiable)]`):
//! parameters and results by value, field reads (nested), struct literals (with `..rest`),
//! field writes (plain and compound, nested, in loops), tuple structs, generic structs at `f32`
//! and `f64`, fields without a derivative (integers, text, `#[ad(skip)]`); in both modes and
//! through `ad::vjp`, against dual numbers: each function is written a second time over
//! `num_dual::Dual64` (tolerance 1e-12 relative, `tests/dual_check/mod.rs` says why), and the
//! gradient with respect to a struct, which is its tangent, is compared field by field.

// Index loops and a plain assignment beside a compound one are the spellings under test.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, TOL, close, grid};

/// Its own tangent: every field is a float.
#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

/// A companion tangent, `SpringTangent`: `id` has none.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Spring {
    a: Point,
    b: Point,
    k: f64,
    rest: f64,
    id: usize,
}

/// The energy of a spring stretched between two points.
#[differentiable]
fn energy(s: Spring) -> f64 {
    let dx = s.a.x - s.b.x;
    let dy = s.a.y - s.b.y;
    let stretch = (dx * dx + dy * dy).sqrt() - s.rest;
    0.5 * s.k * stretch * stretch
}

/// `energy` over dual numbers: the spring's six floats in order `a.x a.y b.x b.y k rest`.
fn energy_d(v: [D; 6]) -> D {
    let [ax, ay, bx, by, k, rest] = v;
    let (dx, dy) = (ax - bx, ay - by);
    let stretch = (dx * dx + dy * dy).sqrt() - rest;
    k * 0.5 * stretch * stretch
}

fn spring_of(v: [f64; 6]) -> Spring {
    Spring {
        a: Point { x: v[0], y: v[1] },
        b: Point { x: v[2], y: v[3] },
        k: v[4],
        rest: v[5],
        id: 17,
    }
}

fn spring_floats(t: &SpringTangent) -> [f64; 6] {
    [t.a.x, t.a.y, t.b.x, t.b.y, t.k, t.rest]
}

fn unit_spring(i: usize) -> SpringTangent {
    let mut e = [0.0; 6];
    e[i] = 1.0;
    SpringTangent {
        a: Point { x: e[0], y: e[1] },
        b: Point { x: e[2], y: e[3] },
        k: e[4],
        rest: e[5],
        id: ad::NoTangent,
    }
}

/// Every derivative of `f(spring_of(v))` along each of the spring's floats, against `oracle`.
fn check_spring(
    what: &str,
    f: impl Fn(Spring) -> f64 + Copy,
    ad_f: fn(Spring) -> f64,
    oracle: fn([D; 6]) -> D,
    v: [f64; 6],
) where
    fn(Spring) -> f64: ad::Function<(Spring,)>,
{
    let _ = f;
    let value = ad_f(spring_of(v));
    let (gv, (g,)) = ad::value_and_grad(ad_f, (spring_of(v),));
    let (pv, pullback) = ad::vjp(ad_f, (spring_of(v),));
    let (p,) = pullback(1.0);
    assert_eq!(gv.to_bits(), value.to_bits());
    assert_eq!(pv.to_bits(), value.to_bits());
    let (g, p) = (spring_floats(&g), spring_floats(&p));
    for i in 0..6 {
        let seeded: [D; 6] = std::array::from_fn(|j| D::new(v[j], if i == j { 1.0 } else { 0.0 }));
        let want = oracle(seeded);
        assert!(
            close(want.re, value, TOL),
            "{what}: oracle value {}",
            want.re
        );
        let (jv, t) = ad::jvp(ad_f, (spring_of(v),), (unit_spring(i),));
        assert_eq!(jv.to_bits(), value.to_bits());
        for (how, got) in [("jvp", t), ("grad", g[i]), ("vjp", p[i])] {
            assert!(
                close(got, want.eps, TOL),
                "{what}: {how} d/d{i} = {got}, oracle {}",
                want.eps
            );
        }
    }
}

#[test]
fn a_struct_parameter_read_through_nested_fields() {
    for ax in grid(-1.0, 1.5, 4) {
        for k in grid(0.5, 3.0, 3) {
            let v = [ax, 0.3, -0.7, 1.1, k, 0.4];
            check_spring("energy", energy, energy, energy_d, v);
        }
    }
}

/// A body integrated in place: nested field writes, plain and compound, in a loop, and an
/// integer field that counts (it carries no derivative and is written too).
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Body {
    at: Point,
    v: Point,
    drag: f64,
    steps: usize,
    #[ad(skip)]
    tag: std::collections::BTreeMap<u8, u8>,
    name: String,
}

#[differentiable]
fn fly(b: Body, dt: f64) -> f64 {
    let mut s = b;
    for _ in 0..s.steps {
        s.at.x += dt * s.v.x;
        s.at.y = s.at.y + dt * s.v.y;
        s.v.y -= dt * 9.81;
        s.v.x *= 1.0 - s.drag * dt;
        s.v = Point {
            y: s.v.y * (1.0 - s.drag * dt),
            ..s.v
        };
    }
    s.steps = 0;
    s.at.x * s.at.y * 0.5 + s.v.y
}

/// `fly` over dual numbers, along `(at.x, at.y, v.x, v.y, drag, dt)`.
fn fly_d(w: [D; 6], steps: usize, scale: f64) -> D {
    let [mut ax, mut ay, mut vx, mut vy, drag, dt] = w;
    for _ in 0..steps {
        ax += dt * vx;
        ay += dt * vy;
        vy -= dt * 9.81;
        vx *= -(drag * dt) + 1.0;
        vy *= -(drag * dt) + 1.0;
    }
    ax * ay * scale + vy
}

#[test]
fn fields_written_in_a_loop() {
    for steps in [0, 1, 4] {
        for vx in grid(-1.0, 2.0, 4) {
            let w = [0.3, 1.0, vx, 1.5, 0.2, 0.05];
            let body = || Body {
                at: Point { x: w[0], y: w[1] },
                v: Point { x: w[2], y: w[3] },
                drag: w[4],
                steps,
                tag: std::collections::BTreeMap::new(),
                name: String::from("probe"),
            };
            let value = fly(body(), w[5]);
            let (gv, (g, gdt)) = ad::value_and_grad(fly, (body(), w[5]));
            let (_, pullback) = ad::vjp(fly, (body(), w[5]));
            let (p, pdt) = pullback(1.0);
            assert_eq!(gv.to_bits(), value.to_bits());
            assert_eq!(g, p);
            assert_eq!(gdt.to_bits(), pdt.to_bits());
            assert_eq!(g.name, ad::NoTangent);
            let got = [g.at.x, g.at.y, g.v.x, g.v.y, g.drag, gdt];
            for i in 0..6 {
                let seeded: [D; 6] =
                    std::array::from_fn(|j| D::new(w[j], if i == j { 1.0 } else { 0.0 }));
                let want = fly_d(seeded, steps, 0.5);
                assert!(close(want.re, value, TOL));
                assert!(
                    close(got[i], want.eps, TOL),
                    "grad {i}: {} vs {}",
                    got[i],
                    want.eps
                );
                let mut t = BodyTangent {
                    at: Point { x: 0.0, y: 0.0 },
                    v: Point { x: 0.0, y: 0.0 },
                    drag: 0.0,
                    steps: ad::NoTangent,
                    tag: ad::NoTangent,
                    name: ad::NoTangent,
                };
                let mut dt = 0.0;
                match i {
                    0 => t.at.x = 1.0,
                    1 => t.at.y = 1.0,
                    2 => t.v.x = 1.0,
                    3 => t.v.y = 1.0,
                    4 => t.drag = 1.0,
                    _ => dt = 1.0,
                }
                let (_, j) = ad::jvp(fly, (body(), w[5]), (t, dt));
                assert!(close(j, want.eps, TOL), "jvp {i}: {j} vs {}", want.eps);
            }
        }
    }
}

/// A struct result built by a literal, and passed on to another function.
#[differentiable]
fn midpoint(a: Point, b: Point) -> Point {
    Point {
        x: 0.5 * (a.x + b.x),
        y: 0.5 * (a.y + b.y),
    }
}

#[differentiable]
fn bent(x: f64, y: f64) -> f64 {
    let p = Point { x, y: x * y };
    let q = midpoint(p, Point { x: y.sin(), ..p });
    q.x * q.y + p.y
}

fn bent_d(x: D, y: D) -> D {
    let (px, py) = (x, x * y);
    let (qx, qy) = ((px + y.sin()) * 0.5, (py + py) * 0.5);
    qx * qy + py
}

#[test]
fn struct_results_and_literals() {
    for x in grid(-1.5, 1.5, 7) {
        for y in grid(-1.0, 2.0, 7) {
            seen2!(bent, bent_d, x, y).check(&format!("bent({x}, {y})"));
        }
    }
    // The pullback of a struct result takes the result's tangent.
    let (m, pullback) = ad::vjp(
        midpoint,
        (Point { x: 1.0, y: 2.0 }, Point { x: 3.0, y: -1.0 }),
    );
    assert_eq!(m, Point { x: 2.0, y: 0.5 });
    let (ga, gb) = pullback(Point { x: 1.0, y: 4.0 });
    assert_eq!(
        (ga, gb),
        (Point { x: 0.5, y: 2.0 }, Point { x: 0.5, y: 2.0 })
    );
    let (_, t) = ad::jvp(
        midpoint,
        (Point { x: 1.0, y: 2.0 }, Point { x: 3.0, y: -1.0 }),
        (Point { x: 1.0, y: 0.0 }, Point { x: 0.0, y: 2.0 }),
    );
    assert_eq!(t, Point { x: 0.5, y: 1.0 });
}

/// A tuple struct and a layer whose weights are a `Vec`, taken out by `let` (the struct is read
/// after the move, through its other fields).
#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct Pair(f64, f64);

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
    n: usize,
}

#[differentiable]
fn neuron(l: Layer, p: Pair) -> f64 {
    let w = l.w;
    let mut s = l.b + p.1;
    for i in 0..l.n {
        s += w[i] * p.0;
    }
    s.tanh()
}

fn neuron_d(w: &[D], b: D, p0: D, p1: D) -> D {
    let mut s = b + p1;
    for wi in w {
        s += *wi * p0;
    }
    s.tanh()
}

#[test]
fn a_tuple_struct_and_a_vec_field() {
    let w = [0.5, -0.25, 0.75];
    let layer = || Layer {
        w: w.to_vec(),
        b: 0.1,
        n: 3,
    };
    for p0 in grid(-1.0, 1.0, 5) {
        let p = Pair(p0, 0.3);
        let value = neuron(layer(), p);
        let (g, gp) = ad::grad(neuron, (layer(), p));
        for k in 0..5 {
            let seed = |i: usize| if i == k { 1.0 } else { 0.0 };
            let wd: Vec<D> = (0..3).map(|i| D::new(w[i], seed(i))).collect();
            let want = neuron_d(
                &wd,
                D::new(0.1, seed(3)),
                D::new(p0, seed(4)),
                D::new(0.3, 0.0),
            );
            assert!(close(want.re, value, TOL));
            let got = [g.w[0], g.w[1], g.w[2], g.b, gp.0][k];
            assert!(close(got, want.eps, TOL), "{k}: {got} vs {}", want.eps);
        }
        let want_p1 = neuron_d(
            &w.map(|x| D::new(x, 0.0)),
            D::new(0.1, 0.0),
            D::new(p0, 0.0),
            D::new(0.3, 1.0),
        );
        assert!(close(gp.1, want_p1.eps, TOL));
        assert_eq!(g.n, ad::NoTangent);
    }
}

/// A generic struct, its own tangent at `f32` and `f64`, in a generic function.
#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct Affine<T> {
    scale: T,
    shift: [T; 2],
}

#[differentiable]
fn apply<T: num_traits::Float>(a: Affine<T>, x: T) -> T {
    let shift = a.shift;
    (a.scale * x + shift[0]) * (shift[1] - x)
}

#[test]
fn a_generic_struct_at_f32_and_f64() {
    for x in grid(-1.0, 1.0, 5) {
        let a = Affine {
            scale: 1.5,
            shift: [0.25, 2.0],
        };
        let (g, gx) = ad::grad(apply::<f64>, (a, x));
        let want = |i: usize| {
            let s = |j: usize| if i == j { 1.0 } else { 0.0 };
            let (sc, s0, s1, xd) = (
                D::new(1.5, s(0)),
                D::new(0.25, s(1)),
                D::new(2.0, s(2)),
                D::new(x, s(3)),
            );
            ((sc * xd + s0) * (s1 - xd)).eps
        };
        let got = [g.scale, g.shift[0], g.shift[1], gx];
        for i in 0..4 {
            assert!(
                close(got[i], want(i), TOL),
                "{i}: {} vs {}",
                got[i],
                want(i)
            );
        }
        let a32 = Affine {
            scale: 1.5_f32,
            shift: [0.25, 2.0],
        };
        let (g32, gx32) = ad::grad(apply::<f32>, (a32, x as f32));
        let got32 = [g32.scale, g32.shift[0], g32.shift[1], gx32];
        // f32: a handful of operations on values below 10 (see `f32_break_and_continue` in
        // `test_break_continue.rs` for the bound).
        for i in 0..4 {
            let want = {
                let xf = f64::from(x as f32);
                let s = |j: usize| if i == j { 1.0 } else { 0.0 };
                let (sc, s0, s1, xd) = (
                    D::new(1.5, s(0)),
                    D::new(0.25, s(1)),
                    D::new(2.0, s(2)),
                    D::new(xf, s(3)),
                );
                ((sc * xd + s0) * (s1 - xd)).eps
            };
            assert!(
                close(f64::from(got32[i]), want, 1e-5),
                "f32 {i}: {} vs {want}",
                got32[i]
            );
        }
    }
}

/// The tangent of a struct is a vector space the reverse sweep adds in (`Accumulate`), shapes
/// are checked, and `Linear` sees its coordinates.
#[test]
fn tangents_of_structs_add_and_have_coordinates() {
    use ad::{Accumulate, Differentiable, Linear};
    let l = Layer {
        w: vec![1.0, 2.0],
        b: 3.0,
        n: 2,
    };
    let z = l.zero_tangent();
    assert_eq!(
        z,
        LayerTangent {
            w: vec![0.0, 0.0],
            b: 0.0,
            n: ad::NoTangent
        }
    );
    let mut t = z.clone();
    assert_eq!(t.dim(), 3);
    t.set(1, 5.0);
    t.set(2, 7.0);
    assert_eq!(
        t,
        LayerTangent {
            w: vec![0.0, 5.0],
            b: 7.0,
            n: ad::NoTangent
        }
    );
    let sum = t.clone().accumulate(LayerTangent {
        w: vec![1.0, 1.0],
        b: 1.0,
        n: ad::NoTangent,
    });
    assert_eq!(
        sum,
        LayerTangent {
            w: vec![1.0, 6.0],
            b: 8.0,
            n: ad::NoTangent
        }
    );
    assert_eq!(t.dot(&sum), 5.0 * 6.0 + 7.0 * 8.0);
    let short = LayerTangent {
        w: vec![0.0],
        b: 0.0,
        n: ad::NoTangent,
    };
    let err = l.check_tangent(&short).unwrap_err();
    assert_eq!((err.path.as_str(), err.expected, err.found), (".w", 2, 1));
    // A tangent of the wrong shape passed to `jvp` is an `ad::Error`, not a panic.
    let wrong = ad::try_jvp(neuron, (l.clone(), Pair(0.5, 0.5)), (short, Pair(1.0, 0.0)));
    assert!(wrong.is_err(), "{wrong:?}");
}

/// A struct by reference (`&Line`), as a model is passed beside its data: differentiated as the
/// struct, its gradient the struct's tangent.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Line {
    slope: f64,
    intercept: f64,
    name: String,
}

#[differentiable]
fn sse(m: &Line, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let r = m.slope * xs[i] + m.intercept - ys[i];
        s += r * r;
    }
    s
}

fn sse_d(slope: D, intercept: D, xs: &[f64], ys: &[f64]) -> D {
    let mut s = D::from_re(0.0);
    for i in 0..xs.len() {
        let r = slope * xs[i] + intercept - ys[i];
        s += r * r;
    }
    s
}

#[test]
fn a_struct_by_reference() {
    let (xs, ys) = ([0.0, 1.0, 2.0, 3.5], [1.0, 2.5, 2.9, 5.0]);
    for slope in grid(-1.0, 2.0, 4) {
        let m = Line {
            slope,
            intercept: 0.3,
            name: "fit".into(),
        };
        let value = sse(&m, &xs, &ys);
        let (g, _, _) = ad::grad(sse, (&m, &xs[..], &ys[..]));
        let (pv, pullback) = ad::vjp(sse, (&m, &xs[..], &ys[..]));
        let (p, _, _) = pullback(1.0);
        assert_eq!(pv.to_bits(), value.to_bits());
        assert_eq!(g, p);
        let want = [
            sse_d(D::new(slope, 1.0), D::new(0.3, 0.0), &xs, &ys),
            sse_d(D::new(slope, 0.0), D::new(0.3, 1.0), &xs, &ys),
        ];
        assert!(close(want[0].re, value, TOL));
        assert!(close(g.slope, want[0].eps, TOL) && close(g.intercept, want[1].eps, TOL));
        let zero = [0.0; 4];
        let t = LineTangent {
            slope: 1.0,
            intercept: 0.0,
            name: ad::NoTangent,
        };
        let (_, j) = ad::jvp(sse, (&m, &xs[..], &ys[..]), (t, &zero[..], &zero[..]));
        assert!(close(j, want[0].eps, TOL));
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Coil {
    k: f64,
    rest: f64,
    w: Vec<f64>,
    turns: usize,
}

/// A struct taken apart by a pattern, from a reference (the pattern binds references to the
/// fields in the user's code, copies in the derivative) and from a value.
#[differentiable]
fn coil_by_ref(c: &Coil, x: f64) -> f64 {
    let Coil { k, rest: r, w, .. } = c;
    (k * x).sin() * r + w[1] * x * x
}

#[differentiable]
fn coil_by_value(c: Coil, x: f64) -> f64 {
    let Coil { k, w, turns, .. } = c;
    k * x.exp() + w[0] * (turns as f64)
}

/// The coil's floats `k rest w0 w1` and `x`, over dual numbers.
fn coil_d(v: &[D], by_ref: bool) -> D {
    let (k, r, w0, w1, x) = (v[0], v[1], v[2], v[3], v[4]);
    if by_ref {
        (k * x).sin() * r + w1 * x * x
    } else {
        k * x.exp() + w0 * 3.0
    }
}

#[test]
fn struct_patterns_take_a_struct_apart() {
    for x in grid(-1.0, 1.0, 5) {
        let c = Coil {
            k: 1.3,
            rest: 0.6,
            w: vec![0.4, -0.9],
            turns: 3,
        };
        let v = [c.k, c.rest, c.w[0], c.w[1], x];
        let (gr, gxr) = ad::grad(coil_by_ref, (&c, x));
        let (gv, gxv) = ad::grad(coil_by_value, (c.clone(), x));
        let grads = [
            [gr.k, gr.rest, gr.w[0], gr.w[1], gxr],
            [gv.k, gv.rest, gv.w[0], gv.w[1], gxv],
        ];
        for (which, grad) in grads.iter().enumerate() {
            for (i, g) in grad.iter().enumerate() {
                let seeded: Vec<D> = v
                    .iter()
                    .enumerate()
                    .map(|(j, &a)| D::new(a, if i == j { 1.0 } else { 0.0 }))
                    .collect();
                let want = coil_d(&seeded, which == 0);
                assert!(
                    close(*g, want.eps, TOL),
                    "pattern {which}: d/d{i} = {g}, oracle {}",
                    want.eps
                );
            }
        }
        let t = CoilTangent {
            k: 1.0,
            rest: 0.0,
            w: vec![0.0, 0.0],
            turns: ad::NoTangent,
        };
        let (_, jv) = ad::jvp(coil_by_ref, (&c, x), (t, 0.0));
        assert!(close(jv, grads[0][0], TOL));
    }
}
