//! The typed tree of a generated program. The generator builds it, both printers read it, and
//! the shrinker edits it; it holds only what the supported language can say, so every tree
//! prints as a function `#[ad::differentiable]` accepts.

/// The type of a parameter. Lengths are fixed when the function is generated: loops and
/// indices are checked against them, and the harness passes slices of exactly that length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ty {
    F,
    /// An index in `0..=hi`.
    U(usize),
    Slice(usize),
    Out(usize),
    Arr(usize),
    Vec(usize),
    ConstSlice(usize),
    ConstF,
    /// A tuple of two floats, read as `p.0` and `p.1`.
    Pair,
    Bool,
    Char,
    /// An `i32` in `lo..=hi`, used as the exponent of `powi`.
    I32(i32, i32),
    /// `&[f64; N]`, read as `p[i]` and `*p`.
    ArrRef(usize),
    /// A function `f64 -> f64`, called in the body: `g0: G0` with `G0: Fn(f64) -> f64` (0),
    /// `impl Fn(f64) -> f64` (1) or `fn(f64) -> f64` (2). Callers pass a function item of the
    /// batch; the harness does not check such a function itself (the entry points do not take
    /// it), only through its callers.
    FnArg(u8),
    /// `Option<f64>` (`Option<T>` in a generic function): `Some` carries a derivative.
    OptF,
    /// A struct of the batch, `S{k}` (`true`: by reference, `&S{k}`); the receiver `self` of
    /// a method is one too (`&self` or `self`).
    Struct(usize, bool),
}

/// The type of a field of a struct of the batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldTy {
    F,
    /// `[f64; N]`.
    Arr(usize),
    /// `Vec<f64>` of this length (the harness and the generator keep it so).
    Vec(usize),
    /// `usize` in `0..=hi`: no derivative (`ad::NoTangent` in the companion tangent).
    U(usize),
    /// Another struct of the batch, an earlier one.
    Struct(usize),
}

#[derive(Clone, Debug)]
pub struct StructDef {
    /// `(name, type)` in declaration order, which is also the order of the struct's floats
    /// when the harness flattens a value or a tangent.
    pub fields: Vec<(String, FieldTy)>,
    /// A tuple struct (`struct S0(pub f64, ..)`): its fields are named `0`, `1`, ..., read
    /// as `s.0` and built as `S0 { 0: .., 1: .. }`, which Rust allows for tuple structs.
    pub tuple: bool,
}

/// The name of struct `k` of the batch.
pub fn struct_name(k: usize) -> String {
    format!("S{k}")
}

impl StructDef {
    /// Its own tangent: every field is built from floats (a nested struct, like an integer,
    /// makes the derive write a companion `{Name}Tangent`).
    pub fn own_tangent(&self) -> bool {
        self.fields
            .iter()
            .all(|(_, t)| matches!(t, FieldTy::F | FieldTy::Arr(_) | FieldTy::Vec(_)))
    }

    /// The number of floats of a value, nested structs included.
    pub fn floats(&self, defs: &[StructDef]) -> usize {
        self.fields
            .iter()
            .map(|(_, t)| match *t {
                FieldTy::F => 1,
                FieldTy::Arr(n) | FieldTy::Vec(n) => n,
                FieldTy::U(_) => 0,
                FieldTy::Struct(j) => defs[j].floats(defs),
            })
            .sum()
    }

    /// The ranges `0..=hi` of its integers, nested structs included, in order.
    pub fn ints(&self, defs: &[StructDef]) -> Vec<usize> {
        let mut out = Vec::new();
        for (_, t) in &self.fields {
            match *t {
                FieldTy::U(hi) => out.push(hi),
                FieldTy::Struct(j) => out.extend(defs[j].ints(defs)),
                _ => {}
            }
        }
        out
    }
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// `mut name: ty`: a float, array or `Vec` parameter the function assigns.
    pub mutable: bool,
    /// An output declared `&mut [f64; N]` rather than `&mut [f64]`.
    pub array: bool,
    /// An array parameter declared `[f64; N]` with the function's const parameter `N`.
    pub generic_len: bool,
}

/// How a function returns two floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Tuple,
    Array,
    Vec,
}

