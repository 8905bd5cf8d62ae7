//! `loop`, with `break;` and with `break value;` (a `loop` used as an expression), in both modes,
//! against dual numbers (see `tests/dual_check/mod.rs` for what is asserted and why the
//! tolerance is what it is). The inputs make each `break` the one that ends the loop somewhere,
//! in the first iteration and in later ones.

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, c, grid};

/// y_{k+1} = 1.3 y_k + x + 0.1 sin(y_k) until y > 10, whose value is 2 y; the result adds x.
#[differentiable]
fn first_above(x: f64) -> f64 {
    let mut y = x;
    let r = loop {
        y = y * 1.3 + x + 0.1 * y.sin();
        if y > 10.0 {
            break y * 2.0;
        }
    };
    r + x
}

fn first_above_d(x: D) -> D {
    let mut y = x;
    let r = loop {
        y = y * 1.3 + x + y.sin() * 0.1;
        if y.re > 10.0 {
            break y * 2.0;
        }
    };
    r + x
}

#[test]
fn loop_value_from_a_break() {
    // From x = 12 the first iteration breaks.
    for x in grid(0.2, 14.0, 70) {
        seen1!(first_above, first_above_d, x).check(&format!("first_above({x})"));
    }
}

/// The `loop` is the function's tail, with two `break`s giving different values: the one of a
/// float test (y x), in any of the iterations, or, after six iterations, the other (exp(y / 4)).
/// y_k = cos(y_{k-1}) / 2 + k x / 4, + 0.1 if the loop goes on.
#[differentiable]
fn two_exits(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    loop {
        k += 1;
        y = 0.5 * y.cos() + 0.25 * k as f64 * x;
        if y > 1.5 {
            break y * x;
        }
        if k >= 6 {
            break (0.25 * y).exp();
        }
        y += 0.1;
    }
}

fn two_exits_d(x: D) -> D {
    let mut y = x;
    let mut k = 0;
    loop {
        k += 1;
        y = y.cos() * 0.5 + x * (0.25 * k as f64);
        if y.re > 1.5 {
            break y * x;
        }
        if k >= 6 {
            break (y * 0.25).exp();
        }
        y += 0.1;
    }
}

#[test]
fn loop_as_the_tail_with_two_valued_breaks() {
    // The float test ends the loop in each of the six iterations somewhere on this grid.
    for x in grid(-2.0, 7.0, 91) {
        seen1!(two_exits, two_exits_d, x).check(&format!("two_exits({x})"));
    }
}

/// `loop` with `break;` (no value) and `continue`: the sum of sin(i x) over odd i up to 9.
#[differentiable]
fn odd_terms(x: f64) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    loop {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        s += (x * i as f64).sin();
        if i >= 9 {
            break;
        }
    }
    s
}

fn odd_terms_d(x: D) -> D {
    let mut s = c(0.0);
    let mut i = 0;
    loop {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        s += (x * i as f64).sin();
        if i >= 9 {
            break;
        }
    }
    s
}

#[test]
fn loop_with_break_and_continue() {
    for x in grid(-3.0, 3.0, 61) {
        seen1!(odd_terms, odd_terms_d, x).check(&format!("odd_terms({x})"));
    }
}

/// A valued `loop` in each iteration of a `for`, breaking with an integer (no derivative) that
/// the result then uses as an exponent: s = sum_i x^{k_i} / (i + 1), where k_i is the number of
/// halvings of x + i below 1, at most 5.
#[differentiable]
fn halvings(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut h = x + i as f64;
        let mut count = 0;
        let k = loop {
            if h < 1.0 || count == 5 {
                break count;
            }
            h *= 0.5;
            count += 1;
        };
        s += x.powi(k) / (i as f64 + 1.0) + h;
    }
    s
}

fn halvings_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    for i in 0..n {
        let mut h = x + i as f64;
        let mut count = 0;
        let k = loop {
            if h.re < 1.0 || count == 5 {
                break count;
            }
            h *= 0.5;
            count += 1;
        };
        s += x.powi(k) / (i as f64 + 1.0) + h;
    }
    s
}

#[test]
fn valued_loops_nested_in_a_for() {
    for n in [0, 1, 4] {
        for x in grid(0.1, 9.0, 45) {
            seen1!(halvings, halvings_d, x, n).check(&format!("halvings({x}, {n})"));
        }
    }
}

/// Two floats: a `loop` (of at most `rounds + 1` iterations) whose value is used by an enclosing
/// `loop`'s value.
#[differentiable]
fn nested_values(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut rounds = 0;
    let total = loop {
        rounds += 1;
        let mut m = 0;
        let inner = loop {
            m += 1;
            a = a * y + 0.5;
            if a.abs() > 2.0 || m > rounds {
                break a.sin();
            }
            a += x;
            if a.abs() > 3.0 {
                break a * 0.5;
            }
        };
        if inner > 0.0 || rounds >= 4 {
            break inner * a;
        }
        a = inner + y;
    };
    total + a
}

fn nested_values_d(x: D, y: D) -> D {
    let mut a = x;
    let mut rounds = 0;
    let total = loop {
        rounds += 1;
        let mut m = 0;
        let inner = loop {
            m += 1;
            a = a * y + 0.5;
            if a.re.abs() > 2.0 || m > rounds {
                break a.sin();
            }
            a += x;
            if a.re.abs() > 3.0 {
                break a * 0.5;
            }
        };
        if inner.re > 0.0 || rounds >= 4 {
            break inner * a;
        }
        a = inner + y;
    };
    total + a
}

#[test]
fn loop_values_nested() {
    for x in grid(-1.5, 1.5, 19) {
        for y in grid(-1.2, 1.2, 19) {
            seen2!(nested_values, nested_values_d, x, y).check(&format!("nested_values({x}, {y})"));
        }
    }
}

/// One `break` gives a constant, without a derivative, the other y: y_k = x y_{k-1} + 1/4 from
/// y_0 = x, breaking with y once y > 2, or with 0 after 5 iterations.
#[differentiable]
fn capped(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    let r = loop {
        k += 1;
        if k > 5 {
            break 0.0;
        }
        y = y * x + 0.25;
        if y > 2.0 {
            break y;
        }
    };
    r * x + y
}

fn capped_d(x: D) -> D {
    let mut y = x;
    let mut k = 0;
    let r = loop {
        k += 1;
        if k > 5 {
            break c(0.0);
        }
        y = y * x + 0.25;
        if y.re > 2.0 {
            break y;
        }
    };
    r * x + y
}

#[test]
fn loop_value_from_a_constant_or_a_float() {
    // Both `break`s end the loop on this grid, the second in several different iterations.
    for x in grid(-1.5, 2.5, 81) {
        seen1!(capped, capped_d, x).check(&format!("capped({x})"));
    }
}

/// Calls a function whose value is a `loop`'s: its sweeps run on the caller's tape.
#[differentiable]
fn caller(x: f64) -> f64 {
    two_exits(x) * first_above(x * x + 0.5)
}

fn caller_d(x: D) -> D {
    two_exits_d(x) * first_above_d(x * x + 0.5)
}

#[test]
fn calls_of_functions_with_valued_loops() {
    for x in grid(-2.0, 2.5, 46) {
        seen1!(caller, caller_d, x).check(&format!("caller({x})"));
    }
}
