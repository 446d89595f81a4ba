//! Parsing JSON within a memory budget derived from its size.
//!
//! The byte limits bound what is read, not what it becomes: `[{},{},…]` is 3 bytes a value in
//! the file and some 100 bytes a value parsed (docs/ROBUSTNESS.md, "Limits", has a measured case).
//! [`parse_slice`] builds the same [`Value`] as `serde_json::from_slice`, estimating the memory
//! each value takes as it goes (the `Value` itself, a map entry's key and slot, a string's
//! bytes), and stops with one line as soon as the estimate passes
//! [`BUDGET_FLOOR`] + [`BUDGET_PER_BYTE`] × the input's bytes.

use std::cell::Cell;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::BUDGET_ERROR;

/// Estimated bytes of memory a parsed value may take per byte of its JSON text. Real captures
/// and traces take 3–12 (tool schemas are many small objects); a list of empty objects or of
/// one-digit numbers takes 25–40.
pub const BUDGET_PER_BYTE: u64 = 16;

/// Memory any input may take parsed, whatever its size: small inputs are never refused.
pub const BUDGET_FLOOR: u64 = 64 * 1024 * 1024;

/// The key under which serde_json's `arbitrary_precision` passes a number's text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// What one value costs besides its own bytes: the slot it sits in.
const VALUE_COST: u64 = std::mem::size_of::<Value>() as u64;

/// What one map entry costs besides its key's bytes and value: the key's `String`, the hash
/// and the index table's slot, and the entries' slack (they double as they grow: up to one
/// more entry and value slot each).
const ENTRY_COST: u64 = 2 * (std::mem::size_of::<String>() as u64 + 16) + VALUE_COST;

/// Parse `bytes` as one JSON value (trailing white space allowed, as `serde_json::from_slice`),
/// refusing when the parsed form would take more than the budget for `bytes.len()`.
pub fn parse_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    parse_within(bytes, budget_for(bytes.len() as u64))
}

/// [`parse_slice`] with an explicit budget in bytes.
fn parse_within(bytes: &[u8], budget: u64) -> Result<Value, serde_json::Error> {
    let parse = || {
        let limit = move || budget;
        let budget = Budget::new(&limit);
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let value = Seed(&budget).deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(value)
    };
    // Every number keeps the text it was written with (`1E2` stays `1E2`): the text's number
    // tokens are read beside the parse when the text is large enough to be worth a thread.
    let (parsed, respelled) = if bytes.len() >= SCAN_BESIDE {
        rayon::join(parse, || crate::capture::respelled_numbers(bytes))
    } else {
        (parse(), crate::capture::respelled_numbers(bytes))
    };
    let mut value = parsed?;
    if let Some(tokens) = respelled {
        crate::capture::restore_exponents(tokens, &mut value);
    }
    Ok(value)
}

/// Texts at least this long have their numbers scanned on another thread while they parse.
const SCAN_BESIDE: usize = 256 * 1024;

/// Parse one JSON value from a stream, within the budget of the bytes `read` says were read so
/// far (the budget grows as the text does).
pub(crate) fn parse_reader<R: std::io::Read>(
    reader: R,
    read: &dyn Fn() -> u64,
) -> Result<Value, serde_json::Error> {
    let limit = || budget_for(read());
    let budget = Budget::new(&limit);
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let value = Seed(&budget).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Parse a YAML document into a JSON value within the budget of its size, as JSON is: aliases
/// are charged for what they expand to (the parser replays the anchored node at each alias,
/// so a 1 MB anchor used a thousand times is a gigabyte unless refused on the way), tags are
/// dropped with their values kept, and a mapping key that is not a string is written as its
/// JSON text.
///
/// `spent`: memory already charged (the parser's own events, estimated by the caller).
pub(crate) fn parse_yaml(text: &[u8], spent: u64) -> Result<Value, serde_norway::Error> {
    let bytes = text.len() as u64;
    let limit = move || budget_for(bytes);
    let budget = Budget::new(&limit);
    budget.spent.set(spent);
    if spent > limit() {
        return Err(serde::de::Error::custom(format_args!(
            "{BUDGET_ERROR}: parsed, it would take more than {BUDGET_PER_BYTE} times its size \
             in memory (plus {} MiB)",
            BUDGET_FLOOR >> 20
        )));
    }
    let deserializer = serde_norway::Deserializer::from_slice(text);
    YamlSeed(Seed(&budget)).deserialize(deserializer)
}

/// Memory spent so far, and the limit it may reach.
struct Budget<'a> {
    spent: Cell<u64>,
    limit: &'a dyn Fn() -> u64,
}

