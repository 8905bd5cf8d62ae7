//! Lowering of iterator chains consumed in an expression, as idiomatic numerics code writes
//! them: `x.iter().map(|v| ..).sum()`, `.product()`, `.fold(init, |acc, v| ..)`,
//! `.max_by(cmp).unwrap()`, `.min_by(cmp).unwrap()` and `.collect::<Vec<_>>()`, over the
//! sources a `for` loop over elements takes (`iter`, `&a`, `copied`, `enumerate`, `zip`,
//! `skip`, `take`, `windows`, ...), with any number of `map`s and `filter`s. Each becomes the
//! `for` loop over elements that the rest of the pipeline already differentiates (see
//! `chain_loop.rs`), with an accumulator: `min_by` and `max_by` keep the best item so far with
//! an `if`, and `collect` writes each item into a `Vec` by index.

use super::chain_loop::{Finish, Step, peel_steps, step_names, strip_type};
use super::closures::strip_parens;
use super::sources::Source;
use super::*;

/// What consumes a chain.
enum Consumer {
    Sum,
    Product,
    Fold,
    /// `.collect()`, into a `Vec`.
    Collect,
    /// `.max_by(cmp).unwrap()` (`max` true) or `.min_by(cmp).unwrap()`.
    Best {
        max: bool,
        cmp: Comparator,
    },
}

/// A comparator of floats that `min_by` and `max_by` take: `|a, b| a.partial_cmp(b).unwrap()`
/// or `|a, b| a.total_cmp(b)`, perhaps with the parameters swapped, or `f64::total_cmp`.
struct Comparator {
    method: Ident,
    /// What follows `partial_cmp(..)`: `.unwrap()` or `.expect(..)`.
    rest: TokenStream,
    /// The comparator compares its second parameter with its first.
    swapped: bool,
}

