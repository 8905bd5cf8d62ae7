//! One scalar trait for the generic copies of the benchmark functions, so that the same source
//! runs on `f64` (the primal baseline), on num-dual's `Dual64` (forward mode) and on ad_trait's
//! `adr` (reverse mode, behind the [`Adr`] newtype). Constants enter through `f64` operands
//! (`x * 100.0`), so dual numbers pay for scalar operations, not for dual-by-dual ones.

use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// The operations the benchmark functions use.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
{
    /// A constant.
    fn cst(c: f64) -> Self;
    /// The value, without derivative.
    fn val(self) -> f64;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn sqrt(self) -> Self;
    fn tanh(self) -> Self;
    /// The larger of two values, by value (the derivative follows the one returned).
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        if self.val() >= other.val() {
            self
        } else {
            other
        }
    }
}

impl Real for f64 {
    #[inline(always)]
    fn cst(c: f64) -> Self {
        c
    }
    #[inline(always)]
    fn val(self) -> f64 {
        self
    }
    #[inline(always)]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        f64::cos(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        f64::max(self, other)
    }
}

impl Real for num_dual::Dual64 {
    #[inline(always)]
    fn cst(c: f64) -> Self {
        num_dual::Dual64::from_re(c)
    }
    #[inline(always)]
    fn val(self) -> f64 {
        self.re
    }
    #[inline(always)]
    fn exp(self) -> Self {
        num_dual::DualNum::exp(&self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        num_dual::DualNum::ln(&self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        num_dual::DualNum::sin(&self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        num_dual::DualNum::cos(&self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        num_dual::DualNum::sqrt(&self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        num_dual::DualNum::tanh(&self)
    }
}

/// ad_trait's reverse-mode number, with `f64` operands spelled as ad_trait spells them.
#[derive(Clone, Copy, Debug)]
pub struct Adr(pub ad_trait::reverse_ad::adr::adr);

macro_rules! adr_binary {
    ($($op:ident $method:ident $assign:ident $assign_method:ident),*) => {$(
        impl $op for Adr {
            type Output = Adr;
            #[inline(always)]
            fn $method(self, rhs: Adr) -> Adr {
                Adr($op::$method(self.0, rhs.0))
            }
        }
        impl $op<f64> for Adr {
            type Output = Adr;
            #[inline(always)]
            fn $method(self, rhs: f64) -> Adr {
                Adr($op::$method(self.0, ad_trait::F64(rhs)))
            }
        }
        impl core::ops::$assign for Adr {
            #[inline(always)]
            fn $assign_method(&mut self, rhs: Adr) {
                *self = $op::$method(*self, rhs);
            }
        }
    )*};
}
adr_binary!(
    Add add AddAssign add_assign,
    Sub sub SubAssign sub_assign,
    Mul mul MulAssign mul_assign,
    Div div DivAssign div_assign
);

impl Neg for Adr {
    type Output = Adr;
    #[inline(always)]
    fn neg(self) -> Adr {
        Adr(-self.0)
    }
}

impl Real for Adr {
    #[inline(always)]
    fn cst(c: f64) -> Self {
        Adr(<ad_trait::reverse_ad::adr::adr as ad_trait::AD>::constant(
            c,
        ))
    }
    #[inline(always)]
    fn val(self) -> f64 {
        self.0.value()
    }
    #[inline(always)]
    fn exp(self) -> Self {
        Adr(ad_trait::nalgebra::ComplexField::exp(self.0))
    }
    #[inline(always)]
    fn ln(self) -> Self {
        Adr(ad_trait::nalgebra::ComplexField::ln(self.0))
    }
    #[inline(always)]
    fn sin(self) -> Self {
        Adr(ad_trait::nalgebra::ComplexField::sin(self.0))
    }
    #[inline(always)]
    fn cos(self) -> Self {
        Adr(ad_trait::nalgebra::ComplexField::cos(self.0))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Adr(ad_trait::nalgebra::ComplexField::sqrt(self.0))
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        Adr(ad_trait::nalgebra::ComplexField::tanh(self.0))
    }
}
