//! Labelled `break` and `continue` out of nested loops (`for`, `while`, `loop`, `while let`),
//! `break 'label value` out of an outer `loop`, and labelled blocks left early with a value, in
//! both modes, against dual numbers (see `tests/dual_check/mod.rs` for what is asserted and why
//! the tolerance is what it is). The oracles are the same loops over `num_dual::Dual64`, so every
//! jump is taken at some of the inputs and both follow the same path.

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, c, grid};

/// `break 'rows` and `continue 'rows` from an inner `for`, with work after the inner loop that
/// a jump skips.
#[differentiable]
fn grid_walk(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    'rows: for i in 0..n {
        for j in 0..n {
            if j > i {
                continue 'rows;
            }
            s += x.powi(j + 1) / (i + 1) as f64;
            if s > 4.0 {
                break 'rows;
            }
        }
        s *= 0.9;
    }
    s
}

fn grid_walk_d(x: D, n: i32) -> D {
    let mut s = c(0.0);
    'rows: for i in 0..n {
        for j in 0..n {
            if j > i {
                continue 'rows;
            }
            s += x.powi(j + 1) / (i + 1) as f64;
            if s.re > 4.0 {
                break 'rows;
            }
        }
        s *= 0.9;
    }
    s
}

#[test]
fn labelled_break_and_continue_leave_an_inner_for() {
    for n in 0..6 {
        for x in grid(-2.0, 2.0, 41) {
            seen1!(grid_walk, grid_walk_d, x, n).check(&format!("grid_walk({x}, {n})"));
        }
    }
}

/// Three levels: `continue 'outer` and `break 'outer` from the innermost `while`, through a
/// `loop` in the middle; the middle loop's own unlabelled `break`.
#[differentiable]
fn three_levels(x: f64, n: u32) -> f64 {
    let mut y = x;
    let mut k = 0;
    'outer: while k < n {
        k += 1;
        let mut m = 0;
        loop {
            m += 1;
            let mut i = 0;
            while i < 3 {
                i += 1;
                y = y * 0.8 + (y * 0.1).sin();
                if m + i > 4 {
                    continue 'outer;
                }
                if y.abs() > 50.0 {
                    break 'outer;
                }
            }
            y += 1.0;
            if m > 2 {
                break;
            }
        }
        y *= 1.5;
    }
    y
}

fn three_levels_d(x: D, n: u32) -> D {
    let mut y = x;
    let mut k = 0;
    'outer: while k < n {
        k += 1;
        let mut m = 0;
        loop {
            m += 1;
            let mut i = 0;
            while i < 3 {
                i += 1;
                y = y * 0.8 + (y * 0.1).sin();
                if m + i > 4 {
                    continue 'outer;
                }
                if y.re.abs() > 50.0 {
                    break 'outer;
                }
            }
            y += 1.0;
            if m > 2 {
                break;
            }
        }
        y *= 1.5;
    }
    y
}

#[test]
fn labelled_jumps_through_three_levels() {
    for n in 0..7 {
        for x in grid(-60.0, 60.0, 41) {
            seen1!(three_levels, three_levels_d, x, n).check(&format!("three_levels({x}, {n})"));
        }
    }
}

/// `break 'search value` out of an outer `loop` from an inner `for`, and the outer loop's own
/// `break value`.
#[differentiable]
fn search(x: f64, n: i32) -> f64 {
    let mut t = x;
    let mut round = 0;
    let found = 'search: loop {
        round += 1;
        for i in 0..n {
            t = t * t * 0.5 + 0.25;
            if t > 2.0 {
                break 'search t * i as f64;
            }
        }
        if round > 3 {
            break (t * t + 1.0).sqrt();
        }
    };
    found * x
}

fn search_d(x: D, n: i32) -> D {
    let mut t = x;
    let mut round = 0;
    let found = 'search: loop {
        round += 1;
        for i in 0..n {
            t = t * t * 0.5 + 0.25;
            if t.re > 2.0 {
                break 'search t * i as f64;
            }
        }
        if round > 3 {
            break (t * t + 1.0).sqrt();
        }
    };
    found * x
}

#[test]
fn labelled_break_with_a_value() {
    for n in 0..5 {
        for x in grid(-2.5, 2.5, 41) {
            seen1!(search, search_d, x, n).check(&format!("search({x}, {n})"));
        }
    }
}

/// A labelled block left early with a value from inside a loop, or with its tail.
#[differentiable]
fn early(x: f64, n: i32) -> f64 {
    let y = 'done: {
        if x < -1.0 {
            break 'done -x;
        }
        let mut s = x;
        for i in 0..n {
            s = s * 0.5 + x.sin();
            if s > 1.0 + i as f64 {
                break 'done s * 2.0;
            }
        }
        s + 1.0
    };
    y * y
}

fn early_d(x: D, n: i32) -> D {
    let y = 'done: {
        if x.re < -1.0 {
            break 'done -x;
        }
        let mut s = x;
        for i in 0..n {
            s = s * 0.5 + x.sin();
            if s.re > 1.0 + i as f64 {
                break 'done s * 2.0;
            }
        }
        s + 1.0
    };
    y * y
}

#[test]
fn labelled_block_left_early_with_a_value() {
    for n in 0..5 {
        for x in grid(-3.0, 4.0, 41) {
            seen1!(early, early_d, x, n).check(&format!("early({x}, {n})"));
        }
    }
}

/// `continue 'outer` from inside a `while let`, and `break 'outer` from a `for` over elements.
#[differentiable]
fn mixed(x: &[f64], n: u32) -> f64 {
    let mut s = 0.0;
    let mut rounds = Some(n);
    'outer: while let Some(r) = rounds {
        rounds = r.checked_sub(1);
        for v in x.iter() {
            s += v * v * (r + 1) as f64;
            if s > 20.0 {
                break 'outer;
            }
            if *v < 0.0 {
                continue 'outer;
            }
        }
        s *= 0.5;
    }
    s
}

