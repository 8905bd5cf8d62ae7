//! Functions generic over a user's trait (`fn total<E: Energy>(items: &[E])`): each
//! instantiation registers its derivatives at its first call, calls `<E as Energy>::energy`
//! through the registry like any call, and takes rules like any function, in any order, at
//! run time too. Checked against the same functions written over dual numbers (tolerance 1e-12
//! relative, `tests/dual_check/mod.rs` says why).

#[macro_use]
mod dual_check;

use dual_check::{D, DualNum, TOL, c, close};
use std::sync::{Mutex, MutexGuard};

/// Held by every test that differentiates through `Spring`'s energy, which one test gives a
/// run-time rule for a while.
fn registry_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

trait Energy {
    fn energy(&self) -> f64;
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Spring {
    k: f64,
    rest: f64,
    from: f64,
    to: f64,
}

#[ad::differentiable]
impl Energy for Spring {
    fn energy(&self) -> f64 {
        let stretch = self.to - self.from - self.rest;
        0.5 * self.k * stretch * stretch
    }
}

/// A pendulum's bob, its potential energy, and a count that carries no derivative.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Pendulum {
    mass: f64,
    angle: f64,
    length: f64,
    #[ad(skip)]
    swings: u32,
}

#[ad::differentiable]
impl Energy for Pendulum {
    fn energy(&self) -> f64 {
        self.mass * 9.81 * self.length * (1.0 - self.angle.cos())
    }
}

#[ad::differentiable]
fn total<E: Energy>(items: &[E]) -> f64 {
    let mut e = 0.0;
    for item in items.iter() {
        e += item.energy();
    }
    e
}

/// A generic function by reference and by value, calling another generic one.
#[ad::differentiable]
fn scaled<E: Energy>(item: &E, by: f64) -> f64 {
    by * item.energy()
}

#[ad::differentiable]
fn mean<E: Energy + Clone>(items: &[E], first: E) -> f64 {
    (total(items) + first.energy()) / (items.len() as f64 + 1.0)
}

fn spring_d(s: [D; 4]) -> D {
    let stretch = s[3] - s[2] - s[1];
    c(0.5) * s[0] * stretch * stretch
}

fn springs() -> Vec<Spring> {
    vec![
        Spring {
            k: 2.0,
            rest: 1.0,
            from: 0.0,
            to: 1.4,
        },
        Spring {
            k: 3.5,
            rest: 0.5,
            from: 1.4,
            to: 2.3,
        },
        Spring {
            k: 1.25,
            rest: 0.75,
            from: 2.3,
            to: 2.9,
        },
    ]
}

fn fields(s: &Spring) -> [f64; 4] {
    [s.k, s.rest, s.from, s.to]
}

/// The derivative of the total along field `f` of spring `i`, by dual numbers.
fn total_d(springs: &[Spring], i: usize, f: usize) -> D {
    springs
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let v = fields(s);
            spring_d(std::array::from_fn(|g| {
                D::new(v[g], if (j, g) == (i, f) { 1.0 } else { 0.0 })
            }))
        })
        .fold(c(0.0), |a, b| a + b)
}

#[test]
fn a_sum_generic_over_a_trait_in_both_modes() {
    let _lock = registry_lock();
    let s = springs();
    let (value, (grad,)) = ad::value_and_grad(total::<Spring>, (&s[..],));
    let (_, pullback) = ad::vjp(total::<Spring>, (&s[..],));
    let (pulled,) = pullback(1.0);
    for i in 0..s.len() {
        for f in 0..4 {
            let want = total_d(&s, i, f);
            assert!(close(value, want.re, TOL));
            let mut dir: Vec<Spring> = s
                .iter()
                .map(|_| Spring {
                    k: 0.0,
                    rest: 0.0,
                    from: 0.0,
                    to: 0.0,
                })
                .collect();
            let mut unit = [0.0; 4];
            unit[f] = 1.0;
            dir[i] = Spring {
                k: unit[0],
                rest: unit[1],
                from: unit[2],
                to: unit[3],
            };
            let (_, t) = ad::jvp(total::<Spring>, (&s[..],), (&dir[..],));
            let g = fields(&grad[i])[f];
            let p = fields(&pulled[i])[f];
            for (how, got) in [("jvp", t), ("grad", g), ("vjp", p)] {
                assert!(
                    close(got, want.eps, TOL),
                    "{how} d/d(spring {i} field {f}) = {got}, oracle {}",
                    want.eps
                );
            }
        }
    }
}

