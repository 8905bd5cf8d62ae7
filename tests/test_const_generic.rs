//! Functions with const generic lengths (`fn f<const N: usize>(x: [f64; N])`, also beside a
//! float type parameter): each instantiation registers its derivatives at its first call
//! (`docs/ARCHITECTURE.md`, decision 11), and every promise of the registry holds for it: a
//! rule for one instantiation, static or registered at run time after gradients were
//! computed, is honoured by the next call, also inside another function's derivative; dropping
//! the guard restores the generated derivative; other lengths are unaffected.
//!
//! The oracles are closed forms written out below, independent of `ad`; where a product of a
//! few floats is compared, the tolerance is a few units in the last place.

// Loops over `0..N` are how code over a const length is written.
#![allow(clippy::needless_range_loop)]

use ad::differentiable;
use num_traits::Float;
use std::sync::{Mutex, MutexGuard};

/// Serialises the tests that register rules at run time: the registry is global.
fn registry_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1.0)
}

/// The squared norm: the gradient is `2 x`.
#[differentiable]
fn norm2<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s
}

/// Generic over the float type and the length, through a reference to the array:
/// `sum_i sin(x_i) w * x_0`.
#[differentiable]
fn weighted<T: Float, const N: usize>(x: &[T; N], w: T) -> T {
    let a = x[0];
    let mut s = T::zero();
    for v in x.iter() {
        s = s + (*v).sin() * w;
    }
    s * a
}

fn weighted_grad(x: &[f64], w: f64) -> (Vec<f64>, f64) {
    let s: f64 = x.iter().map(|v| v.sin()).sum();
    let mut g: Vec<f64> = x.iter().map(|v| v.cos() * w * x[0]).collect();
    g[0] += s * w;
    (g, s * x[0])
}

/// Calls of another const-generic function, inferred and by turbofish.
#[differentiable]
fn scaled<const N: usize>(x: [f64; N], y: f64) -> f64 {
    norm2(x) * y + norm2::<N>(x)
}

/// A function over `f64` that calls const-generic ones with local arrays bound without a type:
/// an array with a typed element (`[f64; 3]`), and one of literals, whose length rustc gives
/// it (the macro names the callee at that type in its list, where no value is at hand).
#[differentiable]
fn calls_with_untyped_arrays(y: f64) -> f64 {
    let l = [0.5, y, 2.0];
    let k = [0.25, 0.75];
    norm2(l) + scaled(k, y)
}

/// An output slice beside an array of the length.
#[differentiable]
fn times<const N: usize>(y: &mut [f64], x: [f64; N]) {
    for i in 0..N {
        y[i] *= x[i];
    }
}

#[test]
fn each_length_in_both_modes() {
    let x5 = [0.5, -1.25, 2.0, 3.5, -0.75];
    let (v, g) = ad::value_and_grad(norm2::<5>, (x5,));
    assert_eq!(v, norm2(x5));
    assert_eq!(g.0, x5.map(|v| 2.0 * v));
    // Inferred from the argument, at another length.
    let x3 = [1.0, 2.0, 3.0];
    let (v, t) = ad::jvp(norm2, (x3,), ([0.0, 1.0, 1.0],));
    assert_eq!((v, t), (14.0, 2.0 * 2.0 + 2.0 * 3.0));
    let g1 = ad::grad(norm2::<1>, ([4.0],));
    assert_eq!(g1.0, [8.0]);
}

#[test]
fn a_float_parameter_beside_the_length_at_f64_and_f32() {
    let x = [0.3, -1.1, 2.2, 0.7];
    let (expected, e_w) = weighted_grad(&x, 0.5);
    let (gx, gw) = ad::grad(weighted::<f64, 4>, (&x, 0.5));
    for i in 0..4 {
        assert!(close(gx[i], expected[i]), "{i}: {} {}", gx[i], expected[i]);
    }
    assert!(close(gw, e_w));
    // Forward along each coordinate.
    for i in 0..4 {
        let mut dx = [0.0; 4];
        dx[i] = 1.0;
        let (_, t) = ad::jvp(weighted::<f64, 4>, (&x, 0.5), (dx, 0.0));
        assert!(close(t, expected[i]));
    }
    // At f32, against the f64 closed form at the f32 point.
    let x32 = [0.3f32, -1.1, 2.2];
    let x64: Vec<f64> = x32.iter().map(|v| f64::from(*v)).collect();
    let (expected, _) = weighted_grad(&x64, 0.5);
    let (gx, _) = ad::grad(weighted::<f32, 3>, (&x32, 0.5f32));
    for i in 0..3 {
        assert!((f64::from(gx[i]) - expected[i]).abs() < 1e-5 * expected[i].abs().max(1.0));
    }
}

#[test]
fn calls_between_const_generic_functions() {
    let x = [1.0, -2.0, 0.5];
    // (|x|^2) (y + 1): d/dx = 2 x (y + 1), d/dy = |x|^2.
    let (gx, gy) = ad::grad(scaled::<3>, (x, 2.5));
    assert_eq!(gx, x.map(|v| 2.0 * v * 3.5));
    assert_eq!(gy, 5.25);
    let (_, t) = ad::jvp(scaled::<3>, (x, 2.5), ([1.0, 0.0, 0.0], 1.0));
    assert_eq!(t, 2.0 * 3.5 + 5.25);
    // 0.25 + y^2 + 4 + (0.0625 + 0.5625) (y + 1): d/dy = 2 y + 0.625.
    let y = 1.5;
    assert_eq!(ad::grad(calls_with_untyped_arrays, (y,)).0, 2.0 * y + 0.625);
    assert_eq!(
        ad::jvp(calls_with_untyped_arrays, (y,), (1.0,)).1,
        2.0 * y + 0.625
    );
}

