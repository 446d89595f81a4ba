//! a3s code's presentation profiles: `direct`, `adaptive`, `code`, `disabled` (section 2).
//!
//! Every profile starts from a3s's *canonical source*: at most `a3s.max_tools` tools, unique
//! names, sorted by name in byte order. a3s refuses any other list, so toolprism shows its error
//! instead of a projection. From there the profiles only select entries (`direct`, `adaptive`),
//! present none (`disabled`), or rephrase the `program` gateway's description (`code`); names and
//! parameter schemas never change.
//!
//! a3s only ever sees its own function definitions, so hosted entries (`<web_search>`, a remote
//! MCP server) stay outside the canonical source: they are neither counted against the limit nor
//! checked for duplicates. `direct` and `adaptive` send them untouched after the sorted tools, in
//! capture order; `code`, `disabled` and a greeting send none.
//!
//! `adaptive` has two selectors (`adaptive.selector`): a3s-code-core 9.1.x keeps every tool
//! unless the context is a standalone greeting; 9.0.x ran a vocabulary classifier over the
//! context. [`release`] names the release a setting reproduces.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::capture::{Capture, Shape};
use crate::projection::{Draft, Note, SentTool, Status};
use crate::setting_key::{self, SettingKey, ValueKind};
use crate::settings::{Gateway, Selector, Settings};
use crate::strategy::{Input, Strategy};
use crate::tool;

/// What a3s's profiles read beyond the tool list: `adaptive` reads the conversation.
pub const READS: &[(Strategy, Input)] = &[(Strategy::Adaptive, Input::Context)];

/// The keys a3s's profiles read, in `--set` order.
pub const SETTINGS: &[SettingKey] = &[
    SettingKey {
        key: "a3s.max_tools",
        help: "most tools the a3s profiles accept",
        kind: ValueKind::Number,
        // Every profile refuses a list over it.
        affects: &[
            Strategy::Direct,
            Strategy::Adaptive,
            Strategy::Code,
            Strategy::Disabled,
        ],
        first_for: &[Strategy::Direct, Strategy::Disabled],
        read: |s| Some(s.a3s_max_tools.to_string()),
        write: |s, v| {
            s.a3s_max_tools = setting_key::count(v, "a number of tools")?;
            Ok(())
        },
    },
    SettingKey {
        key: "a3s.context_messages",
        help: "newest messages the adaptive selector reads",
        kind: ValueKind::Number,
        affects: &[Strategy::Adaptive],
        first_for: &[],
        read: |s| Some(s.a3s_context_messages.to_string()),
        write: |s, v| {
            s.a3s_context_messages = setting_key::count(v, "a number of messages")?;
            Ok(())
        },
    },
    SettingKey {
        key: "a3s.desc_bytes",
        help: "bytes of each description in the code catalog",
        kind: ValueKind::Number,
        affects: &[Strategy::Code],
        first_for: &[],
        read: |s| Some(s.a3s_desc_bytes.to_string()),
        write: |s, v| {
            s.a3s_desc_bytes = setting_key::count(v, "a number of bytes")?;
            Ok(())
        },
    },
    SettingKey {
        key: "a3s.catalog_bytes",
        help: "bytes the code catalog may reach",
        kind: ValueKind::Number,
        affects: &[Strategy::Code],
        first_for: &[],
        read: |s| Some(s.a3s_catalog_bytes.to_string()),
        write: |s, v| {
            s.a3s_catalog_bytes = setting_key::count(v, "a number of bytes")?;
            Ok(())
        },
    },
    SettingKey {
        key: "adaptive.prompt",
        help: "text that replaces the conversation for adaptive",
        kind: ValueKind::Text,
        affects: &[Strategy::Adaptive],
        first_for: &[Strategy::Adaptive],
        read: |s| s.adaptive_prompt.clone(),
        write: |s, v| {
            s.adaptive_prompt = Some(v.to_owned());
            Ok(())
        },
    },
    SettingKey {
        key: "adaptive.selector",
        help: "greeting (a3s-code-core 9.1.x: all tools unless a bare greeting) or vocabulary (9.0.x classifier)",
        // Typed, not cycled, in the TUI's editor, as it always was.
        kind: ValueKind::Text,
        affects: &[Strategy::Adaptive],
        first_for: &[],
        read: |s| Some(s.adaptive_selector.id().into()),
        write: |s, v| {
            s.adaptive_selector = match v.trim() {
                "greeting" => Selector::Greeting,
                "vocabulary" => Selector::Vocabulary,
                _ => return Err("greeting or vocabulary"),
            };
            Ok(())
        },
    },
    SettingKey {
        key: "code.gateway",
        help: "capture (use the capture's program tool) or inject (add a3s's)",
        kind: ValueKind::Choice(&["capture", "inject"]),
        affects: &[Strategy::Code],
        first_for: &[Strategy::Code],
        read: |s| {
            Some(match s.code_gateway {
                Gateway::Capture => "capture".into(),
                Gateway::Inject => "inject".into(),
            })
        },
        write: |s, v| {
            s.code_gateway = match v.trim() {
                "capture" => Gateway::Capture,
                "inject" => Gateway::Inject,
                _ => return Err("capture or inject"),
            };
            Ok(())
        },
    },
];

