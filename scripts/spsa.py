#!/usr/bin/env python3
"""SPSA tuning of Ferrum's search parameters on its own games.

Reads the parameters in OpenBench's SPSA input format (`ferrum spsa` prints
them: `name, int, start, min, max, c_end, r_end` a line) and runs
OpenBench's SPSA: iteration k (1-based, of N planned) perturbs every
parameter by +-c_k (c_k = c / k^0.101, c = c_end * N^0.101, a random sign
each), plays colour-swapped game pairs between theta+ and theta- (the same
book opening for both games of a pair, several pairs at once), and moves
theta by a_k / c_k * (wins - losses of theta+) * sign, with
a_k = a / (A + k)^0.602, a = r_end * c_end^2 * (A + N)^0.602 and A = N / 10.
Values stay within min..max; the engines get them rounded to integers as
UCI options (Ferrum lists them when started with FERRUM_TUNE=1).

Games are played by scripts/match.py's python-chess runner at a fixed node
budget a move (so the result does not depend on the machine's load). The
state (theta, the iteration, the games) is written after every iteration
to --state, and the path of every parameter appended to --csv: Ctrl-C or
the end of a session loses at most the iteration being played, and the
same command resumes where it stopped, on the same path as an unbroken run
(each iteration's signs and openings follow from the seed and its number).
At the end (or with --report) it prints the values as the `params!` block
of src/search/params.rs, and those that changed as scripts/match.py engine
options, for the timed match that decides whether they land.

Examples:
  target/release/ferrum spsa > params.txt
  scripts/spsa.py --engine target/release/ferrum --params params.txt \\
      --book ../shared/data/openings/UHO_4060_v4.epd.zip --nodes 10000 \\
      --iterations 10000 --concurrency 2 --state spsa.json --csv spsa.csv
  scripts/spsa.py --params params.txt --state spsa.json --report
"""
import argparse
import concurrent.futures
import contextlib
import csv
import json
import math
import os
import pathlib
import random
import signal
import sys
import types

ALPHA = 0.602
GAMMA = 0.101
STATE_VERSION = 1


class Param:
    """One line of OpenBench's SPSA input."""

    def __init__(self, name, start, lo, hi, c_end, r_end):
        self.name, self.start, self.lo, self.hi = name, start, lo, hi
        self.c_end, self.r_end = c_end, r_end

    def as_dict(self):
        return dict(name=self.name, start=self.start, min=self.lo, max=self.hi,
                    c_end=self.c_end, r_end=self.r_end)


def parse_params(text):
    """Parses `name, int|float, start, min, max, c_end, r_end` lines (blank
    lines and # comments skipped); ValueError naming the line otherwise."""
    params, seen = [], set()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7:
            raise ValueError(f"line {n}: expected 7 fields (name, int, start, min, max, c_end, r_end), "
                             f"got {len(fields)}: {raw!r}")
        name, kind = fields[0], fields[1]
        if not name.isidentifier():
            raise ValueError(f"line {n}: bad parameter name {name!r}")
        if name in seen:
            raise ValueError(f"line {n}: {name} given twice")
        if kind not in ("int", "float"):
            raise ValueError(f"line {n}: type must be int or float, not {kind!r}")
        try:
            start, lo, hi, c_end, r_end = (float(f) for f in fields[2:])
        except ValueError:
            raise ValueError(f"line {n}: start, min, max, c_end and r_end must be numbers: {raw!r}") from None
        if not all(math.isfinite(v) for v in (start, lo, hi, c_end, r_end)):
            raise ValueError(f"line {n}: numbers must be finite")
        if not lo < hi:
            raise ValueError(f"line {n}: min {lo} is not below max {hi}")
        if not lo <= start <= hi:
            raise ValueError(f"line {n}: start {start} is outside {lo}..{hi}")
        if c_end <= 0 or r_end <= 0:
            raise ValueError(f"line {n}: c_end and r_end must be positive")
        seen.add(name)
        params.append(Param(name, start, lo, hi, c_end, r_end))
    if not params:
        raise ValueError("no parameters")
    return params


