//! One turn's request, read once: everything the cache chain, the verdict and the strategies'
//! replay take from a capture besides its tools, gathered here in one place. After this the
//! analysis reads the [`TurnRead`], not the capture (the projections excepted: a strategy
//! projects the capture itself).

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;

use super::calibration::GroupKey;
use super::chain::ChainPoint;
use super::context::{self, Conversation};
use super::media::{Family, Uncounted};
use super::prices::{provider_is_openai, rules_with};
use super::{cache, prompt, provider, verdict};
use crate::capture::{Capture, Shape};
use crate::settings::Settings;
use crate::trace::Usage;
use std::sync::Arc;

/// Which inputs beyond the tool list the session's strategies declare they read
/// ([`crate::strategies::registry::reads`]): the rest is not read at all.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Wants {
    /// Some strategy reads the conversation (the adaptive selector's context).
    pub(super) context: bool,
    /// Some strategy reads the tools loaded through `tool_search`.
    pub(super) loaded: bool,
}

/// What the session reads of one request.
pub(super) struct TurnRead<'c> {
    pub(super) shape: Shape,
    /// The model as the request names it, else as its URL does (Gemini, Vertex, Bedrock put
    /// it in the path; `""` without one).
    pub(super) model: Cow<'c, str>,
    /// The body has a `tools` key.
    pub(super) present: bool,
    /// The provider billed it (the record has its usage): it was answered, not refused.
    pub(super) billed: bool,
    /// Its blocks besides the tools, in provider order (system, messages; OpenAI's
    /// instructions first), and how many of them come before the tools.
    pub(super) pieces: Vec<prompt::Piece<'c>>,
    pub(super) head: usize,
    /// Whose cache it met (by its URL's host, else its shape).
    pub(super) who: provider::Identified,
    /// The cache rules it is modelled with.
    pub(super) rules: cache::Rules,
    /// The seed of its prefixes (one cache per provider family and model).
    pub(super) seed: u64,
    /// OpenAI's usage figures: prompt tokens include the cached ones.
    pub(super) openai: bool,
    /// The system prompt's fingerprint, each message's (a turn with usage only), the tool
    /// calls and the `tool_search` queries.
    pub(super) conversation: Conversation,
    /// The tools its `tool_search` calls loaded (when a strategy reads them).
    pub(super) loads: BTreeSet<String>,
    /// A hash of the adaptive selector's context (0 when no strategy reads it).
    pub(super) context: u128,
    /// Provider tokens before the tools the body does not hold (Anthropic's tool-use prompt).
    pub(super) overhead: usize,
    /// Of those, the part no page publishes (Claude 4.5 and later's larger tool-use prompt).
    pub(super) unpublished: usize,
    /// The trace's text is hashed.
    pub(super) hashed: bool,
    /// Context the provider stored that the request only names: its prompt holds turns the
    /// request does not.
    pub(super) stored_context: Option<StoredContext>,
    /// The request holds media (images, documents, audio, video).
    pub(super) media: bool,
    /// Whose image rule counts its images.
    pub(super) family: Family,
    /// The request's `diagnostics` (Anthropic): `None` without one; `Some(None)` asking with
    /// no previous message; else the named message's id, hashed.
    pub(super) asked: Option<Option<u64>>,
}

/// Context a provider stored that a request names instead of sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StoredContext {
    /// A Responses request continuing a stored response (`previous_response_id`,
    /// `conversation`).
    Response,
    /// A Gemini request reading an explicit context cache (`cachedContent`).
    GeminiCache,
}

impl StoredContext {
    fn of(shape: Shape, body: &serde_json::Value) -> Option<StoredContext> {
        let named = |keys: &[&str]| {
            keys.iter()
                .any(|k| body.get(*k).is_some_and(|v| !v.is_null()))
        };
        match shape {
            Shape::OpenAiResponses if named(&["previous_response_id", "conversation"]) => {
                Some(StoredContext::Response)
            }
            Shape::GeminiGenerateContent if named(&["cachedContent", "cached_content"]) => {
                Some(StoredContext::GeminiCache)
            }
            _ => None,
        }
    }

    /// Why its turn is neither judged nor calibrated.
    pub(super) fn reason(self) -> &'static str {
        match self {
            StoredContext::Response => {
                "it continues a response the provider stored (previous_response_id or conversation): the provider's prompt holds turns the request does not"
            }
            StoredContext::GeminiCache => {
                "it reads an explicit context cache (cachedContent): the provider's prompt holds contents the request does not"
            }
        }
    }
}

/// Requests dated before this instant (26 November 2025, in milliseconds since the epoch) were
/// billed the tool-use prompt the pricing page lists: pydantic-ai's Claude 4.5 recordings of
/// 29 October 2025 and before show nothing more, those of 26 November 2025 and after show
/// [`provider::TOOL_USE_UNPUBLISHED`].
const LARGER_TOOL_USE_PROMPT_FROM_MS: i64 = 1_764_115_200_000;

