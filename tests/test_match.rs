//! `match` on values without a derivative (integers, bools, tuples of them, enums without data),
//! with literal, range, constant, `|` and `_` patterns and `if` guards, whose arms compute
//! floats with derivatives; as a statement and as an expression, in both modes, against dual
//! numbers (see `tests/dual_check/mod.rs` for what is asserted and why the tolerance is what it
//! is). Every arm is taken at some of the inputs.

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, c, close, grid};

/// A `match` as the value of a `let`, one arm per kind of pattern.
#[differentiable]
fn piecewise(x: f64, k: i32) -> f64 {
    let y = match k {
        0 => x * x,
        1 | 2 => x.sin() * k as f64,
        3..=5 => {
            let t = x.exp();
            t / (1.0 + t)
        }
        LIMIT => x.powi(3),
        _ => -x,
    };
    y * x
}

const LIMIT: i32 = 7;

fn piecewise_d(x: D, k: i32) -> D {
    let y = match k {
        0 => x * x,
        1 | 2 => x.sin() * k as f64,
        3..=5 => {
            let t = x.exp();
            t / (t + 1.0)
        }
        LIMIT => x.powi(3),
        _ => -x,
    };
    y * x
}

#[test]
fn match_as_a_value_with_literal_or_range_constant_and_wildcard_arms() {
    for k in -1..=8 {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(piecewise, piecewise_d, x, k).check(&format!("piecewise({x}, {k})"));
        }
    }
}

/// A `match` as a statement, with guards that read floats (a guard is a condition, it has no
/// derivative) and arms that assign.
#[differentiable]
fn guarded(x: f64, n: u32) -> f64 {
    let mut s = x;
    match n % 4 {
        0 if x > 1.0 => s *= x,
        0 => s += 1.0,
        1 | 3 if s < 0.0 => {
            s = s.sin();
        }
        2 => {}
        _ => s = (s * 0.5).exp(),
    }
    s * x
}

fn guarded_d(x: D, n: u32) -> D {
    let mut s = x;
    match n % 4 {
        0 if x.re > 1.0 => s *= x,
        0 => s += 1.0,
        1 | 3 if s.re < 0.0 => {
            s = s.sin();
        }
        2 => {}
        _ => s = (s * 0.5).exp(),
    }
    s * x
}

#[test]
fn match_as_a_statement_with_guards() {
    for n in 0..8 {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(guarded, guarded_d, x, n).check(&format!("guarded({x}, {n})"));
        }
    }
}

/// A `match` on a comparison, without a `_` arm: exhaustive through `true` and `false`.
#[differentiable]
fn on_bool(x: f64) -> f64 {
    match x > 0.0 {
        true => x.sqrt(),
        false => -x * x,
    }
}

fn on_bool_d(x: D) -> D {
    if x.re > 0.0 { x.sqrt() } else { -x * x }
}

/// A `match` on a tuple of integers, with `_` inside patterns.
#[differentiable]
fn on_pair(x: f64, y: f64, i: i32, j: i32) -> f64 {
    match (i % 2, j) {
        (0, 0) => x * y,
        (0, _) => x + y * j as f64,
        (_, 1..=3) => (x - y).cos(),
        _ => x / (1.0 + y * y),
    }
}

fn on_pair_d(x: D, y: D, i: i32, j: i32) -> D {
    match (i % 2, j) {
        (0, 0) => x * y,
        (0, _) => x + y * j as f64,
        (_, 1..=3) => (x - y).cos(),
        _ => x / (y * y + 1.0),
    }
}

#[test]
fn match_on_a_bool_and_on_a_tuple() {
    for x in grid(-2.0, 2.0, 41) {
        seen1!(on_bool, on_bool_d, x).check(&format!("on_bool({x})"));
    }
    for i in 0..2 {
        for j in -1..=4 {
            for x in grid(-1.0, 1.0, 5) {
                for y in grid(-1.0, 1.0, 5) {
                    seen2!(on_pair, on_pair_d, x, y, i, j)
                        .check(&format!("on_pair({x}, {y}, {i}, {j})"));
                }
            }
        }
    }
}

/// An enum without data, and not `Copy`: a `match` on it does not move it.
#[derive(Debug, PartialEq)]
enum Shape {
    Square,
    Wave,
    Bump,
}

