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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type `ad` can differentiate",
    label = "not a float, an integer or a `bool`, nor a tuple, array, `Vec` or `Option` of these",
    note = "`ad` differentiates floats (`f64`, `f32`); integers, `bool` and `char` pass without a derivative; tuples, arrays, `Vec`s and `Option`s of these carry their elements' derivatives",
    note = "a struct of your own carries derivatives with `#[derive(ad::Differentiable)]` (a field without one marked `#[ad(skip)]`)"
)]
pub trait Differentiable {
    /// The type of a tangent (a directional derivative) of a value of this type; in reverse mode
    /// the type of an adjoint too.
    type Tangent: Clone
        + core::fmt::Debug
        + PartialEq
        + Send
        + Sync
        + Accumulate
        + Linear
        + ShapelessZero
        + 'static;

    /// The zero tangent at this value (for an array or a `Vec`, one zero per element).
    fn zero_tangent(&self) -> Self::Tangent;

    /// Checks that a tangent has the shape of this value: as many elements in each `Vec`.
    fn check_tangent(&self, tangent: &Self::Tangent) -> Result<(), ShapeMismatch> {
        let _ = tangent;
        Ok(())
    }
}

/// A tangent or adjoint whose shape differs from its value's: a `Vec` of another length.
///
/// ```
/// use ad::Differentiable;
/// let err = vec![1.0, 2.0].check_tangent(&vec![0.0; 3]).unwrap_err();
/// assert_eq!((err.expected, err.found), (2, 3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeMismatch {
    /// Where in the value, such as `[2].1` (empty for the value itself).
    pub path: String,
    /// The number of elements of the value there.
    pub expected: usize,
    /// The number of elements of the tangent there.
    pub found: usize,
}

impl ShapeMismatch {
    fn within(mut self, prefix: &str) -> Self {
        self.path.insert_str(0, prefix);
        self
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
            #[inline(always)]
            fn zero_tangent(&self) -> $t {
                0.0
            }
        }
    )*};
}
own_tangent!(f32 f64);

macro_rules! no_tangent {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            type Tangent = NoTangent;
            #[inline(always)]
            fn zero_tangent(&self) -> NoTangent {
                NoTangent
            }
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
            fn check_tangent(&self, tangent: &Self::Tangent) -> Result<(), ShapeMismatch> {
                $(self.$i.check_tangent(&tangent.$i).map_err(|e| e.within(concat!(".", stringify!($i))))?;)+
                Ok(())
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

/// A type whose values carry no derivative: integers, `bool`, `char`, `()` and tuples of these.
///
/// `#[differentiable]` decides from a type's *name* that a value has no derivative (`i32`,
/// `usize`, ...); generated code asserts that with this trait, so a type alias that merely looks
/// like an integer (`type u32 = f64;`) is a compile error, not a dropped derivative.
///
/// ```
/// fn no_derivative<T: ad::NoDerivative>() {}
/// no_derivative::<(usize, bool)>();
/// assert_eq!((3_usize, true).zero_tangent(), (ad::NoTangent, ad::NoTangent));
/// # use ad::Differentiable;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` carries a derivative, but #[differentiable] took it for a type without one",
    label = "this type's name looks like an integer type",
    note = "#[differentiable] treats `i8`..`u128`, `usize`, `isize`, `bool` and `char` as having no derivative; do not give a float type such a name"
)]
pub trait NoDerivative: Differentiable {
    /// Does nothing; generated code calls it so that rustc checks the bound.
    #[doc(hidden)]
    fn __assert() {}
}

macro_rules! no_derivative {
    ($($t:ty),*) => {$(impl NoDerivative for $t {})*};
}
no_derivative!(
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

macro_rules! tuple_no_derivative {
    ($(($($T:ident),+))*) => {$(impl<$($T: NoDerivative),+> NoDerivative for ($($T,)+) {})*};
}
tuple_no_derivative! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
}

/// Adding adjoints: what the reverse sweep does where a value is used more than once.
///
/// ```
/// use ad::Accumulate;
/// assert_eq!((1.5_f64, ad::NoTangent).accumulate((2.0, ad::NoTangent)), (3.5, ad::NoTangent));
/// assert_eq!([1.0, -2.0, 0.25].accumulate([0.5, 2.0, 0.0]), [1.5, 0.0, 0.25]);
/// assert_eq!([vec![1.0], vec![]].accumulate([vec![2.0, 3.0], vec![4.0]]), [vec![3.0, 3.0], vec![4.0]]);
/// ```
pub trait Accumulate {
    /// The sum of two adjoints.
    fn accumulate(self, other: Self) -> Self;
    /// Whether every coordinate is exactly zero.
    fn is_zero_adjoint(&self) -> bool;
}