class Spsa:
    """OpenBench's SPSA schedule and update for `params` over `iterations`."""

    def __init__(self, params, iterations, seed):
        self.params, self.iterations, self.seed = params, iterations, seed
        self.big_a = iterations / 10
        self.theta = {p.name: p.start for p in params}
        self.k = 0  # iterations done
        self.games = self.wins = self.losses = 0

    def gains(self, p, k):
        """(a_k, c_k) of parameter `p` at iteration k (1-based)."""
        c = p.c_end * self.iterations ** GAMMA
        a = p.r_end * p.c_end ** 2 * (self.big_a + self.iterations) ** ALPHA
        return a / (self.big_a + k) ** ALPHA, c / k ** GAMMA

    def signs(self, k):
        """The +-1 of every parameter at iteration k: a function of the seed and k only."""
        rng = random.Random(f"{self.seed}/{k}")
        return {p.name: rng.choice((-1, 1)) for p in self.params}

    def clip(self, p, v):
        return min(p.hi, max(p.lo, v))

    def perturbed(self, k, signs):
        """theta+ and theta- of iteration k, within the bounds."""
        plus, minus = {}, {}
        for p in self.params:
            _, c_k = self.gains(p, k)
            plus[p.name] = self.clip(p, self.theta[p.name] + c_k * signs[p.name])
            minus[p.name] = self.clip(p, self.theta[p.name] - c_k * signs[p.name])
        return plus, minus

    def update(self, k, signs, wins, losses, games):
        """Moves theta by iteration k's result (theta+'s wins and losses)."""
        for p in self.params:
            a_k, c_k = self.gains(p, k)
            step = a_k / c_k * (wins - losses) * signs[p.name]
            self.theta[p.name] = self.clip(p, self.theta[p.name] + step)
        self.k = k
        self.games += games
        self.wins += wins
        self.losses += losses

    def state(self):
        return dict(version=STATE_VERSION, seed=self.seed, iterations=self.iterations,
                    k=self.k, games=self.games, wins=self.wins, losses=self.losses,
                    theta=self.theta, params=[p.as_dict() for p in self.params])

    def restore(self, state):
        if state.get("version") != STATE_VERSION:
            raise ValueError("state file of another version")
        if state["seed"] != self.seed or state["iterations"] != self.iterations:
            raise ValueError(f"state file is for seed {state['seed']} and {state['iterations']} "
                             f"iterations, not {self.seed} and {self.iterations}")
        if [p["name"] for p in state["params"]] != [p.name for p in self.params]:
            raise ValueError("state file has other parameters")
        self.k, self.games = state["k"], state["games"]
        self.wins, self.losses = state["wins"], state["losses"]
        self.theta = {p.name: self.clip(p, float(state["theta"][p.name])) for p in self.params}


def engine_value(v):
    """The integer an engine gets for a value (halves round up, both signs alike)."""
    return math.floor(v + 0.5)


def rust_block(spsa):
    """The values as lines of the `params!` block of src/search/params.rs."""
    return "\n".join(f"    {p.name} = {engine_value(spsa.theta[p.name])}, {engine_value(p.lo)}..={engine_value(p.hi)};"
                     for p in spsa.params)


def changed_values(spsa):
    """The engine values that differ from the run's start, each as `name=value`;
    joined by commas they are the options half of a scripts/match.py
    `--engine "NAME=BIN;..."` (run with FERRUM_TUNE=1), to play the tuned
    values against the start's."""
    return [f"{p.name}={engine_value(spsa.theta[p.name])}" for p in spsa.params
            if engine_value(spsa.theta[p.name]) != engine_value(p.start)]


def report(spsa):
    """The run's summary: its drift, the `params!` block and the changed values as options."""
    changed = changed_values(spsa)
    if changed:
        options_line = (f"# {len(changed)} changed, as match.py options (FERRUM_TUNE=1): "
                        f"--engine \"tuned=BIN;{','.join(changed)}\"")
    else:
        options_line = "# no engine value changed"
    return "\n".join([
        f"# {spsa.k} iterations, {spsa.games} games; moved most: {drift_text(spsa)}",
        rust_block(spsa),
        options_line,
    ])


