//! Programs of the supported language that the program generator (`progen/`) found rejected by
//! `#[differentiable]`, each now accepted and its derivative checked in both modes. The oracle is
//! each function's derivative written out by hand from its branches (every branch is taken at
//! some of the inputs); the functions are piecewise linear or sums, so the derivatives are exact
//! and compared with `==`.

use ad::differentiable;

/// `return;` in a function that returns `()` and writes its `&mut` output.
#[differentiable]
fn early_unit(y: &mut [f64], x: f64) {
    if x > 0.0 {
        y[0] = x * x;
        return;
    }
    y[0] = 2.0 * x;
}

#[test]
fn a_bare_return_in_a_function_of_outputs() {
    for x in [-1.5, -0.25, 0.0, 0.5, 3.0] {
        let expected = if x > 0.0 { 2.0 * x } else { 2.0 };
        let mut y = [9.0];
        let mut dy = [0.0];
        ad::jvp(early_unit, (&mut y[..], x), (&mut dy[..], 1.0));
        assert_eq!(y[0], if x > 0.0 { x * x } else { 2.0 * x });
        assert_eq!(dy[0], expected, "forward at {x}");
        let mut y_bar = [1.0];
        let (_, (_, x_bar)) = ad::vjp_into(
            early_unit,
            (&mut y[..], x),
            (&mut y_bar[..], ()),
            ad::NoTangent,
        );
        assert_eq!(x_bar, expected, "reverse at {x}");
    }
}

/// A block with a `let` inside the condition of an `if`.
#[differentiable]
#[allow(clippy::let_and_return)] // the block with a `let` is what the test is about
fn let_in_condition(x: f64) -> f64 {
    if x < {
        let b = 1.0;
        b
    } {
        return x * 3.0;
    }
    x * 2.0
}

#[test]
fn a_block_with_a_let_in_a_condition() {
    for x in [-2.0, 0.5, 0.999, 1.0, 4.0] {
        let expected = if x < 1.0 { 3.0 } else { 2.0 };
        assert_eq!(ad::jvp(let_in_condition, (x,), (1.0,)).1, expected);
        assert_eq!(ad::grad(let_in_condition, (x,)).0, expected);
    }
}

/// A `Vec` result that carries no derivative.
#[differentiable]
fn constant_vec(_x: f64) -> Vec<f64> {
    vec![0.5, 0.5]
}

/// A `Vec` result returned early.
#[differentiable]
fn early_vec(x: f64) -> Vec<f64> {
    if x > 0.0 {
        return vec![x, x * x];
    }
    vec![x, 2.0 * x]
}

/// A tuple with a `Vec` that carries no derivative beside a float that does.
#[differentiable]
fn vec_beside(x: f64) -> (Vec<f64>, f64) {
    (vec![1.0, 2.0], 3.0 * x)
}

#[test]
fn vec_results_without_derivative_or_returned_early() {
    let (v, dv) = ad::jvp(constant_vec, (1.0,), (1.0,));
    assert_eq!((v, dv), (vec![0.5, 0.5], vec![0.0, 0.0]));
    let (_, pullback) = ad::vjp(constant_vec, (1.0,));
    assert_eq!(pullback(vec![1.0, 1.0]), (0.0,));

    for x in [-1.0, 0.0, 0.5, 2.0] {
        let jac = if x > 0.0 {
            vec![1.0, 2.0 * x]
        } else {
            vec![1.0, 2.0]
        };
        let (v, dv) = ad::jvp(early_vec, (x,), (1.0,));
        assert_eq!(v, early_vec(x));
        assert_eq!(dv, jac, "forward at {x}");
        let (_, pullback) = ad::vjp(early_vec, (x,));
        assert_eq!(pullback(vec![1.0, 0.0]).0, jac[0], "reverse at {x}");
        assert_eq!(pullback(vec![0.0, 1.0]).0, jac[1], "reverse at {x}");
    }

    let ((v, s), (dv, ds)) = ad::jvp(vec_beside, (2.0,), (1.0,));
    assert_eq!((v, s, dv, ds), (vec![1.0, 2.0], 6.0, vec![0.0, 0.0], 3.0));
    let (_, pullback) = ad::vjp(vec_beside, (2.0,));
    assert_eq!(pullback((vec![1.0, 1.0], 1.0)), (3.0,));
}

