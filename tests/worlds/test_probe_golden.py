"""Golden hashes of every world's gradient probe: the one key-coverage assembler
(kbgym/runs/probe.py) must give each world the bytes its own probe code gave before
(hashes taken from the four separate implementations, 2026-12-06, issue 33)."""

from __future__ import annotations

import pytest

import small_worlds as S
from kbgym.jsonio import canonical, sha256_hex

#: case -> (universe hash, probe hash, probe questions)
GOLDEN = {
    "people": ("sha256:aac9c93e1c2bb8add8d760c15ea2ea72232b9560cae40c943c7a0e6226a03a78", "sha256:4571b093f1af972111c577c402246fe357c8ad2c0dfb96b11d98370dcc22edf7", 40),
    "people-seed5": ("sha256:aac9c93e1c2bb8add8d760c15ea2ea72232b9560cae40c943c7a0e6226a03a78", "sha256:b4ea1f95f54c9100f42d9cafb81af87d33e12f294454c27c5ec3fd5bcc204424", 25),
    "policies": ("sha256:ac1c522527b79bec9ab9f2f91553590eae158f3ba416db9c0ef3dded65447c64", "sha256:fcbf85cf3d49e3980c6618c79822ff6b5a6429649e412b041c3869ff60106070", 21),
    "phantomwiki": ("sha256:6bed1eae7c34e358b216de6539d125132743be28ab02ae1f7dde336f915b517d", "sha256:25af07c40f8a82bba6cfa229e65d825ce588b87f38694b95c68e9c16cf45aa36", 24),
    "phantomwiki-category": ("sha256:6bed1eae7c34e358b216de6539d125132743be28ab02ae1f7dde336f915b517d", "sha256:53b31de29830b8670eeeae6d8a15678386485db41a15d304b88d1e9e15d2876b", 18),
    # taken from the casebook world's own probe code before it joined the assembler; re-pinned
    # for generator version 5 (issue 36: a new universe, so a new probe; the assembler is the
    # same code that matched version 1's bytes)
    "casebook": ("sha256:bf1ba3f3c24868f038c7181df245d6e348ede748908596f7446a55068ba8c253", "sha256:3ed180fb1901090403f2cde8902e7694fc37659283bf8e3756746b49c7e828de", 18),
    "corpus": ("sha256:77746250f7387573279f7bcf43f9495b6a13e6622b3c13e5dfc7394edefc32e5", "sha256:d649bfc2930b2b31b5516bdbde538d892dfe579289347adbdcb8f9cb41b935d2", 18),
}


def _probe(case, tmp_path):
    from kbgym.runs.probe import make_probe
    from kbgym.worlds.corpus import make_corpus_probe
    from kbgym.worlds.phantomwiki.probe import make_pw_probe
    from kbgym.worlds.policies.probe import make_policy_probe

    if case == "people":
        u = S.people()
        return u, make_probe(u, S.train_log(u), per_group=8, train_log_hash="sha256:x")
    if case == "people-seed5":
        u = S.people()
        return u, make_probe(u, S.train_log(u, 20), per_group=5, seed=5, train_log_hash=None)
    if case == "policies":
        u = S.policies()
        return u, make_policy_probe(u, S.train_log(u), per_group=12, train_log_hash="sha256:x")
    if case == "phantomwiki":
        u = S.phantomwiki()
        return u, make_pw_probe(u, S.train_log(u), train_log_hash="sha256:x")
    if case == "phantomwiki-category":
        u = S.phantomwiki()
        return u, make_pw_probe(u, S.train_log(u), stratify="category", per_template=2,
                                train_log_hash="sha256:x")
    if case == "casebook":
        from kbgym.jsonio import canonical as c
        from kbgym.worlds import world
        from kbgym.worlds.casebook.probe import make_casebook_probe_from_run

        w = world("casebook")
        u = w.generate(w.config({}, seed=0))
        (tmp_path / "train_log.jsonl").write_text("".join(
            c({"qid": q, "iteration": i + 1}) + "\n"
            for i, q in enumerate(u.splits["train"][:12])))
        return u, make_casebook_probe_from_run(u, tmp_path, per_group=12)
    u = S.corpus(tmp_path)
    return u, make_corpus_probe(u, S.train_log(u), per_group=6, train_log_hash="sha256:x")


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_probe_bytes_are_unchanged(case, tmp_path):
    u, probe = _probe(case, tmp_path)
    universe_hash, probe_hash, n = GOLDEN[case]
    assert u.hash == universe_hash
    assert sum(len(v) for v in probe["splits"].values()) == n
    assert "sha256:" + sha256_hex(canonical(probe).encode()) == probe_hash


def test_a_pw_probe_keeps_its_own_seed_through_the_generic_entry():
    """The commands make every world's probe through one entry; a PhantomWiki probe is drawn
    with its universe's seed whatever seed they pass (its own --seed is phantomwiki-probe's)."""
    from kbgym.runs.probe import make_probe
    from kbgym.worlds.phantomwiki.probe import make_pw_probe

    u = S.phantomwiki()
    log = S.train_log(u)
    assert make_probe(u, log, per_group=3, seed=99) == make_pw_probe(u, log)
    assert make_pw_probe(u, log, seed=99)["seed"] == 99 != make_pw_probe(u, log)["seed"]
