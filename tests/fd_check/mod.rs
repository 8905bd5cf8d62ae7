//! Derivatives of functions of a slice, checked in both modes against central finite
//! differences: h = 1e-6 on smooth functions gives an error near h^2 |f'''| + eps |f| / h,
//! about 1e-10 here, so a tolerance of 1e-6 relative (absolute floor 1) separates rounding from a
//! wrong derivative. Shared by the `test_recompute*` files.

#![allow(dead_code)]

pub type F1<'a> = dyn Fn(&[f64]) -> f64 + 'a;
pub type G1<'a> = dyn Fn(&[f64]) -> Vec<f64> + 'a;
pub type J1<'a> = dyn Fn(&[f64], &[f64]) -> f64 + 'a;

pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

pub fn fd(f: &F1<'_>, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let (mut hi, mut lo) = (x.to_vec(), x.to_vec());
            hi[i] += h;
            lo[i] -= h;
            (f(&hi) - f(&lo)) / (2.0 * h)
        })
        .collect()
}

/// Checks the forward tangents along each unit vector, `value_and_grad` and `vjp` against
/// finite differences.
#[track_caller]
pub fn check(name: &str, x: &[f64], f: &F1<'_>, grad: &G1<'_>, vjp: &G1<'_>, jvp: &J1<'_>) {
    let want = fd(f, x);
    let g = grad(x);
    let v = vjp(x);
    let t: Vec<f64> = (0..x.len())
        .map(|i| {
            let mut e = vec![0.0; x.len()];
            e[i] = 1.0;
            jvp(x, &e)
        })
        .collect();
    let mut bad = Vec::new();
    for i in 0..x.len() {
        if !close(g[i], want[i], 1e-6) || !close(v[i], want[i], 1e-6) || !close(t[i], want[i], 1e-6)
        {
            bad.push(i);
        }
    }
    assert!(
        bad.is_empty(),
        "{name}: coordinates {bad:?} differ\n  finite differences {want:?}\n  jvp                {t:?}\n  value_and_grad     {g:?}\n  vjp                {v:?}"
    );
}

/// A test of `f(x: &[f64], extra inactive arguments...)` by [`check`].
#[macro_export]
macro_rules! probe {
    ($t:ident, $f:ident, [$($x:expr),*] $(, $extra:expr)*) => {
        #[test]
        fn $t() {
            let x = [$($x),*];
            $crate::fd_check::check(
                stringify!($f),
                &x,
                &|x| $f(x $(, $extra)*),
                &|x| ad::value_and_grad($f, (x, $($extra,)*)).1.0,
                &|x| (ad::vjp($f, (x, $($extra,)*)).1)(1.0).0,
                &|x, d| ad::jvp($f, (x, $($extra,)*), (d, $({ let _ = $extra; ad::NoTangent },)*)).1,
            );
        }
    };
}

/// A test of `f(x: &[f64], o: &mut [f64], extra inactive arguments...)` by [`check`], with `o`
/// as long as `x` and filled by `f` before use; the gradient is taken by `vjp_into`.
#[macro_export]
macro_rules! probe_out {
    ($t:ident, $f:ident, [$($x:expr),*] $(, $extra:expr)*) => {
        #[test]
        fn $t() {
            let x = [$($x),*];
            let n = x.len();
            $crate::fd_check::check(
                stringify!($f),
                &x,
                &|x| { let mut o = vec![0.0; n]; $f(x, &mut o $(, $extra)*) },
                &|x| {
                    let mut o = vec![0.0; n];
                    let mut xb = vec![0.0; n];
                    let mut ob = vec![0.0; n];
                    ad::vjp_into($f, (x, &mut o[..] $(, $extra)*), (&mut xb[..], &mut ob[..] $(, { let _ = $extra; })*), 1.0);
                    xb
                },
                &|x| {
                    let mut o = vec![0.0; n];
                    let mut xb = vec![0.0; n];
                    let mut ob = vec![0.0; n];
                    ad::vjp_into($f, (x, &mut o[..] $(, $extra)*), (&mut xb[..], &mut ob[..] $(, { let _ = $extra; })*), 1.0);
                    xb
                },
                &|x, d| {
                    let mut o = vec![0.0; n];
                    let mut od = vec![0.0; n];
                    ad::jvp($f, (x, &mut o[..] $(, $extra)*), (d, &mut od[..] $(, { let _ = $extra; ad::NoTangent })*)).1
                },
            );
        }
    };
}
