"""Full-text search: fief.FullText[str] / fief.Property(full_text=True)
declare a full-text index, ``TEXT`` searches it (words, prefixes,
exclusions; case and accents ignored), live and inside writes."""

from __future__ import annotations

from typing import Optional

import pytest

import fief


class Note(fief.Object):
    id: fief.PrimaryKey[int]
    body: fief.FullText[str] = ""
    title: Optional[str] = fief.Property(full_text=True, default=None)
    stars: int = 0


class Reader(fief.Object):
    name: str = ""
    favourite: Optional[Note] = None


NOTES = [
    (1, "The quick brown fox", "Foxes", 5),
    (2, "A QUICK red Fox jumps", None, 3),
    (3, "Café au lait", "Café", 4),
    (4, "full-text search is fun", "Search", 1),
    (5, "quickly, quicker, quickest", None, 2),
]


@pytest.fixture
def notes(tmp_path, library):
    realm = fief.Realm.open(tmp_path / "notes.fief", schema=[Note, Reader])
    with realm.write():
        for id_, body, title, stars in NOTES:
            note = realm.add(Note(id=id_, body=body, title=title, stars=stars))
            realm.add(Reader(name=f"reader {id_}", favourite=note))
    yield realm
    if realm.in_transaction:
        realm.cancel()
    realm.close()


def ids(results):
    return sorted(n.id for n in results)


@pytest.mark.parametrize("predicate, args, expected", [
    ("body TEXT 'quick'", (), [1, 2]),
    ("body TEXT 'QUICK fox'", (), [1, 2]),
    ("body TEXT $0", ("quick*",), [1, 2, 5]),
    ("body TEXT %@", ("quick -red",), [1]),
    ("body TEXT 'cafe'", (), [3]),
    ("body TEXT 'CAFÉ LAIT'", (), [3]),
    ("body TEXT 'full text'", (), [4]),
    ("body TEXT '-quick'", (), [3, 4, 5]),
    ("body TEXT 'nothing'", (), []),
    ("title TEXT 'cafe'", (), [3]),
    ("title TEXT '-cafe'", (), [1, 2, 4, 5]),
    ("body TEXT 'quick' AND stars > 3", (), [1]),
    ("body TEXT 'fun' OR stars == 4", (), [3, 4]),
    ("NOT body TEXT 'quick*'", (), [3, 4]),
])
def test_text_searches(notes, predicate, args, expected):
    assert ids(notes.objects(Note).filter(predicate, *args)) == expected


def test_text_through_a_link(notes):
    readers = notes.objects(Reader).filter("favourite.body TEXT $0", "fox")
    assert sorted(r.name for r in readers) == ["reader 1", "reader 2"]


def test_schema_reports_the_flag(notes):
    note = next(c for c in notes.schema if c.name == "Note")
    assert note.properties["body"].full_text and note.properties["title"].full_text
    assert not note.properties["stars"].full_text
    assert "full_text" in repr(Note.body)


def test_live_and_inside_a_write(notes):
    quick = notes.objects(Note).filter("body TEXT 'quick'")
    assert len(quick) == 2
    with notes.write():
        notes.add(Note(id=6, body="quick thinking"))
        assert ids(quick) == [1, 2, 6]
        notes.objects(Note).filter("id == 1")[0].body = "slow"
        assert ids(quick) == [2, 6]
        notes.delete(notes.objects(Note).filter("id == 2")[0])
        assert ids(quick) == [6]
    assert ids(quick) == [6]
    assert ids(notes.objects(Note).filter("body TEXT 'slow'")) == [1]


@pytest.mark.parametrize("predicate, args, error, message", [
    ("stars TEXT 'a'", (), fief.InvalidQueryError, "TEXT needs a full-text index"),
    ("body TEXT ''", (), fief.InvalidQueryError, "it holds no word"),
    ("body TEXT $0", ("full-text",), fief.QueryArgumentError, "'full-text' is 2 words"),
    ("body TEXT $0", ("fox -fox",), fief.QueryArgumentError, "both searched for and excluded"),
    ("body TEXT $0", ("-fo*",), fief.QueryArgumentError, "excludes a prefix"),
    ("body TEXT $0", (5,), fief.QueryArgumentError, "must be a string"),
])
def test_text_errors(notes, predicate, args, error, message):
    with pytest.raises(error, match=message):
        notes.objects(Note).filter(predicate, *args)


def test_full_text_only_on_strings(tmp_path, library):
    class Bad(fief.Object):
        n: int = fief.Property(full_text=True, default=0)

    with pytest.raises(fief.InvalidSchemaError, match="cannot have a full-text index"):
        fief.Realm.open(tmp_path / "bad.fief", schema=[Bad])

    with pytest.raises(TypeError, match="neither a primary key nor indexed"):
        class BadList(fief.Object):
            words: list[str] = fief.Property(full_text=True)


def test_index_added_to_existing_texts(tmp_path, library):
    class Plain(fief.Object, name="Page"):
        body: str = ""

    class Searched(fief.Object, name="Page"):
        body: fief.FullText[str] = ""

    path = tmp_path / "pages.fief"
    realm = fief.Realm.open(path, schema=[Plain])
    with realm.write():
        for text in ["red apple", "green apple", "red car"]:
            realm.add(Plain(body=text))
    with pytest.raises(fief.InvalidQueryError):
        realm.objects(Plain).filter("body TEXT 'red'")
    realm.close()
    realm = fief.Realm.open(path, schema=[Searched])
    assert sorted(p.body for p in realm.objects(Searched).filter("body TEXT 'red'")) == ["red apple", "red car"]
    realm.close()
