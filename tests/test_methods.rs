//! Methods of structs with `#[derive(ad::Differentiable)]`: `#[differentiable]` on an `impl`
//! block (inherent and of a trait) differentiates every method in it (`&self`, `self`, and
//! associated functions), registered under the method's path, so that the entry points take
//! the method itself (`ad::grad(Spring::length, (&s,))`) and a `#[custom_rule]` can be given
//! for it (`of = Gauge::read`); in both modes and through `ad::vjp`, against dual numbers
//! (tolerance 1e-12 relative, `tests/dual_check/mod.rs` says why).

#[macro_use]
mod dual_check;

use dual_check::{D, DualNum, TOL, close, grid};

#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Spring {
    a: Point,
    b: Point,
    k: f64,
    id: usize,
}

trait Energy {
    fn energy(&self) -> f64;
}

#[ad::differentiable]
impl Spring {
    fn length(&self) -> f64 {
        let dx = self.a.x - self.b.x;
        let dy = self.a.y - self.b.y;
        (dx * dx + dy * dy).sqrt()
    }

    fn stiffened(self, by: f64) -> Self {
        Spring {
            k: self.k * by,
            ..self
        }
    }

    fn hanging(x: f64, k: f64) -> Self {
        Spring {
            a: Point { x, y: 0.0 },
            b: Point { x: 0.0, y: -1.0 },
            k: k * x,
            id: 0,
        }
    }
}

#[ad::differentiable]
impl Energy for Spring {
    fn energy(&self) -> f64 {
        let dx = self.a.x - self.b.x;
        let dy = self.a.y - self.b.y;
        0.5 * self.k * (dx * dx + dy * dy).sqrt().powi(2)
    }
}

/// The spring's floats in order `a.x a.y b.x b.y k`.
fn spring_of(v: [f64; 5]) -> Spring {
    Spring {
        a: Point { x: v[0], y: v[1] },
        b: Point { x: v[2], y: v[3] },
        k: v[4],
        id: 3,
    }
}

fn floats(t: &SpringTangent) -> [f64; 5] {
    [t.a.x, t.a.y, t.b.x, t.b.y, t.k]
}

fn unit(i: usize) -> SpringTangent {
    let e: [f64; 5] = std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 });
    SpringTangent {
        a: Point { x: e[0], y: e[1] },
        b: Point { x: e[2], y: e[3] },
        k: e[4],
        id: ad::NoTangent,
    }
}

fn seeded(v: [f64; 5], i: usize) -> [D; 5] {
    std::array::from_fn(|j| D::new(v[j], if i == j { 1.0 } else { 0.0 }))
}

fn length_d([ax, ay, bx, by, _]: [D; 5]) -> D {
    let (dx, dy) = (ax - bx, ay - by);
    (dx * dx + dy * dy).sqrt()
}

fn energy_d(v: [D; 5]) -> D {
    let k = v[4];
    k * 0.5 * length_d(v).powi(2)
}

