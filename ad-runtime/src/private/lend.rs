//! Slices lent to calls: `&mut [T]` as the callee's parameter says, and locals lent to a
//! function that writes them.

/// A `&mut [T]` passed on to a call: lent as `&mut [T]` to a callee that writes it, or as
/// `&[T]` to one that reads it, as the callee's parameter says.
pub trait Lend<'a, P> {
    fn lend(self) -> P;
}

impl<'a, T> Lend<'a, &'a mut [T]> for &'a mut [T] {
    #[inline(always)]
    fn lend(self) -> &'a mut [T] {
        self
    }
}

impl<'a, T> Lend<'a, &'a [T]> for &'a mut [T] {
    #[inline(always)]
    fn lend(self) -> &'a [T] {
        self
    }
}

/// To a callee that takes `&mut [T; N]`: rustc has checked the primal call, so the part lent
/// (`&mut v` of an array `[T; N]`, or its tangent or copy) has `N` elements.
impl<'a, T, const N: usize> Lend<'a, &'a mut [T; N]> for &'a mut [T] {
    #[inline(always)]
    fn lend(self) -> &'a mut [T; N] {
        self.try_into()
            .expect("ad: a slice lent to a `&mut [T; N]` parameter has N elements")
    }
}

/// To a callee that takes `&mut T` of a struct (`Type::step(&mut s, ..)`): a struct local is
/// lent as the one-element slice it is to the derivatives (`&mut Name` has the kind of a
/// `&mut [Name]` of one element), and the callee gets the element.
impl<'a, T> Lend<'a, &'a mut T> for &'a mut [T] {
    #[inline(always)]
    fn lend(self) -> &'a mut T {
        match self {
            [one] => one,
            _ => unreachable!("ad: a struct lent to a `&mut` parameter is one element"),
        }
    }
}

/// A local lent to a function that writes it (`f(&mut v[a..b])`): a `Vec` or an array (or the
/// tangent or copy of one, or an output slice), seen as the slice the function gets, or a
/// struct with `#[derive(ad::Differentiable)]` (or its tangent), seen as a slice of one.
#[diagnostic::on_unimplemented(
    message = "#[differentiable] lends `{Self}` to a function that writes it, which it can do for a `Vec`, an array or a struct with `#[derive(ad::Differentiable)]` only",
    label = "this local is lent to a function as `&mut`",
    note = "a float goes to a function by value and comes back as its result: `x = f(x);`"
)]
pub trait Lendable {
    type Elem;
    fn seq_mut(&mut self) -> &mut [Self::Elem];
}

#[diagnostic::do_not_recommend]
impl<E> Lendable for Vec<E> {
    type Elem = E;
    #[inline(always)]
    fn seq_mut(&mut self) -> &mut [E] {
        self
    }
}

#[diagnostic::do_not_recommend]
impl<E, const N: usize> Lendable for [E; N] {
    type Elem = E;
    #[inline(always)]
    fn seq_mut(&mut self) -> &mut [E] {
        self
    }
}

#[diagnostic::do_not_recommend]
impl<E> Lendable for &mut [E] {
    type Elem = E;
    #[inline(always)]
    fn seq_mut(&mut self) -> &mut [E] {
        self
    }
}

/// Lends a `&mut [T]` to a call; see [`Lend`].
#[inline(always)]
pub fn lend<'a, T, P>(slice: &'a mut [T]) -> P
where
    &'a mut [T]: Lend<'a, P>,
{
    slice.lend()
}

/// A zero buffer as long as `like`, for a slice passed twice to one call.
pub fn zeros_like<T: Default + Clone>(like: &[T]) -> Vec<T> {
    vec![T::default(); like.len()]
}

/// Adds `extra` into `bar`, element by element.
pub fn add_into<T: crate::Accumulate + Default + Clone>(bar: &mut [T], extra: &[T]) {
    for (b, e) in bar.iter_mut().zip(extra) {
        *b = core::mem::take(b).accumulate(e.clone());
    }
}
