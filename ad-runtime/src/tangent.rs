//! Tangent (and, later, adjoint) types: what a derivative of a value looks like.
//!
//! A proc macro sees tokens, not types, so generated code never decides by itself that a value is
//! a float: it asks this trait. `f64` and `f32` carry a tangent of their own type; integers and
//! `bool` carry [`NoTangent`], a zero-sized value, so an integer that the macro could not tell
//! apart from a float simply gets no derivative.

use core::ops::{Add, Mul, Neg, Sub};

/// A value that has a tangent space.
///
/// Floats are their own tangent; integers, `bool`, `char` and `()` have [`NoTangent`]; tuples have
/// the tuple of their elements' tangents.
///
/// ```
/// use ad::Differentiable;
/// let t: <(f64, i32) as Differentiable>::Tangent = (1.5, ad::NoTangent);
/// assert_eq!((2.0_f64, 7_i32).zero_tangent(), (0.0, ad::NoTangent));
/// # let _ = t;
/// ```
pub trait Differentiable {
    /// The type of a tangent (a directional derivative) of a value of this type.
    type Tangent: Copy + Default + core::fmt::Debug + PartialEq + Send + Sync + 'static;

    /// The zero tangent at this value.
    fn zero_tangent(&self) -> Self::Tangent {
        Self::Tangent::default()
    }
}

/// The tangent of a value that has no derivative: integers, `bool`, `char`, `()`.
///
/// It is zero-sized and every arithmetic operation on it gives it back, so code generated for a
/// value the macro mistook for a float still compiles and contributes nothing.
///
/// ```
/// // h(x, n) = x^n: the integer exponent gets `NoTangent` as its tangent
/// #[ad::differentiable]
/// fn h(x: f64, n: i32) -> f64 { x.powi(n) }
///
/// let (y, dy) = ad::jvp(h, (2.0, 3), (1.0, ad::NoTangent));
/// assert_eq!((y, dy), (8.0, 12.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoTangent;

impl Add for NoTangent {
    type Output = NoTangent;
    #[inline(always)]
    fn add(self, _: NoTangent) -> NoTangent {
        NoTangent
    }
}

impl Sub for NoTangent {
    type Output = NoTangent;
    #[inline(always)]
    fn sub(self, _: NoTangent) -> NoTangent {
        NoTangent
    }
}

impl Neg for NoTangent {
    type Output = NoTangent;
    #[inline(always)]
    fn neg(self) -> NoTangent {
        NoTangent
    }
}

impl<T> Mul<T> for NoTangent {
    type Output = NoTangent;
    #[inline(always)]
    fn mul(self, _: T) -> NoTangent {
        NoTangent
    }
}

macro_rules! own_tangent {
    ($($t:ty)*) => {$(
        impl Differentiable for $t {
            type Tangent = $t;
        }
    )*};
}
own_tangent!(f32 f64);

macro_rules! no_tangent {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            type Tangent = NoTangent;
        }
    )*};
}
no_tangent!(
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

macro_rules! tuple_tangent {
    ($(($($T:ident $i:tt),+))*) => {$(
        impl<$($T: Differentiable),+> Differentiable for ($($T,)+) {
            type Tangent = ($($T::Tangent,)+);
            fn zero_tangent(&self) -> Self::Tangent {
                ($(self.$i.zero_tangent(),)+)
            }
        }
    )*};
}
tuple_tangent! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}
