#!/usr/bin/env bash
# A gauntlet of Ferrum against a ladder of Debian engines, one match each,
# with scripts/match.py (fastchess/cutechess-cli when on PATH for UCI peers).
#
#   apt-get install stockfish phalanx glaurung      # peers land in /usr/games
#   scripts/gauntlet.sh ENGINE BOOK [GAMES] [TC] [CONCURRENCY]
#
# ENGINE: the Ferrum binary; BOOK: an opening book (a balanced one such as
# noob_3moves.epd or 8moves_v3.pgn). Peers that are not installed are skipped.
# Stockfish plays limited (UCI_LimitStrength, UCI_Elo); phalanx speaks xboard.
# With PGN_DIR set, each match writes its games to $PGN_DIR/<peer>.pgn.
set -euo pipefail
cd "$(dirname "$0")/.."

engine=${1:?usage: scripts/gauntlet.sh ENGINE BOOK [GAMES] [TC] [CONCURRENCY]}
book=${2:?usage: scripts/gauntlet.sh ENGINE BOOK [GAMES] [TC] [CONCURRENCY]}
games=${3:-40}
tc=${4:-5+0.05}
concurrency=${5:-1}

peers=(
  "sf1500=/usr/games/stockfish;UCI_LimitStrength=true,UCI_Elo=1500"
  "sf2000=/usr/games/stockfish;UCI_LimitStrength=true,UCI_Elo=2000"
  "phalanx=/usr/games/phalanx:xboard"
  "sf2400=/usr/games/stockfish;UCI_LimitStrength=true,UCI_Elo=2400"
  "glaurung=/usr/games/glaurung"
)

status=0
for peer in "${peers[@]}"; do
  path=${peer#*=}
  path=${path%%;*}
  path=${path%:xboard}
  if [ ! -x "$path" ]; then
    echo "skipping ${peer%%=*}: $path not installed"
    continue
  fi
  pgn=()
  if [ -n "${PGN_DIR:-}" ]; then
    mkdir -p "$PGN_DIR"
    pgn=(--pgn "$PGN_DIR/${peer%%=*}.pgn")
  fi
  python3 scripts/match.py --engine "ferrum=$engine" --engine "$peer" --book "$book" \
    --games "$games" --tc "$tc" --concurrency "$concurrency" "${pgn[@]}" || status=1
done
# Non-zero when any match saw a time forfeit, an illegal move or a crash.
exit $status
