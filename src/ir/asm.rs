//! PNaClAsm, the text of spec/000's examples, for the parts of a model: instructions,
//! types, function headers, constants, global initializers.
//!
//! The text is built as a stream of tokens with the line-breaking directives of the
//! historical pnacl-bcdis (writer.md §10): which tokens stay together on a line
//! (clusters), where a bracket sets the indent of the lines it continues, where a space may
//! become a line break. `dis::format` wraps such a stream exactly as that tool did;
//! `Tokens::flat` gives the text on one line (the ABI checker's messages).

use super::{Body, ConstValue, FnType, Init, Inst, InstKind, Module, Type, ValueId, ValueType};

/// One token or directive; text lives in `Tokens::text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// `text[start..end]`, kept whole on a line.
    Text {
        start: u32,
        end: u32,
    },
    /// A space, or the line break in its place when it does not fit.
    Space,
    /// Continuation lines start at the current column (after an opening bracket).
    Push,
    /// Back to the indent before the matching `Push`.
    Pop,
    /// A cluster `len` columns wide (to its `End`): moved whole to the next line when it
    /// does not fit on this one.
    Begin {
        len: u32,
    },
    End,
    /// Ends the line; the next one is a line of its own at `depth` more than the first.
    Line {
        depth: u8,
    },
}

/// A token stream under construction (reused: `clear` keeps the allocations).
#[derive(Debug, Default, Clone)]
pub struct Tokens {
    pub text: String,
    pub toks: Vec<Tok>,
    /// Open clusters: index of the `Begin` and the width written before it.
    open: Vec<(usize, usize)>,
    /// Width written so far (text and spaces), for the clusters' widths.
    width: usize,
}

impl Tokens {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.toks.clear();
        self.open.clear();
        self.width = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.toks.is_empty()
    }

    /// The text of a `Text` token.
    pub fn str(&self, start: u32, end: u32) -> &str {
        &self.text[start as usize..end as usize]
    }

    /// A token whose text `f` appends.
    #[inline]
    pub fn tok(&mut self, f: impl FnOnce(&mut String)) -> &mut Self {
        let start = self.text.len();
        f(&mut self.text);
        let end = self.text.len();
        self.width += end - start;
        self.toks.push(Tok::Text {
            start: start as u32,
            end: end as u32,
        });
        self
    }

    /// A token of text `s`.
    #[inline]
    pub fn s(&mut self, s: &str) -> &mut Self {
        self.tok(|t| t.push_str(s))
    }

    /// A token: `prefix` then the decimal `n` (`%v12`, `@a3`, `5`).
    #[inline]
    pub fn num(&mut self, prefix: &str, n: u64) -> &mut Self {
        self.tok(|t| {
            t.push_str(prefix);
            push_u64(t, n);
        })
    }

    pub fn sp(&mut self) -> &mut Self {
        self.width += 1;
        self.toks.push(Tok::Space);
        self
    }

    /// An opening bracket: continuation lines start after it.
    pub fn open(&mut self, s: &str) -> &mut Self {
        self.s(s);
        self.toks.push(Tok::Push);
        self
    }

    /// A closing bracket: back to the indent before the matching `open`.
    pub fn close(&mut self, s: &str) -> &mut Self {
        self.s(s);
        self.toks.push(Tok::Pop);
        self
    }

    pub fn begin(&mut self) -> &mut Self {
        self.open.push((self.toks.len(), self.width));
        self.toks.push(Tok::Begin { len: 0 });
        self
    }

    pub fn end(&mut self) -> &mut Self {
        if let Some((i, w)) = self.open.pop() {
            self.toks[i] = Tok::Begin {
                len: (self.width - w) as u32,
            };
            self.toks.push(Tok::End);
        }
        self
    }

    /// Ends a line; what follows is a line of its own, `depth` deeper than the first.
    pub fn line(&mut self, depth: u8) -> &mut Self {
        self.toks.push(Tok::Line { depth });
        self
    }

    /// The text on one line (lines joined by a space).
    pub fn flat(&self) -> String {
        let mut out = String::new();
        for t in &self.toks {
            match *t {
                Tok::Text { start, end } => out.push_str(self.str(start, end)),
                Tok::Space | Tok::Line { .. } => out.push(' '),
                _ => {}
            }
        }
        out
    }
}

