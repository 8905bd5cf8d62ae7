//! Parsing and validation: a `syn::ItemFn` becomes an `ir::Func`, or errors at the offending
//! tokens, all of them together.

use crate::ir::{
    Arith, Block, Func, Inst, Param, Scrutinee, Unsupported, Value, ValueData, Var, VarData,
};
use crate::prims::{self, Shape};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Stmt, Type, UnOp};

mod calls;
mod chains;
mod closures;
mod control;
mod expr;
mod loops;
mod verbatim;

use control::breaks_out;

pub struct Lower {
    values: Vec<ValueData>,
    vars: Vec<VarData>,
    scopes: Vec<HashMap<String, Var>>,
    /// Reads of variables whose value is not consumed yet: an assignment to the variable before
    /// their use makes them copy the old value.
    pending: Vec<(Value, Var)>,
    /// How many loops enclose the code being lowered.
    loop_depth: usize,
    /// Loop variables bound to elements by `for x in a.iter()`: `x` is a reference in the
    /// user's code and a value in the derivative, so `*x` reads `x`.
    element_vars: Vec<Var>,
    /// Hidden index variables made so far.
    hidden: u32,
    /// The `loop`s being lowered, innermost last: the loop depth inside each, and the hidden
    /// variable its `break value`s assign, once one is seen.
    value_loops: Vec<(usize, Option<Var>)>,
    scrutinees: Vec<Scrutinee>,
    /// Names in the value namespace of the items declared inside the body (`const`, `fn`, `use`,
    /// tuple and unit structs): a variable of the function may not share one.
    item_names: Vec<String>,
    /// The names of the function's type parameters: `T::from(x).unwrap()` converts to one.
    type_params: Vec<String>,
    /// The parameters that are references to arrays (`&[T; N]`).
    array_refs: Vec<Var>,
    /// The path of the `ad` crate, for the helpers that lowered code calls.
    krate: TokenStream,
    /// The closures bound by `let`, by name: inlined where they are called.
    closures: HashMap<String, closures::Closure>,
    pub errors: Vec<syn::Error>,
}

/// Why a variable and an item of the function body may not share a name.
const ITEM_SHADOW: &str = "#[differentiable] tells variables apart by name and does not see which of them an item declared inside the function shadows, so it could differentiate the wrong one: rename the item or the variable";

