//! Helpers for the code that the macros generate. Not a public API.
//!
//! Generated code reaches everything generic through methods of [`Function`](crate::Function),
//! so that a mistake in the user's code is reported on the user's tokens, naming a public trait,
//! never a hidden helper.

use core::any::Any;

/// The identity of a callee in the callee list of a generated derivative, at the instantiation
/// that the arguments `A` make (the macro writes `A` from the arguments' declared types, so that
/// a generic callee called without a turbofish is named). A call whose arguments do not fit
/// its callee falls back, by autoref, to [`CalleeOther`]: an identity the check skips, and no
/// second error for the call the user wrote wrong (rustc reports it in the user's function).
pub struct CalleeOf<F, A>(core::marker::PhantomData<fn() -> (F, A)>);

impl<F, A> CalleeOf<F, A> {
    #[inline]
    pub fn of(_: &F) -> Self {
        CalleeOf(core::marker::PhantomData)
    }

    /// At the argument types a [`Witness`] gives.
    #[inline]
    pub fn of_witness<W: Witness<Args = A>>(_: &F, _: W) -> Self {
        CalleeOf(core::marker::PhantomData)
    }
}

/// The types of a call's arguments, each as a `PhantomData`: declared, of a literal
/// ([`ty_of`]), or left to inference (`PhantomData<_>`).
pub trait Witness {
    type Args;
}

macro_rules! witness {
    ($($a:ident)*) => {
        impl<$($a),*> Witness for ($(core::marker::PhantomData<$a>,)*) {
            type Args = ($($a,)*);
        }
    };
}

witness!();
witness!(A0);
witness!(A0 A1);
witness!(A0 A1 A2);
witness!(A0 A1 A2 A3);
witness!(A0 A1 A2 A3 A4);
witness!(A0 A1 A2 A3 A4 A5);
witness!(A0 A1 A2 A3 A4 A5 A6);
witness!(A0 A1 A2 A3 A4 A5 A6 A7);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15);

/// The type of a literal written as an argument, as rustc gives it there.
#[inline(always)]
pub fn ty_of<T>(_: T) -> core::marker::PhantomData<T> {
    core::marker::PhantomData
}

/// [`CalleeOf`] where `F` is a function of `A`.
pub trait CalleeExact {
    fn info(&self, address: usize) -> crate::registry::FnInfo;
}

impl<F: crate::Function<A>, A> CalleeExact for CalleeOf<F, A> {
    fn info(&self, address: usize) -> crate::registry::FnInfo {
        crate::registry::FnInfo {
            key: core::any::TypeId::of::<F>(),
            ptr_type: core::any::TypeId::of::<F::Ptr>(),
            name: core::any::type_name::<F>(),
            address,
            buffers: F::BUFFERS,
        }
    }
}

/// [`CalleeOf`] where the arguments do not fit `F`.
pub trait CalleeOther {
    fn info(&self, address: usize) -> crate::registry::FnInfo;
}

impl<F, A> CalleeOther for &CalleeOf<F, A> {
    fn info(&self, _: usize) -> crate::registry::FnInfo {
        crate::registry::absent().0
    }
}

/// Erases a loaded rule for the registry.
pub fn boxed<T: Any + Send + Sync>(rule: T) -> Box<dyn Any + Send + Sync> {
    Box::new(rule)
}

/// The zero tangent of a value whose tangent the generated code needs but never computed.
#[inline(always)]
pub fn zero<T: crate::Differentiable>(value: &T) -> T::Tangent {
    value.zero_tangent()
}

/// The zero tangent of an argument passed without one to a differentiable callee: its
/// parameter kind's zero (`NoTangent` for an `ad::Const` slice).
#[inline(always)]
pub fn zero_shadow<T: crate::Param>(value: &T) -> T::Shadow {
    value.zero_shadow()
}

