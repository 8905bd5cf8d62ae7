//! The argument kinds: what an argument is in a forward and a reverse rule, without its lifetime.

use super::Tan;
use crate::tangent::{Differentiable, NoTangent};
use core::marker::PhantomData;

/// The kind of an argument, without its lifetime: a value (`f64`, `Vec<f64>`, ...) is its own
/// kind; a borrowed slice is [`Slice`] or [`SliceMut`]. Its types at any lifetime `'a` are:
/// the argument (`Ref`), its tangent in a forward rule (`Shadow`), the argument in a reverse rule
/// (`Dup`: a value, or a slice with its adjoint buffer) and what a reverse rule returns for it
/// (`Adj`: the value's adjoint, or [`NoTangent`] for a slice, whose adjoint goes into the buffer).
///
/// ```
/// fn scaled<'a>(x: <ad::Slice<f64> as ad::Arg>::Ref<'a>) -> f64 { 2.0 * x[0] }
/// assert_eq!(scaled(&[1.5]), 3.0);
/// ```
pub trait Arg: 'static {
    /// The argument.
    type Ref<'a>;
    /// Its tangent, in a forward rule.
    type Shadow<'a>;
    /// The argument in a reverse rule: a value, or a slice with its adjoint buffer.
    type Dup<'a>;
    /// The argument in a generated reverse derivative: as in a reverse rule, but a struct by
    /// reference comes with the adjoint its caller holds for it so far ([`DupRef`]), which the
    /// derivative adds to and returns whole.
    type Gen<'a>;
    /// What a reverse rule returns for it.
    type Adj: 'static;
    /// A slice, whose adjoint is a buffer rather than a returned value.
    const BUFFER: bool;
}

impl<T: Differentiable + Clone + 'static> Arg for T {
    type Ref<'a> = T;
    type Shadow<'a> = Tan<T>;
    type Dup<'a> = T;
    type Gen<'a> = T;
    type Adj = Tan<T>;
    const BUFFER: bool = false;
}

/// The kind of a `&[E]` argument: its tangent in a forward rule is a `&[Tan<E>]`, and in a
/// reverse rule it comes as a [`Dup`].
///
/// ```
/// use ad::{Arg, Param, Slice};
/// fn kind_of<P: Param<Marker = Slice<f64>>>(_: P) {}
/// kind_of(&[1.0, 2.0][..]);
/// let tangent: <Slice<f64> as Arg>::Shadow<'_> = &[0.5, 0.0];
/// # let _ = tangent;
/// ```
pub struct Slice<E>(PhantomData<fn() -> E>);

/// The kind of a `&mut [E]` argument, an output written in place: its tangent in a forward
/// rule is a `&mut [Tan<E>]` the rule writes, and in a reverse rule it comes as a [`DupMut`].
///
/// ```
/// use ad::{Param, SliceMut};
/// fn kind_of<P: Param<Marker = SliceMut<f64>>>(_: P) {}
/// kind_of(&mut [0.0; 2][..]);
/// ```
pub struct SliceMut<E>(PhantomData<fn() -> E>);

impl<E: Differentiable + 'static> Arg for Slice<E> {
    type Ref<'a> = &'a [E];
    type Shadow<'a> = &'a [Tan<E>];
    type Dup<'a> = Dup<'a, E>;
    type Gen<'a> = Dup<'a, E>;
    type Adj = NoTangent;
    const BUFFER: bool = true;
}

impl<E: Differentiable + 'static> Arg for SliceMut<E> {
    type Ref<'a> = &'a mut [E];
    type Shadow<'a> = &'a mut [Tan<E>];
    type Dup<'a> = DupMut<'a, E>;
    type Gen<'a> = DupMut<'a, E>;
    type Adj = NoTangent;
    const BUFFER: bool = true;
}

/// The kind of a `&[E; N]` argument, a reference to an array: differentiated as the array
/// itself, so its tangent in a forward rule and its adjoint are arrays `[Tan<E>; N]`, and a
/// reverse rule gets the reference.
///
/// ```
/// use ad::{ArrayRef, Param};
/// fn kind_of<P: Param<Marker = ArrayRef<f64, 2>>>(_: P) {}
/// kind_of(&[1.0, 2.0]);
///
/// fn norm2(p: &[f64; 2]) -> f64 { p[0] * p[0] + p[1] * p[1] }
/// let rule: <fn(&[f64; 2]) -> f64 as ad::Function<(&[f64; 2],)>>::Forward =
///     |p, dp| (norm2(p), 2.0 * (p[0] * dp[0] + p[1] * dp[1]));
/// assert_eq!(rule(&[1.0, 2.0], [1.0, 0.0]), (5.0, 2.0));
/// ```
pub struct ArrayRef<E, const N: usize>(PhantomData<fn() -> E>);

impl<E: Differentiable + 'static, const N: usize> Arg for ArrayRef<E, N> {
    type Ref<'a> = &'a [E; N];
    type Shadow<'a> = [Tan<E>; N];
    type Dup<'a> = &'a [E; N];
    type Gen<'a> = &'a [E; N];
    type Adj = [Tan<E>; N];
    const BUFFER: bool = false;
}

