//! How the reverse sweep holds adjoints: zero until something is added, taken out once, and
//! typed like their variables.

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
    Vec<T> => [T: crate::Accumulate + crate::ShapelessZero],
    Option<T> => [T: crate::Accumulate],
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
pub struct Adj<T: Adjoint>(pub(super) T::Repr);

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

/// An adjoint of an argument, given the argument's zero adjoint: a `Vec` adjoint that the
/// reverse sweep built shorter is padded with zeros.
#[inline]
pub fn fit<T: Adjoint>(mut adjoint: Adj<T>, zero: T) -> T {
    match take(&mut adjoint) {
        Some(a) => zero.accumulate(a),
        None => zero,
    }
}

/// The adjoint of a value read through a reference: the adjoint itself where it has the
/// value's shape (every `Vec` as long as the value's), else added to a zero of the value.
/// Where a call reads a whole struct, its adjoint has the shape already and costs no zero.
#[inline]
pub fn fit_ref<T: crate::Differentiable>(mut adjoint: Adj<T::Tangent>, value: &T) -> T::Tangent
where
    T::Tangent: Adjoint,
{
    match take(&mut adjoint) {
        Some(a) if value.check_tangent(&a).is_ok() => a,
        Some(a) => crate::tangent::Accumulate::accumulate(value.zero_tangent(), a),
        None => value.zero_tangent(),
    }
}

/// A struct argument's adjoint after a call: what the reverse derivative returned, plus what
/// is left in its buffer of the adjoint the caller moved in (nothing, without a shape, where a
/// generated derivative took it; all of it where a reverse rule served the call).
#[inline(always)]
pub fn merge_seed<T: crate::Accumulate + crate::ShapelessZero>(adjoint: T, store: &mut T) -> T {
    let seed = core::mem::replace(store, T::shapeless_zero());
    seed.accumulate(adjoint)
}

/// The adjoint a caller moved into a generated derivative for a struct by reference, taken
/// out of its buffer to start the struct's adjoint from.
#[inline(always)]
pub fn seeded<T: Adjoint + crate::ShapelessZero>(bar: &mut T) -> Adj<T> {
    let mut adjoint = Adj::default();
    T::add_to(&mut adjoint.0, core::mem::replace(bar, T::shapeless_zero()));
    adjoint
}

/// What a caller moves into a call for a struct by reference: the adjoint it holds for the
/// argument's place so far, taken out and left zero.
#[inline(always)]
pub fn take_seed<T: crate::ShapelessZero>(place: &mut T) -> T {
    core::mem::replace(place, T::shapeless_zero())
}

/// An adjoint taken out, zero without a shape where it had none.
#[inline(always)]
pub fn take_or_shapeless<T: Adjoint + crate::ShapelessZero>(slot: &mut Adj<T>) -> T {
    take(slot).unwrap_or_else(T::shapeless_zero)
}

/// What a generated derivative moves into a call for an argument whose adjoint it holds at
/// `place` (of type `T`), as the callee's [`Param::Seed`](crate::Param::Seed) has it: the
/// adjoint itself, taken out, for a struct by reference (implemented for each derived tangent);
/// nothing, and the adjoint left where it is, for the other kinds (a receiver taken by value).
pub trait MakeSeed<T>: Sized {
    /// From an adjoint in place.
    fn make(place: &mut T) -> Self;
    /// From a variable's adjoint.
    fn make_from_adj(slot: &mut Adj<T>) -> Self
    where
        T: Adjoint;
}

impl<T> MakeSeed<T> for () {
    #[inline(always)]
    fn make(_: &mut T) {}
    #[inline(always)]
    fn make_from_adj(_: &mut Adj<T>)
    where
        T: Adjoint,
    {
    }
}

/// Ties the type of a record's slot to the record's: a slot that only names the type the
/// reverse sweep pops (a record in a loop) is never written.
#[inline(always)]
pub fn same_type<T>(_slot: &Option<T>, _record: &T) {}

/// An adjoint, typed as the tangent of the type that `slot` names: the reverse sweep reads
/// fields of it before anything else has told its type.
#[inline(always)]
pub fn tangent_of_ty<C: crate::Differentiable>(g: C::Tangent, _slot: &Option<Ty<C>>) -> C::Tangent {
    g
}

/// The type of a value, for tying an adjoint's type to its variable's.
pub type Ty<T> = core::marker::PhantomData<fn() -> T>;

/// The [`Ty`] of a value.
#[inline(always)]
pub fn type_of<T>(_: &T) -> Ty<T> {
    core::marker::PhantomData
}

