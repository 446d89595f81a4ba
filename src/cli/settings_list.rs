//! `toolprism settings`: every key `--set` takes, as the registry declares it (the docs' "listed
//! by `toolprism settings`").

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::setting_key::SettingKey;
use toolprism::strategy::Strategy;

use super::args::SettingsArgs;
use super::{Failure, Output, for_terminal, settings};

/// The strategies a key changes, by id; the session cost model's keys change none.
fn strategies(key: &SettingKey) -> Vec<&'static str> {
    Strategy::ALL
        .into_iter()
        .filter(|s| key.affects(*s))
        .map(Strategy::id)
        .collect()
}

/// `toolprism settings`: one block a key (text) or one object (`--json`).
pub(super) fn run(args: &SettingsArgs) -> Result<Output, Failure> {
    let settings = settings(&args.set)?;
    if args.json {
        let rows: Vec<Value> = Settings::KEYS
            .iter()
            .map(|key| {
                json!({
                    "key": key.key,
                    "value": (key.read)(&settings),
                    "default": (key.read)(&Settings::default()),
                    "choices": key.choices(),
                    "strategies": strategies(key),
                    "help": key.help,
                })
            })
            .collect();
        let mut text = serde_json::to_string_pretty(&json!({ "settings": rows }))
            .map_err(|e| Failure::new(format!("settings: {e}")))?;
        text.push('\n');
        return Ok(Output::text(for_terminal(text)));
    }
    Ok(Output::text(text(&settings)))
}

/// A key a block: `KEY=VALUE` (a `*` when it is not the default), then what it does, its
/// default and choices, and the strategies it changes.
fn text(settings: &Settings) -> String {
    let mut out = String::new();
    for key in Settings::KEYS {
        let value = key.value(settings);
        let default = key.default_value();
        let changed = if value == default { "" } else { "  *" };
        out.push_str(&format!("{}={value}{changed}\n", key.key));
        out.push_str(&format!("    {}\n", key.help));
        let mut facts = vec![format!(
            "default {}",
            if default.is_empty() {
                "unset"
            } else {
                &default
            }
        )];
        if let Some(choices) = key.choices() {
            facts.push(format!("one of {}", choices.join(", ")));
        }
        let changes = strategies(key);
        facts.push(if changes.is_empty() {
            "changes no projection (the session cost model)".to_owned()
        } else {
            format!("changes {}", changes.join(", "))
        });
        out.push_str(&format!("    {}\n", facts.join("; ")));
    }
    out.push_str("\n* not the default. Change one with --set KEY=VALUE (report, show, diff, export, session, the interactive view) or S in the interactive view.\n");
    out
}
