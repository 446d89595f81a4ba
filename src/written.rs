//! A capture as written: where its tool list and each entry sit in the body's text, and the
//! writer's style (escapes and spacing), so that `original` is the bytes sent and a rewritten
//! entry is written the way the capture's writer would have written it.
//!
//! The text has already been parsed (it is valid JSON) when it is scanned here: the scanner
//! only walks it to find spans, and checks that what it finds lines up with the parsed tree.

use std::ops::Range;

/// How a writer spells JSON: its escapes and its spacing. The default is serde_json's compact
/// form (what toolprism writes for a capture it has no text of).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Style {
    /// Pretty-printed with this indent (spaces or tabs); `None`: one line.
    pub indent: Option<String>,
    /// Between a key and its value: `:` or `: `.
    pub key_sep: &'static str,
    /// Between two items on one line: `,` or `, ` (a pretty writer puts a newline instead).
    pub item_sep: &'static str,
    /// `<`, `>`, `&`, U+2028 and U+2029 as `\u003c`… (Go's encoding/json).
    pub escape_html: bool,
    /// `/` as `\/`.
    pub escape_slash: bool,
    /// Every non-ASCII character as `\uXXXX` (Python's `ensure_ascii`).
    pub ascii_only: bool,
    /// `\u` escapes with upper-case hex digits.
    pub upper_hex: bool,
}

impl Style {
    /// serde_json's compact form: toolprism's own, and the form tokens are counted on.
    pub fn canonical() -> Style {
        Style {
            indent: None,
            key_sep: ":",
            item_sep: ",",
            escape_html: false,
            escape_slash: false,
            ascii_only: false,
            upper_hex: false,
        }
    }

    /// Whether text in this style is serde_json's compact text, byte for byte.
    pub fn is_canonical(&self) -> bool {
        *self == Style::canonical()
    }

    /// JSON text of `value` in this style, as if written `depth` containers deep (the
    /// indentation of its inner lines; nothing before its first byte).
    pub fn write<T: serde::Serialize + ?Sized>(&self, value: &T, depth: usize) -> String {
        if self.is_canonical() {
            return serde_json::to_string(value).unwrap_or_default();
        }
        let mut out = Vec::new();
        let formatter = StyleFormatter {
            style: self,
            level: depth,
            has_value: false,
        };
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Cannot fail: JSON values only, into memory.
        if value.serialize(&mut serializer).is_err() {
            return String::new();
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

/// A serde_json formatter writing a [`Style`].
struct StyleFormatter<'s> {
    style: &'s Style,
    level: usize,
    has_value: bool,
}

impl StyleFormatter<'_> {
    fn newline<W: std::io::Write + ?Sized>(&self, writer: &mut W) -> std::io::Result<()> {
        if let Some(indent) = &self.style.indent {
            writer.write_all(b"\n")?;
            for _ in 0..self.level {
                writer.write_all(indent.as_bytes())?;
            }
        }
        Ok(())
    }

    fn item<W: std::io::Write + ?Sized>(&self, writer: &mut W, first: bool) -> std::io::Result<()> {
        match (first, self.style.indent.is_some()) {
            (true, _) => {}
            (false, true) => writer.write_all(b",")?,
            (false, false) => writer.write_all(self.style.item_sep.as_bytes())?,
        }
        self.newline(writer)
    }

    fn open<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
        c: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        writer.write_all(c)
    }

    fn close<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
        c: &[u8],
    ) -> std::io::Result<()> {
        self.level = self.level.saturating_sub(1);
        if self.has_value {
            self.newline(writer)?;
        }
        writer.write_all(c)
    }

    fn hex<W: std::io::Write + ?Sized>(&self, writer: &mut W, unit: u32) -> std::io::Result<()> {
        let text = if self.style.upper_hex {
            format!("\\u{unit:04X}")
        } else {
            format!("\\u{unit:04x}")
        };
        writer.write_all(text.as_bytes())
    }
}

