//! What the planning and the two sweeps share: the constructs an exit leaves, how a loop records
//! its iterations, comparing values and rewriting token streams.

use super::*;

/// A construct that an exit in the forward sweep leaves.
#[derive(Clone)]
pub(super) enum Enclosing {
    /// An `if`, with its decision.
    If(Ident),
    /// A loop that an exit can leave, with its trip count, and its marker in `LoopMode::Marker`.
    Loop { trips: Ident, marker: Option<Ident> },
}

/// What the reverse sweep of a loop needs to know of how its iterations ended.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LoopMode {
    /// No exit leaves the body: every iteration runs to its end; the trip count is enough.
    Plain,
    /// A `break` or `return` can end the last iteration early: one marker for the loop, the id
    /// of that exit or 0.
    Marker,
    /// A `continue` can end any iteration early: one marker per iteration.
    PerIteration,
}

pub(super) fn loop_mode(body: &Block) -> LoopMode {
    fn visit(b: &Block, nested: bool, mode: &mut LoopMode) {
        for inst in &b.insts {
            match inst {
                Inst::Continue if !nested => *mode = LoopMode::PerIteration,
                Inst::Break if !nested => *mode = (*mode).max(LoopMode::Marker),
                Inst::Return { .. } => *mode = (*mode).max(LoopMode::Marker),
                Inst::Block { block, .. } => visit(block, nested, mode),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    visit(then_block, nested, mode);
                    visit(else_block, nested, mode);
                }
                Inst::Loop { body, .. } => visit(body, true, mode),
                _ => {}
            }
        }
    }
    let mut mode = LoopMode::Plain;
    visit(body, false, &mut mode);
    mode
}

/// Values written in place rather than through a temporary, per scope.
#[derive(Clone, Default)]
pub(super) struct Aliases(pub(super) HashMap<u32, TokenStream>);

/// Whether `inst` only computes a value: it writes no variable and cannot leave its block.
pub(super) fn is_pure(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Read { .. }
            | Inst::Const { .. }
            | Inst::Index { .. }
            | Inst::Arith { .. }
            | Inst::Neg { .. }
            | Inst::Inactive { .. }
            | Inst::Method { .. }
            | Inst::Cast { .. }
    )
}

/// Whether `a` and `b` are provably the same value: two reads of one variable, or of one element
/// at an index the reverse sweep computes again, with only pure instructions between them.
pub(super) fn same_value(insts: &[&Inst], defs: &HashMap<u32, Src>, a: Value, b: Value) -> bool {
    if a == b {
        return true;
    }
    let def_at = |v: Value| {
        insts.iter().position(|inst| match inst {
            Inst::Read { out, .. } | Inst::Index { out, .. } => *out == v,
            _ => false,
        })
    };
    let (Some(pa), Some(pb)) = (def_at(a), def_at(b)) else {
        return false;
    };
    let same_source = match (insts[pa], insts[pb]) {
        (Inst::Read { var: va, .. }, Inst::Read { var: vb, .. }) => va == vb,
        (
            Inst::Index {
                var: va, index: ia, ..
            },
            Inst::Index {
                var: vb, index: ib, ..
            },
        ) => {
            va == vb
                && match (raw(defs, *ia), raw(defs, *ib)) {
                    (Some(x), Some(y)) => x.to_string() == y.to_string(),
                    _ => false,
                }
        }
        _ => false,
    };
    let (lo, hi) = (pa.min(pb), pa.max(pb));
    same_source && insts[lo + 1..hi].iter().all(|inst| is_pure(inst))
}

/// Whether `tokens` are `ident.len()`.
pub(super) fn is_len_of(tokens: &TokenStream, ident: &Ident) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    matches!(
        tts.as_slice(),
        [TokenTree::Ident(x), TokenTree::Punct(dot), TokenTree::Ident(len), TokenTree::Group(args)]
            if x == ident
                && dot.as_char() == '.'
                && len == "len"
                && args.delimiter() == Delimiter::Parenthesis
                && args.stream().is_empty()
    )
}

