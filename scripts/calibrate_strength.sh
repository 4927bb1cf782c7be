#!/usr/bin/env bash
# Calibration of UCI_Elo (issue #14): Ferrum with UCI_LimitStrength at each
# Elo against Stockfish (Debian's 15.1) limited to the same UCI_Elo, same
# time control, balanced openings in colour-swapped pairs. A level within
# about +-100 Elo of its namesake is calibrated; the measured differences
# feed the Elo-to-level points in src/search/skill.rs.
#
#   apt-get install stockfish
#   scripts/calibrate_strength.sh ENGINE [GAMES] [TC] [CONCURRENCY] [ELO...]
set -euo pipefail
cd "$(dirname "$0")/.."

engine=${1:?usage: scripts/calibrate_strength.sh ENGINE [GAMES] [TC] [CONCURRENCY] [ELO...]}
games=${2:-40}
tc=${3:-10+0.1}
concurrency=${4:-2}
shift $(( $# < 4 ? $# : 4 ))
elos=("${@:-1500 2000 2400 2850}")
book=${BOOK:-../shared/data/openings/noob_3moves.epd}
stockfish=${STOCKFISH:-/usr/games/stockfish}

# Every level is played even when one match reports a forfeit, an illegal
# move or a crash (match.py exits 1, whichever engine it was); the script
# exits 1 at the end then.
status=0
for elo in ${elos[@]}; do
  echo "== UCI_Elo $elo: Ferrum vs Stockfish, $games games at $tc"
  pgn=()
  if [ -n "${PGN_DIR:-}" ]; then
    mkdir -p "$PGN_DIR"
    pgn=(--pgn "$PGN_DIR/elo$elo.pgn")
  fi
  python3 scripts/match.py \
    --engine "ferrum$elo=$engine;UCI_LimitStrength=true,UCI_Elo=$elo" \
    --engine "sf$elo=$stockfish;UCI_LimitStrength=true,UCI_Elo=$elo" \
    --book "$book" --tc "$tc" --games "$games" --concurrency "$concurrency" "${pgn[@]}" \
    || status=1
done
exit $status