/// Every derivative of a `&self` method against its oracle.
fn check(what: &str, f: fn(&Spring) -> f64, oracle: fn([D; 5]) -> D, v: [f64; 5]) {
    let s = spring_of(v);
    let value = f(&s);
    let (gv, (g,)) = ad::value_and_grad(f, (&s,));
    let (pv, pullback) = ad::vjp(f, (&s,));
    let (p,) = pullback(1.0);
    assert_eq!(
        (gv.to_bits(), pv.to_bits()),
        (value.to_bits(), value.to_bits())
    );
    let (g, p) = (floats(&g), floats(&p));
    for i in 0..5 {
        let want = oracle(seeded(v, i));
        assert!(close(want.re, value, TOL), "{what}: oracle value");
        let (_, t) = ad::jvp(f, (&s,), (unit(i),));
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
fn methods_of_an_inherent_and_a_trait_impl() {
    for ax in grid(-1.0, 1.5, 5) {
        for k in grid(0.5, 2.0, 3) {
            let v = [ax, 0.4, -0.7, 1.1, k];
            check("length", Spring::length, length_d, v);
            check("energy", <Spring as Energy>::energy, energy_d, v);
        }
    }
}

#[test]
fn a_method_by_value_and_an_associated_function() {
    let s = spring_of([1.0, 2.0, 0.0, 0.5, 3.0]);
    // stiffened: k' = k * by.
    let (v, t) = ad::jvp(Spring::stiffened, (s.clone(), 2.0), (unit(4), 0.0));
    assert_eq!(v.k, 6.0);
    assert_eq!(floats(&t), [0.0, 0.0, 0.0, 0.0, 2.0]);
    let (_, pullback) = ad::vjp(Spring::stiffened, (s.clone(), 2.0));
    let (gs, gby) = pullback(unit(4));
    assert_eq!((floats(&gs), gby), ([0.0, 0.0, 0.0, 0.0, 2.0], 3.0));
    // hanging: a.x = x, k' = k x.
    for x in grid(-1.0, 1.0, 5) {
        let (_, pullback) = ad::vjp(Spring::hanging, (x, 1.5));
        let mut bar = unit(0);
        bar.k = 1.0;
        let (gx, gk) = pullback(bar);
        assert!(close(gx, 1.0 + 1.5, TOL) && close(gk, x, TOL));
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

/// A rule for a method, below the method, by its path.
#[ad::custom_rule(forward, of = Gauge::read)]
fn read_jvp(g: &Gauge, dg: Gauge) -> (f64, f64) {
    (g.v * g.v, 100.0 * dg.v)
}

#[test]
fn a_rule_for_a_method_is_honoured() {
    let (v, t) = ad::jvp(Gauge::read, (&Gauge { v: 2.0 },), (Gauge { v: 1.0 },));
    assert_eq!((v, t), (4.0, 100.0));
    // Reverse mode converts the forward rule.
    let (g,) = ad::grad(Gauge::read, (&Gauge { v: 2.0 },));
    assert_eq!(g, Gauge { v: 100.0 });
}

/// A generic struct with a generic `impl` block: its methods are differentiated at `f64` and
/// `f32`, and call each other (`self.eval(x)`) at the same type.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Poly<T> {
    a: T,
    b: T,
    w: Vec<T>,
}

#[ad::differentiable]
impl<T: num_traits::Float> Poly<T> {
    fn eval(&self, x: T) -> T {
        let mut s = self.a * x.sin() + self.b;
        for i in 0..self.w.len() {
            s = s + self.w[i] * x.powi(i as i32);
        }
        s
    }

    fn twice(&self, x: T) -> T {
        self.eval(x) * self.eval(x + T::one())
    }
}

fn poly_eval_d(p: &[D], x: D) -> D {
    let mut s = p[0] * x.sin() + p[1];
    for (i, w) in p[2..].iter().enumerate() {
        s += *w * x.powi(i as i32);
    }
    s
}

#[test]
fn methods_of_a_generic_impl_block_at_f64_and_f32() {
    let v = [1.3, -0.4, 0.5, 0.25, -0.1];
    let p = Poly {
        a: v[0],
        b: v[1],
        w: v[2..].to_vec(),
    };
    for x in grid(-1.0, 1.0, 5) {
        let value = p.twice(x);
        let (gp, gx) = ad::grad(Poly::<f64>::twice, (&p, x));
        let grad = [gp.a, gp.b, gp.w[0], gp.w[1], gp.w[2], gx];
        for (i, g) in grad.into_iter().enumerate() {
            let seed = |j: usize| if i == j { 1.0 } else { 0.0 };
            let pd: Vec<D> = v
                .iter()
                .enumerate()
                .map(|(j, &c)| D::new(c, seed(j)))
                .collect();
            let xd = D::new(x, seed(5));
            let want = poly_eval_d(&pd, xd) * poly_eval_d(&pd, xd + 1.0);
            assert!(close(want.re, value, TOL));
            let t = Poly {
                a: seed(0),
                b: seed(1),
                w: vec![seed(2), seed(3), seed(4)],
            };
            let (_, jv) = ad::jvp(Poly::<f64>::twice, (&p, x), (t, seed(5)));
            for (how, got) in [("jvp", jv), ("grad", g)] {
                assert!(
                    close(got, want.eps, TOL),
                    "{how} d/d{i} = {got}, oracle {}",
                    want.eps
                );
            }
        }
        // At f32, against the f64 derivative to f32's precision.
        let p32 = Poly {
            a: v[0] as f32,
            b: v[1] as f32,
            w: v[2..].iter().map(|&w| w as f32).collect(),
        };
        let (_, gx32) = ad::grad(Poly::<f32>::twice, (&p32, x as f32));
        assert!(close(f64::from(gx32), gx, 1e-4), "f32: {gx32}, f64: {gx}");
    }
}
