//! Writing a projection to a file safely (atomic, no clobber).
//! PLACEHOLDER: filled in by the CLI work.