/// The names an item declares in the value namespace, with their identifiers.
fn value_names(item: &syn::Item) -> Vec<syn::Ident> {
    fn uses(tree: &syn::UseTree, out: &mut Vec<syn::Ident>) {
        match tree {
            syn::UseTree::Path(p) => uses(&p.tree, out),
            syn::UseTree::Name(n) => out.push(n.ident.clone()),
            syn::UseTree::Rename(r) => out.push(r.rename.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| uses(t, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = Vec::new();
    match item {
        syn::Item::Const(c) => out.push(c.ident.clone()),
        syn::Item::Fn(f) => out.push(f.sig.ident.clone()),
        syn::Item::Struct(s) if !matches!(s.fields, syn::Fields::Named(_)) => {
            out.push(s.ident.clone());
        }
        syn::Item::Use(u) => uses(&u.tree, &mut out),
        _ => {}
    }
    out
}

fn err(tokens: impl ToTokens, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

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

/// A call without derivative written again as the user wrote it: the callee, the parentheses
/// with their own span, and each argument's literal or variable as written (temporaries only
/// for the rest), so that a mistake in the call is the same error as in the user's function,
/// which rustc reports once.
pub fn plain_call(
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
                        if last.ident == "Vec" && args.args.len() == 1 =>
                    {
                        matches!(&args.args[0], syn::GenericArgument::Type(t) if supported_value_type(t))
                    }
                    _ => false,
                }
        }
        _ => false,
    }
}

impl Lower {
    pub fn new(krate: TokenStream) -> Self {
        Lower {
            values: Vec::new(),
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            pending: Vec::new(),
            loop_depth: 0,
            element_vars: Vec::new(),
            hidden: 0,
            value_loops: Vec::new(),
            scrutinees: Vec::new(),
            item_names: Vec::new(),
            type_params: Vec::new(),
            array_refs: Vec::new(),
            krate,
            closures: HashMap::new(),
            errors: Vec::new(),
        }
    }

    fn value(&mut self, _span: Span) -> Value {
        self.values.push(ValueData { needs_copy: false });
        Value(self.values.len() as u32 - 1)
    }

    fn new_var(&mut self, ident: Ident, ty: Option<Type>, mutable: bool) -> Var {
        let known_inactive = ty.as_ref().is_some_and(known_inactive);
        self.vars.push(VarData {
            ident,
            ty,
            mutable,
            known_inactive,
        });
        Var(self.vars.len() as u32 - 1)
    }

    fn bind(&mut self, var: Var) {
        let name = self.vars[var.0 as usize].ident.to_string();
        if self.item_names.contains(&name) {
            let ident = self.vars[var.0 as usize].ident.clone();
            self.errors.push(err(
                &ident,
                format!(
                    "`{ident}` names both a variable and an item of this function: {ITEM_SHADOW}"
                ),
            ));
        }
        self.scopes.last_mut().expect("a scope").insert(name, var);
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn dummy(&mut self, out: &mut Vec<Inst>, span: Span) -> Value {
        let v = self.value(span);
        out.push(Inst::Const {
            out: v,
            tokens: quote!(::core::unreachable!()),
        });
        v
    }

    /// Lowers a function: checks the signature, then the body.
    pub fn function(mut self, item: &ItemFn) -> Result<Func, syn::Error> {
        let sig = &item.sig;
        if let Some(t) = &sig.constness {
            self.errors.push(err(
                t,
                "#[differentiable] does not support `const fn`; remove `const`",
            ));
        }
        if let Some(t) = &sig.asyncness {
            self.errors.push(err(t, "#[differentiable] does not support `async fn`; differentiate a synchronous function"));
        }
        if !matches!(sig.safety, syn::Safety::Default) {
            self.errors.push(err(&sig.safety, "#[differentiable] does not support `unsafe fn`; keep the unsafe code in a function with a #[custom_rule]"));
        }
        self.type_params = sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect();
        if let Some(v) = &sig.variadic {
            self.errors.push(err(
                v,
                "#[differentiable] does not support variadic functions",
            ));
        }
        let writes_output = sig
            .inputs
            .iter()
            .any(|arg| matches!(arg, FnArg::Typed(pt) if slice_of(&pt.ty).is_some_and(|(m, _)| m)));
        let ret = match &sig.output {
            // A function that writes its results into `&mut [T]` outputs may return nothing.
            ReturnType::Default if writes_output => syn::parse_quote!(()),
            ReturnType::Default => {
                self.errors.push(err(sig, "#[differentiable] function must return a value: add `-> f64` (or a tuple of results), or write the results into a `&mut [f64]` parameter"));
                syn::parse_quote!(())
            }
            ReturnType::Type(_, ty) => {
                if !supported_value_type(ty) {
                    self.errors.push(err(ty, "#[differentiable] supports results that are floats, integers, bools, arrays `[T; N]`, `Vec<T>` or tuples of these; return one of those"));
                }
                (**ty).clone()
            }
        };
        let mut params = Vec::new();
        for (i, arg) in sig.inputs.iter().enumerate() {
            match arg {
                FnArg::Receiver(r) => self.errors.push(err(r, "#[differentiable] does not support methods; write a free function that takes the value as an argument")),
                FnArg::Typed(pt) => {
                    // A value, `&[T]`, `&mut [T]`, `&[T; N]`, or `Const` of a value or of a
                    // `&[T]`. A reference to an array is differentiated as the array.
                    let by_ref = array_ref_of(&pt.ty);
                    let held = const_of(&pt.ty);
                    let ty = by_ref.or(held).unwrap_or(&pt.ty);
                    let slice = slice_of(ty).filter(|(_, e)| supported_value_type(e));
                    if held.is_some() && slice.is_some_and(|(m, _)| m) {
                        self.errors.push(err(&pt.ty, "a slice the function writes cannot be held constant: take it as `&mut [T]`, whose derivative is taken, or take the data as `Const<&[T]>` and write a slice of your own"));
                    } else if slice.is_none() && !supported_value_type(ty) {
                        self.errors.push(err(&pt.ty, "#[differentiable] supports parameters that are floats, integers, bools, arrays `[T; N]`, `Vec<T>`, tuples of these, `&[T]`, `&mut [T]`, and `ad::Const<T>` of a `&[T]` or of a value; pass the values in one of those"));
                    }
                    let (ident, mutable) = match &*pt.pat {
                        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p.ident.clone(), p.mutability.is_some()),
                        Pat::Wild(w) => (Ident::new(&format!("__ad_arg{i}"), w.span()), false),
                        other => {
                            self.errors.push(err(other, "#[differentiable] parameters must be plain names such as `x: f64`; destructure inside the body"));
                            (Ident::new(&format!("__ad_arg{i}"), other.span()), false)
                        }
                    };
                    let declared = by_ref.unwrap_or(&pt.ty).clone();
                    let var = self.new_var(ident, Some(declared.clone()), mutable);
                    self.bind(var);
                    if by_ref.is_some() {
                        // `*p` reads the array.
                        self.element_vars.push(var);
                        self.array_refs.push(var);
                    }
                    params.push(Param { var, ty: declared, by_ref: by_ref.is_some() });
                }
            }
        }
        let body = self.block_stmts(&item.block.stmts);
        if let Some(e) = self.errors.drain(..).reduce(|mut a, b| {
            a.combine(b);
            a
        }) {
            return Err(e);
        }
        Ok(Func {
            name: sig.ident.clone(),
            generics: sig.generics.clone(),
            params,
            ret,
            body,
            values: self.values,
            vars: self.vars,
            scrutinees: self.scrutinees,
        })
    }

    fn block(&mut self, block: &syn::Block) -> Block {
        self.scopes.push(HashMap::new());
        let b = self.block_stmts(&block.stmts);
        self.scopes.pop();
        b
    }

    fn block_stmts(&mut self, stmts: &[Stmt]) -> Block {
        let mut insts = Vec::new();
        let mut result = None;
        for (i, stmt) in stmts.iter().enumerate() {
            let mark = self.pending.len();
            let last = i + 1 == stmts.len();
            match stmt {
                Stmt::Local(local) => self.local(local, &mut insts),
                Stmt::Item(item) => self.nested_item(item, &mut insts),
                Stmt::Macro(m) => self.stmt_macro(&m.mac, m.to_token_stream(), &mut insts),
                Stmt::Expr(e, semi) => {
                    if last && semi.is_none() && !diverges_syntactically(e) {
                        result = self.expr_tail(e, &mut insts);
                    } else {
                        self.stmt_expr(e, &mut insts);
                    }
                }
            }
            self.pending.truncate(mark);
        }
        Block { insts, result }
    }

    /// A tail expression: its value, or `None` for `()`-typed tails such as an `if` statement.
    fn expr_tail(&mut self, e: &Expr, out: &mut Vec<Inst>) -> Option<Value> {
        match e {
            // An `if`, block, `loop` or `match` without a value, or one that always leaves.
            _ if maybe_unit(e) => self.expr_maybe_unit(e, out),
            Expr::Assign(_) => {
                self.stmt_expr(e, out);
                None
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                self.stmt_expr(e, out);
                None
            }
            _ => Some(self.expr(e, out)),
        }
    }

    fn stmt_macro(&mut self, mac: &syn::Macro, tokens: TokenStream, out: &mut Vec<Inst>) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if name == "thread_local" {
            self.errors.push(err(mac, "#[differentiable] does not support `thread_local!` inside the function: the derivative would get a second, separate copy; declare it outside the function"));
            return;
        }
        let reads = self.reads_of(&mac.tokens);
        if READ_ONLY_MACROS.contains(&name.as_str()) {
            let may_write = may_write(&mac.tokens);
            self.mark_pending(&reads, may_write);
            out.push(Inst::Verbatim {
                tokens,
                reads,
                may_write,
                item: false,
            });
        } else {
            let v = self.value(mac.span());
            self.mark_pending(&reads, true);
            out.push(Inst::Opaque {
                out: v,
                tokens,
                reads,
                may_write: true,
                only_inactive: Some(Unsupported::new("a macro call")),
            });
        }
    }

    /// An item declared inside the function body is emitted again inside the derivative, so it
    /// must not be one whose identity matters.
    fn nested_item(&mut self, item: &syn::Item, out: &mut Vec<Inst>) {
        if let syn::Item::Static(s) = item {
            self.errors.push(err(s.static_token, "#[differentiable] does not support a `static` inside the function: the derivative would get a second, separate copy; declare it outside the function"));
            return;
        }
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Mod(m) => &m.attrs,
            _ => &[],
        };
        for attr in attrs {
            let last = attr.path().segments.last().map(|s| s.ident.to_string());
            if matches!(last.as_deref(), Some("differentiable" | "custom_rule")) {
                self.errors.push(err(attr, "#[differentiable] does not support `ad` attributes on items inside the function: they would be registered twice; declare the item outside the function"));
                return;
            }
        }
        for ident in value_names(item) {
            let name = ident.to_string();
            if self.vars.iter().any(|v| v.ident == name) {
                self.errors.push(err(
                    &ident,
                    format!("`{ident}` names both an item and a variable of this function: {ITEM_SHADOW}"),
                ));
            }
            self.item_names.push(name);
        }
        out.push(Inst::Verbatim {
            tokens: item.to_token_stream(),
            reads: Vec::new(),
            may_write: false,
            item: true,
        });
    }

    /// Pending reads of variables that verbatim tokens may change must copy their value first.
    fn mark_pending(&mut self, reads: &[Var], may_write: bool) {
        if may_write {
            for (read, v) in &self.pending {
                if reads.contains(v) {
                    self.values[read.0 as usize].needs_copy = true;
                }
            }
        }
    }

    fn local(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if self.closure_binding(local, out) {
            return;
        }
        let Some(init) = &local.init else {
            let (pat, ty) = split_type(&local.pat);
            match pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let var = self.new_var(p.ident.clone(), ty.cloned(), p.mutability.is_some());
                    out.push(Inst::Let { var, init: None });
                    self.bind(var);
                }
                other => self.errors.push(err(other, "#[differentiable] supports `let name;` without a value only for a plain name; give the `let` a value")),
            }
            return;
        };
        if let Some((else_token, _)) = &init.diverge {
            self.errors.push(err(
                else_token,
                "#[differentiable] does not support `let ... else`; use an `if` on the value",
            ));
            return;
        }
        let (pat, ty) = split_type(&local.pat);
        let value = match ty.and_then(|ty| self.typed_into(&init.expr, ty, out)) {
            Some(v) => v,
            None => self.expr(&init.expr, out),
        };
        let mut binds = Vec::new();
        self.pattern(pat, ty.cloned(), value, out, &mut binds);
        for var in binds {
            self.bind(var);
        }
    }

    fn pattern(
        &mut self,
        pat: &Pat,
        ty: Option<Type>,
        value: Value,
        out: &mut Vec<Inst>,
        binds: &mut Vec<Var>,
    ) {
        match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let var = self.new_var(p.ident.clone(), ty, p.mutability.is_some());
                out.push(Inst::Let { var, init: Some(value) });
                binds.push(var);
            }
            Pat::Wild(_) => {}
            Pat::Paren(p) => self.pattern(&p.pat, ty, value, out, binds),
            Pat::Type(t) => self.pattern(&t.pat, Some((*t.ty).clone()), value, out, binds),
            Pat::Tuple(t) => {
                // `let (t, a) = t;` binds `t` before reading `t.1`: read the source from a copy.
                self.values[value.0 as usize].needs_copy = true;
                let elem_types: Option<Vec<Type>> = match &ty {
                    Some(Type::Tuple(tt)) if tt.elems.len() == t.elems.len() => Some(tt.elems.iter().cloned().collect()),
                    _ => None,
                };
                for (i, elem) in t.elems.iter().enumerate() {
                    if let Pat::Rest(r) = elem {
                        self.errors.push(err(r, "#[differentiable] does not support `..` in tuple patterns; name every element (`_` for unused ones)"));
                        continue;
                    }
                    let field = self.value(elem.span());
                    out.push(Inst::Field {
                        out: field,
                        a: value,
                        index: syn::Index { index: i as u32, span: elem.span() },
                        element: false,
                    });
                    let elem_ty = elem_types.as_ref().map(|v| v[i].clone());
                    self.pattern(elem, elem_ty, field, out, binds);
                }
            }
            Pat::Slice(s) => {
                // `let [x, y] = p;` (also `[x, y, ..]`): element `k` is `p[k]`.
                self.values[value.0 as usize].needs_copy = true;
                let elem_ty = match &ty {
                    Some(Type::Array(a)) => Some((*a.elem).clone()),
                    _ => None,
                };
                for (i, elem) in s.elems.iter().enumerate() {
                    if let Pat::Rest(r) = elem {
                        if i + 1 != s.elems.len() {
                            self.errors.push(err(r, "#[differentiable] supports `..` in an array pattern only at its end (`let [a, b, ..] = x;`); index the elements after it (`x[x.len() - 1]`)"));
                        }
                        continue;
                    }
                    let part = self.value(elem.span());
                    out.push(Inst::Field {
                        out: part,
                        a: value,
                        index: syn::Index { index: i as u32, span: elem.span() },
                        element: true,
                    });
                    self.pattern(elem, elem_ty.clone(), part, out, binds);
                }
            }
            other => self.errors.push(err(other, "#[differentiable] supports `let` patterns that are names, `_`, tuples and arrays of these; destructure in several `let`s")),
        }
    }

    /// The local variable an expression names, with the identifier as written there.
    fn local_var(&mut self, e: &Expr) -> Option<(Var, Ident)> {
        match e {
            Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                self.lookup(&ident.to_string()).map(|v| (v, ident.clone()))
            }
            Expr::Paren(p) => self.local_var(&p.expr),
            _ => None,
        }
    }

    fn assign(&mut self, var: Var, ident: Ident, value: Value, out: &mut Vec<Inst>) {
        if self.vars[var.0 as usize]
            .ty
            .as_ref()
            .is_some_and(|t| slice_of(t).is_some())
        {
            self.errors.push(err(&ident, format!("#[differentiable] cannot assign to the slice `{ident}` itself; write its elements (`{ident}[i] = ...`)")));
            return;
        }
        // Variables are told apart by name here; a name written from two macro contexts may
        // stand for two variables, so every pending read of the name copies its value.
        let name = ident.to_string();
        for (read, v) in &self.pending {
            if self.vars[v.0 as usize].ident == name {
                self.values[read.0 as usize].needs_copy = true;
            }
        }
        out.push(Inst::Assign { var, ident, value });
    }

    /// The value `lhs op rhs` of a compound assignment `lhs op= rhs`.
    fn compound(
        &mut self,
        b: &syn::ExprBinary,
        lhs: Value,
        rhs: Value,
        out: &mut Vec<Inst>,
    ) -> Value {
        let result = self.value(b.span());
        let op_tokens = compound_base(&b.op);
        match arith_of_compound(&b.op) {
            Some(op) => out.push(Inst::Arith {
                out: result,
                op,
                a: lhs,
                b: rhs,
                op_tokens,
            }),
            None => out.push(Inst::Inactive {
                out: result,
                a: lhs,
                b: rhs,
                op_tokens,
            }),
        }
        result
    }

    fn stmt_expr(&mut self, e: &Expr, out: &mut Vec<Inst>) {
        match e {
            Expr::Assign(a) if matches!(&*a.left, Expr::Index(_)) => {
                let Expr::Index(ix) = &*a.left else {
                    unreachable!()
                };
                let Some((var, ident, index)) = self.index_target(ix, out) else {
                    return;
                };
                let value = self.expr(&a.right, out);
                self.index_assign(var, ident, index, value, a.span(), out);
            }
            Expr::Binary(b) if is_compound(&b.op) && matches!(&*b.left, Expr::Index(_)) => {
                let Expr::Index(ix) = &*b.left else {
                    unreachable!()
                };
                let Some((var, ident, index)) = self.index_target(ix, out) else {
                    return;
                };
                let rhs = self.expr(&b.right, out);
                let lhs = self.value(b.left.span());
                out.push(Inst::Index {
                    out: lhs,
                    var,
                    ident: ident.clone(),
                    index,
                });
                let result = self.compound(b, lhs, rhs, out);
                self.index_assign(var, ident, index, result, b.span(), out);
            }
            Expr::Assign(a) => {
                let Some((var, ident)) = self.local_var(&a.left) else {
                    self.errors.push(err(&a.left, "#[differentiable] supports assignment to local variables only; bind the result with `let`"));
                    return;
                };
                let value = self.expr(&a.right, out);
                self.assign(var, ident, value, out);
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                let Some((var, ident)) = self.local_var(&b.left) else {
                    self.errors.push(err(&b.left, "#[differentiable] supports compound assignment to local variables only; bind the result with `let`"));
                    return;
                };
                let rhs = self.expr(&b.right, out);
                let lhs = self.value(b.left.span());
                out.push(Inst::Read {
                    out: lhs,
                    var,
                    ident: ident.clone(),
                });
                let result = self.compound(b, lhs, rhs, out);
                self.assign(var, ident, result, out);
            }
            Expr::Return(r) => {
                let Some(value) = &r.expr else {
                    self.errors.push(err(
                        r,
                        "#[differentiable] functions return a value: write `return value`",
                    ));
                    return;
                };
                let v = self.expr(value, out);
                out.push(Inst::Return { value: v });
            }
            Expr::ForLoop(f) => self.for_loop(f, out),
            Expr::While(w) => self.while_loop(w, out),
            Expr::Break(b) => self.break_stmt(b, out),
            Expr::Continue(c) => self.continue_stmt(c, out),
            _ if maybe_unit(e) => {
                let _ = self.expr_maybe_unit(e, out);
            }
            _ => {
                let _ = self.expr(e, out);
            }
        }
    }

    /// An `if` or block whose value may be `()`.
    fn expr_maybe_unit(&mut self, e: &Expr, out: &mut Vec<Inst>) -> Option<Value> {
        match e {
            Expr::If(i) => {
                let cond = self.condition(&i.cond, "if", out);
                let then_block = self.block(&i.then_branch);
                let else_block = match &i.else_branch {
                    None => Block {
                        insts: Vec::new(),
                        result: None,
                    },
                    Some((_, els)) => match &**els {
                        Expr::Block(b) if b.label.is_none() => self.block(&b.block),
                        other => {
                            self.scopes.push(HashMap::new());
                            let mut insts = Vec::new();
                            let result = self.expr_maybe_unit(other, &mut insts);
                            self.scopes.pop();
                            Block { insts, result }
                        }
                    },
                };
                let has_value = then_block.result.is_some() || else_block.result.is_some();
                let result = has_value.then(|| self.value(i.span()));
                out.push(Inst::If {
                    out: result,
                    cond,
                    then_block,
                    else_block,
                });
                result
            }
            Expr::Block(b) => {
                if let Some(label) = &b.label {
                    self.errors.push(err(
                        label,
                        "#[differentiable] does not support labelled blocks; use `if`/`else`",
                    ));
                }
                let block = self.block(&b.block);
                let result = block.result.map(|_| self.value(b.span()));
                out.push(Inst::Block { out: result, block });
                result
            }
            Expr::Loop(l) => self.loop_expr(l, out),
            Expr::Match(m) => self.match_expr(m, out),
            other => Some(self.expr(other, out)),
        }
    }

    /// A condition: kept verbatim, since a `bool` has no derivative.
    fn condition(&mut self, cond: &Expr, construct: &str, out: &mut Vec<Inst>) -> Value {
        if let Expr::Let(l) = cond {
            self.errors.push(err(
                l,
                format!("#[differentiable] does not support `{construct} let`; compare the value instead (`{construct} i < n`), or `match` on a value without a derivative"),
            ));
        }
        self.verbatim(cond, out, None)
    }

    /// The variable and index of `base[index]`; `None` after reporting an error.
    fn index_target(
        &mut self,
        ix: &syn::ExprIndex,
        out: &mut Vec<Inst>,
    ) -> Option<(Var, Ident, Value)> {
        if let Expr::Range(r) = &*ix.index {
            self.errors.push(err(r, "#[differentiable] does not support slicing (`a[i..j]`); index elements one by one (`a[i]`) in a loop over the range"));
            return None;
        }
        let Some((var, ident)) = self.local_var(&ix.expr) else {
            self.errors.push(err(&ix.expr, "#[differentiable] supports indexing a variable only (a parameter or a `let`); bind the value first: `let row = ...; row[i]`"));
            return None;
        };
        let index = self.expr(&ix.index, out);
        Some((var, ident, index))
    }

    fn index_assign(
        &mut self,
        var: Var,
        ident: Ident,
        index: Value,
        value: Value,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        let name = ident.to_string();
        for (read, v) in &self.pending {
            if self.vars[v.0 as usize].ident == name {
                self.values[read.0 as usize].needs_copy = true;
            }
        }
        let id = self.value(span);
        out.push(Inst::IndexAssign {
            id,
            var,
            ident,
            index,
            value,
        });
    }

    /// `vec![a, b]` or `vec![e; n]`.
    fn vec_macro(&mut self, m: &syn::ExprMacro, out: &mut Vec<Inst>) -> Value {
        enum VecArgs {
            List(Vec<Expr>),
            Repeat(Box<(Expr, Expr)>),
        }
        let parser = |input: syn::parse::ParseStream| -> syn::Result<VecArgs> {
            if input.is_empty() {
                return Ok(VecArgs::List(Vec::new()));
            }
            let first: Expr = input.parse()?;
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                let len: Expr = input.parse()?;
                return Ok(VecArgs::Repeat(Box::new((first, len))));
            }
            let mut elems = vec![first];
            while !input.is_empty() {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                elems.push(input.parse()?);
            }
            Ok(VecArgs::List(elems))
        };
        let args = match syn::parse::Parser::parse2(parser, m.mac.tokens.clone()) {
            Ok(args) => args,
            Err(e) => {
                self.errors.push(e);
                return self.dummy(out, m.span());
            }
        };
        match args {
            VecArgs::List(elems) => {
                let elems = elems.iter().map(|e| self.expr(e, out)).collect();
                let v = self.value(m.span());
                out.push(Inst::Array {
                    out: v,
                    elems,
                    vec: true,
                });
                v
            }
            VecArgs::Repeat(pair) => {
                let (elem, len) = *pair;
                let elem = self.expr(&elem, out);
                let len = self.verbatim(&len, out, None);
                let v = self.value(m.span());
                out.push(Inst::Repeat {
                    out: v,
                    elem,
                    len: crate::ir::Len::Vec(len),
                });
                v
            }
        }
    }
}

