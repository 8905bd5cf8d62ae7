//! The `Param` trait: how a parameter type names its kind and converts the caller's values.

use super::Tan;
use super::kinds::{Arg, ArrayRef, Dup, DupMut, Slice, SliceMut};
use crate::tangent::{Differentiable, Linear, NoTangent, ShapeMismatch};

/// A parameter type of a differentiable function: a value type, `&[E]` or `&mut [E]`. It names
/// the argument's [`Arg`] kind and converts the caller's values, at the caller's lifetime, into
/// the kind's types at the rule's.
///
/// ```
/// use ad::Param;
/// let w = vec![1.0, 2.0];
/// let grad: Vec<f64> = <&[f64] as Param>::store(&&w[..]);
/// assert_eq!(grad, vec![0.0, 0.0]);
/// ```
pub trait Param: Sized {
    /// The argument's kind.
    type Marker: Arg;
    /// Its tangent as `jvp` takes it: `Tan<T>`, `&[Tan<E>]`, `&mut [Tan<E>]`.
    type Shadow;
    /// Its adjoint buffer as the lower-level reverse entry point takes it: `()` for a value,
    /// `&mut [Tan<E>]` for a slice.
    type Bar;
    /// The adjoint buffer `grad` allocates for it: `()` for a value, `Vec<Tan<E>>` for a slice.
    type Store;
    /// What `grad` returns for it: `Tan<T>` for a value, `Vec<Tan<E>>` for a slice.
    type Grad;
    /// What a generated derivative moves into a call of the function for it: the adjoint it
    /// holds so far for a struct by reference, `()` for the others.
    #[doc(hidden)]
    type Seed;

    /// The argument at the rule's lifetime.
    fn into_ref<'s>(self) -> <Self::Marker as Arg>::Ref<'s>
    where
        Self: 's;
    /// The tangent at the rule's lifetime.
    fn shadow_into<'s>(shadow: Self::Shadow) -> <Self::Marker as Arg>::Shadow<'s>
    where
        Self: 's;
    /// The argument of a reverse rule, with `store` as its adjoint buffer.
    fn dup_in<'s>(self, store: &'s mut Self::Store) -> <Self::Marker as Arg>::Dup<'s>
    where
        Self: 's;
    /// The argument of a generated reverse derivative, with `store` as its adjoint buffer.
    #[doc(hidden)]
    fn gen_in<'s>(self, store: &'s mut Self::Store) -> <Self::Marker as Arg>::Gen<'s>
    where
        Self: 's;
    /// Puts what the caller moves into a call in the argument's buffer.
    #[doc(hidden)]
    fn seed(store: &mut Self::Store, seed: Self::Seed);
    /// The argument's adjoint after a call: what the reverse derivative returned, and what is
    /// left in the buffer of the caller's seed (all of it where a reverse rule served the call).
    #[doc(hidden)]
    fn merge(
        adjoint: <Self::Marker as Arg>::Adj,
        store: &mut Self::Store,
    ) -> <Self::Marker as Arg>::Adj;
    /// A zero adjoint buffer of the argument's length.
    fn store(&self) -> Self::Store;
    /// An empty buffer, for a forward sweep, which writes no adjoints.
    fn empty_store() -> Self::Store;
    /// A buffer holding what the caller's buffer holds.
    fn store_from(bar: &Self::Bar) -> Self::Store;
    /// Copies a buffer back into the caller's.
    fn store_into(store: Self::Store, bar: Self::Bar);
    /// What `grad` returns for the argument.
    fn grad(adjoint: <Self::Marker as Arg>::Adj, store: Self::Store) -> Self::Grad;
    /// The zero of what a reverse derivative returns for the argument.
    fn zero_adj(&self) -> <Self::Marker as Arg>::Adj;
    /// Checks that a tangent has the argument's shape.
    fn check_shadow(&self, shadow: &Self::Shadow) -> Result<(), ShapeMismatch>;
    /// A copy, if the argument can be copied (not a `&mut [E]`).
    fn try_clone(&self) -> Option<Self>;
    /// A copy to call the function on once, so that it registers its instantiation
    /// (`registry/late.rs`): as [`try_clone`](Param::try_clone), and for a `&mut [E]` a copy
    /// of its elements that lives as long as the program (made once per instantiation).
    fn scratch(&self) -> Option<Self> {
        self.try_clone()
    }
    /// Scalar coordinates of the tangent, for converting rules between modes (none for a slice).
    fn shadow_dim(&self) -> usize;
    /// The unit tangent along coordinate `i`.
    fn unit_shadow(&self, i: usize) -> Self::Shadow;
    /// The zero tangent, for converting rules between modes.
    fn zero_shadow(&self) -> Self::Shadow;
    /// Scalar coordinates of an adjoint.
    fn adj_dim(adjoint: &<Self::Marker as Arg>::Adj) -> usize;
    /// The dot product of an adjoint and a tangent.
    fn dot(adjoint: &<Self::Marker as Arg>::Adj, shadow: &Self::Shadow) -> f64;
    /// Sets coordinate `i` of an adjoint.
    fn set_adj(adjoint: &mut <Self::Marker as Arg>::Adj, i: usize, value: f64);
}