def drift_text(spsa, top=5):
    """The parameters that moved most from their start, in units of c_end."""
    moved = sorted(spsa.params, key=lambda p: -abs(spsa.theta[p.name] - p.start) / p.c_end)
    return ", ".join(f"{p.name} {p.start:g}->{spsa.theta[p.name]:.2f}" for p in moved[:top])


def synthetic_pair(plus, minus, optimum, params, rng):
    """A stand-in for a game pair: each game is won by theta+ with the
    probability a logistic Elo model gives for the difference of a known
    quadratic, 1000 Elo times -sum(((x - opt) / range)^2)."""
    def f(x):
        return -sum(((x[p.name] - optimum[p.name]) / (p.hi - p.lo)) ** 2 for p in params)
    elo = max(-4000.0, min(4000.0, 1000 * (f(plus) - f(minus))))
    p_win = 1 / (1 + 10 ** (-elo / 400))
    wins = sum(rng.random() < p_win for _ in range(2))
    return wins, 2 - wins


def real_pair(args, match, opening, plus, minus, index):
    """Plays one colour-swapped pair theta+ vs theta-; theta+'s wins and losses."""
    a = ("plus", args.engine, "uci", {n: str(engine_value(v)) for n, v in plus.items()})
    b = ("minus", args.engine, "uci", {n: str(engine_value(v)) for n, v in minus.items()})
    margs = types.SimpleNamespace(nodes=args.nodes, tc="-", margin=0.0, max_plies=args.max_plies,
                                  resign=args.resign, draw=args.draw, tb=None, tb_pieces=0,
                                  focus="plus")
    stats = match.Stats()
    r1, _ = match.play_game(a, b, opening, (0, 0, 0), margs, stats, 2 * index + 1)
    r2, _ = match.play_game(b, a, opening, (0, 0, 0), margs, stats, 2 * index + 2)
    faults = stats.forfeits + stats.illegal + stats.crashes
    if faults:
        raise RuntimeError(f"a game ended by a fault (forfeits {stats.forfeits}, illegal "
                           f"{stats.illegal}, crashes {stats.crashes})")
    s = [r1, 1 - r2]  # from theta+'s side
    return sum(1 for x in s if x == 1), sum(1 for x in s if x == 0)


class SignalStop:
    """Ctrl-C, SIGINT and SIGTERM stop the run as KeyboardInterrupt, but never
    inside `hold()` (an iteration's update, state file and path row), where
    the signal waits for the block's end: the state on disk is always that of
    the last finished iteration. A run started in the background by a shell
    (`nohup ... &`) inherits SIGINT ignored, so the handlers are set anew."""

    def __init__(self):
        self.held = False
        self.pending = False
        signal.signal(signal.SIGINT, self._handle)
        signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, signum, frame):
        if self.held:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def hold(self):
        self.held = True
        try:
            yield
        finally:
            self.held = False
        if self.pending:
            raise KeyboardInterrupt


