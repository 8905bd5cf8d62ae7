//! `Function` and its rule types for each arity up to sixteen: the arity macro and its instances.
//!
//! One impl of each trait per arity, so the cost grows linearly with the largest arity (see
//! `MAX_ARGS` in `ad-macros/src/signature.rs`, which must name the same number).

use super::closures::{ForwardFn, ReverseFn};
use super::kinds::Arg;
use super::param::Param;
use super::sweep::{Sweep, Swept, Tupled};
use super::{Deferred, Function, Signature, SplitRule, Tan};
use crate::registry::FnInfo;
use crate::tangent::{Differentiable, ShapeMismatch};
use crate::tape::{Tape, Tapeable};
use std::sync::Arc;

type RefOf<'a, A> = <<A as Param>::Marker as Arg>::Ref<'a>;
type ShadowOf<'a, A> = <<A as Param>::Marker as Arg>::Shadow<'a>;
type DupOf<'a, A> = <<A as Param>::Marker as Arg>::Dup<'a>;
type GenOf<'a, A> = <<A as Param>::Marker as Arg>::Gen<'a>;
type AdjOf<A> = <<A as Param>::Marker as Arg>::Adj;

/// The body of the placeholder rules of `__forward_parts` and its siblings.
#[cold]
fn placeholder() -> ! {
    unreachable!("ad: the placeholder of a rule was called")
}

// The function of no arguments: no lifetimes to defer.
#[allow(clippy::unused_unit)]
impl<R: Differentiable + Clone + 'static> Signature for (R, ()) {
    type Output = R;
    type Gradient = ();
    type Forward = fn() -> (R, Tan<R>);
    type DynForward = dyn Fn() -> (R, Tan<R>) + Send + Sync;
    type Reverse =
        for<'t, 'v> fn(&'t mut Tape, Option<Tan<R>>, bool, &'v mut Option<R>) -> Tupled<R, ()>;
    type ReverseRule = fn(R, Tan<R>) -> ();
    type DynReverseRule = dyn Fn(R, Tan<R>) -> () + Send + Sync;
    type DynAugmented = dyn Fn((), &mut Tape) -> R + Send + Sync;
    type DynBackward = dyn Fn(&mut Tape, Tan<R>) -> () + Send + Sync;
}

impl<C, R: Differentiable + Clone + 'static> ForwardFn<(R, ())> for C
where
    C: Fn() -> (R, Tan<R>) + Send + Sync + 'static,
{
    fn into_dyn_forward(self) -> Arc<<(R, ()) as Signature>::DynForward> {
        Arc::new(self)
    }
}

#[allow(clippy::unused_unit)]
impl<C, R: Differentiable + Clone + 'static> ReverseFn<(R, ())> for C
where
    C: Fn(R, Tan<R>) -> () + Send + Sync + 'static,
{
    fn into_dyn_reverse(self) -> Arc<<(R, ()) as Signature>::DynReverseRule> {
        Arc::new(self)
    }
}

