//! Reading JSON Lines result files back without holding a long line: a test
//! with millions of final states is one line of hundreds of megabytes
//! (readers-22: 1 GB), and `--resume`, `merge` and `compare` must not need
//! that much memory to read it.
//!
//! [`Lines`] yields each line whole when it is shorter than a bound
//! ([`LONG_LINE`]). A longer line is scanned as it is read: everything but
//! the contents of its top-level `"states"` array is kept (the *head*, with
//! `"states":[]`), and where the array is in the file. The states are then
//! read from the file when needed: copied ([`copy_range`]), compared
//! ([`same_bytes`]) or walked one state at a time ([`each_element`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Lines at least this long stay in their file.
pub const LONG_LINE: usize = 4 << 20;

/// One line of a results file.
#[derive(Debug)]
pub struct RawLine {
    /// Byte offset of the line in the file.
    pub start: u64,
    /// Bytes read, the newline included.
    pub read: u64,
    /// The line.
    pub body: Body,
}

/// What is kept of a line.
#[derive(Debug)]
pub enum Body {
    /// The whole line, without its newline.
    Whole(String),
    /// A long line: its head (the line with `"states":[]`), its length
    /// without the newline, and the byte range of its states array
    /// (`[` to `]`, absolute offsets in the file) when it has one.
    Long {
        /// The line without the contents of its states array.
        head: String,
        /// Bytes of the line, without the newline.
        len: u64,
        /// `[start, end)` of the `[...]` of `"states"` in the file.
        states: Option<(u64, u64)>,
    },
}

/// The lines of a results file, long ones scanned as they are read.
#[derive(Debug)]
pub struct Lines<R> {
    r: R,
    offset: u64,
    // invariant: long >= 1
    long: usize,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `r`, from byte 0, lines of `long` bytes or more kept as heads.
    pub fn new(r: R, long: usize) -> Self {
        Self {
            r,
            offset: 0,
            long: long.max(1),
        }
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine>> {
        let start = self.offset;
        let mut buf = Vec::new();
        let mut newline = false;
        while buf.len() < self.long {
            let avail = self.r.fill_buf()?;
            if avail.is_empty() {
                break;
            }
            let room = self.long - buf.len();
            let take = avail.len().min(room);
            match avail[..take].iter().position(|&b| b == b'\n') {
                Some(i) => {
                    buf.extend_from_slice(&avail[..i]);
                    self.r.consume(i + 1);
                    newline = true;
                    break;
                }
                None => {
                    buf.extend_from_slice(&avail[..take]);
                    self.r.consume(take);
                }
            }
        }
        if buf.is_empty() && !newline {
            return Ok(None);
        }
        if newline || buf.len() < self.long {
            let read = buf.len() as u64 + u64::from(newline);
            self.offset += read;
            let mut line = String::from_utf8(buf)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            while line.ends_with(['\n', '\r']) {
                line.pop();
            }
            return Ok(Some(RawLine {
                start,
                read,
                body: Body::Whole(line),
            }));
        }
        // A long line: scan what was read, then the rest of it.
        let mut scan = Scan::new(start);
        scan.feed(&buf);
        drop(buf);
        let mut newline = false;
        loop {
            let avail = self.r.fill_buf()?;
            if avail.is_empty() {
                break;
            }
            match avail.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    scan.feed(&avail[..i]);
                    self.r.consume(i + 1);
                    newline = true;
                    break;
                }
                None => {
                    let n = avail.len();
                    scan.feed(avail);
                    self.r.consume(n);
                }
            }
        }
        let len = scan.at - start;
        let read = len + u64::from(newline);
        self.offset += read;
        let mut head = String::from_utf8(scan.head)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        let mut len = len;
        while head.ends_with(['\n', '\r']) {
            head.pop();
            len -= 1;
        }
        let states = scan.states_start.zip(scan.states_end);
        Ok(Some(RawLine {
            start,
            read,
            body: Body::Long { head, len, states },
        }))
    }
}

