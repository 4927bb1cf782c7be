//! `ferrum book build` and `ferrum book show`: Polyglot opening books.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use shakmaty::Chess;

use crate::chess::fen::parse_fen;

#[derive(Subcommand, Debug)]
pub(super) enum BookCommand {
    /// Build a Polyglot .bin book from the main lines of PGN games, as Polyglot's make-book
    /// does: weight 2 per win and 1 per draw of the side that played the move.
    Build {
        /// PGN file(s) of games (unfinished games, result `*`, are left out).
        #[arg(required = true)]
        pgn: Vec<PathBuf>,
        /// Where to write the book.
        #[arg(long)]
        out: PathBuf,
        /// Plies of each game to take.
        #[arg(long, default_value_t = 40)]
        max_ply: usize,
        /// Leave out moves played in fewer games than this.
        #[arg(long, default_value_t = 3)]
        min_games: u32,
    },
    /// List a position's book moves with their weights.
    Show {
        /// The book file.
        book: PathBuf,
        /// Position in FEN; the start position if absent.
        #[arg(long)]
        fen: Option<String>,
    },
}

/// `ferrum book build` and `ferrum book show`.
pub(super) fn run(command: BookCommand) -> ExitCode {
    let fail = |e: String| {
        eprintln!("ferrum book: {e}");
        ExitCode::from(1)
    };
    match command {
        BookCommand::Build {
            pgn,
            out,
            max_ply,
            min_games,
        } => {
            let mut games = Vec::new();
            let mut skipped = 0;
            for path in &pgn {
                let read = std::fs::File::open(path)
                    .and_then(|f| crate::tools::pgn::read_games(std::io::BufReader::new(f)));
                match read {
                    Ok(list) => {
                        for (i, g) in list.into_iter().enumerate() {
                            match g {
                                Ok(g) => games.push(g),
                                Err(e) => {
                                    eprintln!("{} game {}: skipped: {e}", path.display(), i + 1);
                                    skipped += 1;
                                }
                            }
                        }
                    }
                    Err(e) => return fail(format!("{}: {e}", path.display())),
                }
            }
            let book = crate::tools::book_build::build(&games, max_ply, min_games);
            if let Err(e) = std::fs::write(&out, book.to_bytes()) {
                return fail(format!("{}: {e}", out.display()));
            }
            eprintln!(
                "{} games ({skipped} skipped), {} entries written to {}",
                games.len(),
                book.len(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        BookCommand::Show { book, fen } => {
            let pos = match fen {
                None => Chess::default(),
                Some(f) => match parse_fen(&f, false) {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("ferrum book: {e}");
                        return ExitCode::from(2);
                    }
                },
            };
            match crate::uci::book::Book::load(&book) {
                Ok(b) => {
                    print!("{}", crate::uci::book::describe(&b, &pos));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            }
        }
    }
}