impl<T: Differentiable + Clone + 'static> Param for T {
    type Marker = T;
    type Shadow = Tan<T>;
    type Bar = ();
    type Store = ();
    type Grad = Tan<T>;
    type Seed = ();

    #[inline(always)]
    fn gen_in<'s>(self, (): &'s mut ()) -> T
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn seed((): &mut (), (): ()) {}
    #[inline(always)]
    fn merge(adjoint: Tan<T>, (): &mut ()) -> Tan<T> {
        adjoint
    }
    #[inline(always)]
    fn into_ref<'s>(self) -> T
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn shadow_into<'s>(shadow: Tan<T>) -> Tan<T>
    where
        Self: 's,
    {
        shadow
    }
    #[inline(always)]
    fn dup_in<'s>(self, (): &'s mut ()) -> T
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
    fn grad(adjoint: Tan<T>, (): ()) -> Tan<T> {
        adjoint
    }
    #[inline(always)]
    fn zero_adj(&self) -> Tan<T> {
        self.zero_tangent()
    }
    fn check_shadow(&self, shadow: &Tan<T>) -> Result<(), ShapeMismatch> {
        self.check_tangent(shadow)
    }
    fn try_clone(&self) -> Option<Self> {
        Some(self.clone())
    }
    fn shadow_dim(&self) -> usize {
        self.zero_tangent().dim()
    }
    fn unit_shadow(&self, i: usize) -> Tan<T> {
        self.zero_tangent().unit_like(i)
    }
    fn zero_shadow(&self) -> Tan<T> {
        self.zero_tangent()
    }
    fn adj_dim(adjoint: &Tan<T>) -> usize {
        adjoint.dim()
    }
    fn dot(adjoint: &Tan<T>, shadow: &Tan<T>) -> f64 {
        adjoint.dot(shadow)
    }
    fn set_adj(adjoint: &mut Tan<T>, i: usize, value: f64) {
        adjoint.set(i, value);
    }
}

impl<E: Differentiable + Clone + 'static, const N: usize> Param for &[E; N] {
    type Marker = ArrayRef<E, N>;
    type Shadow = [Tan<E>; N];
    type Bar = ();
    type Store = ();
    type Grad = [Tan<E>; N];
    type Seed = ();

    #[inline(always)]
    fn gen_in<'s>(self, (): &'s mut ()) -> &'s [E; N]
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn seed((): &mut (), (): ()) {}
    #[inline(always)]
    fn merge(adjoint: [Tan<E>; N], (): &mut ()) -> [Tan<E>; N] {
        adjoint
    }
    #[inline(always)]
    fn into_ref<'s>(self) -> &'s [E; N]
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn shadow_into<'s>(shadow: [Tan<E>; N]) -> [Tan<E>; N]
    where
        Self: 's,
    {
        shadow
    }
    #[inline(always)]
    fn dup_in<'s>(self, (): &'s mut ()) -> &'s [E; N]
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
    fn grad(adjoint: [Tan<E>; N], (): ()) -> [Tan<E>; N] {
        adjoint
    }
    #[inline(always)]
    fn zero_adj(&self) -> [Tan<E>; N] {
        (**self).zero_tangent()
    }
    fn check_shadow(&self, shadow: &[Tan<E>; N]) -> Result<(), ShapeMismatch> {
        (**self).check_tangent(shadow)
    }
    fn try_clone(&self) -> Option<Self> {
        Some(*self)
    }
    fn shadow_dim(&self) -> usize {
        (**self).zero_tangent().dim()
    }
    fn unit_shadow(&self, i: usize) -> [Tan<E>; N] {
        (**self).zero_tangent().unit_like(i)
    }
    fn zero_shadow(&self) -> [Tan<E>; N] {
        (**self).zero_tangent()
    }
    fn adj_dim(adjoint: &[Tan<E>; N]) -> usize {
        adjoint.dim()
    }
    fn dot(adjoint: &[Tan<E>; N], shadow: &[Tan<E>; N]) -> f64 {
        adjoint.dot(shadow)
    }
    fn set_adj(adjoint: &mut [Tan<E>; N], i: usize, value: f64) {
        adjoint.set(i, value);
    }
}

