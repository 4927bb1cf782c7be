//! The network evaluation: incremental accumulators against a full refresh,
//! the quantised engine net against the trainer's floats, the trainer
//! learning a known target, and the net file's validation.

use bulletformat::ChessBoard;
use ferrum::eval::nnue::{
    Accumulator, AccumulatorStack, MATERIAL_SCALE_BASE, Network, START_MATERIAL, default_net,
    mirror_features, network, record_features, scale_by_material,
};
use ferrum::tools::datagen::{Sample, to_record};
use ferrum::tools::train::{self, FloatNet, TrainConfig};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role};
use std::sync::Arc;

/// A net with every weight random (and non-zero biases), quantised.
fn random_net(seed: u64, mirror: bool) -> Network {
    random_float_net(seed, mirror, 1).quantise()
}

/// A random float net with `king_buckets` input sets (1, 4 or 8); with
/// more than one, each set is drawn on its own (so that using the wrong set
/// shows).
fn random_float_net(seed: u64, mirror: bool, king_buckets: usize) -> FloatNet {
    let mut f = FloatNet::random(seed);
    f.mirror = mirror;
    if king_buckets > 1 {
        f = match king_buckets {
            4 => f.with_king_buckets(),
            _ => f.with_fine_king_buckets(),
        };
        assert_eq!(f.king_buckets, king_buckets);
        let mut rng = StdRng::seed_from_u64(seed + 3);
        let a = 1.0 / (768f32).sqrt();
        f.ft_w.iter_mut().for_each(|w| *w = rng.random_range(-a..a));
    }
    let mut rng = StdRng::seed_from_u64(seed + 1);
    f.ft_b
        .iter_mut()
        .for_each(|b| *b = rng.random_range(-0.3..0.3));
    f.out_b = vec![0.1];
    f
}

/// A random net with output buckets, each layer drawn on its own (so that
/// using the wrong bucket shows).
fn random_bucketed_net(seed: u64) -> FloatNet {
    let mut f = FloatNet::random(seed).with_output_buckets();
    let mut rng = StdRng::seed_from_u64(seed + 7);
    f.out_w
        .iter_mut()
        .for_each(|w| *w = rng.random_range(-0.06..0.06));
    f.out_b
        .iter_mut()
        .for_each(|b| *b = rng.random_range(-0.3..0.3));
    f
}

/// What kinds of move the random games went through.
#[derive(Default, Debug)]
struct Seen {
    captures: usize,
    promotions: usize,
    en_passant: usize,
    castle_short: usize,
    castle_long: usize,
    chess960_castles: usize,
}

/// Plays random games from `start`, checking after every move that the
/// incremental accumulator equals a refresh (also when the slot it is
/// written to held a sibling's), and after unwinding that every popped state
/// equals the one recorded on the way down.
fn check_games(net: &Arc<Network>, start: &Chess, games: usize, seed: u64, seen: &mut Seen) {
    let mut rng = StdRng::seed_from_u64(seed);
    let chess960 = start.castles().mode() == CastlingMode::Chess960;
    for _ in 0..games {
        let mut pos = start.clone();
        let mut stack = AccumulatorStack::new(Arc::clone(net), pos.board());
        let mut line: Vec<Accumulator> = vec![*stack.current()];
        for _ in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer the special moves so that they are common enough.
            let special: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion())
                .collect();
            let m = if !special.is_empty() && rng.random_range(0..2) == 0 {
                special[rng.random_range(0..special.len())]
            } else {
                moves[rng.random_range(0..moves.len())]
            };
            match m {
                Move::Castle { king, rook } => {
                    if rook > king {
                        seen.castle_short += 1;
                    } else {
                        seen.castle_long += 1;
                    }
                    if chess960 {
                        seen.chess960_castles += 1;
                    }
                }
                Move::EnPassant { .. } => seen.en_passant += 1,
                _ => {}
            }
            seen.captures += usize::from(m.is_capture());
            seen.promotions += usize::from(m.is_promotion());
            // A sibling searched first leaves its sums in the slot `m` then reuses.
            let sibling = moves[rng.random_range(0..moves.len())];
            stack.push(&pos, sibling);
            stack.pop();
            assert_eq!(stack.current(), line.last().unwrap());
            stack.push(&pos, m);
            pos.play_unchecked(m);
            let fresh = Accumulator::refresh(net, pos.board());
            assert_eq!(
                *stack.current(),
                fresh,
                "after {m:?}: {}",
                Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
            );
            line.push(fresh);
        }
        while line.len() > 1 {
            line.pop();
            stack.pop();
            assert_eq!(*stack.current(), *line.last().unwrap());
        }
    }
}

#[test]
fn incremental_accumulators_equal_a_refresh() {
    for mirror in [false, true] {
        incremental_for(mirror, 1);
    }
}

#[test]
fn incremental_accumulators_equal_a_refresh_with_king_buckets() {
    // King moves across bucket borders (and the d/e line) refresh one
    // perspective; every other move updates it.
    for mirror in [false, true] {
        incremental_for(mirror, 4);
    }
}

#[test]
fn incremental_accumulators_equal_a_refresh_with_fine_king_buckets() {
    // Castling and king walks cross the wing borders of the first ranks
    // too (a–c | d–e | f–h, a–d | e–h).
    for mirror in [false, true] {
        incremental_for(mirror, 8);
    }
}