/// How the reverse sweep holds an adjoint while it builds it.
///
/// A float is held as itself, zero until something is added: no tag to test on each
/// contribution. Any other tangent is held as an `Option`, `None` while zero, since its shape (a
/// `Vec`'s length) is not known before its first contribution. Either way an adjoint that is
/// exactly zero when taken is no adjoint: no partial derivative is multiplied by it (an infinite
/// one, `sqrt` at 0, would make a NaN out of nothing). A product's pullback takes it with
/// `take_linear` and makes each partial -0 where it is zero instead (`Scalar::mul_l_nz`).
pub trait Adjoint: crate::Accumulate + Sized {
    /// What holds the adjoint.
    type Repr;
    /// The holder of a zero adjoint.
    fn empty() -> Self::Repr;
    /// Adds `value` to the adjoint held.
    fn add_to(repr: &mut Self::Repr, value: Self);
    /// Takes the adjoint out, leaving zero; `None` if it is zero.
    fn take(repr: &mut Self::Repr) -> Option<Self>;
    /// Takes the adjoint out, leaving zero, for an instruction that only adds it (or its
    /// negative) to other adjoints, or multiplies it with a guard for zero (`Scalar::mul_l_nz`):
    /// a zero adds zeros, which change nothing, so `None` only where the holder cannot make a
    /// zero (an `Option` without a shape).
    #[inline(always)]
    fn take_linear(repr: &mut Self::Repr) -> Option<Self> {
        Self::take(repr)
    }
}

macro_rules! float_adjoint {
    ($($t:ty)*) => {$(
        impl Adjoint for $t {
            type Repr = $t;
            /// Zero held as -0, the identity of `+` (`-0 + v` is `v` for every `v`, `+0 + -0`
            /// is not), so that rustc drops the first addition to an adjoint.
            #[inline(always)]
            fn empty() -> $t {
                -0.0
            }
            #[inline(always)]
            fn add_to(repr: &mut $t, value: $t) {
                *repr += value;
            }
            #[inline(always)]
            fn take(repr: &mut $t) -> Option<$t> {
                let g = core::mem::replace(repr, -0.0);
                if g == 0.0 { None } else { Some(g) }
            }
            #[inline(always)]
            fn take_linear(repr: &mut $t) -> Option<$t> {
                Some(core::mem::replace(repr, -0.0))
            }
        }
    )*};
}
float_adjoint!(f32 f64);

impl Adjoint for crate::NoTangent {
    type Repr = crate::NoTangent;
    #[inline(always)]
    fn empty() -> crate::NoTangent {
        crate::NoTangent
    }
    #[inline(always)]
    fn add_to(_: &mut crate::NoTangent, _: crate::NoTangent) {}
    #[inline(always)]
    fn take(_: &mut crate::NoTangent) -> Option<crate::NoTangent> {
        None
    }
}

macro_rules! optional_adjoint {
    ($($ty:ty => [$($generics:tt)*]),*) => {$(
        impl<$($generics)*> Adjoint for $ty {
            type Repr = Option<Self>;
            #[inline(always)]
            fn empty() -> Option<Self> {
                None
            }
            #[inline(always)]
            fn add_to(repr: &mut Option<Self>, value: Self) {
                if crate::Accumulate::is_zero_adjoint(&value) {
                    return;
                }
                *repr = Some(match repr.take() {
                    Some(sum) => crate::Accumulate::accumulate(sum, value),
                    None => value,
                });
            }
            #[inline(always)]
            fn take(repr: &mut Option<Self>) -> Option<Self> {
                repr.take()
            }
        }
    )*};
}
optional_adjoint!(
    [T; N] => [T: crate::Accumulate, const N: usize],
    Vec<T> => [T: crate::Accumulate],
    (A,) => [A: crate::Accumulate],
    (A, B) => [A: crate::Accumulate, B: crate::Accumulate],
    (A, B, C) => [A: crate::Accumulate, B: crate::Accumulate, C: crate::Accumulate],
    (A, B, C, D) => [A: crate::Accumulate, B: crate::Accumulate, C: crate::Accumulate, D: crate::Accumulate],
    (A, B, C, D, E) => [A: crate::Accumulate, B: crate::Accumulate, C: crate::Accumulate, D: crate::Accumulate, E: crate::Accumulate],
    (A, B, C, D, E, F) => [A: crate::Accumulate, B: crate::Accumulate, C: crate::Accumulate, D: crate::Accumulate, E: crate::Accumulate, F: crate::Accumulate],
    (A, B, C, D, E, F, G) => [A: crate::Accumulate, B: crate::Accumulate, C: crate::Accumulate, D: crate::Accumulate, E: crate::Accumulate, F: crate::Accumulate, G: crate::Accumulate],
    (A, B, C, D, E, F, G, H) => [A: crate::Accumulate, B: crate::Accumulate, C: crate::Accumulate, D: crate::Accumulate, E: crate::Accumulate, F: crate::Accumulate, G: crate::Accumulate, H: crate::Accumulate]
);

