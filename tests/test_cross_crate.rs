//! Cross-crate rules: a rule in one crate for a function of a second crate, used through a
//! derivative generated in that second crate, from a third.
//!
//! - `ad-test-special` (tests/crates/special): plain numerics, knows nothing about `ad`;
//! - `ad-test-model` (tests/crates/model): `activation` (no derivative, no rule) and the
//!   `#[differentiable]` function `neuron(w, x, b) = activation(w x + b)`;
//! - `ad-test-stable-rules` (tests/crates/stable-rules): `#[custom_rule(forward, of =
//!   ad_test_model::activation)]`;
//! - this test: differentiates `neuron` and never names the rules crate otherwise.
//!
//! The oracle is independent of `ad`: the closed-form derivative of softplus written out here,
//! and forward-mode dual numbers (`num-dual`) run over the naive formula `ln(1 + e^z)`.

// A crate that nothing references is not linked into the test binary, and then its
// `#[custom_rule]`s are not in the registry: every derivative through `activation` would report a
// missing rule. This `use` is what links the rules crate.
use ad_test_stable_rules as _;

use ad_test_model::{activation, gated_neuron, neuron};
use num_dual::{Dual64, DualNum};
use std::sync::{Mutex, MutexGuard};

/// Serialises the tests: one of them registers a run-time rule for `activation`, which every
/// other test would observe while its guard lives (the registry is global to the process).
fn registry_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The logistic function, written here independently of the crates under test.
fn sigma(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// `neuron` over dual numbers with the naive softplus `ln(1 + e^z)`: value and directional
/// derivative along `(dw, dx, db)`. Valid where `e^z` neither overflows nor vanishes against 1.
fn neuron_dual(w: f64, x: f64, b: f64, dw: f64, dx: f64, db: f64) -> (f64, f64) {
    let (w, x, b) = (Dual64::new(w, dw), Dual64::new(x, dx), Dual64::new(b, db));
    let z = w * x + b;
    let y = (Dual64::from_re(1.0) + z.exp()).ln();
    (y.re, y.eps)
}

/// Deterministic pseudo-random points with `w x + b` in about [-12, 12].
fn points() -> Vec<(f64, f64, f64)> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 6.0 - 3.0 // uniform in [-3, 3)
    };
    let mut v = vec![(0.0, 0.0, 0.0), (1.0, 2.0, -0.5), (-1.5, 0.25, 3.0)];
    v.extend((0..200).map(|_| (next(), next(), next())));
    v
}

/// Relative comparison: both sides are a few correctly rounded operations from the exact value,
/// so a few ulps of the larger magnitude (with an absolute floor near zero) is the honest bound.
fn assert_close(got: f64, want: f64, what: &str) {
    let tol = 1e-13 * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:e}, want {want:e} (difference {:e})",
        (got - want).abs()
    );
}

#[test]
fn jvp_of_neuron_uses_the_rule_from_another_crate() {
    let _lock = registry_lock();
    for (w, x, b) in points() {
        let z = w * x + b;
        let s = sigma(z);
        let at = format!("at w={w}, x={x}, b={b}");

        let (y, dy_dw) = ad::jvp(neuron, (w, x, b), (1.0, 0.0, 0.0));
        let (_, dy_dx) = ad::jvp(neuron, (w, x, b), (0.0, 1.0, 0.0));
        let (_, dy_db) = ad::jvp(neuron, (w, x, b), (0.0, 0.0, 1.0));
        assert_close(y, (1.0 + z.exp()).ln(), &format!("value {at}"));
        assert_close(dy_dw, s * x, &format!("d/dw {at}"));
        assert_close(dy_dx, s * w, &format!("d/dx {at}"));
        assert_close(dy_db, s, &format!("d/db {at}"));

        // an arbitrary direction, against dual numbers
        let (dw, dx, db) = (0.3, -1.7, 2.5);
        let (y, dy) = ad::jvp(neuron, (w, x, b), (dw, dx, db));
        let (y_dual, dy_dual) = neuron_dual(w, x, b, dw, dx, db);
        assert_close(y, y_dual, &format!("value vs num-dual {at}"));
        assert_close(dy, dy_dual, &format!("tangent vs num-dual {at}"));
    }
}

#[test]
fn the_cross_crate_rule_is_the_stable_one() {
    let _lock = registry_lock();
    // At z = 800, e^z overflows: differentiating ln(1 + e^z) naively gives NaN. The rule of
    // `ad-test-stable-rules` gives logistic(800) = 1 exactly, so d/dw = x.
    let (y, dy) = ad::jvp(neuron, (400.0, 2.0, 0.0), (1.0, 0.0, 0.0));
    assert_eq!(y, 800.0);
    assert_eq!(dy, 2.0);
    let (y, dy) = ad::jvp(neuron, (400.0, -2.0, 0.0), (1.0, 0.0, 0.0));
    assert_eq!(y, 0.0);
    assert_eq!(dy, 0.0);
    // the rule also answers for `activation` itself, called from the entry point
    let (y, dy) = ad::jvp(activation, (800.0,), (3.0,));
    assert_eq!((y, dy), (800.0, 3.0));
}

