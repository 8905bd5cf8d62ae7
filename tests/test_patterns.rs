//! Patterns that bind: `match` arms with bindings (enum payloads, `Option`, tuples, arrays, `@`,
//! guards that read the bindings), `if let`, `while let` and `let ... else`, in both modes,
//! against dual numbers (see `tests/dual_check/mod.rs` for what is asserted and why the tolerance
//! is what it is). Every arm is taken at some of the inputs.
//!
//! A binding of a tuple or array part carries the part's derivative; a binding through an enum,
//! an `Option` or `@` has none (the value it examines carries none: `ui-tests/
//! match-binding-with-derivative.rs`).

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, grid};

/// Configuration chosen from an integer: a payload without a derivative.
#[derive(Clone, Copy)]
enum Law {
    Scaled(f64),
    Power(i32),
    Flat,
}

fn law_of(k: i32) -> Law {
    match k {
        0 => Law::Scaled(2.5),
        1..=4 => Law::Power(k),
        _ => Law::Flat,
    }
}

/// Arms that bind an enum's payload, with a guard that reads the binding and one that reads a
/// float.
#[differentiable]
fn by_law(x: f64, k: i32) -> f64 {
    let law = law_of(k);
    match law {
        Law::Scaled(a) => a * x.sin(),
        Law::Power(n) if n > 2 => x.powi(n),
        Law::Power(n) if x > 0.5 => x * n as f64,
        Law::Power(mut n) => {
            n += 1;
            x * x * n as f64
        }
        Law::Flat => x,
    }
}

fn by_law_d(x: D, k: i32) -> D {
    match law_of(k) {
        Law::Scaled(a) => x.sin() * a,
        Law::Power(n) if n > 2 => x.powi(n),
        Law::Power(n) if x.re > 0.5 => x * n as f64,
        Law::Power(n) => x * x * (n + 1) as f64,
        Law::Flat => x,
    }
}

#[test]
fn match_arms_bind_an_enum_payload() {
    for k in -1..=6 {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(by_law, by_law_d, x, k).check(&format!("by_law({x}, {k})"));
        }
    }
}

/// An `Option` of an index found in a loop: `Some(i)` with a guard on the binding, `@` with a
/// range, `None`.
#[differentiable]
fn picked(x: f64, n: usize) -> f64 {
    let mut at = None;
    let mut t = x;
    for i in 0..n {
        t = t * 0.75 + 0.1;
        if t < 0.5 {
            at = Some(i);
            break;
        }
    }
    match at {
        Some(0) => t,
        Some(i @ 1..=2) => t * x * i as f64,
        Some(i) if i % 2 == 0 => t.exp(),
        Some(_) => t * t,
        None => -t,
    }
}

fn picked_d(x: D, n: usize) -> D {
    let mut at = None;
    let mut t = x;
    for i in 0..n {
        t = t * 0.75 + 0.1;
        if t.re < 0.5 {
            at = Some(i);
            break;
        }
    }
    match at {
        Some(0) => t,
        Some(i @ 1..=2) => t * x * i as f64,
        Some(i) if i % 2 == 0 => t.exp(),
        Some(_) => t * t,
        None => -t,
    }
}

#[test]
fn match_on_an_option_binds_its_index() {
    for n in 0..8 {
        for x in grid(-1.0, 3.0, 41) {
            seen1!(picked, picked_d, x, n).check(&format!("picked({x}, {n})"));
        }
    }
}

/// Arms that bind the parts of a tuple and of an array of floats: their derivatives flow.
#[differentiable]
#[allow(clippy::match_single_binding)] // an irrefutable arm that binds, as the test means
fn parts(x: f64, y: f64, k: i32) -> f64 {
    let pair = (x * y, k);
    let a = match pair {
        (p, 0) => p.sin(),
        (p, m) if m > 0 => p * m as f64,
        (p, _) => -p,
    };
    let b = match [x, y, x + y] {
        [u, v, ..] if u > v => u * v,
        [u, _, w] => u * w,
    };
    match (a, b) {
        (s, t) => s + t * t,
    }
}

fn parts_d(x: D, y: D, k: i32) -> D {
    let p = x * y;
    let a = match k {
        0 => p.sin(),
        m if m > 0 => p * m as f64,
        _ => -p,
    };
    let b = if x.re > y.re { x * y } else { x * (x + y) };
    a + b * b
}

