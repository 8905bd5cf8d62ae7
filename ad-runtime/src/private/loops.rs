//! Loops and iterator chains in generated code: their ranges, counters, masks and first items,
//! and `vec![..]` allocated in line.

/// `start + n` in the type of `start`: the end of a replayed loop's range, counted from its
/// start and its trip count.
#[inline(always)]
pub fn offset<T>(start: T, n: usize) -> T
where
    T: Copy + core::ops::Add<Output = T> + TryFrom<usize>,
{
    match T::try_from(n) {
        Ok(n) => start + n,
        Err(_) => unreachable!("ad: a loop ran more times than its counter's type can count"),
    }
}

/// `vec![elem; n]` for generated code, with the buffer allocated here, in line. Inside a large
/// generated function, the optimiser leaves `vec!`'s allocation out of line, and then knows
/// nothing of where the buffer points: a loop that reads one local `Vec` and writes another
/// reloads what it reads after every store and is not vectorised (GMM's triangular product).
/// Allocated in sight, the buffer overlaps no other, as in the primal function.
#[inline(always)]
pub fn vec_repeat<T: Clone>(elem: T, n: usize) -> Vec<T> {
    let layout = match core::alloc::Layout::array::<T>(n) {
        Ok(layout) if layout.size() > 0 => layout,
        // Empty, of a zero-sized type, or too large (which `vec!` reports).
        _ => return vec![elem; n],
    };
    // SAFETY: the layout's size is not zero.
    let buffer = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if buffer.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    for i in 0..n - 1 {
        // SAFETY: `i < n`: within the buffer, each element written once. If `clone` panics, the
        // buffer and the elements written leak, which is safe.
        unsafe { buffer.add(i).write(elem.clone()) };
    }
    // SAFETY: the last element (`n > 0`, since the size is not zero); then all `n` elements are
    // written, in a buffer the global allocator gave with the layout of `n` elements of `T`.
    unsafe {
        buffer.add(n - 1).write(elem);
        Vec::from_raw_parts(buffer, n, n)
    }
}

/// How many words a record like the one in `slot` takes on the tape, or 0 if that varies (such
/// a record is then pushed without the room a loop makes for its records).
#[inline(always)]
pub fn tape_words<T: crate::tape::Tapeable>(_slot: &Option<T>) -> usize {
    T::WORDS.unwrap_or(0)
}

/// The value in iteration `k` of a counter that starts at `start` and each iteration advances by
/// `step`: what the forward sweep computed, whether its additions wrapped or were checked.
#[inline(always)]
pub fn counter_up(start: usize, k: usize, step: usize) -> usize {
    start.wrapping_add(k.wrapping_mul(step))
}

/// The value in iteration `k` of a counter that starts at `start` and each iteration goes back
/// by `step`.
#[inline(always)]
pub fn counter_down(start: usize, k: usize, step: usize) -> usize {
    start.wrapping_sub(k.wrapping_mul(step))
}

/// The sum of no items of the iterator `_chain`, which is built but never run: the value an
/// accumulator of `chain.sum()` starts from, of the type of the chain's items.
pub fn sum_zero<I: Iterator>(_chain: &I) -> I::Item
where
    I::Item: core::iter::Sum<I::Item>,
{
    core::iter::empty().sum()
}

/// The product of no items of the iterator `_chain`, built but never run: where an
/// accumulator of `chain.product()` starts.
pub fn product_one<I: Iterator>(_chain: &I) -> I::Item
where
    I::Item: core::iter::Product<I::Item>,
{
    core::iter::empty().product()
}

/// As [`sum_zero`], for a chain of references to the elements (`a.iter().rev().sum()`): the
/// sum of no elements, of the elements' type.
pub fn sum_zero_ref<'a, I, T>(_chain: &I) -> T
where
    I: Iterator<Item = &'a T>,
    T: core::iter::Sum<T> + 'a,
{
    core::iter::empty().sum()
}

/// As [`product_one`], for a chain of references to the elements.
pub fn product_one_ref<'a, I, T>(_chain: &I) -> T
where
    I: Iterator<Item = &'a T>,
    T: core::iter::Product<T> + 'a,
{
    core::iter::empty().product()
}

