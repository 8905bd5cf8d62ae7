//! Lazy dispatch from generated derivative code to whatever rule currently wins.
//!
//! Every call site in generated code owns a `static` [`CallSite`]. It caches the resolved rule
//! together with the epoch of the called function at resolution; the fast path is one atomic
//! load of the cache pointer, one of that function's epoch, and two compares, with no lock and no
//! lookup. A registration for the function bumps its epoch, so the next call through any site
//! that calls it resolves again and sees the new rule.
//!
//! In reverse mode the forward sweep of a call records one tape word naming the rule it ran,
//! and the reverse sweep finds that rule again, without a lock: at its call site, whose last
//! resolution carries the same word unless the rules changed in between, or else in an
//! append-only table of every resolution.

use crate::error::Error;
use crate::function::{Function, Swept, Tan};
use crate::registry::{self, ForwardImpl, Location, ReverseImpl, Validity};
use crate::tape::Tape;
use core::any::TypeId;
use core::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, PoisonError};

/// The header every cached resolution starts with.
#[repr(C)]
struct Header {
    /// The called function's epoch and the value it had at resolution.
    valid: Validity,
    /// `TypeId` of `(F, T)`: the function item `F` resolved and the `T` in the `Cached<T>` this
    /// header begins. Checked before the cast back, and so that a call site inside a generic
    /// function, one `static` for every instantiation, never takes one callee's resolution for
    /// another's (`helper::<f32>` and `helper::<f64>` may have rules of the same type).
    key: TypeId,
    /// For a call through a function pointer, the pointer: one pointer type stands for every
    /// function of that signature, and a call site that calls several (a function argument)
    /// must not take one's resolution for another's. 0 for a function item.
    address: usize,
    /// The resolution the call site had published before this one, for another callee or an
    /// older epoch: the site's list, which its slow path searches before resolving again.
    next: AtomicPtr<Header>,
}

#[repr(C)]
struct Cached<T> {
    header: Header,
    value: T,
}

impl<T: Send + Sync + 'static> Cached<T> {
    /// A resolution of the function item `F` that lives for the rest of the process: another
    /// thread may be calling the rule it holds, and the reverse sweep finds it again by its
    /// index.
    fn leak<F: 'static>(valid: Validity, value: T, address: usize) -> &'static Cached<T> {
        Box::leak(Box::new(Cached {
            header: Header {
                valid,
                key: TypeId::of::<(F, T)>(),
                address,
                next: AtomicPtr::new(ptr::null_mut()),
            },
            value,
        }))
    }

    fn header_ptr(&'static self) -> *mut Header {
        ptr::from_ref(self).cast::<Header>().cast_mut()
    }
}

impl<T: 'static> Cached<T> {
    /// The resolution that `header` begins, if it is of the function `F` (at `address`, unless
    /// that is [`ANY_ADDRESS`]) and holds a `T`.
    ///
    /// # Safety
    /// `header` must come from [`Cached::header_ptr`] (of a `Cached<U>` of any `U`), as every
    /// pointer stored in a [`CallSite`] or in [`RESOLUTIONS`] does.
    #[inline(always)]
    unsafe fn from_header<F: 'static>(
        header: *const Header,
        address: usize,
    ) -> Option<&'static Cached<T>> {
        // SAFETY: by the contract, `header` points to the start of a leaked `Cached<U>`, which is
        // never freed, and whose header's other fields are not written after it is published
        // (`next` is atomic); `Cached` is `repr(C)` with the header first, so reading the
        // header is valid whatever `U` is, and the `TypeId` of `(F, T)` matches only if `U` is
        // `T`, which makes the cast to `Cached<T>` exact (the pointer's provenance is the whole
        // `Cached<U>`).
        unsafe {
            // For a function item (`address` 0, a constant once inlined) the key alone tells:
            // the check of the address folds away.
            if (*header).key != TypeId::of::<(F, T)>()
                || (address != 0 && address != ANY_ADDRESS && (*header).address != address)
            {
                return None;
            }
            Some(&*header.cast::<Cached<T>>())
        }
    }
}

/// An address that matches every resolution's: where the tape's word names the resolution.
const ANY_ADDRESS: usize = usize::MAX;

/// The pointer, if `f` is a function pointer (see [`Header::address`]); 0 for a function item.
/// Decided by types: the compiler folds it to a constant for an item.
#[inline(always)]
fn address_of<F: Function<A>, A>(f: &F) -> usize {
    match (f as &dyn core::any::Any).downcast_ref::<F::Ptr>() {
        Some(ptr) => F::address(*ptr),
        None => 0,
    }
}

