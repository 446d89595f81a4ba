//! A deterministic generator of large, realistic captures for benchmarks and tests.
//!
//! The capture is an Anthropic Messages request whose tool list mixes a coding agent's built-in
//! tools with many MCP servers' tools (`mcp__server__tool`), each with a long markdown description
//! (headings, lists, code blocks, accents, CJK, emoji, typographic quotes) and a nested input
//! schema (`$defs` and `$ref`, enums, arrays of objects, parameter descriptions). The same
//! [`Spec`] always gives the same bytes: a tiny PRNG seeded from the spec drives every choice.
//!
//! [`Spec::BENCH`] is the speed goal's capture: 1000 tools, about 3.6 MB of compact JSON. It
//! includes lean-ctx's `ctx_expand`, so every strategy that can act on it does.
//!
//! Not part of the library: the benchmark (`benches/report.rs`), the example
//! (`examples/gen_capture.rs`) and the measuring tests (`tests/measure.rs`) include this file
//! with `#[path]`, each using only part of it.
#![allow(dead_code)]

use serde_json::{Map, Value, json};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// Tools in the list (the first few are the built-in coding tools, the rest MCP tools).
    pub tools: usize,
    /// Seed of every choice.
    pub seed: u64,
}

impl Spec {
    /// The benchmark capture: 1000 tools, about 3.6 MB.
    pub const BENCH: Spec = Spec {
        tools: 1000,
        seed: 0x7001_5915,
    };

    /// A small capture with the same mix, for tests.
    pub const fn small(tools: usize, seed: u64) -> Spec {
        Spec { tools, seed }
    }
}

/// The capture as compact JSON text (what a proxy would have recorded).
pub fn capture_json(spec: Spec) -> String {
    // Serializing a `Value` cannot fail.
    serde_json::to_string(&capture_value(spec)).unwrap_or_default()
}