/// An a3s presentation profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Every tool, sorted by name.
    Direct,
    /// Tools selected by the conversation's recent text.
    Adaptive,
    /// One `program` gateway.
    Code,
    /// No tools.
    Disabled,
}

/// The a3s code release the settings reproduce: `a3s-code-core 9.1.3`, or `a3s-code-core 9.0.0`
/// under `adaptive.selector=vocabulary` (the two releases differ only in the adaptive selector).
pub fn release(settings: &Settings) -> &'static str {
    match settings.adaptive_selector {
        Selector::Greeting => "a3s-code-core 9.1.3",
        Selector::Vocabulary => "a3s-code-core 9.0.0",
    }
}

/// Project a capture under a presentation profile.
pub fn project(capture: &Capture, profile: Profile, settings: &Settings) -> Draft {
    let order = match canonical_order(capture, settings) {
        Ok(order) => order,
        Err(message) => return Draft::refused(capture, message),
    };
    let hosted = capture.hosted();
    match profile {
        Profile::Direct => direct(capture, &order, &hosted),
        Profile::Adaptive => adaptive(capture, &order, &hosted, settings),
        Profile::Code => {
            let mut draft = code(capture, &order, settings);
            drop_hosted(&mut draft, &hosted, "code profile");
            draft
        }
        Profile::Disabled => {
            let mut draft = empty(capture, "a3s presents no tools".to_owned());
            for &index in order.iter().chain(&hosted) {
                draft.dropped.push((
                    index,
                    Status::Removed,
                    "disabled profile: no tools are presented".to_owned(),
                ));
            }
            draft
        }
    }
}

/// Hosted entries are not a3s definitions: the profiles that present only a3s's own leave them
/// out.
fn drop_hosted(draft: &mut Draft, hosted: &[usize], profile: &str) {
    for &index in hosted {
        draft.dropped.push((
            index,
            Status::Removed,
            format!("{profile}: a3s presents only its own tool definitions, not hosted entries"),
        ));
    }
}

/// The capture's function tools (hosted entries left out) in a3s's canonical order (name, byte
/// order), or a3s's refusal.
fn canonical_order(capture: &Capture, settings: &Settings) -> Result<Vec<usize>, String> {
    let tools = capture.tools();
    let mut order: Vec<usize> = (0..tools.len())
        .filter(|&index| !capture.is_hosted_at(index))
        .collect();
    if order.len() > settings.a3s_max_tools {
        return Err(format!(
            "a3s code refuses this tool list: {} tools exceed its limit of {} (a3s.max_tools)",
            order.len(),
            settings.a3s_max_tools
        ));
    }
    let name = |index: usize| tool::name(&tools[index]).unwrap_or("");
    // `str` ordering is byte order, which is what a3s sorts by.
    order.sort_by(|&a, &b| name(a).cmp(name(b)));
    if let Some(pair) = order.windows(2).find(|pair| name(pair[0]) == name(pair[1])) {
        let duplicate = name(pair[0]);
        let count = order.iter().filter(|&&i| name(i) == duplicate).count();
        return Err(format!(
            "a3s code refuses this tool list: the name `{duplicate}` appears {count} times (tool names must be unique)"
        ));
    }
    Ok(order)
}

