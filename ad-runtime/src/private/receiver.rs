//! The receiver of a method call in generated code, passed as the method takes it.
//!
//! `s.length()` borrows `s` when `length` takes `&self` and moves it when it takes `self`; the
//! derivative calls the method through the registry as `<Spring>::length(..)`, where nothing
//! borrows or moves by itself, and the macro cannot see which receiver the method has. The
//! receiver is given as a reference (`&s`, the derivative's own value of `s`) to
//! [`Receiver<F, A>`], with `F` the method and `A` a tuple of as many holes as it has
//! parameters: method resolution finds [`ByRef::pass`] (the reference itself) where `F` takes
//! a reference first, and, by autoref, [`ByValue::pass`] (a clone) where it takes a value;
//! [`ByMut::pass`], found last, is a compile error at a `&mut self` method's call.
//! Generated code brings both traits into scope, unnamed.

use core::marker::PhantomData;

/// A method `F` and its parameters `A`, as types.
pub struct Receiver<F, A>(PhantomData<fn() -> (F, A)>);

impl<F, A> Receiver<F, A> {
    #[inline(always)]
    pub fn of(_: &F) -> Self {
        Receiver(PhantomData)
    }
}

/// [`Receiver`] of a method that takes `&self`: the reference itself.
pub trait ByRef<'a, T> {
    fn pass(&self, receiver: &'a T) -> &'a T;
}

/// [`Receiver`] of a method that takes `self`: a clone of the value (the user's own call
/// moves it).
pub trait ByValue<T> {
    fn pass(&self, receiver: &T) -> T;
}

/// [`Receiver`] of a method that takes `&mut self`, which a differentiable body does not call
/// yet: found after the other two, its bound says so at the call.
pub trait ByMut<'a, T> {
    /// Never runs: its return type is the method's, so that the bound is the only error.
    #[allow(clippy::mut_from_ref)]
    fn pass(&mut self, receiver: &'a T) -> &'a mut T
    where
        T: MutReceiverCall;
}

/// See [`ByMut`]: implemented by no type.
#[diagnostic::on_unimplemented(
    message = "#[differentiable] differentiates a call of a `&mut self` method inside a body when it is written by path, with the local lent mutably: `Type::method(&mut value, ..)`",
    label = "this method takes `&mut self`",
    note = "with `.` the macro cannot tell that the call writes its receiver: write `Type::method(&mut value, ..)` on a `mut` local (the call writes it in place, in both modes)"
)]
pub trait MutReceiverCall {}

macro_rules! receiver_impls {
    ($($A:ident),*) => {
        impl<'a, F, R, T: 'a, $($A),*> ByRef<'a, T> for Receiver<F, (&'a T, $($A,)*)>
        where
            F: Fn(&'a T, $($A),*) -> R,
        {
            #[inline(always)]
            fn pass(&self, receiver: &'a T) -> &'a T {
                receiver
            }
        }

        impl<'a, F, R, T: 'a, $($A),*> ByMut<'a, T> for &Receiver<F, (&'a mut T, $($A,)*)>
        where
            F: Fn(&'a mut T, $($A),*) -> R,
        {
            fn pass(&mut self, _: &'a T) -> &'a mut T
            where
                T: MutReceiverCall,
            {
                // No type has the bound: a program that calls this does not compile.
                ::core::unreachable!("ad: `MutReceiverCall` has no implementations")
            }
        }

        impl<F, R, T: Clone, $($A),*> ByValue<T> for &Receiver<F, (T, $($A,)*)>
        where
            F: Fn(T, $($A),*) -> R,
        {
            #[inline(always)]
            fn pass(&self, receiver: &T) -> T {
                receiver.clone()
            }
        }
    };
}

receiver_impls!();
receiver_impls!(A1);
receiver_impls!(A1, A2);
receiver_impls!(A1, A2, A3);
receiver_impls!(A1, A2, A3, A4);
receiver_impls!(A1, A2, A3, A4, A5);
receiver_impls!(A1, A2, A3, A4, A5, A6);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8, A9);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13);
receiver_impls!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14);
receiver_impls!(
    A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15
);

/// A count or a test of a container (`v.len()`, `v.is_empty()`, `o.is_some()`), which has no
/// derivative, kept as written where the macro cannot see the receiver's type: a method of the
/// user's own type with one of these names that returns a float is an error here, not a value
/// silently without derivative.
#[inline(always)]
pub fn count<N: Count>(n: N) -> N {
    n
}

/// What a count or a test of a container returns.
#[diagnostic::on_unimplemented(
    message = "`ad` takes this call for a count or a test of a container, without a derivative, but it returns `{Self}`",
    label = "taken for a count, without a derivative",
    note = "`ad` calls a method of your own type through its derivative where it sees the receiver's type: `self`, a parameter, or a `let` with a type or a struct literal; or call it by path (`Type::len(&value)`)"
)]
pub trait Count {}

macro_rules! counts {
    ($($t:ty)*) => {$(impl Count for $t {})*};
}
counts!(usize isize u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 bool);

/// The type of a struct's field `name`, with `H` the hash of the name ([`field_hash`]): the
/// derive implements it for every named field, so that the macro, which cannot see a struct's
/// definition, can name the type of `self.layer` (`<<Model as FieldType<H>>::Type>::apply`)
/// where a method is called on it.
pub trait FieldType<const H: u64> {
    type Type;
}

/// A struct with `#[derive(ad::Differentiable)]`: what a field passed on by reference
/// (`f(&s.inner)`) must be, checked by [`lent_field`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is passed by reference as a field of a struct, which `ad` lends only where the field is a struct with `#[derive(ad::Differentiable)]`",
    label = "a field of type `{Self}` lent by reference",
    note = "copy a `Vec`, array or float field first and lend the copy (`let w = s.w.clone(); f(&w)`), or pass the struct itself"
)]
pub trait DerivedStruct {}

/// Checks, where generated code lends a field by reference, that its type `T` is a derived
/// struct; never called.
pub fn lent_field<T: DerivedStruct + ?Sized>() {}

/// The element type of a field read by index (`self.layers[i]`).
pub trait ElementType {
    type Type;
}

impl<E> ElementType for Vec<E> {
    type Type = E;
}

impl<E, const N: usize> ElementType for [E; N] {
    type Type = E;
}

/// What the derivatives of a function generic over a user's type (`fn total<E: Energy>`) need of
/// that type, the bound `#[differentiable]` adds to the type parameter: a struct with
/// `#[derive(ad::Differentiable)]` has it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type `ad` can differentiate through this generic function",
    label = "`{Self}` needs `#[derive(ad::Differentiable)]` (and `Clone`)",
    note = "a function generic over a user's type is differentiated at each type it is called with; that type's values carry derivatives with `#[derive(Clone, ad::Differentiable)]`"
)]
pub trait UserType:
    crate::Differentiable<Tangent: crate::__private::Adjoint>
    + crate::__private::Tapeable
    + Clone
    + 'static
{
}

impl<T> UserType for T where
    T: crate::Differentiable<Tangent: crate::__private::Adjoint>
        + crate::__private::Tapeable
        + Clone
        + 'static
{
}
