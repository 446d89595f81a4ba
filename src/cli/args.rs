//! The command line's grammar (CLI.md), as clap derive types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use toolprism::measure::Encoding;
use toolprism::{Settings, Strategy};

const EXAMPLES: &str = "\
Examples:
  toolprism                                  the bundled sample (interactive on a terminal)
  cat capture.json | toolprism               the piped capture
  toolprism report capture.json              every strategy, as a table
  toolprism report capture.json -s minimal,defer --per-tool
  toolprism report capture.json --json --encoding cl100k_base
  toolprism report capture.json --set defer.threshold=3 -s defer
  toolprism show capture.json -s minimal --tools-only --pretty
  toolprism show capture.json -s minimal --tool read_file
  toolprism diff capture.json -s progressive | less -R
  toolprism diff capture.json -s minimal --stat
  toolprism export capture.json -s shorten -o shortened.json --store store/
  toolprism report capture.json -s minimal --budget 4000   exit 1 if over 4,000 tokens
  toolprism report trace.jsonl --turn 5      turn 5 of a trace (default: its last model call)
  toolprism diff session.har -s defer --turn 3 --skip-bad
  toolprism strategies                       what each strategy id does

Exit status: 0 success; 1 a check asked for failed (--budget); 2 usage error, unreadable or
invalid capture, failed export (one line on stderr); 130 interrupted (Ctrl-C).

Documentation, wherever toolprism is installed: `toolprism man | man -l -` (the manual page:
every command and flag, exit codes), `toolprism strategies` (each strategy, its host and
release), `toolprism settings` (every setting, its default and the strategies that read it),
`toolprism COMMAND --help`. In the source: README.md, and docs/README.md (an index of docs/).";

/// Inspect the tool list an LLM agent sends to a model API: project it under the rules of
/// five real agent hosts, measure every projection in exact tiktoken tokens and bytes,
/// compare and export.
#[derive(Debug, Parser)]
#[command(
    name = "toolprism",
    version,
    about = "Inspect the tool list an LLM agent sends: project it under real agent hosts' rules, measure tokens, compare, export.",
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true,
    subcommand_value_name = "COMMAND"
)]
pub struct Cli {
    /// A captured request body (JSON file, or `-` for standard input), or a trace of many
    /// (what `toolprism session` reads). Without one: the bundled sample. Opens the interactive
    /// view on a terminal (the session view for a trace); prints the `report` table (the
    /// `session` report for a trace) otherwise.
    #[arg(value_name = "CAPTURE")]
    pub capture: Option<std::path::PathBuf>,

    /// Change a setting, e.g. `defer.threshold=5` (repeatable).
    #[arg(long = "set", value_name = "K=V", value_parser = SettingKeys, hide_possible_values = true)]
    pub set: Vec<String>,

    /// With a trace: skip records that are not JSON or have no usable body (counted) instead
    /// of stopping at the first.
    #[arg(long)]
    pub skip_bad: bool,

    #[command(flatten)]
    pub encoding: EncodingOption,

