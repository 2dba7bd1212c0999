//! The one error type of the reading side: a message and the bit position it belongs to.
//! Boxed so that `Result<T, Error>` stays small on the hot path.

use std::fmt;

/// An error found while reading a pexe: the absolute bit position in the file (the
/// 16-byte header included, shown as `BYTE:BIT` like pnacl-bcdis does), a message, and
/// optionally where it happened (block and record).
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    pos: u64,
    msg: String,
    context: Option<String>,
}

impl Error {
    #[cold]
    pub fn new(pos: u64, msg: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            pos,
            msg: msg.into(),
            context: None,
        }))
    }

    /// Adds where it happened, e.g. `function block of @f3, record <34, 0, 5>`.
    #[cold]
    pub fn with_context(mut self, ctx: impl Into<String>) -> Error {
        if self.0.context.is_none() {
            self.0.context = Some(ctx.into());
        }
        self
    }

    /// Absolute bit position.
    pub fn pos(&self) -> u64 {
        self.0.pos
    }

    pub fn msg(&self) -> &str {
        &self.0.msg
    }

    pub fn context(&self) -> Option<&str> {
        self.0.context.as_deref()
    }

    /// `BYTE:BIT` as pnacl-bcdis prints positions.
    pub fn position(&self) -> Position {
        Position(self.0.pos)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position(), self.0.msg)?;
        if let Some(c) = &self.0.context {
            write!(f, " ({c})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// A bit position printed as `BYTE:BIT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position(pub u64);

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.0 / 8, self.0 % 8)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