/// `value`, typed like `like`: a literal operand written again in the reverse sweep takes the
/// float type of the adjoint it meets.
#[inline(always)]
pub fn typed_as<T>(_like: T, value: T) -> T {
    value
}

/// The value inside a `Some` that a pattern `Some(..)` matched, and its tangent: generated code
/// reads it only where the pattern matched, and a tangent has its value's variant.
#[inline(always)]
#[track_caller]
pub fn payload<T>(value: Option<T>) -> T {
    match value {
        Some(v) => v,
        None => unreachable!("a `Some` matched by its pattern"),
    }
}

/// Adds `value` to an adjoint held as an `Option` (`None` while zero): what
/// `#[derive(ad::Differentiable)]` gives a tangent struct as its [`Adjoint`] impl.
#[inline(always)]
pub fn add_optional<T: crate::Accumulate>(repr: &mut Option<T>, value: T) {
    if crate::Accumulate::is_zero_adjoint(&value) {
        return;
    }
    *repr = Some(match repr.take() {
        Some(sum) => crate::Accumulate::accumulate(sum, value),
        None => value,
    });
}

/// Checks that `T` has a tangent: `#[derive(ad::Differentiable)]` calls it at each field, so
/// that a field type without one is an error at that field.
#[inline(always)]
pub fn assert_differentiable<T: crate::Differentiable + ?Sized>() {}

/// A shape mismatch inside a field or an element, its path prefixed with `prefix` (`.w`).
pub fn shape_within(e: crate::ShapeMismatch, prefix: &str) -> crate::ShapeMismatch {
    crate::ShapeMismatch {
        path: format!("{prefix}{}", e.path),
        ..e
    }
}

/// The shapeless zero tangent ([`ShapelessZero`](crate::ShapelessZero)) of the type a [`Ty`] names: the reverse
/// sweep of a struct's field starts the struct's adjoint from it, having kept only the type.
#[inline(always)]
pub fn zero_of<T: crate::Differentiable>(_: Ty<T>) -> T::Tangent {
    crate::ShapelessZero::shapeless_zero()
}

/// Adds `g` to element `i` of a field (`field` picks it, `|t| &mut t.w`) of the adjoint of a
/// struct of type `C` (the witness, which types the closure), for the reverse sweep of `s.w[i]` read in place. The adjoint is made where it is
/// zero, without a shape, and the field given its shape, `len` elements, at its first
/// contribution: no copy of the field, and no zero of its length per read.
#[inline(always)]
pub fn acc_field_elem<C: crate::Differentiable, S: ElemSeq>(
    slot: &mut Adj<C::Tangent>,
    _: Ty<C>,
    field: impl FnOnce(&mut C::Tangent) -> &mut S,
    len: usize,
    i: usize,
    g: S::Elem,
) where
    C::Tangent: Adjoint<Repr = Option<C::Tangent>> + crate::ShapelessZero,
{
    type T<C> = <C as crate::Differentiable>::Tangent;
    let adjoint = slot
        .0
        .get_or_insert_with(<T<C> as crate::ShapelessZero>::shapeless_zero);
    field(adjoint).add_at(len, i, g);
}

/// The adjoint of element `i` of a struct's field (`field` of the struct's adjoint), taken out
/// and left zero: where the element was written (`s.w[i] = v`), its adjoint goes to `v` and
/// the element before the write receives nothing from what came after. `None` where the
/// struct or the element has no adjoint yet.
#[inline(always)]
pub fn take_field_at<C: crate::Differentiable, S: ElemSeq>(
    slot: &mut Adj<C::Tangent>,
    _: Ty<C>,
    field: impl FnOnce(&mut C::Tangent) -> &mut S,
    i: usize,
) -> Option<S::Elem>
where
    C::Tangent: Adjoint<Repr = Option<C::Tangent>>,
{
    field(slot.0.as_mut()?).take_at(i)
}

/// The adjoint at a place of a struct's adjoint (`layers[l].b`), taken out and left zero:
/// where the place was written, its adjoint goes to the value stored. `None` where the struct
/// has no adjoint yet.
#[inline(always)]
pub fn take_place<C: crate::Differentiable, P: crate::ShapelessZero>(
    slot: &mut Adj<C::Tangent>,
    _: Ty<C>,
    place: impl FnOnce(&mut C::Tangent) -> &mut P,
) -> Option<P>
where
    C::Tangent: Adjoint<Repr = Option<C::Tangent>>,
{
    Some(core::mem::replace(
        place(slot.0.as_mut()?),
        P::shapeless_zero(),
    ))
}