#[allow(clippy::unused_unit)]
impl<Func, Ret> Function<()> for Func
where
    Func: Fn() -> Ret + Copy + Send + Sync + 'static,
    Ret: Differentiable + Clone + 'static,
{
    type Output = Ret;
    type Tangents = ();
    type Gradient = ();
    type Grads = ();
    type Bars = ();
    type Stores = ();
    type Seeds = ();
    type Ptr = fn() -> Ret;
    type Forward = fn() -> (Ret, Tan<Ret>);
    type DynForward = dyn Fn() -> (Ret, Tan<Ret>) + Send + Sync;
    type Adjoints = ();
    type Reverse = for<'t, 'v> fn(
        &'t mut Tape,
        Option<Tan<Ret>>,
        bool,
        &'v mut Option<Ret>,
    ) -> Tupled<Ret, ()>;
    type ReverseRule = fn(Ret, Tan<Ret>) -> ();
    type DynReverseRule = dyn Fn(Ret, Tan<Ret>) -> () + Send + Sync;
    type Augmented<Res>
        = fn() -> (Ret, Res)
    where
        Res: 'static;
    type Backward<Res>
        = fn(Res, Tan<Ret>) -> ()
    where
        Res: 'static;
    type DynAugmented = dyn Fn((), &mut Tape) -> Ret + Send + Sync;
    type DynBackward = dyn Fn(&mut Tape, Tan<Ret>) -> () + Send + Sync;
    type Sig = (Ret, ());
    const BUFFERS: bool = false;

    fn call(self, (): ()) -> Ret {
        self()
    }
    fn call_forward(rule: Self::Forward, (): (), (): ()) -> (Ret, Tan<Ret>) {
        rule()
    }
    fn call_dyn_forward(rule: &Self::DynForward, (): (), (): ()) -> (Ret, Tan<Ret>) {
        rule()
    }
    fn address(ptr: Self::Ptr) -> usize {
        ptr as usize
    }
    fn call_reverse(
        rule: Self::Reverse,
        (): (),
        (): &mut (),
        tape: &mut Tape,
        adjoint: Option<Tan<Ret>>,
        joint: bool,
        value: &mut Option<Ret>,
    ) -> Swept<Ret, ()> {
        let forward_alone = adjoint.is_none() && !joint;
        rule(tape, adjoint, joint, value).into_swept(forward_alone, value)
    }
    fn call_reverse_rule(
        rule: Self::ReverseRule,
        (): (),
        (): &mut (),
        value: Ret,
        adjoint: Tan<Ret>,
    ) {
        rule(value, adjoint);
    }
    fn call_dyn_reverse_rule(
        rule: &Self::DynReverseRule,
        (): (),
        (): &mut (),
        value: Ret,
        adjoint: Tan<Ret>,
    ) {
        rule(value, adjoint);
    }
    fn call_dyn_augmented(rule: &Self::DynAugmented, (): (), tape: &mut Tape) -> Ret {
        rule((), tape)
    }
    fn call_dyn_backward(rule: &Self::DynBackward, tape: &mut Tape, adjoint: Tan<Ret>) {
        rule(tape, adjoint);
    }
    fn zero_gradient((): &()) {}
    fn stores((): &()) {}
    fn empty_stores() {}
    fn stores_from((): &()) {}
    fn stores_into((): (), (): ()) {}
    fn grads((): (), (): ()) {}
    fn seed_stores((): &mut (), (): ()) {}
    fn merge_stores((): (), (): &mut ()) {}
    fn check_tangents((): &(), (): &()) -> Result<(), (usize, ShapeMismatch)> {
        Ok(())
    }
    fn clone_args((): &()) -> Option<()> {
        Some(())
    }
    fn scratch_args((): &()) -> Option<()> {
        Some(())
    }
    fn clone_output(value: &Ret) -> Ret {
        value.clone()
    }
    fn tangent_dim((): &()) -> usize {
        0
    }
    fn unit_tangents((): &(), _: usize) {}
    fn dot((): &(), (): &()) -> f64 {
        0.0
    }
    fn set_gradient((): &mut (), _: usize, _: f64) {}
    fn __residual_parts<Res: Tapeable + 'static>(
        &self,
        address: usize,
    ) -> (Self::Augmented<Res>, Self::Backward<Res>, FnInfo) {
        (|| placeholder(), |_, _| placeholder(), self.__info(address))
    }
    fn __split_rule<Res: Tapeable + 'static>(
        &self,
        augmented: Self::Augmented<Res>,
        backward: Self::Backward<Res>,
    ) -> SplitRule<Self::Sig> {
        SplitRule {
            augmented: Arc::new(move |(): (), tape: &mut Tape| {
                let (value, residuals) = augmented();
                tape.push(residuals);
                value
            }),
            backward: Arc::new(move |tape: &mut Tape, adjoint: Tan<Ret>| {
                tape.note_high_water();
                let residuals: Res = tape.pop();
                backward(residuals, adjoint);
            }),
        }
    }
    fn __reverse_parts(&self, address: usize) -> (Self::Reverse, FnInfo) {
        (|_, _, _, _| placeholder(), self.__info(address))
    }
    fn __reverse_rule_parts(&self, address: usize) -> (Self::ReverseRule, FnInfo) {
        (|_, _| placeholder(), self.__info(address))
    }
    fn __forward_parts(&self, address: usize) -> (Self::Forward, FnInfo) {
        (|| placeholder(), self.__info(address))
    }
}

