//! Codex's MCP handling under tool search (`codex`): STRATEGIES.md section 6.
//!
//! The first tests are Codex's own (openai/codex at `rust-v0.171.0`), carried over with their
//! expected outputs and named after where they come from: the `<tools>` world-state block
//! (`core/src/context/world_state/tools_tests.rs`, `tools_budget_tests.rs`) and the tool search
//! entry (`core/src/tools/.../tool_search` spec tests). The rest project captures.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use toolprism::strategies::codex::{
    self, MAX_NAMESPACE_DESCRIPTION_CHARS, MAX_RENDERED_FRAGMENT_BYTES,
    MAX_TOOL_SEARCH_SOURCE_DESCRIPTION_BYTES, Source, SourceListing,
    calculate_namespace_row_truncation, deferred_namespaces_fragment, namespace_groups_fragment,
    normalize_namespace_description, tool_search_tool, truncate_namespace_rows,
};
use toolprism::{Capture, Level, Note, ProjectionStatus, Settings, Status, Strategy, project};

/// Namespaces as Codex's `ToolsState::new` keeps them: descriptions normalized.
fn state<I, K, V>(pairs: I) -> BTreeMap<String, String>
where
    I: IntoIterator<Item = (K, V)>,
    K: Into<String>,
    V: AsRef<str>,
{
    pairs
        .into_iter()
        .map(|(name, description)| {
            (
                name.into(),
                normalize_namespace_description(description.as_ref()),
            )
        })
        .collect()
}

fn snapshot(namespaces: &BTreeMap<String, String>) -> String {
    deferred_namespaces_fragment(namespaces).expect("tools state should render")
}

// ---- codex-rs/core/src/context/world_state/tools_tests.rs ----

#[test]
fn codex_world_state_tools_renders_first_line_of_namespace_descriptions() {
    let tools = state([
        ("app", "  control the Codex App  \nAdditional instructions."),
        ("gmail", "access your Google Gmail Account & labels"),
        ("hotline", ""),
    ]);
    assert_eq!(
        snapshot(&tools),
        "<tools>\nDeferred tool namespaces:\n- app: control the Codex App\n- gmail: access your Google Gmail Account & labels\n- hotline\n</tools>"
    );
}

#[test]
fn codex_world_state_tools_renders_added_removed_and_updated_namespace_descriptions() {
    // Codex's delta for current {app, kept, gmail} against previous {kept, gmail (old), hotline}.
    let added = state([
        ("app", "control the Codex App"),
        ("gmail", "access your Google Gmail Account"),
    ]);
    let removed = state([("hotline", "access hotline information")]);
    assert_eq!(
        namespace_groups_fragment(
            &[
                ("Added deferred tool namespaces", &added),
                ("Removed deferred tool namespaces", &removed),
            ],
            false
        ),
        "<tools>\nAdded deferred tool namespaces:\n- app: control the Codex App\n- gmail: access your Google Gmail Account\nRemoved deferred tool namespaces:\n- hotline: access hotline information\n</tools>"
    );
}

#[test]
fn codex_world_state_tools_caps_namespace_descriptions_by_character_count() {
    let exact = "🦀".repeat(MAX_NAMESPACE_DESCRIPTION_CHARS);
    let capped = format!("{}...", "🦀".repeat(MAX_NAMESPACE_DESCRIPTION_CHARS - 3));
    let tools = state([
        ("exact".to_owned(), exact.clone()),
        (
            "over".to_owned(),
            "🦀".repeat(MAX_NAMESPACE_DESCRIPTION_CHARS + 1),
        ),
    ]);
    assert_eq!(
        tools,
        BTreeMap::from([
            ("exact".to_owned(), exact.clone()),
            ("over".to_owned(), capped.clone())
        ])
    );
    assert_eq!(
        snapshot(&tools),
        format!("<tools>\nDeferred tool namespaces:\n- exact: {exact}\n- over: {capped}\n</tools>")
    );
}

#[test]
fn codex_world_state_tools_normalizes_descriptions_and_retains_names_under_the_byte_cap() {
    let tools = state((0..100).map(|index| {
        (
            format!("namespace_{index}"),
            format!("{}\nsecond line", "界&<>'\"".repeat(100)),
        )
    }));
    let rendered = snapshot(&tools);
    assert!(rendered.len() <= MAX_RENDERED_FRAGMENT_BYTES);
    assert_eq!(
        rendered
            .lines()
            .filter(|line| line.starts_with("- "))
            .count(),
        100
    );
}