#[test]
fn try_jvp_of_neuron_is_ok() {
    let _lock = registry_lock();
    let (w, x, b) = (0.7, -1.3, 0.4);
    let z = w * x + b;
    let (y, dy) = ad::try_jvp(neuron, (w, x, b), (1.0, 1.0, 1.0))
        .unwrap_or_else(|e| panic!("try_jvp(neuron) failed: {e}"));
    assert_close(y, (1.0 + z.exp()).ln(), "value");
    assert_close(dy, sigma(z) * (x + w + 1.0), "tangent");
}

#[test]
fn a_callee_without_any_rule_is_reported_by_name() {
    let _lock = registry_lock();
    // `gated_neuron` also calls `ad_test_special::logistic`, which no crate gives a rule.
    let err = ad::try_jvp(gated_neuron, (0.7, -1.3, 0.4), (1.0, 0.0, 0.0)).unwrap_err();
    assert!(
        matches!(&err, ad::Error::MissingRule { function, .. } if function.ends_with("logistic")),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("`ad_test_special::logistic`"), "{text}");
    assert!(text.contains("gated_neuron"), "the caller is named: {text}");
    // `activation`, which has its rule in the other crate, is not the one reported
    assert!(!text.contains("for `ad_test_model::activation`"), "{text}");

    // `ad::jvp` panics with the same message
    let panic =
        std::panic::catch_unwind(|| ad::jvp(gated_neuron, (0.7, -1.3, 0.4), (1.0, 0.0, 0.0)))
            .expect_err("jvp of a function with a missing callee rule must panic");
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    assert!(message.contains("`ad_test_special::logistic`"), "{message}");
}

#[test]
fn a_run_time_rule_overrides_the_cross_crate_rule_while_its_guard_lives() {
    let _lock = registry_lock();
    let (w, x, b) = (0.7, -1.3, 0.4);
    let z = w * x + b;
    let static_rule = sigma(z) * x;

    let (_, before) = ad::jvp(neuron, (w, x, b), (1.0, 0.0, 0.0));
    assert_close(before, static_rule, "static rule before");

    let guard = ad::rules::register_forward(activation, |x: f64, dx: f64| {
        (ad_test_special::log1pexp(x), 100.0 * dx)
    });
    let (y, during) = ad::jvp(neuron, (w, x, b), (1.0, 0.0, 0.0));
    assert_close(y, (1.0 + z.exp()).ln(), "value under the run-time rule");
    assert_eq!(
        during,
        100.0 * x,
        "the run-time rule wins inside neuron's derivative"
    );
    assert_eq!(
        ad::jvp(activation, (z,), (1.0,)).1,
        100.0,
        "and at the entry point"
    );

    drop(guard);
    let (_, after) = ad::jvp(neuron, (w, x, b), (1.0, 0.0, 0.0));
    assert_eq!(
        after, before,
        "the cross-crate rule is back once the guard is dropped"
    );
}

/// Reverse mode across crates: the gradient of `neuron` uses the reverse rule that
/// `ad-test-stable-rules` gives `activation`: d/dw = sigma(z) x, d/dx = sigma(z) w,
/// d/db = sigma(z), with z = w x + b; it stays finite where e^z overflows.
#[test]
fn gradient_of_neuron_uses_the_reverse_rule_from_another_crate() {
    let _lock = registry_lock();
    for (w, x, b) in points() {
        let z = w * x + b;
        let (value, (gw, gx, gb)) = ad::value_and_grad(ad_test_model::neuron, (w, x, b));
        assert_eq!(value, ad_test_model::neuron(w, x, b));
        assert_close(gw, sigma(z) * x, "d/dw");
        assert_close(gx, sigma(z) * w, "d/dx");
        assert_close(gb, sigma(z), "d/db");
    }
    let (_, (gw, _, _)) = ad::value_and_grad(ad_test_model::neuron, (1.0, 800.0, 0.0));
    assert_eq!(gw, 800.0);
}

/// A generic rule in another crate, for a generic function of a second crate, used by the
/// generic derivative generated there, at both instantiations and in both modes (reverse mode
/// through the forward rule, converted). Oracle: d/dw softplus(w x) = x sigma(w x), with `sigma`
/// written in this file; at `f32` to 1e-6 relative (a few ulps of the logistic).
#[test]
fn a_generic_rule_of_another_crate_serves_every_instantiation() {
    let _lock = registry_lock();
    for &(w, x, _) in &points() {
        let want = x * sigma(w * x);
        let (_, dw) = ad::jvp(ad_test_model::generic_neuron::<f64>, (w, x), (1.0, 0.0));
        assert_close(dw, want, "generic_neuron::<f64> jvp");
        let (gw, _) = ad::grad(ad_test_model::generic_neuron::<f64>, (w, x));
        assert_close(gw, want, "generic_neuron::<f64> grad");
        let (gw, _) = ad::grad(ad_test_model::generic_neuron::<f32>, (w as f32, x as f32));
        let want32 = f64::from(x as f32) * sigma(f64::from(w as f32) * f64::from(x as f32));
        assert!(
            (f64::from(gw) - want32).abs() <= 1e-6 * want32.abs().max(1.0),
            "generic_neuron::<f32> grad: {gw} vs {want32}"
        );
    }
}
