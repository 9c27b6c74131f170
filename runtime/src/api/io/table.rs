//! The reader of text tables behind [`loadtxt`](super::loadtxt) and
//! [`genfromtxt`](super::genfromtxt).
//!
//! The file is read in blocks of whole lines, the next block while the
//! current one is parsed. A block is cut at line ends into pieces that the
//! rayon pool parses at once, each into its own values, joined in file
//! order at the end. The first data row, read before the pieces, fixes the
//! columns every row is checked against. A piece stops at its first fault;
//! the fault of the earliest piece is reported, with its line number (the
//! lines of the pieces before it plus its own), unless `max_rows` rows came
//! before it.
//!
//! Fields are split here: on runs of whitespace, or on an ASCII delimiter
//! with the ASCII whitespace around each field trimmed (as the `csv`
//! crate's `Trim::All`). Quoted fields and lone carriage returns are the
//! `csv` crate's business: a delimited block holding `"` or a `\r` that
//! ends a line on its own goes, with the rest of the file, to `csv`, read
//! on one thread.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Cursor, Read};
use std::path::Path;
use std::str::Utf8Error;

use memchr::memmem::Finder;
use rayon::prelude::*;

use super::text::{ndmin_shape, parse_field, TextOptions};
use super::{format_error, io_error, open};
use crate::core::array::Array;
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};

/// Bytes read per block: several pieces for every core, little memory.
const BLOCK: usize = 16 << 20;
/// The smallest piece: smaller ones cost more to schedule than they save.
const MIN_PIECE: usize = 256 << 10;

/// Reads a text table as `op` ([`loadtxt`](super::loadtxt), or
/// [`genfromtxt`](super::genfromtxt) with `missing_as_nan`).
pub(super) fn read_table(
    op: &'static str,
    path: &Path,
    options: &TextOptions,
    missing_as_nan: bool,
) -> Result<Array> {
    if options.ndmin > 2 {
        return Err(Error::invalid(
            op,
            format!("ndmin must be 0, 1 or 2, not {}", options.ndmin),
        ));
    }
    let (file, _) = open(op, path)?;
    let delimiter = options
        .delimiter
        .map(|d| {
            u8::try_from(d).ok().filter(u8::is_ascii).ok_or_else(|| {
                Error::invalid(op, format!("the delimiter {d:?} is not an ASCII character"))
            })
        })
        .transpose()?;
    let grammar = Grammar {
        delimiter,
        comment: options
            .comments
            .as_deref()
            .filter(|c| !c.is_empty())
            .map(|c| Finder::new(c.as_bytes()).into_owned()),
    };
    let dtype = options.dtype;
    let (data, rows, ncols) = crate::with_dtype!(dtype, T => {
        let reader = Reader {
            op,
            path,
            options,
            grammar,
            parse: |text: &str| parse_field(text, dtype).map(T::from_scalar),
            missing: missing_as_nan.then(|| T::from_scalar(Scalar::Float(f64::NAN))),
        };
        let table = reader.read(file)?;
        let ncols = table.columns.as_ref().map_or(0, |c| c.picked.len());
        (T::into_data(concat(table.parts)), table.rows, ncols)
    });
    let shape = if rows == 0 {
        vec![0]
    } else {
        vec![rows, ncols]
    };
    let shape = ndmin_shape(&shape, options.ndmin);
    let device = options
        .device
        .unwrap_or_else(crate::backend::probe::current_device);
    Array::from_host(data, &shape, device)
}

/// How lines split into fields.
struct Grammar {
    /// The field separator; `None`: runs of whitespace.
    delimiter: Option<u8>,
    /// The text that starts a comment.
    comment: Option<Finder<'static>>,
}

impl Grammar {
    fn comment_at(&self, text: &str) -> Option<usize> {
        self.comment.as_ref()?.find(text.as_bytes())
    }

