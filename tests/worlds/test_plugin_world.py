"""A world installed through the ``kbgym.worlds`` entry point group is found; where no
distribution declares the group, the registry does not import ``importlib.metadata``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kbgym.worlds.registry import GROUP, _may_declare

PLUGIN = '''
from kbgym.worlds.interface import BaseWorld


class PlugWorld(BaseWorld):
    name = "plugtest"
    description = "a world from an entry point"


WORLD = PlugWorld()
'''

PROBE = ("import sys\n"
         "from kbgym.worlds import worlds\n"
         "print('plugtest' in worlds(), 'importlib.metadata' in sys.modules)")


def _probe(path) -> str:
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, env=env)
    return out.stdout.strip().splitlines()[-1]


def test_an_entry_point_world_is_found(tmp_path):
    (tmp_path / "plugworld.py").write_text(PLUGIN, encoding="utf-8")
    dist = tmp_path / "plugworld-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: plugworld\nVersion: 1.0\n",
                                   encoding="utf-8")
    (dist / "entry_points.txt").write_text("[kbgym.worlds]\nplugtest = plugworld:WORLD\n",
                                           encoding="utf-8")
    assert _probe(tmp_path) == "True True"


def test_without_one_importlib_metadata_is_not_imported(tmp_path):
    if _may_declare(GROUP):
        pytest.skip("a distribution installed here declares kbgym.worlds")
    (tmp_path / "plugworld.py").write_text(PLUGIN, encoding="utf-8")  # not declared
    assert _probe(tmp_path) == "False False"
