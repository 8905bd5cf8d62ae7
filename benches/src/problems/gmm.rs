//! The Gaussian-mixture log-likelihood of ADBench (`gmm.h`), without its constant term
//! (`-n d/2 ln 2pi` and the Wishart normaliser, which do not depend on the inputs).
//!
//! Inputs: `alphas` (K), `means` (K x d, row-major), `icf` (K x d(d+1)/2: per component the d
//! log-diagonal entries q of Q, then the d(d-1)/2 strictly-lower entries l column by column),
//! the data `x` (n x d), and the Wishart prior's `gamma` and `m`.

use crate::data::Rng;
use crate::real::Real;
use ad::{Const, differentiable};

/// The objective as `ad` differentiates it: the data `x` and the prior's `gamma` and `m` are
/// held constant (`ad::Const`), as the peers, given them as constants, hold them.
#[differentiable]
pub fn gmm_objective(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: Const<&[f64]>,
    gamma: Const<f64>,
    m: Const<f64>,
) -> f64 {
    let k = alphas.len();
    let d = means.len() / k;
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    let mut qdiags = vec![0.0; k * d];
    for c in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            let q = icf[c * icf_sz + j];
            s += q;
            qdiags[c * d + j] = q.exp();
        }
        sum_qs[c] = s;
    }
    let mut xc = vec![0.0; d];
    let mut qxc = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xc[j] = x[i * d + j] - means[c * d + j];
            }
            for j in 0..d {
                qxc[j] = qdiags[c * d + j] * xc[j];
            }
            let mut idx = c * icf_sz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qxc[b] += icf[idx] * xc[a];
                    idx += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += qxc[j] * qxc[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
        }
        let mut mx = main_term[0];
        for c in 1..k {
            mx = mx.max(main_term[c]);
        }
        let mut se = 0.0;
        for c in 0..k {
            se += (main_term[c] - mx).exp();
        }
        slse += mx + se.ln();
    }
    let mut amx = alphas[0];
    for c in 1..k {
        amx = amx.max(alphas[c]);
    }
    let mut ase = 0.0;
    for c in 0..k {
        ase += (alphas[c] - amx).exp();
    }
    let lse_alphas = amx + ase.ln();
    let mut prior = 0.0;
    for c in 0..k {
        let mut fro = 0.0;
        for j in 0..d {
            fro += qdiags[c * d + j] * qdiags[c * d + j];
        }
        for j in d..icf_sz {
            fro += icf[c * icf_sz + j] * icf[c * icf_sz + j];
        }
        prior += 0.5 * gamma.0 * gamma.0 * fro - m.0 * sum_qs[c];
    }
    slse - (n as f64) * lse_alphas + prior
}

/// The primal baseline: the same source as [`gmm_objective`], the data as plain slices and
/// numbers.
pub fn gmm_slices(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: f64,
) -> f64 {
    let k = alphas.len();
    let d = means.len() / k;
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    let mut qdiags = vec![0.0; k * d];
    for c in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            let q = icf[c * icf_sz + j];
            s += q;
            qdiags[c * d + j] = q.exp();
        }
        sum_qs[c] = s;
    }
    let mut xc = vec![0.0; d];
    let mut qxc = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xc[j] = x[i * d + j] - means[c * d + j];
            }
            for j in 0..d {
                qxc[j] = qdiags[c * d + j] * xc[j];
            }
            let mut idx = c * icf_sz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qxc[b] += icf[idx] * xc[a];
                    idx += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += qxc[j] * qxc[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
        }
        let mut mx = main_term[0];
        for c in 1..k {
            mx = mx.max(main_term[c]);
        }
        let mut se = 0.0;
        for c in 0..k {
            se += (main_term[c] - mx).exp();
        }
        slse += mx + se.ln();
    }
    let mut amx = alphas[0];
    for c in 1..k {
        amx = amx.max(alphas[c]);
    }
    let mut ase = 0.0;
    for c in 0..k {
        ase += (alphas[c] - amx).exp();
    }
    let lse_alphas = amx + ase.ln();
    let mut prior = 0.0;
    for c in 0..k {
        let mut fro = 0.0;
        for j in 0..d {
            fro += qdiags[c * d + j] * qdiags[c * d + j];
        }
        for j in d..icf_sz {
            fro += icf[c * icf_sz + j] * icf[c * icf_sz + j];
        }
        prior += 0.5 * gamma * gamma * fro - m * sum_qs[c];
    }
    slse - (n as f64) * lse_alphas + prior
}