/// Appends the decimal digits of `n`.
pub fn push_u64(s: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    s.extend(buf[i..].iter().map(|&d| d as char));
}

/// Value names as pnacl-bcdis gives them (writer.md §10.4): an absolute id is `@fN` below
/// the function count, then `@gN` below the globals count, then `%pN`, `%cN`, `%vN`.
#[derive(Debug, Clone, Copy)]
pub struct Names {
    pub nf: u32,
    pub ng: u32,
    pub np: u32,
    pub nc: u32,
}

impl Names {
    /// Names as seen from inside `body`, function `f` of a complete module.
    pub fn of_body(m: &Module, f: u32, body: &Body) -> Names {
        Names {
            nf: m.functions.len() as u32,
            ng: m.globals.len() as u32,
            np: m.fn_type(f).params.len() as u32,
            nc: body.consts.len() as u32,
        }
    }

    /// The prefix and number of value `id`.
    pub fn split(&self, id: ValueId) -> (&'static str, u32) {
        let mut i = id;
        if i < self.nf {
            return ("@f", i);
        }
        i -= self.nf;
        if i < self.ng {
            return ("@g", i);
        }
        i -= self.ng;
        if i < self.np {
            return ("%p", i);
        }
        i -= self.np;
        if i < self.nc {
            return ("%c", i);
        }
        ("%v", i - self.nc)
    }

    /// A token naming value `id`.
    pub fn value<'t>(&self, t: &'t mut Tokens, id: ValueId) -> &'t mut Tokens {
        let (p, n) = self.split(id);
        t.num(p, n as u64)
    }

    pub fn text(&self, id: ValueId) -> String {
        let (p, n) = self.split(id);
        format!("{p}{n}")
    }
}

/// A parenthesized list, as the historical printer's: each element with the comma after it
/// is one cluster; `)` is a token of its own.
pub fn params(t: &mut Tokens, n: usize, mut elem: impl FnMut(&mut Tokens, usize)) {
    t.open("(");
    for i in 0..n {
        if i > 0 {
            t.s(",").end().sp();
        }
        t.begin();
        elem(t, i);
    }
    if n > 0 {
        t.end();
    }
    t.close(")");
}

/// A type of the type table: `i32`, `<4 x float>`, `void (i32, double)`.
pub fn type_(t: &mut Tokens, ty: &Type) {
    match ty {
        Type::Value(v) => {
            t.s(v.name());
        }
        Type::Function(f) => fn_type(t, f),
    }
}

/// `ret (params)`, the parameter list one cluster.
pub fn fn_type(t: &mut Tokens, f: &FnType) {
    t.s(f.ret.name()).sp().begin();
    let n = f.params.len();
    params(t, n + usize::from(f.vararg), |t, i| {
        t.s(f.params.get(i).map_or("...", |p| p.name()));
    });
    t.end();
}

/// The module block's record of function `f`: `declare external i32 @f0(i32);`.
pub fn function_decl(t: &mut Tokens, m: &Module, f: u32) {
    let func = &m.functions[f as usize];
    t.s(if func.is_defined { "define" } else { "declare" }).sp();
    // The historical printer's linkage text for internal has a trailing space.
    t.s(match func.linkage {
        super::Linkage::External => "external",
        super::Linkage::Internal => "internal ",
    })
    .sp();
    signature(t, m, f, false);
    t.s(";").end();
}

/// `ret @fN(params)` in two clusters (the whole, then the name and its parameters), the
/// parameters named `%pI` when `named`; the caller ends the outer cluster.
fn signature(t: &mut Tokens, m: &Module, f: u32, named: bool) {
    let sig = m.fn_type(f);
    t.begin().s(sig.ret.name()).sp().begin().num("@f", f as u64);
    params(t, sig.params.len(), |t, i| {
        t.s(sig.params[i].name());
        if named {
            t.sp().num("%p", i as u64);
        }
    });
    t.end();
}

/// A function block's header: `function i32 @f0(i32 %p0) {  // BlockID = 12`.
pub fn function_header(t: &mut Tokens, m: &Module, f: u32) {
    t.s("function").sp();
    signature(t, m, f, true);
    t.end().sp().open("{").sp().sp().s("// BlockID = 12");
}

