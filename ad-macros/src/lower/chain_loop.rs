//! The loop an iterator chain stands for: a source of elements (`chains.rs` and `loops.rs` list
//! them), then `map`s and `filter`s in any order, each item handed to what consumes the chain
//! (an accumulator, a `Vec`, a `for` loop's body).
//!
//! A `filter`'s predicate decides and is not differentiated: before the loop, the chain up to
//! the `filter` is run as the function runs it, and which of its items the predicate keeps is
//! kept in a mask (`__private::filter_mask`). In the loop, what follows the `filter` sits in an
//! `if` on the mask at the element's position, so the `map`s after a `filter` run only on the
//! items it keeps, as they do in the function.

use super::*;

/// One step after the source: a `map` (a closure of one parameter, or a function called with
/// the item), or a `filter`.
pub(super) enum Step<'a> {
    Closure(&'a syn::ExprClosure),
    Function(&'a Expr),
    /// The `.filter(p)` call: its receiver is the chain whose items the predicate sees.
    Filter(&'a syn::ExprMethodCall),
}

impl Step<'_> {
    /// The pattern a `map` binds its item to, and the expression of its result.
    fn parts(&self, hidden: &Ident) -> (Pat, Expr) {
        match self {
            Step::Closure(c) => (strip_type(&c.inputs[0]), (*c.body).clone()),
            Step::Function(f) => (syn::parse_quote!(#hidden), syn::parse_quote!(#f(#hidden))),
            Step::Filter(_) => unreachable!("a filter computes no item"),
        }
    }
}

/// A closure parameter's pattern without its type: a loop or `let` pattern takes none.
pub(super) fn strip_type(p: &Pat) -> Pat {
    match p {
        Pat::Type(t) => (*t.pat).clone(),
        other => other.clone(),
    }
}

/// What the loop does with each item of the chain.
pub(super) enum Finish {
    /// Binds the item to the pattern and runs the statements (a `for` loop's body, a `fold`'s
    /// closure).
    Bind(Pat, Vec<syn::Stmt>),
    /// The statements made from the item's expression (an accumulator's update).
    Use(Box<MakeStmts>),
}

/// Makes statements from an item's expression.
pub(super) type MakeStmts = dyn Fn(&Expr) -> Vec<syn::Stmt>;

/// The `map`s and `filter`s of a chain, first first, and the expression they apply to.
pub(super) fn peel_steps(mut e: &Expr) -> (Vec<Step<'_>>, &Expr) {
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
            Expr::MethodCall(m) if m.method == "filter" && m.args.len() == 1 => {
                steps.push(Step::Filter(m));
                e = &m.receiver;
            }
            Expr::Paren(p) => e = &p.expr,
            _ => break,
        }
    }
    steps.reverse();
    (steps, e)
}

/// The names the closures of the steps bind: in code kept as written, `*x` of one of them is
/// the user's dereference, not that of an element of an enclosing loop.
pub(super) fn step_names(steps: &[Step]) -> Vec<String> {
    let mut names = Vec::new();
    for step in steps {
        let closure = match step {
            Step::Closure(c) => Some(*c),
            Step::Filter(m) => match &m.args[0] {
                Expr::Closure(c) => Some(c),
                _ => None,
            },
            Step::Function(_) => None,
        };
        if let Some(c) = closure {
            c.inputs
                .iter()
                .for_each(|p| super::chains::pattern_names(p, &mut names));
        }
    }
    names
}

impl Lower {
    /// The masks of the chain's `filter`s, computed before the loop, each in a hidden variable
    /// in scope (the caller opens the scope).
    pub(super) fn filter_masks(
        &mut self,
        steps: &[Step],
        bound: &[String],
        out: &mut Vec<Inst>,
    ) -> Vec<Ident> {
        let krate = self.krate.clone();
        let mut masks: Vec<Ident> = Vec::new();
        for step in steps {
            let Step::Filter(m) = step else { continue };
            let before = match masks.last() {
                Some(prev) => quote!(::core::option::Option::Some(&#prev[..])),
                None => quote!(::core::option::Option::None),
            };
            let (recv, pred) = (&m.receiver, &m.args[0]);
            // Views read in the chain or the predicate stand for what they view, as elsewhere.
            let tokens = self.strip_element_derefs(
                self.expand_views(quote!(#krate::__private::filter_mask(#before, #recv, #pred))),
                bound,
            );
            let reads = self.reads_of(&tokens);
            let v = self.value(m.span());
            out.push(Inst::Opaque {
                out: v,
                tokens,
                reads,
                may_write: false,
                only_inactive: None,
            });
            let ident = Ident::new(&format!("__ad_mask{}", self.hidden), Span::mixed_site());
            self.hidden += 1;
            let var = self.new_var(ident.clone(), None, false);
            self.vars[var.0 as usize].known_inactive = true;
            out.push(Inst::Let { var, init: Some(v) });
            self.bind(var);
            masks.push(ident);
        }
        masks
    }

    /// The loop over the source's elements that runs the steps and `finish` on each item.
    /// `index`, if given, names the element's position in the loop (with a `filter`, one is
    /// made for the masks).
    pub(super) fn chain_loop(
        &mut self,
        source: &Expr,
        steps: &[Step],
        masks: &[Ident],
        finish: &Finish,
        index: Option<Ident>,
        out: &mut Vec<Inst>,
    ) {
        let element = Ident::new(&format!("__ad_elem{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        let index = index.or_else(|| {
            (!masks.is_empty()).then(|| {
                let i = Ident::new(&format!("__ad_pos{}", self.hidden), Span::mixed_site());
                self.hidden += 1;
                i
            })
        });
        // The loop binds the element to the first `map`'s parameter, or, without a `map`, to
        // the item's own pattern.
        let first_map = steps.iter().find(|s| !matches!(s, Step::Filter(_)));
        let loop_pat = match (first_map, finish) {
            (Some(step), _) => step.parts(&element).0,
            (None, Finish::Bind(pat, _)) => pat.clone(),
            (None, Finish::Use(_)) => syn::parse_quote!(#element),
        };
        let body = body(steps, 0, None, masks, index.as_ref(), finish, &element);
        let mut for_loop: syn::ExprForLoop = match &index {
            Some(i) => syn::parse_quote! {
                for (#i, #loop_pat) in (#source).enumerate() {
                    #(#body)*
                }
            },
            None => syn::parse_quote! {
                for #loop_pat in #source {
                    #(#body)*
                }
            },
        };
        // The user's label, for `break 'label` and `continue 'label` in the body.
        for_loop.label = self.chain_label.take();
        self.for_loop(&for_loop, out);
    }

    /// `for pat in a.iter().map(..).filter(..) { .. }`: the loop over the source, the items
    /// bound to the loop's pattern.
    pub(super) fn for_over_chain(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Inst>) -> bool {
        let (steps, source) = peel_steps(&f.expr);
        if steps.is_empty() || self.element_source(source).is_none() {
            return false;
        }
        for name in ["into_iter", "iter_mut"] {
            if let Some(m) = super::chains::find_method(source, name) {
                self.errors.push(err(m, format!("#[differentiable] takes `{name}` in a `for` loop straight over the elements, not before `map` or `filter`; write `.iter()`, or compute the item in the loop's body")));
                return true;
            }
        }
        if let Some(Err(e)) = self.element_source(source) {
            self.errors.push(e);
            return true;
        }
        self.scopes.push(HashMap::new());
        let masks = self.filter_masks(&steps, &step_names(&steps), out);
        let finish = Finish::Bind((*f.pat).clone(), f.body.stmts.clone());
        self.chain_label = f.label.clone();
        self.chain_loop(source, &steps, &masks, &finish, None, out);
        self.scopes.pop();
        true
    }
}

/// The loop's body from step `k` on, with `item` the expression of the item so far (`None`
/// before the first `map`: the loop's pattern holds the element).
fn body(
    steps: &[Step],
    k: usize,
    item: Option<Expr>,
    masks: &[Ident],
    index: Option<&Ident>,
    finish: &Finish,
    element: &Ident,
) -> Vec<syn::Stmt> {
    match steps.get(k) {
        None => {
            let mut stmts = Vec::new();
            match finish {
                Finish::Bind(pat, body) => {
                    if let Some(item) = item {
                        stmts.push(syn::parse_quote!(let #pat = #item;));
                    }
                    stmts.extend(body.iter().cloned());
                }
                Finish::Use(make) => {
                    let item = item.unwrap_or_else(|| syn::parse_quote!(#element));
                    stmts.extend(make(&item));
                }
            }
            stmts
        }
        Some(Step::Filter(_)) => {
            let (mask, rest) = masks.split_first().expect("a mask for each filter");
            let inner = body(steps, k + 1, item, rest, index, finish, element);
            let index = index.expect("an index with a filter");
            vec![syn::parse_quote!(if #mask[#index] { #(#inner)* })]
        }
        Some(step) => {
            let (pat, value) = step.parts(element);
            let mut stmts = Vec::new();
            if let Some(previous) = item {
                stmts.push(syn::parse_quote!(let #pat = #previous;));
            }
            stmts.extend(body(
                steps,
                k + 1,
                Some(value),
                masks,
                index,
                finish,
                element,
            ));
            stmts
        }
    }
}