    /// Sets `fields` to the fields of `line` (without its line end), with
    /// comments cut and the whitespace around fields removed; none for a
    /// line without data.
    fn split<'l>(&self, line: &'l str, fields: &mut Vec<&'l str>) {
        fields.clear();
        match self.delimiter {
            None => {
                let text = self.comment_at(line).map_or(line, |at| &line[..at]);
                fields.extend(text.split_whitespace());
            }
            Some(d) => {
                let parts = line.split(char::from(d)).map(str::trim_ascii);
                if self.comment_at(line).is_some() {
                    self.delimited_with_comment(parts, fields);
                } else {
                    fields.extend(parts);
                }
                blank_is_no_row(fields);
            }
        }
    }

    /// Pushes the trimmed delimited `parts` of a line holding a comment
    /// marker: those before the field it starts in, and that field's text
    /// before it unless empty in first place (as the field-wise search the
    /// `csv` path always made).
    fn delimited_with_comment<'l>(
        &self,
        parts: impl Iterator<Item = &'l str>,
        fields: &mut Vec<&'l str>,
    ) {
        for part in parts {
            match self.comment_at(part) {
                Some(at) => {
                    let kept = part[..at].trim();
                    if !kept.is_empty() || !fields.is_empty() {
                        fields.push(kept);
                    }
                    return;
                }
                None => fields.push(part),
            }
        }
    }

    /// Whether delimited `bytes` hold what only the `csv` crate reads
    /// right: a quote, or a carriage return not followed by a line feed.
    fn needs_csv(&self, bytes: &[u8]) -> bool {
        self.delimiter.is_some()
            && memchr::memchr2_iter(b'"', b'\r', bytes)
                .any(|i| bytes[i] == b'"' || bytes.get(i + 1).is_some_and(|&b| b != b'\n'))
    }
}

/// A blank delimited line is one empty field: no row.
fn blank_is_no_row(fields: &mut Vec<&str>) {
    if fields.len() == 1 && fields[0].is_empty() {
        fields.clear();
    }
}

/// Where each data row's values are, fixed by the first data row.
struct Columns {
    /// The fields of the first data row.
    width: usize,
    /// The fields read, in order.
    picked: Vec<usize>,
    /// Every row must have `width` fields (no `usecols`).
    same_width: bool,
}

/// Why a line cannot be read.
enum Fault {
    NotUtf8,
    Ragged { got: usize, width: usize },
    TooFew { got: usize, column: usize },
    Value { column: usize, text: String },
}

/// A piece's fault: at its `line`-th line, after `rows_before` of its rows.
struct Stop {
    line: u64,
    rows_before: usize,
    fault: Fault,
}

/// What a piece of lines parsed to.
struct Piece<T> {
    values: Vec<T>,
    rows: usize,
    lines: u64,
    stop: Option<Stop>,
}

/// The rows read so far.
struct Table<T> {
    columns: Option<Columns>,
    /// The values of the rows, in file order.
    parts: Vec<Vec<T>>,
    rows: usize,
    /// Lines before the part of the file not read yet.
    lines: u64,
}

/// What to do after a block.
enum Next {
    More,
    Done,
    /// Read the rest with the `csv` crate, from this offset of the block on.
    Csv(usize),
}

/// One read of a table: the options and how fields become values.
struct Reader<'a, T, P> {
    op: &'static str,
    path: &'a Path,
    options: &'a TextOptions,
    grammar: Grammar,
    /// A field's value, `None` when it does not parse.
    parse: P,
    /// The value of a field that does not parse (genfromtxt's NaN); `None`: an error.
    missing: Option<T>,
}