impl serde_json::ser::Formatter for StyleFormatter<'_> {
    fn begin_array<W: std::io::Write + ?Sized>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: std::io::Write + ?Sized>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: std::io::Write + ?Sized>(
        &mut self,
        _writer: &mut W,
    ) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: std::io::Write + ?Sized>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: std::io::Write + ?Sized>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(self.style.key_sep.as_bytes())
    }

    fn end_object_value<W: std::io::Write + ?Sized>(
        &mut self,
        _writer: &mut W,
    ) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn write_string_fragment<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let style = self.style;
        if !style.escape_html && !style.escape_slash && !style.ascii_only {
            return writer.write_all(fragment.as_bytes());
        }
        let mut from = 0;
        for (at, c) in fragment.char_indices() {
            let escaped = match c {
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => style.escape_html,
                '/' => style.escape_slash,
                c => !c.is_ascii() && style.ascii_only,
            };
            if !escaped {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[from..at])?;
            from = at + c.len_utf8();
            if c == '/' {
                writer.write_all(b"\\/")?;
                continue;
            }
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                self.hex(writer, u32::from(*unit))?;
            }
        }
        writer.write_all(&fragment.as_bytes()[from..])
    }

    fn write_char_escape<W: std::io::Write + ?Sized>(
        &mut self,
        writer: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::CharEscape;
        let text: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"\\/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => return self.hex(writer, u32::from(byte)),
        };
        writer.write_all(text)
    }
}

/// The whitespace of a written array: after `[`, between two items (the comma included) and
/// before `]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Between `[` and the first item.
    pub open: String,
    /// Between two items, the comma included.
    pub sep: String,
    /// Between the last item and `]`.
    pub close: String,
}

impl Layout {
    /// The layout a writer of `style` gives an array `depth` containers deep.
    pub fn of_style(style: &Style, depth: usize) -> Layout {
        match &style.indent {
            Some(indent) => Layout {
                open: format!("\n{}", indent.repeat(depth + 1)),
                sep: format!(",\n{}", indent.repeat(depth + 1)),
                close: format!("\n{}", indent.repeat(depth)),
            },
            None => Layout {
                open: String::new(),
                sep: style.item_sep.to_owned(),
                close: String::new(),
            },
        }
    }

    /// Bytes of the array of items of these lengths (`[]` when there are none).
    pub fn array_len(&self, items: impl ExactSizeIterator<Item = usize>) -> usize {
        let count = items.len();
        if count == 0 {
            return 2;
        }
        2 + self.open.len() + self.close.len() + self.sep.len() * (count - 1) + items.sum::<usize>()
    }

    /// The array of these items' text.
    pub fn array<'t>(&self, items: impl Iterator<Item = &'t str>) -> String {
        let mut out = String::from("[");
        let mut any = false;
        for item in items {
            out.push_str(if any { &self.sep } else { &self.open });
            out.push_str(item);
            any = true;
        }
        if any {
            out.push_str(&self.close);
        }
        out.push(']');
        out
    }
}

/// Where a capture's tools sit in the text it was read from, and how that text is written.
#[derive(Debug, Clone)]
pub struct Written {
    /// The body's text as read (a byte-order mark left out).
    text: Box<str>,
    /// The document, without the whitespace around it.
    body: Range<usize>,
    /// The tool list's value (`tools`, `result.tools`, `toolConfig.tools`, `functions`).
    tools: Option<Range<usize>>,
    /// Each of the capture's entries (for Gemini: each declaration, and each tool object that
    /// holds none), in capture order.
    entries: Vec<Range<usize>>,
    /// The tool list's own whitespace.
    layout: Layout,
    /// Containers around the tool list's value (1: a key of the body).
    depth: usize,
    style: Style,
}