/// The capture as a JSON value.
pub fn capture_value(spec: Spec) -> Value {
    let mut rng = Rng::new(spec.seed);
    let mut tools: Vec<Value> = Vec::with_capacity(spec.tools);
    for builtin in BUILTINS.iter().take(spec.tools) {
        tools.push(builtin_tool(&mut rng, builtin));
    }
    // lean-ctx's expand tool, so `shorten` has work to do on the benchmark capture too.
    if tools.len() < spec.tools {
        tools.push(json!({
            "name": "mcp__lean-ctx__ctx_expand",
            "description": "Expand a lean-ctx pointer: returns the full text stored under the id the pointer shows.",
            "input_schema": {"type": "object", "properties": {"id": {"type": "string", "description": "The id from the pointer, e.g. `tool_3f2a9c`."}}, "required": ["id"], "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}
        }));
    }
    let mut names = mcp_names(spec.tools.saturating_sub(tools.len()), &mut rng);
    for (server, verb, object) in names.drain(..) {
        tools.push(mcp_tool(&mut rng, &server, verb, object));
    }
    // Claude Code marks the last tool so the whole list is cached.
    if let Some(Value::Object(last)) = tools.last_mut() {
        last.insert("cache_control".into(), json!({"type": "ephemeral"}));
    }
    json!({
        "model": "claude-sonnet-4-5-20250929",
        "max_tokens": 32000,
        "system": [{"type": "text", "text": "You are an interactive CLI tool that helps users with software engineering tasks.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "The CI run on the release branch fails in the migration tests. Find the failing test, read the postgres logs, and open an issue on GitHub with what you find."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "I'll look at the failing job first, then query the database logs."}]},
            {"role": "user", "content": [{"type": "text", "text": "Also check the Sentry issues from last night and update the Linear ticket."}]}
        ],
        "tools": tools,
        "tool_choice": {"type": "auto"},
        "stream": true
    })
}

/// SplitMix64: tiny, fast, and good enough to vary a corpus deterministically.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

struct Builtin {
    name: &'static str,
    summary: &'static str,
    params: &'static [(&'static str, &'static str, bool)],
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "Bash",
        summary: "Executes a given bash command in a persistent shell session with optional timeout, ensuring proper handling and security measures.",
        params: &[
            ("command", "string", true),
            ("timeout", "number", false),
            ("description", "string", false),
            ("run_in_background", "boolean", false),
        ],
    },
    Builtin {
        name: "Read",
        summary: "Reads a file from the local filesystem. You can access any file directly by using this tool.",
        params: &[
            ("file_path", "string", true),
            ("offset", "number", false),
            ("limit", "number", false),
        ],
    },
    Builtin {
        name: "Write",
        summary: "Writes a file to the local filesystem, overwriting the existing file if there is one.",
        params: &[("file_path", "string", true), ("content", "string", true)],
    },
    Builtin {
        name: "Edit",
        summary: "Performs exact string replacements in files.",
        params: &[
            ("file_path", "string", true),
            ("old_string", "string", true),
            ("new_string", "string", true),
            ("replace_all", "boolean", false),
        ],
    },
    Builtin {
        name: "Glob",
        summary: "Fast file pattern matching tool that works with any codebase size.",
        params: &[("pattern", "string", true), ("path", "string", false)],
    },
    Builtin {
        name: "Grep",
        summary: "A powerful search tool built on ripgrep.",
        params: &[
            ("pattern", "string", true),
            ("path", "string", false),
            ("glob", "string", false),
            ("output_mode", "string", false),
            ("-i", "boolean", false),
            ("-n", "boolean", false),
            ("head_limit", "number", false),
            ("multiline", "boolean", false),
        ],
    },
    Builtin {
        name: "WebFetch",
        summary: "Fetches content from a specified URL and processes it using an AI model.",
        params: &[("url", "string", true), ("prompt", "string", true)],
    },
    Builtin {
        name: "WebSearch",
        summary: "Allows Claude to search the web and use the results to inform responses.",
        params: &[
            ("query", "string", true),
            ("allowed_domains", "array", false),
            ("blocked_domains", "array", false),
        ],
    },
    Builtin {
        name: "TodoWrite",
        summary: "Use this tool to create and manage a structured task list for your current coding session.",
        params: &[("todos", "array", true)],
    },
    Builtin {
        name: "Task",
        summary: "Launch a new agent to handle complex, multi-step tasks autonomously.",
        params: &[
            ("description", "string", true),
            ("prompt", "string", true),
            ("subagent_type", "string", true),
        ],
    },
    Builtin {
        name: "NotebookEdit",
        summary: "Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source.",
        params: &[
            ("notebook_path", "string", true),
            ("cell_id", "string", false),
            ("new_source", "string", true),
            ("cell_type", "string", false),
            ("edit_mode", "string", false),
        ],
    },
    Builtin {
        name: "BashOutput",
        summary: "Retrieves output from a running or completed background bash shell.",
        params: &[("bash_id", "string", true), ("filter", "string", false)],
    },
    Builtin {
        name: "KillShell",
        summary: "Kills a running background bash shell by its ID.",
        params: &[("shell_id", "string", true)],
    },
    Builtin {
        name: "ExitPlanMode",
        summary: "Use this tool when you are in plan mode and have finished presenting your plan and are ready to code.",
        params: &[("plan", "string", true)],
    },
    Builtin {
        name: "SlashCommand",
        summary: "Execute a slash command within the main conversation.",
        params: &[("command", "string", true)],
    },
    Builtin {
        name: "ListMcpResourcesTool",
        summary: "Lists available resources from configured MCP servers.",
        params: &[("server", "string", false)],
    },
];

/// MCP servers and the objects their tools act on.
const SERVERS: &[(&str, &[&str])] = &[
    (
        "github",
        &[
            "issue",
            "pull_request",
            "repository",
            "branch",
            "commit",
            "release",
            "workflow_run",
            "gist",
            "label",
            "milestone",
            "review_comment",
            "code_scanning_alert",
        ],
    ),
    (
        "playwright",
        &[
            "page",
            "tab",
            "element",
            "cookie",
            "screenshot",
            "console",
            "network",
            "dialog",
            "frame",
            "download",
        ],
    ),
    (
        "postgres",
        &[
            "table",
            "schema",
            "query",
            "index",
            "role",
            "extension",
            "view",
            "migration",
        ],
    ),
    (
        "slack",
        &[
            "channel", "message", "thread", "reaction", "user", "file", "reminder", "bookmark",
        ],
    ),
    (
        "notion",
        &[
            "page", "database", "block", "comment", "user", "property", "template",
        ],
    ),
    (
        "linear",
        &[
            "issue", "project", "cycle", "team", "label", "comment", "roadmap", "document",
        ],
    ),
    (
        "sentry",
        &[
            "issue",
            "event",
            "project",
            "release",
            "alert_rule",
            "replay",
            "trace",
        ],
    ),
    (
        "jira",
        &[
            "issue",
            "sprint",
            "board",
            "epic",
            "worklog",
            "transition",
            "component",
            "version",
        ],
    ),
    (
        "kubernetes",
        &[
            "pod",
            "deployment",
            "service",
            "config_map",
            "secret",
            "namespace",
            "ingress",
            "cron_job",
            "node",
        ],
    ),
    (
        "aws",
        &[
            "bucket",
            "object",
            "lambda_function",
            "log_group",
            "alarm",
            "queue",
            "table",
            "stack",
        ],
    ),
    (
        "figma",
        &[
            "file",
            "frame",
            "component",
            "style",
            "comment",
            "variable",
            "version",
        ],
    ),
    (
        "google_calendar",
        &["event", "calendar", "attendee", "reminder", "free_busy"],
    ),
    (
        "stripe",
        &[
            "customer",
            "invoice",
            "subscription",
            "payment_intent",
            "refund",
            "price",
            "coupon",
        ],
    ),
    (
        "datadog",
        &[
            "monitor",
            "dashboard",
            "metric",
            "log_query",
            "incident",
            "slo",
            "synthetic_test",
        ],
    ),
    (
        "filesystem",
        &["file", "directory", "symlink", "archive", "permission"],
    ),
    ("memory", &["entity", "relation", "observation", "graph"]),
    (
        "docker",
        &["container", "image", "volume", "network", "compose_stack"],
    ),
    (
        "confluence",
        &["page", "space", "attachment", "comment", "label"],
    ),
];

const VERBS: &[&str] = &[
    "create", "get", "list", "update", "delete", "search", "archive", "export",
];

/// The first `count` MCP tool names (server, verb, object), a server's tools kept together.
fn mcp_names(count: usize, rng: &mut Rng) -> Vec<(String, &'static str, &'static str)> {
    let mut all = Vec::new();
    for (server, objects) in SERVERS {
        for object in *objects {
            for verb in VERBS {
                all.push((*server, *verb, *object));
            }
        }
    }
    // Sample across all servers (each name with probability count/len), so small captures
    // mix servers too; a second pass fills up to `count`.
    let mut taken = vec![false; all.len()];
    let mut left = count;
    for round in 0..2 {
        for slot in &mut taken {
            let sampled = (rng.next_u64() % all.len() as u64) < count as u64;
            if left > 0 && !*slot && (round > 0 || sampled) {
                *slot = true;
                left -= 1;
            }
        }
    }
    let mut chosen: Vec<(String, &'static str, &'static str)> = all
        .iter()
        .zip(&taken)
        .filter(|(_, taken)| **taken)
        .map(|((server, verb, object), _)| ((*server).to_owned(), *verb, *object))
        .collect();
    // More tools than distinct names: further instances of servers (`github_2`, ...).
    let mut instance = 2;
    while chosen.len() < count {
        for (server, verb, object) in &all {
            if chosen.len() >= count {
                break;
            }
            chosen.push((format!("{server}_{instance}"), *verb, *object));
        }
        instance += 1;
    }
    chosen
}

const NOUNS: &[&str] = &[
    "request",
    "response",
    "cursor",
    "page token",
    "workspace",
    "owner",
    "identifier",
    "timestamp",
    "filter",
    "payload",
    "result set",
    "permission",
    "scope",
    "rate limit",
    "webhook",
    "credential",
    "field",
    "attachment",
    "revision",
    "snapshot",
    "namespace",
    "selector",
    "callback",
    "region",
    "status code",
];

const ADJECTIVES: &[&str] = &[
    "optional",
    "required",
    "paginated",
    "cached",
    "archived",
    "visible",
    "default",
    "nested",
    "case-insensitive",
    "ISO 8601",
    "UTF-8 encoded",
    "idempotent",
    "read-only",
    "fully qualified",
];

const CLAUSES: &[&str] = &[
    "when the user asks for it explicitly",
    "before making any change that cannot be undone",
    "if the previous call returned a cursor",
    "unless the caller already knows the identifier",
    "so that results stay consistent across pages",
    "because the server enforces a rate limit per token",
    "to avoid fetching more data than the task needs",
    "after confirming the target with the user",
    "when several matches exist and one must be chosen",
    "while a long-running job is still in progress",
];

/// Non-ASCII fragments real descriptions carry: accents, CJK, emoji, typographic punctuation,
/// a combining mark and a no-break space.
const INTERNATIONAL: &[&str] = &[
    "Works with names such as “Zürich”, “São Paulo” and “Kraków”.",
    "Supports localized titles, e.g. 東京オフィス, 검색 결과 or データベース移行.",
    "Status icons: ✅ done, ⚠️ warning, ❌ failed, 🚀 deployed.",
    "The résumé and naïve café examples are matched accent-insensitively.",
    "Greek (Ελληνικά) and Cyrillic (русский текст) labels are returned unchanged.",
    "Combining marks are preserved: e\u{301}te\u{301} stays as written.",
    "Amounts are formatted with a no-break space: 1\u{a0}000\u{a0}€.",
    "It’s safe to retry — the operation is idempotent.",
    "中文描述也会原样返回，不做任何转换。",
    "🔍 Search is fuzzy; use quotes for exact matches: \"like this\".",
];

fn sentence(rng: &mut Rng, subject: &str) -> String {
    match rng.range(0, 5) {
        0 => format!(
            "Returns the {} {} for the given {}, {}.",
            rng.pick(ADJECTIVES),
            subject,
            rng.pick(NOUNS),
            rng.pick(CLAUSES)
        ),
        1 => format!(
            "Use this tool {}; otherwise prefer a narrower call.",
            rng.pick(CLAUSES)
        ),
        2 => format!(
            "The {} must be {} and is checked against the {} {}.",
            rng.pick(NOUNS),
            rng.pick(ADJECTIVES),
            subject,
            rng.pick(CLAUSES)
        ),
        3 => format!(
            "Each {} carries a `{}` field; it's {} and can't be changed later.",
            subject,
            rng.pick(NOUNS).replace(' ', "_"),
            rng.pick(ADJECTIVES)
        ),
        4 => format!(
            "Errors include a {} and a message that names the {} ({} {}).",
            rng.pick(NOUNS),
            rng.pick(NOUNS),
            rng.range(400, 599),
            rng.pick(&[
                "Bad Request",
                "Forbidden",
                "Not Found",
                "Conflict",
                "Too Many Requests"
            ])
        ),
        _ => format!(
            "Large {}s are truncated to {} items; pass a {} to read the rest.",
            subject,
            rng.range(20, 500),
            rng.pick(NOUNS)
        ),
    }
}

fn paragraph(rng: &mut Rng, subject: &str, sentences: usize) -> String {
    let mut text = String::new();
    for i in 0..sentences {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&sentence(rng, subject));
    }
    if rng.chance(30) {
        text.push(' ');
        let extra = *rng.pick(INTERNATIONAL);
        text.push_str(extra);
    }
    text
}

