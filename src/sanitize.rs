//! Making untrusted capture text safe to print on a terminal.
//! PLACEHOLDER: filled in by the CLI work.

/// Text with every control, bidi and zero-width character made visible.
pub fn visible(text: &str) -> String {
    text.to_owned()
}