macro_rules! function_impls {
    ($(($First:ident; $($A:ident $a:ident $da:ident $s:ident $i:tt),+) => $Adj:ty, |$t:ident| $to_tuple:expr, $Out:ident;)*) => {$(
        #[allow(clippy::type_complexity)]
        impl<M: Arg, R: Differentiable + Clone + 'static, $($A: Param),+> Deferred<R, ($($A,)+)> for M {
            type Ptr = for<'a> fn($(RefOf<'a, $A>),+) -> R;
            type Forward = for<'a> fn($(RefOf<'a, $A>, ShadowOf<'a, $A>),+) -> (R, Tan<R>);
            type DynForward = dyn for<'a> Fn($(RefOf<'a, $A>, ShadowOf<'a, $A>),+) -> (R, Tan<R>) + Send + Sync;
            type Reverse = for<'a, 't, 'v> fn($(GenOf<'a, $A>,)+ &'t mut Tape, Option<Tan<R>>, bool, &'v mut Option<R>) -> $Out<R, ($(AdjOf<$A>,)+)>;
            type ReverseRule = for<'a> fn($(DupOf<'a, $A>,)+ R, Tan<R>) -> $Adj;
            type DynReverseRule = dyn for<'a> Fn($(DupOf<'a, $A>,)+ R, Tan<R>) -> $Adj + Send + Sync;
            type Augmented<Res> = for<'a> fn($(RefOf<'a, $A>),+) -> (R, Res) where Res: 'static;
            type DynAugmented = dyn for<'a, 't> Fn(($(RefOf<'a, $A>,)+), &'t mut Tape) -> R + Send + Sync;
        }

        #[allow(clippy::type_complexity)]
        impl<R: Differentiable + Clone + 'static, $($A: Arg),+> Signature for (R, ($($A,)+)) {
            type Output = R;
            type Gradient = ($($A::Adj,)+);
            type Forward = for<'a> fn($($A::Ref<'a>, $A::Shadow<'a>),+) -> (R, Tan<R>);
            type DynForward = dyn for<'a> Fn($($A::Ref<'a>, $A::Shadow<'a>),+) -> (R, Tan<R>) + Send + Sync;
            type Reverse = for<'a, 't, 'v> fn($($A::Gen<'a>,)+ &'t mut Tape, Option<Tan<R>>, bool, &'v mut Option<R>) -> $Out<R, ($($A::Adj,)+)>;
            type ReverseRule = for<'a> fn($($A::Dup<'a>,)+ R, Tan<R>) -> sig_adj!($($A)+);
            type DynReverseRule = dyn for<'a> Fn($($A::Dup<'a>,)+ R, Tan<R>) -> sig_adj!($($A)+) + Send + Sync;
            type DynAugmented = dyn for<'a, 't> Fn(($($A::Ref<'a>,)+), &'t mut Tape) -> R + Send + Sync;
            type DynBackward = dyn Fn(&mut Tape, Tan<R>) -> ($($A::Adj,)+) + Send + Sync;
        }

        impl<C, R: Differentiable + Clone + 'static, $($A: Arg),+> ForwardFn<(R, ($($A,)+))> for C
        where
            C: for<'a> Fn($($A::Ref<'a>, $A::Shadow<'a>),+) -> (R, Tan<R>) + Send + Sync + 'static,
        {
            fn into_dyn_forward(self) -> Arc<<(R, ($($A,)+)) as Signature>::DynForward> {
                Arc::new(self)
            }
        }

        impl<C, R: Differentiable + Clone + 'static, $($A: Arg),+> ReverseFn<(R, ($($A,)+))> for C
        where
            C: for<'a> Fn($($A::Dup<'a>,)+ R, Tan<R>) -> sig_adj!($($A)+) + Send + Sync + 'static,
        {
            fn into_dyn_reverse(self) -> Arc<<(R, ($($A,)+)) as Signature>::DynReverseRule> {
                Arc::new(self)
            }
        }

        #[allow(clippy::type_complexity, clippy::too_many_arguments)]
        impl<Func, Ret, $($A: Param),+> Function<($($A,)+)> for Func
        where
            Func: Fn($($A),+) -> Ret + Copy + Send + Sync + 'static,
            Ret: Differentiable + Clone + 'static,
        {
            type Output = Ret;
            type Tangents = ($($A::Shadow,)+);
            type Gradient = ($(AdjOf<$A>,)+);
            type Grads = ($($A::Grad,)+);
            type Bars = ($($A::Bar,)+);
            type Stores = ($($A::Store,)+);
            type Seeds = ($($A::Seed,)+);
            type Ptr = <$First::Marker as Deferred<Ret, ($($A,)+)>>::Ptr;
            type Forward = <$First::Marker as Deferred<Ret, ($($A,)+)>>::Forward;
            type DynForward = <$First::Marker as Deferred<Ret, ($($A,)+)>>::DynForward;
            type Adjoints = $Adj;
            type Reverse = <$First::Marker as Deferred<Ret, ($($A,)+)>>::Reverse;
            type ReverseRule = <$First::Marker as Deferred<Ret, ($($A,)+)>>::ReverseRule;
            type DynReverseRule = <$First::Marker as Deferred<Ret, ($($A,)+)>>::DynReverseRule;
            type Augmented<Res> = <$First::Marker as Deferred<Ret, ($($A,)+)>>::Augmented<Res> where Res: 'static;
            type Backward<Res> = fn(Res, Tan<Ret>) -> $Adj where Res: 'static;
            type DynAugmented = <$First::Marker as Deferred<Ret, ($($A,)+)>>::DynAugmented;
            type DynBackward = dyn Fn(&mut Tape, Tan<Ret>) -> ($(AdjOf<$A>,)+) + Send + Sync;
            type Sig = (Ret, ($($A::Marker,)+));
            const BUFFERS: bool = false $(|| <$A::Marker as Arg>::BUFFER)+;

            #[inline(always)]
            fn call(self, ($($a,)+): ($($A,)+)) -> Ret {
                self($($a),+)
            }

            #[inline(always)]
            fn call_forward(rule: Self::Forward, ($($a,)+): ($($A,)+), ($($da,)+): Self::Tangents) -> (Ret, Tan<Ret>) {
                rule($($a.into_ref(), $A::shadow_into($da)),+)
            }

            #[inline(always)]
            fn call_dyn_forward(rule: &Self::DynForward, ($($a,)+): ($($A,)+), ($($da,)+): Self::Tangents) -> (Ret, Tan<Ret>) {
                rule($($a.into_ref(), $A::shadow_into($da)),+)
            }

            fn address(ptr: Self::Ptr) -> usize {
                ptr as usize
            }

            #[inline(always)]
            fn call_reverse(
                rule: Self::Reverse,
                ($($a,)+): ($($A,)+),
                ($($s,)+): &mut Self::Stores,
                tape: &mut Tape,
                adjoint: Option<Tan<Ret>>,
                joint: bool,
                value: &mut Option<Ret>,
            ) -> Swept<Ret, Self::Gradient> {
                let forward_alone = adjoint.is_none() && !joint;
                rule($($a.gen_in($s),)+ tape, adjoint, joint, value).into_swept(forward_alone, value)
            }

            #[inline(always)]
            fn call_reverse_rule(
                rule: Self::ReverseRule,
                ($($a,)+): ($($A,)+),
                ($($s,)+): &mut Self::Stores,
                value: Ret,
                adjoint: Tan<Ret>,
            ) -> Self::Gradient {
                let $t = rule($($a.dup_in($s),)+ value, adjoint);
                $to_tuple
            }

            #[inline(always)]
            fn call_dyn_reverse_rule(
                rule: &Self::DynReverseRule,
                ($($a,)+): ($($A,)+),
                ($($s,)+): &mut Self::Stores,
                value: Ret,
                adjoint: Tan<Ret>,
            ) -> Self::Gradient {
                let $t = rule($($a.dup_in($s),)+ value, adjoint);
                $to_tuple
            }

            fn call_dyn_augmented(rule: &Self::DynAugmented, ($($a,)+): ($($A,)+), tape: &mut Tape) -> Ret {
                rule(($($a.into_ref(),)+), tape)
            }

            fn call_dyn_backward(rule: &Self::DynBackward, tape: &mut Tape, adjoint: Tan<Ret>) -> Self::Gradient {
                rule(tape, adjoint)
            }

            #[inline(always)]
            fn zero_gradient(($($a,)+): &($($A,)+)) -> Self::Gradient {
                ($($a.zero_adj(),)+)
            }

            #[inline(always)]
            fn stores(($($a,)+): &($($A,)+)) -> Self::Stores {
                ($($a.store(),)+)
            }

            #[inline(always)]
            fn empty_stores() -> Self::Stores {
                ($($A::empty_store(),)+)
            }

            fn stores_from(($($s,)+): &Self::Bars) -> Self::Stores {
                ($($A::store_from($s),)+)
            }

            fn stores_into(($($s,)+): Self::Stores, ($($da,)+): Self::Bars) {
                $($A::store_into($s, $da);)+
            }

            #[inline(always)]
            fn grads(($($da,)+): Self::Gradient, ($($s,)+): Self::Stores) -> Self::Grads {
                ($($A::grad($da, $s),)+)
            }

            #[inline(always)]
            fn seed_stores(($($s,)+): &mut Self::Stores, ($($da,)+): Self::Seeds) {
                $($A::seed($s, $da);)+
            }

            #[inline(always)]
            fn merge_stores(($($da,)+): Self::Gradient, ($($s,)+): &mut Self::Stores) -> Self::Gradient {
                ($($A::merge($da, $s),)+)
            }

            fn check_tangents(
                ($($a,)+): &($($A,)+),
                ($($da,)+): &Self::Tangents,
            ) -> Result<(), (usize, ShapeMismatch)> {
                $($a.check_shadow($da).map_err(|e| ($i + 1, e))?;)+
                Ok(())
            }

            fn clone_args(($($a,)+): &($($A,)+)) -> Option<($($A,)+)> {
                Some(($($a.try_clone()?,)+))
            }

            fn scratch_args(($($a,)+): &($($A,)+)) -> Option<($($A,)+)> {
                Some(($($a.scratch()?,)+))
            }

            fn clone_output(value: &Ret) -> Ret {
                value.clone()
            }

            fn tangent_dim(($($a,)+): &($($A,)+)) -> usize {
                0 $(+ $a.shadow_dim())+
            }

            #[allow(unused_assignments)]
            fn unit_tangents(($($a,)+): &($($A,)+), i: usize) -> Self::Tangents {
                let mut offset = 0;
                ($({
                    let d = $a.shadow_dim();
                    let t = if (offset..offset + d).contains(&i) {
                        $a.unit_shadow(i - offset)
                    } else {
                        $a.zero_shadow()
                    };
                    offset += d;
                    t
                },)+)
            }

            fn dot(gradient: &Self::Gradient, tangents: &Self::Tangents) -> f64 {
                0.0 $(+ $A::dot(&gradient.$i, &tangents.$i))+
            }

            fn set_gradient(gradient: &mut Self::Gradient, i: usize, value: f64) {
                let mut offset = 0;
                $(
                    let d = $A::adj_dim(&gradient.$i);
                    if (offset..offset + d).contains(&i) {
                        $A::set_adj(&mut gradient.$i, i - offset, value);
                    }
                    offset += d;
                )+
                let _ = offset;
            }

            // The placeholders take the arguments by the names the macro has for them.
            #[allow(unused_variables)]
            fn __residual_parts<Res: Tapeable + 'static>(
                &self,
                address: usize,
            ) -> (Self::Augmented<Res>, Self::Backward<Res>, FnInfo) {
                (|$($a),+| placeholder(), |_, _| placeholder(), self.__info(address))
            }

            fn __split_rule<Res: Tapeable + 'static>(
                &self,
                augmented: Self::Augmented<Res>,
                backward: Self::Backward<Res>,
            ) -> SplitRule<Self::Sig> {
                fn erase<R, $($A: Param,)+ C>(c: C) -> Arc<<$First::Marker as Deferred<R, ($($A,)+)>>::DynAugmented>
                where
                    R: Differentiable + Clone + 'static,
                    C: for<'a, 't> Fn(($(RefOf<'a, $A>,)+), &'t mut Tape) -> R + Send + Sync + 'static,
                {
                    Arc::new(c)
                }
                SplitRule {
                    augmented: erase::<Ret, $($A,)+ _>(move |($($a,)+), tape| {
                        let (value, residuals) = augmented($($a),+);
                        tape.push(residuals);
                        value
                    }),
                    backward: Arc::new(move |tape: &mut Tape, adjoint: Tan<Ret>| {
                        tape.note_high_water();
                        let residuals: Res = tape.pop();
                        let $t = backward(residuals, adjoint);
                        $to_tuple
                    }),
                }
            }

            // The placeholders take the arguments by the names the macro has for them.
            #[allow(unused_variables)]
            fn __reverse_parts(&self, address: usize) -> (Self::Reverse, FnInfo) {
                (|$($a,)+ _, _, _, _| placeholder(), self.__info(address))
            }

            // The placeholders take the arguments by the names the macro has for them.
            #[allow(unused_variables)]
            fn __reverse_rule_parts(&self, address: usize) -> (Self::ReverseRule, FnInfo) {
                (|$($a,)+ _, _| placeholder(), self.__info(address))
            }

            // The placeholders take the arguments by the names the macro has for them.
            #[allow(unused_variables)]
            fn __forward_parts(&self, address: usize) -> (Self::Forward, FnInfo) {
                (|$($a, $da),+| placeholder(), self.__info(address))
            }
        }
    )*};
}

