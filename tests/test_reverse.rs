//! Reverse mode keeps the promise of forward mode: rules are honoured whatever the order of
//! definition, run-time rules registered after gradients ran are used by the next gradient, also
//! nested, and a gradient runs each primal once.

use ad::{custom_rule, differentiable};
use std::sync::atomic::{AtomicUsize, Ordering};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1.0)
}

/// f(x) = x^2, f'(x) = 2x.
#[differentiable]
fn f(x: f64) -> f64 {
    x * x
}

/// g(x, y) = f(x) sin y: dg/dx = f'(x) sin y, dg/dy = f(x) cos y.
#[differentiable]
fn g(x: f64, y: f64) -> f64 {
    f(x) * y.sin()
}

/// h(x) = 3 g(x, 1) + x: f sits two calls down.
#[differentiable]
fn h(x: f64) -> f64 {
    3.0 * g(x, 1.0) + x
}

#[test]
fn late_reverse_rule_is_honoured_directly_nested_and_after_drop() {
    let (x, y) = (1.5_f64, 0.7_f64);
    let s1 = 1.0_f64.sin();
    assert_eq!(ad::grad(f, (x,)), (2.0 * x,));
    let (gx, gy) = ad::grad(g, (x, y));
    assert!(close(gx, 2.0 * x * y.sin()) && close(gy, x * x * y.cos()));
    assert!(close(ad::grad(h, (x,)).0, 3.0 * 2.0 * x * s1 + 1.0));

    // f'(x) := 2x + 10 from now on, deliberately different from the true derivative.
    let guard =
        ad::rules::register_reverse(f, |x: f64, _y: f64, y_bar: f64| (2.0 * x + 10.0) * y_bar);
    assert_eq!(ad::grad(f, (x,)), (2.0 * x + 10.0,));
    let (gx, gy) = ad::grad(g, (x, y));
    assert!(
        close(gx, (2.0 * x + 10.0) * y.sin()),
        "one level deep: {gx}"
    );
    assert!(
        close(gy, x * x * y.cos()),
        "the value of f is still x^2: {gy}"
    );
    assert!(
        close(ad::grad(h, (x,)).0, 3.0 * (2.0 * x + 10.0) * s1 + 1.0),
        "two levels deep"
    );

    drop(guard);
    assert_eq!(ad::grad(f, (x,)), (2.0 * x,));
    assert!(close(ad::grad(h, (x,)).0, 3.0 * 2.0 * x * s1 + 1.0));
}

/// The reverse rules live below their use, in another module.
mod model {
    /// e(v) = 2 drag(v) + v
    #[ad::differentiable]
    pub fn energy(v: f64) -> f64 {
        2.0 * crate::physics::drag(v) + v
    }
}

mod physics {
    /// drag(v) = v |v|, no derivative of its own.
    pub fn drag(v: f64) -> f64 {
        v * v.abs()
    }
}

mod rules {
    /// d drag = 2 |v| dv, as a reverse rule: v_bar = 2 |v| y_bar.
    #[ad::custom_rule(reverse, of = crate::physics::drag)]
    fn drag_vjp(v: f64, _y: f64, y_bar: f64) -> f64 {
        2.0 * v.abs() * y_bar
    }
}

#[test]
fn reverse_rule_below_its_use_in_another_module_is_used() {
    for v in [-1.5, 0.25, 3.0] {
        let (e, (de,)) = ad::value_and_grad(model::energy, (v,));
        assert_eq!(e, model::energy(v));
        assert_eq!(de, 2.0 * 2.0 * f64::abs(v) + 1.0);
    }
}

/// Counts how often the primal of `expensive` runs.
static EXPENSIVE_CALLS: AtomicUsize = AtomicUsize::new(0);

/// A function whose primal is costly, with a reverse rule.
fn expensive(x: f64, y: f64) -> f64 {
    EXPENSIVE_CALLS.fetch_add(1, Ordering::SeqCst);
    x * y
}

