//! Writing a projection out safely: what `show` prints ([`render`]) and where it goes.
//!
//! - A regular file (or a path that does not exist yet) is written atomically
//!   ([`write_atomic`]): a temporary file in the target's folder, flushed, then renamed over the
//!   target. An existing file is never replaced unless asked, and nothing partial or temporary
//!   is left behind on failure.
//! - Anything else (a device such as `/dev/null`, a named pipe, `/dev/stdout`): written
//!   through, directly, never renamed over ([`target_kind`], [`open_through`],
//!   [`write_through`]). Renaming a file over `/dev/null` would replace the device.
//!
//! [`write_store`] writes the full entries `shorten` pointers name. Every error renders as one
//! line a user can act on: the path concerned and a plain reason, never a temporary file's name
//! or an `os error` number.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::capture::Capture;
use crate::projection::{Projection, StoredEntry};

/// Why an export failed. Every variant renders as one line naming the path and the reason.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The target exists and `force` was not given.
    #[error("{} exists (use --force to replace it)", .0.display())]
    Exists(PathBuf),
    /// The target is a directory.
    #[error("{} is a directory", .0.display())]
    IsDirectory(PathBuf),
    /// A handle is not a plain file name (it would escape the store folder).
    #[error("{handle:?}: not a plain file name, refusing to store it")]
    BadHandle {
        /// The handle.
        handle: String,
    },
    /// The folder cannot take a new file (missing, not writable, read-only file system...).
    #[error("cannot write in {}: {}", folder_name(.dir), crate::error::io_reason(.source))]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A stop was asked for (SIGINT, SIGTERM) before the export was in place: the target is as
    /// it was and no temporary file is left.
    #[error("interrupted: {} left as it was", .0.display())]
    Interrupted(PathBuf),
    /// A regular file reached through a descriptor or a kernel path holds bytes past where the
    /// write would start: writing would leave a stale tail, truncating would lose them.
    #[error(
        "{} is a regular file with {bytes} bytes past where the export would be written \
         (use --force to truncate it)", .path.display()
    )]
    WouldTruncate {
        /// The target as given.
        path: PathBuf,
        /// Bytes that would be lost or left stale.
        bytes: u64,
    },
    /// The target names a standard descriptor that was closed when the program started
    /// (`-o /dev/stdout >&-`): the bytes would go nowhere.
    #[error("{}: {} is closed; nothing written", .path.display(), .which)]
    Closed {
        /// The target as given.
        path: PathBuf,
        /// `standard output`, `standard error` or `standard input`.
        which: &'static str,
    },
    /// The target is one of the command's inputs.
    #[error("{} is an input of this command; refusing to write over it", .0.display())]
    IsInput(PathBuf),
    /// Writing, flushing or renaming into place failed (a full disk, a closed pipe...).
    #[error("cannot write {}: {}", .path.display(), crate::error::io_reason(.source))]
    Write {
        /// The target.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// A folder as error lines show it: with a trailing `/`, `./` for the current one.
fn folder_name(dir: &Path) -> String {
    let text = dir.display().to_string();
    if text.ends_with('/') {
        text
    } else {
        format!("{text}/")
    }
}

/// How an export target is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// A regular file or a new path: temporary file + rename.
    Regular,
    /// A directory: refused.
    Directory,
    /// A device, a named pipe, a socket, or a path under `/dev` or `/proc` (such as
    /// `/dev/stdout`, which may resolve to a regular file): written through, never renamed over.
    Through,
}

/// Decide how `path` is written (following symlinks, as opening it would).
pub fn target_kind(path: &Path) -> TargetKind {
    if is_system_path(path) {
        return TargetKind::Through;
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => TargetKind::Directory,
        Ok(meta) if !meta.is_file() => TargetKind::Through,
        _ => TargetKind::Regular,
    }
}

/// Paths in the kernel's own folders: `/dev/stdout` and `/proc/self/fd/1` name whatever the
/// descriptor is, even a regular file, and a rename there would replace the link itself.
fn is_system_path(path: &Path) -> bool {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent)
        .is_ok_and(|dir| dir.starts_with("/dev") || dir.starts_with("/proc"))
}

