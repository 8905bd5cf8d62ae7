//! Errors of rule resolution, as values for the `try_` entry points and as panic messages.

use crate::registry::{Location, Mode};
use core::fmt;

/// Why a derivative could not be resolved.
///
/// The `Display` text is the message a user sees: it names the function, the caller and its
/// source location, and says how to fix the problem.
///
/// ```
/// fn opaque(x: f64) -> f64 { x.sin() } // neither #[differentiable] nor any rule
///
/// let err = ad::try_jvp(opaque, (1.0,), (1.0,)).unwrap_err();
/// assert!(matches!(err, ad::Error::MissingRule { .. }));
/// assert!(err.to_string().contains("opaque"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No rule of any kind for `function` in `mode`.
    MissingRule {
        /// Readable path of the function without a derivative.
        function: String,
        /// The mode that was asked for.
        mode: Mode,
        /// The function whose derivative needed it (or the entry point).
        caller: String,
        /// Where the call stands.
        location: Location,
    },
    /// Two or more `#[custom_rule]`s for the same function and mode.
    Conflict {
        /// Readable path of the function.
        function: String,
        /// The mode of the conflicting rules.
        mode: Mode,
        /// Where each of the conflicting rules is defined.
        rules: Vec<(String, Location)>,
    },
    /// A tangent or adjoint given to an entry point has another shape than its value: a `Vec`
    /// of another length.
    ShapeMismatch {
        /// Readable path of the function.
        function: String,
        /// The entry point, such as `ad::jvp`.
        entry: &'static str,
        /// The argument (from 1) whose tangent was given, or `None` for the result's adjoint.
        argument: Option<usize>,
        /// Where in the value, such as `[2].1` (empty for the value itself).
        path: String,
        /// The number of elements of the value there.
        expected: usize,
        /// The number of elements given there.
        found: usize,
        /// Where the entry point is called.
        location: Location,
    },
    /// A function with slice arguments has a rule of the other mode only: such rules are not
    /// converted.
    NotConvertible {
        /// Readable path of the function.
        function: String,
        /// The mode that was asked for.
        mode: Mode,
        /// The function whose derivative needed it (or the entry point).
        caller: String,
        /// Where the call stands.
        location: Location,
    },
    /// A function pointer whose address belongs to several functions (the linker merged
    /// functions with identical code), so the registry cannot tell which one it is.
    AmbiguousPointer {
        /// The functions sharing the address.
        candidates: Vec<String>,
        /// Where the call stands.
        location: Location,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::MissingRule {
                function,
                mode,
                caller,
                location,
            } => {
                let short = short_name(function);
                write!(
                    f,
                    "no {mode} derivative for `{function}`, called from `{caller}` at {location}\n\
                     help: annotate `{short}` with `#[ad::differentiable]`, give it a rule with \
                     `#[ad::custom_rule({kw}, of = {short})]`, or register one at run time with \
                     `ad::rules::register_{kw}({short}, ...)`; if its rule lives in a crate that \
                     nothing else references, add `use that_crate as _;` so that it is linked",
                    kw = mode.keyword(),
                )
            }
            Error::Conflict {
                function,
                mode,
                rules,
            } => {
                write!(
                    f,
                    "conflicting {mode} rules for `{function}`: {} `#[custom_rule({})]`s are registered",
                    rules.len(),
                    mode.keyword()
                )?;
                for (name, location) in rules {
                    write!(f, "\n  `{name}` at {location}")?;
                }
                write!(
                    f,
                    "\nhelp: keep one of them; to override a rule for a while, use `ad::rules::register_{}` instead",
                    mode.keyword()
                )
            }
            Error::ShapeMismatch {
                function,
                entry,
                argument,
                path,
                expected,
                found,
                location,
            } => {
                let what = match argument {
                    Some(k) => format!("the tangent of argument {k}"),
                    None => "the adjoint of the result".to_owned(),
                };
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" at `{path}`")
                };
                write!(
                    f,
                    "{entry}: {what} of `{function}` has {found} elements{at} where the value has \
                     {expected}, at {location}\nhelp: give each value a tangent or adjoint of its own \
                     shape; `ad::Differentiable::zero_tangent(&value)` makes a zero one to fill in"
                )
            }
            Error::NotConvertible {
                function,
                mode,
                caller,
                location,
            } => {
                let short = short_name(function);
                write!(
                    f,
                    "no {mode} derivative for `{function}`, called from `{caller}` at {location}: \
                     it has a rule of the other mode only, and a rule of a function with slice \
                     arguments is not converted to the other mode\nhelp: write its {mode} rule too \
                     (`#[ad::custom_rule({kw}, of = {short})]`) or annotate it with \
                     `#[ad::differentiable]`",
                    kw = mode.keyword(),
                )
            }
            Error::AmbiguousPointer {
                candidates,
                location,
            } => {
                write!(
                    f,
                    "the function pointer used at {location} has the address of several functions ({}): \
                     the linker merged their identical code\nhelp: call the function by name instead of \
                     through a pointer",
                    candidates.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for Error {}

/// A function's name as a user writes it in the module it lives in: its last segment, or for
/// a method from the type on (`Wheel::brake` of `model::Wheel::brake`; modules are named in
/// snake case, types in camel case).
fn short_name(function: &str) -> &str {
    let mut at = 0;
    for segment in function.split("::") {
        if segment.starts_with(|c: char| c.is_ascii_uppercase() || c == '<') {
            return &function[at..];
        }
        at += segment.len() + 2;
    }
    function.rsplit("::").next().unwrap_or(function)
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn short_names_keep_the_type_of_a_method() {
        assert_eq!(short_name("model::layers::softplus"), "softplus");
        assert_eq!(short_name("model::Wheel::brake"), "Wheel::brake");
        assert_eq!(
            short_name("<model::Spring as model::Energy>::energy"),
            "<model::Spring as model::Energy>::energy"
        );
        assert_eq!(short_name("sq"), "sq");
    }
}
