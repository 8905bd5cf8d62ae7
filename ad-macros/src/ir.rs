//! The typed IR that `#[differentiable]` lowers a function into.
//!
//! Values are `u32` handles into `Func::values`, variables `u32` handles into `Func::vars`.
//! Instructions sit in blocks in evaluation order; `if` and block expressions nest blocks, so
//! a block's instruction list read backwards is the order a reverse sweep visits them in.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, Type};

/// A temporary: the result of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value(pub u32);

/// A variable of the user's program (a parameter or a `let` binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Var(pub u32);

pub struct VarData {
    /// The user's name, with the user's span.
    pub ident: Ident,
    pub ty: Option<Type>,
    pub mutable: bool,
    /// Its type says it has no derivative (integers, `bool`, ...).
    pub known_inactive: bool,
}

pub struct ValueData {
    /// A read of a variable that is assigned before the read is used: copy it into a temporary.
    pub needs_copy: bool,
    /// The base of a struct's field read (`s` or `s.at` of `s.at.x`): a place, never copied
    /// whole; where the read at the root of the chain needs a copy, the field read at its end
    /// copies the field.
    pub place: bool,
    /// For a struct's field read, the read of the variable at the root of its chain.
    pub root: Option<Value>,
    /// A read the user clones (`s.clone()`, `s.w.clone()`): bound to a clone of the value.
    pub clones: bool,
}

impl ValueData {
    pub fn new() -> Self {
        ValueData {
            needs_copy: false,
            place: false,
            root: None,
            clones: false,
        }
    }
}

impl Default for ValueData {
    fn default() -> Self {
        Self::new()
    }
}

impl Func {
    /// Whether a named field read binds its value (its chain's root read needed a copy and
    /// it is the end of the chain) rather than standing for the place.
    pub fn field_copies(&self, v: Value) -> bool {
        let data = &self.values[v.0 as usize];
        !data.place
            && data
                .root
                .is_some_and(|r| self.values[r.0 as usize].needs_copy)
    }

    /// Whether the `Field` that gives `out` reads a struct's field as a place (a named field,
    /// or a tuple struct's: `p.0` where the body names `p`'s struct type), read where it is
    /// used with the struct's type as its record; a plain tuple's field is a value.
    pub fn place_field(&self, out: Value, index: &syn::Member) -> bool {
        matches!(index, syn::Member::Named(_)) || self.values[out.0 as usize].root.is_some()
    }

    /// The declared type of the struct whose field a `Field` reads as a place (`out`, `index`,
    /// `of`), when it has one and it is not a reference: the reverse sweep names it, and keeps
    /// nothing.
    pub fn declared_struct(
        &self,
        out: Value,
        index: &syn::Member,
        of: Option<Var>,
    ) -> Option<&Type> {
        if !self.place_field(out, index) {
            return None;
        }
        self.vars[of?.0 as usize]
            .ty
            .as_ref()
            .filter(|t| !matches!(t, Type::Reference(_)))
    }

    /// Whether `var` is a `&Model` parameter the function never rebinds: the derivatives keep
    /// the reference, and read the struct through it (`(*s)`), with no copy.
    pub fn borrowed(&self, var: Var) -> bool {
        !self.vars[var.0 as usize].mutable
            && self
                .params
                .iter()
                .any(|p| p.var == var && p.by_ref && !matches!(p.ty, Type::Array(_)))
    }

