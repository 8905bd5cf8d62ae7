//! RK4 of the damped oscillator, with its methods.

use super::{Method, Problem, assert_close, dot};
use crate::harness::Case;
use crate::peers::{
    AdTraitFn, ad_trait_jacobian, dual_jacobian, dual_jvp, fd_jacobian, fd_jvp, one, relative_error,
};
use crate::problems::rk4::{rk4_generic, rk4_oscillator, rk4_oscillator_inline};
use crate::real::Adr;
use std::hint::black_box;

/// RK4 of the damped oscillator.
pub struct Rk4 {
    pub p: [f64; 4],
    pub dir: [f64; 4],
}

impl Rk4 {
    pub fn new() -> Self {
        Rk4 {
            p: [1.0, 0.0, 0.3, 4.0],
            dir: [0.3, -0.2, 0.5, 0.1],
        }
    }
}

impl Default for Rk4 {
    fn default() -> Self {
        Rk4::new()
    }
}

impl Problem for Rk4 {
    fn key(&self) -> String {
        "rk4".into()
    }

    fn title(&self) -> String {
        "RK4, damped oscillator, 1,000 steps (4 inputs)".into()
    }

    fn check(&self) -> String {
        let [a, b, c, d] = self.p;
        let [da, db, dc, dd] = self.dir;
        let (v, g) = ad::value_and_grad(rk4_oscillator, (a, b, c, d));
        let (vi, gi) = ad::value_and_grad(rk4_oscillator_inline, (a, b, c, d));
        let g = [g.0, g.1, g.2, g.3];
        let gi = [gi.0, gi.1, gi.2, gi.3];
        assert_close("value", (v - rk4_generic(&self.p)).abs() / v.abs(), 1e-12);
        assert_close("inline value", (v - vi).abs() / v.abs(), 1e-12);
        assert_close("call vs inline gradient", relative_error(&g, &gi), 1e-12);
        let mut buf = Vec::new();
        let mut nd = [0.0; 4];
        dual_jacobian(one(rk4_generic), &self.p, &mut buf, &mut nd);
        assert_close("ad vs num-dual gradient", relative_error(&g, &nd), 1e-11);
        let (_, t) = ad::jvp(rk4_oscillator, (a, b, c, d), (da, db, dc, dd));
        assert_close(
            "ad JVP vs gradient",
            (t - dot(&g, &self.dir)).abs() / t.abs(),
            1e-11,
        );
        let f = AdTraitFn {
            f: |q: &[Adr]| vec![rk4_generic(q)],
            inputs: 4,
            outputs: 1,
        };
        let mut gt = [0.0; 4];
        ad_trait_jacobian(&f, &self.p, &mut gt);
        assert_close("ad_trait gradient", relative_error(&g, &gt), 1e-11);
        "ad gradient (with calls and inline) = num-dual = ad_trait; ad JVP = gradient . direction"
            .into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let p = &self.p;
        let dir = &self.dir;
        let [a, b, c, d] = self.p;
        let [da, db, dc, dd] = self.dir;
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    black_box(rk4_oscillator(black_box(a), b, c, d));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(rk4_generic(black_box(&p[..])));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(
                        rk4_oscillator,
                        (black_box(a), b, c, d),
                        (da, db, dc, dd),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(rk4_oscillator, (black_box(a), b, c, d)));
                }),
            ),
            (
                Method::AdJvpInline,
                Case::new("ad-jvp-inline", move || {
                    black_box(ad::jvp(
                        rk4_oscillator_inline,
                        (black_box(a), b, c, d),
                        (da, db, dc, dd),
                    ));
                }),
            ),
            (
                Method::AdGradInline,
                Case::new("ad-grad-inline", move || {
                    black_box(ad::value_and_grad(
                        rk4_oscillator_inline,
                        (black_box(a), b, c, d),
                    ));
                }),
            ),
            (Method::NdJvp, {
                let mut buf = Vec::new();
                Case::new("nd-jvp", move || {
                    black_box(dual_jvp(one(rk4_generic), black_box(p), dir, &mut buf));
                })
            }),
            (Method::NdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 4]);
                Case::new("nd-grad", move || {
                    dual_jacobian(one(rk4_generic), black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
            (Method::AdTrait, {
                let f = AdTraitFn {
                    f: |q: &[Adr]| vec![rk4_generic(q)],
                    inputs: 4,
                    outputs: 1,
                };
                let mut out = [0.0; 4];
                Case::new("ad_trait", move || {
                    black_box(ad_trait_jacobian(&f, black_box(p), &mut out));
                    black_box(&out);
                })
            }),
            (Method::FdJvp, {
                let (mut x, mut y) = (Vec::new(), Vec::new());
                Case::new("fd-jvp", move || {
                    black_box(fd_jvp(
                        |q| [rk4_generic(q)],
                        black_box(p),
                        dir,
                        &mut x,
                        &mut y,
                    ));
                })
            }),
            (Method::FdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 4]);
                Case::new("fd-grad", move || {
                    fd_jacobian(|q| [rk4_generic(q)], black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
        ]
    }
}
