//! Adjoints of arrays, `Vec`s and slices, read and written by index.

use super::{Adj, Adjoint, Ty, acc, vec_repeat};
use crate::ShapelessZero;

/// Takes a value out, leaving a zero without a shape: `mem::take` for tangents, which need
/// not have a `Default` (a derived struct's has none).
#[inline(always)]
fn take_zero<E: ShapelessZero>(e: &mut E) -> E {
    core::mem::replace(e, E::shapeless_zero())
}

/// A sequence of tangents: the tangent of an array or a `Vec`, whose elements generated code
/// reads and writes by index.
pub trait Seq: Adjoint<Repr = Option<Self>> {
    /// The tangent of one element.
    type Elem: Adjoint + Clone;
    /// Element `i`, if present and not known to be zero.
    fn at(&self, i: usize) -> Option<Self::Elem>;
    /// Adds `value` to element `i` of an adjoint that is `None` while zero.
    fn acc_at(slot: &mut Option<Self>, i: usize, value: Self::Elem);
    /// Takes element `i` out of an adjoint, leaving zero in its place.
    fn take_at(slot: &mut Option<Self>, i: usize) -> Option<Self::Elem>;
    /// The sum of the elements, in order.
    fn total(&self) -> Option<Self::Elem>;
    /// The adjoint as a buffer of at least `len` elements, zero where it had none: for a local
    /// lent to a call that writes it, whose reverse sweep updates the buffer in place.
    fn buffer(slot: &mut Option<Self>, len: usize) -> &mut [Self::Elem];
}

impl<E: Adjoint + Clone + ShapelessZero, const N: usize> Seq for [E; N] {
    type Elem = E;
    #[inline(always)]
    fn at(&self, i: usize) -> Option<E> {
        Some(self[i].clone())
    }
    #[inline(always)]
    fn acc_at(slot: &mut Option<Self>, i: usize, value: E) {
        // Once the adjoint is there, adding a zero changes nothing: no test.
        if slot.is_none() && value.is_zero_adjoint() {
            return;
        }
        let seq = slot.get_or_insert_with(|| core::array::from_fn(|_| E::shapeless_zero()));
        seq[i] = take_zero(&mut seq[i]).accumulate(value);
    }
    #[inline(always)]
    fn take_at(slot: &mut Option<Self>, i: usize) -> Option<E> {
        slot.as_mut().map(|seq| take_zero(&mut seq[i]))
    }
    fn total(&self) -> Option<E> {
        self.iter().cloned().reduce(crate::Accumulate::accumulate)
    }
    fn buffer(slot: &mut Option<Self>, _: usize) -> &mut [E] {
        slot.get_or_insert_with(|| core::array::from_fn(|_| E::shapeless_zero()))
    }
}

/// An adjoint `Vec` grows as elements receive contributions; missing elements are zero.
impl<E: Adjoint + Clone + ShapelessZero> Seq for Vec<E> {
    type Elem = E;
    #[inline(always)]
    fn at(&self, i: usize) -> Option<E> {
        self.get(i).cloned()
    }
    #[inline(always)]
    fn acc_at(slot: &mut Option<Self>, i: usize, value: E) {
        // An element already there takes the value as it is (adding a zero changes nothing);
        // only growing the adjoint waits for a value that is not zero.
        if let Some(e) = slot.as_mut().and_then(|seq| seq.get_mut(i)) {
            *e = take_zero(e).accumulate(value);
            return;
        }
        if value.is_zero_adjoint() {
            return;
        }
        *slot = Some(grown(slot.take(), i, value));
    }
    #[inline(always)]
    fn take_at(slot: &mut Option<Self>, i: usize) -> Option<E> {
        slot.as_mut().and_then(|seq| seq.get_mut(i)).map(take_zero)
    }
    fn total(&self) -> Option<E> {
        self.iter().cloned().reduce(crate::Accumulate::accumulate)
    }
    fn buffer(slot: &mut Option<Self>, len: usize) -> &mut [E] {
        let seq = slot.get_or_insert_with(Vec::new);
        if seq.len() < len {
            seq.resize_with(len, E::shapeless_zero);
        }
        seq
    }
}

