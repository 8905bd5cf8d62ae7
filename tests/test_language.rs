//! The straight-line language of this version, construct by construct, each derivative checked
//! against a central finite difference (h = 1e-6: truncation error ~h^2 f''' ~ 1e-12 and rounding
//! ~eps |f| / h ~ 1e-10 for the O(1) functions here, so 1e-8 relative is a safe bound) and, where
//! short, against the closed form.

use ad::differentiable;

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// Shadowing: y = ((x + 1)^2) * 3 rebinding `x` twice.
#[differentiable]
fn shadowing(x: f64) -> f64 {
    let x = x + 1.0;
    let x = x * x;
    x * 3.0
}

/// `let` without a value, assigned in both branches.
#[allow(clippy::needless_late_init)] // the late initialisation is what this test is about
#[differentiable]
fn deferred_init(x: f64) -> f64 {
    let y;
    if x > 0.0 {
        y = x.sin();
    } else {
        y = x * x;
    }
    y + 1.0
}

/// Early returns from nested branches.
#[differentiable]
fn early_return(x: f64) -> f64 {
    if x < -1.0 {
        return -x;
    }
    let y = x * 2.0;
    if y > 1.0 {
        if y > 3.0 {
            return y.ln();
        }
        return y * y;
    }
    y.exp()
}

/// Tuple results and tuple destructuring: polar to Cartesian and back.
#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable]
fn radius_again(r: f64, t: f64) -> f64 {
    let (a, b) = polar(r, t);
    let (_, c): (f64, f64) = (a, b);
    (a * a + c * c).sqrt()
}

/// Integer parameters and casts: x^n with a float from an integer.
#[differentiable]
fn with_integers(x: f64, n: i32, flip: bool) -> f64 {
    let mut k = n * 2;
    k += 1;
    let s = if flip { -1.0 } else { 1.0 };
    s * x.powi(k) + k as f64 * x
}

/// Compound assignment on a float that is reassigned while a read of it is pending.
#[differentiable]
fn pending_read(x: f64) -> f64 {
    let mut y = x;
    y *= 2.0;
    y -= x / 4.0;
    y /= 1.5;
    y %= 10.0;

    y + {
        let t = y * y;
        t - 1.0
    }
}

/// Reads used after their variable is written (the left operands of `*`, pending while the
/// block assigns), beside reads used at once: in reverse mode only the latter add straight to
/// their variable's adjoint.
#[differentiable]
fn read_used_after_write(x: f64) -> f64 {
    let mut y = x * x;
    let z = y * {
        y = y * 3.0 + x;
        y
    };
    let mut s = x;
    for _ in 0..3 {
        s = s * {
            s += x;
            s
        };
    }
    z + s + y * x
}

/// The value of an `if` that one branch leaves by `return`.
#[differentiable]
fn if_value_with_return(x: f64) -> f64 {
    let y = if x > 5.0 { return 0.0 } else { x * x };
    y * x
}

/// f32 throughout, with unsuffixed literals.
#[differentiable]
fn single(x: f32) -> f32 {
    let mut y = 0.5;
    y += x * x;
    (y * 3.0).sqrt() - 1.0
}

/// A mixed-precision function: f32 inside, f64 outside.
#[differentiable]
fn mixed(x: f64) -> f64 {
    let small = x as f32;
    let s = small.sin() * 2.0;
    s as f64 + x
}

/// A float type the macro cannot read (an alias), literals that take their type from what they
/// meet, casts both ways, an `if` whose branches differ in what is known of them, and elements of
/// a `Vec<f32>`: the reverse sweep declares with a type only the adjoints whose type the source
/// settles, and these must still compile and agree with a finite difference.
type Real = f32;

#[differentiable]
fn read_types(x: Real, w: Vec<f32>, k: f64) -> f64 {
    let mut acc = 0.0;
    acc += x * w[0];
    let half = 0.5;
    let y = if x > 0.0 {
        acc * half
    } else {
        (x as f64 * k) as f32
    };
    let z = (y as f64).exp() - 1.0;
    let mut t: f64 = z * z;
    t += w[1] as f64 * k;
    t.sqrt() + z
}

/// Conditions may call functions and combine comparisons; they have no derivative.
#[differentiable]
fn conditions(x: f64, y: f64) -> f64 {
    if (x > 0.0 && y > 0.0) || shadowing(x) > 100.0 || x.is_nan() {
        x * y
    } else {
        x - y
    }
}

/// Constants and statements kept verbatim.
const SCALE: f64 = 2.5;

#[differentiable]
fn constants(x: f64) -> f64 {
    assert!(x.is_finite(), "x must be finite");
    debug_assert!(x < f64::MAX);
    const OFFSET: f64 = 0.25;
    SCALE * std::f64::consts::PI * x + OFFSET + f64::EPSILON
}