/// The descriptor of this process a path names, when it names one: `/dev/stdout` (1),
/// `/dev/stderr` (2), `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` and
/// `/proc/PID/fd/N` for this process's own id.
pub fn descriptor_of(path: &Path) -> Option<i32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let number = ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"]
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))
        .or_else(|| {
            let rest = text.strip_prefix("/proc/")?;
            let (pid, fd) = rest.split_once("/fd/")?;
            (pid.parse::<u32>().ok()? == std::process::id()).then_some(fd)
        })?;
    number.parse::<i32>().ok().filter(|&fd| fd >= 0)
}

/// [`ExportError::Closed`] when `path` names a standard descriptor that was closed when the
/// program started ([`standard_closed`]).
fn refuse_closed(path: &Path) -> Result<(), ExportError> {
    let which = match descriptor_of(path) {
        Some(0) => "standard input",
        Some(1) => "standard output",
        Some(2) => "standard error",
        _ => return Ok(()),
    };
    match descriptor_of(path) {
        Some(fd) if standard_closed(fd) => Err(ExportError::Closed {
            path: path.to_owned(),
            which,
        }),
        _ => Ok(()),
    }
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed when the program started: Rust's
/// runtime then opens `/dev/null` on it read-write, where a shell's `>/dev/null` is write-only
/// and `</dev/null` read-only, so every write would succeed with nothing written.
pub fn standard_closed(fd: i32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Some(file) = duplicate(fd) else {
        return true;
    };
    let read_write = rustix::fs::fcntl_getfl(&file)
        .is_ok_and(|flags| flags & rustix::fs::OFlags::RWMODE == rustix::fs::OFlags::RDWR);
    let null = std::fs::metadata("/dev/null").map(|m| m.rdev());
    let ours = file.metadata().map(|m| m.rdev());
    (0..=2).contains(&fd) && read_write && matches!((null, ours), (Ok(a), Ok(b)) if a == b)
}

/// A new handle on descriptor `fd` of this process (a `dup`: the same open file, its offset
/// and its append mode), or `None` when it is not open.
#[allow(
    unsafe_code,
    reason = "std borrows a raw descriptor only through an unsafe call"
)]
fn duplicate(fd: i32) -> Option<File> {
    // Only a descriptor the kernel lists as open is borrowed.
    if !Path::new(&format!("/proc/self/fd/{fd}")).exists()
        && !Path::new(&format!("/dev/fd/{fd}")).exists()
    {
        return None;
    }
    // SAFETY: the descriptor is open (just checked) and only borrowed for the `dup` below;
    // the new handle owns its own descriptor.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    borrowed.try_clone_to_owned().ok().map(File::from)
}

/// Open a [`TargetKind::Through`] target for writing (no create, no truncate, no rename). A
/// path that names one of this process's descriptors (`/dev/stdout`, `/dev/fd/3`) is that
/// descriptor, not a new opening of its file: `>> log` stays an append, `3<>file` keeps its
/// position.
pub fn open_through(path: &Path) -> Result<File, ExportError> {
    refuse_closed(path)?;
    if let Some(file) = descriptor_of(path).and_then(duplicate) {
        return Ok(file);
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|source| ExportError::Write {
            path: path.to_owned(),
            source,
        })
}

/// [`open_through`] that does not wait: a named pipe without a reader fails at once (ENXIO,
/// "no reader on the pipe") instead of blocking until one comes. The handle it returns
/// blocks as usual.
pub fn open_through_now(path: &Path) -> Result<File, ExportError> {
    use std::os::unix::fs::OpenOptionsExt;
    refuse_closed(path)?;
    if let Some(file) = descriptor_of(path).and_then(duplicate) {
        return Ok(file);
    }
    let failed = |source| ExportError::Write {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(failed)?;
    let flags = rustix::fs::fcntl_getfl(&file).map_err(|e| failed(e.into()))?;
    rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)
        .map_err(|e| failed(e.into()))?;
    Ok(file)
}

