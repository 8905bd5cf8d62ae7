//! Code kept as the user wrote it (macros, items, code without a derivative): what it reads
//! and may write.

use super::*;

impl Lower {
    /// Keeps an expression verbatim for its value, which has no derivative.
    pub(super) fn verbatim(
        &mut self,
        e: &Expr,
        out: &mut Vec<Inst>,
        only_inactive: Option<Unsupported>,
    ) -> Value {
        let tokens = self.expand_views(e.to_token_stream());
        if let Some(bad) = find_control(&tokens) {
            self.errors.push(syn::Error::new(bad.span(), format!("#[differentiable] does not support `{bad}` inside this expression; move it into its own statement")));
        }
        let reads = self.reads_of(&tokens);
        let may_write = may_write(&tokens);
        self.mark_pending(&reads, may_write);
        let tokens = self.strip_element_derefs(tokens, &[]);
        let v = self.value(e.span());
        out.push(Inst::Opaque {
            out: v,
            tokens,
            reads,
            may_write,
            only_inactive,
        });
        v
    }

    /// An element bound by `for x in a.iter()` is a reference in the user's code and a value
    /// in the derivative: `*x` in code kept as it is becomes `x`, unless `x` is one of `except`
    /// (names bound again inside the tokens, by a closure's parameters).
    pub(super) fn strip_element_derefs(
        &self,
        tokens: TokenStream,
        except: &[String],
    ) -> TokenStream {
        if self.element_vars.is_empty() {
            return tokens;
        }
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::with_capacity(tts.len());
        for (i, tt) in tts.iter().enumerate() {
            match tt {
                TokenTree::Punct(p)
                    if p.as_char() == '*'
                        && p.spacing() == proc_macro2::Spacing::Alone
                        && matches!(tts.get(i + 1), Some(TokenTree::Ident(id))
                            if !except.contains(&id.to_string())
                                && self.lookup(&id.to_string()).is_some_and(|v| self.element_vars.contains(&v)))
                        && !is_operand(i.checked_sub(1).map(|j| &tts[j])) => {}
                TokenTree::Group(g) => {
                    let mut inner = proc_macro2::Group::new(
                        g.delimiter(),
                        self.strip_element_derefs(g.stream(), except),
                    );
                    inner.set_span(g.span());
                    out.push(TokenTree::Group(inner));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }

    /// The variables that tokens may read: every identifier naming a local, and every name
    /// captured by a format string (`"{x}"`).
    pub(super) fn reads_of(&self, tokens: &TokenStream) -> Vec<Var> {
        let mut reads = Vec::new();
        collect_names(tokens.clone(), &mut |name| {
            if let Some(var) = self.lookup(name)
                && !reads.contains(&var)
            {
                reads.push(var);
            }
        });
        reads
    }
}

pub(super) fn collect_names(tokens: TokenStream, f: &mut dyn FnMut(&str)) {
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

/// `return` or `?` inside an expression kept verbatim would leave the generated function with
/// the primal's type; `break` or `continue` would leave a loop without what reverse mode records
/// when an iteration ends.
pub(super) fn find_control(tokens: &TokenStream) -> Option<TokenTree> {
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
pub(super) fn may_write(tokens: &TokenStream) -> bool {
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // The pattern of a `let` and its `=` bind new names (`{ let mut b = 1.0; b }`): they change
    // nothing that exists. What follows the `=` is read like the rest.
    let mut binding = false;
    for (i, tt) in tts.iter().enumerate() {
        if binding {
            binding = !matches!(tt, TokenTree::Punct(p) if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone);
            continue;
        }
        match tt {
            TokenTree::Ident(id) if id == "let" => binding = true,
            TokenTree::Ident(id) if id == "mut" => return true,
            TokenTree::Ident(id)
                if matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
                    && matches!(tts.get(i + 2), Some(TokenTree::Group(_)))
                    && !READ_ONLY_MACROS.contains(&id.to_string().as_str()) =>
            {
                return true;
            }
            TokenTree::Punct(_) if writing_method_call(&tts, i) => return true,
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

/// The names verbatim tokens may change, where their only writes are method calls not known
/// to be read-only (`if x < s.m(x) { .. }`): the variables at the root of the calls'
/// receivers (`s` of `s.inner.m(x)`, every name inside `(..).m()`), none for a temporary
/// (`f(x).m()`, `2.0.m()`). `None` where they may change anything they read (an assignment,
/// `mut`, a macro that is not read-only, a receiver this cannot follow).
pub fn changed_names(tokens: &TokenStream) -> Option<Vec<String>> {
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    if may_write(&strip_method_calls(&tts)) {
        return None;
    }
    method_roots(&tts)
}

/// The roots of the receivers of the method calls not known to be read-only in `tts`, nested
/// groups included (see `changed_names`).
fn method_roots(tts: &[TokenTree]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => {
                names.extend(method_roots(&g.stream().into_iter().collect::<Vec<_>>())?);
            }
            TokenTree::Punct(_) if writing_method_call(tts, i) => {
                names.extend(receiver_root(&tts[..i])?);
            }
            _ => {}
        }
    }
    Some(names)
}

/// Whether `tts[i]` is the `.` of a method call (`.name(..)`) not known to be read-only, which
/// may change its receiver (a `&mut self` method).
fn writing_method_call(tts: &[TokenTree], i: usize) -> bool {
    matches!(&tts[i], TokenTree::Punct(p) if p.as_char() == '.')
        && matches!(
            (tts.get(i + 1), tts.get(i + 2)),
            (Some(TokenTree::Ident(m)), Some(TokenTree::Group(g)))
                if g.delimiter() == proc_macro2::Delimiter::Parenthesis
                    && !is_read_only_method(&m.to_string())
        )
}

/// The tokens with each method call's `.name(..)` removed, its receiver kept.
fn strip_method_calls(tts: &[TokenTree]) -> TokenStream {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tts.len() {
        match (&tts[i], tts.get(i + 1), tts.get(i + 2)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(_)), Some(TokenTree::Group(g)))
                if p.as_char() == '.' && g.delimiter() == proc_macro2::Delimiter::Parenthesis =>
            {
                // The arguments stay, as reads (and writes) of their own, apart from the
                // receiver (`s.a.m(x)` is `s.a, (x)`, not a call `.a(x)`).
                out.push(TokenTree::Punct(proc_macro2::Punct::new(
                    ',',
                    proc_macro2::Spacing::Alone,
                )));
                out.push(TokenTree::Group(proc_macro2::Group::new(
                    proc_macro2::Delimiter::Parenthesis,
                    strip_method_calls(&g.stream().into_iter().collect::<Vec<_>>()),
                )));
                i += 3;
            }
            (TokenTree::Group(g), _, _) => {
                let mut inner = proc_macro2::Group::new(
                    g.delimiter(),
                    strip_method_calls(&g.stream().into_iter().collect::<Vec<_>>()),
                );
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
                i += 1;
            }
            (t, _, _) => {
                out.push(t.clone());
                i += 1;
            }
        }
    }
    out.into_iter().collect()
}

/// The variable at the root of the receiver that ends `before` (the tokens before a method
/// call's `.`): `Some([])` for a temporary, `None` where it cannot tell.
fn receiver_root(before: &[TokenTree]) -> Option<Vec<String>> {
    let dot = |j: usize| matches!(before.get(j), Some(TokenTree::Punct(p)) if p.as_char() == '.');
    let mut j = before.len().checked_sub(1)?;
    loop {
        match &before[j] {
            // A field (`a.b`, `p.0`) of what precedes it.
            TokenTree::Ident(_) | TokenTree::Literal(_) if j >= 2 && dot(j - 1) => j -= 2,
            TokenTree::Ident(id) => {
                let name = id.to_string();
                return Some(if name == "Self" {
                    Vec::new()
                } else {
                    vec![name]
                });
            }
            // A literal: a temporary.
            TokenTree::Literal(_) => return Some(Vec::new()),
            TokenTree::Group(g) => match g.delimiter() {
                // An element of what precedes it, or an array literal (a temporary).
                proc_macro2::Delimiter::Bracket if j >= 1 => j -= 1,
                proc_macro2::Delimiter::Bracket => return Some(Vec::new()),
                // The result of a call (a temporary; a call that lends a variable `&mut`
                // is a write of its own), or a parenthesised expression: any name in it.
                proc_macro2::Delimiter::Parenthesis => {
                    if j >= 1 && matches!(&before[j - 1], TokenTree::Ident(_)) {
                        return Some(Vec::new());
                    }
                    let mut names = Vec::new();
                    collect_idents(g.stream(), &mut names);
                    return Some(names);
                }
                _ => return None,
            },
            TokenTree::Punct(_) => return None,
        }
    }
}

/// Every identifier in `tokens`, nested groups included.
fn collect_idents(tokens: TokenStream, names: &mut Vec<String>) {
    for t in tokens {
        match t {
            TokenTree::Ident(id) => names.push(id.to_string()),
            TokenTree::Group(g) => collect_idents(g.stream(), names),
            _ => {}
        }
    }
}

/// Whether the token before a `*` ends an operand, which makes the `*` a multiplication rather
/// than a dereference.
pub(super) fn is_operand(before: Option<&TokenTree>) -> bool {
    match before {
        Some(TokenTree::Ident(k)) => !matches!(
            k.to_string().as_str(),
            "return" | "in" | "if" | "match" | "while" | "else" | "break"
        ),
        Some(TokenTree::Literal(_) | TokenTree::Group(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::changed_names;
    use quote::quote;

    fn names(tokens: proc_macro2::TokenStream) -> Option<Vec<String>> {
        changed_names(&tokens)
    }

    #[test]
    fn a_method_call_changes_at_most_its_receivers_root() {
        let s = || Some(vec!["s".to_owned()]);
        assert_eq!(names(quote!(x < s.m(x))), s());
        assert_eq!(names(quote!(x < s.inner.w.m(x, y))), s());
        assert_eq!(names(quote!(s.v[i + 1].m() > 0.0)), s());
        assert_eq!(names(quote!(p.0.m())), Some(vec!["p".to_owned()]));
        assert_eq!(names(quote!((*s).m())), s());
        assert_eq!(names(quote!(x > (s).m())), s());
        assert_eq!(
            names(quote!(x < s.m(t.n(x)))),
            Some(vec!["s".to_owned(), "t".to_owned()])
        );
    }

    #[test]
    fn a_temporary_receiver_changes_nothing() {
        assert_eq!(names(quote!(f(x).m() < 2.0)), Some(Vec::new()));
        assert_eq!(names(quote!(2.0.m())), Some(Vec::new()));
        assert_eq!(names(quote!([a, b].m())), Some(Vec::new()));
        assert_eq!(names(quote!(x.sin() < v.len() as f64)), Some(Vec::new()));
        assert_eq!(names(quote!(f(vec![1.0], x) > 0.0)), Some(Vec::new()));
    }

    #[test]
    fn other_writes_may_change_anything() {
        assert_eq!(
            names(quote!({
                x = s.m();
                x
            })),
            None
        );
        assert_eq!(names(quote!(s.m(&mut y))), None);
        assert_eq!(names(quote!(bump!(x) > 0.0)), None);
        assert_eq!(names(quote!(x < a?.m())), None);
    }
}
