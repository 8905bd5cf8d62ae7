//! Moving a value along a tangent: how a model is updated with its gradient.

use crate::tangent::Differentiable;

/// A value that moves along its tangent: `value += by * tangent`, coordinate by coordinate, the
/// parts without a derivative (integers, text, fields marked `#[ad(skip)]`) left as they are.
/// A step of gradient descent is `model.add_tangent(&gradient, -rate)`.
///
/// Floats, arrays, `Vec`s, `Option`s and tuples of these have it, and
/// `#[derive(ad::Differentiable)]` gives it to a struct. A `Vec`'s tangent that is empty (a
/// zero without a shape, as a gradient that never reached it) moves nothing; one of another
/// length is a mistake and panics.
///
/// ```
/// #[derive(Clone, Debug, PartialEq, ad::Differentiable)]
/// struct Line { slope: f64, offset: f64, points: usize }
///
/// #[ad::differentiable]
/// fn loss(l: &Line, x: f64, y: f64) -> f64 {
///     let e = l.slope * x + l.offset - y;
///     e * e
/// }
///
/// use ad::AddTangent;
/// let mut line = Line { slope: 0.0, offset: 0.0, points: 2 };
/// for _ in 0..200 {
///     let (g, _, _) = ad::grad(loss, (&line, 1.0, 3.0));
///     line.add_tangent(&g, -0.1);
/// }
/// assert!((line.slope + line.offset - 3.0).abs() < 1e-9);
/// assert_eq!(line.points, 2);
/// ```
pub trait AddTangent: Differentiable {
    /// Adds `by` times `tangent` to the value.
    fn add_tangent(&mut self, tangent: &Self::Tangent, by: f64);
}

impl AddTangent for f64 {
    #[inline(always)]
    fn add_tangent(&mut self, tangent: &f64, by: f64) {
        *self += by * tangent;
    }
}

impl AddTangent for f32 {
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn add_tangent(&mut self, tangent: &f32, by: f64) {
        *self += by as f32 * tangent;
    }
}

macro_rules! no_add_tangent {
    ($($t:ty),*) => {$(
        impl AddTangent for $t {
            #[inline(always)]
            fn add_tangent(&mut self, _: &crate::NoTangent, _: f64) {}
        }
    )*};
}
no_add_tangent!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    char,
    ()
);

impl<T: AddTangent, const N: usize> AddTangent for [T; N] {
    fn add_tangent(&mut self, tangent: &[T::Tangent; N], by: f64) {
        for (v, t) in self.iter_mut().zip(tangent) {
            v.add_tangent(t, by);
        }
    }
}

impl<T: AddTangent> AddTangent for Vec<T> {
    fn add_tangent(&mut self, tangent: &Vec<T::Tangent>, by: f64) {
        if tangent.is_empty() {
            return;
        }
        assert_eq!(
            self.len(),
            tangent.len(),
            "ad::AddTangent: a tangent of {} elements for a Vec of {}",
            tangent.len(),
            self.len()
        );
        for (v, t) in self.iter_mut().zip(tangent) {
            v.add_tangent(t, by);
        }
    }
}

impl<T: AddTangent> AddTangent for Option<T> {
    fn add_tangent(&mut self, tangent: &Option<T::Tangent>, by: f64) {
        if let (Some(v), Some(t)) = (self, tangent) {
            v.add_tangent(t, by);
        }
    }
}

macro_rules! tuple_add_tangent {
    ($(($($T:ident $i:tt),+))*) => {$(
        impl<$($T: AddTangent),+> AddTangent for ($($T,)+) {
            fn add_tangent(&mut self, tangent: &Self::Tangent, by: f64) {
                $(self.$i.add_tangent(&tangent.$i, by);)+
            }
        }
    )*};
}
tuple_add_tangent! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}
