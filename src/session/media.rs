//! Media as the providers count them (SESSIONS.md section 3, "Media"): an image's tokens
//! follow from its pixels, not from its base64 text. Where a provider documents its rule the
//! image is counted by it, its size read from the image's header in the base64 (a bounded
//! prefix); a PDF, an image given by URL or in a format whose header is not read, audio and
//! video are not counted, and the turn is left out of calibration with the reason.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::provider::Provider;

/// Whose image rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Claude (Anthropic, Bedrock, Vertex): about width × height / 750 after its resize.
    Anthropic,
    /// OpenAI (and Azure): 85 plus 170 per 512-pixel tile after its resize; 85 at `low`.
    OpenAi,
    /// Gemini before 3: 258 for an image within 384 pixels, else 258 per 768-pixel tile.
    Gemini,
    /// Gemini 3 and later: each image the same tokens whatever its size, by its media
    /// resolution (1,120 unless the request sets one).
    GeminiFixed(usize),
    /// A provider whose rule toolprism does not know.
    Unknown,
}

impl Family {
    /// The rule a request met, by its provider and model.
    pub fn of(provider: Provider, model: &str) -> Family {
        match provider {
            Provider::Anthropic | Provider::Vertex | Provider::Foundry => Family::Anthropic,
            Provider::Bedrock if model.to_ascii_lowercase().contains("claude") => Family::Anthropic,
            Provider::OpenAi | Provider::Azure => Family::OpenAi,
            Provider::Gemini
                if super::provider::gemini_version(&model.to_ascii_lowercase())
                    .is_some_and(|v| v.0 < 3) =>
            {
                Family::Gemini
            }
            Provider::Gemini => Family::GeminiFixed(GEMINI_IMAGE_HIGH),
            _ => Family::Unknown,
        }
    }

    /// The family at the media resolution a Gemini request sets for all its parts
    /// (`generationConfig.mediaResolution`); other families as they are.
    pub fn at_resolution(self, body: &Value) -> Family {
        let level = body
            .pointer("/generationConfig/mediaResolution")
            .or_else(|| body.pointer("/generation_config/media_resolution"));
        match (self, level.and_then(resolution_tokens)) {
            (Family::GeminiFixed(_), Some(n)) => Family::GeminiFixed(n),
            _ => self,
        }
    }
}

/// Gemini 3's tokens per image at `MEDIA_RESOLUTION_HIGH`, its default for images (Google,
/// *Media resolution*, "Token counts"): pydantic-ai's, ruby_llm's and ellmer's recordings
/// report 1,085 to 1,089 image tokens (`promptTokensDetails`) for a 128 × 128 PNG.
const GEMINI_IMAGE_HIGH: usize = 1120;

/// A Gemini media resolution's tokens per image: a level name, or a part's `{"level": …}`.
fn resolution_tokens(level: &Value) -> Option<usize> {
    let name = level
        .as_str()
        .or_else(|| level.get("level").and_then(Value::as_str))?;
    match name
        .to_ascii_uppercase()
        .trim_start_matches("MEDIA_RESOLUTION_")
    {
        "LOW" => Some(280),
        "MEDIUM" => Some(560),
        "HIGH" => Some(GEMINI_IMAGE_HIGH),
        "ULTRA_HIGH" => Some(2240),
        _ => None,
    }
}

/// Why a block's media are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Uncounted {
    /// A PDF: its pages are read as images and text the trace cannot tell.
    Pdf,
    /// An image the request refers to by URL or file id: its size is not in the trace.
    ImageByReference,
    /// An image whose format's header is not read (PNG, JPEG, GIF and WebP are).
    ImageFormat,
    /// The provider's rule for images is not known.
    Provider,
    /// Audio, video or another file.
    Other,
    /// A Responses `reasoning` (or `compaction`) item's `encrypted_content`: the provider
    /// bills the reasoning it decrypts to, which the trace does not hold.
    Encrypted,
    /// A Gemini server-side tool's call or result sent back (`toolCall` / `toolResponse`
    /// parts): the provider bills what the tool read its own way, not the part's JSON.
    ServerToolPart,
}