#[test]
fn codex_world_state_tools_retains_all_names_before_sharing_description_bytes() {
    let tools = state((0..100).map(|index| {
        (
            format!("namespace_{index}"),
            "&".repeat(MAX_NAMESPACE_DESCRIPTION_CHARS),
        )
    }));
    let rendered = snapshot(&tools);
    // Codex's note: name-only rows leave 2,564 bytes: 200 separator bytes, 300 ellipsis bytes,
    // and 20 ampersands per namespace, plus one for the first 64.
    let entries: String = tools
        .keys()
        .enumerate()
        .map(|(index, namespace)| {
            let description = "&".repeat(if index < 64 { 21 } else { 20 });
            format!("- {namespace}: {description}...\n")
        })
        .collect();
    assert_eq!(
        (rendered.len(), rendered),
        (
            MAX_RENDERED_FRAGMENT_BYTES,
            format!("<tools>\nDeferred tool namespaces:\n{entries}</tools>")
        )
    );
}

#[test]
fn codex_world_state_tools_retains_names_that_fit_without_reserving_an_omission_notice() {
    let namespaces: Vec<String> = (0..80)
        .map(|index| format!("service_{index:02}_{}", "x".repeat(36)))
        .collect();
    let tools = state(namespaces.iter().map(|n| (n.clone(), "")));
    let rendered = snapshot(&tools);
    let entries: String = namespaces.iter().map(|n| format!("- {n}\n")).collect();
    assert_eq!(
        (rendered.len(), rendered),
        (
            4042,
            format!("<tools>\nDeferred tool namespaces:\n{entries}</tools>")
        )
    );
}

#[test]
fn codex_world_state_tools_preserves_raw_names_and_complete_unicode_at_the_budget_boundary() {
    let namespace = format!("a{}", "<".repeat(4032));
    let tools = state([(namespace.clone(), "&🦀x"), ("z".to_owned(), "🦀&y")]);
    let rendered = snapshot(&tools);
    assert_eq!(
        (rendered.len(), rendered),
        (
            MAX_RENDERED_FRAGMENT_BYTES - 3,
            format!("<tools>\nDeferred tool namespaces:\n- {namespace}: &...\n- z: ...\n</tools>")
        )
    );
}

#[test]
fn codex_world_state_tools_redistributes_description_space_after_short_and_empty_descriptions() {
    let namespace = "a".repeat(4031);
    let tools = state([
        (namespace.clone(), "abcdefgh"),
        ("b".to_owned(), "X"),
        ("c".to_owned(), ""),
    ]);
    assert_eq!(
        snapshot(&tools),
        format!(
            "<tools>\nDeferred tool namespaces:\n- {namespace}: abcd...\n- b: X\n- c\n</tools>"
        )
    );
}

#[test]
fn codex_world_state_tools_reserves_names_and_shares_descriptions_across_added_and_removed_groups()
{
    let namespace = "a".repeat(3992);
    let added = state([(namespace.clone(), "AAAAAAAA")]);
    let removed = state([("z", "ZZZZZZZZ")]);
    assert_eq!(
        namespace_groups_fragment(
            &[
                ("Added deferred tool namespaces", &added),
                ("Removed deferred tool namespaces", &removed),
            ],
            false
        ),
        format!(
            "<tools>\nAdded deferred tool namespaces:\n- {namespace}: AAA...\nRemoved deferred tool namespaces:\n- z: ZZ...\n</tools>"
        )
    );
}

#[test]
fn codex_world_state_tools_omits_whole_names_per_group_only_after_dropping_every_description() {
    let retained = "b".repeat(3870);
    let added = state([
        ("a".repeat(4000), "oversized namespace"),
        (retained.clone(), "large namespace"),
        ("c".repeat(100), "another omitted namespace"),
        ("d".to_owned(), "short namespace"),
    ]);
    let removed = state([
        ("y".repeat(100), "omitted removed namespace"),
        ("z".to_owned(), "short removed namespace"),
    ]);
    assert_eq!(
        namespace_groups_fragment(
            &[
                ("Added deferred tool namespaces", &added),
                ("Removed deferred tool namespaces", &removed),
            ],
            false
        ),
        format!(
            "<tools>\nAdded deferred tool namespaces:\n- {retained}\n- d\n... 2 additional namespaces omitted.\nRemoved deferred tool namespaces:\n- z\n... 1 additional namespaces omitted.\n</tools>"
        )
    );
}

