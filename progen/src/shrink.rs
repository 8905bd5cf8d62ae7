//! Shrinking: a mismatching function, with the functions it calls, is cut down one edit at a
//! time (drop a statement, unwrap an `if` or a loop, run a loop once, replace a call or an
//! expression by a literal or by a part of it), keeping each edit after which a crate of just
//! these functions still mismatches, until no edit keeps it. The result is written as a test
//! file ready for `tests/`.

use crate::ast::*;
use crate::harness;
use crate::print::{Flavor, Printer};
use crate::run::Runner;
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Builds are a few seconds each; past these a smaller program is not worth the wait.
const MAX_BUILDS: usize = 400;
const MAX_TIME: Duration = Duration::from_secs(20 * 60);

pub fn shrink(
    runner: &Runner,
    funcs: &[Func],
    target: &str,
    seed: u64,
    points: usize,
) -> Result<PathBuf, String> {
    let fails = |cand: &[Func]| -> bool {
        match runner.check_in("shrink", cand, seed, points, Some(target)) {
            Ok(o) => o.results.iter().any(|r| !r.ok()),
            Err(_) => false,
        }
    };
    let cur = reduce(reachable(funcs, target), target, &fails)
        .ok_or("the function does not mismatch in a crate of its own")?;
    let k = cur.iter().position(|f| f.name == target).unwrap();
    let text = harness::test_file(&cur, target, k, seed, points);
    let path = runner.dir.join(format!("regression-{seed}-{target}.rs"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok(path)
}

/// Shrinks a function whose crate does not build, keeping the first error's `message`, and
/// writes the functions for `ad` that are left.
pub fn shrink_build(
    runner: &Runner,
    funcs: &[Func],
    target: &str,
    seed: u64,
    message: &str,
) -> Result<PathBuf, String> {
    let fails = |cand: &[Func]| -> bool {
        match runner.check_in("shrink", cand, seed, 1, Some(target)) {
            Ok(_) => false,
            Err(stderr) => stderr.contains(message),
        }
    };
    let cur = reduce(reachable(funcs, target), target, &fails)
        .ok_or("the function builds in a crate of its own")?;
    let mut text =
        format!("// Written by progen (seed {seed}): does not compile, with \"{message}\".\n\n");
    // The struct types of the batch, which the functions may use.
    text.push_str(&harness::struct_items(
        &crate::generate::struct_defs(seed),
        Flavor::Ad,
    ));
    for f in &cur {
        let mut p = Printer::new(Flavor::Ad, &cur);
        p.function(f, f.deriv == Deriv::Generated);
        text.push_str(&p.finish());
        text.push('\n');
    }
    let path = runner.dir.join(format!("compile-{seed}-{target}.rs"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok(path)
}

/// The smallest program reached from `cur` by single edits that keep `fails`; `None` if
/// `cur` itself does not fail.
fn reduce(mut cur: Vec<Func>, target: &str, fails: &dyn Fn(&[Func]) -> bool) -> Option<Vec<Func>> {
    if !fails(&cur) {
        return None;
    }
    let start = Instant::now();
    let mut builds = 0;
    let mut skip = 0;
    'outer: loop {
        let cands = candidates(&cur, target);
        for (k, cand) in cands.into_iter().enumerate().skip(skip) {
            if builds >= MAX_BUILDS || start.elapsed() > MAX_TIME {
                break 'outer;
            }
            builds += 1;
            let cand = reachable(&cand, target);
            if fails(&cand) {
                cur = cand;
                // Earlier edits failed before and mostly still would: go on from here.
                skip = k.saturating_sub(1);
                continue 'outer;
            }
        }
        if skip == 0 {
            break;
        }
        skip = 0;
    }
    // Parameters of the target that nothing reads any more.
    let mut i = 0;
    while i < cur.iter().find(|f| f.name == target).unwrap().params.len() {
        let mut cand = cur.clone();
        let f = cand.iter_mut().find(|f| f.name == target).unwrap();
        // Not the receiver of a method.
        if f.params[i].name == "self" {
            i += 1;
            continue;
        }
        let name = f.params.remove(i).name;
        let text =
            Printer::new(Flavor::Ad, &cand).render(cand.iter().find(|f| f.name == target).unwrap());
        if !has_word(&text, &name)
            && !cand.iter().any(|f| f.deriv.has_rule() && f.name == target)
            && fails(&cand)
        {
            cur = cand;
        } else {
            i += 1;
        }
    }
    Some(cur)
}

/// The functions that call `name`, directly or not, and `name` itself.
pub fn dependents(funcs: &[Func], name: &str) -> HashSet<String> {
    let mut out: HashSet<String> = HashSet::from([name.to_string()]);
    // Callers come after their callees.
    for f in funcs {
        // The text for ad: it names callees as they are (the oracle's copies of a generic
        // function have a suffix).
        let text = Printer::new(Flavor::Ad, funcs).render(f);
        if out.iter().any(|n| n != &f.name && has_word(&text, n)) {
            out.insert(f.name.clone());
        }
    }
    out
}

/// `target` and the functions it calls, directly or not, in their original order.
fn reachable(funcs: &[Func], target: &str) -> Vec<Func> {
    let mut keep: HashSet<String> = HashSet::new();
    let mut todo = vec![target.to_string()];
    while let Some(n) = todo.pop() {
        if !keep.insert(n.clone()) {
            continue;
        }
        if let Some(f) = funcs.iter().find(|f| f.name == n) {
            let text = Printer::new(Flavor::Ad, funcs).render(f);
            for g in funcs {
                if has_word(&text, &g.name) && !keep.contains(&g.name) {
                    todo.push(g.name.clone());
                }
            }
        }
    }
    funcs
        .iter()
        .filter(|f| keep.contains(&f.name))
        .cloned()
        .collect()
}

fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == word)
}

/// Every single edit of every function, the target's first, bigger cuts first.
fn candidates(funcs: &[Func], target: &str) -> Vec<Vec<Func>> {
    let mut out = Vec::new();
    let mut order: Vec<usize> = (0..funcs.len()).collect();
    order.sort_by_key(|&i| funcs[i].name != target);
    for &i in &order {
        for f in edits(&funcs[i], funcs) {
            let mut c = funcs.to_vec();
            c[i] = f;
            out.push(c);
        }
    }
    out
}

fn edits(f: &Func, funcs: &[Func]) -> Vec<Func> {
    let mut out = Vec::new();
    let n_blocks = count_blocks(&f.body);
    // Drop a statement.
    for b in 0..n_blocks {
        let len = block_len(f, b);
        for s in 0..len {
            let mut g = f.clone();
            let mut removed = None;
            at_block(&mut g.body, b, &mut |blk| removed = Some(blk.remove(s)));
            let names = declared(removed.as_ref().unwrap());
            let text = Printer::new(Flavor::Ad, funcs).render(&g);
            if names.iter().all(|n| !has_word(&text, n)) {
                out.push(g);
            }
        }
    }
    // Unwrap an `if` or a loop, or run a loop at most once.
    for b in 0..n_blocks {
        let len = block_len(f, b);
        for s in 0..len {
            for variant in 0..3 {
                let mut g = f.clone();
                let mut changed = false;
                at_block(&mut g.body, b, &mut |blk| {
                    changed = simplify(blk, s, variant);
                });
                if changed && compiles_plausibly(&g, funcs) {
                    out.push(g);
                }
            }
        }
    }
    // Replace an expression by a literal or by one of its parts.
    let n = count_fes(f);
    for k in 0..n {
        for variant in 0..2 {
            let mut g = f.clone();
            let mut changed = false;
            let mut counter = 0;
            visit_func_fes(&mut g, &mut |e| {
                if counter == k {
                    changed = replace(e, variant);
                }
                counter += 1;
            });
            if changed {
                out.push(g);
            }
        }
    }
    out
}

/// An edit that leaves a name without its binding or a `break` outside a loop cannot compile;
/// spotting that here saves a build.
fn compiles_plausibly(g: &Func, funcs: &[Func]) -> bool {
    let text = Printer::new(Flavor::Ad, funcs).render(g);
    let mut bound = HashSet::new();
    for p in &g.params {
        bound.insert(p.name.clone());
    }
    fn collect(stmts: &[Stmt], bound: &mut HashSet<String>) {
        for s in stmts {
            for n in declared(s) {
                bound.insert(n);
            }
            match s {
                Stmt::If(_, a, b) => {
                    collect(a, bound);
                    collect(b, bound);
                }
                Stmt::For(k, b) => {
                    for n in for_names(k) {
                        bound.insert(n);
                    }
                    collect(b, bound);
                }
                Stmt::While { body, .. } | Stmt::Loop { body, .. } => collect(body, bound),
                Stmt::LetLoop { body, label, .. } => {
                    bound.extend(label.clone());
                    collect(body, bound)
                }
                Stmt::Labelled(l, inner) => {
                    bound.insert(l.clone());
                    collect(std::slice::from_ref(&**inner), bound);
                }
                Stmt::LetBlock { label, body, .. } => {
                    bound.insert(label.clone());
                    collect(body, bound);
                }
                Stmt::IfLet { var, then, els, .. } => {
                    bound.insert(var.clone());
                    collect(then, bound);
                    collect(els, bound);
                }
                Stmt::WhileLet {
                    guard, var, body, ..
                } => {
                    bound.insert(guard.clone());
                    bound.insert(var.clone());
                    collect(body, bound);
                }
                Stmt::LetMutView { body, .. } => collect(body, bound),
                Stmt::Match(_, arms) => {
                    for (_, b) in arms {
                        collect(b, bound);
                    }
                }
                Stmt::Counter { idx, var, body, .. } => {
                    bound.insert(idx.clone());
                    bound.insert(var.clone());
                    collect(body, bound);
                }
                _ => {}
            }
        }
    }
    collect(&g.body, &mut bound);
    let mut copy = g.clone();
    visit_func_fes(&mut copy, &mut |e| bound.extend(fe_binders(e)));
    // Every generated name is a letter run then digits: each such word must be bound.
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            let t = w.trim_start_matches(|c: char| c.is_ascii_lowercase());
            !w.is_empty()
                && !t.is_empty()
                && t.len() < w.len()
                && t.chars().all(|c| c.is_ascii_digit())
                && !w.starts_with('f')
                && !w.starts_with('m')
        })
        .all(|w| bound.contains(w))
        && !loose_jump(&g.body, &[], false)
}

