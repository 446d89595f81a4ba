//! What `toolprism report CAPTURE --json` does, as a stand-alone program for measuring the
//! engine as a whole process (`benches/whole-process.sh` uses it when the `toolprism` binary at
//! hand has no `report` subcommand yet).
//!
//! ```text
//! cargo run --release --example report_json -- CAPTURE [o200k_base|cl100k_base]
//! ```

use std::io::Write;

use toolprism::measure::{Encoding, TokenCounter};
use toolprism::{Capture, Settings, Strategy};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: report_json CAPTURE [o200k_base|cl100k_base]");
        std::process::exit(2);
    };
    let encoding: Encoding = match args.next().map(|e| e.parse()) {
        None => Encoding::default(),
        Some(Ok(encoding)) => encoding,
        Some(Err(e)) => {
            eprintln!("report_json: {e}");
            std::process::exit(2);
        }
    };
    // Start building the encoder first: it overlaps with reading and parsing the capture.
    let counter = TokenCounter::new(encoding);
    let capture = match Capture::from_path(&path) {
        Ok(capture) => capture,
        Err(e) => {
            eprintln!("report_json: {e}");
            std::process::exit(2);
        }
    };
    let report = toolprism::report::report(
        &capture,
        &path,
        &Strategy::ALL,
        &Settings::default(),
        &counter,
    );
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, &report)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        eprintln!("report_json: {e}");
        std::process::exit(2);
    }
}