/// The adjoint of a value or variable of the reverse sweep, as [`Adjoint`] holds it.
pub struct Adj<T: Adjoint>(T::Repr);

impl<T: Adjoint> Default for Adj<T> {
    #[inline(always)]
    fn default() -> Self {
        Adj(T::empty())
    }
}

/// Adds `value` to an adjoint.
#[inline(always)]
pub fn acc<T: Adjoint>(slot: &mut Adj<T>, value: T) {
    T::add_to(&mut slot.0, value);
}

/// Takes an adjoint out, leaving zero; `None` if it is zero.
#[inline(always)]
pub fn take<T: Adjoint>(slot: &mut Adj<T>) -> Option<T> {
    T::take(&mut slot.0)
}

/// Takes an adjoint out, leaving zero, for an instruction that only adds `±` it to other
/// adjoints or multiplies it with a guard for zero (see [`Adjoint::take_linear`]).
#[inline(always)]
pub fn take_linear<T: Adjoint>(slot: &mut Adj<T>) -> Option<T> {
    T::take_linear(&mut slot.0)
}

/// The witness of variable number `N` of a generated reverse derivative.
#[derive(Clone, Copy)]
pub struct Binding<const N: usize>;

/// Holds when a read finds the binding the macro means (see `same_binding`).
#[diagnostic::on_unimplemented(
    message = "#[differentiable] cannot tell apart two variables of this name",
    label = "this name stands for two different variables here",
    note = "the function declares one name in two macro contexts (say a `macro_rules!` parameter and a local of the macro), and reverse mode tells variables apart by name: rename one of them"
)]
pub trait SameBinding<T> {}

impl<const N: usize> SameBinding<Binding<N>> for Binding<N> {}

impl<const N: usize> Binding<N> {
    /// Checks, at compile time, that this witness (the one rustc resolves a name to) is that of
    /// binding `A`, the one the macro means.
    #[inline(always)]
    pub fn same_as<A: SameBinding<Self>>(&self) {}
}

/// The type of a value, for tying an adjoint's type to its variable's.
pub type Ty<T> = core::marker::PhantomData<fn() -> T>;

/// The [`Ty`] of a value.
#[inline(always)]
pub fn type_of<T>(_: &T) -> Ty<T> {
    core::marker::PhantomData
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

impl<E: Adjoint + Clone + Default, const N: usize> Seq for [E; N] {
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
        let seq = slot.get_or_insert_with(|| core::array::from_fn(|_| E::default()));
        seq[i] = core::mem::take(&mut seq[i]).accumulate(value);
    }
    #[inline(always)]
    fn take_at(slot: &mut Option<Self>, i: usize) -> Option<E> {
        slot.as_mut().map(|seq| core::mem::take(&mut seq[i]))
    }
    fn total(&self) -> Option<E> {
        self.iter().cloned().reduce(crate::Accumulate::accumulate)
    }
    fn buffer(slot: &mut Option<Self>, _: usize) -> &mut [E] {
        slot.get_or_insert_with(|| core::array::from_fn(|_| E::default()))
    }
}

