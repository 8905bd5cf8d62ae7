//! The static rules: the entries the macros emit, their link-time collection, and the index
//! built from them.

use super::{FnInfo, Key, Location, Mode, Origin, generation};
use crate::error::Error;
use core::any::{Any, TypeId};
use core::ptr;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

/// One rule in the link-time registry.
///
/// Its typed parts are produced by `load`, a function the macro generates in the user's crate:
/// all generic code (type checks, erasure to `dyn Any`) then runs inside this crate, and a
/// mistake in the user's rule is one error on the user's tokens, not a cascade.
#[doc(hidden)]
pub struct RuleEntry {
    /// The function the rule is for, and the rule: a `<F as Function<A>>::Forward` for a forward
    /// rule. [`absent`] for an instantiation of a generic function whose bounds the type does
    /// not meet (`f32` where the function asks for a trait only `f64` has): there is no such
    /// function to register. (A sentinel rather than an `Option`, so that the loaders of
    /// monomorphic functions, most of them, carry no wrapping for rustc to check.)
    pub load: fn() -> LoadedRule,
    /// Mode of the rule.
    pub mode: Mode,
    /// Generated or custom.
    pub origin: Origin,
    /// Readable name of the rule function.
    pub rule_name: &'static str,
    /// Where the rule is defined.
    pub location: Location,
    /// For a generated rule, the functions it calls through the registry.
    pub callees: &'static [Callee],
}

/// What a [`RuleEntry`] loads: the function and its rule, erased.
#[doc(hidden)]
pub type LoadedRule = (FnInfo, Box<dyn Any + Send + Sync>);

/// The function key of [`absent`].
pub(super) struct Absent;

/// What the loader of an instantiation that does not exist loads: nothing is registered.
#[doc(hidden)]
pub fn absent() -> LoadedRule {
    let info = FnInfo {
        key: core::any::TypeId::of::<Absent>(),
        ptr_type: core::any::TypeId::of::<Absent>(),
        name: "",
        address: 0,
        buffers: false,
    };
    (info, Box::new(()))
}

/// A call through the registry inside a generated derivative.
#[doc(hidden)]
pub struct Callee {
    /// The called function.
    pub load: fn() -> FnInfo,
    /// Where the call stands in the source.
    pub location: Location,
}

/// The static rule entries of one item, registered together: a differentiable function's
/// forward and reverse rules, or one custom rule. One element per item rather than per rule
/// halves the statics a crate of differentiable functions declares, and rustc checks and
/// evaluates each of them.
#[doc(hidden)]
pub struct RuleGroup {
    pub entries: &'static [RuleEntry],
}

/// The static rules of every linked crate, collected at link time (the default backend).
#[cfg(not(feature = "inventory"))]
#[doc(hidden)]
#[linkme::distributed_slice]
pub static RULES: [RuleGroup];

#[cfg(feature = "inventory")]
inventory::collect!(RuleGroup);

/// Every static rule entry of the program, from whichever backend collected them.
fn entries() -> impl Iterator<Item = &'static RuleEntry> {
    #[cfg(not(feature = "inventory"))]
    return RULES.iter().flat_map(|group| group.entries);
    #[cfg(feature = "inventory")]
    return inventory::iter::<RuleGroup>
        .into_iter()
        .flat_map(|group| group.entries);
}

/// Registers the static rule entries of one item with the backend in use, as one group. The
/// macros emit one call of this per item, inside an anonymous `const _: () = { .. };` block.
#[cfg(not(feature = "inventory"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_rule {
    ($($entry:expr),+ $(,)?) => {
        const _: () = {
            #[$crate::__private::linkme::distributed_slice($crate::__private::RULES)]
            #[linkme(crate = $crate::__private::linkme)]
            static __AD_RULE_ENTRY: $crate::__private::RuleGroup =
                $crate::__private::RuleGroup { entries: &[$($entry),+] };
        };
    };
}

/// Registers the static rule entries of one item with the backend in use, as one group. The
/// macros emit one call of this per item, inside an anonymous `const _: () = { .. };` block.
#[cfg(feature = "inventory")]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_rule {
    ($($entry:expr),+ $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::__private::RuleGroup { entries: &[$($entry),+] }
        }
    };
}

/// A static rule with its typed parts loaded.
pub(crate) struct Loaded {
    pub(crate) entry: &'static RuleEntry,
    pub(crate) function: FnInfo,
    pub(crate) rule: Box<dyn Any + Send + Sync>,
}

/// The static rules, loaded and indexed. Built at the first resolution and built again when the
/// backend's list grows, which only a library loaded at run time makes happen (the inventory
/// backend runs its constructors at load).
struct StaticIndex {
    by_key: HashMap<TypeId, Vec<&'static Loaded>>,
    by_address: HashMap<usize, Vec<&'static Loaded>>,
    /// Every entry loaded, by its address, so that a rebuild loads only the new ones.
    loaded: HashMap<usize, &'static Loaded>,
    /// What [`list_head`] read when the index was built.
    head: usize,
}

/// The current index: a leaked `StaticIndex`, never freed (a resolution may be reading an older
/// one), or null before the first resolution.
static INDEX: AtomicPtr<StaticIndex> = AtomicPtr::new(ptr::null_mut());

