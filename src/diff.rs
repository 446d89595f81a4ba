//! Diffs between original and projected entries.
//! PLACEHOLDER: filled in by the CLI work.
