//! The line formatter of pnacl-bcdis (writer.md §10.1): text is built from tokens, wrapped
//! greedily at a column limit; clusters move to the next line as a whole when they do not
//! fit; opening brackets push the continuation indent to the column after them (capped);
//! a space that does not fit becomes the line break.

/// A formatting token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Text(String),
    Str(&'static str),
    /// A separating space: written if it fits, otherwise the line breaks there.
    Space,
    /// Pushes the current column (capped) as the continuation indent.
    Push,
    /// Pops the indent pushed last.
    Pop,
    /// Starts a group that should not be split across lines if moving it whole helps.
    Begin,
    End,
}

/// Builds a token list.
#[derive(Debug, Default, Clone)]
pub struct Toks(pub Vec<Tok>);

impl Toks {
    pub fn new() -> Self {
        Toks(Vec::new())
    }
    pub fn s(&mut self, s: &'static str) -> &mut Self {
        self.0.push(Tok::Str(s));
        self
    }
    pub fn t(&mut self, s: impl Into<String>) -> &mut Self {
        self.0.push(Tok::Text(s.into()));
        self
    }
    pub fn sp(&mut self) -> &mut Self {
        self.0.push(Tok::Space);
        self
    }
    /// Writes an opening bracket and pushes the indent after it.
    pub fn open(&mut self, s: &'static str) -> &mut Self {
        self.0.push(Tok::Str(s));
        self.0.push(Tok::Push);
        self
    }
    /// Writes a closing bracket and pops the indent.
    pub fn close(&mut self, s: &'static str) -> &mut Self {
        self.0.push(Tok::Str(s));
        self.0.push(Tok::Pop);
        self
    }
    pub fn begin(&mut self) -> &mut Self {
        self.0.push(Tok::Begin);
        self
    }
    pub fn end(&mut self) -> &mut Self {
        self.0.push(Tok::End);
        self
    }
}

/// Wrapping parameters of one column.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Maximum line length, indentation included.
    pub width: usize,
    /// Largest continuation indent a bracket can push.
    pub cap: usize,
    /// Extra indent of continuation lines when no bracket is open.
    pub cont: usize,
}

fn tok_len(t: &Tok) -> usize {
    match t {
        Tok::Text(s) => s.len(),
        Tok::Str(s) => s.len(),
        Tok::Space => 1,
        _ => 0,
    }
}

/// Formats `toks` starting at column `indent` into one or more lines (each starting with
/// its indentation).
pub fn format(toks: &[Tok], indent: usize, lay: Layout, out: &mut Vec<String>) {
    let mut line = " ".repeat(indent);
    let mut col = indent;
    let mut fresh = true;
    let mut stack: Vec<usize> = Vec::new();
    let cont = |stack: &Vec<usize>| stack.last().copied().unwrap_or(indent + lay.cont);
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Text(_) | Tok::Str(_) => {
                let s: &str = match &toks[i] {
                    Tok::Text(s) => s,
                    Tok::Str(s) => s,
                    _ => unreachable!(),
                };
                if col + s.len() > lay.width && !fresh {
                    out.push(std::mem::take(&mut line));
                    col = cont(&stack);
                    line = " ".repeat(col);
                }
                line.push_str(s);
                col += s.len();
                fresh = false;
            }
            Tok::Space => {
                if col + 1 > lay.width {
                    out.push(std::mem::take(&mut line));
                    col = cont(&stack);
                    line = " ".repeat(col);
                    fresh = true;
                } else {
                    line.push(' ');
                    col += 1;
                }
            }
            Tok::Push => stack.push(col.min(lay.cap)),
            Tok::Pop => {
                stack.pop();
            }
            Tok::Begin => {
                // Length of the group up to its matching End.
                let mut depth = 0;
                let mut len = 0;
                for t in &toks[i + 1..] {
                    match t {
                        Tok::Begin => depth += 1,
                        Tok::End if depth == 0 => break,
                        Tok::End => depth -= 1,
                        t => len += tok_len(t),
                    }
                }
                if col + len > lay.width && !fresh {
                    out.push(std::mem::take(&mut line));
                    col = cont(&stack);
                    line = " ".repeat(col);
                    fresh = true;
                }
            }
            Tok::End => {}
        }
        i += 1;
    }
    out.push(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASM: Layout = Layout {
        width: 39,
        cap: 19,
        cont: 4,
    };

    fn header(ret: &'static str, params: &[(&'static str, &'static str)]) -> Vec<String> {
        let mut t = Toks::new();
        t.s("function")
            .sp()
            .begin()
            .s(ret)
            .sp()
            .begin()
            .open("@f0(");
        for (i, (ty, p)) in params.iter().enumerate() {
            if i > 0 {
                t.s(",").sp();
            }
            t.begin().s(ty).sp().s(p).end();
        }
        t.close(")")
            .end()
            .end()
            .sp()
            .open("{")
            .sp()
            .sp()
            .s("// BlockID = 12");
        let mut out = Vec::new();
        format(&t.0, 2, ASM, &mut out);
        out
    }

    #[test]
    fn function_headers_wrap_like_the_spec() {
        assert_eq!(
            header("i32", &[("i32", "%p0"), ("i32", "%p1")]),
            [
                "  function i32 @f0(i32 %p0, i32 %p1) { ",
                "                   // BlockID = 12"
            ]
        );
        assert_eq!(
            header("void", &[]),
            [
                "  function void @f0() {  ",
                "                   // BlockID = 12"
            ]
        );
        assert_eq!(
            header("float", &[("float", "%p0"), ("float", "%p1")]),
            [
                "  function ",
                "      float @f0(float %p0, float %p1) {",
                "                    // BlockID = 12"
            ]
        );
        assert_eq!(
            header("double", &[("double", "%p0"), ("double", "%p1")]),
            [
                "  function ",
                "      double ",
                "      @f0(double %p0, double %p1) {  ",
                "                   // BlockID = 12"
            ]
        );
        assert_eq!(
            header(
                "void",
                &[
                    ("i32", "%p0"),
                    ("i32", "%p1"),
                    ("i32", "%p2"),
                    ("double", "%p3")
                ]
            ),
            [
                "  function ",
                "      void ",
                "      @f0(i32 %p0, i32 %p1, i32 %p2, ",
                "          double %p3) {  ",
                "                   // BlockID = 12"
            ]
        );
        assert_eq!(
            header("void", &[("float", "%p0"), ("i64", "%p1")]),
            [
                "  function void @f0(float %p0, i64 %p1)",
                "      {  // BlockID = 12"
            ]
        );
        assert_eq!(
            header("i64", &[]),
            ["  function i64 @f0() {  // BlockID = 12"]
        );
    }
}