/// What slices cannot do: be converted between modes, coordinate by coordinate.
const NO_COORDINATES: &str =
    "ad: a rule of a function with slice arguments cannot be converted to the other mode";

/// The methods `&[E]` and `&mut [E]` share: a `Vec` of adjoints as the buffer `grad`
/// allocates, and no coordinates (a rule is not converted between modes for them).
macro_rules! slice_param_shared {
    ($shadow:ty) => {
        fn store(&self) -> Vec<Tan<E>> {
            self.iter().map(Differentiable::zero_tangent).collect()
        }
        fn empty_store() -> Vec<Tan<E>> {
            Vec::new()
        }
        fn store_from(bar: &&'x mut [Tan<E>]) -> Vec<Tan<E>> {
            bar.to_vec()
        }
        fn store_into(store: Vec<Tan<E>>, bar: &'x mut [Tan<E>]) {
            bar.clone_from_slice(&store);
        }
        fn grad(_: NoTangent, store: Vec<Tan<E>>) -> Vec<Tan<E>> {
            store
        }
        fn seed(_: &mut Vec<Tan<E>>, (): ()) {}
        fn merge(adjoint: NoTangent, _: &mut Vec<Tan<E>>) -> NoTangent {
            adjoint
        }
        fn zero_adj(&self) -> NoTangent {
            NoTangent
        }
        fn shadow_dim(&self) -> usize {
            unreachable!("{NO_COORDINATES}")
        }
        fn unit_shadow(&self, _: usize) -> $shadow {
            unreachable!("{NO_COORDINATES}")
        }
        fn zero_shadow(&self) -> $shadow {
            unreachable!("{NO_COORDINATES}")
        }
        fn adj_dim(_: &NoTangent) -> usize {
            unreachable!("{NO_COORDINATES}")
        }
        fn dot(_: &NoTangent, _: &$shadow) -> f64 {
            unreachable!("{NO_COORDINATES}")
        }
        fn set_adj(_: &mut NoTangent, _: usize, _: f64) {
            unreachable!("{NO_COORDINATES}")
        }
    };
}

impl<'x, E: Differentiable + 'static> Param for &'x [E] {
    type Marker = Slice<E>;
    type Shadow = &'x [Tan<E>];
    type Bar = &'x mut [Tan<E>];
    type Store = Vec<Tan<E>>;
    type Grad = Vec<Tan<E>>;
    type Seed = ();

    #[inline(always)]
    fn gen_in<'s>(self, store: &'s mut Vec<Tan<E>>) -> Dup<'s, E>
    where
        Self: 's,
    {
        self.dup_in(store)
    }
    #[inline(always)]
    fn into_ref<'s>(self) -> &'s [E]
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn shadow_into<'s>(shadow: &'x [Tan<E>]) -> &'s [Tan<E>]
    where
        Self: 's,
    {
        shadow
    }
    #[inline(always)]
    fn dup_in<'s>(self, store: &'s mut Vec<Tan<E>>) -> Dup<'s, E>
    where
        Self: 's,
    {
        Dup {
            value: self,
            adjoint: store,
        }
    }
    fn check_shadow(&self, shadow: &&'x [Tan<E>]) -> Result<(), ShapeMismatch> {
        check_slice(self, shadow)
    }
    fn try_clone(&self) -> Option<Self> {
        Some(self)
    }
    slice_param_shared!(&'x [Tan<E>]);
}

