//! Forward mode: emits the JVP of an `ir::Func` as a plain Rust function.
//!
//! The JVP keeps the primal's structure: each instruction computes its value exactly as the
//! user's code does (same operations, same order, so values are bit-identical), followed by its
//! tangent when the value is active. Primal variables keep the user's names; tangents and
//! temporaries use mixed-site hygiene, so they can never collide with the user's names.

use crate::activity::Activity;
use crate::ir::{Arith, Block, Func, Inst, Value, Var, array_tokens, repeat_tokens};
use crate::prims::Shape;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::ext::IdentExt;

mod aggregates;
mod calls;
pub(crate) mod types;

use types::{Types, no_coercion};

/// A call through the registry inside the generated code.
pub struct CalleeSite {
    pub callee: TokenStream,
    pub span: Span,
    /// The type of each argument where the macro knows it (a variable with a declared type
    /// passed as it is): it fixes the generic parameters of a callee called without a
    /// turbofish (`helper(x)` of `fn helper<T: Float>(x: T)`), in a list made where no value
    /// is at hand.
    pub arg_types: Vec<Option<syn::Type>>,
    /// The float literal written as an argument where its type is not declared (`2.0` in
    /// `softplus(2.0)`): its type is the one rustc gives the literal, f64 where nothing else
    /// decides it.
    pub arg_literals: Vec<Option<TokenStream>>,
}

pub struct Forward<'a> {
    func: &'a Func,
    act: &'a Activity,
    krate: &'a TokenStream,
    caller: TokenStream,
    pub callees: Vec<CalleeSite>,
    /// The types of values the macro can tell, for the callee list.
    types: Types,
    /// Whether the function calls others, so that `types` is needed.
    calls: bool,
    /// Slice parameters passed on whole to calls.
    slices: std::collections::HashMap<u32, (Var, bool)>,
    /// The literals, by value, for calls written again as the user wrote them.
    literals: std::collections::HashMap<u32, TokenStream>,
}

fn hyg(name: String) -> Ident {
    Ident::new(&name, Span::mixed_site())
}