def save_state(path, spsa):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(spsa.state(), indent=1))
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", required=True, help="OpenBench SPSA input (`ferrum spsa` prints it)")
    ap.add_argument("--engine", help="the Ferrum binary (both sides)")
    ap.add_argument("--book", help="EPD, PGN or zipped EPD of openings")
    ap.add_argument("--nodes", type=int, default=10000, help="nodes a move (default 10000)")
    ap.add_argument("--iterations", type=int, default=10000, help="planned iterations N (the schedule)")
    ap.add_argument("--stop-after", type=int, default=0, help="stop after this many iterations in total "
                    "(default: N); the state resumes later")
    ap.add_argument("--pairs", type=int, default=0, help="game pairs an iteration (default: --concurrency)")
    ap.add_argument("--concurrency", type=int, default=2, help="pairs played at once")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--state", default="spsa.json", help="state file, written every iteration; resumed")
    ap.add_argument("--csv", help="append each iteration's theta here")
    ap.add_argument("--max-plies", type=int, default=400, help="adjudicate a draw after this many plies")
    ap.add_argument("--resign", nargs=2, type=int, metavar=("MOVECOUNT", "SCORE"),
                    help="adjudicate by the engines' scores, as scripts/match.py --resign (e.g. 3 1000)")
    ap.add_argument("--draw", nargs=3, type=int, metavar=("MOVENUMBER", "MOVECOUNT", "SCORE"),
                    help="adjudicate by the engines' scores, as scripts/match.py --draw (e.g. 40 8 10)")
    ap.add_argument("--report", action="store_true", help="print the state's values and exit")
    ap.add_argument("--every", type=int, default=10, help="progress line every this many iterations")
    ap.add_argument("--synthetic", metavar="NAME=VALUE,...",
                    help="no games: a known quadratic with this optimum scores the pairs (for tests)")
    args = ap.parse_args(argv)

    try:
        params = parse_params(pathlib.Path(args.params).read_text())
    except (OSError, ValueError) as e:
        print(f"spsa.py: {args.params}: {e}", file=sys.stderr)
        return 2
    if args.iterations < 1:
        ap.error("--iterations must be at least 1")
    spsa = Spsa(params, args.iterations, args.seed)
    state_path = pathlib.Path(args.state)
    if state_path.exists():
        try:
            state = json.loads(state_path.read_text())
            if args.report:
                # A report reads the run as it was started.
                spsa = Spsa(params, state["iterations"], state["seed"])
            spsa.restore(state)
        except (ValueError, KeyError, json.JSONDecodeError) as e:
            print(f"spsa.py: {state_path}: {e}", file=sys.stderr)
            return 2
        if not args.report:
            print(f"resuming {state_path} at iteration {spsa.k} ({spsa.games} games)", flush=True)
    if args.report:
        print(report(spsa))
        return 0

    optimum = None
    if args.synthetic:
        optimum = {p.name: (p.lo + p.hi) / 2 for p in params}
        for kv in args.synthetic.split(","):
            if kv.strip():
                n, v = kv.split("=", 1)
                optimum[n.strip()] = float(v)
    else:
        if not args.engine or not args.book:
            ap.error("--engine and --book are needed (or --synthetic)")
        os.environ["FERRUM_TUNE"] = "1"  # the engines list the parameters as options
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        import match  # noqa: PLC0415 (the game runner, only for real games)
        book = match.load_book(args.book)

    pairs = args.pairs or args.concurrency
    stop_at = min(args.stop_after or args.iterations, args.iterations)
    csv_file = open(args.csv, "a", newline="") if args.csv else None
    writer = csv.writer(csv_file) if csv_file else None
    if writer and csv_file.tell() == 0:
        writer.writerow(["iteration", "games"] + [p.name for p in params])
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.concurrency))
    stop = SignalStop()
    try:
        while spsa.k < stop_at:
            k = spsa.k + 1
            signs = spsa.signs(k)
            plus, minus = spsa.perturbed(k, signs)
            rng = random.Random(f"{args.seed}/{k}/games")
            if optimum is not None:
                results = [synthetic_pair(plus, minus, optimum, params, rng) for _ in range(pairs)]
            else:
                openings = [rng.choice(book) for _ in range(pairs)]
                futures = [pool.submit(real_pair, args, match, openings[i], plus, minus, k * pairs + i)
                           for i in range(pairs)]
                results = [f.result() for f in futures]
            wins = sum(w for w, _ in results)
            losses = sum(l for _, l in results)
            with stop.hold():
                spsa.update(k, signs, wins, losses, 2 * pairs)
                save_state(state_path, spsa)
                if writer:
                    writer.writerow([k, spsa.games] + [f"{spsa.theta[p.name]:.4f}" for p in params])
                    csv_file.flush()
                if k % args.every == 0 or k == stop_at:
                    score = (spsa.wins + (spsa.games - spsa.wins - spsa.losses) / 2) / max(1, spsa.games)
                    print(f"iteration {k}/{args.iterations}  games {spsa.games}  theta+ score {score:.3f}  "
                          f"moved most: {drift_text(spsa)}", flush=True)
    except KeyboardInterrupt:
        print(f"\nstopped; {state_path} holds iteration {spsa.k}: the same command resumes", flush=True)
        return 130
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        if csv_file:
            csv_file.close()
    print(report(spsa))
    return 0


if __name__ == "__main__":
    sys.exit(main())