impl<'c> TurnRead<'c> {
    /// The tool-use prompt this turn was billed: without its unpublished part where the request
    /// is dated before Claude 4.5's prompt grew, or where its bill cannot hold it
    /// ([`verdict::overhead_for_bill`]).
    pub(super) fn date_overhead(
        &mut self,
        usage: Option<&Usage>,
        prompt_tokens: usize,
        time_ms: Option<i64>,
    ) {
        if self.unpublished == 0 {
            return;
        }
        if time_ms.is_some_and(|t| t < LARGER_TOOL_USE_PROMPT_FROM_MS) {
            self.overhead -= self.unpublished;
        } else if let Some(u) = usage {
            let billed = if self.openai {
                u.input
            } else {
                u.input + u.cache_read + u.cache_write
            };
            self.overhead =
                verdict::overhead_for_bill(self.overhead, self.unpublished, billed, prompt_tokens);
        }
        self.unpublished = 0;
    }

    /// Why its media keep the turn out of calibration (`uncounted`: why some block's media
    /// were not counted), if they do: media a provider's rule counts calibrate.
    pub(super) fn media_left_out(&self, uncounted: Option<Uncounted>) -> Option<&'static str> {
        // Encrypted reasoning no response of the trace wrote: no medium, but as unseen.
        if uncounted == Some(Uncounted::Encrypted) {
            return Some(Uncounted::Encrypted.reason());
        }
        if !self.media {
            return None;
        }
        match uncounted {
            Some(why) => Some(why.reason()),
            None if self.family == Family::Unknown => Some(Uncounted::Provider.reason()),
            None => None,
        }
    }

    /// Its calibration group: its provider and model.
    pub(super) fn group_key(&self) -> GroupKey {
        GroupKey {
            provider: self.who.provider.id(),
            model: self.model.to_string(),
        }
    }

    /// What its projections read beyond the tools: the adaptive context's hash, and whether
    /// it was sent to OpenRouter (whose tool search `search` then uses).
    pub(super) fn inputs(&self) -> (u128, bool) {
        let host = self.who.host.as_deref().unwrap_or_default();
        let openrouter = host == "openrouter.ai" || host.ends_with(".openrouter.ai");
        (self.context, openrouter)
    }

    /// This turn's point in its thread's cache chain (its message fingerprints taken).
    pub(super) fn chain_point(
        &mut self,
        turn: usize,
        usage: Option<Usage>,
        time_ms: Option<i64>,
        tools: Arc<[u32]>,
    ) -> ChainPoint {
        ChainPoint {
            turn,
            model: crate::trace::diagnosis::id_hash(&self.model),
            usage,
            openai: self.openai,
            time_ms,
            tools,
            present: self.present,
            system: self.conversation.system,
            messages: std::mem::take(&mut self.conversation.messages),
        }
    }

    /// Read `capture`, sent to `url`; `with_usage`: the record has the provider's usage (only
    /// such a turn's messages are checked against the next turn's).
    pub(super) fn of(
        capture: &'c Capture,
        url: Option<&str>,
        with_usage: bool,
        settings: &Settings,
        wants: Wants,
    ) -> TurnRead<'c> {
        let shape = capture.shape();
        let model = match capture.body().get("model").and_then(Value::as_str) {
            Some(model) => Cow::Borrowed(model),
            None => url
                .and_then(provider::model_in_url)
                .map_or(Cow::Borrowed(""), Cow::Owned),
        };
        let (pieces, head) = prompt::pieces(capture, &model);
        let named = settings
            .cache
            .provider
            .and_then(provider::Provider::from_id);
        let who = provider::identify_with(url, shape, &model, named);
        let who_provider = who.provider;
        let rules = rules_with(shape, capture.body(), &model, settings, who.provider);
        let mut conversation = Conversation::read(capture, with_usage, wants.loaded);
        let loads = if wants.loaded {
            let queries = std::mem::take(&mut conversation.queries);
            context::tool_search_loads(capture, queries, settings)
        } else {
            BTreeSet::new()
        };
        let context = if wants.context {
            let text = context::adaptive_context(capture, settings);
            u128::from_le_bytes(
                blake3::hash(text.as_bytes()).as_bytes()[..16]
                    .try_into()
                    .unwrap_or_default(),
            )
        } else {
            0
        };
        TurnRead {
            shape,
            model: model.clone(),
            present: capture.has_tools_key(),
            billed: with_usage,
            pieces,
            head,
            overhead: verdict::tool_use_overhead(capture, &model, who.provider),
            unpublished: verdict::unpublished_overhead(capture, &model, who.provider),
            who,
            rules,
            seed: prompt::seed(shape, &model),
            openai: provider_is_openai(shape),
            conversation,
            loads,
            context,
            hashed: verdict::hashed(capture),
            stored_context: StoredContext::of(shape, capture.body()),
            media: verdict::has_media(capture),
            family: Family::of(who_provider, &model).at_resolution(capture.body()),
            asked: capture
                .body()
                .get("diagnostics")
                .filter(|d| d.is_object())
                .map(|d| {
                    d.get("previous_message_id")
                        .and_then(Value::as_str)
                        .map(crate::trace::diagnosis::id_hash)
                }),
        }
    }
}