/// How a function gets its derivative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Deriv {
    /// `#[ad::differentiable]`.
    Generated,
    /// A `#[ad::custom_rule(forward)]` in module `module`, printed before or after the
    /// function's callers (by its place among the items of its module).
    StaticForward {
        module: usize,
        order: u64,
    },
    StaticReverse {
        module: usize,
        order: u64,
    },
    /// A reverse rule with residuals: `augmented` returns the value and the partial
    /// derivatives, which wait on the tape for the reverse part.
    StaticAugmented {
        module: usize,
        order: u64,
    },
    /// Registered by `main` with `ad::rules::register_forward` / `_reverse`.
    RuntimeForward,
    RuntimeReverse,
}

impl Func {
    /// Takes a function: checked only through its callers.
    pub fn takes_fn(&self) -> bool {
        self.params.iter().any(|p| matches!(p.ty, Ty::FnArg(_)))
    }
}

impl Deriv {
    pub fn has_rule(self) -> bool {
        self != Deriv::Generated
    }
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    /// The module it is printed in: `m0`, `m1`, ...
    pub module: usize,
    /// Its place among the items of its module (lower first).
    pub order: u64,
    pub params: Vec<Param>,
    /// `false`: returns `()` (it has outputs).
    pub returns: bool,
    /// Returns two floats, `tail` and `tail2`, as a tuple, an array or a `Vec`.
    pub pair: bool,
    pub pair_shape: Shape,
    /// Over `f32` instead of `f64` (and checked against `Dual32`).
    pub single: bool,
    /// Generic over `T: Float + FloatConst + FromPrimitive + NumAssign`, printed with `T` for the
    /// float type, and checked at `f64` and at `f32`.
    pub generic: bool,
    pub body: Vec<Stmt>,
    pub tail: Option<FE>,
    pub tail2: Option<FE>,
    /// A third float: the function returns `(f64, f64, f64)` (with `pair`, as a tuple).
    pub tail3: Option<FE>,
    /// Returns `Option<f64>` (with `returns`): its tail is `tail_opt`, not `tail`.
    pub ret_opt: bool,
    pub tail_opt: Option<OE>,
    pub deriv: Deriv,
    /// A bound on the value returned.
    pub ret_bound: f64,
    /// The total increments this function (with its callees) may add to each `Out` parameter.
    pub out_spent: f64,
    /// A method of struct `S{k}`, printed in `#[ad::differentiable] impl S{k} { .. }`: its
    /// first parameter is the receiver, named `self`.
    pub method: Option<usize>,
    /// A method printed in one `impl` block with the other methods of its struct in its
    /// module that are `grouped` too (otherwise in a block of its own).
    pub grouped: bool,
    /// Returns struct `S{k}` (with `returns`): its tail is `tail_struct`, not `tail`.
    pub ret_struct: Option<usize>,
    pub tail_struct: Option<SArg>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl BinOp {
    pub fn sym(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub fn sym(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
        }
    }
}

/// A float expression.
#[derive(Clone, Debug)]
pub enum FE {
    Lit(f64),
    Var(String),
    /// `k.0` of an `ad::Const<f64>`.
    ConstF(String),
    /// `*x` of an element reference bound by `for x in a.iter()`.
    Deref(String),
    Index(String, Box<IE>),
    Neg(Box<FE>),
    Bin(BinOp, Box<FE>, Box<FE>),
    /// `a % lit`.
    Rem(Box<FE>, f64),
    /// A method with only the receiver: `x.sin()`; `path` prints it as `f64::sin(x)`.
    Unary {
        name: &'static str,
        arg: Box<FE>,
        path: bool,
    },
    Powi(Box<FE>, i32),
    /// `x.powf(lit)` and `x.log(lit)`.
    WithLit(&'static str, Box<FE>, f64),
    /// `x.powf(y) atan2 hypot min max copysign`.
    Binary(&'static str, Box<FE>, Box<FE>),
    Clamp(Box<FE>, f64, f64),
    MulAdd(Box<FE>, Box<FE>, Box<FE>),
    /// `i as f64`.
    FromInt(Box<IE>),
    Call(String, Vec<Arg>),
    If(Box<Cond>, Box<FE>, Box<FE>),
    /// `match ie { 0 => a, 1 | 2 => b, 3..=5 => c, _ => d }`: the arms' patterns and values;
    /// also on a pair of integers or a `Mode`.
    Match(Box<Scrut>, Vec<(Pat, FE)>),
    /// `match cond { true => a, false => b }`.
    MatchBool(Box<Cond>, Box<FE>, Box<FE>),
    /// `std::f64::consts::NAME`.
    Named(&'static str),
    /// A `const` item of the function.
    ConstItem(String),
    /// `p.0` of a tuple parameter.
    Field(String, usize),
    /// `{ let name = init; value }`.
    Block(String, Box<FE>, Box<FE>),
    /// `x.powi(n)` with `n` an `i32` parameter.
    PowiVar(Box<FE>, String),
    /// An iterator chain consumed into a float.
    Chain(Box<Chain>),
    /// `h(arg)` of a closure bound by `let`, or of a function parameter.
    CallClosure(String, Box<FE>),
    /// `match (a, b) { (x, y) if guard => first, (x, _) => second }`, or the same over an
    /// array `[a, b]` with patterns `[x, y]` and `[x, _]`: bindings that carry derivatives;
    /// with `at`, the first pattern of a tuple is `at @ (x, y)` and its arm may read `at.0`.
    MatchPair {
        arr: bool,
        at: Option<String>,
        a: Box<FE>,
        b: Box<FE>,
        x: String,
        y: String,
        guard: Box<Cond>,
        first: Box<FE>,
        second: Box<FE>,
    },
    /// `o.unwrap()` (or `o.expect("..")` with `true`) of an `Option` known to be `Some`.
    Unwrap(String, bool),
    /// A call of a method of a struct (see [`MCall`]).
    Method(Box<MCall>),
    /// `match scrut { Some(g) if guard => guarded, Some(var) => some, None => none }` (the
    /// guarded arm only with `guarded`).
    MatchOpt {
        scrut: Box<OE>,
        guarded: Option<(String, Box<Cond>, Box<FE>)>,
        var: String,
        some: Box<FE>,
        none: Box<FE>,
    },
}

/// A method call: `recv.name(args)` (`Dot`), `S{k}::name(recv, args)` (`Path`), or, of a
/// method taking `self`, on a copy bound by a `let` with a type, `{ let tmp: S{k} =
/// src.clone(); tmp.name(args) }` (`Copy(tmp)`; `recv` is `Place(src)`).
#[derive(Clone, Debug)]
pub struct MCall {
    pub name: String,
    pub def: usize,
    pub recv: SArg,
    pub args: Vec<Arg>,
    pub form: MForm,
}

#[derive(Clone, Debug)]
pub enum MForm {
    Dot,
    Path,
    Copy(String),
}

/// A struct passed on, or a receiver.
#[derive(Clone, Debug)]
pub enum SArg {
    /// A struct variable, a field of one or `self`, as it is: a receiver (`s.m(x)`), or a
    /// `&S` parameter passed on as it is (`f(r)`, `f(self)` in a `&self` method).
    Place(String),
    /// `&path`.
    Ref(String),
    /// `path.clone()`.
    Clone(String),
    /// A struct literal.
    Lit(Box<SLit>),
    /// A call of a function of the batch that returns the struct.
    Call(String, Vec<Arg>),
    /// A call of a method that returns the struct (`Dot` or `Path`).
    Method(Box<MCall>),
}

/// `S{def} { field: init, .., ..base }`.
#[derive(Clone, Debug)]
pub struct SLit {
    pub def: usize,
    pub fields: Vec<(String, FInit)>,
    /// `..base`: `..s` (`Place`) or `..s.clone()` (`Clone`).
    pub base: Option<SArg>,
}

/// The value of one field in a struct literal.
#[derive(Clone, Debug)]
pub enum FInit {
    F(FE),
    /// `[..]` of an array field, `vec![..]` of a `Vec` field.
    Arr(ArrInit, bool),
    /// The same field of another struct: `s.w` (an array), `s.v.clone()` (a `Vec`).
    Of(String, bool),
    U(IE),
    S(SArg),
}

/// An expression of type `Option<f64>`.
#[derive(Clone, Debug)]
pub enum OE {
    Some(FE),
    None,
    Var(String),
    /// `if c { a } else { b }`.
    If(Box<Cond>, Box<OE>, Box<OE>),
    /// A call of a function returning `Option<f64>`.
    Call(String, Vec<Arg>),
}

impl FE {
    /// Whether the expression's type is known without a `let` type: it reads something typed.
    pub fn has_typed_leaf(&self) -> bool {
        match self {
            FE::Lit(_) | FE::Named(_) | FE::ConstItem(_) => false,
            FE::FromInt(_) => true,
            FE::Block(_, _, v) => v.has_typed_leaf(),
            FE::MatchBool(_, a, b) => a.has_typed_leaf() && b.has_typed_leaf(),
            FE::PowiVar(a, _) => a.has_typed_leaf(),
            FE::Neg(a)
            | FE::Rem(a, _)
            | FE::Powi(a, _)
            | FE::WithLit(_, a, _)
            | FE::Clamp(a, ..) => a.has_typed_leaf(),
            FE::Unary { arg, .. } => arg.has_typed_leaf(),
            FE::Bin(_, a, b) | FE::Binary(_, a, b) => a.has_typed_leaf() || b.has_typed_leaf(),
            FE::MulAdd(a, b, c) => a.has_typed_leaf() || b.has_typed_leaf() || c.has_typed_leaf(),
            FE::If(_, a, b) => a.has_typed_leaf() && b.has_typed_leaf(),
            FE::Match(_, arms) => arms.iter().all(|(_, e)| e.has_typed_leaf()),
            FE::MatchPair { first, second, .. } => {
                first.has_typed_leaf() && second.has_typed_leaf()
            }
            FE::MatchOpt {
                guarded,
                some,
                none,
                ..
            } => {
                some.has_typed_leaf()
                    && none.has_typed_leaf()
                    && guarded.as_ref().is_none_or(|g| g.2.has_typed_leaf())
            }
            _ => true,
        }
    }
}

/// The items of an iterator at some point of a chain, which decide the closures' patterns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item {
    /// `&f64`, of `a.iter()`: taken by `|&v|`.
    Ref,
    /// `f64`, after `.copied()`, `.cloned()` or a `map`: taken by `|v|`.
    Val,
    /// `(usize, &f64)` of `.enumerate()`: taken by `|(i, &v)|`.
    Idx,
    /// `(&f64, &f64)` of `.zip(..)`: taken by `|(&x, &y)|`.
    Pair,
    /// A window or chunk: taken by `|w|` and read as `w[j]`, `w.len()`.
    Win,
}

/// Where a chain starts.
#[derive(Clone, Debug)]
pub enum Source {
    /// `a.iter()`, then `.copied()` or `.cloned()` if `owned` is `Some`.
    Iter {
        arr: String,
        owned: Option<&'static str>,
    },
    /// `a.iter().enumerate()`.
    Enumerate(String),
    /// `a.iter().zip(b.iter())`.
    Zip(String, String),
    /// `a.windows(k)`, `a.chunks(k)` or `a.chunks_exact(k)`.
    Windows(String, &'static str, usize),
}

impl Source {
    pub fn item(&self) -> Item {
        match self {
            Source::Iter { owned: None, .. } => Item::Ref,
            Source::Iter { .. } => Item::Val,
            Source::Enumerate(_) => Item::Idx,
            Source::Zip(..) => Item::Pair,
            Source::Windows(..) => Item::Win,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Adapter {
    Rev,
    Skip(usize),
    Take(usize),
    StepBy(usize),
    /// `.filter(|&v| cond)` (`|&&v|` over `&f64` items).
    Filter(String, Cond),
    /// `.map(|pattern| body)`: the names the pattern binds (one, or two for `Idx` and `Pair`).
    Map(Vec<String>, FE),
}

/// How a chain ends, as a float.
#[derive(Clone, Debug)]
pub enum Consumer {
    Sum,
    Product,
    /// `.fold(init, |acc, v| body)`.
    Fold {
        init: f64,
        acc: String,
        var: String,
        body: FE,
    },
    /// `.max_by(cmp).unwrap()` (`max`) or `.min_by(..)`, with one of the comparators the macro
    /// knows (`form`: 0 `partial_cmp`, 1 `total_cmp`, 2 `f64::total_cmp`).
    Best {
        max: bool,
        form: u8,
    },
    /// `.fold(f64::NEG_INFINITY, f64::max)` (`max`) or `.fold(f64::INFINITY, f64::min)`.
    FoldBest {
        max: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Chain {
    pub source: Source,
    pub adapters: Vec<Adapter>,
    pub consumer: Consumer,
}

impl Chain {
    /// The kind of items after the adapters.
    pub fn items_before(&self, k: usize) -> Item {
        let mut item = self.source.item();
        for a in &self.adapters[..k] {
            if let Adapter::Map(..) = a {
                item = Item::Val;
            }
        }
        item
    }
}

#[derive(Clone, Debug)]
pub enum Pat {
    Lit(usize),
    Or(usize, usize),
    Range(usize, usize),
    Wild,
    /// `_ if cond`.
    Guard(Box<Cond>),
    /// `(p, q)` of a pair of integers.
    Tuple(Box<Pat>, Box<Pat>),
    /// `Mode::A | Mode::C`: variants of the generated crate's `Mode` by number.
    Modes(Vec<usize>),
}

/// The variants of the enum `Mode` each generated crate declares (`template/prelude.rs`).
pub const MODES: [&str; 3] = ["A", "B", "C"];

/// What a `match` examines.
#[derive(Clone, Debug)]
pub enum Scrut {
    Int(IE),
    /// `(a, b)`, matched by `Pat::Tuple`s.
    Pair(IE, IE),
    /// A `Mode` variable, matched by `Pat::Modes`.
    Mode(String),
}

/// An argument of a call: the callee's parameter type decides its form.
#[derive(Clone, Debug)]
pub enum Arg {
    F(FE),
    U(IE),
    /// A parameter or array variable passed whole, as it is.
    Name(String),
    /// A tuple of two floats.
    Pair(FE, FE),
    Bool(Cond),
    /// A `char` or `i32` literal, or `*p` / `&q` of arrays.
    Raw(String),
    /// A part of an array, a `Vec` or a slice: `&v`, `&v[..]`, `&v[lo..hi]`, `&v[..hi]`; with
    /// `true`, lent to a callee that writes it (`&mut v[lo..hi]`).
    Part(String, Part, bool),
    /// A function item of the batch, passed to a function parameter.
    FnItem(String),
    /// An `Option<f64>`: `Some(e)`, `None` or a variable.
    Opt(OE),
    /// A struct, by value or by reference.
    Struct(SArg),
}

#[derive(Clone, Copy, Debug)]
pub enum Part {
    Whole,
    Full,
    Range(usize, usize),
    To(usize),
}

/// An index expression (`usize`), never out of its range.
#[derive(Clone, Debug)]
pub enum IE {
    Lit(usize),
    Var(String),
    Len(String),
    Add(Box<IE>, Box<IE>),
    Sub(Box<IE>, Box<IE>),
    Mul(Box<IE>, Box<IE>),
    Div(Box<IE>, usize),
    Rem(Box<IE>, usize),
    /// `(e) as usize` of a float (no derivative; the oracle notes its distance to a step).
    FromFloat(Box<FE>),
}

#[derive(Clone, Debug)]
pub enum Cond {
    F(Cmp, FE, FE),
    I(Cmp, IE, IE),
    /// `ie % 2 == 0`.
    Even(IE),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    /// `e.is_finite()`.
    Finite(FE),
    /// `a.total_cmp(&b) == Ordering::Less`.
    TotalLt(FE, FE),
    /// A `bool` parameter.
    Flag(String),
    /// `c == 'a'` of a `char` parameter.
    CharIs(String, char),
    /// `o.is_some()` (`true`) or `o.is_none()` of an `Option` variable.
    IsSome(String, bool),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
    /// `%=` by a literal.
    Rem,
}

impl AssignOp {
    pub fn sym(self) -> &'static str {
        match self {
            AssignOp::Set => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Rem => "%=",
        }
    }
}

/// How a `for` loop walks.
#[derive(Clone, Debug)]
pub enum ForKind {
    /// `for i in lo..hi`, `lo..=hi`, `(lo..hi).rev()`, `(lo..hi).step_by(k)`.
    Range {
        var: String,
        lo: IE,
        hi: IE,
        inclusive: bool,
        rev: bool,
        step: usize,
    },
    /// `for &x in a.iter()`, `for x in a.iter().copied()`, `for &x in &a`, `for x in a.iter()`
    /// (then read as `*x`).
    Iter {
        elem: String,
        arr: String,
        form: IterForm,
    },
    /// `for (i, &x) in a.iter().enumerate()`.
    Enumerate {
        idx: String,
        elem: String,
        arr: String,
    },
    /// `for (&x, &y) in a.iter().zip(b.iter())`.
    Zip {
        x: String,
        a: String,
        y: String,
        b: String,
    },
    /// `for w in a.windows(k)` (or `chunks`, `chunks_exact`), read as `w[j]`.
    Windows {
        var: String,
        arr: String,
        kind: &'static str,
        k: usize,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IterForm {
    RefPat,
    Copied,
    Borrow,
    Deref,
}

#[derive(Clone, Debug)]
pub enum ArrInit {
    Fill(FE, usize),
    List(Vec<FE>),
}

/// What the `Some` of a [`Stmt::LetOpt`] holds.
#[derive(Clone, Debug)]
pub enum OptInit {
    Index(IE),
    Float(FE),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name[: f64] = e;`
    Let {
        name: String,
        mutable: bool,
        typed: bool,
        init: FE,
    },
    /// `let (a, b) = (e1, e2);`
    LetPair(String, String, FE, FE),
    /// `let name: usize = ie;`
    LetIdx(String, IE),
    /// `let mut name = [..]` (array) or `vec![..]`.
    LetArr {
        name: String,
        vec: bool,
        init: ArrInit,
    },
    /// `let name: f64 = a.iter().sum();`
    LetSum(String, String),
    /// `let name = ['label:] loop { guard; body }` whose `break`s carry values.
    LetLoop {
        name: String,
        label: Option<String>,
        guard: String,
        trips: usize,
        body: Vec<Stmt>,
        fallback: FE,
    },
    Assign(String, AssignOp, FE),
    AssignElem(String, IE, AssignOp, FE),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    For(ForKind, Vec<Stmt>),
    /// `let mut g = 0; while g < trips && cond { g += 1; body }`.
    While {
        guard: String,
        trips: usize,
        cond: Option<Cond>,
        body: Vec<Stmt>,
    },
    /// `let mut g = 0; loop { g += 1; if g > trips { break; } body }`.
    Loop {
        guard: String,
        trips: usize,
        body: Vec<Stmt>,
    },
    /// A counter advanced by one after each iteration and used as an index:
    /// `let mut idx = start; for i in 0..trips { body; idx += 1; }`.
    Counter {
        idx: String,
        start: usize,
        step: usize,
        var: String,
        trips: usize,
        body: Vec<Stmt>,
    },
    Break(Option<FE>),
    Continue,
    /// A loop (`for`, `while` or `loop`) with a label: `'label: for ..`.
    Labelled(String, Box<Stmt>),
    /// `break 'label;` or `break 'label value;` (out of a labelled `loop` or block).
    BreakTo(String, Option<FE>),
    /// `continue 'label;`.
    ContinueTo(String),
    /// `let name: f64 = 'label: { body; tail };` whose `break 'label value`s leave it early.
    LetBlock {
        name: String,
        label: String,
        body: Vec<Stmt>,
        tail: FE,
    },
    /// `return e;` (`None` in a function returning `()`).
    Return(Option<FE>),
    /// A call of a function returning `()`, for its outputs.
    Call(String, Vec<Arg>),
    /// `return (a, b);` (or `[a, b]`, `vec![a, b]`), or `return (a, b, c);`.
    ReturnTuple(Vec<FE>),
    /// `let (a, b) = f(..);` of a function returning a pair, `let (a, b, c) = f(..);` of one
    /// returning three floats.
    LetCallTuple(Vec<String>, String, Vec<Arg>),
    /// `let (a, b, c) = (e1, e2, e3);`, or with `nested`, `let ((a, b), c) = ((e1, e2), e3);`.
    LetTriple {
        names: Vec<String>,
        inits: Vec<FE>,
        nested: bool,
    },
    /// `debug_assert!(e.is_finite());` or `assert!(..)`.
    Assert(FE, bool),
    /// `const NAME: f64 = lit;`
    Const(String, f64),
    /// `match ie { pattern => { .. } .. }` (or of a pair or a `Mode`).
    Match(Scrut, Vec<(Pat, Vec<Stmt>)>),
    /// `let name: Mode = match ie { 0 => Mode::A, 1 => Mode::B, _ => Mode::C };`, a setting
    /// chosen from an integer.
    LetMode(String, IE),
    /// `println!("{}", e);` (only ever under a condition that never holds).
    Print(FE),
    /// `let name: Vec<f64> = chain.collect();` (the chain's consumer is not used).
    LetCollect(String, Chain),
    /// `let h = |param: f64| body;`
    LetClosure {
        name: String,
        param: String,
        body: FE,
    },
    /// `let mut name = arr.map(|param| body);` of an array.
    LetArrMap {
        name: String,
        arr: String,
        param: String,
        body: FE,
    },
    /// `for v in a.iter_mut() { *v op e; .. }`.
    ForIterMut {
        var: String,
        arr: String,
        ops: Vec<(AssignOp, FE)>,
    },
    /// `(a, b) = (e1, e2);` of two mutable floats.
    AssignPair(String, String, FE, FE),
    /// `let [x, y, ..] = arr;` (`rest`: with `..`; `deref`: `*arr` of a `&[f64; N]`).
    LetArrPat {
        names: Vec<String>,
        rest: bool,
        arr: String,
        deref: bool,
    },
    /// `let name = &arr[lo..hi];`, a view.
    LetView {
        name: String,
        arr: String,
        lo: IE,
        hi: IE,
    },
    /// `let name = &mut arr[lo..hi];`, a mutable view, then `body`, which uses it and not
    /// `arr` (printed in the same block: the view's borrow ends with its last use).
    LetMutView {
        name: String,
        arr: String,
        lo: IE,
        hi: IE,
        body: Vec<Stmt>,
    },
    /// `let name: Option<usize> = if cond { Some(ie) } else { None };`, or of a float
    /// (`Option<f64>`, which carries the derivative of `Some`'s value).
    LetOpt(String, Cond, OptInit),
    /// `if let Some(var) = opt { then } else { els }`.
    IfLet {
        opt: String,
        var: String,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `let Some(var) = opt else { els };` with `els` a `return`, `break` or `continue`.
    LetElse {
        opt: String,
        var: String,
        els: Box<Stmt>,
    },
    /// `let name: Option<f64> = oe;`
    LetOptE(String, OE),
    /// `return oe;` in a function returning `Option<f64>`.
    ReturnOpt(OE),
    /// `return s;` in a function returning a struct.
    ReturnStruct(SArg),
    /// `let [mut] name[: S{def}] = init;` of a struct literal, a clone or a call.
    LetStruct {
        name: String,
        def: usize,
        typed: bool,
        mutable: bool,
        init: SArg,
    },
    /// `let mut guard = 0; while let Some(var) = (if guard < trips { Some(guard) } else
    /// { None }) { guard += 1; body }`.
    WhileLet {
        guard: String,
        trips: usize,
        var: String,
        body: Vec<Stmt>,
    },
}

/// Visits every statement list of a function, innermost first, mutably.
pub fn walk_blocks_mut(stmts: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    for s in stmts.iter_mut() {
        walk_stmt_blocks(s, f);
    }
    f(stmts);
}

/// The statement lists inside one statement.
fn walk_stmt_blocks(s: &mut Stmt, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    match s {
        Stmt::If(_, a, b) => {
            walk_blocks_mut(a, f);
            walk_blocks_mut(b, f);
        }
        Stmt::Match(_, arms) => {
            for (_, b) in arms {
                walk_blocks_mut(b, f);
            }
        }
        Stmt::Labelled(_, inner) => walk_stmt_blocks(inner, f),
        Stmt::IfLet { then, els, .. } => {
            walk_blocks_mut(then, f);
            walk_blocks_mut(els, f);
        }
        Stmt::WhileLet { body, .. } | Stmt::LetMutView { body, .. } => walk_blocks_mut(body, f),
        Stmt::For(_, b)
        | Stmt::LetBlock { body: b, .. }
        | Stmt::While { body: b, .. }
        | Stmt::Loop { body: b, .. }
        | Stmt::LetLoop { body: b, .. }
        | Stmt::Counter { body: b, .. } => walk_blocks_mut(b, f),
        _ => {}
    }
}
