//! Making untrusted capture text safe to print on a terminal.
//!
//! A capture is someone else's data: a tool description can carry ANSI/OSC escape sequences
//! (recolouring or retitling the terminal, faking output), bidi controls (Trojan-Source style
//! reordering) or invisible characters (hidden instructions). Every capture string that reaches
//! human-facing output (tables, diffs, error lines) goes through this module, so that such
//! characters are shown as visible tokens instead of being interpreted:
//!
//! - C0 controls become their Control Pictures symbol (`ESC` → `␛`, `NUL` → `␀`, tab → `␉`,
//!   line feed → `␊`, ...);
//! - `DEL`, C1 controls, bidi controls, zero-width and other invisible format characters become
//!   `⟨U+XXXX⟩` (for example `⟨U+202E⟩`, `⟨U+009B⟩`, `⟨U+E0041⟩`). "Invisible" is Unicode's
//!   own list, not a hand one: every `Default_Ignorable_Code_Point` and every format character
//!   (general category `Cf`), from the Unicode tables `regex-syntax` ships (all 256 variation
//!   selectors, U+1BCA0, U+13430, U+1D173, U+17B4, U+180B, U+FFF0, …). Two of them are kept
//!   where a picture needs them: a zero-width joiner between two emoji (`👩‍💻`) and the
//!   emoji-style selector U+FE0F right after an emoji (`❤️`).
//!
//! An escape sequence is thus defused by its first character: `\x1b[31m` prints as `␛[31m`.
//! JSON output into a pipe or a file never goes through here: it stays byte-faithful, with only
//! JSON escaping; on a terminal, [`json_for_terminal`] escapes unsafe characters inside strings.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::LazyLock;

/// Code point ranges of a Unicode class, from regex-syntax's Unicode tables.
fn class(pattern: &str) -> Vec<(char, char)> {
    use regex_syntax::hir::{Class, HirKind};
    match regex_syntax::parse(pattern).map(regex_syntax::hir::Hir::into_kind) {
        Ok(HirKind::Class(Class::Unicode(class))) => class
            .ranges()
            .iter()
            .map(|range| (range.start(), range.end()))
            .collect(),
        _ => Vec::new(),
    }
}