macro_rules! float_accumulate {
    ($($t:ty)*) => {$(
        impl Accumulate for $t {
            #[inline(always)]
            fn accumulate(self, other: $t) -> $t {
                self + other
            }
            #[inline(always)]
            fn is_zero_adjoint(&self) -> bool {
                *self == 0.0
            }
        }
    )*};
}
float_accumulate!(f32 f64);

impl Accumulate for NoTangent {
    #[inline(always)]
    fn accumulate(self, _: NoTangent) -> NoTangent {
        NoTangent
    }
    #[inline(always)]
    fn is_zero_adjoint(&self) -> bool {
        true
    }
}

macro_rules! tuple_accumulate {
    ($(($($T:ident $i:tt),+))*) => {$(
        impl<$($T: Accumulate),+> Accumulate for ($($T,)+) {
            #[inline(always)]
            fn accumulate(self, other: Self) -> Self {
                ($(self.$i.accumulate(other.$i),)+)
            }
            #[inline(always)]
            fn is_zero_adjoint(&self) -> bool {
                true $(&& self.$i.is_zero_adjoint())+
            }
        }
    )*};
}
tuple_accumulate! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

impl<T: Accumulate, const N: usize> Accumulate for [T; N] {
    /// Element by element, built with `array::from_fn`, which the compiler inlines: `map` with
    /// a second iterator left a call of `try_map` in every sum of two arrays, and an argument's
    /// adjoint is summed onto its zero at the end of every reverse sweep.
    #[inline]
    fn accumulate(self, other: Self) -> Self {
        let mut pairs = self.into_iter().zip(other);
        core::array::from_fn(|_| match pairs.next() {
            Some((a, b)) => a.accumulate(b),
            None => unreachable!("two arrays of one length"),
        })
    }
    #[inline]
    fn is_zero_adjoint(&self) -> bool {
        self.iter().all(Accumulate::is_zero_adjoint)
    }
}

/// The adjoint of a `Vec` may be shorter than the `Vec` while the reverse sweep builds it: the
/// missing elements are zero.
impl<T: Accumulate + ShapelessZero> Accumulate for Vec<T> {
    /// Into the longer of the two, in place: no allocation. An adjoint not yet shaped (empty)
    /// adds nothing, and the other is the sum as it is.
    #[inline]
    fn accumulate(mut self, other: Self) -> Self {
        if self.len() < other.len() {
            return other.accumulate(self);
        }
        for (a, b) in self.iter_mut().zip(other) {
            let old = core::mem::replace(a, T::shapeless_zero());
            *a = old.accumulate(b);
        }
        self
    }
    #[inline]
    fn is_zero_adjoint(&self) -> bool {
        self.iter().all(Accumulate::is_zero_adjoint)
    }
}

/// The adjoint that seeds a gradient: 1 for a float result.
///
/// ```
/// assert_eq!(<f32 as ad::Seed>::unit(), 1.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "a gradient needs a float result, and this function returns `{Self}`'s base type",
    note = "`ad::grad` and `ad::value_and_grad` differentiate functions that return f64 or f32; for other results use `ad::vjp` and give the result's adjoint"
)]
pub trait Seed {
    /// One.
    fn unit() -> Self;
}

impl Seed for f64 {
    fn unit() -> f64 {
        1.0
    }
}

impl Seed for f32 {
    fn unit() -> f32 {
        1.0
    }
}

/// A tangent space as coordinates: what converts a rule of one mode into the other (a JVP per
/// coordinate of the arguments, or a VJP per coordinate of the result).
///
/// ```
/// use ad::Linear;
/// let t = (0.0, ad::NoTangent, 0.0_f32);
/// assert_eq!(t.dim(), 2);
/// assert_eq!(t.unit_like(1), (0.0, ad::NoTangent, 1.0));
/// assert_eq!((2.0, ad::NoTangent, 3.0_f32).dot(&(0.5, ad::NoTangent, 2.0)), 7.0);
/// assert_eq!(vec![0.0; 3].unit_like(2), vec![0.0, 0.0, 1.0]);
/// ```
pub trait Linear: Clone {
    /// Number of scalar coordinates: 1 for a float, 0 for [`NoTangent`], the sum for a tuple, an
    /// array or a `Vec`.
    fn dim(&self) -> usize;
    /// The unit vector along coordinate `i`, of the shape of `self` (the other coordinates zero).
    fn unit_like(&self, i: usize) -> Self {
        let mut v = self.clone();
        for j in 0..v.dim() {
            v.set(j, 0.0);
        }
        v.set(i, 1.0);
        v
    }
    /// Sets coordinate `i`.
    fn set(&mut self, i: usize, value: f64);
    /// The dot product of the coordinates.
    fn dot(&self, other: &Self) -> f64;
}

