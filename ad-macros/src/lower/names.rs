//! Predicates on type and method names: what the macro still decides by how a type or a
//! method is spelled, gathered here so that they can be retired one by one.

use crate::prims;
use syn::Type;

/// The last path segment of a type, if it is a plain path such as `f64` or `core::primitive::u8`.
pub(crate) fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

/// For `Name<T>` (a path ending in `name` with one type argument, in parentheses or not): `T`.
pub(crate) fn generic_of<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a)
                    if last.ident == name && a.args.len() == 1 =>
                {
                    match &a.args[0] {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        Type::Paren(p) => generic_of(&p.elem, name),
        Type::Group(g) => generic_of(&g.elem, name),
        _ => None,
    }
}

/// For `Const<T>`, which `#[differentiable]` takes for `ad::Const` by its name (generated code
/// asserts that it is): `T`.
pub fn const_of(ty: &Type) -> Option<&Type> {
    generic_of(ty, "Const")
}

/// Whether a parameter of this type holds elements the function cannot write: `&[T]`, an
/// array, or a `Const` of one.
pub fn read_only_seq(ty: &Type) -> bool {
    let ty = const_of(ty).unwrap_or(ty);
    slice_of(ty).is_some_and(|(m, _)| !m) || matches!(ty, Type::Array(_))
}

/// Whether a type certainly carries no derivative (integers, `bool`, `char`, `()`, tuples of
/// these, `Const<T>`).
pub fn known_inactive(ty: &Type) -> bool {
    if const_of(ty).is_some() {
        return true;
    }
    match ty {
        Type::Tuple(t) => t.elems.iter().all(known_inactive),
        Type::Paren(p) => known_inactive(&p.elem),
        Type::Group(g) => known_inactive(&g.elem),
        _ => type_name(ty).is_some_and(|n| prims::is_inactive_type_name(&n)),
    }
}

/// `f32` or `f64`.
pub fn is_float_type(ty: &Type) -> bool {
    type_name(ty).is_some_and(|n| prims::is_float_type_name(&n))
}

/// For a shared reference to an array, `&[E; N]`: the array type.
pub fn array_ref_of(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            Type::Array(_) => Some(&r.elem),
            _ => None,
        },
        Type::Paren(p) => array_ref_of(&p.elem),
        Type::Group(g) => array_ref_of(&g.elem),
        _ => None,
    }
}

/// For a shared reference to a struct of the user's own, `&Model`: the struct type, which the
/// derivative works on as the struct (`#[derive(ad::Differentiable)]` gives `&Model` its
/// `Param`). A type parameter, a primitive or a standard type is not one.
pub fn struct_ref_of<'t>(ty: &'t Type, type_params: &[String]) -> Option<&'t Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => struct_type(&r.elem, type_params),
        Type::Paren(p) => struct_ref_of(&p.elem, type_params),
        Type::Group(g) => struct_ref_of(&g.elem, type_params),
        _ => None,
    }
}

/// A struct of the user's own, by value (`Model`, `Params<T>`): a path whose last name is
/// capitalised, not a type parameter and not a standard container.
pub fn struct_type<'t>(ty: &'t Type, type_params: &[String]) -> Option<&'t Type> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            let std_type = matches!(
                name.as_str(),
                "Vec" | "Option" | "String" | "Box" | "Const" | "Rc" | "Arc" | "Self"
            );
            (name.starts_with(char::is_uppercase)
                && !std_type
                && !(p.path.segments.len() == 1 && type_params.contains(&name)))
            .then_some(ty)
        }
        Type::Paren(p) => struct_type(&p.elem, type_params),
        Type::Group(g) => struct_type(&g.elem, type_params),
        _ => None,
    }
}

