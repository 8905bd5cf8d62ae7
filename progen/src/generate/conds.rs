//! Conditions: float and integer comparisons and their combinations.

use super::*;

impl Gen<'_> {
    pub(super) fn cond(&mut self, d: usize) -> Cond {
        let outer = self.in_cond;
        self.in_cond = true;
        let c = self.cond_inner(d);
        self.in_cond = outer;
        c
    }

    pub(super) fn cond_inner(&mut self, d: usize) -> Cond {
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
            if self.opts.is_empty() || self.in_closure {
                0
            } else {
                1
            },
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
            // `total_cmp` is not a method of `num_traits::Float`.
            7 if !self.generic => {
                let (a, _) = self.receiver(d, 100.0);
                let (b, _) = self.fe(d.min(1));
                Cond::TotalLt(a, b)
            }
            8 => Cond::Flag(self.rng.pick(&self.flags).clone()),
            9 => {
                let c = *self.rng.pick(&['a', 'b', 'c']);
                Cond::CharIs(self.rng.pick(&self.chars).clone(), c)
            }
            10 => {
                let o = self.rng.pick(&self.opts).name.clone();
                Cond::IsSome(o, self.rng.chance(0.5))
            }
            _ => {
                let (a, _) = self.fe(d);
                Cond::F(self.cmp(), a, FE::Lit(0.0))
            }
        }
    }

    pub(super) fn cmp(&mut self) -> Cmp {
        *self.rng.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge])
    }
}
