//! Generic functions: `#[differentiable]` on functions generic over a float type, as numerics
//! code is written (`T: num_traits::Float` and friends), in both modes at `f64` and `f32`.
//!
//! The oracle is independent of `ad`: central differences of the same generic function
//! evaluated at `f64` (the user's own body, compiled by rustc; nothing of the macro or the
//! runtime takes part), or a closed form where the test says so. With a step of
//! `h = 1e-6 max(1, |x_i|)` the truncation error is about `h^2 |f'''| / 6`, near 1e-12 for these
//! bodies, and the rounding error about `eps |f| / h`, near 2e-10 `|f|`: a relative tolerance of
//! 1e-6 leaves a wide margin. Results at `f32` are compared with the same `f64` differences,
//! taken at the `f32` point, to 1e-3 relative: `f32` carries 7 digits, and these bodies lose up
//! to three of them to cancellation.

use ad::{Const, differentiable};
use num_traits::{Float, FloatConst, FromPrimitive};
use std::sync::{Mutex, MutexGuard};

/// Serialises the tests, two of which register rules at run time and one counts resolutions:
/// the registry is global to the process.
fn registry_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn close64(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn close32(a: f32, b: f64) -> bool {
    (f64::from(a) - b).abs() <= 1e-3 * b.abs().max(1.0)
}

/// The central difference of `f` at `x` along coordinate `i` (see the module's note).
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6 * x[i].abs().max(1.0);
    let (mut up, mut down) = (x.to_vec(), x.to_vec());
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (2.0 * h)
}

fn unit64(n: usize, i: usize) -> Vec<f64> {
    (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()
}

fn unit32(n: usize, i: usize) -> Vec<f32> {
    (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()
}

/// Deterministic points spread over [-1.5, 1.5].
fn points(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.5
        })
        .collect()
}

// ---- The functions, written as generic numerics code is written. ----

/// The Rosenbrock function as argmin writes it: sum (a - x_i)^2 + b (x_{i+1} - x_i^2)^2.
#[differentiable]
fn rosenbrock<T: Float + FromPrimitive>(x: &[T]) -> T {
    let a = T::from_f64(1.0).unwrap();
    let b = T::from_f64(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let d = a - x[i];
        let e = x[i + 1] - x[i] * x[i];
        s = s + d * d + b * e * e;
    }
    s
}

/// Constants spelled every way generic code spells them.
#[differentiable]
fn constants<T: Float + FloatConst + FromPrimitive>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    let half = T::from_f64(0.5).unwrap();
    let pi = T::PI();
    let tiny = T::epsilon();
    let big = T::infinity();
    let mut r = two * x.sin() * y + half * (pi * x).cos() - T::one() + T::zero() * y;
    if x < big {
        r = r + tiny * x;
    }
    r
}

/// A helper called with its type argument spelled out and inferred.
#[differentiable]
fn softplus<T: Float>(x: T) -> T {
    (T::one() + x.exp()).ln()
}

#[differentiable]
fn layer<T>(w: &[T], x: &[T], b: T) -> T
where
    T: Float,
{
    let mut z = b;
    for i in 0..w.len() {
        z = z + w[i] * x[i];
    }
    softplus::<T>(z) + softplus(z * z)
}

/// Arrays, `Vec`s and tuple results of `T`.
#[differentiable]
fn polar<T: Float>(p: [T; 2], scale: Vec<T>) -> (T, T) {
    let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let t = p[1].atan2(p[0]);
    (r * scale[0], t * scale[1])
}

/// Data held constant, integers, and a `&mut [T]` output.
#[differentiable]
fn smooth<T: Float + num_traits::NumCast>(x: &[T], k: Const<T>, n: usize, out: &mut [T]) -> T {
    let scale = T::from(n).unwrap();
    let mut total = T::zero();
    for i in 0..x.len() {
        out[i] = x[i].tanh() * k.0 / scale;
        total = total + out[i] * out[i];
    }
    total
}

