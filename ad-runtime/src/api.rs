//! The user-facing entry points.

use crate::dispatch::fail;
use crate::error::Error;
use crate::function::{Function, Tan};
use crate::registry::{self, Location, Mode, ReverseImpl, Validity};
use crate::tangent::Seed;
use crate::tape::Tape;
use core::any::{Any, TypeId};
use std::sync::Arc;

/// Forward mode: the value of `f` at `args` and its directional derivative along `tangents`.
///
/// `args` is the tuple of arguments, `tangents` the tuple of their tangents (a float's tangent is
/// a float of the same type; an integer's or a bool's is [`NoTangent`](crate::NoTangent)). The
/// derivative is found through the registry, so `f` may be a `#[differentiable]` function, a
/// function with a `#[custom_rule(forward, ..)]` or one with a rule registered at run time.
///
/// ```
/// #[ad::differentiable]
/// fn g(x: f64, y: f64) -> f64 { x * x * y.sin() }
///
/// // d/dt g(1 + t, 2) at t = 0 is 2 x sin(y)
/// let (value, tangent) = ad::jvp(g, (1.0, 2.0), (1.0, 0.0));
/// assert_eq!(value, 2.0_f64.sin());
/// assert!((tangent - 2.0 * 2.0_f64.sin()).abs() < 1e-15);
/// ```
///
/// # Panics
/// If `f`, or a function that its derivative calls, has no forward derivative, or has two
/// conflicting `#[custom_rule]`s; the message names the function and the fix. [`try_jvp`] returns
/// these as an [`Error`] instead.
#[track_caller]
#[inline(always)]
pub fn jvp<F, A>(f: F, args: A, tangents: F::Tangents) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
{
    let location = Location::caller();
    if let Err(error) = check_tangents::<F, A>(&args, &tangents, "ad::jvp", location) {
        fail(&error);
    }
    with_cached::<F, A, _, _>(
        Mode::Forward,
        args,
        |args| registry::resolve_forward_at(f, args, "ad::jvp", location),
        |rule, args| registry::call_forward(rule, f, args, tangents),
    )
}

/// A resolution of an entry point, kept per thread.
struct Entry {
    key: TypeId,
    mode: Mode,
    /// Valid while the function's epoch reads what it read (a rule registered or dropped since
    /// bumps it).
    valid: Validity,
    /// `TypeId` of the resolution's type `T`, and where that `T` is: inside `rule`.
    type_id: TypeId,
    typed: *const (),
    rule: Arc<dyn Any + Send + Sync>,
}

/// Resolutions of the entry points, per thread, by function and mode.
struct Entries {
    list: Vec<Entry>,
    /// The resolutions that entry points running on this thread (nested ones included) are
    /// using, one element per running entry point.
    in_use: Vec<*const ()>,
    /// Resolutions taken out of `list` while an entry point was using them: each is freed when
    /// the last entry point using it returns, so that no running rule is freed under it, and
    /// no other is kept (at most one per running entry point).
    retired: Vec<Arc<dyn Any + Send + Sync>>,
}

thread_local! {
    static ENTRIES: core::cell::RefCell<Entries> = const {
        core::cell::RefCell::new(Entries { list: Vec::new(), in_use: Vec::new(), retired: Vec::new() })
    };
}

/// How many resolutions a thread keeps; the least recently used goes first.
const ENTRIES_KEPT: usize = 64;