#[custom_rule(reverse, of = expensive)]
fn expensive_vjp(x: f64, y: f64, _value: f64, bar: f64) -> (f64, f64) {
    (y * bar, x * bar)
}

/// inner(x) = expensive(x, 2) + x; outer(x) = inner(x) * inner(1)... calls nest two levels.
#[differentiable]
fn inner(x: f64) -> f64 {
    expensive(x, 2.0) + x
}

#[differentiable]
fn outer(x: f64) -> f64 {
    inner(x).sin()
}

#[test]
fn a_gradient_runs_each_primal_once_per_call() {
    // The only test touching EXPENSIVE_CALLS.
    let before = EXPENSIVE_CALLS.load(Ordering::SeqCst);
    let x = 0.3_f64;
    let (value, (dx,)) = ad::value_and_grad(outer, (x,));
    assert_eq!(
        EXPENSIVE_CALLS.load(Ordering::SeqCst) - before,
        1,
        "expensive ran more than once"
    );
    // outer = sin(3x): d = 3 cos(3x)
    assert_eq!(value, (2.0 * x + x).sin());
    assert!(close(dx, 3.0 * (3.0 * x).cos()));
    // vjp: one forward sweep, and each pullback call only the reverse sweep.
    let before = EXPENSIVE_CALLS.load(Ordering::SeqCst);
    let (_, pullback) = ad::vjp(outer, (x,));
    let (a,) = pullback(1.0);
    let (b,) = pullback(2.0);
    assert_eq!(EXPENSIVE_CALLS.load(Ordering::SeqCst) - before, 1);
    assert!(close(a, dx) && close(b, 2.0 * dx));
}

/// d erf(x) = 2/sqrt(pi) e^(-x^2) dx, as a reverse rule.
#[custom_rule(reverse, of = libm::erf)]
fn erf_vjp(x: f64, _y: f64, bar: f64) -> f64 {
    std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp() * bar
}

/// The standard normal CDF, Phi(x) = (1 + erf(x / sqrt 2)) / 2.
#[differentiable]
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

#[test]
fn gradient_through_a_foreign_function_with_a_reverse_rule() {
    for i in -20..=20 {
        let x = f64::from(i) * 0.3;
        let (_, (dp,)) = ad::value_and_grad(normal_cdf, (x,));
        let density = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        // As in the forward test: the two formulas round exp's argument differently.
        assert!(
            (dp - density).abs() <= (4.0 + x * x) * f64::EPSILON * density,
            "x = {x}"
        );
    }
}

/// Branches and early returns: the gradient follows the branch taken.
#[differentiable]
fn piecewise(x: f64, n: i32) -> f64 {
    if x > 1.0 {
        if n > 2 {
            return x * x * x;
        }
        return x * x;
    }
    let y = x.powi(n) + 3.0 * x;
    if y > 0.0 { y * x } else { -y }
}

#[test]
fn gradients_follow_branches_and_early_returns() {
    let cases = [
        (2.0, 3, 3.0 * 4.0),
        (2.0, 1, 2.0 * 2.0),
        // y = x^2 + 3x > 0, y x: d = 3x^2 + 6x
        (0.5, 2, 3.0 * 0.25 + 6.0 * 0.5),
        // y = x^3 + 3x < 0, -y: d = -(3x^2 + 3)
        (-1.0, 3, -(3.0 + 3.0)),
    ];
    for (x, n, d) in cases {
        let (v, (dx, dn)) = ad::value_and_grad(piecewise, (x, n));
        assert_eq!(v, piecewise(x, n));
        assert_eq!(dn, ad::NoTangent);
        assert!(close(dx, d), "x = {x}, n = {n}: {dx} vs {d}");
        assert_eq!(ad::jvp(piecewise, (x, n), (1.0, ad::NoTangent)).1, dx);
    }
}

/// A missing reverse derivative names the function, the caller and the fix.
fn opaque(x: f64) -> f64 {
    x.exp()
}