impl Lower {
    /// `recv.sum()`, `recv.product()`, `recv.fold(init, f)`, `recv.collect()` or
    /// `recv.max_by(cmp).unwrap()` (and `min_by`) with `recv` a source of elements followed by
    /// `map`s and `filter`s (at least one for `sum` and `product`: `a.iter().sum()` alone is
    /// summed as it is). `None` when the receiver is not such a chain.
    pub(super) fn consumed_chain(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        let name = m.method.to_string();
        let (consumer, chain) = match (name.as_str(), m.args.len()) {
            ("sum", 0) => (Consumer::Sum, &*m.receiver),
            ("product", 0) => (Consumer::Product, &*m.receiver),
            ("fold", 2) => (Consumer::Fold, &*m.receiver),
            ("collect", 0) => (Consumer::Collect, &*m.receiver),
            ("unwrap", 0) | ("expect", 1) => {
                let Expr::MethodCall(best) = strip_parens(&m.receiver) else {
                    return None;
                };
                let max = match best.method.to_string().as_str() {
                    "max_by" => true,
                    "min_by" => false,
                    _ => return None,
                };
                if best.args.len() != 1 || !self.is_element_chain(&best.receiver) {
                    return None;
                }
                let Some(cmp) = comparator(&best.args[0]) else {
                    let which = &best.method;
                    self.errors.push(err(&best.args[0], format!("#[differentiable] takes the comparator of `{which}` as `|a, b| a.partial_cmp(b).unwrap()`, `|a, b| a.total_cmp(b)` (the parameters may be swapped) or `f64::total_cmp`; write one of those, or the loop that keeps the best value with an `if`")));
                    return Some(self.dummy(out, m.span()));
                };
                (Consumer::Best { max, cmp }, &*best.receiver)
            }
            ("max_by" | "min_by", 1) if self.is_element_chain(&m.receiver) => {
                return Some(self.best_without_unwrap(&m.method, m, out));
            }
            _ => match strip_parens(&m.receiver) {
                // `.max_by(..).unwrap_or(..)` and the like.
                Expr::MethodCall(best)
                    if (best.method == "max_by" || best.method == "min_by")
                        && best.args.len() == 1
                        && self.is_element_chain(&best.receiver) =>
                {
                    return Some(self.best_without_unwrap(&best.method, m, out));
                }
                _ => return None,
            },
        };
        let (steps, source_expr) = peel_steps(chain);
        let has_map = steps.iter().any(|s| !matches!(s, Step::Filter(_)));
        // `a.iter().sum()` of a variable is summed as it is (`Inst::Sum`); other chains without
        // a `map` or `filter` (`a.iter().rev().sum()`, `a.iter().product()`) are loops.
        if steps.is_empty() && matches!(consumer, Consumer::Sum) && self.summed_var(chain).is_some()
        {
            return None;
        }
        // The accumulator's start builds the chain (see below): `into_iter` would move its
        // variable there.
        if let Some(into) = find_method(source_expr, "into_iter") {
            self.errors.push(err(into, "#[differentiable] takes `into_iter` in a `for` loop, not in an iterator chain; write `.iter()` (the elements are the same numbers)"));
            return Some(self.dummy(out, m.span()));
        }
        if let Some(iter_mut) = find_method(source_expr, "iter_mut") {
            self.errors.push(err(iter_mut, "#[differentiable] takes `iter_mut` in a `for` loop, not in an iterator chain; write the elements in a loop: `for v in a.iter_mut() { *v = ..; }`"));
            return Some(self.dummy(out, m.span()));
        }
        let source = match self.element_source(source_expr)? {
            Ok(source) => source,
            Err(e) => {
                self.errors.push(e);
                return Some(self.dummy(out, m.span()));
            }
        };
        // `collect`, `min_by` and `max_by` keep the items themselves: numbers, computed by a
        // `map` or copied from the elements.
        let copied = find_method(source_expr, "copied")
            .or_else(|| find_method(source_expr, "cloned"))
            .is_some();
        let single = matches!(single_elements(&source), Some(Source::Elems(..)));
        let keeps_items = matches!(consumer, Consumer::Collect | Consumer::Best { .. });
        if keeps_items && !has_map && !single {
            self.errors.push(err(chain, format!("#[differentiable] takes `{name}` of numbers: the elements of one variable, or the results of a `map`; add a `.map(..)` that computes the number")));
            return Some(self.dummy(out, m.span()));
        }
        if matches!(consumer, Consumer::Collect) {
            let vec_target = match &m.turbofish {
                None => true,
                Some(t) => {
                    matches!(t.args.first(), Some(syn::GenericArgument::Type(Type::Path(p))) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
                }
            };
            if !vec_target {
                self.errors.push(err(&m.turbofish, "#[differentiable] collects a chain into a `Vec` only: write `.collect::<Vec<_>>()`"));
                return Some(self.dummy(out, m.span()));
            }
            if !has_map && !copied {
                self.errors.push(err(chain, "#[differentiable] collects numbers, not references to them: add `.copied()` before `collect`"));
                return Some(self.dummy(out, m.span()));
            }
        }
        self.scopes.push(HashMap::new());
        let krate = self.krate.clone();
        let mut bound = step_names(&steps);
        if let Consumer::Fold = consumer
            && let Expr::Closure(c) = &m.args[1]
        {
            c.inputs.iter().for_each(|p| pattern_names(p, &mut bound));
        }
        // The chain as written, for code that builds it (with `*x` of an enclosing loop's
        // element read as `x`, which is a value there).
        let chain_tokens =
            self.strip_element_derefs(self.expand_views(chain.to_token_stream()), &bound);
        let masks = self.filter_masks(&steps, &bound, out);
        let acc_ident = Ident::new(&format!("__ad_acc{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        // The accumulator starts at the sum of no terms (or the product, or `init`), of the
        // type of the chain's items: `Sum::sum` of the chain itself, which is built but not run.
        // The items `min_by`, `max_by` and `collect` keep start from the chain's first item, run
        // as the function runs it: the loop writes each again, with its derivative.
        let opaque = |this: &mut Self, tokens: TokenStream, out: &mut Vec<Inst>| {
            let reads = this.reads_of(&tokens);
            let v = this.value(m.span());
            out.push(Inst::Opaque {
                out: v,
                tokens,
                reads,
                may_write: false,
                only_inactive: None,
            });
            v
        };
        // Without a `map`, `copied` or `cloned`, the items are references to the elements.
        let by_ref = !has_map && !copied;
        let init = match &consumer {
            Consumer::Fold => self.expr(&m.args[0], out),
            Consumer::Sum | Consumer::Product => {
                let start = match (&consumer, by_ref) {
                    (Consumer::Sum, false) => quote!(sum_zero),
                    (Consumer::Sum, true) => quote!(sum_zero_ref),
                    (_, false) => quote!(product_one),
                    (_, true) => quote!(product_one_ref),
                };
                opaque(
                    self,
                    quote!(#krate::__private::#start(&(#chain_tokens))),
                    out,
                )
            }
            Consumer::Best { .. } => {
                let star = by_ref.then(|| quote!(*));
                opaque(
                    self,
                    quote!(#star #krate::__private::first_item(#chain_tokens)),
                    out,
                )
            }
            Consumer::Collect => {
                let n = match masks.last() {
                    Some(mask) => quote!(#krate::__private::kept(&#mask)),
                    None => Self::source_len(&source),
                };
                opaque(
                    self,
                    quote!(#krate::__private::vec_like(#chain_tokens, #n)),
                    out,
                )
            }
        };
        let acc = self.new_var(acc_ident.clone(), None, true);
        out.push(Inst::Let {
            var: acc,
            init: Some(init),
        });
        self.bind(acc);
        let mut index = None;
        let acc_read = acc_ident.clone();
        let finish = match consumer {
            Consumer::Sum => Finish::Use(Box::new(move |item: &Expr| {
                vec![syn::parse_quote!(#acc_ident = #acc_ident + (#item);)]
            })),
            Consumer::Product => Finish::Use(Box::new(move |item: &Expr| {
                vec![syn::parse_quote!(#acc_ident = #acc_ident * (#item);)]
            })),
            Consumer::Fold => match &m.args[1] {
                Expr::Closure(c) if c.inputs.len() == 2 => {
                    let (a, x, body) =
                        (strip_type(&c.inputs[0]), strip_type(&c.inputs[1]), &c.body);
                    Finish::Bind(
                        x,
                        vec![syn::parse_quote!(#acc_ident = { let #a = #acc_ident; #body };)],
                    )
                }
                Expr::Closure(c) => {
                    self.errors.push(err(c, "#[differentiable] expects the closure of `fold` to take two parameters, the accumulator and the item"));
                    self.scopes.pop();
                    return Some(self.dummy(out, m.span()));
                }
                f => {
                    // `T::max` of a type parameter is the float method `max`.
                    let method = match f {
                        Expr::Path(p)
                            if p.qself.is_none()
                                && p.path.segments.len() == 2
                                && self
                                    .type_params
                                    .contains(&p.path.segments[0].ident.to_string())
                                && matches!(
                                    p.path.segments[1].ident.to_string().as_str(),
                                    "max" | "min"
                                ) =>
                        {
                            Some(p.path.segments[1].ident.clone())
                        }
                        _ => None,
                    };
                    let f = f.clone();
                    Finish::Use(Box::new(move |item: &Expr| match &method {
                        Some(method) => {
                            vec![syn::parse_quote!(#acc_ident = #acc_ident.#method(#item);)]
                        }
                        None => vec![syn::parse_quote!(#acc_ident = #f(#acc_ident, #item);)],
                    }))
                }
            },
            Consumer::Best { max, cmp } => {
                let first = self.hidden_flag(out);
                let item = Ident::new(&format!("__ad_item{}", self.hidden), Span::mixed_site());
                self.hidden += 1;
                let Comparator {
                    method,
                    rest,
                    swapped,
                } = cmp;
                let ordering = if swapped {
                    quote!(#item.#method(&#acc_ident) #rest)
                } else {
                    quote!(#acc_ident.#method(&#item) #rest)
                };
                // As `Iterator::max_by`: the later of equal items; `min_by`: the earlier.
                let take = if max {
                    quote!(#ordering != ::core::cmp::Ordering::Greater)
                } else {
                    quote!(#ordering == ::core::cmp::Ordering::Greater)
                };
                Finish::Bind(
                    syn::parse_quote!(#item),
                    vec![
                        syn::parse_quote!(if #first || #take { #acc_ident = #item; }),
                        syn::parse_quote!(#first = false;),
                    ],
                )
            }
            Consumer::Collect => {
                if masks.is_empty() {
                    let i = Ident::new(&format!("__ad_pos{}", self.hidden), Span::mixed_site());
                    self.hidden += 1;
                    index = Some(i.clone());
                    Finish::Use(Box::new(move |item: &Expr| {
                        vec![syn::parse_quote!(#acc_ident[#i] = #item;)]
                    }))
                } else {
                    // The position among the items the `filter`s keep.
                    let k = self.hidden_counter(out);
                    Finish::Use(Box::new(move |item: &Expr| {
                        vec![
                            syn::parse_quote!(#acc_ident[#k] = #item;),
                            syn::parse_quote!(#k += 1;),
                        ]
                    }))
                }
            }
        };
        drop(source);
        self.chain_loop(source_expr, &steps, &masks, &finish, index, out);
        let v = self.value(m.span());
        out.push(Inst::Read {
            out: v,
            var: acc,
            ident: acc_read,
        });
        self.scopes.pop();
        Some(v)
    }

    /// `min_by` or `max_by` (`which`) not followed by an unwrap: an error.
    fn best_without_unwrap(
        &mut self,
        which: &Ident,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Inst>,
    ) -> Value {
        self.errors.push(err(which, format!("#[differentiable] takes `{which}` over elements followed by `.unwrap()` or `.expect(..)`, which lower to a loop that keeps the best value; add the unwrap, or write that loop: `let mut best = a[0]; for &v in a.iter() {{ if v > best {{ best = v; }} }}`")));
        self.dummy(out, m.span())
    }

    /// Whether an expression is a chain over elements of variables.
    fn is_element_chain(&mut self, e: &Expr) -> bool {
        let (_, source) = peel_steps(e);
        self.element_source(source).is_some()
    }

    /// A hidden `let mut flag = true;`, in scope.
    fn hidden_flag(&mut self, out: &mut Vec<Inst>) -> Ident {
        self.hidden_let("__ad_first", quote!(true), out)
    }

    /// A hidden `let mut k = 0usize;`, in scope.
    fn hidden_counter(&mut self, out: &mut Vec<Inst>) -> Ident {
        self.hidden_let("__ad_k", quote!(0usize), out)
    }

    fn hidden_let(&mut self, prefix: &str, tokens: TokenStream, out: &mut Vec<Inst>) -> Ident {
        let ident = Ident::new(&format!("{prefix}{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        let v = self.value(Span::call_site());
        out.push(Inst::Const { out: v, tokens });
        let var = self.new_var(ident.clone(), None, true);
        self.vars[var.0 as usize].known_inactive = true;
        out.push(Inst::Let { var, init: Some(v) });
        self.bind(var);
        ident
    }
}

/// Whether an expression is `chain.max_by(..).unwrap()` or `chain.min_by(..).unwrap()` (or with
/// `.expect(..)`) of a chain without `map`: its value is an element.
pub(super) fn is_best_of_elements(e: &Expr) -> bool {
    let Expr::MethodCall(u) = strip_parens(e) else {
        return false;
    };
    if !matches!(u.method.to_string().as_str(), "unwrap" | "expect") {
        return false;
    }
    match strip_parens(&u.receiver) {
        Expr::MethodCall(b) if b.method == "max_by" || b.method == "min_by" => {
            peel_steps(&b.receiver)
                .0
                .iter()
                .all(|s| matches!(s, Step::Filter(_)))
        }
        _ => false,
    }
}

/// The source without the adapters that keep its items as they are (`skip`, `take`, `rev`,
/// `step_by`).
fn single_elements(src: &Source) -> Option<&Source> {
    match src {
        Source::Skip(inner, ..)
        | Source::Take(inner, ..)
        | Source::StepBy(inner, ..)
        | Source::Rev(inner) => single_elements(inner),
        other => Some(other),
    }
}

/// The comparator of `min_by` or `max_by`, if it is one the lowering knows.
fn comparator(e: &Expr) -> Option<Comparator> {
    let c = match strip_parens(e) {
        Expr::Closure(c) => c,
        // `f64::total_cmp`, `T::total_cmp`: compares its first parameter with its second.
        Expr::Path(p)
            if p.qself.is_none()
                && p.path.segments.len() == 2
                && p.path.segments[1].ident == "total_cmp" =>
        {
            return Some(Comparator {
                method: p.path.segments[1].ident.clone(),
                rest: TokenStream::new(),
                swapped: false,
            });
        }
        _ => return None,
    };
    if c.inputs.len() != 2 {
        return None;
    }
    let names: Vec<String> = c
        .inputs
        .iter()
        .map(|p| {
            let mut n = Vec::new();
            pattern_names(p, &mut n);
            n
        })
        .map(|n| n.into_iter().next().unwrap_or_default())
        .collect();
    let body = match &*c.body {
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => e,
            _ => return None,
        },
        other => other,
    };
    let (call, rest) = match strip_parens(body) {
        Expr::MethodCall(u) if matches!(u.method.to_string().as_str(), "unwrap" | "expect") => {
            let (dot, method, args) = (&u.dot_token, &u.method, &u.args);
            match strip_parens(&u.receiver) {
                Expr::MethodCall(p) if p.method == "partial_cmp" => {
                    (p, quote!(#dot #method(#args)))
                }
                _ => return None,
            }
        }
        Expr::MethodCall(t) if t.method == "total_cmp" => (t, TokenStream::new()),
        _ => return None,
    };
    if call.args.len() != 1 {
        return None;
    }
    let (a, b) = (operand_name(&call.receiver)?, operand_name(&call.args[0])?);
    let swapped = match (
        names.iter().position(|n| *n == a),
        names.iter().position(|n| *n == b),
    ) {
        (Some(0), Some(1)) => false,
        (Some(1), Some(0)) => true,
        _ => return None,
    };
    Some(Comparator {
        method: call.method.clone(),
        rest,
        swapped,
    })
}

/// The name an operand of a comparison reads, through `*`, `&` and parentheses.
fn operand_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => operand_name(&p.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => operand_name(&u.expr),
        Expr::Reference(r) if r.mutability.is_none() => operand_name(&r.expr),
        _ => None,
    }
}

/// The name of the method call `name` in a chain of method calls, if there is one.
pub(super) fn find_method<'e>(mut e: &'e Expr, name: &str) -> Option<&'e Ident> {
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
