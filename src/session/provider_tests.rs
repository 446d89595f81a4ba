//! Providers told by host, by request and by setting; minimums and tool-use tokens.

use super::*;

#[test]
fn models_named_by_the_url() {
    let model = |url: &str| model_in_url(url);
    assert_eq!(
        model("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse").as_deref(),
        Some("gemini-2.5-flash")
    );
    assert_eq!(
        model("https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict").as_deref(),
        Some("claude-sonnet-4@20250514")
    );
    assert_eq!(
        model("https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse").as_deref(),
        Some("us.anthropic.claude-3-5-haiku-20241022-v1:0")
    );
    assert_eq!(model("https://api.anthropic.com/v1/messages"), None);
    assert_eq!(
        model("https://h/model/%zz/converse").as_deref(),
        Some("%zz")
    );
}

#[test]
fn providers_by_host() {
    let id = |url: &str, model: &str| identify(Some(url), Shape::OpenAiChat, model).provider;
    assert_eq!(
        id(
            "https://api.deepseek.com/anthropic/v1/messages",
            "deepseek-chat"
        ),
        Provider::DeepSeek
    );
    assert_eq!(
        id("https://api.moonshot.ai/v1/chat/completions", "kimi-k2"),
        Provider::Moonshot
    );
    assert_eq!(
        id("https://api.z.ai/api/paas/v4/chat/completions", "glm-4.6"),
        Provider::Zai
    );
    assert_eq!(
        id(
            "https://openrouter.ai/api/v1/chat/completions",
            "anthropic/claude-sonnet-4"
        ),
        Provider::Anthropic
    );
    assert_eq!(
        id(
            "https://openrouter.ai/api/v1/chat/completions",
            "meta-llama/llama-4"
        ),
        Provider::Unmodelled
    );
    assert_eq!(
        id(
            "https://x.openai.azure.com/openai/deployments/d/chat/completions",
            "gpt-4o"
        ),
        Provider::Azure
    );
    assert_eq!(
        id(
            "https://chatgpt.com/backend-api/codex/responses",
            "gpt-5-codex"
        ),
        Provider::OpenAi
    );
    assert_eq!(
        id("https://chatgpt.com/backend-api/conversation", "gpt-5"),
        Provider::Unmodelled
    );
    assert_eq!(
        id(
            "https://r.services.ai.azure.com/anthropic/v1/messages",
            "claude-sonnet-4-5"
        ),
        Provider::Foundry
    );
    assert_eq!(
        id(
            "https://r.services.ai.azure.com/openai/v1/responses",
            "gpt-5"
        ),
        Provider::Azure
    );
    assert_eq!(
        id("https://api.groq.com/openai/v1/chat/completions", "llama"),
        Provider::Unmodelled
    );
    assert_eq!(
        id("http://user:pw@API.OPENAI.COM:443/v1/responses", "gpt-5"),
        Provider::OpenAi
    );
    let none = identify(None, Shape::AnthropicMessages, "claude");
    assert!(none.told == Told::Shape && none.provider == Provider::Anthropic);
    assert!(Provider::Unmodelled.rules().is_none());
}

#[test]
fn mistral_xai_cohere_are_named_and_foundry_models_by_their_maker() {
    let id = |url: &str, model: &str| identify(Some(url), Shape::OpenAiChat, model).provider;
    assert_eq!(
        id(
            "https://api.mistral.ai/v1/chat/completions",
            "mistral-small"
        ),
        Provider::Mistral
    );
    assert_eq!(id("https://api.x.ai/v1/responses", "grok-4"), Provider::Xai);
    assert_eq!(
        id("https://api.cohere.com/v2/chat", "command-a-03-2025"),
        Provider::Cohere
    );
    for p in [Provider::Mistral, Provider::Xai, Provider::Cohere] {
        assert!(p.rules().is_none() && p.not_modelled().is_some(), "{p:?}");
    }
    assert_eq!(Provider::Unmodelled.not_modelled(), None);
    let foundry = "https://r.services.ai.azure.com/models/chat/completions?api-version=1";
    assert_eq!(id(foundry, "grok-4-1-fast-non-reasoning"), Provider::Xai);
    assert_eq!(id(foundry, "gpt-4.1"), Provider::Azure);
    assert_eq!(id(foundry, "DeepSeek-V3"), Provider::DeepSeek);
    assert_eq!(id(foundry, "Llama-4-Maverick"), Provider::Unmodelled);
    assert_eq!(
        identify(Some(foundry), Shape::OpenAiChat, "gpt-4.1").told,
        Told::Routed
    );
    assert_eq!(
        id(
            "https://openrouter.ai/api/v1/chat/completions",
            "x-ai/grok-4"
        ),
        Provider::Xai
    );
}