/// `*x` of `for x in a.iter()` inside `debug_assert!`.
#[differentiable]
fn checked_sum(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in a.iter() {
        debug_assert!((*x).is_finite());
        s += *x * *x;
    }
    s
}

/// The same `*x` in a `match` guard.
#[differentiable]
fn guarded(q: [f64; 5]) -> f64 {
    let mut s = 0.0;
    for x in q.iter() {
        s += match 1 {
            0 => 0.5,
            _ if q[1] <= *x => 3.0 * *x,
            _ => 1.5,
        };
    }
    s
}

#[test]
fn a_dereferenced_element_in_an_assertion_and_a_guard() {
    let a = [0.5, -1.0, 2.0];
    let mut a_bar = [0.0; 3];
    ad::vjp_into(checked_sum, (&a[..],), (&mut a_bar[..],), 1.0);
    assert_eq!(a_bar, [1.0, -2.0, 4.0]);
    let da = [1.0, 1.0, 1.0];
    assert_eq!(
        ad::jvp(checked_sum, (&a[..],), (&da[..],)).1,
        1.0 - 2.0 + 4.0
    );

    let q = [0.25, 1.0, 2.0, -3.0, 1.5];
    // 3 q[j] for every j with q[1] <= q[j] (j = 1, 2, 4 here), 1.5 for the others; no element
    // is near the threshold, so the branches hold in a neighbourhood.
    let expected = [0.0, 3.0, 3.0, 0.0, 3.0];
    let g = ad::grad(guarded, (q,)).0;
    assert_eq!(g, expected);
    for j in 0..5 {
        let mut dq = [0.0; 5];
        dq[j] = 1.0;
        assert_eq!(
            ad::jvp(guarded, (q,), (dq,)).1,
            expected[j],
            "forward along q[{j}]"
        );
    }
}

/// Chains of references to the elements without a `map`: `rev`, `skip`, `take`, `step_by` and
/// `filter`, consumed by `sum` and `product`.
#[differentiable]
fn reversed_sum(w: &[f64]) -> f64 {
    let s: f64 = w.iter().rev().sum();
    s * w[0]
}

#[differentiable]
fn positive_sum(w: &[f64]) -> f64 {
    w.iter().filter(|&&v| v > 0.0).sum::<f64>()
}

#[differentiable]
fn strided(w: &[f64]) -> f64 {
    w.iter().skip(1).step_by(2).product::<f64>() * w.iter().rev().take(2).sum::<f64>()
}

/// The same over a part of the slice.
#[differentiable]
fn part_sum(w: &[f64]) -> f64 {
    let tail: f64 = w[1..4].iter().sum();
    tail * w[0]
}

#[test]
fn chains_of_element_references_without_a_map() {
    let w = [0.5, -2.0, 3.0, 1.5, -0.25];
    let check = |f: fn(&[f64]) -> f64, expected: [f64; 5], what: &str| {
        let mut w_bar = [0.0; 5];
        ad::vjp_into(f, (&w[..],), (&mut w_bar[..],), 1.0);
        assert_eq!(w_bar, expected, "{what}: reverse");
        for j in 0..5 {
            let mut dw = [0.0; 5];
            dw[j] = 1.0;
            let (_, t) = ad::jvp(f, (&w[..],), (&dw[..],));
            assert_eq!(t, expected[j], "{what}: forward along w[{j}]");
        }
    };
    // (sum w) w0: d/dw0 = sum w + w0, d/dwj = w0.
    let s: f64 = w.iter().sum();
    check(
        reversed_sum,
        [s + w[0], w[0], w[0], w[0], w[0]],
        "reversed_sum",
    );
    // The sum of the positive elements: 1 where positive.
    check(positive_sum, [1.0, 0.0, 1.0, 1.0, 0.0], "positive_sum");
    // (w1 w3) (w4 + w3): d/dw1 = w3 (w4 + w3), d/dw3 = w1 (w4 + w3) + w1 w3, d/dw4 = w1 w3.
    let (p, t) = (w[1] * w[3], w[4] + w[3]);
    check(strided, [0.0, w[3] * t, 0.0, w[1] * t + p, p], "strided");
    // (w1 + w2 + w3) w0.
    let tail = w[1] + w[2] + w[3];
    check(part_sum, [tail, w[0], w[0], w[0], 0.0], "part_sum");
}

