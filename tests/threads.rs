//! The search thread pool and the table's parallel clear, through the library.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;

use ferrum::search::threads::ThreadPool;
use ferrum::search::tt::{Bound, TranspositionTable};
use shakmaty::{Bitboard, Chess, Color, Position};

#[test]
fn pool_threads_run_jobs_and_keep_their_data() {
    let pool = ThreadPool::new(4).unwrap();
    assert_eq!(pool.len(), 4);
    let m = Chess::default().legal_moves()[0];
    // Each thread learns something different...
    for i in 0..4 {
        pool.run(i, move |data| {
            data.history
                .update_quiet(Color::White, m, Bitboard::EMPTY, 100 * (i as i32 + 1))
        });
    }
    pool.wait_all();
    // ...and still knows it at its next job.
    let (tx, rx) = channel();
    for i in 0..4 {
        let tx = tx.clone();
        pool.run(i, move |data| {
            tx.send((i, data.history.quiet(Color::White, m, Bitboard::EMPTY)))
                .unwrap()
        });
    }
    pool.wait_all();
    let mut seen: Vec<(usize, i32)> = rx.try_iter().collect();
    seen.sort();
    assert_eq!(seen.len(), 4);
    for (i, h) in seen {
        assert!(h > 0, "thread {i} forgot its history");
        assert_eq!(h, ferrum_history_after(100 * (i as i32 + 1)));
    }
    // `clear` (ucinewgame) forgets it everywhere.
    pool.clear();
    let sum = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&sum);
    pool.broadcast(move |_, _, data| {
        s.fetch_add(
            data.history
                .quiet(Color::White, m, Bitboard::EMPTY)
                .unsigned_abs() as usize,
            Ordering::Relaxed,
        );
    });
    assert_eq!(sum.load(Ordering::Relaxed), 0);
}

/// A fresh history's value after one update of `delta`.
fn ferrum_history_after(delta: i32) -> i32 {
    let mut h = ferrum::search::history::History::default();
    let m = Chess::default().legal_moves()[0];
    h.update_quiet(Color::White, m, Bitboard::EMPTY, delta);
    h.quiet(Color::White, m, Bitboard::EMPTY)
}

#[test]
fn broadcast_gives_every_thread_its_index() {
    let pool = ThreadPool::new(8).unwrap();
    let mask = Arc::new(AtomicUsize::new(0));
    let m = Arc::clone(&mask);
    pool.broadcast(move |i, n, _| {
        assert_eq!(n, 8);
        m.fetch_or(1 << i, Ordering::Relaxed);
    });
    assert_eq!(mask.load(Ordering::Relaxed), 0xff);
}

#[test]
fn a_panicking_job_does_not_block_the_pool() {
    let pool = ThreadPool::new(2).unwrap();
    pool.run(1, |_| panic!("job panics on purpose"));
    pool.wait(1);
    let (tx, rx) = channel();
    pool.run(1, move |_| tx.send(7).unwrap());
    pool.wait(1);
    assert_eq!(rx.recv().unwrap(), 7);
}

#[test]
fn parallel_clear_empties_every_part_of_the_table() {
    let tt = TranspositionTable::new(2);
    let keys: Vec<u64> = (1..5000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    for &k in &keys {
        tt.store(k, 0, 10, 5, 3, Bound::Exact);
    }
    let found = keys.iter().filter(|&&k| tt.probe(k).is_some()).count();
    assert!(found > 4000, "only {found} of {} stored", keys.len());
    for parts in [1, 3, 7] {
        for &k in &keys {
            tt.store(k, 0, 10, 5, 3, Bound::Exact);
        }
        for i in 0..parts {
            tt.clear_part(i, parts);
        }
        tt.cleared();
        assert_eq!(keys.iter().filter(|&&k| tt.probe(k).is_some()).count(), 0);
        assert_eq!(tt.hashfull(), 0);
    }
    // A table cleared and stored into again is cleared again.
    tt.store(keys[0], 0, 10, 5, 3, Bound::Exact);
    tt.clear();
    assert!(tt.probe(keys[0]).is_none());
}

#[test]
fn a_large_table_is_mapped_at_once_and_starts_empty() {
    // A gigabyte of address space: lazily backed, so this costs no memory.
    let tt = TranspositionTable::try_new(1024).expect("map 1 GB");
    assert_eq!(tt.size_mb(), 1024);
    assert_eq!(tt.hashfull(), 0);
    assert!(tt.probe(0x1234_5678_9abc_def0).is_none());
}

/// A finished thread's result: best move `m` at `depth` with `score`.
fn thread_result(m: shakmaty::Move, score: i32, depth: i32) -> ferrum::search::SearchResult {
    ferrum::search::SearchResult {
        best: Some(m),
        score,
        depth,
        pv: vec![m],
        ..Default::default()
    }
}

#[test]
fn the_threads_vote_for_the_move_played() {
    use ferrum::chess::score::{MATE, mate_in, mated_in};
    use ferrum::search::best_thread;
    let moves = Chess::default().legal_moves();
    let (a, b) = (moves[0], moves[1]);

    // Alone, or all agreeing, the main thread's result stands.
    assert_eq!(best_thread(&[thread_result(a, 30, 12)]), 0);
    assert_eq!(
        best_thread(&[thread_result(a, 30, 12), thread_result(a, 40, 12)]),
        0
    );
    // A helper as deep and better on its move outvotes the main thread:
    // (40 − 30 + 14) × 12 against (30 − 30 + 14) × 12.
    assert_eq!(
        best_thread(&[thread_result(a, 30, 12), thread_result(b, 40, 12)]),
        1
    );
    // Depth weighs: a slightly better score two plies shallower does not.
    assert_eq!(
        best_thread(&[thread_result(a, 30, 14), thread_result(b, 32, 12)]),
        0
    );
    // Two threads for one move outvote one thread for another.
    assert_eq!(
        best_thread(&[
            thread_result(a, 30, 12),
            thread_result(b, 34, 12),
            thread_result(a, 30, 12),
        ]),
        0
    );
    // A mate found by a helper is played; the shortest mate wins.
    assert_eq!(
        best_thread(&[thread_result(a, 300, 20), thread_result(b, mate_in(7), 15)]),
        1
    );
    assert_eq!(
        best_thread(&[
            thread_result(a, mate_in(9), 20),
            thread_result(b, mate_in(5), 15),
            thread_result(a, mate_in(7), 22),
        ]),
        1
    );
    assert!(mate_in(5) > mate_in(7) && mate_in(5) < MATE);
    // A thread that sees itself mated does not displace one that does not;
    // one that is mated later does displace one mated sooner.
    assert_eq!(
        best_thread(&[thread_result(a, -50, 12), thread_result(b, mated_in(8), 30)]),
        0
    );
    assert_eq!(
        best_thread(&[
            thread_result(a, mated_in(4), 12),
            thread_result(b, mated_in(8), 12)
        ]),
        1
    );
    // A helper with nothing finished (no move, depth 0) is ignored.
    let empty = ferrum::search::SearchResult::default();
    assert_eq!(best_thread(&[thread_result(a, 30, 12), empty]), 0);
}