/// A projection that presents no tools, with `why` as its first note. A provider rejects
/// `tools: []` and a `tool_choice` without tools, so the request loses both keys; an MCP
/// `tools/list` result keeps an empty list.
fn empty(capture: &Capture, why: String) -> Draft {
    let mut draft = Draft::default();
    draft.info(why);
    if capture.shape() == Shape::McpToolsList {
        draft.sent = Some(Vec::new());
        draft.info("the tools/list result is empty".to_owned());
    } else {
        draft.drop_tool_choice = true;
        draft.info(
            "the request carries no `tools` key and no `tool_choice` (providers reject an empty tool list and a tool_choice without tools)"
                .to_owned(),
        );
    }
    draft
}

/// The sorted tools `kept`, then the hosted entries in capture order, all untouched.
fn with_hosted(kept: &[usize], hosted: &[usize]) -> Vec<SentTool> {
    kept.iter()
        .chain(hosted)
        .copied()
        .map(SentTool::original)
        .collect()
}

/// `direct`: the canonical list, entries untouched.
fn direct(capture: &Capture, order: &[usize], hosted: &[usize]) -> Draft {
    if order.is_empty() && hosted.is_empty() {
        return empty(capture, "nothing to present".to_owned());
    }
    Draft {
        sent: Some(with_hosted(order, hosted)),
        ..Draft::default()
    }
}

// ---------------------------------------------------------------------------------------------
// adaptive (section 2.1)

/// Whole-context greetings, compared after [`normalize_greeting`].
const GREETINGS: &[&str] = &[
    "hi",
    "hi there",
    "hello",
    "hello there",
    "hey",
    "greetings",
    "good morning",
    "good afternoon",
    "good evening",
    "how are you",
    "how's it going",
    "hows it going",
    "what's up",
    "whats up",
    "thanks",
    "thank you",
    "你好",
    "您好",
    "嗨",
    "哈喽",
    "哈啰",
    "早",
    "早上好",
    "上午好",
    "下午好",
    "晚上好",
    "在吗",
    "你好吗",
    "谢谢",
    "多谢",
];

/// Non-ASCII characters stripped from both ends of a greeting, beside ASCII punctuation and
/// whitespace.
const GREETING_EDGE_CHARS: &[char] = &['。', '，', '、', '！', '？', '…', '～', '👋'];

const WEB_TERMS: &[&str] = &[
    "http", "https", "url", "web", "website", "internet", "search", "browse", "latest", "recent",
    "news", "today", "online", "网页", "网站", "联网", "搜索", "检索", "最新", "新闻", "今天",
];
const FETCH_TERMS: &[&str] = &[
    "http", "https", "url", "fetch", "open", "article", "page", "网页", "网站", "文章", "链接",
    "打开",
];
const DOWNLOAD_TERMS: &[&str] = &[
    "download",
    "save file",
    "fetch file",
    "binary file",
    "artifact file",
];
const GIT_TERMS: &[&str] = &[
    "git", "commit", "branch", "diff", "status", "log", "tag", "release", "push", "pull", "merge",
    "rebase", "github", "提交", "分支", "标签", "发布", "推送",
];
const BATCH_TERMS: &[&str] = &[
    "batch",
    "parallel",
    "concurrent",
    "multiple",
    "fan out",
    "批量",
    "并行",
    "同时",
    "多个",
];
const PROGRAM_TERMS: &[&str] = &[
    "program",
    "programmatic",
    "ptc",
    "repo map",
    "repository map",
    "code search",
    "program_code_search",
    "program_repo_map",
    "程序",
    "仓库地图",
    "代码搜索",
];
const MCP_TERMS: &[&str] = &["mcp", "external tool", "external server", "外部工具"];