#[test]
fn shadowing_rebinds_like_the_primal() {
    for x in [-2.0, -0.5, 0.3, 1.7] {
        let (y, dy) = ad::jvp(shadowing, (x,), (1.0,));
        assert_eq!(y, shadowing(x));
        assert!(close(dy, 6.0 * (x + 1.0), 1e-15));
    }
}

#[test]
fn deferred_init_and_branches() {
    for x in [-1.3, -0.2, 0.4, 2.0] {
        let (y, dy) = ad::jvp(deferred_init, (x,), (1.0,));
        assert_eq!(y, deferred_init(x));
        let exact = if x > 0.0 { x.cos() } else { 2.0 * x };
        assert!(close(dy, exact, 1e-15));
    }
}

#[test]
fn early_returns() {
    for x in [-3.0, -0.4, 0.2, 0.9, 1.2, 2.5] {
        let (y, dy) = ad::jvp(early_return, (x,), (1.0,));
        assert_eq!(y, early_return(x));
        assert!(close(dy, fd(early_return, x), 1e-8), "x = {x}: {dy}");
    }
}

#[test]
fn tuples_in_and_out() {
    let (r, t) = (1.7, 0.6);
    let ((a, b), (da, db)) = ad::jvp(polar, (r, t), (0.0, 1.0));
    assert_eq!((a, b), polar(r, t));
    assert!(close(da, -r * t.sin(), 1e-15) && close(db, r * t.cos(), 1e-15));
    // |polar(r, t)| = r: derivative 1 along r, 0 along t.
    let (_, d_r) = ad::jvp(radius_again, (r, t), (1.0, 0.0));
    let (_, d_t) = ad::jvp(radius_again, (r, t), (0.0, 1.0));
    assert!(close(d_r, 1.0, 1e-14) && d_t.abs() < 1e-14);
}

#[test]
fn integer_parameters_have_no_tangent() {
    let x = 1.1;
    for (n, flip) in [(0, false), (1, true), (2, false)] {
        let (y, dy) = ad::jvp(
            with_integers,
            (x, n, flip),
            (1.0, ad::NoTangent, ad::NoTangent),
        );
        assert_eq!(y, with_integers(x, n, flip));
        let k = 2 * n + 1;
        let s = if flip { -1.0 } else { 1.0 };
        assert!(close(
            dy,
            s * f64::from(k) * x.powi(k - 1) + f64::from(k),
            1e-14
        ));
    }
}

#[test]
fn reads_pending_across_assignments() {
    for x in [0.5, 2.0, 7.0] {
        let (y, dy) = ad::jvp(pending_read, (x,), (1.0,));
        assert_eq!(y, pending_read(x));
        assert!(close(dy, fd(pending_read, x), 1e-8), "x = {x}");
    }
}

#[test]
fn reads_used_after_a_write_in_both_modes() {
    for x in [-0.7, 0.3, 1.1] {
        let fd = fd(read_used_after_write, x);
        let (_, dy) = ad::jvp(read_used_after_write, (x,), (1.0,));
        let (y, (g,)) = ad::value_and_grad(read_used_after_write, (x,));
        assert_eq!(y, read_used_after_write(x));
        assert!(close(dy, fd, 1e-8), "forward, x = {x}: {dy} against {fd}");
        assert!(close(g, fd, 1e-8), "reverse, x = {x}: {g} against {fd}");
    }
}

#[test]
fn if_value_with_a_returning_branch() {
    assert_eq!(ad::jvp(if_value_with_return, (6.0,), (1.0,)), (0.0, 0.0));
    assert_eq!(ad::jvp(if_value_with_return, (2.0,), (1.0,)), (8.0, 12.0));
}

#[test]
fn adjoint_types_read_from_the_source() {
    // Every path passes through f32 (eps 6e-8): with h = 1e-3 the rounding error of a central
    // difference is about eps |f| / h ~ 1e-4 relative and its truncation error h^2 ~ 1e-6, so
    // 1e-2 is a safe bound.
    for x in [-0.4_f32, 0.3, 0.9] {
        let w = vec![1.5_f32, 0.25];
        let k = 1.25;
        let (_, (gx, gw, gk)) = ad::value_and_grad(read_types, (x, w.clone(), k));
        let (_, tx) = ad::jvp(read_types, (x, w.clone(), k), (1.0, vec![0.0, 0.0], 0.0));
        let h = 1e-3_f32;
        let fx =
            (read_types(x + h, w.clone(), k) - read_types(x - h, w.clone(), k)) / (2.0 * h as f64);
        let fk = (read_types(x, w.clone(), k + 1e-3) - read_types(x, w.clone(), k - 1e-3)) / 2e-3;
        let fw = |i: usize| {
            let (mut up, mut down) = (w.clone(), w.clone());
            up[i] += h;
            down[i] -= h;
            (read_types(x, up, k) - read_types(x, down, k)) / (2.0 * h as f64)
        };
        assert!(close(f64::from(gx), fx, 1e-2), "x = {x}: {gx} against {fx}");
        assert!(close(tx, fx, 1e-2), "forward, x = {x}: {tx} against {fx}");
        assert!(close(gk, fk, 1e-2), "k, x = {x}: {gk} against {fk}");
        for (i, &g) in gw.iter().enumerate() {
            let fwi = fw(i);
            assert!(
                close(f64::from(g), fwi, 1e-2),
                "w[{i}], x = {x}: {g} against {fwi}"
            );
        }
    }
}

