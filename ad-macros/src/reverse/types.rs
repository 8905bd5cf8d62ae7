//! The adjoint types that the source itself tells: a variable's declared type, and the float type
//! of an expression built from floats of a known type.
//!
//! rustc infers the type of an adjoint declared without one (`Adj::default()`) from the first
//! value added to it, far down the reverse sweep; until then every step of the sweep carries the
//! pending question, and that was most of the type check of a reverse derivative. An adjoint
//! whose type is known here is declared with it. The rules are those of the primitive floats
//! (`f64 * f64` is an `f64`, so is `x.sqrt()` of an `f64` and an unsuffixed literal beside
//! one); where they do not settle a type, the adjoint stays untyped, as before.

use super::*;
use syn::Type;

/// A float type, or an unsuffixed float literal, whose type comes from what it meets.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Float {
    Literal,
    F32,
    F64,
}

impl Float {
    /// `f32` or `f64`, as the rest of the macro recognises them (`crate::lower::is_float_type`).
    fn of(ty: &Type) -> Option<Float> {
        match crate::lower::type_name(ty)?.as_str() {
            "f32" => Some(Float::F32),
            "f64" => Some(Float::F64),
            _ => None,
        }
    }

    /// The float type of the elements of a `Vec`, an array or a slice.
    fn of_elements(ty: &Type) -> Option<Float> {
        if let Some((_, elem)) = crate::lower::slice_of(ty) {
            return Float::of(elem);
        }
        match ty {
            Type::Paren(p) => Float::of_elements(&p.elem),
            Type::Group(g) => Float::of_elements(&g.elem),
            Type::Array(a) => Float::of(&a.elem),
            _ => crate::lower::generic_of(ty, "Vec").and_then(Float::of),
        }
    }

    fn of_literal(tokens: &TokenStream) -> Option<Float> {
        let lit: syn::LitFloat = syn::parse2(tokens.clone()).ok()?;
        match lit.suffix() {
            "" => Some(Float::Literal),
            "f32" => Some(Float::F32),
            "f64" => Some(Float::F64),
            _ => None,
        }
    }

    /// The type of an operation on two floats: the same type, or a literal's partner's.
    fn join(a: Option<Float>, b: Option<Float>) -> Option<Float> {
        match (a?, b?) {
            (x, y) if x == y => Some(x),
            (Float::Literal, y) => Some(y),
            (x, Float::Literal) => Some(x),
            _ => None,
        }
    }

    fn concrete(self) -> Option<TokenStream> {
        match self {
            Float::Literal => None,
            Float::F32 => Some(quote!(f32)),
            Float::F64 => Some(quote!(f64)),
        }
    }
}

/// What the source tells of the types of values and variables.
#[derive(Default)]
pub(super) struct Known {
    values: HashMap<u32, Float>,
    vars: HashMap<u32, Float>,
    /// Declared types may be written again: the body declares no item that they could name.
    declared: bool,
}

impl Known {
    pub(super) fn new(func: &Func) -> Known {
        let insts = func.body.all_insts();
        // A type declared inside the body is out of scope where the adjoints are declared, and
        // an item there may shadow a float's name: then nothing is typed. A `const`, a
        // `static` or a `fn` names a value, never a type, and changes nothing here.
        let names_a_type = |tokens: &TokenStream| {
            !matches!(
                syn::parse2::<syn::Item>(tokens.clone()),
                Ok(syn::Item::Const(_) | syn::Item::Static(_) | syn::Item::Fn(_))
            )
        };
        if insts
            .iter()
            .any(|i| matches!(i, Inst::Verbatim { item: true, tokens, .. } if names_a_type(tokens)))
        {
            return Known::default();
        }
        let mut k = Known {
            declared: true,
            ..Known::default()
        };
        for (i, var) in func.vars.iter().enumerate() {
            if let Some(f) = var.ty.as_ref().and_then(Float::of) {
                k.vars.insert(i as u32, f);
            }
        }
        // Each pass only adds or sharpens (a literal to a float type), so this ends.
        loop {
            let mut changed = false;
            for inst in &insts {
                changed |= k.visit(func, inst);
            }
            if !changed {
                return k;
            }
        }
    }

    fn value(&self, v: Value) -> Option<Float> {
        self.values.get(&v.0).copied()
    }

    fn set_value(&mut self, v: Value, f: Option<Float>) -> bool {
        Known::sharpen(&mut self.values, v.0, f)
    }

    /// Records `f` for `key` unless it knows as much already; whether it learnt something.
    fn sharpen(map: &mut HashMap<u32, Float>, key: u32, f: Option<Float>) -> bool {
        let Some(f) = f else { return false };
        match map.get(&key) {
            None => {
                map.insert(key, f);
                true
            }
            Some(Float::Literal) if f != Float::Literal => {
                map.insert(key, f);
                true
            }
            Some(_) => false,
        }
    }

    /// Learns what `inst` tells; whether it learnt something.
    fn visit(&mut self, func: &Func, inst: &Inst) -> bool {
        match inst {
            Inst::Read { out, var, .. } => {
                let f = self.vars.get(&var.0).copied();
                self.set_value(*out, f)
            }
            Inst::Const { out, tokens } => self.set_value(*out, Float::of_literal(tokens)),
            Inst::Neg { out, a } => self.set_value(*out, self.value(*a)),
            Inst::Arith { out, a, b, .. } => {
                self.set_value(*out, Float::join(self.value(*a), self.value(*b)))
            }
            // Every primitive method of a float returns that float type.
            Inst::Method { out, recv, .. } => {
                let f = self.value(*recv).filter(|f| *f != Float::Literal);
                self.set_value(*out, f)
            }
            Inst::Cast { out, ty, .. } => self.set_value(*out, Float::of(ty)),
            Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                let f = func.vars[var.0 as usize]
                    .ty
                    .as_ref()
                    .and_then(Float::of_elements);
                self.set_value(*out, f)
            }
            // A variable has one type: any value it is given with a float type tells it.
            Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                let f = self.value(*v).filter(|f| *f != Float::Literal);
                Known::sharpen(&mut self.vars, var.0, f)
            }
            Inst::Block {
                out: Some(o),
                block,
            } => {
                let f = block.result.and_then(|r| self.value(r));
                self.set_value(*o, f)
            }
            Inst::If {
                out: Some(o),
                then_block,
                else_block,
                ..
            } => {
                let t = then_block.result.and_then(|r| self.value(r));
                let e = else_block.result.and_then(|r| self.value(r));
                self.set_value(*o, Float::join(t, e).or(t).or(e))
            }
            _ => false,
        }
    }

    /// The type of the adjoint of value `v`, if the source tells it.
    pub(super) fn value_adjoint(&self, v: Value) -> Option<TokenStream> {
        self.value(v)?.concrete()
    }

    /// The type of the adjoint of variable `var`, if the source tells it: the tangent of its
    /// declared type, or the float type its values have.
    pub(super) fn var_adjoint(
        &self,
        func: &Func,
        var: Var,
        krate: &TokenStream,
    ) -> Option<TokenStream> {
        if !self.declared {
            return None;
        }
        if let Some(ty) = &func.vars[var.0 as usize].ty
            && crate::lower::supported_value_type(ty)
        {
            return Some(quote!(<#ty as #krate::__private::Differentiable>::Tangent));
        }
        self.vars.get(&var.0)?.concrete()
    }
}
