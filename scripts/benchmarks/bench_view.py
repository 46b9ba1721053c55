"""``kbgym view`` on the default demo: what it adds to the demo, the page's size, and how fast
the page loads in headless Chromium.

    python scripts/benchmarks/bench_view.py [--repeats 3] [--loads 9] [--no-browser]

1. ``kbgym demo`` with and without the view (``--no-view``; plots off in both), interleaved,
   ``--repeats`` times each: median wall and CPU seconds, and their ratio.
2. Building the view of that demo (``run_view`` + ``write_page``): median wall and CPU of 5.
3. The page in headless Chromium (``make view-deps``): ``--loads`` fresh loads of the file
   (about:blank between them), each timed from the navigation start to the moment the page's
   script has rendered it (``data-ready``; ``window.__kbgymReadyMs``), and the wall time of
   ``driver.get`` (which returns after the load event). Medians and the worst.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from kbgym.cli import main as cli


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="demo runs per arm (default 3)")
    ap.add_argument("--loads", type=int, default=9, help="page loads in Chromium (default 9)")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium part")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        demo_dir = Path(tmp) / "demo"
        times = {False: [], True: []}
        for _ in range(args.repeats):  # interleaved: the machine's load hits both arms alike
            for view in (False, True):
                args_ = ["demo", "--out", str(demo_dir), "--no-plots", "--quiet"]
                _, wall, cpu = _timed(lambda: cli(args_ + ([] if view else ["--no-view"])))
                times[view].append((wall, cpu))
        print("1. demo (plots off), median of", args.repeats)
        print(f"{'arm':12s}{'wall s':>9s}{'cpu s':>9s}")
        med = {}
        for view in (False, True):
            w = statistics.median(t[0] for t in times[view])
            c = statistics.median(t[1] for t in times[view])
            med[view] = (w, c)
            print(f"{'with view' if view else 'without':12s}{w:9.2f}{c:9.2f}")
        print(f"ratio with/without: wall {med[True][0] / med[False][0]:.3f}, "
              f"cpu {med[True][1] / med[False][1]:.3f}")

        from kbgym.files import load_universe_file
        from kbgym.view import run_view, write_page

        u = load_universe_file(demo_dir / "universe.json")
        page = demo_dir / "view.html"
        builds = [_timed(lambda: write_page(run_view(demo_dir / "train", universe=u,
                                                     probe_table=demo_dir / "probe_table.json"),
                                            page)) for _ in range(5)]
        size = builds[0][0]
        print("\n2. building the view (run_view + write_page), median of 5: "
              f"wall {statistics.median(b[1] for b in builds):.2f} s, "
              f"cpu {statistics.median(b[2] for b in builds):.2f} s; "
              f"page {size} bytes ({size / 2**20:.2f} MiB; bound 10 MiB)")

        if args.no_browser:
            return
        from kbgym.view.browser import chromium, file_url, missing

        why = missing()
        if why:
            print(f"\n3. Chromium: skipped - {why}")
            sys.exit(0)
        ready, gets = [], []
        with chromium() as d:
            for _ in range(args.loads):
                d.get("about:blank")
                t = time.perf_counter()
                d.get(file_url(page))
                gets.append(time.perf_counter() - t)
                if d.execute_script("return document.body.getAttribute('data-ready')") != "1":
                    raise SystemExit("the page did not render (no data-ready)")
                ready.append(d.execute_script("return window.__kbgymReadyMs") / 1000)
        print(f"\n3. page load in headless Chromium ({d.capabilities.get('browserVersion')}), "
              f"{args.loads} fresh loads:")
        print(f"   navigation start -> rendered: median {statistics.median(ready):.3f} s, "
              f"worst {max(ready):.3f} s")
        print(f"   driver.get (to the load event): median {statistics.median(gets):.3f} s, "
              f"worst {max(gets):.3f} s")


if __name__ == "__main__":
    main()