/// The hand-written gradient of [`gmm_slices`] with respect to `alphas`, `means` and `icf`
/// (the data `x`, `gamma` and `m` constant, as the peers take them), into `g_alphas`,
/// `g_means` and `g_icf`; returns the value.
///
/// Written as a numerical programmer would: per point, the forward pass keeps each component's
/// `xc` and `qxc` (K d values), then the backward pass runs through the components with the
/// softmax weights of the log-sum-exp. Sums run in program order, as `ad`'s reverse sweep runs
/// them: in particular the adjoint of `xc[a]` in the triangular product is a dot product that
/// strict floating-point order keeps serial.
#[allow(clippy::too_many_arguments)]
pub fn gmm_gradient(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: f64,
    g_alphas: &mut [f64],
    g_means: &mut [f64],
    g_icf: &mut [f64],
) -> f64 {
    let k = alphas.len();
    let d = means.len() / k;
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    g_alphas.fill(0.0);
    g_means.fill(0.0);
    g_icf.fill(0.0);
    let mut sum_qs = vec![0.0; k];
    let mut qdiags = vec![0.0; k * d];
    for c in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            let q = icf[c * icf_sz + j];
            s += q;
            qdiags[c * d + j] = q.exp();
        }
        sum_qs[c] = s;
    }
    let mut xcs = vec![0.0; k * d];
    let mut qxcs = vec![0.0; k * d];
    let mut main_term = vec![0.0; k];
    let mut qbar = vec![0.0; d];
    let mut xcbar = vec![0.0; d];
    // The adjoint of `sum_qs[c]`: added to each of component c's q at the end.
    let mut sum_qs_bar = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        let xi = &x[i * d..(i + 1) * d];
        for c in 0..k {
            let xc = &mut xcs[c * d..(c + 1) * d];
            let qxc = &mut qxcs[c * d..(c + 1) * d];
            let qd = &qdiags[c * d..(c + 1) * d];
            let mu = &means[c * d..(c + 1) * d];
            for j in 0..d {
                xc[j] = xi[j] - mu[j];
                qxc[j] = qd[j] * xc[j];
            }
            let l = &icf[c * icf_sz + d..(c + 1) * icf_sz];
            let mut idx = 0;
            for a in 0..d {
                for b in a + 1..d {
                    qxc[b] += l[idx] * xc[a];
                    idx += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += qxc[j] * qxc[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
        }
        let mut mx = main_term[0];
        for c in 1..k {
            mx = mx.max(main_term[c]);
        }
        let mut se = 0.0;
        for c in 0..k {
            se += (main_term[c] - mx).exp();
        }
        let lse = mx + se.ln();
        slse += lse;
        for c in 0..k {
            // d lse / d main_term[c], the softmax weight.
            let w = (main_term[c] - lse).exp();
            g_alphas[c] += w;
            sum_qs_bar[c] += w;
            let xc = &xcs[c * d..(c + 1) * d];
            let qxc = &qxcs[c * d..(c + 1) * d];
            let qd = &qdiags[c * d..(c + 1) * d];
            // main_term = ... - 0.5 sum qxc^2, so qxc's adjoint is -w qxc.
            for j in 0..d {
                qbar[j] = -w * qxc[j];
            }
            let gq = &mut g_icf[c * icf_sz..c * icf_sz + d];
            for j in 0..d {
                // qxc[j] = exp(q[j]) xc[j] + ...: d/dq[j] = exp(q[j]) xc[j].
                gq[j] += qbar[j] * qd[j] * xc[j];
                xcbar[j] = qbar[j] * qd[j];
            }
            let l = &icf[c * icf_sz + d..(c + 1) * icf_sz];
            let gl = &mut g_icf[c * icf_sz + d..(c + 1) * icf_sz];
            let mut idx = 0;
            for a in 0..d {
                let xa = xc[a];
                let mut s = 0.0;
                for b in a + 1..d {
                    gl[idx] += qbar[b] * xa;
                    s += qbar[b] * l[idx];
                    idx += 1;
                }
                xcbar[a] += s;
            }
            let gm = &mut g_means[c * d..(c + 1) * d];
            for j in 0..d {
                gm[j] -= xcbar[j];
            }
        }
    }
    let mut amx = alphas[0];
    for c in 1..k {
        amx = amx.max(alphas[c]);
    }
    let mut ase = 0.0;
    for c in 0..k {
        ase += (alphas[c] - amx).exp();
    }
    let lse_alphas = amx + ase.ln();
    #[allow(clippy::cast_precision_loss)]
    let nf = n as f64;
    let mut prior = 0.0;
    let gg = gamma * gamma;
    for c in 0..k {
        g_alphas[c] -= nf * (alphas[c] - lse_alphas).exp();
        let mut fro = 0.0;
        for j in 0..d {
            let qd = qdiags[c * d + j];
            fro += qd * qd;
            // 0.5 gamma^2 exp(q)^2 - m q, and q's share of sum_qs.
            g_icf[c * icf_sz + j] += gg * qd * qd - m + sum_qs_bar[c];
        }
        for j in d..icf_sz {
            let l = icf[c * icf_sz + j];
            fro += l * l;
            g_icf[c * icf_sz + j] += gg * l;
        }
        prior += 0.5 * gg * fro - m * sum_qs[c];
    }
    slse - nf * lse_alphas + prior
}

/// The same objective over any scalar, with the data `x` and `gamma`, `m` as constants: the
/// primal baseline at `T = f64`, and the peers' versions. The scratch buffers are allocated
/// per call, as in the `ad` version.
pub fn gmm_generic<T: Real>(
    alphas: &[T],
    means: &[T],
    icf: &[T],
    x: &[f64],
    gamma: f64,
    m: f64,
) -> T {
    let k = alphas.len();
    let d = means.len() / k;
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let zero = T::cst(0.0);
    let mut sum_qs = vec![zero; k];
    let mut qdiags = vec![zero; k * d];
    for c in 0..k {
        let mut s = zero;
        for j in 0..d {
            let q = icf[c * icf_sz + j];
            s += q;
            qdiags[c * d + j] = q.exp();
        }
        sum_qs[c] = s;
    }
    let mut xc = vec![zero; d];
    let mut qxc = vec![zero; d];
    let mut main_term = vec![zero; k];
    let mut slse = zero;
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xc[j] = -means[c * d + j] + x[i * d + j];
            }
            for j in 0..d {
                qxc[j] = qdiags[c * d + j] * xc[j];
            }
            let mut idx = c * icf_sz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qxc[b] += icf[idx] * xc[a];
                    idx += 1;
                }
            }
            let mut sq = zero;
            for j in 0..d {
                sq += qxc[j] * qxc[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - sq * 0.5;
        }
        let mut mx = main_term[0];
        for c in 1..k {
            mx = mx.max(main_term[c]);
        }
        let mut se = zero;
        for c in 0..k {
            se += (main_term[c] - mx).exp();
        }
        slse += mx + se.ln();
    }
    let mut amx = alphas[0];
    for c in 1..k {
        amx = amx.max(alphas[c]);
    }
    let mut ase = zero;
    for c in 0..k {
        ase += (alphas[c] - amx).exp();
    }
    let lse_alphas = amx + ase.ln();
    let mut prior = zero;
    for c in 0..k {
        let mut fro = zero;
        for j in 0..d {
            fro += qdiags[c * d + j] * qdiags[c * d + j];
        }
        for j in d..icf_sz {
            fro += icf[c * icf_sz + j] * icf[c * icf_sz + j];
        }
        prior += fro * (0.5 * gamma * gamma) - sum_qs[c] * m;
    }
    #[allow(clippy::cast_precision_loss)]
    let nf = n as f64;
    slse - lse_alphas * nf + prior
}