fn incremental_for(mirror: bool, king_buckets: usize) {
    let net = Arc::new(random_float_net(11, mirror, king_buckets).quantise());
    assert_eq!(net.king_buckets, king_buckets);
    let mut seen = Seen::default();
    check_games(&net, &Chess::default(), 60, 1, &mut seen);
    // Chess960 starts, including ones where the king or rook stays put or
    // they swap squares when castling.
    for (i, sp) in [0u32, 518, 959, 100, 250, 700, 3, 842].iter().enumerate() {
        let fen = chess960_start(*sp);
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        check_games(&net, &pos, 15, 100 + i as u64, &mut seen);
    }
    eprintln!("{seen:?}");
    assert!(seen.captures > 1000, "{seen:?}");
    assert!(seen.promotions > 20, "{seen:?}");
    assert!(seen.en_passant > 20, "{seen:?}");
    assert!(seen.castle_short > 20 && seen.castle_long > 20, "{seen:?}");
    assert!(seen.chess960_castles > 20, "{seen:?}");
}

/// The back rank of Chess960 start position `n` (Scharnagl numbering).
fn chess960_start(n: u32) -> String {
    let mut rank = [' '; 8];
    let mut n = n;
    let place_on = |rank: &mut [char; 8], parity: usize, k: u32, piece: char| {
        let sq = (0..8).filter(|i| i % 2 == parity).nth(k as usize).unwrap();
        rank[sq] = piece;
    };
    place_on(&mut rank, 1, n % 4, 'b');
    n /= 4;
    place_on(&mut rank, 0, n % 4, 'b');
    n /= 4;
    let free = |rank: &[char; 8]| -> Vec<usize> { (0..8).filter(|&i| rank[i] == ' ').collect() };
    let q = free(&rank)[(n % 6) as usize];
    rank[q] = 'q';
    n /= 6;
    let knights: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = knights[n as usize];
    let f = free(&rank);
    rank[f[a]] = 'n';
    rank[f[b]] = 'n';
    let f = free(&rank);
    rank[f[0]] = 'r';
    rank[f[1]] = 'k';
    rank[f[2]] = 'r';
    let black: String = rank.iter().collect();
    let white = black.to_uppercase();
    format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1")
}

/// Positions from seeded random playouts, as datagen records.
fn random_positions(n: usize, seed: u64) -> Vec<Chess> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Chess::default();
        let plies = rng.random_range(4..120);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Captures more often than chance, for material imbalance.
            let caps: Vec<Move> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let m = if !caps.is_empty() && rng.random_range(0..3) > 0 {
                caps[rng.random_range(0..caps.len())]
            } else {
                moves[rng.random_range(0..moves.len())]
            };
            pos.play_unchecked(m);
        }
        if !pos.legal_moves().is_empty() {
            out.push(pos);
        }
    }
    out
}

/// Material for the side to move, in centipawns (100/300/300/500/900).
fn material(pos: &Chess) -> i32 {
    let b = pos.board();
    let value = |c: Color| -> i32 {
        [
            (Role::Pawn, 100),
            (Role::Knight, 300),
            (Role::Bishop, 300),
            (Role::Rook, 500),
            (Role::Queen, 900),
        ]
        .iter()
        .map(|&(r, v)| v * (b.by_role(r) & b.by_color(c)).count() as i32)
        .sum()
    };
    value(pos.turn()) - value(!pos.turn())
}

fn material_records(positions: &[Chess]) -> Vec<ChessBoard> {
    positions
        .iter()
        .map(|p| {
            let s = Sample {
                pos: p.clone(),
                score: material(p),
            };
            to_record(&s, 0.5)
        })
        .collect()
}

/// Trains on material-only labels; returns the net, the loss before and
/// the reports.
fn train_material(
    seed: u64,
    buckets: bool,
    augment_mirror: bool,
) -> (FloatNet, f64, Vec<train::EpochReport>) {
    let data = material_records(&random_positions(12_000, seed));
    let cfg = TrainConfig {
        epochs: 12,
        batch_size: 256,
        lr: 0.005,
        lr_end: 0.0005,
        wdl: 0.0,
        validation: 0.1,
        seed,
        verbose: false,
        augment_mirror,
        ..TrainConfig::default()
    };
    let (training, validation) = train::split(data, &cfg);
    let mut net = FloatNet::random(seed);
    if buckets {
        net = net.with_output_buckets();
    }
    let before = train::mean_loss(&net, &validation, cfg.wdl, 2);
    let reports = train::train(&mut net, training, &validation, &cfg, &mut |_, _| {});
    (net, before, reports)
}

