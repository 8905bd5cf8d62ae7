//! Checking, without running anything, that functions and their callees resolve.

use super::resolve::{Resolution, key_of, resolve};
use super::statics::key_of_address;
use super::{Callee, FnInfo, Key, Location, Mode, Origin, RuntimeRule, all_static, runtime_rules};
use crate::error::Error;
use crate::function::Function;

/// A resolution that a function with slice arguments cannot use: a rule of the other mode.
fn unconvertible(
    resolution: &Resolution<'_>,
    buffers: bool,
    function: &dyn Fn() -> String,
    mode: Mode,
    caller: &str,
    location: Location,
) -> Result<(), Error> {
    if buffers && matches!(resolution, Resolution::Converted(_)) {
        return Err(Error::NotConvertible {
            function: function(),
            mode,
            caller: caller.to_owned(),
            location,
        });
    }
    Ok(())
}

/// Checks, without running anything, that `key` and every callee of every generated derivative
/// reachable from it resolve in `mode`.
pub(crate) fn check(
    key: Key,
    buffers: bool,
    mode: Mode,
    name: &dyn Fn() -> String,
    caller: &str,
    location: Location,
) -> Result<(), Error> {
    let runtime = runtime_rules();
    let mut seen = Vec::new();
    check_rec(
        &runtime,
        (key, buffers),
        mode,
        name,
        caller,
        location,
        &mut seen,
    )
}

fn check_rec(
    runtime: &[RuntimeRule],
    (key, buffers): (Key, bool),
    mode: Mode,
    name: &dyn Fn() -> String,
    caller: &str,
    location: Location,
    seen: &mut Vec<Key>,
) -> Result<(), Error> {
    if seen.contains(&key) {
        return Ok(());
    }
    seen.push(key);
    let resolution = resolve(runtime, key, mode, name, caller, location)?;
    unconvertible(&resolution, buffers, name, mode, caller, location)?;
    if let Resolution::Static(loaded) = resolution
        && loaded.entry.origin == Origin::Generated
    {
        let caller = loaded.function.name;
        for callee in loaded.entry.callees {
            let (key, info) = callee_key(callee)?;
            check_rec(
                runtime,
                (key, info.buffers),
                mode,
                &|| info.name.to_owned(),
                caller,
                callee.location,
                seen,
            )?;
        }
    }
    Ok(())
}

/// The key a call site in generated code resolves.
fn callee_key(callee: &Callee) -> Result<(Key, FnInfo), Error> {
    let info = (callee.load)();
    let key = if info.key == info.ptr_type {
        // A call through a pointer-typed constant: resolved by address, like a call.
        key_of_address(info.ptr_type, info.address, callee.location)?
    } else {
        Key {
            type_id: info.key,
            address: 0,
        }
    };
    Ok((key, info))
}

/// Every conflict between static rules, and every call in a generated derivative whose callee
/// resolves to nothing, in the registry as it is now.
pub(crate) fn check_all() -> Vec<Error> {
    let runtime = runtime_rules();
    let mut errors = Vec::new();
    let mut functions: Vec<(Key, Mode, &'static str)> = Vec::new();
    for loaded in all_static() {
        let key = Key {
            type_id: loaded.function.key,
            address: 0,
        };
        if !functions
            .iter()
            .any(|(k, m, _)| *k == key && *m == loaded.entry.mode)
        {
            functions.push((key, loaded.entry.mode, loaded.function.name));
        }
    }
    for (key, mode, name) in functions {
        let here = Location {
            file: "",
            line: 0,
            column: 0,
        };
        if let Err(conflict @ Error::Conflict { .. }) = resolve(
            &runtime,
            key,
            mode,
            &|| name.to_owned(),
            "ad::rules::check",
            here,
        ) {
            errors.push(conflict);
        }
    }
    for loaded in all_static().filter(|l| l.entry.origin == Origin::Generated) {
        let mode = loaded.entry.mode;
        for callee in loaded.entry.callees {
            // A call whose arguments do not fit its callee: the crate did not compile.
            if (callee.load)().key == core::any::TypeId::of::<super::statics::Absent>() {
                continue;
            }
            let result = callee_key(callee).and_then(|(key, info)| {
                let name = || info.name.to_owned();
                let resolution = resolve(
                    &runtime,
                    key,
                    mode,
                    &name,
                    loaded.function.name,
                    callee.location,
                )?;
                unconvertible(
                    &resolution,
                    info.buffers,
                    &name,
                    mode,
                    loaded.function.name,
                    callee.location,
                )
            });
            match result {
                // Reported once above, for the function.
                Ok(()) | Err(Error::Conflict { .. }) => {}
                Err(e) => errors.push(e),
            }
        }
    }
    errors.sort_by_key(ToString::to_string);
    errors.dedup();
    errors
}

/// Resolution check for the `try_` entry points.
pub(crate) fn check_function<F: Function<A>, A>(
    f: F,
    mode: Mode,
    caller: &str,
    location: Location,
) -> Result<(), Error> {
    let key = key_of(f, location)?;
    check(
        key,
        F::BUFFERS,
        mode,
        &|| core::any::type_name::<F>().to_owned(),
        caller,
        location,
    )
}
