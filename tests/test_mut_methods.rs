//! Methods that take `&mut self`: the receiver is an output written in place, in the
//! Duplicated convention of a `&mut [T]` of one element. In forward mode its tangent is a
//! `&mut` tangent the derivative updates; in reverse mode `grad` returns the adjoint of the
//! value before the call (the result's derivative with respect to the state it started
//! from), and `vjp_into` takes the adjoint of the state after the call and leaves in its place
//! the adjoint of the state before. A rule for such a method is honoured like any other. The
//! oracle is the same step written over dual numbers (tolerance 1e-12 relative,
//! `tests/dual_check/mod.rs` says why).

// Index loops over the inputs, and `(*self).x`, are the spellings under test.
#![allow(clippy::needless_range_loop, clippy::explicit_auto_deref)]

#[macro_use]
mod dual_check;

use dual_check::{D, DualNum, TOL, close, grid};

/// A damped oscillator's state, with a counter that has no derivative.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Oscillator {
    x: f64,
    v: f64,
    k: f64,
    steps: usize,
}

#[ad::differentiable]
impl Oscillator {
    /// One symplectic Euler step; returns the energy after it, or the speed alone once the
    /// spring is slack (an early `return`).
    fn step(&mut self, dt: f64) -> f64 {
        self.v -= dt * self.k * self.x;
        self.x += dt * self.v;
        self.steps += 1;
        if self.k < 0.0 {
            return self.v * self.v;
        }
        0.5 * (self.v * self.v + self.k * self.x * self.x)
    }

    /// Friction: scales the speed, returns nothing.
    fn damp(&mut self, c: f64) {
        self.v *= c.exp();
    }
}

/// The oracle: `step` over dual numbers, state `[x, v, k]`.
fn step_d(s: [D; 3], dt: D) -> ([D; 3], D) {
    let [x, v, k] = s;
    let v = v - dt * k * x;
    let x = x + dt * v;
    let e = if k.re < 0.0 {
        v * v
    } else {
        (v * v + k * x * x) * 0.5
    };
    ([x, v, k], e)
}

fn state(s: [f64; 3]) -> Oscillator {
    Oscillator {
        x: s[0],
        v: s[1],
        k: s[2],
        steps: 7,
    }
}

fn tangent(t: [f64; 3]) -> OscillatorTangent {
    OscillatorTangent {
        x: t[0],
        v: t[1],
        k: t[2],
        steps: ad::NoTangent,
    }
}

fn floats(t: &OscillatorTangent) -> [f64; 3] {
    [t.x, t.v, t.k]
}

/// Unit vector `i` of the four inputs `x v k dt`.
fn seed(i: usize) -> [f64; 4] {
    std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 })
}

#[test]
fn a_mut_self_method_in_both_modes() {
    for x in grid(-1.0, 1.0, 4) {
        for k in [-0.5, 0.7, 2.0] {
            let s0 = [x, 0.3, k];
            let dt = 0.1;
            let mut after = state(s0);
            let e = after.step(dt);
            assert_eq!(after.steps, 8);
            let (grad_s, grad_dt) = {
                let mut o = state(s0);
                let (g, (gs, gdt)) = ad::value_and_grad(Oscillator::step, (&mut o, dt));
                assert_eq!(g.to_bits(), e.to_bits());
                // The forward sweep wrote the state as the method does.
                assert_eq!(o, after);
                (floats(&gs), gdt)
            };
            // The adjoint of the state after the step, seeded with weights w, and of the
            // result with 2: the pullback gives the adjoint of the state before.
            let w = [0.5, -1.5, 0.25];
            let mut o = state(s0);
            let mut bar = tangent(w);
            let (ve, (_, dt_bar)) =
                ad::vjp_into(Oscillator::step, (&mut o, dt), (&mut bar, ()), 2.0);
            assert_eq!((ve.to_bits(), &o), (e.to_bits(), &after));
            let into_s = floats(&bar);
            for i in 0..4 {
                let u = seed(i);
                let sd: [D; 3] = std::array::from_fn(|j| D::new(s0[j], u[j]));
                let (sd, ed) = step_d(sd, D::new(dt, u[3]));
                assert!(close(ed.re, e, TOL));
                let mut o = state(s0);
                let mut ds = tangent([u[0], u[1], u[2]]);
                let (v, de) = ad::jvp(Oscillator::step, (&mut o, dt), (&mut ds, u[3]));
                assert_eq!((v.to_bits(), &o), (e.to_bits(), &after));
                assert!(
                    close(de, ed.eps, TOL),
                    "jvp d/d{i} = {de}, oracle {}",
                    ed.eps
                );
                let ds = floats(&ds);
                for j in 0..3 {
                    assert!(close(ds[j], sd[j].eps, TOL), "jvp state {j} along {i}");
                }
                let g = if i < 3 { grad_s[i] } else { grad_dt };
                assert!(
                    close(g, ed.eps, TOL),
                    "grad d/d{i} = {g}, oracle {}",
                    ed.eps
                );
                // vjp_into: sum_j w_j d(after_j)/d(in_i) + 2 de/d(in_i).
                let want = (0..3).map(|j| w[j] * sd[j].eps).sum::<f64>() + 2.0 * ed.eps;
                let got = if i < 3 { into_s[i] } else { dt_bar };
                assert!(
                    close(got, want, TOL),
                    "vjp_into d/d{i} = {got}, want {want}"
                );
            }
        }
    }
}

