//! Early `return` inside loops, in both modes, against dual numbers (see `tests/dual_check/mod.rs`
//! for what is asserted and why the tolerance is what it is). The inputs make each function
//! return from inside its loops (in the first iteration and in later ones) and also finish them.

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, c, grid};

/// y_{i+1} = 1.5 y_i + i / 10 for i < n, returning x ln y as soon as y > 10, else y^2.
#[differentiable]
fn search(x: f64, n: i32) -> f64 {
    let mut y = x;
    for i in 0..n {
        y = y * 1.5 + i as f64 * 0.1;
        if y > 10.0 {
            return y.ln() * x;
        }
    }
    y * y
}

fn search_d(x: D, n: i32) -> D {
    let mut y = x;
    for i in 0..n {
        y = y * 1.5 + i as f64 * 0.1;
        if y.re > 10.0 {
            return y.ln() * x;
        }
    }
    y * y
}

#[test]
fn return_from_a_for_loop() {
    // From x = 6.7 the first iteration returns; n = 0 runs no iteration.
    for n in [0, 1, 3, 8] {
        for x in grid(0.5, 9.0, 52) {
            seen1!(search, search_d, x, n).check(&format!("search({x}, {n})"));
        }
    }
}

/// A `return` two `if`s deep inside a `while` inside a `for` inside an `if`, with an early
/// `return` outside the loops too.
#[differentiable]
fn nested_return(x: f64, y: f64) -> f64 {
    if x < -1.0 {
        return x * y;
    }
    let mut s = x;
    if x > 0.0 {
        for i in 0..4 {
            let mut t = s;
            let mut j = 0;
            while j < 5 {
                t = t * y + 0.1 * i as f64;
                if t > 3.0 {
                    if j > 1 {
                        return t * s;
                    }
                    t = t.sqrt();
                }
                j += 1;
            }
            s += t.sin();
        }
    } else {
        s *= y;
    }
    s + y
}

fn nested_return_d(x: D, y: D) -> D {
    if x.re < -1.0 {
        return x * y;
    }
    let mut s = x;
    if x.re > 0.0 {
        for i in 0..4 {
            let mut t = s;
            let mut j = 0;
            while j < 5 {
                t = t * y + 0.1 * i as f64;
                if t.re > 3.0 {
                    if j > 1 {
                        return t * s;
                    }
                    t = t.sqrt();
                }
                j += 1;
            }
            s += t.sin();
        }
    } else {
        s *= y;
    }
    s + y
}

#[test]
fn return_from_a_loop_nested_in_a_loop_inside_an_if() {
    for x in grid(-1.6, 2.5, 24) {
        for y in grid(0.2, 2.6, 25) {
            seen2!(nested_return, nested_return_d, x, y).check(&format!("nested_return({x}, {y})"));
        }
    }
}

/// A `while` with `continue` (so each iteration records how it ended), `break` and `return`:
/// a damped iteration that returns when it leaves [-4, 4].
#[differentiable]
fn every_exit(x: f64, n: i32) -> f64 {
    let mut a = x;
    let mut k = 0;
    while k < n {
        k += 1;
        a = a * 1.4 - 0.3 * a.sin();
        if a.abs() > 4.0 {
            return a * x;
        }
        if k % 3 == 0 {
            continue;
        }
        a += 0.2;
        if a < -3.0 {
            break;
        }
    }
    a + x
}

fn every_exit_d(x: D, n: i32) -> D {
    let mut a = x;
    let mut k = 0;
    while k < n {
        k += 1;
        a = a * 1.4 - a.sin() * 0.3;
        if a.re.abs() > 4.0 {
            return a * x;
        }
        if k % 3 == 0 {
            continue;
        }
        a += 0.2;
        if a.re < -3.0 {
            break;
        }
    }
    a + x
}

#[test]
fn return_break_and_continue_in_one_loop() {
    for n in [0, 2, 5, 12] {
        for x in grid(-3.5, 3.5, 57) {
            seen1!(every_exit, every_exit_d, x, n).check(&format!("every_exit({x}, {n})"));
        }
    }
}

/// Newton's iteration for sqrt(a), leaving its `loop` only by `return`: d sqrt(a) / da through
/// the converged iteration is 1 / (2 sqrt a) up to rounding.
#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    loop {
        let next = 0.5 * (x + a / x);
        if (next - x).abs() <= 1e-15 * x {
            return next;
        }
        x = next;
    }
}

fn newton_sqrt_d(a: D) -> D {
    let mut x = if a.re > 1.0 { a } else { c(1.0) };
    loop {
        let next = (x + a / x) * 0.5;
        if (next.re - x.re).abs() <= 1e-15 * x.re {
            return next;
        }
        x = next;
    }
}

#[test]
fn return_as_the_only_way_out_of_a_loop() {
    for a in grid(0.25, 9.0, 36) {
        seen1!(newton_sqrt, newton_sqrt_d, a).check(&format!("newton_sqrt({a})"));
        let (_, (g,)) = ad::value_and_grad(newton_sqrt, (a,));
        assert!(dual_check::close(g, 0.5 / a.sqrt(), 1e-12), "{a}: {g}");
    }
}

/// Calls functions that return from inside loops; the value of one is unused, so its reverse
/// sweep only pops what it recorded.
#[differentiable]
fn caller(x: f64) -> f64 {
    let _unused = every_exit(x, 7);
    search(x + 2.0, 6) * nested_return(x, 1.3) + newton_sqrt(x * x + 0.5)
}

fn caller_d(x: D) -> D {
    search_d(x + 2.0, 6) * nested_return_d(x, c(1.3)) + newton_sqrt_d(x * x + 0.5)
}

#[test]
fn calls_of_functions_that_return_from_loops() {
    for x in grid(-1.5, 2.5, 41) {
        seen1!(caller, caller_d, x).check(&format!("caller({x})"));
    }
}