impl Entries {
    /// The place of the valid resolution of the function `key` in `mode`, of type `T`.
    #[inline(always)]
    fn position<T: 'static>(&self, key: TypeId, mode: Mode) -> Option<usize> {
        self.list.iter().position(|e| {
            e.key == key && e.mode == mode && e.type_id == TypeId::of::<T>() && e.valid.holds()
        })
    }

    /// The valid resolution of the function `key` in `mode`, of type `T`, moved to the front:
    /// the list is kept in order of use, so that a function called in a loop is found first.
    #[inline(always)]
    fn find<T: 'static>(&mut self, key: TypeId, mode: Mode) -> Option<&Entry> {
        let at = self.position::<T>(key, mode)?;
        if at > 0 {
            self.list[..=at].rotate_right(1);
        }
        self.list.first()
    }

    /// Keeps those of `gone` that a running entry point uses, to be freed when it returns, and
    /// returns the others, to be freed now (outside the borrow of the cache: a rule's closure
    /// may own a guard whose drop comes back here).
    fn retire(&mut self, gone: Vec<Arc<dyn Any + Send + Sync>>) -> Vec<Arc<dyn Any + Send + Sync>> {
        if self.in_use.is_empty() {
            return gone;
        }
        let (used, free): (Vec<_>, Vec<_>) = gone
            .into_iter()
            .partition(|rule| self.in_use.contains(&Arc::as_ptr(rule).cast::<()>()));
        self.retired.extend(used);
        free
    }
}

/// Resolves `F` in `mode`, keeps the resolution at the front of this thread's cache and
/// hands that entry to `take`. `take` gets it even if a registration made it stale meanwhile:
/// the call that asked for it started before that registration returned.
#[cold]
#[inline(never)]
fn insert<F, A, T, R>(
    mode: Mode,
    resolve: impl FnOnce() -> Result<(Validity, T), Error>,
    take: impl FnOnce(&mut Entries) -> R,
) -> Result<R, Error>
where
    F: Function<A>,
    T: Send + Sync + 'static,
{
    let key = TypeId::of::<F>();
    // Stale resolutions go first: a dropped run-time rule's closure (and what it owns, such as
    // another rule's guard) must not outlive its registration in this cache longer than the
    // entry points that run it.
    let free = ENTRIES.with(|entries| {
        let mut entries = entries.borrow_mut();
        let (stale, fresh): (Vec<Entry>, Vec<Entry>) =
            entries.list.drain(..).partition(|e| !e.valid.holds());
        entries.list = fresh;
        let gone = stale.into_iter().map(|e| e.rule).collect();
        entries.retire(gone)
    });
    drop(free);
    let (valid, rule) = resolve()?;
    let rule = Arc::new(rule);
    let free = ENTRIES.with(|entries| {
        let mut entries = entries.borrow_mut();
        let mut gone = Vec::new();
        let mut kept = Vec::with_capacity(entries.list.len() + 1);
        for e in entries.list.drain(..) {
            if e.key == key && e.mode == mode {
                gone.push(e.rule);
            } else {
                kept.push(e);
            }
        }
        // The least recently used goes.
        if kept.len() >= ENTRIES_KEPT
            && let Some(last) = kept.pop()
        {
            gone.push(last.rule);
        }
        entries.list = kept;
        entries.list.insert(
            0,
            Entry {
                key,
                mode,
                valid,
                type_id: TypeId::of::<T>(),
                typed: Arc::as_ptr(&rule).cast::<()>(),
                rule,
            },
        );
        let taken = take(&mut entries);
        (entries.retire(gone), taken)
    });
    let (free, taken) = free;
    drop(free);
    Ok(taken)
}

/// Marks the resolution at this address as used by an entry point running on this thread,
/// while it lives.
struct Running(*const ());

impl Drop for Running {
    #[inline]
    fn drop(&mut self) {
        let free = ENTRIES
            .try_with(|entries| {
                let mut entries = entries.borrow_mut();
                if let Some(at) = entries.in_use.iter().rposition(|&p| p == self.0) {
                    entries.in_use.swap_remove(at);
                }
                // A closure dropped while unwinding could panic again: those wait for a later
                // entry point to return.
                if entries.retired.is_empty() || std::thread::panicking() {
                    return Vec::new();
                }
                let retired = core::mem::take(&mut entries.retired);
                let (used, free): (Vec<_>, Vec<_>) = retired
                    .into_iter()
                    .partition(|rule| entries.in_use.contains(&Arc::as_ptr(rule).cast::<()>()));
                entries.retired = used;
                free
            })
            .unwrap_or_default();
        drop(free);
    }
}