/// How many of a call site's last resolutions its slow path searches before resolving again.
const SEARCHED: usize = 8;

/// The cache of one call site in generated code.
#[doc(hidden)]
pub struct CallSite {
    /// Points to a leaked `Cached<T>` (see [`Cached::leak`]). One small allocation per site
    /// each time the called function's rules change.
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

    /// The last resolution published here, if it is of `F` and holds a `T`, valid or not.
    #[inline(always)]
    fn last<F: 'static, T: 'static>(&self, address: usize) -> Option<&'static Cached<T>> {
        let header = self.cache.load(Ordering::Acquire);
        if header.is_null() {
            return None;
        }
        // SAFETY: a non-null cache pointer is only ever stored by `publish`, from
        // `Cached::header_ptr`; the header it points to is never freed.
        unsafe { Cached::from_header::<F>(header, address) }
    }

    /// The cached resolution of `F` of type `T`, if it is the last one published here and is
    /// still valid: the fast path.
    #[inline(always)]
    fn get<F: 'static, T: 'static>(&self, address: usize) -> Option<&'static Cached<T>> {
        let cached = self.last::<F, T>(address)?;
        cached.header.valid.holds().then_some(cached)
    }

    /// A valid resolution of `F` of type `T` among the last few published here: a site of a
    /// generic function called at several instantiations keeps one for each.
    #[cold]
    fn find<F: 'static, T: 'static>(&self, address: usize) -> Option<&'static Cached<T>> {
        let mut header = self.cache.load(Ordering::Acquire);
        for _ in 0..SEARCHED {
            if header.is_null() {
                return None;
            }
            // SAFETY: every pointer in a site's list was published by `publish`, from
            // `Cached::header_ptr`, and is never freed.
            if let Some(cached) = unsafe { Cached::<T>::from_header::<F>(header, address) }
                && cached.header.valid.holds()
            {
                return Some(cached);
            }
            // SAFETY: as above.
            header = unsafe { &*header }.next.load(Ordering::Acquire);
        }
        None
    }

    /// Makes `cached` the site's last resolution, ahead of the ones before it. Two threads
    /// publishing at once may drop one of them from the list: it is then resolved again when
    /// next needed, which is correct, only slower.
    fn publish<T: Send + Sync + 'static>(&self, cached: &'static Cached<T>) {
        let before = self.cache.load(Ordering::Acquire);
        cached.header.next.store(before, Ordering::Release);
        self.cache.store(cached.header_ptr(), Ordering::Release);
    }

    fn set<F: 'static, T: Send + Sync + 'static>(
        &self,
        valid: Validity,
        value: T,
        address: usize,
    ) -> &'static Cached<T> {
        let cached = Cached::leak::<F>(valid, value, address);
        self.publish(cached);
        cached
    }
}

