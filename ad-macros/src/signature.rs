//! Checks of a `#[differentiable]` function's signature, made before its body is lowered.

/// Types that are certainly not floats, integers, bools, arrays, `Vec`s or tuples of these,
/// by the last segment of their path; rustc would report them on the generated code instead.
const NOT_DIFFERENTIABLE: &[&str] = &[
    "String",
    "str",
    "PathBuf",
    "Path",
    "OsString",
    "OsStr",
    "CString",
    "CStr",
    "Duration",
    "Instant",
    "SystemTime",
];

/// The most arguments a differentiable function takes: the runtime implements `Function`
/// (`ad-runtime/src/function/impls.rs`) and `Tapeable` for tuples, which keep a call's arguments
/// (`ad-runtime/src/tape.rs`), for each arity up to this one.
const MAX_ARGS: usize = 16;

/// Errors for a signature with more arguments than the runtime supports, and for parameter and
/// result types that can never carry or pass through a derivative.
pub fn check(sig: &syn::Signature) -> Vec<syn::Error> {
    let mut errors = Vec::new();
    // Past the limit, rustc would report the missing `Function` impl on the generated code.
    let count = sig.inputs.len();
    if count > MAX_ARGS {
        let name = syn::ext::IdentExt::unraw(&sig.ident);
        errors.push(syn::Error::new_spanned(
            &sig.inputs,
            format!(
                "#[differentiable] supports functions of up to {MAX_ARGS} arguments, and `{name}` takes {count}: group arguments in a tuple, an array or a slice (`xs: [f64; {count}]`, `xs: &[f64]`), each of which is one argument"
            ),
        ));
    }
    let named = |ty: &syn::Type| match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .filter(|s| s.arguments.is_none())
            .map(|s| s.ident.to_string())
            .filter(|name| NOT_DIFFERENTIABLE.contains(&name.as_str())),
        _ => None,
    };
    for arg in &sig.inputs {
        if let syn::FnArg::Typed(pt) = arg
            && let Some(name) = named(&pt.ty)
        {
            errors.push(syn::Error::new_spanned(
                &pt.ty,
                format!(
                    "#[differentiable] cannot pass a `{name}` through a derivative: parameters are floats, integers, bools, arrays `[T; N]`, `Vec<T>`, tuples of these, `&[T]` or `&mut [T]`; compute what depends on the `{name}` outside the function and pass the result"
                ),
            ));
        }
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && let Some(name) = named(ty)
    {
        errors.push(syn::Error::new_spanned(
            ty,
            format!(
                "#[differentiable] cannot differentiate a function that returns a `{name}`: results are floats, integers, bools, arrays `[T; N]`, `Vec<T>` or tuples of these; differentiate the numeric part in a function of its own and build the `{name}` from its result"
            ),
        ));
    }
    errors
}