#[test]
fn codex_world_state_tools_reserves_the_empty_state_notice_when_all_namespaces_are_removed() {
    let namespace = "a".repeat(3988);
    let removed = state([
        (namespace.clone(), "long namespace"),
        ("z".to_owned(), "short namespace"),
    ]);
    let rendered =
        namespace_groups_fragment(&[("Removed deferred tool namespaces", &removed)], true);
    assert_eq!(
        (rendered.len(), rendered),
        (
            MAX_RENDERED_FRAGMENT_BYTES,
            format!(
                "<tools>\nRemoved deferred tool namespaces:\n- {namespace}: lon...\n- z: sh...\nNo deferred tool namespaces remain.\n</tools>"
            )
        )
    );
}

#[test]
fn codex_world_state_tools_renders_nothing_without_deferred_namespaces() {
    // Codex's `render_diff` sends no block for an empty first state.
    assert_eq!(deferred_namespaces_fragment(&BTreeMap::new()), None);
}

// ---- codex-rs/core/src/context/world_state/tools_budget_tests.rs ----

fn owned(rows: &[Option<&str>]) -> Vec<Option<String>> {
    rows.iter().map(|row| row.map(str::to_owned)).collect()
}

#[test]
fn codex_world_state_tools_budget_truncates_raw_rows_at_character_boundaries_in_group_order() {
    let first = BTreeMap::from([
        ("🦀".to_owned(), "&🦀x".to_owned()),
        ("&".to_owned(), "🦀&y".to_owned()),
    ]);
    let empty = BTreeMap::new();
    let last = BTreeMap::from([("b".to_owned(), "x<&".to_owned())]);
    let groups = [("first", &first), ("empty", &empty), ("last", &last)];
    let cases: [(usize, usize, [Option<&str>; 3]); 4] = [
        (
            36,
            64,
            [
                Some("- &: 🦀&y\n"),
                Some("- 🦀: &🦀x\n"),
                Some("- b: x<&\n"),
            ],
        ),
        (
            32,
            64,
            [Some("- &: ...\n"), Some("- 🦀: &...\n"), Some("- b\n")],
        ),
        (15, 64, [Some("- &\n"), Some("- 🦀\n"), Some("- b\n")]),
        (14, 6, [Some("- &\n"), None, Some("- b\n")]),
    ];
    for (budget, reserve, expected) in cases {
        assert_eq!(
            truncate_namespace_rows(&groups, budget, reserve),
            owned(&expected),
            "byte budget: {budget}, omission reserve bytes: {reserve}"
        );
    }
}

#[test]
fn codex_world_state_tools_budget_marks_truncated_descriptions_within_the_allocated_bytes() {
    let cases = [
        ("abcdef", 4, "- n\n"),
        ("abcdef", 7, "- n\n"),
        ("abcdef", 8, "- n\n"),
        ("abcdef", 9, "- n: ...\n"),
        ("abcdef", 10, "- n: a...\n"),
        ("abcdef", 12, "- n: abcdef\n"),
        ("ab", 8, "- n: ab\n"),
        ("🦀abcdef", 10, "- n: ...\n"),
        ("🦀abcdef", 13, "- n: 🦀...\n"),
        ("éabcdef", 11, "- n: é...\n"),
    ];
    for (description, budget, expected) in cases {
        let namespaces = BTreeMap::from([("n".to_owned(), description.to_owned())]);
        let rows = truncate_namespace_rows(&[("namespaces", &namespaces)], budget, 64);
        assert_eq!(
            rows,
            vec![Some(expected.to_owned())],
            "description: {description:?}, byte budget: {budget}"
        );
        assert!(rows.iter().flatten().map(String::len).sum::<usize>() <= budget);
    }
}

