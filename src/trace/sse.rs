//! Server-sent event streams as captures store them: the whole stream as one text.

/// The `data` payloads of a stream's events, in order. Multi-line data is joined with `\n` (the
/// SSE rule); comments, `event:` and `id:` lines carry nothing the usage needs.
pub(crate) fn data(stream: &str) -> impl Iterator<Item = String> + '_ {
    let mut lines = stream.split('\n');
    std::iter::from_fn(move || {
        let mut payload: Option<String> = None;
        for line in lines.by_ref() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() {
                if payload.is_some() {
                    return payload;
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix("data:") {
                let rest = rest.strip_prefix(' ').unwrap_or(rest);
                match &mut payload {
                    Some(text) => {
                        text.push('\n');
                        text.push_str(rest);
                    }
                    None => payload = Some(rest.to_owned()),
                }
            }
        }
        payload.take()
    })
}

/// Whether a response text looks like an event stream rather than a JSON document.
pub(crate) fn looks_like_stream(text: &str) -> bool {
    let head = text.trim_start();
    head.starts_with("event:") || head.starts_with("data:") || head.starts_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_multiline_data() {
        let stream =
            "event: a\ndata: {\"x\":1}\n\n: comment\r\ndata: one\r\ndata:two\r\n\r\ndata: [DONE]";
        let got: Vec<String> = data(stream).collect();
        assert_eq!(got, ["{\"x\":1}", "one\ntwo", "[DONE]"]);
        assert!(looks_like_stream(stream));
        assert!(!looks_like_stream("  {\"usage\":{}}"));
    }
}