/// The inputs of one GMM problem, generated as ADBench does: alpha, q, l and x ~ N(0, 1),
/// means ~ U(0, 1), gamma = 1, m = 0.
pub struct Gmm {
    pub d: usize,
    pub k: usize,
    pub n: usize,
    pub alphas: Vec<f64>,
    pub means: Vec<f64>,
    pub icf: Vec<f64>,
    pub x: Vec<f64>,
    pub gamma: f64,
    pub m: f64,
}

impl Gmm {
    pub fn new(d: usize, k: usize, n: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let alphas = rng.normals(k);
        let means = rng.uniforms(k * d);
        let icf = rng.normals(k * d * (d + 1) / 2);
        let x = rng.normals(n * d);
        Gmm {
            d,
            k,
            n,
            alphas,
            means,
            icf,
            x,
            gamma: 1.0,
            m: 0.0,
        }
    }

    /// The number of parameters (alphas, means, icf).
    pub fn parameters(&self) -> usize {
        self.alphas.len() + self.means.len() + self.icf.len()
    }

    /// The parameters, concatenated.
    pub fn flat(&self) -> Vec<f64> {
        let mut p = self.alphas.clone();
        p.extend_from_slice(&self.means);
        p.extend_from_slice(&self.icf);
        p
    }

    /// The objective at concatenated parameters `p`, over any scalar.
    pub fn at<T: Real>(&self, p: &[T]) -> T {
        let (a, rest) = p.split_at(self.k);
        let (mu, icf) = rest.split_at(self.k * self.d);
        gmm_generic(a, mu, icf, &self.x, self.gamma, self.m)
    }
}
