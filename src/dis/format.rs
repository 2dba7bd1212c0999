//! The line formatter of pnacl-bcdis (writer.md §10.1), as the historical tool's
//! `TextFormatter` wrapped its columns: tokens are written greedily up to a width; a token
//! that does not fit starts a new line (unless the line is still empty); a space that does
//! not fit becomes the line break; a cluster that does not fit starts a new line as a
//! whole, then its tokens are written as above; an opening bracket sets the indent of the
//! lines it continues to the column after it (capped so that `min_width` columns remain),
//! and otherwise a continuation line is indented `cont` columns past the line's own indent.

use crate::ir::asm::{Tok, Tokens};

/// Wrapping parameters of one column.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Maximum line length, label and indentation included.
    pub width: usize,
    /// Columns a bracket's indent always leaves on the line.
    pub min_width: usize,
    /// Extra indent of continuation lines when no bracket is open.
    pub cont: usize,
}

/// The lines of one column, end to end in one buffer (reused between records).
#[derive(Debug, Default)]
pub struct Column {
    pub buf: Vec<u8>,
    ends: Vec<usize>,
    indents: Vec<usize>,
}

impl Column {
    pub fn clear(&mut self) {
        self.buf.clear();
        self.ends.clear();
    }

    pub fn lines(&self) -> usize {
        self.ends.len()
    }

    pub fn line(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }
}

struct State<'c> {
    lay: Layout,
    col: &'c mut Column,
    /// The record column's `BYTE:BIT` label, written before the first line (blanks before
    /// the others), then `|`; empty for the assembly column.
    label: &'c [u8],
    depth: usize,
    /// Column of the next character; 0 before a line's indentation is written.
    pos: usize,
    /// Indent set by the innermost open bracket (0: none).
    cur: usize,
    /// No character of the current instruction written yet.
    at_begin: bool,
    /// Indentation of the instruction's lines (two columns a depth).
    line_indent: usize,
}

impl State<'_> {
    fn newline(&mut self) {
        self.col.ends.push(self.col.buf.len());
        self.pos = 0;
        self.at_begin = false;
    }

    fn spaces(&mut self, n: usize) {
        self.col.buf.resize(self.col.buf.len() + n, b' ');
    }

    fn line_indents(&mut self) {
        if !self.label.is_empty() {
            if self.at_begin {
                self.col.buf.extend_from_slice(self.label);
            } else {
                self.spaces(self.label.len());
            }
            self.col.buf.push(b'|');
            self.pos += self.label.len() + 1;
        }
        if self.at_begin {
            self.line_indent = 2 * self.depth;
        }
        self.spaces(self.line_indent);
        self.pos += self.line_indent;
        let cap = self.lay.width - self.lay.min_width;
        let target = if !self.at_begin && self.cur == 0 {
            (self.pos + self.lay.cont).min(cap)
        } else {
            self.cur
        };
        if target > self.pos {
            self.spaces(target - self.pos);
            self.pos = target;
        }
    }

    fn write(&mut self, s: &[u8]) {
        if s.is_empty() {
            return;
        }
        if self.pos == 0 {
            self.line_indents();
        }
        self.col.buf.extend_from_slice(s);
        self.pos += s.len();
        self.at_begin = false;
    }

    /// Starts a new line unless `n` more columns fit (or the line is still empty).
    fn wrap_for(&mut self, n: usize) -> bool {
        if self.pos + n <= self.lay.width || self.pos == 0 {
            false
        } else {
            self.newline();
            true
        }
    }

    fn endline(&mut self) {
        self.newline();
        self.cur = 0;
        self.at_begin = true;
        self.line_indent = 0;
    }
}

