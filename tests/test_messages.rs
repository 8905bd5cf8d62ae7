//! What a user reads when a derivative cannot be resolved: the function, the caller, the source
//! location and the fix, as a panic message from `jvp` and as an `Error` from `try_jvp`.

use ad::{Error, Mode, custom_rule, differentiable};
use std::panic;

/// No derivative anywhere.
fn undifferentiated(x: f64) -> f64 {
    x.sin()
}

/// Calls `undifferentiated` at a known line.
#[differentiable]
fn outer(x: f64) -> f64 {
    let y = x * 2.0;
    undifferentiated(y) + 1.0
}

const OUTER_CALL_LINE: u32 = 16;

fn panic_message(f: impl FnOnce() + panic::UnwindSafe) -> String {
    let payload = panic::catch_unwind(f).expect_err("expected a panic");
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else {
        panic!("panic payload is not a string")
    }
}

#[test]
fn missing_rule_inside_a_derivative_names_callee_caller_location_and_fix() {
    let msg = panic_message(|| {
        let _ = ad::jvp(outer, (1.0,), (1.0,));
    });
    assert!(
        msg.contains("no forward-mode derivative for `test_messages::undifferentiated`"),
        "{msg}"
    );
    assert!(msg.contains("called from `test_messages::outer`"), "{msg}");
    assert!(
        msg.contains(&format!("tests/test_messages.rs:{OUTER_CALL_LINE}:")),
        "{msg}"
    );
    assert!(msg.contains("#[ad::differentiable]"), "{msg}");
    assert!(
        msg.contains("#[ad::custom_rule(forward, of = undifferentiated)]"),
        "{msg}"
    );
    assert!(
        msg.contains("ad::rules::register_forward(undifferentiated, ...)"),
        "{msg}"
    );
    assert!(msg.contains("use that_crate as _;"), "{msg}");
}

#[test]
fn try_jvp_returns_the_missing_rule_as_a_value() {
    let err = ad::try_jvp(outer, (1.0,), (1.0,)).unwrap_err();
    match &err {
        Error::MissingRule {
            function,
            mode,
            caller,
            location,
        } => {
            assert_eq!(function, "test_messages::undifferentiated");
            assert_eq!(*mode, Mode::Forward);
            assert_eq!(caller, "test_messages::outer");
            assert_eq!(location.line, OUTER_CALL_LINE);
            assert!(location.file.ends_with("test_messages.rs"));
        }
        other => panic!("unexpected error {other:?}"),
    }
    // The value and the panic tell the same story.
    let msg = panic_message(|| {
        let _ = ad::jvp(outer, (1.0,), (1.0,));
    });
    assert_eq!(msg, err.to_string());
}

#[test]
fn missing_rule_at_the_entry_point_names_the_entry_point() {
    let line = line!() + 1;
    let err = ad::try_jvp(undifferentiated, (1.0,), (1.0,)).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("called from `ad::try_jvp`"), "{text}");
    assert!(
        text.contains(&format!("test_messages.rs:{line}:")),
        "{text}"
    );
}

/// Two rules for one function and mode: both are reported, neither is picked.
fn contested(x: f64) -> f64 {
    x
}

#[custom_rule(forward, of = contested)]
fn contested_one(x: f64, dx: f64) -> (f64, f64) {
    (x, dx)
}

#[custom_rule(forward, of = contested)]
fn contested_two(x: f64, dx: f64) -> (f64, f64) {
    (x, 2.0 * dx)
}

#[differentiable]
fn uses_contested(x: f64) -> f64 {
    contested(x) * 3.0
}

