//! The reflection JSON of compiled shaders validated against `docs/reflection.schema.json`:
//! the in-repo examples always, and every corpus pixel shader lima-fp compiles when the corpus
//! is present (`$IRC_CORPUS` or `../shared/corpus`; "skipped" otherwise).
//!
//! No JSON Schema crate is used: the light ones pull in regex and URL stacks. Instead
//! [`validate`] below interprets the keywords the schema file uses (`type`, `const`, `enum`,
//! `properties`, `required`, `additionalProperties`, `items`, `minItems`, `maxItems`,
//! `maxProperties`, `minimum`, `maximum`, `minLength`, `oneOf`, `$ref` into `$defs`) and
//! fails on any other keyword, so the schema cannot grow a rule this test silently ignores.

use std::path::{Path, PathBuf};

use irc::{Compiler, Input, Options};
use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema() -> Value {
    let text = std::fs::read_to_string(workspace().join("docs/reflection.schema.json"))
        .expect("docs/reflection.schema.json");
    serde_json::from_str(&text).expect("the schema is JSON")
}

const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "oneOf",
    "$ref",
];

/// Checks `v` against schema node `s` (`root` for `$ref`s); errors name the JSON path.
fn validate(root: &Value, s: &Value, v: &Value, path: &str) -> Result<(), String> {
    let s = s
        .as_object()
        .ok_or(format!("{path}: schema node is not an object"))?;
    for k in s.keys() {
        assert!(
            KNOWN.contains(&k.as_str()),
            "schema keyword `{k}` is not checked by this test"
        );
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r
            .strip_prefix("#/$defs/")
            .ok_or(format!("unsupported $ref {r}"))?;
        validate(root, &root["$defs"][name], v, path)?;
    }
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(t) => vec![t.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("{path}: bad type keyword")),
        };
        let ok = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "number" => v.is_number(),
            "integer" => v.is_u64() || v.is_i64(),
            _ => false,
        });
        if !ok {
            return Err(format!("{path}: {v} is not of type {t}"));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            return Err(format!("{path}: {v} is not {c}"));
        }
    }
    if let Some(Value::Array(e)) = s.get("enum") {
        if !e.contains(v) {
            return Err(format!("{path}: {v} is not one of {e:?}"));
        }
    }
    if let (Some(n), Some(min)) = (v.as_f64(), s.get("minimum").and_then(Value::as_f64)) {
        if n < min {
            return Err(format!("{path}: {n} < {min}"));
        }
    }
    if let (Some(n), Some(max)) = (v.as_f64(), s.get("maximum").and_then(Value::as_f64)) {
        if n > max {
            return Err(format!("{path}: {n} > {max}"));
        }
    }
    if let (Some(t), Some(min)) = (v.as_str(), s.get("minLength").and_then(Value::as_u64)) {
        if (t.chars().count() as u64) < min {
            return Err(format!("{path}: string shorter than {min}"));
        }
    }
    if let Some(a) = v.as_array() {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
            if (a.len() as u64) < min {
                return Err(format!("{path}: fewer than {min} items"));
            }
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64) {
            if a.len() as u64 > max {
                return Err(format!("{path}: more than {max} items"));
            }
        }
        if let Some(items) = s.get("items") {
            for (i, x) in a.iter().enumerate() {
                validate(root, items, x, &format!("{path}[{i}]"))?;
            }
        }
    }
    if let Some(o) = v.as_object() {
        if let Some(max) = s.get("maxProperties").and_then(Value::as_u64) {
            if o.len() as u64 > max {
                return Err(format!("{path}: more than {max} properties"));
            }
        }
        if let Some(Value::Array(req)) = s.get("required") {
            for r in req.iter().filter_map(Value::as_str) {
                if !o.contains_key(r) {
                    return Err(format!("{path}: missing `{r}`"));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, x) in o {
            let sub = format!("{path}.{k}");
            match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                (Some(ps), _) => validate(root, ps, x, &sub)?,
                (None, Some(Value::Bool(false))) => {
                    return Err(format!("{path}: unexpected property `{k}`"))
                }
                (None, Some(extra @ Value::Object(_))) => validate(root, extra, x, &sub)?,
                (None, _) => {}
            }
        }
    }
    if let Some(Value::Array(alts)) = s.get("oneOf") {
        let passing = alts
            .iter()
            .filter(|a| validate(root, a, v, path).is_ok())
            .count();
        if passing != 1 {
            return Err(format!(
                "{path}: {v} matches {passing} of the oneOf alternatives"
            ));
        }
    }
    Ok(())
}