/// Write all of `bytes` to an opened target and flush it. A regular file reached this way (a
/// shell redirection behind `/dev/stdout`, a path under `/proc`) is appended to when opened
/// for appending; otherwise the write starts where the handle is, and bytes already past that
/// point are refused (a stale tail, or bytes lost to truncation) unless `force`, which
/// truncates the file after the export.
pub fn write_through_checked(
    file: &mut File,
    path: &Path,
    bytes: &[u8],
    force: bool,
) -> Result<(), ExportError> {
    use std::io::Seek;
    let failed = |source| ExportError::Write {
        path: path.to_owned(),
        source,
    };
    let meta = file.metadata().map_err(failed)?;
    let mut truncate_at = None;
    if meta.is_file() && !appends(file) {
        let at = file.stream_position().map_err(failed)?;
        let past = meta.len().saturating_sub(at);
        if past > 0 {
            if !force {
                return Err(ExportError::WouldTruncate {
                    path: path.to_owned(),
                    bytes: past,
                });
            }
            truncate_at = Some(at + bytes.len() as u64);
        }
    }
    write_through(file, path, bytes)?;
    if let Some(len) = truncate_at {
        file.set_len(len).map_err(failed)?;
    }
    Ok(())
}

/// Whether a handle was opened for appending (`>>`).
fn appends(file: &File) -> bool {
    rustix::fs::fcntl_getfl(file).is_ok_and(|flags| flags.contains(rustix::fs::OFlags::APPEND))
}

/// Whether `a` and `b` are the same file (following symlinks); `false` when either is missing.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Write all of `bytes` to an opened target and flush it.
pub fn write_through(file: &mut File, path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|source| ExportError::Write {
            path: path.to_owned(),
            source,
        })
}

/// Write `bytes` to `path` by its [`target_kind`]: atomically for a regular file, through for
/// a device or a pipe, refused for a directory.
pub fn write(path: &Path, bytes: &[u8], force: bool) -> Result<(), ExportError> {
    write_until(path, bytes, force, &AtomicBool::new(false))
}

/// [`write`], giving up cleanly (the target untouched, the temporary file removed) once `stop`
/// is set before the new file is in place: the caller sets it from a signal handler.
pub fn write_until(
    path: &Path,
    bytes: &[u8],
    force: bool,
    stop: &AtomicBool,
) -> Result<(), ExportError> {
    match target_kind(path) {
        TargetKind::Directory => Err(ExportError::IsDirectory(path.to_owned())),
        TargetKind::Through => write_through_checked(&mut open_through(path)?, path, bytes, force),
        TargetKind::Regular => write_atomic_until(path, bytes, force, stop),
    }
}

/// What a command reads, so that an export never lands on it: the files (their identity, taken
/// when they are added, so a later rename does not hide them), the folders a folder trace is
/// read from (nothing may be written inside them), and standard input when it is read (`-`).
/// The command line and the interactive view check every target against them, even with
/// `--force` or a confirmed overwrite.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// (device, inode) of each input file.
    files: Vec<(u64, u64)>,
    /// Each input folder, made absolute and canonical.
    folders: Vec<PathBuf>,
}

impl Inputs {
    /// No inputs.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// Add an input as given on the command line: `-` is standard input; a folder protects
    /// everything inside it. A path that cannot be read is not an input.
    pub fn add(&mut self, path: &Path) {
        use std::os::unix::fs::MetadataExt;
        if path.as_os_str() == "-" {
            self.add_stdin();
            return;
        }
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                if let Ok(dir) = std::fs::canonicalize(path) {
                    self.folders.push(dir);
                }
            }
            Ok(meta) => self.files.push((meta.dev(), meta.ino())),
            Err(_) => {}
        }
    }

    /// Add what standard input is, when it is a file (`< cap.json`): a pipe or a terminal is
    /// never a target's file.
    pub fn add_stdin(&mut self) {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let stdin = std::io::stdin();
        let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
            return;
        };
        if let Ok(meta) = File::from(fd).metadata()
            && meta.is_file()
        {
            self.files.push((meta.dev(), meta.ino()));
        }
    }

    /// Whether `target` is one of the inputs or lies inside an input folder.
    pub fn contains(&self, target: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::metadata(target)
            && self.files.contains(&(meta.dev(), meta.ino()))
        {
            return true;
        }
        if self.folders.is_empty() {
            return false;
        }
        // A new file inside a folder input (its parent is inside it), or the folder itself.
        let absolute = std::path::absolute(target).unwrap_or_else(|_| target.to_owned());
        let resolved = std::fs::canonicalize(&absolute).ok().or_else(|| {
            let parent = absolute.parent()?;
            Some(
                std::fs::canonicalize(parent)
                    .ok()?
                    .join(absolute.file_name()?),
            )
        });
        resolved.is_some_and(|at| self.folders.iter().any(|dir| at.starts_with(dir)))
    }

    /// [`ExportError::IsInput`] when `target` is an input.
    pub fn check(&self, target: &Path) -> Result<(), ExportError> {
        if self.contains(target) {
            Err(ExportError::IsInput(target.to_owned()))
        } else {
            Ok(())
        }
    }
}