/// An adjoint `Vec` grows as elements receive contributions; missing elements are zero.
impl<E: Adjoint + Clone + Default> Seq for Vec<E> {
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
            *e = core::mem::take(e).accumulate(value);
            return;
        }
        if value.is_zero_adjoint() {
            return;
        }
        *slot = Some(grown(slot.take(), i, value));
    }
    #[inline(always)]
    fn take_at(slot: &mut Option<Self>, i: usize) -> Option<E> {
        slot.as_mut()
            .and_then(|seq| seq.get_mut(i))
            .map(core::mem::take)
    }
    fn total(&self) -> Option<E> {
        self.iter().cloned().reduce(crate::Accumulate::accumulate)
    }
    fn buffer(slot: &mut Option<Self>, len: usize) -> &mut [E] {
        let seq = slot.get_or_insert_with(Vec::new);
        if seq.len() < len {
            seq.resize_with(len, E::default);
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
fn grown<E: Default>(seq: Option<Vec<E>>, i: usize, value: E) -> Vec<E> {
    let mut seq = seq.unwrap_or_default();
    if seq.len() <= i {
        seq.resize_with(i + 1, E::default);
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
) -> &'a mut [<C::Tangent as Seq>::Elem]
where
    C::Tangent: Seq,
{
    <C::Tangent as Seq>::buffer(&mut slot.0, len)
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

/// An adjoint of an argument, given the argument's zero adjoint: a `Vec` adjoint that the
/// reverse sweep built shorter is padded with zeros.
#[inline]
pub fn fit<T: Adjoint>(mut adjoint: Adj<T>, zero: T) -> T {
    match take(&mut adjoint) {
        Some(a) => zero.accumulate(a),
        None => zero,
    }
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
    <C::Tangent as Seq>::Elem: Default,
{
    vec_repeat(Default::default(), n)
}

/// The whole adjoint of a local `Vec` held in a buffer by [`dense`], taken out at its
/// declaration, where it goes to the value the `Vec` was made from.
#[inline(always)]
pub fn dense_take<E>(buffer: &mut Vec<E>) -> Option<Vec<E>> {
    Some(core::mem::take(buffer))
}

/// Adds `value` to element `i` of a slice's adjoint buffer.
#[inline(always)]
pub fn slice_acc_at<T: crate::Accumulate + Default>(bar: &mut [T], i: usize, value: T) {
    bar[i] = core::mem::take(&mut bar[i]).accumulate(value);
}

/// Adds `value` to each of the first `len` elements of a slice's adjoint buffer.
#[inline]
pub fn slice_acc_each<T: crate::Accumulate + Default + Clone>(bar: &mut [T], len: usize, value: T) {
    for b in &mut bar[..len] {
        *b = core::mem::take(b).accumulate(value.clone());
    }
}

/// Takes element `i` out of a slice's adjoint buffer, leaving zero: the adjoint of a value
/// stored there, which the values stored before do not share.
#[inline(always)]
pub fn slice_take_at<T: Default>(bar: &mut [T], i: usize) -> Option<T> {
    Some(core::mem::take(&mut bar[i]))
}

/// Element `i` of a slice's adjoint buffer, left in place.
#[inline(always)]
pub fn slice_peek_at<T: Clone>(bar: &[T], i: usize) -> Option<T> {
    Some(bar[i].clone())
}

/// `value`, typed like `like`: a literal operand written again in the reverse sweep takes the
/// float type of the adjoint it meets.
#[inline(always)]
pub fn typed_as<T>(_like: T, value: T) -> T {
    value
}

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

/// A local lent to a function that writes it (`f(&mut v[a..b])`): a `Vec` or an array (or the
/// tangent or copy of one, or an output slice), seen as the slice the function gets.
#[diagnostic::on_unimplemented(
    message = "#[differentiable] lends `{Self}` to a function that writes it, which it can do for a `Vec` or an array only",
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

/// `start + n` in the type of `start`: the end of a replayed loop's range, counted from its
/// start and its trip count.
#[inline(always)]
pub fn offset<T>(start: T, n: usize) -> T
where
    T: Copy + core::ops::Add<Output = T> + TryFrom<usize>,
{
    match T::try_from(n) {
        Ok(n) => start + n,
        Err(_) => unreachable!("ad: a loop ran more times than its counter's type can count"),
    }
}

/// `vec![elem; n]` for generated code, with the buffer allocated here, in line. Inside a large
/// generated function, the optimiser leaves `vec!`'s allocation out of line, and then knows
/// nothing of where the buffer points: a loop that reads one local `Vec` and writes another
/// reloads what it reads after every store and is not vectorised (GMM's triangular product).
/// Allocated in sight, the buffer overlaps no other, as in the primal function.
#[inline(always)]
pub fn vec_repeat<T: Clone>(elem: T, n: usize) -> Vec<T> {
    let layout = match core::alloc::Layout::array::<T>(n) {
        Ok(layout) if layout.size() > 0 => layout,
        // Empty, of a zero-sized type, or too large (which `vec!` reports).
        _ => return vec![elem; n],
    };
    // SAFETY: the layout's size is not zero.
    let buffer = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if buffer.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    for i in 0..n - 1 {
        // SAFETY: `i < n`: within the buffer, each element written once. If `clone` panics, the
        // buffer and the elements written leak, which is safe.
        unsafe { buffer.add(i).write(elem.clone()) };
    }
    // SAFETY: the last element (`n > 0`, since the size is not zero); then all `n` elements are
    // written, in a buffer the global allocator gave with the layout of `n` elements of `T`.
    unsafe {
        buffer.add(n - 1).write(elem);
        Vec::from_raw_parts(buffer, n, n)
    }
}

/// How many words a record like the one in `slot` takes on the tape, or 0 if that varies (such
/// a record is then pushed without the room a loop makes for its records).
#[inline(always)]
pub fn tape_words<T: crate::tape::Tapeable>(_slot: &Option<T>) -> usize {
    T::WORDS.unwrap_or(0)
}

/// The value in iteration `k` of a counter that starts at `start` and each iteration advances by
/// `step`: what the forward sweep computed, whether its additions wrapped or were checked.
#[inline(always)]
pub fn counter_up(start: usize, k: usize, step: usize) -> usize {
    start.wrapping_add(k.wrapping_mul(step))
}

/// The value in iteration `k` of a counter that starts at `start` and each iteration goes back
/// by `step`.
#[inline(always)]
pub fn counter_down(start: usize, k: usize, step: usize) -> usize {
    start.wrapping_sub(k.wrapping_mul(step))
}

/// The sum of no items of the iterator `_chain`, which is built but never run: the value an
/// accumulator of `chain.sum()` starts from, of the type of the chain's items.
pub fn sum_zero<I: Iterator>(_chain: &I) -> I::Item
where
    I::Item: core::iter::Sum<I::Item>,
{
    core::iter::empty().sum()
}

/// The product of no items of the iterator `_chain`, built but never run: where an
/// accumulator of `chain.product()` starts.
pub fn product_one<I: Iterator>(_chain: &I) -> I::Item
where
    I::Item: core::iter::Product<I::Item>,
{
    core::iter::empty().product()
}

/// As [`sum_zero`], for a chain of references to the elements (`a.iter().rev().sum()`): the
/// sum of no elements, of the elements' type.
pub fn sum_zero_ref<'a, I, T>(_chain: &I) -> T
where
    I: Iterator<Item = &'a T>,
    T: core::iter::Sum<T> + 'a,
{
    core::iter::empty().sum()
}

/// As [`product_one`], for a chain of references to the elements.
pub fn product_one_ref<'a, I, T>(_chain: &I) -> T
where
    I: Iterator<Item = &'a T>,
    T: core::iter::Product<T> + 'a,
{
    core::iter::empty().product()
}

/// Which elements a `filter` of an iterator chain keeps, by position among the elements the
/// loop visits: `keep` of each item of `items` (the chain before the `filter`, run as the
/// function runs it). With `before`, the mask of an earlier `filter` of the same chain, `items`
/// yields only the items that one kept, so the mask is `false` where it dropped the element.
/// The predicate decides which items count; its result carries no derivative.
pub fn filter_mask<I, P>(before: Option<&[bool]>, mut items: I, mut keep: P) -> Vec<bool>
where
    I: Iterator,
    P: FnMut(&I::Item) -> bool,
{
    match before {
        None => items.map(|item| keep(&item)).collect(),
        Some(before) => before
            .iter()
            .map(|&kept| match kept {
                true => items.next().is_some_and(|item| keep(&item)),
                false => false,
            })
            .collect(),
    }
}

/// How many elements a mask of `filter_mask` keeps.
pub fn kept(mask: &[bool]) -> usize {
    mask.iter().filter(|k| **k).count()
}

/// The first item of an iterator chain, run as the function runs it: where the best value of
/// `min_by` or `max_by` starts, of the type of the chain's items (the loop then takes the first
/// item again, with its derivative). Panics for an empty chain, as `.unwrap()` of its `None`
/// does.
pub fn first_item<I: Iterator>(mut chain: I) -> I::Item {
    match chain.next() {
        Some(item) => item,
        None => panic!("called `Option::unwrap()` on a `None` value"),
    }
}

/// `n` copies of the first item of an iterator chain (none for `n = 0`): the `Vec` that a loop
/// then writes item by item, with their derivatives, for `collect`.
pub fn vec_like<I: Iterator>(mut chain: I, n: usize) -> Vec<I::Item>
where
    I::Item: Clone,
{
    match (n, chain.next()) {
        (0, _) | (_, None) => Vec::new(),
        (n, Some(first)) => vec![first; n],
    }
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

    #[test]
    fn vec_repeat_makes_what_vec_makes() {
        for n in [0, 1, 2, 7] {
            assert_eq!(vec_repeat(1.5f64, n), vec![1.5f64; n]);
            assert_eq!(vec_repeat(-0.0f32, n), vec![-0.0f32; n]);
            assert_eq!(vec_repeat([0.5, 2.0], n), vec![[0.5, 2.0]; n]);
            assert_eq!(
                vec_repeat(String::from("ab"), n),
                vec![String::from("ab"); n]
            );
            assert_eq!(vec_repeat((), n), vec![(); n]);
            let v = vec_repeat(0.0f64, n);
            assert_eq!((v.len(), v.capacity()), (n, n));
        }
        // The zeros keep their sign bits.
        assert!(vec_repeat(-0.0f64, 3).iter().all(|z| z.is_sign_negative()));
        assert!(vec_repeat(-0.0f32, 3).iter().all(|z| z.is_sign_negative()));
    }

    #[test]
    fn vec_repeat_unwinds_from_a_panicking_clone() {
        use std::cell::Cell;
        use std::rc::Rc;
        // Clones and drops counted; the third clone panics.
        struct Fragile(Rc<Cell<(usize, usize)>>);
        impl Clone for Fragile {
            fn clone(&self) -> Self {
                let (clones, drops) = self.0.get();
                assert!(clones < 2, "the third clone fails");
                self.0.set((clones + 1, drops));
                Fragile(self.0.clone())
            }
        }
        impl Drop for Fragile {
            fn drop(&mut self) {
                let (clones, drops) = self.0.get();
                self.0.set((clones, drops + 1));
            }
        }
        let counts = Rc::new(Cell::new((0, 0)));
        let elem = Fragile(counts.clone());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| vec_repeat(elem, 5)));
        assert!(result.is_err());
        // The element given is dropped once; the two clones written are leaked, never dropped
        // (no drop of an element not written, none twice).
        assert_eq!(counts.get(), (2, 1));
        assert_eq!(Rc::strong_count(&counts), 3);
    }

    #[test]
    fn vec_repeat_clones_each_element_but_the_last() {
        use std::cell::Cell;
        use std::rc::Rc;
        let clones = Rc::new(Cell::new(0));
        #[derive(Debug)]
        struct Counted(Rc<Cell<usize>>);
        impl Clone for Counted {
            fn clone(&self) -> Self {
                self.0.set(self.0.get() + 1);
                Counted(self.0.clone())
            }
        }
        let v = vec_repeat(Counted(clones.clone()), 5);
        assert_eq!((v.len(), clones.get()), (5, 4));
        drop(v);
        // Each element dropped once: only this handle is left.
        assert_eq!(Rc::strong_count(&clones), 1);
    }

    #[test]
    #[should_panic(expected = "capacity overflow")]
    fn vec_repeat_too_long_panics_as_vec_does() {
        let _ = vec_repeat(0u64, usize::MAX);
    }
}
