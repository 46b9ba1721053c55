"""Import time of a large PhantomWiki generation (issue 13): ``adapt_phantomwiki`` by stage.

    .venv/bin/python scripts/benchmarks/pw_import_bench.py                       # /tmp/pw_5k (generated)
    .venv/bin/python scripts/benchmarks/pw_import_bench.py --src OUT --repeats 5

Without ``--src`` the script uses /tmp/pw_5k and, when it has no articles.json yet, makes it
with phantom-wiki 1.0.3 from ``.venv-pw`` (Python 3.12, SWI-Prolog; KBGym itself needs
neither):

    pw-generate --seed 1 --article-format json --question-format json \\
        --num-family-trees 200 --question-depth 10 --num-questions-per-type 50 \\
        --skip-solution-traces -od /tmp/pw_5k

(200 trees of 25 people: 5,000 articles; 20 types x 50 questions). It prints the median over
``--repeats`` runs of each stage (read the JSON; sentences, people, nodes and the parsed fact
store; support recomputation, splits + records, serialising the universe) and of the whole
import, plus the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kbgym.worlds.phantomwiki import adapt_phantomwiki, read_source  # noqa: E402
from kbgym.worlds.phantomwiki.adapt import _people_and_nodes  # noqa: E402
from kbgym.worlds.phantomwiki.questions import drop_repeats, recompute_support  # noqa: E402

DEFAULT = Path("/tmp/pw_5k")
GENERATE = [str(ROOT / ".venv-pw/bin/pw-generate"), "--seed", "1", "--article-format", "json",
            "--question-format", "json", "--num-family-trees", "200", "--question-depth", "10",
            "--num-questions-per-type", "50", "--skip-solution-traces", "-od"]


def _timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=None, help=f"phantom-wiki output (default {DEFAULT})")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    src = Path(args.src) if args.src else DEFAULT
    if args.src is None and not (src / "articles.json").exists():
        cmd = GENERATE + [str(src)]
        print("$ " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, capture_output=True)

    stages: dict[str, list[float]] = {k: [] for k in (
        "read json", "sentences, people, nodes, facts", "support", "whole import", "serialise")}
    for _ in range(args.repeats):
        (articles, questions), t = _timed(read_source, src)
        stages["read json"].append(t)
        (people, nodes, _, store), t = _timed(_people_and_nodes, articles)
        stages["sentences, people, nodes, facts"].append(t)
        kept, _ = drop_repeats(questions)
        sups, t = _timed(lambda: [recompute_support(q, store) for q in kept])
        stages["support"].append(t)
        u, t = _timed(adapt_phantomwiki, src)
        stages["whole import"].append(t)
        _, t = _timed(u.dumps)
        stages["serialise"].append(t)
    rep = u.meta["adapter_report"]
    sup = rep["support"]
    print(f"source       {src}")
    print(f"people       {len(u.people)}   nodes {len(u.nodes)}   questions {rep['questions']} "
          f"({len(u.vocab['templates'])} types)")
    print(f"support      recomputed {sup['recomputed']}/{rep['questions']} "
          f"({100 * sup['recomputed'] / max(rep['questions'], 1):.1f} %), unavailable "
          f"{sup['unavailable']}")
    print(f"repeats      {args.repeats} (medians below)")
    for name, ts in stages.items():
        print(f"{name:32s} {statistics.median(ts):8.3f} s")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS     {rss:8.1f} MiB")


if __name__ == "__main__":
    main()