/// Refuse what an export must not do before anything is written (a store, a temporary file):
/// a target that is an input (whatever `force` says), a directory, or an existing regular file
/// without `force`. Devices and pipes are written through and need no `force`.
pub fn check_target(path: &Path, force: bool, inputs: &Inputs) -> Result<(), ExportError> {
    inputs.check(path)?;
    match target_kind(path) {
        TargetKind::Directory => Err(ExportError::IsDirectory(path.to_owned())),
        TargetKind::Regular if !force && path.symlink_metadata().is_ok() => {
            Err(ExportError::Exists(path.to_owned()))
        }
        _ => Ok(()),
    }
}

/// The one export writer, for the command line and the interactive view alike: refuse an
/// input ([`check_target`]), then write a regular file atomically (never over an existing one
/// without `force`) and anything else through ([`write_until`]'s rules: a device or a pipe is
/// never replaced). Text bound for a terminal device (`/dev/tty`) is made terminal-safe first.
///
/// `wait` says whether opening a named pipe waits for its reader (the command line, as `cat >
/// fifo` does) or fails at once when there is none (the interactive view, which must not hang).
pub fn export(
    path: &Path,
    text: &str,
    force: bool,
    inputs: &Inputs,
    (stop, wait): (&AtomicBool, bool),
) -> Result<(), ExportError> {
    use std::io::IsTerminal;
    check_target(path, force, inputs)?;
    match target_kind(path) {
        TargetKind::Through => {
            let mut file = if wait {
                open_through(path)?
            } else {
                open_through_now(path)?
            };
            let bytes = if file.is_terminal() {
                crate::sanitize::json_for_terminal(text)
            } else {
                std::borrow::Cow::Borrowed(text)
            };
            write_through_checked(&mut file, path, bytes.as_bytes(), force)
        }
        _ => write_until(path, text.as_bytes(), force, stop),
    }
}

/// How `show` and `export` lay the JSON out: one word, one meaning, in the CLI and the
/// interactive view's export dialog alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// The capture's own layout: the bytes as sent for what the projection leaves unchanged,
    /// the capture's style for what it rewrites (compact JSON for a capture given already
    /// parsed). What a replayed request keeps its cache prefix with.
    #[default]
    AsCaptured,
    /// Compact JSON, no whitespace: the text tokens are counted on.
    Compact,
    /// Indented by two spaces.
    Pretty,
}

impl Layout {
    /// Its name, as the CLI and the dialog say it.
    pub fn word(self) -> &'static str {
        match self {
            Layout::AsCaptured => "as captured",
            Layout::Compact => "compact",
            Layout::Pretty => "pretty",
        }
    }

    /// The next one (the dialog's key cycles through them).
    pub fn next(self) -> Layout {
        match self {
            Layout::AsCaptured => Layout::Compact,
            Layout::Compact => Layout::Pretty,
            Layout::Pretty => Layout::AsCaptured,
        }
    }
}

