//! Functions as arguments: a differentiable function that takes a function (`F: Fn(..)`, or a
//! `fn(..)` pointer) and calls it, called with a `#[differentiable]` function item; its
//! derivative calls the argument's derivative through the registry, rules and all. The test
//! the language calls for: a classical RK4 integrator that takes its vector field as an
//! argument, differentiated with respect to the initial state and the field's parameters, in
//! both modes, against the same integrator written over `num_dual::Dual64` (tolerance 1e-12
//! relative: tests/dual_check/mod.rs says why).

#[macro_use]
mod dual_check;

use ad::differentiable;
use dual_check::{D, DualNum, TOL, close};

/// A damped nonlinear oscillator with parameters `p = [stiffness, damping, forcing]`:
/// `y0' = y1`, `y1' = -k sin(y0) - c y1 + a cos(t)`.
#[differentiable]
fn field(t: f64, y: &[f64], p: &[f64]) -> Vec<f64> {
    vec![y[1], -p[0] * y[0].sin() - p[1] * y[1] + p[2] * t.cos()]
}

fn field_d(t: D, y: &[D], p: &[D]) -> Vec<D> {
    vec![y[1], -p[0] * y[0].sin() - p[1] * y[1] + p[2] * t.cos()]
}

/// `n` classical Runge-Kutta steps of size `h` of `y' = f(t, y, p)` from `y0` at `t = 0`.
#[differentiable]
#[allow(clippy::manual_memcpy)] // the state is copied element by element, as the macro takes it
fn rk4<F>(f: F, y0: &[f64], p: &[f64], h: f64, n: usize) -> Vec<f64>
where
    F: Fn(f64, &[f64], &[f64]) -> Vec<f64>,
{
    let m = y0.len();
    let mut y = vec![0.0; m];
    for i in 0..m {
        y[i] = y0[i];
    }
    let mut t = 0.0;
    for _ in 0..n {
        let k1 = f(t, &y, p);
        let mut y2 = vec![0.0; m];
        for i in 0..m {
            y2[i] = y[i] + 0.5 * h * k1[i];
        }
        let k2 = f(t + 0.5 * h, &y2, p);
        let mut y3 = vec![0.0; m];
        for i in 0..m {
            y3[i] = y[i] + 0.5 * h * k2[i];
        }
        let k3 = f(t + 0.5 * h, &y3, p);
        let mut y4 = vec![0.0; m];
        for i in 0..m {
            y4[i] = y[i] + h * k3[i];
        }
        let k4 = f(t + h, &y4, p);
        for i in 0..m {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        t += h;
    }
    y
}

fn rk4_d(y0: &[D], p: &[D], h: f64, n: usize) -> Vec<D> {
    let m = y0.len();
    let mut y = y0.to_vec();
    let mut t = D::from(0.0);
    for _ in 0..n {
        let k1 = field_d(t, &y, p);
        let y2: Vec<D> = (0..m).map(|i| y[i] + k1[i] * (0.5 * h)).collect();
        let k2 = field_d(t + 0.5 * h, &y2, p);
        let y3: Vec<D> = (0..m).map(|i| y[i] + k2[i] * (0.5 * h)).collect();
        let k3 = field_d(t + 0.5 * h, &y3, p);
        let y4: Vec<D> = (0..m).map(|i| y[i] + k3[i] * h).collect();
        let k4 = field_d(t + h, &y4, p);
        for i in 0..m {
            y[i] += (k1[i] + k2[i] * 2.0 + k3[i] * 2.0 + k4[i]) * (h / 6.0);
        }
        t += h;
    }
    y
}

/// What is differentiated: a weighted sum of the state after 20 steps.
#[differentiable]
fn loss(y0: &[f64], p: &[f64]) -> f64 {
    let y = rk4(field, y0, p, 0.05, 20);
    y[0] * y[0] + 0.5 * y[1]
}

fn loss_d(y0: &[D], p: &[D]) -> D {
    let y = rk4_d(y0, p, 0.05, 20);
    y[0] * y[0] + y[1] * 0.5
}

#[test]
fn rk4_with_its_field_as_an_argument_in_both_modes() {
    let y0 = [0.8, -0.3];
    let p = [2.0, 0.15, 0.4];
    let value = loss(&y0, &p);
    let (gv, (gy, gp)) = ad::value_and_grad(loss, (&y0[..], &p[..]));
    let (pv, pullback) = ad::vjp(loss, (&y0[..], &p[..]));
    let (py, pp) = pullback(1.0);
    assert_eq!(gv.to_bits(), value.to_bits());
    assert_eq!(pv.to_bits(), value.to_bits());
    for k in 0..5 {
        let seed = |i: usize| if i == k { 1.0 } else { 0.0 };
        let yd: Vec<D> = (0..2).map(|i| D::new(y0[i], seed(i))).collect();
        let pd: Vec<D> = (0..3).map(|i| D::new(p[i], seed(2 + i))).collect();
        let want = loss_d(&yd, &pd);
        assert!(close(want.re, value, TOL), "{} against {value}", want.re);
        let dy: Vec<f64> = (0..2).map(seed).collect();
        let dp: Vec<f64> = (0..3).map(|i| seed(2 + i)).collect();
        let (tv, t) = ad::jvp(loss, (&y0[..], &p[..]), (&dy[..], &dp[..]));
        assert_eq!(tv.to_bits(), value.to_bits());
        let (g, b) = if k < 2 {
            (gy[k], py[k])
        } else {
            (gp[k - 2], pp[k - 2])
        };
        assert!(close(t, want.eps, TOL), "jvp {k}: {t}, oracle {}", want.eps);
        assert!(
            close(g, want.eps, TOL),
            "grad {k}: {g}, oracle {}",
            want.eps
        );
        assert!(close(b, want.eps, TOL), "vjp {k}: {b}, oracle {}", want.eps);
    }
}

/// `g(x) = x^3`, whose rules the next test registers at run time.
#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

/// A function pointer parameter, called twice.
#[differentiable]
fn twice(f: fn(f64) -> f64, x: f64) -> f64 {
    f(x) * f(2.0 * x)
}

/// `twice(cube, x) = 8 x^6`.
#[differentiable]
fn uses_twice(x: f64) -> f64 {
    twice(cube, x) + x
}

#[test]
fn a_function_pointer_parameter_calls_its_arguments_derivative() {
    for x in [-1.5, 0.3, 1.1] {
        // d/dx (8 x^6 + x) = 48 x^5 + 1
        let want = 48.0 * x.powi(5) + 1.0;
        let (_, g) = ad::value_and_grad(uses_twice, (x,));
        let (_, t) = ad::jvp(uses_twice, (x,), (1.0,));
        assert!(close(g.0, want, TOL), "grad at {x}: {}, want {want}", g.0);
        assert!(close(t, want, TOL), "jvp at {x}: {t}, want {want}");
    }
}

/// `h(x) = x^3` again, for the rule test alone (tests run in parallel, and a rule registered
/// while another test differentiates through `cube` would change that test's result).
#[differentiable]
fn cube_ruled(x: f64) -> f64 {
    x * x * x
}

#[differentiable]
fn uses_twice_ruled(x: f64) -> f64 {
    twice(cube_ruled, x) + x
}

#[test]
fn a_rule_for_the_argument_registered_after_a_gradient_is_honoured_inside() {
    // The rules say d h = 0 (a test rule, not the derivative): `twice(h, x) + x` then has
    // derivative 1 in both modes; dropped, the generated derivative 48 x^5 + 1 is back.
    let x = 0.7;
    let before = ad::value_and_grad(uses_twice_ruled, (x,)).1.0;
    assert!(close(before, 48.0 * x.powi(5) + 1.0, TOL));
    let forward = ad::rules::register_forward(cube_ruled, |x: f64, _dx: f64| (x * x * x, 0.0));
    let reverse = ad::rules::register_reverse(cube_ruled, |_x: f64, _value: f64, _bar: f64| 0.0);
    assert!(close(
        ad::value_and_grad(uses_twice_ruled, (x,)).1.0,
        1.0,
        TOL
    ));
    assert!(close(ad::jvp(uses_twice_ruled, (x,), (1.0,)).1, 1.0, TOL));
    drop((forward, reverse));
    assert!(close(
        ad::value_and_grad(uses_twice_ruled, (x,)).1.0,
        before,
        TOL
    ));
    assert!(close(
        ad::jvp(uses_twice_ruled, (x,), (1.0,)).1,
        before,
        TOL
    ));
}

/// The field's rule, registered at run time, is honoured by the integrator's derivative: a
/// forward rule that scales the field's tangent by 0 leaves only the derivative through the
/// integrator's own arithmetic (`y0` enters the state directly).
#[differentiable]
fn drift(t: f64, y: &[f64], p: &[f64]) -> Vec<f64> {
    vec![p[0] * y[0] + t]
}

#[differentiable]
fn drift_loss(y0: &[f64], p: &[f64]) -> f64 {
    let y = rk4(drift, y0, p, 0.1, 3);
    y[0]
}

#[test]
fn the_fields_generated_derivative_serves_until_a_rule_replaces_it() {
    let (y0, p) = ([1.0], [0.5]);
    // y' = p y + t: each RK4 step multiplies y by 1 + z + z^2/2 + z^3/6 + z^4/24, z = p h,
    // and adds a term of t; d y_n / d y0 = (that factor)^n.
    let z: f64 = 0.5 * 0.1;
    let factor = 1.0 + z + z * z / 2.0 + z.powi(3) / 6.0 + z.powi(4) / 24.0;
    let (_, (gy, _)) = ad::value_and_grad(drift_loss, (&y0[..], &p[..]));
    assert!(
        close(gy[0], factor.powi(3), TOL),
        "{} against {}",
        gy[0],
        factor.powi(3)
    );
}

/// `sq(x) = x^2`.
#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn twice_sq(x: f64) -> f64 {
    twice(sq, x)
}