/// For `&mut [E; N]`, the slice type `&mut [E]` it is differentiated as: an output written
/// in place, like a `&mut [E]` of length `N`.
pub fn mut_array_ref_as_slice(ty: &Type) -> Option<Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_some() => match &*r.elem {
            Type::Array(a) => {
                let elem = &a.elem;
                Some(syn::parse_quote!(&mut [#elem]))
            }
            _ => None,
        },
        Type::Paren(p) => mut_array_ref_as_slice(&p.elem),
        Type::Group(g) => mut_array_ref_as_slice(&g.elem),
        _ => None,
    }
}

/// For a slice type `&[E]` or `&mut [E]`: whether it is `&mut`, and `E`.
pub fn slice_of(ty: &Type) -> Option<(bool, &Type)> {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => Some((r.mutability.is_some(), &s.elem)),
            _ => None,
        },
        Type::Paren(p) => slice_of(&p.elem),
        Type::Group(g) => slice_of(&g.elem),
        _ => None,
    }
}

/// Types a parameter or result of a differentiable function may have in this version.
pub(crate) fn supported_value_type(ty: &Type) -> bool {
    match ty {
        Type::Tuple(t) => t.elems.iter().all(supported_value_type),
        Type::Paren(p) => supported_value_type(&p.elem),
        Type::Group(g) => supported_value_type(&g.elem),
        Type::Array(a) => supported_value_type(&a.elem),
        Type::Path(p) if p.qself.is_none() => {
            let (last, init) = p
                .path
                .segments
                .iter()
                .collect::<Vec<_>>()
                .split_last()
                .map(|(l, i)| (*l, i.to_vec()))
                .expect("a path has a segment");
            init.iter().all(|s| s.arguments.is_none())
                && match &last.arguments {
                    syn::PathArguments::None => true,
                    syn::PathArguments::AngleBracketed(args)
                        if (last.ident == "Vec" || last.ident == "Option")
                            && args.args.len() == 1 =>
                    {
                        matches!(&args.args[0], syn::GenericArgument::Type(t) if supported_value_type(t))
                    }
                    // A type of the user's own with parameters (`Params<T>`): rustc checks that
                    // it has a derivative (`#[derive(ad::Differentiable)]`).
                    syn::PathArguments::AngleBracketed(args)
                        if last.ident.to_string().starts_with(char::is_uppercase) =>
                    {
                        args.args.iter().all(|a| match a {
                            syn::GenericArgument::Type(t) => supported_value_type(t),
                            syn::GenericArgument::Const(_) => true,
                            _ => false,
                        })
                    }
                    _ => false,
                }
        }
        _ => false,
    }
}

pub(super) fn is_read_only_method(name: &str) -> bool {
    prims::lookup(name).is_some()
        || prims::INACTIVE_METHODS.contains(&name)
        || READ_ONLY_METHODS.contains(&name)
}

/// Macros that only read their arguments.
pub(super) const READ_ONLY_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "vec",
    "write",
    "writeln",
    "todo",
    "unimplemented",
    "unreachable",
    "panic",
];

/// Methods of arrays, slices, `Vec`s and `Option`s whose result carries no derivative.
pub(super) const CONTAINER_INACTIVE: &[&str] = &["len", "is_empty", "is_some", "is_none"];

/// Methods known not to change their receiver, besides the float primitives.
const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "is_some",
    "is_none",
    "clone",
    "pow",
    "abs_diff",
    "count_ones",
    "is_positive",
    "is_negative",
    "to_string",
    "checked_add",
    "checked_sub",
    "checked_mul",
    "checked_div",
    "unwrap",
    "expect",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "saturating_add",
    "saturating_sub",
    "rem_euclid",
    "div_euclid",
    "then",
    "then_some",
    "contains",
    "get",
    "iter",
    "rev",
    "step_by",
    // Iterator adapters and consumers: they read their receiver; a closure passed to them that
    // writes is caught by what it contains (an assignment, a `mut`, a method that writes).
    "map",
    "filter",
    "zip",
    "enumerate",
    "skip",
    "take",
    "copied",
    "cloned",
    "sum",
    "product",
    "fold",
    "min_by",
    "max_by",
    "windows",
    "chunks",
    "chunks_exact",
    "all",
    "any",
    "count",
    "position",
    "collect",
    "first",
    "last",
];