#[test]
fn rosenbrock_at_f64_and_f32_in_both_modes() {
    let _lock = registry_lock();
    for seed in 1..6 {
        let x = points(6, seed);
        let (value, (grad,)) = ad::value_and_grad(rosenbrock::<f64>, (&x[..],));
        assert_eq!(value, rosenbrock(&x[..]));
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (value32, (grad32,)) = ad::value_and_grad(rosenbrock::<f32>, (&x32[..],));
        assert_eq!(value32, rosenbrock(&x32[..]));
        // The f32 differences are taken at the f32 point, widened.
        let x32w: Vec<f64> = x32.iter().map(|&v| f64::from(v)).collect();
        for i in 0..x.len() {
            let d = fd(rosenbrock::<f64>, &x, i);
            assert!(close64(grad[i], d), "d/dx{i}: {} vs {d}", grad[i]);
            let (_, t) = ad::jvp(rosenbrock::<f64>, (&x[..],), (&unit64(6, i)[..],));
            assert!(close64(t, d));
            let d32 = fd(rosenbrock::<f64>, &x32w, i);
            assert!(
                close32(grad32[i], d32),
                "f32 d/dx{i}: {} vs {d32}",
                grad32[i]
            );
            let (_, t) = ad::jvp(rosenbrock::<f32>, (&x32[..],), (&unit32(6, i)[..],));
            assert!(close32(t, d32));
        }
    }
}

#[test]
fn constants_as_generic_code_spells_them() {
    let _lock = registry_lock();
    for seed in 10..16 {
        let p = points(2, seed);
        let (x, y) = (p[0], p[1]);
        let f = |v: &[f64]| constants(v[0], v[1]);
        let (value, (gx, gy)) = ad::value_and_grad(constants::<f64>, (x, y));
        assert_eq!(value, constants(x, y));
        let (dx, dy) = (fd(f, &p, 0), fd(f, &p, 1));
        assert!(close64(gx, dx) && close64(gy, dy), "{gx} {gy} vs {dx} {dy}");
        let (_, t) = ad::jvp(constants::<f64>, (x, y), (0.25, -2.0));
        assert!(close64(t, 0.25 * dx - 2.0 * dy));

        let (x32, y32) = (x as f32, y as f32);
        let p32 = [f64::from(x32), f64::from(y32)];
        let (_, (gx, gy)) = ad::value_and_grad(constants::<f32>, (x32, y32));
        assert!(close32(gx, fd(f, &p32, 0)) && close32(gy, fd(f, &p32, 1)));
        let (_, t) = ad::jvp(constants::<f32>, (x32, y32), (1.0, 0.0));
        assert!(close32(t, fd(f, &p32, 0)));
    }
}

#[test]
fn calls_of_generic_functions_with_spelled_and_inferred_types() {
    let _lock = registry_lock();
    let w = [0.3, -0.7, 0.2];
    let x = [1.0, 0.5, -1.5];
    let b = 0.1;
    let (value, (gw, gx, gb)) = ad::value_and_grad(layer::<f64>, (&w[..], &x[..], b));
    assert_eq!(value, layer(&w[..], &x[..], b));
    let mut all = w.to_vec();
    all.extend_from_slice(&x);
    all.push(b);
    let oracle = |v: &[f64]| layer(&v[0..3], &v[3..6], v[6]);
    let grads: Vec<f64> = gw.iter().chain(gx.iter()).copied().chain([gb]).collect();
    for (i, g) in grads.iter().enumerate() {
        let d = fd(oracle, &all, i);
        assert!(close64(*g, d), "coordinate {i}: {g} vs {d}");
    }
    let (_, t) = ad::jvp(
        layer::<f32>,
        (
            &[0.3_f32, -0.7, 0.2][..],
            &[1.0_f32, 0.5, -1.5][..],
            0.1_f32,
        ),
        (&[1.0_f32, 0.0, 0.0][..], &[0.0_f32; 3][..], 0.0_f32),
    );
    let all32: Vec<f64> = all.iter().map(|&v| f64::from(v as f32)).collect();
    assert!(close32(t, fd(oracle, &all32, 0)));
}

