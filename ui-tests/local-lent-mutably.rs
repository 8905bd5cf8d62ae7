use ad::differentiable;

#[differentiable]
fn fill(y: &mut [f64], x: f64) {
    for i in 0..y.len() {
        y[i] = y[i] * x;
    }
}

// A local lent to a function that writes it, whole or in part.
#[differentiable]
fn whole(x: f64) -> f64 {
    let mut v = vec![1.0; 3];
    fill(&mut v, x);
    v[2]
}

#[differentiable]
fn part(x: f64) -> f64 {
    let mut v = [1.0; 4];
    fill(&mut v[1..3], x);
    v[2]
}

// A part of an output slice, and the whole of one written as a reborrow.
#[differentiable]
fn output_part(y: &mut [f64], x: f64) {
    fill(&mut y[1..], x);
}

#[differentiable]
fn output_reborrowed(y: &mut [f64], x: f64) {
    fill(&mut *y, x);
}

// Integers lent mutably hold no derivative: accepted.
fn swap_first(a: &mut [usize]) {
    a.swap(0, 1);
}

#[differentiable]
fn integers(x: f64) -> f64 {
    let mut order: Vec<usize> = vec![0, 1];
    swap_first(&mut order);
    x * order[0] as f64
}

fn main() {}
