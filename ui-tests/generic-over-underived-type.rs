// A function generic over a user's trait, called with a type that has no derivative.
pub trait Energy {
    fn energy(&self) -> f64;
}

pub struct Plain {
    pub k: f64,
}

impl Energy for Plain {
    fn energy(&self) -> f64 {
        self.k
    }
}

#[ad::differentiable]
fn total<E: Energy>(items: &[E]) -> f64 {
    let mut e = 0.0;
    for item in items.iter() {
        e += item.energy();
    }
    e
}

fn main() {
    let springs = [Plain { k: 1.0 }];
    let _ = total(&springs[..]);
}
