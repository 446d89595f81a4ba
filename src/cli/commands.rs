//! One function per subcommand: each takes its resolved arguments ([`super::args`]) and returns
//! what to print, or the one line that says why not.

use std::io::IsTerminal;

use clap::CommandFactory;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::sanitize::visible;
use toolprism::{Capture, Settings, Strategy, export, project, report};

use super::args::{
    Cli, ColorChoice, CompletionsArgs, DiffArgs, ExportArgs, ReportArgs, SessionArgs, ShowArgs,
};
use super::{
    EXIT_CHECK, Failure, Loaded, Output, diffprint, for_terminal, interrupt, load, manners, matrix,
    session, settings, table, terminal_width, use_color,
};

/// `toolprism report`: the figures of the chosen strategies, as a table, a matrix or JSON.
pub(super) fn report(args: ReportArgs, color: ColorChoice) -> Result<Output, Failure> {
    let ReportArgs {
        common,
        strategies,
        json,
        encoding,
        per_tool,
        mut matrix,
        budget,
        by_server,
        count_with,
        api_base,
    } = args;
    // `--format markdown|csv` is a matrix format: asking for it is asking for the matrix.
    if matches!(
        matrix.format,
        Some(matrix::Format::Markdown | matrix::Format::Csv)
    ) {
        matrix.matrix = true;
    }
    // Started first: the encoder is built on a background thread while the capture is read
    // and parsed.
    let counter = TokenCounter::new(encoding.into());
    let Loaded {
        capture,
        path,
        name,
        turn,
        settings,
        mcp_servers,
    } = load(&common)?;
    // Without `-s` the budget gates the list as sent; with it, each strategy named.
    let gated: Vec<Strategy> = if strategies.is_empty() {
        vec![Strategy::Original]
    } else {
        strategies.clone()
    };
    let strategies = if strategies.is_empty() {
        Strategy::ALL.to_vec()
    } else if matrix.matrix {
        matrix::with_original(strategies)
    } else {
        // `-s minimal,defer -s minimal`: each strategy once, in first-named order.
        let mut unique = Vec::with_capacity(strategies.len());
        for strategy in strategies {
            if !unique.contains(&strategy) {
                unique.push(strategy);
            }
        }
        unique
    };
    let mut report = report::report(&capture, &path, &strategies, &settings, &counter);
    report.turn = turn;
    let rows = by_server
        .then(|| super::mcp::rows_of(&capture, &report, &settings, &mcp_servers, &counter));
    // A count that fails keeps the report, saying why (as `mcp` does).
    let (claude, count_failed) = match count_with {
        Some(_) => match super::mcp::report_claude_count(&capture, &settings, &api_base)? {
            Ok(count) => (Some(count), None),
            Err(problem) => (None, Some(problem)),
        },
        None => (None, None),
    };
    // Not freed: the process exits after printing, and freeing the trees of 100,000 tools
    // takes a third of a second.
    std::mem::forget(capture);
    let streamed = json
        && rows.is_none()
        && claude.is_none()
        && count_failed.is_none()
        && !std::io::stdout().is_terminal();
    let text = if streamed {
        String::new()
    } else if json {
        let mut value = serde_json::to_value(&report)
            .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
        if let (Some(rows), serde_json::Value::Object(map)) = (&rows, &mut value) {
            let rows = serde_json::to_value(rows)
                .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
            map.insert("servers".into(), rows);
        }
        if let (Some(claude), serde_json::Value::Object(map)) = (&claude, &mut value) {
            let claude = serde_json::to_value(claude)
                .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
            map.insert("claude_count".into(), claude);
        }
        if let (Some(problem), serde_json::Value::Object(map)) = (&count_failed, &mut value) {
            map.insert("claude_count_error".into(), problem.as_str().into());
        }
        let mut text = serde_json::to_string_pretty(&value)
            .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
        text.push('\n');
        for_terminal(text)
    } else if matrix.matrix {
        matrix::render(&report, &matrix, use_color(color))
    } else {
        let mut text = table::report_table(&report, per_tool, terminal_width(), use_color(color));
        if let Some(rows) = &rows {
            text.push('\n');
            text.push_str(&super::mcp::by_server_table(rows));
        }
        if let Some(claude) = &claude {
            text.push_str(&super::mcp::claude_section(claude));
        }
        text
    };
    let mut output = Output::text(text);
    if let Some(problem) = &count_failed {
        output.stderr = super::mcp::count_failed_line(problem);
    }
    if let Some(budget) = budget
        && let Some(line) = over_budget(&report, budget, &gated)
    {
        output
            .stderr
            .push_str(&format!("toolprism: {}: {line}\n", visible(&name)));
        output.status = EXIT_CHECK;
    }
    if streamed {
        output.report = Some(report);
    }
    Ok(output)
}