/// `seq` (empty if `None`) long enough to hold element `i`, set to `value`. Out of line, and by
/// value: called from loops, it must neither keep `value` live across the allocation (float
/// registers do not survive a call) nor take the adjoint's address, either of which makes the
/// register allocator keep the loop's floats or the adjoint's fields in memory throughout.
#[cold]
#[inline(never)]
fn grown<E: ShapelessZero>(seq: Option<Vec<E>>, i: usize, value: E) -> Vec<E> {
    let mut seq = seq.unwrap_or_default();
    if seq.len() <= i {
        seq.resize_with(i + 1, E::shapeless_zero);
    }
    seq[i] = value;
    seq
}

/// Adds `value` to element `i` of the adjoint of a variable of type `C`.
#[inline(always)]
pub fn acc_at<C: crate::Differentiable>(
    slot: &mut Adj<C::Tangent>,
    _: &Option<Ty<C>>,
    i: usize,
    value: <C::Tangent as Seq>::Elem,
) where
    C::Tangent: Seq,
{
    <C::Tangent as Seq>::acc_at(&mut slot.0, i, value);
}

/// The adjoint of a local of type `C` lent to a call that writes it (`&mut v[a..b]`), as a
/// buffer as long as the local (`len`), for the callee's reverse sweep to update in place.
#[inline]
pub fn seq_buffer<'a, C: crate::Differentiable>(
    slot: &'a mut Adj<C::Tangent>,
    _: &Option<Ty<C>>,
    len: usize,
) -> &'a mut [<C::Tangent as LentBuffer>::Elem]
where
    C::Tangent: LentBuffer,
{
    <C::Tangent as LentBuffer>::lent_buffer(&mut slot.0, len)
}

/// The adjoint of a local lent to a call that writes it, as the buffer the callee's reverse
/// sweep updates: a sequence's elements, or a struct's tangent as a slice of one (implemented
/// by the derive).
pub trait LentBuffer: Adjoint<Repr = Option<Self>> {
    /// The adjoint of one element of the slice lent.
    type Elem;
    /// The buffer, at least `len` elements, zero where the adjoint had none.
    fn lent_buffer(slot: &mut Option<Self>, len: usize) -> &mut [Self::Elem];
}

impl<E: Adjoint + Clone + ShapelessZero> LentBuffer for Vec<E> {
    type Elem = E;
    #[inline]
    fn lent_buffer(slot: &mut Option<Self>, len: usize) -> &mut [E] {
        <Self as Seq>::buffer(slot, len)
    }
}

impl<E: Adjoint + Clone + ShapelessZero, const N: usize> LentBuffer for [E; N] {
    type Elem = E;
    #[inline]
    fn lent_buffer(slot: &mut Option<Self>, len: usize) -> &mut [E] {
        <Self as Seq>::buffer(slot, len)
    }
}

/// A struct's tangent lent as a slice of one element (`__private::LentBuffer` of a derived
/// tangent).
#[inline]
pub fn struct_lent_buffer<T: ShapelessZero>(slot: &mut Option<T>) -> &mut [T] {
    core::slice::from_mut(slot.get_or_insert_with(T::shapeless_zero))
}

/// Takes element `i` out of the adjoint of a variable of type `C`.
#[inline(always)]
pub fn take_at<C: crate::Differentiable>(
    slot: &mut Adj<C::Tangent>,
    _: &Option<Ty<C>>,
    i: usize,
) -> Option<<C::Tangent as Seq>::Elem>
where
    C::Tangent: Seq,
{
    <C::Tangent as Seq>::take_at(&mut slot.0, i)
}

/// Element `i` of the adjoint of a variable of type `C`, left in place.
#[inline(always)]
pub fn peek_at<C: crate::Differentiable>(
    slot: &Adj<C::Tangent>,
    _: &Option<Ty<C>>,
    i: usize,
) -> Option<<C::Tangent as Seq>::Elem>
where
    C::Tangent: Seq,
{
    slot.0.as_ref().and_then(|seq| seq.at(i))
}

/// Adds `value` to each of the first `len` elements of the adjoint of a variable of type `C`.
#[inline]
pub fn acc_each<C: crate::Differentiable>(
    slot: &mut Adj<C::Tangent>,
    _: &Option<Ty<C>>,
    len: usize,
    value: <C::Tangent as Seq>::Elem,
) where
    C::Tangent: Seq,
{
    for i in 0..len {
        <C::Tangent as Seq>::acc_at(&mut slot.0, i, value.clone());
    }
}