/// A global's record: `var @g0, align 4,` (its initializers follow).
pub fn global_var(t: &mut Tokens, m: &Module, g: u32) {
    let glob = &m.globals[g as usize];
    t.s(if glob.is_const { "const" } else { "var" })
        .sp()
        .num("@g", g as u64)
        .s(",")
        .sp()
        .begin()
        .s("align")
        .sp()
        .num("", glob.align.bytes())
        .end()
        .s(",");
}

/// An initializer: `zerofill 8;`, `{ 97,  98}`, `reloc @g1 + 4;`.
pub fn init(t: &mut Tokens, names: &Names, i: &Init) {
    match i {
        Init::Zero(n) => {
            t.s("zerofill").sp().tok(|s| {
                push_u64(s, *n);
                s.push(';');
            });
        }
        Init::Data(bytes) => {
            t.open("{");
            for (k, &b) in bytes.iter().enumerate() {
                t.tok(|s| {
                    for _ in 0..(3 - digits(b as u64)) {
                        s.push(' ');
                    }
                    push_u64(s, b as u64);
                });
                if k + 1 < bytes.len() {
                    t.s(",").sp();
                }
            }
            t.close("}");
        }
        Init::Reloc { target, addend } => {
            t.s("reloc").sp();
            names.value(t, *target);
            if *addend > 0 {
                t.sp().s("+").sp().num("", *addend as u64);
            } else if *addend < 0 {
                t.sp().s("-").sp().num("", addend.unsigned_abs() as u64);
            }
            t.s(";");
        }
    }
}

fn digits(n: u64) -> usize {
    match n {
        0..=9 => 1,
        10..=99 => 2,
        _ => 3,
    }
}

/// A function constant: `%c0 = i32 5;`. `raw` is the record's operand for an integer (the
/// historical printer shows its sign, then its magnitude: the operand 1 is `-0`).
pub fn constant(t: &mut Tokens, i: u32, c: &super::Const, raw: Option<u64>) {
    t.num("%c", i as u64)
        .sp()
        .s("=")
        .sp()
        .begin()
        .s(c.ty.name())
        .sp();
    match c.value {
        ConstValue::Undef => {
            t.s("undef;");
        }
        ConstValue::Int(v) => {
            t.tok(|s| {
                match raw {
                    _ if c.ty == ValueType::I1 => push_u64(s, v & 1),
                    Some(r) => {
                        if r & 1 == 1 {
                            s.push('-');
                        }
                        push_u64(s, r >> 1);
                    }
                    None => match c.as_signed() {
                        Some(x) if x < 0 => {
                            s.push('-');
                            push_u64(s, x.unsigned_abs());
                        }
                        _ => push_u64(s, v),
                    },
                }
                s.push(';');
            });
        }
        ConstValue::Float(bits) => {
            let f = if c.ty == ValueType::Float {
                f32::from_bits(bits as u32) as f64
            } else {
                f64::from_bits(bits)
            };
            t.tok(|s| {
                s.push_str(&fmt_g(f));
                s.push(';');
            });
        }
    }
    t.end();
}

/// What an instruction's text needs beyond the instruction: the names, the operands' types
/// (a forward-declared one included, while reading), the id of its value.
pub struct InstCx<'a> {
    pub names: Names,
    pub ty_of: &'a dyn Fn(ValueId) -> Option<ValueType>,
    /// The id of the value the instruction defines (if it defines one).
    pub id: ValueId,
}

/// `T V` and the separator after it, as one cluster.
fn typed(t: &mut Tokens, cx: &InstCx, id: ValueId, ty: ValueType, sep: &str) {
    t.begin().s(ty.name()).sp();
    cx.names.value(t, id);
    if !sep.is_empty() {
        t.s(sep);
    }
    t.end();
}

/// `label %bN` and the separator after it, as one cluster.
fn label(t: &mut Tokens, b: u32, sep: &str) {
    t.begin().s("label").sp().num("%b", b as u64).s(sep).end();
}

/// `align N;` as one cluster.
fn align(t: &mut Tokens, bytes: u64) {
    t.begin()
        .s("align")
        .sp()
        .tok(|s| {
            push_u64(s, bytes);
            s.push(';');
        })
        .end();
}

