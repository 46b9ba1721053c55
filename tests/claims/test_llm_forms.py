"""Truthful notes written the way language models write them (markdown, JSON and YAML records,
tables, FAQ notes, prose pages, asides, breadcrumbs, members pointing back to their set):
the claim reader reads something from each, and nothing false. A false reading would make the
misinformation metric flag a truthful library as harmful (issue 34)."""

from __future__ import annotations

import random

import pytest

from kbgym.claims import fact_key, people_vocabulary, read_claims
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.facts import parse_fact

#: One note per form; fields: x (the person), F/K (friends/children, several joinings), job,
#: city, hobby, spouse (s0, sp: husband/wife), pronouns (Pro, pos, Pos), a friend's or a
#: child's values (f0job, f0city, k0job, ...), the friends grouped by city (Fcity).
FORMS = [
    "{x}'s friends ({n}): {F}",
    "Friends of {x} ({n} total): {Fs}",
    "{x} — Friends\n{Fn}",
    "**{x}**\n- **Friends:** {F}\n- **Job:** {job}",
    "{x}\nFriends: {Fp}",
    "Q: Who are {x}'s friends?\nA: {Fa}.",
    "Summary: {x} ({job}) has {n} friends — {F}.",
    "{x} is friends with {F}.",
    "{x}. Friends: {F}. Children: {K}.",
    "The friends of {x} include {Fa}.",
    "{x}'s social circle: {F}",
    "{x} | friends | {F}",
    "[{x}] friends = [{F}]",
    "{x}: friends -> {Fs}",
    "List of {x}'s friends:\n* {Fb}",
    "{Fa} are all friends of {x}.",
    "{x}'s children are {Ka}.",
    "{x} has {m} kids, {Ka}.",
    "Children ({x}): {K}",
    "{x} ({job}, {city}) - plays {hobby}",
    "{x}: {job}; lives in {city}; hobby: {hobby}",
    "{x} is a {job} who lives in {city} and enjoys {hobby}.",
    "Name: {x} | Job: {job} | City: {city}",
    "{x} works in {city} as a {job}.",
    "{x}, {job}, {city}",
    "name: {x}\nfriends:\n{Fy}\nchildren:\n{Ky}",
    "{x} — occupation: {job}; residence: {city}; pastime: {hobby}",
    "## {x}\n| Friend | Job |\n|---|---|\n{Ftab}",
    "{f0}: listed in Friends of {x}.",
    "{f0} is one of {x}'s friends.",
    "{x} counts {Fa} among {pos} friends.",
    "{x} > Friends > {F}",
    "{x}'s {sp}, {s0}, is a {sjob}.",
    "Index — {x}\nFriends ({F})\nKids ({K})",
    "{x}: {m} children ({K}); {n} friends ({F})",
    "{x} is a {job}. {Pro} lives in {city}. {Pos} friends are {Fa}.",
    "# {x}\n{x} is a {job} from {city}. {Pro} enjoys {hobby} and is friends with {Fa}.",
    "{f0} (friend of {x}) lives in {f0city}.",
    "People who work as a {job}: {x}",
    "{x} and {f0} are friends; {x} and {f1} are friends too.",
    "{x} is close friends with {Fa}.",
    '{{"name": "{x}", "job": "{job}", "city": "{city}", "friends": [{Fj}]}}',
    '{{"key": "friends of {x}", "members": [{Fj}]}}',
    "{x}'s kids: {k0} (a {k0job}), {k1}.",
    "{x} is married to {s0}. {Pro} works as a {job}.",
    # prose about several people: whose value is whose
    "{x} is a {job}. {Pos} friend {f0} is a {f0job}.",
    "{x}'s child {k0} works as a {k0job}.",
    "{x} has a child, {k0}, who is a {k0job}.",
    "{x}'s friends are {f0} ({f0job}) and {f1} ({f1job}).",
    "{x} ({job}) is friends with {f0}. {f0} is a {f0job}.",
    "{x}'s friend {f0} lives in {f0city}.",
    "{f0}, a friend of {x}, lives in {f0city}.",
    "{x} is a {job} in {city}; {pos} friends {f0} and {f1} are a {f0job} and a {f1job}.",
    "{x} enjoys {hobby}, unlike {pos} friend {f0}, who enjoys {f0hobby}.",
    "{x} is married to {s0}, a {sjob}.",
    "{s0} is {x}'s {sp}. {x} is a {job}.",
    "{x} — friends: {f0} ({f0city}), {f1} ({f1city}).",
    "{x} works as a {job}. {Pro} is friends with {f0}, who works as a {f0job}.",
    "{x}'s friend {f0} is a {f0job}, and {pos} child {k0} is a {k0job}.",
    "Friends:\n- {x} ↔ {f0}\n- {x} ↔ {f1}",
    "Friendships: {x} & {f0}; {x} & {f1}",
    "friend({x}, {f0}).\nspouse({x}, {s0})",
    "{x} — friend: {f0}; spouse: {s0}; job: {job}",
    "{x}'s friends include {f0}, in {f0city}, and {f1}.",
    "{x} is friends with {Fa}. They all know {x}.",
    "{x} and {s0} are married. Their children are {Ka}.",
    "{x} is friends with a {f0job}, {f0}.",
    "{x} lives in {city}, near {f0city}.",
    "{x} enjoys {hobby} more than {f0hobby}.",
    "{x}'s spouse {s0} and child {k0} work as a {sjob} and a {k0job}.",
    "{x} is a {job}. {Pro} would like to live in {f0city}.",
    "{x} often visits {f0} in {f0city}. {Pro} is a {job}.",
    "{x} lives in {city}; {pos} friends live elsewhere.",
    # sets after another set's title, lists inside asides and relative clauses, groups by value
    "Friends of {x}: {F}. Children: {K}.",
    "{x}, whose friends are {Fa}, works as a {job}.",
    "{x} (friends: {F}; children: {K})",
    "{x} ({job}) — friends with {Fa}.",
    "{x} — parent of {m}: {K}",
    "{s0}, {x}'s {sp}",
    "{x}'s friends by city: {Fcity}",
    "{f0job}s among {x}'s friends: {f0}",
    "The {f0job} among {x}'s friends is {f0}.",
    "Unlike {f0}, {x} lives in {city}.",
    "# {city}\nResidents: {x}",
    "Who are the children of {x}? {Ka}.",
    '{{"person": "{x}", "relations": [{{"type": "friend", "name": "{f0}"}}, '
    '{{"type": "child", "name": "{k0}"}}]}}',
    # answer notes with their reasoning, relatives labelled in asides, backlinks
    "Answer: {f0job}. Because {f0} is a friend of {x} and {f0} is a {f0job}.",
    "{x}: friends {F}. {f0} is in {f0city}, {f1} in {f1city}.",
    "Relatives of {x}: {s0} (spouse), {k0} (child), {k1} (child).",
    "{x}'s closest people: {s0} (spouse), {f0} (friend).",
    "{f0} — appears in: Friends of {x}",
    "{f0} also appears in Friends of {x}.",
    "{x} ⟶ friends ⟶ {F}",
    # groups on one line, an ellipsis, a set qualified by a value
    "{x}'s friends by city: {Fgroup}",
    "{x}'s friends, by city. {Fgroups}",
    "People by city: {Fgroup}",
    "{x} and {f0} are friends, as are {x} and {f1}.",
    "{f0} is a friend of {x}, as is {f1}.",
    "{x} is friends with {f0}, and also with {f1}.",
    "Friends of {x} in {f0city}: {f0}.",
    "{x}'s friends include {f0} as well as {f1}.",
    "{x} is a friend to {f0}.",
    "{x} and {s0} have {m} children: {Ka}.",
    "{x} knows {Fa}.",
    "{job}s in {city}: {x}",
    "{city} {job}s: {x}",
    "{x}, a {job}, is married to {s0}, a {sjob}.",
    "Summary of {x}'s family: married to {s0}; children: {K}.",
    "{x}: a {job} in {city} who enjoys {hobby}; friends with {Fa}.",
    "| Person | Relation | Person |\n|---|---|---|\n| {x} | friend | {f0} |\n| {x} | friend | {f1} |",
]


