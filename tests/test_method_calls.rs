//! Calls of a struct's methods inside differentiated bodies (`self.kinetic()`, `b.energy(g)`),
//! and structs passed by reference to functions (`weigh(&b, x)`, `weigh(b, x)` of a `&Body`
//! parameter): each is a call through the registry of `<Body>::method`, the receiver passed as
//! the method takes it (`&self` or `self`), in both modes, in loops, against dual numbers
//! (tolerance 1e-12 relative, `tests/dual_check/mod.rs` says why).

#[macro_use]
mod dual_check;

use dual_check::{D, DualNum, TOL, c, close, grid};

/// A body with an inactive field, so its tangent is the companion `BodyTangent`.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Body {
    x: f64,
    v: f64,
    m: f64,
    tag: usize,
    w: Vec<f64>,
}

#[ad::differentiable]
impl Body {
    fn kinetic(&self) -> f64 {
        0.5 * self.m * self.v * self.v
    }

    fn potential(&self, g: f64) -> f64 {
        self.m * g * self.x.sin()
    }

    /// Methods of `self`, one of them with an argument.
    fn energy(&self, g: f64) -> f64 {
        self.kinetic() + self.potential(g)
    }

    /// By value: the caller's receiver is cloned for it in the derivative.
    fn moved(self, dt: f64) -> Body {
        Body {
            x: self.x + self.v * dt,
            ..self
        }
    }

    /// A `Vec` field read through a clone, and an integer field.
    fn spread(&self) -> f64 {
        let w = self.w.clone();
        w[0] * self.x + w[1] * w[1] * (self.tag as f64)
    }
}

#[ad::differentiable]
fn weigh(b: &Body, x: f64) -> f64 {
    b.m * x * x + b.spread()
}

/// A clone of a `&Body` parameter, a method by value on it, a method of the result.
#[ad::differentiable]
fn step(b: &Body, dt: f64, g: f64) -> f64 {
    let c: Body = b.clone();
    let next: Body = c.moved(dt);
    next.energy(g) * b.energy(g)
}

/// A `&Body` parameter passed on, and its methods called, in a loop.
#[ad::differentiable]
fn total(b: &Body, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in xs.iter() {
        s += b.potential(*x) * weigh(b, *x);
    }
    s
}

/// A body made by a struct literal, lent by `&` and its method called.
#[ad::differentiable]
fn made(x: f64, v: f64) -> f64 {
    let b = Body {
        x,
        v,
        m: 2.0,
        tag: 3,
        w: vec![x * v, v],
    };
    b.energy(9.8) * weigh(&b, x) + b.spread()
}

// The oracle: the same arithmetic over dual numbers, on the body's floats `x v m w0 w1`.
const TAG: f64 = 2.0;

fn kinetic_d(b: &[D; 5]) -> D {
    c(0.5) * b[2] * b[1] * b[1]
}

fn potential_d(b: &[D; 5], g: D) -> D {
    b[2] * g * b[0].sin()
}

fn energy_d(b: &[D; 5], g: D) -> D {
    kinetic_d(b) + potential_d(b, g)
}

fn spread_d(b: &[D; 5], tag: f64) -> D {
    b[3] * b[0] + b[4] * b[4] * c(tag)
}

fn weigh_d(b: &[D; 5], x: D, tag: f64) -> D {
    b[2] * x * x + spread_d(b, tag)
}

fn body(v: [f64; 5]) -> Body {
    Body {
        x: v[0],
        v: v[1],
        m: v[2],
        tag: TAG as usize,
        w: vec![v[3], v[4]],
    }
}

fn floats(t: &BodyTangent) -> [f64; 5] {
    [t.x, t.v, t.m, t.w[0], t.w[1]]
}

fn unit(i: usize) -> BodyTangent {
    let e: [f64; 5] = std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 });
    BodyTangent {
        x: e[0],
        v: e[1],
        m: e[2],
        tag: ad::NoTangent,
        w: vec![e[3], e[4]],
    }
}

fn seeded(v: [f64; 5], i: usize) -> [D; 5] {
    std::array::from_fn(|j| D::new(v[j], if i == j { 1.0 } else { 0.0 }))
}