    /// When to colour (the interactive view, `diff`, the marks of `report`, `report --matrix`
    /// and `session`): auto (on a terminal, unless NO_COLOR), always, never. Accepted by every
    /// subcommand.
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        value_name = "WHEN",
        global = true
    )]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The capture and settings every single-request subcommand takes.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// A captured request body (a JSON file, or `-` for standard input), or a trace of many
    /// (claude-trace / cctrace JSONL, HAR, JSON lines, a folder of request files, gzip or
    /// zstd): then one of its requests, `--turn N`.
    #[arg(value_name = "CAPTURE")]
    pub capture: std::path::PathBuf,

    /// The request of a trace to work on: turn N, 1-based, numbered as `toolprism session`
    /// numbers turns (default: the last model call). A single capture is turn 1.
    #[arg(long, value_name = "N", value_parser = parse_turn)]
    pub turn: Option<usize>,

    /// In a trace, skip records that are not JSON or have no usable body (they are not
    /// counted as turns) instead of failing.
    #[arg(long)]
    pub skip_bad: bool,

    /// Change a setting, e.g. `defer.threshold=5`, `mcp.prefixes=mcp__,mcp_` (repeatable).
    #[arg(long = "set", value_name = "K=V", value_parser = SettingKeys, hide_possible_values = true)]
    pub set: Vec<String>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure strategies: a table by default, `--json` for scripts.
    #[command(
        after_help = "Examples:\n  toolprism report capture.json\n  toolprism report capture.json -s minimal -s shorten --per-tool\n  toolprism report - --json < capture.json\n  toolprism report trace.jsonl --turn 5 --json   turn 5 of a trace (default: the last)"
    )]
    Report(ReportArgs),
    /// Print the projected request body (as captured, or `--compact` or `--pretty`).
    #[command(
        after_help = "Examples:\n  toolprism show capture.json -s minimal\n  toolprism show capture.json -s defer --tools-only --pretty\n  toolprism show session.har -s minimal --turn 2"
    )]
    Show(ShowArgs),
    /// Unified diff of each tool the strategy changes, adds or removes.
    #[command(
        after_help = "Examples:\n  toolprism diff capture.json -s minimal\n  toolprism diff capture.json -s shorten --tool mcp__github__create_issue --color never\n  toolprism diff trace.jsonl.gz -s defer --turn 7"
    )]
    Diff(DiffArgs),
    /// Write what `show` prints to a file, atomically, never replacing one without `--force`.
    #[command(
        after_help = "Examples:\n  toolprism export capture.json -s minimal -o minimal.json\n  toolprism export capture.json -s shorten -o out.json --store store/ --force\n  toolprism export capture.json -s defer --tools-only -o -\n  toolprism export trace.jsonl -s minimal --turn 3 -o turn3.json"
    )]
    Export(ExportArgs),
    /// A trace's turns (what changed in the tool list, the observed cache) and what each
    /// strategy would have sent and cost over the session.
    #[command(
        after_help = "Examples:\n  toolprism session trace.jsonl\n  toolprism session trace.jsonl -s original -s defer --json\n  toolprism session trace.jsonl -s defer --budget 50000   exit 1 if it costs more\n  toolprism session session.har --thread t2 --set cache.ttl=1h"
    )]
    Session(SessionArgs),
    /// Your own MCP servers, from your clients' configs: list each server's tools, as the
    /// host sends them, and measure them under every strategy.
    #[command(
        after_help = "Examples:\n  toolprism mcp                          every config found for this folder and user\n  toolprism mcp .mcp.json --dry-run      what would be started; starts nothing\n  toolprism mcp ~/.codex/config.toml --server github --json\n  toolprism mcp .mcp.json --host codex --save codex-request.json\n  toolprism report --by-server capture.json"
    )]
    Mcp(McpArgs),
    /// Record what an agent sends: a proxy on loopback that forwards each call to its provider
    /// and writes it to a trace `session` reads, keys redacted.
    #[command(
        after_help = "Examples:\n  toolprism record -- claude                  run claude through the proxy, then its session report\n  toolprism record -o trace.jsonl --no-view    print the export lines, record until Ctrl-C\n  toolprism record --upstream https://gateway.example/anthropic -- python agent.py\n\nThe trace is created with mode 0600; authorization, x-api-key, x-goog-api-key, api-key, cookies\nand every header or query parameter whose name says key, token or secret are written as\n[redacted]. docs/RECORD.md lists the variables a command is given."
    )]
    Record(RecordArgs),
    /// List the strategy ids, one a line, with what each does.
    Strategies,
    /// Every setting `--set` takes: its value (after any `--set`), default, choices, and the
    /// strategies it changes.
    #[command(
        after_help = "Examples:\n  toolprism settings\n  toolprism settings --set vtcode.release=0.169.2\n  toolprism settings --json"
    )]
    Settings(SettingsArgs),
    /// Print the manual page (roff, every subcommand in one page, generated from these
    /// definitions): `toolprism man | man -l -`.
    Man,
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  toolprism completions bash > ~/.local/share/bash-completion/completions/toolprism"
    )]
    Completions(CompletionsArgs),
}

