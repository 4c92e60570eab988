//! Prints a family padded with private accesses (see `ptxmc_benches::padded`):
//!
//! `cargo run --release -p ptxmc-benches --example padded -- writers 3 10 stores > w.litmus`

use ptxmc_benches::padded::{padded_source, Pad};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: padded FAMILY N PAD stores|loads|both";
    let [name, n, pad, kind] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let (Ok(n), Ok(pad), Some(kind)) = (n.parse(), pad.parse(), Pad::from_name(kind)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    match padded_source(name, n, pad, kind) {
        Some(text) => print!("{text}"),
        None => {
            eprintln!("unknown family {name}");
            std::process::exit(2);
        }
    }
}
