"""Learnt values (``analyze/redact/learned.py``): what the archive learnt is not one source's
learning, and the quick path for many values replaces exactly what the whole pattern does."""

from __future__ import annotations

import random
import string
from collections import Counter

from sessite.analyze.redact import learned


def _values(n: int, seed: int = 3) -> list[str]:
    """``n`` values that look like credentials (``learnable``)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.choice((9, 12, 20))))
        if learned.learnable(value):
            out.append(value)
    return out


def test_many_values_are_replaced_as_the_whole_pattern_replaces_them():
    values = _values(300)
    table = learned.Learned()
    table.know(tuple((v, "password") for v in values))
    rng = random.Random(4)
    text = " ".join(rng.choice([*values, "plain", "words"]) + rng.choice(("", "x", " ")) for _ in range(2000))
    counts: Counter[str] = Counter()
    quick = table.replace(text, counts)
    whole = table.pattern().sub("[REDACTED:password]", text)
    assert quick == whole
    assert counts["password"] == whole.count("[REDACTED:password]") > 500
    assert table.replace("nothing learnt here", Counter()) == "nothing learnt here"


def test_values_known_archive_wide_do_not_use_up_a_sources_own_cap(monkeypatch):
    monkeypatch.setattr(learned, "_MAX_VALUES", 2)
    table = learned.Learned()
    known = _values(5, seed=5)
    table.know(tuple((v, "secret-assignment") for v in known))
    own = _values(3, seed=6)
    for value in own:
        table.note("env-password", value)
    assert set(known) <= set(table.kinds)
    assert [v for v in own if v in table.kinds] == own[:2]  # this source's own: two, its cap


def test_a_password_of_letters_alone_is_learnt_where_it_looks_random():
    """A password of letters alone (``KnVgJTPankmamnLAGR`` in a ``.env``) is found again where the
    session repeats it bare; a name made of words, camelCase or not, is never learnt."""
    from sessite.analyze.redact import Redactor

    password = "KnVgJTPankmamnLAGR"
    redactor = Redactor()
    assert password not in redactor.text(f"DB_USER=app\nDB_PASSWORD={password}\n")
    spread = redactor.learned.replace(f"log in with {password} again", Counter())
    assert spread == "log in with [REDACTED:secret-assignment] again"
    assert learned.learnable("gXieqThTzvvDmBQHp8")  # (letters and a digit: a name's shape otherwise)
    for name in ("getUserNameFromDb", "XMLHttpRequest", "IsAThingOfBeauty", "kubectlGetPodsInNamespace", "userName12"):
        assert not learned.learnable(name)
