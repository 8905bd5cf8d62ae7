//! Tangents of the arithmetic operators, for generated code.
//!
//! Sums, differences and negations of tangents are written directly (`da + db`: floats and
//! [`NoTangent`] both support them). For products, quotients and remainders generated code calls
//! these instead of writing `da * b + a * db` itself, so that the tangent
//! type comes from the operands' types: for floats the functions are that very formula, for
//! integers everything is [`NoTangent`]. A value the macro could not tell from a float therefore
//! compiles and carries no derivative, whatever the macro guessed.

use crate::tangent::{Differentiable, NoTangent};

/// A type the arithmetic operators of generated code apply to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scalar that `#[differentiable]` code can compute with",
    note = "differentiable code computes with f64, f32 and integers; give the `let` that holds this value a type"
)]
pub trait Scalar: Copy + Differentiable {
    /// d(a * b) = da b + a db
    fn d_mul(a: Self, da: Self::Tangent, b: Self, db: Self::Tangent) -> Self::Tangent;
    /// d(a * b) with b constant
    fn mul_l(da: Self::Tangent, b: Self) -> Self::Tangent;
    /// d(a * b) with a constant
    fn mul_r(a: Self, db: Self::Tangent) -> Self::Tangent;
    /// d(a / b) = (da - y db) / b with y = a / b
    fn d_div(da: Self::Tangent, b: Self, db: Self::Tangent, y: Self) -> Self::Tangent;
    /// d(a / b) with b constant
    fn div_l(da: Self::Tangent, b: Self) -> Self::Tangent;
    /// d(a / b) with a constant
    fn div_r(b: Self, db: Self::Tangent, y: Self) -> Self::Tangent;
    /// d(a % b) = da - db trunc(a / b)
    fn d_rem(a: Self, da: Self::Tangent, b: Self, db: Self::Tangent) -> Self::Tangent;
    /// d(a % b) with b constant
    fn rem_l(da: Self::Tangent, b: Self) -> Self::Tangent;
    /// d(a % b) with a constant
    fn rem_r(a: Self, b: Self, db: Self::Tangent) -> Self::Tangent;
    /// The adjoint `g` of `a * b` times `b`, but the identity of `+` (-0) where `g` is zero,
    /// even if `b` is infinite or NaN: what skipping a zero adjoint gives (adding -0 leaves any
    /// number as it is; a NaN stays a NaN, its payload not promised), without a branch.
    fn mul_l_nz(g: Self::Tangent, b: Self) -> Self::Tangent;
    /// `a` times the adjoint `g` of `a * b`, but -0 where `g` is zero (see `mul_l_nz`).
    fn mul_r_nz(a: Self, g: Self::Tangent) -> Self::Tangent;
}

macro_rules! float_scalar {
    ($($t:ty)*) => {$(
        impl Scalar for $t {
            #[inline(always)] fn d_mul(a: $t, da: $t, b: $t, db: $t) -> $t { da * b + a * db }
            #[inline(always)] fn mul_l(da: $t, b: $t) -> $t { da * b }
            #[inline(always)] fn mul_r(a: $t, db: $t) -> $t { a * db }
            #[inline(always)] fn d_div(da: $t, b: $t, db: $t, y: $t) -> $t { (da - y * db) / b }
            #[inline(always)] fn div_l(da: $t, b: $t) -> $t { da / b }
            #[inline(always)] fn div_r(b: $t, db: $t, y: $t) -> $t { -(y * db) / b }
            #[inline(always)] fn d_rem(a: $t, da: $t, b: $t, db: $t) -> $t { da - db * (a / b).trunc() }
            #[inline(always)] fn rem_l(da: $t, _b: $t) -> $t { da }
            #[inline(always)] fn rem_r(a: $t, b: $t, db: $t) -> $t { -(db * (a / b).trunc()) }
            #[inline(always)] fn mul_l_nz(g: $t, b: $t) -> $t { if g == 0.0 { -0.0 } else { g * b } }
            #[inline(always)] fn mul_r_nz(a: $t, g: $t) -> $t { if g == 0.0 { -0.0 } else { a * g } }
        }
    )*};
}
float_scalar!(f32 f64);

macro_rules! inactive_scalar {
    ($($t:ty)*) => {$(
        impl Scalar for $t {
            #[inline(always)] fn d_mul(_: $t, _: NoTangent, _: $t, _: NoTangent) -> NoTangent { NoTangent }
            #[inline(always)] fn mul_l(_: NoTangent, _: $t) -> NoTangent { NoTangent }
            #[inline(always)] fn mul_r(_: $t, _: NoTangent) -> NoTangent { NoTangent }
            #[inline(always)] fn d_div(_: NoTangent, _: $t, _: NoTangent, _: $t) -> NoTangent { NoTangent }
            #[inline(always)] fn div_l(_: NoTangent, _: $t) -> NoTangent { NoTangent }
            #[inline(always)] fn div_r(_: $t, _: NoTangent, _: $t) -> NoTangent { NoTangent }
            #[inline(always)] fn d_rem(_: $t, _: NoTangent, _: $t, _: NoTangent) -> NoTangent { NoTangent }
            #[inline(always)] fn rem_l(_: NoTangent, _: $t) -> NoTangent { NoTangent }
            #[inline(always)] fn rem_r(_: $t, _: $t, _: NoTangent) -> NoTangent { NoTangent }
            #[inline(always)] fn mul_l_nz(_: NoTangent, _: $t) -> NoTangent { NoTangent }
            #[inline(always)] fn mul_r_nz(_: $t, _: NoTangent) -> NoTangent { NoTangent }
        }
    )*};
}
inactive_scalar!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// `Self as To`, for tangents: float to float converts the tangent, anything to an integer or
/// from an integer gives no tangent.
pub trait CastTo<To: Differentiable>: Differentiable {
    /// The tangent of `value as To` given the tangent of `value`.
    fn cast_tangent(self, tangent: Self::Tangent) -> To::Tangent;
    /// The adjoint of `value` given the adjoint of `value as To`.
    fn cast_adjoint(self, adjoint: To::Tangent) -> Self::Tangent;
}

