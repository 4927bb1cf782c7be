#!/usr/bin/env python3
"""Makes tests/data/mates_verified.epd: the mate distance of sampled mate*.fen positions
as Stockfish finds it (depth 45 or 20 s each). Needs python-chess and /usr/games/stockfish."""
import chess, chess.engine
e = chess.engine.SimpleEngine.popen_uci('/usr/games/stockfish')
e.configure({"Threads": 1, "Hash": 64})
out = []
for fn, step in [('mate1.fen', 1), ('mate2.fen', 4), ('mate3.fen', 1), ('mate4.fen', 3)]:
    lines = [l.strip() for l in open('tests/data/' + fn) if l.strip()]
    for i, f in enumerate(lines[::step]):
        b = chess.Board(f)
        info = e.analyse(b, chess.engine.Limit(depth=45, time=20))
        m = info['score'].pov(b.turn).mate()
        # Keep positions where Stockfish finds a mate no longer than the
        # file claims (a longer one leaves the true length unproven).
        if m is not None and 0 < m <= int(fn[4]):
            fields = f.split()
            out.append('%s dm %d; id "%s:%d";' % (' '.join(fields[:4]), m, fn, i * step + 1))
e.quit()
open('tests/data/mates_verified.epd', 'w').write('\n'.join(out) + '\n')
print(len(out))