/// The most tokens of an expression the reverse sweep computes again instead of keeping its
/// value: a few operations, so that recomputing costs less than a push and a pop.
pub(super) const INLINE_TOKENS: usize = 40;

/// The number of tokens of `tokens`, counting those inside groups.
pub(super) fn token_count(tokens: &TokenStream) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => 1 + token_count(&g.stream()),
            _ => 1,
        })
        .sum()
}

/// The tokens of a value the reverse sweep can compute again.
pub(super) fn raw(defs: &HashMap<u32, Src>, v: Value) -> Option<TokenStream> {
    match defs.get(&v.0)? {
        Src::Inline(t) | Src::Literal(t) => Some(t.clone()),
        Src::Tape | Src::Same(_) | Src::Elem { .. } | Src::Unused => None,
    }
}

/// The record's layout for each element on the way to a place (`layers[l]` of
/// `s.layers[l].w[j]`): its index, kept unless the reverse sweep can compute it again, and its
/// sequence's length.
pub(super) fn elems_layout(defs: &HashMap<u32, Src>, elems: &[crate::ir::PathElem]) -> Vec<Src> {
    elems
        .iter()
        .flat_map(|e| [index_src(defs, e.index), Src::Tape])
        .collect()
}

/// Where the reverse sweep finds an index: written again, or on the tape.
pub(super) fn index_src(defs: &HashMap<u32, Src>, v: Value) -> Src {
    raw(defs, v).map_or(Src::Tape, Src::Inline)
}

/// The name the reverse sweep binds a replayed loop's variable to.
pub(super) fn replay_ident(var: Var) -> Ident {
    hyg(&format!("__ri{}", var.0))
}

/// Whether `ty` is a primitive number type, which is `Copy`.
pub(super) fn is_number_type(ty: &syn::Type) -> bool {
    const NUMBERS: [&str; 14] = [
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize",
    ];
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| NUMBERS.iter().any(|n| i == n)),
        syn::Type::Paren(p) => is_number_type(&p.elem),
        syn::Type::Group(g) => is_number_type(&g.elem),
        _ => false,
    }
}

/// `tokens` with each identifier replaced by its tokens in `substs`, if every identifier is one
/// of them, or `.len()`: no call, path, cast or macro that could compute something else the
/// second time.
pub(super) fn substitute(
    tokens: &TokenStream,
    substs: &[(String, TokenStream)],
) -> Option<TokenStream> {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = TokenStream::new();
    for (k, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Ident(i) => {
                // A method call `receiver.len()`: the `.` follows a name (substituted below) or
                // a group, not another `.` (`0..len()` calls a function named `len`).
                let is_len = i == "len"
                    && k > 1
                    && matches!(&tts[k - 1], TokenTree::Punct(p) if p.as_char() == '.')
                    && matches!(&tts[k - 2], TokenTree::Ident(_) | TokenTree::Group(_))
                    && matches!(tts.get(k + 1), Some(TokenTree::Group(g))
                        if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
                // A field `receiver.name`: after one `.` (not the range's `..`) that follows a
                // name or a group, and not called (a call is refused below).
                let is_field = k > 1
                    && matches!(&tts[k - 1], TokenTree::Punct(p) if p.as_char() == '.')
                    && matches!(&tts[k - 2], TokenTree::Ident(_) | TokenTree::Group(_));
                if is_len || is_field {
                    out.extend([tt.clone()]);
                } else {
                    let name = i.unraw().to_string();
                    let (_, to) = substs.iter().find(|(n, _)| *n == name)?;
                    out.extend(to.clone());
                }
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                // Parentheses after a name only as `.len()`.
                if k > 0
                    && matches!(&tts[k - 1], TokenTree::Ident(i)
                        if i != "len" || !g.stream().is_empty())
                {
                    return None;
                }
                let mut inner = Group::new(g.delimiter(), substitute(&g.stream(), substs)?);
                inner.set_span(g.span());
                out.extend([TokenTree::Group(inner)]);
            }
            TokenTree::Group(_) => return None,
            // `|` too: a closure's parameters are names that must not be substituted.
            TokenTree::Punct(p) if matches!(p.as_char(), ':' | '!' | '#' | '$' | '\'' | '|') => {
                return None;
            }
            _ => out.extend([tt.clone()]),
        }
    }
    Some(out)
}