/// A long markdown description: summary, sections, lists, a code block, notes.
fn description(
    rng: &mut Rng,
    summary: &str,
    subject: &str,
    params: &[String],
    long: bool,
) -> String {
    let mut text = String::from(summary);
    text.push_str("\n\n");
    let n = rng.range(2, 4);
    text.push_str(&paragraph(rng, subject, n));
    let sections = if long {
        rng.range(3, 6)
    } else {
        rng.range(1, 3)
    };
    for s in 0..sections {
        let heading = [
            "When to use",
            "Usage notes",
            "Parameters",
            "Examples",
            "Limits",
            "Errors",
            "Permissions",
        ][(s + rng.range(0, 6)) % 7];
        text.push_str(&format!("\n\n## {heading}\n\n"));
        match heading {
            "Parameters" => {
                for p in params {
                    text.push_str(&format!("- `{p}`: {}\n", sentence(rng, subject)));
                }
            }
            "Examples" => {
                let lang = *rng.pick(&["json", "bash", "python", "sql"]);
                text.push_str(&format!("```{lang}\n"));
                match lang {
                    "json" => text.push_str(&format!(
                        "{{\n  \"{}\": \"{}-{}\",\n  \"limit\": {},\n  \"tags\": [\"ops\", \"ünïcode\"]\n}}\n",
                        params.first().map_or("id", String::as_str),
                        subject,
                        rng.range(1, 9999),
                        rng.range(1, 100)
                    )),
                    "bash" => text.push_str(&format!(
                        "curl -sS -H 'Authorization: Bearer $TOKEN' \\\n  \"https://api.example.com/v2/{subject}s?limit={}&cursor=abc%2F{}\"\n",
                        rng.range(1, 100),
                        rng.range(1000, 9999)
                    )),
                    "python" => text.push_str(&format!(
                        "result = client.{subject}s.list(limit={}, order=\"desc\")\nfor item in result:\n    print(item.id, item.name)  # {}\n",
                        rng.range(1, 100),
                        rng.pick(INTERNATIONAL)
                    )),
                    _ => text.push_str(&format!(
                        "SELECT id, name, created_at\n  FROM {subject}s\n WHERE owner_id = $1 AND status <> 'archived'\n ORDER BY created_at DESC\n LIMIT {};\n",
                        rng.range(10, 500)
                    )),
                }
                text.push_str("```\n");
            }
            _ => {
                let items = rng.range(2, 6);
                for _ in 0..items {
                    let marker = if rng.chance(70) { "-" } else { "1." };
                    text.push_str(&format!("{marker} {}\n", sentence(rng, subject)));
                    if rng.chance(15) {
                        text.push_str(&format!("  - **Note:** {}\n", sentence(rng, subject)));
                    }
                }
                if rng.chance(50) {
                    text.push('\n');
                    let n = rng.range(1, 3);
                    text.push_str(&paragraph(rng, subject, n));
                }
            }
        }
    }
    if rng.chance(20) {
        text.push_str("\n\nIMPORTANT: ");
        text.push_str(&sentence(rng, subject));
    }
    text.trim_end().to_owned()
}