impl Uncounted {
    /// In words, for the report.
    pub fn reason(self) -> &'static str {
        match self {
            Uncounted::Pdf => "a PDF: the provider counts its pages, not its base64 text",
            Uncounted::ImageByReference => {
                "an image given by URL or file id: its size is not in the trace"
            }
            Uncounted::ImageFormat => "an image whose size could not be read from its header",
            Uncounted::Provider => "an image for a provider whose image rule is not known",
            Uncounted::Other => "audio, video or a file the provider counts its own way",
            Uncounted::ServerToolPart => {
                "a server-side tool's call or result sent back (Gemini toolCall/toolResponse): the provider counts it its own way"
            }
            Uncounted::Encrypted => {
                "encrypted reasoning sent back (encrypted_content): the provider bills the reasoning it decrypts to, which the trace does not hold"
            }
        }
    }
}

/// The media of one block: the provider tokens of those counted, and the first reason some
/// were not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MediaTokens {
    /// Provider tokens of the counted media.
    pub tokens: usize,
    /// Media found.
    pub found: usize,
    /// Why some are not counted.
    pub uncounted: Option<Uncounted>,
}

/// An encrypted reasoning item an earlier response of the trace wrote (`known`: reasoning
/// tokens by ciphertext hash) is counted as the reasoning tokens that response reported, what
/// the provider bills for it, instead of being left out.
pub fn known_reasoning(
    value: super::prompt::Canon<'_>,
    found: MediaTokens,
    known: &rustc_hash::FxHashMap<u64, u64>,
) -> MediaTokens {
    let super::prompt::Canon::Json(value) = value else {
        return found;
    };
    let tokens = value
        .get("encrypted_content")
        .and_then(Value::as_str)
        .and_then(|c| known.get(&crate::trace::ciphertext_hash(c)));
    match (found.uncounted, tokens) {
        (Some(Uncounted::Encrypted), Some(&tokens)) => MediaTokens {
            tokens: found.tokens + tokens as usize,
            uncounted: None,
            ..found
        },
        _ => found,
    }
}

/// The thoughts a Gemini model content of the current function-calling cycle makes the
/// provider bill again: for each distinct thought signature it sends back that a response of
/// the trace wrote (`known`: thoughts by signature hash), that response's
/// `thoughtsTokenCount` (Google, *Thought signatures*: the model keeps its reasoning within the
/// current turn; pydantic-ai's Gemini 3 step billed 780 = 36 + 632 thoughts + the step).
pub fn reread_thoughts(
    piece: &super::prompt::Piece<'_>,
    known: &rustc_hash::FxHashMap<u64, u64>,
) -> usize {
    let super::prompt::Canon::Json(content) = piece.value else {
        return 0;
    };
    if !piece.thoughts {
        return 0;
    }
    let mut seen: Vec<u64> = Vec::new();
    let parts = content.get("parts").and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        let Some(signature) = part.get("thoughtSignature").and_then(Value::as_str) else {
            continue;
        };
        let hash = crate::trace::signature_hash(signature);
        if !seen.contains(&hash) {
            seen.push(hash);
        }
    }
    seen.iter()
        .filter_map(|h| known.get(h))
        .map(|&n| n as usize)
        .sum()
}

/// Base64 characters read for an image's header at most: a JPEG's size sits after its
/// metadata segments, which are seldom longer.
const HEADER_CHARS: usize = 256 * 1024;

/// Nesting walked at most.
const DEPTH: usize = 16;

/// `value` with each media payload emptied (its text is then counted as the rest of the
/// block), and the media's tokens; `None` when it holds no media.
pub fn strip(value: &Value, family: Family) -> Option<(Value, MediaTokens)> {
    let mut media = MediaTokens::default();
    let stripped = walk(value, family, &mut media, 0);
    (media.found > 0).then_some((stripped, media))
}