/// `toolprism show`: the projected request body, its `tools` array, or one tool's entry.
pub(super) fn show(args: &ShowArgs) -> Result<Output, Failure> {
    let Projected {
        capture,
        name,
        projection,
        ..
    } = projected(&args.common, args.strategy)?;
    let text = match &args.tool {
        // A tool the messages define inline: its definition as the projection sends it.
        Some(tool)
            if !capture.tool_names().any(|n| n == tool)
                && inline(&capture, &projection, tool).is_some() =>
        {
            let definition = inline(&capture, &projection, tool).unwrap_or_default();
            let mut text = if args.pretty {
                toolprism::tool::pretty(&definition)
            } else {
                toolprism::tool::compact(&definition)
            };
            text.push('\n');
            text
        }
        Some(tool) => {
            known_tool(&capture, &projection, tool, &name)?;
            let sent = sent_entry(&projection, tool, &name)?;
            // As captured: the entry as the request writes it (its bytes as sent when
            // unchanged).
            let written = (!args.pretty && !args.compact)
                .then(|| projection.written_entry(&capture, sent))
                .flatten();
            let entry = sent.entry(&capture);
            let mut text = match written {
                Some(text) => text.into_owned(),
                None if args.pretty => toolprism::tool::pretty(entry),
                None => toolprism::tool::compact(entry),
            };
            text.push('\n');
            text
        }
        None => export::render(
            &capture,
            &projection,
            args.tools_only,
            super::args::layout(args.compact, args.pretty),
        ),
    };
    Ok(Output::text(for_terminal(text)))
}

/// `toolprism diff`: a unified diff of each tool the strategy changes, paged on a terminal.
pub(super) fn diff(args: &DiffArgs, color: ColorChoice) -> Result<Output, Failure> {
    let Loaded {
        capture,
        name,
        turn,
        settings,
        ..
    } = load(&args.common)?;
    let projection = project(&capture, args.strategy, &settings);
    refused(&projection, &name)?;
    if let Some(tool) = &args.tool {
        known_tool(&capture, &projection, tool, &name)?;
    }
    let options = diffprint::Options {
        only: args.tool.as_deref(),
        color: use_color(color),
        stat: args.stat,
        title: turn.is_some().then_some(name.as_str()),
    };
    let mut output = Output::text(diffprint::render(&capture, &projection, &options));
    output.page = true;
    Ok(output)
}