impl<'a> Budget<'a> {
    fn new(limit: &'a dyn Fn() -> u64) -> Budget<'a> {
        Budget {
            spent: Cell::new(0),
            limit,
        }
    }
}

/// [`parse_slice`] for text.
pub fn parse_str(text: &str) -> Result<Value, serde_json::Error> {
    parse_slice(text.as_bytes())
}

/// The memory budget of an input of `bytes` bytes.
pub fn budget_for(bytes: u64) -> u64 {
    BUDGET_FLOOR.saturating_add(bytes.saturating_mul(BUDGET_PER_BYTE))
}

#[derive(Clone, Copy)]
struct Seed<'a>(&'a Budget<'a>);

impl Seed<'_> {
    fn charge<E: serde::de::Error>(self, cost: u64) -> Result<(), E> {
        let spent = self.0.spent.get().saturating_add(cost);
        self.0.spent.set(spent);
        if spent <= (self.0.limit)() {
            Ok(())
        } else {
            Err(E::custom(format_args!(
                "{BUDGET_ERROR}: parsed, it would take more than {BUDGET_PER_BYTE} times its \
                 size in memory (plus {} MiB)",
                BUDGET_FLOOR >> 20
            )))
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST)?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST)?;
        Ok(Value::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST)?;
        Ok(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST)?;
        Ok(Value::from(v))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST + v.len() as u64)?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST + v.len() as u64)?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.charge::<E>(VALUE_COST)?;
        Ok(Value::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.charge::<A::Error>(VALUE_COST)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            // The list's slack: it doubles as it grows, so up to one more slot an item.
            self.charge::<A::Error>(VALUE_COST)?;
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        self.charge::<A::Error>(VALUE_COST)?;
        let mut map = Map::new();
        let Some(first) = access.next_key::<String>()? else {
            return Ok(Value::Object(map));
        };
        // serde_json's `arbitrary_precision` hands a number over as a one-entry map under this
        // key, its text as the value: the number keeps the text it was written with.
        if first == NUMBER_TOKEN {
            let digits: String = access.next_value()?;
            // Its text on the heap: an allocation of at least 16 bytes.
            self.charge::<A::Error>(digits.len().max(16) as u64)?;
            let number: serde_json::Number = digits.parse().map_err(serde::de::Error::custom)?;
            return Ok(Value::Number(number));
        }
        self.charge::<A::Error>(ENTRY_COST + first.len() as u64)?;
        let value = access.next_value_seed(self)?;
        map.insert(first, value);
        while let Some(key) = access.next_key::<String>()? {
            self.charge::<A::Error>(ENTRY_COST + key.len() as u64)?;
            let value = access.next_value_seed(self)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// The key a YAML value tagged `!binary` (Ruby's Psych: base64 of the bytes) is kept under, so
/// its reader decodes it. A NUL starts it, so no recorded mapping key can be mistaken for it.
pub(crate) const BASE64_KEY: &str = "\u{0}base64";

/// [`Seed`] for YAML: any key, any tag.
#[derive(Clone, Copy)]
struct YamlSeed<'a>(Seed<'a>);

impl<'de> DeserializeSeed<'de> for YamlSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for YamlSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.0.visit_bool(v)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.0.visit_i64(v)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.0.visit_u64(v)
    }

    // Past 64 bits YAML's integers are kept as the nearest float, as before.
    #[allow(
        clippy::cast_precision_loss,
        reason = "the nearest float is the intent"
    )]
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<Value, E> {
        self.0.visit_f64(v as f64)
    }

    #[allow(
        clippy::cast_precision_loss,
        reason = "the nearest float is the intent"
    )]
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Value, E> {
        self.0.visit_f64(v as f64)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.0.visit_f64(v)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.0.visit_str(v)
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.0.visit_string(v)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.0.visit_unit()
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.0.charge::<A::Error>(VALUE_COST)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            self.0.charge::<A::Error>(VALUE_COST)?;
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        self.0.charge::<A::Error>(VALUE_COST)?;
        let mut map = Map::new();
        while let Some(key) = access.next_key_seed(self)? {
            let key = match key {
                Value::String(key) => key,
                other => other.to_string(),
            };
            self.0.charge::<A::Error>(ENTRY_COST + key.len() as u64)?;
            let value = access.next_value_seed(self)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        use serde::de::VariantAccess;
        // A tag (`!Custom value`): the value, the tag dropped; but Psych's `!binary` (Ruby's
        // base64 of bytes) is kept as a mark, so it is decoded whatever its text looks like.
        let (tag, variant) = data.variant::<String>()?;
        let value = variant.newtype_variant_seed(self)?;
        if tag.trim_start_matches('!') == "binary"
            && let Value::String(text) = value
        {
            let mut mark = Map::new();
            mark.insert(BASE64_KEY.to_owned(), Value::String(text));
            return Ok(Value::Object(mark));
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::is_budget_error;

    #[test]
    fn parses_as_serde_json_does() {
        for text in [
            r#"{"b":1,"a":[true,null,-2,3.5,"x\u00e9"],"b":{"c":{}}}"#,
            "[]",
            " 7 ",
            r#""\ud83e\udd80""#,
        ] {
            let ours = parse_str(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(
                serde_json::to_string(&ours).unwrap(),
                serde_json::to_string(&theirs).unwrap()
            );
        }
        assert!(parse_str("[1,]").is_err());
        assert!(parse_str("{} x").is_err());
    }

    #[test]
    fn a_list_of_empty_objects_past_the_budget_is_refused() {
        let count = 100_000;
        let text = format!("[{}{{}}]", "{},".repeat(count - 1));
        let bytes = text.len() as u64;
        // `{},` is 3 bytes that take a whole `Value`: more than 16 per byte.
        const { assert!(VALUE_COST > 3 * BUDGET_PER_BYTE) };
        let err = parse_within(text.as_bytes(), bytes * BUDGET_PER_BYTE).unwrap_err();
        assert!(is_budget_error(&err), "{err}");
        assert!(
            crate::error::json_error(&err)
                .to_string()
                .starts_with("too many values for its size: "),
            "{err}"
        );
        // Ordinary text of the same size is within the same budget.
        let words = format!(
            "[{}\"x\"]",
            "\"a description of a tool\",".repeat(count / 8)
        );
        parse_within(words.as_bytes(), words.len() as u64 * BUDGET_PER_BYTE).unwrap();
    }
}