/// A labelled `break` from inside a `loop` with a value to the block around it, which leaves
/// the loop without one.
#[differentiable]
#[allow(clippy::never_loop)] // the loop that a labelled break leaves is what the test is about
fn leaves_the_loop(x: f64) -> f64 {
    let r: f64 = 'b: {
        let v: f64 = loop {
            if x > 0.0 {
                break 'b x * x;
            }
            break 3.0 * x;
        };
        v + 1.0
    };
    r
}

#[test]
fn a_labelled_break_past_a_loop_with_a_value() {
    for x in [-2.0, -0.5, 0.0, 0.5, 2.0] {
        let expected = if x > 0.0 { 2.0 * x } else { 3.0 };
        assert_eq!(
            ad::jvp(leaves_the_loop, (x,), (1.0,)),
            (leaves_the_loop(x), expected)
        );
        assert_eq!(
            ad::grad(leaves_the_loop, (x,)).0,
            expected,
            "reverse at {x}"
        );
    }
}

/// `*x` of a loop's element inside a closure bound by `let`.
#[differentiable]
fn scaled_by_elements(a: &[f64], y: f64) -> f64 {
    let mut s = 0.0;
    for x in a.iter() {
        let f = |t: f64| t * *x;
        s += f(y);
    }
    s
}

#[test]
fn a_dereferenced_element_in_a_closure() {
    let a = [0.5, -2.0, 3.0];
    // y (sum a): d/dy = sum a, d/da_j = y.
    let (y, sum) = (1.5, a.iter().sum::<f64>());
    let mut a_bar = [0.0; 3];
    let (_, (_, y_bar)) = ad::vjp_into(scaled_by_elements, (&a[..], y), (&mut a_bar[..], ()), 1.0);
    assert_eq!((a_bar, y_bar), ([y; 3], sum));
    let da = [0.0; 3];
    assert_eq!(
        ad::jvp(scaled_by_elements, (&a[..], y), (&da[..], 1.0)).1,
        sum
    );
}

// ---- Found by the generator's later coverage (views, lent locals, function arguments). ----

/// A view read in the predicate of a `filter` and in a closure bound by `let`.
#[differentiable]
fn view_in_filter(w: &[f64]) -> f64 {
    let row = &w[1..3];
    w.iter().copied().filter(|&v| v > row[0]).sum::<f64>()
}

#[differentiable]
fn view_in_closure(w: &[f64]) -> f64 {
    let row = &w[0..2];
    let h = |u: f64| u * row[0];
    h(w[1]) + row.iter().copied().filter(|&v| v > 0.0).sum::<f64>()
}

#[test]
fn views_read_in_filters_and_closures() {
    let w = [0.5, -2.0, 3.0];
    // The elements above w[1] = -2: w[0] and w[2].
    check_slice_fn(view_in_filter, &w, [1.0, 0.0, 1.0], "view_in_filter");
    // w[1] w[0] + (the positive of w[0], w[1]: w[0]).
    check_slice_fn(
        view_in_closure,
        &w,
        [w[1] + 1.0, w[0], 0.0],
        "view_in_closure",
    );
}