/// A `break` or `continue` outside the loop or labelled block it leaves: unlabelled outside
/// any loop (or right inside a labelled block), labelled where no such label is around.
fn loose_jump(stmts: &[Stmt], labels: &[String], in_loop: bool) -> bool {
    let with = |l: &String| {
        let mut v = labels.to_vec();
        v.push(l.clone());
        v
    };
    stmts.iter().any(|s| match s {
        Stmt::Break(_) | Stmt::Continue => !in_loop,
        Stmt::BreakTo(l, _) | Stmt::ContinueTo(l) => !labels.contains(l),
        Stmt::If(_, a, b) => loose_jump(a, labels, in_loop) || loose_jump(b, labels, in_loop),
        Stmt::Match(_, arms) => arms.iter().any(|(_, b)| loose_jump(b, labels, in_loop)),
        Stmt::Labelled(l, inner) => loose_jump(std::slice::from_ref(&**inner), &with(l), in_loop),
        Stmt::LetBlock { label, body, .. } => loose_jump(body, &with(label), false),
        Stmt::IfLet { then, els, .. } => {
            loose_jump(then, labels, in_loop) || loose_jump(els, labels, in_loop)
        }
        Stmt::LetElse { els, .. } => loose_jump(std::slice::from_ref(&**els), labels, in_loop),
        Stmt::LetLoop {
            label: Some(l),
            body,
            ..
        } => loose_jump(body, &with(l), true),
        Stmt::For(_, body)
        | Stmt::While { body, .. }
        | Stmt::Loop { body, .. }
        | Stmt::LetLoop { body, .. }
        | Stmt::Counter { body, .. }
        | Stmt::WhileLet { body, .. } => loose_jump(body, labels, true),
        Stmt::LetMutView { body, .. } => loose_jump(body, labels, in_loop),
        _ => false,
    })
}