/// `toolprism export`: write what `show` prints to a file (atomically), a device, a pipe or
/// standard output, with the full entries `shorten` points at when `--store` asks for them.
pub(super) fn export(args: &ExportArgs) -> Result<Output, Failure> {
    let Projected {
        capture,
        name,
        projection,
        appended,
    } = projected(&args.common, args.strategy)?;
    let strategy = args.strategy;
    if !projection.request_valid && !args.force {
        let why = projection
            .notes
            .iter()
            .find(|n| n.level == toolprism::Level::Error)
            .map_or("", |n| n.text.as_str());
        return Err(Failure::new(format!(
            "{}: a provider would reject the `{strategy}` request ({}); --force writes it anyway",
            visible(&name),
            visible(why)
        )));
    }
    let text = export::render(
        &capture,
        &projection,
        args.tools_only,
        super::args::layout(args.compact, args.pretty),
    );
    let counter = (!args.quiet).then(|| TokenCounter::new(Encoding::O200kBase));
    let output = &args.output;
    // Refuse before writing the store: a refused export writes nothing at all. Not even with
    // --force over an input: the capture, the trace folder it came from, standard input.
    let to_file = output.as_os_str() != "-";
    let mut inputs = export::Inputs::new();
    inputs.add(&args.common.capture);
    if to_file {
        export::check_target(output, args.force, &inputs).map_err(export_failure)?;
    }
    // From here on a signal whose default would end the process stops the work cleanly: the
    // store's new files and the temporary file removed, the target as it was.
    let stop = if args.store.is_some()
        || (to_file && export::target_kind(output) == export::TargetKind::Regular)
    {
        interrupt::stop_on_ending_signals()
    } else {
        std::sync::Arc::default()
    };
    let (store_created, notes) = write_store(args, &projection, &stop)?;
    let mut stdout = Vec::new();
    let target = if to_file {
        export::export(output, &text, args.force, &inputs, (&stop, true))
            .map_err(export_failure)
            .inspect_err(|_| {
                export::remove_created(&store_created);
            })?;
        visible(&output.to_string_lossy()).into_owned()
    } else {
        stdout = for_terminal(text.clone()).into_bytes();
        "standard output".to_owned()
    };
    // Into standard output the JSON itself is the result; a line on the same terminal would
    // only get in the way of copying it.
    let stderr = match &counter {
        Some(counter) if to_file => export_line(&target, &text, counter, &notes),
        _ if args.store.is_some() && projection.stored.is_empty() => {
            format!("toolprism: note: {}\n", notes.join("; "))
        }
        _ => String::new(),
    };
    let mut result = Output::bytes(stdout);
    result.stderr = stderr;
    // What the user takes on with this strategy; not between JSON and the user on one
    // terminal, where the JSON is to be copied (as the closing line is not).
    if !args.quiet && (to_file || !std::io::stdout().is_terminal()) {
        // `append`'s request is projected as `original`: its needs are its own, said below.
        let needs = match &appended {
            Some(_) => Vec::new(),
            None => export::needs(&capture, &projection),
        };
        for need in needs {
            result.stderr.push_str(&format!(
                "toolprism: {strategy} needs: {}\n",
                visible(&need)
            ));
        }
        if let Some(request) = &appended {
            result.stderr.push_str(&append_needs(request));
        }
    }
    Ok(result)
}

/// The request `show` and `export` write: the capture loaded and projected (refused in one
/// line where the strategy is); under `append`, the turn as `append` sends it (the capture is
/// that request, its projection `original`'s), read again from the trace up to the turn.
struct Projected {
    capture: Capture,
    name: String,
    projection: toolprism::Projection,
    appended: Option<toolprism::session::AppendRequest>,
}

fn projected(common: &super::args::Common, strategy: Strategy) -> Result<Projected, Failure> {
    // Standard input is kept to be read twice, and named as what the user gave.
    let mut common = common.clone();
    let spooled = if strategy == Strategy::Append && common.capture.as_os_str() == "-" {
        let file = super::spool_stdin()?;
        let path = super::temp_path(&file)?;
        common.capture = path.clone().into();
        Some((file, path))
    } else {
        None
    };
    let shown = |text: String| match &spooled {
        Some((_, path)) => text.replace(path.as_str(), "<stdin>"),
        None => text,
    };
    let Loaded {
        capture,
        name,
        settings,
        ..
    } = load(&common).map_err(|f| Failure(shown(f.0)))?;
    let name = shown(name);
    let projection = project(&capture, strategy, &settings);
    refused(&projection, &name)?;
    if strategy != Strategy::Append {
        return Ok(Projected {
            capture,
            name,
            projection,
            appended: None,
        });
    }
    let request = append_request(&common, &name)?;
    let capture = Capture::from_value(request.body.clone())
        .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
    let projection = project(&capture, Strategy::Original, &settings);
    Ok(Projected {
        capture,
        name,
        projection,
        appended: Some(request),
    })
}

