//! Lazy dispatch from generated derivative code to whatever rule currently wins.
//!
//! Every call site in generated code owns a `static` [`CallSite`]. It caches the resolved rule
//! together with the epoch of the called function at resolution; the fast path is one atomic
//! load of the cache pointer, one of that function's epoch, and two compares, with no lock and no
//! lookup. A registration for the function bumps its epoch, so the next call through any site
//! that calls it resolves again and sees the new rule.

use crate::error::Error;
use crate::function::{Function, Tan};
use crate::registry::{self, ForwardImpl, Location, ReverseImpl, Validity};
use crate::tape::Tape;
use core::any::{Any, TypeId};
use core::ptr;
use std::sync::RwLock;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The header every cached resolution starts with.
#[repr(C)]
struct Header {
    /// The called function's epoch and the value it had at resolution.
    valid: Validity,
    /// `TypeId` of the `T` in the `Cached<T>` this header begins: checked before the cast back.
    type_id: TypeId,
}

#[repr(C)]
struct Cached<T> {
    header: Header,
    value: T,
}

/// The cache of one call site in generated code.
#[doc(hidden)]
pub struct CallSite {
    /// Points to a leaked `Cached<T>`; never freed, because another thread may be calling the
    /// rule it holds. One small allocation per site each time the called function's rules change.
    cache: AtomicPtr<Header>,
    caller: &'static str,
    location: Location,
}

impl CallSite {
    /// A call site inside `caller` at `file:line:column`.
    pub const fn new(caller: &'static str, file: &'static str, line: u32, column: u32) -> Self {
        CallSite {
            cache: AtomicPtr::new(ptr::null_mut()),
            caller,
            location: Location { file, line, column },
        }
    }

    /// The cached resolution of type `T`, if there is one and it is still valid.
    #[inline(always)]
    fn get<T: 'static>(&self) -> Option<&'static Cached<T>> {
        let header = self.cache.load(Ordering::Acquire);
        if header.is_null() {
            return None;
        }
        // SAFETY: a non-null cache pointer always comes from `Box::leak` of a `Cached<U>` in
        // `set`, never freed; `Cached` is `repr(C)` with the header first, so reading the header
        // is valid whatever `U` is, and the `TypeId` check makes the cast to `Cached<T>` exact.
        unsafe {
            let h = &*header;
            if h.valid.epoch.load(Ordering::Acquire) != h.valid.seen
                || h.type_id != TypeId::of::<T>()
            {
                return None;
            }
            Some(&*header.cast::<Cached<T>>())
        }
    }

    fn set<T: Send + Sync + 'static>(&self, valid: Validity, value: T) -> &'static Cached<T> {
        let cached: &'static mut Cached<T> = Box::leak(Box::new(Cached {
            header: Header {
                valid,
                type_id: TypeId::of::<T>(),
            },
            value,
        }));
        self.cache
            .store(ptr::from_mut(cached).cast::<Header>(), Ordering::Release);
        cached
    }
}