fn in_class(ranges: &[(char, char)], c: char) -> bool {
    ranges
        .binary_search_by(|&(start, end)| {
            if end < c {
                std::cmp::Ordering::Less
            } else if start > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Every default-ignorable and format code point (what renders as nothing, or acts unseen).
static INVISIBLE: LazyLock<Vec<(char, char)>> =
    LazyLock::new(|| class(r"[\p{Default_Ignorable_Code_Point}\p{Cf}]"));

/// Characters that may take U+FE0F to be drawn as emoji.
static EMOJI: LazyLock<Vec<(char, char)>> = LazyLock::new(|| class(r"\p{Emoji}"));

/// Characters an emoji ZWJ sequence joins: pictographs and skin-tone modifiers.
static PICTOGRAPH: LazyLock<Vec<(char, char)>> =
    LazyLock::new(|| class(r"[\p{Extended_Pictographic}\p{Emoji_Modifier}]"));

/// Whether an unsafe `c` between `prev` and `next` is needed to draw what it sits in, and is
/// kept: a zero-width joiner inside an emoji sequence (a pictograph, or one with its U+FE0F or
/// skin tone, before it and a pictograph after it), or U+FE0F right after an emoji.
pub fn needed_to_render(prev: Option<char>, c: char, next: Option<char>) -> bool {
    match c {
        '\u{200D}' => {
            prev.is_some_and(|p| p == '\u{FE0F}' || in_class(&PICTOGRAPH, p))
                && next.is_some_and(|n| in_class(&PICTOGRAPH, n))
        }
        '\u{FE0F}' => prev.is_some_and(|p| p > '\u{7F}' && in_class(&EMOJI, p)),
        _ => false,
    }
}

/// Whether `c`, between `prev` and `next`, is shown as a visible token: [`is_unsafe`] and not
/// [`needed_to_render`].
pub fn reveals(prev: Option<char>, c: char, next: Option<char>) -> bool {
    is_unsafe(c) && !needed_to_render(prev, c, next)
}

/// How many characters of `text` are shown as tokens, tab, CR and line feed aside (ordinary in
/// descriptions): what an entry is flagged by.
pub fn hidden_count(text: &str) -> usize {
    let mut count = 0;
    let mut prev = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !matches!(c, '\n' | '\r' | '\t') && reveals(prev, c, chars.peek().copied()) {
            count += 1;
        }
        prev = Some(c);
    }
    count
}

/// Whether `c` must not reach a terminal raw, in any context.
///
/// True for C0 controls (including tab, CR and LF: see [`visible_lines`] for text that keeps
/// its line breaks), `DEL`, C1 controls, bidi controls, the Unicode line/paragraph separators,
/// Hangul fillers, and every `Default_Ignorable_Code_Point` and `Cf` character (zero-width and
/// invisible format characters, variation selectors, the tag block). A zero-width joiner or
/// U+FE0F is unsafe here too: [`reveals`] says where one is kept.
pub fn is_unsafe(c: char) -> bool {
    if c > '\u{9F}' && c < '\u{AD}' || (' '..='~').contains(&c) {
        return false;
    }
    is_listed(c) || in_class(&INVISIBLE, c)
}

fn is_listed(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1F}'          // C0 controls
        | '\u{7F}'..='\u{9F}'       // DEL and C1 controls (CSI U+009B, OSC U+009D, ...)
        | '\u{AD}'                  // soft hyphen: invisible unless at a line break
        | '\u{34F}'                 // combining grapheme joiner
        | '\u{61C}'                 // Arabic letter mark (bidi)
        | '\u{115F}' | '\u{1160}'   // Hangul fillers: render as blank
        | '\u{180E}'                // Mongolian vowel separator
        | '\u{200B}'..='\u{200F}'   // zero-width space/non-joiner/joiner, LRM, RLM
        | '\u{2028}' | '\u{2029}'   // line and paragraph separators
        | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}'   // word joiner and invisible operators
        | '\u{2066}'..='\u{206F}'   // bidi isolates and deprecated format characters
        | '\u{3164}' | '\u{FFA0}'   // Hangul fillers
        | '\u{FEFF}'                // zero-width no-break space (BOM)
        | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotation controls
        | '\u{E0000}'..='\u{E007F}' // tag characters (invisible ASCII look-alikes)
    )
}

/// Text for a single-line context (a table cell, an error line): every unsafe character,
/// including tab, CR and LF, made visible. Borrows when nothing needs escaping.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// Text for a multi-line context (a diff body): line feeds are kept so the line structure
/// stays, everything else unsafe (tab and CR too) is made visible.
pub fn visible_lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// JSON text for a terminal: every unsafe character *inside a JSON string* written as a JSON
/// `\uXXXX` escape (a surrogate pair above U+FFFF); everything outside strings (the structural
/// line feeds and indentation of pretty output, the final line feed) is kept as it is. The
/// result parses to the same value and keeps its layout, so `show --pretty` pasted from a
/// terminal is the same JSON, yet a bidi override or a C1 control in a description cannot act
/// on the terminal.
///
/// Unsafe characters outside strings cannot occur in valid JSON except as whitespace (tab, CR,
/// LF); any other one (the input is not JSON) is escaped too, since it must not reach the
/// terminal either way.
pub fn json_for_terminal(json: &str) -> Cow<'_, str> {
    let mut in_string = false;
    let mut escaped = false;
    let mut out: Option<String> = None;
    let mut prev = None;
    let mut chars = json.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, c)| c);
        let unsafe_here = if in_string {
            reveals(prev, c, next)
        } else {
            is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t')
        };
        prev = Some(c);
        if unsafe_here {
            let out = out.get_or_insert_with(|| {
                let mut s = String::with_capacity(json.len() + 16);
                s.push_str(&json[..at]);
                s
            });
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else if let Some(out) = out.as_mut() {
            out.push(c);
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
    }
    match out {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(json),
    }
}