/// `toolprism report`: its arguments.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub common: Common,
    /// Strategy ids, repeatable or comma-separated (`-s minimal,defer`; default: all of
    /// them, each once). See `toolprism strategies`.
    #[arg(
        short = 's',
        long = "strategy",
        value_name = "ID",
        value_parser = StrategyIds,
        value_delimiter = ','
    )]
    pub strategies: Vec<Strategy>,
    /// One JSON object on standard output (the keys are a contract: see CLI.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub encoding: EncodingOption,
    /// Add a per-tool table for each strategy.
    #[arg(long)]
    pub per_tool: bool,
    /// `--matrix` and its options.
    #[command(flatten)]
    pub matrix: super::matrix::MatrixArgs,
    /// Exit 1 when the gated strategy's total tokens exceed N (without `-s`: `original`, the
    /// list as sent; with it, each one named, and a refused one fails: it has no figures);
    /// standard error names what costs most. The report is printed either way.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = budget)]
    pub budget: Option<usize>,
    /// Add a row per MCP server (by `mcp.prefixes` or Codex namespace) and one for the host's
    /// own tools, with each strategy's tokens; `--json` adds `servers`.
    #[arg(long)]
    pub by_server: bool,
    /// Also ask the provider for its own count (`anthropic`: `/v1/messages/count_tokens` with
    /// `ANTHROPIC_API_KEY`; an Anthropic Messages capture), per server and per tool by
    /// difference, cached on disk. Off by default: no call is made without it.
    #[arg(long, value_name = "PROVIDER", value_parser = ["anthropic"])]
    pub count_with: Option<String>,
    /// The API base for `--count-with` (a gateway's).
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://api.anthropic.com",
        requires = "count_with"
    )]
    pub api_base: String,
}

/// `toolprism mcp`: its arguments.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// MCP client configs (`.mcp.json`, `~/.claude.json`, `.cursor/mcp.json`,
    /// `.vscode/mcp.json`, `~/.codex/config.toml`, `.gemini/settings.json`, Zed's
    /// `settings.json`, ...). Default: every one found for this folder and user.
    #[arg(value_name = "CONFIG")]
    pub configs: Vec<PathBuf>,
    /// Only this server (its name in the config; repeatable).
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// Print what would be started (command, arguments, working folder, the names of the
    /// environment variables, never their values) and start nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Start the servers of this folder's own configs (`.mcp.json`, `.cursor/mcp.json`,
    /// `.vscode/mcp.json`, ...) without asking; without it they are asked for on a terminal
    /// and skipped elsewhere. A config named on the command line is trusted.
    #[arg(long)]
    pub trust_project: bool,
    /// Send the tools as this host does (default: the host whose config the first server
    /// came from).
    #[arg(long, value_name = "HOST", value_parser = ["claude-code", "codex", "cursor", "vscode", "gemini-cli", "raw"])]
    pub host: Option<String>,
    /// Seconds each server has to start and list its tools.
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// The model the synthesized request names (default: the host's).
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Strategy ids, repeatable or comma-separated (default: all of them).
    #[arg(
        short = 's',
        long = "strategy",
        value_name = "ID",
        value_parser = StrategyIds,
        value_delimiter = ','
    )]
    pub strategies: Vec<Strategy>,
    /// One JSON object on standard output: `report --json`'s keys, `host`, and `servers`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub encoding: EncodingOption,
    /// Add a per-tool table for each strategy.
    #[arg(long)]
    pub per_tool: bool,
    /// `--matrix` and its options.
    #[command(flatten)]
    pub matrix: super::matrix::MatrixArgs,
    /// Exit 1 when the gated strategy's total tokens exceed N, as `report --budget` (without
    /// `-s`: `original`, the request as the host sends it; with it, each one named).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = budget)]
    pub budget: Option<usize>,
    /// Write the synthesized request to FILE: a capture every other command reads.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Replace FILE if it exists.
    #[arg(long, requires = "save")]
    pub force: bool,
    /// Also ask the provider for its own count (`anthropic`: `/v1/messages/count_tokens` with
    /// `ANTHROPIC_API_KEY`), per server and per tool by difference, cached on disk. Needs
    /// `--host claude-code`. Off by default: no call is made without it.
    #[arg(long, value_name = "PROVIDER", value_parser = ["anthropic"])]
    pub count_with: Option<String>,
    /// The API base for `--count-with` (a gateway's).
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://api.anthropic.com",
        requires = "count_with"
    )]
    pub api_base: String,
    /// Change a setting, e.g. `defer.threshold=5` (repeatable).
    #[arg(long = "set", value_name = "K=V", value_parser = SettingKeys, hide_possible_values = true)]
    pub set: Vec<String>,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(n) if n > 0.0 && n <= 3600.0 => Ok(n),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0 to 3600"
        )),
    }
}

