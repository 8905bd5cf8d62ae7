//! `break` and `continue` in `for` and `while` loops, in both modes, against dual numbers (see
//! `tests/dual_check/mod.rs` for what is asserted and why the tolerance is what it is).
//!
//! The inputs are chosen so that each function takes each of its paths: loops that end by their
//! condition, by a `break` in the first, a middle or the last iteration, or not at all (zero
//! trips); iterations cut short by `continue` before anything is computed, in the middle, or
//! not at all.

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, c, close, grid};

/// y_{k+1} = 1.5 y_k + sin x, then + x / 4, until y >= 100, or until a `break` two `if`s deep
/// once y > 50 after the second step; the result is y x.
#[allow(clippy::collapsible_if)] // the `break` two `if`s deep is the point
#[differentiable]
fn grow_until(x: f64) -> f64 {
    let mut y = x;
    let mut steps = 0;
    while y < 100.0 {
        y = y * 1.5 + x.sin();
        steps += 1;
        if steps > 2 {
            if y > 50.0 {
                break;
            }
        }
        y += 0.25 * x;
    }
    y * x
}

fn grow_until_d(x: D) -> D {
    let mut y = x;
    let mut steps = 0;
    while y.re < 100.0 {
        y = y * 1.5 + x.sin();
        steps += 1;
        if steps > 2 && y.re > 50.0 {
            break;
        }
        y += x * 0.25;
    }
    y * x
}

#[test]
fn break_two_ifs_deep_in_a_while_with_a_float_condition() {
    let mut by_break = 0;
    let mut by_condition = 0;
    // x = 120: no iteration at all.
    for x in grid(0.3, 70.0, 60).chain([120.0]) {
        seen1!(grow_until, grow_until_d, x).check(&format!("grow_until({x})"));
        // Which way the loop ended, recomputed: both occur on this grid.
        let mut y = x;
        let mut steps = 0;
        let mut broke = false;
        while y < 100.0 {
            y = y * 1.5 + x.sin();
            steps += 1;
            if steps > 2 && y > 50.0 {
                broke = true;
                break;
            }
            y += 0.25 * x;
        }
        if broke {
            by_break += 1;
        } else {
            by_condition += 1;
        }
    }
    assert!(
        by_break > 10 && by_condition > 10,
        "{by_break} {by_condition}"
    );
}

/// Sum over 0 < i < n, i not a multiple of 3, of cos(x i) where sin(x i) > 0.5 (then
/// `continue`), else x^2 i. The first `continue` is the body's first statement.
#[differentiable]
fn skip_some(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i % 3 == 0 {
            continue;
        }
        let t = x * i as f64;
        if t.sin() > 0.5 {
            s += t.cos();
            continue;
        }
        s += t * x;
    }
    s
}

fn skip_some_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    for i in 0..n {
        if i % 3 == 0 {
            continue;
        }
        let t = x * i as f64;
        if t.re.sin() > 0.5 {
            s += t.cos();
            continue;
        }
        s += t * x;
    }
    s
}

#[test]
fn continue_first_and_in_the_middle_of_a_for_body() {
    for n in [0, 1, 2, 4, 7, 12] {
        for x in grid(-2.0, 2.0, 41) {
            seen1!(skip_some, skip_some_d, x, n).check(&format!("skip_some({x}, {n})"));
        }
    }
}

/// For each i < n except 2 (`continue`): p = prod_j (x + j / 4) over j < n until p > 4 (`break`
/// of the inner `while`), then s += (i + 1) ln p, until s > 30 (`break` of the outer `for`).
#[differentiable]
fn nested(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i == 2 {
            continue;
        }
        let mut p = 1.0;
        let mut j = 0;
        while j < n {
            p *= x + j as f64 * 0.25;
            j += 1;
            if p > 4.0 {
                break;
            }
        }
        s += p.ln() * (i as f64 + 1.0);
        if s > 30.0 {
            break;
        }
    }
    s
}