#[test]
fn training_learns_material_and_the_quantised_net_agrees() {
    let (net, before, reports) = train_material(5, false, false);
    let after = reports.last().unwrap().validation_loss;
    eprintln!("validation loss {before:.6} -> {after:.6}");
    assert!(after < before * 0.3, "{before} -> {after}");

    // The net ranks unseen positions by material.
    let test = random_positions(600, 99);
    let evals: Vec<(i32, f32)> = test
        .iter()
        .map(|p| {
            (
                material(p),
                net.eval_record(&to_record(
                    &Sample {
                        pos: p.clone(),
                        score: 0,
                    },
                    0.5,
                )),
            )
        })
        .collect();
    let (mut right, mut pairs) = (0, 0);
    for w in evals.windows(2) {
        let ((m0, e0), (m1, e1)) = (w[0], w[1]);
        if (m0 - m1).abs() >= 300 {
            pairs += 1;
            right += usize::from((m0 > m1) == (e0 > e1));
        }
    }
    eprintln!("ranked {right} of {pairs} pairs by material");
    assert!(pairs >= 100 && right * 100 >= pairs * 95, "{right}/{pairs}");

    // The engine's integers agree with the trainer's floats.
    let q = Arc::new(net.quantise());
    let mut worst = 0.0f32;
    let mut total = 0.0f32;
    for p in &test {
        let rec = to_record(
            &Sample {
                pos: p.clone(),
                score: 0,
            },
            0.5,
        );
        let float = net.eval_record(&rec);
        let acc = Accumulator::refresh(&q, p.board());
        let int = q.evaluate(&acc, p.turn()) as f32;
        let diff = (int - float).abs();
        total += diff;
        worst = worst.max(diff - 0.02 * float.abs());
    }
    let mean = total / test.len() as f32;
    eprintln!("quantised vs float: mean {mean:.2} cp, worst {worst:.2} cp beyond 2%");
    // Stated tolerance: within 2% + 12 cp everywhere, 3 cp on average.
    assert!(
        worst <= 12.0,
        "quantised net differs by {worst} cp beyond 2%"
    );
    assert!(mean <= 3.0, "mean difference {mean} cp");
}

#[test]
fn net_files_round_trip_and_bad_ones_are_refused() {
    let net = random_net(3, true);
    let bytes = net.to_bytes();
    assert_eq!(bytes.len(), network::file_size(1, 1));
    let back = Network::from_bytes(&bytes).unwrap();
    assert_eq!(back.to_bytes(), bytes);

    let truncated = Network::from_bytes(&bytes[..bytes.len() - 10]).unwrap_err();
    assert!(truncated.contains("bytes"), "{truncated}");
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Network::from_bytes(&longer).is_err());
    assert!(
        Network::from_bytes(b"not a net")
            .unwrap_err()
            .contains("FRNN")
    );
    // A net wider than the build is refused (a narrower one is padded).
    let wider = 2 * ferrum::eval::nnue::HIDDEN;
    let mut other_shape = bytes.clone();
    other_shape[12..16].copy_from_slice(&(wider as u32).to_le_bytes());
    assert!(
        Network::from_bytes(&other_shape)
            .unwrap_err()
            .contains(&format!("->{wider}"))
    );
    assert!(back.mirror);
    let mut flags = bytes.clone();
    flags[16..20].copy_from_slice(&17u32.to_le_bytes());
    assert!(Network::from_bytes(&flags).unwrap_err().contains("flags"));
    let mut version = bytes.clone();
    version[4..8].copy_from_slice(&9u32.to_le_bytes());
    assert!(
        Network::from_bytes(&version)
            .unwrap_err()
            .contains("version")
    );

    // The embedded net parses, and a checkpoint round-trips.
    assert!(default_net().is_some());
    for mirror in [false, true] {
        let f = FloatNet {
            mirror,
            ..FloatNet::random(4)
        };
        assert_eq!(FloatNet::from_bytes(&f.to_bytes()).unwrap(), f);
    }
    assert!(FloatNet::from_bytes(&bytes).is_err());

    // A net with output buckets: its own size, flag bit 1, a round trip;
    // cut to the size of a one-layer net it is refused.
    let f = random_bucketed_net(8);
    let bucketed = f.quantise();
    let bytes = bucketed.to_bytes();
    assert_eq!(bytes.len(), network::file_size(8, 1));
    assert_eq!(u32::from_le_bytes(bytes[16..20].try_into().unwrap()), 2);
    let back = Network::from_bytes(&bytes).unwrap();
    assert_eq!(back.out_bias.len(), 8);
    assert_eq!(back.to_bytes(), bytes);
    let short = Network::from_bytes(&bytes[..network::file_size(1, 1)]).unwrap_err();
    assert!(short.contains("8 output layer"), "{short}");
    assert_eq!(FloatNet::from_bytes(&f.to_bytes()).unwrap(), f);
    let resumed = FloatNet::from_checkpoint_or_net(&bytes).unwrap();
    assert_eq!(resumed.quantise().to_bytes(), bytes);
}

#[test]
fn a_net_with_output_buckets_learns_material() {
    let (net, before, reports) = train_material(6, true, false);
    let after = reports.last().unwrap().validation_loss;
    eprintln!("validation loss {before:.6} -> {after:.6}");
    assert!(after < before * 0.3, "{before} -> {after}");
    // The buckets were trained apart: they no longer all match the first.
    let first = &net.out_w[..2 * ferrum::eval::nnue::HIDDEN];
    let differing = net
        .out_w
        .chunks_exact(2 * ferrum::eval::nnue::HIDDEN)
        .filter(|l| l != &first)
        .count();
    assert!(differing >= 5, "{differing}");
}

