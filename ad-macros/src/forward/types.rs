//! The types of values the macro can tell, for the callee list of a forward derivative: a
//! callee called without a turbofish is named at the instantiation its arguments' types make.

use crate::ir::{Func, Inst, Value};

/// The types of values that the macro can tell from the declared types of variables, through
/// arithmetic, float methods, indexing and casts; for the callee list, where a callee called
/// without a turbofish is named at the instantiation its arguments make.
#[derive(Default)]
pub(super) struct Types {
    pub(super) values: std::collections::HashMap<u32, syn::Type>,
    /// Variables declared without a type, typed by their initial value.
    vars: std::collections::HashMap<u32, syn::Type>,
    /// Float literals, as written (`2.0`, `0.5_f32`), and arrays and tuples of them
    /// (`[0.5, 1.0]`), also through a `let` without a type.
    pub(super) literals: std::collections::HashMap<u32, proc_macro2::TokenStream>,
    var_literals: std::collections::HashMap<u32, proc_macro2::TokenStream>,
}

impl Types {
    fn var_type(&self, func: &Func, var: crate::ir::Var) -> Option<syn::Type> {
        match &func.vars[var.0 as usize].ty {
            Some(ty) => Some(crate::generics::elide_lifetimes(ty, &func.generics)),
            None => self.vars.get(&var.0).cloned(),
        }
    }

    pub(super) fn read(&mut self, func: &Func, out: Value, var: crate::ir::Var) {
        if let Some(ty) = self.var_type(func, var) {
            self.values.insert(out.0, ty);
        } else if let Some(l) = self.var_literals.get(&var.0) {
            self.literals.insert(out.0, l.clone());
        }
    }

    /// The literals of `elems`, if every one is.
    fn all_literals(&self, elems: &[Value]) -> Option<Vec<proc_macro2::TokenStream>> {
        elems
            .iter()
            .map(|e| self.literals.get(&e.0).cloned())
            .collect()
    }

    fn float(&self, v: Value) -> Option<syn::Type> {
        self.values
            .get(&v.0)
            .filter(|t| crate::lower::is_float_type(t))
            .cloned()
    }

    /// `out` has the type the macro can tell of `from` (a block's value, its tail's).
    pub(super) fn same(&mut self, out: Value, from: Value) {
        if let Some(t) = self.values.get(&from.0).cloned() {
            self.values.insert(out.0, t);
        }
        if let Some(l) = self.literals.get(&from.0).cloned() {
            self.literals.insert(out.0, l);
        }
    }

