//! A library loaded after derivatives were computed brings rules that the very next derivative
//! uses: the registry notices the new entries and bumps the epoch of the functions they name, so
//! the call site in `model`, which had cached `softplus`'s generated derivative, resolves again,
//! and `side`, whose callee had no rule at all, becomes differentiable.
//!
//! One test, in phases: loading the plugin changes the whole process.

use ad_dynamic_host::{model, side};
use ad_dynamic_shared::ad;
use ad_dynamic_shared::{PLUGIN_RULE_CALLS, softplus};
use core::sync::atomic::Ordering;
use std::path::PathBuf;

/// Points away from 0: there the adjoint reaching `softplus` in `model` (`x`) is zero, and a
/// reverse sweep skips a call whose result has a zero adjoint, so the rule would rightly not
/// run and the call count would say nothing.
const XS: [f64; 4] = [-3.0, -0.5, 0.7, 4.0];

/// Central difference with step 1e-5: the truncation error is about h^2 |f'''| / 6 < 1e-10
/// here, and rounding about 1e-16 |f| / h < 1e-10, so 1e-8 holds for the true derivative with
/// room and fails for any wrong one that differs by more.
fn central_difference(f: fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// Checks `got` against finite differences and against the derivative written by hand.
fn assert_derivative(f: fn(f64) -> f64, by_hand: f64, x: f64, got: f64) {
    let oracle = central_difference(f, x);
    assert!(
        (got - oracle).abs() < 1e-8,
        "at {x}: got {got}, finite differences {oracle}"
    );
    assert!(
        (got - by_hand).abs() < 1e-12,
        "at {x}: got {got}, by hand {by_hand}"
    );
}

/// `d/dx x softplus(x) = softplus(x) + x sigmoid(x)`.
fn model_by_hand(x: f64) -> f64 {
    softplus(x) + x / (1.0 + (-x).exp())
}

/// `d/dx 2 cbrt(x) = 2 / (3 cbrt(x)^2)`.
fn side_by_hand(x: f64) -> f64 {
    2.0 / (3.0 * x.cbrt().powi(2))
}

/// Loads the plugin, as cargo builds it beside this test's executable (`target/<profile>/deps`).
fn load_plugin() {
    let exe = std::env::current_exe().expect("the test's own path");
    let deps = exe.parent().expect("the test executable's directory");
    let path: PathBuf = deps.join(libloading::library_filename("ad_dynamic_plugin"));
    assert!(
        path.exists(),
        "{} is not built: run `cargo build --workspace` in tests/dynamic first",
        path.display()
    );
    // SAFETY: the plugin is this workspace's own library, built by the same compiler with the
    // same flags; its initialisers only submit rule entries. It is never unloaded: the registry
    // keeps pointers into it for the rest of the process.
    let plugin = unsafe { libloading::Library::new(&path) }.expect("load the plugin");
    std::mem::forget(plugin);
}

fn is_missing_cube_root(error: &ad::Error) -> bool {
    matches!(error, ad::Error::MissingRule { function, .. } if function.ends_with("cube_root"))
}

/// The rules whose source is in the plugin crate.
fn plugin_rules() -> Vec<ad::rules::RuleInfo> {
    ad::rules::list()
        .into_iter()
        .filter(|r| r.location.file.contains("plugin"))
        .collect()
}

#[test]
fn rules_of_a_library_loaded_at_run_time() {
    assert_eq!(ad::rules::BACKEND, "inventory");

    // Before the plugin: softplus's generated derivative serves both modes (the call site in
    // `model` caches it), and `cube_root` has no rule, which `check` and the `try_` entry points
    // report.
    for x in XS {
        let (_, forward) = ad::jvp(model, (x,), (1.0,));
        assert_derivative(model, model_by_hand(x), x, forward);
        assert_derivative(model, model_by_hand(x), x, ad::grad(model, (x,)).0);
    }
    assert_eq!(PLUGIN_RULE_CALLS.load(Ordering::Relaxed), 0);
    assert!(plugin_rules().is_empty());
    let problems = ad::rules::check();
    assert_eq!(problems.len(), 2, "one per mode: {problems:?}");
    assert!(problems.iter().all(is_missing_cube_root), "{problems:?}");
    assert!(is_missing_cube_root(
        &ad::try_jvp(side, (5.0,), (1.0,)).unwrap_err()
    ));
    assert!(is_missing_cube_root(
        &ad::try_value_and_grad(side, (5.0,)).unwrap_err()
    ));

    load_plugin();

    // The plugin's rules for softplus win over the generated derivative from the next call on,
    // in both modes, at the call site that had cached the generated one.
    for (i, x) in XS.into_iter().enumerate() {
        let (_, forward) = ad::jvp(model, (x,), (1.0,));
        assert_derivative(model, model_by_hand(x), x, forward);
        assert_eq!(PLUGIN_RULE_CALLS.load(Ordering::Relaxed), 2 * i + 1);
        assert_derivative(model, model_by_hand(x), x, ad::grad(model, (x,)).0);
        assert_eq!(PLUGIN_RULE_CALLS.load(Ordering::Relaxed), 2 * i + 2);
    }

    // Its forward rule for cube_root serves forward mode, and reverse mode converted.
    for x in [0.3, 5.0, -8.0] {
        let (_, forward) = ad::jvp(side, (x,), (1.0,));
        assert_derivative(side, side_by_hand(x), x, forward);
        assert_derivative(side, side_by_hand(x), x, ad::grad(side, (x,)).0);
    }

    // All three are listed, with their origin and location in the plugin, and nothing is
    // missing any more.
    let mut listed: Vec<_> = plugin_rules()
        .into_iter()
        .map(|r| {
            assert_eq!(r.origin, ad::Origin::Custom);
            let function = r
                .function
                .rsplit("::")
                .next()
                .unwrap_or_default()
                .to_owned();
            (function, r.mode)
        })
        .collect();
    listed.sort_by_key(|(function, mode)| (function.clone(), *mode == ad::Mode::Reverse));
    assert_eq!(
        listed,
        [
            ("cube_root".to_owned(), ad::Mode::Forward),
            ("softplus".to_owned(), ad::Mode::Forward),
            ("softplus".to_owned(), ad::Mode::Reverse),
        ]
    );
    assert!(ad::rules::check().is_empty(), "{:?}", ad::rules::check());
}