fn for_names(k: &ForKind) -> Vec<String> {
    match k {
        ForKind::Range { var, .. } => vec![var.clone()],
        ForKind::Iter { elem, .. } => vec![elem.clone()],
        ForKind::Enumerate { idx, elem, .. } => vec![idx.clone(), elem.clone()],
        ForKind::Zip { x, y, .. } => vec![x.clone(), y.clone()],
        ForKind::Windows { var, .. } => vec![var.clone()],
    }
}

fn declared(s: &Stmt) -> Vec<String> {
    match s {
        Stmt::Let { name, .. }
        | Stmt::LetIdx(name, _)
        | Stmt::LetArr { name, .. }
        | Stmt::LetSum(name, _)
        | Stmt::LetLoop { name, .. }
        | Stmt::LetBlock { name, .. } => vec![name.clone()],
        Stmt::LetPair(a, b, _, _) => vec![a.clone(), b.clone()],
        Stmt::LetArrPat { names, .. } => names.clone(),
        Stmt::LetCollect(name, _)
        | Stmt::LetClosure { name, .. }
        | Stmt::LetArrMap { name, .. } => vec![name.clone()],
        Stmt::LetOpt(name, ..)
        | Stmt::LetMode(name, _)
        | Stmt::LetOptE(name, _)
        | Stmt::LetView { name, .. }
        | Stmt::LetMutView { name, .. } => {
            vec![name.clone()]
        }
        Stmt::LetElse { var, .. } => vec![var.clone()],
        Stmt::LetStruct { name, .. } => vec![name.clone()],
        Stmt::Const(name, _) => vec![name.clone()],
        Stmt::LetCallTuple(names, _, _) | Stmt::LetTriple { names, .. } => names.clone(),
        _ => Vec::new(),
    }
}