#[test]
fn codex_world_state_tools_budget_allocates_complete_description_prefixes_in_stable_round_robin_order()
 {
    let cases: Vec<(Vec<&str>, usize, Vec<usize>)> = vec![
        (vec![], 9, vec![]),
        (vec!["", ""], 9, vec![0, 0]),
        (vec!["", "ab", ""], 4, vec![0, 2, 0]),
        (vec!["a", "🦀"], 0, vec![0, 0]),
        (vec!["a", "🦀"], 2, vec![0, 0]),
        (vec!["é€🦀", "xy"], 20, vec![9, 2]),
        (vec!["é€🦀", "xy"], 12, vec![5, 2]),
        (vec!["ab", "cd"], 7, vec![2, 1]),
        (vec!["a", "bcdef"], 9, vec![1, 4]),
        (vec!["a🦀x", "bcdef"], 9, vec![1, 4]),
        (vec!["🦀x", "abc"], 5, vec![0, 3]),
        (vec!["🦀🦀x", "€🦀y"], 18, vec![9, 3]),
        (vec!["🦀🦀x", "€🦀y"], 19, vec![8, 7]),
    ];
    for (descriptions, budget, expected) in cases {
        let entries: Vec<(&str, &str)> = descriptions.iter().map(|d| ("n", *d)).collect();
        assert_eq!(
            calculate_namespace_row_truncation(&entries, budget + 4 * entries.len(), 64),
            expected.into_iter().map(Some).collect::<Vec<_>>(),
            "descriptions: {descriptions:?}, description byte budget: {budget}"
        );
    }
}

#[test]
fn codex_world_state_tools_budget_retains_names_before_descriptions_and_reserves_omissions_only_on_overflow()
 {
    // (entries, byte budget, omission reserve bytes, expected)
    type Case<'a> = (Vec<(&'a str, &'a str)>, usize, usize, Vec<Option<usize>>);
    let cases: Vec<Case> = vec![
        (
            vec![("a", "abcd"), ("b", "x")],
            11,
            64,
            vec![Some(1), Some(0)],
        ),
        (vec![("a", ""), ("b", "")], 8, 64, vec![Some(0), Some(0)]),
        (
            vec![("aaaa", "x"), ("bbbb", "x"), ("c", "x")],
            15,
            3,
            vec![Some(0), None, Some(0)],
        ),
        (
            vec![("oversized_name_aaa", "x"), ("a", "x"), ("b", "x")],
            14,
            2,
            vec![None, Some(0), Some(0)],
        ),
        (vec![("ab", "x"), ("c", "")], 0, 2, vec![None, None]),
        (vec![("a", "x"), ("b", "x")], 6, 64, vec![None, None]),
    ];
    for (entries, budget, reserve, expected) in cases {
        assert_eq!(
            calculate_namespace_row_truncation(&entries, budget, reserve),
            expected,
            "entries: {entries:?}, byte budget: {budget}, omission reserve bytes: {reserve}"
        );
    }
}

// ---- codex-rs/core/src/tools/…/tool_search.rs (create_tool_search_tool tests) ----

fn source(name: &str, description: Option<&str>) -> Source {
    Source {
        name: name.to_owned(),
        description: description.map(str::to_owned),
    }
}

#[test]
fn codex_tool_search_create_tool_search_tool_deduplicates_and_renders_enabled_sources() {
    let entry = tool_search_tool(
        &[
            source(
                "Google Drive",
                Some(
                    "Use Google Drive as the single entrypoint for Drive, Docs, Sheets, and Slides work.",
                ),
            ),
            source("Google Drive", None),
            source("docs", None),
        ],
        8,
        SourceListing::Include,
    );
    assert_eq!(
        entry,
        json!({
            "type": "tool_search",
            "execution": "client",
            "description": "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nYou have access to tools from the following sources:\n- Google Drive: Use Google Drive as the single entrypoint for Drive, Docs, Sheets, and Slides work.\n- docs\nSome of the tools may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search` instead of `list_mcp_resources` or `list_mcp_resource_templates`.",
            "parameters": {
                "type": "object",
                "properties": {
                    "limit": {"type": "number", "description": "Maximum number of tools to return. Defaults to 8."},
                    "query": {"type": "string", "description": "Search query for deferred tools."}
                },
                "required": ["query"],
                "additionalProperties": false
            }
        })
    );
}

#[test]
fn codex_tool_search_create_tool_search_tool_omits_sources_when_world_state_advertises_them() {
    let entry = tool_search_tool(
        &[source("Google Drive", Some("Search files and documents."))],
        8,
        SourceListing::Omit,
    );
    let description = entry["description"].as_str().unwrap();
    assert!(!description.contains("You have access to tools from the following sources"));
    assert!(!description.contains("Google Drive"));
    assert!(description.contains("use this tool (`tool_search`) to search"));
}

