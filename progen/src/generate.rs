//! The generator: random well-typed functions of the supported language, built so that every
//! value stays finite and inside the domain of the primitive that reads it.
//!
//! Safety is by construction, not by rejection. Each float expression comes with a bound on its
//! magnitude, computed from the bounds of what it reads; every variable and array has a cap that
//! its values never exceed. An expression too large for where it goes is squashed
//! (`(e * k).tanh() * t`). Compound assignments draw on a budget: `x += e` executed at most `X`
//! times (the product of the trip counts of the loops around it) spends `X * bound(e)` of `x`'s
//! cap, so the cap holds whatever the loops do. Primitives with a restricted domain read
//! arguments that are inside it whatever their operands (`(1.0 + e.powi(2)).ln()`,
//! `(0.9 * e.tanh()).asin()`). Kinks and steps (comparisons, `abs`, `floor`, ...) are allowed
//! anywhere: the oracle measures how close the point is to one and the harness skips points
//! too close to tell which side a rounding falls on.

use crate::ast::*;
use crate::rng::Rng;

/// Parameters and test points lie in [-2, 2].
pub const PARAM_CAP: f64 = 2.0;
/// Every function's result is squashed to this bound.
const RET_CAP: f64 = 8.0;
/// What a plain assignment may store in a mutable variable, an array element or an output.
const BASE_CAP: f64 = 4.0;
/// The increments that compound assignments may add on top, in total.
const ACC_BUDGET: f64 = 40.0;
/// Arguments of `exp`, `sinh`, `cosh`, `exp2`, `exp_m1`.
const EXP_ARG: f64 = 2.5;

#[derive(Clone)]
struct FVar {
    name: String,
    read: FE,
    cap: f64,
    base: f64,
    spent: f64,
    mutable: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum AKind {
    Slice,
    Out,
    Arr,
    Vec,
    ConstSlice,
    LocalArr,
    LocalVec,
}

#[derive(Clone)]
struct AVar {
    name: String,
    kind: AKind,
    len: usize,
    cap: f64,
    base: f64,
    spent: f64,
    /// Borrowed by a `for` over its elements: not written, not passed on mutably.
    locked: bool,
    /// A `mut` array or `Vec` parameter.
    param_mut: bool,
}

impl AVar {
    fn writable(&self) -> bool {
        (self.param_mut || matches!(self.kind, AKind::Out | AKind::LocalArr | AKind::LocalVec))
            && !self.locked
    }
}

#[derive(Clone)]
struct IVar {
    name: String,
    lo: usize,
    hi: usize,
}

#[derive(Clone, Copy)]
struct LoopCtx {
    /// Inside `let v = loop { .. }`: its `break`s carry a value.
    value_break: bool,
}

/// What the generator may use, and how big the functions are.
#[derive(Clone, Copy)]
pub struct Options {
    pub max_stmts: usize,
}

pub struct Gen<'a> {
    rng: &'a mut Rng,
    funcs: &'a [Func],
    floats: Vec<FVar>,
    arrays: Vec<AVar>,
    ints: Vec<IVar>,
    loops: Vec<LoopCtx>,
    execs: f64,
    counter: usize,
    size_left: usize,
    returns: bool,
    pair: bool,
    shape: Shape,
    out_spent: f64,
    depth: usize,
    /// `bool`, `char` and `i32` parameters.
    flags: Vec<String>,
    chars: Vec<String>,
    exponents: Vec<String>,
    /// Generating an f32 function: it calls only f32 functions.
    pub single: bool,
    /// Inside a condition: the macro rejects a block with a `let` there (a gap the README
    /// does not list), so none is generated.
    in_cond: bool,
    /// Inside `assert!`, `println!` or a `match` guard.
    in_macro: bool,
}

fn nice(x: f64) -> f64 {
    // Three significant digits, rounded down, so a printed literal is short and exact enough.
    let p = 10f64.powi(2 - x.log10().floor() as i32);
    (x * p).floor() / p
}

fn un(name: &'static str, e: FE) -> FE {
    FE::Unary {
        name,
        arg: Box::new(e),
        path: false,
    }
}

fn bin(op: BinOp, a: FE, b: FE) -> FE {
    FE::Bin(op, Box::new(a), Box::new(b))
}