impl Written {
    /// Scan `text` (valid JSON that parsed to `body`) for the tool list at `holder.key` and its
    /// entries; `gemini` flattens declarations out of their tool objects as the capture does.
    /// `None` when the spans do not line up with `entries` (the parsed list).
    pub fn scan(
        text: &str,
        holder: Option<&str>,
        key: &str,
        gemini: bool,
        entries: usize,
    ) -> Option<Written> {
        // The escapes are read from the whole body and the spans from its structure: two
        // passes over the text, side by side when it is long.
        let from = skip_ws(text.as_bytes(), 0);
        let escapes = || detect_style(&text[from..], 0);
        let structure = || Structure::find(text, holder, key, gemini);
        let (structure, mut style) = if text.len() >= SCAN_BESIDE {
            let (structure, style) = rayon::join(structure, escapes);
            (structure?, style)
        } else {
            (structure()?, escapes())
        };
        let Structure {
            body,
            tools,
            spans,
            mut layout,
            depth,
        } = structure;
        if spans.len() != entries {
            return None;
        }
        // Spacing from the entries, which a rewritten entry stands among (a list may hold
        // one-line entries in a pretty-printed body).
        if let Some(first) = spans.first() {
            let containers = containers_at(text.as_bytes(), first.start);
            let spacing = detect_style(&text[first.clone()], containers);
            style.indent = spacing.indent;
            style.key_sep = spacing.key_sep;
            style.item_sep = spacing.item_sep;
        }
        if layout.sep.is_empty() {
            let derived = Layout::of_style(&style, depth);
            layout.sep = if layout.open.contains('\n') {
                format!(",{}", layout.open)
            } else {
                derived.sep
            };
            if spans.is_empty() {
                layout.open = derived.open;
                layout.close = derived.close;
            }
        }
        Some(Written {
            text: text.into(),
            body,
            tools,
            entries: spans,
            layout,
            depth,
            style,
        })
    }

    /// The whole document as read.
    pub fn body(&self) -> &str {
        &self.text[self.body.clone()]
    }

    /// The tool list's value as read, if the body has one.
    pub fn tools(&self) -> Option<&str> {
        self.tools.clone().map(|range| &self.text[range])
    }

    /// Entry `index` as read.
    pub fn entry(&self, index: usize) -> Option<&str> {
        self.entries
            .get(index)
            .map(|range| &self.text[range.clone()])
    }

    /// The tool list's whitespace.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The writer's style.
    pub fn style(&self) -> &Style {
        &self.style
    }

    /// Containers around the tool list's value.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The body's text with the tool list's value replaced by `tools`.
    pub fn with_tools(&self, tools: &str) -> Option<String> {
        let range = self.tools.clone()?;
        let mut out = String::with_capacity(self.body.len() + tools.len());
        out.push_str(&self.text[self.body.start..range.start]);
        out.push_str(tools);
        out.push_str(&self.text[range.end..self.body.end]);
        Some(out)
    }
}

