"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks:``).

- ``index.md`` is the README, generated at build time with its links rewritten for the site,
  so the first page is never a second copy to keep in step.
- ``reference/cli.md``'s marker is replaced by the ``--help`` of every ``kbgym`` parser
  (:func:`cli_reference`), generated from ``kbgym.cli.build_parser()``.
- Pages that exist but are not in ``nav`` (new pages other streams add) are appended under
  "More", so the nav never drops a page; a nav entry whose page is gone (renamed, or not yet
  written) is left out rather than failing the strict build.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from mkdocs.structure.files import File
from mkdocs.structure.nav import Section
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
CLI_MARKER = "<!-- kbgym-cli-reference -->"


def readme_as_index() -> str:
    """README.md with its repository-relative links made site-relative: ``docs/x.md`` ->
    ``x.md``; files outside docs/ (LICENSE) are named, not linked."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text)
    return re.sub(r"\[([^\]]+)\]\((?!https?:|[\w./-]+\.md)([^)]+)\)", r"\1 (`\2` in the repository)",
                  text)


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def cli_reference() -> str:
    """Every parser's help, in the order ``kbgym --help`` lists the commands."""
    from kbgym.cli import build_parser

    os.environ["COLUMNS"] = "96"  # argparse wraps to the terminal: fix it for the page
    out = []
    for path, parser in _parsers(build_parser()):
        title = " ".join(("kbgym", *path))
        depth = "#" * min(2 + max(len(path) - 1, 0), 4)
        out.append(f"{depth} `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(out)


def _existing(items, docs: Path):
    """The nav without entries whose Markdown page does not exist (index.md is generated)."""
    out = []
    for item in items:
        if isinstance(item, dict):
            (title, value), = item.items()
            if isinstance(value, list):
                kept = _existing(value, docs)
                if kept:
                    out.append({title: kept})
            elif value == "index.md" or "://" in value or (docs / value).exists():
                out.append(item)
        elif isinstance(item, str) and (item == "index.md" or (docs / item).exists()):
            out.append(item)
    return out


def on_config(config):
    if config.get("nav"):
        config["nav"] = _existing(config["nav"], Path(config["docs_dir"]))
    return config


def on_files(files, config):
    if files.get_file_from_path("index.md") is None:
        files.append(File.generated(config, "index.md", content=readme_as_index()))
    return files


def on_page_markdown(markdown, page, config, files):
    if CLI_MARKER in markdown:
        return markdown.replace(CLI_MARKER, cli_reference())
    return markdown


def on_nav(nav, config, files):
    listed = {p.file.src_uri for p in nav.pages}
    extra = [f for f in files.documentation_pages() if f.src_uri not in listed]
    if extra:
        pages = [Page(None, f, config) for f in sorted(extra, key=lambda f: f.src_uri)]
        more = Section("More", pages)
        nav.items.append(more)
        nav.pages.extend(pages)
        for i, p in enumerate(nav.pages):  # previous/next links over the whole nav
            p.previous_page = nav.pages[i - 1] if i else None
            p.next_page = nav.pages[i + 1] if i + 1 < len(nav.pages) else None
        for p in pages:
            p.parent = more
    return nav
