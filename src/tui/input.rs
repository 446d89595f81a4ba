//! One line of text being typed, with a cursor: the editing keys a shell user expects
//! (←/→, Home/End, Ctrl-A/E, Ctrl-U, Ctrl-W, Backspace). The cursor counts characters. Every
//! place that edits text (the tool search, a setting's value, the export path) keeps an
//! [`Input`] and edits it with [`Input::edit`], so the keys work alike everywhere.

use super::keys::Action;

/// A line being typed and its cursor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Input {
    /// The text.
    pub text: String,
    /// Where the cursor is (characters; at most the text's length).
    pub cursor: usize,
}

impl Input {
    /// `text` with the cursor at its end.
    pub fn new(text: impl Into<String>) -> Input {
        let text = text.into();
        Input {
            cursor: text.chars().count(),
            text,
        }
    }

    /// Apply `edit`.
    pub fn edit(&mut self, edit: Edit) {
        apply(&mut self.text, &mut self.cursor, edit);
    }

    /// Type `text` at the cursor (a paste).
    pub fn insert_str(&mut self, text: &str) {
        for c in text.chars() {
            self.edit(Edit::Insert(c));
        }
    }

    /// Empty it.
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    /// The text with the cursor drawn in it ([`with_cursor`]).
    pub fn shown(&self) -> String {
        with_cursor(&self.text, self.cursor)
    }
}

/// The edit a key's action makes to a line being typed, if it is an editing key.
pub fn edit_of(action: Action) -> Option<Edit> {
    Some(match action {
        Action::Backspace => Edit::Backspace,
        Action::Left => Edit::Left,
        Action::Right => Edit::Right,
        Action::Top => Edit::Home,
        Action::Bottom => Edit::End,
        Action::KillToStart => Edit::KillToStart,
        Action::KillWord => Edit::KillWord,
        _ => return None,
    })
}

/// An edit to a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Type a character at the cursor.
    Insert(char),
    /// Delete the character before the cursor.
    Backspace,
    /// One character left.
    Left,
    /// One character right.
    Right,
    /// To the start.
    Home,
    /// To the end.
    End,
    /// Delete from the start to the cursor (Ctrl-U).
    KillToStart,
    /// Delete the word before the cursor, and the spaces or slashes after it (Ctrl-W).
    KillWord,
}

fn byte_at(text: &str, cursor: usize) -> usize {
    text.char_indices()
        .nth(cursor)
        .map_or(text.len(), |(i, _)| i)
}

/// Apply `edit` to `text` with its cursor.
pub fn apply(text: &mut String, cursor: &mut usize, edit: Edit) {
    let len = text.chars().count();
    *cursor = (*cursor).min(len);
    match edit {
        Edit::Insert(c) => {
            text.insert(byte_at(text, *cursor), c);
            *cursor += 1;
        }
        Edit::Backspace => {
            if *cursor > 0 {
                let at = byte_at(text, *cursor - 1);
                text.remove(at);
                *cursor -= 1;
            }
        }
        Edit::Left => *cursor = cursor.saturating_sub(1),
        Edit::Right => *cursor = (*cursor + 1).min(len),
        Edit::Home => *cursor = 0,
        Edit::End => *cursor = len,
        Edit::KillToStart => {
            text.replace_range(..byte_at(text, *cursor), "");
            *cursor = 0;
        }
        Edit::KillWord => {
            let chars: Vec<char> = text.chars().collect();
            let separator = |c: char| c == ' ' || c == '/';
            let mut start = *cursor;
            while start > 0 && separator(chars[start - 1]) {
                start -= 1;
            }
            while start > 0 && !separator(chars[start - 1]) {
                start -= 1;
            }
            let (from, to) = (byte_at(text, start), byte_at(text, *cursor));
            text.replace_range(from..to, "");
            *cursor = start;
        }
    }
}

/// `text` with the cursor drawn as `▏` before the character it stands on.
pub fn with_cursor(text: &str, cursor: usize) -> String {
    let at = byte_at(text, cursor);
    format!("{}▏{}", &text[..at], &text[at..])
}

/// `path` with a leading `~/` (or a lone `~`) replaced by `home`.
pub fn expand_home(path: &str, home: Option<&str>) -> String {
    match (path, home) {
        ("~", Some(home)) => home.to_owned(),
        (p, Some(home)) if p.starts_with("~/") => {
            format!("{}{}", home.trim_end_matches('/'), &p[1..])
        }
        (p, _) => p.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, cursor: usize, edits: &[Edit]) -> (String, usize) {
        let (mut text, mut cursor) = (text.to_owned(), cursor);
        for &e in edits {
            apply(&mut text, &mut cursor, e);
        }
        (text, cursor)
    }

    #[test]
    fn editing_keys_work_at_the_cursor() {
        assert_eq!(
            edit("ab", 2, &[Edit::Left, Edit::Insert('X')]),
            ("aXb".to_owned(), 2)
        );
        assert_eq!(
            edit("abc", 3, &[Edit::Home, Edit::Backspace, Edit::End]),
            ("abc".to_owned(), 3)
        );
        assert_eq!(
            edit("dir/sub/file.json", 17, &[Edit::KillWord]),
            ("dir/sub/".to_owned(), 8)
        );
        assert_eq!(
            edit("dir/sub/", 8, &[Edit::KillWord]),
            ("dir/".to_owned(), 4)
        );
        assert_eq!(
            edit("héllo wörld", 6, &[Edit::KillToStart]),
            ("wörld".to_owned(), 0)
        );
        assert_eq!(
            edit(
                "日本",
                2,
                &[Edit::Backspace, Edit::Right, Edit::Insert('x')]
            ),
            ("日x".to_owned(), 2)
        );
        assert_eq!(with_cursor("日本", 1), "日▏本");
    }

    #[test]
    fn tilde_means_home() {
        assert_eq!(
            expand_home("~/out.json", Some("/home/u")),
            "/home/u/out.json"
        );
        assert_eq!(expand_home("~", Some("/home/u/")), "/home/u/");
        assert_eq!(expand_home("a/~/b", Some("/home/u")), "a/~/b");
        assert_eq!(expand_home("~/x", None), "~/x");
    }
}