impl<'a> Forward<'a> {
    pub fn new(func: &'a Func, act: &'a Activity, krate: &'a TokenStream) -> Self {
        let name = func.name.unraw().to_string();
        Forward {
            func,
            act,
            krate,
            caller: quote!(::core::concat!(::core::module_path!(), "::", #name)),
            callees: Vec::new(),
            types: Types::default(),
            calls: func
                .body
                .all_insts()
                .iter()
                .any(|inst| matches!(inst, Inst::Call { .. })),
            slices: crate::lower::slice_reads(func),
            literals: crate::lower::literals(func),
        }
    }

    /// The name of the generated JVP function.
    pub fn fn_name(func: &Func) -> Ident {
        hyg(format!("__ad_forward_{}", func.name.unraw()))
    }

    /// The tangent of the variable named `ident` where `ident` is written: the same name with a
    /// prefix, and the same span, so that it resolves to the binding the primal resolves to.
    fn tangent_of(ident: &Ident) -> Ident {
        Ident::new(&format!("__d_{}", ident.unraw()), ident.span())
    }

    fn var_tangent(&self, var: Var) -> Ident {
        Self::tangent_of(&self.func.vars[var.0 as usize].ident)
    }

    /// How a value is written in generated code. Constants and reads that are not overwritten
    /// before their use are written in place; everything else lives in a temporary.
    fn p(&self, v: Value, insts: &Aliases) -> TokenStream {
        match insts.primal.get(&v.0) {
            Some(ts) => ts.clone(),
            None => {
                let id = hyg(format!("__v{}", v.0));
                quote!(#id)
            }
        }
    }

    fn t(&self, v: Value, insts: &Aliases) -> TokenStream {
        match insts.tangent.get(&v.0) {
            Some(ts) => ts.clone(),
            None => {
                let id = hyg(format!("__d{}", v.0));
                quote!(#id)
            }
        }
    }

    fn active(&self, v: Value) -> bool {
        self.act.value(v)
    }

    /// `(value, tangent)` of `v`. A zero tangent is made before the pair, so that a value that
    /// moves (a `Vec`) is read by `zero` before the tuple takes it.
    fn pair(&self, v: Value, al: &Aliases) -> TokenStream {
        let p = self.p(v, al);
        if self.active(v) {
            let t = self.t(v, al);
            quote!((#p, #t))
        } else {
            let krate = self.krate;
            let (z, value) = (hyg("__zero".to_string()), hyg("__value".to_string()));
            // Bound first, so that a constant whose type comes from the other branch (`None`)
            // is one value that the zero is made of.
            quote!({ let #value = #p; let #z = #krate::__private::zero(&#value); (#value, #z) })
        }
    }

    /// The tangent of `v`, or a zero of the right type if `v` carries none.
    fn t_or_zero(&self, v: Value, al: &Aliases) -> TokenStream {
        if self.active(v) {
            self.t(v, al)
        } else {
            let p = self.p(v, al);
            let krate = self.krate;
            quote!(#krate::__private::zero(&#p))
        }
    }

    pub fn emit(&mut self) -> TokenStream {
        let func = self.func;
        let krate = self.krate;
        let name = Self::fn_name(func);
        let mut params = Vec::new();
        let mut reslices = Vec::new();
        for p in &func.params {
            let var = &func.vars[p.var.0 as usize];
            let ident = &var.ident;
            let ty = &p.ty;
            let m = var.mutable.then(|| quote!(mut));
            if p.function {
                // A function: no tangent.
                params.push(quote!(#m #ident: #ty));
                continue;
            }
            if p.by_ref {
                params.push(quote!(#ident: &#ty));
                // A struct is read through its reference; an array, or a struct the function
                // rebinds, is copied.
                if !func.borrowed(p.var) {
                    reslices
                        .push(quote!(let #m #ident: #ty = ::core::clone::Clone::clone(#ident);));
                }
            } else {
                params.push(quote!(#m #ident: #ty));
            }
            let dty = tangent_type(krate, ty);
            if self.act.var(p.var) {
                let d = self.var_tangent(p.var);
                params.push(quote!(#m #d: #dty));
                // A slice's tangents, cut to the slice's length (the shadow convention makes
                // them as long): indexing them then needs no bounds check of its own, the
                // primal's check of the same index covers it.
                if let Some((mutable, _)) = crate::lower::slice_of(ty) {
                    let r = if mutable {
                        quote!(&mut #d[..#ident.len()])
                    } else {
                        quote!(&#d[..#ident.len()])
                    };
                    reslices.push(quote!(let #m #d = #r;));
                }
            } else {
                params.push(quote!(_: #dty));
            }
        }
        let ret = &func.ret;
        let checks: Vec<TokenStream> = func
            .params
            .iter()
            .filter(|p| func.vars[p.var.0 as usize].known_inactive && !p.function)
            .map(|p| self.assert_no_derivative(&p.ty))
            .collect();
        let mut al = Aliases::default();
        let body = self.block(&func.body, &mut al);
        let tail = match func.body.result {
            Some(r) => Some(self.pair(r, &al)),
            // A function that only writes `&mut [T]` outputs.
            None if is_unit(ret) => Some(quote!(((), #krate::__private::NoTangent))),
            None => None,
        };
        let (generics, where_clause) = crate::generics::derivative_generics(&func.generics, krate);
        quote! {
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unreachable_code, non_snake_case, clippy::all, clippy::pedantic, clippy::nursery)]
            #[inline]
            fn #name #generics(#(#params),*) -> (#ret, <#ret as #krate::__private::Differentiable>::Tangent) #where_clause {
                #(#checks)*
                #(#reslices)*
                #body
                #tail
            }
        }
    }

    /// The macro took `ty` for a type without a derivative by its name; rustc checks that it is.
    fn assert_no_derivative(&self, ty: &syn::Type) -> TokenStream {
        let span = syn::spanned::Spanned::span(ty);
        let krate = crate::expand::respan(self.krate, span);
        if crate::lower::const_of(ty).is_some() {
            return quote_spanned!(span=> <#ty as #krate::__private::IsConst>::__assert(););
        }
        quote_spanned!(span=> <#ty as #krate::__private::NoDerivative>::__assert();)
    }

    fn block(&mut self, b: &Block, al: &mut Aliases) -> TokenStream {
        let mut out = TokenStream::new();
        for inst in &b.insts {
            out.extend(self.inst(inst, al));
        }
        out
    }

    /// The block as a value-producing block: statements then `(value, tangent)` or `value`.
    fn block_value(&mut self, b: &Block, out_active: bool, al: &Aliases) -> TokenStream {
        let mut inner = al.clone();
        let body = self.block(b, &mut inner);
        let tail = b.result.map(|r| {
            if out_active {
                self.pair(r, &inner)
            } else {
                self.p(r, &inner)
            }
        });
        quote!({ #body #tail })
    }

    fn def(&self, out: Value, primal: TokenStream, tangent: Option<TokenStream>) -> TokenStream {
        let v = hyg(format!("__v{}", out.0));
        match tangent {
            Some(t) if self.active(out) => {
                let d = hyg(format!("__d{}", out.0));
                quote!(let #v = #primal; let #d = #t;)
            }
            _ => quote!(let #v = #primal;),
        }
    }

    /// As `def`, for an aggregate built from its elements: the tangent first, since a zero
    /// tangent made from an element that moves (a `Vec`) must read it before the value takes it.
    fn def_aggregate(&self, out: Value, primal: TokenStream, tangent: TokenStream) -> TokenStream {
        let v = hyg(format!("__v{}", out.0));
        if self.active(out) {
            let d = hyg(format!("__d{}", out.0));
            quote!(let #d = #tangent; let #v = #primal;)
        } else {
            quote!(let #v = #primal;)
        }
    }

    fn inst(&mut self, inst: &Inst, al: &mut Aliases) -> TokenStream {
        if self.calls {
            self.types.inst(self.func, inst);
        }
        let krate = self.krate.clone();
        match inst {
            Inst::Const { out, tokens } => {
                // A constant that gets its type from its uses (`2.0`, `None`) is bound once.
                if binds_once(tokens) {
                    self.def(*out, tokens.clone(), None)
                } else {
                    al.primal.insert(out.0, tokens.clone());
                    TokenStream::new()
                }
            }
            Inst::Opaque { out, tokens, .. } => self.def(*out, tokens.clone(), None),
            Inst::Read { out, var, ident } => {
                if self.calls {
                    self.types.read(self.func, *out, *var);
                }
                let x = self.func.read_tokens(*var, ident);
                let dx = Self::tangent_of(ident);
                if self.func.clones(*out) {
                    let clone = |x| quote!(::core::clone::Clone::clone(&#x));
                    self.def(*out, clone(&x), Some(clone(&quote!(#dx))))
                } else if self.func.copies(*out) {
                    self.def(*out, quote!(#x), Some(quote!(#dx)))
                } else {
                    al.primal.insert(out.0, quote!(#x));
                    if self.act.var(*var) {
                        al.tangent.insert(out.0, quote!(#dx));
                    }
                    TokenStream::new()
                }
            }
            Inst::Wrap { .. } | Inst::Payload { .. } => self.aggregate(inst, al),
            Inst::Neg { out, a } => {
                let pa = self.p(*a, al);
                let ta = self.t(*a, al);
                self.def(*out, quote!(-#pa), Some(quote!(-#ta)))
            }
            Inst::Arith {
                out,
                op,
                a,
                b,
                op_tokens,
            } => {
                let (pa, pb) = (self.p(*a, al), self.p(*b, al));
                let (ta, tb) = (self.t(*a, al), self.t(*b, al));
                let y = hyg(format!("__v{}", out.0));
                let s = quote!(#krate::__private::ops::Scalar);
                let tangent = match (op, self.active(*a), self.active(*b)) {
                    (_, false, false) => None,
                    (Arith::Add, true, true) => Some(quote!(#ta + #tb)),
                    (Arith::Add | Arith::Sub, true, false) => Some(quote!(#ta)),
                    (Arith::Add, false, true) => Some(quote!(#tb)),
                    (Arith::Sub, true, true) => Some(quote!(#ta - #tb)),
                    (Arith::Sub, false, true) => Some(quote!(-#tb)),
                    (Arith::Mul, true, true) => Some(quote!(#s::d_mul(#pa, #ta, #pb, #tb))),
                    (Arith::Mul, true, false) => Some(quote!(#s::mul_l(#ta, #pb))),
                    (Arith::Mul, false, true) => Some(quote!(#s::mul_r(#pa, #tb))),
                    (Arith::Div, true, true) => Some(quote!(#s::d_div(#ta, #pb, #tb, #y))),
                    (Arith::Div, true, false) => Some(quote!(#s::div_l(#ta, #pb))),
                    (Arith::Div, false, true) => Some(quote!(#s::div_r(#pb, #tb, #y))),
                    (Arith::Rem, true, true) => Some(quote!(#s::d_rem(#pa, #ta, #pb, #tb))),
                    (Arith::Rem, true, false) => Some(quote!(#s::rem_l(#ta, #pb))),
                    (Arith::Rem, false, true) => Some(quote!(#s::rem_r(#pa, #pb, #tb))),
                };
                self.def(*out, quote!(#pa #op_tokens #pb), tangent)
            }
            Inst::Inactive {
                out,
                a,
                b,
                op_tokens,
            } => {
                let (pa, pb) = (self.p(*a, al), self.p(*b, al));
                self.def(*out, quote!(#pa #op_tokens #pb), None)
            }
            Inst::Method {
                out,
                prim,
                method,
                ufcs,
                recv,
                args,
            } => {
                let pr = self.p(*recv, al);
                let pargs: Vec<TokenStream> = args.iter().map(|a| self.p(*a, al)).collect();
                let primal = crate::prims::call_tokens(ufcs.as_ref(), method, &pr, &pargs);
                let y = hyg(format!("__v{}", out.0));
                let partial_fn = Ident::new(prim.name, method.span());
                let prim_path = quote!(#krate::__private::prim::#partial_fn);
                let tangent = if !self.active(*out) {
                    None
                } else {
                    match prim.shape {
                        // The partial reads the value alone: the argument need not live
                        // past the call (see `prims::value_only`).
                        Shape::Unary if crate::prims::value_only(prim.name) => {
                            let tr = self.t(*recv, al);
                            Some(quote!(#prim_path(#y, #y) * #tr))
                        }
                        Shape::Unary => {
                            let tr = self.t(*recv, al);
                            Some(quote!(#prim_path(#pr, #y) * #tr))
                        }
                        Shape::PowI => {
                            let tr = self.t(*recv, al);
                            let n = &pargs[0];
                            Some(quote!(#prim_path(#pr, #n, #y) * #tr))
                        }
                        Shape::Multi(_) => {
                            let inputs: Vec<Value> =
                                std::iter::once(*recv).chain(args.iter().copied()).collect();
                            let partials = hyg(format!("__p{}", out.0));
                            let terms: Vec<TokenStream> = inputs
                                .iter()
                                .enumerate()
                                .filter(|(_, v)| self.active(**v))
                                .map(|(i, v)| {
                                    let idx = syn::Index::from(i);
                                    let t = self.t(*v, al);
                                    quote!(#partials.#idx * #t)
                                })
                                .collect();
                            Some(quote!({
                                let #partials = #prim_path(#pr #(, #pargs)*, #y);
                                #(#terms)+*
                            }))
                        }
                    }
                };
                self.def(*out, primal, tangent)
            }
            Inst::Call { .. } => self.call(inst, al),
            Inst::Cast { out, a, ty, via } => {
                let pa = self.p(*a, al);
                let cast = crate::generics::cast_fn(&self.func.generics, ty, "cast", "cast_from");
                let tangent = self.active(*a).then(|| {
                    let ta = self.t(*a, al);
                    quote!(#krate::__private::ops::#cast::<_, #ty>(#pa, #ta))
                });
                let primal = crate::ir::Conversion::primal(via.as_ref(), &pa, ty);
                let mut ts = self.def(*out, primal, tangent);
                if crate::lower::known_inactive(ty) {
                    ts.extend(self.assert_no_derivative(ty));
                }
                ts
            }
            Inst::SetField { .. }
            | Inst::Struct { .. }
            | Inst::Tuple { .. }
            | Inst::Field { .. } => self.aggregate(inst, al),
            Inst::Let { var, init } => {
                let data = &self.func.vars[var.0 as usize];
                let x = &data.ident;
                let m = data.mutable.then(|| quote!(mut));
                let ty = data.ty.as_ref().map(|t| quote!(: #t));
                let pinit = init.map(|v| {
                    let p = self.p(v, al);
                    quote!(= #p)
                });
                // A value without a derivative gives a zero tangent made from the variable, after
                // it: so that a constant whose type comes from later uses (`None`) is one value.
                if self.act.var(*var)
                    && let Some(v) = init
                    && !self.active(*v)
                {
                    let dx = self.var_tangent(*var);
                    let dty = data
                        .ty
                        .as_ref()
                        .map(|t| quote!(: <#t as #krate::__private::Differentiable>::Tangent));
                    let mut ts = quote!(let #m #x #ty #pinit;);
                    ts.extend(quote!(let #m #dx #dty = #krate::__private::zero(&#x);));
                    if data.known_inactive
                        && let Some(t) = &data.ty
                    {
                        ts.extend(self.assert_no_derivative(t));
                    }
                    return ts;
                }
                // The tangent first: a zero tangent made from the value reads it before the
                // `let` may move it.
                let mut ts = TokenStream::new();
                if self.act.var(*var) {
                    let dx = self.var_tangent(*var);
                    let dty = data
                        .ty
                        .as_ref()
                        .map(|t| quote!(: <#t as #krate::__private::Differentiable>::Tangent));
                    let tinit = init.map(|v| {
                        let t = self.t_or_zero(v, al);
                        quote!(= #t)
                    });
                    ts.extend(quote!(let #m #dx #dty #tinit;));
                }
                ts.extend(quote!(let #m #x #ty #pinit;));
                if data.known_inactive
                    && let Some(t) = &data.ty
                {
                    ts.extend(self.assert_no_derivative(t));
                }
                ts
            }
            Inst::Assign { var, ident, value } => {
                let x = ident.clone();
                let p = self.p(*value, al);
                let mut ts = TokenStream::new();
                if self.act.var(*var) && !self.active(*value) {
                    // As for a `let`: the zero made from the variable, after the assignment.
                    let dx = Self::tangent_of(ident);
                    let krate = self.krate;
                    return quote!(#x = #p; #dx = #krate::__private::zero(&#x););
                }
                if self.act.var(*var) {
                    let dx = Self::tangent_of(ident);
                    let t = self.t_or_zero(*value, al);
                    ts.extend(quote!(#dx = #t;));
                }
                ts.extend(quote!(#x = #p;));
                ts
            }
            Inst::Block { out, block } => {
                let out_active = out.is_some_and(|o| self.active(o));
                let body = self.block_value(block, out_active, al);
                // A block's value has its tail's type (`array.map(..)` is such a block).
                if self.calls
                    && let (Some(o), Some(r)) = (out, block.result)
                {
                    self.types.same(*o, r);
                }
                self.bind_result(*out, out_active, body)
            }
            Inst::If {
                out,
                cond,
                then_block,
                else_block,
            } => {
                let out_active = out.is_some_and(|o| self.active(o));
                let c = self.p(*cond, al);
                let then_b = self.block_value(then_block, out_active, al);
                let else_b = self.block_value(else_block, out_active, al);
                self.bind_result(*out, out_active, quote!(if #c #then_b else #else_b))
            }
            Inst::Return { value } => {
                let pair = self.pair(*value, al);
                quote!(return #pair;)
            }
            Inst::Verbatim { tokens, .. } => tokens.clone(),
            Inst::Index {
                out,
                var,
                ident,
                index,
            } => {
                let i = self.p(*index, al);
                // A struct element is cloned out of its sequence.
                let read = |x: TokenStream| match self.func.clones(*out) {
                    true => quote!(::core::clone::Clone::clone(&#x[#i])),
                    false => quote!(#x[#i]),
                };
                let tangent = self.act.var(*var).then(|| {
                    let dx = Self::tangent_of(ident);
                    read(quote!(#dx))
                });
                self.def(*out, read(quote!(#ident)), tangent)
            }
            Inst::FieldIndex { out, a, index, .. } => {
                let (pa, i) = (self.p(*a, al), self.p(*index, al));
                let tangent = self.active(*out).then(|| {
                    let ta = self.t(*a, al);
                    quote!((#ta)[#i])
                });
                // A receiver lent to a call: the element in place. Otherwise a copy of it.
                if self.func.values[out.0 as usize].place {
                    al.primal.insert(out.0, quote!((#pa)[#i]));
                    if let Some(t) = tangent {
                        al.tangent.insert(out.0, t);
                    }
                    return TokenStream::new();
                }
                let clone = |x: TokenStream| quote!(::core::clone::Clone::clone(&#x));
                self.def(*out, clone(quote!((#pa)[#i])), tangent.map(clone))
            }
            Inst::IndexAssign {
                var,
                ident,
                path,
                elems,
                index,
                last,
                value,
                ..
            } => {
                let i = self.p(*index, al);
                let p = self.p(*value, al);
                // The indices of the elements on the way, computed once.
                let ks: Vec<Ident> = elems
                    .iter()
                    .map(|e| hyg(format!("__ke{}_{}", index.0, e.index.0)))
                    .collect();
                let mut pre = TokenStream::new();
                for (k, e) in ks.iter().zip(elems) {
                    let ie = self.p(e.index, al);
                    pre.extend(quote!(let #k: usize = #ie;));
                }
                let place = |base| {
                    crate::ir::place_tokens(base, path, elems, &mut |at, j, _| {
                        let kj = &ks[j];
                        quote!(#at[#kj])
                    })
                };
                let primal = place(quote!(#ident));
                if self.act.var(*var) {
                    let dx = Self::tangent_of(ident);
                    let tangent = place(quote!(#dx));
                    let t = self.t_or_zero(*value, al);
                    // The index is computed once, before the value is stored.
                    let k = hyg(format!("__k{}", index.0));
                    quote! {
                        #pre
                        let #k = #i;
                        #primal[#k] #(.#last)* = #p;
                        #tangent[#k] #(.#last)* = #t;
                    }
                } else {
                    quote!(#pre #primal[#i] #(.#last)* = #p;)
                }
            }
            Inst::Array { out, elems, vec } => {
                let ps: Vec<TokenStream> = elems.iter().map(|e| self.p(*e, al)).collect();
                let ts: Vec<TokenStream> = elems.iter().map(|e| self.t_or_zero(*e, al)).collect();
                let (p, t) = (array_tokens(&ps, *vec), array_tokens(&ts, *vec));
                self.def_aggregate(*out, p, t)
            }
            Inst::Repeat { out, elem, len } => {
                let (pe, te) = (self.p(*elem, al), self.t_or_zero(*elem, al));
                let n = match len {
                    crate::ir::Len::Vec(n) => self.p(*n, al),
                    crate::ir::Len::Const(_) => TokenStream::new(),
                };
                let krate = self.krate;
                let (p, t) = (
                    repeat_tokens(krate, &pe, len, &n),
                    repeat_tokens(krate, &te, len, &n),
                );
                self.def(*out, p, Some(t))
            }
            Inst::Sum {
                out,
                var,
                ident,
                tokens,
                ..
            } => {
                let v = hyg(format!("__v{}", out.0));
                let tangent = self.act.var(*var).then(|| {
                    let dx = Self::tangent_of(ident);
                    quote!(#krate::__private::sum_tangent(&#dx, #krate::__private::zero(&#v)))
                });
                self.def(*out, tokens.clone(), tangent)
            }
            Inst::Loop { head, body } => {
                let mut inner = al.clone();
                let body = self.block(body, &mut inner);
                match head {
                    crate::ir::LoopHead::For { pat, iter, .. } => {
                        let it = self.p(*iter, al);
                        quote!(for #pat in #it { #body })
                    }
                    crate::ir::LoopHead::While { cond_block, cond } => {
                        let mut c_al = al.clone();
                        let c_body = self.block(cond_block, &mut c_al);
                        let c = self.p(*cond, &c_al);
                        quote!(while { #c_body #c } { #body })
                    }
                    crate::ir::LoopHead::Infinite => quote!(loop { #body }),
                }
            }
            Inst::Break => quote!(break;),
            Inst::Continue => quote!(continue;),
        }
    }

    fn bind_result(&self, out: Option<Value>, out_active: bool, expr: TokenStream) -> TokenStream {
        match out {
            None => quote!(#expr;),
            Some(o) => {
                let v = hyg(format!("__v{}", o.0));
                if out_active {
                    let d = hyg(format!("__d{}", o.0));
                    quote!(let (#v, #d) = #expr;)
                } else {
                    quote!(let #v = #expr;)
                }
            }
        }
    }
}

/// The type of a parameter's tangent: `Tan<T>`, or a slice of tangents for a slice.
pub(crate) fn tangent_type(krate: &TokenStream, ty: &syn::Type) -> TokenStream {
    if crate::lower::const_of(ty).is_some() {
        return quote!(#krate::__private::NoTangent);
    }
    match crate::lower::slice_of(ty) {
        Some((true, e)) => quote!(&mut [<#e as #krate::__private::Differentiable>::Tangent]),
        Some((false, e)) => quote!(&[<#e as #krate::__private::Differentiable>::Tangent]),
        None => quote!(<#ty as #krate::__private::Differentiable>::Tangent),
    }
}

/// Whether a type is `()`.
pub(crate) fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

/// Values written in place rather than through a temporary, per scope.
#[derive(Clone, Default)]
pub struct Aliases {
    primal: std::collections::HashMap<u32, TokenStream>,
    tangent: std::collections::HashMap<u32, TokenStream>,
}

/// Whether a constant gets its type from its uses, an unsuffixed number or `None`: it is bound
/// once, so that its value and any zero tangent made from it share that type.
pub(crate) fn binds_once(tokens: &TokenStream) -> bool {
    is_untyped_number(tokens) || {
        let names: Vec<String> = tokens
            .clone()
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
                _ => None,
            })
            .collect();
        matches!(names.last().map(String::as_str), Some("None"))
            && syn::parse2::<syn::Path>(tokens.clone()).is_ok()
    }
}

pub(crate) fn is_untyped_number(tokens: &TokenStream) -> bool {
    let mut iter = tokens.clone().into_iter();
    match (iter.next(), iter.next()) {
        (Some(proc_macro2::TokenTree::Literal(l)), None) => {
            let s = l.to_string();
            s.starts_with(|c: char| c.is_ascii_digit())
                && ![
                    "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
                    "u64", "u128", "usize",
                ]
                .iter()
                .any(|suffix| s.ends_with(suffix))
        }
        _ => false,
    }
}
