//! The PNaCl file header (writer.md §1, §9.1).

use crate::error::{Error, Result};

pub const MAGIC: &[u8; 4] = b"PEXE";
/// The only PNaCl bitcode version there is.
pub const PNACL_VERSION: u32 = 2;
/// Header field tag of the PNaCl version.
const TAG_PNACL_VERSION: u16 = 1;
/// Header field type of a uint32.
const TYPE_UINT32: u16 = 1;
const TYPE_BUFFER: u16 = 0;

/// A parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub pnacl_version: u32,
    /// Byte offset where the bitstream starts (8 + the fields' byte count).
    pub size: usize,
}

/// The 16 bytes of a version-2 header, as pnacl-freeze writes them.
pub fn encode() -> [u8; 16] {
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(MAGIC);
    h[4..6].copy_from_slice(&1u16.to_le_bytes());
    h[6..8].copy_from_slice(&8u16.to_le_bytes());
    h[8..10].copy_from_slice(&((TAG_PNACL_VERSION << 4) | TYPE_UINT32).to_le_bytes());
    h[10..12].copy_from_slice(&4u16.to_le_bytes());
    h[12..16].copy_from_slice(&PNACL_VERSION.to_le_bytes());
    h
}

fn is_llvm_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// Parses and checks the header at the start of `data`.
pub fn parse(data: &[u8]) -> Result<Header> {
    if !data.starts_with(MAGIC) {
        let mut msg =
            String::from("Invalid PNaCl bitcode header: the file does not start with 'PEXE'");
        if is_llvm_bitcode(data) {
            msg.push_str(
                " (it is LLVM bitcode; to run in Chrome, bitcode files must be finalized using \
                 pnacl-finalize)",
            );
        }
        return Err(Error::new(0, msg));
    }
    if data.len() < 8 {
        return Err(Error::new(
            0,
            "Bitcode read failure: the header is truncated",
        ));
    }
    let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
    let num_fields = u16_at(4);
    let num_bytes = u16_at(6) as usize;
    let end = 8 + num_bytes;
    if end > data.len() {
        return Err(Error::new(
            6 * 8,
            format!(
                "Bitcode read failure: the header claims {num_bytes} bytes of fields, but the file has {}",
                data.len() - 8
            ),
        ));
    }
    let mut pos = 8;
    let mut version = None;
    for i in 0..num_fields {
        if pos + 4 > end {
            return Err(Error::new(
                pos as u64 * 8,
                format!("Bitcode read failure: header field {i} runs past the header's {num_bytes} bytes"),
            ));
        }
        let id = u16_at(pos);
        let len = u16_at(pos + 2) as usize;
        let (tag, ty) = (id >> 4, id & 0xf);
        let data_at = pos + 4;
        if data_at + len > end {
            return Err(Error::new(
                pos as u64 * 8,
                format!(
                    "Bitcode read failure: header field {i} ({len} bytes) runs past the header"
                ),
            ));
        }
        match (tag, ty) {
            (TAG_PNACL_VERSION, TYPE_UINT32) => {
                if len != 4 {
                    return Err(Error::new(
                        pos as u64 * 8,
                        format!("Invalid PNaCl bitcode header: the version field has {len} bytes, not 4"),
                    ));
                }
                if version.is_some() {
                    return Err(Error::new(
                        pos as u64 * 8,
                        "Invalid PNaCl bitcode header: two version fields",
                    ));
                }
                version = Some(u32::from_le_bytes(
                    data[data_at..data_at + 4].try_into().unwrap(),
                ));
            }
            (TAG_PNACL_VERSION, t) => {
                return Err(Error::new(
                    pos as u64 * 8,
                    format!(
                        "Invalid PNaCl bitcode header: the version field has type {t}, not uint32"
                    ),
                ))
            }
            (t, TYPE_UINT32 | TYPE_BUFFER) => {
                return Err(Error::new(
                    pos as u64 * 8,
                    format!("Unknown header field(s) found: tag {t}"),
                ))
            }
            (t, ty) => {
                return Err(Error::new(
                    pos as u64 * 8,
                    format!("Unknown header field(s) found: tag {t} with unknown type {ty}"),
                ))
            }
        }
        pos = (data_at + len + 3) & !3;
    }
    if pos != end {
        return Err(Error::new(
            pos as u64 * 8,
            format!(
                "Invalid PNaCl bitcode header: fields take {} bytes, the header says {num_bytes}",
                pos - 8
            ),
        ));
    }
    let v = version.unwrap_or(0);
    if v != PNACL_VERSION {
        return Err(Error::new(
            8 * 8,
            format!("Unsupported PNaCl bitcode version: {v}"),
        ));
    }
    if num_fields != 1 {
        return Err(Error::new(4 * 8, "Unknown header field(s) found"));
    }
    Ok(Header {
        pnacl_version: v,
        size: end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freeze_header_parses() {
        let h = parse(&encode()).unwrap();
        assert_eq!(h.pnacl_version, 2);
        assert_eq!(h.size, 16);
    }

    #[test]
    fn rejects_other_versions_and_junk() {
        let fails = |h: &[u8], why: &str| parse(h).unwrap_err().msg().contains(why);
        let mut h = encode();
        h[12] = 1;
        assert!(fails(&h, "Unsupported PNaCl bitcode version: 1"));
        let mut h = encode();
        h[15] = 1;
        assert!(fails(&h, "Unsupported PNaCl bitcode version: 16777218"));
        assert!(fails(b"BC\xC0\xDE....", "pnacl-finalize"));
        assert!(parse(b"PEXE").is_err());
        let mut h = encode();
        h[6] = 200;
        assert!(fails(&h, "Bitcode read failure"));
        let mut h = encode();
        h[8] = 0x21; // tag 2
        assert!(fails(&h, "Unknown header field"));
    }
}