/// Turn `--turn N` of the trace (the last without it) as `append` sends it.
fn append_request(
    common: &super::args::Common,
    name: &str,
) -> Result<toolprism::session::AppendRequest, Failure> {
    let choice = common
        .turn
        .map_or(super::TurnChoice::Last, super::TurnChoice::Number);
    let options = toolprism::trace::TraceOptions {
        skip_bad: common.skip_bad,
    };
    toolprism::session::append_request(&common.capture, choice, &options)
        .map_err(|e| Failure::new(format!("{}: {}", visible(name), visible(&e.to_string()))))
}

/// What `append`'s request needs of the provider, or that it is the request as it is.
fn append_needs(request: &toolprism::session::AppendRequest) -> String {
    use toolprism::session::BetaPlace;
    let place = match request.beta_in {
        BetaPlace::Header => "anthropic-beta header",
        BetaPlace::Body => "written in the body's `anthropic_beta`",
        BetaPlace::ConverseFields => "written in `additionalModelRequestFields.anthropic_beta`",
    };
    let mut text = String::new();
    if let Some(why) = &request.refused {
        text.push_str(&format!(
            "toolprism: append: the list as edited in place from turn {} on, where the provider takes the change no other way: {}\n",
            why.0,
            visible(&why.1)
        ));
    }
    if request.deferred > 0 {
        text.push_str(&format!(
            "toolprism: append needs: {} of the thread declared up front with `defer_loading: true`, out of context until a `tool_reference` adds {}\n",
            manners::count(request.deferred, "later tool", "later tools"),
            if request.deferred == 1 { "it" } else { "them" }
        ));
    }
    text + &match request.beta {
        Some(beta) => format!(
            "toolprism: append needs: the `{beta}` beta ({place}) for its {}\n",
            manners::count(request.placed, "system message", "system messages")
        ),
        // Said above: deferred declarations, or the list as edited.
        None if request.deferred > 0 || request.refused.is_some() => String::new(),
        None if request.kept => "toolprism: append: no tool change to send by this turn: the thread's first `tools` kept (its order and cache markers as first sent)\n"
            .to_owned(),
        None => "toolprism: append: the thread's tool list has not changed by this turn: the request as it is\n"
            .to_owned(),
    }
}