/// Where a top-level `"states"` key is in the scan.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Key {
    /// Nothing.
    None,
    /// The string `"states"` just closed at depth 1.
    Name,
    /// ... and its `:`.
    Colon,
}

/// A JSON object scanned byte by byte: strings, depth, and the top-level
/// `"states"` array, whose contents are not kept.
#[derive(Debug)]
struct Scan {
    head: Vec<u8>,
    /// Absolute offset of the next byte.
    at: u64,
    depth: usize,
    in_str: bool,
    escaped: bool,
    /// The current string's first bytes (to recognise `states`).
    word: Vec<u8>,
    key: Key,
    /// Depth of the states array while inside it.
    in_states: bool,
    states_start: Option<u64>,
    states_end: Option<u64>,
}

impl Scan {
    fn new(at: u64) -> Self {
        Self {
            head: Vec::new(),
            at,
            depth: 0,
            in_str: false,
            escaped: false,
            word: Vec::new(),
            key: Key::None,
            in_states: false,
            states_start: None,
            states_end: None,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
            self.at += 1;
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_str {
            if !self.in_states {
                self.head.push(b);
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_str = false;
                if !self.in_states && self.depth == 1 {
                    self.key = if self.word == b"states" {
                        Key::Name
                    } else {
                        Key::None
                    };
                }
            } else if self.word.len() <= 8 {
                self.word.push(b);
            }
            return;
        }
        if self.in_states {
            match b {
                b'"' => {
                    self.in_str = true;
                    self.escaped = false;
                }
                b'[' | b'{' => self.depth += 1,
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 1 {
                        self.in_states = false;
                        self.states_end = Some(self.at + 1);
                        self.head.extend_from_slice(b"[]");
                    }
                }
                _ => {}
            }
            return;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {}
            b':' if self.key == Key::Name => self.key = Key::Colon,
            b'[' if self.key == Key::Colon && self.depth == 1 && self.states_start.is_none() => {
                self.key = Key::None;
                self.in_states = true;
                self.states_start = Some(self.at);
                self.depth += 1;
                return;
            }
            b'"' => {
                self.in_str = true;
                self.escaped = false;
                self.word.clear();
                self.key = Key::None;
            }
            b'[' | b'{' => {
                self.depth += 1;
                self.key = Key::None;
            }
            b']' | b'}' => {
                self.depth = self.depth.saturating_sub(1);
                self.key = Key::None;
            }
            _ => self.key = Key::None,
        }
        self.head.push(b);
    }
}

/// A reader of bytes `[start, start + len)` of the file `path`.
pub fn range_reader(path: &Path, start: u64, len: u64) -> io::Result<impl BufRead> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(start))?;
    Ok(BufReader::with_capacity(1 << 16, f.take(len)))
}

/// Copies bytes `[start, start + len)` of `path` to `out`.
pub fn copy_range(path: &Path, start: u64, len: u64, out: &mut dyn Write) -> io::Result<()> {
    let mut r = range_reader(path, start, len)?;
    let copied = io::copy(&mut r, out)?;
    if copied != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{}: the file changed while it was read", path.display()),
        ));
    }
    Ok(())
}

/// Whether two readers give the same bytes.
pub fn same_bytes(a: &mut dyn BufRead, b: &mut dyn BufRead) -> io::Result<bool> {
    loop {
        let (x, y) = (a.fill_buf()?, b.fill_buf()?);
        if x.is_empty() || y.is_empty() {
            return Ok(x.is_empty() && y.is_empty());
        }
        let n = x.len().min(y.len());
        if x[..n] != y[..n] {
            return Ok(false);
        }
        a.consume(n);
        b.consume(n);
    }
}