/// Variant 0: an `if` becomes its `then` block, a loop its body; 1: an `if` becomes its
/// `else` block, a loop runs at most once; 2: an `if` loses its `else`.
fn simplify(blk: &mut Vec<Stmt>, s: usize, variant: usize) -> bool {
    let stmt = blk[s].clone();
    let replacement: Option<Vec<Stmt>> = match (&stmt, variant) {
        (Stmt::If(_, a, _), 0) => Some(a.clone()),
        (Stmt::If(_, _, b), 1) => Some(b.clone()),
        (Stmt::If(c, a, b), 2) if !b.is_empty() => {
            Some(vec![Stmt::If(c.clone(), a.clone(), Vec::new())])
        }
        (Stmt::Labelled(_, inner), 0) => Some(vec![(**inner).clone()]),
        (
            Stmt::LetBlock {
                name, body, tail, ..
            },
            0,
        ) => {
            let mut b = body.clone();
            b.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                typed: true,
                init: tail.clone(),
            });
            Some(b)
        }
        (Stmt::For(_, body), 0)
        | (Stmt::While { body, .. }, 0)
        | (Stmt::Loop { body, .. }, 0)
        | (Stmt::Counter { body, .. }, 0) => Some(body.clone()),
        (
            Stmt::While {
                guard,
                trips,
                cond,
                body,
            },
            1,
        ) if *trips > 1 => Some(vec![Stmt::While {
            guard: guard.clone(),
            trips: 1,
            cond: cond.clone(),
            body: body.clone(),
        }]),
        (Stmt::Loop { guard, trips, body }, 1) if *trips > 1 => Some(vec![Stmt::Loop {
            guard: guard.clone(),
            trips: 1,
            body: body.clone(),
        }]),
        (
            Stmt::LetLoop {
                name,
                label,
                guard,
                trips,
                body,
                fallback,
            },
            1,
        ) if *trips > 1 => Some(vec![Stmt::LetLoop {
            name: name.clone(),
            label: label.clone(),
            guard: guard.clone(),
            trips: 1,
            body: body.clone(),
            fallback: fallback.clone(),
        }]),
        (
            Stmt::For(
                ForKind::Range {
                    var,
                    lo: IE::Lit(lo),
                    hi: IE::Lit(hi),
                    inclusive,
                    rev,
                    step,
                },
                body,
            ),
            1,
        ) if hi > &(lo + 1) => Some(vec![Stmt::For(
            ForKind::Range {
                var: var.clone(),
                lo: IE::Lit(*lo),
                hi: IE::Lit(lo + 1),
                inclusive: *inclusive,
                rev: *rev,
                step: *step,
            },
            body.clone(),
        )]),
        _ => None,
    };
    match replacement {
        Some(r) => {
            blk.splice(s..=s, r);
            true
        }
        None => false,
    }
}