/// `tokens` with each identifier named in `renames` replaced (not a field, method or path
/// segment after `.` or `::`).
pub(super) fn rename(tokens: &TokenStream, renames: &[(String, Ident)]) -> TokenStream {
    let tts: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
    let mut out = Vec::with_capacity(tts.len());
    for (k, tt) in tts.iter().enumerate() {
        let after_dot = k > 0
            && matches!(&tts[k - 1], proc_macro2::TokenTree::Punct(p) if matches!(p.as_char(), '.' | ':'));
        out.push(match tt {
            proc_macro2::TokenTree::Ident(i) if !after_dot => {
                match renames.iter().find(|(n, _)| i == n) {
                    Some((_, to)) => proc_macro2::TokenTree::Ident(to.clone()),
                    None => tt.clone(),
                }
            }
            proc_macro2::TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), rename(&g.stream(), renames));
                inner.set_span(g.span());
                proc_macro2::TokenTree::Group(inner)
            }
            other => other.clone(),
        });
    }
    out.into_iter().collect()
}

/// Whether `tokens` are one literal token.
pub(super) fn is_number(tokens: &TokenStream) -> bool {
    let mut iter = tokens.clone().into_iter();
    matches!(
        (iter.next(), iter.next()),
        (Some(proc_macro2::TokenTree::Literal(_)), None)
    )
}

/// The value of a float literal that is finite, and nonzero if `nonzero`, both as an `f64` and
/// as an `f32` unless its suffix says `f64` (an unsuffixed literal may be either).
pub(super) fn finite_float(tokens: &TokenStream, nonzero: bool) -> Option<f64> {
    if !is_number(tokens) {
        return None;
    }
    let lit: syn::LitFloat = syn::parse2(tokens.clone()).ok()?;
    let digits = lit.base10_digits();
    let v: f64 = digits.parse().ok()?;
    let ok = |x: f64| x.is_finite() && (!nonzero || x != 0.0);
    let narrow_ok = lit.suffix() == "f64" || digits.parse::<f32>().is_ok_and(|x| ok(f64::from(x)));
    (ok(v) && narrow_ok).then_some(v)
}

/// Whether `tokens` name, anywhere, an identifier for which `pred` holds.
pub(super) fn any_ident(tokens: &TokenStream, pred: &dyn Fn(&Ident) -> bool) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => pred(&i),
        proc_macro2::TokenTree::Group(g) => any_ident(&g.stream(), pred),
        _ => false,
    })
}

/// The literal offset of an index written `ri`, `(ri + k)` or `(ri - k)` for an integer literal
/// `k`: an index that moves with the loop variable `ri`.
pub(super) fn offset_of(tokens: &TokenStream, ri: &Ident) -> Option<i64> {
    use proc_macro2::TokenTree as T;
    let is_ri = |t: &T| matches!(t, T::Ident(i) if i == ri);
    let trees: Vec<T> = tokens.clone().into_iter().collect();
    match trees.as_slice() {
        [T::Group(g)] if g.delimiter() == proc_macro2::Delimiter::Parenthesis => {
            let inner: Vec<T> = g.stream().into_iter().collect();
            match inner.as_slice() {
                [a, T::Punct(p), k @ T::Literal(_)] if is_ri(a) => {
                    let k: i64 = syn::parse2::<syn::LitInt>(k.clone().into())
                        .ok()?
                        .base10_parse()
                        .ok()?;
                    match p.as_char() {
                        '+' => Some(k),
                        '-' => Some(-k),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        [t] if is_ri(t) => Some(0),
        _ => None,
    }
}