#[test]
fn a_mut_self_method_that_returns_nothing() {
    for c in grid(-0.5, 0.5, 3) {
        let mut o = state([1.0, 2.0, 3.0]);
        let mut ds = tangent([0.0, 1.0, 0.0]);
        ad::jvp(Oscillator::damp, (&mut o, c), (&mut ds, 1.0));
        // v' = v e^c: dv' = e^c dv + v e^c dc.
        assert!(close(o.v, 2.0 * c.exp(), TOL));
        assert!(close(ds.v, c.exp() + 2.0 * c.exp(), TOL));
        assert_eq!((ds.x, ds.k), (0.0, 0.0));
        let mut o = state([1.0, 2.0, 3.0]);
        let mut bar = tangent([1.0, 1.0, 1.0]);
        let (_, (_, c_bar)) =
            ad::vjp_into(Oscillator::damp, (&mut o, c), (&mut bar, ()), ad::NoTangent);
        assert_eq!(floats(&bar), [1.0, c.exp(), 1.0]);
        assert!(close(c_bar, 2.0 * c.exp(), TOL));
    }
}

/// A friction model with rules of its own: a forward rule below the code that uses it, and
/// another registered at run time and dropped again.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Wheel {
    spin: f64,
}

#[ad::differentiable]
impl Wheel {
    fn brake(&mut self, c: f64) -> f64 {
        self.spin *= c;
        self.spin
    }
}

#[test]
fn rules_for_a_mut_self_method_are_honoured() {
    let mut w = Wheel { spin: 3.0 };
    // All of `Wheel`'s fields have derivatives: it is its own tangent.
    let mut dw = Wheel { spin: 1.0 };
    // The rule below says the tangent of the spin after is 10 times its tangent before,
    // whatever `c` is.
    let (v, t) = ad::jvp(Wheel::brake, (&mut w, 2.0), (&mut dw, 1.0));
    assert_eq!((v, w.spin, t, dw.spin), (6.0, 6.0, 10.0, 10.0));

    // With a forward rule and no reverse one, reverse mode has no derivative (a rule of a
    // function with an output slice is not converted), and says which rule to write.
    let err = ad::try_value_and_grad(Wheel::brake, (&mut Wheel { spin: 3.0 }, 2.0)).unwrap_err();
    assert!(err.to_string().contains("of = Wheel::brake"), "{err}");
    // A forward rule registered at run time overrides the one below while its guard lives.
    let guard = ad::rules::register_forward(
        Wheel::brake,
        |w: &mut [Wheel], dw: &mut [Wheel], c: f64, dc: f64| {
            let before = w[0].spin;
            w[0].spin *= c;
            dw[0].spin = dw[0].spin * c + before * dc;
            (w[0].spin, dw[0].spin)
        },
    );
    let mut w = Wheel { spin: 3.0 };
    let mut dw = Wheel { spin: 1.0 };
    let (v, t) = ad::jvp(Wheel::brake, (&mut w, 2.0), (&mut dw, 0.5));
    assert_eq!((v, w.spin, t, dw.spin), (6.0, 6.0, 3.5, 3.5));
    drop(guard);
    let mut w = Wheel { spin: 3.0 };
    let mut dw = Wheel { spin: 1.0 };
    let (_, t) = ad::jvp(Wheel::brake, (&mut w, 2.0), (&mut dw, 0.5));
    assert_eq!(t, 10.0);
}

#[ad::custom_rule(forward, of = Wheel::brake)]
fn brake_jvp(w: &mut [Wheel], dw: &mut [Wheel], c: f64, _dc: f64) -> (f64, f64) {
    w[0].spin *= c;
    dw[0].spin *= 10.0;
    (w[0].spin, dw[0].spin)
}

/// A generic struct's `&mut self` method, at `f64` and `f32`.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Average<T> {
    mean: T,
    weight: T,
}

#[ad::differentiable]
impl<T: num_traits::Float> Average<T> {
    /// Folds `x` into the running mean; returns the change of the mean.
    fn update(&mut self, x: T) -> T {
        let before = self.mean;
        self.mean = self.mean + self.weight * (x - self.mean);
        self.mean - before
    }
}

