//! `Option`s that carry derivatives: `Some(e)` built in a body, matched by `match`, `if let`,
//! `while let` and `let ... else` (also inside tuples and around tuples and arrays, and with
//! `@`), taken out by `.unwrap()` and `.expect(..)`, passed to and returned from differentiable
//! functions, and as parameters of the entry points; in both modes, against dual numbers (see
//! `tests/dual_check/mod.rs` for what is asserted and why the tolerance is what it is). Every
//! arm is taken at some of the inputs.
//!
//! The tangent and the adjoint of an `Option<T>` are `Option`s of `T`'s: `Some` where the value
//! is, so a pattern that matches the value matches them too.

// Index loops are the spelling under test.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, TOL, c, close, grid};

/// The largest square so far, kept in an `Option` that starts `None`: `is_none()` and
/// `unwrap()` in a condition, a guard that reads the binding.
#[differentiable]
fn largest_square(x: f64, y: f64) -> f64 {
    let v = [x, y, x * y, y - x];
    let mut best = None;
    for i in 0..v.len() {
        if best.is_none() || v[i] * v[i] > best.unwrap() {
            best = Some(v[i] * v[i]);
        }
    }
    match best {
        Some(b) if b > 1.0 => b.sqrt() * x,
        Some(b) => b + y,
        None => 0.0,
    }
}

fn largest_square_d(x: D, y: D) -> D {
    let v = [x, y, x * y, y - x];
    let mut best: Option<D> = None;
    for i in 0..v.len() {
        if best.is_none() || (v[i] * v[i]).re > best.unwrap().re {
            best = Some(v[i] * v[i]);
        }
    }
    match best {
        Some(b) if b.re > 1.0 => b.sqrt() * x,
        Some(b) => b + y,
        None => c(0.0),
    }
}

#[test]
fn a_running_best_kept_in_an_option() {
    for x in grid(-1.7, 1.5, 9) {
        for y in grid(-1.3, 1.9, 9) {
            seen2!(largest_square, largest_square_d, x, y)
                .check(&format!("largest_square({x}, {y})"));
        }
    }
}

/// `Some` around a tuple and an array, `@` beside the parts, an `Option` inside a tuple.
#[differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let p = if x > -0.5 { Some((x, y * x)) } else { None };
    let q = match p {
        Some(all @ (a, b)) if a > 0.0 => a * b + all.0 * all.1,
        Some((a, _)) => a.sin(),
        None => y,
    };
    let r: Option<[f64; 2]> = Some([q, x]);
    let s = match r {
        Some([u, v]) => u * v,
        None => 0.0,
    };
    let t = (Some(s), y * 2.0);
    match t {
        (Some(u), w) => u * w,
        (None, w) => w,
    }
}

fn nested_d(x: D, y: D) -> D {
    let q = if x.re > 0.0 {
        x * (y * x) + x * (y * x)
    } else if x.re > -0.5 {
        x.sin()
    } else {
        y
    };
    q * x * (y * 2.0)
}

#[test]
fn patterns_inside_and_around_some() {
    for x in grid(-1.5, 1.5, 13) {
        for y in grid(-1.0, 2.0, 7) {
            seen2!(nested, nested_d, x, y).check(&format!("nested({x}, {y})"));
        }
    }
}

/// `while let` over an `Option` the loop assigns, whose old values the reverse sweep needs;
/// `let ... else` that returns; `expect`.
#[differentiable]
fn chained(x: f64, y: f64, n: usize) -> f64 {
    let v = [x, y, x + y, x * y, 0.5];
    let mut s = 0.0;
    let mut i = 0;
    let mut cur = if n > 0 { Some(v[0]) } else { None };
    while let Some(cv) = cur {
        s += cv * cv;
        i += 1;
        cur = if i < n && i < v.len() {
            Some(v[i] * cv)
        } else {
            None
        };
    }
    let last = if s > 0.25 { Some(s) } else { None };
    let Some(l) = last else { return s * y };
    l.sqrt() + last.expect("tested above") * x
}

fn chained_d(x: D, y: D, n: usize) -> D {
    let v = [x, y, x + y, x * y, c(0.5)];
    let mut s = c(0.0);
    let mut i = 0;
    let mut cur = if n > 0 { Some(v[0]) } else { None };
    while let Some(cv) = cur {
        s += cv * cv;
        i += 1;
        cur = if i < n && i < v.len() {
            Some(v[i] * cv)
        } else {
            None
        };
    }
    if s.re > 0.25 { s.sqrt() + s * x } else { s * y }
}

#[test]
fn while_let_and_let_else_over_options() {
    for n in 0..7 {
        for x in grid(-1.2, 1.2, 7) {
            for y in grid(-0.9, 1.1, 5) {
                seen2!(chained, chained_d, x, y, n).check(&format!("chained({x}, {y}, {n})"));
            }
        }
    }
}

/// An `Option` returned by one differentiable function and matched by another, and an
/// `Option` passed to one: `Some` of an active value, and `None`.
#[differentiable]
fn checked_sqrt(x: f64) -> Option<f64> {
    if x > 0.0 { Some(x.sqrt()) } else { None }
}

#[differentiable]
fn scaled(o: Option<f64>, k: f64) -> f64 {
    match o {
        Some(v) => v * k,
        None => k * k,
    }
}

#[differentiable]
fn through_calls(x: f64, y: f64) -> f64 {
    let r = match checked_sqrt(x * y) {
        Some(s) => s * x,
        None => -x,
    };
    scaled(checked_sqrt(x), y) + scaled(None, r) + scaled(Some(r * r), x)
}

