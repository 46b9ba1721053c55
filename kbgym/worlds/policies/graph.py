"""The evidence graph of a policies library, built from its notes' references without a
model (baseline ``evidence``: ``kbgym baseline evidence``).

Every note written in one of the world's sentence forms (:func:`~.sentences.parse_sentence`)
names its subjects: the provision it is about (``HO-3 §I.B``), its own document, the document
it names, the bulletin series of a minimum. An indirect reference (``the water backup limit of
the Homeowners Special Form``) is resolved first, from the forms' headers (title -> code) and
the forms' own sentences (concept -> section). From those references alone:

1. one **topic note** per subject (authored), ``Evidence for form HO-3 §I.B.``, ``Evidence for
   Endorsement HE-12.``, ``Evidence for the minimum cancellation notice period.``, in order of
   first mention (note id order);
2. topic ``cites`` every note about its subject, then the headers (``issued`` notes) of every
   document whose notes are about it (what those documents attach to, and when; a form's
   header gives its title, which resolves the indirect references);
3. topic ``related`` the topics of the documents that refer to its subject (the reverse of a
   reference: who amends, replaces, refers to, states or supersedes it), in id order;
4. every referring note links the topic of what it refers to, typed by the sentence:
   ``amends`` (an endorsement's or state form's change), ``refers_to`` (a guideline's or
   manual's reference), ``cites`` (a memo's statement), ``supersedes`` (a bulletin's); and
   ``member_of`` the topic of its own document (a form's notes: of their provision).

So ``locate`` finds a topic by its subject's name (authored notes are listed first) and
``expand`` follows its typed edges: the notes about it in one step, the documents that depend
on it one step further. Deterministic: the same library gives the same snapshot.
"""

from __future__ import annotations

from kbgym.baselines.common import BuildMeta, Builder, with_gc_paused
from kbgym.errors import ConfigError
from kbgym.library.graph import Library, id_num
from kbgym.worlds.policies import grammar as S

NAME = "evidence"


@with_gc_paused
def build_evidence_graph(library: Library) -> BuildMeta:
    """Build the evidence graph on a copy of ``library`` (note text only; module doc)."""
    b = Builder(library)
    lib = b.lib
    stmts = {}
    for node in sorted(lib, key=lambda n: n.num):
        st = S.parse_sentence(node.text)
        if st is not None:
            stmts[node.id] = st
    if not stmts:
        raise ConfigError("the evidence graph reads the policies world's sentences; this "
                          "library has none (build a universe with --world policies)")
    # indirect references (a form's title and a concept): resolved from the forms' headers
    # and the forms' own sentences, as a reader would
    form_of_title = {st.title: st.doc for st in stmts.values()
                     if st.kind == "issued" and st.title and S.kind_of(st.doc) == "form"}
    section_of = {(st.form, st.concept): st.section for st in stmts.values()
                  if st.provision and st.concept and not st.indirect}
    stmts = {nid: S.resolve(st, form_of_title, section_of) for nid, st in stmts.items()}
    about: dict[str, list[str]] = {}
    headers: dict[str, list[str]] = {}
    for nid, st in stmts.items():
        for subject in st.subjects():
            about.setdefault(subject, []).append(nid)
        if st.kind == "issued":
            headers.setdefault(st.doc, []).append(nid)
    about = {s: ids for s, ids in about.items() if S.kind_of(s) != "form"}  # forms: per provision
    topic = {subject: b.add(S.subject_title(subject)) for subject in about}
    referrers: dict[str, set[str]] = {}
    for nid, st in stmts.items():
        for _, target in st.references:
            referrers.setdefault(target, set()).add(st.doc)
    for subject, ids in about.items():
        docs = {stmts[n].doc for n in ids} - {subject}
        dated = sorted({h for d in docs for h in headers.get(d, ())} - set(ids), key=id_num)
        lib.link_many(topic[subject], ids + dated, "cites")
        related = sorted((topic[d] for d in referrers.get(subject, ()) if d in topic), key=id_num)
        if related:
            lib.link_many(topic[subject], related, "related")
    for nid, st in stmts.items():
        for ltype, target in st.references:
            if target in topic:
                lib.link(nid, topic[target], ltype)
        own = st.provision if S.kind_of(st.doc) == "form" else st.doc
        if own in topic and topic[own] not in lib[nid].links:
            lib.link(nid, topic[own], "member_of")
    return b.finish(NAME, {})
