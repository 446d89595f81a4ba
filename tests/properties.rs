//! Properties every projection keeps, on arbitrary input: no panics, determinism, idempotent
//! shortening, a3s profiles that never touch names or schemas, and untouched keys kept.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolprism::settings::Settings;
use toolprism::strategy::Strategy as Id;
use toolprism::{Capture, project, tool};

/// Any JSON value, nested a few levels.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// Keys that the loader and the strategies look at, and some that they don't.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("tools".to_owned()),
        Just("messages".to_owned()),
        Just("input".to_owned()),
        Just("name".to_owned()),
        Just("description".to_owned()),
        Just("properties".to_owned()),
        Just("function".to_owned()),
        Just("content".to_owned()),
        "[a-z_]{1,6}",
    ]
}

const WORD_CHARS: [char; 12] = ['a', 'B', 'z', ' ', ' ', '.', '!', '?', 'x', 'Y', '_', '-'];

/// Text that hits the rules' edges: sentence ends, Unicode whitespace, multi-byte chars.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("Read a file. ".to_owned()),
        Just("e.g. foo ".to_owned()),
        Just("Ends here! Next".to_owned()),
        Just("\n\n## Overview\n".to_owned()),
        Just("\u{a0}\u{3000}\u{2028}\u{200b}".to_owned()),
        Just("é中文🦀".to_owned()),
        Just("&lt;tag&gt;".to_owned()),
        Just("\r\n".to_owned()),
        Just(" github git search url program mcp ".to_owned()),
        prop::collection::vec(prop::sample::select(&WORD_CHARS[..]), 0..24)
            .prop_map(|chars| chars.into_iter().collect::<String>()),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|parts| parts.concat())
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("program".to_owned()),
        Just("web_search".to_owned()),
        Just("tool_search".to_owned()),
        Just("ctx_expand".to_owned()),
        Just("mcp__lean-ctx__ctx_expand".to_owned()),
        "mcp__[a-z]{1,8}__[a-z_]{1,10}",
        "mcp_[a-z]{1,6}_[a-z]{1,6}",
        "mcp--[a-z]{1,6}--[a-z]{1,6}",
        "[A-Za-z_é-]{1,10}",
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    let prop_schema = (text(), prop::option::of(Just(json!(["string", "null"]))))
        .prop_map(|(d, t)| json!({"type": t.unwrap_or(json!("string")), "description": d}));
    prop::collection::vec(
        (
            prop_oneof![
                Just("properties".to_owned()),
                Just("description".to_owned()),
                "[a-z]{1,6}"
            ],
            prop_schema,
        ),
        0..5,
    )
    .prop_map(|props| {
        let required: Vec<Value> = props.iter().take(2).map(|(k, _)| json!(k)).collect();
        let map: Map<String, Value> = props.into_iter().collect();
        json!({"type": "object", "properties": map, "required": required})
    })
}

/// A capture of any shape with tools that exercise every strategy.
fn capture() -> impl Strategy<Value = Value> {
    let entry = (
        tool_name(),
        text(),
        schema(),
        any::<bool>(),
        prop::option::weighted(0.15, 0..3usize),
    );
    (0..4usize, prop::collection::vec(entry, 0..14), text()).prop_map(|(shape, tools, said)| {
        let tools: Vec<Value> = tools
            .into_iter()
            .map(|(name, description, schema, cached, hosted)| {
                // Hosted entries in the two shapes that carry them.
                let hosted = match (shape, hosted) {
                    (0, Some(_)) => Some(json!({"type": "mcp_toolset", "mcp_server_name": name})),
                    (2, Some(0)) => Some(json!({"type": "web_search"})),
                    (2, Some(1)) => Some(json!({"type": "mcp", "server_label": name, "server_url": "https://x"})),
                    (2, Some(_)) => Some(json!({"type": "file_search", "description": description})),
                    _ => None,
                };
                let mut entry = match shape {
                    _ if hosted.is_some() => hosted.unwrap_or_default(),
                    0 => json!({"name": name, "description": description, "input_schema": schema}),
                    1 => json!({"type": "function", "function": {"name": name, "description": description, "parameters": schema}}),
                    2 => json!({"type": "function", "name": name, "description": description, "parameters": schema, "strict": false}),
                    _ => json!({"name": name, "description": description, "inputSchema": schema}),
                };
                if cached {
                    entry["cache_control"] = json!({"type": "ephemeral"});
                }
                entry
            })
            .collect();
        match shape {
            0 => json!({"model": "claude-x", "messages": [{"role": "user", "content": said}], "tools": tools, "tool_choice": {"type": "auto"}}),
            1 => json!({"model": "gpt-x", "messages": [{"role": "user", "content": said}], "tools": tools}),
            2 => json!({"model": "gpt-x", "input": said, "tools": tools}),
            _ => json!({"tools": tools}),
        }
    })
}

