//! A bit cursor over a byte slice: LSB-first bit order, as LLVM bitstreams are packed.
//!
//! It keeps up to 64 not-yet-consumed bits in a register (`cache`) and refills it a word
//! at a time, so the common read is a mask and a shift. It is `Copy` and its slow paths
//! take and return state by value, so a decoder can work on a local copy that the compiler
//! keeps in registers.

use crate::error::{Error, Result};

/// Reads bits least-significant-first from `data`, up to 64 at a time.
/// Positions are absolute bit offsets into `data`.
#[derive(Clone, Copy)]
pub struct BitCursor<'a> {
    data: &'a [u8],
    /// Next byte of `data` not yet loaded into `cache`.
    next: usize,
    /// Unconsumed bits, the next one in bit 0.
    cache: u64,
    /// Number of valid bits in `cache`.
    bits: u32,
}

impl<'a> BitCursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        BitCursor {
            data,
            next: 0,
            cache: 0,
            bits: 0,
        }
    }

    #[inline]
    pub fn pos(&self) -> u64 {
        self.next as u64 * 8 - self.bits as u64
    }

    #[inline]
    pub fn end(&self) -> u64 {
        self.data.len() as u64 * 8
    }

    #[inline]
    pub fn remaining(&self) -> u64 {
        self.end() - self.pos()
    }

    #[inline]
    pub fn at_end(&self) -> bool {
        self.bits == 0 && self.next >= self.data.len()
    }

    /// The bytes the cursor reads.
    #[inline(always)]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Moves to an absolute bit position (not past the end).
    pub fn seek(&mut self, pos: u64) -> Result<()> {
        if pos > self.end() {
            return Err(Error::new(
                self.pos(),
                "bitstream position past the end of the file",
            ));
        }
        self.next = (pos / 8) as usize;
        self.cache = 0;
        self.bits = 0;
        let skip = (pos % 8) as u32;
        if skip > 0 {
            self.refill();
            self.cache >>= skip;
            self.bits -= skip;
        }
        Ok(())
    }

    /// Loads bytes into the cache until it holds at least 56 bits or the data ends.
    #[inline(always)]
    fn refill(&mut self) {
        if self.next + 8 <= self.data.len() {
            let w = u64::from_le_bytes(self.data[self.next..self.next + 8].try_into().unwrap());
            self.cache |= w << self.bits;
            let take = (63 - self.bits) >> 3;
            self.next += take as usize;
            self.bits += take * 8;
        } else {
            *self = refill_tail(*self);
        }
    }

    /// Reads `n` bits (0 ≤ n ≤ 64) as an unsigned value.
    #[inline(always)]
    pub fn read(&mut self, n: u32) -> Result<u64> {
        if n > self.bits {
            if n > 56 {
                let (c, v) = read_wide(*self, n);
                *self = c;
                return v;
            }
            self.refill();
            if n > self.bits {
                return Err(eof(self.pos(), n, self.remaining()));
            }
        }
        let v = self.cache & ((1u64 << n) - 1);
        // n ≤ bits ≤ 63 here except n == 0, so the shift is in range.
        self.cache = self.cache.checked_shr(n).unwrap_or(0);
        self.bits -= n;
        Ok(v)
    }

    /// Reads a variable-bit-rate value with chunks of `w` bits (2 ≤ w ≤ 32); values up to 64 bits.
    #[inline(always)]
    pub fn read_vbr(&mut self, w: u32) -> Result<u64> {
        if self.bits < 2 * w {
            self.refill();
        }
        let mask = (1u64 << w) - 1;
        let hi = 1u64 << (w - 1);
        if self.bits >= 2 * w {
            // One, two or three chunks straight from the cache.
            let c0 = self.cache & mask;
            if c0 & hi == 0 {
                self.cache >>= w;
                self.bits -= w;
                return Ok(c0);
            }
            let c1 = (self.cache >> w) & mask;
            if c1 & hi == 0 {
                self.cache >>= 2 * w;
                self.bits -= 2 * w;
                return Ok((c0 & (hi - 1)) | (c1 << (w - 1)));
            }
            // Three chunks: relative ids of functions, from deep in a body.
            let c2 = (self.cache >> (2 * w)) & mask;
            if self.bits >= 3 * w && c2 & hi == 0 {
                // 3w ≤ bits ≤ 63: the shift is in range.
                self.cache >>= 3 * w;
                self.bits -= 3 * w;
                return Ok((c0 & (hi - 1)) | ((c1 & (hi - 1)) << (w - 1)) | (c2 << (2 * (w - 1))));
            }
        }
        let (c, v) = read_vbr_slow(*self, w);
        *self = c;
        v
    }

    /// `read_vbr` without a branch on the number of chunks (the elements of an array:
    /// phi and call operands): the value ends at the first chunk without its
    /// continuation bit, and `P` gathers the payloads.
    #[inline(always)]
    pub fn read_vbr_flat<P: Pext>(&mut self, w: u32, p: P) -> Result<u64> {
        let (x, bits) = self.window();
        // None in the window: the general path.
        let (v, len) = vbr_at(x, w, p);
        if len <= bits {
            self.consume(len);
            return Ok(v);
        }
        self.read_vbr(w)
    }

    /// The cache, refilled, and the number of its bits that are valid (at least 56 until
    /// the data nears its end). The bits above them are unspecified.
    #[inline(always)]
    pub fn window(&mut self) -> (u64, u32) {
        // Refilled whether needed or not: a test of the bits left would be a branch
        // no predictor gets right.
        self.refill();
        (self.cache, self.bits)
    }

    /// The cache and the number of its valid bits, as they are (not refilled): what is
    /// left of a `window()` after `consume`.
    #[inline(always)]
    pub fn cached(&self) -> (u64, u32) {
        (self.cache, self.bits)
    }

    /// Takes the position of `other`, a copy of this cursor that has read on (the data
    /// are the same: only the position is copied back).
    #[inline(always)]
    pub fn advance_to(&mut self, other: &BitCursor<'a>) {
        debug_assert!(std::ptr::eq(self.data, other.data));
        self.next = other.next;
        self.cache = other.cache;
        self.bits = other.bits;
    }

    /// Consumes `n` bits of a `window()`, n no more than its valid bits.
    #[inline(always)]
    pub fn consume(&mut self, n: u32) {
        debug_assert!(n <= self.bits && n < 64);
        self.cache >>= n;
        self.bits -= n;
    }

    /// Skips to the next multiple of 32 bits.
    #[inline]
    pub fn align32(&mut self) -> Result<()> {
        let pos = self.pos();
        let new = (pos + 31) & !31;
        if new > self.end() {
            return Err(Error::new(
                pos,
                "unexpected end of bitstream while aligning to 32 bits",
            ));
        }
        let skip = (new - pos) as u32;
        if skip > 0 {
            self.read(skip)?;
        }
        Ok(())
    }
}