/// `--store DIR`: write the entries the projection's pointers name. Returns what it created
/// (taken back should the export itself fail) and the notes for the closing line.
fn write_store(
    args: &ExportArgs,
    projection: &toolprism::Projection,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(Vec<std::path::PathBuf>, Vec<String>), Failure> {
    let mut notes = Vec::new();
    let mut created = Vec::new();
    if let Some(dir) = &args.store {
        if projection.stored.is_empty() {
            notes.push(format!(
                "the `{}` projection names no stored entries, nothing written to {}",
                args.strategy,
                visible(&dir.to_string_lossy())
            ));
        } else {
            let (written, made) =
                export::write_store_created(dir, &projection.stored, args.force, stop)
                    .map_err(export_failure)?;
            created = made;
            notes.push(format!(
                "{} in {}",
                manners::count(written.len(), "stored entry", "stored entries"),
                visible(&dir.to_string_lossy())
            ));
        }
    }
    Ok((created, notes))
}

/// The line a successful export to a file ends with: what was written, its bytes and tokens.
fn export_line(target: &str, text: &str, counter: &TokenCounter, notes: &[String]) -> String {
    let mut line = format!(
        // Counted: the file's own JSON (not the tools alone, not the request the strategy
        // sends with its added text).
        "toolprism: wrote {target}: {}, {} in the file ({})",
        manners::count(text.len(), "byte", "bytes"),
        manners::count(
            counter.count(text.trim_end_matches('\n')),
            "token",
            "tokens",
        ),
        Encoding::O200kBase.id()
    );
    for note in notes {
        line.push_str("; ");
        line.push_str(note);
    }
    line.push('\n');
    line
}

/// `toolprism session`: a trace's turns and each strategy over the session.
pub(super) fn session(args: &SessionArgs, color: ColorChoice) -> Result<Output, Failure> {
    let settings = settings(&args.set)?;
    let request = session::Request {
        path: &args.trace,
        label: None,
        json: args.json,
        strategies: &args.strategies,
        thread: args.thread.clone(),
        skip_bad: args.skip_bad,
        settings: &settings,
        encoding: args.encoding.into(),
        budget: args.budget,
        color: use_color(color),
    };
    // A Claude Code transcript holds no requests: read it on its own path.
    let transcripts = if toolprism::session::transcript::sniff(&args.trace) {
        Some(vec![args.trace.clone()])
    } else {
        toolprism::session::transcript::folder(&args.trace)
    };
    if let Some(files) = transcripts {
        if args.budget.is_some() || !args.strategies.is_empty() {
            return Err(super::Failure::new(format!(
                "{}: a Claude Code session transcript holds no tool list: --budget and -s do \
                 not apply to it",
                toolprism::sanitize::visible(&args.trace.to_string_lossy())
            )));
        }
        if !args.follow {
            return super::transcript::run(
                &files,
                args.json,
                args.skip_bad,
                args.thread.as_deref(),
                &settings,
            );
        }
        // A folder is refused as following any folder is, below.
        if args.trace.is_file() {
            return super::transcript::follow(&args.trace, args.thread.as_deref(), &settings);
        }
    }
    if args.follow {
        return super::follow::run(&request, super::tui_color(color));
    }
    session::run(&request)
}

/// `toolprism strategies`: each id, what it does, and the release it reproduces.
pub(super) fn strategies() -> Output {
    let width = Strategy::ALL
        .iter()
        .map(|s| s.id().len())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    let defaults = Settings::default();
    for strategy in Strategy::ALL {
        // The defaults reproduce each origin's current release; name the older one a setting
        // selects.
        let origin = match (strategy.release(&defaults), strategy.older_release()) {
            (Some(release), Some((set, older))) => format!(
                "{}, {release}, current; {older} with --set {set}",
                strategy.family()
            ),
            (Some(release), None) => format!("{}, {release}, current", strategy.family()),
            (None, _) => strategy.family().to_owned(),
        };
        text.push_str(&format!(
            "{:<width$}  {} ({origin})\n",
            strategy.id(),
            strategy.summary(),
        ));
    }
    Output::text(text)
}

/// `toolprism man`: the manual page.
pub(super) fn man() -> Result<Output, Failure> {
    let page = man_page().map_err(|e| Failure::new(format!("man: {e}")))?;
    Ok(Output::bytes(page))
}

/// `toolprism completions SHELL`: the shell's completion script.
pub(super) fn completions(args: &CompletionsArgs) -> Output {
    let mut command = Cli::command();
    let mut buffer = Vec::new();
    clap_complete::generate(
        clap_complete::Shell::from(args.shell),
        &mut command,
        "toolprism",
        &mut buffer,
    );
    Output::bytes(buffer)
}

/// Write `text` to `path` as `export` writes (atomic, devices and pipes through, never over
/// one of `inputs`), stopping cleanly on a signal that would end the process.
pub(super) fn save(
    path: &std::path::Path,
    text: &str,
    force: bool,
    inputs: &export::Inputs,
) -> Result<(), Failure> {
    export::check_target(path, force, inputs).map_err(export_failure)?;
    let stop = if export::target_kind(path) == export::TargetKind::Regular {
        interrupt::stop_on_ending_signals()
    } else {
        std::sync::Arc::default()
    };
    export::export(path, text, force, inputs, (&stop, true)).map_err(export_failure)
}

fn export_failure(error: export::ExportError) -> Failure {
    Failure::new(visible(&error.to_string()).into_owned())
}

/// `--tool NAME` must name a tool of the capture or of the projection; otherwise one line,
/// with the nearest name when there is one.
fn known_tool(
    capture: &Capture,
    projection: &toolprism::Projection,
    tool: &str,
    name: &str,
) -> Result<(), Failure> {
    let names = || {
        capture
            .tool_names()
            .chain(projection.outcomes.iter().map(|o| &*o.name))
    };
    if names().any(|n| n == tool) {
        return Ok(());
    }
    // A name as the matrix shows it (`github›create_issue`), or as typed from it with `_`
    // (`github_create_issue`), or a near miss of either, points at the tool's own name.
    let shown: Vec<(String, &str)> = names()
        .filter_map(|n| toolprism::matrix::collapse_mcp(n).map(|c| (c, n)))
        .flat_map(|(c, n)| [(c.replace('›', "_"), n), (c, n)])
        .collect();
    let as_shown = || {
        shown
            .iter()
            .find(|(form, _)| form == tool)
            .map(|(_, n)| *n)
            .or_else(|| {
                let near = manners::did_you_mean(tool, shown.iter().map(|(f, _)| f.as_str()))?;
                shown.iter().find(|(f, _)| f == near).map(|(_, n)| *n)
            })
    };
    let hint = manners::did_you_mean(tool, names())
        .or_else(as_shown)
        .map(|near| format!("; did you mean `{}`?", visible(near)))
        .unwrap_or_default();
    Err(Failure::new(format!(
        "{}: no tool named `{}` in the capture or the `{}` projection{hint}",
        visible(name),
        visible(tool),
        projection.strategy
    )))
}

/// The definition in effect of a tool the request's messages define inline (the last one),
/// as the projection sends it (`None`: it sends no such definition).
fn inline(
    capture: &Capture,
    projection: &toolprism::Projection,
    tool: &str,
) -> Option<serde_json::Value> {
    use toolprism::projection::Edit;
    use toolprism::tool_changes::Target;
    let changes = toolprism::tool_changes::ToolChanges::read(capture);
    let effect = changes.in_effect(capture);
    let definition = effect
        .tools
        .iter()
        .chain(&effect.removed)
        .find(|t| t.name == tool)
        .and_then(|t| t.definition.clone())?;
    let change = changes
        .changes
        .iter()
        .rposition(|c| matches!(&c.target, Target::Inline(d) if *d == definition));
    match change.and_then(|i| projection.inline.iter().find(|e| e.change == i)) {
        Some(edit) => match &edit.edit {
            Edit::Definition(sent) => Some(sent.clone()),
            Edit::Dropped => None,
        },
        None => Some(definition),
    }
}

/// The entry the projection sends for `tool`, or one line saying what became of it.
fn sent_entry<'a>(
    projection: &'a toolprism::Projection,
    tool: &str,
    name: &str,
) -> Result<&'a toolprism::projection::SentTool, Failure> {
    let sent = projection.sent.as_deref().unwrap_or(&[]);
    let outcome = projection.outcomes.iter().find(|o| &*o.name == tool);
    if let Some(entry) = outcome.and_then(|o| o.projected).and_then(|i| sent.get(i)) {
        return Ok(entry);
    }
    let what = outcome.map_or("not sent".to_owned(), |o| {
        let mut what = o.status.word().to_owned();
        if !o.reason.is_empty() {
            what.push_str(&format!(": {}", visible(&o.reason)));
        }
        what
    });
    Err(Failure::new(format!(
        "{}: `{}` sends no `{}` ({what})",
        visible(name),
        projection.strategy,
        visible(tool)
    )))
}