fn settings_variants() -> Vec<Settings> {
    let mut what_if = Settings::default();
    for kv in [
        "defer.threshold=1",
        "shorten.expand_tool=ctx_expand",
        "code.gateway=inject",
        "defer.eligible=all",
    ] {
        what_if.apply(kv).unwrap();
    }
    vec![Settings::default(), what_if]
}

fn snapshot(
    capture: &Capture,
    strategy: Id,
    settings: &Settings,
) -> (String, Vec<toolprism::Note>) {
    let projection = project(capture, strategy, settings);
    (
        tool::compact(&projection.request_body(capture)),
        projection.notes,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_or_json_never_panic(value in any_json(), noise in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = Capture::from_bytes(&noise);
        if let Ok(capture) = Capture::from_value(value) {
            for settings in settings_variants() {
                for strategy in Id::ALL {
                    let projection = project(&capture, strategy, &settings);
                    let _ = projection.request_body(&capture);
                }
            }
        }
    }

    #[test]
    fn request_json_is_the_request_body_serialized(body in capture(), any in any_json()) {
        let captures = [Capture::from_value(body).ok(), Capture::from_value(any).ok()];
        for capture in captures.iter().flatten() {
            for settings in settings_variants() {
                for strategy in Id::ALL {
                    let projection = project(capture, strategy, &settings);
                    let body = projection.request_body(capture);
                    prop_assert_eq!(projection.request_json(capture, false), tool::compact(&body));
                    prop_assert_eq!(projection.request_json(capture, true), tool::pretty(&body));
                    let tools = projection.tools_value(capture).unwrap_or_else(|| Value::Array(Vec::new()));
                    prop_assert_eq!(projection.tools_json(capture, false), tool::compact(&tools));
                    prop_assert_eq!(projection.tools_json(capture, true), tool::pretty(&tools));
                }
            }
        }
    }

    #[test]
    fn projections_are_deterministic(body in capture()) {
        let capture = Capture::from_value(body).unwrap();
        for settings in settings_variants() {
            for strategy in Id::ALL {
                prop_assert_eq!(snapshot(&capture, strategy, &settings), snapshot(&capture, strategy, &settings));
            }
        }
    }

    #[test]
    fn shortening_twice_changes_nothing(body in capture()) {
        for settings in settings_variants() {
            let capture = Capture::from_value(body.clone()).unwrap();
            let once = project(&capture, Id::Shorten, &settings).request_body(&capture);
            let again_capture = Capture::from_value(once.clone()).unwrap();
            // The what-if expand tool is already in the first result: do not append it twice.
            let settings = Settings { shorten_expand_tool: None, ..settings };
            let twice = project(&again_capture, Id::Shorten, &settings).request_body(&again_capture);
            prop_assert_eq!(tool::compact(&once), tool::compact(&twice));
        }
    }

    #[test]
    fn profiles_never_change_a_name_or_a_schema(body in capture()) {
        let capture = Capture::from_value(body).unwrap();
        for settings in settings_variants() {
            for strategy in [Id::Direct, Id::Adaptive, Id::Code, Id::Disabled] {
                let projection = project(&capture, strategy, &settings);
                for sent in projection.sent.iter().flatten() {
                    let Some(origin) = sent.origin else { continue };
                    let before = &capture.tools()[origin];
                    let after = sent.entry(&capture);
                    prop_assert_eq!(tool::name(before), tool::name(after));
                    prop_assert_eq!(tool::schema(before), tool::schema(after));
                    if strategy != Id::Code {
                        prop_assert_eq!(before, after);
                    }
                }
                let names: Vec<&str> = projection.tools(&capture).filter_map(tool::name).collect();
                prop_assert!(names.windows(2).all(|w| w[0].as_bytes() <= w[1].as_bytes()), "{strategy}: not sorted: {names:?}");
            }
        }
    }

    #[test]
    fn hosted_entries_pass_untouched_after_the_function_tools(body in capture()) {
        let capture = Capture::from_value(body).unwrap();
        let hosted = capture.hosted();
        for settings in settings_variants() {
            for strategy in Id::ALL {
                let projection = project(&capture, strategy, &settings);
                let sent = projection.sent.as_deref().unwrap_or(&[]);
                let positions: Vec<usize> = sent
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.origin.is_some_and(|i| hosted.contains(&i)))
                    .map(|(at, _)| at)
                    .collect();
                for &at in &positions {
                    prop_assert!(sent[at].replaced.is_none(), "{}: hosted entry rewritten", strategy);
                }
                // Every hosted entry, or none of them (code, disabled, a greeting, a refusal).
                prop_assert!(positions.is_empty() || positions.len() == hosted.len(), "{}", strategy);
                for &index in &hosted {
                    let status = projection.outcome_of(index).unwrap().status;
                    prop_assert!(matches!(status, toolprism::Status::Kept | toolprism::Status::Removed), "{}: {:?}", strategy, status);
                }
                // Strategies that reorder put them last, in capture order.
                // `search` keeps the order and appends the provider's search entry.
                let reorders = !matches!(strategy, Id::Original | Id::Full | Id::Progressive | Id::Minimal | Id::Shorten | Id::Search | Id::Codex);
                if reorders && !positions.is_empty() {
                    let tail: Vec<Option<usize>> = sent[sent.len() - positions.len()..].iter().map(|t| t.origin).collect();
                    let expected: Vec<Option<usize>> = hosted.iter().map(|&i| Some(i)).collect();
                    prop_assert_eq!(tail, expected, "{}", strategy);
                }
            }
        }
    }

    #[test]
    fn entries_keep_every_key_they_do_not_rewrite(body in capture()) {
        let capture = Capture::from_value(body).unwrap();
        for settings in settings_variants() {
            for strategy in Id::ALL {
                let projection = project(&capture, strategy, &settings);
                for sent in projection.sent.iter().flatten() {
                    let Some(origin) = sent.origin else { continue };
                    let before = capture.tools()[origin].as_object().unwrap();
                    let after = sent.entry(&capture).as_object().unwrap();
                    let before_keys: Vec<&String> = before.keys().collect();
                    let mut after_keys: Vec<&String> = after.keys().collect();
                    // `search` marks a deferred entry by appending `defer_loading`.
                    if strategy == Id::Search
                        && !before.contains_key("defer_loading")
                        && after_keys.last().is_some_and(|k| *k == "defer_loading")
                    {
                        after_keys.pop();
                    }
                    prop_assert_eq!(&before_keys, &after_keys, "{}: key order", strategy);
                    for (key, value) in before {
                        if !matches!(key.as_str(), "description" | "function" | "input_schema" | "parameters" | "inputSchema") {
                            prop_assert_eq!(Some(value), after.get(key), "{}: {}", strategy, key);
                        }
                    }
                    if sent.replaced.is_none() {
                        prop_assert_eq!(tool::compact(&capture.tools()[origin]), tool::compact(sent.entry(&capture)));
                    }
                }
            }
        }
    }
}

/// Every bundled sample: what `export` writes is the request body serialized.
#[test]
fn request_json_matches_the_request_body_on_every_sample() {
    let mut seen = 0;
    for entry in std::fs::read_dir("samples").unwrap() {
        let path = entry.unwrap().path();
        let Ok(capture) = Capture::from_path(path.to_str().unwrap()) else {
            continue;
        };
        seen += 1;
        for settings in settings_variants() {
            for strategy in Id::ALL {
                let projection = project(&capture, strategy, &settings);
                let body = projection.request_body(&capture);
                assert_eq!(
                    projection.request_json(&capture, false),
                    tool::compact(&body),
                    "{path:?} {strategy}"
                );
                assert_eq!(
                    projection.request_json(&capture, true),
                    tool::pretty(&body),
                    "{path:?} {strategy}"
                );
            }
        }
    }
    assert!(seen >= 8, "{seen} samples loaded");
}