#[test]
fn tuple_and_array_patterns_pass_derivatives_on() {
    for k in -1..=2 {
        for x in grid(-1.5, 1.5, 7) {
            for y in grid(-1.0, 2.0, 7) {
                seen2!(parts, parts_d, x, y, k).check(&format!("parts({x}, {y}, {k})"));
            }
        }
    }
}

/// `if let` with `else if` and `else`, as a value and as a statement.
#[differentiable]
fn if_lets(x: f64, k: i32) -> f64 {
    let law = law_of(k);
    let mut y = if let Law::Power(n) = law {
        x.powi(n)
    } else if let Law::Scaled(a) = law {
        a * x
    } else {
        x.cos()
    };
    if let Law::Scaled(a) = law {
        y += a * y;
    }
    y
}

fn if_lets_d(x: D, k: i32) -> D {
    let law = law_of(k);
    let mut y = if let Law::Power(n) = law {
        x.powi(n)
    } else if let Law::Scaled(a) = law {
        x * a
    } else {
        x.cos()
    };
    if let Law::Scaled(a) = law {
        y += y * a;
    }
    y
}

#[test]
fn if_let_chooses_and_binds() {
    for k in -1..=6 {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(if_lets, if_lets_d, x, k).check(&format!("if_lets({x}, {k})"));
        }
    }
}

/// `while let` counting down through `checked_sub`, with a `continue` and a `break`.
#[differentiable]
fn while_lets(x: f64, n: u32) -> f64 {
    let mut y = x;
    let mut steps = Some(n);
    while let Some(k) = steps {
        steps = k.checked_sub(1);
        if k % 3 == 1 {
            continue;
        }
        y = y * 0.5 + y.sin();
        if y > 3.0 {
            break;
        }
    }
    y
}

fn while_lets_d(x: D, n: u32) -> D {
    let mut y = x;
    let mut steps = Some(n);
    while let Some(k) = steps {
        steps = k.checked_sub(1);
        if k % 3 == 1 {
            continue;
        }
        y = y * 0.5 + y.sin();
        if y.re > 3.0 {
            break;
        }
    }
    y
}

#[test]
fn while_let_runs_while_the_pattern_matches() {
    for n in 0..7 {
        for x in grid(-2.0, 8.0, 21) {
            seen1!(while_lets, while_lets_d, x, n).check(&format!("while_lets({x}, {n})"));
        }
    }
}

/// `let ... else` that returns early, and one whose bindings carry derivatives.
#[differentiable]
fn let_elses(x: f64, k: i32) -> f64 {
    let Law::Power(n) = law_of(k) else {
        return x.exp();
    };
    let (a, 1..=4) = (x * n as f64, n) else {
        unreachable!()
    };
    let [b, ..] = [x.sin(), a];
    a * b
}

fn let_elses_d(x: D, k: i32) -> D {
    let Law::Power(n) = law_of(k) else {
        return x.exp();
    };
    x * n as f64 * x.sin()
}

#[test]
fn let_else_binds_or_leaves() {
    for k in -1..=6 {
        for x in grid(-2.0, 2.0, 21) {
            seen1!(let_elses, let_elses_d, x, k).check(&format!("let_elses({x}, {k})"));
        }
    }
}

/// `let (a, b) = (b, a)` swaps (each name is bound to the element read before either is
/// bound), and `let (xi, xi1) = (p[i], p[i + 1])` binds elements: their derivatives flow.
#[differentiable]
fn swapped(x: f64, y: f64, n: i32) -> f64 {
    let (mut a, mut b) = (x, y * 2.0);
    for _ in 0..n {
        let (c, d) = (b, a);
        (a, b) = (c * 0.5 + d.sin(), d);
        (a, _) = (a + b, a);
        (b, a) = (a, b);
    }
    let (p, q): (f64, f64) = (a, b);
    p * q + a
}

fn swapped_d(x: D, y: D, n: i32) -> D {
    let (mut a, mut b) = (x, y * 2.0);
    for _ in 0..n {
        let (c, d) = (b, a);
        a = c * 0.5 + d.sin();
        b = d;
        a += b;
        std::mem::swap(&mut a, &mut b);
    }
    a * b + a
}

#[test]
fn tuple_lets_bind_each_element_read_before_any_binding() {
    for n in 0..4 {
        for x in grid(-1.5, 1.5, 7) {
            for y in grid(-1.0, 2.0, 7) {
                seen2!(swapped, swapped_d, x, y, n).check(&format!("swapped({x}, {y}, {n})"));
            }
        }
    }
}