#[test]
fn two_instantiations_and_a_field_without_derivative() {
    let _lock = registry_lock();
    let ps = [
        Pendulum {
            mass: 1.5,
            angle: 0.3,
            length: 2.0,
            swings: 1,
        },
        Pendulum {
            mass: 0.5,
            angle: -0.8,
            length: 1.0,
            swings: 2,
        },
    ];
    let (grad,) = ad::grad(total::<Pendulum>, (&ps[..],));
    for (p, g) in ps.iter().zip(&grad) {
        let m = D::new(p.mass, 1.0);
        let a = D::new(p.angle, 0.0);
        let dm = m * c(9.81 * p.length) * (c(1.0) - a.cos());
        let m = D::new(p.mass, 0.0);
        let a = D::new(p.angle, 1.0);
        let da = m * c(9.81 * p.length) * (c(1.0) - a.cos());
        assert!(close(g.mass, dm.eps, TOL), "{} {}", g.mass, dm.eps);
        assert!(close(g.angle, da.eps, TOL), "{} {}", g.angle, da.eps);
    }
    // The other instantiation is untouched by this one.
    let s = springs();
    let (gs,) = ad::grad(total::<Spring>, (&s[..],));
    assert!(close(gs[0].k, total_d(&s, 0, 0).eps, TOL));
}

#[test]
fn by_reference_by_value_and_nested() {
    let _lock = registry_lock();
    let s = springs();
    let (gs, gby) = ad::grad(scaled::<Spring>, (&s[1], 3.0));
    for f in 0..4 {
        let want = total_d(&s[1..2], 0, f);
        assert!(close(fields(&gs)[f], 3.0 * want.eps, TOL));
    }
    assert!(close(gby, s[1].energy(), TOL));

    let (gi, gf) = ad::grad(mean::<Spring>, (&s[..2], s[2].clone()));
    for f in 0..4 {
        for (i, g) in gi.iter().enumerate() {
            let want = total_d(&s[..2], i, f).eps / 3.0;
            assert!(close(fields(g)[f], want, TOL));
        }
        let want = total_d(&s[2..], 0, f).eps / 3.0;
        assert!(close(fields(&gf)[f], want, TOL));
    }
}

/// A run-time rule for the trait method of one type serves the generic function's derivative
/// from the next call on, after derivatives were computed; dropping its guard restores it.
#[test]
fn a_run_time_rule_for_the_trait_method_serves_the_generic_sum() {
    let _lock = registry_lock();
    let s = springs();
    let exact = ad::grad(total::<Spring>, (&s[..],)).0;
    let guard = ad::rules::register_reverse(
        <Spring as Energy>::energy,
        |sp: &Spring, _y: f64, y_bar: f64| Spring {
            k: 10.0 * y_bar,
            rest: 0.0,
            from: 0.0,
            to: sp.k * 0.0,
        },
    );
    let ruled = ad::grad(total::<Spring>, (&s[..],)).0;
    assert!(ruled.iter().all(|g| g.k == 10.0 && g.rest == 0.0));
    let (_, t) = ad::jvp(total::<Spring>, (&s[..],), (&s[..],));
    // The forward derivative converts the reverse rule: 10 per unit of stiffness.
    let want: f64 = s.iter().map(|sp| 10.0 * sp.k).sum();
    assert!(close(t, want, TOL), "{t} {want}");
    drop(guard);
    assert_eq!(ad::grad(total::<Spring>, (&s[..],)).0, exact);
}

/// A rule for one instantiation of the generic function, defined below its use.
#[test]
fn a_rule_for_one_instantiation() {
    let _lock = registry_lock();
    let ps = [Pendulum {
        mass: 2.0,
        angle: 0.1,
        length: 1.0,
        swings: 3,
    }];
    let zero = ad::Differentiable::zero_tangent(&ps[0]);
    assert_eq!(
        ad::jvp(scaled::<Pendulum>, (&ps[0], 1.0), (zero, 0.0)).1,
        7.0
    );
    // The other instantiation keeps its generated derivative.
    let s = springs();
    assert!(close(
        ad::jvp(scaled::<Spring>, (&s[0], 1.0), (s[0].clone(), 0.0)).1,
        total_d(&s[..1], 0, 0).eps * s[0].k
            + total_d(&s[..1], 0, 1).eps * s[0].rest
            + total_d(&s[..1], 0, 2).eps * s[0].from
            + total_d(&s[..1], 0, 3).eps * s[0].to,
        TOL
    ));
}

#[ad::custom_rule(forward, of = scaled::<Pendulum>)]
fn scaled_pendulum_jvp(p: &Pendulum, _dp: PendulumTangent, by: f64, _dby: f64) -> (f64, f64) {
    (by * p.energy(), 7.0)
}