/// The text of instruction `inst` of `body`. A switch takes several lines (`Tok::Line`).
pub fn inst(t: &mut Tokens, cx: &InstCx, body: &Body, inst: &Inst) {
    let ty_of = |id: ValueId| (cx.ty_of)(id).unwrap_or(ValueType::Void);
    let names = &cx.names;
    let result = |t: &mut Tokens, wide: bool| {
        names.value(t, cx.id);
        if wide {
            t.s("  ").s("=").s("  ");
        } else {
            t.sp().s("=").sp();
        }
    };
    match inst.kind {
        InstKind::Binop { op, lhs, rhs } => {
            result(t, false);
            t.begin()
                .s(op.name(inst.ty.elem().is_float()))
                .sp()
                .s(inst.ty.name())
                .sp();
            names.value(t, lhs).s(",").end().sp();
            names.value(t, rhs).s(";");
        }
        InstKind::Cast { op, val } => {
            result(t, false);
            t.begin().s(op.name()).sp().s(ty_of(val).name()).sp();
            names.value(t, val).end();
            t.sp().s("to").sp().s(inst.ty.name()).s(";");
        }
        InstKind::Ret { val: None } => {
            t.s("ret").sp().s("void").s(";");
        }
        InstKind::Ret { val: Some(x) } => {
            t.s("ret").sp();
            typed(t, cx, x, ty_of(x), ";");
        }
        InstKind::Br { target } => {
            t.s("br").sp();
            label(t, target, ";");
        }
        InstKind::CondBr { cond, t: bt, f: bf } => {
            t.s("br").sp();
            typed(t, cx, cond, ValueType::I1, ",");
            t.sp();
            label(t, bt, ",");
            t.sp();
            label(t, bf, ";");
        }
        InstKind::Switch {
            cond,
            default,
            cases,
        } => {
            let cty = ty_of(cond);
            t.s("switch").sp();
            typed(t, cx, cond, cty, "");
            t.sp().s("{").line(1);
            t.s("default:").sp().s("br").sp();
            label(t, default, ";");
            for c in body.switch_cases(cases) {
                t.line(1).s(cty.name()).sp().tok(|s| {
                    if c.value < 0 {
                        s.push('-');
                    }
                    push_u64(s, c.value.unsigned_abs());
                    s.push(':');
                });
                t.sp().s("br").sp();
                label(t, c.target, ";");
            }
            t.line(0).s("}");
        }
        InstKind::Unreachable => {
            t.s("unreachable").s(";");
        }
        InstKind::Phi { incoming } => {
            result(t, false);
            t.s("phi").sp().s(inst.ty.name());
            let pairs = body.phi_pairs(incoming);
            let n = pairs.len() / 2;
            if n == 0 {
                t.s(";");
            }
            for (k, pair) in pairs.chunks(2).enumerate() {
                t.sp().begin().s("[");
                names
                    .value(t, pair[0])
                    .s(",")
                    .sp()
                    .num("%b", pair[1] as u64);
                t.s("]").s(if k + 1 < n { "," } else { ";" }).end();
            }
        }
        InstKind::Alloca { size, align: a } => {
            result(t, false);
            t.begin().s("alloca").sp().s("i8").s(",").end().sp();
            typed(t, cx, size, ty_of(size), ",");
            t.sp();
            align(t, a.bytes());
        }
        InstKind::Load { ptr, align: a } => {
            result(t, false);
            t.begin().s("load").sp().tok(|s| {
                s.push_str(inst.ty.name());
                s.push('*');
            });
            t.sp();
            names.value(t, ptr).s(",").end().sp();
            align(t, a.bytes());
        }
        InstKind::Store { ptr, val, align: a } => {
            let vt = ty_of(val);
            t.s("store").sp();
            typed(t, cx, val, vt, ",");
            t.sp().begin().tok(|s| {
                s.push_str(vt.name());
                s.push('*');
            });
            t.sp();
            names.value(t, ptr).s(",").end().sp();
            align(t, a.bytes());
        }
        InstKind::Cmp { pred, lhs, rhs } => {
            result(t, false);
            t.begin()
                .s(if pred.is_float() { "fcmp" } else { "icmp" })
                .sp()
                .s(pred.name())
                .sp()
                .s(ty_of(lhs).name())
                .sp();
            names.value(t, lhs).s(",").end().sp();
            t.begin();
            names.value(t, rhs).s(";").end();
        }
        InstKind::Select { cond, t: a, f: b } => {
            result(t, false);
            t.s("select").sp();
            typed(t, cx, cond, ty_of(cond), ",");
            t.sp();
            typed(t, cx, a, inst.ty, ",");
            t.sp();
            typed(t, cx, b, inst.ty, ";");
        }
        InstKind::ExtractElement { vec, idx } => {
            result(t, true);
            t.begin().s("extractelement").sp().s(ty_of(vec).name()).sp();
            names.value(t, vec).s(",").end().sp();
            typed(t, cx, idx, ty_of(idx), ";");
        }
        InstKind::InsertElement { vec, elt, idx } => {
            result(t, true);
            t.begin().s("insertelement").sp().s(ty_of(vec).name()).sp();
            names.value(t, vec).s(",").end().sp();
            typed(t, cx, elt, ty_of(elt), ",");
            t.sp();
            typed(t, cx, idx, ty_of(idx), ";");
        }
        InstKind::Call {
            callee, args, tail, ..
        } => {
            if !inst.ty.is_void() {
                result(t, false);
            }
            if tail {
                t.s("tail").sp();
            }
            t.s("call").sp().s(inst.ty.name()).sp().begin();
            names.value(t, callee).open("(");
            let args = body.span(args);
            for (k, &a) in args.iter().enumerate() {
                if k > 0 {
                    t.s(",").end().sp();
                }
                t.begin().s(ty_of(a).name()).sp();
                names.value(t, a);
            }
            t.close(")").s(";");
            if !args.is_empty() {
                t.end();
            }
            t.end();
        }
    }
}

