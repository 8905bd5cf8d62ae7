//! Uses `ad` only through `ad_test_reexport::math::autodiff`: this crate has no `ad` in its
//! dependencies, so the generated code must reach the runtime through the `crate = ...` path.

use ad_test_reexport::math::autodiff;

/// f(x) = x^2 sin x
#[autodiff::differentiable(crate = ad_test_reexport::math::autodiff)]
pub fn f(x: f64) -> f64 {
    x * x * x.sin()
}

/// g(x) = 3 f(x) + h(x), where h's derivative is a custom rule
#[autodiff::differentiable(crate = ad_test_reexport::math::autodiff)]
pub fn g(x: f64) -> f64 {
    3.0 * f(x) + h(x)
}

/// h(x) = e^x, with no derivative of its own
pub fn h(x: f64) -> f64 {
    x.exp()
}

/// d h = e^x dx
#[autodiff::custom_rule(forward, of = h, crate = ad_test_reexport::math::autodiff)]
fn h_jvp(x: f64, dx: f64) -> (f64, f64) {
    (x.exp(), x.exp() * dx)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// d f = (2x sin x + x^2 cos x) dx; d g = 3 df + e^x dx.
    #[test]
    fn derivatives_through_the_reexported_path() {
        let x = 0.7_f64;
        let df = 2.0 * x * x.sin() + x * x * x.cos();
        let (y, dy) = autodiff::jvp(f, (x,), (1.0,));
        assert_eq!(y, f(x));
        assert!((dy - df).abs() < 1e-15);
        let (_, dg) = autodiff::jvp(g, (x,), (1.0,));
        assert!((dg - (3.0 * df + x.exp())).abs() < 1e-14);
        let origins: Vec<_> = autodiff::rules::list()
            .into_iter()
            .filter(|r| r.function.ends_with("::h"))
            .map(|r| r.origin)
            .collect();
        assert_eq!(origins, [autodiff::Origin::Custom]);
    }
}
