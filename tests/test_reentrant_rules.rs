//! A run-time rule that, while it runs, drops its own registration and calls entry points
//! again: each thread's cache of resolutions then lets go of the running rule, and must not free
//! it before the rule returns.

use ad::differentiable;
use std::sync::Mutex;

/// f(x) = x^2. Only this file registers rules for it.
#[differentiable]
fn f(x: f64) -> f64 {
    x * x
}

/// g(x) = sin x, called from inside the rule of `f`.
#[differentiable]
fn g(x: f64) -> f64 {
    x.sin()
}

/// The guard of the rule of `f`, which the rule itself takes and drops.
static GUARD: Mutex<Option<ad::rules::RuleGuard>> = Mutex::new(None);

/// The central difference of `f` at `x`: f is a quadratic, so the truncation error is zero and
/// only rounding remains, about eps * x^2 / h = 2.2e-16 * 2.25 / 1e-5 = 5e-11 at x = 1.5.
fn central(f: fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn a_rule_that_drops_itself_and_calls_entry_points_runs_to_the_end() {
    let x = 1.5;
    // The rule's data lives in the closure: freed with it if the cache let it go too early.
    let slope = vec![2.0; 64];
    let guard = ad::rules::register_forward(f, move |x: f64, dx: f64| {
        // Drops this very rule's registration: the epoch of `f` moves on and the cached
        // resolution that is running now becomes stale.
        drop(GUARD.lock().unwrap().take());
        // Entry points that miss the cache: they purge stale resolutions, this one included.
        let (_, dg) = ad::jvp(g, (0.25,), (1.0,));
        let (_, (gg,)) = ad::value_and_grad(g, (0.25,));
        assert!((dg - gg).abs() < 1e-15);
        (x * x, slope[0] * slope[63] / 2.0 * x * dx)
    });
    *GUARD.lock().unwrap() = Some(guard);

    let (y, dy) = ad::jvp(f, (x,), (1.0,));
    assert_eq!(y, x * x);
    assert!((dy - central(f, x)).abs() < 1e-8, "{dy}");
    assert!(GUARD.lock().unwrap().is_none(), "the rule ran");

    // With the rule gone, the generated derivative is back.
    let (_, dy) = ad::jvp(f, (x,), (1.0,));
    assert!((dy - central(f, x)).abs() < 1e-8, "{dy}");
}
