//! The test functions of the crate `argmin_testfunctions` 0.3.0 (MIT OR Apache-2.0), each
//! copied as written under `#[differentiable]`: the generic signature and the body untouched,
//! only the `use` lines gathered at the top of the module (`num::Float` is
//! `num_traits::Float`). Bodies that had to change to be accepted: none.
//!
//! The oracle is argmin's own hand-written `_derivative` of each function, at many
//! deterministic points inside each function's usual search domain, in both modes, at `f64`
//! and `f32`. The two are the same derivative written as different formulas, so at `f64` they
//! differ by rounding only: a relative tolerance of 1e-8 of the gradient's largest component
//! (with a floor of 1e-12) leaves room for the cancellation in these polynomials and
//! exponentials (goldsteinprice reaches 1e6 with gradients of 1e6, where 1e-8 is 1e-2 absolute
//! and rounding is near 1e-9). At `f32` the derivative is compared with argmin's `f64`
//! derivative at the same (rounded) point. Its error there is rounding in `f32`, which
//! cancellation can make large next to a small gradient (schaffer's `sin(x1^2 - x2^2)` at
//! `|x| ~ 10`), so the bound is what argmin's own derivative makes of the same point in `f32`:
//! each component within four times argmin's `f32` error, or within 2e-3 of the largest
//! component, whichever is larger.

#![allow(clippy::all, clippy::pedantic)] // the corpus is kept exactly as its crate wrote it

mod corpus {
    use ad::differentiable;
    use num_traits::{Float, FromPrimitive};
    use std::f64::consts::PI;
    use std::iter::Sum;