def _and(xs: list[str]) -> str:
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


@pytest.fixture(scope="module")
def world():
    u = generate(UniverseConfig(n_people=80, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))
    truth = {fact_key(parse_fact(n.text)) for n in u.nodes}
    by = {p.pid: p for p in u.people}
    people = [p for p in u.people
              if len(p.friends) >= 2 and len(p.children) >= 2 and p.spouse in by]
    return u, people_vocabulary(u), truth, by, people


def _fields(p, by) -> dict:
    fr = [by[f] for f in p.friends]
    ks = [by[c] for c in p.children]
    sp = by[p.spouse]
    F, K = [f.name for f in fr], [k.name for k in ks]
    she = p.gender == "female"
    return dict(
        x=p.name, n=len(F), m=len(K), F=", ".join(F), Fs="; ".join(F), Fp=" | ".join(F),
        Fn="\n".join(f"{i + 1}) {n}" for i, n in enumerate(F)), Fa=_and(F),
        Fb="\n* ".join(F), K=", ".join(K), Ka=_and(K), job=p.job, city=p.city, hobby=p.hobby,
        Fy="\n".join(f"  - {n}" for n in F), Ky="\n".join(f"  - {n}" for n in K),
        Ftab="\n".join(f"| {f.name} | {f.job} |" for f in fr), f0=F[0], f1=F[1],
        f0city=fr[0].city, pos="her" if she else "his", Pos="Her" if she else "His",
        Pro="She" if she else "He", sp="wife" if sp.gender == "female" else "husband",
        s0=sp.name, sjob=sp.job, Fj=", ".join(f'"{n}"' for n in F), k0=K[0], k1=K[1],
        k0job=ks[0].job, f0job=fr[0].job, f1job=fr[1].job, f1city=fr[1].city,
        f0hobby=fr[0].hobby, Fcity="; ".join(f"{f.city} - {f.name}" for f in fr),
        Fgroup="; ".join(f"{c} - {', '.join(ns)}" for c, ns in _by_city(fr).items()),
        Fgroups="; ".join(f"{c}: {', '.join(ns)}" for c, ns in _by_city(fr).items()))


