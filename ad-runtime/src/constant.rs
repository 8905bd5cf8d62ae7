//! Arguments held constant: data that a derivative is not taken with respect to.

use crate::function::{Arg, Param};
use crate::tangent::{Differentiable, NoTangent, ShapeMismatch};
use core::marker::PhantomData;
use core::ops::Deref;

/// An argument without a derivative: data such as a likelihood's observations or a network's
/// inputs and targets, which a gradient is not taken with respect to.
///
/// A parameter of type `ad::Const<T>` (`T` a slice `&[E]`, or a value: a float, an array, a
/// `Vec`, a tuple) carries no derivative, whatever `T` holds: its tangent and its adjoint are
/// [`NoTangent`](crate::NoTangent), so [`jvp`](crate::jvp) takes `NoTangent` for it,
/// [`value_and_grad`](crate::value_and_grad) returns `NoTangent` for it, and a
/// `#[differentiable]` function's derivatives spend nothing on it: no adjoint buffer, no
/// contributions. Without it, a slice of data is differentiated like any other slice, and a
/// gradient also computes the data's adjoints, which can be as much work as the parameters'.
///
/// Inside the function it reads like what it holds: `x[i]`, `x.len()`, `x.iter()` through
/// `Deref`; `x.0` for the value itself (a float: `c.0 * y`).
///
/// ```
/// use ad::Const;
///
/// /// Sum of squared residuals of a line through the points (xs[i], ys[i]).
/// #[ad::differentiable]
/// fn sse(a: f64, b: f64, xs: Const<&[f64]>, ys: Const<&[f64]>) -> f64 {
///     let mut s = 0.0;
///     for i in 0..xs.len() {
///         let r = a * xs[i] + b - ys[i];
///         s += r * r;
///     }
///     s
/// }
///
/// let (xs, ys) = ([0.0, 1.0, 2.0], [1.0, 2.0, 4.0]);
/// let (value, (da, db, dx, dy)) =
///     ad::value_and_grad(sse, (1.0, 1.0, Const(&xs[..]), Const(&ys[..])));
/// // residuals 0, 0, -1: s = 1, ds/da = 2 (-1)(2) = -4, ds/db = 2 (-1) = -2
/// assert_eq!((value, da, db), (1.0, -4.0, -2.0));
/// assert_eq!((dx, dy), (ad::NoTangent, ad::NoTangent));
///
/// // Forward mode: no tangent for the data.
/// let (_, d) = ad::jvp(
///     sse,
///     (1.0, 1.0, Const(&xs[..]), Const(&ys[..])),
///     (1.0, 0.0, ad::NoTangent, ad::NoTangent),
/// );
/// assert_eq!(d, -4.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Const<T>(pub T);

impl<T> Deref for Const<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A value held constant has no tangent, whatever tangent its contents would have.
// Only for values (`T: Differentiable`): that makes `Const<T>` a `Param` through the blanket
// impl for values, which would otherwise overlap the impl for `Const<&[E]>` below.
impl<T: Differentiable + Clone + 'static> Differentiable for Const<T> {
    type Tangent = NoTangent;
    #[inline(always)]
    fn zero_tangent(&self) -> NoTangent {
        NoTangent
    }
}

/// A constant value the reverse sweep keeps (a local bound to a `Const<f64>` parameter, say) is
/// kept as what it holds.
impl<T: crate::tape::Tapeable> crate::tape::Tapeable for Const<T> {
    const WORDS: Option<usize> = T::WORDS;
    #[inline(always)]
    fn push_to<S: crate::tape::Sink>(self, tape: &mut S) {
        self.0.push_to(tape);
    }
    #[inline(always)]
    fn pop_from(tape: &mut crate::tape::Tape) -> Self {
        Const(T::pop_from(tape))
    }
}

/// The kind of a `Const<&[E]>` argument: a slice without a derivative, passed as it is to
/// rules of either mode, with [`NoTangent`] as its tangent and its adjoint.
///
/// ```
/// use ad::{Const, ConstSlice, Param};
/// fn kind_of<P: Param<Marker = ConstSlice<f64>>>(_: P) {}
/// kind_of(Const(&[1.0, 2.0][..]));
/// ```
pub struct ConstSlice<E>(PhantomData<fn() -> E>);

impl<E: 'static> Arg for ConstSlice<E> {
    type Ref<'a> = Const<&'a [E]>;
    type Shadow<'a> = NoTangent;
    type Dup<'a> = Const<&'a [E]>;
    type Gen<'a> = Const<&'a [E]>;
    type Adj = NoTangent;
    const BUFFER: bool = false;
}

impl<E: 'static> Param for Const<&[E]> {
    type Marker = ConstSlice<E>;
    type Shadow = NoTangent;
    type Bar = ();
    type Store = ();
    type Grad = NoTangent;
    type Seed = ();

    #[inline(always)]
    fn gen_in<'s>(self, (): &'s mut ()) -> Const<&'s [E]>
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn seed((): &mut (), (): ()) {}
    #[inline(always)]
    fn merge(adjoint: NoTangent, (): &mut ()) -> NoTangent {
        adjoint
    }
    #[inline(always)]
    fn into_ref<'s>(self) -> Const<&'s [E]>
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn shadow_into<'s>(shadow: NoTangent) -> NoTangent
    where
        Self: 's,
    {
        shadow
    }
    #[inline(always)]
    fn dup_in<'s>(self, (): &'s mut ()) -> Const<&'s [E]>
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn store(&self) {}
    #[inline(always)]
    fn empty_store() {}
    #[inline(always)]
    fn store_from((): &()) {}
    #[inline(always)]
    fn store_into((): (), (): ()) {}
    #[inline(always)]
    fn grad(_: NoTangent, (): ()) -> NoTangent {
        NoTangent
    }
    #[inline(always)]
    fn zero_adj(&self) -> NoTangent {
        NoTangent
    }
    fn check_shadow(&self, _: &NoTangent) -> Result<(), ShapeMismatch> {
        Ok(())
    }
    fn try_clone(&self) -> Option<Self> {
        Some(*self)
    }
    // No coordinates: a rule converted between modes runs no JVP or VJP for it.
    fn shadow_dim(&self) -> usize {
        0
    }
    fn unit_shadow(&self, _: usize) -> NoTangent {
        NoTangent
    }
    fn zero_shadow(&self) -> NoTangent {
        NoTangent
    }
    fn adj_dim(_: &NoTangent) -> usize {
        0
    }
    fn dot(_: &NoTangent, _: &NoTangent) -> f64 {
        0.0
    }
    fn set_adj(_: &mut NoTangent, _: usize, _: f64) {}
}

/// `ad::Const`, whatever it holds. `#[differentiable]` takes a parameter whose type is named
/// `Const` for `ad::Const`, and generated code asserts with this trait that it is.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `ad::Const`, but #[differentiable] took it for it",
    label = "this type is named `Const`",
    note = "#[differentiable] treats a parameter type named `Const` as `ad::Const`, an argument without a derivative; rename this type"
)]
pub trait IsConst {
    /// Does nothing; generated code calls it so that rustc checks the bound.
    fn __assert() {}
}

impl<T> IsConst for Const<T> {}