/// Server-segment tokens too generic to select an MCP tool.
const GENERIC_SERVER_TOKENS: &[&str] = &[
    "agent",
    "browser",
    "office",
    "officecli",
    "mcp",
    "tool",
    "use",
];
/// Action-segment tokens too generic to select an MCP tool (beside the server ones).
const GENERIC_ACTION_TOKENS: &[&str] = &[
    "call", "create", "delete", "get", "list", "read", "run", "set", "update", "write",
];

/// The literal prefix a3s's selector treats as MCP (it parses the `__` segments).
const MCP_PREFIX: &str = "mcp__";

/// The selector's flags, each set when one of its terms occurs in the lowercased context.
#[derive(Debug, Clone, Copy)]
struct Flags {
    web: bool,
    fetch: bool,
    download: bool,
    git: bool,
    batch: bool,
    program: bool,
    mcp: bool,
}

impl Flags {
    fn of(p: &str) -> Flags {
        let any = |terms: &[&str]| terms.iter().any(|term| p.contains(term));
        Flags {
            web: any(WEB_TERMS),
            fetch: any(FETCH_TERMS),
            download: any(DOWNLOAD_TERMS),
            git: any(GIT_TERMS),
            batch: any(BATCH_TERMS),
            program: any(PROGRAM_TERMS),
            mcp: any(MCP_TERMS),
        }
    }

