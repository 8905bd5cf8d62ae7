//! Bounds: squashing an expression into a cap, method receivers with a type, positive
//! expressions with their lower and upper bounds, and the budgets of compound assignments.

use super::*;

impl Gen<'_> {
    /// Squashes `e` (bounded by `b`) into `[-t, t]`.
    pub(super) fn squash(&mut self, e: FE, b: f64, t: f64) -> (FE, f64) {
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

    pub(super) fn fe_capped(&mut self, depth: usize, t: f64) -> (FE, f64) {
        let (e, b) = self.fe(depth);
        self.squash(e, b, t)
    }

    /// A method receiver: never a bare literal (`0.5.sin()` has no type).
    pub(super) fn receiver(&mut self, depth: usize, t: f64) -> (FE, f64) {
        let (e, b) = self.fe_capped(depth, t);
        if !e.has_typed_leaf() {
            let (v, vb) = self.leaf_var();
            return (bin(BinOp::Add, v, e), vb + b);
        }
        (e, b)
    }

    /// A positive expression with its lower and upper bounds.
    pub(super) fn pos(&mut self, depth: usize) -> (FE, f64, f64) {
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

    /// Spends `execs * inc` of the budget of variable `name`; false if it does not fit.
    pub(super) fn spend(&mut self, name: &str, execs: f64, inc: f64) -> bool {
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
}
