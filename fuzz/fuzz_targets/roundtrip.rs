//! Reader and writer are mirror images: any input the reader accepts, written back by the
//! writer, reads back to the same model (bit positions aside), and writing that model
//! again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn without_positions(mut m: pnacl::ir::Module) -> pnacl::ir::Module {
    for f in &mut m.functions {
        f.pos = 0;
        if let Some(b) = &mut f.body {
            b.pos = 0;
            b.inst_pos.clear();
        }
    }
    for g in &mut m.globals {
        g.pos = 0;
    }
    m
}

fuzz_target!(|data: &[u8]| {
    let Ok(m) = pnacl::bitcode::read(data) else {
        return;
    };
    let out = pnacl::bitcode::write(&m).expect("a model the reader built can be written");
    let back = pnacl::bitcode::read(&out).expect("the writer's output reads");
    let again = pnacl::bitcode::write(&back).expect("and writes again");
    assert_eq!(out, again, "writing is deterministic");
    assert!(without_positions(back) == without_positions(m), "the model survives");
});