    fn names(self) -> Vec<&'static str> {
        [
            (self.web, "web"),
            (self.fetch, "fetch"),
            (self.download, "download"),
            (self.git, "git"),
            (self.batch, "batch"),
            (self.program, "program"),
            (self.mcp, "mcp"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect()
    }
}

/// The greeting form of a context: trimmed, stripped at both ends of ASCII punctuation,
/// whitespace and a few CJK/emoji marks, whitespace runs collapsed to one space, lowercased.
pub fn normalize_greeting(context: &str) -> String {
    let stripped = context.trim().trim_matches(|c: char| {
        c.is_ascii_punctuation() || c.is_whitespace() || GREETING_EDGE_CHARS.contains(&c)
    });
    stripped
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether the whole context is a greeting (a3s then presents no tools).
pub fn is_greeting(context: &str) -> bool {
    let normalized = normalize_greeting(context);
    GREETINGS.contains(&normalized.as_str())
}

/// The adaptive selector's context: `adaptive.prompt` when set, else the newest
/// `a3s.context_messages` conversation messages with text, oldest first, joined with `\n`.
/// Also says where it came from.
fn selection_context(capture: &Capture, settings: &Settings) -> (String, String) {
    if let Some(prompt) = &settings.adaptive_prompt {
        return (prompt.clone(), "adaptive.prompt".to_owned());
    }
    let texts = capture.message_texts();
    let keep = settings.a3s_context_messages.min(texts.len());
    let newest = &texts[texts.len() - keep..];
    let source = match (keep, texts.len()) {
        (_, 0) => "no conversation text".to_owned(),
        (1, 1) => "the one conversation message".to_owned(),
        (keep, all) if keep == all => format!("all {all} conversation messages"),
        (keep, all) => format!("the newest {keep} of {all} conversation messages"),
    };
    (newest.join("\n"), source)
}

/// Splits a lowercased name segment into tokens that can select an MCP tool.
fn tokens<'a>(segment: &'a str, generic: &'a [&'a [&'a str]]) -> impl Iterator<Item = &'a str> {
    segment
        .split(|c: char| !c.is_alphanumeric())
        .filter(move |token| token.len() > 2 && !generic.iter().any(|list| list.contains(token)))
}

/// The MCP rule for an `mcp__` tool, with memoized substring checks (a server's tools share
/// tokens, and the context can be long).
fn mcp_selected(name: &str, p: &str, flags: Flags, seen: &mut HashMap<String, bool>) -> bool {
    let mut mentions = |token: &str| -> bool {
        if let Some(&hit) = seen.get(token) {
            return hit;
        }
        let hit = p.contains(token);
        seen.insert(token.to_owned(), hit);
        hit
    };
    let lower = name.to_lowercase();
    if p.contains(lower.as_str()) {
        return true;
    }
    let mut segments = lower.split("__");
    let _protocol = segments.next();
    if let Some(server) = segments.next()
        && tokens(server, &[GENERIC_SERVER_TOKENS]).any(&mut mentions)
    {
        return true;
    }
    let rest: Vec<&str> = segments.collect();
    if rest
        .iter()
        .flat_map(|segment| tokens(segment, &[GENERIC_SERVER_TOKENS, GENERIC_ACTION_TOKENS]))
        .any(&mut mentions)
    {
        return true;
    }
    flags.mcp
}

/// Why the selector leaves a tool out, or `None` when it keeps it.
fn adaptive_verdict(
    name: &str,
    p: &str,
    flags: Flags,
    seen: &mut HashMap<String, bool>,
) -> Option<&'static str> {
    match name {
        "web_search" if !flags.web => Some("not selected: no web/search terms in the context"),
        "web_fetch" if !(flags.web || flags.fetch) => {
            Some("not selected: no web or fetch terms in the context")
        }
        "download" if !flags.download => {
            Some("not selected: no download terms in the context")
        }
        "git" if !flags.git => Some("not selected: no git terms in the context"),
        "batch" if !flags.batch => Some("not selected: no batch/parallel terms in the context"),
        "program" if !flags.program => Some("not selected: no program/PTC terms in the context"),
        "web_search" | "web_fetch" | "download" | "git" | "batch" | "program" => None,
        _ if name.starts_with(MCP_PREFIX) => (!mcp_selected(name, p, flags, seen)).then_some(
            "not selected: the context names neither this MCP tool's server nor its action, and has no MCP terms",
        ),
        _ => None,
    }
}

/// Why `greeting` (9.1.x) keeps every tool on an ordinary turn.
const GREETING_SELECTOR_NOTE: &str = "a3s-code-core 9.1.3 keeps every tool unless the turn is a bare greeting, so adaptive saves nothing here: a3s dropped its 9.0 vocabulary classifier because a phrasing it missed hid a tool from the model for good (adaptive.selector=vocabulary reproduces 9.0)";

/// `adaptive`: a3s's per-turn selector, in the release `adaptive.selector` names.
fn adaptive(capture: &Capture, order: &[usize], hosted: &[usize], settings: &Settings) -> Draft {
    let tools = capture.tools();
    let (context, source) = selection_context(capture, settings);
    let context_note = format!(
        "context: {source} ({} chars); selector: {} ({})",
        context.chars().count(),
        settings.adaptive_selector.id(),
        release(settings)
    );

    if is_greeting(&context) {
        let mut draft = empty(
            capture,
            format!(
                "the context is a greeting (`{}`), so a3s presents no tools",
                normalize_greeting(&context)
            ),
        );
        draft.notes.insert(0, Note::info(context_note));
        for &index in order.iter().chain(hosted) {
            draft.dropped.push((
                index,
                Status::Removed,
                "not selected: the context is a greeting".to_owned(),
            ));
        }
        return draft;
    }

    if settings.adaptive_selector == Selector::Greeting {
        let mut draft = direct(capture, order, hosted);
        draft.notes.insert(0, Note::info(GREETING_SELECTOR_NOTE));
        draft.notes.insert(0, Note::info(context_note));
        return draft;
    }

    let p = context.to_lowercase();
    let flags = Flags::of(&p);
    let mut seen = HashMap::new();
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for &index in order {
        let name = tool::name(&tools[index]).unwrap_or("");
        match adaptive_verdict(name, &p, flags, &mut seen) {
            None => kept.push(index),
            Some(reason) => dropped.push((index, Status::Removed, reason.to_owned())),
        }
    }
    let flag_names = flags.names();
    let flags_note = if flag_names.is_empty() {
        "flags set: none".to_owned()
    } else {
        format!("flags set: {}", flag_names.join(", "))
    };

    let mut draft = if kept.is_empty() && hosted.is_empty() {
        empty(capture, "the selector keeps no tool".to_owned())
    } else {
        Draft {
            sent: Some(with_hosted(&kept, hosted)),
            ..Draft::default()
        }
    };
    draft.notes.insert(0, Note::info(flags_note));
    draft.notes.insert(0, Note::info(context_note));
    draft.dropped = dropped;
    draft
}

// ---------------------------------------------------------------------------------------------
// code (section 2.2)

/// The gateway's description before the catalog.
const CODE_PREAMBLE: &str = "Run a sandboxed JavaScript program through the governed Tool executor. Define async function run(ctx, inputs), call await ctx.tool(name, args), and set allowed_tools to the smallest required subset. Every nested call keeps the Run permission, confirmation, cancellation, and audit boundaries. Available Tool signatures: ";

/// The gateway's name.
const PROGRAM: &str = "program";

/// The code gateway's description for a catalog.
pub fn code_description(catalog: &str) -> String {
    format!("{CODE_PREAMBLE}{catalog}")
}

/// What [`catalog`] made: the text, and which tools it left out for size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    /// The catalog text (`none` when empty).
    pub text: String,
    /// Entries that did not fit, as given to [`catalog`].
    pub omitted: Vec<usize>,
}

/// One catalog signature: `{name}({required}) {desc}`.
pub fn signature(entry: &Value, desc_bytes: usize) -> String {
    let name = tool::name(entry).unwrap_or("");
    let required = tool::schema(entry)
        .and_then(|schema| schema.get("required"))
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default();
    let description = tool::description(entry).unwrap_or("");
    // The first line: split on `\n` only; a `\r` ending that line goes with it.
    let first = description.split('\n').next().unwrap_or("");
    let first = first.strip_suffix('\r').unwrap_or(first).trim();
    let cut = first.floor_char_boundary(desc_bytes);
    format!("{name}({required}) {}", &first[..cut])
}

/// The code gateway's catalog over `entries` (already in canonical order, `program` excluded):
/// signatures joined by `; `, skipping (and counting) each one that would take it past
/// `catalog_bytes`, then the omitted count; `none` when empty.
pub fn catalog<'a>(
    entries: impl IntoIterator<Item = (usize, &'a Value)>,
    desc_bytes: usize,
    catalog_bytes: usize,
) -> Catalog {
    let mut text = String::new();
    let mut omitted = Vec::new();
    for (index, entry) in entries {
        let signature = signature(entry, desc_bytes);
        let separator = if text.is_empty() { "" } else { "; " };
        if text.len() + separator.len() + signature.len() > catalog_bytes {
            omitted.push(index);
            continue;
        }
        text.push_str(separator);
        text.push_str(&signature);
    }
    if !omitted.is_empty() {
        text.push_str(&format!("; ... {} additional Tools omitted", omitted.len()));
    }
    if text.is_empty() {
        text.push_str("none");
    }
    Catalog { text, omitted }
}

/// The parameter schema of a3s's own `program` tool (a3s-code `core/src/tools/program_tool.rs`),
/// for `code.gateway=inject`.
pub fn a3s_program_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "type": {
                "type": "string",
                "description": "Required. Program kind. Only \"script\" is supported.",
                "enum": ["script"]
            },
            "inputs": {
                "type": "object",
                "description": "Optional. JSON inputs passed to the script as the second argument."
            },
            "language": {
                "type": "string",
                "description": "Script language. Only JavaScript is supported.",
                "enum": ["javascript"]
            },
            "source": {
                "type": "string",
                "description": "Inline JavaScript source defining async function run(ctx, inputs)."
            },
            "path": {
                "type": "string",
                "description": "Workspace-relative path to a .js or .mjs script defining async function run(ctx, inputs). Used when source is omitted."
            },
            "allowed_tools": {
                "type": "array",
                "description": "Tool names the script may call through ctx. Defaults to all registered tools except program, dynamic_workflow, and the legacy parallel_task alias.",
                "items": { "type": "string" }
            },
            "limits": {
                "type": "object",
                "description": "Optional timeoutMs, maxToolCalls, and maxOutputBytes.",
                "additionalProperties": false,
                "properties": {
                    "timeoutMs": { "type": "integer", "minimum": 1 },
                    "maxToolCalls": { "type": "integer", "minimum": 1 },
                    "maxOutputBytes": { "type": "integer", "minimum": 1 }
                }
            }
        },
        "required": ["type"]
    })
}