/// The id of the value instruction `i` of `body` defines (counting the values before it).
pub fn value_id(m: &Module, f: u32, body: &Body, i: usize) -> ValueId {
    let k = body.insts[..i].iter().filter(|x| !x.ty.is_void()).count();
    m.num_global_values() + m.fn_type(f).params.len() as u32 + body.consts.len() as u32 + k as u32
}

/// The name of value `id` (`@f3`, `@g1`, `%p0`, `%c2`, `%v7`) inside function `f`'s body.
pub fn value_name(m: &Module, f: u32, body: &Body, id: ValueId) -> String {
    Names::of_body(m, f, body).text(id)
}

/// Instruction `i` of function `f` as one line of PNaClAsm (no wrapping, no label).
pub fn inst_text(m: &Module, f: u32, body: &Body, i: usize) -> String {
    let ty_of = |id: ValueId| m.value_type_in(body, id);
    let cx = InstCx {
        names: Names::of_body(m, f, body),
        ty_of: &ty_of,
        id: value_id(m, f, body, i),
    };
    let mut t = Tokens::new();
    inst(&mut t, &cx, body, &body.insts[i]);
    t.flat()
}

/// C's `printf("%g", f)`.
pub fn fmt_g(f: f64) -> String {
    if f.is_nan() {
        return if f.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    const P: i32 = 6;
    // Exponent as %e would print it with P-1 digits after the point.
    let e_repr = format!("{:.*e}", (P - 1) as usize, f);
    let exp: i32 = e_repr[e_repr.find('e').unwrap() + 1..].parse().unwrap();
    let strip = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..P).contains(&exp) {
        let mant = &e_repr[..e_repr.find('e').unwrap()];
        let mant = strip(mant.to_string());
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        strip(format!("{:.*}", (P - 1 - exp) as usize, f))
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn percent_g() {
        assert_eq!(fmt_g(1.0), "1");
        assert_eq!(fmt_g(7.0), "7");
        assert_eq!(fmt_g(0.5), "0.5");
        assert_eq!(fmt_g(1e6), "1e+06");
        assert_eq!(fmt_g(123456.0), "123456");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001), "1e-05");
        assert_eq!(fmt_g(1.23456789), "1.23457");
        assert_eq!(fmt_g(-2.5), "-2.5");
        assert_eq!(fmt_g(f64::NAN), "nan");
        assert_eq!(fmt_g(f64::NEG_INFINITY), "-inf");
    }
}
