//! The records of a table that need none of the CSV quoting rules, split
//! without the csv crate: the reader's fast path.
//!
//! A record is *simple* when it is one line ended by `\n`, with no `\r` and
//! no NUL byte, and each field either holds no `"` or is quoted whole
//! (`"d=a,b=2"`) with no `"` inside. calib's own tables (a quoted stratum,
//! plain numbers) are simple throughout. On such a record the csv crate
//! (`flexible`, its default dialect) yields exactly these fields, so the
//! reader takes them from here and hands every other record, from the first
//! one that is not simple, to the csv crate ([`SimpleLines::next_record`]
//! stops there). Empty lines are skipped, as the csv crate skips them.
//!
//! Speed: the bytes that matter (`,` `"` `\n` `\r` NUL) are found 8 at a time
//! with word-wide bit arithmetic (SWAR), 64 bytes per mask, and only those
//! positions are visited; on a 55 MB table this splits the records in about
//! half the time of the csv crate.

/// One bit per byte of `block` that is `,`, `"`, `\n`, `\r` or NUL, bit `i`
/// for byte `i`.
fn specials(block: &[u8; 64]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` that equals `byte`, exactly (no carry
    // between bytes: the sum is taken on the low 7 bits only).
    let equal = |x: u64, byte: u8| {
        let v = x ^ (ONES * u64::from(byte));
        !(((v & LOW7) + LOW7) | v) & HIGH
    };
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let x = u64::from_le_bytes(bytes);
        let hits =
            equal(x, b',') | equal(x, b'"') | equal(x, b'\n') | equal(x, b'\r') | equal(x, 0);
        // Gathers the 8 high bits into one byte, byte 0's bit lowest.
        let packed = ((hits >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        mask |= packed << (8 * k);
    }
    mask
}

/// Splits the simple records of `bytes[start..]` one by one.
pub(super) struct SimpleLines<'a> {
    bytes: &'a [u8],
    /// Start of the 64-byte block whose specials `mask` holds.
    block: usize,
    /// The specials of that block not visited yet.
    mask: u64,
    /// Where the next line starts.
    line_start: usize,
    /// `\n` bytes visited so far, blank lines included.
    newlines: u64,
    /// Whether a record that is not simple was met (nothing more is split).
    stopped: bool,
}

impl<'a> SimpleLines<'a> {
    pub(super) fn new(bytes: &'a [u8], start: usize) -> SimpleLines<'a> {
        let mut lines = SimpleLines {
            bytes,
            block: start,
            mask: 0,
            line_start: start,
            newlines: 0,
            stopped: start >= bytes.len(),
        };
        if !lines.stopped {
            lines.mask = lines.block_mask();
        }
        lines
    }

    /// The specials of the block at `self.block`; past the end of the bytes,
    /// none.
    fn block_mask(&self) -> u64 {
        let rest = &self.bytes[self.block..];
        match rest.first_chunk::<64>() {
            Some(block) => specials(block),
            None => {
                let mut block = [0u8; 64];
                block[..rest.len()].copy_from_slice(rest);
                specials(&block) & ((1u64 << rest.len()) - 1)
            }
        }
    }

    /// The position of the next special byte, if any.
    fn next_special(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.block += 64;
            if self.block >= self.bytes.len() {
                return None;
            }
            self.mask = self.block_mask();
        }
        let at = self.block + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }

    /// The next simple record: its fields' byte ranges in `fields`, and
    /// (where the record ends, after its `\n`; the `\n` bytes from the start
    /// up to there). `None` at the end of the bytes or at the first record
    /// that is not simple; the caller finds that record after the end of the
    /// last one returned (blank lines between them are skipped).
    pub(super) fn next_record(&mut self, fields: &mut Vec<(usize, usize)>) -> Option<(usize, u64)> {
        fields.clear();
        if self.stopped {
            return None;
        }
        let mut field_start = self.line_start;
        // Inside a quoted field; where a quoted field closed.
        let mut in_quotes = false;
        let mut closed_at: Option<usize> = None;
        while let Some(at) = self.next_special() {
            let byte = self.bytes[at];
            if in_quotes {
                match byte {
                    b'"' => {
                        in_quotes = false;
                        closed_at = Some(at);
                    }
                    b',' | b'\r' => {}
                    _ => break,
                }
                continue;
            }
            // After its closing quote, a field ends at once.
            if closed_at.is_some_and(|q| at != q + 1 || !matches!(byte, b',' | b'\n')) {
                break;
            }
            match byte {
                b'"' if at == field_start => in_quotes = true,
                b',' | b'\n' => {
                    if byte == b'\n' {
                        self.newlines += 1;
                        if at == self.line_start {
                            // A blank line: no record.
                            self.line_start = at + 1;
                            field_start = at + 1;
                            continue;
                        }
                    }
                    fields.push(match closed_at {
                        Some(q) => (field_start + 1, q),
                        None => (field_start, at),
                    });
                    field_start = at + 1;
                    closed_at = None;
                    if byte == b'\n' {
                        self.line_start = at + 1;
                        return Some((at + 1, self.newlines));
                    }
                }
                _ => break,
            }
        }
        // Not simple, or left open at the end: the csv crate judges it.
        self.stopped = true;
        None
    }
}
