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
mod bounds;
mod calls;
mod chains;
mod conds;
mod exprs;
mod function;
mod indices;
mod loops;
mod options;
mod slices;
mod stmts;
mod structs;

pub use structs::struct_defs;

use indices::irange;

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
    /// `let row = &a[lo..hi];`: read, measured, looped over and passed on, never written.
    View,
    LocalArr,
    LocalVec,
    /// A window or chunk inside a chain's closure or a `for` loop: read as `w[j]`, and as
    /// `w.len()` if it has at least two elements (a chunk of `chunks` has one: the last may
    /// be shorter than the others).
    Window,
    /// `let row = &mut a[lo..hi];`: written, read, lent to callees that write it; `a` is out
    /// of scope while it lives.
    MutView,
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
    /// Surely carries a derivative (see `Gen::active`): only such locals are lent to callees
    /// that take `&[f64]`.
    active: bool,
}

impl AVar {
    fn writable(&self) -> bool {
        (self.param_mut
            || matches!(
                self.kind,
                AKind::Out | AKind::LocalArr | AKind::LocalVec | AKind::MutView
            ))
            && !self.locked
    }
}

/// An `Option<f64>` in scope: a parameter, a local, a call's result.
#[derive(Clone)]
struct OVar {
    name: String,
    /// A bound on the value of its `Some`.
    cap: f64,
    /// Known to be `Some` here (inside `if let Some(..) = o`, `if o.is_some()`, after
    /// `let Some(..) = o else ..`): `o.unwrap()` may read it.
    some: bool,
}

/// A struct in scope: a parameter, `self`, a local, or a nested field of one (`s.inner`),
/// named by `path`. Its floats are in `floats` (as `s.x`), its integers in `ints`, its arrays
/// and `Vec`s in `farrs`, each with the bound `PARAM_CAP`: a struct is passed on whole, to
/// callees that take their parameters in that bound.
#[derive(Clone)]
struct SVar {
    path: String,
    def: usize,
    /// A `&S` parameter or `self` of a `&self` method: passed on as it is.
    is_ref: bool,
    /// Its fields are written (`s.x = ..`): not captured by closures bound by `let`.
    mutable: bool,
    /// A variable (or `self`), not a field of one.
    top: bool,
}

/// An array or `Vec` field of a struct in scope, read in place as `s.w[i]`.
#[derive(Clone)]
struct FArr {
    path: String,
    len: usize,
    vec: bool,
    mutable: bool,
}

#[derive(Clone)]
struct IVar {
    name: String,
    lo: usize,
    hi: usize,
}

#[derive(Clone)]
struct LoopCtx {
    /// Inside `let v = loop { .. }` or a labelled block: its `break`s carry a value.
    value_break: bool,
    /// `'label: loop ..`: jumps from further in may name it.
    label: Option<String>,
    /// A labelled block, not a loop: only `break 'label value` leaves it.
    block: bool,
}

/// What the generator may use, and how big the functions are.
#[derive(Clone, Copy)]
pub struct Options {
    pub max_stmts: usize,
}

pub struct Gen<'a> {
    rng: &'a mut Rng,
    funcs: &'a [Func],
    /// The struct types of the batch.
    structs: &'a [StructDef],
    svars: Vec<SVar>,
    farrs: Vec<FArr>,
    /// Generating a method of struct `k` (its receiver is the first parameter).
    pub method: Option<usize>,
    /// The function returns struct `k`.
    pub ret_struct: Option<usize>,
    floats: Vec<FVar>,
    arrays: Vec<AVar>,
    ints: Vec<IVar>,
    opts: Vec<OVar>,
    /// `Mode` variables.
    modes: Vec<String>,
    loops: Vec<LoopCtx>,
    execs: f64,
    counter: usize,
    size_left: usize,
    returns: bool,
    pair: bool,
    /// The function returns three floats (with `pair`).
    pub triple: bool,
    /// The function returns `Option<f64>`.
    pub ret_opt: bool,
    shape: Shape,
    out_spent: f64,
    depth: usize,
    /// `bool`, `char` and `i32` parameters.
    flags: Vec<String>,
    chars: Vec<String>,
    exponents: Vec<String>,
    /// Generating an f32 function: it calls only f32 functions.
    pub single: bool,
    /// Generating a function generic over the float type (`Func::generic`): it calls only
    /// generic functions, and leaves out what `num_traits::Float` does not offer or the macro does not
    /// take on a `T` (chains and sums, `total_cmp`, `round_ties_even`, `as usize`,
    /// `println!`), and the `T::sin(x)` form of methods (see `Gen::unary`).
    pub generic: bool,
    /// Inside a condition (of an `if`, a `while`, a guard), or (`in_macro`) in the arguments
    /// of `assert!` or `println!`: no chain there (see `Gen::fe`).
    in_cond: bool,
    in_macro: bool,
    /// Inside a closure: no chains or closures within.
    in_closure: bool,
    /// Closures bound by `let` in scope, with the bound of what they return.
    closures: Vec<(String, f64)>,
    /// `&[f64; N]` parameters.
    arr_refs: Vec<(String, usize)>,
    /// Views in scope: their place in `arrays`, the local they view and whether it was
    /// locked before (it stays locked while the view lives).
    views: Vec<(usize, String, bool)>,
    /// Function parameters (`g0`), called as `g0(e)`.
    fn_params: Vec<String>,
    /// Outputs declared `&mut [f64; N]`.
    out_arrays: Vec<String>,
    /// Arrays of the function's const length `N` (its `[f64; N]` parameters and their `map`s):
    /// passed whole only where a callee takes `[f64; N]` of its own `N`.
    const_arrays: Vec<String>,
    /// Mutable views of outputs and the views of them: not lent to callees that take `&[f64]`
    /// (a view of `let row = &mut y[..];` lent so does not compile under the macro at e54fe8c:
    /// E0609 "no field `1` on type `(Vec<f64>,)`"; of a local it does).
    out_views: Vec<String>,
    /// The function's float parameters.
    float_params: Vec<String>,
    /// Float parameters and locals that surely carry a derivative, by name (names are fresh,
    /// so the list only grows).
    active: Vec<String>,
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

impl<'a> Gen<'a> {
    pub fn new(
        rng: &'a mut Rng,
        funcs: &'a [Func],
        structs: &'a [StructDef],
        opts: Options,
    ) -> Gen<'a> {
        Gen {
            rng,
            funcs,
            structs,
            svars: Vec::new(),
            farrs: Vec::new(),
            method: None,
            ret_struct: None,
            floats: Vec::new(),
            arrays: Vec::new(),
            ints: Vec::new(),
            opts: Vec::new(),
            modes: Vec::new(),
            loops: Vec::new(),
            execs: 1.0,
            counter: 0,
            size_left: opts.max_stmts,
            returns: true,
            pair: false,
            ret_opt: false,
            triple: false,
            shape: Shape::Tuple,
            out_spent: 0.0,
            depth: 0,
            flags: Vec::new(),
            chars: Vec::new(),
            exponents: Vec::new(),
            in_cond: false,
            in_macro: false,
            in_closure: false,
            closures: Vec::new(),
            arr_refs: Vec::new(),
            views: Vec::new(),
            active: Vec::new(),
            float_params: Vec::new(),
            out_views: Vec::new(),
            fn_params: Vec::new(),
            out_arrays: Vec::new(),
            const_arrays: Vec::new(),
            single: false,
            generic: false,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }
}
