use pnacl::bitstream::{Item, Reader};
fn main() {
    let arg = std::env::args().nth(1).unwrap();
    let data = std::fs::read(&arg).unwrap();
    let mut r = Reader::new(&data, 128).unwrap();
    loop {
        let pos = r.pos();
        let d = r.depth();
        match r.next() {
            Ok(Item::Eof) => break,
            Ok(it) => println!("{}:{} {}{:?}", pos / 8, pos % 8, "  ".repeat(d), it),
            Err(e) => {
                println!("ERR {e}");
                break;
            }
        }
    }
}