def _by_city(people) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for f in people:
        groups.setdefault(f.city, []).append(f.name)
    return groups


#: The same note in other renderings: any letter case, and stored as the library stores it
#: (every whitespace run collapsed: a markdown note arrives on one line).
RENDERINGS = {"as_is": lambda t: t, "lower": str.lower, "upper": str.upper,
              "one_line": lambda t: " ".join(t.split())}


@pytest.mark.parametrize("rendering", RENDERINGS)
@pytest.mark.parametrize("form", FORMS)
def test_a_truthful_note_in_each_form_reads_true_and_something(world, form, rendering):
    u, vocab, truth, by, people = world
    rng = random.Random(form)
    for p in rng.sample(people, min(8, len(people))):
        text = RENDERINGS[rendering](form.format(**_fields(p, by)))
        facts = read_claims(text, vocab).facts
        assert facts, text
        assert [f for f in facts if fact_key(f) not in truth] == [], text


#: A person's friends grouped by their city, in the ways notes group them.
GROUPED = [
    "{x}'s friends by city: {Fgroup}",
    "{x}'s friends, by city. {Fgroups}",
    "{x}'s friends by city:\n{Fbullets}",
    "# {x}'s friends, grouped by city\n{Fheadings}",
    "Friends of {x}, by city: {Fgroups}.",
]


