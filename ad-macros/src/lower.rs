//! Parsing and validation: a `syn::ItemFn` becomes an `ir::Func`, or errors at the offending
//! tokens, all of them together.

use crate::ir::{Block, Func, Inst, Param, Scrutinee, Unsupported, Value, ValueData, Var, VarData};
use crate::prims::{self, Shape};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Stmt, Type, UnOp};

mod assign;
mod calls;
mod chain_loop;
mod chains;
mod closures;
mod control;
mod expr;
mod items;
mod loops;
mod macros;
mod matching;
pub(crate) mod names;
mod operators;
mod patterns;
mod places;
mod receivers;
mod sources;
mod verbatim;
mod views;
mod written;

use control::breaks_out;
use items::ITEM_SHADOW;
pub use names::*;
use operators::{arith_of, arith_of_compound, compound_base, is_compound};
pub use verbatim::changed_names;
use verbatim::{collect_names, find_control, may_write};
pub use written::{lent_seq, lent_slice, literals, passed, plain_lent_call, slice_reads};

pub struct Lower {
    values: Vec<ValueData>,
    vars: Vec<VarData>,
    scopes: Vec<HashMap<String, Var>>,
    /// Reads of variables whose value is not consumed yet: an assignment to the variable before
    /// their use makes them copy the old value.
    pending: Vec<(Value, Var)>,
    /// The loops (and labelled blocks) around the code being lowered, innermost last.
    loops: Vec<control::LoopFrame>,
    /// Loop variables bound to elements by `for x in a.iter()`: `x` is a reference in the
    /// user's code and a value in the derivative, so `*x` reads `x`.
    element_vars: Vec<Var>,
    /// Hidden index variables made so far.
    hidden: u32,
    scrutinees: Vec<Scrutinee>,
    /// Names in the value namespace of the items declared inside the body (`const`, `fn`, `use`,
    /// tuple and unit structs): a variable of the function may not share one.
    item_names: Vec<String>,
    /// The names of the function's type parameters: `T::from(x).unwrap()` converts to one.
    type_params: Vec<String>,
    /// The parameters that are references to arrays (`&[T; N]`).
    array_refs: Vec<Var>,
    /// The parameters that are functions (`f: F` with `F: Fn(..)`): called through the registry.
    function_vars: Vec<Var>,
    /// The path of the `ad` crate, for the helpers that lowered code calls.
    krate: TokenStream,
    /// Slices bound by `let` (`let row = &m[a..b];`), by the variable of their name.
    views: HashMap<u32, views::View>,
    /// The closures bound by `let`, by name: inlined where they are called.
    closures: HashMap<String, closures::Closure>,
    /// Loop elements bound to places of a variable (`iter_mut`, `windows`), for the body being
    /// bound: the loop writes its body again with the places.
    places: Vec<places::Place>,
    /// The label of a `for` loop over a chain, for the loop it is lowered to.
    chain_label: Option<syn::Label>,
    /// The variables of a struct type the body names in a struct literal that binds them
    /// (`let s = Spring { .. };`), beside those declared with one: a method called on them is
    /// the call of `<Spring>::method`.
    struct_types: HashMap<u32, Type>,
    /// The function returns `()` (it writes its results into `&mut [T]` outputs): `return;`
    /// leaves it.
    returns_unit: bool,
    /// The places read along field chains (`s.at`, `s.layers[i]`, `s.layers[i].w`), by value:
    /// the fields from the chain's root variable and the elements taken on the way.
    place_paths: HashMap<u32, (Vec<syn::Member>, Vec<crate::ir::PathElem>)>,
    pub errors: Vec<syn::Error>,
}