    // ackley.rs
    #[differentiable]
    pub fn ackley<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        ackley_abc(
            param,
            T::from_f64(20.0).unwrap(),
            T::from_f64(0.2).unwrap(),
            T::from_f64(2.0 * PI).unwrap(),
        )
    }

    // ackley.rs
    #[differentiable]
    pub fn ackley_abc<T>(param: &[T], a: T, b: T, c: T) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let num1 = T::from_f64(1.0).unwrap();
        let n = T::from_usize(param.len()).unwrap();
        -a * (-b * ((num1 / n) * param.iter().map(|x| x.powi(2)).sum()).sqrt()).exp()
            - ((num1 / n) * param.iter().map(|x| (c * *x).cos()).sum()).exp()
            + a
            + num1.exp()
    }

    // beale.rs
    #[differentiable]
    pub fn beale<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        (T::from_f64(1.5).unwrap() - x1 + x1 * x2).powi(2)
            + (T::from_f64(2.25).unwrap() - x1 + x1 * (x2.powi(2))).powi(2)
            + (T::from_f64(2.625).unwrap() - x1 + x1 * (x2.powi(3))).powi(2)
    }

    // booth.rs
    #[differentiable]
    pub fn booth<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let n2 = T::from_f64(2.0).unwrap();
        let n5 = T::from_f64(5.0).unwrap();
        let n7 = T::from_f64(7.0).unwrap();

        let [x1, x2] = *param;
        (x1 + n2 * x2 - n7).powi(2) + (n2 * x1 + x2 - n5).powi(2)
    }

    // bukin.rs
    #[differentiable]
    pub fn bukin_n6<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let n001 = T::from_f64(0.01).unwrap();
        let n10 = T::from_f64(10.0).unwrap();
        let n100 = T::from_f64(100.0).unwrap();
        n100 * (x2 - n001 * x1.powi(2)).abs().sqrt() + n001 * (x1 + n10).abs()
    }

    // crossintray.rs
    #[differentiable]
    pub fn cross_in_tray<T>(param: &[T; 2]) -> T
    where
        T: Float + Into<f64> + FromPrimitive,
    {
        let x1: f64 = param[0].into();
        let x2: f64 = param[1].into();
        T::from_f64(
            -0.0001
                * ((x1.sin()
                    * x2.sin()
                    * (100.0 - (x1.powi(2) + x2.powi(2)).sqrt() / PI).abs().exp())
                .abs()
                    + 1.0)
                    .powf(0.1),
        )
        .unwrap()
    }

    // easom.rs
    #[differentiable]
    pub fn easom<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let pi = T::from_f64(PI).unwrap();
        -x1.cos() * x2.cos() * (-(x1 - pi).powi(2) - (x2 - pi).powi(2)).exp()
    }

    // eggholder.rs
    #[differentiable]
    pub fn eggholder<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let n47 = T::from_f64(47.0).unwrap();
        -(x2 + n47)
            * (x2 + x1 / T::from_f64(2.0).unwrap() + n47)
                .abs()
                .sqrt()
                .sin()
            - x1 * (x1 - (x2 + n47)).abs().sqrt().sin()
    }

    // goldsteinprice.rs
    #[differentiable]
    pub fn goldsteinprice<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n3 = T::from_f64(3.0).unwrap();
        let n6 = T::from_f64(6.0).unwrap();
        let n12 = T::from_f64(12.0).unwrap();
        let n14 = T::from_f64(14.0).unwrap();
        let n18 = T::from_f64(18.0).unwrap();
        let n19 = T::from_f64(19.0).unwrap();
        let n27 = T::from_f64(27.0).unwrap();
        let n30 = T::from_f64(30.0).unwrap();
        let n32 = T::from_f64(32.0).unwrap();
        let n36 = T::from_f64(36.0).unwrap();
        let n48 = T::from_f64(48.0).unwrap();
        (n1 + (x1 + x2 + n1).powi(2)
            * (n19 - n14 * (x1 + x2) + n3 * (x1.powi(2) + x2.powi(2)) + n6 * x1 * x2))
            * (n30
                + (n2 * x1 - n3 * x2).powi(2)
                    * (n18 - n32 * x1 + n12 * x1.powi(2) + n48 * x2 - n36 * x1 * x2
                        + n27 * x2.powi(2)))
    }

    // himmelblau.rs
    #[differentiable]
    pub fn himmelblau<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let n7 = T::from_f64(7.0).unwrap();
        let n11 = T::from_f64(11.0).unwrap();
        (x1.powi(2) + x2 - n11).powi(2) + (x1 + x2.powi(2) - n7).powi(2)
    }

    // holdertable.rs
    #[differentiable]
    pub fn holder_table<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let pi = T::from_f64(PI).unwrap();
        let n1 = T::from_f64(1.0).unwrap();
        -(x1.sin() * x2.cos() * (n1 - (x1.powi(2) + x2.powi(2)).sqrt() / pi).abs().exp()).abs()
    }

    // levy.rs
    #[differentiable]
    pub fn levy<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let plen = param.len();
        assert!(plen >= 2);

        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n4 = T::from_f64(4.0).unwrap();
        let n10 = T::from_f64(10.0).unwrap();
        let pi = T::from_f64(PI).unwrap();

        let w = |x: T| n1 + (x - n1) / n4;

        (pi * w(param[0])).sin().powi(2)
            + param[1..(plen - 1)]
                .iter()
                .map(|x| w(*x))
                .map(|wi: T| (wi - n1).powi(2) * (n1 + n10 * (pi * wi + n1).sin().powi(2)))
                .sum()
            + (w(param[plen - 1]) - n1).powi(2)
                * (n1 + (n2 * pi * w(param[plen - 1])).sin().powi(2))
    }

    // levy.rs
    #[differentiable]
    pub fn levy_n13<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let [x1, x2] = *param;

        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n3 = T::from_f64(3.0).unwrap();
        let pi = T::from_f64(PI).unwrap();

        (n3 * pi * x1).sin().powi(2)
            + (x1 - n1).powi(2) * (n1 + (n3 * pi * x2).sin().powi(2))
            + (x2 - n1).powi(2) * (n1 + (n2 * pi * x2).sin().powi(2))
    }

    // matyas.rs
    #[differentiable]
    pub fn matyas<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;

        let n026 = T::from_f64(0.26).unwrap();
        let n048 = T::from_f64(0.48).unwrap();

        n026 * (x1.powi(2) + x2.powi(2)) - n048 * x1 * x2
    }

    // mccormick.rs
    #[differentiable]
    pub fn mccormick<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        (x1 + x2).sin() + (x1 - x2).powi(2) - T::from_f64(1.5).unwrap() * x1
            + T::from_f64(2.5).unwrap() * x2
            + T::from_f64(1.0).unwrap()
    }

    // picheny.rs
    #[differentiable]
    pub fn picheny<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n3 = T::from_f64(3.0).unwrap();
        let n4 = T::from_f64(4.0).unwrap();
        let n6 = T::from_f64(6.0).unwrap();
        let n12 = T::from_f64(12.0).unwrap();
        let n14 = T::from_f64(14.0).unwrap();
        let n18 = T::from_f64(18.0).unwrap();
        let n19 = T::from_f64(19.0).unwrap();
        let n27 = T::from_f64(27.0).unwrap();
        let n30 = T::from_f64(30.0).unwrap();
        let n32 = T::from_f64(32.0).unwrap();
        let n36 = T::from_f64(36.0).unwrap();
        let n48 = T::from_f64(48.0).unwrap();

        let [x1, x2] = param.map(|x| n4 * x - n2);

        T::from_f64(1.0 / 2.427).unwrap()
            * (((n1
                + (x1 + x2 + n1).powi(2)
                    * (n19 - n14 * (x1 + x2) + n3 * (x1.powi(2) + x2.powi(2)) + n6 * x1 * x2))
                * (n30
                    + (n2 * x1 - n3 * x2).powi(2)
                        * (n18 - n32 * x1 + n12 * x1.powi(2) + n48 * x2 - n36 * x1 * x2
                            + n27 * x2.powi(2))))
            .log10()
                - T::from_f64(8.693).unwrap())
    }

    // rastrigin.rs
    #[differentiable]
    pub fn rastrigin<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        rastrigin_a(param, T::from_f64(10.0).unwrap())
    }

    // rastrigin.rs
    #[differentiable]
    pub fn rastrigin_a<T>(param: &[T], a: T) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        a * T::from_usize(param.len()).unwrap()
            + param
                .iter()
                .map(|&x| x.powi(2) - a * (T::from_f64(2.0 * PI).unwrap() * x).cos())
                .sum()
    }

    // rosenbrock.rs
    #[differentiable]
    pub fn rosenbrock<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        rosenbrock_ab(
            param,
            T::from_f64(1.0).unwrap(),
            T::from_f64(100.0).unwrap(),
        )
    }

    // rosenbrock.rs
    #[differentiable]
    pub fn rosenbrock_ab<T>(param: &[T], a: T, b: T) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        param
            .iter()
            .zip(param.iter().skip(1))
            .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
            .sum()
    }

    // schaffer.rs
    #[differentiable]
    pub fn schaffer_n2<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;

        let n0_001 = T::from_f64(0.001).unwrap();
        let n0_5 = T::from_f64(0.5).unwrap();
        let n1 = T::from_f64(1.0).unwrap();

        n0_5 + ((x1.powi(2) - x2.powi(2)).sin().powi(2) - n0_5)
            / (n1 + n0_001 * (x1.powi(2) + x2.powi(2))).powi(2)
    }

    // schaffer.rs
    #[differentiable]
    pub fn schaffer_n4<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let n05 = T::from_f64(0.5).unwrap();
        let n1 = T::from_f64(1.0).unwrap();
        let n0001 = T::from_f64(0.001).unwrap();
        n05 + ((x1.powi(2) - x2.powi(2)).abs().sin().cos().powi(2) - n05)
            / (n1 + n0001 * (x1.powi(2) + x2.powi(2))).powi(2)
    }

    // sphere.rs
    #[differentiable]
    pub fn sphere<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        param.iter().map(|x| x.powi(2)).sum()
    }

    // styblinskitang.rs
    #[differentiable]
    pub fn styblinski_tang<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        T::from_f64(0.5).unwrap()
            * param
                .iter()
                .map(|x| {
                    x.powi(4) - T::from_f64(16.0).unwrap() * x.powi(2)
                        + T::from_f64(5.0).unwrap() * *x
                })
                .sum()
    }

    // threehumpcamel.rs
    #[differentiable]
    pub fn threehumpcamel<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;

        T::from_f64(2.0).unwrap() * x1.powi(2) - T::from_f64(1.05).unwrap() * x1.powi(4)
            + x1.powi(6) / T::from_f64(6.0).unwrap()
            + x1 * x2
            + x2.powi(2)
    }

    // zero.rs
    #[differentiable]
    pub fn zero<T>(_param: &[T]) -> T
    where
        T: Float + FromPrimitive,
    {
        T::from_f64(0.0).unwrap()
    }
}