#[test]
fn codex_tool_search_create_tool_search_tool_bounds_aggregate_source_descriptions() {
    let long = "🦀".repeat(20_000);
    let sources: Vec<Source> = (0..8)
        .map(|index| source(&format!("source-{index:02}"), Some(&long)))
        .collect();
    let entry = tool_search_tool(&sources, 8, SourceListing::Include);
    let description = entry["description"].as_str().unwrap();
    let (_, section) = description
        .split_once("You have access to tools from the following sources:\n")
        .unwrap();
    let (listing, _) = section
        .split_once("\nSome of the tools may not have been provided to you upfront")
        .unwrap();
    assert!(listing.len() <= MAX_TOOL_SEARCH_SOURCE_DESCRIPTION_BYTES);
    assert!(listing.starts_with("- source-00: 🦀"));
    assert!(listing.contains(&long));
    let names: Vec<&str> = listing
        .lines()
        .map(|line| {
            let source = line.strip_prefix("- ").unwrap();
            source.split_once(": ").map_or(source, |(name, _)| name)
        })
        .collect();
    let expected: Vec<String> = (0..8).map(|index| format!("source-{index:02}")).collect();
    assert_eq!(names, expected);
    assert!(description.contains("always use `tool_search`"));
}

// ---- projecting captures ----

/// The compact bytes of the `tool_search` entry Codex 0.171.0 sent under tool search (read
/// off a request the release itself sent to a loopback server).
const TOOL_SEARCH_WIRE: &str = r##"{"type":"tool_search","execution":"client","description":"# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search` instead of `list_mcp_resources` or `list_mcp_resource_templates`.","parameters":{"type":"object","properties":{"limit":{"type":"number","description":"Maximum number of tools to return. Defaults to 8."},"query":{"type":"string","description":"Search query for deferred tools."}},"required":["query"],"additionalProperties":false}}"##;

const SAMPLE_FRAGMENT: &str = "<tools>\nDeferred tool namespaces:\n- mcp__github: Issues, pull requests and code search on GitHub.\n- mcp__notes\n</tools>";

fn sample() -> Capture {
    Capture::from_path(&format!(
        "{}/samples/codex-mcp-responses.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn responses(tools: Value) -> Capture {
    Capture::from_value(json!({
        "model": "gpt-5.5",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}],
        "tools": tools
    }))
    .unwrap()
}

fn labels(capture: &Capture, projection: &toolprism::Projection) -> Vec<String> {
    projection
        .tools(capture)
        .map(|t| toolprism::tool::label(t).into_owned())
        .collect()
}

#[test]
fn the_sample_is_sent_as_codex_sends_it_under_tool_search() {
    let capture = sample();
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    assert_eq!(projection.status, ProjectionStatus::Ok);
    assert!(projection.request_valid, "{:?}", projection.notes);
    assert_eq!(
        labels(&capture, &projection),
        [
            "exec_command",
            "write_stdin",
            "list_mcp_resources",
            "apply_patch",
            "update_plan",
            "view_image",
            "<tool_search>",
            "<web_search>"
        ]
    );
    let search = projection.tools(&capture).nth(6).unwrap();
    assert_eq!(toolprism::tool::compact(search), TOOL_SEARCH_WIRE);
    assert_eq!(projection.added_text.as_deref(), Some(SAMPLE_FRAGMENT));
    let deferred: Vec<&str> = projection
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Deferred)
        .map(|o| &*o.name)
        .collect();
    assert_eq!(deferred, ["mcp__github", "mcp__notes"]);
    assert_eq!(
        projection.outcomes[6].reason,
        "deferred behind tool_search in namespace mcp__github"
    );
    // The block joins the developer instructions, after their own part; the rest is untouched.
    let body = projection.request_body(&capture);
    let parts = body["input"][0]["content"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(
        parts[1],
        json!({"type": "input_text", "text": SAMPLE_FRAGMENT})
    );
    assert_eq!(body["input"][1], capture.body()["input"][1]);
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(
        projection.request_json(&capture, false),
        toolprism::tool::compact(&body)
    );
    assert_eq!(
        projection.notes[0],
        Note::info(
            "Codex rust-v0.171.0 under tool search: 5 tools in 2 deferred namespaces left out of `tools` (client-local); the model finds them with `tool_search`, whose result carries their definitions (`defer_loading: true`, nested in their namespace) for the next call"
        )
    );
}