/// The kind of a shared reference to a struct with `#[derive(ad::Differentiable)]`
/// (`&Model`): differentiated as the struct. The tangent and the adjoint are the struct's
/// tangent, by value.
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
/// struct Point { x: f64, y: f64 }
///
/// fn kind_of<P: ad::Param<Marker = ad::Ref<Point>>>(_: P) {}
/// kind_of(&Point { x: 1.0, y: 2.0 });
///
/// #[ad::differentiable]
/// fn norm2(p: &Point) -> f64 { p.x * p.x + p.y * p.y }
/// // The tangent of `&Point` is a `Point`, by value, and so is its gradient.
/// assert_eq!(ad::jvp(norm2, (&Point { x: 1.0, y: 2.0 },), (Point { x: 1.0, y: 0.0 },)).1, 2.0);
/// assert_eq!(ad::grad(norm2, (&Point { x: 1.0, y: 2.0 },)).0, Point { x: 2.0, y: 4.0 });
/// ```
pub struct Ref<T>(PhantomData<fn() -> T>);

impl<T: Differentiable + 'static> Arg for Ref<T> {
    type Ref<'a> = &'a T;
    type Shadow<'a> = T::Tangent;
    type Dup<'a> = &'a T;
    type Gen<'a> = DupRef<'a, T>;
    type Adj = T::Tangent;
    const BUFFER: bool = false;
}

/// A struct by reference in a generated reverse derivative: the struct, and the adjoint the
/// caller holds for it so far, moved into the call. The derivative takes it out (leaving a zero
/// without a shape), adds its own to it and returns the sum as the argument's adjoint: a call
/// made once per sample on a layer of a network then neither makes nor adds a layer-sized
/// adjoint of its own.
#[doc(hidden)]
pub struct DupRef<'a, T: Differentiable> {
    /// The argument.
    pub value: &'a T,
    /// The caller's adjoint of it so far.
    pub adjoint: &'a mut T::Tangent,
}

/// A `&[E]` argument of a reverse rule: the values, and the buffer its adjoints are added to.
///
/// ```
/// fn dot(a: &[f64], b: &[f64]) -> f64 { a.iter().zip(b).map(|(x, y)| x * y).sum() }
///
/// // A reverse rule adds each argument's adjoint into its buffer.
/// fn dot_vjp(a: ad::Dup<f64>, b: ad::Dup<f64>, _value: f64, bar: f64) -> (ad::NoTangent, ad::NoTangent) {
///     for i in 0..a.value.len() {
///         a.adjoint[i] += b.value[i] * bar;
///         b.adjoint[i] += a.value[i] * bar;
///     }
///     (ad::NoTangent, ad::NoTangent)
/// }
/// let guard = ad::rules::register_reverse(dot, |a: ad::Dup<f64>, b: ad::Dup<f64>, v: f64, bar: f64| dot_vjp(a, b, v, bar));
/// let (ga, gb) = ad::grad(dot, (&[1.0, 2.0][..], &[3.0, 4.0][..]));
/// assert_eq!((ga, gb), (vec![3.0, 4.0], vec![1.0, 2.0]));
/// drop(guard);
/// ```
pub struct Dup<'a, E: Differentiable> {
    /// The argument.
    pub value: &'a [E],
    /// Its adjoint: add to it.
    pub adjoint: &'a mut [Tan<E>],
}

/// A `&mut [E]` argument of a reverse rule: the buffer the function writes, and the adjoint of
/// what it wrote, which the rule consumes (reads, then sets to zero) and passes on to the inputs.
/// Such a rule serves the derivatives that call the function; the entry points cannot run it
/// on the function itself, which would need the `&mut` argument twice (once to compute the
/// value, once for the rule).
///
/// ```
/// /// y = 2 x, written into `y`.
/// fn double(x: &[f64], y: &mut [f64]) {
///     for i in 0..x.len() {
///         y[i] = 2.0 * x[i];
///     }
/// }
///
/// let guard = ad::rules::register_reverse(
///     double,
///     |x: ad::Dup<f64>, y: ad::DupMut<f64>, _: (), _: ad::NoTangent| {
///         for i in 0..x.value.len() {
///             x.adjoint[i] += 2.0 * y.adjoint[i];
///             y.adjoint[i] = 0.0;
///         }
///         (ad::NoTangent, ad::NoTangent)
///     },
/// );
/// // A derivative that calls `double` uses the rule.
/// #[ad::differentiable]
/// fn twice_double(x: &[f64], y: &mut [f64]) {
///     double(x, y);
/// }
/// let (x, mut y) = ([1.0, 2.0], [0.0; 2]);
/// let (mut x_bar, mut y_bar) = ([0.0; 2], [1.0, 3.0]);
/// let (xs, ys) = (&x[..], &mut y[..]);
/// ad::vjp_into(twice_double, (xs, ys), (&mut x_bar[..], &mut y_bar[..]), ad::NoTangent);
/// assert_eq!((y, x_bar, y_bar), ([2.0, 4.0], [2.0, 6.0], [0.0, 0.0]));
/// drop(guard);
/// ```
pub struct DupMut<'a, E: Differentiable> {
    /// The argument as it was before the call: the function writes it when the derivative's
    /// forward sweep runs, and the reverse sweep lends the rule a copy taken before.
    pub value: &'a mut [E],
    /// The adjoint of the written values; set it to zero after reading it.
    pub adjoint: &'a mut [Tan<E>],
}