fn builtin_tool(rng: &mut Rng, builtin: &Builtin) -> Value {
    let params: Vec<String> = builtin.params.iter().map(|p| p.0.to_owned()).collect();
    let desc = description(rng, builtin.summary, "file", &params, true);
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, kind, req) in builtin.params {
        let mut prop = Map::new();
        prop.insert("type".into(), json!(kind));
        if *kind == "array" {
            prop.insert(
                "items".into(),
                if *name == "todos" {
                    json!({"type": "object", "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                        "activeForm": {"type": "string", "minLength": 1}
                    }, "required": ["content", "status", "activeForm"], "additionalProperties": false})
                } else {
                    json!({"type": "string"})
                },
            );
        }
        prop.insert("description".into(), json!(sentence(rng, "file")));
        properties.insert((*name).into(), Value::Object(prop));
        if *req {
            required.push(json!(name));
        }
    }
    json!({
        "name": builtin.name,
        "description": desc,
        "input_schema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
        }
    })
}

fn mcp_tool(rng: &mut Rng, server: &str, verb: &str, object: &str) -> Value {
    let subject = object.replace('_', " ");
    let name = format!("mcp__{server}__{verb}_{object}");
    let mut params: Vec<String> = Vec::new();
    let mut properties = Map::new();
    let mut required = Vec::new();
    let id_key = format!("{object}_id");
    if verb != "create" && verb != "list" && verb != "search" {
        properties.insert(
            id_key.clone(),
            json!({"type": "string", "description": sentence(rng, &subject), "pattern": "^[A-Za-z0-9_-]{1,64}$"}),
        );
        required.push(json!(id_key));
        params.push(id_key);
    }
    let extra = rng.range(2, 9);
    let candidates = [
        "owner",
        "workspace",
        "query",
        "limit",
        "cursor",
        "sort",
        "order",
        "filters",
        "fields",
        "include_archived",
        "labels",
        "assignees",
        "metadata",
        "dry_run",
        "timeout_ms",
        "locale",
    ];
    let mut defs = Map::new();
    for _ in 0..extra {
        let key = *rng.pick(&candidates);
        if properties.contains_key(key) {
            continue;
        }
        let doc = sentence(rng, &subject);
        let prop = mcp_optional_param(rng, key, &subject, doc, &mut defs);
        properties.insert(key.into(), prop);
        params.push(key.into());
        if rng.chance(25) {
            required.push(json!(key));
        }
    }
    if verb == "create" || verb == "update" {
        let body_key = object.to_owned();
        properties.insert(body_key.clone(), mcp_body_param(rng, &subject, verb));
        required.push(json!(body_key));
        params.push(body_key);
    }
    let schema = mcp_schema(properties, required, defs);
    let summary = mcp_summary(verb, &subject, server);
    let long = rng.chance(60);
    json!({
        "name": name,
        "description": description(rng, &summary, &subject, &params, long),
        "input_schema": schema
    })
}

