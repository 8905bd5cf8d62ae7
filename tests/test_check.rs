//! `ad::rules::check()` finds, before any derivative runs, every call in a generated derivative
//! whose callee has no rule, and every conflict between `#[custom_rule]`s.

use ad::{Error, Mode, custom_rule, differentiable};

/// No derivative anywhere.
fn bare(x: f64) -> f64 {
    x + 1.0
}

#[differentiable]
fn calls_bare(x: f64) -> f64 {
    bare(x) * 2.0
}

const CALLS_BARE_LINE: u32 = 13;

/// Two rules: a conflict, even though nothing calls `twice_ruled`.
fn twice_ruled(x: f64) -> f64 {
    x
}

#[custom_rule(forward, of = twice_ruled)]
fn first(x: f64, dx: f64) -> (f64, f64) {
    (x, dx)
}

#[custom_rule(forward, of = twice_ruled)]
fn second(x: f64, dx: f64) -> (f64, f64) {
    (x, dx)
}

/// Fine: every callee resolves.
#[differentiable]
fn fine(x: f64) -> f64 {
    calls_nothing(x).sin()
}

#[differentiable]
fn calls_nothing(x: f64) -> f64 {
    x * x
}

#[test]
fn check_reports_missing_callees_and_conflicts_and_nothing_else() {
    let problems = ad::rules::check();
    // `bare` misses a forward and a reverse derivative; `twice_ruled` has two forward rules.
    assert_eq!(problems.len(), 3, "{problems:#?}");
    let mut missing: Vec<(&str, Mode, &str, u32)> = problems
        .iter()
        .filter_map(|e| match e {
            Error::MissingRule {
                function,
                mode,
                caller,
                location,
            } => Some((function.as_str(), *mode, caller.as_str(), location.line)),
            _ => None,
        })
        .collect();
    missing.sort_by_key(|m| m.1.keyword());
    assert_eq!(
        missing,
        [
            (
                "test_check::bare",
                Mode::Forward,
                "test_check::calls_bare",
                CALLS_BARE_LINE
            ),
            (
                "test_check::bare",
                Mode::Reverse,
                "test_check::calls_bare",
                CALLS_BARE_LINE
            ),
        ]
    );
    let Some(Error::Conflict {
        function, rules, ..
    }) = problems
        .iter()
        .find(|e| matches!(e, Error::Conflict { .. }))
    else {
        panic!("no conflict in {problems:#?}");
    };
    assert_eq!(function, "test_check::twice_ruled");
    let names: Vec<&str> = rules.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["test_check::first", "test_check::second"]);

    // Run-time rules for `bare` (both modes) and one settling `twice_ruled` leave nothing.
    let a = ad::rules::register_forward(bare, |x: f64, dx: f64| (x + 1.0, dx));
    let b = ad::rules::register_reverse(bare, |_x: f64, _y: f64, y_bar: f64| y_bar);
    let c = ad::rules::register_forward(twice_ruled, |x: f64, dx: f64| (x, dx));
    assert_eq!(ad::rules::check(), []);
    drop((a, b, c));
    assert_eq!(ad::rules::check().len(), 3);
}

/// The build uses the backend its features ask for, and the static rules of this test binary
/// (the generated derivatives above and the two custom rules) are all collected by it.
#[test]
fn the_selected_backend_collects_the_static_rules() {
    let expected = if cfg!(feature = "inventory") {
        "inventory"
    } else {
        "linkme"
    };
    assert_eq!(ad::rules::BACKEND, expected);
    let here: Vec<String> = ad::rules::list()
        .into_iter()
        // (the other test of this file registers run-time rules meanwhile)
        .filter(|r| r.function.starts_with("test_check::") && r.origin != ad::Origin::Runtime)
        .map(|r| format!("{} {} {:?}", r.function, r.mode.keyword(), r.origin))
        .collect();
    assert_eq!(
        here,
        [
            "test_check::calls_bare forward Generated",
            "test_check::calls_bare reverse Generated",
            "test_check::calls_nothing forward Generated",
            "test_check::calls_nothing reverse Generated",
            "test_check::fine forward Generated",
            "test_check::fine reverse Generated",
            "test_check::twice_ruled forward Custom",
            "test_check::twice_ruled forward Custom",
        ]
    );
}