fn mixed_d(x: &[D], n: u32) -> D {
    let mut s = c(0.0);
    let mut rounds = Some(n);
    'outer: while let Some(r) = rounds {
        rounds = r.checked_sub(1);
        for v in x.iter() {
            s += *v * *v * (r + 1) as f64;
            if s.re > 20.0 {
                break 'outer;
            }
            if v.re < 0.0 {
                continue 'outer;
            }
        }
        s *= 0.5;
    }
    s
}

#[test]
fn labelled_jumps_out_of_element_loops_and_while_let() {
    let points: [[f64; 3]; 4] = [
        [0.5, 1.0, 1.5],
        [0.5, -1.0, 1.5],
        [2.0, 2.0, 2.0],
        [-0.3, 0.4, 0.1],
    ];
    for n in 0..5 {
        for x in points {
            let (value, g) = ad::value_and_grad(mixed, (&x[..], n));
            let t = ad::jvp(mixed, (&x[..], n), (&[1.0, -2.0, 0.5][..], ad::NoTangent));
            let mut want_t = 0.0;
            for i in 0..3 {
                let seeded: Vec<D> = (0..3)
                    .map(|j| D::new(x[j], if i == j { 1.0 } else { 0.0 }))
                    .collect();
                let d = mixed_d(&seeded, n);
                assert_eq!(value.to_bits(), mixed(&x, n).to_bits());
                assert!(
                    dual_check::close(g.0[i], d.eps, dual_check::TOL),
                    "mixed({x:?}, {n}): d/dx{i} = {}, oracle {}",
                    g.0[i],
                    d.eps
                );
                want_t += d.eps * [1.0, -2.0, 0.5][i];
            }
            assert!(dual_check::close(t.1, want_t, dual_check::TOL));
        }
    }
}

/// A labelled `for` over a mapped chain: `continue 'outer` from an inner loop.
#[differentiable]
fn over_chain(x: &[f64], n: i32) -> f64 {
    let mut s = 0.0;
    'outer: for v in x.iter().map(|v| v * v) {
        for j in 0..n {
            if v * (j as f64) > 1.0 {
                continue 'outer;
            }
            s += v.sin();
        }
        s += v;
    }
    s
}

fn over_chain_d(x: &[D], n: i32) -> D {
    let mut s = c(0.0);
    'outer: for v in x.iter().map(|v| *v * *v) {
        for j in 0..n {
            if v.re * (j as f64) > 1.0 {
                continue 'outer;
            }
            s += v.sin();
        }
        s += v;
    }
    s
}

#[test]
fn labelled_continue_out_of_a_loop_over_a_chain() {
    let x = [0.4, -1.2, 0.9, 0.2];
    for n in 0..4 {
        let (_, g) = ad::value_and_grad(over_chain, (&x[..], n));
        for k in 0..4 {
            let xs: Vec<D> = (0..4)
                .map(|i| D::new(x[i], if i == k { 1.0 } else { 0.0 }))
                .collect();
            let want = over_chain_d(&xs, n).eps;
            assert!(
                dual_check::close(g.0[k], want, dual_check::TOL),
                "n {n}, d/dx{k}: {} vs {want}",
                g.0[k]
            );
        }
    }
}

/// A `loop`'s value set by a labelled `break` from an inner loop, of a type without `Default`:
/// an array of 40 elements (`Default` stops at 32).
#[differentiable]
fn wide(x: f64, n: i32) -> f64 {
    let mut t = x;
    let mut round = 0;
    let v = 'search: loop {
        round += 1;
        for i in 0..n {
            t = t * 0.5 + 0.3;
            if t > 0.6 {
                break 'search [t * i as f64; 40];
            }
        }
        if round > 2 {
            break [t; 40];
        }
    };
    v[0] + v[39] * x
}

fn wide_d(x: D, n: i32) -> D {
    let mut t = x;
    let mut round = 0;
    let v = 'search: loop {
        round += 1;
        for i in 0..n {
            t = t * 0.5 + 0.3;
            if t.re > 0.6 {
                break 'search [t * i as f64; 40];
            }
        }
        if round > 2 {
            break [t; 40];
        }
    };
    v[0] + v[39] * x
}

#[test]
fn a_loop_value_without_default() {
    for n in 0..4 {
        for x in grid(-1.0, 2.0, 13) {
            seen1!(wide, wide_d, x, n).check(&format!("wide({x}, {n})"));
        }
    }
}

/// The same break in a function generic over the float type.
#[differentiable]
fn wide_generic<T: num_traits::Float>(x: T, n: i32) -> T {
    let mut t = x;
    let mut round = 0;
    let v = 'search: loop {
        round += 1;
        for _ in 0..n {
            t = t * T::from(0.5).unwrap() + T::from(0.3).unwrap();
            if t > T::from(0.6).unwrap() {
                break 'search t;
            }
        }
        if round > 2 {
            break t * t;
        }
    };
    v * x
}

fn wide_generic_d(x: D, n: i32) -> D {
    let mut t = x;
    let mut round = 0;
    let v = 'search: loop {
        round += 1;
        for _ in 0..n {
            t = t * 0.5 + 0.3;
            if t.re > 0.6 {
                break 'search t;
            }
        }
        if round > 2 {
            break t * t;
        }
    };
    v * x
}

#[test]
fn a_loop_value_in_a_generic_function() {
    for n in 0..4 {
        for x in grid(-1.0, 2.0, 13) {
            seen1!(wide_generic::<f64>, wide_generic_d, x, n)
                .check(&format!("wide_generic({x}, {n})"));
        }
    }
}