/// The visible token for one unsafe character (also usable for a safe one: it is returned as
/// it is).
pub fn token(c: char) -> Cow<'static, str> {
    match c {
        // Control Pictures: U+2400 + code for C0 (so ESC is U+241B `␛`).
        '\u{0}'..='\u{1F}' => match char::from_u32(0x2400 + c as u32) {
            Some(picture) => Cow::Owned(picture.to_string()),
            None => Cow::Owned(format!("⟨U+{:04X}⟩", c as u32)),
        },
        c if is_unsafe(c) => Cow::Owned(format!("⟨U+{:04X}⟩", c as u32)),
        c => Cow::Owned(c.to_string()),
    }
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let Some(first) = text.find(is_unsafe) else {
        return Cow::Borrowed(text);
    };
    let mut prev = text[..first].chars().next_back();
    let mut chars = text[first..].char_indices().peekable();
    let mut out: Option<String> = None;
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, c)| c);
        let escape_it = reveals(prev, c, next) && !(keep_newlines && c == '\n');
        prev = Some(c);
        let out = match (&mut out, escape_it) {
            (Some(out), _) => out,
            (None, false) => continue,
            (None, true) => out.insert({
                let mut copy = String::with_capacity(text.len() + 16);
                copy.push_str(&text[..first + at]);
                copy
            }),
        };
        if !escape_it {
            out.push(c);
        } else if c <= '\u{1F}' {
            // In range by construction; the fallback keeps this panic-free regardless.
            out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'));
        } else {
            let _ = write!(out, "⟨U+{:04X}⟩", c as u32);
        }
    }
    match out {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            visible("read_file: Reads a file."),
            Cow::Borrowed(_)
        ));
        assert!(matches!(visible("日本語 — ok…"), Cow::Borrowed(_)));
        assert!(matches!(visible_lines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn ansi_and_osc_sequences_are_defused() {
        assert_eq!(visible("\x1b[31mred\x1b[0m"), "␛[31mred␛[0m");
        assert_eq!(
            visible("\x1b]0;owned\x07title"),
            "␛]0;owned␇title",
            "OSC set-title with BEL terminator"
        );
        assert_eq!(visible("\u{9b}31m"), "⟨U+009B⟩31m", "C1 CSI");
        assert_eq!(
            visible("\u{9d}8;;http://x\u{9c}"),
            "⟨U+009D⟩8;;http://x⟨U+009C⟩"
        );
    }

    #[test]
    fn c0_del_and_line_breaks() {
        assert_eq!(visible("a\0b"), "a␀b");
        assert_eq!(visible("a\tb\r\nc"), "a␉b␍␊c");
        assert_eq!(visible("x\u{7f}"), "x⟨U+007F⟩");
        assert_eq!(visible_lines("a\tb\r\nc\n"), "a␉b␍\nc\n");
        assert_eq!(visible("a\u{2028}b"), "a⟨U+2028⟩b");
    }

    #[test]
    fn bidi_and_invisible_characters() {
        assert_eq!(visible("abc\u{202e}def"), "abc⟨U+202E⟩def");
        assert_eq!(visible("\u{2066}x\u{2069}"), "⟨U+2066⟩x⟨U+2069⟩");
        assert_eq!(
            visible("\u{200e}\u{200f}\u{61c}"),
            "⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩"
        );
        assert_eq!(visible("a\u{200b}b\u{200d}c"), "a⟨U+200B⟩b⟨U+200D⟩c");
        assert_eq!(
            visible("\u{feff}x\u{2060}\u{ad}"),
            "⟨U+FEFF⟩x⟨U+2060⟩⟨U+00AD⟩"
        );
        assert_eq!(visible("hi\u{e0041}\u{e007f}"), "hi⟨U+E0041⟩⟨U+E007F⟩");
    }

    #[test]
    fn tokens() {
        assert_eq!(token('\x1b'), "␛");
        assert_eq!(token('\u{202e}'), "⟨U+202E⟩");
        assert_eq!(token('a'), "a");
    }

    #[test]
    fn ordinary_non_ascii_is_untouched() {
        // Plain emoji, CJK, accents, NBSP, an emoji's own U+FE0F and emoji ZWJ sequences pass.
        let text = "café 漢字 🦀 a\u{a0}b \u{2764}\u{fe0f} 👩\u{200d}💻 \u{2764}\u{fe0f}\u{200d}🔥 👋🏽\u{200d}♂\u{fe0f}";
        assert_eq!(visible(text), text);
        assert_eq!(hidden_count(text), 0);
    }

    #[test]
    fn every_invisible_format_character_is_revealed() {
        for c in [
            '\u{1BCA0}',
            '\u{13430}',
            '\u{1D173}',
            '\u{17B4}',
            '\u{180B}',
            '\u{FFF0}',
        ] {
            assert_eq!(
                visible(&format!("a{c}b")),
                format!("a⟨U+{:04X}⟩b", c as u32)
            );
            assert_eq!(hidden_count(&format!("a{c}b")), 1);
        }
        // All 256 variation selectors, after a letter (where none is needed to render).
        let selectors: Vec<char> = ('\u{FE00}'..='\u{FE0F}')
            .chain('\u{E0100}'..='\u{E01EF}')
            .collect();
        assert_eq!(selectors.len(), 256);
        for &c in &selectors {
            let text = format!("IGNORE{c}");
            assert_eq!(visible(&text), format!("IGNORE⟨U+{:04X}⟩", c as u32));
            assert!(json_for_terminal(&format!("[\"{text}\"]")).is_ascii());
        }
        let hidden: String = selectors.iter().collect();
        assert_eq!(hidden_count(&format!("x{hidden}")), 256);
        // Only the selector right after an emoji is kept; a run of them after it is not.
        assert_eq!(
            visible("\u{2764}\u{fe0f}\u{fe0f}"),
            "\u{2764}\u{fe0f}⟨U+FE0F⟩"
        );
        // A joiner between letters, or after an emoji but before a letter, is shown.
        assert_eq!(visible("a\u{200d}b"), "a⟨U+200D⟩b");
        assert_eq!(visible("🦀\u{200d}x"), "🦀⟨U+200D⟩x");
        assert_eq!(visible("\u{200d}🦀"), "⟨U+200D⟩🦀");
        // The table is Unicode's: spot checks of its ranges, and plain text is not in it.
        for c in [
            '\u{AD}',
            '\u{600}',
            '\u{2064}',
            '\u{E0001}',
            '\u{E0FFF}',
            '\u{1D17A}',
        ] {
            assert!(is_unsafe(c), "U+{:04X}", c as u32);
        }
        for c in ['a', ' ', '\u{A0}', 'é', '漢', '🦀', '\u{2003}'] {
            assert!(!is_unsafe(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn json_for_terminal_escapes_but_keeps_the_value() {
        let value =
            serde_json::json!({"name": "a\u{202e}b\u{9b}c\u{e0041}d\u{200b}", "x": "plain é"});
        let compact = serde_json::to_string(&value).unwrap();
        let safe = json_for_terminal(&compact);
        assert!(!safe.chars().any(is_unsafe), "{safe}");
        assert!(
            safe.contains("\\u202e") && safe.contains("\\udb40\\udc41"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
        assert!(matches!(
            json_for_terminal("{\"a\":\"é\"}"),
            Cow::Borrowed(_)
        ));
        // Pretty layout and the final line feed are not escaped (they are not in a string).
        assert_eq!(
            json_for_terminal("{\n  \"a\": \"\u{202e}\"\n}\n"),
            "{\n  \"a\": \"\\u202e\"\n}\n"
        );
    }

    #[test]
    fn json_for_terminal_keeps_the_layout_of_pretty_json() {
        let value = serde_json::json!({"a": ["x\u{202e}y", "tab\there"], "b": {"c": "\u{1b}[31m"}});
        let pretty = format!("{}\n", serde_json::to_string_pretty(&value).unwrap());
        let safe = json_for_terminal(&pretty);
        assert_eq!(
            safe,
            "{\n  \"a\": [\n    \"x\\u202ey\",\n    \"tab\\there\"\n  ],\n  \"b\": {\n    \"c\": \"\\u001b[31m\"\n  }\n}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
        // An escaped quote does not end the string: what follows is still escaped.
        assert_eq!(
            json_for_terminal("[\"q\\\"\u{202e}\"]\n"),
            "[\"q\\\"\\u202e\"]\n"
        );
        assert!(matches!(
            json_for_terminal("{\n  \"a\": 1\n}\n"),
            Cow::Borrowed(_)
        ));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Characters a hostile capture would use, mixed with ordinary text.
    fn hostile() -> impl Strategy<Value = String> {
        let special = prop::sample::select(vec![
            '\u{0}',
            '\t',
            '\n',
            '\r',
            '\x1b',
            '\x07',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{9d}',
            '\u{ad}',
            '\u{61c}',
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{200e}',
            '\u{200f}',
            '\u{2028}',
            '\u{202a}',
            '\u{202e}',
            '\u{2060}',
            '\u{2066}',
            '\u{2069}',
            '\u{feff}',
            '\u{e0001}',
            '\u{e0041}',
            'a',
            'é',
            '漢',
            '🦀',
            ' ',
            '[',
            '⟨',
        ]);
        prop::collection::vec(prop_oneof![special, any::<char>()], 0..64)
            .prop_map(|chars| chars.into_iter().collect())
    }

    fn named_in_contract(c: char) -> bool {
        c.is_control()
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
            || matches!(c, '\u{200b}' | '\u{200c}' | '\u{200e}' | '\u{200f}')
            || matches!(c, '\u{61c}' | '\u{2060}' | '\u{feff}' | '\u{ad}')
            || ('\u{e0000}'..='\u{e007f}').contains(&c)
    }

    /// Whether any character of `text` would be revealed where it stands.
    fn any_revealed(text: &str, allow: &[char]) -> bool {
        let chars: Vec<char> = text.chars().collect();
        (0..chars.len()).any(|i| {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            !allow.contains(&chars[i]) && reveals(prev, chars[i], chars.get(i + 1).copied())
        })
    }

    proptest! {
        #[test]
        fn single_line_output_has_no_unsafe_char(text in hostile()) {
            let out = visible(&text);
            prop_assert!(!any_revealed(&out, &[]), "{out:?}");
            // The control, bidi and zero-width ranges named in the contract, checked directly.
            prop_assert!(!out.chars().any(named_in_contract), "{:?}", out);
        }

        #[test]
        fn multi_line_output_keeps_only_line_feeds(text in hostile()) {
            let out = visible_lines(&text);
            prop_assert!(!any_revealed(&out, &['\n']), "{out:?}");
            prop_assert_eq!(out.matches('\n').count(), text.matches('\n').count());
        }

        #[test]
        fn terminal_json_keeps_value_and_layout(keys in prop::collection::vec(hostile(), 0..4), text in hostile()) {
            let mut map = serde_json::Map::new();
            for (i, k) in keys.into_iter().enumerate() {
                map.insert(k, serde_json::json!([text.clone(), i, {"t": text.clone()}]));
            }
            let value = serde_json::Value::Object(map);
            for json in [serde_json::to_string(&value).unwrap(), serde_json::to_string_pretty(&value).unwrap()] {
                let json = format!("{json}\n");
                let safe = json_for_terminal(&json);
                prop_assert!(!any_revealed(&safe, &['\n']), "{safe:?}");
                prop_assert_eq!(safe.matches('\n').count(), json.matches('\n').count());
                let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
                prop_assert_eq!(&back, &value);
            }
        }

        #[test]
        fn safe_text_is_unchanged(text in "[a-zA-Z0-9 .,:;(){}\\[\\]\"'é漢🦀-]{0,80}") {
            prop_assert_eq!(visible(&text), text.as_str());
        }
    }
}
