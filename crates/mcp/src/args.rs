//! Says which argument of a tool call is wrong, from the tool's input schema: serde's own message
//! names the expected type but not always the argument.

use serde_json::{Map, Value};

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Follows a local `$ref` (`#/$defs/Name`).
fn resolve<'a>(root: &'a Map<String, Value>, schema: &'a Value) -> &'a Value {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str)
        && let Some(name) = r.strip_prefix("#/$defs/")
        && let Some(def) = root.get("$defs").and_then(|d| d.get(name))
    {
        return def;
    }
    schema
}

fn short(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 60 {
        let mut cut = 57;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

/// Why `value` does not fit `schema`, if it does not.
fn mismatch(root: &Map<String, Value>, schema: &Value, value: &Value) -> Option<String> {
    let schema = resolve(root, schema);
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if options.contains(value) {
            return None;
        }
        let names: Vec<String> = options.iter().map(Value::to_string).collect();
        return Some(format!("one of {}", names.join(", ")));
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let consts: Vec<&Value> = options.iter().filter_map(|o| o.get("const")).collect();
        if !consts.is_empty() {
            if consts.contains(&value) {
                return None;
            }
            let names: Vec<String> = consts.iter().map(|v| v.to_string()).collect();
            return Some(format!("one of {}", names.join(", ")));
        }
    }
    match schema.get("type").and_then(Value::as_str)? {
        "string" => (!value.is_string()).then(|| "a string".to_string()),
        "boolean" => (!value.is_boolean()).then(|| "a boolean".to_string()),
        "integer" => {
            let minimum = schema.get("minimum").and_then(Value::as_i64);
            let ok = value
                .as_i64()
                .is_some_and(|n| minimum.is_none_or(|m| n >= m))
                || (value.is_u64() && minimum.is_none_or(|m| m <= 0));
            let max_ok = match schema.get("format").and_then(Value::as_str) {
                Some("uint32") => value.as_u64().is_none_or(|n| n <= u64::from(u32::MAX)),
                _ => true,
            };
            (!ok || !max_ok).then(|| match minimum {
                Some(0) => "a non-negative integer (up to 4294967295)".to_string(),
                Some(m) => format!("an integer >= {m}"),
                None => "an integer".to_string(),
            })
        }
        "array" => {
            let Some(items) = value.as_array() else {
                return Some("an array".to_string());
            };
            let item_schema = schema.get("items")?;
            items.iter().find_map(|item| {
                mismatch(root, item_schema, item).map(|m| format!("an array of {m}"))
            })
        }
        "object" => (!value.is_object()).then(|| "an object".to_string()),
        _ => None,
    }
}

/// A message naming the first wrong, unknown or missing argument, or `None` when the arguments
/// look right to the schema (then serde's message stands alone).
pub fn explain(schema: &Map<String, Value>, args: &Map<String, Value>) -> Option<String> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut names: Vec<&String> = args.keys().collect();
    names.sort();
    for name in names {
        let value = &args[name];
        match properties.get(name) {
            None => {
                let mut known: Vec<&str> = properties.keys().map(String::as_str).collect();
                known.sort_unstable();
                return Some(format!(
                    "unknown argument `{name}`; the arguments are: {}",
                    known.join(", ")
                ));
            }
            Some(prop) => {
                if let Some(expected) = mismatch(schema, prop, value) {
                    return Some(format!(
                        "argument `{name}` must be {expected}, got {} {}",
                        json_type(value),
                        short(value)
                    ));
                }
            }
        }
    }
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !args.contains_key(required) {
            return Some(format!("missing required argument `{required}`"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "format": "uint32", "minimum": 0, "default": 20},
                "kind": {"type": "array", "items": {"type": "string"}},
                "mode": {"$ref": "#/$defs/Mode"},
            },
            "required": ["query"],
            "additionalProperties": false,
            "$defs": {"Mode": {"type": "string", "enum": ["full", "compact"]}},
        })
        .as_object()
        .unwrap()
        .clone()
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn names_the_wrong_argument() {
        let s = schema();
        let m = explain(&s, &args(json!({"query": "x", "limit": "ten"}))).unwrap();
        assert!(m.contains("`limit`") && m.contains("integer"), "{m}");
        let m = explain(&s, &args(json!({"query": "x", "limit": -1}))).unwrap();
        assert!(m.contains("non-negative"), "{m}");
        let m = explain(&s, &args(json!({"query": "x", "mode": "tiny"}))).unwrap();
        assert!(m.contains("`mode`") && m.contains("\"compact\""), "{m}");
        let m = explain(&s, &args(json!({"query": "x", "kind": [1]}))).unwrap();
        assert!(m.contains("array of a string"), "{m}");
        let m = explain(&s, &args(json!({"query": "x", "limti": 3}))).unwrap();
        assert!(
            m.contains("unknown argument `limti`") && m.contains("limit"),
            "{m}"
        );
        let m = explain(&s, &args(json!({"limit": 3}))).unwrap();
        assert!(m.contains("missing required argument `query`"), "{m}");
        assert_eq!(explain(&s, &args(json!({"query": "x", "limit": 3}))), None);
    }
}
