"""``kbgym baseline {b2,b3,b4,oracle}`` (SPEC §16.4): build a baseline over a universe's B1 and
write its snapshot and ``build_meta.json``.

Wire it into the main parser with ``add_parser(subparsers)``; the subcommand's ``func``
returns the exit status and raises :class:`~kbgym.errors.ConfigError` (one line) for anything
the user can fix.
"""

from __future__ import annotations

import argparse

from kbgym.cli.args import of
from pathlib import Path

from kbgym.errors import ConfigError

#: The agent plugin that would write LLM summaries (SPEC §14): a factory taking ``model``,
#: ``base_url`` and ``api_key_env`` and returning ``summarize(texts, max_words) -> str``.
SUMMARIZER_PLUGIN = "openai-summarizer"

_FLAG_OF = {"max_size": "--max-size", "synapse_cap": "--synapse-cap", "branching": "--branching",
            "no_entity_index": "--no-entity-index"}  # fmt: skip


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``baseline`` subcommand to an ``argparse`` subparsers object."""
    from kbgym.baselines import B2Params, B3Params, B4Params

    p = subparsers.add_parser(
        "baseline", help="build an unsupervised baseline library (B2, B3, B4, the oracle, or "
                         "the policies world's evidence graph)",
        description="Build a baseline over the universe's untrained library (or over "
                    "--library) and write kb_{name}.json and build_meta.json into --out.")
    p.add_argument("name", choices=["b2", "b3", "b4", "oracle", "evidence"], type=str.lower,
                   help="which baseline to build (evidence: typed links from a policies "
                        "universe's references)")
    text = p.add_mutually_exclusive_group()
    text.add_argument("--stub", action="store_true",
                      help="fixed stub summaries (the default; no model needed)")
    text.add_argument("--model", help="write B2/B4 summaries with this LLM")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    p.add_argument("--api-key-env",
                   help="name of the environment variable holding the API key, with --model "
                        "(default OPENAI_API_KEY)")
    p.add_argument("--max-size", type=of(B2Params, "max_size"), dest="max_size",
                   help="B2 community size (default 10)")
    p.add_argument("--synapse-cap", type=of(B3Params, "synapse_cap"), dest="synapse_cap",
                   help="B3: link statements of people with at most this many (default 40)")
    p.add_argument("--no-entity-index", action="store_true", default=None,
                   dest="no_entity_index", help="B3: synapses only, no entity index notes")
    p.add_argument("--branching", type=of(B4Params, "branching"),
                   help="B4 level-2 group size (default 10)")
    p.add_argument("--universe", help="universe.json (default: the default universe)")
    p.add_argument("--library", help="build over this snapshot (e.g. a trained library) "
                                     "instead of B1")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_baseline)
    return p


def _params(args) -> dict:
    from kbgym.baselines import PARAMS

    params = {}
    for key, flag in _FLAG_OF.items():
        value = getattr(args, key, None)
        if value is None:
            continue
        if key not in PARAMS[args.name]:
            owner = next(n for n, ps in PARAMS.items() if key in ps)
            raise ConfigError(f"{flag} applies to {owner} only, not {args.name}")
        params[key] = value
    return params


def _summarizer(args):
    """None for stub text, else the LLM summariser plugin (a one-line error when absent)."""
    if not args.model:
        if args.base_url or args.api_key_env:
            raise ConfigError("--base-url and --api-key-env apply only with --model (LLM "
                              "summaries)")
        return None
    from kbgym.baselines import LLM_BASELINES

    if args.name not in LLM_BASELINES:
        raise ConfigError(f"--model applies to {' and '.join(LLM_BASELINES)} only; "
                          f"{args.name} writes no summaries")
    from kbgym.plugins import available, make_agent

    if SUMMARIZER_PLUGIN not in available():
        raise ConfigError(f"LLM summaries need an OpenAI endpoint agent, the {SUMMARIZER_PLUGIN!r} "
                          f"plugin, which is not available yet; use --stub")
    opts = {"model": args.model, "api_key_env": args.api_key_env or "OPENAI_API_KEY"}
    if args.base_url:
        opts["base_url"] = args.base_url
    return make_agent(SUMMARIZER_PLUGIN, **opts)


def cmd_baseline(args) -> int:
    from kbgym.baselines import write_baseline
    from kbgym.env.env import load_universe

    params = _params(args)
    summarize = _summarizer(args)
    try:
        universe, upath = load_universe(args.universe)
    except FileNotFoundError:
        raise ConfigError(f"no such universe file: {args.universe}") from None
    except (ValueError, KeyError) as err:
        raise ConfigError(f"{args.universe}: not a kbgym universe file ({err})") from None
    library = None
    if args.library:
        from kbgym.cli.common import open_library

        library, _ = open_library(args.library, universe)
    out = write_baseline(Path(args.out), args.name, universe, upath, params,
                         summarize=summarize, library=library)
    if not args.quiet:
        m, s = out["meta"], out["stats"]
        llm = m["llm"]
        cost = (f"{llm['calls']} LLM calls, {llm['tokens_in']}+{llm['tokens_out']} tokens"
                if llm else "0 tokens")
        print(f"baseline {m['baseline']}: +{m['nodes_added']} notes, +{m['links_added']} links, "
              f"index_coverage {s['index_coverage']:.3f}, {cost}")
        print(f"wrote {out['snapshot']} ({out['content_hash']}) and {out['build_meta']}")
    return 0
