//! Calls of a struct's own methods inside a body (`s.energy(g)`, `self.layers[l].apply(&h)`):
//! the receiver's type, where the body names it, the call of `<Ty>::method` through the
//! registry, structs passed by reference and cloned, and the names of the standard library's
//! methods, which are never a struct's.

use super::calls::OPTION_METHODS;
use super::*;
use crate::ir::Lent;

impl Lower {
    /// The type of a method call's receiver, where the body names it: a variable of a struct
    /// type (`self`, a parameter, a typed or literal `let`), a field of one, named or a tuple
    /// struct's (`<Model as FieldType<H>>::Type`, which the derive implements), or an element of
    /// such a field (`self.layers[i]`, through `ElementType`).
    fn receiver_type(&mut self, e: &Expr) -> Option<Type> {
        let krate = self.krate.clone();
        match e {
            Expr::Paren(p) => self.receiver_type(&p.expr),
            Expr::Field(f) => {
                let name = match &f.member {
                    syn::Member::Named(name) => name.to_string(),
                    // A tuple struct's field, by its position's name.
                    syn::Member::Unnamed(index) => index.index.to_string(),
                };
                let base = self.receiver_type(&f.base)?;
                let hash = crate::derive::field_hash(&name);
                Some(syn::parse_quote!(<#base as #krate::__private::FieldType<#hash>>::Type))
            }
            Expr::Index(ix) if !matches!(&*ix.index, Expr::Range(_)) => {
                self.field_place(&ix.expr)?;
                let base = self.receiver_type(&ix.expr)?;
                Some(syn::parse_quote!(<#base as #krate::__private::ElementType>::Type))
            }
            _ => {
                let (var, _) = self.local_var(e)?;
                self.struct_type_of(var)
            }
        }
    }

    /// `s.clone()` of a struct, `s.w.clone()` of a field: a copy of the value, with its
    /// derivative (the derived `Clone` copies every field).
    pub(super) fn struct_clone(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        if m.method != "clone" || !m.args.is_empty() || m.turbofish.is_some() {
            return None;
        }
        let mut recv = &*m.receiver;
        while let Expr::Paren(p) = recv {
            recv = &p.expr;
        }
        let field = self.field_place(recv).is_some();
        let of_struct = self
            .local_var(recv)
            .is_some_and(|(var, _)| self.struct_type_of(var).is_some());
        // `v[i].clone()` of a sequence declared with a struct element type, or
        // `s.layers[i].clone()` of a field's element (read in place, as a copy).
        let element = match recv {
            Expr::Index(ix) if !matches!(&*ix.index, Expr::Range(_)) => {
                self.field_place(&ix.expr).is_some()
                    || self.local_var(&ix.expr).is_some_and(|(var, _)| {
                        self.vars[var.0 as usize]
                            .ty
                            .as_ref()
                            .and_then(crate::forward::types::element_type)
                            .is_some_and(|t| {
                                crate::lower::names::struct_type(&t, &self.type_params).is_some()
                            })
                    })
            }
            _ => false,
        };
        if !field && !of_struct && !element {
            return None;
        }
        let v = self.expr(recv, out);
        self.values[v.0 as usize].clones = true;
        Some(v)
    }

    /// `s.length(x)` with `s` of a struct type the body names (`self`, a parameter, a `let`
    /// with a type or bound by a struct literal): the call of `<Spring>::length`, through the
    /// registry like any call, the receiver passed as the method takes it.
    pub(super) fn user_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        let mut recv = &*m.receiver;
        loop {
            recv = match recv {
                Expr::Paren(p) => &p.expr,
                Expr::Reference(r) if r.mutability.is_none() => &r.expr,
                Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => &u.expr,
                _ => break,
            };
        }
        if STD_TRAIT_METHODS.contains(&m.method.to_string().as_str()) {
            return None;
        }
        let ty = self.receiver_type(recv)?;
        // A field's type is named by projection: the field may be a float or a container,
        // whose own methods are not a struct's.
        let name = m.method.to_string();
        if self.local_var(recv).is_none()
            && (prims::lookup(&name).is_some()
                || prims::INACTIVE_METHODS.contains(&name.as_str())
                || CONTAINER_INACTIVE.contains(&name.as_str())
                || OPTION_METHODS.contains(&name.as_str())
                || VEC_METHODS.contains(&name.as_str())
                || CONTAINER_READS.contains(&name.as_str()))
        {
            return None;
        }
        if let Some(turbofish) = &m.turbofish {
            self.errors.push(err(turbofish, "#[differentiable] does not call generic methods of a struct yet: call a method without type arguments, or a free function"));
            return Some(self.dummy(out, m.span()));
        }
        let receiver = match self.local_var(recv) {
            Some((var, ident)) => {
                let receiver = self.value(recv.span());
                out.push(Inst::Read {
                    out: receiver,
                    var,
                    ident,
                });
                receiver
            }
            // A field, or an element of one: read in place, lent to the call.
            None => {
                let receiver = self.expr(recv, out);
                self.values[receiver.0 as usize].place = true;
                receiver
            }
        };
        let (mut args, mut lent, mut functions) = self.call_arguments(m.args.iter(), out);
        args.insert(0, receiver);
        lent.insert(0, Lent::Receiver);
        functions.insert(0, false);
        let method = &m.method;
        let v = self.value(m.span());
        out.push(Inst::Call {
            out: v,
            callee: quote::quote_spanned!(method.span()=> <#ty>::#method),
            args,
            span: m.span(),
            parens: m.paren_token.span,
            lent,
            functions,
        });
        Some(v)
    }

    /// Whether `e` is a variable declared as a slice, an array, a `Vec` or an `Option`, or a
    /// slice bound by `let`: `.len()` of it is a count.
    pub(super) fn known_container(&mut self, e: &Expr) -> bool {
        let Some((var, _)) = self.local_var(e) else {
            return false;
        };
        if self.view_of(var).is_some() {
            return true;
        }
        self.vars[var.0 as usize].ty.as_ref().is_some_and(|t| {
            let t = match t {
                Type::Reference(r) => &*r.elem,
                t => t,
            };
            slice_of(t).is_some()
                || matches!(t, Type::Array(_) | Type::Slice(_))
                || type_name(t).is_some_and(|n| n == "Vec" || n == "Option")
        })
    }

    /// `&s.inner` (also nested, `&self.a.b`, and a tuple struct's `&s.0`): a field of a struct
    /// whose type the body names, passed by reference; the field read in place.
    pub(super) fn field_by_ref<'e>(&mut self, a: &'e Expr) -> Option<(&'e Expr, Type)> {
        let Expr::Reference(r) = a else {
            return None;
        };
        let Expr::Field(_) = &*r.expr else {
            return None;
        };
        if r.mutability.is_some() {
            return None;
        }
        // A named field, or a tuple struct's (its type named through the derive as well).
        let ty = self.receiver_type(&r.expr)?;
        Some((&r.expr, ty))
    }

    /// A struct passed by reference: `&s` of a variable of a struct type, or a `&Model`
    /// parameter as it is (the derivative holds a copy of the struct it refers to).
    pub(super) fn struct_by_ref(&mut self, a: &Expr) -> Option<(Var, Ident)> {
        let (inner, by_ref) = match a {
            Expr::Reference(r) if r.mutability.is_none() => (&*r.expr, true),
            other => (other, false),
        };
        let (var, ident) = self.local_var(inner)?;
        self.struct_type_of(var)?;
        (by_ref || self.array_refs.contains(&var)).then_some((var, ident))
    }
}

/// Methods of the standard library's traits, which a struct has by `derive` or a blanket impl
/// and which have no derivative in the registry: not calls of the struct's own methods.
pub(super) const STD_TRAIT_METHODS: &[&str] = &[
    "clone",
    "clone_from",
    "to_owned",
    "into",
    "try_into",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "partial_cmp",
    "cmp",
    "max",
    "min",
    "clamp",
    "fmt",
    "to_string",
    "borrow",
    "borrow_mut",
    "as_ref",
    "as_mut",
    "hash",
    "iter",
    "iter_mut",
    "into_iter",
];

/// Methods of slices, `Vec`s, arrays and iterators that read them (besides the standard
/// traits', `STD_TRAIT_METHODS`): a field's, never a struct's.
pub(super) const CONTAINER_READS: &[&str] = &[
    "to_vec",
    "first",
    "last",
    "get",
    "contains",
    "windows",
    "chunks",
    "chunks_exact",
    "split_at",
    "concat",
    "join",
    "as_slice",
    "map",
    "sum",
    "product",
    "fold",
    "zip",
    "enumerate",
    "copied",
    "cloned",
    "rev",
    "skip",
    "take",
    "step_by",
    "filter",
    "chain",
    "max_by",
    "min_by",
    "collect",
    "unwrap",
    "expect",
    "capacity",
    "as_ptr",
];

/// Methods that build or change a `Vec` in place.
pub(super) const VEC_METHODS: &[&str] = &[
    "push",
    "pop",
    "extend",
    "extend_from_slice",
    "insert",
    "remove",
    "swap_remove",
    "truncate",
    "resize",
    "clear",
    "append",
    "retain",
    "dedup",
    "drain",
    "split_off",
    "reserve",
];
