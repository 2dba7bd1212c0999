//! Prints the paths of the runtime's objects for a target, compiled with extra flags
//! (cached as pnacl-translate caches its own), one a line: how scripts/bench links a
//! program with the runtime built without the outer sandbox, to measure what it costs.
//!
//!     cargo run --release --example runtime_objects -- x86-32 -DPNACL_NO_SANDBOX

fn main() {
    let mut args = std::env::args().skip(1);
    let target: pnacl::llvm::Target = args
        .next()
        .expect("usage: runtime_objects TARGET [FLAG...]")
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    let flags: Vec<String> = args.collect();
    let flags: Vec<&str> = flags.iter().map(|s| s.as_str()).collect();
    match pnacl::translate::runtime_objects_with(target, &flags) {
        Ok(objs) => {
            for o in objs {
                println!("{}", o.display());
            }
        }
        Err(e) => {
            eprintln!("runtime_objects: {e}");
            std::process::exit(1);
        }
    }
}
