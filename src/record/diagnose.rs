//! `record --diagnose`: ask Anthropic to explain every cache miss of the recorded session.
//!
//! To each Messages request to the first-party API that carries no `diagnostics` key, the
//! proxy adds `"diagnostics":{"previous_message_id":ID}`, ID the id of the response it relayed
//! last on the same conversation (`null` on its first request), so the provider compares the
//! two and says where they diverged (docs/RECORD.md). A conversation is a thread as `session`
//! groups them ([`crate::session::context::thread_key`]): the same key the timeline shows.
//!
//! The addition is spliced into the body's text before its closing brace: every other byte is
//! sent as the client wrote it.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::capture::Capture;

/// Requests longer than this are sent on as they are (the body is parsed to find its
/// conversation, and parsing is bounded).
const MAX_DIAGNOSED: usize = 32 * 1024 * 1024;

/// A Messages request to the first-party API: its conversation, and what was added to it.
#[derive(Debug, Clone)]
pub struct Diagnosed {
    /// The conversation (thread key) the request belongs to.
    pub conversation: String,
    /// The body as sent and the members added (`{"diagnostics": {"previous_message_id": …}}`);
    /// `None` when the client sent its own `diagnostics`.
    pub added: Option<(Vec<u8>, Value)>,
}

/// The last response relayed on each conversation.
#[derive(Debug, Default)]
pub struct Diagnose {
    last: Mutex<HashMap<String, String>>,
}

impl Diagnose {
    /// A request to diagnose: a POST to `{first_party}/v1/messages` (any query), its body an
    /// uncompressed JSON object; `diagnostics` is added unless it has the key. `None`: not one
    /// (sent as it is, no conversation followed).
    pub fn add(
        &self,
        first_party: &str,
        url: &str,
        post: bool,
        encoded: bool,
        agent_id: Option<&str>,
        body: &[u8],
    ) -> Option<Diagnosed> {
        let path = url.strip_prefix(first_party.trim_end_matches('/'))?;
        let path = path.split(['?', '#']).next().unwrap_or(path);
        if !post || encoded || path != "/v1/messages" || body.len() > MAX_DIAGNOSED {
            return None;
        }
        let Ok(Value::Object(object)) = crate::trace::budget::parse_slice(body) else {
            return None;
        };
        let own = object.contains_key("diagnostics");
        let empty = object.is_empty();
        let capture = Capture::from_value(Value::Object(object)).ok()?;
        let conversation = crate::session::context::thread_key(&capture, agent_id);
        if own {
            // The client's own choice, never overridden; its answer is still followed.
            return Some(Diagnosed {
                conversation,
                added: None,
            });
        }
        let previous = self
            .last
            .lock()
            .ok()
            .and_then(|last| last.get(&conversation).cloned());
        let members = json!({"diagnostics": {"previous_message_id": previous}});
        let Value::Object(map) = &members else {
            return None;
        };
        // `"diagnostics":{…}`: the object's one member, as JSON text.
        let text = serde_json::to_string(map).ok()?;
        let text = &text[1..text.len() - 1];
        let close = body.iter().rposition(|b| !b.is_ascii_whitespace())?;
        let mut sent = Vec::with_capacity(body.len() + text.len() + 1);
        sent.extend_from_slice(&body[..close]);
        if !empty {
            sent.push(b',');
        }
        sent.extend_from_slice(text.as_bytes());
        sent.extend_from_slice(&body[close..]);
        Some(Diagnosed {
            conversation,
            added: Some((sent, members)),
        })
    }

    /// The response `id` relayed on `conversation`: the next request of it names it.
    pub fn relayed(&self, conversation: &str, id: String) {
        if let Ok(mut last) = self.last.lock() {
            last.insert(conversation.to_owned(), id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "https://api.anthropic.com";

    fn body(text: &str) -> String {
        format!(
            "{{\"model\":\"claude-opus-5\",\"tools\":[],\"messages\":[{{\"role\":\"user\",\"content\":\"{text}\"}}]}}\n"
        )
    }

    #[test]
    fn the_addition_is_spliced_in_and_names_the_last_response() {
        let diagnose = Diagnose::default();
        let first = body("hi");
        let url = format!("{BASE}/v1/messages?beta=true");
        let sent = |body: &str| {
            let found = diagnose
                .add(BASE, &url, true, false, None, body.as_bytes())
                .unwrap();
            (found.added.unwrap().0, found.conversation)
        };
        let (sent1, conversation) = sent(&first);
        let expected = first.trim_end().strip_suffix('}').unwrap().to_owned()
            + ",\"diagnostics\":{\"previous_message_id\":null}}\n";
        assert_eq!(String::from_utf8(sent1).unwrap(), expected);
        diagnose.relayed(&conversation, "msg_01".into());
        assert!(
            String::from_utf8(sent(&first).0)
                .unwrap()
                .ends_with(",\"diagnostics\":{\"previous_message_id\":\"msg_01\"}}\n")
        );
        // Another conversation starts with null.
        assert!(
            String::from_utf8(sent(&body("other")).0)
                .unwrap()
                .contains(":null}}")
        );
    }

    #[test]
    fn only_first_party_messages_without_their_own_diagnostics() {
        let diagnose = Diagnose::default();
        let plain = body("hi");
        let messages = format!("{BASE}/v1/messages");
        let add = |url: &str, post: bool, encoded: bool, body: &str| {
            diagnose
                .add(BASE, url, post, encoded, None, body.as_bytes())
                .is_some_and(|d| d.added.is_some())
        };
        assert!(add(&messages, true, false, &plain));
        assert!(!add(
            &format!("{BASE}/v1/messages/count_tokens"),
            true,
            false,
            &plain
        ));
        assert!(!add(
            "https://bedrock-runtime.us-east-1.amazonaws.com/v1/messages",
            true,
            false,
            &plain
        ));
        assert!(!add(
            "https://gw.example/anthropic/v1/messages",
            true,
            false,
            &plain
        ));
        assert!(!add(&messages, false, false, &plain));
        assert!(!add(&messages, true, true, &plain));
        assert!(!add(&messages, true, false, "not json"));
        let own = plain.replacen(
            '{',
            "{\"diagnostics\":{\"previous_message_id\":\"msg_x\"},",
            1,
        );
        assert!(
            !add(&messages, true, false, &own),
            "the client's own value stays"
        );
    }
}