#[test]
fn output_buckets_follow_the_piece_count_alike_in_engine_and_trainer() {
    // Copying a one-layer net into 8 buckets changes no evaluation.
    let one = FloatNet::random(13);
    let eight = one.clone().with_output_buckets();
    let positions = random_positions(400, 41);
    let records: Vec<ChessBoard> = positions.iter().map(record).collect();
    for rec in &records {
        assert_eq!(one.eval_record(rec), eight.eval_record(rec));
    }
    // Buckets drawn at random: the engine's integers (bucket from the
    // accumulator's piece count, kept incrementally) agree with the
    // trainer's floats (bucket from the record) on every position, and
    // the positions cover most buckets.
    let f = random_bucketed_net(14);
    let q = Arc::new(f.quantise());
    let mut buckets = std::collections::HashSet::new();
    for (p, rec) in positions.iter().zip(&records) {
        let pieces = p.board().occupied().count() as u32;
        buckets.insert(ferrum::eval::nnue::output_bucket(pieces, 8));
        let acc = Accumulator::refresh(&q, p.board());
        assert_eq!(acc.pieces(), pieces);
        let float = f.eval_record(rec);
        let int = q.evaluate(&acc, p.turn()) as f32;
        assert!(
            (float - int).abs() <= 12.0 + 0.02 * float.abs(),
            "{float} {int} with {pieces} pieces"
        );
    }
    assert!(buckets.len() >= 5, "{buckets:?}");
    assert_eq!(ferrum::eval::nnue::output_bucket(32, 8), 7);
    assert_eq!(ferrum::eval::nnue::output_bucket(2, 8), 0);
    assert_eq!(ferrum::eval::nnue::output_bucket(17, 1), 0);
}

#[test]
fn a_quantised_net_seeds_training_as_itself() {
    // `ferrum train --resume net.nnue`: the dequantised floats quantise back
    // to exactly the same net, for a random net and the embedded one.
    let embedded = default_net().unwrap();
    for net in [random_net(5, true), (*embedded).clone()] {
        let bytes = net.to_bytes();
        let float = FloatNet::from_checkpoint_or_net(&bytes).unwrap();
        assert_eq!(float.mirror, net.mirror);
        assert_eq!(float.quantise().to_bytes(), bytes);
    }
    // A checkpoint still reads as a checkpoint, and junk is refused.
    let f = FloatNet::random(6);
    assert_eq!(FloatNet::from_checkpoint_or_net(&f.to_bytes()).unwrap(), f);
    assert!(FloatNet::from_checkpoint_or_net(b"junk").is_err());
}

#[test]
fn embedded_net_is_colour_symmetric() {
    // The same position with colours swapped evaluates the same for the
    // side to move: the inputs are relative to it.
    let net = default_net().unwrap();
    for p in random_positions(300, 21) {
        let acc = Accumulator::refresh(&net, p.board());
        let mut swapped = shakmaty::Board::empty();
        for (sq, pc) in p.board() {
            swapped.set_piece_at(sq.flip_vertical(), pc.role.of(!pc.color));
        }
        let acc2 = Accumulator::refresh(&net, &swapped);
        assert_eq!(net.evaluate(&acc, p.turn()), net.evaluate(&acc2, !p.turn()));
    }
}

#[test]
fn mirrored_net_is_left_right_symmetric() {
    // A mirroring net sees a position and its left-right mirror image alike
    // (castling aside, which the inputs do not hold); the test also checks
    // that the trainer's record inputs agree with the engine's.
    let f = FloatNet {
        mirror: true,
        ..FloatNet::random(12)
    };
    let net = f.quantise();
    let mut kings_on_both_wings = 0;
    for p in random_positions(300, 31) {
        let mut flipped = shakmaty::Board::empty();
        for (sq, pc) in p.board() {
            flipped.set_piece_at(sq.flip_horizontal(), pc);
        }
        let a = Accumulator::refresh(&net, p.board());
        let b = Accumulator::refresh(&net, &flipped);
        assert_eq!(a, b);
        let kings = p.board().kings();
        kings_on_both_wings +=
            usize::from(kings.into_iter().any(|k| k.file() >= shakmaty::File::E));
        let rec = to_record(
            &Sample {
                pos: p.clone(),
                score: 0,
            },
            0.5,
        );
        let float = f.eval_record(&rec);
        let int = net.evaluate(&a, p.turn()) as f32;
        assert!(
            (float - int).abs() <= 12.0 + 0.02 * float.abs(),
            "{float} {int}"
        );
    }
    assert!(kings_on_both_wings > 50);
}

/// `pos` mirrored left-right (castling rights and the en-passant square
/// dropped: they do not mirror).
fn mirrored(pos: &Chess) -> Chess {
    let mut board = pos.board().clone();
    board.flip_horizontal();
    let turn = if pos.turn() == Color::White { 'w' } else { 'b' };
    let fen = Fen::from_ascii(format!("{board} {turn} - - 0 1").as_bytes()).expect("valid FEN");
    fen.into_position(CastlingMode::Standard)
        .expect("the mirror image of a legal position is legal")
}

fn record(pos: &Chess) -> ChessBoard {
    to_record(
        &Sample {
            pos: pos.clone(),
            score: 0,
        },
        0.5,
    )
}

