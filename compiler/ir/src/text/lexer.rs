//! A cursor over one line of IR text. Tokens are whitespace-separated words, quoted strings
//! and a few punctuation characters; `;` starts a comment that runs to the end of the line.
//! All positions are byte offsets into the line, always on a character boundary (the cursor
//! only stops at ASCII delimiters), so slicing never panics.

/// A lexing error: byte offset in the line and message.
pub(super) type LexError = (usize, String);

/// An operand token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token<'a> {
    /// A run of characters up to whitespace or `;`.
    Word(&'a str),
    /// A quoted string, unescaped.
    Str(Vec<u8>),
}

/// A cursor over one line.
#[derive(Debug)]
pub(super) struct Cursor<'a> {
    line: &'a str,
    pos: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

impl<'a> Cursor<'a> {
    pub(super) fn new(line: &'a str) -> Self {
        Cursor { line, pos: 0 }
    }

    /// Current byte offset.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.line.as_bytes().get(self.pos).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
    }

    /// True at the end of the line or at a comment.
    pub(super) fn at_end(&self) -> bool {
        matches!(self.peek(), None | Some(b';'))
    }

    /// Consumes `b` if it is next.
    pub(super) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes bytes while `f` holds; returns the start offset and the text.
    pub(super) fn take_while(&mut self, f: impl Fn(u8) -> bool) -> (usize, &'a str) {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii() && f(b)) {
            self.pos += 1;
        }
        (start, &self.line[start..self.pos])
    }

    /// The next word: everything up to whitespace, `;` or the end of the line.
    pub(super) fn word(&mut self) -> (usize, &'a str) {
        let start = self.pos;
        let rest = &self.line[start..];
        let len = rest.find(|c: char| c == ';' || (c.is_ascii() && is_space(c as u8)));
        self.pos = start + len.unwrap_or(rest.len());
        (start, &self.line[start..self.pos])
    }

    /// The text up to (not including) `b`, consuming `b`; `None` (cursor unchanged) if absent.
    pub(super) fn until(&mut self, b: u8) -> Option<(usize, &'a str)> {
        let start = self.pos;
        let len = self.line.as_bytes()[start..].iter().position(|&x| x == b)?;
        self.pos = start + len + 1;
        Some((start, &self.line[start..start + len]))
    }

    /// The next operand token (the cursor must not be at the end).
    pub(super) fn token(&mut self) -> Result<(usize, Token<'a>), LexError> {
        if self.peek() == Some(b'"') {
            let start = self.pos;
            let s = self.string()?;
            if !self.at_end() && !self.peek().is_some_and(is_space) {
                return Err((self.pos, "expected whitespace after a string".into()));
            }
            Ok((start, Token::Str(s)))
        } else {
            let (start, w) = self.word();
            Ok((start, Token::Word(w)))
        }
    }

    /// A quoted string with escapes `\\ \" \n \r \t \xHH` (no NUL bytes: they cannot be
    /// represented in a packed string).
    fn string(&mut self) -> Result<Vec<u8>, LexError> {
        let open = self.pos;
        self.pos += 1;
        let bytes = self.line.as_bytes();
        let mut out = Vec::new();
        loop {
            let Some(&b) = bytes.get(self.pos) else {
                return Err((open, "unterminated string".into()));
            };
            self.pos += 1;
            match b {
                b'"' => return Ok(out),
                b'\\' => {
                    let esc = self.pos - 1;
                    let Some(&e) = bytes.get(self.pos) else {
                        return Err((esc, "unterminated string".into()));
                    };
                    self.pos += 1;
                    let v = match e {
                        b'\\' => b'\\',
                        b'"' => b'"',
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'x' => {
                            let hex = bytes.get(self.pos..self.pos + 2).unwrap_or(&[]);
                            let v = std::str::from_utf8(hex)
                                .ok()
                                .filter(|h| {
                                    h.len() == 2 && h.bytes().all(|c| c.is_ascii_hexdigit())
                                })
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            let Some(v) = v else {
                                return Err((esc, "expected two hex digits after `\\x`".into()));
                            };
                            self.pos += 2;
                            v
                        }
                        _ => {
                            return Err((
                                esc,
                                "unknown escape (use \\\\ \\\" \\n \\r \\t or \\xHH)".into(),
                            ))
                        }
                    };
                    if v == 0 {
                        return Err((esc, "a string cannot contain a NUL byte".into()));
                    }
                    out.push(v);
                }
                0 => return Err((self.pos - 1, "a string cannot contain a NUL byte".into())),
                _ => out.push(b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_strings_and_comments() {
        let mut c = Cursor::new("  %3 \"a\\\"b\\x41\" Flat|Sample ; tail");
        c.skip_ws();
        assert_eq!(c.token(), Ok((2, Token::Word("%3"))));
        c.skip_ws();
        assert_eq!(c.token(), Ok((5, Token::Str(b"a\"bA".to_vec()))));
        c.skip_ws();
        assert_eq!(c.token(), Ok((16, Token::Word("Flat|Sample"))));
        c.skip_ws();
        assert!(c.at_end());
    }

    #[test]
    fn string_errors() {
        for (s, at) in [
            ("\"abc", 0),
            ("\"a\\q\"", 2),
            ("\"\\x0\"", 1),
            ("\"\\x00\"", 1),
            ("\"a\"b", 3),
        ] {
            let mut c = Cursor::new(s);
            assert_eq!(c.token().map_err(|e| e.0), Err(at), "{s}");
        }
    }
}