    /// The tokens that read variable `var` by `ident` (its name where it is read): the name, or
    /// `(*name)` for a borrowed struct.
    pub fn read_tokens(&self, var: Var, ident: &Ident) -> TokenStream {
        if self.borrowed(var) {
            quote::quote!((*#ident))
        } else {
            quote::quote!(#ident)
        }
    }

    /// Whether a read is cloned where it is bound (`s.clone()`).
    pub fn clones(&self, v: Value) -> bool {
        self.values[v.0 as usize].clones
    }

    /// Whether a read is the root of a field chain, which is never copied whole.
    pub fn copies(&self, v: Value) -> bool {
        let data = &self.values[v.0 as usize];
        data.needs_copy && !data.place
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

pub enum Inst {
    /// A literal or a constant path: no derivative.
    Const {
        out: Value,
        tokens: TokenStream,
    },
    /// An expression kept verbatim for its primal value (comparisons, `&&`, conditions,
    /// integer-only code); its result has no derivative. If `only_inactive`, it must not read a
    /// variable that carries a derivative (checked after activity analysis).
    Opaque {
        out: Value,
        tokens: TokenStream,
        reads: Vec<Var>,
        /// The tokens may change a variable they read (an assignment, `&mut`, a macro, a method
        /// that is not known to be read-only): an error if such a variable carries a derivative.
        may_write: bool,
        only_inactive: Option<Unsupported>,
    },
    /// A read of a variable; `ident` is the name as written at the read, whose hygiene decides
    /// which binding it means.
    Read {
        out: Value,
        var: Var,
        ident: Ident,
    },
    Neg {
        out: Value,
        a: Value,
    },
    Arith {
        out: Value,
        op: Arith,
        a: Value,
        b: Value,
        op_tokens: TokenStream,
    },
    /// An operator whose result has no derivative: comparisons, bit operations, shifts.
    Inactive {
        out: Value,
        a: Value,
        b: Value,
        op_tokens: TokenStream,
    },
    /// An inherent float method: a primitive differentiated inline.
    Method {
        out: Value,
        prim: &'static crate::prims::Prim,
        method: Ident,
        /// `Some(f64)` when written `f64::sin(x)`: emitted the same way.
        ufcs: Option<Ident>,
        recv: Value,
        args: Vec<Value>,
    },
    /// A call of another function, resolved through the registry.
    Call {
        out: Value,
        callee: TokenStream,
        args: Vec<Value>,
        span: Span,
        /// The span of the parentheses, so that a call without derivative can be written again
        /// exactly as the user wrote it (a mistake in it is then reported once).
        parens: proc_macro2::extra::DelimSpan,
        /// Per argument: how it is lent, if it is a slice made at the call (the argument's value
        /// is then a read of the whole variable).
        lent: Vec<Lent>,
        /// Per argument: a function item passed by name (`rk4(field, ..)`). The derivatives then
        /// call the callee's own derivatives, from the module of its name, with the function in
        /// place (`expand::Partial`).
        functions: Vec<bool>,
    },
    /// `a as ty`, or with `via` a conversion written as a call: `T::from(a).unwrap()`.
    Cast {
        out: Value,
        a: Value,
        ty: Type,
        via: Option<Conversion>,
    },
    /// A struct literal `Path { x: a, y: b, ..rest }` of a type with
    /// `#[derive(ad::Differentiable)]`: its tangent is the same fields of tangents (made from a
    /// zero of the value, or from the tangent of `rest`).
    Struct {
        out: Value,
        path: TokenStream,
        fields: Vec<(syn::Member, Value)>,
        rest: Option<Value>,
    },
    /// `a` with the field at `path` (`x`, `at.x`) replaced by `value`: `s.at.x = v;` is the
    /// assignment of that to `s`. Its tangent is the same replacement in the tangent.
    SetField {
        out: Value,
        a: Value,
        path: Vec<syn::Member>,
        value: Value,
    },
    /// `Some(a)`: the `Option` carries `a`'s derivative.
    Wrap {
        out: Value,
        a: Value,
    },
    /// The value inside `a`, a `Some`: where a pattern `Some(..)` matched it, or with `unwrap`
    /// the method call as written that takes it out (`.unwrap()`, `.expect("..")`).
    Payload {
        out: Value,
        a: Value,
        unwrap: Option<TokenStream>,
    },
    Tuple {
        out: Value,
        elems: Vec<Value>,
    },
    /// A tuple's or a struct's field `a.0`, `a.x`, or with `element` an array's element at a
    /// literal index `a[0]` (from an array pattern, `let [x, y] = p;`).
    Field {
        out: Value,
        a: Value,
        index: syn::Member,
        element: bool,
        /// The variable whose field this is, if `a` reads one: the reverse sweep keeps its type
        /// (declared, or taken where the variable is bound), for which it needs no borrow of a
        /// struct that may have been moved from since.
        of: Option<Var>,
    },
    Let {
        var: Var,
        init: Option<Value>,
    },
    Assign {
        var: Var,
        ident: Ident,
        value: Value,
    },
    /// A block expression with its own scope.
    Block {
        out: Option<Value>,
        block: Block,
    },
    If {
        out: Option<Value>,
        cond: Value,
        then_block: Block,
        else_block: Block,
    },
    Return {
        value: Value,
    },
    /// A loop over integers (`for i in 0..n`) or while a condition holds. Its body has no value.
    Loop {
        head: LoopHead,
        body: Block,
    },
    /// `base[index]`: an element of a variable that is an array, a `Vec` or a slice.
    Index {
        out: Value,
        var: Var,
        ident: Ident,
        index: Value,
    },
    /// `s.w[index]`: an element of a struct's field, read in place. `a` is the read of the
    /// field (a place), `root` the read of the variable at its chain's root, `path` the fields
    /// from there. The reverse sweep adds the element's adjoint into the variable's adjoint at
    /// the field and index (`__private::acc_field_elem`), with no copy of the field.
    FieldIndex {
        out: Value,
        a: Value,
        index: Value,
        root: Value,
        path: Vec<syn::Member>,
        /// The elements taken on the way (`s.layers[i].w[j]`: `layers[i]` after the first
        /// member of `path`), each with its index and the sequence it is taken from.
        elems: Vec<PathElem>,
    },
    /// `base[index] = value`, or with a `path` an element of a field of a struct variable
    /// written in place (`s.w[index] = value`, `s.at.w[index]`). `id` names the instruction's
    /// record.
    IndexAssign {
        id: Value,
        var: Var,
        ident: Ident,
        path: Vec<syn::Member>,
        /// The elements taken on the way along `path` (`n.layers[l].w[j] = ..`).
        elems: Vec<PathElem>,
        index: Value,
        /// Fields of the element written rather than the element (`n.layers[l].b = ..`).
        last: Vec<syn::Member>,
        value: Value,
    },
    /// `[a, b, c]`, or `vec![a, b, c]` when `vec`.
    Array {
        out: Value,
        elems: Vec<Value>,
        vec: bool,
    },
    /// `[elem; len]`, or `vec![elem; len]`.
    Repeat {
        out: Value,
        elem: Value,
        len: Len,
    },
    /// `base.iter().sum()`: `tokens` is the user's expression, which computes the value.
    Sum {
        out: Value,
        var: Var,
        ident: Ident,
        tokens: TokenStream,
        /// `base.len()`, for the reverse sweep.
        len: Value,
    },
    /// `break` out of the innermost loop. A `loop`'s value is assigned to the loop's hidden
    /// variable just before.
    Break,
    /// `continue` with the innermost loop's next iteration.
    Continue,
    /// A statement kept as it is: `assert!`, nested items.
    Verbatim {
        tokens: TokenStream,
        reads: Vec<Var>,
        may_write: bool,
        /// An item (`fn`, `const`, `type`, ...) rather than a statement.
        item: bool,
    },
}

/// An element taken on the way along a field path (`layers[i]` of `s.layers[i].w[j]`):
/// element `index` of the sequence `seq`, after the first `after` members of the path.
#[derive(Clone)]
pub struct PathElem {
    pub after: usize,
    pub index: Value,
    pub seq: Value,
}

/// The place `base.a.b[i].c` of a field path with the elements taken on the way, each
/// element `k` taken from the place before it by `element` (`#place[#i]` in the sweeps, a
/// shaping access in an adjoint).
pub fn place_tokens(
    base: TokenStream,
    path: &[syn::Member],
    elems: &[PathElem],
    element: &mut dyn FnMut(TokenStream, usize, &PathElem) -> TokenStream,
) -> TokenStream {
    let mut place = base;
    for (m, member) in path.iter().enumerate() {
        for (k, e) in elems.iter().enumerate().filter(|(_, e)| e.after == m) {
            place = element(place, k, e);
        }
        place = quote::quote!(#place.#member);
    }
    place
}

/// How a call's argument lends a variable as a slice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lent {
    /// Passed as it is: a value, or a slice parameter whole.
    No,
    /// A local `Vec` or array whole (`&v`, `&v[..]`): the derivatives lend it (and its tangent)
    /// as `&v[..]`, and give its adjoint from a buffer of its own shape.
    Whole,
    /// A range of a local `Vec` or array, or of a shared slice parameter (`&v[a..b]`): the
    /// bounds are values without a derivative, kept for the reverse sweep.
    Part {
        start: Option<Value>,
        end: Option<Value>,
        inclusive: bool,
    },
    /// A struct passed by reference (`f(&s)` of a struct local, `f(p)` of a `&Model` parameter,
    /// which the derivative holds as a copy): the derivatives pass `&value`, the tangent and the
    /// adjoint by value (the kind `ad::Ref`), and the record keeps a copy of the struct.
    Ref,
    /// The receiver of a method call (`s.length()`), passed as the method takes it, by reference
    /// or by value (`ad_runtime::__private::Receiver`); otherwise as `Ref`.
    Receiver,
    /// A local `Vec` or array lent to a function that writes it: `&mut v` (`bare`), `&mut v[..]`
    /// or `&mut v[a..b]`. The derivatives lend it and its tangent as `&mut v[a..b]` and keep a
    /// copy of the part as it was before the call; the reverse sweep lends that copy again, with
    /// the part of the variable's own adjoint, which the callee's reverse sweep turns from the
    /// adjoint of the values after the call into that of the values before.
    Mut {
        var: Var,
        start: Option<Value>,
        end: Option<Value>,
        inclusive: bool,
        bare: bool,
    },
}

impl Lent {
    /// The bounds that a `Part` or a `Mut` has.
    pub fn bounds(self) -> Vec<Value> {
        match self {
            Lent::Part { start, end, .. } | Lent::Mut { start, end, .. } => {
                start.into_iter().chain(end).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The variable lent mutably, if the argument is `&mut v[..]` of a local.
    pub fn mutable(self) -> Option<Var> {
        match self {
            Lent::Mut { var, .. } => Some(var),
            _ => None,
        }
    }

    /// Whether the argument is a struct passed by reference (`Ref` or `Receiver`).
    pub fn by_ref(self) -> bool {
        matches!(self, Lent::Ref | Lent::Receiver)
    }

    /// Whether the argument lends a variable as a shared slice (`&v`, `&v[a..b]`).
    pub fn shared(self) -> bool {
        matches!(self, Lent::Whole | Lent::Part { .. })
    }

    /// `[a..b]` with the bounds written as `bound` gives them (in the order of `bounds`), or
    /// `[..]` for `Whole`, nothing for `No`.
    pub fn index(self, bound: &mut dyn FnMut(Value) -> TokenStream) -> TokenStream {
        match self {
            Lent::No | Lent::Ref | Lent::Receiver => TokenStream::new(),
            Lent::Whole => quote::quote!([..]),
            Lent::Part {
                start,
                end,
                inclusive,
            }
            | Lent::Mut {
                start,
                end,
                inclusive,
                ..
            } => {
                let s = start.map(&mut *bound);
                let e = end.map(&mut *bound);
                if inclusive {
                    quote::quote!([#s..=#e])
                } else {
                    quote::quote!([#s..#e])
                }
            }
        }
    }
}

/// The length of a `[elem; len]` (a constant expression, kept as tokens) or of a
/// `vec![elem; len]` (a value computed once).
pub enum Len {
    Const(TokenStream),
    Vec(Value),
}

/// `[a, b]` or `vec![a, b]` of the given elements, for the primal and its tangent alike.
pub fn array_tokens(elems: &[TokenStream], vec: bool) -> TokenStream {
    if vec {
        quote::quote!(::std::vec![#(#elems),*])
    } else {
        quote::quote!([#(#elems),*])
    }
}

/// `a` with the field at `path` set to `value`, as an expression (`{ let mut t = a; t.x = v; t }`):
/// a `SetField`'s value, and its tangent over tangents.
pub fn set_field_tokens(a: &TokenStream, path: &[syn::Member], value: &TokenStream) -> TokenStream {
    let t = Ident::new("__t", proc_macro2::Span::mixed_site());
    quote::quote!({ let mut #t = #a; #t #(.#path)* = #value; #t })
}

/// A struct literal `path { x: a, y: b, ..rest }` of the fields' values as `values` gives them.
pub fn struct_tokens(
    path: &TokenStream,
    fields: &[(syn::Member, Value)],
    rest: Option<Value>,
    values: &mut dyn FnMut(Value) -> TokenStream,
) -> TokenStream {
    let members = fields.iter().map(|(m, _)| m);
    let parts: Vec<TokenStream> = fields.iter().map(|(_, v)| values(*v)).collect();
    let rest = rest.map(|r| {
        let p = values(r);
        quote::quote!(..#p)
    });
    quote::quote!(#path { #(#members: #parts,)* #rest })
}

/// `[elem; n]` or `vec![elem; n]`, `n` written as `len` gives it (`n` the tokens of a `Vec`'s
/// length value). A `Vec` is allocated by `__private::vec_repeat`, in line, so that the
/// optimiser knows its buffer overlaps no other.
pub fn repeat_tokens(
    krate: &TokenStream,
    elem: &TokenStream,
    len: &Len,
    n: &TokenStream,
) -> TokenStream {
    match len {
        Len::Const(k) => quote::quote!([#elem; #k]),
        Len::Vec(_) => quote::quote!(#krate::__private::vec_repeat(#elem, #n)),
    }
}

pub enum LoopHead {
    /// `for pat in iter`: `iter` is evaluated once, before the loop, and yields integers.
    For {
        pat: TokenStream,
        /// The loop variable, if it has a name.
        var: Option<Var>,
        iter: Value,
        /// For a range `start..end` (or `..=`) counting up by one: `start`, and the variables
        /// it reads.
        start: Option<(TokenStream, Vec<Var>)>,
    },
    /// `while cond`: `cond_block` computes `cond` before each iteration.
    While { cond_block: Block, cond: Value },
    /// `loop`: runs until a `break` or a `return`.
    Infinite,
}

/// A construct accepted only on values without a derivative: what it is and what to write instead.
#[derive(Clone, Copy)]
pub struct Unsupported {
    pub what: &'static str,
    pub fix: &'static str,
}

const MOVE: &str = "move this computation into a function of its own and call it (give that function #[differentiable] or a #[custom_rule])";

impl Unsupported {
    pub const fn new(what: &'static str) -> Self {
        Unsupported { what, fix: MOVE }
    }

    pub const fn with_fix(what: &'static str, fix: &'static str) -> Self {
        Unsupported { what, fix }
    }
}

pub struct Block {
    pub insts: Vec<Inst>,
    /// The value of the block's tail expression; `None` if it has none or diverges.
    pub result: Option<Value>,
}

impl Inst {
    /// The variables that code kept as written may change: those it reads, if it may write.
    pub fn may_write_reads(&self) -> &[Var] {
        match self {
            Inst::Opaque {
                reads,
                may_write: true,
                ..
            }
            | Inst::Verbatim {
                reads,
                may_write: true,
                ..
            } => reads,
            _ => &[],
        }
    }
}

impl Inst {
    /// The values the instruction itself uses: its operands, the conditions and ranges of its
    /// head, and the results of the blocks it holds (not the instructions inside them).
    pub fn operands(&self) -> Vec<Value> {
        match self {
            Inst::Const { .. }
            | Inst::Opaque { .. }
            | Inst::Read { .. }
            | Inst::Let { init: None, .. }
            | Inst::Break
            | Inst::Continue
            | Inst::Verbatim { .. } => Vec::new(),
            Inst::Neg { a, .. }
            | Inst::Cast { a, .. }
            | Inst::Field { a, .. }
            | Inst::Wrap { a, .. }
            | Inst::Payload { a, .. } => vec![*a],
            Inst::Arith { a, b, .. } | Inst::Inactive { a, b, .. } => vec![*a, *b],
            Inst::Method { recv, args, .. } => {
                std::iter::once(*recv).chain(args.iter().copied()).collect()
            }
            Inst::Call { args, lent, .. } => args
                .iter()
                .copied()
                .chain(lent.iter().flat_map(|l| l.bounds()))
                .collect(),
            Inst::Tuple { elems, .. } | Inst::Array { elems, .. } => elems.clone(),
            Inst::SetField { a, value, .. } => vec![*a, *value],
            Inst::Struct { fields, rest, .. } => {
                fields.iter().map(|(_, v)| *v).chain(*rest).collect()
            }
            Inst::Let { init: Some(v), .. }
            | Inst::Assign { value: v, .. }
            | Inst::Return { value: v } => {
                vec![*v]
            }
            Inst::Block { block, .. } => block.result.into_iter().collect(),
            Inst::If {
                cond,
                then_block,
                else_block,
                ..
            } => std::iter::once(*cond)
                .chain(then_block.result)
                .chain(else_block.result)
                .collect(),
            Inst::Loop { head, .. } => match head {
                LoopHead::For { iter, .. } => vec![*iter],
                LoopHead::While { cond, .. } => vec![*cond],
                LoopHead::Infinite => Vec::new(),
            },
            Inst::Index { index, .. } => vec![*index],
            Inst::FieldIndex {
                a, index, elems, ..
            } => [*a, *index]
                .into_iter()
                .chain(elems.iter().map(|e| e.index))
                .collect(),
            Inst::IndexAssign {
                index,
                value,
                elems,
                ..
            } => [*index, *value]
                .into_iter()
                .chain(elems.iter().map(|e| e.index))
                .collect(),
            Inst::Repeat { elem, len, .. } => match len {
                Len::Vec(n) => vec![*elem, *n],
                Len::Const(_) => vec![*elem],
            },
            Inst::Sum { len, .. } => vec![*len],
        }
    }

    /// The blocks the instruction holds, in evaluation order (a `while` loop's condition before
    /// its body).
    pub fn blocks(&self) -> Vec<&Block> {
        match self {
            Inst::Block { block, .. } => vec![block],
            Inst::If {
                then_block,
                else_block,
                ..
            } => vec![then_block, else_block],
            Inst::Loop { head, body } => match head {
                LoopHead::While { cond_block, .. } => vec![cond_block, body],
                _ => vec![body],
            },
            _ => Vec::new(),
        }
    }
}

impl Block {
    /// Every instruction of the block, nested blocks included, in evaluation order.
    pub fn all_insts(&self) -> Vec<&Inst> {
        fn walk<'b>(b: &'b Block, out: &mut Vec<&'b Inst>) {
            for inst in &b.insts {
                out.push(inst);
                for inner in inst.blocks() {
                    walk(inner, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

pub struct Param {
    pub var: Var,
    /// The type; for a reference to an array (`&[T; N]`), the array's type: the derivatives
    /// take the reference and work on a copy of the array.
    pub ty: Type,
    /// Whether the parameter is a reference to an array or a struct of this type.
    pub by_ref: bool,
    /// Whether the parameter is a function (`f: F` with `F: Fn(..)`, or `f: fn(..) -> ..`): it has
    /// no tangent and no adjoint, and the derivatives call it through the registry.
    pub function: bool,
}

pub struct Func {
    pub name: Ident,
    pub generics: syn::Generics,
    pub params: Vec<Param>,
    pub ret: Type,
    pub body: Block,
    pub values: Vec<ValueData>,
    pub vars: Vec<VarData>,
    /// The scrutinees of the `match`es, lowered to `if`s, and what their patterns need of them.
    pub scrutinees: Vec<Scrutinee>,
}

/// How a [`Inst::Field`] reads its part: `.0` of a tuple, `[0]` of an array.
pub fn field_access(member: &syn::Member, element: bool) -> TokenStream {
    match member {
        syn::Member::Unnamed(index) if element => {
            let k = proc_macro2::Literal::usize_unsuffixed(index.index as usize);
            quote::quote!([#k])
        }
        member => quote::quote!(.#member),
    }
}

/// A conversion to a float type written as a call of an associated function of the type and
/// an unwrap (`T::from(a).unwrap()`, `T::from_f64(a).expect("..")`): differentiated as the cast
/// `a as T` is, and written again as the user wrote it.
#[derive(Clone)]
pub struct Conversion {
    /// The function, `T::from`.
    pub callee: TokenStream,
    /// What follows the call: `.unwrap()` or `.expect(..)`.
    pub rest: TokenStream,
}

impl Conversion {
    /// The primal of a cast of `a` to `ty`, by `via` or by `as`.
    pub fn primal(via: Option<&Conversion>, a: &TokenStream, ty: &Type) -> TokenStream {
        match via {
            None => quote::quote!(#a as #ty),
            Some(c) => {
                let (callee, rest) = (&c.callee, &c.rest);
                quote::quote!(#callee(#a) #rest)
            }
        }
    }
}

/// What a `match` examines: its value, and the user's tokens and variable for the error if that
/// value carries a derivative.
pub struct Scrutinee {
    pub value: Value,
    pub tokens: TokenStream,
    pub var: Option<Var>,
    /// The first pattern that needs the value to carry no derivative: one that binds through
    /// an enum, a struct or a reference, or (with `true`) compares with an integer.
    pub without_derivative: Option<(TokenStream, bool)>,
}
