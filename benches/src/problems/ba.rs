//! ADBench's bundle-adjustment reprojection residual of one observation.
//!
//! The camera has 11 parameters: angle-axis rotation r (0..3), centre C (3..6), focal length f
//! (6), principal point u0 v0 (7, 8), radial distortion k1 k2 (9, 10). With the 3-D point X and
//! the weight w that makes 15 inputs; the feature `feat` is data. The Jacobian block is 2 x 15.

use crate::data::Rng;
use crate::real::Real;
use ad::{Const, differentiable};

/// The residual `w (f u + (u0, v0) - feat)` as `ad` differentiates it, the feature held
/// constant.
#[differentiable]
pub fn ba_residual(cam: [f64; 11], x: [f64; 3], w: f64, feat: Const<[f64; 2]>) -> [f64; 2] {
    let p0 = x[0] - cam[3];
    let p1 = x[1] - cam[4];
    let p2 = x[2] - cam[5];
    let (r0, r1, r2) = (cam[0], cam[1], cam[2]);
    let sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
    let (q0, q1, q2) = if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let inv = 1.0 / theta;
        let w0 = r0 * inv;
        let w1 = r1 * inv;
        let w2 = r2 * inv;
        let c0 = w1 * p2 - w2 * p1;
        let c1 = w2 * p0 - w0 * p2;
        let c2 = w0 * p1 - w1 * p0;
        let tmp = (w0 * p0 + w1 * p1 + w2 * p2) * (1.0 - costheta);
        (
            p0 * costheta + c0 * sintheta + w0 * tmp,
            p1 * costheta + c1 * sintheta + w1 * tmp,
            p2 * costheta + c2 * sintheta + w2 * tmp,
        )
    } else {
        (
            p0 + (r1 * p2 - r2 * p1),
            p1 + (r2 * p0 - r0 * p2),
            p2 + (r0 * p1 - r1 * p0),
        )
    };
    let u = q0 / q2;
    let v = q1 / q2;
    let rsq = u * u + v * v;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let e0 = w * (cam[6] * (u * l) + cam[7] - feat[0]);
    let e1 = w * (cam[6] * (v * l) + cam[8] - feat[1]);
    [e0, e1]
}

/// The same residual over any scalar, with `feat` as data.
pub fn ba_generic<T: Real>(cam: &[T], x: &[T], w: T, feat: [f64; 2]) -> [T; 2] {
    let p0 = x[0] - cam[3];
    let p1 = x[1] - cam[4];
    let p2 = x[2] - cam[5];
    let (r0, r1, r2) = (cam[0], cam[1], cam[2]);
    let sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
    let (q0, q1, q2) = if sqtheta.val() != 0.0 {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let inv = T::cst(1.0) / theta;
        let w0 = r0 * inv;
        let w1 = r1 * inv;
        let w2 = r2 * inv;
        let c0 = w1 * p2 - w2 * p1;
        let c1 = w2 * p0 - w0 * p2;
        let c2 = w0 * p1 - w1 * p0;
        let tmp = (w0 * p0 + w1 * p1 + w2 * p2) * (-costheta + 1.0);
        (
            p0 * costheta + c0 * sintheta + w0 * tmp,
            p1 * costheta + c1 * sintheta + w1 * tmp,
            p2 * costheta + c2 * sintheta + w2 * tmp,
        )
    } else {
        (
            p0 + (r1 * p2 - r2 * p1),
            p1 + (r2 * p0 - r0 * p2),
            p2 + (r0 * p1 - r1 * p0),
        )
    };
    let u = q0 / q2;
    let v = q1 / q2;
    let rsq = u * u + v * v;
    let l = cam[9] * rsq + cam[10] * rsq * rsq + 1.0;
    let e0 = w * (cam[6] * (u * l) + cam[7] - feat[0]);
    let e1 = w * (cam[6] * (v * l) + cam[8] - feat[1]);
    [e0, e1]
}

/// One observation's inputs.
#[derive(Clone, Copy)]
pub struct Observation {
    pub cam: [f64; 11],
    pub x: [f64; 3],
    pub w: f64,
    pub feat: [f64; 2],
}

impl Observation {
    /// The 15 differentiated inputs, concatenated: cam, X, w.
    pub fn flat(&self) -> [f64; 15] {
        let mut p = [0.0; 15];
        p[..11].copy_from_slice(&self.cam);
        p[11..14].copy_from_slice(&self.x);
        p[14] = self.w;
        p
    }

    /// The residual at concatenated inputs `p`, over any scalar.
    pub fn at<T: Real>(&self, p: &[T]) -> [T; 2] {
        ba_generic(&p[..11], &p[11..14], p[14], self.feat)
    }
}

/// A batch of observations in the spirit of ADBench's generator: small rotations, the point
/// in front of the camera, focal length near 1 (normalised coordinates), small distortion.
pub fn observations(count: usize, seed: u64) -> Vec<Observation> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let mut cam = [0.0; 11];
            for r in cam.iter_mut().take(3) {
                *r = 0.1 * rng.normal();
            }
            for c in cam.iter_mut().take(6).skip(3) {
                *c = rng.normal();
            }
            cam[6] = 1.0 + 0.1 * rng.uniform();
            cam[7] = 0.1 * rng.normal();
            cam[8] = 0.1 * rng.normal();
            cam[9] = 0.01 * rng.normal();
            cam[10] = 0.001 * rng.normal();
            let x = [
                cam[3] + rng.normal(),
                cam[4] + rng.normal(),
                cam[5] + 5.0 + rng.uniform(),
            ];
            Observation {
                cam,
                x,
                w: 0.5 + rng.uniform(),
                feat: [0.1 * rng.normal(), 0.1 * rng.normal()],
            }
        })
        .collect()
}