/// Variant 0: a literal (a call becomes one too, which drops the callee); 1: the first float
/// operand.
fn replace(e: &mut FE, variant: usize) -> bool {
    match (variant, &*e) {
        (0, FE::Lit(_)) => false,
        (0, _) => {
            *e = FE::Lit(0.5);
            true
        }
        (
            _,
            FE::Lit(_)
            | FE::Var(_)
            | FE::ConstF(_)
            | FE::Deref(_)
            | FE::Index(..)
            | FE::Named(_)
            | FE::ConstItem(_)
            | FE::Field(..)
            | FE::Block(..),
        ) => false,
        (_, FE::FromInt(_) | FE::Call(..) | FE::Unwrap(..) | FE::Method(_)) => false,
        // The arm that reads no binding.
        (_, FE::MatchOpt { none, .. }) => {
            *e = (**none).clone();
            true
        }
        _ => {
            let mut first = None;
            children(e, &mut |c| {
                if first.is_none() {
                    first = Some(c.clone());
                }
            });
            match first {
                Some(c) => {
                    *e = c;
                    true
                }
                None => false,
            }
        }
    }
}

fn children(e: &mut FE, f: &mut dyn FnMut(&mut FE)) {
    match e {
        FE::Neg(a) | FE::Rem(a, _) | FE::Powi(a, _) | FE::WithLit(_, a, _) | FE::Clamp(a, ..) => {
            f(a)
        }
        FE::Unary { arg, .. } | FE::PowiVar(arg, _) => f(arg),
        FE::Block(_, a, b) => {
            f(a);
            f(b);
        }
        FE::MatchBool(c, a, b) => {
            cond_fes(c, f);
            f(a);
            f(b);
        }
        FE::Bin(_, a, b) | FE::Binary(_, a, b) => {
            f(a);
            f(b);
        }
        FE::MulAdd(a, b, c) => {
            f(a);
            f(b);
            f(c);
        }
        FE::If(c, a, b) => {
            cond_fes(c, f);
            f(a);
            f(b);
        }
        FE::Chain(c) => chain_fes(c, f),
        FE::CallClosure(_, a) => f(a),
        FE::MatchPair {
            a,
            b,
            guard,
            first,
            second,
            ..
        } => {
            f(a);
            f(b);
            cond_fes(guard, f);
            f(first);
            f(second);
        }
        FE::Match(i, arms) => {
            scrut_fes(i, f);
            for (_, a) in arms {
                f(a);
            }
        }
        FE::Call(_, args) => {
            for a in args {
                arg_fes(a, f);
            }
        }
        FE::Method(m) => {
            sarg_fes(&mut m.recv, f);
            for a in &mut m.args {
                arg_fes(a, f);
            }
        }
        FE::MatchOpt {
            scrut,
            guarded,
            some,
            none,
            ..
        } => {
            oe_fes(scrut, f);
            if let Some((_, c, g)) = guarded {
                cond_fes(c, f);
                f(g);
            }
            f(some);
            f(none);
        }
        FE::Index(_, i) | FE::FromInt(i) => ie_fes(i, f),
        FE::Unwrap(..)
        | FE::Lit(_)
        | FE::Var(_)
        | FE::ConstF(_)
        | FE::Deref(_)
        | FE::Named(_)
        | FE::ConstItem(_)
        | FE::Field(..) => {}
    }
}