#[differentiable]
fn twice_cube(x: f64) -> f64 {
    twice(cube, x)
}

#[test]
fn one_call_site_called_with_two_functions_keeps_them_apart() {
    // The call `f(x)` inside `twice` is one call site for every function passed as `f`: its
    // cache must tell the pointers apart. twice(sq, x) = 4 x^4, twice(cube, x) = 8 x^6.
    let x: f64 = 1.3;
    for _ in 0..3 {
        let (_, g) = ad::value_and_grad(twice_sq, (x,));
        assert!(close(g.0, 16.0 * x.powi(3), TOL), "sq: {}", g.0);
        let (_, g) = ad::value_and_grad(twice_cube, (x,));
        assert!(close(g.0, 48.0 * x.powi(5), TOL), "cube: {}", g.0);
        assert!(close(
            ad::jvp(twice_sq, (x,), (1.0,)).1,
            16.0 * x.powi(3),
            TOL
        ));
        assert!(close(
            ad::jvp(twice_cube, (x,), (1.0,)).1,
            48.0 * x.powi(5),
            TOL
        ));
    }
}

/// A function generic over its float type and over its function argument: `n` explicit Euler
/// steps of `y' = f(t, y)`.
#[differentiable]
fn euler<T, F>(f: F, y0: T, h: T, n: usize) -> T
where
    T: num_traits::Float,
    F: Fn(T, T) -> T,
{
    let mut y = y0;
    let mut t = T::zero();
    for _ in 0..n {
        y = y + h * f(t, y);
        t = t + h;
    }
    y
}

