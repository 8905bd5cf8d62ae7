//! The late-rule scenario of Enzyme.jl's "custom rule not detected if defined after call to
//! autodiff": derivatives are computed, then a rule is registered at run time, and the very next
//! derivative must use it, also inside derivatives generated for other functions.

use ad::differentiable;

/// f(x) = x^2, f'(x) = 2x.
#[differentiable]
fn f(x: f64) -> f64 {
    x * x
}

/// g(x, y) = f(x) sin y: dg = 2x sin(y) dx + x^2 cos(y) dy.
#[differentiable]
fn g(x: f64, y: f64) -> f64 {
    f(x) * y.sin()
}

/// h(x) = 3 g(x, 1) + x: the rule for f sits two calls down.
#[differentiable]
fn h(x: f64) -> f64 {
    3.0 * g(x, 1.0) + x
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1.0)
}

// Each scenario runs in one #[test] so that no other test of this file registers a rule for `f`
// concurrently; the rule registry is global to the process.
#[test]
fn late_runtime_rule_is_honoured_directly_nested_and_after_drop() {
    let (x, y) = (1.5_f64, 0.7_f64);

    // Generated derivative first: df = 2x dx.
    assert_eq!(ad::jvp(f, (x,), (1.0,)), (x * x, 2.0 * x));
    let (_, dg) = ad::jvp(g, (x, y), (1.0, 0.0));
    assert!(close(dg, 2.0 * x * y.sin()));
    let (_, dh) = ad::jvp(h, (x,), (1.0,));
    assert!(close(dh, 3.0 * 2.0 * x * 1.0_f64.sin() + 1.0));

    // A rule registered after those derivatives ran: f'(x) := 2x + 10 (deliberately different
    // from the true derivative, so that its use is visible).
    let guard = ad::rules::register_forward(f, |x: f64, dx: f64| (x * x, (2.0 * x + 10.0) * dx));

    assert_eq!(ad::jvp(f, (x,), (1.0,)), (x * x, 2.0 * x + 10.0));
    let (_, dg) = ad::jvp(g, (x, y), (1.0, 0.0));
    assert!(
        close(dg, (2.0 * x + 10.0) * y.sin()),
        "one level deep: {dg}"
    );
    let (_, dh) = ad::jvp(h, (x,), (1.0,));
    assert!(
        close(dh, 3.0 * (2.0 * x + 10.0) * 1.0_f64.sin() + 1.0),
        "two levels deep: {dh}"
    );
    // The tangent along y does not involve f's derivative: x^2 cos y.
    let (_, dg_y) = ad::jvp(g, (x, y), (0.0, 1.0));
    assert!(close(dg_y, x * x * y.cos()));

    // A second run-time rule wins over the first while both are registered.
    let inner = ad::rules::register_forward(f, |x: f64, dx: f64| (x * x, -dx));
    let (_, dh) = ad::jvp(h, (x,), (1.0,));
    assert!(close(dh, -3.0 * 1.0_f64.sin() + 1.0));
    drop(inner);
    let (_, dh) = ad::jvp(h, (x,), (1.0,));
    assert!(close(dh, 3.0 * (2.0 * x + 10.0) * 1.0_f64.sin() + 1.0));

    // Dropping the guard restores the generated derivative, at every level.
    drop(guard);
    assert_eq!(ad::jvp(f, (x,), (1.0,)), (x * x, 2.0 * x));
    let (_, dg) = ad::jvp(g, (x, y), (1.0, 0.0));
    assert!(close(dg, 2.0 * x * y.sin()));
    let (_, dh) = ad::jvp(h, (x,), (1.0,));
    assert!(close(dh, 3.0 * 2.0 * x * 1.0_f64.sin() + 1.0));
}

/// A function with no derivative at all gets one at run time, after a derivative that needs it
/// failed: the failure is not cached.
fn opaque(x: f64) -> f64 {
    x.exp()
}

/// k(x) = 2 opaque(x) = 2 e^x.
#[differentiable]
fn k(x: f64) -> f64 {
    2.0 * opaque(x)
}

#[test]
fn missing_rule_then_late_rule() {
    let err = ad::try_jvp(k, (0.5,), (1.0,)).unwrap_err();
    assert!(err.to_string().contains("opaque"), "{err}");
    let guard = ad::rules::register_forward(opaque, |x: f64, dx: f64| (x.exp(), x.exp() * dx));
    let (y, dy) = ad::try_jvp(k, (0.5,), (1.0,)).expect("the rule is registered now");
    assert_eq!(y, 2.0 * 0.5_f64.exp());
    assert!(close(dy, 2.0 * 0.5_f64.exp()));
    drop(guard);
    assert!(ad::try_jvp(k, (0.5,), (1.0,)).is_err());
}