/// Calls the forward rule that currently wins for `f`, from generated code.
///
/// The fast path, a valid cached rule with a static signature, calls the rule with the
/// arguments and tangents as they are; everything else (a rule registered at run time, a rule
/// converted from reverse mode, a resolution) is out of line. The other kinds of rule take the
/// tuples by reference or through a trait object, and sharing their code here would keep the
/// tuples in memory on the fast path too: a 4-argument call then paid for copying them through
/// the stack.
#[inline(always)]
pub(crate) fn forward<F, A>(
    site: &'static CallSite,
    f: F,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
{
    if let Some(Cached {
        value: ForwardImpl::Static(rule),
        ..
    }) = site.get::<F, ForwardImpl<F::Sig>>(address_of(&f))
    {
        return F::call_forward(*rule, args, tangents);
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
    let address = address_of(&f);
    if let Some(cached) = site.find::<F, ForwardImpl<F::Sig>>(address) {
        return registry::call_forward(&cached.value, f, args, tangents);
    }
    match registry::resolve_forward_at(f, &args, site.caller, site.location) {
        Ok((valid, rule)) => registry::call_forward(
            &site.set::<F, _>(valid, rule, address).value,
            f,
            args,
            tangents,
        ),
        Err(error) => fail(&error),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fail(error: &Error) -> ! {
    panic!("{error}")
}

/// Generated code passes no slices to the functions it calls.
const SLICE_CALL: &str =
    "ad: a function with slice arguments was called back without adjoint buffers";

const OUT_OF_STEP: &str = "ad: a reverse sweep is out of step with its tape";

/// The high half of the tape word that records which rule a call ran, the low half being the
/// resolution's index in [`RESOLUTIONS`]: a tape out of step with its generated code is then
/// a panic with a message rather than a lookup of some other word.
const RECORD_TAG: u64 = 0xADAD_5EED << 32;

/// A reverse-mode resolution of a call site, with the tape word that names it.
struct Indexed<T> {
    word: u64,
    rule: T,
}

/// Every reverse-mode resolution any call site has made, by index. The forward sweep of a call
/// records the index of the rule it ran, and the reverse sweep, when its call site no longer
/// holds that resolution, looks it up here and checks its type: what comes off the tape is
/// never trusted as a pointer, only compared. Entries are few (one per call
/// site per change of its callee's rules) and live for the whole process.
///
/// The table only grows, and an entry never changes once written, so the reverse sweep reads
/// it without a lock: segment `s` holds `FIRST << s` entries, allocated when the first of them
/// is written and never freed or moved; a lock serialises the writers only.
struct Table {
    segments: [AtomicPtr<AtomicPtr<Header>>; SEGMENTS],
    /// The next free index.
    next: Mutex<usize>,
}

const FIRST_LOG: u32 = 6;
const FIRST: usize = 1 << FIRST_LOG;
/// Enough segments for every index below `usize::MAX - FIRST`.
const SEGMENTS: usize = (usize::BITS - FIRST_LOG) as usize;

static RESOLUTIONS: Table = Table {
    segments: [const { AtomicPtr::new(ptr::null_mut()) }; SEGMENTS],
    next: Mutex::new(0),
};

impl Table {
    /// The segment of entry `index` and its place in the segment, or `None` past the last.
    #[inline(always)]
    fn place(index: usize) -> Option<(usize, usize)> {
        let j = index.checked_add(FIRST)?;
        let segment = (j.ilog2() - FIRST_LOG) as usize;
        Some((segment, j - (FIRST << segment)))
    }

    /// Entry `index`, if it has been written.
    #[inline(always)]
    fn get(&self, index: usize) -> Option<*const Header> {
        let (segment, offset) = Self::place(index)?;
        let entries = self.segments[segment].load(Ordering::Acquire);
        if entries.is_null() {
            return None;
        }
        // SAFETY: a non-null segment pointer comes from leaking a boxed slice of
        // `FIRST << segment` entries in `push`, never freed, and `offset < FIRST << segment`.
        let entry = unsafe { &*entries.add(offset) }.load(Ordering::Acquire);
        (!entry.is_null()).then_some(entry.cast_const())
    }

    /// Leaks a resolution under the next index and writes it into the table. It is in the table
    /// before anyone can see it: a call site publishes it afterwards, so no tape can name an
    /// index that the reverse sweep will not find.
    fn push<F: 'static, R: Send + Sync + 'static>(
        &self,
        valid: Validity,
        rule: R,
        address: usize,
    ) -> &'static Cached<Indexed<R>> {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        let index = *next;
        let low = u32::try_from(index).expect("ad: more than 2^32 reverse-mode resolutions");
        let (segment, offset) = Self::place(index).expect("an index below 2^32 has a place");
        let mut entries = self.segments[segment].load(Ordering::Acquire);
        if entries.is_null() {
            let fresh: Box<[AtomicPtr<Header>]> = (0..FIRST << segment)
                .map(|_| AtomicPtr::new(ptr::null_mut()))
                .collect();
            entries = Box::leak(fresh).as_mut_ptr();
            self.segments[segment].store(entries, Ordering::Release);
        }
        let word = RECORD_TAG | u64::from(low);
        let cached = Cached::leak::<F>(valid, Indexed { word, rule }, address);
        // SAFETY: as in `get`; the segment holds `FIRST << segment` entries.
        unsafe { &*entries.add(offset) }.store(cached.header_ptr(), Ordering::Release);
        *next = index + 1;
        cached
    }
}

/// How many reverse-mode resolutions call sites have made so far in this process: what tests
/// use to show that a site does not resolve again without a change of rules.
#[doc(hidden)]
pub fn reverse_resolutions() -> usize {
    *RESOLUTIONS
        .next
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The forward sweep of a call through the registry in reverse mode: runs the winning reverse
/// rule's forward part and records on the tape which rule that was (one word), so that the
/// reverse sweep uses the same one even if the registry changes in between.
#[inline(always)]
pub(crate) fn augmented<F, A>(site: &'static CallSite, f: F, tape: &mut Tape, args: A) -> F::Output
where
    F: Function<A>,
{
    let cached = match site.get::<F, Indexed<ReverseImpl<F::Sig>>>(address_of(&f)) {
        Some(cached) => cached,
        None => resolve_reverse(site, f, &args),
    };
    let value = match &cached.value.rule {
        ReverseImpl::Generated(r) => {
            // The forward sweep writes no adjoints: empty buffers.
            let mut stores = F::empty_stores();
            F::call_reverse(*r, args, &mut stores, tape, None, false, &mut None).value()
        }
        rule => augmented_other(rule, f, tape, args),
    };
    tape.push(cached.value.word);
    value
}

#[cold]
#[inline(never)]
fn resolve_reverse<F, A>(
    site: &'static CallSite,
    f: F,
    args: &A,
) -> &'static Cached<Indexed<ReverseImpl<F::Sig>>>
where
    F: Function<A>,
{
    let address = address_of(&f);
    if let Some(cached) = site.find::<F, Indexed<ReverseImpl<F::Sig>>>(address) {
        return cached;
    }
    match registry::resolve_reverse_at(f, args, site.caller, site.location) {
        Ok((valid, rule)) => {
            let cached = RESOLUTIONS.push::<F, _>(valid, rule, address);
            site.publish(cached);
            cached
        }
        Err(error) => fail(&error),
    }
}

/// The forward sweep of a call whose rule is not a generated derivative.
#[cold]
#[inline(never)]
fn augmented_other<F, A>(rule: &ReverseImpl<F::Sig>, f: F, tape: &mut Tape, args: A) -> F::Output
where
    F: Function<A>,
{
    match rule {
        ReverseImpl::Generated(r) => {
            let mut stores = F::empty_stores();
            F::call_reverse(*r, args, &mut stores, tape, None, false, &mut None).value()
        }
        ReverseImpl::Split(r) => crate::function::augment::<F, A>(r, args, tape),
        ReverseImpl::Rule(_) | ReverseImpl::DynRule(_) | ReverseImpl::FromForward(_) => {
            f.call(args)
        }
    }
}

/// The rule that the forward sweep of a call at `site` recorded on the tape.
///
/// Usually the one the site still caches: its word is compared with the tape's, with loads
/// that do not wait for the tape. Otherwise (the rules changed between the sweeps, or a tape
/// from elsewhere) the word is looked up in the table.
#[inline(always)]
fn recorded<F, A>(site: &'static CallSite, tape: &mut Tape) -> &'static ReverseImpl<F::Sig>
where
    F: Function<A>,
{
    let word = tape.pop::<u64>();
    // The tape's word names the resolution: no address to compare.
    match site.last::<F, Indexed<ReverseImpl<F::Sig>>>(ANY_ADDRESS) {
        Some(cached) if cached.value.word == word => &cached.value.rule,
        _ => looked_up::<F, A>(word),
    }
}

/// The rule that the tape word `word` names, from the table.
#[cold]
#[inline(never)]
fn looked_up<F, A>(word: u64) -> &'static ReverseImpl<F::Sig>
where
    F: Function<A>,
{
    if word & !u64::from(u32::MAX) != RECORD_TAG {
        out_of_step();
    }
    let index = (word & u64::from(u32::MAX)) as usize;
    let Some(header) = RESOLUTIONS.get(index) else {
        out_of_step()
    };
    // SAFETY: every entry of the table comes from `Cached::header_ptr`.
    match unsafe { Cached::<Indexed<ReverseImpl<F::Sig>>>::from_header::<F>(header, ANY_ADDRESS) } {
        Some(cached) => &cached.value.rule,
        None => out_of_step(),
    }
}

#[cold]
#[inline(never)]
fn out_of_step() -> ! {
    panic!("{OUT_OF_STEP}")
}

/// The reverse sweep of a call recorded by [`augmented`]. With no adjoint (the call's value
/// is not used, or its adjoint is zero), the callee's records are only popped.
#[inline(always)]
pub(crate) fn backward<F, A>(
    site: &'static CallSite,
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
    backward_with(site, f, tape, args, &mut stores, value, adjoint)
}

/// The reverse sweep of a call whose slice arguments come with the caller's adjoint buffers.
#[inline(always)]
pub(crate) fn backward_into<F, A>(
    site: &'static CallSite,
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
    let gradient = backward_with(site, f, tape, args, &mut stores, value, adjoint);
    F::stores_into(stores, bars);
    gradient
}

/// As [`backward_into`], with the caller's adjoints of the structs passed by reference moved
/// in as `seeds` and returned, summed, in the gradient.
#[inline(always)]
pub(crate) fn backward_seeded<F, A>(
    site: &'static CallSite,
    f: F,
    tape: &mut Tape,
    args: A,
    (bars, seeds): (F::Bars, F::Seeds),
    value: F::Output,
    adjoint: Option<crate::function::Tan<F::Output>>,
) -> F::Gradient
where
    F: Function<A>,
{
    let mut stores = F::stores_from(&bars);
    F::seed_stores(&mut stores, seeds);
    let gradient = backward_with(site, f, tape, args, &mut stores, value, adjoint);
    let gradient = F::merge_stores(gradient, &mut stores);
    F::stores_into(stores, bars);
    gradient
}

#[inline(always)]
fn backward_with<F, A>(
    site: &'static CallSite,
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
    let rule = recorded::<F, A>(site, tape);
    // A function with slices gets adjoints through its buffers as well as through its value:
    // its rule runs even when the value has none.
    let adjoint = match adjoint {
        None if F::BUFFERS => Some(crate::Differentiable::zero_tangent(&value)),
        other => other,
    };
    // Both paths end in the place where the generated derivative writes its result, and the
    // gradient is taken out of it once: with a place of its own for the other path's result,
    // the gradient was copied there in pieces wider than the callee wrote it, which stalls
    // store-to-load forwarding.
    let swept = if let ReverseImpl::Generated(r) = rule {
        // With no adjoint: the reverse sweep without a seed, which only pops.
        let discard = adjoint.is_none();
        F::call_reverse(*r, args, stores, tape, adjoint, discard, &mut None)
    } else {
        Swept::Gradient(backward_other(f, rule, tape, args, stores, value, adjoint))
    };
    swept.gradient()
}

/// The reverse sweep of a call whose rule is not a generated derivative.
#[cold]
#[inline(never)]
fn backward_other<F, A>(
    f: F,
    rule: &ReverseImpl<F::Sig>,
    tape: &mut Tape,
    args: A,
    stores: &mut F::Stores,
    value: F::Output,
    adjoint: Option<crate::function::Tan<F::Output>>,
) -> F::Gradient
where
    F: Function<A>,
{
    match (rule, adjoint) {
        (ReverseImpl::Generated(r), adjoint) => {
            let discard = adjoint.is_none();
            F::call_reverse(*r, args, stores, tape, adjoint, discard, &mut None).gradient()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    static EPOCH: AtomicU64 = AtomicU64::new(0);

    /// Entries written across several segments are each found under their own word, with
    /// their own value; a word past the last written, or an entry asked for with another type,
    /// is not found.
    #[test]
    fn the_table_finds_every_entry_by_its_word() {
        let valid = Validity {
            epoch: &EPOCH,
            seen: 0,
        };
        let pushed: Vec<(u64, usize)> = (0..3 * FIRST + 5)
            .map(|i| (RESOLUTIONS.push::<(), _>(valid, i, 0).value.word, i))
            .collect();
        for &(word, value) in &pushed {
            assert_eq!(word & !u64::from(u32::MAX), RECORD_TAG);
            let header = RESOLUTIONS
                .get((word & u64::from(u32::MAX)) as usize)
                .expect("written");
            // SAFETY: entries of the table come from `Cached::header_ptr`.
            let cached =
                unsafe { Cached::<Indexed<usize>>::from_header::<()>(header, ANY_ADDRESS) }
                    .expect("a usize");
            assert_eq!((cached.value.word, cached.value.rule), (word, value));
            // SAFETY: as above.
            assert!(
                unsafe { Cached::<Indexed<u32>>::from_header::<()>(header, ANY_ADDRESS) }.is_none()
            );
            // SAFETY: as above.
            assert!(
                unsafe { Cached::<Indexed<usize>>::from_header::<u8>(header, ANY_ADDRESS) }
                    .is_none()
            );
        }
        let next = *RESOLUTIONS.next.lock().unwrap();
        assert!(RESOLUTIONS.get(next).is_none());
        assert!(RESOLUTIONS.get(usize::MAX).is_none());
    }
}