impl Linear for f64 {
    fn dim(&self) -> usize {
        1
    }
    fn set(&mut self, _: usize, value: f64) {
        *self = value;
    }
    fn dot(&self, other: &f64) -> f64 {
        self * other
    }
}

impl Linear for f32 {
    fn dim(&self) -> usize {
        1
    }
    #[allow(clippy::cast_possible_truncation)]
    fn set(&mut self, _: usize, value: f64) {
        *self = value as f32;
    }
    fn dot(&self, other: &f32) -> f64 {
        f64::from(*self) * f64::from(*other)
    }
}

impl Linear for NoTangent {
    fn dim(&self) -> usize {
        0
    }
    fn set(&mut self, _: usize, _: f64) {}
    fn dot(&self, _: &NoTangent) -> f64 {
        0.0
    }
}

impl Linear for () {
    fn dim(&self) -> usize {
        0
    }
    fn set(&mut self, _: usize, _: f64) {}
    fn dot(&self, _: &()) -> f64 {
        0.0
    }
}

/// Coordinate `i` of a sequence of tangents, element by element.
fn set_in<T: Linear>(elems: &mut [T], mut i: usize, value: f64) {
    for e in elems {
        let d = e.dim();
        if i < d {
            e.set(i, value);
            return;
        }
        i -= d;
    }
}

macro_rules! sequence_linear {
    ($($seq:ty => [$($generics:tt)*]),*) => {$(
        impl<$($generics)*> Linear for $seq {
            fn dim(&self) -> usize {
                self.iter().map(Linear::dim).sum()
            }
            fn set(&mut self, i: usize, value: f64) {
                set_in(self, i, value);
            }
            fn dot(&self, other: &Self) -> f64 {
                self.iter().zip(other).map(|(a, b)| a.dot(b)).sum()
            }
        }
    )*};
}
sequence_linear!([T; N] => [T: Linear, const N: usize], Vec<T> => [T: Linear]);

macro_rules! tuple_linear {
    ($(($($T:ident $i:tt),+))*) => {$(
        impl<$($T: Linear),+> Linear for ($($T,)+) {
            fn dim(&self) -> usize {
                0 $(+ self.$i.dim())+
            }
            fn set(&mut self, i: usize, value: f64) {
                let mut offset = 0;
                $(
                    let d = self.$i.dim();
                    if (offset..offset + d).contains(&i) {
                        self.$i.set(i - offset, value);
                    }
                    offset += d;
                )+
                let _ = offset;
            }
            fn dot(&self, other: &Self) -> f64 {
                0.0 $(+ self.$i.dot(&other.$i))+
            }
        }
    )*};
}
tuple_linear! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    type Tangent = [T::Tangent; N];
    fn zero_tangent(&self) -> Self::Tangent {
        core::array::from_fn(|i| self[i].zero_tangent())
    }
    fn check_tangent(&self, tangent: &Self::Tangent) -> Result<(), ShapeMismatch> {
        check_elements(self, tangent)
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    type Tangent = Vec<T::Tangent>;
    fn zero_tangent(&self) -> Self::Tangent {
        self.iter().map(Differentiable::zero_tangent).collect()
    }
    fn check_tangent(&self, tangent: &Self::Tangent) -> Result<(), ShapeMismatch> {
        if self.len() != tangent.len() {
            return Err(ShapeMismatch {
                path: String::new(),
                expected: self.len(),
                found: tangent.len(),
            });
        }
        check_elements(self, tangent)
    }
}

fn check_elements<T: Differentiable>(
    values: &[T],
    tangents: &[T::Tangent],
) -> Result<(), ShapeMismatch> {
    for (i, (v, t)) in values.iter().zip(tangents).enumerate() {
        v.check_tangent(t)
            .map_err(|e| e.within(&format!("[{i}]")))?;
    }
    Ok(())
}

impl<T: NoDerivative, const N: usize> NoDerivative for [T; N] {}
impl<T: NoDerivative> NoDerivative for Vec<T> {}