/// Parallel bit extract: the bits of `x` selected by `mask`, packed at the bottom in
/// order. The record decoder gathers a VBR's payload chunks with it.
pub trait Pext: Copy {
    fn pext(self, x: u64, mask: u64) -> u64;

    /// The low `n` bits of `x` (all of them for n ≥ 64; `n` below 256).
    #[inline(always)]
    fn low(self, x: u64, n: u32) -> u64 {
        if n >= 64 {
            x
        } else {
            x & ((1u64 << n) - 1)
        }
    }

    /// The `k`th lowest set bit of `x` (`k` from 0, below 64) alone; 0 if `x` has no more
    /// than `k` bits set.
    #[inline(always)]
    fn select(self, x: u64, k: u32) -> u64 {
        let mut x = x;
        for _ in 0..k {
            x &= x.wrapping_sub(1);
        }
        x & x.wrapping_neg()
    }
}

/// `Pext` in portable code: one step per run of ones in the mask (a VBR chunk).
#[derive(Clone, Copy, Debug)]
pub struct SoftPext;

impl Pext for SoftPext {
    #[inline(always)]
    fn pext(self, x: u64, mask: u64) -> u64 {
        let (mut m, mut out, mut k) = (mask, 0u64, 0u32);
        while m != 0 {
            let at = m.trailing_zeros();
            // The run of ones at `at` (up to 64 bits).
            let run = (!(m >> at)).trailing_zeros();
            let low = u64::MAX.checked_shr(64 - run).unwrap_or(0);
            out |= ((x >> at) & low).checked_shl(k).unwrap_or(0);
            k += run;
            m &= !(low << at);
        }
        out
    }
}