#[test]
fn mirrored_features_are_those_of_the_mirrored_position() {
    let (mut st, mut nst) = (Vec::new(), Vec::new());
    let (mut mst, mut mnst) = (Vec::new(), Vec::new());
    for p in random_positions(300, 41) {
        record_features(&record(&p), false, 1, &mut st, &mut nst);
        record_features(&record(&mirrored(&p)), false, 1, &mut mst, &mut mnst);
        mirror_features(&mut st);
        mirror_features(&mut nst);
        for v in [&mut st, &mut nst, &mut mst, &mut mnst] {
            v.sort_unstable();
        }
        assert_eq!(
            (&st, &nst),
            (&mst, &mnst),
            "{}",
            Fen::from_position(&p, shakmaty::EnPassantMode::Legal)
        );
    }
}

/// Mean |eval(p) − eval(mirror of p)| over positions the net was not trained on.
fn mirror_asymmetry(net: &FloatNet) -> f64 {
    let positions = random_positions(400, 77);
    let sum: f64 = positions
        .iter()
        .map(|p| {
            f64::from((net.eval_record(&record(p)) - net.eval_record(&record(&mirrored(p)))).abs())
        })
        .sum();
    sum / positions.len() as f64
}

#[test]
fn mirror_augmentation_teaches_left_right_symmetry() {
    // Material labels are left-right symmetric, but a net trained on them
    // keeps much of the asymmetry of its random start; shown every position
    // both ways it loses a good part of it (seeds 8-11: 0.71-0.77 of the
    // plain net's), and it generalises better to held-out positions.
    let (plain, before, plain_reports) = train_material(8, false, false);
    let (augmented, _, reports) = train_material(8, false, true);
    let after = reports.last().unwrap().validation_loss;
    let plain_after = plain_reports.last().unwrap().validation_loss;
    assert!(after < before * 0.3, "{before} -> {after}");
    let (a, b) = (mirror_asymmetry(&plain), mirror_asymmetry(&augmented));
    eprintln!(
        "validation loss {plain_after:.6} (plain) {after:.6} (augmented); mirror asymmetry {a:.1} cp (plain) {b:.1} cp (augmented)"
    );
    assert!(b < a * 0.85, "plain {a}, augmented {b}");
    assert!(
        after < plain_after,
        "plain {plain_after}, augmented {after}"
    );
}