/// The adjoint of a field (`field` picks it) of the adjoint of a struct of type `C`, taken out
/// and left zero: the reverse sweep adds to it as a buffer ([`ElemSeq::dense`]) while the
/// field's elements are read in place, and adds it back at the end ([`field_back`]).
#[inline(always)]
pub fn field_out<C: crate::Differentiable, S: ElemSeq>(
    slot: &mut Adj<C::Tangent>,
    _: Ty<C>,
    field: impl FnOnce(&mut C::Tangent) -> &mut S,
) -> S
where
    C::Tangent: Adjoint<Repr = Option<C::Tangent>>,
{
    match slot.0.as_mut() {
        Some(adjoint) => core::mem::replace(field(adjoint), crate::ShapelessZero::shapeless_zero()),
        None => crate::ShapelessZero::shapeless_zero(),
    }
}

/// Adds a field's adjoint taken out by [`field_out`] back into the struct's adjoint: a move
/// where nothing else was added to the field meanwhile.
#[inline(always)]
pub fn field_back<C: crate::Differentiable, S: ElemSeq>(
    slot: &mut Adj<C::Tangent>,
    _: Ty<C>,
    field: impl FnOnce(&mut C::Tangent) -> &mut S,
    value: S,
) where
    C::Tangent: Adjoint<Repr = Option<C::Tangent>> + crate::ShapelessZero,
{
    type T<C> = <C as crate::Differentiable>::Tangent;
    let adjoint = slot
        .0
        .get_or_insert_with(<T<C> as crate::ShapelessZero>::shapeless_zero);
    let place = field(adjoint);
    let old = core::mem::replace(place, crate::ShapelessZero::shapeless_zero());
    *place = crate::Accumulate::accumulate(old, value);
}

/// Element `i` of the adjoint of a field on the way to a field read further
/// (`layers[i]` of `s.layers[i].w[j]`), the adjoint given the field's length `len` first.
#[inline(always)]
pub fn elem_mut<S: ElemSeq>(seq: &mut S, len: usize, i: usize) -> &mut S::Elem {
    seq.elem_mut(len, i)
}

/// The adjoint of a field read element by element: a `Vec` (shaped at its first element) or
/// an array.
pub trait ElemSeq: crate::Accumulate + crate::ShapelessZero {
    type Elem: crate::Accumulate + crate::ShapelessZero;
    /// The elements, the adjoint given `len` elements first.
    fn dense(&mut self, len: usize) -> &mut [Self::Elem];
    /// Element `i`, the adjoint given `len` elements first.
    fn elem_mut(&mut self, len: usize, i: usize) -> &mut Self::Elem;
    /// Element `i`, taken out and left zero; `None` where the adjoint is shorter.
    fn take_at(&mut self, i: usize) -> Option<Self::Elem>;
    /// Adds `g` to element `i`, the adjoint given `len` elements first.
    #[inline(always)]
    fn add_at(&mut self, len: usize, i: usize, g: Self::Elem) {
        let e = self.elem_mut(len, i);
        let old = core::mem::replace(e, crate::ShapelessZero::shapeless_zero());
        *e = crate::Accumulate::accumulate(old, g);
    }
}

impl<E: crate::Accumulate + crate::ShapelessZero> ElemSeq for Vec<E> {
    type Elem = E;
    #[inline(always)]
    fn dense(&mut self, len: usize) -> &mut [E] {
        if self.len() != len {
            self.resize_with(len, E::shapeless_zero);
        }
        self
    }
    #[inline(always)]
    fn elem_mut(&mut self, len: usize, i: usize) -> &mut E {
        if self.len() != len {
            self.resize_with(len, E::shapeless_zero);
        }
        &mut self[i]
    }
    #[inline(always)]
    fn take_at(&mut self, i: usize) -> Option<E> {
        self.get_mut(i)
            .map(|e| core::mem::replace(e, E::shapeless_zero()))
    }
}

impl<E: crate::Accumulate + crate::ShapelessZero, const N: usize> ElemSeq for [E; N] {
    type Elem = E;
    #[inline(always)]
    fn dense(&mut self, _: usize) -> &mut [E] {
        self
    }
    #[inline(always)]
    fn elem_mut(&mut self, _: usize, i: usize) -> &mut E {
        &mut self[i]
    }
    #[inline(always)]
    fn take_at(&mut self, i: usize) -> Option<E> {
        Some(core::mem::replace(&mut self[i], E::shapeless_zero()))
    }
}