impl<'x, E: Differentiable + Clone + 'static> Param for &'x mut [E] {
    type Marker = SliceMut<E>;
    type Shadow = &'x mut [Tan<E>];
    type Bar = &'x mut [Tan<E>];
    type Store = Vec<Tan<E>>;
    type Grad = Vec<Tan<E>>;
    type Seed = ();

    #[inline(always)]
    fn gen_in<'s>(self, store: &'s mut Vec<Tan<E>>) -> DupMut<'s, E>
    where
        Self: 's,
    {
        self.dup_in(store)
    }
    #[inline(always)]
    fn into_ref<'s>(self) -> &'s mut [E]
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn shadow_into<'s>(shadow: &'x mut [Tan<E>]) -> &'s mut [Tan<E>]
    where
        Self: 's,
    {
        shadow
    }
    #[inline(always)]
    fn dup_in<'s>(self, store: &'s mut Vec<Tan<E>>) -> DupMut<'s, E>
    where
        Self: 's,
    {
        DupMut {
            value: self,
            adjoint: store,
        }
    }
    fn check_shadow(&self, shadow: &&'x mut [Tan<E>]) -> Result<(), ShapeMismatch> {
        check_slice(self, shadow)
    }
    fn try_clone(&self) -> Option<Self> {
        None
    }
    fn scratch(&self) -> Option<Self> {
        Some(Box::leak(self.to_vec().into_boxed_slice()))
    }
    slice_param_shared!(&'x mut [Tan<E>]);
}

/// `&mut [E; N]`: an output written in place, differentiated as the `&mut [E]` it derefs to
/// (the rules take the slice); its tangent is an array, its adjoint buffer a slice.
impl<'x, E: Differentiable + Clone + 'static, const N: usize> Param for &'x mut [E; N] {
    type Marker = SliceMut<E>;
    type Shadow = &'x mut [Tan<E>; N];
    type Bar = &'x mut [Tan<E>];
    type Store = Vec<Tan<E>>;
    type Grad = Vec<Tan<E>>;
    type Seed = ();

    #[inline(always)]
    fn gen_in<'s>(self, store: &'s mut Vec<Tan<E>>) -> DupMut<'s, E>
    where
        Self: 's,
    {
        self.dup_in(store)
    }
    #[inline(always)]
    fn into_ref<'s>(self) -> &'s mut [E]
    where
        Self: 's,
    {
        self
    }
    #[inline(always)]
    fn shadow_into<'s>(shadow: &'x mut [Tan<E>; N]) -> &'s mut [Tan<E>]
    where
        Self: 's,
    {
        shadow
    }
    #[inline(always)]
    fn dup_in<'s>(self, store: &'s mut Vec<Tan<E>>) -> DupMut<'s, E>
    where
        Self: 's,
    {
        DupMut {
            value: self,
            adjoint: store,
        }
    }
    fn check_shadow(&self, shadow: &&'x mut [Tan<E>; N]) -> Result<(), ShapeMismatch> {
        check_slice(&self[..], &shadow[..])
    }
    fn try_clone(&self) -> Option<Self> {
        None
    }
    fn scratch(&self) -> Option<Self> {
        Some(Box::leak(Box::new((**self).clone())))
    }
    slice_param_shared!(&'x mut [Tan<E>; N]);
}

fn check_slice<E: Differentiable>(values: &[E], shadow: &[Tan<E>]) -> Result<(), ShapeMismatch> {
    if values.len() != shadow.len() {
        return Err(ShapeMismatch {
            path: String::new(),
            expected: values.len(),
            found: shadow.len(),
        });
    }
    for (i, (v, t)) in values.iter().zip(shadow).enumerate() {
        v.check_tangent(t).map_err(|mut e| {
            e.path.insert_str(0, &format!("[{i}]"));
            e
        })?;
    }
    Ok(())
}