#[test]
fn the_report_counts_the_block_and_names_the_release() {
    let capture = sample();
    let counter = toolprism::measure::TokenCounter::new(toolprism::measure::Encoding::O200kBase);
    let report = toolprism::report::report(
        &capture,
        "codex-mcp-responses.json",
        &[Strategy::Original, Strategy::Codex],
        &Settings::default(),
        &counter,
    );
    let codex = &report.strategies[1];
    assert_eq!(codex.origin, Some("codex rust-v0.171.0"));
    assert_eq!(codex.added_tokens, Some(counter.count(SAMPLE_FRAGMENT)));
    assert_eq!(
        codex.context_tokens, codex.tools_tokens,
        "nothing sent is deferred"
    );
    let saved = report.capture.tools_tokens as i64
        - (codex.tools_tokens.unwrap() + codex.added_tokens.unwrap()) as i64;
    assert_eq!(codex.saved_tokens, Some(saved));
    assert!(
        saved > 0,
        "the namespaces outweigh the search tool: {saved}"
    );
    assert!(codex.tools_bytes.unwrap() < report.capture.tools_bytes);
}

#[test]
fn flat_mcp_names_join_one_namespace_per_server() {
    let capture = responses(json!([
        {"type": "function", "name": "shell", "description": "Run.", "parameters": {"type": "object", "properties": {}}},
        {"type": "function", "name": "mcp__github__create_issue", "description": "Open.", "parameters": {"type": "object", "properties": {}}},
        {"type": "function", "name": "mcp__github__search", "description": "Find.", "parameters": {"type": "object", "properties": {}}},
        {"type": "function", "name": "mcp_linear_list", "description": "List.", "parameters": {"type": "object", "properties": {}}},
        {"type": "function", "name": "mcp__odd", "description": "No server.", "parameters": {"type": "object", "properties": {}}}
    ]));
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    assert_eq!(labels(&capture, &projection), ["shell", "<tool_search>"]);
    assert_eq!(
        projection.added_text.as_deref(),
        Some(
            "<tools>\nDeferred tool namespaces:\n- mcp__github\n- mcp__linear\n- mcp__odd\n</tools>"
        )
    );
    // No developer message: a new one leads the input.
    let body = projection.request_body(&capture);
    assert_eq!(body["input"][0]["role"], "developer");
    assert_eq!(body["input"][1]["role"], "user");
    assert!(projection.notes.iter().any(|n| {
        n.text
            .starts_with("flat MCP names are grouped as Codex names them")
    }));
}

#[test]
fn codex_sends_only_responses() {
    let capture = Capture::from_value(json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "mcp__github__create_issue", "input_schema": {"type": "object"}}]
    }))
    .unwrap();
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    assert_eq!(
        projection.status,
        ProjectionStatus::NotApplicable(
            "Codex rust-v0.171.0 sends only OpenAI Responses requests (`wire_api = \"chat\"` is no longer supported): this anthropic-messages capture is sent as it is".to_owned()
        )
    );
    assert_eq!(projection.tool_count(), 1);
    assert!(projection.added_text.is_none());
}

#[test]
fn without_mcp_tools_nothing_is_deferred() {
    let capture = responses(json!([
        {"type": "function", "name": "shell", "description": "Run.", "parameters": {"type": "object", "properties": {}}},
        {"type": "namespace", "name": "crm", "description": "Customer tools.", "tools": []}
    ]));
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    assert_eq!(
        projection.status,
        ProjectionStatus::NotApplicable(
            "no MCP tools (mcp.prefixes) to defer: Codex rust-v0.171.0 keeps every other tool eager, so the list is sent as it is".to_owned()
        )
    );
    assert_eq!(projection.tool_count(), 2);
}

#[test]
fn a_tool_choice_naming_a_deferred_tool_is_an_error() {
    let mut body: Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/samples/codex-mcp-responses.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    body["tool_choice"] = json!({"type": "function", "name": "mcp__github"});
    let capture = Capture::from_value(body).unwrap();
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    assert!(!projection.request_valid);
    assert_eq!(
        projection.notes[0],
        Note::error(
            "tool_choice names `mcp__github`, which this projection does not send (deferred): the provider will reject the request"
        )
    );
}

