//! Bundle adjustment's residual and Jacobian, with their methods.

use super::{Method, Problem, assert_close};
use crate::data::Rng;
use crate::harness::Case;
use crate::peers::{
    AdTraitFn, ad_trait_jacobian, dual_jacobian, dual_jvp, fd_jacobian, fd_jvp, relative_error,
};
use crate::problems::ba::{Observation, ba_generic, ba_residual, observations};
use crate::real::Adr;
use ad::{Const, NoTangent};
use std::hint::black_box;

/// Bundle adjustment: the 2 x 15 Jacobian block of each of a batch of observations.
pub struct Ba {
    pub obs: Vec<Observation>,
    pub dirs: Vec<[f64; 15]>,
}

impl Ba {
    pub fn new(count: usize) -> Self {
        let obs = observations(count, 0x5EED_0004);
        let mut rng = Rng::new(0x5EED_0005);
        let dirs = (0..count)
            .map(|_| core::array::from_fn(|_| rng.normal()))
            .collect();
        Ba { obs, dirs }
    }
}

/// Splits a 15-vector into `ba_residual`'s argument shapes.
fn ba_parts(p: &[f64; 15]) -> ([f64; 11], [f64; 3], f64) {
    let mut cam = [0.0; 11];
    cam.copy_from_slice(&p[..11]);
    (cam, [p[11], p[12], p[13]], p[14])
}

/// `ad`'s reverse-mode Jacobian of one observation, row-major.
pub fn ba_ad_reverse(o: &Observation) -> [f64; 30] {
    let (_, pullback) = ad::vjp(ba_residual, (o.cam, o.x, o.w, Const(o.feat)));
    let mut out = [0.0; 30];
    for r in 0..2 {
        let mut seed = [0.0; 2];
        seed[r] = 1.0;
        let (gc, gx, gw, _) = pullback(seed);
        out[r * 15..r * 15 + 11].copy_from_slice(&gc);
        out[r * 15 + 11..r * 15 + 14].copy_from_slice(&gx);
        out[r * 15 + 14] = gw;
    }
    out
}

/// `ad`'s forward-mode Jacobian of one observation (15 JVPs), row-major.
pub fn ba_ad_forward(o: &Observation) -> [f64; 30] {
    let mut out = [0.0; 30];
    for i in 0..15 {
        let mut e = [0.0; 15];
        e[i] = 1.0;
        let (dc, dx, dw) = ba_parts(&e);
        let (_, t) = ad::jvp(
            ba_residual,
            (o.cam, o.x, o.w, Const(o.feat)),
            (dc, dx, dw, NoTangent),
        );
        out[i] = t[0];
        out[15 + i] = t[1];
    }
    out
}

impl Problem for Ba {
    fn key(&self) -> String {
        "ba".into()
    }

    fn title(&self) -> String {
        format!(
            "BA, 2 x 15 Jacobian block (times per observation, batch of {})",
            self.obs.len()
        )
    }

    fn check(&self) -> String {
        let mut buf = Vec::new();
        for o in &self.obs {
            let p = o.flat();
            let rev = ba_ad_reverse(o);
            let fwd = ba_ad_forward(o);
            assert_close(
                "ad reverse vs forward Jacobian",
                relative_error(&rev, &fwd),
                1e-12,
            );
            let mut nd = [0.0; 30];
            dual_jacobian(|q| o.at(q), &p, &mut buf, &mut nd);
            assert_close("ad vs num-dual Jacobian", relative_error(&rev, &nd), 1e-12);
            let f = AdTraitFn {
                f: |q: &[Adr]| o.at(q).to_vec(),
                inputs: 15,
                outputs: 2,
            };
            let mut adt = [0.0; 30];
            ad_trait_jacobian(&f, &p, &mut adt);
            assert_close("ad vs ad_trait Jacobian", relative_error(&rev, &adt), 1e-12);
        }
        "ad reverse Jacobian = ad forward = num-dual = ad_trait, per observation".into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let obs = &self.obs;
        let dirs = &self.dirs;
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    for o in black_box(obs) {
                        black_box(ba_residual(o.cam, o.x, o.w, Const(o.feat)));
                    }
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    for o in black_box(obs) {
                        black_box(ba_generic(&o.cam, &o.x, o.w, o.feat));
                    }
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    for (o, d) in black_box(obs).iter().zip(dirs) {
                        let (dc, dx, dw) = ba_parts(d);
                        black_box(ad::jvp(
                            ba_residual,
                            (o.cam, o.x, o.w, Const(o.feat)),
                            (dc, dx, dw, NoTangent),
                        ));
                    }
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    for o in black_box(obs) {
                        black_box(ba_ad_reverse(o));
                    }
                }),
            ),
            (
                Method::AdJacFwd,
                Case::new("ad-jac-fwd", move || {
                    for o in black_box(obs) {
                        black_box(ba_ad_forward(o));
                    }
                }),
            ),
            (Method::NdJvp, {
                let mut buf = Vec::new();
                Case::new("nd-jvp", move || {
                    for (o, d) in black_box(obs).iter().zip(dirs) {
                        black_box(dual_jvp(|q| o.at(q), &o.flat(), d, &mut buf));
                    }
                })
            }),
            (Method::NdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 30]);
                Case::new("nd-grad", move || {
                    for o in black_box(obs) {
                        dual_jacobian(|q| o.at(q), &o.flat(), &mut buf, &mut out);
                        black_box(&out);
                    }
                })
            }),
            (Method::AdTrait, {
                let mut out = [0.0; 30];
                Case::new("ad_trait", move || {
                    for o in black_box(obs) {
                        let f = AdTraitFn {
                            f: |q: &[Adr]| o.at(q).to_vec(),
                            inputs: 15,
                            outputs: 2,
                        };
                        black_box(ad_trait_jacobian(&f, &o.flat(), &mut out));
                        black_box(&out);
                    }
                })
            }),
            (Method::FdJvp, {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                Case::new("fd-jvp", move || {
                    for (o, d) in black_box(obs).iter().zip(dirs) {
                        black_box(fd_jvp(|q| o.at(q), &o.flat(), d, &mut a, &mut b));
                    }
                })
            }),
            (Method::FdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 30]);
                Case::new("fd-grad", move || {
                    for o in black_box(obs) {
                        fd_jacobian(|q| o.at(q), &o.flat(), &mut buf, &mut out);
                        black_box(&out);
                    }
                })
            }),
        ]
    }
}