/// Both modes of a function of one slice against its gradient.
fn check_slice_fn(f: fn(&[f64]) -> f64, w: &[f64; 3], expected: [f64; 3], what: &str) {
    let mut w_bar = [0.0; 3];
    ad::vjp_into(f, (&w[..],), (&mut w_bar[..],), 1.0);
    assert_eq!(w_bar, expected, "{what}: reverse");
    for j in 0..3 {
        let mut dw = [0.0; 3];
        dw[j] = 1.0;
        assert_eq!(
            ad::jvp(f, (&w[..],), (&dw[..],)).1,
            expected[j],
            "{what}: forward {j}"
        );
    }
}

#[differentiable]
fn affine_of_slice(w: &[f64], x: f64) -> f64 {
    w[0] * x + w[2]
}

/// A local array and a part of a local `Vec`, both without a derivative, lent to a function
/// that takes `&[f64]`: `ad::jvp` panicked making their zero tangents.
#[differentiable]
#[allow(clippy::useless_vec)] // a local `Vec` is what the test lends
fn lends_constant_locals(x: f64) -> f64 {
    let l = [1.0, 2.0, 3.0];
    let v = vec![4.0, 2.0, 3.0, 5.0];
    affine_of_slice(&l, x) + affine_of_slice(&v[1..], x) * x
}

#[test]
fn locals_without_derivative_lent_as_slices() {
    for x in [-1.0, 0.5, 2.0] {
        // (x + 3) + (2x + 5) x: the derivative is 1 + 4x + 5.
        let expected = 1.0 + 4.0 * x + 5.0;
        assert_eq!(ad::jvp(lends_constant_locals, (x,), (1.0,)).1, expected);
        assert_eq!(ad::grad(lends_constant_locals, (x,)).0, expected);
    }
}

/// A chain over a slice parameter in a condition and in `assert!`.
#[differentiable]
fn chain_in_condition(w: &[f64]) -> f64 {
    assert!(w.iter().map(|&v| v * v).sum::<f64>() >= 0.0);
    if w.iter().map(|&v| v + 0.0).sum::<f64>() >= 0.5 {
        return w[0] * w[1];
    }
    w[2]
}

#[test]
fn chains_in_conditions_and_assertions() {
    // The sum 1.5 >= 0.5: w0 w1.
    check_slice_fn(
        chain_in_condition,
        &[0.5, -2.0, 3.0],
        [-2.0, 0.5, 0.0],
        "taken",
    );
    // The sum -4.5: w2.
    check_slice_fn(
        chain_in_condition,
        &[0.5, -2.0, -3.0],
        [0.0, 0.0, 1.0],
        "not taken",
    );
}