/// `Pext` by the BMI2 instruction. A value of this type exists only where the CPU has
/// BMI1 and BMI2 (`detect`), which is what makes its use sound.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Bmi2(());

#[cfg(target_arch = "x86_64")]
impl Bmi2 {
    pub fn detect() -> Option<Bmi2> {
        (std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("bmi2"))
            .then_some(Bmi2(()))
    }
}

#[cfg(target_arch = "x86_64")]
impl Pext for Bmi2 {
    #[inline(always)]
    fn pext(self, x: u64, mask: u64) -> u64 {
        // SAFETY: `self` exists, so the CPU has BMI2 (`Bmi2::detect`).
        unsafe { std::arch::x86_64::_pext_u64(x, mask) }
    }

    #[inline(always)]
    fn low(self, x: u64, n: u32) -> u64 {
        // SAFETY: as `pext`.
        unsafe { std::arch::x86_64::_bzhi_u64(x, n) }
    }

    #[inline(always)]
    fn select(self, x: u64, k: u32) -> u64 {
        // SAFETY: as `pext`.
        unsafe { std::arch::x86_64::_pdep_u64(1u64 << (k & 63), x) }
    }
}

#[cold]
#[inline(never)]
fn refill_tail(mut c: BitCursor<'_>) -> BitCursor<'_> {
    // Up to 63 bits, as the word refill: `read` relies on bits < 64.
    while c.bits <= 55 && c.next < c.data.len() {
        c.cache |= (c.data[c.next] as u64) << c.bits;
        c.next += 1;
        c.bits += 8;
    }
    c
}

/// Reads of 57 to 64 bits, in two parts.
#[cold]
#[inline(never)]
fn read_wide(mut c: BitCursor<'_>, n: u32) -> (BitCursor<'_>, Result<u64>) {
    let lo = match c.read(32) {
        Ok(v) => v,
        Err(e) => return (c, Err(e)),
    };
    let hi = c.read(n - 32);
    (c, hi.map(|hi| lo | (hi << 32)))
}

#[cold]
#[inline(never)]
fn eof(pos: u64, n: u32, left: u64) -> Error {
    Error::new(
        pos,
        format!("unexpected end of bitstream: {n} more bits needed, {left} left"),
    )
}

/// The VBR value (chunks of `w` bits, 2 ≤ w ≤ 32) at the bottom of `x`, and its length in
/// bits: a stop bit (a clear continuation bit) ends it, and `p` gathers the payloads.
/// Where `x` holds no stop the length is 65, more than any window.
#[inline(always)]
pub(crate) fn vbr_at<P: Pext>(x: u64, w: u32, p: P) -> (u64, u32) {
    let len = (!x & CONT[w as usize]).trailing_zeros() + 1;
    (p.pext(x, p.low(PAYLOAD[w as usize], len)), len)
}

/// For each VBR width, the continuation bit of every chunk that fits whole in 64 bits.
pub(crate) const CONT: [u64; 33] = {
    let mut t = [0u64; 33];
    let mut w = 2;
    while w <= 32 {
        let mut i = 0;
        while (i + 1) * w <= 64 {
            t[w] |= 1u64 << (i * w + w - 1);
            i += 1;
        }
        w += 1;
    }
    t
};

/// For each VBR width, the payload bits of every chunk (all bits but the continuation bits).
pub(crate) const PAYLOAD: [u64; 33] = {
    let mut t = [0u64; 33];
    let mut w = 2;
    while w <= 32 {
        t[w] = !CONT[w];
        w += 1;
    }
    t
};

/// VBR values of four or more chunks (`read_vbr` decodes up to three from the cache), and
/// values near the end of the data.
#[inline(never)]
fn read_vbr_slow(mut c: BitCursor<'_>, w: u32) -> (BitCursor<'_>, Result<u64>) {
    // Most such values fit in the cache after a refill: find the last chunk (the first
    // without its continuation bit) among the whole chunks there, then gather the payloads.
    if c.bits < 56 {
        c.refill();
    }
    let whole = c.bits / w * w;
    let valid = if whole >= 64 {
        u64::MAX
    } else {
        (1u64 << whole) - 1
    };
    let stops = !c.cache & CONT[w as usize] & valid;
    if stops != 0 {
        let used = (stops.trailing_zeros() / w + 1) * w;
        let payload = (1u64 << (w - 1)) - 1;
        let mut acc = 0u64;
        let mut i = 0;
        let mut shift = 0;
        while i < used {
            acc |= ((c.cache >> i) & payload) << shift;
            i += w;
            shift += w - 1;
        }
        // used ≤ bits ≤ 63 here, and at most 64 payload bits: nothing overflows.
        c.cache = c.cache.checked_shr(used).unwrap_or(0);
        c.bits -= used;
        return (c, Ok(acc));
    }
    read_vbr_generic(c, w)
}

/// VBR decoding chunk by chunk, with every overflow check.
#[cold]
#[inline(never)]
fn read_vbr_generic(mut c: BitCursor<'_>, w: u32) -> (BitCursor<'_>, Result<u64>) {
    let start = c.pos();
    let payload_bits = w - 1;
    let hi = 1u64 << payload_bits;
    let mut acc = 0u64;
    let mut shift = 0;
    loop {
        let piece = match c.read(w) {
            Ok(p) => p,
            Err(e) => return (c, Err(e)),
        };
        let payload = piece & (hi - 1);
        if shift >= 64 {
            if payload != 0 {
                return (
                    c,
                    Err(Error::new(start, "VBR value does not fit in 64 bits")),
                );
            }
        } else {
            if shift + payload_bits > 64 && (payload >> (64 - shift)) != 0 {
                return (
                    c,
                    Err(Error::new(start, "VBR value does not fit in 64 bits")),
                );
            }
            acc |= payload << shift;
        }
        shift += payload_bits;
        if piece & hi == 0 {
            return (c, Ok(acc));
        }
        if shift >= 64 + payload_bits {
            return (
                c,
                Err(Error::new(start, "VBR value does not fit in 64 bits")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `select` isolates the `k`th set bit (0 if there are not that many), portably and
    /// with `pdep` alike.
    #[test]
    fn select_isolates_the_kth_set_bit() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..2000 {
            x = x.rotate_left(17).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ round;
            // Sparse words too, where the high `k`s find no bit.
            let v = if round % 3 == 0 {
                x & x.rotate_left(23) & x.rotate_left(41)
            } else {
                x
            };
            for k in 0..64 {
                let want = (0..64)
                    .filter(|&b| v >> b & 1 == 1)
                    .nth(k as usize)
                    .map_or(0, |b| 1u64 << b);
                assert_eq!(SoftPext.select(v, k), want, "{v:#x} k {k}");
                #[cfg(target_arch = "x86_64")]
                if let Some(p) = Bmi2::detect() {
                    assert_eq!(p.select(v, k), want, "{v:#x} k {k}");
                }
            }
        }
    }

    #[test]
    fn reads_lsb_first() {
        let data = [0b1010_1100u8, 0xff, 0x01, 0, 0, 0, 0, 0, 0, 0];
        let mut c = BitCursor::new(&data);
        assert_eq!(c.read(2).unwrap(), 0b00);
        assert_eq!(c.read(3).unwrap(), 0b011);
        assert_eq!(c.read(3).unwrap(), 0b101);
        assert_eq!(c.read(9).unwrap(), 0x1ff);
        assert_eq!(c.pos(), 17);
    }

    #[test]
    fn reads_64_bits_unaligned() {
        let mut data = vec![0u8; 20];
        // Put 0xdead_beef_0123_4567 at bit 3.
        let v: u128 = (0xdead_beef_0123_4567u128) << 3;
        for (i, b) in data.iter_mut().enumerate().take(16) {
            *b = (v >> (8 * i)) as u8;
        }
        let mut c = BitCursor::new(&data);
        c.read(3).unwrap();
        assert_eq!(c.read(64).unwrap(), 0xdead_beef_0123_4567);
        // Same near the end of the buffer (tail path).
        let mut c = BitCursor::new(&data[..9]);
        c.read(3).unwrap();
        assert_eq!(c.read(64).unwrap(), 0xdead_beef_0123_4567);
        assert!(c.read(6).is_err());
    }

    #[test]
    fn seek_and_positions() {
        let data: Vec<u8> = (0..32u8).collect();
        let mut c = BitCursor::new(&data);
        for pos in [0u64, 3, 8, 13, 64, 130, 255] {
            c.seek(pos).unwrap();
            assert_eq!(c.pos(), pos);
            let byte = data[(pos / 8) as usize] as u64 >> (pos % 8);
            assert_eq!(c.read(1).unwrap(), byte & 1);
        }
        assert!(c.seek(257).is_err());
    }

    #[test]
    fn vbr_limits() {
        // VBR6 of u64::MAX: 13 chunks of 5 payload bits.
        let mut w = crate::bitstream::BitWriter::new();
        w.emit_vbr(u64::MAX, 6);
        w.emit_vbr(3, 6);
        w.emit_vbr(1 << 40, 6);
        w.emit_vbr(40, 6);
        w.emit_vbr(1000, 6);
        let bytes = w.into_bytes();
        let mut c = BitCursor::new(&bytes);
        assert_eq!(c.read_vbr(6).unwrap(), u64::MAX);
        assert_eq!(c.read_vbr(6).unwrap(), 3);
        assert_eq!(c.read_vbr(6).unwrap(), 1 << 40);
        assert_eq!(c.read_vbr(6).unwrap(), 40);
        assert_eq!(c.read_vbr(6).unwrap(), 1000);
        // 14 continuation chunks are too many.
        let data = [0xffu8; 16];
        let mut c = BitCursor::new(&data);
        assert!(c.read_vbr(6).is_err());
    }

    proptest::proptest! {
        /// Any sequence of VBR values of any widths, after any fixed-width prefix, reads
        /// back as written, whichever path (one to three chunks, the cache, chunk by chunk
        /// near the end) decodes it.
        #[test]
        fn vbr_values_read_back(
            prefix in 0u32..64,
            vals in proptest::collection::vec(
                (proptest::prelude::any::<u64>(), 0u32..64, 2u32..=32),
                1..40,
            ),
        ) {
            let mut w = crate::bitstream::BitWriter::new();
            w.emit(0, prefix);
            // Values of every size: shifted down so that small ones are common.
            let vals: Vec<(u64, u32)> = vals.iter().map(|&(v, sh, wd)| (v >> sh, wd)).collect();
            for &(v, wd) in &vals {
                w.emit_vbr(v, wd);
            }
            let bytes = w.into_bytes();
            let mut c = BitCursor::new(&bytes);
            c.read(prefix).unwrap();
            for &(v, wd) in &vals {
                proptest::prop_assert_eq!(c.read_vbr(wd).unwrap(), v);
            }
        }
    }

    #[test]
    fn eof_is_an_error() {
        let data = [0u8; 1];
        let mut c = BitCursor::new(&data);
        assert!(c.read(9).is_err());
        assert_eq!(c.read(8).unwrap(), 0);
        assert!(c.read(1).is_err());
        assert!(c.at_end());
    }
}
