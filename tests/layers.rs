//! The source tree's layers (docs/ARCHITECTURE.md): a module may use only
//! its own layer and the layers below it. This reads every file under
//! `src/` and fails on a `crate::` path (code or doc link) that reaches up.

use std::fs;
use std::path::Path;

/// Each layer and the layers it may use besides itself.
const ALLOWED: &[(&str, &[&str])] = &[
    ("chess", &[]),
    ("eval", &["chess"]),
    ("search", &["eval", "chess"]),
    ("uci", &["search", "eval", "chess"]),
    // Tools read and write the opening-book format of `uci::book`.
    ("tools", &["uci::book", "search", "eval", "chess"]),
    ("cli", &["tools", "uci", "search", "eval", "chess"]),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::<layer>...` paths in `text`, as the text after `crate::`.
fn crate_paths(text: &str) -> Vec<&str> {
    text.match_indices("crate::")
        .map(|(i, _)| {
            let rest = &text[i + 7..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[test]
fn no_layer_uses_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut checked = 0;
    let mut violations = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src/");
        let Some(layer) = rel.iter().next().and_then(|c| c.to_str()) else {
            continue;
        };
        let Some((_, allowed)) = ALLOWED.iter().find(|(l, _)| *l == layer) else {
            continue; // lib.rs and main.rs sit above every layer
        };
        checked += 1;
        let text = fs::read_to_string(file).expect("a source file is readable");
        for path in crate_paths(&text) {
            let ok = path.is_empty()
                || path == layer
                || path.starts_with(&format!("{layer}::"))
                || !ALLOWED
                    .iter()
                    .any(|(l, _)| path == *l || path.starts_with(&format!("{l}::")))
                || allowed
                    .iter()
                    .any(|a| path == *a || path.starts_with(&format!("{a}::")));
            if !ok {
                violations.push(format!("{}: crate::{path}", rel.display()));
            }
        }
    }
    assert!(checked >= 50, "only {checked} files found under src/");
    assert!(
        violations.is_empty(),
        "layers reached upward:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_checker_sees_a_path_that_reaches_up() {
    assert_eq!(
        crate_paths("use crate::search::tt::Bound; [`x`](crate::cli)"),
        vec!["search::tt::Bound", "cli"]
    );
}