fn irange(ie: &IE, g: &Gen) -> (usize, usize) {
    match ie {
        IE::Lit(n) => (*n, *n),
        IE::Var(v) => g
            .ints
            .iter()
            .rev()
            .find(|i| &i.name == v)
            .map(|i| (i.lo, i.hi))
            .expect("index variable in scope"),
        IE::Len(a) => {
            let n = g.arrays.iter().rev().find(|x| &x.name == a).unwrap().len;
            (n, n)
        }
        IE::Add(a, b) => {
            let (a, b) = (irange(a, g), irange(b, g));
            (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
        }
        IE::Sub(a, b) => {
            let (a, b) = (irange(a, g), irange(b, g));
            (a.0 - b.1, a.1 - b.0)
        }
        IE::Mul(a, b) => {
            let (a, b) = (irange(a, g), irange(b, g));
            (a.0.saturating_mul(b.0), a.1.saturating_mul(b.1))
        }
        IE::Div(a, k) => {
            let a = irange(a, g);
            (a.0 / k, a.1 / k)
        }
        IE::Rem(a, k) => {
            let a = irange(a, g);
            if a.1 < *k { a } else { (0, k - 1) }
        }
        // Unbounded: only ever under a `%`, which bounds it.
        IE::FromFloat(_) => (0, usize::MAX / 4),
    }
}

impl<'a> Gen<'a> {
    pub fn new(rng: &'a mut Rng, funcs: &'a [Func], opts: Options) -> Gen<'a> {
        Gen {
            rng,
            funcs,
            floats: Vec::new(),
            arrays: Vec::new(),
            ints: Vec::new(),
            loops: Vec::new(),
            execs: 1.0,
            counter: 0,
            size_left: opts.max_stmts,
            returns: true,
            pair: false,
            shape: Shape::Tuple,
            out_spent: 0.0,
            depth: 0,
            flags: Vec::new(),
            chars: Vec::new(),
            exponents: Vec::new(),
            in_cond: false,
            in_macro: false,
            single: false,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    /// A random signature: `rule` functions take 1 to 3 floats; the others mix every kind of
    /// parameter.
    pub fn signature(&mut self, rule: bool) -> (Vec<Param>, bool) {
        let mut params = Vec::new();
        let nf = if rule {
            self.rng.range(1, 3)
        } else {
            self.rng.range(0, 3)
        };
        for k in 0..nf {
            params.push(Param {
                name: format!("x{k}"),
                ty: Ty::F,
                mutable: false,
            });
        }
        if rule {
            return (params, true);
        }
        let len = |r: &mut Rng| r.range(2, 5);
        let extras: [(f64, &str); 11] = [
            (0.5, "w"),
            (0.3, "y"),
            (0.25, "n"),
            (0.25, "q"),
            (0.15, "v"),
            (0.25, "c"),
            (0.2, "k"),
            (0.15, "p"),
            (0.1, "b"),
            (0.08, "h"),
            (0.12, "z"),
        ];
        for (p, prefix) in extras {
            if self.rng.chance(p) {
                let ty = match prefix {
                    "w" => Ty::Slice(len(self.rng)),
                    "y" => Ty::Out(len(self.rng)),
                    "n" => Ty::U(self.rng.range(1, 4)),
                    "q" => Ty::Arr(len(self.rng)),
                    "v" => Ty::Vec(len(self.rng)),
                    "c" => Ty::ConstSlice(len(self.rng)),
                    "p" => Ty::Pair,
                    "b" => Ty::Bool,
                    "h" => Ty::Char,
                    "z" => Ty::I32(-2, 3),
                    _ => Ty::ConstF,
                };
                params.push(Param {
                    name: format!("{prefix}0"),
                    ty,
                    mutable: false,
                });
            }
        }
        if params.iter().all(|p| {
            matches!(
                p.ty,
                Ty::U(_) | Ty::ConstF | Ty::Bool | Ty::Char | Ty::I32(..)
            )
        }) {
            params.insert(
                0,
                Param {
                    name: "x0".into(),
                    ty: Ty::F,
                    mutable: false,
                },
            );
        }
        // ad takes functions of up to 8 arguments.
        params.truncate(8);
        // Shuffle, so no kind always comes first.
        for i in (1..params.len()).rev() {
            let j = self.rng.below(i + 1);
            params.swap(i, j);
        }
        let has_out = params.iter().any(|p| matches!(p.ty, Ty::Out(_)));
        let returns = !has_out || self.rng.chance(0.5);
        (params, returns)
    }

    pub fn function(
        &mut self,
        name: String,
        params: Vec<Param>,
        returns: bool,
        pair: bool,
    ) -> Func {
        self.returns = returns;
        self.pair = pair;
        // Some parameters are assigned: what the reverse sweep may compute again from a
        // parameter depends on whether the function writes it.
        let mut params = params;
        for p in params.iter_mut() {
            if matches!(p.ty, Ty::F | Ty::Arr(_) | Ty::Vec(_)) && self.rng.chance(0.2) {
                p.mutable = true;
            }
        }
        self.shape = *self.rng.pick(&[Shape::Tuple, Shape::Array, Shape::Vec]);
        for p in &params {
            match p.ty {
                Ty::F => self.floats.push(FVar {
                    name: p.name.clone(),
                    read: FE::Var(p.name.clone()),
                    cap: if p.mutable {
                        BASE_CAP + 20.0
                    } else {
                        PARAM_CAP
                    },
                    base: if p.mutable { BASE_CAP } else { PARAM_CAP },
                    spent: 0.0,
                    mutable: p.mutable,
                }),
                Ty::ConstF => self.floats.push(FVar {
                    name: p.name.clone(),
                    read: FE::ConstF(p.name.clone()),
                    cap: PARAM_CAP,
                    base: PARAM_CAP,
                    spent: 0.0,
                    mutable: false,
                }),
                Ty::Pair => {
                    for k in 0..2 {
                        self.floats.push(FVar {
                            name: format!("{}.{k}", p.name),
                            read: FE::Field(p.name.clone(), k),
                            cap: PARAM_CAP,
                            base: PARAM_CAP,
                            spent: 0.0,
                            mutable: false,
                        })
                    }
                }
                Ty::Bool => self.flags.push(p.name.clone()),
                Ty::Char => self.chars.push(p.name.clone()),
                Ty::I32(..) => self.exponents.push(p.name.clone()),
                Ty::U(hi) => self.ints.push(IVar {
                    name: p.name.clone(),
                    lo: 0,
                    hi,
                }),
                Ty::Slice(n) | Ty::Out(n) | Ty::Arr(n) | Ty::Vec(n) | Ty::ConstSlice(n) => {
                    let kind = match p.ty {
                        Ty::Slice(_) => AKind::Slice,
                        Ty::Out(_) => AKind::Out,
                        Ty::Arr(_) => AKind::Arr,
                        Ty::Vec(_) => AKind::Vec,
                        _ => AKind::ConstSlice,
                    };
                    let out = kind == AKind::Out;
                    self.arrays.push(AVar {
                        name: p.name.clone(),
                        kind,
                        len: n,
                        cap: if out {
                            BASE_CAP + ACC_BUDGET
                        } else if p.mutable {
                            BASE_CAP + 20.0
                        } else {
                            PARAM_CAP
                        },
                        param_mut: p.mutable,
                        base: BASE_CAP,
                        spent: 0.0,
                        locked: false,
                    })
                }
            }
        }
        let n = self.rng.range(2, 6);
        let mut body = self.block(n);
        let tail = if returns {
            let (e, b) = self.fe(3);
            Some(self.squash(e, b, RET_CAP).0)
        } else {
            None
        };
        let mut tail2 = pair.then(|| self.fe_capped(3, RET_CAP).0);
        if pair && self.shape == Shape::Vec {
            // A `Vec` result that carries no derivative does not compile under the macro (a
            // moved value in its expansion): add an active parameter to its second element.
            let active = params.iter().find_map(|p| match p.ty {
                Ty::F => Some(FE::Var(p.name.clone())),
                Ty::Pair => Some(FE::Field(p.name.clone(), 0)),
                Ty::Slice(_) | Ty::Arr(_) | Ty::Vec(_) => {
                    Some(FE::Index(p.name.clone(), Box::new(IE::Lit(0))))
                }
                _ => None,
            });
            match (active, tail2.take()) {
                (Some(a), Some(t)) => tail2 = Some(bin(BinOp::Add, t, a)),
                (_, t) => {
                    tail2 = t;
                    self.shape = Shape::Array;
                }
            }
        }
        // A function with outputs writes them at least once.
        for p in &params {
            if let Ty::Out(len) = p.ty
                && self.rng.chance(0.7)
            {
                let idx = IE::Lit(self.rng.below(len));
                let (e, b) = self.fe(2);
                let e = self.squash(e, b, BASE_CAP).0;
                body.push(Stmt::AssignElem(p.name.clone(), idx, AssignOp::Set, e));
            }
        }
        Func {
            name,
            module: 0,
            order: 0,
            params,
            returns,
            body,
            tail,
            tail2,
            pair,
            pair_shape: self.shape,
            single: self.single,
            deriv: Deriv::Generated,
            ret_bound: RET_CAP,
            out_spent: self.out_spent,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Expressions
    // -----------------------------------------------------------------------------------------

    /// Squashes `e` (bounded by `b`) into `[-t, t]`.
    fn squash(&mut self, e: FE, b: f64, t: f64) -> (FE, f64) {
        if b <= t {
            return (e, b);
        }
        if !e.has_typed_leaf() {
            return (FE::Lit(nice(t)), t);
        }
        let k = nice(1.0 / b);
        let inner = bin(BinOp::Mul, e, FE::Lit(k));
        let name = *self.rng.pick(&["tanh", "sin", "atan"]);
        let t2 = if name == "atan" {
            nice(t / 1.6)
        } else {
            nice(t)
        };
        (bin(BinOp::Mul, un(name, inner), FE::Lit(t2)), t)
    }

    fn fe_capped(&mut self, depth: usize, t: f64) -> (FE, f64) {
        let (e, b) = self.fe(depth);
        self.squash(e, b, t)
    }

    /// A method receiver: never a bare literal (`0.5.sin()` has no type).
    fn receiver(&mut self, depth: usize, t: f64) -> (FE, f64) {
        let (e, b) = self.fe_capped(depth, t);
        if !e.has_typed_leaf() {
            let (v, vb) = self.leaf_var();
            return (bin(BinOp::Add, v, e), vb + b);
        }
        (e, b)
    }

    /// A positive expression with its lower and upper bounds.
    fn pos(&mut self, depth: usize) -> (FE, f64, f64) {
        match self.rng.below(5) {
            0 => {
                let (e, b) = self.receiver(depth, 4.0);
                (
                    bin(BinOp::Add, FE::Lit(1.0), FE::Powi(Box::new(e), 2)),
                    1.0,
                    1.0 + b * b,
                )
            }
            1 => {
                let (e, _) = self.receiver(depth, 100.0);
                let f = *self.rng.pick(&["sin", "cos", "tanh"]);
                (bin(BinOp::Add, FE::Lit(2.0), un(f, e)), 1.0, 3.0)
            }
            2 => {
                let (e, b) = self.receiver(depth, EXP_ARG);
                (un("exp", e), (-b).exp(), b.exp())
            }
            3 => {
                let (e, b) = self.receiver(depth, EXP_ARG);
                (un("cosh", e), 1.0, b.cosh())
            }
            _ => {
                let (e, b) = self.receiver(depth, 8.0);
                (
                    FE::Binary("hypot", Box::new(e), Box::new(FE::Lit(1.0))),
                    1.0,
                    b + 1.0,
                )
            }
        }
    }

    fn leaf_var(&mut self) -> (FE, f64) {
        if !self.floats.is_empty() && (self.arrays.is_empty() || self.rng.chance(0.6)) {
            let v = self.rng.pick(&self.floats).clone();
            // In `assert!` and `println!`, which the macro keeps as they are while it turns
            // `for x in a.iter()`'s `x` into a value, `*x` does not compile.
            if !(self.in_macro && matches!(v.read, FE::Deref(_))) {
                return (v.read, v.cap);
            }
        }
        if !self.arrays.is_empty() {
            let a = self.rng.pick(&self.arrays).clone();
            let idx = self.index(a.len);
            return (FE::Index(a.name, Box::new(idx)), a.cap);
        }
        if !self.ints.is_empty() {
            let i = self.rng.pick(&self.ints).clone();
            return (FE::FromInt(Box::new(IE::Var(i.name))), i.hi as f64);
        }
        (FE::Lit(1.5), 1.5)
    }

    fn leaf(&mut self) -> (FE, f64) {
        match self.rng.weighted(&[2, 8, 1]) {
            0 if self.rng.chance(0.15) => {
                let (n, x) = *self.rng.pick(&[
                    ("PI", std::f64::consts::PI),
                    ("E", std::f64::consts::E),
                    ("LN_2", std::f64::consts::LN_2),
                    ("SQRT_2", std::f64::consts::SQRT_2),
                    ("FRAC_PI_4", std::f64::consts::FRAC_PI_4),
                ]);
                (FE::Named(n), x)
            }
            0 => {
                let x = *self
                    .rng
                    .pick(&[0.5, 1.5, 2.0, 0.25, 3.0, 0.1, 1.0, 0.75, 1.25]);
                (FE::Lit(x), x)
            }
            1 => self.leaf_var(),
            _ => {
                if let Some(i) = (!self.ints.is_empty()).then(|| self.rng.pick(&self.ints).clone())
                {
                    (FE::FromInt(Box::new(IE::Var(i.name))), i.hi as f64)
                } else {
                    self.leaf_var()
                }
            }
        }
    }

    pub fn fe(&mut self, depth: usize) -> (FE, f64) {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf();
        }
        let d = depth - 1;
        let weights = [
            12,                                            // + -
            7,                                             // *
            3,                                             // / pos
            2,                                             // neg
            6,                                             // bounded unary
            3,                                             // exp family
            5,                                             // positive domain
            2,                                             // ln_1p
            2,                                             // asin acos atanh
            1,                                             // acosh
            2,                                             // powi
            2,                                             // powf
            2,                                             // atan2 hypot
            3,                                             // kinks
            2,                                             // min max
            1,                                             // clamp
            1,                                             // copysign
            1,                                             // mul_add
            1,                                             // degrees radians
            1,                                             // rem
            4,                                             // call
            2,                                             // if
            1,                                             // match
            1,                                             // tan
            if self.in_cond { 0 } else { 1 },              // block
            1,                                             // match on a bool
            if self.exponents.is_empty() { 0 } else { 2 }, // powi(n)
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let (a, ab) = self.fe(d);
                let (b, bb) = self.fe(d);
                let op = if self.rng.chance(0.5) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                (bin(op, a, b), ab + bb)
            }
            1 => {
                let (a, ab) = self.fe_capped(d, 8.0);
                let (b, bb) = self.fe_capped(d, 8.0);
                (bin(BinOp::Mul, a, b), ab * bb)
            }
            2 => {
                let (a, ab) = self.fe(d);
                let (p, lo, _) = self.pos(d);
                (bin(BinOp::Div, a, p), ab / lo)
            }
            3 => {
                let (a, ab) = self.fe(d);
                (FE::Neg(Box::new(a)), ab)
            }
            4 => {
                let name = *self.rng.pick(&["sin", "cos", "tanh", "atan", "asinh"]);
                let (a, ab) = self.receiver(d, 100.0);
                let b = match name {
                    "atan" => 1.58,
                    "asinh" => ab.asinh(),
                    _ => 1.0,
                };
                (self.unary(name, a), b)
            }
            5 => {
                let name = *self.rng.pick(&["exp", "exp2", "exp_m1", "sinh", "cosh"]);
                let (a, ab) = self.receiver(d, EXP_ARG);
                let b = match name {
                    "exp2" => ab.exp2(),
                    _ => ab.exp(),
                };
                (self.unary(name, a), b)
            }
            6 => {
                let (p, lo, hi) = self.pos(d);
                match self.rng.below(8) {
                    0 => (self.unary("sqrt", p), hi.sqrt()),
                    1 => (self.unary("cbrt", p), hi.cbrt()),
                    2 => (self.unary("ln", p), hi.ln().abs().max(lo.ln().abs())),
                    3 => (self.unary("log2", p), hi.log2().abs().max(lo.log2().abs())),
                    4 => (
                        self.unary("log10", p),
                        hi.log10().abs().max(lo.log10().abs()),
                    ),
                    5 => {
                        let base = *self.rng.pick(&[2.5, 3.0, 10.0]);
                        let b = (hi.ln().abs().max(lo.ln().abs())) / f64::ln(base);
                        (FE::WithLit("log", Box::new(p), base), b)
                    }
                    6 => (self.unary("recip", p), 1.0 / lo),
                    _ => {
                        let e = *self.rng.pick(&[0.5, 1.5, -0.5, 2.5, 0.3]);
                        let b = hi.powf(e).max(lo.powf(e));
                        (FE::WithLit("powf", Box::new(p), e), b)
                    }
                }
            }
            7 => {
                let (a, ab) = self.receiver(d, 8.0);
                // ln_1p(e^2) and ln_1p(0.5 tanh e): arguments above -1.
                if self.rng.chance(0.5) {
                    (
                        self.unary("ln_1p", FE::Powi(Box::new(a), 2)),
                        (ab * ab).ln_1p(),
                    )
                } else {
                    let t = bin(BinOp::Mul, FE::Lit(0.5), un("tanh", a));
                    (self.unary("ln_1p", t), 0.7)
                }
            }
            8 => {
                let (a, _) = self.receiver(d, 100.0);
                let name = *self.rng.pick(&["asin", "acos", "atanh"]);
                let inner = bin(
                    BinOp::Mul,
                    FE::Lit(0.9),
                    un(if self.rng.chance(0.5) { "tanh" } else { "sin" }, a),
                );
                (self.unary(name, inner), 3.15)
            }
            9 => {
                let (a, ab) = self.receiver(d, 8.0);
                let arg = bin(BinOp::Add, FE::Lit(1.5), FE::Powi(Box::new(a), 2));
                (self.unary("acosh", arg), (1.5 + ab * ab).acosh())
            }
            10 => {
                if self.rng.chance(0.7) {
                    let k = self.rng.range(0, 3) as i32;
                    let (a, ab) = self.receiver(d, 2.0);
                    (FE::Powi(Box::new(a), k), ab.powi(k))
                } else {
                    let (p, lo, _) = self.pos(d);
                    let k = -(self.rng.range(1, 2) as i32);
                    (FE::Powi(Box::new(p), k), lo.powi(k))
                }
            }
            11 => {
                let (p, lo, hi) = self.pos(d);
                let (p, _) = if hi > 3.0 {
                    // Keep the base in [lo, 3] and so the power bounded.
                    let q = bin(BinOp::Add, FE::Lit(2.0), un("sin", p));
                    (q, 3.0)
                } else {
                    (p, hi)
                };
                let _ = lo;
                let (e, _) = self.fe_capped(d, 2.0);
                (FE::Binary("powf", Box::new(p), Box::new(e)), 9.0)
            }
            12 => {
                let (a, ab) = self.receiver(d, 50.0);
                let (p, _, hi) = self.pos(d);
                if self.rng.chance(0.5) {
                    (FE::Binary("atan2", Box::new(a), Box::new(p)), 1.58)
                } else {
                    (FE::Binary("hypot", Box::new(a), Box::new(p)), ab + hi)
                }
            }
            13 => {
                let name = *self.rng.pick(&[
                    "abs",
                    "signum",
                    "floor",
                    "ceil",
                    "round",
                    "round_ties_even",
                    "trunc",
                    "fract",
                ]);
                let (a, ab) = self.receiver(d, 50.0);
                let b = match name {
                    "signum" | "fract" => 1.0,
                    "abs" => ab,
                    _ => ab + 1.0,
                };
                (self.unary(name, a), b)
            }
            14 => {
                let (a, ab) = self.receiver(d, 50.0);
                let (b, bb) = self.fe(d);
                let name = if self.rng.chance(0.5) { "min" } else { "max" };
                (FE::Binary(name, Box::new(a), Box::new(b)), ab.max(bb))
            }
            15 => {
                let (a, _) = self.receiver(d, 50.0);
                let lo = *self.rng.pick(&[-1.5, -0.5, 0.0, -2.0]);
                let hi = *self.rng.pick(&[0.5, 1.0, 2.5]);
                (FE::Clamp(Box::new(a), lo, hi), 2.5)
            }
            16 => {
                let (a, ab) = self.receiver(d, 50.0);
                let (b, _) = self.fe(d);
                (FE::Binary("copysign", Box::new(a), Box::new(b)), ab)
            }
            17 => {
                let (a, ab) = self.receiver(d, 8.0);
                let (b, bb) = self.fe_capped(d, 8.0);
                let (c, cb) = self.fe(d);
                (
                    FE::MulAdd(Box::new(a), Box::new(b), Box::new(c)),
                    ab * bb + cb,
                )
            }
            18 => {
                if self.rng.chance(0.5) {
                    let (a, ab) = self.receiver(d, 1.0);
                    (self.unary("to_degrees", a), ab * 57.3)
                } else {
                    let (a, ab) = self.receiver(d, 100.0);
                    (self.unary("to_radians", a), ab / 57.0)
                }
            }
            19 => {
                let (a, _) = self.fe(d);
                let m = *self.rng.pick(&[1.5, 2.0, 0.75]);
                (FE::Rem(Box::new(a), m), m)
            }
            20 => self.call_expr(d).unwrap_or_else(|| self.leaf()),
            21 => {
                let c = self.cond(d);
                let (a, ab) = self.fe(d);
                let (b, bb) = self.fe(d);
                (FE::If(Box::new(c), Box::new(a), Box::new(b)), ab.max(bb))
            }
            22 => {
                let scrutinee = self.any_index(d);
                let mut arms = Vec::new();
                let mut bound: f64 = 0.0;
                let pats = [Pat::Lit(0), Pat::Or(1, 2), Pat::Range(3, 5), Pat::Wild];
                let n = self.rng.range(1, 3);
                // In a guard, as in a macro, `*x` of `for x in a.iter()` does not compile:
                // the macro turns `x` into a value but leaves the guard as it is.
                let guard = self.rng.chance(0.3).then(|| {
                    let outer = self.in_macro;
                    self.in_macro = true;
                    let c = self.cond(0);
                    self.in_macro = outer;
                    Pat::Guard(Box::new(c))
                });
                for p in pats[..n].iter().chain(guard.as_ref()).chain([&Pat::Wild]) {
                    let (e, b) = self.fe(d);
                    bound = bound.max(b);
                    arms.push((p.clone(), e));
                }
                (FE::Match(Box::new(scrutinee), arms), bound)
            }
            23 => {
                let (a, _) = self.receiver(d, 1.2);
                (self.unary("tan", a), 2.6)
            }
            24 => {
                let (init, ib) = self.fe_capped(d, 16.0);
                let name = self.fresh("b");
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: ib,
                    base: ib,
                    spent: 0.0,
                    mutable: false,
                });
                let (v, vb) = self.fe(d);
                self.floats.pop();
                (FE::Block(name, Box::new(init), Box::new(v)), vb)
            }
            25 => {
                let c = self.cond(d);
                let (a, ab) = self.fe(d);
                let (b, bb) = self.fe(d);
                (
                    FE::MatchBool(Box::new(c), Box::new(a), Box::new(b)),
                    ab.max(bb),
                )
            }
            _ => {
                // A base in [1, 3] and an exponent in [-2, 3].
                let (p, _, _) = self.pos(d);
                let base = bin(BinOp::Add, FE::Lit(2.0), un("sin", p));
                let n = self.rng.pick(&self.exponents).clone();
                (FE::PowiVar(Box::new(base), n), 27.0)
            }
        }
    }

    fn unary(&mut self, name: &'static str, arg: FE) -> FE {
        FE::Unary {
            name,
            arg: Box::new(arg),
            path: self.rng.chance(0.1),
        }
    }

    /// A call of an earlier function whose parameters this scope can fill.
    fn call_expr(&mut self, d: usize) -> Option<(FE, f64)> {
        let idx = self.callee(true)?;
        let callee = &self.funcs[idx];
        let args = self.args(&callee.params.clone(), d)?;
        let callee = &self.funcs[idx];
        Some((FE::Call(callee.name.clone(), args), callee.ret_bound))
    }

    /// An earlier function that returns a value (`value`) or any; none with `&mut` outputs in
    /// an expression (a borrow there may clash with a read of the same output).
    fn callee(&mut self, value: bool) -> Option<usize> {
        let candidates: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| {
                let f = &self.funcs[i];
                f.single == self.single
                    && (!value || (f.returns && !f.pair))
                    && (!f.pair || f.pair_shape == Shape::Tuple)
                    && f.params.iter().all(|p| match p.ty {
                        Ty::F | Ty::U(_) | Ty::Pair | Ty::Bool | Ty::Char | Ty::I32(..) => true,
                        Ty::Vec(_) => false,
                        Ty::Out(n) => !value && self.array_for(AKind::Out, n, true).is_some(),
                        Ty::Slice(n) => self.array_for(AKind::Slice, n, false).is_some(),
                        Ty::Arr(n) => self.array_for(AKind::Arr, n, false).is_some(),
                        Ty::ConstSlice(n) => self.array_for(AKind::ConstSlice, n, false).is_some(),
                        Ty::ConstF => self.floats.iter().any(|v| matches!(v.read, FE::ConstF(_))),
                    })
                    && f.params
                        .iter()
                        .filter(|p| matches!(p.ty, Ty::Out(_)))
                        .count()
                        <= 1
            })
            .collect();
        if candidates.is_empty() {
            None
        } else {
            Some(*self.rng.pick(&candidates))
        }
    }

    fn array_for(&self, kind: AKind, len: usize, write: bool) -> Option<String> {
        self.arrays
            .iter()
            .filter(|a| {
                a.len == len
                    && (a.kind == kind || (kind == AKind::Arr && a.kind == AKind::LocalArr))
                    && (!write || !a.locked)
            })
            .map(|a| a.name.clone())
            .next_back()
    }

    fn args(&mut self, params: &[Param], d: usize) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        for p in params {
            args.push(match p.ty {
                Ty::F => Arg::F(self.fe_capped(d, PARAM_CAP).0),
                Ty::U(hi) => Arg::U(self.index(hi + 1)),
                Ty::Slice(n) => Arg::Name(self.array_for(AKind::Slice, n, false)?),
                Ty::Arr(n) => Arg::Name(self.array_for(AKind::Arr, n, false)?),
                Ty::ConstSlice(n) => Arg::Name(self.array_for(AKind::ConstSlice, n, false)?),
                Ty::Out(n) => Arg::Name(self.array_for(AKind::Out, n, true)?),
                Ty::ConstF => {
                    let names: Vec<String> = self
                        .floats
                        .iter()
                        .filter_map(|v| match &v.read {
                            FE::ConstF(n) => Some(n.clone()),
                            _ => None,
                        })
                        .collect();
                    Arg::Name(self.rng.pick(&names).clone())
                }
                Ty::Vec(_) => return None,
                Ty::Pair => Arg::Pair(
                    self.fe_capped(d, PARAM_CAP).0,
                    self.fe_capped(d, PARAM_CAP).0,
                ),
                Ty::Bool => Arg::Bool(self.cond(d.min(1))),
                Ty::Char => Arg::Raw(format!("{:?}", self.rng.pick(&['a', 'b', 'c']))),
                Ty::I32(lo, hi) => Arg::Raw(format!(
                    "{}",
                    lo + self.rng.below((hi - lo + 1) as usize) as i32
                )),
            });
        }
        Some(args)
    }

    fn cond(&mut self, d: usize) -> Cond {
        let outer = self.in_cond;
        self.in_cond = true;
        let c = self.cond_inner(d);
        self.in_cond = outer;
        c
    }

    fn cond_inner(&mut self, d: usize) -> Cond {
        match self.rng.weighted(&[
            8,
            2,
            1,
            1,
            1,
            1,
            1,
            1,
            if self.flags.is_empty() { 0 } else { 2 },
            if self.chars.is_empty() { 0 } else { 2 },
        ]) {
            0 => {
                let (a, _) = self.fe(d);
                let (b, _) = self.fe(d.min(1));
                Cond::F(self.cmp(), a, b)
            }
            1 if !self.ints.is_empty() => {
                let a = self.any_index(d);
                let b = IE::Lit(self.rng.range(0, 3));
                Cond::I(self.cmp(), a, b)
            }
            2 if !self.ints.is_empty() => Cond::Even(self.any_index(d)),
            3 => Cond::And(Box::new(self.cond(0)), Box::new(self.cond(0))),
            4 => Cond::Or(Box::new(self.cond(0)), Box::new(self.cond(0))),
            5 => Cond::Not(Box::new(self.cond(0))),
            6 => {
                let (a, _) = self.receiver(d, 100.0);
                Cond::Finite(a)
            }
            7 => {
                let (a, _) = self.receiver(d, 100.0);
                let (b, _) = self.fe(d.min(1));
                Cond::TotalLt(a, b)
            }
            8 => Cond::Flag(self.rng.pick(&self.flags).clone()),
            9 => {
                let c = *self.rng.pick(&['a', 'b', 'c']);
                Cond::CharIs(self.rng.pick(&self.chars).clone(), c)
            }
            _ => {
                let (a, _) = self.fe(d);
                Cond::F(self.cmp(), a, FE::Lit(0.0))
            }
        }
    }

    fn cmp(&mut self) -> Cmp {
        *self.rng.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge])
    }

    /// Some index expression, of any range (for conditions and `match`).
    fn any_index(&mut self, d: usize) -> IE {
        if self.ints.is_empty() || self.rng.chance(0.15) {
            let (e, _) = self.receiver(d, 50.0);
            return IE::Rem(
                Box::new(IE::FromFloat(Box::new(bin(
                    BinOp::Mul,
                    un("abs", e),
                    FE::Lit(2.0),
                )))),
                7,
            );
        }
        let v = self.rng.pick(&self.ints).clone();
        IE::Var(v.name)
    }

    /// An index in `0..len`.
    fn index(&mut self, len: usize) -> IE {
        let ie = match self.rng.weighted(&[2, 6, 2, 2, 1, 1, 1]) {
            0 => IE::Lit(self.rng.below(len)),
            1 if !self.ints.is_empty() => IE::Var(self.rng.pick(&self.ints).name.clone()),
            2 if !self.ints.is_empty() => {
                let v = self.rng.pick(&self.ints).clone();
                let k = self.rng.range(1, 2);
                if v.lo >= k && self.rng.chance(0.5) {
                    IE::Sub(Box::new(IE::Var(v.name)), Box::new(IE::Lit(k)))
                } else {
                    IE::Add(Box::new(IE::Var(v.name)), Box::new(IE::Lit(k)))
                }
            }
            3 if !self.ints.is_empty() => {
                let v = self.rng.pick(&self.ints).clone();
                if v.hi < len {
                    IE::Sub(Box::new(IE::Lit(len - 1)), Box::new(IE::Var(v.name)))
                } else {
                    IE::Div(Box::new(IE::Var(v.name)), 2)
                }
            }
            4 if self.ints.len() >= 2 => {
                let a = self.rng.pick(&self.ints).clone();
                let b = self.rng.pick(&self.ints).clone();
                let k = self.rng.range(1, 3);
                IE::Add(
                    Box::new(IE::Mul(Box::new(IE::Var(a.name)), Box::new(IE::Lit(k)))),
                    Box::new(IE::Var(b.name)),
                )
            }
            5 => {
                let (e, _) = self.receiver(0, 50.0);
                IE::FromFloat(Box::new(bin(BinOp::Mul, un("abs", e), FE::Lit(2.0))))
            }
            6 if !self.arrays.is_empty() => {
                let a = self.rng.pick(&self.arrays).clone();
                if a.len <= len {
                    IE::Sub(Box::new(IE::Len(a.name)), Box::new(IE::Lit(1)))
                } else {
                    IE::Lit(0)
                }
            }
            _ => IE::Lit(self.rng.below(len)),
        };
        let fits = !matches!(ie, IE::FromFloat(_)) && irange(&ie, self).1 < len;
        if fits { ie } else { IE::Rem(Box::new(ie), len) }
    }

    // -----------------------------------------------------------------------------------------
    // Statements
    // -----------------------------------------------------------------------------------------

    fn block(&mut self, n: usize) -> Vec<Stmt> {
        let marks = (self.floats.len(), self.arrays.len(), self.ints.len());
        let mut out = Vec::new();
        for _ in 0..n {
            if self.size_left == 0 {
                break;
            }
            self.size_left -= 1;
            self.stmt(&mut out);
        }
        self.floats.truncate(marks.0);
        self.arrays.truncate(marks.1);
        self.ints.truncate(marks.2);
        out
    }

    fn nested(&mut self, n: usize) -> Vec<Stmt> {
        self.depth += 1;
        let b = self.block(n);
        self.depth -= 1;
        b
    }

    fn stmt(&mut self, out: &mut Vec<Stmt>) {
        let in_loop = !self.loops.is_empty();
        let deep = self.depth >= 3;
        let weights = [
            8,                           // let
            3,                           // let mut accumulator
            2,                           // let idx
            2,                           // let array
            6,                           // assign / compound
            5,                           // element assign
            if deep { 0 } else { 4 },    // if
            if deep { 0 } else { 5 },    // for
            if deep { 0 } else { 2 },    // while
            if deep { 0 } else { 2 },    // loop
            if deep { 0 } else { 1 },    // let loop
            if deep { 0 } else { 2 },    // counter
            if in_loop { 3 } else { 0 }, // break / continue
            2,                           // return
            2,                           // call statement
            1,                           // let pair / sum / assert
            if deep { 0 } else { 1 },    // match statement
            1,                           // const item / println
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let (e, b) = self.fe(3);
                let (e, b) = self.squash(e, b, 16.0);
                let name = self.fresh("t");
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: b,
                    base: b,
                    spent: 0.0,
                    mutable: false,
                });
                out.push(Stmt::Let {
                    name,
                    mutable: false,
                    typed: self.rng.chance(0.5),
                    init: e,
                });
            }
            1 => {
                let (e, b) = if self.rng.chance(0.4) {
                    (FE::Lit(0.0), 0.0)
                } else {
                    self.fe_capped(2, BASE_CAP)
                };
                let name = self.fresh("s");
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: BASE_CAP + ACC_BUDGET,
                    base: BASE_CAP.max(b),
                    spent: 0.0,
                    mutable: true,
                });
                out.push(Stmt::Let {
                    name,
                    mutable: true,
                    typed: self.rng.chance(0.5),
                    init: e,
                });
            }
            2 => {
                let hi = self.rng.range(1, 5);
                let ie = self.index(hi + 1);
                let (lo, hi) = irange(&ie, self);
                let name = self.fresh("j");
                self.ints.push(IVar {
                    name: name.clone(),
                    lo,
                    hi,
                });
                out.push(Stmt::LetIdx(name, ie));
            }
            3 => {
                let len = self.rng.range(2, 5);
                let vec = self.rng.chance(0.4);
                let init = if self.rng.chance(0.5) {
                    ArrInit::Fill(self.fe_capped(1, BASE_CAP).0, len)
                } else {
                    ArrInit::List((0..len).map(|_| self.fe_capped(2, BASE_CAP).0).collect())
                };
                let name = self.fresh("l");
                self.arrays.push(AVar {
                    name: name.clone(),
                    kind: if vec {
                        AKind::LocalVec
                    } else {
                        AKind::LocalArr
                    },
                    len,
                    cap: BASE_CAP + ACC_BUDGET,
                    base: BASE_CAP,
                    spent: 0.0,
                    locked: false,
                    param_mut: false,
                });
                out.push(Stmt::LetArr { name, vec, init });
            }
            4 => self.assign(out),
            5 => self.assign_elem(out),
            6 => {
                let c = self.cond(2);
                let n = self.rng.range(1, 3);
                let a = self.nested(n);
                let b = if self.rng.chance(0.5) {
                    let n = self.rng.range(1, 2);
                    self.nested(n)
                } else {
                    Vec::new()
                };
                out.push(Stmt::If(c, a, b));
            }
            7 => self.for_loop(out),
            8 => {
                let trips = self.rng.range(1, 4);
                let guard = self.fresh("g");
                let cond = self.rng.chance(0.6).then(|| self.cond(1));
                let body = self.loop_body(trips as f64, false);
                out.push(Stmt::While {
                    guard,
                    trips,
                    cond,
                    body,
                });
            }
            9 => {
                let trips = self.rng.range(1, 4);
                let guard = self.fresh("g");
                let body = self.loop_body(trips as f64, false);
                out.push(Stmt::Loop { guard, trips, body });
            }
            10 => {
                let trips = self.rng.range(1, 4);
                let guard = self.fresh("g");
                let (fallback, _) = self.fe_capped(1, BASE_CAP);
                let mut body = self.loop_body(trips as f64, true);
                // At least one `break value` before the guard's.
                let c = self.cond(1);
                let (v, _) = self.fe_capped(1, BASE_CAP);
                let at = self.rng.below(body.len() + 1);
                body.insert(at, Stmt::If(c, vec![Stmt::Break(Some(v))], Vec::new()));
                let name = self.fresh("r");
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: BASE_CAP,
                    base: BASE_CAP,
                    spent: 0.0,
                    mutable: false,
                });
                out.push(Stmt::LetLoop {
                    name,
                    guard,
                    trips,
                    body,
                    fallback,
                });
            }
            11 => {
                let Some(a) = self.pick_array(false) else {
                    return;
                };
                let start = self.rng.below(a.len - 1);
                let step = self.rng.range(1, 2);
                let trips = (a.len - 1 - start) / step + 1;
                let idx = self.fresh("idx");
                let var = self.fresh("i");
                self.ints.push(IVar {
                    name: idx.clone(),
                    lo: start,
                    hi: start + step * (trips - 1),
                });
                self.ints.push(IVar {
                    name: var.clone(),
                    lo: 0,
                    hi: trips - 1,
                });
                let mut body = self.loop_body(trips as f64, false);
                // The counter's reason to be: an element read at it.
                if let Some(acc) = self.pick_mutable() {
                    let read = FE::Index(a.name.clone(), Box::new(IE::Var(idx.clone())));
                    let (w, wb) = self.fe_capped(1, 1.0);
                    let inc = self.spend(&acc, trips as f64, a.cap * wb);
                    if inc {
                        body.insert(
                            0,
                            Stmt::Assign(acc, AssignOp::Add, bin(BinOp::Mul, read, w)),
                        );
                    }
                }
                self.ints.pop();
                self.ints.pop();
                out.push(Stmt::Counter {
                    idx,
                    start,
                    step,
                    var,
                    trips,
                    body,
                });
            }
            12 => {
                let c = self.cond(1);
                let s = if self.loops.last().unwrap().value_break {
                    let (v, _) = self.fe_capped(1, BASE_CAP);
                    Stmt::Break(Some(v))
                } else if self.rng.chance(0.5) {
                    Stmt::Break(None)
                } else {
                    Stmt::Continue
                };
                out.push(Stmt::If(c, vec![s], Vec::new()));
            }
            13 => {
                let c = self.cond(1);
                // `return;` in a function returning `()` is rejected by the macro (a gap the
                // README does not list), so only functions with a value return early.
                if self.pair && self.shape == Shape::Vec {
                    // An early `return` of a `Vec` does not compile under the macro ("use of
                    // moved value" in its expansion), so none is generated.
                } else if self.pair {
                    let a = self.fe_capped(2, RET_CAP).0;
                    let b = self.fe_capped(2, RET_CAP).0;
                    out.push(Stmt::If(c, vec![Stmt::ReturnPair(a, b)], Vec::new()));
                } else if self.returns {
                    let r = self.fe_capped(2, RET_CAP).0;
                    out.push(Stmt::If(c, vec![Stmt::Return(Some(r))], Vec::new()));
                }
            }
            14 => {
                // A call for its outputs, or a value bound by `let`.
                let Some(idx) = self.callee(false) else {
                    return;
                };
                let params = self.funcs[idx].params.clone();
                let Some(args) = self.args(&params, 1) else {
                    return;
                };
                let f = &self.funcs[idx];
                let (name, returns, spent) = (f.name.clone(), f.returns, f.out_spent);
                let pair = f.pair;
                // The callee's increments land in this function's output.
                for a in &args {
                    if let Arg::Name(n) = a
                        && let Some(av) = self.arrays.iter_mut().find(|v| &v.name == n)
                        && av.kind == AKind::Out
                    {
                        av.spent += spent * self.execs;
                        self.out_spent += spent * self.execs;
                    }
                }
                if pair {
                    let (a, b) = (self.fresh("t"), self.fresh("t"));
                    for n in [&a, &b] {
                        self.floats.push(FVar {
                            name: n.clone(),
                            read: FE::Var(n.clone()),
                            cap: RET_CAP,
                            base: RET_CAP,
                            spent: 0.0,
                            mutable: false,
                        });
                    }
                    out.push(Stmt::LetCallPair(a, b, name, args));
                } else if returns {
                    let t = self.fresh("t");
                    self.floats.push(FVar {
                        name: t.clone(),
                        read: FE::Var(t.clone()),
                        cap: RET_CAP,
                        base: RET_CAP,
                        spent: 0.0,
                        mutable: false,
                    });
                    out.push(Stmt::Let {
                        name: t,
                        mutable: false,
                        typed: true,
                        init: FE::Call(name, args),
                    });
                } else {
                    out.push(Stmt::Call(name, args));
                }
            }
            15 => match self.rng.below(3) {
                0 => {
                    let (a, ab) = self.fe_capped(2, 8.0);
                    let (b, bb) = self.fe_capped(2, 8.0);
                    let (x, y) = (self.fresh("t"), self.fresh("t"));
                    for (n, c) in [(&x, ab), (&y, bb)] {
                        self.floats.push(FVar {
                            name: n.clone(),
                            read: FE::Var(n.clone()),
                            cap: c,
                            base: c,
                            spent: 0.0,
                            mutable: false,
                        });
                    }
                    out.push(Stmt::LetPair(x, y, a, b));
                }
                1 => {
                    let Some(a) = self.pick_array(false) else {
                        return;
                    };
                    let name = self.fresh("t");
                    self.floats.push(FVar {
                        name: name.clone(),
                        read: FE::Var(name.clone()),
                        cap: a.cap * a.len as f64,
                        base: a.cap * a.len as f64,
                        spent: 0.0,
                        mutable: false,
                    });
                    out.push(Stmt::LetSum(name, a.name));
                }
                _ => {
                    // No block with a `let` in a macro's arguments: the macro rejects one there.
                    let outer = self.in_cond;
                    self.in_cond = true;
                    let outer_macro = self.in_macro;
                    self.in_macro = true;
                    let (e, _) = self.receiver(2, 1e3);
                    self.in_cond = outer;
                    self.in_macro = outer_macro;
                    out.push(Stmt::Assert(e, self.rng.chance(0.5)));
                }
            },
            16 => {
                let scrutinee = self.any_index(1);
                let mut arms = Vec::new();
                let pats = [Pat::Lit(0), Pat::Or(1, 2), Pat::Range(3, 5)];
                let n = self.rng.range(1, 3);
                for p in pats[..n].iter().cloned().chain([Pat::Wild]) {
                    let k = self.rng.range(1, 2);
                    arms.push((p, self.nested(k)));
                }
                out.push(Stmt::Match(scrutinee, arms));
            }
            _ => {
                if self.rng.chance(0.7) {
                    let x = *self.rng.pick(&[0.5, 1.5, 0.75, 2.0]);
                    self.counter += 1;
                    let name = format!("C{}", self.counter);
                    self.floats.push(FVar {
                        name: name.clone(),
                        read: FE::ConstItem(name.clone()),
                        cap: x,
                        base: x,
                        spent: 0.0,
                        mutable: false,
                    });
                    out.push(Stmt::Const(name, x));
                } else {
                    // Kept as it is by the macro; never runs, so the output stays readable.
                    // No block with a `let` in its arguments: the macro rejects one there.
                    let outer = self.in_cond;
                    self.in_cond = true;
                    let outer_macro = self.in_macro;
                    self.in_macro = true;
                    let (e, _) = self.fe(1);
                    self.in_cond = outer;
                    self.in_macro = outer_macro;
                    let never = Cond::I(Cmp::Gt, IE::Lit(0), IE::Lit(1));
                    out.push(Stmt::If(never, vec![Stmt::Print(e)], Vec::new()));
                }
            }
        }
    }

    fn pick_array(&mut self, write: bool) -> Option<AVar> {
        let c: Vec<AVar> = self
            .arrays
            .iter()
            .filter(|a| !write || a.writable())
            .cloned()
            .collect();
        (!c.is_empty()).then(|| self.rng.pick(&c).clone())
    }

    fn pick_mutable(&mut self) -> Option<String> {
        let c: Vec<String> = self
            .floats
            .iter()
            .filter(|v| v.mutable)
            .map(|v| v.name.clone())
            .collect();
        (!c.is_empty()).then(|| self.rng.pick(&c).clone())
    }

    /// Spends `execs * inc` of the budget of variable `name`; false if it does not fit.
    fn spend(&mut self, name: &str, execs: f64, inc: f64) -> bool {
        let total = self.execs * execs * inc;
        let v = self
            .floats
            .iter_mut()
            .rev()
            .find(|v| v.name == name)
            .unwrap();
        if v.base + v.spent + total <= v.cap {
            v.spent += total;
            true
        } else {
            false
        }
    }

    fn assign(&mut self, out: &mut Vec<Stmt>) {
        let Some(name) = self.pick_mutable() else {
            return;
        };
        let v = self
            .floats
            .iter()
            .rev()
            .find(|v| v.name == name)
            .unwrap()
            .clone();
        match self.rng.weighted(&[2, 5, 2, 2, 1]) {
            0 => {
                let (e, _) = self.fe_capped(3, v.base);
                out.push(Stmt::Assign(name, AssignOp::Set, e));
            }
            1 => {
                let (e, b) = self.fe(2);
                let room = (v.cap - v.base - v.spent) / self.execs;
                if room < 0.05 {
                    return;
                }
                let (e, b) = self.squash(e, b, room.min(8.0));
                self.spend(&name, 1.0, b);
                let op = if self.rng.chance(0.5) {
                    AssignOp::Add
                } else {
                    AssignOp::Sub
                };
                out.push(Stmt::Assign(name, op, e));
            }
            2 => {
                let (e, _) = self.fe_capped(2, 1.0);
                out.push(Stmt::Assign(name, AssignOp::Mul, e));
            }
            3 => {
                let (p, _, _) = self.pos(1);
                out.push(Stmt::Assign(name, AssignOp::Div, p));
            }
            _ => {
                let m = *self.rng.pick(&[1.5, 2.0, 0.75]);
                out.push(Stmt::Assign(name, AssignOp::Rem, FE::Lit(m)));
            }
        }
    }

    fn assign_elem(&mut self, out: &mut Vec<Stmt>) {
        let Some(a) = self.pick_array(true) else {
            return;
        };
        let mut idx = self.index(a.len);
        // `v[i] += ..` borrows a `Vec` mutably before its index is computed: an index that
        // reads `v` itself does not compile.
        let text = crate::print::Printer::new(crate::print::Flavor::Ad, self.funcs).ie(&idx);
        if text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == a.name)
        {
            idx = IE::Lit(self.rng.below(a.len));
        }
        let room = (a.cap - a.base - a.spent) / self.execs;
        let (op, e) = match self.rng.weighted(&[4, 4, 1, 1]) {
            0 => (AssignOp::Set, self.fe_capped(3, a.base).0),
            1 if room >= 0.05 => {
                let (e, b) = self.fe(2);
                let (e, b) = self.squash(e, b, room.min(8.0));
                let v = self
                    .arrays
                    .iter_mut()
                    .rev()
                    .find(|v| v.name == a.name)
                    .unwrap();
                v.spent += b * self.execs;
                if v.kind == AKind::Out {
                    self.out_spent += b * self.execs;
                }
                (AssignOp::Add, e)
            }
            2 => (AssignOp::Mul, self.fe_capped(2, 1.0).0),
            3 => (AssignOp::Div, self.pos(1).0),
            _ => (AssignOp::Set, self.fe_capped(2, a.base).0),
        };
        out.push(Stmt::AssignElem(a.name, idx, op, e));
    }

    fn loop_body(&mut self, trips: f64, value_break: bool) -> Vec<Stmt> {
        self.loops.push(LoopCtx { value_break });
        let saved = self.execs;
        self.execs *= trips;
        let n = self.rng.range(1, 4);
        let body = self.nested(n);
        self.execs = saved;
        self.loops.pop();
        body
    }

    fn for_loop(&mut self, out: &mut Vec<Stmt>) {
        let iter = self.rng.chance(0.4);
        if iter && let Some(a) = self.pick_array(false) {
            {
                let mark = (self.floats.len(), self.ints.len());
                let locked_before = a.locked;
                let lock = |g: &mut Gen, name: &str, on: bool| {
                    if let Some(v) = g.arrays.iter_mut().rev().find(|v| v.name == name) {
                        v.locked = on;
                    }
                };
                let elem = self.fresh("e");
                let mut b_locked_before = false;
                let kind = match self.rng.below(4) {
                    0 => {
                        let idx = self.fresh("i");
                        self.ints.push(IVar {
                            name: idx.clone(),
                            lo: 0,
                            hi: a.len - 1,
                        });
                        ForKind::Enumerate {
                            idx,
                            elem: elem.clone(),
                            arr: a.name.clone(),
                        }
                    }
                    1 => {
                        let b = self.pick_array(false).unwrap();
                        let y = self.fresh("e");
                        self.floats.push(FVar {
                            name: y.clone(),
                            read: FE::Var(y.clone()),
                            cap: b.cap,
                            base: b.cap,
                            spent: 0.0,
                            mutable: false,
                        });
                        b_locked_before = b.locked;
                        lock(self, &b.name, true);
                        ForKind::Zip {
                            x: elem.clone(),
                            a: a.name.clone(),
                            y,
                            b: b.name.clone(),
                        }
                    }
                    _ => {
                        let slice_like =
                            matches!(a.kind, AKind::Slice | AKind::Out | AKind::ConstSlice);
                        let forms: &[IterForm] = if slice_like {
                            &[IterForm::RefPat, IterForm::Copied, IterForm::Deref]
                        } else {
                            &[
                                IterForm::RefPat,
                                IterForm::Copied,
                                IterForm::Borrow,
                                IterForm::Deref,
                            ]
                        };
                        ForKind::Iter {
                            elem: elem.clone(),
                            arr: a.name.clone(),
                            form: *self.rng.pick(forms),
                        }
                    }
                };
                let read = match &kind {
                    ForKind::Iter {
                        form: IterForm::Deref,
                        ..
                    } => FE::Deref(elem.clone()),
                    _ => FE::Var(elem.clone()),
                };
                self.floats.push(FVar {
                    name: elem,
                    read,
                    cap: a.cap,
                    base: a.cap,
                    spent: 0.0,
                    mutable: false,
                });
                lock(self, &a.name, true);
                let body = self.loop_body(a.len as f64, false);
                lock(self, &a.name, locked_before);
                if let ForKind::Zip { b, .. } = &kind {
                    let b = b.clone();
                    // Unlocked only if no loop around this one iterates over it too.
                    lock(self, &b, b_locked_before);
                    // `a` may be `b`; restore its own state last.
                    lock(self, &a.name, locked_before);
                }
                self.floats.truncate(mark.0);
                self.ints.truncate(mark.1);
                out.push(Stmt::For(kind, body));
                return;
            }
        }
        let var = self.fresh("i");
        // The bounds: literals, a length, or an index parameter.
        let (lo, hi_ie, hi_val) = match self.rng.below(4) {
            0 if !self.arrays.is_empty() => {
                let a = self.rng.pick(&self.arrays).clone();
                (0, IE::Len(a.name), a.len)
            }
            1 => {
                let n = self.ints.iter().find(|i| i.lo == 0 && i.hi <= 4).cloned();
                match n {
                    Some(n) => (0, IE::Var(n.name), n.hi),
                    None => (1, IE::Lit(3), 3),
                }
            }
            _ => {
                let lo = self.rng.range(0, 1);
                let hi = self.rng.range(lo + 1, 5);
                (lo, IE::Lit(hi), hi)
            }
        };
        let inclusive = self.rng.chance(0.15) && matches!(hi_ie, IE::Lit(_));
        let rev = !inclusive && self.rng.chance(0.2);
        let step = if !rev && !inclusive && self.rng.chance(0.15) {
            2
        } else {
            1
        };
        let top = if inclusive { hi_val } else { hi_val.max(1) - 1 };
        let trips = (top + 1).saturating_sub(lo).max(1);
        self.ints.push(IVar {
            name: var.clone(),
            lo,
            hi: top.max(lo),
        });
        let body = self.loop_body(trips as f64, false);
        self.ints.pop();
        out.push(Stmt::For(
            ForKind::Range {
                var,
                lo: IE::Lit(lo),
                hi: hi_ie,
                inclusive,
                rev,
                step,
            },
            body,
        ));
    }
}
