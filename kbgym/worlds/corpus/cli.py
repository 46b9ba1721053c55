"""``kbgym import corpus --docs DIR --questions Q.jsonl --out U``: register with
``add_parser(subparsers)``."""

from __future__ import annotations

import argparse

from kbgym.cli.args import SEED, SIZE


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("import", help="build a universe from your own documents",
                              description="Turn a document store into a KBGym universe.")
    sub = p.add_subparsers(dest="import_command", required=True)
    c = sub.add_parser(
        "corpus", help="Markdown/text files + questions JSONL -> universe.json",
        description="Split every .md/.markdown/.txt file under --docs into notes (stable ids, "
                    "source path, line range, content hash) and read questions from JSONL "
                    "(question, answers, optional support, template, category).")
    c.add_argument("--docs", required=True, help="folder of .md/.markdown/.txt files")
    c.add_argument("--questions", required=True, help="questions, one JSON object a line")
    c.add_argument("--out", default="universe.json", help="output file (default universe.json)")
    c.add_argument("--unit", choices=["sentence", "paragraph"], default="sentence",
                   help="one note per sentence (default) or per paragraph")
    c.add_argument("--context", choices=["title", "person", "none"], default="title",
                   help="title: prefix a note lacking its document's title with it (default); "
                        "person: also resolve a leading pronoun to the title; none")
    c.add_argument("--keys", help="key extractor module:function (default: capitalised runs)")
    c.add_argument("--seed", type=SEED, default=0,
                   help="master seed of the split draws and later runs (default 0)")
    for flag, default in (("train", 150), ("test-in", 100), ("test-out", 50), ("eval-in", 20),
                          ("eval-out", 10)):
        c.add_argument(f"--{flag}", type=SIZE, dest=flag.replace("-", "_"),
                       help=f"split size (default {default}, scaled down to a corpus of fewer "
                            "than 330 questions)")
    c.add_argument("--quiet", action="store_true", help="print nothing")
    c.set_defaults(func=cmd_import_corpus)
    return p


def cmd_import_corpus(args) -> int:
    import sys

    from kbgym.worlds.corpus import import_corpus, summarize
    from kbgym.worlds.corpus.universe import DEFAULT_EVAL_SIZES, DEFAULT_SIZES, empty_splits
    from kbgym.jsonio import atomic_write_text

    from kbgym.cli.common import check_output_file
    from kbgym.shipped import resolve

    # examples/corpus/... names the shipped example corpus from any folder
    args.docs, args.questions = str(resolve(args.docs, "docs")), str(resolve(args.questions, "questions"))
    check_output_file(args.out, questions=args.questions)
    given = (args.train, args.test_in, args.test_out, args.eval_in, args.eval_out)
    fitted = all(v is None for v in given)  # none given: the defaults fitted to the corpus
    full = [d if v is None else v for v, d in zip(given, (*DEFAULT_SIZES, *DEFAULT_EVAL_SIZES))]
    u = import_corpus(args.docs, args.questions, seed=args.seed, unit=args.unit,
                      context=args.context, keys=args.keys,
                      sizes=None if fitted else full[:3], eval_sizes=None if fitted else full[3:])
    atomic_write_text(args.out, u.dumps())
    if not args.quiet:
        print(summarize(u))
        print(f"wrote {args.out}")
    for name in empty_splits(u):
        print(f"kbgym import: warning: split {name} is empty (too few questions, or none "
              f"{'shares' if name.endswith('_in') else 'lacks'} an entity with training); set "
              "the split sizes (--train, --test-in, ...) to fit the corpus", file=sys.stderr)
    return 0