fn nested_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    for i in 0..n {
        if i == 2 {
            continue;
        }
        let mut p = c(1.0);
        let mut j = 0;
        while j < n {
            p *= x + j as f64 * 0.25;
            j += 1;
            if p.re > 4.0 {
                break;
            }
        }
        s += p.ln() * (i as f64 + 1.0);
        if s.re > 30.0 {
            break;
        }
    }
    s
}

#[test]
fn break_and_continue_refer_to_the_innermost_loop() {
    for n in [0, 1, 3, 6, 9] {
        for x in grid(0.2, 3.5, 34) {
            seen1!(nested, nested_d, x, n).check(&format!("nested({x}, {n})"));
        }
    }
}

/// s = s x + 1 each iteration, then `break` at once if x > 0 (one partial iteration), else
/// s = sin s and `break` in the sixth iteration.
#[differentiable]
fn first_break(x: f64) -> f64 {
    let mut s = x;
    for i in 0..10 {
        s = s * x + 1.0;
        if x > 0.0 || i == 5 {
            break;
        }
        s = s.sin();
    }
    s
}

fn first_break_d(x: D) -> D {
    let mut s = x;
    for i in 0..10 {
        s = s * x + 1.0;
        if x.re > 0.0 || i == 5 {
            break;
        }
        s = s.sin();
    }
    s
}

/// s = s x + i for i < min(k, 8): the `break` is the body's first statement, so with k = 0 the
/// only iteration ends before it computes anything.
#[differentiable]
fn break_first_statement(x: f64, k: i32) -> f64 {
    let mut s = 1.0;
    for i in 0..8 {
        if i >= k {
            break;
        }
        s = s * x + i as f64;
    }
    s * x
}

fn break_first_statement_d(x: D, k: i32) -> D {
    let mut s = c(1.0);
    for i in 0..8 {
        if i >= k {
            break;
        }
        s = s * x + i as f64;
    }
    s * x
}

#[test]
fn break_in_the_first_iteration_and_as_the_first_statement() {
    for x in grid(-1.5, 1.5, 30) {
        seen1!(first_break, first_break_d, x).check(&format!("first_break({x})"));
        for k in [0, 1, 3, 8, 10] {
            seen1!(break_first_statement, break_first_statement_d, x, k)
                .check(&format!("break_first_statement({x}, {k})"));
        }
    }
}

/// Two coupled sequences with a `break` in an `else` inside an `if`, and a `continue` in the
/// other branch; the loop counter is advanced at the top, so `continue` does not skip it.
#[differentiable]
fn deep(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    let mut k = 0;
    while k < 8 {
        k += 1;
        let t = a * b;
        if t > 1.0 {
            if a > b {
                a -= 0.3 * b;
            } else {
                b *= 0.5;
                break;
            }
        } else {
            a += t.exp() * 0.1;
            if a > 2.0 {
                continue;
            } else {
                b += 0.2 * a;
            }
        }
        a = a.sin() + b;
    }
    a * b
}

fn deep_d(x: D, y: D) -> D {
    let mut a = x;
    let mut b = y;
    let mut k = 0;
    while k < 8 {
        k += 1;
        let t = a * b;
        if t.re > 1.0 {
            if a.re > b.re {
                a -= b * 0.3;
            } else {
                b *= 0.5;
                break;
            }
        } else {
            a += t.exp() * 0.1;
            if a.re > 2.0 {
                continue;
            } else {
                b += a * 0.2;
            }
        }
        a = a.sin() + b;
    }
    a * b
}

#[test]
fn break_and_continue_in_both_branches_of_nested_ifs() {
    for x in grid(-1.5, 2.5, 17) {
        for y in grid(-1.5, 2.5, 17) {
            seen2!(deep, deep_d, x, y).check(&format!("deep({x}, {y})"));
        }
    }
}

/// The value of an `if` whose `else` is `break`: s = sum_{i < min(n, ceil x)} w sin w with
/// w = i sqrt x.
#[differentiable]
fn value_or_break(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let w = if (i as f64) < x {
            x.sqrt() * i as f64
        } else {
            break;
        };
        s += w * w.sin();
    }
    s
}

fn value_or_break_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    for i in 0..n {
        let w = if (i as f64) < x.re {
            x.sqrt() * i as f64
        } else {
            break;
        };
        s += w * w.sin();
    }
    s
}