/// Calls the forward rule that currently wins for `f`, from generated code.
#[inline]
pub(crate) fn forward<F, A>(
    site: &'static CallSite,
    f: F,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
{
    if let Some(cached) = site.get::<ForwardImpl<F::Sig>>() {
        return registry::call_forward(&cached.value, f, args, tangents);
    }
    forward_slow(site, f, args, tangents)
}

#[cold]
#[inline(never)]
fn forward_slow<F, A>(
    site: &'static CallSite,
    f: F,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
{
    match registry::resolve_forward(f, site.caller, site.location) {
        Ok((valid, rule)) => {
            registry::call_forward(&site.set(valid, rule).value, f, args, tangents)
        }
        Err(error) => fail(&error),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fail(error: &Error) -> ! {
    panic!("{error}")
}

/// Marks the word under a resolution index on the tape, so that a tape out of step with its
/// generated code is a panic with a message.
/// Generated code passes no slices to the functions it calls.
const SLICE_CALL: &str =
    "ad: a function with slice arguments was called back without adjoint buffers";

const RESOLUTION_MARK: u64 = 0xADAD_5EED_0000_0001;

/// A reverse-mode resolution of a call site, with its index in [`RESOLUTIONS`].
struct Indexed<T> {
    index: usize,
    rule: T,
}

/// Every reverse-mode resolution any call site has made, by index. The forward sweep of a call
/// records the index of the rule it ran, and the reverse sweep looks it up here and checks its
/// type: what comes off the tape is never trusted as a pointer. Entries are few (one per call
/// site per change of its callee's rules) and live for the whole process.
static RESOLUTIONS: RwLock<Vec<&'static (dyn Any + Send + Sync)>> = RwLock::new(Vec::new());

/// The forward sweep of a call through the registry in reverse mode: runs the winning reverse
/// rule's forward part and records on the tape which rule that was, so that the reverse sweep
/// uses the same one even if the registry changes in between.
#[inline]
pub(crate) fn augmented<F, A>(site: &'static CallSite, f: F, tape: &mut Tape, args: A) -> F::Output
where
    F: Function<A>,
{
    let cached: &'static Cached<Indexed<ReverseImpl<F::Sig>>> =
        match site.get::<Indexed<ReverseImpl<F::Sig>>>() {
            Some(cached) => cached,
            None => match registry::resolve_reverse(f, site.caller, site.location) {
                Ok((valid, rule)) => {
                    let mut table = RESOLUTIONS.write().unwrap_or_else(|e| e.into_inner());
                    let index = table.len();
                    let cached = site.set(valid, Indexed { index, rule });
                    table.push(&cached.value.rule);
                    cached
                }
                Err(error) => fail(&error),
            },
        };
    let value = match &cached.value.rule {
        ReverseImpl::Generated(r) => {
            // The forward sweep writes no adjoints: empty buffers.
            let mut stores = F::empty_stores();
            F::call_reverse(*r, args, &mut stores, tape, None, false)
                .0
                .expect("ad: a generated forward sweep returns its value")
        }
        ReverseImpl::Split(r) => crate::function::augment::<F, A>(r, args, tape),
        ReverseImpl::Rule(_) | ReverseImpl::DynRule(_) | ReverseImpl::FromForward(_) => {
            f.call(args)
        }
    };
    tape.push(cached.value.index as u64);
    tape.push(RESOLUTION_MARK);
    value
}

/// The reverse sweep of a call recorded by [`augmented`]. With no adjoint (the call's value
/// is not used, or its adjoint is zero), the callee's records are only popped.
#[inline]
pub(crate) fn backward<F, A>(
    f: F,
    tape: &mut Tape,
    args: A,
    value: F::Output,
    adjoint: Option<crate::function::Tan<F::Output>>,
) -> F::Gradient
where
    F: Function<A>,
{
    assert!(!F::BUFFERS, "{SLICE_CALL}");
    let mut stores = F::stores(&args);
    backward_with(f, tape, args, &mut stores, value, adjoint)
}

/// The reverse sweep of a call whose slice arguments come with the caller's adjoint buffers.
#[inline]
pub(crate) fn backward_into<F, A>(
    f: F,
    tape: &mut Tape,
    args: A,
    bars: F::Bars,
    value: F::Output,
    adjoint: Option<crate::function::Tan<F::Output>>,
) -> F::Gradient
where
    F: Function<A>,
{
    let mut stores = F::stores_from(&bars);
    let gradient = backward_with(f, tape, args, &mut stores, value, adjoint);
    F::stores_into(stores, bars);
    gradient
}

#[inline]
fn backward_with<F, A>(
    f: F,
    tape: &mut Tape,
    args: A,
    stores: &mut F::Stores,
    value: F::Output,
    adjoint: Option<crate::function::Tan<F::Output>>,
) -> F::Gradient
where
    F: Function<A>,
{
    const OUT_OF_STEP: &str = "ad: a reverse sweep is out of step with its tape";
    assert_eq!(tape.pop::<u64>(), RESOLUTION_MARK, "{OUT_OF_STEP}");
    let index = usize::try_from(tape.pop::<u64>()).expect(OUT_OF_STEP);
    let rule: &'static ReverseImpl<F::Sig> = RESOLUTIONS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(index)
        .and_then(|r| r.downcast_ref::<ReverseImpl<F::Sig>>())
        .expect(OUT_OF_STEP);
    // A function with slices gets adjoints through its buffers as well as through its value:
    // its rule runs even when the value has none.
    let adjoint = match adjoint {
        None if F::BUFFERS => Some(crate::Differentiable::zero_tangent(&value)),
        other => other,
    };
    match (rule, adjoint) {
        (ReverseImpl::Generated(r), adjoint) => {
            // With no adjoint: the reverse sweep without a seed, which only pops.
            let discard = adjoint.is_none();
            F::call_reverse(*r, args, stores, tape, adjoint, discard).1
        }
        (ReverseImpl::Split(r), None) => {
            let _ =
                crate::function::back::<F, A>(r, tape, crate::Differentiable::zero_tangent(&value));
            F::zero_gradient(&args)
        }
        (ReverseImpl::Split(r), Some(adjoint)) => crate::function::back::<F, A>(r, tape, adjoint),
        (_, None) => F::zero_gradient(&args),
        (ReverseImpl::Rule(r), Some(adjoint)) => {
            F::call_reverse_rule(*r, args, stores, value, adjoint)
        }
        (ReverseImpl::DynRule(r), Some(adjoint)) => {
            F::call_dyn_reverse_rule(r, args, stores, value, adjoint)
        }
        (ReverseImpl::FromForward(r), Some(adjoint)) => {
            registry::reverse_from_forward(f, r, &args, &adjoint)
        }
    }
}