fn through_calls_d(x: D, y: D) -> D {
    let sq = |v: D| if v.re > 0.0 { Some(v.sqrt()) } else { None };
    let sc = |o: Option<D>, k: D| match o {
        Some(v) => v * k,
        None => k * k,
    };
    let r = match sq(x * y) {
        Some(s) => s * x,
        None => -x,
    };
    sc(sq(x), y) + sc(None, r) + sc(Some(r * r), x)
}

#[test]
fn options_returned_and_passed_between_functions() {
    for x in grid(-1.5, 1.5, 8) {
        for y in grid(-1.0, 2.0, 7) {
            seen2!(through_calls, through_calls_d, x, y).check(&format!("through_calls({x}, {y})"));
        }
    }
}

/// An `Option` as a parameter of the entry points: its tangent and its adjoint are `Option`s,
/// `Some` where it is.
#[test]
fn an_option_parameter_takes_and_gives_options() {
    for k in grid(-1.0, 2.0, 7) {
        for v in grid(0.1, 2.0, 5) {
            let o = Some(v);
            let (y, dy) = ad::jvp(scaled, (o, k), (Some(1.0), 0.0));
            assert_eq!(y.to_bits(), scaled(o, k).to_bits());
            assert!(close(dy, k, TOL), "jvp d/dv at ({v}, {k}): {dy}");
            let (gv, gk) = ad::grad(scaled, (o, k));
            assert_eq!(gv, Some(k));
            assert!(close(gk, v, TOL));
        }
        let (gv, gk) = ad::grad(scaled, (None, k));
        assert_eq!(gv, None, "the adjoint of `None` is `None`");
        assert!(close(gk, 2.0 * k, TOL));
        let (_, dy) = ad::jvp(scaled, (None, k), (None, 1.0));
        assert!(close(dy, 2.0 * k, TOL));
    }
    // A tangent of the wrong variant is an error, not a silent zero.
    let wrong = ad::try_jvp(scaled, (Some(1.0), 2.0), (None, 1.0));
    assert!(wrong.is_err(), "{wrong:?}");
}

/// An `Option` of a `Vec` built from active values, in `f32`.
#[differentiable]
fn of_vec(x: f32, y: f32) -> f32 {
    let o = if x > 0.0 {
        Some(vec![x, y * x, y])
    } else {
        None
    };
    let mut s = y;
    if let Some(w) = o {
        for i in 0..w.len() {
            s += w[i] * w[(i + 1) % w.len()];
        }
    }
    s
}

fn of_vec_d(x: D, y: D) -> D {
    if x.re > 0.0 {
        let w = [x, y * x, y];
        let mut s = y;
        for i in 0..3 {
            s += w[i] * w[(i + 1) % 3];
        }
        s
    } else {
        y
    }
}

#[test]
fn an_option_of_a_vec_in_f32() {
    for x in grid(-1.0, 1.5, 6) {
        for y in grid(-1.0, 1.0, 5) {
            let (xf, yf) = (x as f32, y as f32);
            let (xr, yr) = (f64::from(xf), f64::from(yf));
            let want = [
                of_vec_d(D::new(xr, 1.0), D::new(yr, 0.0)).eps,
                of_vec_d(D::new(xr, 0.0), D::new(yr, 1.0)).eps,
            ];
            let g = ad::grad(of_vec, (xf, yf));
            let jx = ad::jvp(of_vec, (xf, yf), (1.0, 0.0)).1;
            let jy = ad::jvp(of_vec, (xf, yf), (0.0, 1.0)).1;
            // f32 rounding of a handful of operations on values below 10: see
            // `f32_break_and_continue` in `test_break_continue.rs`.
            for (got, w) in [(g.0, want[0]), (g.1, want[1]), (jx, want[0]), (jy, want[1])] {
                assert!(
                    close(f64::from(got), w, 1e-5),
                    "of_vec({x}, {y}): {got} vs {w}"
                );
            }
        }
    }
}

/// `Option`s assigned in every iteration from their own old value (`Some(o.unwrap() * ..)`,
/// a `match` on the old value): the reverse sweep needs each old value back.
#[differentiable]
fn carried(x: f64, y: f64) -> f64 {
    let v = [x, y, x * y, y.cos(), x - 0.25];
    let mut best: Option<(f64, f64)> = None;
    for i in 0..v.len() {
        best = match best {
            None => Some((v[i], 1.0)),
            Some((a, b)) => Some((a * v[i] + b, b * v[i].sin())),
        };
    }
    let mut o = Some(v[0]);
    for i in 1..v.len() {
        o = Some(o.unwrap() * v[i] + 0.5);
    }
    match best {
        Some((a, b)) => a * b + o.expect("set before the loop"),
        None => 0.0,
    }
}

fn carried_d(x: D, y: D) -> D {
    let v = [x, y, x * y, y.cos(), x - 0.25];
    let (mut a, mut b) = (v[0], c(1.0));
    for i in 1..v.len() {
        (a, b) = (a * v[i] + b, b * v[i].sin());
    }
    let mut o = v[0];
    for i in 1..v.len() {
        o = o * v[i] + 0.5;
    }
    a * b + o
}

#[test]
fn options_assigned_from_their_old_values_in_loops() {
    for x in grid(-1.5, 1.5, 9) {
        for y in grid(-1.0, 2.0, 9) {
            seen2!(carried, carried_d, x, y).check(&format!("carried({x}, {y})"));
        }
    }
}
