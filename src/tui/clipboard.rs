//! Copying to the clipboard through the terminal (OSC 52), which works over SSH and in tmux
//! (with `set-clipboard on`) without any clipboard program.

use base64::Engine as _;

/// The OSC 52 sequence that puts `text` on the system clipboard. The text travels base64
/// encoded (standard alphabet, padded, RFC 4648), so nothing in it can act on the terminal.
pub fn osc52(text: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{encoded}\x07")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_carries_rfc_4648_base64() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(osc52(plain), format!("\x1b]52;c;{encoded}\x07"), "{plain}");
        }
    }
}