/// `toolprism show`: its arguments.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub common: Common,
    /// The strategy id. See `toolprism strategies`.
    #[arg(short = 's', long = "strategy", value_name = "ID", value_parser = StrategyIds)]
    pub strategy: Strategy,
    /// Only the projected `tools` array (`[]` when the projection sends no `tools` key).
    #[arg(long, conflicts_with = "tool")]
    pub tools_only: bool,
    /// Only this tool's entry as the projection sends it (exact name).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Indent with two spaces (default: as captured, the capture's own layout).
    #[arg(long)]
    pub pretty: bool,
    /// Compact JSON, the text tokens are counted on (default: as captured).
    #[arg(long, conflicts_with = "pretty")]
    pub compact: bool,
}

/// `toolprism diff`: its arguments.
#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub common: Common,
    /// The strategy id. See `toolprism strategies`.
    #[arg(short = 's', long = "strategy", value_name = "ID", value_parser = StrategyIds)]
    pub strategy: Strategy,
    /// Only this tool (exact name).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Only the summary and one line per tool: lines removed and added, as `git diff --stat`.
    #[arg(long)]
    pub stat: bool,
}

/// `toolprism export`: its arguments.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub common: Common,
    /// The strategy id. See `toolprism strategies`.
    #[arg(short = 's', long = "strategy", value_name = "ID", value_parser = StrategyIds)]
    pub strategy: Strategy,
    /// The file to write (`-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Only the projected `tools` array.
    #[arg(long)]
    pub tools_only: bool,
    /// Indent with two spaces (default: as captured, the capture's own layout).
    #[arg(long)]
    pub pretty: bool,
    /// Compact JSON, the text tokens are counted on (default: as captured).
    #[arg(long, conflicts_with = "pretty")]
    pub compact: bool,
    /// Also write the full entries `shorten` pointers name, as DIR/{handle}.
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Replace existing files, and write a request a provider would reject (a device or
    /// a named pipe is written through, never replaced).
    #[arg(long)]
    pub force: bool,
    /// No line on standard error after a successful export.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// `toolprism session`: its arguments.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// A trace (claude-trace / cctrace JSONL, HAR, JSON lines, a folder of request files,
    /// gzip or zstd) or a single request body.
    #[arg(value_name = "TRACE")]
    pub trace: std::path::PathBuf,
    /// One JSON object on standard output (the keys are a contract: see docs/SESSIONS.md).
    #[arg(long)]
    pub json: bool,
    /// Strategy ids, repeatable or comma-separated (`-s original,defer`; default: all of them).
    #[arg(
        short = 's',
        long = "strategy",
        value_name = "ID",
        value_parser = StrategyIds,
        value_delimiter = ','
    )]
    pub strategies: Vec<Strategy>,
    /// Only this thread (its id, `t1`, or its key).
    #[arg(long, value_name = "ID")]
    pub thread: Option<String>,
    /// Skip records that are not JSON or have no usable body (counted) instead of failing.
    #[arg(long)]
    pub skip_bad: bool,
    /// Change a setting, e.g. `cache.read=0.1`, `cache.ttl=1h` (repeatable).
    #[arg(long = "set", value_name = "K=V", value_parser = SettingKeys, hide_possible_values = true)]
    pub set: Vec<String>,
    #[command(flatten)]
    pub encoding: EncodingOption,
    /// Exit 1 when the gated strategy's session cost (whole prompts in input tokens, over
    /// the cache chain: the totals' `cost`) exceeds N (without `-s`: `original`, the session
    /// as sent; with it, each one named); the report is printed either way.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = budget)]
    pub budget: Option<usize>,
    /// Follow a growing JSON-lines trace as `tail -f` does (`toolprism record`'s, claude-trace's):
    /// one timeline line per turn as its record is written, until Ctrl-C.
    #[arg(long, conflicts_with_all = ["json", "budget"])]
    pub follow: bool,
}