#[test]
fn an_unknown_host_is_told_by_the_request_or_the_setting() {
    // A host that runs its own models is no gateway.
    let groq = identify(
        Some("https://api.groq.com/openai/v1/chat/completions"),
        Shape::OpenAiChat,
        "openai/gpt-oss-120b",
    );
    assert_eq!(
        (groq.provider, groq.told),
        (Provider::Unmodelled, Told::Host)
    );
    let at = |shape: Shape, model: &str, named: Option<Provider>| {
        let who = identify_with(Some("http://127.0.0.1:4000/v1/x"), shape, model, named);
        (who.provider, who.told)
    };
    let messages = Shape::AnthropicMessages;
    assert_eq!(
        at(messages, "claude-sonnet-4-5", None),
        (Provider::Anthropic, Told::Assumed)
    );
    assert_eq!(
        at(Shape::OpenAiChat, "gpt-4.1-mini", None),
        (Provider::OpenAi, Told::Assumed)
    );
    assert_eq!(
        at(Shape::OpenAiResponses, "o4-mini", None),
        (Provider::OpenAi, Told::Assumed)
    );
    assert_eq!(
        at(Shape::OpenAiChat, "anthropic/claude-haiku-4.5", None),
        (Provider::Anthropic, Told::Assumed)
    );
    // A model on an API not its maker's, or a model no provider names: not assumed.
    assert_eq!(
        at(Shape::OpenAiChat, "claude-sonnet-4-5", None),
        (Provider::Unmodelled, Told::Host)
    );
    assert_eq!(
        at(messages, "glm-4.6", None),
        (Provider::Unmodelled, Told::Host)
    );
    assert_eq!(
        at(messages, "glm-4.6", Some(Provider::Zai)),
        (Provider::Zai, Told::Named)
    );
    // A known host is never overridden by the setting.
    let known = identify_with(
        Some("https://api.anthropic.com/v1/messages"),
        messages,
        "claude-sonnet-4-5",
        Some(Provider::OpenAi),
    );
    assert_eq!(
        (known.provider, known.told),
        (Provider::Anthropic, Told::Host)
    );
    // The setting's choices are the providers a user may name.
    let key = crate::Settings::KEYS
        .iter()
        .find(|k| k.key == "session.provider")
        .unwrap();
    let mut ids = vec!["auto"];
    ids.extend(Provider::NAMED.iter().map(|p| p.id()));
    assert_eq!(key.choices().unwrap(), ids);
    for p in Provider::NAMED {
        assert_eq!(Provider::from_id(p.id()), Some(p));
    }
}

#[test]
fn minimums_and_tool_use_tokens() {
    assert_eq!(min_tokens(Provider::Anthropic, "claude-opus-4-5"), 4096);
    assert_eq!(min_tokens(Provider::Bedrock, "claude-3-5-haiku"), 2048);
    assert_eq!(min_tokens(Provider::Gemini, "gemini-2.5-pro"), 2048);
    assert_eq!(
        min_tokens(Provider::Gemini, "models/gemini-2.5-flash"),
        2048
    );
    assert_eq!(min_tokens(Provider::Gemini, "gemini-3-flash-preview"), 4096);
    assert_eq!(min_tokens(Provider::Gemini, "gemini-3.1-pro-preview"), 4096);
    assert_eq!(min_tokens(Provider::Gemini, "gemini-flash-latest"), 4096);
    for older in [
        "gemini-2.0-flash-exp",
        "models/gemini-1.5-pro-002",
        "gemini-pro",
    ] {
        assert_eq!(
            min_tokens(Provider::Gemini, older),
            NO_IMPLICIT_CACHE,
            "{older}"
        );
    }
    assert!(gemini_caches_implicitly("gemini-flash-latest"));
    assert!(gemini_caches_implicitly("gemini-2.5-flash-lite"));
    // The pricing page's figures for Claude 4; from 4.5 on, what those models bill beyond them.
    assert_eq!(tool_use_tokens("claude-sonnet-4-20250514", false), 346);
    assert_eq!(tool_use_tokens("claude-opus-4-1", true), 313);
    assert_eq!(tool_use_tokens("claude-3-7-sonnet-20250219", false), 346);
    assert_eq!(tool_use_tokens("claude-3-opus-20240229", false), 530);
    let (auto, forced) = TOOL_USE_UNPUBLISHED;
    for later in [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "anthropic/claude-haiku-4.5",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-6@default",
        "claude-opus-4-8",
        "claude-fable-5",
        "claude-sonnet-5",
    ] {
        assert_eq!(tool_use_tokens(later, false), 346 + auto, "{later}");
        assert_eq!(tool_use_tokens(later, true), 313 + forced, "{later}");
    }
}

#[test]
fn anthropic_defined_tools_bill_their_definitions() {
    let tools = |kinds: &[&str]| -> Vec<serde_json::Value> {
        kinds
            .iter()
            .map(|k| serde_json::json!({"type": k, "name": "x"}))
            .collect()
    };
    assert_eq!(
        defined_tools_tokens(&tools(&["computer_20250124"])),
        735 + 466
    );
    assert_eq!(
        defined_tools_tokens(&tools(&["computer_20241022"])),
        683 + 466
    );
    assert_eq!(
        defined_tools_tokens(&tools(&["bash_20250124", "text_editor_20250728"])),
        245 + 700
    );
    // A custom tool (no type, or `custom`) is in the request as the provider reads it.
    assert_eq!(defined_tools_tokens(&tools(&["custom"])), 0);
    assert_eq!(defined_tools_tokens(&[serde_json::json!({"name": "f"})]), 0);
}