#[differentiable]
fn squared(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn apply_scaled(g: fn(f64) -> f64, x: f64, c: ad::Const<&[f64]>) -> f64 {
    g(x) * c[0]
}

/// An `ad::Const` slice passed on to a function that takes a function.
#[differentiable]
fn passes_const_on(c: ad::Const<&[f64]>, x: f64) -> f64 {
    apply_scaled(squared, x, c)
}

#[test]
fn a_constant_slice_passed_with_a_function() {
    let c = [3.0, 1.0];
    for x in [-1.5, 0.5, 2.0] {
        // 3 x^2: the derivative is 6x.
        let (_, t) = ad::jvp(
            passes_const_on,
            (ad::Const(&c[..]), x),
            (ad::NoTangent, 1.0),
        );
        assert_eq!(t, 6.0 * x);
        let (_, g) = ad::grad(passes_const_on, (ad::Const(&c[..]), x));
        assert_eq!(g, 6.0 * x);
    }
}

/// No derivative of its own: a rule registered at run time gives it one.
fn cubed(x: f64) -> f64 {
    x * x * x
}

#[differentiable]
fn apply_twice(g: fn(f64) -> f64, x: f64) -> f64 {
    g(x) * 2.0
}

#[differentiable]
fn applies_cubed(x: f64) -> f64 {
    apply_twice(cubed, x) + x
}

/// A function passed to a `fn(f64) -> f64` parameter whose only rule is registered at run time:
/// the call through the parameter resolved by the pointer's address, under which no rule was
/// registered, and panicked. It now resolves by the function item the caller passes.
#[test]
fn a_run_time_rule_reached_through_a_function_pointer_parameter() {
    let _forward =
        ad::rules::register_forward(cubed, |x: f64, dx: f64| (x * x * x, 3.0 * x * x * dx));
    let _reverse = ad::rules::register_reverse(cubed, |x: f64, _: f64, bar: f64| 3.0 * x * x * bar);
    for x in [-1.0, 0.5, 2.0] {
        // 2 x^3 + x: the derivative is 6 x^2 + 1.
        let expected = 6.0 * x * x + 1.0;
        assert_eq!(ad::jvp(applies_cubed, (x,), (1.0,)).1, expected);
        assert_eq!(ad::grad(applies_cubed, (x,)).0, expected);
    }
}

/// Float methods called through a type parameter (`T::sin(x)`): compiled, and the derivative
/// panicked at run time looking for a rule of `<f64 as Float>::sin`.
#[differentiable]
fn through_the_type<T: num_traits::Float>(x: T) -> T {
    T::sin(x) * T::powi(x, 2) + T::max(x, T::zero())
}

#[test]
fn float_methods_called_through_a_type_parameter() {
    for x in [-0.75_f64, 0.5, 2.0] {
        // sin(x) x^2 + max(x, 0): cos(x) x^2 + 2 x sin(x) + [x > 0].
        let expected = x.cos() * x * x + 2.0 * x * x.sin() + if x > 0.0 { 1.0 } else { 0.0 };
        let (_, t) = ad::jvp(through_the_type::<f64>, (x,), (1.0,));
        assert!((t - expected).abs() <= 1e-14, "{x}: {t} {expected}");
        let g = ad::grad(through_the_type::<f64>, (x,)).0;
        assert!((g - expected).abs() <= 1e-14, "{x}: {g} {expected}");
    }
}

/// Fifteen arguments, one a part of a local array: the call's record keeps the fourteen others,
/// the array's copy and the part's two bounds, seventeen values, more than the sixteen of a
/// tuple on the tape (found by the long run at 1f2dbee: "cannot keep a `((T, T), T, .., usize,
/// usize, T, T)` for the reverse sweep").
#[differentiable]
#[allow(clippy::too_many_arguments)]
fn many(
    p: (f64, f64),
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
    g: f64,
    h: f64,
    flag: bool,
    i: f64,
    j: f64,
    w: &[f64],
    k: f64,
    l: f64,
) -> f64 {
    let tail = if flag { p.1 } else { 0.0 };
    p.0 * a + b * c + d * e + f * g + h * i + j * k * l + w[0] * w[1] + tail
}

#[differentiable]
fn calls_many(x: f64) -> f64 {
    let l13 = [x, 2.0 * x, 0.5];
    many(
        (x, 0.5),
        x,
        0.5,
        x,
        0.5,
        x,
        0.5,
        x,
        0.5,
        x < 0.0,
        x,
        0.5,
        &l13[0..2],
        x,
        0.5,
    )
}

#[test]
fn a_call_whose_record_keeps_more_than_sixteen_values() {
    // 3 x^2 + 2.25 x + (0.5 where x < 0): d/dx = 6 x + 2.25.
    for x in [-1.5, -0.25, 0.5, 3.0] {
        let expected = 6.0 * x + 2.25;
        assert_eq!(ad::grad(calls_many, (x,)).0, expected, "reverse at {x}");
        assert_eq!(
            ad::jvp(calls_many, (x,), (1.0,)).1,
            expected,
            "forward at {x}"
        );
        let (_, pullback) = ad::vjp(calls_many, (x,));
        assert_eq!(pullback(1.0).0, expected, "vjp at {x}");
    }
}

/// A function generic over an array length, called with a local made by `array.map(..)`, whose
/// type the callee list did not know (E0284: the length could not be inferred).
#[differentiable]
#[allow(clippy::needless_range_loop)] // the index loop is the spelling the generator wrote
fn weighted<const N: usize>(a: f64, q: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += a * q[i];
    }
    s
}

