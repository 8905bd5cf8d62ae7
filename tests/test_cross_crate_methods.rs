//! A rule for a method, in another crate, serving a method call in a differentiated body:
//!
//! - `ad-test-model` (tests/crates/model): `struct Cell` with the method `fire` (no derivative,
//!   no rule there), and the `#[differentiable]` function `cell_out(c, x) = c.fire(x) * x`;
//! - `ad-test-stable-rules` (tests/crates/stable-rules): `#[custom_rule(forward, of =
//!   ad_test_model::Cell::fire)]`;
//! - this test differentiates `cell_out` in both modes (reverse mode converts the forward
//!   rule), then registers a run-time rule for `Cell::fire` after those derivatives were
//!   computed: the next call uses it, and dropping its guard restores the crate's rule.
//!
//! The oracle is num-dual's forward mode over the naive formula `x ln(1 + e^(w x + b))`, which
//! shares no code with `ad` or the rules crate.

use ad_test_stable_rules as _;

use ad_test_model::{Cell, cell_out};
use num_dual::{Dual64, DualNum};

/// `cell_out` over dual numbers, along `(dw, db, dx)`.
fn cell_out_dual(c: Cell, x: f64, (dw, db, dx): (f64, f64, f64)) -> (f64, f64) {
    let (w, b, x) = (
        Dual64::new(c.w, dw),
        Dual64::new(c.b, db),
        Dual64::new(x, dx),
    );
    let y = (Dual64::from_re(1.0) + (w * x + b).exp()).ln() * x;
    (y.re, y.eps)
}

/// A few correctly rounded operations on each side: a few ulps of the larger magnitude.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-13 * 1_f64.max(got.abs()).max(want.abs())
}

const POINTS: [(f64, f64, f64); 4] = [
    (0.5, -0.2, 1.3),
    (-1.2, 0.4, 0.7),
    (2.0, 1.0, -0.9),
    (0.0, 0.0, 2.0),
];

#[test]
fn a_method_rule_from_another_crate_serves_calls_in_bodies_in_both_modes_then_a_run_time_rule() {
    for (w, b, x) in POINTS {
        let c = Cell { w, b };
        let directions = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)];
        let (gc, gx) = ad::grad(cell_out, (&c, x));
        let grad = [gc.w, gc.b, gx];
        for (k, d) in directions.into_iter().enumerate() {
            let (want_v, want_d) = cell_out_dual(c, x, d);
            let (v, t) = ad::jvp(cell_out, (&c, x), (Cell { w: d.0, b: d.1 }, d.2));
            assert!(close(v, want_v), "value {v}, oracle {want_v}");
            assert!(close(t, want_d), "jvp d{k} = {t}, oracle {want_d}");
            assert!(
                close(grad[k], want_d),
                "grad d{k} = {}, oracle {want_d}",
                grad[k]
            );
        }
    }

    // A run-time rule registered after those derivatives: the next calls use it, in both modes
    // (its derivative is ten times the true one along every direction).
    let (w, b, x) = POINTS[0];
    let c = Cell { w, b };
    let guard = ad::rules::register_forward(Cell::fire, |c: &Cell, dc: Cell, x: f64, dx: f64| {
        let z = c.w * x + c.b;
        let s = 1.0 / (1.0 + (-z).exp());
        (
            (1.0 + z.exp()).ln(),
            10.0 * s * (dc.w * x + c.w * dx + dc.b),
        )
    });
    let fire = (1.0 + (w * x + b).exp()).ln();
    let (_, during) = ad::jvp(cell_out, (&c, x), (Cell { w: 1.0, b: 0.0 }, 0.0));
    let (_, want) = cell_out_dual(c, x, (1.0, 0.0, 0.0));
    // d/dw (fire * x) = fire' x * x: the rule's part is scaled, `fire`'s own value is not.
    assert!(
        close(during, 10.0 * want),
        "jvp under the run-time rule: {during}, want {}",
        10.0 * want
    );
    let (gc, gx) = ad::grad(cell_out, (&c, x));
    assert!(close(gc.w, 10.0 * want));
    let (_, want_x) = cell_out_dual(c, x, (0.0, 0.0, 1.0));
    // d/dx (fire(x) x) = fire'(x) x + fire: only the first part comes from the rule.
    assert!(close(gx, 10.0 * (want_x - fire) + fire));
    drop(guard);
    let (_, after) = ad::jvp(cell_out, (&c, x), (Cell { w: 1.0, b: 0.0 }, 0.0));
    assert!(
        close(after, want),
        "the crate's rule again after the guard: {after}, want {want}"
    );
}