/// An `Option` carries the derivative of its payload: `Some` of the payload's tangent, `None`
/// where it holds nothing.
///
/// ```
/// use ad::Differentiable;
/// assert_eq!(Some(2.0_f64).zero_tangent(), Some(0.0));
/// assert_eq!(None::<f64>.zero_tangent(), None);
/// assert!(Some(1.0_f64).check_tangent(&None).is_err());
/// ```
impl<T: Differentiable> Differentiable for Option<T> {
    type Tangent = Option<T::Tangent>;
    fn zero_tangent(&self) -> Self::Tangent {
        self.as_ref().map(Differentiable::zero_tangent)
    }
    fn check_tangent(&self, tangent: &Self::Tangent) -> Result<(), ShapeMismatch> {
        match (self, tangent) {
            (Some(v), Some(t)) => v.check_tangent(t).map_err(|e| e.within(".Some")),
            (None, None) => Ok(()),
            _ => Err(ShapeMismatch {
                path: String::new(),
                expected: usize::from(self.is_some()),
                found: usize::from(tangent.is_some()),
            }),
        }
    }
}

impl<T: NoDerivative> NoDerivative for Option<T> {}

/// An adjoint of `None` is zero: the sum is the other.
impl<T: Accumulate> Accumulate for Option<T> {
    #[inline]
    fn accumulate(self, other: Self) -> Self {
        match (self, other) {
            (Some(a), Some(b)) => Some(a.accumulate(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
    #[inline]
    fn is_zero_adjoint(&self) -> bool {
        self.as_ref().is_none_or(Accumulate::is_zero_adjoint)
    }
}

impl<T: Linear> Linear for Option<T> {
    fn dim(&self) -> usize {
        self.as_ref().map_or(0, Linear::dim)
    }
    fn set(&mut self, i: usize, value: f64) {
        if let Some(t) = self {
            t.set(i, value);
        }
    }
    fn dot(&self, other: &Self) -> f64 {
        match (self, other) {
            (Some(a), Some(b)) => a.dot(b),
            _ => 0.0,
        }
    }
}

/// The zero of a type, made without a value: a `Vec`'s is empty, which [`Accumulate`] reads as
/// zeros of any length. The reverse sweep starts the adjoint of a struct from it when it adds
/// the adjoint of one field, without keeping the struct for its shape; and a `loop`'s value
/// that a labelled `break` sets starts at it, never read (any value type of the language has
/// one, arrays of any length included, which `Default` stops at 32).
///
/// ```
/// use ad::ShapelessZero;
/// assert_eq!(<(f64, [f32; 2], Vec<f64>)>::shapeless_zero(), (0.0, [0.0, 0.0], vec![]));
/// ```
pub trait ShapelessZero {
    /// The zero.
    fn shapeless_zero() -> Self;
}

macro_rules! float_zero {
    ($($t:ty)*) => {$(
        impl ShapelessZero for $t {
            #[inline(always)]
            fn shapeless_zero() -> $t {
                0.0
            }
        }
    )*};
}
float_zero!(f32 f64);

macro_rules! integer_zero {
    ($($t:ty)*) => {$(
        impl ShapelessZero for $t {
            #[inline(always)]
            fn shapeless_zero() -> $t {
                0
            }
        }
    )*};
}
integer_zero!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

impl ShapelessZero for bool {
    #[inline(always)]
    fn shapeless_zero() -> bool {
        false
    }
}

impl ShapelessZero for char {
    #[inline(always)]
    fn shapeless_zero() -> char {
        '\0'
    }
}

impl ShapelessZero for NoTangent {
    #[inline(always)]
    fn shapeless_zero() -> NoTangent {
        NoTangent
    }
}

impl ShapelessZero for () {
    #[inline(always)]
    fn shapeless_zero() {}
}

impl<T: ShapelessZero, const N: usize> ShapelessZero for [T; N] {
    #[inline]
    fn shapeless_zero() -> Self {
        core::array::from_fn(|_| T::shapeless_zero())
    }
}

impl<T> ShapelessZero for Vec<T> {
    #[inline]
    fn shapeless_zero() -> Self {
        Vec::new()
    }
}

impl<T> ShapelessZero for Option<T> {
    #[inline]
    fn shapeless_zero() -> Self {
        None
    }
}

macro_rules! tuple_zero {
    ($(($($T:ident),+))*) => {$(
        impl<$($T: ShapelessZero),+> ShapelessZero for ($($T,)+) {
            #[inline]
            fn shapeless_zero() -> Self {
                ($($T::shapeless_zero(),)+)
            }
        }
    )*};
}
tuple_zero! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
}