fn check(schema: &Value, compiler: &Compiler, output: &irc::Output, name: &str) {
    let json = compiler.reflection_json(output);
    if let Err(e) = validate(schema, schema, &json, "$") {
        panic!("{name}: reflection does not match the schema: {e}\n{json:#}");
    }
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let s = schema();
    let mut compiler = Compiler::new("lima-fp", Options::default()).unwrap();
    let src =
        std::fs::read_to_string(workspace().join("testsuite/examples/textured_fog.ir")).unwrap();
    let out = compiler.compile(Input::Text(&src)).unwrap();
    let good = compiler.reflection_json(&out);
    assert_eq!(validate(&s, &s, &good, "$"), Ok(()));
    let mut bad = good.clone();
    bad["schema_version"] = 2.into();
    assert!(validate(&s, &s, &bad, "$").is_err());
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("stats");
    assert!(validate(&s, &s, &bad, "$").is_err());
    let mut bad = good.clone();
    bad["samplers"] = serde_json::json!([{"index": 0, "texture": {"space": 0, "register": 0},
        "sampler": null, "kind": "1d"}]);
    assert!(validate(&s, &s, &bad, "$").is_err());
    let mut bad = good;
    bad["inputs"] = serde_json::json!([{"source": {"location": 0}, "slot": 0, "lane": 0,
        "components": 4}]);
    assert!(validate(&s, &s, &bad, "$").is_err());
}

#[test]
fn in_repo_examples_match_the_schema() {
    let s = schema();
    let dir = workspace().join("testsuite/examples");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let input = match path.extension().and_then(|e| e.to_str()) {
            Some("ir") => Input::Text(std::str::from_utf8(&bytes).unwrap()),
            Some("dxir") => Input::Binary(&bytes),
            _ => continue,
        };
        // Every registered target that compiles the example's stage.
        let stage = irc::shader_stage(input_again(&input)).unwrap();
        for target in irc::targets()
            .iter()
            .filter(|t| t.stages().contains(&stage))
        {
            for level in ["0", "2"] {
                let mut options = Options::default();
                options.set("opt-level", level).unwrap();
                let mut compiler = Compiler::new(target.name(), options).unwrap();
                let out = compiler
                    .compile(input_again(&input))
                    .unwrap_or_else(|d| panic!("{} ({}): {d}", path.display(), target.name()));
                check(&s, &compiler, &out, &path.display().to_string());
                n += 1;
            }
        }
    }
    assert!(n >= 2, "no examples found in {}", dir.display());
}

fn input_again<'a>(i: &Input<'a>) -> Input<'a> {
    match i {
        Input::Binary(b) => Input::Binary(b),
        Input::Text(t) => Input::Text(t),
        Input::Module(m) => Input::Module(m.clone()),
    }
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("IRC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    dir.join("ir").is_dir().then_some(dir)
}

#[test]
fn corpus_pixel_shaders_match_the_schema() {
    let Some(dir) = corpus_dir() else {
        println!("corpus not found, skipped");
        return;
    };
    let s = schema();
    let mut compiler = Compiler::new("lima-fp", Options::default()).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("ir"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".raw.dxir"))
        .collect();
    files.sort();
    let (mut compiled, mut pixel) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let Ok(m) = irc_ir::binary::read(&bytes) else {
            continue;
        };
        let is_pixel = m.declarations().any(|d| {
            m.opcode(d) == irc_ir::OpCode::EntryPoint
                && m.op(d).operands.last().and_then(|o| o.as_lit())
                    == Some(u64::from(irc_ir::ShaderStage::Pixel.0))
        });
        if !is_pixel {
            continue;
        }
        pixel += 1;
        if let Ok(out) = compiler.compile(Input::Module(m)) {
            check(&s, &compiler, &out, &path.display().to_string());
            compiled += 1;
        }
    }
    println!("{compiled} of {pixel} corpus pixel shaders compiled; every reflection matches");
    assert!(compiled > 0);
}