#[test]
fn arrays_vecs_and_tuple_results() {
    let _lock = registry_lock();
    let (p, scale) = ([0.6, -0.8], vec![2.0, 3.0]);
    let (_, pullback) = ad::vjp(polar::<f64>, (p, scale));
    let all = [0.6, -0.8, 2.0, 3.0];
    for k in 0..2 {
        let seed = if k == 0 { (1.0, 0.0) } else { (0.0, 1.0) };
        let (gp, gscale) = pullback(seed);
        let oracle = |v: &[f64]| {
            let r = polar([v[0], v[1]], vec![v[2], v[3]]);
            if k == 0 { r.0 } else { r.1 }
        };
        for i in 0..4 {
            let d = fd(oracle, &all, i);
            let g = if i < 2 { gp[i] } else { gscale[i - 2] };
            assert!(close64(g, d), "result {k}, coordinate {i}: {g} vs {d}");
        }
    }
    // Along p0 at r = 1: d(2 r) = 2 p0 / r, d(3 t) = -3 p1 / r^2.
    let (_, (dr, dt)) = ad::jvp(
        polar::<f32>,
        ([0.6, -0.8], vec![2.0, 3.0]),
        ([1.0, 0.0], vec![0.0, 0.0]),
    );
    assert!(close32(dr, 2.0 * 0.6) && close32(dt, 3.0 * 0.8));
}

#[test]
fn constant_data_integers_and_outputs() {
    let _lock = registry_lock();
    let x = [0.2, -0.4, 0.9];
    let mut out = [0.0; 3];
    let (value, (gx, gk, gn, gout)) =
        ad::value_and_grad(smooth::<f64>, (&x[..], Const(1.5), 4, &mut out[..]));
    assert_eq!((gk, gn, gout.len()), (ad::NoTangent, ad::NoTangent, 3));
    let oracle = |v: &[f64]| {
        let mut o = [0.0; 3];
        smooth(v, Const(1.5), 4, &mut o)
    };
    assert_eq!(value, oracle(&x));
    for (i, g) in gx.iter().enumerate() {
        let d = fd(oracle, &x, i);
        assert!(close64(*g, d), "{g} vs {d}");
    }
    let mut out32 = [0.0_f32; 3];
    let mut dout = [0.0_f32; 3];
    let (_, t) = ad::jvp(
        smooth::<f32>,
        (&[0.2_f32, -0.4, 0.9][..], Const(1.5), 4, &mut out32[..]),
        (
            &[0.0_f32, 1.0, 0.0][..],
            ad::NoTangent,
            ad::NoTangent,
            &mut dout[..],
        ),
    );
    // d out_1 = (1 - tanh^2(-0.4)) 1.5 / 4, and the total's tangent is 2 out_1 d out_1.
    let th = (-0.4_f64).tanh();
    let d1 = (1.0 - th * th) * 1.5 / 4.0;
    assert!(close32(dout[1], d1));
    assert!(close32(t, 2.0 * f64::from(out32[1]) * d1));
}

/// Conversions written as calls: `T::from(x).unwrap()` of a `T` is the identity, of an integer
/// a constant. f(x) = 3 x^2 at n = 3: f'(x) = 6 x.
#[differentiable]
fn converts<T: Float + FromPrimitive>(x: T, n: usize) -> T {
    let y = T::from(x).unwrap();
    let k = T::from_usize(n).expect("a count fits any float");
    y * y * k
}

#[test]
fn conversions_written_as_calls() {
    let _lock = registry_lock();
    assert_eq!(ad::grad(converts::<f64>, (1.5, 3)), (9.0, ad::NoTangent));
    assert_eq!(
        ad::jvp(converts::<f32>, (1.5, 3), (1.0, ad::NoTangent)),
        (6.75, 9.0)
    );
}

// ---- Bounds that `f32` does not meet: only `f64` is registered, and the build is fine. ----

trait Wide {}
impl Wide for f64 {}

#[differentiable]
fn wide_only<T: Float + Wide>(x: T) -> T {
    x * x * x
}

