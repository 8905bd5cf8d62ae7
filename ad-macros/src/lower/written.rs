//! What the passes that write the function again read from its lowering: literals as written,
//! reads of slice parameters, and calls without derivative written as the user wrote them.

use super::names::slice_of;
use crate::ir::{Inst, Value, Var};
use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use std::collections::HashMap;

/// A call without derivative written again as the user wrote it: the callee, the parentheses
/// with their own span, and each argument's literal or variable as written (temporaries only
/// for the rest), so that a mistake in the call is the same error as in the user's function,
/// which rustc reports once.
fn plain_call(
    literals: &HashMap<u32, TokenStream>,
    callee: &TokenStream,
    parens: &proc_macro2::extra::DelimSpan,
    args: &[Value],
    written: &dyn Fn(Value) -> TokenStream,
) -> TokenStream {
    let mut inner = TokenStream::new();
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            inner.extend(quote!(,));
        }
        inner.extend(literals.get(&a.0).cloned().unwrap_or_else(|| written(*a)));
    }
    let mut group = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, inner);
    group.set_span(parens.join());
    let mut out = callee.clone();
    out.extend([TokenTree::Group(group)]);
    out
}

/// The literals and constants of a function, by value.
pub fn literals(func: &crate::ir::Func) -> HashMap<u32, TokenStream> {
    func.body
        .all_insts()
        .into_iter()
        .filter_map(|inst| match inst {
            Inst::Const { out, tokens } => Some((out.0, tokens.clone())),
            _ => None,
        })
        .collect()
}

/// The reads of slice parameters (passed on whole to calls): value, variable, whether `&mut`.
pub fn slice_reads(func: &crate::ir::Func) -> HashMap<u32, (Var, bool)> {
    func.body
        .all_insts()
        .into_iter()
        .filter_map(|inst| match inst {
            Inst::Read { out, var, .. } => func.vars[var.0 as usize]
                .ty
                .as_ref()
                .and_then(|t| slice_of(t))
                .map(|(m, _)| (out.0, (*var, m))),
            _ => None,
        })
        .collect()
}

/// The slice a variable lent mutably (`&mut v[a..b]`) is seen as, over `base` (the variable, its
/// tangent or its copy): an output slice as it is, a local through `Lendable`, whose message
/// says what went wrong where the local is not a `Vec` or an array (a float, say).
pub fn lent_seq(
    krate: &TokenStream,
    func: &crate::ir::Func,
    var: Var,
    base: &TokenStream,
) -> TokenStream {
    let data = &func.vars[var.0 as usize];
    if data.ty.as_ref().is_some_and(|t| slice_of(t).is_some()) {
        quote!((#base))
    } else {
        // An error names the local where it is declared.
        quote::quote_spanned!(data.ident.span()=> #krate::__private::Lendable::seq_mut(&mut #base))
    }
}

/// The slice a lent argument stands for, over `base` (the variable, its tangent or its copy),
/// the bounds of a part written as `bound` gives them: `base` itself where nothing is lent,
/// `&(base)[a..b]` lent shared, `&mut seq[a..b]` lent to a function that writes it.
pub fn lent_slice(
    krate: &TokenStream,
    func: &crate::ir::Func,
    how: crate::ir::Lent,
    base: &TokenStream,
    bound: &mut dyn FnMut(Value) -> TokenStream,
) -> TokenStream {
    match how {
        crate::ir::Lent::No => base.clone(),
        crate::ir::Lent::Mut { var, .. } => {
            let index = how.index(bound);
            let seq = lent_seq(krate, func, var, base);
            quote!(&mut #seq #index)
        }
        _ => {
            let index = how.index(bound);
            quote!(&(#base)#index)
        }
    }
}

/// Argument `k` of a call of `callee` with `arity` arguments, `value` as `lent_slice` made it:
/// a method's receiver (`&s`) goes through `Receiver`, which passes it as the method takes it.
pub fn passed(
    krate: &TokenStream,
    callee: &TokenStream,
    (how, arity): (crate::ir::Lent, usize),
    value: TokenStream,
) -> TokenStream {
    if how != crate::ir::Lent::Receiver {
        return value;
    }
    let holes = (0..arity).map(|_| quote!(_));
    // At the method's name, where an error about its receiver belongs.
    let span = callee
        .clone()
        .into_iter()
        .last()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span());
    let pass = quote::quote_spanned!(span=> pass);
    quote!({
        use #krate::__private::{ByMut as _, ByRef as _, ByValue as _};
        (&#krate::__private::Receiver::<_, (#(#holes,)*)>::of(&#callee)).#pass(#value)
    })
}

/// A call without derivative whose arguments may lend variables, written as `plain_call`
/// does, each argument's value as `written` gives it: a lent one as `lent_slice` makes it, but
/// `&mut v` where the user wrote it so (the callee may take `&mut [T; N]`, which a slice would
/// not be).
pub fn plain_lent_call(
    literals: &HashMap<u32, TokenStream>,
    krate: &TokenStream,
    func: &crate::ir::Func,
    (callee, parens): (&TokenStream, &proc_macro2::extra::DelimSpan),
    (args, lent): (&[Value], &[crate::ir::Lent]),
    written: &dyn Fn(Value) -> TokenStream,
) -> TokenStream {
    plain_call(literals, callee, parens, args, &|a| {
        let k = args.iter().position(|x| *x == a).expect("an argument");
        let base = written(a);
        match lent[k] {
            crate::ir::Lent::Mut { bare: true, .. } => quote!(&mut #base),
            how => passed(
                krate,
                callee,
                (how, args.len()),
                lent_slice(krate, func, how, &base, &mut |b| written(b)),
            ),
        }
    })
}