/// Runs `body` on the resolution of `F` in `mode`, from this thread's cache while valid: no
/// lock, no reference count, no virtual call on a hit; panics with the error if `F` does not
/// resolve. A function pointer's key is its address, not its type, so those are resolved every
/// time.
///
/// `body`'s result is returned as it is, not wrapped: moved into a `Result`, a result returned
/// through memory was copied in pieces wider than the rule wrote it, which stalls
/// store-to-load forwarding.
#[track_caller]
#[inline(always)]
fn with_cached<F, A, T, R>(
    mode: Mode,
    args: A,
    resolve: impl FnOnce(&A) -> Result<(Validity, T), Error>,
    body: impl FnOnce(&T, A) -> R,
) -> R
where
    F: Function<A>,
    T: Send + Sync + 'static,
{
    // A library loaded since the last entry point may have brought rules.
    registry::refresh();
    let key = TypeId::of::<F>();
    if key == TypeId::of::<F::Ptr>() {
        return match resolve(&args) {
            Ok((_, rule)) => body(&rule, args),
            Err(error) => fail(&error),
        };
    }
    let enter = |entries: &mut Entries, typed: *const ()| {
        entries.in_use.push(typed);
        (typed.cast::<T>(), Running(typed))
    };
    let hit = ENTRIES.with(|entries| {
        let mut entries = entries.borrow_mut();
        let typed = entries.find::<T>(key, mode)?.typed;
        Some(enter(&mut entries, typed))
    });
    let (typed, running) = match hit {
        Some(hit) => hit,
        // The entry just made is the first, of type `T`.
        None => match insert::<F, A, T, _>(
            mode,
            || resolve(&args),
            |entries| {
                let typed = entries.list[0].typed;
                enter(entries, typed)
            },
        ) {
            Ok(entered) => entered,
            Err(error) => fail(&error),
        },
    };
    // SAFETY: `typed` points to the `T` inside the `Arc<T>` of an entry of this thread's cache
    // (`find` checked that its type is `T`, or `insert` just made it from a `T`). `enter` put
    // the address in `in_use`, where it stays until `running` is dropped after `body` returns;
    // while it is there, that `Arc` stays in `list` or, once taken out, in `retired` (see
    // `Entries::retire` and `Running::drop`). `body` cannot keep the reference, whose lifetime
    // ends with the call, and entries are thread-local, so no other thread frees it.
    let result = body(unsafe { &*typed }, args);
    drop(running);
    result
}

/// The resolution of `F` in `mode`, from this thread's cache while valid, shared: for a
/// pullback, which outlives the entry point.
fn cached<F, A, T>(
    mode: Mode,
    resolve: impl FnOnce() -> Result<(Validity, T), Error>,
) -> Result<Arc<T>, Error>
where
    F: Function<A>,
    T: Send + Sync + 'static,
{
    // A library loaded since the last entry point may have brought rules.
    registry::refresh();
    let key = TypeId::of::<F>();
    if key == TypeId::of::<F::Ptr>() {
        return resolve().map(|(_, rule)| Arc::new(rule));
    }
    let hit = ENTRIES.with(|entries| {
        let mut entries = entries.borrow_mut();
        entries.find::<T>(key, mode).map(|e| e.rule.clone())
    });
    let rule = match hit {
        Some(rule) => rule,
        None => insert::<F, A, T, _>(mode, resolve, |entries| entries.list[0].rule.clone())?,
    };
    Ok(rule
        .downcast::<T>()
        .unwrap_or_else(|_| unreachable!("ad: the entry's type was checked or just made")))
}

/// The arguments' tangents must have the arguments' shapes.
fn check_tangents<F: Function<A>, A>(
    args: &A,
    tangents: &F::Tangents,
    entry: &'static str,
    location: Location,
) -> Result<(), Error> {
    F::check_tangents(args, tangents).map_err(|(position, mismatch)| Error::ShapeMismatch {
        function: core::any::type_name::<F>().to_owned(),
        entry,
        argument: Some(position),
        path: mismatch.path,
        expected: mismatch.expected,
        found: mismatch.found,
        location,
    })
}

