//! A driver for the real binary over pipes, for the process-level tests
//! (`tests/uci.rs`, `tests/syzygy.rs`). Timeouts are generous: the tests
//! check behaviour, not speed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

pub const WAIT: Duration = Duration::from_secs(20);

pub struct Engine {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with(&[])
    }

    /// Starts the engine with these environment variables set.
    pub fn start_with(env: &[(&str, &str)]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ferrum"));
        // A tester's own FERRUM_TUNE must not change what the tests see.
        command.env_remove("FERRUM_TUNE").envs(env.iter().copied());
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ferrum");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines: rx,
        }
    }

    pub fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Reads lines until one starts with `prefix`; returns all lines read.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    seen.push(l);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("waiting for '{prefix}': {e:?}; got {seen:?}"),
            }
        }
    }

    /// Lines that arrive within `d` (none expected to end the wait).
    pub fn collect_for(&mut self, d: Duration) -> Vec<String> {
        let deadline = Instant::now() + d;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => seen.push(l),
                Err(RecvTimeoutError::Timeout) => return seen,
                Err(RecvTimeoutError::Disconnected) => return seen,
            }
        }
    }

    /// Sends `isready` and returns everything up to `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.until("readyok")
    }

    /// The FEN line of `d`.
    pub fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.until("Fen: ");
        lines.last().unwrap()["Fen: ".len()..].to_string()
    }

    /// The bestmove line's move, checked legal in `fen`.
    pub fn bestmove_legal(&mut self, fen: &str, mode: CastlingMode) -> (String, Vec<String>) {
        let lines = self.until("bestmove");
        let last = lines.last().unwrap().clone();
        let mv = last.split_whitespace().nth(1).unwrap().to_string();
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
        let uci: UciMove = mv.parse().unwrap();
        let m = uci
            .to_move(&pos)
            .unwrap_or_else(|_| panic!("illegal {mv} in {fen}"));
        assert!(pos.is_legal(m));
        if let Some(p) = last.split_whitespace().nth(3) {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let pm: UciMove = p.parse().unwrap();
            assert!(pm.to_move(&after).is_ok(), "illegal ponder move {p}");
        }
        (mv, lines)
    }

    pub fn assert_error(&mut self, command: &str) -> String {
        self.send(command);
        let lines = self.sync();
        let err = lines
            .iter()
            .find(|l| l.starts_with("info string error"))
            .unwrap_or_else(|| panic!("no error for {command:?}: {lines:?}"));
        err.clone()
    }

    pub fn quit(mut self) {
        self.send("quit");
        self.wait_exit();
    }

    pub fn wait_exit(&mut self) {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(Instant::now() < deadline, "engine did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