impl<T: Element, P: Fn(&str) -> Option<T> + Sync> Reader<'_, T, P> {
    fn max_rows(&self) -> usize {
        self.options.max_rows.unwrap_or(usize::MAX)
    }

    fn error(&self, line: u64, fault: Fault) -> Error {
        let detail = match fault {
            Fault::NotUtf8 => format!("line {line} is not valid UTF-8"),
            Fault::Ragged { got, width } => {
                format!("line {line} has {got} columns, but the first data row has {width}")
            }
            Fault::TooFew { got, column } => {
                format!("line {line} has {got} columns, too few for column {column}")
            }
            Fault::Value { column, text } => format!(
                "line {line}, column {column}: {text:?} is not a valid {}",
                self.options.dtype
            ),
        };
        format_error(self.op, self.path, detail)
    }

    /// The columns fixed by the first data row, `fields` of line `line`.
    fn columns_of(&self, fields: &[&str], line: u64) -> Result<Columns> {
        let width = fields.len();
        let picked = match &self.options.usecols {
            None => (0..width).collect(),
            Some(usecols) => usecols
                .iter()
                .map(|&c| {
                    crate::core::layout::normalize_axis(self.op, c, width).map_err(|_| {
                        format_error(
                            self.op,
                            self.path,
                            format!("usecols index {c} is out of range for the {width} columns of line {line}"),
                        )
                    })
                })
                .collect::<Result<Vec<usize>>>()?,
        };
        Ok(Columns {
            width,
            picked,
            same_width: self.options.usecols.is_none(),
        })
    }

    /// Pushes the values of one data row.
    fn push_row(
        &self,
        columns: &Columns,
        fields: &[&str],
        out: &mut Vec<T>,
    ) -> std::result::Result<(), Fault> {
        if columns.same_width && fields.len() != columns.width {
            return Err(Fault::Ragged {
                got: fields.len(),
                width: columns.width,
            });
        }
        for &column in &columns.picked {
            let Some(&text) = fields.get(column) else {
                return Err(Fault::TooFew {
                    got: fields.len(),
                    column,
                });
            };
            match (self.parse)(text).or(self.missing) {
                Some(value) => out.push(value),
                None => {
                    return Err(Fault::Value {
                        column,
                        text: text.into(),
                    })
                }
            }
        }
        Ok(())
    }

    /// Takes the fields of a data row at line `line` on the sequential
    /// path: the first data row fixes the columns.
    fn take_row(&self, table: &mut Table<T>, line: u64, fields: &[&str]) -> Result<()> {
        if table.columns.is_none() {
            table.columns = Some(self.columns_of(fields, line)?);
        }
        if table.parts.is_empty() {
            table.parts.push(Vec::new());
        }
        let (Some(columns), Some(out)) = (&table.columns, table.parts.last_mut()) else {
            unreachable!("both set above");
        };
        self.push_row(columns, fields, out)
            .map_err(|fault| self.error(line, fault))?;
        table.rows += 1;
        Ok(())
    }

    /// Reads the whole table from `file`.
    fn read(&self, mut file: File) -> Result<Table<T>> {
        let mut table = Table {
            columns: None,
            parts: Vec::new(),
            rows: 0,
            lines: 0,
        };
        if self.max_rows() == 0 {
            return Ok(table);
        }
        let mut to_skip = self.options.skiprows;
        let mut next = next_block(&mut file, Vec::new());
        loop {
            crate::core::interrupt::check(self.op)?;
            let (block, carry) = next.map_err(|e| io_error(self.op, self.path, e))?;
            if block.is_empty() {
                return Ok(table);
            }
            let (step, read) = rayon::join(
                || self.take_block(&mut table, &block, &mut to_skip),
                || next_block(&mut file, carry),
            );
            match step? {
                Next::More => next = read,
                Next::Done => return Ok(table),
                Next::Csv(at) => {
                    let (after, carry) = read.map_err(|e| io_error(self.op, self.path, e))?;
                    let rest = Cursor::new(&block[at..])
                        .chain(Cursor::new(after))
                        .chain(Cursor::new(carry))
                        .chain(file);
                    self.read_csv(&mut table, rest)?;
                    return Ok(table);
                }
            }
        }
    }

    /// Reads the rows of one block of whole lines after the `to_skip`
    /// lines still to skip.
    fn take_block(&self, table: &mut Table<T>, block: &[u8], to_skip: &mut usize) -> Result<Next> {
        let mut rest = block;
        while *to_skip > 0 && !rest.is_empty() {
            rest = split_line(rest).1;
            *to_skip -= 1;
            table.lines += 1;
        }
        if cut(rest)
            .into_par_iter()
            .any(|piece| self.grammar.needs_csv(piece))
        {
            return Ok(Next::Csv(block.len() - rest.len()));
        }
        let mut fields = Vec::new();
        while table.columns.is_none() && !rest.is_empty() {
            let (line, after) = split_line(rest);
            table.lines += 1;
            let text =
                std::str::from_utf8(line).map_err(|_| self.error(table.lines, Fault::NotUtf8))?;
            self.grammar.split(text, &mut fields);
            if !fields.is_empty() {
                let line = table.lines;
                self.take_row(table, line, &fields)?;
            }
            rest = after;
        }
        let max_rows = self.max_rows();
        let Table {
            columns: Some(columns),
            parts,
            rows,
            lines,
        } = table
        else {
            return Ok(Next::More);
        };
        if *rows >= max_rows {
            return Ok(Next::Done);
        }
        let columns = &*columns;
        let parsed: Vec<Piece<T>> = cut(rest)
            .into_par_iter()
            .map(|piece| self.parse_piece(piece, columns))
            .collect();
        for piece in parsed {
            if let Some(stop) = piece.stop {
                if *rows + stop.rows_before < max_rows {
                    return Err(self.error(*lines + stop.line, stop.fault));
                }
            }
            let taken = piece.rows.min(max_rows - *rows);
            let mut values = piece.values;
            values.truncate(taken * columns.picked.len());
            parts.push(values);
            *rows += taken;
            *lines += piece.lines;
            if *rows >= max_rows {
                return Ok(Next::Done);
            }
        }
        Ok(Next::More)
    }

    /// Parses a piece of whole lines.
    fn parse_piece(&self, bytes: &[u8], columns: &Columns) -> Piece<T> {
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        match std::str::from_utf8(body) {
            Ok(text) => self.parse_lines(text.split('\n').map(Ok), columns),
            // Line by line, to find the line at fault.
            Err(_) => self.parse_lines(
                body.split(|&b| b == b'\n').map(std::str::from_utf8),
                columns,
            ),
        }
    }

    fn parse_lines<'t>(
        &self,
        lines: impl Iterator<Item = std::result::Result<&'t str, Utf8Error>>,
        columns: &Columns,
    ) -> Piece<T> {
        let mut piece = Piece {
            values: Vec::new(),
            rows: 0,
            lines: 0,
            stop: None,
        };
        let mut fields = Vec::with_capacity(columns.width);
        for line in lines {
            piece.lines += 1;
            let row = match line {
                Err(_) => Err(Fault::NotUtf8),
                Ok(text) => {
                    self.grammar.split(text, &mut fields);
                    if fields.is_empty() {
                        continue;
                    }
                    self.push_row(columns, &fields, &mut piece.values)
                }
            };
            if let Err(fault) = row {
                piece.stop = Some(Stop {
                    line: piece.lines,
                    rows_before: piece.rows,
                    fault,
                });
                break;
            }
            piece.rows += 1;
        }
        piece
    }

    /// Reads the rest of a delimited file, `input` (from a line start on),
    /// with the `csv` crate on this thread.
    fn read_csv(&self, table: &mut Table<T>, input: impl Read) -> Result<()> {
        let delimiter = self
            .grammar
            .delimiter
            .expect("only delimited files go to csv");
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(LineEnds {
                inner: input,
                read: 0,
                ends: VecDeque::new(),
                passed: 0,
            });
        let mut record = csv::ByteRecord::new();
        let lines_before = table.lines;
        while table.rows < self.max_rows() {
            let more = reader.read_byte_record(&mut record).map_err(|e| {
                format_error(self.op, self.path, format!("malformed delimited text: {e}"))
            })?;
            if !more {
                break;
            }
            // The line of the record's last byte, less the line feeds
            // inside its quoted fields: where it starts. (The `csv`
            // crate's record positions are where the previous record ended,
            // before blank lines and the `\n` of a `\r\n`.)
            let end = reader.position().byte();
            let inside = memchr::memchr_iter(b'\n', record.as_slice()).count() as u64;
            let line = lines_before + reader.get_mut().line_of(end.saturating_sub(1)) - inside;
            let parts = record
                .iter()
                .map(std::str::from_utf8)
                .collect::<std::result::Result<Vec<&str>, _>>()
                .map_err(|_| self.error(line, Fault::NotUtf8))?;
            let mut fields = Vec::with_capacity(parts.len());
            self.grammar
                .delimited_with_comment(parts.into_iter(), &mut fields);
            blank_is_no_row(&mut fields);
            if !fields.is_empty() {
                self.take_row(table, line, &fields)?;
            }
        }
        Ok(())
    }
}