fn chain_fes(c: &mut Chain, f: &mut dyn FnMut(&mut FE)) {
    for a in &mut c.adapters {
        match a {
            Adapter::Map(_, body) => f(body),
            Adapter::Filter(_, cond) => cond_fes(cond, f),
            _ => {}
        }
    }
    if let Consumer::Fold { body, .. } = &mut c.consumer {
        f(body);
    }
}

/// The names an expression node binds for its parts (closure parameters, patterns, blocks).
fn fe_binders(e: &FE) -> Vec<String> {
    match e {
        FE::Block(n, ..) => vec![n.clone()],
        FE::MatchPair { x, y, at, .. } => {
            let mut v = vec![x.clone(), y.clone()];
            v.extend(at.clone());
            v
        }
        FE::MatchOpt { guarded, var, .. } => {
            let mut v = vec![var.clone()];
            v.extend(guarded.as_ref().map(|g| g.0.clone()));
            v
        }
        FE::Chain(c) => chain_binders(c),
        FE::Method(m) => match &m.form {
            MForm::Copy(tmp) => vec![tmp.clone()],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn chain_binders(c: &Chain) -> Vec<String> {
    let mut out = Vec::new();
    for a in &c.adapters {
        match a {
            Adapter::Map(names, _) => out.extend(names.iter().cloned()),
            Adapter::Filter(v, _) => out.push(v.clone()),
            _ => {}
        }
    }
    if let Consumer::Fold { acc, var, .. } = &c.consumer {
        out.push(acc.clone());
        out.push(var.clone());
    }
    out
}

fn arg_fes(a: &mut Arg, f: &mut dyn FnMut(&mut FE)) {
    match a {
        Arg::F(x) => f(x),
        Arg::U(i) => ie_fes(i, f),
        Arg::Pair(x, y) => {
            f(x);
            f(y);
        }
        Arg::Bool(c) => cond_fes(c, f),
        Arg::Opt(o) => oe_fes(o, f),
        Arg::Struct(a) => sarg_fes(a, f),
        Arg::Name(_) | Arg::Raw(_) | Arg::Part(..) | Arg::FnItem(_) => {}
    }
}

/// The float expressions of a struct literal's fields (nested literals too).
fn sarg_fes(a: &mut SArg, f: &mut dyn FnMut(&mut FE)) {
    let l = match a {
        SArg::Lit(l) => l,
        SArg::Call(_, args) => {
            for a in args {
                arg_fes(a, f);
            }
            return;
        }
        SArg::Method(m) => {
            sarg_fes(&mut m.recv, f);
            for a in &mut m.args {
                arg_fes(a, f);
            }
            return;
        }
        SArg::Place(_) | SArg::Ref(_) | SArg::Clone(_) => return,
    };
    if let Some(b) = &mut l.base {
        sarg_fes(b, f);
    }
    for (_, init) in &mut l.fields {
        match init {
            FInit::F(e) => f(e),
            FInit::Arr(ArrInit::Fill(e, _), _) => f(e),
            FInit::Arr(ArrInit::List(es), _) => es.iter_mut().for_each(&mut *f),
            FInit::U(i) => ie_fes(i, f),
            FInit::S(s) => sarg_fes(s, f),
            FInit::Of(..) => {}
        }
    }
}

fn oe_fes(o: &mut OE, f: &mut dyn FnMut(&mut FE)) {
    match o {
        OE::Some(e) => f(e),
        OE::If(c, a, b) => {
            cond_fes(c, f);
            oe_fes(a, f);
            oe_fes(b, f);
        }
        OE::Call(_, args) => {
            for a in args {
                arg_fes(a, f);
            }
        }
        OE::None | OE::Var(_) => {}
    }
}

fn scrut_fes(s: &mut Scrut, f: &mut dyn FnMut(&mut FE)) {
    match s {
        Scrut::Int(i) => ie_fes(i, f),
        Scrut::Pair(a, b) => {
            ie_fes(a, f);
            ie_fes(b, f);
        }
        Scrut::Mode(_) => {}
    }
}

fn ie_fes(i: &mut IE, f: &mut dyn FnMut(&mut FE)) {
    match i {
        IE::Add(a, b) | IE::Sub(a, b) | IE::Mul(a, b) => {
            ie_fes(a, f);
            ie_fes(b, f);
        }
        IE::Div(a, _) | IE::Rem(a, _) => ie_fes(a, f),
        IE::FromFloat(e) => f(e),
        IE::Lit(_) | IE::Var(_) | IE::Len(_) => {}
    }
}

fn cond_fes(c: &mut Cond, f: &mut dyn FnMut(&mut FE)) {
    match c {
        Cond::F(_, a, b) => {
            f(a);
            f(b);
        }
        Cond::I(_, a, b) => {
            ie_fes(a, f);
            ie_fes(b, f);
        }
        Cond::Even(a) => ie_fes(a, f),
        Cond::And(a, b) | Cond::Or(a, b) => {
            cond_fes(a, f);
            cond_fes(b, f);
        }
        Cond::Not(a) => cond_fes(a, f),
        Cond::Finite(a) => f(a),
        Cond::TotalLt(a, b) => {
            f(a);
            f(b);
        }
        Cond::Flag(_) | Cond::CharIs(..) | Cond::IsSome(..) => {}
    }
}

/// Every float expression of `f`, each before its parts.
fn visit_func_fes(f: &mut Func, visit: &mut dyn FnMut(&mut FE)) {
    fn deep(e: &mut FE, visit: &mut dyn FnMut(&mut FE)) {
        visit(e);
        children(e, &mut |c| deep(c, visit));
    }
    fn stmts(ss: &mut [Stmt], visit: &mut dyn FnMut(&mut FE)) {
        for s in ss {
            match s {
                Stmt::Let { init, .. } => deep(init, visit),
                Stmt::LetPair(_, _, a, b) => {
                    deep(a, visit);
                    deep(b, visit);
                }
                Stmt::LetIdx(_, i) => ie_fes(i, &mut |e| deep(e, visit)),
                Stmt::LetArr { init, .. } => match init {
                    ArrInit::Fill(e, _) => deep(e, visit),
                    ArrInit::List(es) => es.iter_mut().for_each(|e| deep(e, visit)),
                },
                Stmt::LetSum(..)
                | Stmt::Continue
                | Stmt::Break(None)
                | Stmt::Return(None)
                | Stmt::BreakTo(_, None)
                | Stmt::ContinueTo(_) => {}
                Stmt::BreakTo(_, Some(e)) => deep(e, visit),
                Stmt::AssignPair(_, _, a, b) => {
                    deep(a, visit);
                    deep(b, visit);
                }
                Stmt::LetArrPat { .. } => {}
                Stmt::LetStruct { init, .. } | Stmt::ReturnStruct(init) => {
                    sarg_fes(init, &mut |e| deep(e, visit))
                }
                Stmt::LetCollect(_, c) => chain_fes(c, &mut |e| deep(e, visit)),
                Stmt::LetClosure { body, .. } | Stmt::LetArrMap { body, .. } => deep(body, visit),
                Stmt::ForIterMut { ops, .. } => {
                    for (_, e) in ops {
                        deep(e, visit);
                    }
                }
                Stmt::LetView { lo, hi, .. } => {
                    ie_fes(lo, &mut |e| deep(e, visit));
                    ie_fes(hi, &mut |e| deep(e, visit));
                }
                Stmt::LetMutView { lo, hi, body, .. } => {
                    ie_fes(lo, &mut |e| deep(e, visit));
                    ie_fes(hi, &mut |e| deep(e, visit));
                    stmts(body, visit);
                }
                Stmt::LetOpt(_, c, init) => {
                    cond_fes(c, &mut |e| deep(e, visit));
                    match init {
                        OptInit::Index(i) => ie_fes(i, &mut |e| deep(e, visit)),
                        OptInit::Float(e) => deep(e, visit),
                    }
                }
                Stmt::LetOptE(_, o) | Stmt::ReturnOpt(o) => oe_fes(o, &mut |e| deep(e, visit)),
                Stmt::IfLet { then, els, .. } => {
                    stmts(then, visit);
                    stmts(els, visit);
                }
                Stmt::LetElse { els, .. } => stmts(std::slice::from_mut(&mut **els), visit),
                Stmt::WhileLet { body, .. } => stmts(body, visit),
                Stmt::Labelled(_, inner) => stmts(std::slice::from_mut(&mut **inner), visit),
                Stmt::LetBlock { body, tail, .. } => {
                    stmts(body, visit);
                    deep(tail, visit);
                }
                Stmt::LetLoop { body, fallback, .. } => {
                    deep(fallback, visit);
                    stmts(body, visit);
                }
                Stmt::Assign(_, _, e) | Stmt::Assert(e, _) | Stmt::Print(e) => deep(e, visit),
                Stmt::Const(..) => {}
                Stmt::LetMode(_, i) => ie_fes(i, &mut |e| deep(e, visit)),
                Stmt::Match(i, arms) => {
                    scrut_fes(i, &mut |e| deep(e, visit));
                    for (_, b) in arms {
                        stmts(b, visit);
                    }
                }
                Stmt::Break(Some(e)) | Stmt::Return(Some(e)) => deep(e, visit),
                Stmt::AssignElem(_, i, _, e) => {
                    ie_fes(i, &mut |e| deep(e, visit));
                    deep(e, visit);
                }
                Stmt::If(c, a, b) => {
                    cond_fes(c, &mut |e| deep(e, visit));
                    stmts(a, visit);
                    stmts(b, visit);
                }
                Stmt::For(_, body) | Stmt::Loop { body, .. } | Stmt::Counter { body, .. } => {
                    stmts(body, visit)
                }
                Stmt::While { cond, body, .. } => {
                    if let Some(c) = cond {
                        cond_fes(c, &mut |e| deep(e, visit));
                    }
                    stmts(body, visit);
                }
                Stmt::ReturnTuple(es) | Stmt::LetTriple { inits: es, .. } => {
                    for e in es {
                        deep(e, visit);
                    }
                }
                Stmt::Call(_, args) | Stmt::LetCallTuple(_, _, args) => {
                    for a in args {
                        arg_fes(a, &mut |e| deep(e, visit));
                    }
                }
            }
        }
    }
    stmts(&mut f.body, visit);
    if let Some(t) = &mut f.tail {
        deep(t, visit);
    }
    if let Some(t) = &mut f.tail2 {
        deep(t, visit);
    }
    if let Some(t) = &mut f.tail3 {
        deep(t, visit);
    }
    if let Some(t) = &mut f.tail_opt {
        oe_fes(t, &mut |e| deep(e, visit));
    }
    if let Some(t) = &mut f.tail_struct {
        sarg_fes(t, &mut |e| deep(e, visit));
    }
}

fn count_fes(f: &Func) -> usize {
    let mut g = f.clone();
    let mut n = 0;
    visit_func_fes(&mut g, &mut |_| n += 1);
    n
}

fn count_blocks(body: &[Stmt]) -> usize {
    let mut b = body.to_vec();
    let mut n = 0;
    walk_blocks_mut(&mut b, &mut |_| n += 1);
    n
}

fn block_len(f: &Func, k: usize) -> usize {
    let mut b = f.body.clone();
    let mut len = 0;
    at_block(&mut b, k, &mut |blk| len = blk.len());
    len
}

/// Applies `edit` to the `k`-th block, in the order of `walk_blocks_mut`.
fn at_block(body: &mut Vec<Stmt>, k: usize, edit: &mut dyn FnMut(&mut Vec<Stmt>)) {
    let mut n = 0;
    walk_blocks_mut(body, &mut |blk| {
        if n == k {
            edit(blk);
        }
        n += 1;
    });
}