#[test]
fn an_instantiation_whose_bounds_fail_is_left_out() {
    let _lock = registry_lock();
    assert_eq!(ad::grad(wide_only::<f64>, (2.0,)), (12.0,));
    // `wide_only::<f32>` cannot even be named: nothing is registered for it, and nothing fails.
    let rules = ad::rules::list();
    let named = |instance: &str| {
        rules
            .iter()
            .filter(|r| r.function.ends_with(&format!("wide_only<{instance}>")))
            .count()
    };
    assert_eq!((named("f64"), named("f32")), (2, 0));
}

// ---- Rules: for one instantiation, and generic for all. ----

/// No derivative of its own: the rules below give it one, `3x^2` scaled by 10 in forward mode
/// at `f64` (so that the rule is seen) and by 100 in the generic reverse rule.
fn cube<T: Float>(x: T) -> T {
    x * x * x
}

#[differentiable]
fn uses_cube<T: Float>(x: T) -> T {
    cube(x) + x
}

// The rules stand below the function that uses them: the order of definition does not matter.

#[ad::custom_rule(forward, of = cube::<f64>)]
fn cube_jvp_f64(x: f64, dx: f64) -> (f64, f64) {
    (x * x * x, 30.0 * x * x * dx)
}

#[ad::custom_rule(reverse, of = cube)]
fn cube_vjp<T: Float + FromPrimitive>(x: T, _value: T, bar: T) -> T {
    T::from_f64(300.0).unwrap() * x * x * bar
}

#[test]
fn rules_for_one_instantiation_and_for_all() {
    let _lock = registry_lock();
    // f64, forward: the f64 rule.
    assert_eq!(
        ad::jvp(uses_cube::<f64>, (2.0,), (1.0,)).1,
        30.0 * 4.0 + 1.0
    );
    // f64 and f32, reverse: the generic rule.
    assert_eq!(ad::grad(uses_cube::<f64>, (2.0,)).0, 300.0 * 4.0 + 1.0);
    assert_eq!(ad::grad(uses_cube::<f32>, (2.0,)).0, 300.0 * 4.0 + 1.0);
    // f32, forward: no forward rule at f32, so the reverse rule is converted.
    assert_eq!(
        ad::jvp(uses_cube::<f32>, (2.0,), (1.0,)).1,
        300.0 * 4.0 + 1.0
    );
}

// ---- Order independence: a run-time rule for one instantiation, inside generic callers. ----

#[differentiable]
fn square<T: Float>(x: T) -> T {
    x * x
}

#[differentiable]
fn area<T: Float + FloatConst>(r: T) -> T {
    T::PI() * square(r)
}

#[differentiable]
fn ring<T: Float + FloatConst>(r: T, w: T) -> T {
    area(r + w) - area::<T>(r)
}

#[test]
fn a_late_rule_for_one_instantiation_is_honoured_inside_generic_callers() {
    let _lock = registry_lock();
    let pi = std::f64::consts::PI;
    let (r, w) = (1.5, 0.5);
    // Generated derivatives first, at both instantiations, in both modes.
    let truth = 2.0 * pi * w; // d/dr [pi (r + w)^2 - pi r^2]
    assert!(close64(ad::grad(ring::<f64>, (r, w)).0, truth));
    assert!(close64(ad::jvp(ring::<f64>, (r, w), (1.0, 0.0)).1, truth));
    assert!(close32(ad::grad(ring::<f32>, (1.5, 0.5)).0, truth));

    // A forward and a reverse rule for `square::<f64>` only, registered after those ran:
    // d square := 4x (twice the truth), so ring's derivative along r doubles.
    let forward =
        ad::rules::register_forward(square::<f64>, |x: f64, dx: f64| (x * x, 4.0 * x * dx));
    let reverse =
        ad::rules::register_reverse(square::<f64>, |x: f64, _y: f64, bar: f64| 4.0 * x * bar);
    assert!(close64(
        ad::jvp(ring::<f64>, (r, w), (1.0, 0.0)).1,
        2.0 * truth
    ));
    assert!(close64(ad::grad(ring::<f64>, (r, w)).0, 2.0 * truth));
    assert!(close64(ad::grad(area::<f64>, (r,)).0, 4.0 * pi * r));
    // `square::<f32>` is another function: unaffected.
    assert!(close32(ad::grad(ring::<f32>, (1.5, 0.5)).0, truth));
    assert!(close32(
        ad::jvp(ring::<f32>, (1.5, 0.5), (1.0, 0.0)).1,
        truth
    ));

    // Dropping the guards restores the generated derivative.
    drop(forward);
    drop(reverse);
    assert!(close64(ad::jvp(ring::<f64>, (r, w), (1.0, 0.0)).1, truth));
    assert!(close64(ad::grad(ring::<f64>, (r, w)).0, truth));
}