use argmin_testfunctions as argmin;

/// Deterministic pseudo-random numbers in [0, 1) (xorshift64*).
struct Points(u64);

impl Points {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn within(&mut self, (lo, hi): (f64, f64)) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

const POINTS: usize = 40;

fn scale(want: &[f64]) -> f64 {
    want.iter().fold(1e-4_f64, |m, w| m.max(w.abs()))
}

fn check64(what: &str, got: &[f64], want: &[f64]) {
    let tol = (1e-8 * scale(want)).max(1e-12);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol,
            "{what} [{i}]: {g:e} vs argmin's {w:e}"
        );
    }
}

/// `got`, computed in `f32`, against `want` in `f64`, with `theirs` the hand-written derivative
/// computed in `f32` (see the module's note).
fn check32(what: &str, got: &[f32], want: &[f64], theirs: &[f32]) {
    let floor = 2e-3 * scale(want);
    for (i, ((g, w), t)) in got.iter().zip(want).zip(theirs).enumerate() {
        let tol = floor.max(4.0 * (f64::from(*t) - w).abs());
        assert!(
            (f64::from(*g) - w).abs() <= tol,
            "{what} [{i}] at f32: {g:e} vs argmin's {w:e} (argmin's in f32: {t:e})"
        );
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A function of `&[T; 2]`: the gradient, and the JVP along a direction, at `f64` and `f32`.
macro_rules! two_d {
    ($test:ident, $f:ident, $derivative:ident, $x1:expr, $x2:expr) => {
        #[test]
        fn $test() {
            let mut points = Points(0x5EED ^ (stringify!($f).len() as u64) << 32);
            for _ in 0..POINTS {
                let p = [points.within($x1), points.within($x2)];
                let v = [points.within((-1.0, 1.0)), points.within((-1.0, 1.0))];
                let want = argmin::$derivative(&p);
                let (value, (got,)) = ad::value_and_grad(corpus::$f::<f64>, (&p,));
                assert_eq!(value, argmin::$f(&p), "{} at {p:?}", stringify!($f));
                check64(stringify!($f), &got, &want);
                let (_, along) = ad::jvp(corpus::$f::<f64>, (&p,), (v,));
                check64(stringify!($f), &[along], &[dot(&want, &v)]);

                let p32 = p.map(|x| x as f32);
                let want32 = argmin::$derivative(&p32.map(f64::from));
                let theirs = argmin::$derivative(&p32);
                let (_, (got32,)) = ad::value_and_grad(corpus::$f::<f32>, (&p32,));
                check32(stringify!($f), &got32, &want32, &theirs);
                let v32 = v.map(|x| x as f32);
                let (_, along32) = ad::jvp(corpus::$f::<f32>, (&p32,), (v32,));
                let theirs_along: f32 = theirs.iter().zip(&v32).map(|(a, b)| a * b).sum();
                check32(
                    stringify!($f),
                    &[along32],
                    &[dot(&want32, &v)],
                    &[theirs_along],
                );
            }
        }
    };
}

two_d!(beale, beale, beale_derivative, (-4.5, 4.5), (-4.5, 4.5));
two_d!(booth, booth, booth_derivative, (-10.0, 10.0), (-10.0, 10.0));
two_d!(
    bukin_n6,
    bukin_n6,
    bukin_n6_derivative,
    (-15.0, -5.0),
    (-3.0, 3.0)
);
two_d!(
    cross_in_tray,
    cross_in_tray,
    cross_in_tray_derivative,
    (-10.0, 10.0),
    (-10.0, 10.0)
);
two_d!(easom, easom, easom_derivative, (1.0, 5.0), (1.0, 5.0));
two_d!(
    eggholder,
    eggholder,
    eggholder_derivative,
    (-512.0, 512.0),
    (-512.0, 512.0)
);
two_d!(
    goldsteinprice,
    goldsteinprice,
    goldsteinprice_derivative,
    (-2.0, 2.0),
    (-2.0, 2.0)
);
two_d!(
    himmelblau,
    himmelblau,
    himmelblau_derivative,
    (-5.0, 5.0),
    (-5.0, 5.0)
);
two_d!(
    holder_table,
    holder_table,
    holder_table_derivative,
    (-10.0, 10.0),
    (-10.0, 10.0)
);
two_d!(
    levy_n13,
    levy_n13,
    levy_n13_derivative,
    (-10.0, 10.0),
    (-10.0, 10.0)
);
two_d!(
    matyas,
    matyas,
    matyas_derivative,
    (-10.0, 10.0),
    (-10.0, 10.0)
);
two_d!(
    mccormick,
    mccormick,
    mccormick_derivative,
    (-1.5, 4.0),
    (-3.0, 4.0)
);
two_d!(picheny, picheny, picheny_derivative, (0.0, 1.0), (0.0, 1.0));
two_d!(
    schaffer_n2,
    schaffer_n2,
    schaffer_n2_derivative,
    (-10.0, 10.0),
    (-10.0, 10.0)
);
two_d!(
    schaffer_n4,
    schaffer_n4,
    schaffer_n4_derivative,
    (-10.0, 10.0),
    (-10.0, 10.0)
);
two_d!(
    threehumpcamel,
    threehumpcamel,
    threehumpcamel_derivative,
    (-5.0, 5.0),
    (-5.0, 5.0)
);

/// A function of `&[T]`, in 1 to 6 dimensions: the gradient, and the JVP along a direction, at
/// `f64` and `f32`; `$args` are the further arguments, the same for `ad` and for argmin.
macro_rules! n_d {
    ($test:ident, $f:ident, $derivative:ident, $range:expr, $min:expr $(, $arg:expr)*) => {
        #[test]
        fn $test() {
            let mut points = Points(0xD1CE ^ (stringify!($f).len() as u64) << 32);
            for k in 0..POINTS {
                let n = $min + k % (7 - $min);
                let p: Vec<f64> = (0..n).map(|_| points.within($range)).collect();
                let v: Vec<f64> = (0..n).map(|_| points.within((-1.0, 1.0))).collect();
                let want = argmin::$derivative(&p $(, $arg)*);
                let (value, got) = ad::value_and_grad(corpus::$f::<f64>, (&p[..], $($arg,)*));
                assert_eq!(value, argmin::$f(&p $(, $arg)*), "{} at {p:?}", stringify!($f));
                check64(stringify!($f), &got.0, &want);
                let (_, along) = ad::jvp(
                    corpus::$f::<f64>,
                    (&p[..], $($arg,)*),
                    (&v[..], $({let _ = $arg; 0.0},)*),
                );
                check64(stringify!($f), &[along], &[dot(&want, &v)]);

                let p32: Vec<f32> = p.iter().map(|&x| x as f32).collect();
                let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
                let p32w: Vec<f64> = p32.iter().map(|&x| f64::from(x)).collect();
                let want32 = argmin::$derivative(&p32w $(, $arg)*);
                let theirs = argmin::$derivative(&p32 $(, $arg as f32)*);
                let (_, got32) = ad::value_and_grad(corpus::$f::<f32>, (&p32[..], $($arg as f32,)*));
                check32(stringify!($f), &got32.0, &want32, &theirs);
                let (_, along32) = ad::jvp(
                    corpus::$f::<f32>,
                    (&p32[..], $($arg as f32,)*),
                    (&v32[..], $({let _ = $arg; 0.0_f32},)*),
                );
                let theirs_along: f32 = theirs.iter().zip(&v32).map(|(a, b)| a * b).sum();
                check32(stringify!($f), &[along32], &[dot(&want32, &v)], &[theirs_along]);
            }
        }
    };
}

n_d!(ackley, ackley, ackley_derivative, (-5.0, 5.0), 1);
n_d!(
    ackley_abc,
    ackley_abc,
    ackley_abc_derivative,
    (-5.0, 5.0),
    1,
    20.0,
    0.2,
    6.0
);
n_d!(levy, levy, levy_derivative, (-10.0, 10.0), 2);
n_d!(rastrigin, rastrigin, rastrigin_derivative, (-5.12, 5.12), 1);
n_d!(
    rastrigin_a,
    rastrigin_a,
    rastrigin_a_derivative,
    (-5.12, 5.12),
    1,
    7.5
);
n_d!(
    rosenbrock,
    rosenbrock,
    rosenbrock_derivative,
    (-2.0, 2.0),
    2
);
n_d!(
    rosenbrock_ab,
    rosenbrock_ab,
    rosenbrock_ab_derivative,
    (-2.0, 2.0),
    2,
    1.5,
    50.0
);
n_d!(sphere, sphere, sphere_derivative, (-5.0, 5.0), 1);
n_d!(
    styblinski_tang,
    styblinski_tang,
    styblinski_tang_derivative,
    (-5.0, 5.0),
    1
);
n_d!(zero, zero, zero_derivative, (-5.0, 5.0), 1);