/// The input of the `csv` path, noting where its lines end.
struct LineEnds<R> {
    inner: R,
    /// Bytes read so far.
    read: u64,
    /// Offsets of the line feeds read and not yet passed by [`LineEnds::line_of`].
    ends: VecDeque<u64>,
    /// Line feeds passed.
    passed: u64,
}

impl<R: Read> Read for LineEnds<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let start = self.read;
        self.ends
            .extend(memchr::memchr_iter(b'\n', &buf[..n]).map(|i| start + i as u64));
        self.read += n as u64;
        Ok(n)
    }
}

impl<R> LineEnds<R> {
    /// The 1-based line of the byte at `offset` (which never decreases
    /// between calls).
    fn line_of(&mut self, offset: u64) -> u64 {
        while self.ends.front().is_some_and(|&end| end < offset) {
            self.ends.pop_front();
            self.passed += 1;
        }
        self.passed + 1
    }
}

/// The first line of `bytes` (without its line feed) and the rest.
fn split_line(bytes: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'\n', bytes) {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (bytes, &[]),
    }
}

/// `bytes` (whole lines) cut at line ends into pieces for the rayon pool:
/// several per thread, so uneven pieces even out.
fn cut(bytes: &[u8]) -> Vec<&[u8]> {
    let size = (bytes.len() / (4 * rayon::current_num_threads())).max(MIN_PIECE);
    let mut pieces = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = if rest.len() <= size {
            rest.len()
        } else {
            memchr::memchr(b'\n', &rest[size..]).map_or(rest.len(), |i| size + i + 1)
        };
        let (piece, after) = rest.split_at(end);
        pieces.push(piece);
        rest = after;
    }
    pieces
}

