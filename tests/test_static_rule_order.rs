//! `#[custom_rule]`s are found wherever they stand: below their use, in another module, for a
//! function that also has a generated derivative. Nothing about the order of definition matters.

/// The model: uses `physics::drag` and `physics::lift`, whose rules are defined further down,
/// in a module declared after this one.
mod model {
    use ad::differentiable;

    /// e(v, a) = drag(v) + 2 lift(v, a)
    #[differentiable]
    pub fn energy(v: f64, a: f64) -> f64 {
        crate::physics::drag(v) + 2.0 * crate::physics::lift(v, a)
    }
}

mod physics {
    /// drag(v) = v |v|, no derivative of its own.
    pub fn drag(v: f64) -> f64 {
        v * v.abs()
    }

    /// lift(v, a) = v^2 sin a, with a generated derivative that the custom rule below replaces.
    #[ad::differentiable]
    pub fn lift(v: f64, a: f64) -> f64 {
        v * v * a.sin()
    }
}

/// Rules live in a module of their own, after everything that uses them.
mod rules {
    use ad::custom_rule;

    /// d drag = 2 |v| dv.
    #[custom_rule(forward, of = crate::physics::drag)]
    fn drag_jvp(v: f64, dv: f64) -> (f64, f64) {
        (v * v.abs(), 2.0 * v.abs() * dv)
    }

    /// A deliberately scaled derivative of lift (x1000), so that the test can tell the custom rule
    /// from the generated derivative of `lift`: d lift = 1000 (2 v sin a dv + v^2 cos a da).
    #[custom_rule(forward, of = crate::physics::lift)]
    fn lift_jvp(v: f64, dv: f64, a: f64, da: f64) -> (f64, f64) {
        (
            v * v * a.sin(),
            1000.0 * (2.0 * v * a.sin() * dv + v * v * a.cos() * da),
        )
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-13 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn rule_below_its_use_in_another_module_is_used() {
    // d energy / dv = 2|v| + 2 * 1000 * 2 v sin a at v = -1.5, a = 0.3
    let (v, a) = (-1.5_f64, 0.3_f64);
    let (e, de) = ad::jvp(model::energy, (v, a), (1.0, 0.0));
    assert_eq!(e, v * v.abs() + 2.0 * (v * v * a.sin()));
    assert!(
        close(de, 2.0 * v.abs() + 2.0 * 1000.0 * 2.0 * v * a.sin()),
        "{de}"
    );
    // d energy / da = 2 * 1000 * v^2 cos a
    let (_, de) = ad::jvp(model::energy, (v, a), (0.0, 1.0));
    assert!(close(de, 2.0 * 1000.0 * v * v * a.cos()), "{de}");
}

#[test]
fn custom_rule_wins_over_generated_derivative() {
    let (v, a) = (0.8_f64, 1.1_f64);
    let (_, d) = ad::jvp(physics::lift, (v, a), (1.0, 0.0));
    assert!(close(d, 1000.0 * 2.0 * v * a.sin()));
}

#[test]
fn runtime_rule_wins_over_custom_rule_until_dropped() {
    // Only this test touches `drag` at run time.
    let (v, a) = (2.0_f64, 0.0_f64);
    let (_, before) = ad::jvp(model::energy, (v, a), (1.0, 0.0));
    assert!(close(before, 2.0 * v.abs())); // sin 0 = 0: only drag contributes
    let guard =
        ad::rules::register_forward(physics::drag, |v: f64, dv: f64| (v * v.abs(), 7.0 * dv));
    let (_, during) = ad::jvp(model::energy, (v, a), (1.0, 0.0));
    assert!(close(during, 7.0));
    drop(guard);
    let (_, after) = ad::jvp(model::energy, (v, a), (1.0, 0.0));
    assert_eq!(after, before);
}

/// A rule function whose name is the same as a local of the generated loader.
mod named_like_internals {
    pub fn plain(x: f64) -> f64 {
        x
    }

    /// d plain := 3 dx
    #[ad::custom_rule(forward, of = plain)]
    fn rule(x: f64, dx: f64) -> (f64, f64) {
        (x, 3.0 * dx)
    }
}

#[test]
fn rule_named_like_a_generated_local_is_registered() {
    assert_eq!(
        ad::jvp(named_like_internals::plain, (1.0,), (1.0,)),
        (1.0, 3.0)
    );
}