#[test]
fn a_capture_with_its_own_tool_search_keeps_it() {
    let capture = responses(json!([
        {"type": "function", "name": "mcp__a__b", "description": "B.", "parameters": {"type": "object", "properties": {}}},
        {"type": "tool_search", "execution": "client", "description": "Find tools.", "parameters": {"type": "object", "properties": {}}}
    ]));
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    assert_eq!(labels(&capture, &projection), ["<tool_search>"]);
    assert!(projection.request_valid, "{:?}", projection.notes);
    let texts: Vec<&str> = projection.notes.iter().map(|n| n.text.as_str()).collect();
    assert!(texts.contains(
        &"the capture already sends a `tool_search` entry: kept as it is, no second one added"
    ));
    let original = project(&capture, Strategy::Original, &Settings::default());
    assert!(original.notes.contains(&Note::info("the capture already defers tools: a Responses `tool_search` (client-executed); its figures are what the model has in context (tools a host left out for its search are not in the capture)")));
}

#[test]
fn a_capture_that_already_defers_is_named_and_what_a_strategy_changes_is_said() {
    let capture = Capture::from_value(json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"name": "Read", "description": "Read.", "input_schema": {"type": "object"}},
            {"name": "ToolSearch", "description": "Find deferred tools.", "input_schema": {"type": "object"}},
            {"name": "mcp__github__create_issue", "description": "Open.", "input_schema": {"type": "object"}, "defer_loading": true},
            {"name": "mcp__github__search", "description": "Find.", "input_schema": {"type": "object"}, "defer_loading": true},
            {"name": "DeferredToolPlaceholder", "description": "Placeholder.", "input_schema": {"type": "object"}, "defer_loading": true}
        ]
    }))
    .unwrap();
    let named = "the capture already defers tools: Claude Code's `ToolSearch`, Claude Code's `DeferredToolPlaceholder`, 3 `defer_loading: true` entries; its figures are what the model has in context (tools a host left out for its search are not in the capture)";
    let original = project(&capture, Strategy::Original, &Settings::default());
    let infos: Vec<&str> = original
        .notes
        .iter()
        .filter(|n| n.level == Level::Info)
        .map(|n| n.text.as_str())
        .collect();
    assert!(infos.contains(&named), "{infos:?}");
    assert!(!infos.iter().any(|t| t.starts_with("on top of")));

    let mut settings = Settings::default();
    settings.apply("defer.threshold=2").unwrap();
    let defer = project(&capture, Strategy::Defer, &settings);
    let texts: Vec<&str> = defer.notes.iter().map(|n| n.text.as_str()).collect();
    assert!(!texts.contains(&named), "named once, on the capture");
    assert!(
        texts.contains(
            &"on top of the capture's deferral (Claude Code's `ToolSearch`, Claude Code's `DeferredToolPlaceholder`, 3 `defer_loading: true` entries), this projection: of the 3 already-deferred entries 2 deferred again, 1 kept; its own `tool_search` added beside them"
        ),
        "{texts:?}"
    );
    // A projection that changes none of it says nothing more.
    let full = project(&capture, Strategy::Full, &Settings::default());
    assert!(!full.notes.iter().any(|n| n.text.contains("deferral")));
}

#[test]
fn the_strategy_is_listed_with_its_release() {
    let settings = Settings::default();
    assert_eq!("codex".parse::<Strategy>(), Ok(Strategy::Codex));
    assert_eq!(
        Strategy::Codex.release(&settings),
        Some("codex rust-v0.171.0")
    );
    assert_eq!(Strategy::Codex.family(), "provider-side deferral");
    assert_eq!(codex::RELEASE, "rust-v0.171.0");
}

#[test]
fn the_block_joins_the_last_developer_message_before_the_first_turn() {
    let capture = Capture::from_value(json!({
        "model": "gpt-5.5",
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "skills"}]},
            {"type": "message", "role": "developer", "content": "permissions"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "message", "role": "developer", "content": "later"}
        ],
        "tools": [{"type": "function", "name": "mcp__a__b", "description": "B.", "parameters": {"type": "object", "properties": {}}}]
    }))
    .unwrap();
    let projection = project(&capture, Strategy::Codex, &Settings::default());
    let body = projection.request_body(&capture);
    let block = "<tools>\nDeferred tool namespaces:\n- mcp__a\n</tools>";
    assert_eq!(body["input"][0], capture.body()["input"][0]);
    assert_eq!(
        body["input"][1]["content"],
        json!([
            {"type": "input_text", "text": "permissions"},
            {"type": "input_text", "text": block}
        ])
    );
    assert_eq!(body["input"][3], capture.body()["input"][3]);
}