#[test]
fn a_generic_mut_self_method_at_f64_and_f32() {
    for x in grid(-1.0, 1.0, 3) {
        // mean' = m + w (x - m): d mean'/dm = 1 - w, /dw = x - m, /dx = w.
        let (m, w) = (0.5, 0.25);
        let mut a = Average { mean: m, weight: w };
        let mut bar = Average {
            mean: 1.0,
            weight: 0.0,
        };
        let (_, (_, gx)) = ad::vjp_into(Average::<f64>::update, (&mut a, x), (&mut bar, ()), 0.0);
        assert!(close(bar.mean, 1.0 - w, TOL) && close(bar.weight, x - m, TOL));
        assert!(close(gx, w, TOL));
        let mut a32 = Average {
            mean: m as f32,
            weight: w as f32,
        };
        let (g32, gx32) = ad::grad(Average::<f32>::update, (&mut a32, x as f32));
        // The change of the mean: d/dm = -w, d/dw = x - m, d/dx = w; to f32 precision (a few
        // correctly rounded operations on O(1) values: within 1e-6).
        assert!(close(f64::from(g32.mean), -w, 1e-6));
        assert!(close(f64::from(g32.weight), x - m, 1e-6));
        assert!(close(f64::from(gx32), w, 1e-6));
    }
}

/// `&mut self` methods called inside a body by path with the local lent mutably
/// (`Oscillator::step(&mut o, dt)`): the local is an output written in place, as a `&mut [T]`
/// local lent to a function that writes it is.
#[ad::differentiable]
fn simulate(x: f64, v: f64, k: f64, dt: f64) -> f64 {
    let mut o = Oscillator { x, v, k, steps: 0 };
    let mut e = 0.0;
    for _ in 0..3 {
        e += Oscillator::step(&mut o, dt);
        Oscillator::damp(&mut o, -0.1 * dt);
    }
    e + o.x * o.v
}

fn simulate_d(s: [D; 3], dt: D) -> D {
    let mut s = s;
    let mut e = D::from(0.0);
    for _ in 0..3 {
        let (after, ei) = step_d(s, dt);
        e += ei;
        s = after;
        s[1] *= (dt * -0.1).exp();
    }
    e + s[0] * s[1]
}

#[test]
fn mut_self_methods_called_by_path_inside_a_body() {
    for x in grid(-1.0, 1.0, 3) {
        for k in [-0.5, 0.7] {
            let args = (x, 0.3, k, 0.1);
            let inputs = [x, 0.3, k, 0.1];
            let (value, g) = ad::value_and_grad(simulate, args);
            let g = [g.0, g.1, g.2, g.3];
            for i in 0..4 {
                let u = seed(i);
                let s: [D; 3] = std::array::from_fn(|j| D::new(inputs[j], u[j]));
                let want = simulate_d(s, D::new(inputs[3], u[3]));
                assert!(close(value, want.re, TOL));
                let (_, t) = ad::jvp(simulate, args, (u[0], u[1], u[2], u[3]));
                assert!(
                    close(t, want.eps, TOL),
                    "jvp d/d{i} = {t}, oracle {}",
                    want.eps
                );
                assert!(
                    close(g[i], want.eps, TOL),
                    "grad d/d{i} = {}, oracle {}",
                    g[i],
                    want.eps
                );
            }
            let (_, pullback) = ad::vjp(simulate, args);
            let p = pullback(1.0);
            assert_eq!([p.0, p.1, p.2, p.3], g);
        }
    }
}

#[ad::differentiable]
impl Oscillator {
    /// Two steps with friction between, each a call of another `&mut self` method by path:
    /// `self` passed on as it is, and `&mut *self`; `(*self).x` written.
    fn two_steps(&mut self, dt: f64) -> f64 {
        let e = Oscillator::step(self, dt);
        Oscillator::damp(&mut *self, -0.1 * dt);
        (*self).x *= 1.0 + dt;
        e + Oscillator::step(self, dt)
    }
}

fn two_steps_d(s: [D; 3], dt: D) -> ([D; 3], D) {
    let (mut s, e1) = step_d(s, dt);
    s[1] *= (dt * -0.1).exp();
    s[0] *= dt + 1.0;
    let (s, e2) = step_d(s, dt);
    (s, e1 + e2)
}

#[test]
fn a_mut_self_method_calling_others_by_path() {
    for x in grid(-1.0, 1.0, 3) {
        let s0 = [x, 0.3, 0.7];
        let dt = 0.1;
        let mut o = state(s0);
        let (_, (gs, gdt)) = ad::value_and_grad(Oscillator::two_steps, (&mut o, dt));
        let g = floats(&gs);
        for i in 0..4 {
            let u = seed(i);
            let sd: [D; 3] = std::array::from_fn(|j| D::new(s0[j], u[j]));
            let (after, want) = two_steps_d(sd, D::new(dt, u[3]));
            let mut o = state(s0);
            let mut ds = tangent([u[0], u[1], u[2]]);
            let (_, de) = ad::jvp(Oscillator::two_steps, (&mut o, dt), (&mut ds, u[3]));
            assert!(
                close(de, want.eps, TOL),
                "jvp d/d{i} = {de}, oracle {}",
                want.eps
            );
            let ds = floats(&ds);
            for j in 0..3 {
                assert!(close(ds[j], after[j].eps, TOL), "jvp state {j} along {i}");
            }
            let got = if i < 3 { g[i] } else { gdt };
            assert!(
                close(got, want.eps, TOL),
                "grad d/d{i} = {got}, oracle {}",
                want.eps
            );
        }
    }
}