macro_rules! cast_float_to_float {
    ($($from:ty => $($to:ty)*;)*) => {$($(
        impl CastTo<$to> for $from {
            #[inline(always)]
            fn cast_tangent(self, tangent: $from) -> $to { tangent as $to }
            #[inline(always)]
            fn cast_adjoint(self, adjoint: $to) -> $from { adjoint as $from }
        }
    )*)*};
}
cast_float_to_float! {
    f32 => f32 f64;
    f64 => f32 f64;
}

macro_rules! cast_to_int {
    ($($from:ty),* => $to:tt) => {$(cast_to_int!(@one $from => $to);)*};
    (@one $from:ty => [$($to:ty)*]) => {$(
        impl CastTo<$to> for $from {
            #[inline(always)]
            fn cast_tangent(self, _: <$from as Differentiable>::Tangent) -> NoTangent { NoTangent }
            #[inline(always)]
            fn cast_adjoint(self, _: NoTangent) -> <$from as Differentiable>::Tangent { self.zero_tangent() }
        }
    )*};
}
cast_to_int!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
    => [i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize]);
cast_to_int!(bool, char => [i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize]);

macro_rules! cast_int_to_float {
    ($($from:ty)*) => {$(
        impl CastTo<f32> for $from {
            #[inline(always)]
            fn cast_tangent(self, _: NoTangent) -> f32 { 0.0 }
            #[inline(always)]
            fn cast_adjoint(self, _: f32) -> NoTangent { NoTangent }
        }
        impl CastTo<f64> for $from {
            #[inline(always)]
            fn cast_tangent(self, _: NoTangent) -> f64 { 0.0 }
            #[inline(always)]
            fn cast_adjoint(self, _: f64) -> NoTangent { NoTangent }
        }
    )*};
}
cast_int_to_float!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// The tangent of `value as To`.
#[inline(always)]
pub fn cast<From: CastTo<To>, To: Differentiable>(
    value: From,
    tangent: From::Tangent,
) -> To::Tangent {
    value.cast_tangent(tangent)
}

/// The adjoint of `value` given the adjoint of `value as To`.
#[inline(always)]
pub fn cast_adjoint<From: CastTo<To>, To: Differentiable>(
    value: From,
    adjoint: To::Tangent,
) -> From::Tangent {
    value.cast_adjoint(adjoint)
}

/// `value as Self` from the target's side: what a generic function's derivative can name when
/// the target is its type parameter (`T::from_f64(x).unwrap()` with `T: ad::Real`, which
/// implies `T: CastFrom<f64>`, where `f64: CastTo<T>` cannot be named).
pub trait CastFrom<From: Differentiable>: Differentiable {
    /// The tangent of `value as Self` given the tangent of `value`.
    fn cast_tangent_from(value: From, tangent: From::Tangent) -> Self::Tangent;
    /// The adjoint of `value` given the adjoint of `value as Self`.
    fn cast_adjoint_from(value: From, adjoint: Self::Tangent) -> From::Tangent;
}

impl<From: CastTo<To>, To: Differentiable> CastFrom<From> for To {
    #[inline(always)]
    fn cast_tangent_from(value: From, tangent: From::Tangent) -> To::Tangent {
        value.cast_tangent(tangent)
    }
    #[inline(always)]
    fn cast_adjoint_from(value: From, adjoint: To::Tangent) -> From::Tangent {
        value.cast_adjoint(adjoint)
    }
}

/// The tangent of `value as To`, by [`CastFrom`].
#[inline(always)]
pub fn cast_from<From: Differentiable, To: CastFrom<From>>(
    value: From,
    tangent: From::Tangent,
) -> To::Tangent {
    To::cast_tangent_from(value, tangent)
}

/// The adjoint of `value` given the adjoint of `value as To`, by [`CastFrom`].
#[inline(always)]
pub fn cast_adjoint_from<From: Differentiable, To: CastFrom<From>>(
    value: From,
    adjoint: To::Tangent,
) -> From::Tangent {
    To::cast_adjoint_from(value, adjoint)
}

#[cfg(test)]
mod tests {
    use super::Scalar;

    #[test]
    fn a_guarded_product_of_a_zero_adjoint_is_minus_zero() {
        for g in [0.0f64, -0.0] {
            for factor in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 2.5] {
                assert_eq!(f64::mul_l_nz(g, factor).to_bits(), (-0.0f64).to_bits());
                assert_eq!(f64::mul_r_nz(factor, g).to_bits(), (-0.0f64).to_bits());
            }
            assert_eq!(
                f32::mul_l_nz(g as f32, f32::INFINITY).to_bits(),
                (-0.0f32).to_bits()
            );
        }
        // Any other adjoint: the product, NaN included.
        assert_eq!(f64::mul_l_nz(3.0, -2.0), -6.0);
        assert_eq!(f64::mul_r_nz(-2.0, 3.0), -6.0);
        assert_eq!(f64::mul_l_nz(1e-300, f64::INFINITY), f64::INFINITY);
        assert!(f64::mul_l_nz(f64::NAN, 1.0).is_nan());
        assert_eq!(f32::mul_r_nz(0.5, 4.0), 2.0);
    }
}
