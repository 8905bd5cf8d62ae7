//! Lowering of iterator chains consumed in an expression, as idiomatic numerics code writes
//! them: `x.iter().map(|v| ..).sum()`, `.product()`, `.fold(init, |acc, v| ..)`, over the
//! sources a `for` loop over elements takes (`iter`, `&a`, `copied`, `enumerate`, `zip`,
//! `skip`, `take`), with any number of `map`s. Each becomes the `for` loop over elements that
//! the rest of the pipeline already differentiates, with an accumulator.

use super::*;

/// One `map` of a chain: a closure of one parameter, or a function called with the element.
enum Step<'a> {
    Closure(&'a syn::ExprClosure),
    Function(&'a Expr),
}

impl Step<'_> {
    /// The pattern the element is bound to, and the expression of the step's result.
    fn parts(&self, hidden: &Ident) -> (Pat, Expr) {
        match self {
            Step::Closure(c) => {
                let pat = match &c.inputs[0] {
                    // `|w: T| ..`: a loop pattern takes no type.
                    Pat::Type(t) => (*t.pat).clone(),
                    other => other.clone(),
                };
                (pat, (*c.body).clone())
            }
            Step::Function(f) => (syn::parse_quote!(#hidden), syn::parse_quote!(#f(#hidden))),
        }
    }
}

impl Lower {
    /// `recv.sum()`, `recv.product()` or `recv.fold(init, f)` with `recv` a source of elements
    /// followed by `map`s (at least one for `sum` and `product`: `a.iter().sum()` alone is
    /// summed as it is). `None` when the receiver is not such a chain.
    pub(super) fn consumed_chain(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        let name = m.method.to_string();
        let fold = match (name.as_str(), m.args.len()) {
            ("sum" | "product", 0) => false,
            ("fold", 2) => true,
            _ => return None,
        };
        let (steps, source_expr) = peel_maps(&m.receiver);
        if steps.is_empty() && !fold {
            return None;
        }
        // The accumulator's zero builds the chain (see below): `into_iter` would move its
        // variable there.
        if let Some(into) = find_method(source_expr, "into_iter") {
            self.errors.push(err(into, "#[differentiable] takes `into_iter` in a `for` loop, not in an iterator chain; write `.iter()` (the elements are the same numbers)"));
            return Some(self.dummy(out, m.span()));
        }
        let source = match self.element_source(source_expr)? {
            Ok(source) => source,
            Err(e) => {
                self.errors.push(e);
                return Some(self.dummy(out, m.span()));
            }
        };
        if let Some(iter_mut) = find_method(source_expr, "iter_mut") {
            self.errors.push(err(iter_mut, "#[differentiable] takes `iter_mut` in a `for` loop, not in an iterator chain; write the elements in a loop: `for v in a.iter_mut() { *v = ..; }`"));
            return Some(self.dummy(out, m.span()));
        }
        drop(source);
        self.scopes.push(HashMap::new());
        let acc_ident = Ident::new(&format!("__ad_acc{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        // The accumulator starts at the sum of no terms (or the product, or `init`), of the
        // type of the chain's items: `Sum::sum` of the chain itself, which is built but not run.
        let init = if fold {
            self.expr(&m.args[0], out)
        } else {
            let krate = &self.krate;
            let empty = if name == "sum" {
                quote!(sum_zero)
            } else {
                quote!(product_one)
            };
            // The closures are compiled, not run: their parameters are references as the user
            // wrote them, while a captured element is a value here (`*x` reads `x`).
            let mut bound = Vec::new();
            for step in &steps {
                if let Step::Closure(c) = step {
                    c.inputs.iter().for_each(|p| pattern_names(p, &mut bound));
                }
            }
            let recv = self.strip_element_derefs(m.receiver.to_token_stream(), &bound);
            let tokens = quote!(#krate::__private::#empty(&(#recv)));
            let reads = self.reads_of(&tokens);
            let v = self.value(m.span());
            out.push(Inst::Opaque {
                out: v,
                tokens,
                reads,
                may_write: false,
                only_inactive: None,
            });
            v
        };
        let acc = self.new_var(acc_ident.clone(), None, true);
        out.push(Inst::Let {
            var: acc,
            init: Some(init),
        });
        self.bind(acc);

        // The loop: the first step's pattern takes the element, each later step's the result
        // of the one before, and the last result goes into the accumulator.
        let element = Ident::new(&format!("__ad_elem{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        let mut lets: Vec<syn::Stmt> = Vec::new();
        let strip = |p: &Pat| match p {
            Pat::Type(t) => (*t.pat).clone(),
            other => other.clone(),
        };
        // A `fold` straight over the elements binds its item parameter (`&v`, `(a, b)`) as the
        // loop's pattern.
        let fold_item_pat = match (&m.args.get(1), steps.is_empty()) {
            (Some(Expr::Closure(c)), true) if c.inputs.len() == 2 => Some(strip(&c.inputs[1])),
            _ => None,
        };
        let (loop_pat, mut item): (Pat, Option<Expr>) = match (steps.first(), &fold_item_pat) {
            (Some(first), _) => {
                let (pat, body) = first.parts(&element);
                (pat, Some(body))
            }
            (None, Some(pat)) => (pat.clone(), None),
            (None, None) => (syn::parse_quote!(#element), None),
        };
        for step in steps.iter().skip(1) {
            let (pat, body) = step.parts(&element);
            let previous = item.take().expect("a step before");
            lets.push(syn::parse_quote!(let #pat = #previous;));
            item = Some(body);
        }
        let item = item.unwrap_or_else(|| syn::parse_quote!(#element));
        let update: syn::Stmt = match name.as_str() {
            "sum" => syn::parse_quote!(#acc_ident = #acc_ident + (#item);),
            "product" => syn::parse_quote!(#acc_ident = #acc_ident * (#item);),
            _ => match &m.args[1] {
                Expr::Closure(c) if c.inputs.len() == 2 => {
                    let a = strip(&c.inputs[0]);
                    let body = &c.body;
                    if fold_item_pat.is_some() {
                        syn::parse_quote!(#acc_ident = { let #a = #acc_ident; #body };)
                    } else {
                        let x = strip(&c.inputs[1]);
                        syn::parse_quote!(#acc_ident = { let #a = #acc_ident; let #x = #item; #body };)
                    }
                }
                Expr::Closure(c) => {
                    self.errors.push(err(c, "#[differentiable] expects the closure of `fold` to take two parameters, the accumulator and the item"));
                    return Some(self.dummy(out, m.span()));
                }
                f => syn::parse_quote!(#acc_ident = #f(#acc_ident, #item);),
            },
        };
        let for_loop: syn::ExprForLoop = syn::parse_quote! {
            for #loop_pat in #source_expr {
                #(#lets)*
                #update
            }
        };
        self.for_loop(&for_loop, out);
        let v = self.value(m.span());
        out.push(Inst::Read {
            out: v,
            var: acc,
            ident: acc_ident,
        });
        self.scopes.pop();
        Some(v)
    }
}

/// The name of the method call `name` in a chain of method calls, if there is one.
fn find_method<'e>(mut e: &'e Expr, name: &str) -> Option<&'e Ident> {
    loop {
        match e {
            Expr::MethodCall(m) if m.method == name => return Some(&m.method),
            Expr::MethodCall(m) => e = &m.receiver,
            Expr::Paren(p) => e = &p.expr,
            _ => return None,
        }
    }
}

/// The names a pattern binds.
pub(super) fn pattern_names(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(i) => out.push(i.ident.to_string()),
        Pat::Type(t) => pattern_names(&t.pat, out),
        Pat::Reference(r) => pattern_names(&r.pat, out),
        Pat::Paren(p) => pattern_names(&p.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pattern_names(e, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|e| pattern_names(e, out)),
        _ => {}
    }
}

/// The `map`s of a chain, first first, and the expression they apply to.
fn peel_maps(mut e: &Expr) -> (Vec<Step<'_>>, &Expr) {
    let mut steps = Vec::new();
    loop {
        match e {
            Expr::MethodCall(m) if m.method == "map" && m.args.len() == 1 => {
                let step = match &m.args[0] {
                    Expr::Closure(c) if c.inputs.len() == 1 => Step::Closure(c),
                    Expr::Closure(_) => break,
                    f @ Expr::Path(_) => Step::Function(f),
                    _ => break,
                };
                steps.push(step);
                e = &m.receiver;
            }
            Expr::Paren(p) => e = &p.expr,
            _ => break,
        }
    }
    steps.reverse();
    (steps, e)
}

impl Lower {
    /// `a.map(|x| ..)` on an array (a parameter `&[T; N]` or `[T; N]`, or a local declared as
    /// an array): a copy of the array, each element replaced by the closure's value in a loop.
    pub(super) fn array_map(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        if m.method != "map" || m.args.len() != 1 || m.turbofish.is_some() {
            return None;
        }
        let (var, _) = self.local_var(&m.receiver)?;
        let is_array = self.array_refs.contains(&var)
            || matches!(self.vars[var.0 as usize].ty, Some(Type::Array(_)));
        if !is_array {
            return None;
        }
        let copy = Ident::new(&format!("__ad_map{}", self.hidden), Span::mixed_site());
        let k = Ident::new(&format!("__ad_k{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        let element: Expr = syn::parse_quote!(#copy[#k]);
        let value: Expr = match &m.args[0] {
            Expr::Closure(c) if c.inputs.len() == 1 => {
                let pat = &c.inputs[0];
                let body = &c.body;
                syn::parse_quote!({ let #pat = #element; #body })
            }
            f => syn::parse_quote!(#f(#element)),
        };
        let recv = &m.receiver;
        let block: Expr = syn::parse_quote!({
            let mut #copy = #recv;
            for #k in 0..#copy.len() {
                #copy[#k] = #value;
            }
            #copy
        });
        Some(self.expr(&block, out))
    }
}