/// The address of the first entry of the backend's list. inventory prepends each entry it
/// collects, so a library loaded at run time changes it; a link section never changes.
#[inline(always)]
fn list_head() -> usize {
    #[cfg(not(feature = "inventory"))]
    return 0;
    #[cfg(feature = "inventory")]
    return entries()
        .next()
        .map_or(0, |entry| ptr::from_ref(entry) as usize);
}

/// The index of every static rule, built again first if the backend collected entries since.
#[inline]
fn static_index() -> &'static StaticIndex {
    // SAFETY: a non-null `INDEX` comes from `Box::leak` in `rebuild` and is never freed.
    match unsafe { INDEX.load(Ordering::Acquire).as_ref() } {
        Some(index) if index.head == list_head() => index,
        _ => rebuild(),
    }
}

/// Brings the static index up to date with the backend's list at the entry points, so that a
/// library loaded since the last call takes effect from this call on: one or two atomic loads
/// and a compare when nothing was loaded.
#[inline]
pub(crate) fn refresh() {
    static_index();
}

/// Indexes the backend's list again, loading only entries not seen before, then bumps the epoch
/// of every function a new entry names, so call sites that cached a resolution of it resolve
/// again. The new index is published before the bump: a resolution that read the old epoch
/// may have used either index, and the bump makes it stale either way.
#[cold]
#[inline(never)]
fn rebuild() -> &'static StaticIndex {
    static REBUILDING: Mutex<()> = Mutex::new(());
    let _only_one = REBUILDING.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: as in `static_index`.
    let old = unsafe { INDEX.load(Ordering::Acquire).as_ref() };
    let mut list = entries().peekable();
    let head = list
        .peek()
        .map_or(0, |entry| ptr::from_ref(*entry) as usize);
    if let Some(old) = old
        && old.head == head
    {
        return old;
    }
    let mut index = StaticIndex {
        by_key: HashMap::new(),
        by_address: HashMap::new(),
        loaded: HashMap::new(),
        head: if cfg!(feature = "inventory") { head } else { 0 },
    };
    let mut changed = Vec::new();
    for entry in list {
        let address = ptr::from_ref(entry) as usize;
        let loaded = match old.and_then(|old| old.loaded.get(&address)) {
            Some(loaded) => *loaded,
            None => {
                let (function, rule) = (entry.load)();
                if function.key == core::any::TypeId::of::<Absent>() {
                    continue;
                }
                changed.push(function);
                // Loaded once per process and shared by every resolution from then on.
                &*Box::leak(Box::new(Loaded {
                    entry,
                    function,
                    rule,
                }))
            }
        };
        index.loaded.insert(address, loaded);
        index
            .by_key
            .entry(loaded.function.key)
            .or_default()
            .push(loaded);
        index
            .by_address
            .entry(loaded.function.address)
            .or_default()
            .push(loaded);
    }
    let index: &'static StaticIndex = Box::leak(Box::new(index));
    INDEX.store(ptr::from_ref(index).cast_mut(), Ordering::Release);
    if old.is_some() {
        changed.into_iter().for_each(bump_epochs);
    }
    index
}

/// Makes the call sites that cached a resolution of `function` resolve again, now that it has
/// new rules: those of the item, and of the pointer key a call through its address had before
/// it had an entry.
pub(super) fn bump_epochs(function: FnInfo) {
    let keys = [
        Key {
            type_id: function.key,
            address: 0,
        },
        Key {
            type_id: function.ptr_type,
            address: function.address,
        },
    ];
    for key in keys {
        generation(key).fetch_add(1, Ordering::AcqRel);
    }
}

/// Every static rule, loaded, and every derivative a first call registered (`late.rs`).
pub(crate) fn all_static() -> impl Iterator<Item = &'static Loaded> {
    static_index()
        .by_key
        .values()
        .flatten()
        .copied()
        .chain(super::late::all())
}

pub(crate) fn static_rules(key: Key) -> &'static [&'static Loaded] {
    if key.address != 0 {
        return &[];
    }
    static_index()
        .by_key
        .get(&key.type_id)
        .map_or(&[], Vec::as_slice)
}

/// The key of the function at `address` whose pointer type is `ptr_type`: the item registered
/// at that address if there is exactly one, else the pointer type and the address.
pub(super) fn key_of_address(
    ptr_type: TypeId,
    address: usize,
    location: Location,
) -> Result<Key, Error> {
    let mut items: Vec<&'static Loaded> = static_index()
        .by_address
        .get(&address)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .copied()
        .chain(super::late::all())
        .filter(|l| l.function.address == address && l.function.ptr_type == ptr_type)
        .collect();
    items.sort_by_key(|l| l.function.name);
    items.dedup_by_key(|l| l.function.key);
    match items.as_slice() {
        [] => Ok(Key {
            type_id: ptr_type,
            address,
        }),
        [one] => Ok(Key {
            type_id: one.function.key,
            address: 0,
        }),
        many => Err(Error::AmbiguousPointer {
            candidates: many.iter().map(|l| l.function.name.to_owned()).collect(),
            location,
        }),
    }
}