/// The error for `n.layers[l].b op ..` where the macro cannot follow the chain to its
/// variable, with the copy to write instead.
fn element_field_message(left: &Expr, op: &str) -> String {
    let show = |e: &dyn ToTokens| {
        quote!(#e)
            .to_string()
            .replace(' ', "")
            .replace("__ad_self", "self")
    };
    let (element, member) = match left {
        Expr::Field(f) => (show(&f.base), show(&f.member)),
        other => (show(other), "field".to_owned()),
    };
    let op = if op == "=" {
        "=".to_owned()
    } else {
        format!("{op}=")
    };
    format!(
        "#[differentiable] cannot follow this place to a variable of the function; copy the element, change it and put it back: `let mut e = {element}.clone(); e.{member} {op} ..; {element} = e;`"
    )
}

fn err(tokens: impl ToTokens, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

impl Lower {
    pub fn new(krate: TokenStream) -> Self {
        Lower {
            values: Vec::new(),
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            pending: Vec::new(),
            loops: Vec::new(),
            element_vars: Vec::new(),
            hidden: 0,
            scrutinees: Vec::new(),
            item_names: Vec::new(),
            type_params: Vec::new(),
            array_refs: Vec::new(),
            function_vars: Vec::new(),
            krate,
            closures: HashMap::new(),
            views: HashMap::new(),
            places: Vec::new(),
            chain_label: None,
            struct_types: HashMap::new(),
            returns_unit: false,
            place_paths: HashMap::new(),
            errors: Vec::new(),
        }
    }

    fn value(&mut self, _span: Span) -> Value {
        self.values.push(ValueData::new());
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
        // The scalar type parameters: those of user types are struct types to the body.
        let users = crate::generics::user_type_params(&sig.generics);
        self.type_params = sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .filter(|t| !users.contains(t))
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
            .any(|arg| matches!(arg, FnArg::Typed(pt) if slice_of(&pt.ty).is_some_and(|(m, _)| m) || mut_array_ref_as_slice(&pt.ty).is_some()));
        let ret = match &sig.output {
            // A function that writes its results into `&mut [T]` outputs may return nothing.
            ReturnType::Default if writes_output => {
                self.returns_unit = true;
                syn::parse_quote!(())
            }
            ReturnType::Default => {
                self.errors.push(err(sig, "#[differentiable] function must return a value: add `-> f64` (or a tuple of results), or write the results into a `&mut [f64]` parameter"));
                syn::parse_quote!(())
            }
            ReturnType::Type(_, ty) => {
                if !supported_value_type(ty) {
                    self.errors.push(err(ty, "#[differentiable] supports results that are floats, integers, bools, arrays `[T; N]`, `Vec<T>`, `Option<T>` or tuples of these; return one of those"));
                }
                (**ty).clone()
            }
        };
        let (generics, named) = crate::generics::name_impl_fns(sig);
        let functions = crate::generics::function_params(&generics);
        let mut params = Vec::new();
        for (i, arg) in sig.inputs.iter().enumerate() {
            match arg {
                FnArg::Receiver(r) => self.errors.push(err(r, "#[differentiable] on a method needs the type the method belongs to: put it on the `impl` block (`#[ad::differentiable] impl Model { .. }`), which differentiates every method in it")),
                FnArg::Typed(pt) => {
                    // A value, `&[T]`, `&mut [T]`, `&[T; N]`, `&Model`, or `Const` of a value or
                    // of a `&[T]`. A reference to an array or to a struct is differentiated as
                    // the array or the struct.
                    let struct_ref = crate::lower::names::struct_ref_of(&pt.ty, &self.type_params);
                    let by_ref = array_ref_of(&pt.ty).or(struct_ref);
                    let held = const_of(&pt.ty);
                    // `&mut [T; N]`: an output, differentiated as the `&mut [T]` it derefs to.
                    let out_array = mut_array_ref_as_slice(&pt.ty);
                    let ty = named[i]
                        .as_ref()
                        .or(by_ref)
                        .or(held)
                        .or(out_array.as_ref())
                        .unwrap_or(&pt.ty);
                    let slice = slice_of(ty).filter(|(_, e)| supported_value_type(e));
                    let function = crate::generics::is_function_type(ty, &functions);
                    // A function behind a trait object: an error below, and its calls are not
                    // reported again.
                    let dyn_fn = trait_object_in(ty).is_some_and(|object| {
                        object.bounds.iter().any(|b| matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| matches!(s.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce"))))
                    });
                    if function {
                        // Checked by rustc where the function is called.
                    } else if held.is_some() && slice.is_some_and(|(m, _)| m) {
                        self.errors.push(err(&pt.ty, "a slice the function writes cannot be held constant: take it as `&mut [T]`, whose derivative is taken, or take the data as `Const<&[T]>` and write a slice of your own"));
                    } else if let Some(object) = trait_object_in(ty) {
                        let message = if dyn_fn {
                            "#[differentiable] cannot differentiate through a function behind a trait object (`dyn Fn`): its derivative is found by the function's own type, which a trait object hides; take it as a generic parameter (`f: impl Fn(f64) -> f64`, or `F: Fn(f64) -> f64`) and pass a named function"
                        } else {
                            "#[differentiable] cannot differentiate through a trait object (`dyn Trait`): its methods have no derivative the registry can find; pass the values it would compute, or call a function (with #[differentiable] or a #[custom_rule]) that computes them"
                        };
                        self.errors.push(err(object, message));
                    } else if slice.is_none() && !supported_value_type(ty) {
                        self.errors.push(err(&pt.ty, "#[differentiable] supports parameters that are floats, integers, bools, arrays `[T; N]`, `Vec<T>`, `Option<T>`, tuples of these, `&[T]`, `&mut [T]`, `&[T; N]`, `&mut [T; N]`, and `ad::Const<T>` of a `&[T]` or of a value; pass the values in one of those"));
                    }
                    let (ident, mutable) = match &*pt.pat {
                        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p.ident.clone(), p.mutability.is_some()),
                        Pat::Wild(w) => (Ident::new(&format!("__ad_arg{i}"), w.span()), false),
                        other => {
                            self.errors.push(err(other, "#[differentiable] parameters must be plain names such as `x: f64`; destructure inside the body"));
                            (Ident::new(&format!("__ad_arg{i}"), other.span()), false)
                        }
                    };
                    let declared = crate::generics::elide_lifetimes(
                        named[i]
                            .as_ref()
                            .or(by_ref)
                            .or(out_array.as_ref())
                            .unwrap_or(&pt.ty),
                        &sig.generics,
                    );
                    let var = self.new_var(ident, Some(declared.clone()), mutable);
                    self.bind(var);
                    if function || dyn_fn {
                        self.vars[var.0 as usize].known_inactive = true;
                        self.function_vars.push(var);
                    }
                    if by_ref.is_some() {
                        // `*p` reads the array.
                        self.element_vars.push(var);
                        self.array_refs.push(var);
                    }
                    params.push(Param { var, ty: declared, by_ref: by_ref.is_some(), function });
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
            generics,
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

    /// The struct type of a variable, where the body says it: declared (a parameter, `&Model`
    /// among them, or a `let` with a type) or bound by a struct literal.
    fn struct_type_of(&self, var: Var) -> Option<Type> {
        if let Some(ty) = self.struct_types.get(&var.0) {
            return Some(ty.clone());
        }
        let ty = self.vars[var.0 as usize].ty.as_ref()?;
        crate::lower::names::struct_type(ty, &self.type_params).cloned()
    }

    /// A field of a local variable, also nested (`s.x`, `s.at.x`): the variable and the path.
    fn field_place(&mut self, e: &Expr) -> Option<(Var, Ident, Vec<syn::Member>)> {
        match e {
            Expr::Field(f) => {
                let (var, ident, mut path) = match self.local_var(&f.base) {
                    Some((var, ident)) => (var, ident, Vec::new()),
                    None => self.field_place(&f.base)?,
                };
                path.push(f.member.clone());
                Some((var, ident, path))
            }
            Expr::Paren(p) => self.field_place(&p.expr),
            _ => None,
        }
    }

    /// Whether `e` is a field of a local variable read and written as a place (`s.w`,
    /// `s.at.w`): a chain of named fields, or one with a tuple struct's field (`p.0`,
    /// `s.pair.0`) where the body names the variable's struct type. (A plain tuple's fields
    /// are values.)
    fn field_is_place(&mut self, e: &Expr) -> bool {
        match self.field_place(e) {
            Some((var, _, path)) => {
                path.iter().all(|m| matches!(m, syn::Member::Named(_)))
                    || self.struct_type_of(var).is_some()
            }
            None => false,
        }
    }

    /// `var.path = value;`: the variable assigned itself with the field replaced.
    fn set_field(
        &mut self,
        var: Var,
        ident: Ident,
        path: Vec<syn::Member>,
        value: Value,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        let whole = self.value(span);
        out.push(Inst::Read {
            out: whole,
            var,
            ident: ident.clone(),
        });
        let set = self.value(span);
        out.push(Inst::SetField {
            out: set,
            a: whole,
            path,
            value,
        });
        self.assign(var, ident, set, out);
    }

    fn stmt_expr(&mut self, e: &Expr, out: &mut Vec<Inst>) {
        match e {
            Expr::Assign(a) if matches!(&*a.left, Expr::Index(_)) => {
                let Expr::Index(ix) = &*a.left else {
                    unreachable!()
                };
                if self.assigns_through_view(ix) {
                    return;
                }
                if let Some((var, ident, steps, index)) = self.field_index_target(ix, out) {
                    let value = self.expr(&a.right, out);
                    self.index_assign(var, ident, steps, index, value, a.span(), out);
                    return;
                }
                let Some((var, ident, index)) = self.index_target(ix, out) else {
                    return;
                };
                let value = self.expr(&a.right, out);
                self.index_assign(var, ident, Default::default(), index, value, a.span(), out);
            }
            Expr::Binary(b) if is_compound(&b.op) && matches!(&*b.left, Expr::Index(_)) => {
                let Expr::Index(ix) = &*b.left else {
                    unreachable!()
                };
                if self.assigns_through_view(ix) {
                    return;
                }
                if let Some((var, ident, steps, index)) = self.field_index_target(ix, out) {
                    let rhs = self.expr(&b.right, out);
                    // The element read in place, at the index computed once.
                    let a = self.expr(&ix.expr, out);
                    let root = self.values[a.0 as usize].root.unwrap_or(a);
                    let lhs = self.value(b.left.span());
                    out.push(Inst::FieldIndex {
                        out: lhs,
                        a,
                        index,
                        root,
                        path: steps.0.clone(),
                        elems: steps.1.clone(),
                    });
                    let result = self.compound(b, lhs, rhs, out);
                    self.index_assign(var, ident, steps, index, result, b.span(), out);
                    return;
                }
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
                self.index_assign(var, ident, Default::default(), index, result, b.span(), out);
            }
            Expr::Assign(a) if matches!(&*a.left, Expr::Tuple(_)) => self.tuple_assign(a, out),
            Expr::Assign(a) if self.field_place(&a.left).is_some() => {
                let (var, ident, path) = self.field_place(&a.left).expect("tested");
                let value = self.expr(&a.right, out);
                self.set_field(var, ident, path, value, a.span(), out);
            }
            Expr::Binary(b) if is_compound(&b.op) && self.field_place(&b.left).is_some() => {
                let (var, ident, path) = self.field_place(&b.left).expect("tested");
                let rhs = self.expr(&b.right, out);
                let lhs = self.expr(&b.left, out);
                let result = self.compound(b, lhs, rhs, out);
                self.set_field(var, ident, path, result, b.span(), out);
            }
            Expr::Assign(a) if self.local_var(&a.left).is_none() && self.place_chain(&a.left) => {
                // `n.layers[l].b = ..`: the value first, as Rust evaluates it.
                let value = self.expr(&a.right, out);
                match self.element_field_target(&a.left, out) {
                    Some((var, ident, steps, at)) => {
                        self.place_assign(var, ident, steps, at, value, a.span(), out);
                    }
                    None => self
                        .errors
                        .push(err(&a.left, element_field_message(&a.left, "="))),
                }
            }
            Expr::Binary(b)
                if is_compound(&b.op)
                    && self.local_var(&b.left).is_none()
                    && self.place_chain(&b.left) =>
            {
                let rhs = self.expr(&b.right, out);
                let lhs = self.expr(&b.left, out);
                let result = self.compound(b, lhs, rhs, out);
                match self.element_field_target(&b.left, out) {
                    Some((var, ident, steps, at)) => {
                        self.place_assign(var, ident, steps, at, result, b.span(), out);
                    }
                    None => {
                        let op = compound_base(&b.op).to_string();
                        self.errors
                            .push(err(&b.left, element_field_message(&b.left, &op)));
                    }
                }
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
            Expr::Return(r) if r.expr.is_none() && self.returns_unit => {
                let v = self.value(r.span());
                out.push(Inst::Const {
                    out: v,
                    tokens: quote::quote_spanned!(r.span()=> ()),
                });
                out.push(Inst::Return { value: v });
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
            Expr::While(w) => match &*w.cond {
                Expr::Let(l) => self.while_let(w, l, out),
                _ => self.while_loop(w, out),
            },
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
            Expr::If(i) if matches!(&*i.cond, Expr::Let(_)) => {
                let Expr::Let(l) = &*i.cond else {
                    unreachable!()
                };
                let els = i.else_branch.as_ref().map(|(_, e)| &**e);
                self.if_let(l, &i.then_branch, els, i.span(), out)
            }
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
            Expr::Block(b) if b.label.is_some() => self.labelled_block(b, out),
            Expr::Block(b) => {
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
        if let Some(l) = let_in_chain(cond) {
            self.errors.push(err(
                l,
                format!("#[differentiable] does not support `let` chains (`{construct} let .. && ..`); nest them: `{construct} let .. {{ if .. {{ .. }} }}`"),
            ));
        }
        self.verbatim(cond, out, None)
    }
}

/// A `let` inside a condition made with `&&` or `||`.
fn let_in_chain(cond: &Expr) -> Option<&syn::ExprLet> {
    match cond {
        Expr::Let(l) => Some(l),
        Expr::Binary(b) => let_in_chain(&b.left).or_else(|| let_in_chain(&b.right)),
        Expr::Paren(p) => let_in_chain(&p.expr),
        _ => None,
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

/// A trait object inside a parameter's type (`&dyn Fn(f64) -> f64`, `Box<dyn Energy>`).
fn trait_object_in(ty: &Type) -> Option<&syn::TypeTraitObject> {
    match ty {
        Type::TraitObject(t) => Some(t),
        Type::Reference(r) => trait_object_in(&r.elem),
        Type::Paren(p) => trait_object_in(&p.elem),
        Type::Group(g) => trait_object_in(&g.elem),
        Type::Slice(s) => trait_object_in(&s.elem),
        Type::Array(a) => trait_object_in(&a.elem),
        Type::Tuple(t) => t.elems.iter().find_map(trait_object_in),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => trait_object_in(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}