#[differentiable]
fn uses_opaque(x: f64) -> f64 {
    opaque(x) + 1.0
}

#[test]
fn missing_reverse_rule_message() {
    let payload = std::panic::catch_unwind(|| ad::grad(uses_opaque, (0.0,))).unwrap_err();
    let msg = payload.downcast_ref::<String>().expect("a String panic");
    assert!(
        msg.contains("no reverse-mode derivative for `test_reverse::opaque`"),
        "{msg}"
    );
    assert!(
        msg.contains("called from `test_reverse::uses_opaque`"),
        "{msg}"
    );
    assert!(
        msg.contains("#[ad::custom_rule(reverse, of = opaque)]"),
        "{msg}"
    );
    assert!(
        msg.contains("ad::rules::register_reverse(opaque, ...)"),
        "{msg}"
    );
}

/// Only a forward rule: `stable_log1p_exp(x) = ln(1 + e^x)`, with its derivative `logistic`.
fn stable_log1p_exp(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

#[custom_rule(forward, of = stable_log1p_exp)]
fn stable_log1p_exp_jvp(x: f64, dx: f64) -> (f64, f64) {
    (stable_log1p_exp(x), dx / (1.0 + (-x).exp()))
}

/// Only a reverse rule, of a function of two arguments with two results:
/// `rotate(x, y) = (x + 2y, 3x - y)`, Jacobian [[1, 2], [3, -1]].
fn rotate(x: f64, y: f64) -> (f64, f64) {
    (x + 2.0 * y, 3.0 * x - y)
}

#[custom_rule(reverse, of = rotate)]
fn rotate_vjp(_x: f64, _y: f64, _value: (f64, f64), bar: (f64, f64)) -> (f64, f64) {
    (bar.0 + 3.0 * bar.1, 2.0 * bar.0 - bar.1)
}

/// Uses both inside generated derivatives.
#[differentiable]
fn mixes(x: f64, y: f64) -> f64 {
    let (a, b) = rotate(x, y);
    stable_log1p_exp(a) * b
}

#[test]
fn rules_are_honoured_across_modes() {
    // Reverse mode from the forward rule: d/dx ln(1 + e^x) = logistic(x), exactly the rule's.
    let x = 800.0_f64;
    assert_eq!(ad::grad(stable_log1p_exp, (x,)), (1.0,));
    // Forward mode from the reverse rule, one VJP per result: J (1, 0) = (1, 3), J (0, 1) = (2, -1).
    assert_eq!(
        ad::jvp(rotate, (0.5, 0.25), (1.0, 0.0)),
        (rotate(0.5, 0.25), (1.0, 3.0))
    );
    assert_eq!(ad::jvp(rotate, (0.5, 0.25), (0.0, 1.0)).1, (2.0, -1.0));

    // Both, nested in generated derivatives, in both modes, against the closed form:
    // mixes = s(a) b with a = x + 2y, b = 3x - y, s = softplus, s' = logistic.
    let logistic = |z: f64| 1.0 / (1.0 + (-z).exp());
    for (x, y) in [(0.5, 0.25), (-1.0, 2.0), (3.0, -0.5)] {
        let (a, b) = rotate(x, y);
        let dx = logistic(a) * b + stable_log1p_exp(a) * 3.0;
        let dy = logistic(a) * 2.0 * b - stable_log1p_exp(a);
        let (gx, gy) = ad::grad(mixes, (x, y));
        assert!(
            close(gx, dx) && close(gy, dy),
            "reverse at ({x}, {y}): {gx} {gy}"
        );
        let (_, jx) = ad::jvp(mixes, (x, y), (1.0, 0.0));
        let (_, jy) = ad::jvp(mixes, (x, y), (0.0, 1.0));
        assert!(
            close(jx, dx) && close(jy, dy),
            "forward at ({x}, {y}): {jx} {jy}"
        );
    }
}

/// A forward rule registered at run time is used by reverse mode too, ahead of the generated
/// reverse derivative, and nested.
#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

#[differentiable]
fn uses_cube(x: f64) -> f64 {
    2.0 * cube(x)
}

#[test]
fn a_run_time_forward_rule_reaches_reverse_mode() {
    assert_eq!(ad::grad(uses_cube, (2.0,)), (24.0,));
    let guard = ad::rules::register_forward(cube, |x: f64, dx: f64| (x * x * x, -dx));
    assert_eq!(ad::grad(uses_cube, (2.0,)), (-2.0,));
    drop(guard);
    assert_eq!(ad::grad(uses_cube, (2.0,)), (24.0,));
}

/// A reverse rule with residuals: `lse(a, b) = ln(e^a + e^b)`. Its forward part computes the
/// value and, as residuals, the softmax weights the reverse part needs, so the reverse part
/// recomputes nothing: d lse = (w_a, w_b) with w = softmax(a, b).
fn lse(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

static LSE_FORWARD_PARTS: AtomicUsize = AtomicUsize::new(0);

fn lse_forward_part(a: f64, b: f64) -> (f64, (f64, f64)) {
    LSE_FORWARD_PARTS.fetch_add(1, Ordering::SeqCst);
    let m = a.max(b);
    let (ea, eb) = ((a - m).exp(), (b - m).exp());
    let sum = ea + eb;
    (m + sum.ln(), (ea / sum, eb / sum))
}

#[custom_rule(reverse, of = lse, augmented = lse_forward_part)]
fn lse_reverse_part(weights: (f64, f64), bar: f64) -> (f64, f64) {
    (weights.0 * bar, weights.1 * bar)
}

/// score(x) = lse(2x, x^2)
#[differentiable]
fn score(x: f64) -> f64 {
    lse(2.0 * x, x * x)
}

#[test]
fn reverse_rule_with_residuals() {
    // The only test touching LSE_FORWARD_PARTS.
    for x in [-1.0_f64, 0.5, 3.0] {
        let before = LSE_FORWARD_PARTS.load(Ordering::SeqCst);
        let (value, (dx,)) = ad::value_and_grad(score, (x,));
        assert_eq!(LSE_FORWARD_PARTS.load(Ordering::SeqCst) - before, 1);
        let (a, b) = (2.0 * x, x * x);
        let (wa, wb) = (a.exp() / (a.exp() + b.exp()), b.exp() / (a.exp() + b.exp()));
        assert!(close(value, (a.exp() + b.exp()).ln()));
        assert!(close(dx, wa * 2.0 + wb * 2.0 * x), "x = {x}: {dx}");
        // Forward mode through the same rule, converted.
        let (_, jx) = ad::jvp(score, (x,), (1.0,));
        assert!(close(jx, dx), "x = {x}: {jx} vs {dx}");
    }
}

/// sqrt at 0 has an infinite derivative; where its value is not used (or only cast to an
/// integer, or only part of a tuple is used), the gradient must not pick up `inf * 0 = NaN`.
#[differentiable]
fn root(x: f64) -> f64 {
    x.sqrt()
}

#[allow(unused_variables)]
#[differentiable]
fn call_unused(x: f64) -> f64 {
    let u = root(x);
    x * 2.0
}

#[differentiable]
fn call_cast(x: f64) -> f64 {
    let k = root(x) as i32;
    x * 2.0 + k as f64
}

#[differentiable]
fn parts(x: f64) -> (f64, f64) {
    (x * 3.0, x.sqrt())
}

#[differentiable]
fn field_unused(x: f64) -> f64 {
    let (a, _) = parts(x);
    a
}

/// Negated adjoints whose type comes later in source order; a parameter shadowed with another
/// type; a cast to a type declared in the body.
#[differentiable]
fn decaying(x: f64, y: f64) -> f64 {
    let mut t = x;
    let mut s = 0.0;
    for _ in 0..3 {
        s += t * y;
        t -= 0.1 * x;
    }
    s
}

#[differentiable]
fn shadowed_param(x: f64, n: i32) -> f64 {
    let n = n as f64;
    x * n
}

#[differentiable]
fn local_alias(x: f64) -> f64 {
    type R = f32;
    let y = x as R;
    (y * y) as f64
}

#[test]
fn edge_cases_agree_with_forward_mode() {
    assert_eq!(ad::grad(call_unused, (0.0,)), (2.0,));
    assert_eq!(ad::grad(call_cast, (0.0,)), (2.0,));
    assert_eq!(ad::grad(field_unused, (0.0,)), (3.0,));
    let (gx, gy) = ad::grad(decaying, (1.5, 0.5));
    assert!(close(gx, ad::jvp(decaying, (1.5, 0.5), (1.0, 0.0)).1));
    assert!(close(gy, ad::jvp(decaying, (1.5, 0.5), (0.0, 1.0)).1));
    assert_eq!(ad::grad(shadowed_param, (2.0, 3)), (3.0, ad::NoTangent));
    assert_eq!(
        ad::grad(local_alias, (0.5,)).0,
        ad::jvp(local_alias, (0.5,), (1.0,)).1
    );
}

/// Dropping a guard whose rule owns another guard does not deadlock.
#[differentiable]
fn guarded(x: f64) -> f64 {
    x * x
}

#[test]
fn a_rule_may_own_another_guard() {
    let inner = ad::rules::register_forward(guarded, |x: f64, dx: f64| (x * x, dx));
    let outer = ad::rules::register_reverse(guarded, move |_x: f64, _y: f64, bar: f64| {
        let _keep = &inner;
        bar
    });
    assert_eq!(ad::grad(guarded, (3.0,)), (1.0,));
    drop(outer);
    assert_eq!(ad::grad(guarded, (3.0,)), (6.0,));
}

/// A forged tape reaching the reverse sweep of a call (through the hidden generated-code API)
/// is a panic, never a dereference of what came off the tape.
#[test]
fn a_forged_tape_panics() {
    let result = std::panic::catch_unwind(|| {
        static SITE: ad::__private::CallSite =
            ad::__private::CallSite::new("forged", file!(), line!(), column!());
        let mut tape = ad::__private::Tape::new();
        tape.push(0x1000_u64);
        tape.push(0xADAD_5EED_0000_0001_u64);
        ad::Function::__backward(f, &SITE, &mut tape, (1.0,), 1.0, Some(1.0))
    });
    assert!(result.is_err());
}

/// Only the next test touches `swapped`: it registers a rule for it.
#[differentiable]
fn swapped(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn calls_swapped(x: f64) -> f64 {
    3.0 * swapped(x)
}

/// A pullback runs the rules its own forward sweep ran, whatever forward sweeps ran at the same
/// call sites since: the call site's cache then holds a newer resolution, and the reverse sweep
/// finds the recorded one in the table instead.
#[test]
fn a_pullback_keeps_the_rules_of_its_forward_sweep() {
    let x = 2.0_f64;
    // d/dx 3x^2 = 6x; the rule below says 3 * 100 instead, on purpose.
    let (exact, ruled) = (6.0 * x, 300.0);
    let (_, before) = ad::vjp(calls_swapped, (x,));
    let guard = ad::rules::register_reverse(swapped, |_x: f64, _y: f64, bar: f64| 100.0 * bar);
    let (_, during) = ad::vjp(calls_swapped, (x,));
    assert_eq!(before(1.0), (exact,), "recorded before the rule");
    assert_eq!(during(1.0), (ruled,), "recorded with the rule");
    drop(guard);
    let (_, after) = ad::vjp(calls_swapped, (x,));
    assert_eq!(after(1.0), (exact,), "recorded after the rule went");
    assert_eq!(
        during(1.0),
        (ruled,),
        "the rule's pullback again, after a newer sweep"
    );
    assert_eq!(before(2.0), (2.0 * exact,), "the first pullback, last");
}