/// What `show` prints and `export` writes: the projected request body (or, with `tools_only`,
/// just its `tools` array: `[]` when the projection sends no `tools` key), always ending in a
/// line feed, laid out as `layout` says.
pub fn render(
    capture: &Capture,
    projection: &Projection,
    tools_only: bool,
    layout: Layout,
) -> String {
    let written = match layout {
        Layout::AsCaptured if tools_only => projection
            .written_tools(capture)
            .map(|tools| tools.unwrap_or_else(|| "[]".to_owned())),
        Layout::AsCaptured => projection.written_request(capture),
        Layout::Compact | Layout::Pretty => None,
    };
    let pretty = layout == Layout::Pretty;
    let mut text = match written {
        Some(text) => text,
        None if tools_only => projection.tools_json(capture, pretty),
        None => projection.request_json(capture, pretty),
    };
    text.push('\n');
    text
}

/// Write `bytes` to the regular file `path` atomically: into a temporary file in the same
/// folder, flushed to disk, then renamed over the target. Without `force` an existing target is
/// left untouched and the call fails with [`ExportError::Exists`] (checked atomically by the
/// rename itself, so a file created meanwhile is not clobbered either). On any failure the
/// temporary file is removed. Use [`write`] for a target that may not be a regular file.
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<(), ExportError> {
    write_atomic_until(path, bytes, force, &AtomicBool::new(false))
}