#[test]
fn king_buckets_agree_in_engine_and_trainer_and_start_from_the_net_they_copy() {
    let positions = random_positions(400, 61);
    let records: Vec<ChessBoard> = positions.iter().map(record).collect();
    // Each input set drawn on its own: the engine's integers (set from the
    // king on the board) agree with the trainer's floats (set from the
    // record) within the stated tolerance, and most sets are used.
    for mirror in [false, true] {
        let f = random_float_net(62, mirror, 4);
        let q = Arc::new(f.quantise());
        let mut used = std::collections::HashSet::new();
        for (p, rec) in positions.iter().zip(&records) {
            for c in [Color::White, Color::Black] {
                used.insert(ferrum::eval::nnue::king_bucket(4, c, p.board().king_of(c)));
            }
            let float = f.eval_record(rec);
            let acc = Accumulator::refresh(&q, p.board());
            let int = q.evaluate(&acc, p.turn()) as f32;
            assert!(
                (float - int).abs() <= 12.0 + 0.02 * float.abs(),
                "{float} {int} in {}",
                Fen::from_position(p, shakmaty::EnPassantMode::Legal)
            );
        }
        assert_eq!(used.len(), 4, "{used:?}");
    }
    // A one-set net (n10, kept in nets/) copied into four sets evaluates
    // every position exactly as itself; its file says so (flag bit 2) and
    // round-trips, and a checkpoint of it too.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/ferrum-n10.nnue");
    let n10 = Network::from_bytes(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(n10.king_buckets, 1);
    let copied = FloatNet::dequantise(&n10).with_king_buckets();
    let q = copied.quantise();
    assert_eq!(q.king_buckets, 4);
    for p in &positions {
        let a = Accumulator::refresh(&n10, p.board());
        let b = Accumulator::refresh(&q, p.board());
        assert_eq!(n10.evaluate(&a, p.turn()), q.evaluate(&b, p.turn()));
    }
    let bytes = q.to_bytes();
    assert_eq!(bytes.len(), network::file_size(n10.out_bias.len(), 4));
    let flags = u32::from_le_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(flags & 4, 4);
    assert_eq!(Network::from_bytes(&bytes).unwrap().to_bytes(), bytes);
    assert_eq!(FloatNet::from_bytes(&copied.to_bytes()).unwrap(), copied);
    // Cut to the size of a one-set net, it is refused with a clear message.
    let one = network::file_size(n10.out_bias.len(), 1);
    let err = Network::from_bytes(&bytes[..one]).unwrap_err();
    assert!(err.contains("4 king bucket"), "{err}");
}

#[test]
fn fine_king_buckets_refine_the_rank_bands_and_start_from_the_net_they_copy() {
    use ferrum::eval::nnue::{FINE_KING_BUCKETS, FINE_TO_COARSE, KING_BUCKETS, king_bucket};
    use shakmaty::Square;
    // Every square of the king, from either side: each fine set lies in the
    // rank band it refines, and all eight are reachable.
    let mut used = std::collections::HashSet::new();
    for sq in Square::ALL {
        for c in [Color::White, Color::Black] {
            let fine = king_bucket(FINE_KING_BUCKETS, c, Some(sq));
            assert_eq!(FINE_TO_COARSE[fine], king_bucket(KING_BUCKETS, c, Some(sq)));
            used.insert(fine);
        }
    }
    assert_eq!(used.len(), FINE_KING_BUCKETS);
    // The castled kings and the king at home each have a set of their own,
    // the same for both colours.
    let b = |c, sq| king_bucket(FINE_KING_BUCKETS, c, Some(sq));
    assert_eq!(b(Color::White, Square::G1), b(Color::Black, Square::G8));
    assert_eq!(b(Color::White, Square::C1), b(Color::Black, Square::B8));
    let homes = [Square::C1, Square::E1, Square::G1].map(|sq| b(Color::White, sq));
    assert!(homes[0] != homes[1] && homes[1] != homes[2] && homes[0] != homes[2]);
    // The shipped net given fine buckets evaluates every position exactly as
    // itself, float and quantised; its file says so (flag bit 3), round-trips,
    // and a checkpoint of it too.
    let positions = random_positions(300, 63);
    let records: Vec<ChessBoard> = positions.iter().map(record).collect();
    let shipped = default_net().unwrap();
    let base = FloatNet::dequantise(&shipped);
    let fine = base.clone().with_fine_king_buckets();
    assert_eq!(fine.king_buckets, FINE_KING_BUCKETS);
    let q = fine.quantise();
    for (p, rec) in positions.iter().zip(&records) {
        assert_eq!(base.eval_record(rec), fine.eval_record(rec));
        let a = Accumulator::refresh(&shipped, p.board());
        let b = Accumulator::refresh(&q, p.board());
        assert_eq!(shipped.evaluate(&a, p.turn()), q.evaluate(&b, p.turn()));
    }
    let bytes = q.to_bytes();
    let outputs = shipped.out_bias.len();
    assert_eq!(bytes.len(), network::file_size(outputs, FINE_KING_BUCKETS));
    let flags = u32::from_le_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(flags & 12, 8);
    assert_eq!(Network::from_bytes(&bytes).unwrap().to_bytes(), bytes);
    assert_eq!(FloatNet::from_bytes(&fine.to_bytes()).unwrap(), fine);
    // Cut to a four-set net's size, or with both bucket flags, it is refused.
    let err = Network::from_bytes(&bytes[..network::file_size(outputs, KING_BUCKETS)]).unwrap_err();
    assert!(err.contains("8 king bucket"), "{err}");
    let mut both = bytes.clone();
    both[16] |= 4;
    let err = Network::from_bytes(&both).unwrap_err();
    assert!(err.contains("both"), "{err}");
}

/// `net`'s file cut to its first `h` neurons: a net of `h` neurons that
/// evaluates as `net` does when its other neurons have zero output weights.
fn narrow_file(net: &Network, h: usize) -> Vec<u8> {
    let full = net.to_bytes();
    let mut out = full[..20].to_vec();
    out[12..16].copy_from_slice(&(h as u32).to_le_bytes());
    let rows = net
        .ft_weights
        .iter()
        .chain(std::iter::once(&net.ft_bias))
        .chain(net.out_weights.iter().flatten());
    for row in rows {
        for v in &row[..h] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for b in &net.out_bias {
        out.extend_from_slice(&b.to_le_bytes());
    }
    out
}

#[test]
fn a_widened_net_starts_exactly_as_the_narrower_net() {
    use ferrum::eval::nnue::{HIDDEN, RawNet};
    let h = HIDDEN / 2;
    let positions = random_positions(300, 71);
    let records: Vec<ChessBoard> = positions.iter().map(record).collect();
    for (mirror, king_buckets) in [(false, 1), (true, 4), (false, 8)] {
        // A net whose last neurons are silent (zero output weights), and
        // the same net written at `h` neurons.
        let mut f = random_float_net(72, mirror, king_buckets);
        for half in f.out_w.chunks_exact_mut(HIDDEN) {
            half[h..].fill(0.0);
        }
        let full = f.quantise();
        let narrow = narrow_file(&full, h);
        // The engine loads it padded with silent neurons.
        let padded = Network::from_bytes(&narrow).unwrap();
        let raw = RawNet::from_bytes(&narrow).unwrap();
        assert_eq!(
            (raw.hidden, raw.mirror, raw.king_buckets),
            (h, mirror, full.king_buckets)
        );
        // Widened back: the new neurons have input weights but no output
        // weights or biases, and every evaluation, float and quantised,
        // is exactly the narrow net's.
        let wide = FloatNet::widen(&raw, 9).unwrap();
        assert!(
            wide.ft_w
                .chunks_exact(HIDDEN)
                .all(|r| r[h..].iter().any(|&w| w != 0.0))
        );
        assert!(wide.ft_b[h..].iter().all(|&b| b == 0.0));
        assert!(
            wide.out_w
                .chunks_exact(HIDDEN)
                .all(|r| r[h..].iter().all(|&w| w == 0.0))
        );
        let q = wide.quantise();
        let dequantised = FloatNet::dequantise(&full);
        for (p, rec) in positions.iter().zip(&records) {
            assert_eq!(wide.eval_record(rec), dequantised.eval_record(rec));
            let a = Accumulator::refresh(&full, p.board());
            let b = Accumulator::refresh(&q, p.board());
            assert_eq!(full.evaluate(&a, p.turn()), q.evaluate(&b, p.turn()));
            let c = Accumulator::refresh(&padded, p.board());
            assert_eq!(full.evaluate(&a, p.turn()), padded.evaluate(&c, p.turn()));
        }
        // A net as wide as the build cannot be widened.
        let same = RawNet::from_bytes(&full.to_bytes()).unwrap();
        assert!(
            FloatNet::widen(&same, 9)
                .unwrap_err()
                .contains("cannot be widened")
        );
    }
}

/// Euclidean distance between the weights of two nets of one shape.
fn weight_distance(a: &FloatNet, b: &FloatNet) -> f64 {
    let pairs = [
        (&a.ft_w, &b.ft_w),
        (&a.ft_b, &b.ft_b),
        (&a.out_w, &b.out_w),
        (&a.out_b, &b.out_b),
    ];
    pairs
        .iter()
        .flat_map(|(x, y)| x.iter().zip(y.iter()))
        .map(|(&x, &y)| f64::from(x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

#[test]
fn anchored_decay_keeps_a_fine_tune_near_its_start() {
    // A start that already knows material, then a fine-tune on the same kind
    // of labels with a strong decay: toward zero (AdamW as before) the net
    // is pulled far from where it started; anchored (`--anchor`) it stays
    // near it and keeps what it knew.
    let (start, _, _) = train_material(21, false, false);
    let data = material_records(&random_positions(4_000, 22));
    let cfg = TrainConfig {
        epochs: 3,
        batch_size: 256,
        lr: 0.002,
        lr_end: 0.002,
        wdl: 0.0,
        validation: 0.1,
        seed: 23,
        verbose: false,
        weight_decay: 20.0,
        ..TrainConfig::default()
    };
    let (training, validation) = train::split(data, &cfg);
    let tuned = |anchor: bool| {
        let mut net = start.clone();
        let cfg = TrainConfig {
            anchor,
            ..cfg.clone()
        };
        let reports = train::train(
            &mut net,
            training.clone(),
            &validation,
            &cfg,
            &mut |_, _| {},
        );
        (net, reports.last().unwrap().validation_loss)
    };
    let (to_zero, zero_loss) = tuned(false);
    let (anchored, anchored_loss) = tuned(true);
    let start_loss = train::mean_loss(&start, &validation, 0.0, 2);
    let (d_zero, d_anchor) = (
        weight_distance(&to_zero, &start),
        weight_distance(&anchored, &start),
    );
    eprintln!(
        "distance from the start: {d_zero:.3} (decay to zero) {d_anchor:.3} (anchored); loss {start_loss:.6} -> {zero_loss:.6} / {anchored_loss:.6}"
    );
    assert!(
        d_anchor < d_zero * 0.5,
        "anchored {d_anchor}, to zero {d_zero}"
    );
    // Seed 21: 0.000045 at the start, 0.035 pulled to zero, 0.00009 anchored.
    assert!(
        anchored_loss < zero_loss * 0.1,
        "anchored {anchored_loss}, to zero {zero_loss}"
    );
}

/// The material the scale counts, in centipawns.
fn scale_material(board: &shakmaty::Board) -> i32 {
    100 * ferrum::eval::wdl::material(board) as i32
}

fn board(fen: &str) -> shakmaty::Board {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    pos.board().clone()
}

#[test]
fn material_scaling_leaves_the_start_alone_and_shrinks_toward_bare_kings() {
    let start = Chess::default();
    assert_eq!(scale_material(start.board()), START_MATERIAL);
    for v in [-3000, -257, -1, 0, 1, 99, 257, 3000] {
        assert_eq!(scale_by_material(v, start.board(), MATERIAL_SCALE_BASE), v);
    }
    // Bare kings: 20,000 / 27,800 of the evaluation, rounded toward zero.
    let kings = board("8/8/4k3/8/8/3K4/8/8 w - - 0 1");
    assert_eq!(scale_material(&kings), 0);
    assert_eq!(scale_by_material(2780, &kings, MATERIAL_SCALE_BASE), 2000);
    assert_eq!(scale_by_material(-2780, &kings, MATERIAL_SCALE_BASE), -2000);
    assert_eq!(scale_by_material(100, &kings, MATERIAL_SCALE_BASE), 71);
    // A rook and a pawn each: 1,200 of material, (20,000 + 1,200) / 27,800.
    let rooks = board("8/5pk1/8/8/8/8/1P3RK1/r7 w - - 0 1");
    assert_eq!(scale_material(&rooks), 1200);
    assert_eq!(scale_by_material(278, &rooks, MATERIAL_SCALE_BASE), 212);
    // Base 0: no scaling.
    assert_eq!(scale_by_material(278, &rooks, 0), 278);
    // Odd in the evaluation, and never larger in size with less material.
    let mut pos = start.clone();
    let mut rng = StdRng::seed_from_u64(59);
    for _ in 0..200 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        let before = scale_material(pos.board());
        pos.play_unchecked(m);
        let after = scale_material(pos.board());
        assert!(after <= before || m.is_promotion(), "{m:?}");
        for v in [-1234, -5, 5, 1234] {
            let s = scale_by_material(v, pos.board(), MATERIAL_SCALE_BASE);
            assert_eq!(scale_by_material(-v, pos.board(), MATERIAL_SCALE_BASE), -s);
            assert!(s.abs() <= v.abs() || after > START_MATERIAL);
        }
    }
}

#[test]
fn a_factorised_net_evaluates_and_saves_as_its_merged_form() {
    use ferrum::eval::nnue::{FINE_KING_BUCKETS, HIDDEN, INPUTS};
    let positions = random_positions(300, 71);
    let records: Vec<ChessBoard> = positions.iter().map(record).collect();
    let plain = random_float_net(72, false, FINE_KING_BUCKETS);
    // A zero factoriser changes nothing, and a net without king buckets gets none.
    let f = plain.clone().with_factoriser();
    assert!(f.factorised() && f.ft_f.len() == INPUTS * HIDDEN);
    assert!(!FloatNet::random(1).with_factoriser().factorised());
    for rec in &records {
        assert_eq!(f.eval_record(rec), plain.eval_record(rec));
    }
    assert_eq!(f.merged(), plain);
    // A non-zero one: the float net, its merged form, its quantised file and
    // its checkpoint all evaluate alike.
    let mut f = f;
    let mut rng = StdRng::seed_from_u64(73);
    f.ft_f
        .iter_mut()
        .for_each(|w| *w = rng.random_range(-0.03..0.03));
    let merged = f.merged();
    assert!(!merged.factorised() && merged.ft_w != plain.ft_w);
    let q = Arc::new(f.quantise());
    assert_eq!(q.to_bytes(), merged.quantise().to_bytes());
    let resumed = FloatNet::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(resumed, merged);
    for (p, rec) in positions.iter().zip(&records) {
        let (a, b) = (f.eval_record(rec), merged.eval_record(rec));
        assert!((a - b).abs() <= 0.01, "{a} {b}");
        let acc = Accumulator::refresh(&q, p.board());
        let int = q.evaluate(&acc, p.turn()) as f32;
        assert!((a - int).abs() <= 12.0 + 0.02 * a.abs(), "{a} {int}");
    }
}

#[test]
fn the_factoriser_carries_what_one_bucket_learns_to_the_others() {
    use ferrum::eval::nnue::{FINE_KING_BUCKETS, HIDDEN, INPUTS, king_bucket};
    // Trained only on positions where both kings stand on their first rank
    // (fine buckets 0-2 for both sides), then judged on positions where
    // neither does (buckets 3-7, which no training position uses).
    let on_first_rank =
        |p: &Chess, c: Color| king_bucket(FINE_KING_BUCKETS, c, p.board().king_of(c)) <= 2;
    let all = random_positions(40_000, 74);
    let home: Vec<Chess> = all
        .iter()
        .filter(|p| on_first_rank(p, Color::White) && on_first_rank(p, Color::Black))
        .cloned()
        .collect();
    let away: Vec<Chess> = all
        .iter()
        .filter(|p| !on_first_rank(p, Color::White) && !on_first_rank(p, Color::Black))
        .cloned()
        .collect();
    assert!(
        home.len() >= 4_000 && away.len() >= 500,
        "{} {}",
        home.len(),
        away.len()
    );
    let data = material_records(&home);
    let unseen = material_records(&away);
    let cfg = TrainConfig {
        epochs: 8,
        batch_size: 256,
        lr: 0.005,
        lr_end: 0.0005,
        wdl: 0.0,
        validation: 0.1,
        seed: 75,
        verbose: false,
        weight_decay: 0.0,
        ..TrainConfig::default()
    };
    let (training, validation) = train::split(data, &cfg);
    let start = random_float_net(76, false, FINE_KING_BUCKETS);
    let run = |factorise: bool| {
        let mut net = start.clone();
        if factorise {
            net = net.with_factoriser();
        }
        let reports = train::train(
            &mut net,
            training.clone(),
            &validation,
            &cfg,
            &mut |_, _| {},
        );
        (net.merged(), reports.last().unwrap().validation_loss)
    };
    let (plain, plain_seen) = run(false);
    let (factorised, factorised_seen) = run(true);
    // Without it, the unused buckets' rows get no gradient: they are as they
    // started, to the bit. With it, they moved.
    let set = INPUTS * HIDDEN;
    let rest = |n: &FloatNet| n.ft_w[3 * set..].to_vec();
    assert_eq!(rest(&plain), rest(&start));
    assert_ne!(rest(&factorised), rest(&start));
    // And what moved them is what the others learnt: material, in positions
    // of kinds the training never showed.
    let before = train::mean_loss(&start, &unseen, 0.0, 2);
    let (p, f) = (
        train::mean_loss(&plain, &unseen, 0.0, 2),
        train::mean_loss(&factorised, &unseen, 0.0, 2),
    );
    eprintln!(
        "seen buckets: {plain_seen:.6} plain, {factorised_seen:.6} factorised; unseen: {before:.6} at the start, {p:.6} plain, {f:.6} factorised"
    );
    assert!(f < p * 0.5, "plain {p}, factorised {f}");
    assert!(
        factorised_seen < plain_seen * 1.5,
        "{plain_seen} {factorised_seen}"
    );
}
