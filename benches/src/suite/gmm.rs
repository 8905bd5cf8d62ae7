//! The Gaussian mixture model, with its methods.

use super::{Method, Problem, assert_close, dot};
use crate::data::Rng;
use crate::harness::Case;
use crate::peers::{
    AdTraitFn, ad_trait_jacobian, dual_jacobian, dual_jvp, fd_jacobian, fd_jvp, relative_error,
};
use crate::problems::gmm::{Gmm, gmm_gradient, gmm_objective, gmm_slices};
use crate::real::Adr;
use ad::{Const, NoTangent};
use std::hint::black_box;

/// The GMM objective, with its direction for JVPs.
pub struct GmmProblem {
    pub g: Gmm,
    pub p: Vec<f64>,
    pub dir: Vec<f64>,
    /// Whether to time the peers and finite differences (the d = 64 scaling check does not).
    pub peers: bool,
}

impl GmmProblem {
    pub fn new(d: usize, k: usize, n: usize, peers: bool) -> Self {
        let g = Gmm::new(d, k, n, 0x5EED_0002 + d as u64);
        let p = g.flat();
        let dir = Rng::new(0x5EED_0003).normals(p.len());
        GmmProblem { g, p, dir, peers }
    }

    fn split<'a>(&self, v: &'a [f64]) -> (&'a [f64], &'a [f64], &'a [f64]) {
        let (a, rest) = v.split_at(self.g.k);
        let (mu, icf) = rest.split_at(self.g.k * self.g.d);
        (a, mu, icf)
    }

    /// `ad`'s gradient, concatenated like the parameters.
    pub fn ad_gradient(&self) -> (f64, Vec<f64>) {
        let g = &self.g;
        let (v, (ga, gm, gi, _, _, _)) = ad::value_and_grad(
            gmm_objective,
            (
                &g.alphas[..],
                &g.means[..],
                &g.icf[..],
                Const(&g.x[..]),
                Const(g.gamma),
                Const(g.m),
            ),
        );
        let mut flat = ga;
        flat.extend_from_slice(&gm);
        flat.extend_from_slice(&gi);
        (v, flat)
    }

    /// The hand-written gradient into `out`, concatenated like the parameters; returns the
    /// value.
    pub fn hand_gradient(&self, out: &mut [f64]) -> f64 {
        let g = &self.g;
        let (ga, rest) = out.split_at_mut(g.k);
        let (gm, gi) = rest.split_at_mut(g.k * g.d);
        gmm_gradient(&g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m, ga, gm, gi)
    }
}

impl Problem for GmmProblem {
    fn key(&self) -> String {
        format!("gmm-d{}-k{}", self.g.d, self.g.k)
    }

    fn title(&self) -> String {
        format!(
            "GMM d = {}, K = {}, n = {} ({} parameters)",
            self.g.d,
            self.g.k,
            self.g.n,
            self.g.parameters()
        )
    }