/// Bytes of the target's name a temporary file's name keeps: 255 less `.`, `.`, six random
/// characters and `.tmp`.
const TEMP_NAME_KEEP: usize = 255 - 12;

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn truncated(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Bytes written between two looks at the stop flag.
const STOP_CHECK_BYTES: usize = 1 << 20;

/// [`write_atomic`] that looks at `stop` between chunks and before the rename.
pub fn write_atomic_until(
    path: &Path,
    bytes: &[u8],
    force: bool,
    stop: &AtomicBool,
) -> Result<(), ExportError> {
    // A symbolic link to a file is kept: the file it points to is replaced (in its own
    // folder), as an editor saving through a link does. A dangling link is replaced itself.
    let resolved;
    let path = if path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
        && let Ok(target) = std::fs::canonicalize(path)
    {
        resolved = target;
        resolved.as_path()
    } else {
        path
    };
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
    let failed = |source| ExportError::Write {
        path: path.to_owned(),
        source,
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The temporary file is deleted when `temp` drops, which every early return does. Its name
    // must fit wherever the target's does (255 bytes): `.` + name + `.` + 6 random + `.tmp`.
    let prefix = format!(".{}.", truncated(&file_name, TEMP_NAME_KEEP));
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
        .map_err(|source| ExportError::Folder {
            dir: dir.to_owned(),
            source,
        })?;
    // A replaced file keeps its mode exactly (the umask narrowed the one asked for above).
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        temp.as_file()
            .set_permissions(meta.permissions())
            .map_err(failed)?;
    }
    let interrupted = || ExportError::Interrupted(path.to_owned());
    for chunk in bytes.chunks(STOP_CHECK_BYTES) {
        if stop.load(Ordering::Relaxed) {
            return Err(interrupted());
        }
        temp.write_all(chunk).map_err(failed)?;
    }
    temp.as_file().sync_all().map_err(failed)?;
    if stop.load(Ordering::Relaxed) {
        return Err(interrupted());
    }
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
            Err(failed(e.error))
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
/// reader expects), creating `dir` when missing. All or nothing: every entry is first written
/// to a temporary file in `dir`, and only once all of them are there are they renamed into
/// place; any failure removes the temporary files, the entries this call put in place, and
/// `dir` itself when this call created it.
/// A file that already holds exactly the entry's bytes is left as it is (handles are content
/// hashes, so this is the same entry); one with other bytes is replaced only with `force`.
/// Returns the paths written or already in place, in entry order, and those this call
/// created (for [`remove_created`] should what follows fail).
pub fn write_store(
    dir: &Path,
    entries: &[StoredEntry],
    force: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    write_store_created(dir, entries, force, &AtomicBool::new(false)).map(|(written, _)| written)
}

/// [`write_store`], also returning what it created (new files, and `dir` when it was made),
/// and giving up cleanly (everything it created removed) once `stop` is set.
pub fn write_store_created(
    dir: &Path,
    entries: &[StoredEntry],
    force: bool,
    stop: &AtomicBool,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>), ExportError> {
    for entry in entries {
        if !is_plain_file_name(&entry.handle) {
            return Err(ExportError::BadHandle {
                handle: entry.handle.clone(),
            });
        }
    }
    let folder_error = |source| ExportError::Folder {
        dir: dir.to_owned(),
        source,
    };
    let made_dir = !dir.exists();
    std::fs::create_dir_all(dir).map_err(folder_error)?;
    let mut created: Vec<PathBuf> = Vec::new();
    if made_dir {
        created.push(dir.to_owned());
    }
    match stage_and_place(dir, entries, force, &mut created, stop) {
        Ok(written) => Ok((written, created)),
        Err(e) => {
            remove_created(&created);
            Err(e)
        }
    }
}

/// Remove what [`write_store_created`] created, newest first (files, then the folder).
pub fn remove_created(created: &[PathBuf]) {
    for path in created.iter().rev() {
        if path.is_dir() {
            let _ = std::fs::remove_dir(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn stage_and_place(
    dir: &Path,
    entries: &[StoredEntry],
    force: bool,
    created: &mut Vec<PathBuf>,
    stop: &AtomicBool,
) -> Result<Vec<PathBuf>, ExportError> {
    let mut written = Vec::with_capacity(entries.len());
    // Every new file staged before any is put in place.
    let mut staged = Vec::new();
    for entry in entries {
        if stop.load(Ordering::Relaxed) {
            return Err(ExportError::Interrupted(dir.to_owned()));
        }
        let path = dir.join(&entry.handle);
        written.push(path.clone());
        if path.is_dir() {
            return Err(ExportError::IsDirectory(path));
        }
        let exists = path.symlink_metadata().is_ok();
        // Only a regular file is read back: reading a named pipe would wait for a writer.
        let same = target_kind(&path) == TargetKind::Regular
            && exists
            && std::fs::read(&path).is_ok_and(|bytes| bytes == entry.json.as_bytes());
        if same {
            continue;
        }
        if exists && !force {
            return Err(ExportError::Exists(path));
        }
        if target_kind(&path) != TargetKind::Regular {
            // A device or a pipe in the folder is written through, last.
            staged.push((path, None, entry.json.as_bytes()));
            continue;
        }
        let failed = |source| ExportError::Write {
            path: path.clone(),
            source,
        };
        // An entry is an ordinary file (0666 less the umask), not tempfile's 0600.
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::Permissions::from_mode(0o666)
        };
        let mut temp = tempfile::Builder::new()
            .prefix(".store.")
            .suffix(".tmp")
            .permissions(mode)
            .tempfile_in(dir)
            .map_err(|source| ExportError::Folder {
                dir: dir.to_owned(),
                source,
            })?;
        temp.write_all(entry.json.as_bytes()).map_err(failed)?;
        temp.as_file().sync_all().map_err(failed)?;
        staged.push((path, Some((temp, exists)), entry.json.as_bytes()));
    }
    if stop.load(Ordering::Relaxed) {
        return Err(ExportError::Interrupted(dir.to_owned()));
    }
    for (path, temp, bytes) in staged {
        match temp {
            Some((temp, existed)) => {
                let persisted = if force {
                    temp.persist(&path)
                } else {
                    temp.persist_noclobber(&path)
                };
                match persisted {
                    Ok(_) if !existed => created.push(path),
                    Ok(_) => {}
                    Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                        return Err(ExportError::Exists(path));
                    }
                    Err(e) => {
                        return Err(ExportError::Write {
                            path,
                            source: e.error,
                        });
                    }
                }
            }
            None => write(&path, bytes, force)?,
        }
    }
    Ok(written)
}

/// What a user takes on by sending `projection` instead of the capture, one sentence each:
/// the tools it adds that the host must answer (or the provider runs), the entries only a
/// provider's tool search loads, the pointers only an expand tool follows, and a strategy that
/// did not apply (whose request is the host's fallback, possibly with no tools). Empty when the
/// request asks nothing new of anyone. Names are the capture's text: sanitize before a terminal.
pub fn needs(capture: &Capture, projection: &Projection) -> Vec<String> {
    use crate::projection::{ProjectionStatus, Status};
    let strategy = projection.strategy;
    let mut needs = Vec::new();
    if let ProjectionStatus::NotApplicable(reason) = &projection.status {
        let tools = projection.tool_count();
        needs.push(format!(
            "`{strategy}` does not apply to this capture ({reason}): what is written is the \
             host's fallback, sending {}",
            match tools {
                0 => "no tools".to_owned(),
                1 => "1 tool".to_owned(),
                n => format!("{n} tools"),
            }
        ));
    }
    let sent = projection.sent.as_deref().unwrap_or(&[]);
    for outcome in projection
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Added)
    {
        let entry = outcome
            .projected
            .and_then(|i| sent.get(i))
            .map(|t| t.entry(capture));
        let kind = entry
            .and_then(|e| e.get("type"))
            .and_then(serde_json::Value::as_str)
            .filter(|t| !matches!(*t, "function" | "custom"));
        needs.push(match kind {
            Some(kind) => format!(
                "`{}` (`{kind}`) is the provider's own tool: the model and the API must offer it",
                outcome.name
            ),
            None => format!(
                "`{}` is added: the host must implement it and answer its calls",
                outcome.name
            ),
        });
    }
    let withheld = projection
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Deferred && o.projected.is_none())
        .count();
    if withheld > 0 {
        needs.push(format!(
            "{withheld} {} withheld: the model reaches {} only through the host's tool search",
            if withheld == 1 {
                "tool is"
            } else {
                "tools are"
            },
            if withheld == 1 { "it" } else { "them" },
        ));
    }
    let deferred = sent
        .iter()
        .filter(|t| crate::tool::provider_deferred(t.entry(capture)))
        .count();
    if deferred > 0 {
        needs.push(format!(
            "{deferred} {} sent with `defer_loading: true`: the model sees {} only once the \
             provider's tool search returns {}",
            if deferred == 1 {
                "tool is"
            } else {
                "tools are"
            },
            if deferred == 1 { "it" } else { "them" },
            if deferred == 1 { "it" } else { "them" },
        ));
    }
    if !projection.stored.is_empty() {
        needs.push(format!(
            "{} shortened to pointers: the host must keep the full entries (`--store DIR` \
             writes them) and expand a pointer when the model asks",
            projection.stored.len()
        ));
    }
    needs
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
        assert_eq!(
            err.to_string(),
            format!("{} exists (use --force to replace it)", path.display())
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
        assert_eq!(
            err.to_string(),
            format!(
                "cannot write in {}/: no such file or folder",
                dir.path().join("missing").display()
            )
        );
        assert!(leftovers(dir.path()).is_empty());
        let err = write_atomic(dir.path(), b"x", true).unwrap_err();
        assert!(matches!(err, ExportError::IsDirectory(_)));
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn reasons_have_no_os_error_numbers() {
        use std::io::{Error, ErrorKind};
        assert_eq!(
            crate::error::io_reason(&Error::from(ErrorKind::PermissionDenied)),
            "permission denied"
        );
        assert_eq!(
            crate::error::io_reason(&Error::from_raw_os_error(28)),
            "no space left on the device"
        );
        assert_eq!(
            crate::error::io_reason(&Error::from_raw_os_error(32)),
            "the reader closed the pipe"
        );
        // EXDEV: no plain wording of ours; the system's, without "(os error 18)".
        assert_eq!(
            crate::error::io_reason(&Error::from_raw_os_error(18)),
            "invalid cross-device link"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_are_written_through_never_replaced() {
        let null = Path::new("/dev/null");
        assert_eq!(target_kind(null), TargetKind::Through);
        assert_eq!(target_kind(Path::new("/dev/stdout")), TargetKind::Through);
        write(null, b"x", true).unwrap();
        write(null, b"x", false).unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::metadata(null)
                .unwrap()
                .file_type()
                .is_char_device()
        );
        let err = write(Path::new("/dev/full"), b"x", true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot write /dev/full: no space left on the device"
        );
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(target_kind(dir.path()), TargetKind::Directory);
        assert_eq!(
            target_kind(&dir.path().join("new.json")),
            TargetKind::Regular
        );
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