fn is_read_only_method(name: &str) -> bool {
    prims::lookup(name).is_some()
        || prims::INACTIVE_METHODS.contains(&name)
        || READ_ONLY_METHODS.contains(&name)
}

/// A float literal bound of a range (`0.0..x`), which no `for` loop can iterate.
fn float_range_bound(e: &Expr) -> Option<&syn::ExprLit> {
    match e {
        Expr::Paren(p) => float_range_bound(&p.expr),
        Expr::MethodCall(m) => float_range_bound(&m.receiver),
        Expr::Range(r) => [r.start.as_deref(), r.end.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|b| match b {
                Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)) => Some(l),
                _ => None,
            }),
        _ => None,
    }
}

/// The range of a slicing `a[i..j]` at the root of a chain of method calls.
fn sliced(e: &Expr) -> Option<&syn::ExprRange> {
    match e {
        Expr::MethodCall(m) => sliced(&m.receiver),
        Expr::Paren(p) => sliced(&p.expr),
        Expr::Reference(r) => sliced(&r.expr),
        Expr::Index(ix) => match &*ix.index {
            Expr::Range(r) => Some(r),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an expression is a range of integers: `a..b`, `a..=b`, with `.rev()` or
/// `.step_by(k)`.
fn is_integer_range(e: &Expr) -> bool {
    match e {
        Expr::Range(_) => true,
        Expr::Paren(p) => is_integer_range(&p.expr),
        Expr::MethodCall(m) => {
            matches!(m.method.to_string().as_str(), "rev" | "step_by")
                && is_integer_range(&m.receiver)
        }
        _ => false,
    }
}

/// Whether every path through an instruction returns (or leaves the loop iteration).
fn diverges(inst: &Inst) -> bool {
    let block_diverges = |b: &Block| b.insts.last().is_some_and(diverges);
    match inst {
        Inst::Return { .. } | Inst::Break | Inst::Continue => true,
        Inst::Loop {
            head: crate::ir::LoopHead::Infinite,
            body,
        } => !breaks_out(body),
        Inst::If {
            then_block,
            else_block,
            ..
        } => block_diverges(then_block) && block_diverges(else_block),
        Inst::Block { block, .. } => block_diverges(block),
        _ => false,
    }
}

fn split_type(pat: &Pat) -> (&Pat, Option<&Type>) {
    match pat {
        Pat::Type(t) => (&t.pat, Some(&t.ty)),
        other => (other, None),
    }
}

/// The expressions that `expr_maybe_unit` lowers: their value may be `()`, or there may be none.
fn maybe_unit(e: &Expr) -> bool {
    matches!(
        e,
        Expr::If(_) | Expr::Block(_) | Expr::Loop(_) | Expr::Match(_)
    )
}

fn diverges_syntactically(e: &Expr) -> bool {
    matches!(e, Expr::Return(_) | Expr::Break(_) | Expr::Continue(_))
}

fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

fn arith_of(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::Add(_) => Arith::Add,
        BinOp::Sub(_) => Arith::Sub,
        BinOp::Mul(_) => Arith::Mul,
        BinOp::Div(_) => Arith::Div,
        BinOp::Rem(_) => Arith::Rem,
        _ => return None,
    })
}

fn arith_of_compound(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::AddAssign(_) => Arith::Add,
        BinOp::SubAssign(_) => Arith::Sub,
        BinOp::MulAssign(_) => Arith::Mul,
        BinOp::DivAssign(_) => Arith::Div,
        BinOp::RemAssign(_) => Arith::Rem,
        _ => return None,
    })
}