/// The result's adjoint must have the result's shape.
fn check_adjoint<F: Function<A>, A>(
    value: &F::Output,
    adjoint: &Tan<F::Output>,
    entry: &'static str,
    location: Location,
) -> Result<(), Error> {
    crate::Differentiable::check_tangent(value, adjoint).map_err(|mismatch| Error::ShapeMismatch {
        function: core::any::type_name::<F>().to_owned(),
        entry,
        argument: None,
        path: mismatch.path,
        expected: mismatch.expected,
        found: mismatch.found,
        location,
    })
}

/// Like [`jvp`], but first checks that `f` and every function its derivative calls resolve, and
/// returns a missing or conflicting rule as an [`Error`] instead of panicking.
///
/// ```
/// #[ad::differentiable]
/// fn g(x: f64) -> f64 { helper(x) * 2.0 }
///
/// fn helper(x: f64) -> f64 { x + 1.0 } // no derivative anywhere
///
/// let err = ad::try_jvp(g, (1.0,), (1.0,)).unwrap_err();
/// assert!(err.to_string().contains("helper"));
/// ```
///
/// A rule removed by another thread between the check and the call can still make the call panic.
#[track_caller]
pub fn try_jvp<F, A>(
    f: F,
    args: A,
    tangents: F::Tangents,
) -> Result<(F::Output, Tan<F::Output>), Error>
where
    F: Function<A>,
{
    let location = Location::caller();
    check_tangents::<F, A>(&args, &tangents, "ad::try_jvp", location)?;
    let (_, rule) = registry::resolve_forward_at(f, &args, "ad::try_jvp", location)?;
    registry::check_function(f, Mode::Forward, "ad::try_jvp", location)?;
    Ok(registry::call_forward(&rule, f, args, tangents))
}

thread_local! {
    /// One tape per thread, reused: a warm gradient allocates nothing.
    static TAPE: core::cell::Cell<Option<Tape>> = const { core::cell::Cell::new(None) };
}

/// Runs `body` with this thread's tape (or a new one, if a gradient is already running here).
fn with_tape<R>(body: impl FnOnce(&mut Tape) -> R) -> R {
    let mut tape = TAPE.with(core::cell::Cell::take).unwrap_or_default();
    tape.clear();
    let result = body(&mut tape);
    LAST_HIGH_WATER.with(|h| h.set(tape.high_water()));
    TAPE.with(|t| t.set(Some(tape)));
    result
}

