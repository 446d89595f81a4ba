//! The `toolprism` binary. PLACEHOLDER until the CLI work lands: on a terminal it opens the
//! inspector, otherwise it prints the JSON report.

use std::io::IsTerminal;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "samples/small.json".into());
    let capture = match toolprism::Capture::from_path(&path) {
        Ok(capture) => capture,
        Err(e) => {
            eprintln!("toolprism: {e}");
            std::process::exit(2);
        }
    };
    let settings = toolprism::Settings::default();
    if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
        let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        if let Err(e) = toolprism::tui::run(capture, path, settings, Default::default(), color) {
            eprintln!("toolprism: {e}");
            std::process::exit(1);
        }
        return;
    }
    let counter = toolprism::measure::TokenCounter::new(Default::default());
    let report = toolprism::report::report(
        &capture,
        &path,
        &toolprism::Strategy::ALL,
        &settings,
        &counter,
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
}