fn shape_of(k: i32) -> Shape {
    match k {
        0 => Shape::Square,
        1 => Shape::Wave,
        _ => Shape::Bump,
    }
}

#[differentiable]
fn by_shape(x: f64, k: i32) -> f64 {
    let shape: Shape = shape_of(k);
    let y = match shape {
        Shape::Square => x * x,
        Shape::Wave => x.sin(),
        Shape::Bump => (-x * x).exp(),
    };
    // Still usable after the `match`.
    if shape == Shape::Bump { y * 2.0 } else { y }
}

fn by_shape_d(x: D, k: i32) -> D {
    let y = match shape_of(k) {
        Shape::Square => x * x,
        Shape::Wave => x.sin(),
        Shape::Bump => (-x * x).exp(),
    };
    if k >= 2 { y * 2.0 } else { y }
}

#[test]
fn match_on_an_enum_without_data() {
    for k in 0..3 {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(by_shape, by_shape_d, x, k).check(&format!("by_shape({x}, {k})"));
        }
    }
}

/// Arms that `continue`, `break` and `return` inside a loop, and a `match` whose value feeds the
/// next iteration.
#[differentiable]
fn in_a_loop(x: f64, n: i32) -> f64 {
    let mut s = x;
    for i in 0..n {
        let w = match i % 5 {
            0 => continue,
            1 => x * i as f64,
            2 if s > 6.0 => break,
            3 if s < -6.0 => return s * x,
            4 => s.cos(),
            _ => 0.5,
        };
        s = s * 1.2 + w;
    }
    s
}

fn in_a_loop_d(x: D, n: i32) -> D {
    let mut s = x;
    for i in 0..n {
        let w = match i % 5 {
            0 => continue,
            1 => x * i as f64,
            2 if s.re > 6.0 => break,
            3 if s.re < -6.0 => return s * x,
            4 => s.cos(),
            _ => c(0.5),
        };
        s = s * 1.2 + w;
    }
    s
}

#[test]
fn match_arms_that_leave_a_loop() {
    for n in [0, 1, 4, 9, 23] {
        for x in grid(-3.0, 3.0, 49) {
            seen1!(in_a_loop, in_a_loop_d, x, n).check(&format!("in_a_loop({x}, {n})"));
        }
    }
}

/// f32, with a `match` on a cast of a float to an integer: the cast has no derivative.
#[differentiable]
fn bucket(x: f32) -> f32 {
    let b = (x * 2.0).floor() as i32;
    match b {
        i32::MIN..=-1 => x * x,
        0 | 1 => x.sin() + 1.0,
        _ => x.sqrt(),
    }
}

fn bucket_d(x: D) -> D {
    match ((x.re as f32) * 2.0).floor() as i32 {
        i32::MIN..=-1 => x * x,
        0 | 1 => x.sin() + 1.0,
        _ => x.sqrt(),
    }
}

/// See `f32_break_and_continue` in `test_break_continue.rs` for the f32 tolerance.
#[test]
fn f32_match_on_a_cast() {
    for x in grid(-1.5, 3.0, 46) {
        let x = x as f32;
        let want = bucket_d(D::new(f64::from(x), 1.0));
        let (v, t) = ad::jvp(bucket, (x,), (1.0,));
        let (gv, (g,)) = ad::value_and_grad(bucket, (x,));
        assert_eq!(v.to_bits(), bucket(x).to_bits());
        assert_eq!(gv.to_bits(), v.to_bits());
        for d in [t, g] {
            assert!(
                close(f64::from(d), want.eps, 1e-5),
                "bucket({x}): {d} vs {}",
                want.eps
            );
        }
    }
}

/// Calls functions with `match`es.
#[differentiable]
fn caller(x: f64) -> f64 {
    piecewise(x, 4) * guarded(x, 3) + in_a_loop(x, 9)
}

fn caller_d(x: D) -> D {
    piecewise_d(x, 4) * guarded_d(x, 3) + in_a_loop_d(x, 9)
}

#[test]
fn calls_of_functions_with_matches() {
    for x in grid(-2.0, 2.0, 41) {
        seen1!(caller, caller_d, x).check(&format!("caller({x})"));
    }
}