/// Adds element `i` of a sequence adjoint, if present, to an adjoint.
#[inline(always)]
pub fn acc_elem<S: Seq>(slot: &mut Adj<S::Elem>, seq: &S, i: usize) {
    if let Some(e) = seq.at(i) {
        acc(slot, e);
    }
}

/// Adds the sum of a sequence adjoint's elements to an adjoint.
#[inline]
pub fn acc_total<S: Seq>(slot: &mut Adj<S::Elem>, seq: &S) {
    if let Some(e) = seq.total() {
        acc(slot, e);
    }
}

/// The sum of a sequence of tangents (an array's, a `Vec`'s or a slice's), in order, for the
/// tangent of `iter().sum()`.
#[inline]
pub fn sum_tangent<E: crate::Accumulate + Clone>(seq: &[E], zero: E) -> E {
    seq.iter()
        .cloned()
        .fold(zero, crate::Accumulate::accumulate)
}

/// The adjoint buffer of a local `Vec` whose length is fixed for its whole life (see
/// `dense.rs` in the macro): `n` zeros of its element's tangent, one per element, read and
/// written by index like a slice parameter's buffer. The growable `Option<Vec>` that
/// [`Adj`] holds otherwise tests its tag and its length at every element it touches.
#[inline(always)]
pub fn dense<C: crate::Differentiable>(
    _: &Option<Ty<C>>,
    n: usize,
) -> Vec<<C::Tangent as Seq>::Elem>
where
    C::Tangent: Seq,
    <C::Tangent as Seq>::Elem: ShapelessZero,
{
    vec_repeat(ShapelessZero::shapeless_zero(), n)
}

/// The whole adjoint of a local `Vec` held in a buffer by [`dense`], taken out at its
/// declaration, where it goes to the value the `Vec` was made from.
#[inline(always)]
pub fn dense_take<E>(buffer: &mut Vec<E>) -> Option<Vec<E>> {
    Some(core::mem::take(buffer))
}

/// Adds `value` to element `i` of a slice's adjoint buffer.
#[inline(always)]
pub fn slice_acc_at<T: crate::Accumulate + ShapelessZero>(bar: &mut [T], i: usize, value: T) {
    bar[i] = take_zero(&mut bar[i]).accumulate(value);
}

/// Adds `value` to each of the first `len` elements of a slice's adjoint buffer.
#[inline]
pub fn slice_acc_each<T: crate::Accumulate + ShapelessZero + Clone>(
    bar: &mut [T],
    len: usize,
    value: T,
) {
    for b in &mut bar[..len] {
        *b = take_zero(b).accumulate(value.clone());
    }
}

/// Takes element `i` out of a slice's adjoint buffer, leaving zero: the adjoint of a value
/// stored there, which the values stored before do not share.
#[inline(always)]
pub fn slice_take_at<T: ShapelessZero>(bar: &mut [T], i: usize) -> Option<T> {
    Some(take_zero(&mut bar[i]))
}

/// Element `i` of a slice's adjoint buffer, left in place.
#[inline(always)]
pub fn slice_peek_at<T: Clone>(bar: &[T], i: usize) -> Option<T> {
    Some(bar[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adjoint_vec_grows_to_the_element_it_receives() {
        let mut slot: Option<Vec<f64>> = None;
        // A zero does not create the adjoint.
        <Vec<f64> as Seq>::acc_at(&mut slot, 3, 0.0);
        assert_eq!(slot, None);
        <Vec<f64> as Seq>::acc_at(&mut slot, 2, 1.5);
        assert_eq!(slot, Some(vec![0.0, 0.0, 1.5]));
        // Past the end: grown again, the elements there kept.
        <Vec<f64> as Seq>::acc_at(&mut slot, 4, -2.0);
        assert_eq!(slot, Some(vec![0.0, 0.0, 1.5, 0.0, -2.0]));
        // Inside: added to.
        <Vec<f64> as Seq>::acc_at(&mut slot, 2, 0.25);
        assert_eq!(slot, Some(vec![0.0, 0.0, 1.75, 0.0, -2.0]));
        assert_eq!(<Vec<f64> as Seq>::take_at(&mut slot, 2), Some(1.75));
        assert_eq!(<Vec<f64> as Seq>::take_at(&mut slot, 9), None);
        assert_eq!(slot, Some(vec![0.0, 0.0, 0.0, 0.0, -2.0]));
    }
}