/// Hands each element of the JSON array `r` reads (`[e1,e2,...]`) to `f`,
/// as its text: one element in memory at a time.
pub fn each_element(r: &mut dyn BufRead, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    let mut cur: Vec<u8> = Vec::new();
    loop {
        let avail = r.fill_buf()?;
        if avail.is_empty() {
            return Ok(());
        }
        for &b in avail {
            if in_str {
                cur.push(b);
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_str = false;
                }
                continue;
            }
            match b {
                b'"' => {
                    in_str = true;
                    cur.push(b);
                }
                b'[' | b'{' => {
                    depth += 1;
                    if depth > 1 {
                        cur.push(b);
                    }
                }
                b']' | b'}' => {
                    if depth > 1 {
                        cur.push(b);
                    }
                    depth = depth.saturating_sub(1);
                    if depth == 0 && !cur.is_empty() {
                        f(&cur);
                        cur.clear();
                    }
                }
                b',' if depth == 1 => {
                    if !cur.is_empty() {
                        f(&cur);
                        cur.clear();
                    }
                }
                b' ' | b'\t' | b'\r' | b'\n' if depth <= 1 => {}
                _ => cur.push(b),
            }
        }
        let n = avail.len();
        r.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str, long: usize) -> Vec<RawLine> {
        let mut l = Lines::new(text.as_bytes(), long);
        let mut out = Vec::new();
        while let Some(x) = l.next_line().expect("reads") {
            out.push(x);
        }
        out
    }

    #[test]
    fn long_lines_keep_their_head_and_where_their_states_are() {
        let one = r#"{"file":"a \"states\":[","name":"states","states":[{"values":{"x[1]":1,"q\"]":2},"count":3},{"values":{"x":"]"},"count":1}],"time_ms":1.5}"#;
        let text = format!("{one}\r\n\n{one}");
        for long in [1, 10, 40, one.len(), one.len() + 1, 1 << 20] {
            let got = lines(&text, long);
            assert_eq!(got.len(), 3, "{long}");
            assert_eq!(
                (got[1].start, got[2].start),
                (one.len() as u64 + 2, one.len() as u64 + 3)
            );
            assert_eq!(got.iter().map(|l| l.read).sum::<u64>(), text.len() as u64);
            for l in [&got[0], &got[2]] {
                match &l.body {
                    Body::Whole(s) => {
                        assert!(long > one.len(), "{long}");
                        assert_eq!(s, one);
                    }
                    Body::Long { head, len, states } => {
                        assert!(long <= one.len() + 1, "{long}");
                        assert_eq!(*len, one.len() as u64);
                        assert_eq!(
                            head,
                            r#"{"file":"a \"states\":[","name":"states","states":[],"time_ms":1.5}"#
                        );
                        let (a, b) = states.expect("states found");
                        let text = &text[(a as usize)..(b as usize)];
                        assert!(text.starts_with("[{\"values\"") && text.ends_with("}]"));
                        let mut elems = Vec::new();
                        each_element(&mut text.as_bytes(), &mut |e| {
                            elems.push(String::from_utf8_lossy(e).into_owned())
                        })
                        .expect("walks");
                        assert_eq!(
                            elems,
                            [
                                r#"{"values":{"x[1]":1,"q\"]":2},"count":3}"#,
                                r#"{"values":{"x":"]"},"count":1}"#
                            ]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bytes_compare_across_buffer_sizes() {
        let a = vec![7u8; 100_000];
        let mut b = a.clone();
        let r = |v: &[u8], cap| BufReader::with_capacity(cap, std::io::Cursor::new(v.to_vec()));
        assert!(same_bytes(&mut r(&a, 7), &mut r(&b, 1000)).expect("reads"));
        b[99_999] = 8;
        assert!(!same_bytes(&mut r(&a, 7), &mut r(&b, 1000)).expect("reads"));
        assert!(!same_bytes(&mut r(&a, 7), &mut r(&a[1..], 1000)).expect("reads"));
        let mut empty: Vec<String> = Vec::new();
        each_element(&mut &b"[]"[..], &mut |e| {
            empty.push(String::from_utf8_lossy(e).into_owned())
        })
        .expect("walks");
        assert!(empty.is_empty());
    }
}