/// The schema of the optional parameter `key` documented by `doc`; the `$defs` it refers to go
/// into `defs`.
fn mcp_optional_param(
    rng: &mut Rng,
    key: &str,
    subject: &str,
    doc: String,
    defs: &mut Map<String, Value>,
) -> Value {
    match key {
        "limit" | "timeout_ms" => {
            json!({"type": "integer", "minimum": 1, "maximum": rng.range(50, 10000), "default": rng.range(10, 50), "description": doc})
        }
        "sort" => {
            json!({"type": "string", "enum": ["created", "updated", "name", "relevance"], "description": doc})
        }
        "order" => {
            json!({"type": "string", "enum": ["asc", "desc"], "default": "desc", "description": doc})
        }
        "include_archived" | "dry_run" => {
            json!({"type": "boolean", "default": false, "description": doc})
        }
        "labels" | "assignees" | "fields" => {
            json!({"type": "array", "items": {"type": "string"}, "maxItems": rng.range(5, 100), "description": doc})
        }
        "filters" => {
            defs.insert(
                "Filter".into(),
                json!({"type": "object", "properties": {
                    "field": {"type": "string", "description": sentence(rng, subject)},
                    "op": {"type": "string", "enum": ["eq", "neq", "lt", "lte", "gt", "gte", "in", "contains"]},
                    "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]}
                }, "required": ["field", "op", "value"], "additionalProperties": false}),
            );
            json!({"type": "array", "items": {"$ref": "#/$defs/Filter"}, "description": doc})
        }
        "metadata" => {
            defs.insert(
                "Metadata".into(),
                json!({"type": "object", "additionalProperties": {"type": "string", "maxLength": 500}, "description": sentence(rng, subject)}),
            );
            json!({"$ref": "#/$defs/Metadata"})
        }
        "locale" => {
            json!({"type": "string", "enum": ["en-US", "fr-FR", "de-DE", "ja-JP", "zh-CN", "pt-BR"], "description": format!("{doc} {}", rng.pick(INTERNATIONAL))})
        }
        _ => json!({"type": "string", "description": doc}),
    }
}

