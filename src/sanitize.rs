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
//!   `⟨U+XXXX⟩` (for example `⟨U+202E⟩`, `⟨U+009B⟩`, `⟨U+E0041⟩`).
//!
//! An escape sequence is thus defused by its first character: `\x1b[31m` prints as `␛[31m`.
//! JSON output into a pipe or a file never goes through here: it stays byte-faithful, with only
//! JSON escaping; on a terminal, [`json_for_terminal`] escapes unsafe characters inside strings.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal raw, in any context.
///
/// True for C0 controls (including tab, CR and LF: see [`visible_lines`] for text that keeps
/// its line breaks), `DEL`, C1 controls, bidi controls, zero-width and invisible format
/// characters, the Unicode line/paragraph separators and the tag block.
pub fn is_unsafe(c: char) -> bool {
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
    for (at, c) in json.char_indices() {
        let unsafe_here = if in_string {
            is_unsafe(c)
        } else {
            is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t')
        };
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
    let must_escape = |c: char| is_unsafe(c) && !(keep_newlines && c == '\n');
    let Some(first) = text.find(must_escape) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if !must_escape(c) {
            out.push(c);
        } else if c <= '\u{1F}' {
            // In range by construction; the fallback keeps this panic-free regardless.
            out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'));
        } else {
            let _ = write!(out, "⟨U+{:04X}⟩", c as u32);
        }
    }
    Cow::Owned(out)
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
        // Emoji with ZWJ sequences lose their joiner (shown), but plain emoji, CJK, accents,
        // NBSP and variation selectors pass.
        let text = "café 漢字 🦀 a\u{a0}b \u{2764}\u{fe0f}";
        assert_eq!(visible(text), text);
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
            || ('\u{200b}'..='\u{200f}').contains(&c)
            || matches!(c, '\u{61c}' | '\u{2060}' | '\u{feff}' | '\u{ad}')
            || ('\u{e0000}'..='\u{e007f}').contains(&c)
    }

    proptest! {
        #[test]
        fn single_line_output_has_no_unsafe_char(text in hostile()) {
            let out = visible(&text);
            prop_assert!(!out.chars().any(is_unsafe), "{out:?}");
            // The control, bidi and zero-width ranges named in the contract, checked directly.
            prop_assert!(!out.chars().any(named_in_contract), "{:?}", out);
        }

        #[test]
        fn multi_line_output_keeps_only_line_feeds(text in hostile()) {
            let out = visible_lines(&text);
            prop_assert!(!out.chars().any(|c| is_unsafe(c) && c != '\n'), "{out:?}");
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
                prop_assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe:?}");
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