#[test]
fn conflicting_custom_rules_are_reported_with_both_locations() {
    let err = ad::try_jvp(uses_contested, (1.0,), (1.0,)).unwrap_err();
    let Error::Conflict {
        function,
        mode,
        rules,
    } = &err
    else {
        panic!("expected a conflict, got {err:?}");
    };
    assert_eq!(function, "test_messages::contested");
    assert_eq!(*mode, Mode::Forward);
    let names: Vec<&str> = rules.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "test_messages::contested_one",
            "test_messages::contested_two"
        ]
    );
    assert!(
        rules
            .iter()
            .all(|(_, l)| l.file.ends_with("test_messages.rs"))
    );
    assert!(rules[0].1.line < rules[1].1.line);
    let text = err.to_string();
    assert!(
        text.contains("conflicting forward-mode rules for `test_messages::contested`"),
        "{text}"
    );
    for (name, location) in rules {
        assert!(text.contains(&format!("`{name}` at {location}")), "{text}");
    }
    // `jvp` panics with the same text rather than picking one.
    let msg = panic_message(|| {
        let _ = ad::jvp(uses_contested, (1.0,), (1.0,));
    });
    assert_eq!(msg, text);
    // A run-time rule settles the conflict while it is registered.
    let guard = ad::rules::register_forward(contested, |x: f64, dx: f64| (x, 5.0 * dx));
    assert_eq!(ad::jvp(uses_contested, (1.0,), (1.0,)), (3.0, 15.0));
    drop(guard);
    assert!(ad::try_jvp(uses_contested, (1.0,), (1.0,)).is_err());
}

/// Two reverse rules for one function: a conflict in reverse mode too.
fn contested_rev(x: f64) -> f64 {
    x
}

#[custom_rule(reverse, of = contested_rev)]
fn contested_rev_one(_x: f64, _y: f64, bar: f64) -> f64 {
    bar
}

#[custom_rule(reverse, of = contested_rev)]
fn contested_rev_two(_x: f64, _y: f64, bar: f64) -> f64 {
    2.0 * bar
}

#[differentiable]
fn uses_contested_rev(x: f64) -> f64 {
    contested_rev(x) * 3.0
}

#[test]
fn conflicting_reverse_rules_are_reported_with_both_locations() {
    let msg = panic_message(|| {
        let _ = ad::grad(uses_contested_rev, (1.0,));
    });
    assert!(
        msg.contains("conflicting reverse-mode rules for `test_messages::contested_rev`"),
        "{msg}"
    );
    assert!(
        msg.contains("`test_messages::contested_rev_one` at tests/test_messages.rs:"),
        "{msg}"
    );
    assert!(
        msg.contains("`test_messages::contested_rev_two` at tests/test_messages.rs:"),
        "{msg}"
    );
}

/// The mean of a vector's elements, for the shape checks.
#[differentiable]
fn mean(v: Vec<f64>) -> f64 {
    let s: f64 = v.iter().sum();
    s / v.len() as f64
}

/// Doubles each element, for the adjoint's shape check.
#[differentiable]
fn doubled(v: Vec<f64>) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for (i, x) in v.iter().enumerate() {
        out[i] = 2.0 * x;
    }
    out
}

#[test]
fn a_tangent_of_the_wrong_length_names_the_argument_both_lengths_and_the_fix() {
    let line = line!() + 2;
    let msg = panic_message(|| {
        let _ = ad::jvp(mean, (vec![1.0, 2.0, 3.0],), (vec![1.0, 0.0],));
    });
    assert!(
        msg.contains(
            "ad::jvp: the tangent of argument 1 of `test_messages::mean` has 2 elements where the value has 3"
        ),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("tests/test_messages.rs:{line}:")),
        "{msg}"
    );
    assert!(msg.contains("zero_tangent(&value)"), "{msg}");

    let err = ad::try_jvp(mean, (vec![1.0; 4],), (vec![0.0; 5],)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::ShapeMismatch {
                expected: 4,
                found: 5,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn an_adjoint_of_the_wrong_length_names_the_result() {
    let msg = panic_message(|| {
        let (_, pullback) = ad::vjp(doubled, (vec![1.0, 2.0],));
        let _ = pullback(vec![1.0, 1.0, 1.0]);
    });
    assert!(
        msg.contains(
            "ad::vjp: the adjoint of the result of `test_messages::doubled` has 3 elements where the value has 2"
        ),
        "{msg}"
    );
}