/// The object a `create` or `update` tool takes: what it makes or changes.
fn mcp_body_param(rng: &mut Rng, subject: &str, verb: &str) -> Value {
    json!({
        "type": "object",
        "description": format!("The {subject} to {verb}. {}", sentence(rng, subject)),
        "properties": {
            "title": {"type": "string", "maxLength": 256, "description": sentence(rng, subject)},
            "body": {"type": "string", "description": format!("Markdown body. {}", rng.pick(INTERNATIONAL))},
            "state": {"type": "string", "enum": ["open", "closed", "draft"]},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "key": {"type": "string"},
                "value": {"type": ["string", "number", "null"]},
                "children": {"type": "array", "items": {"type": "object", "properties": {"key": {"type": "string"}, "note": {"type": "string", "description": sentence(rng, subject)}}}}
            }, "required": ["key"]}}
        },
        "required": ["title"]
    })
}

/// An object schema of `properties`, with `required` and `$defs` when there are any.
fn mcp_schema(
    properties: Map<String, Value>,
    required: Vec<Value>,
    defs: Map<String, Value>,
) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema.insert(
        "$schema".into(),
        json!("http://json-schema.org/draft-07/schema#"),
    );
    Value::Object(schema)
}

/// The first sentence of the description: what the tool does, on what, where.
fn mcp_summary(verb: &str, subject: &str, server: &str) -> String {
    format!(
        "{} {} {} in {}.",
        capitalized(verb),
        if verb == "list" || verb == "search" {
            "the"
        } else {
            "a"
        },
        if verb == "list" || verb == "search" {
            format!("{subject}s")
        } else {
            subject.to_owned()
        },
        server.replace('_', " ")
    )
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