#[test]
fn break_as_the_value_of_a_branch() {
    for n in [0, 3, 10] {
        for x in grid(0.1, 6.0, 40) {
            seen1!(value_or_break, value_or_break_d, x, n)
                .check(&format!("value_or_break({x}, {n})"));
        }
    }
}

/// Calls functions with `break` and `continue`, also in a loop: their reverse sweeps run from
/// the tape inside this one's, and the value of `skip_some(x, 5)` is unused, so its reverse sweep
/// only pops.
#[differentiable]
fn caller(x: f64) -> f64 {
    let a = nested(x, 4);
    let _unused = skip_some(x, 5);
    let mut b = 0.0;
    for n in 0..4 {
        b += skip_some(x, 2 * n + 1);
        if b > 3.0 {
            break;
        }
    }
    a * grow_until(x) + deep(x, 0.5) + b
}

fn caller_d(x: D) -> D {
    let a = nested_d(x, 4);
    let mut b = c(0.0);
    for n in 0..4 {
        b += skip_some_d(x, 2 * n + 1);
        if b.re > 3.0 {
            break;
        }
    }
    a * grow_until_d(x) + deep_d(x, c(0.5)) + b
}

#[test]
fn calls_of_functions_with_break_and_continue() {
    for x in grid(0.3, 3.0, 28) {
        seen1!(caller, caller_d, x).check(&format!("caller({x})"));
    }
}

/// f32: sum of sin(x i) over odd i <= n (`continue` on even i), until the sum exceeds 1.5.
#[differentiable]
fn odd_sines(x: f32, n: i32) -> f32 {
    let mut s = 0.0;
    let mut i = 0;
    while i < n {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        s += (x * i as f32).sin();
        if s > 1.5 {
            break;
        }
    }
    s
}

fn odd_sines_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    let mut i = 0;
    while i < n {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        s += (x * i as f64).sin();
        // The f32 sum decides the path; the f64 oracle follows it.
        if odd_sines(x.re as f32, i) > 1.5 {
            break;
        }
    }
    s
}

/// f32 has eps = 1.2e-7; some twenty operations with O(1) condition numbers stay below 1e-6
/// relative, so 1e-5 bounds correct f32 derivatives against the f64 oracle (run at the f32
/// inputs, which are exact), far below the O(1) error of a wrong one.
#[test]
fn f32_break_and_continue() {
    for n in [0, 1, 6, 20] {
        for x in grid(-1.0, 1.0, 41) {
            let x = x as f32;
            let want = odd_sines_d(D::new(f64::from(x), 1.0), n);
            let (v, t) = ad::jvp(odd_sines, (x, n), (1.0, ad::NoTangent));
            let (gv, (g, _)) = ad::value_and_grad(odd_sines, (x, n));
            assert_eq!(v.to_bits(), odd_sines(x, n).to_bits());
            assert_eq!(gv.to_bits(), v.to_bits());
            for d in [t, g] {
                assert!(
                    close(f64::from(d), want.eps, 1e-5),
                    "odd_sines({x}, {n}): {d} vs {}",
                    want.eps
                );
            }
        }
    }
}

/// Labels on loops that no jump names: unlabelled `break` and `continue` refer to the innermost
/// loop (labelled jumps: `tests/test_labels.rs`).
#[allow(unused_labels)]
#[differentiable]
fn labelled(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    'rows: for i in 0..n {
        'cols: for j in 0..n {
            if j == i {
                continue;
            }
            s += x.powi(j) / (i + 1) as f64;
            if s > 5.0 {
                break;
            }
        }
    }
    s
}

fn labelled_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    for i in 0..n {
        for j in 0..n {
            if j == i {
                continue;
            }
            s += x.powi(j) / (i + 1) as f64;
            if s.re > 5.0 {
                break;
            }
        }
    }
    s
}

#[test]
fn labelled_loops_with_unlabelled_jumps() {
    for n in [0, 2, 5] {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(labelled, labelled_d, x, n).check(&format!("labelled({x}, {n})"));
        }
    }
}
