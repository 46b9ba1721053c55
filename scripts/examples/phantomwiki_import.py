"""Import a PhantomWiki output folder as a KBGym universe (SPEC §17).

    python scripts/examples/phantomwiki_import.py --src OUT_DIR --out pw_universe.json [--seed 0]
        [--report report.json]

OUT_DIR is what phantom-wiki 1.0.3 writes (it needs SWI-Prolog and Python >= 3.12; KBGym needs
neither). The paper's instance:

    pw-generate --seed 1 --article-format json --question-format json \\
        --num-family-trees 16 --num-questions-per-type 60 -od OUT_DIR

gives 405 articles, 3,403 nodes and 480 questions (477 after dropping repeated texts). The
same command is ``kbgym adapt phantomwiki`` once :mod:`kbgym.worlds.phantomwiki.cli` is wired in.
"""

from __future__ import annotations

import argparse
import sys

from kbgym.worlds.phantomwiki.cli import add_parser
from kbgym.errors import KBGymError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="phantomwiki_import", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    add_parser(sub)
    args = parser.parse_args(["adapt", "phantomwiki", *(sys.argv[1:] if argv is None else argv)])
    try:
        return args.func(args)
    except (KBGymError, OSError) as err:
        print(f"phantomwiki_import: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