fn walk(value: &Value, family: Family, media: &mut MediaTokens, depth: usize) -> Value {
    match value {
        Value::Object(map) if depth < DEPTH => {
            if let Some((tokens, emptied)) = one_medium(map, family) {
                media.found += 1;
                match tokens {
                    Ok(n) => media.tokens += n,
                    Err(why) => {
                        media.uncounted.get_or_insert(why);
                    }
                }
                return Value::Object(emptied);
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), walk(v, family, media, depth + 1)))
                    .collect(),
            )
        }
        Value::Array(items) if depth < DEPTH => Value::Array(
            items
                .iter()
                .map(|v| walk(v, family, media, depth + 1))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One media object (Messages `image`/`document` blocks, Chat `image_url`/`input_audio`/
/// `file` parts, Responses `input_image`/`input_file`, Gemini `inlineData`/`fileData`): its
/// tokens or why not, and the object with its payload emptied. `None`: not a medium.
fn one_medium(
    map: &Map<String, Value>,
    family: Family,
) -> Option<(Result<usize, Uncounted>, Map<String, Value>)> {
    let kind = map.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some(found) = held_back(map, kind) {
        return Some(found);
    }
    let mut emptied = map.clone();
    let result = match kind {
        "image" => {
            let source = map.get("source")?;
            match source.get("type").and_then(Value::as_str) {
                Some("base64") => {
                    let data = source.get("data").and_then(Value::as_str).unwrap_or("");
                    if let Some(Value::Object(s)) = emptied.get_mut("source") {
                        s.insert("data".into(), Value::String(String::new()));
                    }
                    image_tokens(data, family, false)
                }
                _ => Err(Uncounted::ImageByReference),
            }
        }
        "document" => {
            let source = map.get("source")?;
            let media_type = source.get("media_type").and_then(Value::as_str);
            // A text document is text: the exact count reads it as the provider does.
            if matches!(
                source.get("type").and_then(Value::as_str),
                Some("text" | "content")
            ) {
                return None;
            }
            if let Some(Value::Object(s)) = emptied.get_mut("source") {
                s.insert("data".into(), Value::String(String::new()));
            }
            if media_type.is_none_or(|m| m == "application/pdf") {
                Err(Uncounted::Pdf)
            } else {
                Err(Uncounted::Other)
            }
        }
        "image_url" => {
            let inner = map.get("image_url")?;
            let (url, detail) = match inner {
                Value::String(url) => (url.as_str(), None),
                other => (
                    other.get("url").and_then(Value::as_str).unwrap_or(""),
                    other.get("detail").and_then(Value::as_str),
                ),
            };
            if let Some(Value::Object(i)) = emptied.get_mut("image_url") {
                i.insert("url".into(), Value::String(String::new()));
            } else {
                emptied.insert("image_url".into(), Value::String(String::new()));
            }
            data_url_image(url, family, detail == Some("low"))
        }
        "input_image" => {
            let url = map.get("image_url").and_then(Value::as_str).unwrap_or("");
            let low = map.get("detail").and_then(Value::as_str) == Some("low");
            if map.contains_key("image_url") {
                emptied.insert("image_url".into(), Value::String(String::new()));
            }
            data_url_image(url, family, low)
        }
        "input_file" | "file" => {
            for key in ["file_data", "file"] {
                if let Some(Value::String(_)) = emptied.get(key) {
                    emptied.insert(key.into(), Value::String(String::new()));
                }
                if let Some(Value::Object(f)) = emptied.get_mut(key)
                    && f.contains_key("file_data")
                {
                    f.insert("file_data".into(), Value::String(String::new()));
                }
            }
            let text = serde_json::to_string(map).unwrap_or_default();
            if text.contains("application/pdf") || text.contains(".pdf") {
                Err(Uncounted::Pdf)
            } else {
                Err(Uncounted::Other)
            }
        }
        _ if map.get("image").is_some_and(Value::is_object) => {
            // Bedrock Converse: `{"image": {"format", "source": {"bytes"}}}`.
            let source = map["image"].get("source");
            match source.and_then(|s| s.get("bytes")).and_then(Value::as_str) {
                Some(bytes) => {
                    if let Some(Value::Object(i)) = emptied.get_mut("image")
                        && let Some(Value::Object(s)) = i.get_mut("source")
                    {
                        s.insert("bytes".into(), Value::String(String::new()));
                    }
                    image_tokens(bytes, family, false)
                }
                None => Err(Uncounted::ImageByReference),
            }
        }
        _ if ["document", "video"]
            .iter()
            .any(|k| map.get(*k).is_some_and(Value::is_object)) =>
        {
            // Bedrock Converse documents and videos.
            let key = if map.contains_key("document") {
                "document"
            } else {
                "video"
            };
            let pdf =
                key == "document" && map[key].get("format").and_then(Value::as_str) == Some("pdf");
            if let Some(Value::Object(d)) = emptied.get_mut(key)
                && let Some(Value::Object(s)) = d.get_mut("source")
                && s.contains_key("bytes")
            {
                s.insert("bytes".into(), Value::String(String::new()));
            }
            if pdf {
                Err(Uncounted::Pdf)
            } else {
                Err(Uncounted::Other)
            }
        }
        _ => return inline_or_file(map, family),
    };
    Some((result, emptied))
}

/// What else is not counted as text, as [`one_medium`] returns it: encrypted reasoning,
/// Mistral's documents, Gemini's built-in tools' parts sent back, Chat's audio.
fn held_back(
    map: &Map<String, Value>,
    kind: &str,
) -> Option<(Result<usize, Uncounted>, Map<String, Value>)> {
    let mut emptied = map.clone();
    let result = match kind {
        "reasoning" | "compaction"
            if map
                .get("encrypted_content")
                .and_then(Value::as_str)
                .is_some_and(|c| !c.is_empty()) =>
        {
            emptied.insert("encrypted_content".into(), Value::String(String::new()));
            Err(Uncounted::Encrypted)
        }
        "document_url" => {
            // Mistral's document part: a URL, or the file itself as a `data:` URL.
            let url = map
                .get("document_url")
                .and_then(|d| d.as_str().or_else(|| d.get("url").and_then(Value::as_str)))
                .unwrap_or("");
            let pdf = url.starts_with("data:application/pdf") || url.ends_with(".pdf");
            if url.starts_with("data:") {
                emptied.insert("document_url".into(), Value::String(String::new()));
            }
            Err(if pdf {
                Uncounted::Pdf
            } else {
                Uncounted::Other
            })
        }
        _ if ["toolCall", "toolResponse"]
            .iter()
            .any(|k| map.get(*k).is_some_and(Value::is_object)) =>
        {
            // Gemini 3 sends a built-in tool's call and result back as parts: a search's
            // rendered suggestions (kilobytes of HTML) are in them, which the bill is not.
            for key in ["toolCall", "toolResponse"] {
                if emptied.contains_key(key) {
                    emptied.insert(key.into(), Value::Object(Map::new()));
                }
            }
            Err(Uncounted::ServerToolPart)
        }
        "input_audio" => {
            emptied.insert("input_audio".into(), Value::Null);
            Err(Uncounted::Other)
        }
        _ => return None,
    };
    Some((result, emptied))
}

/// Gemini's `inlineData`/`fileData` parts: their tokens or why not, and the part emptied.
fn inline_or_file(
    map: &Map<String, Value>,
    family: Family,
) -> Option<(Result<usize, Uncounted>, Map<String, Value>)> {
    let mut emptied = map.clone();
    // A part's own resolution overrides the request's (Gemini 3).
    let family = match (
        family,
        map.get("mediaResolution").and_then(resolution_tokens),
    ) {
        (Family::GeminiFixed(_), Some(n)) => Family::GeminiFixed(n),
        _ => family,
    };
    let key = ["inlineData", "inline_data"]
        .into_iter()
        .find(|k| map.contains_key(*k));
    if let Some(key) = key {
        let inline = &map[key];
        let mime = inline
            .get("mimeType")
            .or_else(|| inline.get("mime_type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let data = inline.get("data").and_then(Value::as_str).unwrap_or("");
        if let Some(Value::Object(i)) = emptied.get_mut(key) {
            i.insert("data".into(), Value::String(String::new()));
        }
        return Some((by_mime(mime, data, family), emptied));
    }
    let key = ["fileData", "file_data"]
        .into_iter()
        .find(|k| map.get(*k).is_some_and(Value::is_object))?;
    let mime = map[key]
        .get("mimeType")
        .or_else(|| map[key].get("mime_type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let result = if mime == "application/pdf" {
        Err(Uncounted::Pdf)
    } else if let (true, Family::GeminiFixed(n)) = (mime.starts_with("image/"), family) {
        // Its size does not matter: the image is counted without being read.
        Ok(n)
    } else if mime.starts_with("image/") {
        Err(Uncounted::ImageByReference)
    } else {
        Err(Uncounted::Other)
    };
    Some((result, emptied))
}

/// Inline data by its MIME type. Inline text counts as its decoded text at the provider, not
/// as its base64: not counted either.
fn by_mime(mime: &str, data: &str, family: Family) -> Result<usize, Uncounted> {
    if mime.starts_with("image/") {
        image_tokens(data, family, false)
    } else if mime == "application/pdf" {
        Err(Uncounted::Pdf)
    } else {
        Err(Uncounted::Other)
    }
}

/// An image given as a URL: counted when it is a `data:` URL of base64.
fn data_url_image(url: &str, family: Family, low: bool) -> Result<usize, Uncounted> {
    let Some(rest) = url.strip_prefix("data:") else {
        return Err(Uncounted::ImageByReference);
    };
    let Some((meta, data)) = rest.split_once(',') else {
        return Err(Uncounted::ImageFormat);
    };
    if meta.starts_with("application/pdf") {
        return Err(Uncounted::Pdf);
    }
    if !meta.ends_with(";base64") {
        return Err(Uncounted::ImageFormat);
    }
    image_tokens(data, family, low)
}

/// An image's tokens by `family`'s rule, its size read from the base64's header.
fn image_tokens(data: &str, family: Family, low: bool) -> Result<usize, Uncounted> {
    if family == Family::OpenAi && low {
        return Ok(85);
    }
    if family == Family::Unknown {
        return Err(Uncounted::Provider);
    }
    if let Family::GeminiFixed(n) = family {
        return Ok(n);
    }
    let (w, h) = image_size(data).ok_or(Uncounted::ImageFormat)?;
    Ok(tokens_for(family, w, h))
}

/// The tokens of a `w` × `h` image under `family`'s documented rule.
pub fn tokens_for(family: Family, w: u32, h: u32) -> usize {
    let (w, h) = (f64::from(w.max(1)), f64::from(h.max(1)));
    match family {
        Family::Anthropic => {
            // Resized to at most 1568 px on the long edge and about 1.15 megapixels.
            let scale = (1568.0 / w.max(h))
                .min((1_150_000.0 / (w * h)).sqrt())
                .min(1.0);
            let (w, h) = ((w * scale).floor(), (h * scale).floor());
            ((w * h) / 750.0).ceil() as usize
        }
        Family::OpenAi => {
            // Fit within 2048 × 2048, then the short side to 768, then 512-px tiles.
            let fit = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let short = (768.0 / w.min(h)).min(1.0);
            let (w, h) = ((w * short).floor(), (h * short).floor());
            let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
            85 + 170 * tiles as usize
        }
        Family::Gemini => {
            if w <= 384.0 && h <= 384.0 {
                258
            } else {
                258 * ((w / 768.0).ceil() * (h / 768.0).ceil()) as usize
            }
        }
        Family::GeminiFixed(n) => n,
        Family::Unknown => 0,
    }
}

/// An image's width and height from the header its base64 starts with (PNG, JPEG, GIF,
/// WebP), reading at most [`HEADER_CHARS`] of it.
pub fn image_size(data: &str) -> Option<(u32, u32)> {
    let data = data.trim_start();
    let mut end = data.len().min(HEADER_CHARS);
    while end > 0 && !data.is_char_boundary(end) {
        end -= 1;
    }
    let prefix: String = data[..end]
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let usable = prefix.len() / 4 * 4;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(prefix[..usable].trim_end_matches('='))
        .or_else(|_| base64::engine::general_purpose::STANDARD.decode(&prefix[..usable]))
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(&prefix[..usable]))
        .ok()?;
    header_size(&bytes)
}

/// The size in an image header.
fn header_size(b: &[u8]) -> Option<(u32, u32)> {
    let be32 = |i: usize| Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?));
    let be16 = |i: usize| {
        Some(u32::from(u16::from_be_bytes(
            b.get(i..i + 2)?.try_into().ok()?,
        )))
    };
    let le16 = |i: usize| {
        Some(u32::from(u16::from_le_bytes(
            b.get(i..i + 2)?.try_into().ok()?,
        )))
    };
    let le24 = |i: usize| {
        let s = b.get(i..i + 3)?;
        Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
    };
    if b.starts_with(b"\x89PNG\r\n\x1a\n") && b.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        return Some((le16(6)?, le16(8)?));
    }
    if b.starts_with(b"RIFF") && b.get(8..12) == Some(b"WEBP") {
        return match b.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        };
    }
    if b.starts_with(&[0xff, 0xd8]) {
        let mut i = 2;
        while i + 4 <= b.len() {
            if b[i] != 0xff {
                return None;
            }
            let marker = b[i + 1];
            if marker == 0xff {
                i += 1;
                continue;
            }
            // Start-of-frame markers (not DHT, JPG or DAC) hold the size.
            if (0xc0..=0xcf).contains(&marker) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                return Some((be16(i + 7)?, be16(i + 5)?));
            }
            let length = be16(i + 2)? as usize;
            i += 2 + length;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    fn png(w: u32, h: u32) -> String {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        STANDARD.encode(b)
    }

    #[test]
    fn headers_give_the_size() {
        assert_eq!(image_size(&png(640, 480)), Some((640, 480)));
        let gif = STANDARD.encode(b"GIF89a\x20\x03\x58\x02rest");
        assert_eq!(image_size(&gif), Some((800, 600)));
        // A JPEG: SOI, an APP0 segment, then SOF0 with height 300, width 400.
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00];
        jpeg.extend([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03]);
        assert_eq!(image_size(&STANDARD.encode(&jpeg)), Some((400, 300)));
        // WebP lossless (VP8L): 14-bit width-1 and height-1.
        let bits: u32 = (99) | (49 << 14);
        let mut webp = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        webp.extend(bits.to_le_bytes());
        assert_eq!(image_size(&STANDARD.encode(&webp)), Some((100, 50)));
        assert_eq!(image_size("bm90IGFuIGltYWdl"), None);
        assert_eq!(image_size("%%%"), None);
    }

    #[test]
    fn each_provider_counts_by_its_rule() {
        // Anthropic: 1000 × 1000 is within 1568 px and 1.15 MP: 1,000,000 / 750.
        assert_eq!(tokens_for(Family::Anthropic, 1000, 1000), 1334);
        // 4000 × 3000 is resized to about 1.15 MP.
        let big = tokens_for(Family::Anthropic, 4000, 3000);
        assert!((1500..=1540).contains(&big), "{big}");
        // OpenAI: 1024 × 1024 → 768 × 768 → 4 tiles: 85 + 680.
        assert_eq!(tokens_for(Family::OpenAi, 1024, 1024), 765);
        // 2048 × 4096 → 1024 × 2048 → 768 × 1536 → 2 × 3 tiles.
        assert_eq!(tokens_for(Family::OpenAi, 2048, 4096), 85 + 170 * 6);
        assert_eq!(tokens_for(Family::Gemini, 300, 200), 258);
        assert_eq!(tokens_for(Family::Gemini, 1000, 700), 258 * 2);
    }

    #[test]
    fn gemini_3_counts_each_image_at_its_media_resolution() {
        use crate::session::provider::Provider;
        assert_eq!(
            Family::of(Provider::Gemini, "gemini-2.5-flash"),
            Family::Gemini
        );
        let three = Family::of(Provider::Gemini, "gemini-3-flash-preview");
        assert_eq!(three, Family::GeminiFixed(1120));
        assert_eq!(Family::of(Provider::Gemini, "gemini-flash-latest"), three);
        let low =
            serde_json::json!({"generationConfig": {"mediaResolution": "MEDIA_RESOLUTION_LOW"}});
        assert_eq!(three.at_resolution(&low), Family::GeminiFixed(280));
        assert_eq!(Family::Gemini.at_resolution(&low), Family::Gemini);
        // Whatever its size, and by reference too; a part's own resolution first.
        let part = |data: &str| {
            serde_json::json!({"parts": [{"inlineData": {"mimeType": "image/png", "data": data}},
            {"fileData": {"mimeType": "image/jpeg", "fileUri": "gs://b/x.jpg"}},
            {"inlineData": {"mimeType": "image/png", "data": data},
             "mediaResolution": {"level": "MEDIA_RESOLUTION_MEDIUM"}}]})
        };
        let (_, media) = strip(&part(&png(128, 128)), three).expect("media");
        assert_eq!((media.tokens, media.uncounted), (1120 + 1120 + 560, None));
        let (_, older) = strip(&part(&png(128, 128)), Family::Gemini).expect("media");
        assert_eq!(older.uncounted, Some(Uncounted::ImageByReference));
    }

    #[test]
    fn a_gemini_server_tool_part_is_not_counted() {
        let part = serde_json::json!({"toolResponse": {"id": "t1", "response":
            {"search_suggestions": "<style>.container { display: flex; }</style>"}}});
        let (stripped, media) = strip(&part, Family::GeminiFixed(1120)).expect("held back");
        assert_eq!(stripped, serde_json::json!({"toolResponse": {}}));
        assert_eq!(media.uncounted, Some(Uncounted::ServerToolPart));
    }

    #[test]
    fn encrypted_reasoning_is_not_counted() {
        let item = serde_json::json!({"id": "rs_1", "type": "reasoning", "summary": [],
            "encrypted_content": "gAAAAABqb8Q5ZsWECJph"});
        let (stripped, media) = strip(&item, Family::OpenAi).expect("held back");
        assert_eq!(stripped["encrypted_content"], "");
        assert_eq!(media.uncounted, Some(Uncounted::Encrypted));
        let docx = serde_json::json!({"type": "document_url",
            "document_url": "data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,UEsDBBQACAgIAC"});
        let (stripped, media) = strip(&docx, Family::Unknown).expect("a document");
        assert_eq!(
            (stripped["document_url"].as_str(), media.uncounted),
            (Some(""), Some(Uncounted::Other))
        );
        let plain = serde_json::json!({"type": "reasoning", "summary": [{"type": "summary_text",
            "text": "t"}]});
        assert_eq!(strip(&plain, Family::OpenAi), None);
    }

    #[test]
    fn blocks_are_stripped_and_counted() {
        let data = png(1000, 1000);
        let block = serde_json::json!({"type": "image", "source":
            {"type": "base64", "media_type": "image/png", "data": data}});
        let (stripped, media) = strip(&block, Family::Anthropic).expect("media");
        assert_eq!(stripped["source"]["data"], "");
        assert_eq!((media.tokens, media.uncounted), (1334, None));
        let url = format!("data:image/png;base64,{data}");
        let chat = serde_json::json!({"role": "user", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": url, "detail": "low"}}]});
        let (stripped, media) = strip(&chat, Family::OpenAi).expect("media");
        assert_eq!(stripped["content"][1]["image_url"]["url"], "");
        assert_eq!(media.tokens, 85);
        let pdf = serde_json::json!({"type": "document", "source":
            {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}});
        let (_, media) = strip(&pdf, Family::Anthropic).expect("media");
        assert_eq!(media.uncounted, Some(Uncounted::Pdf));
        let text = serde_json::json!({"type": "text", "text": "no media"});
        assert!(strip(&text, Family::Anthropic).is_none());
    }
}