@pytest.mark.parametrize("rendering", ["as_is", "one_line", "lower"])
@pytest.mark.parametrize("form", GROUPED)
def test_a_set_grouped_by_value_reads_every_member_and_their_values(world, form, rendering):
    """Every group's people are the set's members, with the group's value: the grouped
    note states what the plain list and the members' city sentences state."""
    u, vocab, truth, by, people = world
    for p in [q for q in people if len({by[f].city for f in q.friends}) >= 2][:6]:
        fr = [by[f] for f in p.friends]
        groups = _by_city(fr)
        fields = _fields(p, by) | {
            "Fbullets": "\n".join(f"- {c}: {', '.join(ns)}" for c, ns in groups.items()),
            "Fheadings": "\n".join(f"## {c}\n" + "\n".join(f"- {n}" for n in ns)
                                   for c, ns in groups.items())}
        text = RENDERINGS[rendering](form.format(**fields))
        c = read_claims(text, vocab)
        friends = {f.obj for f in c.facts if f.kind == "friend_of" and f.subj == p.name}
        assert friends == {f.name for f in fr}, text
        assert set(c.members(("friends", p.name))) == {f.name for f in fr}, text
        cities = {(f.subj, f.obj) for f in c.facts if f.kind == "city"}
        assert cities == {(f.name, f.city) for f in fr}, text
        assert [f for f in c.facts if fact_key(f) not in truth] == [], text