/// `toolprism record`: its arguments.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The trace to write (it must not exist; default: `toolprism-YYYYMMDD-HHMMSS.jsonl`, UTC,
    /// in the current folder).
    #[arg(short = 'o', long = "output", value_name = "TRACE")]
    pub output: Option<PathBuf>,
    /// Listen on this address and port, or this port on 127.0.0.1 (default: 127.0.0.1 on a
    /// free port). Another address than loopback lets whoever reaches it spend your keys.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Send every call to this base URL (a gateway) instead of the provider its path names.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Record without the live view: one line per call on standard output.
    #[arg(long)]
    pub no_view: bool,
    /// Ask Anthropic to explain each cache miss: add `diagnostics` (the id of the last answer
    /// on the conversation) to each Messages request to api.anthropic.com that has none.
    /// This changes what the agent sends.
    #[arg(long)]
    pub diagnose: bool,
    /// The command to run through the proxy (after `--`); its exit status is toolprism's.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// `toolprism settings`: its arguments.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// One JSON object on standard output: `{"settings": [{"key", "value", "default",
    /// "choices", "strategies", "help"}]}`.
    #[arg(long)]
    pub json: bool,
    /// Change a setting first, to see what it leaves in force (repeatable).
    #[arg(long = "set", value_name = "K=V", value_parser = SettingKeys, hide_possible_values = true)]
    pub set: Vec<String>,
}

/// `toolprism completions`: its arguments.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: ShellArg,
}

fn parse_turn(value: &str) -> Result<usize, String> {
    match value.trim().parse::<usize>() {
        Ok(0) => Err("turns are numbered from 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err("not a turn number (1, 2, 3, ...)".to_owned()),
    }
}

/// `-s ID`: a strategy id, offered to shell completion (`toolprism completions`) and listed
/// in `--help`; a wrong id gets the nearest one suggested.
#[derive(Debug, Clone, Copy)]
pub struct StrategyIds;

impl clap::builder::TypedValueParser for StrategyIds {
    type Value = Strategy;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Strategy, clap::Error> {
        parse_strategy.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(Strategy::ALL.iter().map(|s| {
            clap::builder::PossibleValue::new(s.id()).help(s.summary())
        })))
    }
}

/// `--set K=V`: any text (the settings check it, with their own messages); shell completion
/// offers each key followed by `=`.
#[derive(Debug, Clone, Copy)]
pub struct SettingKeys;

