//! Writing a projection out safely: what `show` prints ([`render`]), written atomically
//! ([`write_atomic`]: a temporary file in the target's folder, then a rename), never replacing
//! a file unless asked, and never leaving a partial or temporary file behind on failure.
//! [`write_store`] writes the full entries `shorten` pointers name.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::capture::Capture;
use crate::projection::{Projection, StoredEntry};
use crate::tool;

/// Why an export failed. Every variant renders as one line naming the path.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The target exists and `force` was not given.
    #[error("{}: already exists (use --force to replace it)", .0.display())]
    Exists(PathBuf),
    /// The target is a directory.
    #[error("{}: is a directory", .0.display())]
    IsDirectory(PathBuf),
    /// A handle is not a plain file name (it would escape the store folder).
    #[error("{handle:?}: not a plain file name, refusing to store it")]
    BadHandle {
        /// The handle.
        handle: String,
    },
    /// An I/O error while writing.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder concerned.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl ExportError {
    fn io(path: &Path, source: std::io::Error) -> ExportError {
        ExportError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// What `show` prints and `export` writes: the projected request body (or, with `tools_only`,
/// just its `tools` array: `[]` when the projection sends no `tools` key), compact or pretty
/// (two-space indent), always ending in a line feed.
pub fn render(
    capture: &Capture,
    projection: &Projection,
    tools_only: bool,
    pretty: bool,
) -> String {
    let value = if tools_only {
        projection
            .tools_value(capture)
            .unwrap_or_else(|| Value::Array(Vec::new()))
    } else {
        projection.request_body(capture)
    };
    let mut text = if pretty {
        tool::pretty(&value)
    } else {
        tool::compact(&value)
    };
    text.push('\n');
    text
}

/// Write `bytes` to `path` atomically: into a temporary file in the same folder, flushed to
/// disk, then renamed over the target. Without `force` an existing target is left untouched
/// and the call fails with [`ExportError::Exists`] (checked atomically by the rename itself,
/// so a file created meanwhile is not clobbered either). On any failure the temporary file is
/// removed.
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<(), ExportError> {
    if path.is_dir() {
        return Err(ExportError::IsDirectory(path.to_owned()));
    }
    if !force && path.symlink_metadata().is_ok() {
        return Err(ExportError::Exists(path.to_owned()));
    }
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The temporary file is deleted when `temp` drops, which every early return does.
    let prefix = format!(".{file_name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // tempfile's default is owner-only (0600); an export is an ordinary file: the mode a
    // plain create would give (0666 less the umask), or the replaced file's own mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o666, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut temp = builder
        .tempfile_in(dir)
        .map_err(|e| ExportError::io(path, e))?;
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| ExportError::io(path, e))?;
    let persisted = if force {
        temp.persist(path)
    } else {
        temp.persist_noclobber(path)
    };
    match persisted {
        Ok(_) => Ok(()),
        // `PersistError` gives the temporary file back; dropping it deletes it.
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            drop(e.file);
            Err(ExportError::Exists(path.to_owned()))
        }
        Err(e) => {
            drop(e.file);
            Err(ExportError::io(path, e.error))
        }
    }
}

/// Whether `handle` is a plain file name: no separator, not `.`/`..`, not hidden, no NUL.
pub fn is_plain_file_name(handle: &str) -> bool {
    !handle.is_empty()
        && !handle.starts_with('.')
        && !handle.contains(['/', '\\', '\0', ':'])
        && Path::new(handle).file_name().is_some_and(|n| n == handle)
}

/// Write each stored entry to `dir/{handle}` (its key-sorted compact JSON, as the pointer's
/// reader expects), creating `dir` when missing. Each file is written with [`write_atomic`].
/// A file that already holds exactly the entry's bytes is left as it is (handles are content
/// hashes, so this is the same entry); one with other bytes is replaced only with `force`.
/// Returns the paths written or already in place, in entry order.
pub fn write_store(
    dir: &Path,
    entries: &[StoredEntry],
    force: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    for entry in entries {
        if !is_plain_file_name(&entry.handle) {
            return Err(ExportError::BadHandle {
                handle: entry.handle.clone(),
            });
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| ExportError::io(dir, e))?;
    let mut written = Vec::with_capacity(entries.len());
    for entry in entries {
        let path = dir.join(&entry.handle);
        let same = std::fs::read(&path).is_ok_and(|bytes| bytes == entry.json.as_bytes());
        if !same {
            write_atomic(&path, entry.json.as_bytes(), force)?;
        }
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn writes_then_refuses_to_clobber_then_forces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomic(&path, b"one", false).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        let err = write_atomic(&path, b"two", false).unwrap_err();
        assert!(matches!(err, ExportError::Exists(_)), "{err}");
        assert!(
            err.to_string()
                .ends_with("already exists (use --force to replace it)")
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        write_atomic(&path, b"three", true).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"three");
        assert_eq!(leftovers(dir.path()), vec!["out.json".to_owned()]);
    }

    #[cfg(unix)]
    #[test]
    fn exports_get_ordinary_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomic(&path, b"x", false).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        // Readable by the group/others unless the umask forbids it; never the 0600 of a
        // temporary file under the usual umask 022.
        assert_eq!(mode & 0o600, 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"y", true).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640, "a replaced file keeps its mode");
    }

    #[test]
    fn failure_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing").join("out.json");
        let err = write_atomic(&missing, b"x", false).unwrap_err();
        assert!(matches!(err, ExportError::Io { .. }), "{err}");
        assert!(leftovers(dir.path()).is_empty());
        let err = write_atomic(dir.path(), b"x", true).unwrap_err();
        assert!(matches!(err, ExportError::IsDirectory(_)));
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn store_writes_each_handle_and_accepts_identical_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let entries = vec![
            StoredEntry {
                handle: "tool_0123456789abcdef.log".into(),
                json: "{\"a\":1}".into(),
            },
            StoredEntry {
                handle: "tool_fedcba9876543210.log".into(),
                json: "{\"b\":2}".into(),
            },
        ];
        let paths = write_store(&store, &entries, false).unwrap();
        assert_eq!(paths.len(), 2);
        assert_eq!(std::fs::read_to_string(&paths[1]).unwrap(), "{\"b\":2}");
        // Same content again: fine without force.
        write_store(&store, &entries, false).unwrap();
        // Other content under the same handle: refused without force.
        std::fs::write(&paths[0], "other").unwrap();
        assert!(matches!(
            write_store(&store, &entries, false),
            Err(ExportError::Exists(_))
        ));
        write_store(&store, &entries, true).unwrap();
        assert_eq!(std::fs::read_to_string(&paths[0]).unwrap(), "{\"a\":1}");
    }

    #[test]
    fn store_refuses_handles_that_escape() {
        let dir = tempfile::tempdir().unwrap();
        for handle in ["../x", "a/b", "..", ".hidden", "", "c:\\x"] {
            let entries = vec![StoredEntry {
                handle: handle.into(),
                json: "{}".into(),
            }];
            assert!(matches!(
                write_store(dir.path(), &entries, true),
                Err(ExportError::BadHandle { .. })
            ));
        }
        assert!(leftovers(dir.path()).is_empty());
    }
}
