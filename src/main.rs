//! The `toolprism` binary. PLACEHOLDER until the CLI work lands.

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "samples/small.json".into());
    match toolprism::Capture::from_path(&path) {
        Ok(capture) => {
            let counter = toolprism::measure::TokenCounter::new(Default::default());
            let settings = toolprism::Settings::default();
            let report = toolprism::report::report(
                &capture,
                &path,
                &toolprism::Strategy::ALL,
                &settings,
                &counter,
            );
            println!("{}", serde_json::to_string_pretty(&report).unwrap());
        }
        Err(e) => {
            eprintln!("toolprism: {e}");
            std::process::exit(2);
        }
    }
}