/// A host that refuses the capture (a3s's limits) leaves nothing to show or write.
fn refused(projection: &toolprism::Projection, name: &str) -> Result<(), Failure> {
    match projection.refusal() {
        Some(error) => Err(Failure::new(format!(
            "{}: `{}` refuses this capture: {}",
            visible(name),
            projection.strategy,
            visible(error)
        ))),
        None => Ok(()),
    }
}

/// The `--budget` gate: which of the `gated` strategies' tokens in context exceed `budget`, as
/// one line naming what costs most in each. In context is the measure every saving uses: the
/// same as the tokens sent unless entries are deferred (`search`), whose sent total is said
/// beside. A refused strategy has no figures to pass the gate with, so it fails it (only ever
/// one named with `-s`: without it, `original` alone is gated), and so does one whose request
/// a provider would reject (`!`), naming why.
pub(super) fn over_budget(
    report: &report::Report,
    budget: usize,
    gated: &[Strategy],
) -> Option<String> {
    let failures: Vec<String> = report
        .strategies
        .iter()
        .filter(|s| gated.iter().any(|g| g.id() == s.id))
        .filter_map(|s| match (s.in_context(), s.total_tokens) {
            (Some(context), Some(sent)) if context > budget => {
                let measure = if context == sent {
                    format!("sends {} tokens", toolprism::text::thousands(sent))
                } else {
                    format!(
                        "puts {} tokens in context (sends {})",
                        toolprism::text::thousands(context),
                        toolprism::text::thousands(sent)
                    )
                };
                Some(format!(
                    "`{}` {measure}, {} over{}",
                    s.id,
                    toolprism::text::thousands(context - budget),
                    costliest(s)
                ))
            }
            (Some(_), Some(_)) => None,
            _ => Some(format!(
                "`{}` is refused by {} and has no figures",
                s.id,
                table::refused_by(s)
            )),
        })
        .collect();
    // A projected request a provider would reject (`!`) fails the gate whatever it costs: its
    // saving is not one anyone gets. The capture's own request is what is sent already.
    let rejected: Vec<String> = report
        .strategies
        .iter()
        .filter(|s| gated.iter().any(|g| g.id() == s.id) && s.id != Strategy::Original.id())
        .filter(|s| !s.is_refused() && !s.request_valid)
        .map(|s| {
            let why = s
                .notes
                .iter()
                .find(|n| n.level == toolprism::Level::Error)
                .map(|n| format!(" ({})", visible(&n.text)))
                .unwrap_or_default();
            format!(
                "`{}`'s request would be rejected by the provider{why}",
                s.id
            )
        })
        .collect();
    let mut parts = Vec::new();
    if !failures.is_empty() {
        parts.push(format!(
            "over the budget of {} tokens: {}",
            toolprism::text::thousands(budget),
            failures.join("; ")
        ));
    }
    parts.extend(rejected);
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// What costs most in a strategy's list, to say where a budget goes: its costliest MCP server
/// (when the tools have servers) and its three costliest tools in context, as ` (most: ...)`.
fn costliest(figures: &report::StrategyFigures) -> String {
    let sent = figures.per_tool.iter().filter(|t| t.context_tokens() > 0);
    let mut servers: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for tool in sent.clone() {
        if let Some(server) = toolprism::tool::server_label(&tool.name) {
            let entry = servers.entry(server).or_default();
            entry.0 += tool.context_tokens();
            entry.1 += 1;
        }
    }
    let mut parts = Vec::new();
    if let Some((server, (tokens, count))) = servers
        .iter()
        .max_by_key(|(name, (tokens, _))| (*tokens, std::cmp::Reverse(*name)))
    {
        parts.push(format!(
            "server `{}` {} in {}",
            visible(server),
            toolprism::text::thousands(*tokens),
            manners::count(*count, "tool", "tools")
        ));
    }
    let mut tools: Vec<_> = sent.collect();
    tools.sort_by_key(|t| std::cmp::Reverse(t.context_tokens));
    parts.extend(tools.iter().take(3).map(|t| {
        format!(
            "`{}` {}",
            visible(&t.name),
            toolprism::text::thousands(t.context_tokens())
        )
    }));
    if parts.is_empty() {
        String::new()
    } else {
        format!(" (most: {})", parts.join(", "))
    }
}

/// The manual page: one page holding every subcommand (their synopses and options as
/// subsections), so it names no per-subcommand pages that are not installed.
fn man_page() -> std::io::Result<Vec<u8>> {
    let mut cmd = Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    out.extend_from_slice(b".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let page = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        page.render_synopsis_section(&mut part)?;
        page.render_description_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            page.render_options_section(&mut part)?;
        }
        if sub.get_after_help().is_some() {
            page.render_extra_section(&mut part)?;
        }
        let name = sub.get_bin_name().unwrap_or(sub.get_name());
        out.extend_from_slice(format!(".SS \"{name}\"\n").as_bytes());
        // The subcommand's own sections become paragraphs of its subsection.
        for line in String::from_utf8_lossy(&part).lines() {
            match line.strip_prefix(".SH ") {
                Some(title) => {
                    let title = title.trim_matches('"');
                    out.extend_from_slice(format!(".TP\n\\fB{title}\\fR\n.PP\n").as_bytes());
                }
                None => {
                    out.extend_from_slice(line.as_bytes());
                    out.push(b'\n');
                }
            }
        }
    }
    man.render_extra_section(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
}
