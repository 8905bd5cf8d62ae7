//! `ad::Real`: the scalar types that derivatives compute with.

use crate::private::Adjoint;
use crate::tangent::{Accumulate, Differentiable, Linear, Seed};

/// A float type that derivatives compute with: `f64` and `f32`.
///
/// The derivatives of a generic function (`fn rosen<T: num_traits::Float>(x: &[T]) -> T`) are
/// generic functions with the function's own parameters and bounds and, on each type parameter,
/// this one bound: everything the generated code needs of a scalar (its tangent is itself,
/// the tangents of the operators and of the float methods, the tape, adjoint accumulation) is
/// a supertrait. The names of those traits' methods do not collide with those of
/// `num_traits::Float` or `std::ops`, so a body that calls `x.sin()` or `T::one()` on a
/// `T: Float` means the same in the derivatives as in the function.
///
/// ```
/// fn double<T: ad::Real>(x: T) -> <T as ad::Differentiable>::Tangent {
///     x + x // a `Real`'s tangent is the type itself
/// }
/// assert_eq!(double(1.5_f32), 3.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float type that `ad` differentiates",
    note = "the type parameters of a #[differentiable] function are instantiated at f64 and f32"
)]
pub trait Real:
    Copy
    + Send
    + Sync
    + 'static
    + Default
    + core::fmt::Debug
    + PartialOrd
    + Differentiable<Tangent = Self>
    + Accumulate
    + Linear
    + crate::tangent::ShapelessZero
    + Seed
    + crate::ops::Scalar
    + crate::ops::CastTo<Self>
    + crate::ops::CastTo<f64>
    + crate::ops::CastTo<f32>
    + crate::ops::CastFrom<f64>
    + crate::ops::CastFrom<f32>
    + crate::prim::FloatOps
    + crate::tape::Tapeable
    + Adjoint
{
}

impl Real for f64 {}
impl Real for f32 {}