/// The operator of a compound assignment without its `=`: `+=` gives `+`.
fn compound_base(op: &BinOp) -> TokenStream {
    let span = op.span();
    let s = op.to_token_stream().to_string();
    let base = s.trim_end_matches('=').replace(' ', "");
    let op: BinOp = syn::parse_str(&base).expect("a binary operator");
    let mut ts = op.to_token_stream();
    ts = ts
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect();
    ts
}

fn collect_names(tokens: TokenStream, f: &mut dyn FnMut(&str)) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => f(&i.to_string()),
            TokenTree::Group(g) => collect_names(g.stream(), f),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.ends_with('"') {
                    format_captures(&text, f);
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

/// The names a format string captures: `{x}`, `{x:?}`, `{x:>8.3}`; `{{` is an escaped brace.
fn format_captures(text: &str, f: &mut dyn FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            if bytes.get(i + 1) == Some(&b'{') {
                i += 2;
                continue;
            }
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if end > start && matches!(bytes.get(end), Some(b'}' | b':')) {
                f(&text[start..end]);
            }
            i = end;
        } else {
            i += 1;
        }
    }
}

/// Macros that only read their arguments.
const READ_ONLY_MACROS: &[&str] = &[
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
    "write",
    "writeln",
    "todo",
    "unimplemented",
    "unreachable",
    "panic",
];

