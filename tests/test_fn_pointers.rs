//! Function pointers (`fn(f64) -> f64` kept in a table) are resolved by address: the fallback
//! finds the function item that has a static entry at that address.

use ad::differentiable;

/// sq(x) = x^2
#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

/// cube(x) = x^3
#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

/// No derivative anywhere.
fn shift(x: f64) -> f64 {
    x + 1.0
}

/// quart(x) = x^4
#[differentiable]
fn quart(x: f64) -> f64 {
    let y = x * x;
    y * y
}

const TABLE: [fn(f64) -> f64; 2] = [sq, cube];

#[test]
fn pointers_resolve_to_the_generated_derivative_of_their_function() {
    // Not `cube`, for which another test of this binary registers a rule while this one may
    // run.
    let x = 1.5;
    let table: [fn(f64) -> f64; 2] = [sq, quart];
    let expected = [2.0 * x, 4.0 * x * x * x];
    for (f, d) in table.iter().zip(expected) {
        assert_eq!(ad::jvp(*f, (x,), (1.0,)).1, d);
    }
}

#[test]
fn a_rule_registered_through_a_pointer_applies_to_the_item_and_back() {
    // Only this test registers rules for `cube`.
    let guard = ad::rules::register_forward(TABLE[1], |x: f64, dx: f64| (x * x * x, -dx));
    assert_eq!(ad::jvp(cube, (2.0,), (1.0,)).1, -1.0);
    assert_eq!(ad::jvp(TABLE[1], (2.0,), (1.0,)).1, -1.0);
    drop(guard);
    assert_eq!(ad::jvp(cube, (2.0,), (1.0,)).1, 12.0);
}

#[test]
fn a_pointer_to_a_function_without_entries_is_keyed_by_its_address() {
    let p: fn(f64) -> f64 = shift;
    let err = ad::try_jvp(p, (0.0,), (1.0,)).unwrap_err();
    assert!(matches!(err, ad::Error::MissingRule { .. }), "{err}");
    let guard = ad::rules::register_forward(p, |x: f64, dx: f64| (x + 1.0, dx));
    assert_eq!(ad::jvp(p, (0.0,), (1.0,)), (1.0, 1.0));
    // Another function of the same pointer type is not affected by that rule.
    let q: fn(f64) -> f64 = f64::exp;
    assert!(ad::try_jvp(q, (0.0,), (1.0,)).is_err());
    drop(guard);
    assert!(ad::try_jvp(p, (0.0,), (1.0,)).is_err());
}