/// The next block of whole lines: `carry` (the start of a line the last
/// block cut off) and up to [`BLOCK`] more bytes, cut after the last line
/// feed unless the file ends; returned with the start of the next line.
/// Empty at the end of the file.
fn next_block(file: &mut impl Read, mut buf: Vec<u8>) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    loop {
        let scanned = buf.len();
        buf.reserve(BLOCK);
        let got = file.by_ref().take(BLOCK as u64).read_to_end(&mut buf)?;
        if got < BLOCK {
            return Ok((buf, Vec::new()));
        }
        // A line longer than a block reads on.
        if let Some(i) = memchr::memrchr(b'\n', &buf[scanned..]) {
            let carry = buf.split_off(scanned + i + 1);
            return Ok((buf, carry));
        }
    }
}

/// The parts joined in order, copied on the rayon pool.
fn concat<T: Element>(mut parts: Vec<Vec<T>>) -> Vec<T> {
    if parts.len() <= 1 {
        return parts.pop().unwrap_or_default();
    }
    let total = parts.iter().map(Vec::len).sum();
    let mut all = Vec::with_capacity(total);
    let mut spare = &mut all.spare_capacity_mut()[..total];
    let mut copies = Vec::with_capacity(parts.len());
    for part in &parts {
        let (head, tail) = std::mem::take(&mut spare).split_at_mut(part.len());
        copies.push((head, part));
        spare = tail;
    }
    copies.into_par_iter().for_each(|(dst, src)| {
        for (d, &s) in dst.iter_mut().zip(src.iter()) {
            d.write(s);
        }
    });
    // SAFETY: the parts' lengths sum to `total`, and every element of
    // `all[..total]` was written by exactly one copy above.
    unsafe { all.set_len(total) };
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_line_ends_and_cover_everything() {
        let text: String = (0..200_000).map(|i| format!("{i},{}\n", i * 2)).collect();
        let pieces = cut(text.as_bytes());
        assert!(pieces.len() > 1);
        assert!(pieces.iter().all(|p| p.ends_with(b"\n")));
        assert_eq!(pieces.concat(), text.as_bytes());
    }

    #[test]
    fn blocks_end_at_line_ends_and_lines_longer_than_a_block_read_on() {
        let line = |n: usize| format!("{}\n", "1 ".repeat(n));
        let text = format!("{}{}{}tail", line(10), line(BLOCK), line(3));
        let mut file = Cursor::new(text.as_bytes().to_vec());
        let mut got = Vec::new();
        let mut carry = Vec::new();
        loop {
            let (block, next) = next_block(&mut file, carry).unwrap();
            if block.is_empty() {
                break;
            }
            assert!(block.ends_with(b"\n") || block.ends_with(b"tail"));
            got.extend_from_slice(&block);
            carry = next;
        }
        assert_eq!(got, text.as_bytes());
    }

    #[test]
    fn parts_join_in_order() {
        let parts = vec![vec![1, 2], vec![], vec![3], vec![4, 5, 6]];
        assert_eq!(concat(parts), vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(concat::<i32>(vec![]), Vec::<i32>::new());
    }

    #[test]
    fn delimited_lines_split_as_the_csv_crate_with_comments_cut() {
        let grammar = Grammar {
            delimiter: Some(b','),
            comment: Some(Finder::new(b"#").into_owned()),
        };
        let split = |line: &str| {
            let mut fields = Vec::new();
            grammar.split(line, &mut fields);
            fields.into_iter().map(String::from).collect::<Vec<_>>()
        };
        assert_eq!(split(" 1 ,2,\t3\r"), ["1", "2", "3"]);
        assert_eq!(split("1,2 # note"), ["1", "2"]);
        assert_eq!(split("1, # note"), ["1", ""]);
        assert_eq!(split("# note, x"), Vec::<String>::new());
        assert_eq!(split("   \r"), Vec::<String>::new());
        assert_eq!(split("1,,3"), ["1", "", "3"]);
        assert!(grammar.needs_csv(b"1,\"2\"\n"));
        assert!(grammar.needs_csv(b"1,2\r3,4\r\n"));
        assert!(!grammar.needs_csv(b"1,2\r\n3,4\r\n"));
        assert!(!grammar.needs_csv(b"1,2\r"));
    }
}
