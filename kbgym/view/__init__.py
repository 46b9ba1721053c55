"""``kbgym view``: one self-contained HTML page of what a curator built (docs/protocol.md §16).

:func:`run_view` / :func:`library_view` extract the data (:mod:`kbgym.view.data`);
:func:`write_page` renders and writes it (:mod:`kbgym.view.page`).
"""

from kbgym.view.data import LIMITS, ViewLimits, library_view, run_view
from kbgym.view.page import SIZE_BOUND, render_page, write_page

__all__ = ["LIMITS", "SIZE_BOUND", "ViewLimits", "library_view", "render_page", "run_view",
           "write_page", "write_run_page"]


def write_run_page(run_dir, path, **options) -> int:
    """:func:`run_view` of ``run_dir`` (``options`` are its keywords) written to ``path``;
    returns the page's size in bytes."""
    return write_page(run_view(run_dir, **options), path)
