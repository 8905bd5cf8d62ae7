//! Lowering of calls: float methods, `.len()`, `.iter().sum()`, conversions, and calls of
//! functions (`receivers.rs`: methods of the user's structs).

use super::receivers::VEC_METHODS;
use super::*;
use crate::ir::Lent;

/// The associated functions that convert a number to a float type (`NumCast::from` and
/// `FromPrimitive`'s), each returning an `Option`.
const CONVERSIONS: &[&str] = &[
    "from",
    "from_f64",
    "from_f32",
    "from_usize",
    "from_isize",
    "from_u8",
    "from_u16",
    "from_u32",
    "from_u64",
    "from_u128",
    "from_i8",
    "from_i16",
    "from_i32",
    "from_i64",
    "from_i128",
];

impl Lower {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Inst>) -> Value {
        let name = m.method.to_string();
        if let Some(v) = self.user_method(m, out) {
            return v;
        }
        if let Some(v) = self.struct_clone(m, out) {
            return v;
        }
        if let Some(prim) = prims::lookup(&name) {
            let expected = match prim.shape {
                Shape::Unary => 0,
                Shape::PowI => 1,
                Shape::Multi(n) => n - 1,
            };
            if m.args.len() != expected || m.turbofish.is_some() {
                self.errors.push(err(
                    m,
                    format!("`{name}` takes {expected} argument(s) here"),
                ));
                return self.dummy(out, m.span());
            }
            let recv = self.expr(&m.receiver, out);
            let args = m.args.iter().map(|a| self.expr(a, out)).collect();
            let v = self.value(m.span());
            out.push(Inst::Method {
                out: v,
                prim,
                method: m.method.clone(),
                ufcs: None,
                recv,
                args,
            });
            return v;
        }
        if CONTAINER_INACTIVE.contains(&name.as_str()) && !self.known_container(&m.receiver) {
            // A method of a type the macro cannot see, with a container's name: checked to
            // return a count or a test, which has no derivative.
            let krate = &self.krate;
            let checked: Expr = syn::parse_quote_spanned!(m.span()=> #krate::__private::count(#m));
            return self.verbatim(&checked, out, None);
        }
        if prims::INACTIVE_METHODS.contains(&name.as_str())
            || CONTAINER_INACTIVE.contains(&name.as_str())
        {
            return self.verbatim(&Expr::MethodCall(m.clone()), out, None);
        }
        if let Some(v) = self.conversion(m, out) {
            return v;
        }
        if let Some(v) = self.consumed_chain(m, out) {
            return v;
        }
        if let Some(v) = self.array_map(m, out) {
            return v;
        }
        if let Some(v) = self.unwrap(m, out) {
            return v;
        }
        if let Some(range) = sliced(&m.receiver) {
            self.errors.push(err(range, "#[differentiable] does not support slicing (`a[i..j]`); index elements one by one (`a[i]`) in a loop over the range"));
            return self.dummy(out, m.span());
        }
        if name == "sum"
            && m.args.is_empty()
            && let Some((var, ident)) = self.summed_var(&m.receiver)
        {
            let tokens = Expr::MethodCall(m.clone()).to_token_stream();
            let len = self.value(m.span());
            out.push(Inst::Opaque {
                out: len,
                tokens: quote!(#ident.len()),
                reads: vec![var],
                may_write: false,
                only_inactive: None,
            });
            let v = self.value(m.span());
            out.push(Inst::Sum {
                out: v,
                var,
                ident,
                tokens,
                len,
            });
            return v;
        }
        let fix = if OPTION_METHODS.contains(&name.as_str()) {
            "an `Option` carries a derivative through `match`, `if let` and `.unwrap()`: write `match o { Some(v) => .., None => .. }`"
        } else if VEC_METHODS.contains(&name.as_str()) {
            "a `Vec` that carries a derivative is not built or changed by its methods yet: make it whole (`vec![0.0; n]`, `vec![a, b]`, an iterator chain's `collect()`) and assign its elements (`y[i] = ..`)"
        } else if self.field_place(&m.receiver).is_some()
            || self
                .local_var(&m.receiver)
                .is_some_and(|(var, _)| self.vars[var.0 as usize].ty.is_none())
        {
            "a method of your own struct is called with its derivative where the body names the receiver's type: `self`, a parameter, or a variable bound by a `let` with a type (`let s: Spring = ..;`) or by a struct literal; otherwise call it by path (`Spring::length(&s)`); the float methods that are differentiated are listed in the README"
        } else {
            "the float methods that are differentiated are listed in the README; for anything else call a function (with #[differentiable] or a #[custom_rule]) instead of a method"
        };
        self.verbatim(
            &Expr::MethodCall(m.clone()),
            out,
            Some(Unsupported::with_fix("this method call", fix)),
        )
    }

    /// A conversion to a float type written as a call and an unwrap: `T::from(x).unwrap()`,
    /// `T::from_f64(x).unwrap()`, `f64::from_usize(n).expect(..)`, with `T` a type parameter of
    /// the function or a float type. It is the cast `x as T` (a constant when `x` has no
    /// derivative), written as the user wrote it.
    fn conversion(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Inst>) -> Option<Value> {
        if !matches!(m.method.to_string().as_str(), "unwrap" | "expect") || m.turbofish.is_some() {
            return None;
        }
        let Expr::Call(call) = &*m.receiver else {
            return None;
        };
        let Expr::Path(path) = &*call.func else {
            return None;
        };
        let segments = &path.path.segments;
        if path.qself.is_some()
            || path.path.leading_colon.is_some()
            || segments.len() != 2
            || call.args.len() != 1
            || segments.iter().any(|s| !s.arguments.is_none())
        {
            return None;
        }
        let (ty, function) = (&segments[0].ident, segments[1].ident.to_string());
        let ty_name = ty.to_string();
        let to_float = self.type_params.contains(&ty_name) || prims::is_float_type_name(&ty_name);
        if !to_float || !CONVERSIONS.contains(&function.as_str()) {
            return None;
        }
        let a = self.expr(&call.args[0], out);
        let v = self.value(m.span());
        let callee = &call.func;
        let (dot, method, args) = (&m.dot_token, &m.method, &m.args);
        let rest = quote!(#dot #method(#args));
        out.push(Inst::Cast {
            out: v,
            a,
            ty: syn::parse_quote!(#ty),
            via: Some(crate::ir::Conversion {
                callee: quote!(#callee),
                rest,
            }),
        });
        Some(v)
    }

    /// `o.unwrap()` or `o.expect("..")` of an `Option` (or of a `Result` without a derivative):
    /// the value inside, computed by the call as written, with the derivative inside.
    fn unwrap(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Inst>) -> Option<Value> {
        let literal = |e: &Expr| matches!(e, Expr::Lit(_));
        let fits = match (m.method.to_string().as_str(), m.args.len()) {
            ("unwrap", 0) => true,
            ("expect", 1) => literal(&m.args[0]),
            _ => false,
        };
        if !fits || m.turbofish.is_some() {
            return None;
        }
        let a = self.expr(&m.receiver, out);
        self.values[a.0 as usize].needs_copy = true;
        let v = self.value(m.span());
        let (dot, method, args) = (&m.dot_token, &m.method, &m.args);
        out.push(Inst::Payload {
            out: v,
            a,
            unwrap: Some(quote!(#dot #method(#args))),
        });
        Some(v)
    }

    /// `let x: f64 = v.into();`: the conversion `Into<f64>` of `v`, a cast to the `let`'s type.
    pub(super) fn typed_into(&mut self, e: &Expr, ty: &Type, out: &mut Vec<Inst>) -> Option<Value> {
        let Expr::MethodCall(m) = e else { return None };
        if m.method != "into" || !m.args.is_empty() || m.turbofish.is_some() {
            return None;
        }
        let a = self.expr(&m.receiver, out);
        let v = self.value(m.span());
        out.push(Inst::Cast {
            out: v,
            a,
            ty: ty.clone(),
            via: Some(crate::ir::Conversion {
                callee: quote!(::core::convert::Into::<#ty>::into),
                rest: TokenStream::new(),
            }),
        });
        Some(v)
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall, out: &mut Vec<Inst>) -> Value {
        if let Some(v) = self.inline_closure(c, out) {
            return v;
        }
        // `Pair(v, x)`: a tuple struct built, as the literal `Pair { 0: v, 1: x }` it is.
        if let Some(lit) = tuple_struct_call(c) {
            return self.struct_literal(&lit, out);
        }
        if let Expr::Path(path) = &*c.func
            && is_some_path(path)
            && c.args.len() == 1
        {
            let a = self.expr(&c.args[0], out);
            let v = self.value(c.span());
            out.push(Inst::Wrap { out: v, a });
            return v;
        }
        let Expr::Path(path) = &*c.func else {
            self.errors.push(err(
                &c.func,
                "#[differentiable] can call functions by path only; call the function by its name",
            ));
            return self.dummy(out, c.span());
        };
        if path.qself.is_none() {
            let segs: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [first] = segs.as_slice()
                && self
                    .lookup(first)
                    .is_some_and(|v| !self.function_vars.contains(&v))
            {
                self.errors.push(err(&c.func, format!("#[differentiable] cannot call `{first}`: it is a local variable (a closure or a function pointer), and the registry finds derivatives of named functions only; write it as a named `fn` and call that")));
                return self.dummy(out, c.span());
            }
            // `f64::sin(x)`, and `T::sin(x)` of a float type parameter (`Float::sin`).
            if let [ty, method] = segs.as_slice()
                && (prims::is_float_type_name(ty) || self.type_params.contains(ty))
                && let Some(prim) = prims::lookup(method)
            {
                let n = match prim.shape {
                    Shape::Unary => 1,
                    Shape::PowI => 2,
                    Shape::Multi(n) => n,
                };
                if c.args.len() != n {
                    self.errors
                        .push(err(c, format!("`{ty}::{method}` takes {n} argument(s)")));
                    return self.dummy(out, c.span());
                }
                let mut vals: Vec<Value> = c.args.iter().map(|a| self.expr(a, out)).collect();
                let recv = vals.remove(0);
                let v = self.value(c.span());
                let method = path
                    .path
                    .segments
                    .last()
                    .expect("two segments")
                    .ident
                    .clone();
                let ufcs = Some(path.path.segments[0].ident.clone());
                out.push(Inst::Method {
                    out: v,
                    prim,
                    method,
                    ufcs,
                    recv,
                    args: vals,
                });
                return v;
            }
            // Another function of a type parameter's traits with arguments (`T::abs_sub(x, y)`,
            // `T::powf` is differentiated above): a trait's method, which has no derivative the
            // registry can find (it would panic when the derivative runs).
            if let [ty, method] = segs.as_slice()
                && self.type_params.contains(ty)
                && !c.args.is_empty()
            {
                self.errors.push(err(&c.func, format!("#[differentiable] does not differentiate `{ty}::{method}`, a function of `{ty}`'s traits, which has no derivative it can find: write it with the float methods it differentiates (listed in the README, also as `{ty}::sin(x)`), or call a function of your own that has #[differentiable] or a #[custom_rule]")));
                return self.dummy(out, c.span());
            }
        }
        // A reference to an array is differentiated as a copy of the array, which the callee
        // would get in its place: not passed on yet (a struct's is, as `&` of the copy).
        for a in &c.args {
            if let Some((var, ident)) = self.local_var(a)
                && self.array_refs.contains(&var)
                && self.vars[var.0 as usize]
                    .ty
                    .as_ref()
                    .is_some_and(|t| matches!(t, Type::Array(_)))
            {
                self.errors.push(err(a, format!(
                    "#[differentiable] does not pass a reference to an array on to another function yet: `{ident}` is differentiated as the array it refers to; pass the array (`*{ident}`) to a function that takes `[T; N]`"
                )));
            }
        }
        let (args, lent, functions) = self.call_arguments(c.args.iter(), out);
        let v = self.value(c.span());
        out.push(Inst::Call {
            out: v,
            callee: path.to_token_stream(),
            args,
            span: c.span(),
            parens: c.paren_token.span,
            lent,
            functions,
        });
        v
    }

    /// The arguments of a call: their values, how each is lent, and which are function items.
    pub(super) fn call_arguments<'e>(
        &mut self,
        written: impl Iterator<Item = &'e Expr>,
        out: &mut Vec<Inst>,
    ) -> (Vec<Value>, Vec<Lent>, Vec<bool>) {
        // A slice parameter may be passed on whole: the callee gets it with its tangent or
        // adjoint buffer. A local `Vec` or array is lent as a slice (`&v`, `&v[..]`).
        let mut lent = Vec::new();
        let mut args = Vec::new();
        let mut functions = Vec::new();
        for a in written {
            functions.push(self.function_argument(a));
            // A field of a struct passed by reference (`f(&s.inner)`): read in place and lent,
            // as the receiver of a method called on it is.
            if let Some((field, ty)) = self.field_by_ref(a) {
                let krate = &self.krate;
                // At the argument, where the error about its type belongs.
                let ty = crate::expand::respan(&ty.to_token_stream(), a.span());
                let check = quote::quote_spanned! {a.span()=>
                    let _: fn() = #krate::__private::lent_field::<#ty>;
                };
                out.push(Inst::Verbatim {
                    tokens: check,
                    reads: Vec::new(),
                    may_write: false,
                    item: false,
                });
                let v = self.expr(field, out);
                self.values[v.0 as usize].place = true;
                lent.push(Lent::Ref);
                args.push(v);
                continue;
            }
            let taken = self.lent_arg(a, out);
            lent.push(taken.as_ref().map_or(Lent::No, |(_, _, l)| *l));
            let whole = taken.map(|(var, ident, _)| (var, ident)).or_else(|| {
                self.local_var(a).filter(|(var, _)| {
                    self.vars[var.0 as usize]
                        .ty
                        .as_ref()
                        .is_some_and(|t| slice_of(t).is_some())
                })
            });
            args.push(match whole {
                Some((var, ident)) => {
                    let v = self.value(a.span());
                    out.push(Inst::Read { out: v, var, ident });
                    v
                }
                None => self.expr(a, out),
            });
        }
        (args, lent, functions)
    }

    /// Whether `a` is a function item passed by name (`field`, `models::field`): a path that
    /// names no local variable and, by Rust's naming conventions, no constant. A closure
    /// written there is an error: its derivative would have to be generated where it is
    /// written.
    fn function_argument(&mut self, a: &Expr) -> bool {
        match a {
            Expr::Closure(c) => {
                self.errors.push(err(c, "#[differentiable] cannot pass a closure to a function: the function's derivative calls the derivative of its argument through the registry, which knows named functions only; write the closure as a named `fn` with #[differentiable] and pass that"));
                false
            }
            // A closure bound by `let`: reported where its value is taken.
            Expr::Path(p) if p.qself.is_none() && self.closure_named(a).is_some() => false,
            Expr::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                let name = last.ident.to_string();
                let local = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()));
                if let Some(var) = local
                    && self.function_vars.contains(&var)
                {
                    self.errors.push(err(p, format!("#[differentiable] does not pass a function argument on to another function yet: `{name}` is a parameter, whose type the callee's derivative would have to be instantiated with; call the callee with the function item itself (`{name}` replaced by the function's name) from the caller")));
                    return false;
                }
                local.is_none() && name.starts_with(|c: char| c.is_lowercase() || c == '_')
            }
            _ => false,
        }
    }

    /// A slice made at the call: `&v`, `&v[..]` or `&v[a..b]` of a local `Vec` or array, or
    /// `&x[a..b]` (also `&x[..]`, `&x`) of a shared slice parameter; the variable and how it is
    /// lent (with the bounds lowered into `out`).
    fn lent_arg(&mut self, a: &Expr, out: &mut Vec<Inst>) -> Option<(Var, Ident, Lent)> {
        if let Some((var, ident)) = self.struct_by_ref(a) {
            return Some((var, ident, Lent::Ref));
        }
        // A slice bound by `let`: `f(row)`, also `f(&row)`, `f(&row[..])`.
        let named = match a {
            Expr::Reference(r) if r.mutability.is_none() => match &*r.expr {
                Expr::Index(ix) if matches!(&*ix.index, Expr::Range(rg) if rg.start.is_none() && rg.end.is_none()) => {
                    &*ix.expr
                }
                other => other,
            },
            other => other,
        };
        if let Some((var, _)) = self.local_var(named)
            && let Some(view) = self.view_of(var)
        {
            return Some(self.view_lent(&view, a.span(), out));
        }
        let Expr::Reference(r) = a else {
            return None;
        };
        if r.mutability.is_some() {
            return self.lent_mutably(r, out);
        }
        let (base, range) = match &*r.expr {
            Expr::Index(ix) => match &*ix.index {
                Expr::Range(rg) => (&*ix.expr, Some(rg)),
                _ => return None,
            },
            other => (other, None),
        };
        let (var, ident) = self.local_var(base)?;
        // A part of a view (`&row[1..]`).
        if let Some(view) = self.view_of(var) {
            return Some(self.view_part_lent(&view, range, false, r.span(), out));
        }
        let data = &self.vars[var.0 as usize];
        let shared_slice = data
            .ty
            .as_ref()
            .and_then(slice_of)
            .is_some_and(|(mutable, _)| !mutable);
        let local = !(data.known_inactive
            || self.array_refs.contains(&var)
            || data.ty.as_ref().is_some_and(|t| {
                slice_of(t).is_some() || const_of(t).is_some() || is_float_type(t)
            }));
        let whole = range.is_none_or(|rg| rg.start.is_none() && rg.end.is_none());
        let how = match (whole, shared_slice, local) {
            (true, true, _) => Lent::No,
            (true, false, true) => Lent::Whole,
            (false, true, _) | (false, false, true) => {
                let rg = range.expect("not whole");
                let start = rg.start.as_ref().map(|s| self.expr(s, out));
                let end = rg.end.as_ref().map(|e| self.expr(e, out));
                Lent::Part {
                    start,
                    end,
                    inclusive: matches!(rg.limits, syn::RangeLimits::Closed(_)),
                }
            }
            _ => return None,
        };
        Some((var, ident, how))
    }
}

impl Lower {
    /// `&mut v`, `&mut *v`, `&mut v[..]` or `&mut v[a..b]` of a local `Vec` or array that may
    /// hold derivatives, or a part of an output slice parameter: lent to a function that writes
    /// it (see `Lent::Mut`). An output slice whole (`&mut *y`, `&mut y[..]`) is passed on as
    /// `y` is.
    fn lent_mutably(
        &mut self,
        r: &syn::ExprReference,
        out: &mut Vec<Inst>,
    ) -> Option<(Var, Ident, Lent)> {
        let (base, range) = match super::closures::strip_parens(&r.expr) {
            Expr::Index(ix) => match &*ix.index {
                Expr::Range(rg) => (&*ix.expr, Some(rg)),
                _ => return None,
            },
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => (&*u.expr, None),
            other => (other, None),
        };
        let (var, ident) = self.local_var(base)?;
        // A part of a mutable view (`&mut row[1..]`, `&mut *row`).
        if let Some(view) = self.view_of(var) {
            if !view.mutable {
                return None;
            }
            return Some(self.view_part_lent(&view, range, true, r.span(), out));
        }
        let data = &self.vars[var.0 as usize];
        let output = data
            .ty
            .as_ref()
            .and_then(slice_of)
            .is_some_and(|(mutable, _)| mutable);
        let whole = range.is_none_or(|rg| rg.start.is_none() && rg.end.is_none());
        if output && whole {
            return Some((var, ident, Lent::No));
        }
        let lendable = output
            || !(data.known_inactive
                || self.array_refs.contains(&var)
                || self.view_of(var).is_some()
                || data.ty.as_ref().is_some_and(|t| {
                    holds_no_derivative(t)
                        || slice_of(t).is_some()
                        || const_of(t).is_some()
                        || is_float_type(t)
                }));
        if !lendable {
            return None;
        }
        // What the reads before the call left to be taken later: copied first.
        self.mark_pending(&[var], true);
        let (start, end, inclusive) = match range {
            Some(rg) => (
                rg.start.as_ref().map(|s| self.expr(s, out)),
                rg.end.as_ref().map(|e| self.expr(e, out)),
                matches!(rg.limits, syn::RangeLimits::Closed(_)),
            ),
            None => (None, None, false),
        };
        let how = Lent::Mut {
            var,
            start,
            end,
            inclusive,
            bare: range.is_none(),
        };
        Some((var, ident, how))
    }
}

/// A type without a derivative, or a `Vec`, array or slice of one (`Vec<usize>`).
fn holds_no_derivative(ty: &Type) -> bool {
    match ty {
        Type::Array(a) => holds_no_derivative(&a.elem),
        Type::Slice(s) => holds_no_derivative(&s.elem),
        Type::Reference(r) => holds_no_derivative(&r.elem),
        Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(last) if last.ident == "Vec" => match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => matches!(
                    args.args.first(),
                    Some(syn::GenericArgument::Type(t)) if holds_no_derivative(t)
                ),
                _ => false,
            },
            _ => known_inactive(ty),
        },
        _ => known_inactive(ty),
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

/// Methods of `Option` (and only of `Option`) that take its value out, which a `match` spells.
pub(super) const OPTION_METHODS: &[&str] = &[
    "unwrap_or",
    "unwrap_or_else",
    "unwrap_or_default",
    "map_or",
    "map_or_else",
    "and_then",
    "get_or_insert",
    "get_or_insert_with",
];

/// Whether `path` names the variant `Some`: `Some`, `Option::Some`, `std::option::Option::Some`.
pub(super) fn is_some_path(path: &syn::ExprPath) -> bool {
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    path.qself.is_none()
        && path.path.segments.iter().all(|s| s.arguments.is_none())
        && matches!(
            names
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["Some"] | ["Option", "Some"] | ["std" | "core", "option", "Option", "Some"]
        )
}

/// `Path(a, b)` whose name is a type's (`Pair(v, x)`, `m::Wrap::<f64>(p, k)`, by Rust's
/// naming: its last segment starts with a capital, the segments before it, modules, do not) as
/// the struct literal `Path { 0: a, 1: b }`, which Rust allows for tuple structs; `Some`, `Ok`
/// and `Err` are not, nor an associated function of a type (`T::PI()`, `Mode::A(x)`).
pub(super) fn tuple_struct_call(c: &syn::ExprCall) -> Option<syn::ExprStruct> {
    let Expr::Path(p) = &*c.func else {
        return None;
    };
    if p.qself.is_some() || c.args.is_empty() {
        return None;
    }
    let (last, modules) = p
        .path
        .segments
        .iter()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(l, m)| (l.ident.to_string(), m.to_vec()))?;
    let capital = |s: &str| s.starts_with(char::is_uppercase);
    if !capital(&last)
        || matches!(last.as_str(), "Some" | "Ok" | "Err")
        || modules
            .iter()
            .any(|m| capital(&m.ident.to_string()) || !m.arguments.is_none())
    {
        return None;
    }
    let path = &p.path;
    let fields = c.args.iter().enumerate().map(|(k, a)| {
        let index = syn::Index {
            index: k as u32,
            span: a.span(),
        };
        quote::quote!(#index: #a)
    });
    syn::parse2(quote::quote_spanned!(c.span()=> #path { #(#fields),* })).ok()
}