#[differentiable]
fn mapped(x: f64, q: [f64; 3]) -> f64 {
    let l = q.map(|v| v * x + 0.5);
    weighted(0.5, l)
}

#[test]
fn a_const_generic_call_with_a_mapped_array() {
    for x in [-1.0, 0.0, 2.5] {
        let q = [1.0, -2.0, 0.25];
        // d/dx of 0.5 * sum(q_i x + 0.5) = 0.5 * sum(q_i)
        let expected = 0.5 * (1.0 - 2.0 + 0.25);
        let (gx, gq) = ad::grad(mapped, (x, q));
        assert_eq!(gx, expected);
        assert_eq!(gq, [0.5 * x; 3]);
        assert_eq!(ad::jvp(mapped, (x, q), (1.0, [0.0; 3])).1, expected);
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Rod {
    x: f64,
    y: f64,
    w: Vec<f64>,
}

/// A struct literal with `..base` that gives a field a constant: that field's derivative is
/// zero, not the base's (found as a wrong derivative in both modes).
#[differentiable]
fn overridden(u: Rod) -> f64 {
    let t: Rod = Rod {
        x: 0.5,
        ..u.clone()
    };
    t.x * t.y
}

/// The same with a constant `Vec` field and an active one beside the base.
#[differentiable]
fn overridden_vec(u: Rod, a: f64) -> f64 {
    let t = Rod {
        x: 0.5,
        w: vec![a, 2.0],
        ..u
    };
    t.x * t.y + t.w[0] * t.w[1]
}

#[test]
fn a_field_given_a_constant_in_a_literal_with_a_base_has_no_derivative() {
    for (x, y, a) in [(1.0, 2.0, 1.5), (-3.0, 0.25, -2.0)] {
        let u = Rod {
            x,
            y,
            w: vec![3.0, 4.0],
        };
        // overridden = 0.5 y: d/dy = 0.5, nothing else.
        let (g,) = ad::grad(overridden, (u.clone(),));
        assert_eq!((g.x, g.y), (0.0, 0.5));
        assert!(g.w.iter().all(|w| *w == 0.0));
        let ones = Rod {
            x: 1.0,
            y: 1.0,
            w: vec![1.0, 1.0],
        };
        assert_eq!(ad::jvp(overridden, (u.clone(),), (ones.clone(),)).1, 0.5);
        // overridden_vec = 0.5 y + 2 a: d/dy = 0.5, d/da = 2.
        let (g, ga) = ad::grad(overridden_vec, (u.clone(), a));
        assert_eq!((g.x, g.y, ga), (0.0, 0.5, 2.0));
        assert!(g.w.iter().all(|w| *w == 0.0));
        let (_, pullback) = ad::vjp(overridden_vec, (u.clone(), a));
        let (p, pa) = pullback(1.0);
        assert_eq!((p.x, p.y, pa), (0.0, 0.5, 2.0));
        let (_, t) = ad::jvp(overridden_vec, (u.clone(), a), (ones, 1.0));
        assert_eq!(t, 0.5 + 2.0);
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Pair {
    x: f64,
    w: [f64; 2],
}

/// An element of an array field of a struct bound by a `let` without a type (E0282 before:
/// the reverse sweep could not name the struct's adjoint's field).
#[differentiable]
fn untyped_elem(x: f64) -> f64 {
    let t = Pair {
        x,
        w: [3.0 * x, 1.0],
    };
    t.w[0] + t.x
}

/// A `const` item beside an element read of a field (E0282 before, the same cause).
#[differentiable]
fn const_and_elem(s: &Pair) -> f64 {
    const C: f64 = 0.75;
    s.w[0] * C + s.x
}

/// A field written from an element of the same struct's array field (E0282 before).
#[differentiable]
fn field_from_own_elem(mut t: Pair) -> f64 {
    t.x += t.w[1];
    2.0 * t.x
}

#[test]
fn elements_of_fields_of_untyped_and_written_structs() {
    for x in [-1.5, 0.0, 2.25] {
        // untyped_elem = 4 x.
        assert_eq!(ad::grad(untyped_elem, (x,)).0, 4.0);
        assert_eq!(ad::jvp(untyped_elem, (x,), (1.0,)).1, 4.0);
        let p = Pair {
            x,
            w: [x - 1.0, 2.0 * x],
        };
        // const_and_elem = 0.75 w0 + x.
        assert_eq!(
            ad::grad(const_and_elem, (&p,)).0,
            Pair {
                x: 1.0,
                w: [0.75, 0.0]
            }
        );
        // field_from_own_elem = 2 (x + w1).
        let want = Pair {
            x: 2.0,
            w: [0.0, 2.0],
        };
        assert_eq!(ad::grad(field_from_own_elem, (p.clone(),)).0, want);
        assert_eq!(ad::vjp(field_from_own_elem, (p.clone(),)).1(1.0).0, want);
        let ones = Pair {
            x: 1.0,
            w: [1.0, 1.0],
        };
        assert_eq!(ad::jvp(field_from_own_elem, (p.clone(),), (ones,)).1, 4.0);
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Holder {
    x: f64,
    y: f64,
    inner: Pair,
    v: Vec<f64>,
}

#[differentiable]
fn holder_product(h: &Holder) -> f64 {
    h.x * h.y
}

/// A struct held by value, lent by reference and read in place, then moved into a literal's
/// `..base` (E0382 before: the reverse sweep read it again after the move).
#[differentiable]
fn moved_after_reads(s: Holder) -> f64 {
    let a = holder_product(&s);
    let t = Holder {
        x: a + s.inner.w[1],
        ..s
    };
    t.x + t.y
}

#[test]
fn a_struct_read_in_place_then_moved_into_a_literal() {
    for (x, y) in [(0.5, 3.0), (-2.0, 1.25)] {
        let s = Holder {
            x,
            y,
            inner: Pair {
                x: 0.0,
                w: [1.0, 2.0],
            },
            v: vec![1.0],
        };
        // moved_after_reads = x y + w1 + y: d/dx = y, d/dy = x + 1, d/dw1 = 1.
        let (g,) = ad::grad(moved_after_reads, (s.clone(),));
        assert_eq!((g.x, g.y, g.inner.w), (y, x + 1.0, [0.0, 1.0]));
        let mut t = ad::Differentiable::zero_tangent(&s);
        t.y = 1.0;
        assert_eq!(ad::jvp(moved_after_reads, (s.clone(),), (t,)).1, x + 1.0);
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Duo {
    x: f64,
    y: f64,
}

/// `..s` of a struct that is not `Copy`, with `s` read after (E0382 before: the forward
/// derivative moved `s`'s tangent into the literal's).
#[differentiable]
fn base_read_after(s: Duo, x: f64) -> f64 {
    let t = Duo { x, ..s };
    t.x * t.y + s.y * s.x
}

#[test]
fn a_base_read_after_the_literal_that_takes_its_fields() {
    let s = Duo { x: 2.0, y: 3.0 };
    // base_read_after = x y_s + y_s x_s: d/dx = y_s, d/ds.x = y_s, d/ds.y = x + x_s.
    let (gs, gx) = ad::grad(base_read_after, (s.clone(), 1.5));
    assert_eq!((gs.x, gs.y, gx), (3.0, 3.5, 3.0));
    let along_y = Duo { x: 0.0, y: 1.0 };
    assert_eq!(
        ad::jvp(base_read_after, (s.clone(), 1.5), (along_y, 0.0)).1,
        3.5
    );
}