/// What a reverse rule returns, by argument kinds: the adjoint itself for one argument.
macro_rules! sig_adj {
    ($A:ident) => { $A::Adj };
    ($($A:ident)+) => { ($($A::Adj,)+) };
}

/// The arities of two arguments or more, whose reverse rules return the tuple of the adjoints.
macro_rules! many_impls {
    ($(($($A:ident $a:ident $da:ident $s:ident $i:tt),+))*) => {
        function_impls! {$(
            (A1; $($A $a $da $s $i),+) => ($(AdjOf<$A>,)+), |t| t, Tupled;
        )*}
    };
}

function_impls! {
    (A1; A1 a1 da1 s1 0) => AdjOf<A1>, |t| (t,), Swept;
}

// Two arguments or more: the adjoints come back as a tuple, one invocation per arity.
many_impls! {
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9, A11 a11 da11 s11 10)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9, A11 a11 da11 s11 10, A12 a12 da12 s12 11)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9, A11 a11 da11 s11 10, A12 a12 da12 s12 11, A13 a13 da13 s13 12)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9, A11 a11 da11 s11 10, A12 a12 da12 s12 11, A13 a13 da13 s13 12, A14 a14 da14 s14 13)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9, A11 a11 da11 s11 10, A12 a12 da12 s12 11, A13 a13 da13 s13 12, A14 a14 da14 s14 13, A15 a15 da15 s15 14)
    (A1 a1 da1 s1 0, A2 a2 da2 s2 1, A3 a3 da3 s3 2, A4 a4 da4 s4 3, A5 a5 da5 s5 4, A6 a6 da6 s6 5, A7 a7 da7 s7 6, A8 a8 da8 s8 7, A9 a9 da9 s9 8, A10 a10 da10 s10 9, A11 a11 da11 s11 10, A12 a12 da12 s12 11, A13 a13 da13 s13 12, A14 a14 da14 s14 13, A15 a15 da15 s15 14, A16 a16 da16 s16 15)
}