/// Which elements a `filter` of an iterator chain keeps, by position among the elements the
/// loop visits: `keep` of each item of `items` (the chain before the `filter`, run as the
/// function runs it). With `before`, the mask of an earlier `filter` of the same chain, `items`
/// yields only the items that one kept, so the mask is `false` where it dropped the element.
/// The predicate decides which items count; its result carries no derivative.
pub fn filter_mask<I, P>(before: Option<&[bool]>, mut items: I, mut keep: P) -> Vec<bool>
where
    I: Iterator,
    P: FnMut(&I::Item) -> bool,
{
    match before {
        None => items.map(|item| keep(&item)).collect(),
        Some(before) => before
            .iter()
            .map(|&kept| match kept {
                true => items.next().is_some_and(|item| keep(&item)),
                false => false,
            })
            .collect(),
    }
}

/// How many elements a mask of `filter_mask` keeps.
pub fn kept(mask: &[bool]) -> usize {
    mask.iter().filter(|k| **k).count()
}

/// The first item of an iterator chain, run as the function runs it: where the best value of
/// `min_by` or `max_by` starts, of the type of the chain's items (the loop then takes the first
/// item again, with its derivative). Panics for an empty chain, as `.unwrap()` of its `None`
/// does.
pub fn first_item<I: Iterator>(mut chain: I) -> I::Item {
    match chain.next() {
        Some(item) => item,
        None => panic!("called `Option::unwrap()` on a `None` value"),
    }
}

/// `n` copies of the first item of an iterator chain (none for `n = 0`): the `Vec` that a loop
/// then writes item by item, with their derivatives, for `collect`.
pub fn vec_like<I: Iterator>(mut chain: I, n: usize) -> Vec<I::Item>
where
    I::Item: Clone,
{
    match (n, chain.next()) {
        (0, _) | (_, None) => Vec::new(),
        (n, Some(first)) => vec![first; n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec_repeat_makes_what_vec_makes() {
        for n in [0, 1, 2, 7] {
            assert_eq!(vec_repeat(1.5f64, n), vec![1.5f64; n]);
            assert_eq!(vec_repeat(-0.0f32, n), vec![-0.0f32; n]);
            assert_eq!(vec_repeat([0.5, 2.0], n), vec![[0.5, 2.0]; n]);
            assert_eq!(
                vec_repeat(String::from("ab"), n),
                vec![String::from("ab"); n]
            );
            assert_eq!(vec_repeat((), n), vec![(); n]);
            let v = vec_repeat(0.0f64, n);
            assert_eq!((v.len(), v.capacity()), (n, n));
        }
        // The zeros keep their sign bits.
        assert!(vec_repeat(-0.0f64, 3).iter().all(|z| z.is_sign_negative()));
        assert!(vec_repeat(-0.0f32, 3).iter().all(|z| z.is_sign_negative()));
    }

    #[test]
    fn vec_repeat_unwinds_from_a_panicking_clone() {
        use std::cell::Cell;
        use std::rc::Rc;
        // Clones and drops counted; the third clone panics.
        struct Fragile(Rc<Cell<(usize, usize)>>);
        impl Clone for Fragile {
            fn clone(&self) -> Self {
                let (clones, drops) = self.0.get();
                assert!(clones < 2, "the third clone fails");
                self.0.set((clones + 1, drops));
                Fragile(self.0.clone())
            }
        }
        impl Drop for Fragile {
            fn drop(&mut self) {
                let (clones, drops) = self.0.get();
                self.0.set((clones, drops + 1));
            }
        }
        let counts = Rc::new(Cell::new((0, 0)));
        let elem = Fragile(counts.clone());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| vec_repeat(elem, 5)));
        assert!(result.is_err());
        // The element given is dropped once; the two clones written are leaked, never dropped
        // (no drop of an element not written, none twice).
        assert_eq!(counts.get(), (2, 1));
        assert_eq!(Rc::strong_count(&counts), 3);
    }

    #[test]
    fn vec_repeat_clones_each_element_but_the_last() {
        use std::cell::Cell;
        use std::rc::Rc;
        let clones = Rc::new(Cell::new(0));
        #[derive(Debug)]
        struct Counted(Rc<Cell<usize>>);
        impl Clone for Counted {
            fn clone(&self) -> Self {
                self.0.set(self.0.get() + 1);
                Counted(self.0.clone())
            }
        }
        let v = vec_repeat(Counted(clones.clone()), 5);
        assert_eq!((v.len(), clones.get()), (5, 4));
        drop(v);
        // Each element dropped once: only this handle is left.
        assert_eq!(Rc::strong_count(&clones), 1);
    }

    #[test]
    #[should_panic(expected = "capacity overflow")]
    fn vec_repeat_too_long_panics_as_vec_does() {
        let _ = vec_repeat(0u64, usize::MAX);
    }
}