/// The span of member `key`'s value in the object at `object` (its last occurrence, as the
/// parser keeps the last of duplicate keys).
pub fn member(bytes: &[u8], object: Range<usize>, key: &str) -> Option<Range<usize>> {
    if bytes.get(object.start) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    let mut i = skip_ws(bytes, object.start + 1);
    while i < object.end && bytes[i] == b'"' {
        let key_end = skip_string(bytes, i)?;
        let name = &bytes[i + 1..key_end - 1];
        i = skip_ws(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(bytes, i + 1);
        let end = skip_value(bytes, start)?;
        if key_matches(name, key) {
            found = Some(start..end);
        }
        i = skip_ws(bytes, end);
        if bytes.get(i) == Some(&b',') {
            i = skip_ws(bytes, i + 1);
        }
    }
    found
}

/// Whether a key as written (between its quotes) is `key`.
fn key_matches(name: &[u8], key: &str) -> bool {
    if !name.contains(&b'\\') {
        return name == key.as_bytes();
    }
    let quoted = [b"\"", name, b"\""].concat();
    serde_json::from_slice::<String>(&quoted).is_ok_and(|decoded| decoded == key)
}

/// The spans of the items of the array at `array`.
fn items(bytes: &[u8], array: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = skip_ws(bytes, array.start + 1);
    while i < array.end && bytes[i] != b']' {
        let Some(end) = skip_value(bytes, i) else {
            break;
        };
        out.push(i..end);
        i = skip_ws(bytes, end);
        if bytes.get(i) == Some(&b',') {
            i = skip_ws(bytes, i + 1);
        }
    }
    out
}

/// The declarations of a Gemini tool object, as the capture flattens them: the items of its
/// first non-empty declaration list.
fn declarations(bytes: &[u8], object: Range<usize>) -> Option<Vec<Range<usize>>> {
    ["functionDeclarations", "function_declarations"]
        .into_iter()
        .find_map(|key| {
            let list = member(bytes, object.clone(), key)?;
            if bytes.get(list.start) != Some(&b'[') {
                return None;
            }
            let items = items(bytes, list);
            (!items.is_empty()).then_some(items)
        })
}

/// The whitespace an array is written with.
fn observed_layout(text: &str, array: &Range<usize>, items: &[Range<usize>]) -> Layout {
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return Layout {
            open: String::new(),
            sep: String::new(),
            close: String::new(),
        };
    };
    Layout {
        open: text[array.start + 1..first.start].to_owned(),
        sep: items
            .get(1)
            .map(|second| text[first.end..second.start].to_owned())
            .unwrap_or_default(),
        close: text[last.end..array.end - 1].to_owned(),
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the JSON string whose opening quote is at `i` (just past its closing quote);
/// `None` if it is not closed. Jumps from quote or backslash to the next: a tool list is mostly
/// long description strings.
pub(crate) fn skip_string(bytes: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        let at = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        i = at + 2;
    }
}

/// The end of the value starting at `i`.
fn skip_value(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i)? {
        b'"' => skip_string(bytes, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < bytes.len() {
                match bytes[j] {
                    b'"' => {
                        j = skip_string(bytes, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < bytes.len()
                && !matches!(bytes[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// Evidence of a style, counted over a document.
#[derive(Default)]
struct Evidence {
    html_raw: usize,
    html_escaped: usize,
    slash_raw: usize,
    slash_escaped: usize,
    wide_raw: usize,
    wide_escaped: usize,
    hex_upper: usize,
    hex_lower: usize,
    key_space: Option<bool>,
    item_space: Option<bool>,
    indent: Option<Option<String>>,
}

/// Where a body's parts sit in its text: the body, the tool list, each entry, the list's
/// whitespace.
struct Structure {
    body: Range<usize>,
    tools: Option<Range<usize>>,
    spans: Vec<Range<usize>>,
    layout: Layout,
    depth: usize,
}

impl Structure {
    fn find(text: &str, holder: Option<&str>, key: &str, gemini: bool) -> Option<Structure> {
        let bytes = text.as_bytes();
        let start = skip_ws(bytes, 0);
        let end = skip_value(bytes, start)?;
        let body = start..end;
        let mut depth = 1;
        // A body without the object that holds the list (a Converse request without
        // `toolConfig`) has no list, and is kept all the same.
        let object = match holder {
            Some(holder) => {
                depth = 2;
                member(bytes, body.clone(), holder)
                    .filter(|range| bytes.get(range.start) == Some(&b'{'))
            }
            None => Some(body.clone()),
        };
        let tools = object.and_then(|object| member(bytes, object, key));
        let mut layout = Layout {
            open: String::new(),
            sep: String::new(),
            close: String::new(),
        };
        let mut spans = Vec::new();
        if let Some(tools) = &tools
            && bytes.get(tools.start) == Some(&b'[')
        {
            let items = items(bytes, tools.clone());
            layout = observed_layout(text, tools, &items);
            if gemini {
                for item in items {
                    match declarations(bytes, item.clone()) {
                        Some(list) => spans.extend(list),
                        None => spans.push(item),
                    }
                }
            } else {
                spans = items;
            }
        }
        Some(Structure {
            body,
            tools,
            spans,
            layout,
            depth,
        })
    }
}

/// Texts at least this long are scanned for their structure and their escapes at once.
const SCAN_BESIDE: usize = 256 * 1024;

/// Containers open at byte `at` of valid JSON text (strings skipped).
fn containers_at(bytes: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = 0;
    while i < at.min(bytes.len()) {
        match bytes[i] {
            b'"' => {
                i = skip_string(bytes, i).unwrap_or(bytes.len());
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    depth
}

/// The style a JSON value is written in (valid JSON text), written `containers` deep (the
/// indentation of its lines counts them).
pub fn detect_style(text: &str, containers: usize) -> Style {
    let bytes = text.as_bytes();
    let mut seen = Evidence::default();
    let mut depth = containers;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = skip_string(bytes, i).unwrap_or(bytes.len());
                strings(&bytes[i + 1..end.saturating_sub(1).max(i + 1)], &mut seen);
                i = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b':' if seen.key_space.is_none() => {
                seen.key_space = Some(bytes.get(i + 1) == Some(&b' '));
            }
            b',' if seen.item_space.is_none() => match bytes.get(i + 1) {
                Some(b' ') => seen.item_space = Some(true),
                Some(b'\n' | b'\r') => {}
                _ => seen.item_space = Some(false),
            },
            b'\n' if seen.indent.is_none() && depth > 0 => {
                let run = bytes[i + 1..]
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                let next = bytes.get(i + 1 + run);
                if !matches!(next, Some(b'}' | b']')) {
                    let width = run / depth;
                    let unit = &text[i + 1..i + 1 + width.min(run)];
                    seen.indent = Some((run % depth == 0).then(|| unit.to_owned()));
                }
            }
            _ => {}
        }
        i += 1;
    }
    let pretty = match seen.indent {
        Some(Some(unit)) => Some(unit),
        // Lines whose indent is not a whole number of levels: two spaces, the commonest.
        Some(None) => Some("  ".to_owned()),
        None => None,
    };
    Style {
        key_sep: if seen.key_space == Some(true) {
            ": "
        } else {
            ":"
        },
        item_sep: if seen.item_space == Some(true) && pretty.is_none() {
            ", "
        } else {
            ","
        },
        indent: pretty,
        escape_html: seen.html_escaped > seen.html_raw,
        escape_slash: seen.slash_escaped > seen.slash_raw,
        ascii_only: seen.wide_escaped > seen.wide_raw,
        upper_hex: seen.hex_upper > seen.hex_lower,
    }
}

/// The bytes [`strings`] looks at: the start of an escape, the characters an encoder may
/// escape, and the lead bytes of non-ASCII characters. Every other byte is skipped unread.
const STYLE_EVIDENCE: [bool; 256] = {
    let mut table = [false; 256];
    table[b'\\' as usize] = true;
    table[b'<' as usize] = true;
    table[b'>' as usize] = true;
    table[b'&' as usize] = true;
    table[b'/' as usize] = true;
    let mut b = 0xC0;
    while b < 256 {
        table[b] = true;
        b += 1;
    }
    table
};

/// Count the escapes and raw characters of one string's content.
fn strings(content: &[u8], seen: &mut Evidence) {
    let mut i = 0;
    while i < content.len() {
        match content[i..]
            .iter()
            .position(|&b| STYLE_EVIDENCE[usize::from(b)])
        {
            Some(skip) => i += skip,
            None => return,
        }
        match content[i] {
            b'\\' => {
                match content.get(i + 1) {
                    Some(b'/') => seen.slash_escaped += 1,
                    Some(b'u') if i + 6 <= content.len() => {
                        let digits = &content[i + 2..i + 6];
                        if let Some(unit) = std::str::from_utf8(digits)
                            .ok()
                            .and_then(|d| u32::from_str_radix(d, 16).ok())
                        {
                            match unit {
                                0x3c | 0x3e | 0x26 => seen.html_escaped += 1,
                                0x80.. => seen.wide_escaped += 1,
                                _ => {}
                            }
                        }
                        if digits.iter().any(u8::is_ascii_uppercase) {
                            seen.hex_upper += 1;
                        } else if digits.iter().any(u8::is_ascii_lowercase) {
                            seen.hex_lower += 1;
                        }
                    }
                    _ => {}
                }
                i += 2;
                continue;
            }
            b'<' | b'>' | b'&' => seen.html_raw += 1,
            b'/' => seen.slash_raw += 1,
            0xC0.. => seen.wide_raw += 1,
            _ => {}
        }
        i += 1;
    }
}

/// Whether `value` serialized in `style` would be read back as `value` (always: a style
/// changes spelling, never meaning). Kept as the contract of [`Style::write`].
#[cfg(test)]
fn round_trips(style: &Style, value: &serde_json::Value) -> bool {
    serde_json::from_str::<serde_json::Value>(&style.write(value, 0))
        .ok()
        .as_ref()
        == Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use serde_json::json;

    #[test]
    fn go_style_is_detected_and_written() {
        let text = r#"{"tools":[{"name":"a","description":"x \u003c y \u0026 z"}],"n":1}"#;
        let written = Written::scan(text, None, "tools", false, 1).unwrap();
        let style = written.style();
        assert!(style.escape_html && !style.escape_slash && !style.ascii_only);
        assert_eq!(style.indent, None);
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(style.write(&value, 0), text);
        assert!(round_trips(style, &value));
    }

    #[test]
    fn python_default_and_indent_styles_are_written_back() {
        let value = json!({"a": [1, "é/ü"], "b": {"c": "<x>"}});
        let python = r#"{"a": [1, "\u00e9/\u00fc"], "b": {"c": "<x>"}}"#;
        let style = detect_style(python, 0);
        assert_eq!((style.key_sep, style.item_sep), (": ", ", "));
        assert!(style.ascii_only);
        assert_eq!(style.write(&value, 0), python);
        let four = "{\n    \"a\": [\n        1,\n        \"\\u00e9\\/\\u00fc\"\n    ],\n    \"b\": {\n        \"c\": \"<x>\"\n    }\n}";
        let style = detect_style(four, 0);
        assert_eq!(style.indent.as_deref(), Some("    "));
        assert!(style.escape_slash && style.ascii_only);
        assert_eq!(style.write(&value, 0), four);
    }

    #[test]
    fn spans_are_the_bytes_as_written() {
        let text = "{\"result\": {\"tools\": [ {\"name\":\"a\"} ,\n {\"name\":\"b\"} ]}}\n";
        let written = Written::scan(text, Some("result"), "tools", false, 2).unwrap();
        assert_eq!(
            written.tools(),
            Some("[ {\"name\":\"a\"} ,\n {\"name\":\"b\"} ]")
        );
        assert_eq!(written.entry(1), Some("{\"name\":\"b\"}"));
        assert_eq!(written.layout().sep, " ,\n ");
        assert_eq!(written.body(), text.trim_end());
        assert!(Written::scan(text, Some("result"), "tools", false, 3).is_none());
        let bare = "{\"messages\": []}";
        let written = Written::scan(bare, Some("toolConfig"), "tools", false, 0).unwrap();
        assert_eq!((written.body(), written.tools()), (bare, None));
    }

    #[test]
    fn one_line_entries_in_a_pretty_body_are_written_on_one_line() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"a\", \"x\": [1, 2]},\n    {\"name\": \"b\"}\n  ]\n}";
        let written = Written::scan(text, None, "tools", false, 2).unwrap();
        let style = written.style();
        assert_eq!(
            (style.indent.as_deref(), style.key_sep, style.item_sep),
            (None, ": ", ", ")
        );
        let entry: serde_json::Value = serde_json::from_str(written.entry(0).unwrap()).unwrap();
        assert_eq!(style.write(&entry, 2), written.entry(0).unwrap());
        // A pretty entry's indent counts the containers around it.
        let pretty = "{\n  \"tools\": [\n    {\n      \"name\": \"a\"\n    }\n  ]\n}";
        let written = Written::scan(pretty, None, "tools", false, 1).unwrap();
        assert_eq!(written.style().indent.as_deref(), Some("  "));
    }

    #[test]
    fn duplicate_keys_take_the_last_as_the_parser_does() {
        let text = r#"{"tools":[1],"tools":[{"name":"x"},{"name":"y"}]}"#;
        let written = Written::scan(text, None, "tools", false, 2).unwrap();
        assert_eq!(written.entry(0), Some(r#"{"name":"x"}"#));
    }

    #[test]
    fn canonical_text_is_serde_json_s() {
        let value = json!({"a": "<é>\u{1}", "b": [1.5, null]});
        assert_eq!(
            Style::canonical().write(&value, 3),
            serde_json::to_string(&value).unwrap()
        );
        let mut spelled = Style::canonical();
        spelled.item_sep = ", ";
        assert_eq!(
            spelled.write(&value, 0),
            r#"{"a":"<é>\u0001", "b":[1.5, null]}"#
        );
    }
}