#[test]
fn single_precision() {
    for x in [0.25_f32, 1.0, 3.0] {
        let (y, dy) = ad::jvp(single, (x,), (1.0,));
        assert_eq!(y, single(x));
        // d sqrt(3 (0.5 + x^2)) = 3 x / sqrt(3 (0.5 + x^2)), in f32: a few ulps.
        let exact = 3.0 * x / (3.0 * (0.5 + x * x)).sqrt();
        assert!((dy - exact).abs() <= 4.0 * f32::EPSILON * exact.abs());
    }
    let (y, dy) = ad::jvp(mixed, (0.5,), (1.0,));
    assert_eq!(y, mixed(0.5));
    assert!((dy - (2.0 * f64::from(0.5_f32.cos()) + 1.0)).abs() < 1e-6);
}

#[test]
fn conditions_and_constants() {
    let (_, d) = ad::jvp(conditions, (1.0, 2.0), (1.0, 1.0));
    assert_eq!(d, 3.0); // d(xy) = y dx + x dy
    let (_, d) = ad::jvp(conditions, (-1.0, 2.0), (1.0, 1.0));
    assert_eq!(d, 0.0); // d(x - y)
    let (_, d) = ad::jvp(constants, (1.0,), (1.0,));
    assert_eq!(d, SCALE * std::f64::consts::PI);
}

/// Every branch of the tail `return`s: the function's value comes only from the returns.
#[allow(clippy::needless_return)] // the returns are what this test is about
#[differentiable]
fn all_branches_return(x: f64) -> f64 {
    if x > 0.0 {
        return x * x;
    } else {
        return -x;
    }
}

/// A tuple pattern that rebinds the name it destructures: `t` is read before it is rebound.
#[differentiable]
fn rebinding_tuple(x: f64, y: f64) -> f64 {
    let t = ((x, y), 2.0 * x);
    let (t, a) = t;
    t.0 * a
}

/// A raw identifier as a variable name.
#[differentiable]
fn raw_names(r#type: f64) -> f64 {
    let r#match = r#type * 2.0;
    r#match * r#type
}

#[test]
fn tails_tuples_and_raw_names() {
    assert_eq!(ad::jvp(all_branches_return, (3.0,), (1.0,)), (9.0, 6.0));
    assert_eq!(ad::jvp(all_branches_return, (-3.0,), (1.0,)), (3.0, -1.0));
    // 2 x^2: value 18, derivative 4x = 12 at x = 3
    assert_eq!(
        ad::jvp(rebinding_tuple, (3.0, 5.0), (1.0, 0.0)),
        (18.0, 12.0)
    );
    // 2 t^2: derivative 4t
    assert_eq!(ad::jvp(raw_names, (1.5,), (1.0,)), (4.5, 6.0));
}

/// A parameter with a leading underscore (unused, as the convention says): no lint fires in the
/// generated code (this file is compiled under `-D warnings` by CI's clippy run).
#[differentiable]
fn ignores_second(x: f64, _y: f64) -> f64 {
    x * 2.0
}

#[test]
fn underscore_parameters() {
    assert_eq!(ad::jvp(ignores_second, (1.0, 5.0), (1.0, 1.0)), (2.0, 2.0));
    assert_eq!(ad::grad(ignores_second, (1.0, 5.0)), (2.0, 0.0));
}

/// An `if` whose branches all return, used as the value of a `let`.
#[allow(clippy::needless_return, unused_variables)]
#[differentiable]
fn let_of_returning_if(x: f64) -> f64 {
    let y: f64 = if x > 0.0 {
        return x * x;
    } else {
        return -x;
    };
    #[allow(unreachable_code)]
    y
}

#[test]
fn a_let_of_an_if_that_always_returns() {
    assert_eq!(ad::jvp(let_of_returning_if, (3.0,), (1.0,)), (9.0, 6.0));
    assert_eq!(ad::grad(let_of_returning_if, (-2.0,)), (-1.0,));
}

/// A function generated by `macro_rules!` whose names all come from one context (the macro's
/// parameter only): differentiated in both modes. f(v) = 3 v^2.
macro_rules! make_three_squares {
    ($v:ident) => {
        #[differentiable]
        fn three_squares($v: f64) -> f64 {
            let t = $v * $v;
            3.0 * t
        }
    };
}
make_three_squares!(v);

#[test]
fn functions_generated_by_macros() {
    assert_eq!(ad::jvp(three_squares, (2.0,), (1.0,)), (12.0, 12.0));
    assert_eq!(ad::grad(three_squares, (2.0,)), (12.0,));
}