/// The body's derivatives of `f` (jvp along each coordinate, grad, vjp) against the oracle.
fn check_body(
    what: &str,
    f: impl Fn(&Body, Option<BodyTangent>) -> (f64, f64, [f64; 5], [f64; 5]),
    oracle: impl Fn([D; 5]) -> D,
    v: [f64; 5],
) {
    let (value, _, g, p) = f(&body(v), None);
    for i in 0..5 {
        let want = oracle(seeded(v, i));
        assert!(
            close(want.re, value, TOL),
            "{what}: value {value}, oracle {}",
            want.re
        );
        let (_, t, _, _) = f(&body(v), Some(unit(i)));
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
fn methods_called_on_self_and_on_parameters() {
    for x in grid(-1.0, 1.5, 4) {
        let v = [x, 0.7, 1.3, -0.4, 0.9];
        check_body(
            "energy",
            |b, t| {
                let t = t.map_or(0.0, |t| ad::jvp(Body::energy, (b, 9.8), (t, 0.0)).1);
                let (value, (g, _)) = ad::value_and_grad(Body::energy, (b, 9.8));
                let (_, pullback) = ad::vjp(Body::energy, (b, 9.8));
                (value, t, floats(&g), floats(&pullback(1.0).0))
            },
            |b| energy_d(&b, c(9.8)),
            v,
        );
        check_body(
            "weigh",
            |b, t| {
                let t = t.map_or(0.0, |t| ad::jvp(weigh, (b, 0.6), (t, 0.0)).1);
                let (value, (g, _)) = ad::value_and_grad(weigh, (b, 0.6));
                let (_, pullback) = ad::vjp(weigh, (b, 0.6));
                (value, t, floats(&g), floats(&pullback(1.0).0))
            },
            |b| weigh_d(&b, c(0.6), TAG),
            v,
        );
        check_body(
            "step",
            |b, t| {
                let t = t.map_or(0.0, |t| ad::jvp(step, (b, 0.1, 9.8), (t, 0.0, 0.0)).1);
                let (value, (g, _, _)) = ad::value_and_grad(step, (b, 0.1, 9.8));
                let (_, pullback) = ad::vjp(step, (b, 0.1, 9.8));
                (value, t, floats(&g), floats(&pullback(1.0).0))
            },
            |b| {
                let mut next = b;
                next[0] = b[0] + b[1] * c(0.1);
                energy_d(&next, c(9.8)) * energy_d(&b, c(9.8))
            },
            v,
        );
        let xs = [0.3, -1.2, 2.0];
        check_body(
            "total",
            |b, t| {
                let t = t.map_or(0.0, |t| ad::jvp(total, (b, &xs[..]), (t, &[0.0; 3][..])).1);
                let (value, (g, _)) = ad::value_and_grad(total, (b, &xs[..]));
                let (_, pullback) = ad::vjp(total, (b, &xs[..]));
                (value, t, floats(&g), floats(&pullback(1.0).0))
            },
            |b| {
                xs.iter()
                    .map(|&x| potential_d(&b, c(x)) * weigh_d(&b, c(x), TAG))
                    .fold(c(0.0), |s, t| s + t)
            },
            v,
        );
    }
}

#[test]
fn a_struct_made_in_the_body_lent_and_called() {
    for x in grid(-1.0, 1.0, 5) {
        let v = 0.8;
        let oracle = |x: D, v: D| {
            let b = [x, v, c(2.0), x * v, v];
            energy_d(&b, c(9.8)) * weigh_d(&b, x, 3.0) + spread_d(&b, 3.0)
        };
        let value = made(x, v);
        let (gx, gv) = ad::grad(made, (x, v));
        let (_, pullback) = ad::vjp(made, (x, v));
        let (px, pv) = pullback(1.0);
        for (i, (g, p)) in [(gx, px), (gv, pv)].into_iter().enumerate() {
            let want = if i == 0 {
                oracle(D::new(x, 1.0), c(v))
            } else {
                oracle(c(x), D::new(v, 1.0))
            };
            assert!(close(want.re, value, TOL));
            let seed = if i == 0 { (1.0, 0.0) } else { (0.0, 1.0) };
            let (_, t) = ad::jvp(made, (x, v), seed);
            for got in [t, g, p] {
                assert!(
                    close(got, want.eps, TOL),
                    "made d/d{i} = {got}, oracle {}",
                    want.eps
                );
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct Gauge {
    v: f64,
}

#[ad::differentiable]
impl Gauge {
    fn read(&self) -> f64 {
        self.v * self.v
    }
}

/// A method called in a body, whose rule (below, by the method's path) serves the call.
#[ad::differentiable]
fn twice_read(g: &Gauge, x: f64) -> f64 {
    2.0 * g.read() * x
}

#[ad::custom_rule(forward, of = Gauge::read)]
fn read_jvp(g: &Gauge, dg: Gauge) -> (f64, f64) {
    (g.v * g.v, 100.0 * dg.v)
}

#[test]
fn a_rule_for_a_method_serves_its_calls_in_bodies() {
    let g = Gauge { v: 2.0 };
    // The rule's derivative of `read` is 100, not 2 v = 4.
    let (v, t) = ad::jvp(twice_read, (&g, 3.0), (Gauge { v: 1.0 }, 0.0));
    assert_eq!((v, t), (24.0, 600.0));
    let (gg, gx) = ad::grad(twice_read, (&g, 3.0));
    assert_eq!((gg, gx), (Gauge { v: 600.0 }, 8.0));
}