thread_local! {
    static LAST_HIGH_WATER: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// The most words the tape held during the last gradient on this thread: what tests use to
/// show what goes on the tape.
#[doc(hidden)]
pub fn last_tape_high_water() -> usize {
    LAST_HIGH_WATER.with(core::cell::Cell::get)
}

/// The forward sweep of `f` at `args`, with the tape it leaves for the reverse sweep.
fn forward_sweep<F, A>(
    f: F,
    args: A,
    stores: &mut F::Stores,
    tape: &mut Tape,
    rule: &ReverseImpl<F::Sig>,
) -> F::Output
where
    F: Function<A>,
{
    match rule {
        ReverseImpl::Generated(r) => {
            F::call_reverse(*r, args, stores, tape, None, false, &mut None).value()
        }
        ReverseImpl::Split(r) => crate::function::augment::<F, A>(r, args, tape),
        ReverseImpl::Rule(_) | ReverseImpl::DynRule(_) | ReverseImpl::FromForward(_) => {
            f.call(args)
        }
    }
}

fn reverse_sweep<F, A>(
    f: F,
    args: A,
    stores: &mut F::Stores,
    value: F::Output,
    adjoint: Tan<F::Output>,
    tape: &mut Tape,
    rule: &ReverseImpl<F::Sig>,
) -> F::Gradient
where
    F: Function<A>,
{
    match rule {
        ReverseImpl::Generated(r) => {
            F::call_reverse(*r, args, stores, tape, Some(adjoint), false, &mut None).gradient()
        }
        ReverseImpl::Rule(r) => F::call_reverse_rule(*r, args, stores, value, adjoint),
        ReverseImpl::DynRule(r) => F::call_dyn_reverse_rule(r, args, stores, value, adjoint),
        ReverseImpl::FromForward(r) => registry::reverse_from_forward(f, r, &args, &adjoint),
        ReverseImpl::Split(r) => crate::function::back::<F, A>(r, tape, adjoint),
    }
}

/// Both sweeps with `adjoint` as the seed, the slices' adjoints accumulating in `stores`.
fn joint_sweeps<F, A>(
    f: F,
    args: A,
    stores: &mut F::Stores,
    adjoint: Tan<F::Output>,
    tape: &mut Tape,
    rule: &ReverseImpl<F::Sig>,
) -> (F::Output, F::Gradient)
where
    F: Function<A>,
{
    if let ReverseImpl::Generated(r) = rule {
        let mut value = None;
        let gradient =
            F::call_reverse(*r, args, stores, tape, Some(adjoint), true, &mut value).gradient();
        debug_assert!(
            tape.is_empty(),
            "ad: a reverse sweep left words on the tape"
        );
        return (
            value.expect("ad: a joint sweep returns its value"),
            gradient,
        );
    }
    let copy = F::clone_args(&args).expect(
        "ad: a rule that is not generated by #[differentiable] needs its arguments twice, which a `&mut` slice cannot give",
    );
    let value = forward_sweep(f, copy, stores, tape, rule);
    let gradient = reverse_sweep(
        f,
        args,
        stores,
        F::clone_output(&value),
        adjoint,
        tape,
        rule,
    );
    debug_assert!(
        tape.is_empty(),
        "ad: a reverse sweep left words on the tape"
    );
    (value, gradient)
}

/// Runs `body` on the reverse rule of `f`, or panics with the resolution's error.
#[track_caller]
#[inline(always)]
fn with_reverse_or_panic<F: Function<A>, A, R>(
    f: F,
    args: A,
    entry: &str,
    body: impl FnOnce(&ReverseImpl<F::Sig>, A) -> R,
) -> R {
    let location = Location::caller();
    with_cached::<F, A, _, _>(
        Mode::Reverse,
        args,
        |args| registry::resolve_reverse_at(f, args, entry, location),
        body,
    )
}

#[track_caller]
fn resolve_reverse_or_panic<F: Function<A>, A>(
    f: F,
    args: &A,
    entry: &str,
) -> Arc<ReverseImpl<F::Sig>> {
    let location = Location::caller();
    match cached::<F, A, _>(Mode::Reverse, || {
        registry::resolve_reverse_at(f, args, entry, location)
    }) {
        Ok(rule) => rule,
        Err(error) => fail(&error),
    }
}

/// Reverse mode: the value of `f` at `args` and its gradient, the tuple of the adjoints of the
/// arguments (an integer's or a `bool`'s adjoint is [`NoTangent`](crate::NoTangent)).
///
/// `f` returns `f64` or `f32`. The gradient costs a small multiple of one evaluation of `f`,
/// whatever the number of arguments: the forward sweep records on a tape what the reverse sweep
/// needs.
///
/// ```
/// #[ad::differentiable]
/// fn rosenbrock(x: f64, y: f64) -> f64 {
///     (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
/// }
///
/// let (value, (dx, dy)) = ad::value_and_grad(rosenbrock, (1.0, 1.0));
/// assert_eq!((value, dx, dy), (0.0, 0.0, 0.0)); // the minimum
/// let (_, (dx, dy)) = ad::value_and_grad(rosenbrock, (0.0, 0.0));
/// assert_eq!((dx, dy), (-2.0, 0.0));
/// ```
///
/// # Panics
/// If `f`, or a function that its derivative calls, has no reverse derivative, or has two
/// conflicting `#[custom_rule]`s; the message names the function and the fix.
#[track_caller]
pub fn value_and_grad<F, A>(f: F, args: A) -> (F::Output, F::Grads)
where
    F: Function<A>,
    Tan<F::Output>: Seed,
{
    with_reverse_or_panic(f, args, "ad::value_and_grad", |rule, args| {
        gradient_with(f, args, rule)
    })
}

/// Both sweeps seeded with 1, with buffers allocated for the slices' adjoints.
fn gradient_with<F, A>(f: F, args: A, rule: &ReverseImpl<F::Sig>) -> (F::Output, F::Grads)
where
    F: Function<A>,
    Tan<F::Output>: Seed,
{
    let mut stores = F::stores(&args);
    let (value, gradient) =
        with_tape(|tape| joint_sweeps(f, args, &mut stores, Seed::unit(), tape, rule));
    (value, F::grads(gradient, stores))
}

/// Reverse mode: the gradient of `f` at `args`; see [`value_and_grad`].
///
/// ```
/// #[ad::differentiable]
/// fn dist(x: f64, y: f64) -> f64 { x.hypot(y) }
///
/// assert_eq!(ad::grad(dist, (3.0, 4.0)), (0.6, 0.8));
/// ```
#[track_caller]
pub fn grad<F, A>(f: F, args: A) -> F::Grads
where
    F: Function<A>,
    Tan<F::Output>: Seed,
{
    value_and_grad(f, args).1
}

/// Reverse mode: the value of `f` at `args` and its pullback, which maps an adjoint of the
/// value to the adjoints of the arguments. The pullback can be called any number of times, say
/// once per output for a Jacobian; each call runs only the reverse sweep.
///
/// ```
/// #[ad::differentiable]
/// fn polar(r: f64, t: f64) -> (f64, f64) { (r * t.cos(), r * t.sin()) }
///
/// let (xy, pullback) = ad::vjp(polar, (2.0, 0.0));
/// assert_eq!(xy, (2.0, 0.0));
/// assert_eq!(pullback((1.0, 0.0)), (1.0, 0.0)); // the first row of the Jacobian: dx/dr, dx/dt
/// assert_eq!(pullback((0.0, 1.0)), (0.0, 2.0)); // the second: dy/dr, dy/dt
/// ```
#[track_caller]
pub fn vjp<F, A>(f: F, args: A) -> (F::Output, impl Fn(Tan<F::Output>) -> F::Grads)
where
    F: Function<A>,
    A: Clone,
{
    let rule = resolve_reverse_or_panic(f, &args, "ad::vjp");
    pullback_with(f, args, rule, "ad::vjp", Location::caller())
}

/// The forward sweep now, on a tape of its own, and a pullback that replays the reverse sweep
/// from a copy of that tape.
fn pullback_with<F, A>(
    f: F,
    args: A,
    rule: Arc<ReverseImpl<F::Sig>>,
    entry: &'static str,
    location: Location,
) -> (F::Output, impl Fn(Tan<F::Output>) -> F::Grads)
where
    F: Function<A>,
    A: Clone,
{
    let mut stores = F::empty_stores();
    // The sweep runs on this thread's warm tape; the pullback keeps a copy of exactly its size
    // (one allocation, not one per doubling), and replays it on the warm tape again.
    let (value, tape) = with_tape(|tape| {
        let value = forward_sweep(f, args.clone(), &mut stores, tape, &rule);
        (value, tape.clone())
    });
    let recorded = F::clone_output(&value);
    let pullback = move |adjoint: Tan<F::Output>| {
        if let Err(error) = check_adjoint::<F, A>(&recorded, &adjoint, entry, location) {
            fail(&error);
        }
        let mut stores = F::stores(&args);
        let gradient = with_tape(|scratch| {
            scratch.clone_from(&tape);
            reverse_sweep(
                f,
                args.clone(),
                &mut stores,
                F::clone_output(&recorded),
                adjoint,
                scratch,
                &rule,
            )
        });
        F::grads(gradient, stores)
    };
    (value, pullback)
}

/// Reverse mode with the caller's adjoint buffers, for functions that write into `&mut [T]`
/// outputs: runs `f` at `args` (writing its outputs), then adds the adjoints of the arguments to
/// `bars`. Each slice argument comes with a buffer of its length (`()` for a value argument): a
/// `&[T]` input's buffer receives its adjoint (`+=`); a `&mut [T]` output's buffer holds the
/// adjoint of what `f` writes there, and is consumed: on return it holds the adjoint of what
/// the buffer held on entry, zero when `f` writes each element before reading it. `adjoint` is
/// the adjoint of the returned value. Returns the value and the value arguments' adjoints.
///
/// ```
/// /// y = A x for a 2 x 2 matrix, written into `y`.
/// #[ad::differentiable]
/// fn matvec(a: [f64; 4], x: [f64; 2], y: &mut [f64]) {
///     for i in 0..2 {
///         y[i] = a[2 * i] * x[0] + a[2 * i + 1] * x[1];
///     }
/// }
///
/// let mut y = [0.0; 2];
/// let mut y_bar = [1.0, 0.0]; // the adjoint of y: select y[0]
/// let ((), (a_bar, x_bar, _)) =
///     ad::vjp_into(matvec, ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0], &mut y[..]), ((), (), &mut y_bar[..]), ad::NoTangent);
/// assert_eq!(y, [17.0, 39.0]);
/// assert_eq!(x_bar, [1.0, 2.0]); // the first row of A
/// assert_eq!(a_bar, [5.0, 6.0, 0.0, 0.0]);
/// assert_eq!(y_bar, [0.0, 0.0]); // consumed
/// ```
///
/// # Panics
/// As [`value_and_grad`]; also if a tangent buffer's length differs from its slice's.
#[track_caller]
pub fn vjp_into<F, A>(
    f: F,
    args: A,
    bars: F::Bars,
    adjoint: Tan<F::Output>,
) -> (F::Output, F::Gradient)
where
    F: Function<A>,
{
    with_reverse_or_panic(f, args, "ad::vjp_into", |rule, args| {
        let mut stores = F::stores_from(&bars);
        let (value, gradient) =
            with_tape(|tape| joint_sweeps(f, args, &mut stores, adjoint, tape, rule));
        F::stores_into(stores, bars);
        (value, gradient)
    })
}

/// Like [`value_and_grad`], but first checks that `f` and every function its reverse derivative
/// calls resolve, and returns a missing or conflicting rule as an [`Error`] instead of panicking.
///
/// ```
/// fn helper(x: f64) -> f64 { x + 1.0 } // no derivative anywhere
///
/// #[ad::differentiable]
/// fn g(x: f64) -> f64 { helper(x) * 2.0 }
///
/// let err = ad::try_value_and_grad(g, (1.0,)).unwrap_err();
/// assert!(err.to_string().contains("no reverse-mode derivative"));
/// ```
#[track_caller]
pub fn try_value_and_grad<F, A>(f: F, args: A) -> Result<(F::Output, F::Grads), Error>
where
    F: Function<A>,
    Tan<F::Output>: Seed,
{
    let location = Location::caller();
    let (_, rule) = registry::resolve_reverse_at(f, &args, "ad::try_value_and_grad", location)?;
    registry::check_function(f, Mode::Reverse, "ad::try_value_and_grad", location)?;
    Ok(gradient_with(f, args, &rule))
}

/// Like [`vjp`], but returns a missing or conflicting rule as an [`Error`]; see
/// [`try_value_and_grad`].
///
/// ```
/// #[ad::differentiable]
/// fn twice(x: f64) -> (f64, f64) { (x, 2.0 * x) }
///
/// let (_, pullback) = ad::try_vjp(twice, (1.0,)).unwrap();
/// assert_eq!(pullback((1.0, 1.0)), (3.0,));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn try_vjp<F, A>(
    f: F,
    args: A,
) -> Result<(F::Output, impl Fn(Tan<F::Output>) -> F::Grads), Error>
where
    F: Function<A>,
    A: Clone,
{
    let location = Location::caller();
    let (_, rule) = registry::resolve_reverse_at(f, &args, "ad::try_vjp", location)?;
    registry::check_function(f, Mode::Reverse, "ad::try_vjp", location)?;
    Ok(pullback_with(
        f,
        args,
        Arc::new(rule),
        "ad::try_vjp",
        location,
    ))
}