#[test]
fn an_output_slice_with_a_const_length() {
    let mut y = [1.0, 2.0, -3.0];
    let mut dy = [0.5, 0.0, 1.0];
    let x = [3.0, 4.0, 0.5];
    ad::jvp(times::<3>, (&mut y[..], x), (&mut dy[..], [1.0, 1.0, 0.0]));
    // y_i x_i: the tangent is dy_i x_i + y_i dx_i.
    assert_eq!(y, [3.0, 8.0, -1.5]);
    assert_eq!(dy, [0.5 * 3.0 + 1.0, 2.0, 0.5]);
    let mut y = [1.0, 2.0, -3.0];
    let mut y_bar = [1.0, 1.0, 1.0];
    let (_, (_, x_bar)) = ad::vjp_into(
        times::<3>,
        (&mut y[..], x),
        (&mut y_bar[..], ()),
        ad::NoTangent,
    );
    assert_eq!(y_bar, x);
    assert_eq!(x_bar, [1.0, 2.0, -3.0]);
}

#[test]
fn a_function_pointer_of_an_instantiation() {
    let f: fn([f64; 2]) -> f64 = norm2::<2>;
    assert_eq!(ad::grad(f, ([3.0, -1.0],)).0, [6.0, -2.0]);
}

/// A length only this test uses, and the function it is called from, so that the first call
/// of each is here.
#[differentiable]
fn cubes<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i] * x[i];
    }
    s
}

#[differentiable]
fn cubes_twice<const N: usize>(x: [f64; N]) -> f64 {
    2.0 * cubes(x)
}

#[test]
fn a_rule_registered_after_gradients_is_honoured_for_its_length_only() {
    let _lock = registry_lock();
    let x6 = [1.0, 2.0, 0.5, -1.0, 0.25, 3.0];
    let generated = x6.map(|v| 3.0 * v * v);
    assert_eq!(ad::grad(cubes::<6>, (x6,)).0, generated);
    assert_eq!(
        ad::grad(cubes_twice::<6>, (x6,)).0,
        generated.map(|g| 2.0 * g)
    );
    {
        // A reverse rule for `cubes::<6>` alone: the adjoint 10 times the seed per element.
        let _guard = ad::rules::register_reverse(cubes::<6>, |_: [f64; 6], _: f64, seed: f64| {
            [10.0 * seed; 6]
        });
        assert_eq!(ad::grad(cubes::<6>, (x6,)).0, [10.0; 6]);
        // Inside another function's derivative too.
        assert_eq!(ad::grad(cubes_twice::<6>, (x6,)).0, [20.0; 6]);
        // Another length is unaffected.
        assert_eq!(ad::grad(cubes::<2>, ([1.0, 2.0],)).0, [3.0, 12.0]);
    }
    // The guard dropped: the generated derivative again.
    assert_eq!(ad::grad(cubes::<6>, (x6,)).0, generated);
    assert_eq!(
        ad::grad(cubes_twice::<6>, (x6,)).0,
        generated.map(|g| 2.0 * g)
    );
}

/// A static rule for one length, defined below its use in a caller's derivative.
#[differentiable]
fn uses_squares(x: [f64; 2]) -> f64 {
    squares(x) + 1.0
}

#[differentiable]
fn squares<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s
}

#[ad::custom_rule(forward, of = squares::<2>)]
fn squares_two(x: [f64; 2], dx: [f64; 2]) -> (f64, f64) {
    // Deliberately not the derivative, so that its use is visible.
    (x[0] * x[0] + x[1] * x[1], 100.0 * (dx[0] + dx[1]))
}

#[test]
fn a_custom_rule_for_one_length_wins_over_the_generated_derivative() {
    let (_, t) = ad::jvp(uses_squares, ([1.0, 2.0],), ([1.0, 0.0],));
    assert_eq!(t, 100.0);
    // The reverse mode converts the user's forward rule rather than bypass it.
    assert_eq!(ad::grad(squares::<2>, ([1.0, 2.0],)).0, [100.0, 100.0]);
    // Another length: generated.
    assert_eq!(
        ad::grad(squares::<3>, ([1.0, 2.0, 3.0],)).0,
        [2.0, 4.0, 6.0]
    );
}

#[differentiable]
fn quartic<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i] * x[i] * x[i];
    }
    s
}

#[test]
fn threads_that_first_call_the_same_length_together_all_get_it() {
    let handles: Vec<_> = (0..4)
        .map(|k| {
            std::thread::spawn(move || {
                let x = [k as f64, 1.0, -2.0, 0.5, 1.5, -1.0, 2.0];
                let g = ad::grad(quartic::<7>, (x,)).0;
                (x, g)
            })
        })
        .collect();
    for h in handles {
        let (x, g) = h.join().unwrap();
        assert_eq!(g, x.map(|v| 4.0 * v * v * v));
    }
}

#[test]
fn the_instantiations_used_are_listed() {
    let _ = ad::grad(norm2::<9>, ([1.0; 9],));
    let listed: Vec<ad::rules::RuleInfo> = ad::rules::list()
        .into_iter()
        .filter(|r| r.function.ends_with("norm2<9>"))
        .collect();
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(listed.iter().all(|r| r.origin == ad::Origin::Generated));
}