impl clap::builder::TypedValueParser for SettingKeys {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        // `key=` once for the process: clap's names are `&'static str`.
        static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        let names = NAMES.get_or_init(|| {
            Settings::KEYS
                .iter()
                .map(|k| format!("{}=", k.key))
                .collect()
        });
        Some(Box::new(Settings::KEYS.iter().zip(names).map(
            |(k, name)| clap::builder::PossibleValue::new(name.as_str()).help(k.help),
        )))
    }
}

fn parse_strategy(id: &str) -> Result<Strategy, String> {
    id.parse()
        .map_err(|e: toolprism::strategy::UnknownStrategy| {
            let ids = Strategy::ALL.iter().map(|s| s.id());
            match super::manners::did_you_mean(id, ids) {
                Some(near) => format!("{e}; did you mean `{near}`?"),
                None => e.to_string(),
            }
        })
}

/// `--encoding`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EncodingArg {
    /// GPT-4o and later (the default).
    #[value(name = "o200k_base")]
    O200kBase,
    /// GPT-4, GPT-3.5.
    #[value(name = "cl100k_base")]
    Cl100kBase,
}

// `--encoding`, as every counting command takes it. (A `//` comment: clap would make a doc
// comment of a flattened struct the about text of each command that takes it.)
#[derive(Debug, Clone, Copy, Args)]
pub struct EncodingOption {
    /// The tiktoken encoding to count with.
    #[arg(
        long,
        value_enum,
        default_value = "o200k_base",
        value_name = "ENCODING"
    )]
    pub encoding: EncodingArg,
}

impl From<EncodingOption> for Encoding {
    fn from(option: EncodingOption) -> Encoding {
        option.encoding.into()
    }
}

impl From<EncodingArg> for Encoding {
    fn from(arg: EncodingArg) -> Encoding {
        match arg {
            EncodingArg::O200kBase => Encoding::O200kBase,
            EncodingArg::Cl100kBase => Encoding::Cl100kBase,
        }
    }
}

/// `--color`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The shells `completions` supports.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShellArg {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
}

impl From<ShellArg> for clap_complete::Shell {
    fn from(arg: ShellArg) -> clap_complete::Shell {
        match arg {
            ShellArg::Bash => clap_complete::Shell::Bash,
            ShellArg::Zsh => clap_complete::Shell::Zsh,
            ShellArg::Fish => clap_complete::Shell::Fish,
        }
    }
}

/// The layout `--compact` and `--pretty` ask for; neither: as captured.
pub fn layout(compact: bool, pretty: bool) -> toolprism::export::Layout {
    use toolprism::export::Layout;
    match (compact, pretty) {
        (true, _) => Layout::Compact,
        (_, true) => Layout::Pretty,
        _ => Layout::AsCaptured,
    }
}

/// A budget: a whole number of tokens, 0 or more, in one plain line when it is not (`-5` would
/// otherwise be read as an option, with clap's `use -- -5` tip).
fn budget(text: &str) -> Result<usize, String> {
    text.trim().parse::<usize>().map_err(|_| {
        format!(
            "`{}` is no budget: give a whole number of tokens, 0 or more (`--budget 8000`)",
            toolprism::sanitize::visible(text)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_grammar_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn report_takes_repeated_strategies() {
        let cli = Cli::try_parse_from([
            "toolprism",
            "report",
            "x.json",
            "-s",
            "minimal",
            "-s",
            "defer",
            "--set",
            "a=b",
        ])
        .unwrap();
        match cli.command {
            Some(Command::Report(ReportArgs {
                strategies, common, ..
            })) => {
                assert_eq!(strategies, vec![Strategy::Minimal, Strategy::Defer]);
                assert_eq!(common.set, vec!["a=b".to_owned()]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_bare_capture_opens_the_view() {
        let cli = Cli::try_parse_from(["toolprism", "capture.json"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(
            cli.capture.as_deref(),
            Some(std::path::Path::new("capture.json"))
        );
    }
}