/// Methods of arrays, slices and `Vec`s whose result carries no derivative.
const CONTAINER_INACTIVE: &[&str] = &["len", "is_empty"];

/// What a `for` loop over elements iterates over.
enum Source {
    /// The elements of a variable.
    Elems(Var, Ident),
    Enumerate(Box<Source>),
    Zip(Box<Source>, Box<Source>),
    /// `.skip(k)`: the count `k` as written, and the variables it reads.
    Skip(Box<Source>, TokenStream, Vec<Var>),
    /// `.take(k)`.
    Take(Box<Source>, TokenStream, Vec<Var>),
}

/// Methods known not to change their receiver, besides the float primitives.
const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
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
];

/// `return` or `?` inside an expression kept verbatim would leave the generated function with
/// the primal's type; `break` or `continue` would leave a loop without what reverse mode records
/// when an iteration ends.
fn find_control(tokens: &TokenStream) -> Option<TokenTree> {
    for tt in tokens.clone() {
        match &tt {
            TokenTree::Ident(i) if i == "return" || i == "break" || i == "continue" => {
                return Some(tt);
            }
            TokenTree::Punct(p) if p.as_char() == '?' => return Some(tt),
            TokenTree::Group(g) => {
                if let Some(found) = find_control(&g.stream()) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether verbatim tokens may change a variable: an `=` that is not part of a comparison or
/// `=>`, `mut`, a macro other than the read-only ones, or a method call not known to be
/// read-only (a `&mut self` method changes its receiver without any `=`).
fn may_write(tokens: &TokenStream) -> bool {
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) if id == "mut" => return true,
            TokenTree::Ident(id)
                if matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
                    && matches!(tts.get(i + 2), Some(TokenTree::Group(_)))
                    && !READ_ONLY_MACROS.contains(&id.to_string().as_str()) =>
            {
                return true;
            }
            TokenTree::Punct(p)
                if p.as_char() == '.'
                    && matches!(
                        (tts.get(i + 1), tts.get(i + 2)),
                        (Some(TokenTree::Ident(m)), Some(TokenTree::Group(g)))
                            if g.delimiter() == proc_macro2::Delimiter::Parenthesis
                                && !is_read_only_method(&m.to_string())
                    ) =>
            {
                return true;
            }
            TokenTree::Group(g) if may_write(&g.stream()) => {
                return true;
            }
            TokenTree::Punct(p) if p.as_char() == '=' => {
                let prev = i.checked_sub(1).and_then(|j| match &tts[j] {
                    TokenTree::Punct(q) if q.spacing() == proc_macro2::Spacing::Joint => {
                        Some(q.as_char())
                    }
                    _ => None,
                });
                let next_is_eq_or_gt = matches!(tts.get(i + 1), Some(TokenTree::Punct(q)) if p.spacing() == proc_macro2::Spacing::Joint && matches!(q.as_char(), '=' | '>'));
                let comparison = matches!(prev, Some('=' | '!' | '>' | '<' | '.'))
                    && !matches!(
                        (prev, i.checked_sub(2).map(|j| &tts[j])),
                        (Some('<' | '>'), Some(TokenTree::Punct(q))) if q.as_char() == prev.unwrap_or(' ') && q.spacing() == proc_macro2::Spacing::Joint
                    );
                if !comparison && !next_is_eq_or_gt {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}
