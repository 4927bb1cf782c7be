//! `ferrum analyse`: judgements on a game with a known blunder, the PGN
//! tree kept through reading and writing, and broken games skipped.

use std::path::PathBuf;
use std::process::Command;

use ferrum::tools::pgn::{read_games, write_game};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrum-analyse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Black leaves the queen en prise at move 2 (2... Qg5, taken by the knight).
const BLUNDER: &str = r#"[Event "Blunder test"]
[White "W"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 Qg5 3. Nxg5 Nc6 4. Nf3 Nf6 5. Nc3 Bc5 6. d3 O-O 1-0
"#;

fn analyse(pgn: &str, name: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
    let input = temp(&format!("{name}.pgn"));
    std::fs::write(&input, pgn).unwrap();
    let out = temp(&format!("{name}-out.pgn"));
    let output = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .arg("analyse")
        .arg(&input)
        .args(["--nodes", "30000", "--out"])
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    (output, out)
}

#[test]
fn a_hung_queen_is_a_blunder_with_a_better_line() {
    let (output, out) = analyse(BLUNDER, "blunder", &["--json"]);
    assert!(output.status.success(), "{output:?}");
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let moves = doc["games"][0]["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 12);
    // Ply 4 is 2... Qg5: a blunder, with a line that does not play it.
    let qg5 = &moves[3];
    assert_eq!(qg5["san"], "Qg5");
    assert_eq!(qg5["judgement"], "Blunder");
    let better = qg5["better"].as_array().unwrap();
    assert!(!better.is_empty() && better[0] != "Qg5", "{better:?}");
    assert_eq!(doc["games"][0]["black"]["blunders"], 1);
    // From the blunder on, White stays at least five pawns up.
    for m in &moves[3..] {
        let cp = m["eval"]["Cp"].as_i64().unwrap_or(10_000);
        assert!(cp >= 500, "{} gives {}", m["san"], m["eval"]);
    }
    // The annotated PGN: `$4` and the better line as a variation after 2... Qg5.
    let text = std::fs::read_to_string(&out).unwrap();
    let games = read_games(text.as_bytes()).unwrap();
    let game = games[0].as_ref().unwrap();
    let node = &game.mainline.nodes[3];
    assert!(node.nags.contains(&4), "{text}");
    assert_eq!(node.variations.len(), 1, "{text}");
    assert!(node.comments[0].starts_with("[%eval "), "{text}");
    // No other move of White's or the knight capture is called a blunder.
    assert!(!game.mainline.nodes[4].nags.contains(&4));
}

#[test]
fn comments_nags_and_variations_survive_a_round_trip() {
    let pgn = r#"[Event "Tree"]
[White "A"]
[Black "B"]
[Result "*"]

{Start} 1. e4 {King's pawn} $1 e5 (1... c5 {Sicilian} 2. Nf3 (2. c3 d5) 2... d6) 2. Nf3 Nc6 $6 *
"#;
    let games = read_games(pgn.as_bytes()).unwrap();
    let game = games[0].as_ref().unwrap();
    let written = write_game(game);
    let again = read_games(written.as_bytes()).unwrap();
    let back = again[0].as_ref().unwrap();
    assert_eq!(write_game(back), written);
    assert_eq!(back.mainline.comments, vec!["Start"]);
    let e4 = &back.mainline.nodes[0];
    assert_eq!(e4.comments, vec!["King's pawn"]);
    assert_eq!(e4.nags, vec![1]);
    let e5 = &back.mainline.nodes[1];
    assert_eq!(e5.variations.len(), 1);
    let sicilian = &e5.variations[0];
    assert_eq!(sicilian.nodes.len(), 3);
    assert_eq!(sicilian.nodes[0].comments, vec!["Sicilian"]);
    assert_eq!(sicilian.nodes[1].variations[0].nodes.len(), 2);
    assert_eq!(back.mainline.nodes[3].nags, vec![6]);
    assert_eq!(back.tag("White"), Some("A"));
}

#[test]
fn a_broken_game_is_reported_and_skipped() {
    let pgn = format!(
        "{BLUNDER}\n[Event \"Broken\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
         [Event \"Fool\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"
    );
    let graphs = temp("graphs");
    let (output, out) = analyse(&pgn, "broken", &["--graph", graphs.to_str().unwrap()]);
    // Exit code 3: something was skipped; the other games were analysed.
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("game 2: skipped: illegal move Ke3"),
        "{stderr}"
    );
    assert!(
        stderr.contains("2 of 3 games analysed, 1 skipped"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let games = read_games(text.as_bytes()).unwrap();
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.is_ok()));
    // The mating move gets no eval (the game is over), the move before it `#-1`.
    let fool = games[1].as_ref().unwrap();
    assert!(
        fool.mainline.nodes[2].comments[0].contains("[%eval #-1]"),
        "{text}"
    );
    assert!(fool.mainline.nodes[3].comments.is_empty(), "{text}");
    assert!(graphs.join("game-1.svg").exists());
    assert!(!graphs.join("game-2.svg").exists());
    assert!(graphs.join("game-3.svg").exists());
}
