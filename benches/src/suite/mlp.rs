//! The two-layer perceptron on slices, with its methods.

use super::{Method, Problem, assert_close};
use crate::data::Rng;
use crate::harness::Case;
use crate::peers::{
    AdTraitFn, ad_trait_jacobian, dual_jacobian, dual_jvp, fd_jacobian, fd_jvp, relative_error,
};
use crate::problems::mlp::{Mlp, mlp_loss, mlp_slices};
use crate::real::Adr;
use ad::{Const, NoTangent};
use std::hint::black_box;

/// The two-layer perceptron's loss.
pub struct MlpProblem {
    pub m: Mlp,
    pub p: Vec<f64>,
    pub dir: Vec<f64>,
}

impl MlpProblem {
    pub fn new(inputs: usize, hidden: usize, outputs: usize, batch: usize) -> Self {
        let m = Mlp::new(inputs, hidden, outputs, batch, 0x5EED_0006);
        let p = m.flat();
        let dir = Rng::new(0x5EED_0007).normals(p.len());
        MlpProblem { m, p, dir }
    }

    fn split<'a>(&self, v: &'a [f64]) -> [&'a [f64]; 4] {
        let (w1, rest) = v.split_at(self.m.w1.len());
        let (b1, rest) = rest.split_at(self.m.hidden);
        let (w2, b2) = rest.split_at(self.m.w2.len());
        [w1, b1, w2, b2]
    }
}

impl Problem for MlpProblem {
    fn key(&self) -> String {
        "mlp".into()
    }

    fn title(&self) -> String {
        let m = &self.m;
        format!(
            "Two-layer perceptron {} -> {} (tanh) -> {}, batch {} ({} parameters)",
            m.inputs,
            m.hidden,
            m.outputs,
            m.batch,
            m.parameters()
        )
    }

    fn check(&self) -> String {
        let m = &self.m;
        let (v, (g1, gb1, g2, gb2, _, _)) = ad::value_and_grad(
            mlp_loss,
            (
                &m.w1[..],
                &m.b1[..],
                &m.w2[..],
                &m.b2[..],
                Const(&m.x[..]),
                Const(&m.y[..]),
            ),
        );
        let mut grad = g1;
        grad.extend_from_slice(&gb1);
        grad.extend_from_slice(&g2);
        grad.extend_from_slice(&gb2);
        let mut hand = vec![0.0; self.p.len()];
        let mut scratch = vec![0.0; 2 * m.hidden];
        let vh = m.gradient(&self.p, &mut hand, &mut scratch);
        assert_close("ad vs hand-written value", (v - vh).abs() / vh.abs(), 1e-12);
        let [w1, b1, w2, b2] = self.split(&self.p);
        assert_eq!(
            v.to_bits(),
            mlp_slices(w1, b1, w2, b2, &m.x, &m.y).to_bits(),
            "slice primal"
        );
        assert_close("ad vs hand-written", relative_error(&grad, &hand), 1e-12);
        let [w1, b1, w2, b2] = self.split(&self.dir);
        let (_, d) = ad::jvp(
            mlp_loss,
            (
                &m.w1[..],
                &m.b1[..],
                &m.w2[..],
                &m.b2[..],
                Const(&m.x[..]),
                Const(&m.y[..]),
            ),
            (w1, b1, w2, b2, NoTangent, NoTangent),
        );
        let mut buf = Vec::new();
        let [(_, dn)] = dual_jvp(|q| [m.at(q)], &self.p, &self.dir, &mut buf);
        assert_close("ad vs num-dual JVP", (d - dn).abs() / d.abs(), 1e-10);
        let f = AdTraitFn {
            f: |q: &[Adr]| vec![m.at(q)],
            inputs: self.p.len(),
            outputs: 1,
        };
        let mut gt = vec![0.0; self.p.len()];
        ad_trait_jacobian(&f, &self.p, &mut gt);
        assert_close("ad_trait gradient", relative_error(&grad, &gt), 1e-12);
        "ad gradient = hand-written = ad_trait, ad JVP = num-dual JVP".into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let m = &self.m;
        let p = &self.p;
        let dir = &self.dir;
        let [dw1, db1, dw2, db2] = self.split(dir);
        let split = move |v| self.split(v);

        let args = move || {
            (
                black_box(&m.w1[..]),
                black_box(&m.b1[..]),
                black_box(&m.w2[..]),
                black_box(&m.b2[..]),
                Const(&m.x[..]),
                Const(&m.y[..]),
            )
        };
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    let [w1, b1, w2, b2] = split(black_box(&p[..]));
                    black_box(mlp_slices(w1, b1, w2, b2, &m.x, &m.y));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(m.at(black_box(&p[..])));
                }),
            ),
            (
                Method::PrimalAd,
                Case::new("primal-ad", move || {
                    let (a, b, c, d, e, f) = args();
                    black_box(mlp_loss(a, b, c, d, e, f));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(
                        mlp_loss,
                        args(),
                        (dw1, db1, dw2, db2, NoTangent, NoTangent),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(mlp_loss, args()));
                }),
            ),
            (Method::Hand, {
                let (mut g, mut scratch) = (vec![0.0; p.len()], vec![0.0; 2 * m.hidden]);
                Case::new("hand", move || {
                    black_box(m.gradient(black_box(p), &mut g, &mut scratch));
                    black_box(&g);
                })
            }),
            (Method::NdJvp, {
                let mut buf = Vec::new();
                Case::new("nd-jvp", move || {
                    black_box(dual_jvp(|q| [m.at(q)], black_box(p), dir, &mut buf));
                })
            }),
            (Method::NdGrad, {
                let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
                Case::new("nd-grad", move || {
                    dual_jacobian(|q| [m.at(q)], black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
            (Method::AdTrait, {
                let f = AdTraitFn {
                    f: move |q: &[Adr]| vec![m.at(q)],
                    inputs: p.len(),
                    outputs: 1,
                };
                let mut out = vec![0.0; p.len()];
                Case::new("ad_trait", move || {
                    black_box(ad_trait_jacobian(&f, black_box(p), &mut out));
                    black_box(&out);
                })
            }),
            (Method::FdJvp, {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                Case::new("fd-jvp", move || {
                    black_box(fd_jvp(|q| [m.at(q)], black_box(p), dir, &mut a, &mut b));
                })
            }),
            (Method::FdGrad, {
                let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
                Case::new("fd-grad", move || {
                    fd_jacobian(|q| [m.at(q)], black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
        ]
    }
}