@pytest.mark.parametrize("form, want", [
    ("{x}'s friends include {f0} as well as {f1}.", {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    ("{x} is a friend to {f0}.", {("friend_of", "x", "f0")}),
    ("{x} and {s0} have {m} children: {k0} and {k1}.", {("parent", "x", "k0"), ("parent", "x", "k1"),
                                                     ("parent", "s0", "k0"), ("parent", "s0", "k1")}),
    ("{x} knows {f0} and {f1}.", {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    ("{job}s in {city}: {x}", {("job", "x", "job"), ("city", "x", "city")}),
    ("{city} {job}s: {x}", {("job", "x", "job"), ("city", "x", "city")}),
    ("{f0} is a friend of {x}, as is {f1}.", {("friend_of", "f0", "x"), ("friend_of", "f1", "x")}),
    ("{x}'s friend who lives in {f0city}: {f0}", {("friend_of", "x", "f0"), ("city", "f0", "f0city")}),
    ("Friends of {x} who live in {f0city}: {f0}.", {("friend_of", "x", "f0"),
                                                    ("city", "f0", "f0city")}),
    ("Friendships involving {x}: {f0}", {("friend_of", "x", "f0")}),
    ('{{"friends_of": "{x}", "list": ["{f0}", "{f1}"]}}',
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    ("{x}, a {job}, is married to {s0}.", {("job", "x", "job"), ("married", "x", "s0")}),
    ("{x}, a {job} from {city}, is friends with {f0}.", {("job", "x", "job"), ("city", "x", "city"),
                                                      ("friend_of", "x", "f0")}),
    ("{x}: married to {s0}; children: {k0}, {k1}.", {("married", "x", "s0"), ("parent", "x", "k0"),
                                                   ("parent", "x", "k1")}),
    ("{x} is a {job}; friends with {f0}.", {("job", "x", "job"), ("friend_of", "x", "f0")}),
    ("{x}'s friends include {f0}, a {f0job} from {f0city}, and {f1}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("job", "f0", "f0job"),
      ("city", "f0", "f0city")}),
    ("{x}'s friends are {f0}, a {f0job}, and {f1}, a {f1job}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("job", "f0", "f0job"),
      ("job", "f1", "f1job")}),
    ("{x}'s friend {f0} works as a {f0job} in {f0city}.",
     {("friend_of", "x", "f0"), ("job", "f0", "f0job"), ("city", "f0", "f0city")}),
    ("{f0} ({f0job}, {f0city}) — friend of {x}",
     {("friend_of", "f0", "x"), ("job", "f0", "f0job"), ("city", "f0", "f0city")}),
    ("{x}'s {sp} {s0} is a {sjob}.", {("married", "x", "s0"), ("job", "s0", "sjob")}),
    ("{x}'s friends are {f0} and {f1}; of these, {f0} is a {f0job}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("job", "f0", "f0job")}),
    ("{x}'s friends are {f0} and {f1}. {s0} ({sjob}).",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("job", "s0", "sjob")}),
    ("{x}'s friends are {f0} and {f1}.\nChildren:\n{k0}\n{k1}",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("parent", "x", "k0"),
      ("parent", "x", "k1")}),
    ("{x} ↔ {f0} (friends)", {("friend_of", "x", "f0")}),
    ("Friendship: {x} & {f0}", {("friend_of", "x", "f0")}),
    ("Married couple: {x} and {s0}", {("married", "x", "s0")}),
    ('{{"name": "{x}", "friends": ["{f0}"]}}\n\n{s0} ({sjob}).',
     {("friend_of", "x", "f0"), ("job", "s0", "sjob")}),
    # a title's one-value aside names a part of a set, nothing of its person (docs/claims.md)
    ("{s0} ({sjob}).\n\n{x} is a {job}. Friends: {f0}.",
     {("job", "x", "job"), ("friend_of", "x", "f0")}),
    ("{x}'s relationships: friends with {f0}; parent of {k0}.",
     {("friend_of", "x", "f0"), ("parent", "x", "k0")}),
    ("The {f0job} among {x}'s friends is {f0}.", {("friend_of", "x", "f0"), ("job", "f0", "f0job")}),
    ("{x}'s friends are {f0} and {f1}; {f0} lives in {f0city}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("city", "f0", "f0city")}),
    ("| Person | Relation | Person |\n|---|---|---|\n| {x} | friend | {f0} |\n| {x} | friend | {f1} |",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    # pairs under a label of their own, predicates, a clause after a semicolon
    ("Friends:\n{x} ↔ {f0}\n{x} ↔ {f1}", {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    ("Friendships: {x} ↔ {f0}; {x} ↔ {f1}", {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    ("friends({x}, {f0}).\nmarried({x}, {s0}).", {("friend_of", "x", "f0"), ("married", "x", "s0")}),
    ("{x}: spouse: {s0}; job: {job}", {("married", "x", "s0"), ("job", "x", "job")}),
    ("{x}'s friends include {f0}, from {f0city}, and {f1}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("city", "f0", "f0city")}),
    ("{x}'s friends: {f0}, from {f0city}; {f1}, from {f1city}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("city", "f0", "f0city"),
      ("city", "f1", "f1city")}),
    # values that are not the subject's: another person's, a place near, an aim, a contrast
    ("{x} is friends with a {f0job}.", set()),
    ("{x} is married to a {sjob}, {s0}.", {("married", "x", "s0"), ("job", "s0", "sjob")}),
    ("{x} knows a {f0job} named {f0}.", {("friend_of", "x", "f0"), ("job", "f0", "f0job")}),
    ("{x} is friends with {f0} from {f0city}.", {("friend_of", "x", "f0"),
                                                 ("city", "f0", "f0city")}),
    ("{x} lives in {city}, near {f0city}.", {("city", "x", "city")}),
    ("{x} wants to be a {f0job}.", set()),
    ("{x} enjoys {hobby} rather than {f0hobby}.", {("hobby", "x", "hobby")}),
    ("{x} lives in {city}; {pos} friends live in {f0city}.", {("city", "x", "city")}),
    ("{Pos} friends live in {f0city}.", set()),  # whose, not known: no one's city
    # a pronoun is the clause's first person of its gender, not the last sentence's topic
    ("{f0} is a {f0job}. {x} is a {job}, and {pos} {sp} is {s0}.",
     {("job", "f0", "f0job"), ("job", "x", "job"), ("married", "x", "s0")}),
    ("{x} is a {job} in {city}, and {pos} {sp} {s0} is a {sjob}.",
     {("job", "x", "job"), ("city", "x", "city"), ("married", "x", "s0"), ("job", "s0", "sjob")}),
    # a paragraph run on after a list, as a note stored on one line runs it on
    ("## {x} - Job: {job} - Hobby: {hobby} {f0} is a {f0job}.",
     {("job", "x", "job"), ("hobby", "x", "hobby"), ("job", "f0", "f0job")}),
    ("## {x} - Children: {k0}, {k1} {Pro} is friends with {f0}.",
     {("parent", "x", "k0"), ("parent", "x", "k1"), ("friend_of", "x", "f0")}),
    # a section heading naming no one on a page about X is a section of X's page
    ("**{x}**\n\n{Pro} works as a {job}.\n\n## Family\n- Spouse: {s0}\n\n{Pro} is friends with "
     "{f0}.", {("job", "x", "job"), ("married", "x", "s0"), ("friend_of", "x", "f0")}),
    ("## {x} {Pro} works as a {job}. ## Friends {Pro} is friends with {f0}.",
     {("job", "x", "job"), ("friend_of", "x", "f0")}),
    # a list item annotated with its values is a member of the set its heading names, not
    # of a set a sentence named before a list
    ("## Friends of {x}\n- {f0} — a {f0job} in {f0city}\n- {f1} ({f1city})",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1"), ("job", "f0", "f0job"),
      ("city", "f0", "f0city"), ("city", "f1", "f1city")}),
    ("{x} has {n} friends:\n1. {f0} - {f0city}", {("friend_of", "x", "f0"),
                                                    ("city", "f0", "f0city")}),
    ("{k0}'s parent {x} is a {job}.\n- {f0}: {f0job}", {("parent", "x", "k0"), ("job", "x", "job"),
                                                        ("job", "f0", "f0job")}),
    ("## Friends of {x}\n\n{f0} is a {f0job} from {f0city}.",
     {("friend_of", "x", "f0"), ("job", "f0", "f0job"), ("city", "f0", "f0city")}),
    # a heading stored on one line runs on into the text below it
    ("## Friends of {x} Complete list (2): {f0} and {f1}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
    ("# {x}'s children {x} has {m} children: - {k0} - {k1}",
     {("parent", "x", "k0"), ("parent", "x", "k1")}),
    # a nested record's values are its own, and the outer record's fields after it the outer's
    ('{{"name": "{x}", "spouse": {{"name": "{s0}", "job": "{sjob}"}}, "occupation": "{job}"}}',
     {("married", "x", "s0"), ("job", "s0", "sjob"), ("job", "x", "job")}),
    ("name: {x}\nspouse:\n  name: {s0}\n  job: {sjob}\nlocation: {city}",
     {("married", "x", "s0"), ("job", "s0", "sjob"), ("city", "x", "city")}),
    ("name: {x}\nfriends:\n  - name: {f0}\n    job: {f0job}\noccupation: {job}",
     {("friend_of", "x", "f0"), ("job", "f0", "f0job"), ("job", "x", "job")}),
    ("name: {x} friends: - name: {f0} job: {f0job} job: {job}",
     {("friend_of", "x", "f0"), ("job", "f0", "f0job"), ("job", "x", "job")}),
    # text between two tables stored on one line is no table row
    ("| Name | Job | |---|---| | {x} | {job} | {f0} is a {f0job}. | Name | Job | |---|---| "
     "| {s0} | {sjob} |", {("job", "x", "job"), ("job", "f0", "f0job"), ("job", "s0", "sjob")}),
])
def test_what_an_everyday_sentence_states(world, form, want):
    """Each sentence states exactly these facts (children of either parent's form)."""
    u, vocab, truth, by, people = world
    for p in people[:5]:
        f = _fields(p, by)
        got = set()
        for fact in read_claims(form.format(**f), vocab).facts:
            kind = "parent" if fact.kind in ("father_of", "mother_of") else fact.kind
            if fact.kind == "child_of":
                kind, fact = "parent", fact._replace(subj=fact.obj, obj=fact.subj)
            got.add((kind, fact.subj, fact.obj))
        assert got == {(k, f[s], f[o]) for k, s, o in want}, form.format(**f)


@pytest.mark.parametrize("form, shared", [
    ("Common friends of {a} and {b}: {c}.", True),
    ("Mutual friends of {a} and {b}: {c}", True),
    ("{a} and {b} share one friend: {c}.", True),
    ("{a} and {b} have one friend in common: {c}.", True),
    ("Friends of {a} and {b}: {c}.", False),  # whose friend is not said
])
def test_a_friend_in_common_is_a_friend_of_both(world, form, shared):
    u, vocab, truth, by, people = world
    trios = [(a, b, c) for a in u.people for b in (by[f] for f in a.friends)
             for c in set(a.friends) & set(b.friends)]
    for a, b, c in trios[:5]:
        facts = read_claims(form.format(a=a.name, b=b.name, c=by[c].name), vocab).facts
        got = {(f.subj, f.obj) for f in facts if f.kind == "friend_of"}
        assert got == ({(a.name, by[c].name), (b.name, by[c].name)} if shared else set())


@pytest.mark.parametrize("form, want", [
    ("{x}'s friends include {a} and {b}. Both live in {c}.", "FFab"),
    ("{x} is friends with {a} and {b}. They live in {c}.", "FFab"),
    ("{x} is friends with {a} and {b}; both live in {c}.", "FFab"),
    ("{x} is friends with {a} and {b}, both from {c}.", "FFab"),
    ("{x} is friends with {a} and {b} (both in {c}).", "FFab"),
    ("{x} knows {a} and {b}. The two are from {c}.", "FFab"),
    ("{x} is friends with {a} and {b}. All of them live in {c}.", "FFab"),
    ("{a} and {b} live in {c}. Both are friends of {x}.", "FFab"),
    ("{x}'s friends include {a} and {b}, who live in {c}.", "FFab"),
    ("{x}'s friends {a} and {b} live in {c}.", "FFab"),
    ("{x} is friends with {a} and {b}. None of them live in {c}.", "FF"),
    ("{x} is friends with {a} and {b}. Neither lives in {c}.", "FF"),
    ("{x} is a friend of {a}. Both live in {c}.", "F"),  # both: who is not said
    ("{x} often visits {a} in {c}.", ""),
])
def test_they_and_both_stand_for_the_people_named_together(world, form, want):
    """``They``, ``both``, ``the two`` after a list are its people, never the sentence's
    subject (``X's friends include A and B. Both live in C`` does not put X in C); a plural
    subject whose people are not known, or denied (``none of them``), reads nothing."""
    u, vocab, truth, by, people = world
    pairs = [(p, a, b) for p in u.people for a in (by[f] for f in p.friends)
             for b in (by[f] for f in p.friends) if a.pid < b.pid and a.city == b.city != p.city]
    assert pairs
    for p, a, b in pairs[:5]:
        text = form.format(x=p.name, a=a.name, b=b.name, c=a.city)
        friends = [a.name, b.name][:want.count("F")]
        expect = {("friend_of", frozenset((p.name, f))) for f in friends}
        if "ab" in want:
            expect |= {("city", (a.name, a.city)), ("city", (b.name, a.city))}
        got = {(f.kind, frozenset((f.subj, f.obj)) if f.kind == "friend_of" else (f.subj, f.obj))
               for f in read_claims(text, vocab).facts}
        assert got == expect, text


@pytest.mark.parametrize("form, want", [
    ("{x} and {s0} are married. Their children are {k0} and {k1}.",
     {("married", "x", "s0"), ("parent", "x", "k0"), ("parent", "x", "k1"),
      ("parent", "s0", "k0"), ("parent", "s0", "k1")}),
    ("{x} and {s0} are married; their children are {k0} and {k1}.",
     {("married", "x", "s0"), ("parent", "x", "k0"), ("parent", "x", "k1"),
      ("parent", "s0", "k0"), ("parent", "s0", "k1")}),
    ("{k0} and {k1} are siblings; their parent is {x}.", {("parent", "x", "k0"),
                                                          ("parent", "x", "k1")}),
    # their children, of two friends: whose is not said
    ("{x} is friends with {f0} and {f1}. Their children are {k0} and {k1}.",
     {("friend_of", "x", "f0"), ("friend_of", "x", "f1")}),
])
def test_their_is_the_couples_or_nobodys(world, form, want):
    test_what_an_everyday_sentence_states(world, form, want)