// ---- A call site in a generic function serves every instantiation. ----

/// `scaled::<T>` multiplies by `T`'s machine epsilon, converted to `f64`: the instantiations
/// have the same signature, `fn(f64) -> f64`, and different derivatives.
#[differentiable]
fn scaled<T: Float>(x: f64) -> f64 {
    x * T::epsilon().to_f64().unwrap()
}

#[differentiable]
fn via<T: Float>(x: f64) -> f64 {
    scaled::<T>(x) * 2.0
}

#[test]
fn one_call_site_keeps_each_instantiations_callee_apart() {
    let _lock = registry_lock();
    let (e32, e64) = (f64::from(f32::EPSILON), f64::EPSILON);
    for _ in 0..3 {
        assert_eq!(ad::grad(via::<f32>, (1.0,)).0, 2.0 * e32);
        assert_eq!(ad::grad(via::<f64>, (1.0,)).0, 2.0 * e64);
        assert_eq!(ad::jvp(via::<f32>, (1.0,), (1.0,)).1, 2.0 * e32);
        assert_eq!(ad::jvp(via::<f64>, (1.0,), (1.0,)).1, 2.0 * e64);
    }
    // Alternating instantiations resolve each callee once, not at every switch.
    let before = ad::__private::reverse_resolutions();
    for _ in 0..10 {
        ad::grad(via::<f32>, (1.0,));
        ad::grad(via::<f64>, (1.0,));
    }
    assert_eq!(ad::__private::reverse_resolutions(), before);
}

// ---- Conflicts are per instantiation. ----

/// Two forward rules for `twice::<f64>` (one for that instantiation, one generic) conflict;
/// `twice::<f32>` has the generic one only.
fn twice<T: Float>(x: T) -> T {
    x + x
}

#[ad::custom_rule(forward, of = twice::<f64>)]
fn twice_jvp_f64(x: f64, dx: f64) -> (f64, f64) {
    (x + x, 2.0 * dx)
}

#[ad::custom_rule(forward, of = twice)]
fn twice_jvp<T: Float>(x: T, dx: T) -> (T, T) {
    (x + x, dx + dx)
}

#[test]
fn conflicts_are_per_instantiation() {
    let _lock = registry_lock();
    let err = ad::try_jvp(twice::<f64>, (1.0,), (1.0,)).unwrap_err();
    assert!(matches!(err, ad::Error::Conflict { .. }), "{err}");
    assert_eq!(ad::jvp(twice::<f32>, (1.0,), (1.0,)), (2.0, 2.0));
    let reported: Vec<String> = ad::rules::check().iter().map(ToString::to_string).collect();
    assert!(
        reported.iter().any(|e| e.contains("twice<f64>")),
        "{reported:?}"
    );
    assert!(
        !reported.iter().any(|e| e.contains("twice<f32>")),
        "{reported:?}"
    );
}

// ---- Lifetime parameters, also named by bounds. ----

/// `sum x_i y_i`, with a lifetime parameter that a bound names: d/dx = y, d/dy = x.
#[differentiable]
#[allow(clippy::multiple_bound_locations)] // both places a bound can name the lifetime
fn dot_with_lifetime<'a, T: Float + 'a>(x: &'a [T], y: &'a [T]) -> T
where
    T: 'a,
{
    let mut s = T::zero();
    for i in 0..x.len() {
        s = s + x[i] * y[i];
    }
    s
}