    fn check(&self) -> String {
        let g = &self.g;
        let (v, grad) = self.ad_gradient();
        let primal = g.at(&self.p);
        assert_close(
            "ad vs primal value",
            (v - primal).abs() / primal.abs(),
            1e-12,
        );
        let (a, mu, icf) = self.split(&self.p);
        assert_eq!(
            v.to_bits(),
            gmm_slices(a, mu, icf, &g.x, g.gamma, g.m).to_bits(),
            "slice primal"
        );
        let mut hand = vec![0.0; self.p.len()];
        let vh = self.hand_gradient(&mut hand);
        assert_close("hand-written value", (v - vh).abs() / v.abs(), 1e-12);
        assert_close("ad vs hand-written", relative_error(&grad, &hand), 1e-10);
        let (da, dm, di) = self.split(&self.dir);
        let (_, d) = ad::jvp(
            gmm_objective,
            (
                &g.alphas[..],
                &g.means[..],
                &g.icf[..],
                Const(&g.x[..]),
                Const(g.gamma),
                Const(g.m),
            ),
            (da, dm, di, NoTangent, NoTangent, NoTangent),
        );
        assert_close(
            "ad JVP vs gradient",
            (d - dot(&grad, &self.dir)).abs() / d.abs(),
            1e-9,
        );
        if !self.peers {
            return "ad gradient = hand-written, ad JVP = ad gradient . direction".into();
        }
        let mut buf = Vec::new();
        let [(_, dn)] = dual_jvp(|p| [g.at(p)], &self.p, &self.dir, &mut buf);
        assert_close("num-dual JVP", (d - dn).abs() / d.abs(), 1e-9);
        let f = AdTraitFn {
            f: |p: &[Adr]| vec![g.at(p)],
            inputs: self.p.len(),
            outputs: 1,
        };
        let mut gt = vec![0.0; self.p.len()];
        ad_trait_jacobian(&f, &self.p, &mut gt);
        assert_close("ad_trait gradient", relative_error(&grad, &gt), 1e-9);
        "ad JVP = num-dual JVP = ad gradient . direction, ad gradient = ad_trait gradient = hand-written"
            .into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let g = &self.g;
        let p = &self.p;
        let dir = &self.dir;
        let (da, dm, di) = self.split(dir);
        let split = move |v| self.split(v);
        let mut cases = vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    let (a, mu, icf) = split(black_box(&p[..]));
                    black_box(gmm_slices(a, mu, icf, &g.x, g.gamma, g.m));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(g.at(black_box(&p[..])));
                }),
            ),
            (
                Method::PrimalAd,
                Case::new("primal-ad", move || {
                    black_box(gmm_objective(
                        black_box(&g.alphas[..]),
                        black_box(&g.means[..]),
                        black_box(&g.icf[..]),
                        Const(&g.x[..]),
                        Const(g.gamma),
                        Const(g.m),
                    ));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(
                        gmm_objective,
                        (
                            black_box(&g.alphas[..]),
                            black_box(&g.means[..]),
                            black_box(&g.icf[..]),
                            Const(&g.x[..]),
                            Const(g.gamma),
                            Const(g.m),
                        ),
                        (da, dm, di, NoTangent, NoTangent, NoTangent),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(
                        gmm_objective,
                        (
                            black_box(&g.alphas[..]),
                            black_box(&g.means[..]),
                            black_box(&g.icf[..]),
                            Const(&g.x[..]),
                            Const(g.gamma),
                            Const(g.m),
                        ),
                    ));
                }),
            ),
            (Method::Hand, {
                let mut out = vec![0.0; p.len()];
                Case::new("hand", move || {
                    black_box(black_box(self).hand_gradient(&mut out));
                    black_box(&out);
                })
            }),
        ];
        if !self.peers {
            return cases;
        }
        cases.push((Method::NdJvp, {
            let mut buf = Vec::new();
            Case::new("nd-jvp", move || {
                black_box(dual_jvp(|q| [g.at(q)], black_box(p), dir, &mut buf));
            })
        }));
        cases.push((Method::NdGrad, {
            let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
            Case::new("nd-grad", move || {
                dual_jacobian(|q| [g.at(q)], black_box(p), &mut buf, &mut out);
                black_box(&out);
            })
        }));
        cases.push((Method::AdTrait, {
            let f = AdTraitFn {
                f: move |q: &[Adr]| vec![g.at(q)],
                inputs: p.len(),
                outputs: 1,
            };
            let mut out = vec![0.0; p.len()];
            Case::new("ad_trait", move || {
                black_box(ad_trait_jacobian(&f, black_box(p), &mut out));
                black_box(&out);
            })
        }));
        cases.push((Method::FdJvp, {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            Case::new("fd-jvp", move || {
                black_box(fd_jvp(|q| [g.at(q)], black_box(p), dir, &mut a, &mut b));
            })
        }));
        cases.push((Method::FdGrad, {
            let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
            Case::new("fd-grad", move || {
                fd_jacobian(|q| [g.at(q)], black_box(p), &mut buf, &mut out);
                black_box(&out);
            })
        }));
        cases
    }
}