/// Formats `t` at `depth` (two columns a depth) into lines appended to `col`.
pub fn format(t: &Tokens, depth: usize, lay: Layout, label: &[u8], col: &mut Column) {
    if t.is_empty() {
        return;
    }
    let mut indents = std::mem::take(&mut col.indents);
    indents.clear();
    let mut st = State {
        lay,
        col,
        label,
        depth,
        pos: 0,
        cur: 0,
        at_begin: true,
        line_indent: 0,
    };
    let text = t.text.as_bytes();
    for tok in &t.toks {
        match *tok {
            Tok::Text { start, end } => {
                let s = &text[start as usize..end as usize];
                st.wrap_for(s.len());
                st.write(s);
            }
            Tok::Space => {
                if !st.wrap_for(1) {
                    st.write(b" ");
                }
            }
            Tok::Push => {
                indents.push(st.cur);
                st.cur = st.pos.min(lay.width - lay.min_width);
            }
            Tok::Pop => {
                if let Some(i) = indents.pop() {
                    st.cur = i;
                }
            }
            Tok::Begin { len } => {
                st.wrap_for(len as usize);
            }
            Tok::End => {}
            Tok::Line { depth: d } => {
                st.endline();
                st.depth = depth + d as usize;
            }
        }
    }
    st.endline();
    col.indents = indents;
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASM: Layout = Layout {
        width: 39,
        min_width: 20,
        cont: 4,
    };

    fn lines(t: &Tokens, depth: usize) -> Vec<String> {
        let mut col = Column::default();
        format(t, depth, ASM, b"", &mut col);
        (0..col.lines())
            .map(|i| String::from_utf8(col.line(i).to_vec()).unwrap())
            .collect()
    }

    fn header(ret: &'static str, params: &[(&'static str, &'static str)]) -> Vec<String> {
        let mut t = Tokens::new();
        t.s("function").sp().begin().s(ret).sp().begin().s("@f0");
        crate::ir::asm::params(&mut t, params.len(), |t, i| {
            t.s(params[i].0).sp().s(params[i].1);
        });
        t.end().end().sp().open("{").sp().sp().s("// BlockID = 12");
        lines(&t, 1)
    }

    #[test]
    fn function_headers_wrap_like_the_spec() {
        // (return type, parameters, the lines)
        type Case<'s> = (&'s str, &'s [(&'s str, &'s str)], &'s [&'s str]);
        let cases: [Case; 7] = [
            (
                "i32",
                &[("i32", "%p0"), ("i32", "%p1")],
                &[
                    "  function i32 @f0(i32 %p0, i32 %p1) { ",
                    "                   // BlockID = 12",
                ],
            ),
            (
                "void",
                &[],
                &[
                    "  function void @f0() {  ",
                    "                   // BlockID = 12",
                ],
            ),
            (
                "float",
                &[("float", "%p0"), ("float", "%p1")],
                &[
                    "  function ",
                    "      float @f0(float %p0, float %p1) {",
                    "                    // BlockID = 12",
                ],
            ),
            (
                "double",
                &[("double", "%p0"), ("double", "%p1")],
                &[
                    "  function ",
                    "      double ",
                    "      @f0(double %p0, double %p1) {  ",
                    "                   // BlockID = 12",
                ],
            ),
            (
                "void",
                &[
                    ("i32", "%p0"),
                    ("i32", "%p1"),
                    ("i32", "%p2"),
                    ("double", "%p3"),
                ],
                &[
                    "  function ",
                    "      void ",
                    "      @f0(i32 %p0, i32 %p1, i32 %p2, ",
                    "          double %p3) {  ",
                    "                   // BlockID = 12",
                ],
            ),
            (
                "void",
                &[("float", "%p0"), ("i64", "%p1")],
                &[
                    "  function void @f0(float %p0, i64 %p1)",
                    "      {  // BlockID = 12",
                ],
            ),
            ("i64", &[], &["  function i64 @f0() {  // BlockID = 12"]),
        ];
        for (ret, params, want) in cases {
            assert_eq!(header(ret, params), want, "{ret} {params:?}");
        }
    }

    /// A cluster that does not fit moves whole; the tokens in it still wrap one by one when
    /// the cluster is wider than a line; a space that does not fit is the line break.
    #[test]
    fn clusters_move_whole_then_wrap_by_token() {
        let mut t = Tokens::new();
        t.s("@t18").sp().s("=").sp().begin().s("i32").sp().begin();
        crate::ir::asm::params(&mut t, 6, |t, i| {
            t.s(if i == 5 { "i64" } else { "i32" });
        });
        t.end().s(";").end().sp().s("<%a0>");
        assert_eq!(
            lines(&t, 2),
            [
                "    @t18 = ",
                "        i32 ",
                "        (i32, i32, i32, i32, i32, i64);",
                "        <%a0>"
            ]
        );
    }
}