#[test]
fn lifetime_parameters_named_by_bounds() {
    let _lock = registry_lock();
    let (x, y) = ([1.0, 2.0], [3.0, -4.0]);
    assert_eq!(
        ad::grad(dot_with_lifetime::<f64>, (&x[..], &y[..])),
        (vec![3.0, -4.0], vec![1.0, 2.0])
    );
    let (_, t) = ad::jvp(
        dot_with_lifetime::<f32>,
        (&[1.0_f32, 2.0][..], &[3.0_f32, -4.0][..]),
        (&[1.0_f32, 0.0][..], &[0.0_f32, 0.0][..]),
    );
    assert_eq!(t, 3.0);
}

/// A function written for `f64` that calls generic ones without naming their type, as a user
/// calls argmin's test functions from an objective of their own, also with literal arguments
/// beside typed ones.
#[differentiable]
fn objective(p: &[f64], k: f64) -> f64 {
    rosenbrock(p) + softplus(k) * softplus(-k) + blend(k, 0.25) * blend(2.0, p[1]) * softplus(2.0)
}

/// `a (1 - a) + b`.
#[differentiable]
fn blend<T: Float>(a: T, b: T) -> T {
    a * (T::one() - a) + b
}

#[test]
fn a_monomorphic_function_calls_generic_ones_without_a_turbofish() {
    let _lock = registry_lock();
    let p = [0.5, -0.25, 1.5];
    let k = 0.75;
    let (value, (gp, gk)) = ad::value_and_grad(objective, (&p[..], k));
    assert_eq!(value, objective(&p, k));
    let mut all = p.to_vec();
    all.push(k);
    let oracle = |v: &[f64]| objective(&v[0..3], v[3]);
    let grads: Vec<f64> = gp.iter().copied().chain([gk]).collect();
    for (i, g) in grads.iter().enumerate() {
        let d = fd(oracle, &all, i);
        assert!(close64(*g, d), "coordinate {i}: {g} vs {d}");
    }
    let (_, t) = ad::jvp(objective, (&p[..], k), (&[0.0; 3][..], 1.0));
    assert!(close64(t, fd(oracle, &all, 3)));
    // Its callees are found at the instantiations the calls make: none is missing, while the
    // missing derivative of `bare::<f64>` called the same way is reported.
    let problems = ad::rules::check();
    assert!(
        problems
            .iter()
            .all(|p| !p.to_string().contains("objective")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| matches!(
            p,
            ad::Error::MissingRule { function, caller, .. }
                if function.ends_with("::bare<f64>") && caller.ends_with("::calls_bare")
        )),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| matches!(
            p,
            ad::Error::MissingRule { function, caller, .. }
                if function.ends_with("::bare_pair<f64>") && caller.ends_with("::calls_bare_pair")
        )),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| matches!(
            p,
            ad::Error::MissingRule { function, caller, .. }
                if function.ends_with("::bare_pair<f64>") && caller.ends_with("::calls_bare_literal")
        )),
        "{problems:?}"
    );
    // A generic function's calls are listed at each instantiation: `bare::<T>` is missing at
    // `f64` and at `f32`.
    for float in ["f64", "f32"] {
        assert!(
            problems.iter().any(|p| matches!(
                p,
                ad::Error::MissingRule { function, caller, .. }
                    if function.ends_with(&format!("::bare<{float}>"))
                        && caller.ends_with(&format!("::calls_bare_generic<{float}>"))
            )),
            "{float}: {problems:?}"
        );
    }
}

#[differentiable]
fn calls_bare_generic<T: Float>(x: T) -> T {
    bare(x) + x
}

/// Generic, with no derivative anywhere.
fn bare<T: Float>(x: T) -> T {
    x.sin()
}

#[differentiable]
fn calls_bare(x: f64) -> f64 {
    bare(x) * 2.0
}

/// Generic, with no derivative anywhere, called with a literal beside a typed argument.
fn bare_pair<T: Float>(x: T, y: T) -> T {
    x.sin() * y
}

#[differentiable]
fn calls_bare_pair(x: f64) -> f64 {
    bare_pair(x, 0.5)
}

/// A generic callee whose type only a literal argument tells the macro: `u` comes from a call,
/// whose result's type the macro does not follow.
#[differentiable]
fn calls_bare_literal(x: f64) -> f64 {
    let u = softplus::<f64>(x);
    bare_pair(u, 0.5)
}