    pub(super) fn inst(&mut self, func: &Func, inst: &Inst) {
        if let Inst::Const { out, tokens } = inst
            && syn::parse2::<syn::LitFloat>(tokens.clone()).is_ok()
        {
            self.literals.insert(out.0, tokens.clone());
        }
        // Arrays and tuples of literals: as written, for the type rustc gives them.
        match inst {
            Inst::Array { out, elems, vec } if !elems.is_empty() => {
                if let Some(ls) = self.all_literals(elems) {
                    let l = if *vec {
                        quote::quote!(::std::vec![#(#ls),*])
                    } else {
                        quote::quote!([#(#ls),*])
                    };
                    self.literals.insert(out.0, l);
                }
            }
            Inst::Repeat {
                out,
                elem,
                len: crate::ir::Len::Const(n),
            } => {
                if let Some(l) = self.literals.get(&elem.0).cloned() {
                    self.literals.insert(out.0, quote::quote!([#l; #n]));
                }
            }
            Inst::Tuple { out, elems } if !elems.is_empty() => {
                if let Some(ls) = self.all_literals(elems) {
                    self.literals.insert(out.0, quote::quote!((#(#ls,)*)));
                }
            }
            Inst::Let {
                var,
                init: Some(init),
            } if func.vars[var.0 as usize].ty.is_none() => {
                if let Some(l) = self.literals.get(&init.0).cloned() {
                    self.var_literals.insert(var.0, l);
                }
            }
            _ => {}
        }
        let (out, ty) = match inst {
            Inst::Neg { out, a } => (*out, self.float(*a)),
            // An array or a `Vec` of the type of an element the macro can tell.
            Inst::Array { out, elems, vec } => {
                let elem = elems.iter().find_map(|e| self.float(*e));
                let ty = elem.map(|t| {
                    let n = elems.len();
                    if *vec {
                        syn::parse_quote!(::std::vec::Vec<#t>)
                    } else {
                        syn::parse_quote!([#t; #n])
                    }
                });
                (*out, ty)
            }
            Inst::Repeat { out, elem, len } => {
                let ty = self.float(*elem).map(|t| match len {
                    crate::ir::Len::Const(n) => syn::parse_quote!([#t; #n]),
                    crate::ir::Len::Vec(_) => syn::parse_quote!(::std::vec::Vec<#t>),
                });
                (*out, ty)
            }
            Inst::Arith { out, a, b, .. } => (*out, self.float(*a).or_else(|| self.float(*b))),
            Inst::Method { out, recv, .. } => (*out, self.float(*recv)),
            Inst::Cast { out, ty, .. } => (*out, Some(ty.clone())),
            Inst::Index { out, var, .. } => (
                *out,
                self.var_type(func, *var).and_then(|t| element_type(&t)),
            ),
            Inst::Let {
                var,
                init: Some(init),
            } => {
                if func.vars[var.0 as usize].ty.is_none()
                    && let Some(ty) = self.values.get(&init.0).cloned()
                {
                    self.vars.insert(var.0, ty);
                }
                return;
            }
            _ => return,
        };
        if let Some(ty) = ty {
            self.values.insert(out.0, ty);
        }
    }
}

/// Whether an argument of type `ty` reaches the callee's parameter as that type: no deref or
/// unsizing coercion can make it another (`&Vec<T>`, `&[T; N]` or `&mut [T]` may become
/// `&[T]`). Numbers, arrays, shared slices, `Vec`s and tuples of them; any other type is left
/// to inference (`_`).
pub(super) fn no_coercion(ty: &syn::Type, generics: &syn::Generics) -> bool {
    const NUMBERS: [&str; 15] = [
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize", "bool",
    ];
    let inner = |t: &syn::Type| no_coercion(t, generics);
    match ty {
        syn::Type::Array(a) => inner(&a.elem),
        syn::Type::Tuple(t) => t.elems.iter().all(inner),
        syn::Type::Paren(p) => inner(&p.elem),
        // `&mut [T]` may become `&[T]`.
        syn::Type::Reference(r) => {
            r.mutability.is_none() && matches!(&*r.elem, syn::Type::Slice(s) if inner(&s.elem))
        }
        syn::Type::Path(p) if p.qself.is_none() => match p.path.get_ident() {
            // A type parameter of the function is a type of its own, which nothing coerces.
            Some(i) => {
                NUMBERS.contains(&i.to_string().as_str())
                    || generics.type_params().any(|t| t.ident == *i)
                    || crate::lower::names::struct_type(ty, &[]).is_some()
            }
            // A `Vec` of such, or a struct of the user's (a value of a named type is passed
            // as it is).
            None => match element_type(ty) {
                Some(e) => inner(&e),
                None => crate::lower::names::struct_type(ty, &[]).is_some(),
            },
        },
        _ => false,
    }
}

/// The element type of an array, a slice, a reference to one, or a `Vec`.
pub(crate) fn element_type(ty: &syn::Type) -> Option<syn::Type> {
    match ty {
        syn::Type::Array(a) => Some((*a.elem).clone()),
        syn::Type::Slice(s) => Some((*s.elem).clone()),
        syn::Type::Reference(r) => element_type(&r.elem),
        syn::Type::Paren(p) => element_type(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if last.ident != "Vec" {
                return None;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
                    syn::GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}