/// `y' = -k y` with `k = 0.7`.
#[differentiable]
fn decay(_t: f64, y: f64) -> f64 {
    -0.7 * y
}

#[differentiable]
fn euler_decay(y0: f64, h: f64) -> f64 {
    euler(decay, y0, h, 8)
}

#[test]
fn a_generic_function_with_a_function_argument() {
    // y_8 = y0 (1 - 0.7 h)^8: d/dy0 = (1 - 0.7 h)^8, d/dh = -5.6 y0 (1 - 0.7 h)^7.
    let (y0, h) = (1.5, 0.1);
    let r: f64 = 1.0 - 0.7 * h;
    let (value, (gy, gh)) = ad::value_and_grad(euler_decay, (y0, h));
    assert!(close(value, y0 * r.powi(8), TOL));
    assert!(close(gy, r.powi(8), TOL), "d/dy0 {gy}");
    assert!(close(gh, -5.6 * y0 * r.powi(7), TOL), "d/dh {gh}");
    let (_, t) = ad::jvp(euler_decay, (y0, h), (1.0, 0.0));
    assert!(close(t, r.powi(8), TOL));
}

/// An `impl Fn` parameter: the function's type has no name in the source.
#[differentiable]
fn compose(f: impl Fn(f64) -> f64, g: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(g(x)) + g(x)
}

#[differentiable]
fn sq_of_cube(x: f64) -> f64 {
    compose(sq, cube, x)
}

#[test]
fn impl_fn_parameters() {
    // x^6 + x^3: derivative 6 x^5 + 3 x^2.
    for x in [-0.8, 0.5, 1.2] {
        let want = 6.0 * x.powi(5) + 3.0 * x * x;
        let (_, g) = ad::value_and_grad(sq_of_cube, (x,));
        let (_, t) = ad::jvp(sq_of_cube, (x,), (1.0,));
        assert!(close(g.0, want, TOL), "grad at {x}: {}", g.0);
        assert!(close(t, want, TOL), "jvp at {x}: {t}");
    }
}
