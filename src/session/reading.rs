//! Reading a trace for the analysis: the next record is read and parsed on another thread
//! while this one measures the last; a reader that panics is an error, never a short trace.

use super::{Analyzer, TraceInfo};
use crate::error::{FileError, LoadError};
use crate::trace::{TraceReader, TraceRecord};

/// Feed every record of `reader` to `analyzer`, reading (and parsing) the next record on
/// another thread while this one is measured. `progress` is told the number of turns analysed
/// after each. A record whose body is not a request stops the reading, or is skipped and
/// counted when the reader skips bad records; the turns before a stop stay analysed.
///
/// Returns what the reader learnt (`path` is `name`: how the trace is shown) and the error
/// that stopped the reading, if any; both are needed, since a stopped analysis is still shown.
pub fn analyse_trace(
    reader: TraceReader,
    name: &str,
    analyzer: &mut Analyzer<'_>,
    progress: &mut dyn FnMut(usize),
) -> (TraceInfo, Result<(), FileError>) {
    let skip_bad = reader.skips_bad();
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Result<TraceRecord, FileError>>(4);
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || {
            let mut reader = reader;
            for record in reader.by_ref() {
                let stop = record.is_err();
                if sender.send(record).is_err() || stop {
                    break;
                }
            }
            TraceInfo {
                path: String::new(),
                format: reader.format().id(),
                compression: reader.compression().map(crate::trace::Compression::id),
                ignored: reader.ignored().iter().map(Into::into).collect(),
                ignored_total: reader.ignored_total(),
                skipped: reader.skipped(),
                torn_last_line: reader.torn_last_line().is_some(),
                mcp_servers: reader.mcp_servers().to_vec(),
            }
        });
        let mut skipped = 0;
        let mut turns = 0;
        let mut result = Ok(());
        for record in receiver {
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let at = record.source.clone();
            match analyzer.push(record) {
                Ok(()) => turns += 1,
                Err(_) if skip_bad => skipped += 1,
                Err(e) => {
                    let problem = e.to_string();
                    result = Err(LoadError::BadRecord { at, problem }.in_file(name));
                    break;
                }
            }
            progress(turns);
        }
        // The receiver is dropped with the loop: a reader blocked on a full channel ends.
        let (mut info, stopped) = reader_end(reading.join(), name);
        info.path = name.to_owned();
        info.skipped += skipped;
        // A reader that died ended the records early: the analysis is not the trace's.
        if let (Some(stopped), Ok(())) = (stopped, &result) {
            result = Err(stopped);
        }
        (info, result)
    })
}

/// What the reader thread left: its figures, or, when it panicked, none and the error that
/// says so (the records it sent before are analysed; the rest never came).
fn reader_end(
    joined: std::thread::Result<TraceInfo>,
    name: &str,
) -> (TraceInfo, Option<FileError>) {
    match joined {
        Ok(info) => (info, None),
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            let problem = format!("the trace reader failed (a bug in toolprism): {why}");
            let error = LoadError::Unreadable(crate::sanitize::visible(&problem).into_owned());
            (TraceInfo::default(), Some(error.in_file(name)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_that_panicked_is_an_error_not_a_short_trace() {
        let joined = std::thread::spawn(|| -> TraceInfo { panic!("index out of bounds") }).join();
        let (info, error) = reader_end(joined, "trace.jsonl");
        assert_eq!(info.format, "");
        let error = error.expect("an error");
        assert_eq!(
            error.to_string(),
            "trace.jsonl: cannot read: the trace reader failed (a bug in toolprism): index out of bounds"
        );
        let fine = TraceInfo {
            format: "jsonl",
            ..TraceInfo::default()
        };
        let (info, error) = reader_end(Ok(fine), "trace.jsonl");
        assert_eq!((info.format, error), ("jsonl", None));
    }
}
