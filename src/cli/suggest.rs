//! What the command line says to a near miss before (or instead of) clap's words: a word that is
//! neither a file nor a subcommand (`toolprism reprot x.json`), and an option given to a
//! subcommand that does not take it but another does (`session --turn 3`).

use std::ffi::OsString;

use clap::CommandFactory;

use super::args::Cli;
use super::manners::did_you_mean;

/// Top-level options that take their value as the next argument.
const TAKES_VALUE: &[&str] = &["--set", "--encoding", "--color"];

/// The first word on the command line that is neither an option, an option's value, nor a
/// subcommand, when it is no file either but near a subcommand's name: the one line to print.
pub fn unknown_subcommand(args: &[OsString]) -> Option<String> {
    let mut words = args.iter().skip(1);
    let word = loop {
        let arg = words.next()?.to_str()?;
        if arg == "--" {
            return None;
        }
        if TAKES_VALUE.contains(&arg) {
            words.next();
            continue;
        }
        if !arg.starts_with('-') {
            break arg;
        }
    };
    let cli = Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
    if names.contains(&word) || std::path::Path::new(word).exists() {
        return None;
    }
    let near = did_you_mean(word, names.iter().copied())?;
    Some(format!(
        "`{}` is neither a file nor a subcommand; did you mean `{near}`? (see --help)",
        toolprism::sanitize::visible(word)
    ))
}

/// For an option `subcommand` does not take: which subcommands do, as a clause to end clap's
/// line with instead of its `use '-- --turn'` tip.
pub fn option_elsewhere(args: &[OsString], option: &str) -> Option<String> {
    let cli = Cli::command();
    let long = option.strip_prefix("--")?.split('=').next()?;
    let used = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|a| cli.get_subcommands().any(|s| s.get_name() == *a))?;
    let takers: Vec<String> = cli
        .get_subcommands()
        .filter(|s| s.get_arguments().any(|a| a.get_long() == Some(long)))
        .map(|s| format!("`{}`", s.get_name()))
        .collect();
    let (last, rest) = takers.split_last()?;
    let list = if rest.is_empty() {
        last.clone()
    } else {
        format!("{} and {last}", rest.join(", "))
    };
    Some(format!(
        "`{option}` belongs to {list}, not to `{used}` (see toolprism {used} --help)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        std::iter::once("toolprism")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn a_near_subcommand_is_suggested_and_a_file_left_alone() {
        assert_eq!(
            unknown_subcommand(&args(&["reprot", "x.json"])).as_deref(),
            Some(
                "`reprot` is neither a file nor a subcommand; did you mean `report`? (see --help)"
            )
        );
        assert_eq!(
            unknown_subcommand(&args(&["--set", "reprot", "sesion"])).as_deref(),
            Some(
                "`sesion` is neither a file nor a subcommand; did you mean `session`? (see --help)"
            )
        );
        assert_eq!(unknown_subcommand(&args(&["report", "x.json"])), None);
        assert_eq!(unknown_subcommand(&args(&["Cargo.toml"])), None);
        assert_eq!(unknown_subcommand(&args(&["nothing-like-it.json"])), None);
    }

    #[test]
    fn an_option_of_other_subcommands_names_them() {
        assert_eq!(
            option_elsewhere(&args(&["session", "t.jsonl", "--turn", "3"]), "--turn").as_deref(),
            Some(
                "`--turn` belongs to `report`, `show`, `diff` and `export`, not to `session` (see toolprism session --help)"
            )
        );
        assert_eq!(
            option_elsewhere(&args(&["report", "x", "--tool", "a"]), "--tool").as_deref(),
            Some(
                "`--tool` belongs to `show` and `diff`, not to `report` (see toolprism report --help)"
            )
        );
        assert_eq!(
            option_elsewhere(&args(&["report", "--nope"]), "--nope"),
            None
        );
    }
}
