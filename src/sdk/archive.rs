//! `ar` archives of bitcode objects (what `llvm-ar` writes, GNU format): their members and
//! the symbol table that says which member defines which symbol.

use std::collections::HashMap;

/// One member: its name and bytes.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    /// Offset of its header in the archive (what the symbol table points at).
    pub offset: usize,
    pub data: std::ops::Range<usize>,
}

/// A parsed archive.
#[derive(Debug)]
pub struct Archive {
    pub bytes: Vec<u8>,
    pub members: Vec<Member>,
    /// Symbol → the offset of the member defining it (the archive's own table), if the
    /// archive has one.
    pub symbols: Option<HashMap<String, usize>>,
}

pub const MAGIC: &[u8] = b"!<arch>\n";

fn bad(what: &str) -> String {
    format!("not a valid ar archive ({what})")
}

impl Archive {
    pub fn parse(bytes: Vec<u8>) -> Result<Archive, String> {
        if !bytes.starts_with(MAGIC) {
            return Err(bad("no !<arch> magic"));
        }
        let mut members = Vec::new();
        let mut long_names: Option<std::ops::Range<usize>> = None;
        let mut symtab: Option<std::ops::Range<usize>> = None;
        let mut at = MAGIC.len();
        while at + 60 <= bytes.len() {
            let h = &bytes[at..at + 60];
            if &h[58..60] != b"`\n" {
                return Err(bad("a member header without its end marker"));
            }
            let field =
                |r: std::ops::Range<usize>| String::from_utf8_lossy(&h[r]).trim_end().to_string();
            let raw_name = field(0..16);
            let size: usize = field(48..58)
                .parse()
                .map_err(|_| bad("a member size that is not a number"))?;
            let start = at + 60;
            let end = start
                .checked_add(size)
                .filter(|e| *e <= bytes.len())
                .ok_or_else(|| bad("a member past the end"))?;
            match raw_name.as_str() {
                "/" | "/SYM64/" => symtab = Some(start..end),
                "//" => long_names = Some(start..end),
                _ => {
                    let name = if let Some(n) = raw_name.strip_prefix('/') {
                        let off: usize = n.parse().map_err(|_| bad("a long name reference"))?;
                        let table = long_names
                            .clone()
                            .ok_or_else(|| bad("no long name table"))?;
                        let names = &bytes[table];
                        let rest = names
                            .get(off..)
                            .ok_or_else(|| bad("a long name past the table"))?;
                        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                        String::from_utf8_lossy(&rest[..len])
                            .trim_end_matches('/')
                            .to_string()
                    } else {
                        raw_name.trim_end_matches('/').to_string()
                    };
                    members.push(Member {
                        name,
                        offset: at,
                        data: start..end,
                    });
                }
            }
            at = end + (end & 1);
        }
        let symbols = symtab.map(|r| parse_symtab(&bytes[r])).transpose()?;
        Ok(Archive {
            bytes,
            members,
            symbols,
        })
    }

    pub fn data(&self, m: &Member) -> &[u8] {
        &self.bytes[m.data.clone()]
    }

    /// The member whose header is at `offset`.
    pub fn member_at(&self, offset: usize) -> Option<&Member> {
        self.members.iter().find(|m| m.offset == offset)
    }
}

/// The GNU symbol table: a big-endian count, that many member offsets, then the names.
fn parse_symtab(t: &[u8]) -> Result<HashMap<String, usize>, String> {
    let word = |i: usize| -> Result<usize, String> {
        t.get(i..i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| bad("a truncated symbol table"))
    };
    let n = word(0)?;
    if n > t.len() / 4 {
        return Err(bad("a symbol table longer than itself"));
    }
    let mut names = &t[4 + 4 * n..];
    let mut out = HashMap::with_capacity(n);
    for i in 0..n {
        let off = word(4 + 4 * i)?;
        let len = names
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| bad("a symbol name without its end"))?;
        out.entry(String::from_utf8_lossy(&names[..len]).into_owned())
            .or_insert(off);
        names = &names[len + 1..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize) -> Vec<u8> {
        format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644).into_bytes()
    }

    #[test]
    fn reads_members_long_names_and_the_symbol_table() {
        let mut a = MAGIC.to_vec();
        let names = b"a_rather_long_member_nam.o/\n".to_vec();
        // Symbol table: two symbols, both in the member after the tables.
        let mut st = Vec::new();
        let first_member_at = MAGIC.len() + 60 + 24 + 60 + names.len();
        st.extend_from_slice(&2u32.to_be_bytes());
        st.extend_from_slice(&(first_member_at as u32).to_be_bytes());
        st.extend_from_slice(&(first_member_at as u32).to_be_bytes());
        st.extend_from_slice(b"foo\0bar\0");
        st.resize(24, 0);
        a.extend(header("/", st.len()));
        a.extend(&st);
        a.extend(header("//", names.len()));
        a.extend(&names);
        assert_eq!(a.len(), first_member_at);
        a.extend(header("/0", 3));
        a.extend(b"abc\n");
        a.extend(header("short.o/", 2));
        a.extend(b"xy");
        let ar = Archive::parse(a).unwrap();
        assert_eq!(ar.members.len(), 2);
        assert_eq!(ar.members[0].name, "a_rather_long_member_nam.o");
        assert_eq!(ar.data(&ar.members[0]), b"abc");
        assert_eq!(ar.members[1].name, "short.o");
        let syms = ar.symbols.as_ref().unwrap();
        assert_eq!(syms["bar"], first_member_at);
        assert_eq!(
            ar.member_at(syms["foo"]).unwrap().name,
            "a_rather_long_member_nam.o"
        );
    }

    #[test]
    fn refuses_what_is_not_an_archive() {
        assert!(Archive::parse(b"BC\xc0\xde".to_vec()).is_err());
        let mut a = MAGIC.to_vec();
        a.extend(header("x.o/", 1000));
        assert!(Archive::parse(a).unwrap_err().contains("past the end"));
    }
}