/// `code`: one `program` gateway whose description catalogs every other tool.
fn code(capture: &Capture, order: &[usize], settings: &Settings) -> Draft {
    let tools = capture.tools();
    let program = order
        .iter()
        .copied()
        .find(|&index| tool::name(&tools[index]) == Some(PROGRAM));

    if program.is_none() && settings.code_gateway == Gateway::Capture {
        let why = "the capture has no `program` tool, so a3s presents no tools (set code.gateway=inject to add a3s's own gateway)";
        let mut draft = empty(capture, why.to_owned());
        draft.not_applicable(why);
        for &index in order {
            draft.dropped.push((
                index,
                Status::Removed,
                "code profile: no `program` gateway to catalog it".to_owned(),
            ));
        }
        return draft;
    }

    let cataloged = order
        .iter()
        .copied()
        .filter(|&index| Some(index) != program)
        .map(|index| (index, &tools[index]));
    let catalog = catalog(
        cataloged,
        settings.a3s_desc_bytes,
        settings.a3s_catalog_bytes,
    );
    let description = code_description(&catalog.text);

    let gateway = match program {
        Some(index) => {
            let mut entry = tools[index].clone();
            tool::set_description(&mut entry, description);
            SentTool::changed(
                index,
                entry,
                "description replaced by the code gateway's preamble and catalog",
            )
        }
        None => SentTool::added(
            capture.make_tool(PROGRAM, &description, a3s_program_schema()),
            "a3s's own `program` gateway (code.gateway=inject)",
        ),
    };

    let mut draft = Draft {
        sent: Some(vec![gateway]),
        ..Draft::default()
    };
    let omitted_reason = format!(
        "not cataloged: program's catalog would pass {} bytes (a3s.catalog_bytes)",
        settings.a3s_catalog_bytes
    );
    for &index in order {
        if Some(index) == program {
            continue;
        }
        let reason = if catalog.omitted.contains(&index) {
            omitted_reason.clone()
        } else {
            "cataloged in program".to_owned()
        };
        draft.dropped.push((index, Status::Removed, reason));
    }
    let listed = order.len() - usize::from(program.is_some()) - catalog.omitted.len();
    let mut note = format!(
        "one `program` gateway; its catalog lists {listed} tools in {} bytes",
        catalog.text.len()
    );
    if !catalog.omitted.is_empty() {
        note.push_str(&format!(
            ", {} omitted past {} bytes",
            catalog.omitted.len(),
            settings.a3s_catalog_bytes
        ));
    }
    if program.is_none() {
        note.push_str(
            " (the capture has none: a3s's own `program` tool was added, code.gateway=inject)",
        );
    }
    draft.info(note);
    draft
}

#[cfg(test)]
mod tests {
    #[test]
    fn floor_boundary_never_splits_a_char() {
        let text = "aé€";
        assert_eq!(text.floor_char_boundary(0), 0);
        assert_eq!(text.floor_char_boundary(2), 1);
        assert_eq!(text.floor_char_boundary(3), 3);
        assert_eq!(text.floor_char_boundary(5), 3);
        assert_eq!(text.floor_char_boundary(6), 6);
        assert_eq!(text.floor_char_boundary(60), 6);
    }
}
