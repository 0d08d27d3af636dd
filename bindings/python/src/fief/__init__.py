"""Fief: an embedded live-object database (Python binding over libfief).

    import fief
    from typing import Optional

    class Dog(fief.Object):
        id: fief.PrimaryKey[int]
        name: str
        age: int = 0
        nickname: Optional[str] = None
        tags: list[str]                 # a list property: a live fief.List when managed
        lucky: set[int]                 # a set property: a live fief.Set when managed
        marks: dict[str, float]         # a dict property: a live fief.Dict when managed
        extra: fief.Mixed               # a mixed value: None, any scalar, a link, a nested list or dict

    with fief.Realm.open("dogs.fief", schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex", age=3))
        puppies = realm.objects(Dog).filter("age < $0", 5).sort("name")

Geospatial queries take shapes as arguments: ``filter("location GEOWITHIN $0",
fief.GeoCircle.kilometers((12.57, 55.68), 10))`` (see `fief.geo`).

The library is found through the FIEF_LIBRARY environment variable, then the
build outputs of the repository the package sits in (build/lib/libfief.so, build/libfief.so,
.build/release/libfief.so, .build/debug/libfief.so), then the system's
library path.  It is loaded on first use; `fief.load_library()` loads it
explicitly.  It must be of this package's version or a newer one of the same
MAJOR.MINOR (`fief.__version__`, `fief.EXPECTED_VERSION_NUMBER`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import errors
from ._lib import EXPECTED_VERSION_NUMBER
from ._types import Decimal128, Mixed, ObjectId
from ._values import Link
from ._version import VERSION as __version__
from .dicts import Dict
from .errors import (
    FiefError, LogicError, InvalidHandleError, WrongHandleTypeError, NotInTransactionError,
    AlreadyInTransactionError, WrongThreadError, FrozenRealmError, ReadOnlyRealmError,
    RealmClosedError, InvalidatedObjectError, InvalidatedResultsError, TooManyVersionsError, InvalidArgumentError,
    NoSuchClassError, NoSuchPropertyError, NoSuchObjectError, TypeMismatchError,
    NullNotAllowedError, InvalidUTF8Error, DuplicatePrimaryKeyError, MissingPrimaryKeyError,
    PrimaryKeyChangeError, IndexOutOfBoundsError, SchemaError, InvalidSchemaError,
    SchemaMismatchError, SchemaVersionError, QueryError, QuerySyntaxError, InvalidQueryError,
    QueryArgumentError, FileError, RealmFileNotFoundError, FilePermissionError, NotAFiefFileError,
    FileFormatError, FileLockedError, FileIOError, FileFullError, FileCorruptError,
    FiefRuntimeError, OutOfMemoryError, InternalError, LibraryError, LibraryNotFoundError,
    LibraryVersionError, UnsupportedOperationError,
)
from .geo import GeoBox, GeoCircle, GeoPoint, GeoPolygon, GeoShape
from .lists import List
from .notifications import CollectionChanges, NotificationToken, RealmNotification, ResultsNotificationToken
from .notifications import CollectionNotificationToken, MapChanges
from .model import (Backlinks, EmbeddedObject, FullText, Indexed, LinkingObjects, Object, PrimaryKey, Property,
                    PropertySpec)
from .realm import (ClassInfo, FileReport, PropertyInfo, Realm, Results, ValueResults, WriteTransaction, copy_file,
                    delete_realm_files, verify_file)
from .sets import Set
from .sections import ResultsSection, SectionedChanges, SectionedResults

if TYPE_CHECKING:
    from ._lib import Library

    # To a type checker a Float32 is a float (it is a float subclass), so
    # that ``ratio: fief.Float32 = 0.5`` checks.
    Float32 = float
else:
    from ._types import Float32


def load_library(path: str | None = None) -> Library:
    """Load libfief (from `path`, or by the usual lookup) and check its version."""
    from . import _lib

    return _lib.load(path)


def library_version() -> str:
    """The loaded library's version string (loads it if needed)."""
    from . import _lib

    library = _lib.lib()
    return library.version_string or str(library.version_number)


# Written out (not computed) so that type checkers see every name.
__all__ = [
    "__version__", "EXPECTED_VERSION_NUMBER",
    "Object", "EmbeddedObject", "PrimaryKey", "Indexed", "FullText", "Property", "PropertySpec", "Backlinks",
    "LinkingObjects", "Realm", "Results", "ValueResults", "List", "Set", "Dict", "WriteTransaction", "ClassInfo",
    "PropertyInfo", "Decimal128", "ObjectId", "Float32", "Mixed", "Link", "GeoPoint", "GeoShape", "GeoBox",
    "GeoPolygon", "GeoCircle", "delete_realm_files", "verify_file", "copy_file", "FileReport", "load_library",
    "library_version", "errors", "NotificationToken", "RealmNotification", "CollectionChanges", "ResultsNotificationToken",
    "MapChanges", "CollectionNotificationToken",
    # fief.errors
    "FiefError", "LogicError", "InvalidHandleError", "WrongHandleTypeError",
    "NotInTransactionError", "AlreadyInTransactionError", "WrongThreadError", "FrozenRealmError",
    "ReadOnlyRealmError", "RealmClosedError", "InvalidatedObjectError", "InvalidatedResultsError", "TooManyVersionsError",
    "InvalidArgumentError", "NoSuchClassError", "NoSuchPropertyError", "NoSuchObjectError",
    "TypeMismatchError", "NullNotAllowedError", "InvalidUTF8Error", "DuplicatePrimaryKeyError",
    "MissingPrimaryKeyError", "PrimaryKeyChangeError", "IndexOutOfBoundsError", "SchemaError",
    "InvalidSchemaError", "SchemaMismatchError", "SchemaVersionError", "QueryError",
    "QuerySyntaxError", "InvalidQueryError", "QueryArgumentError", "FileError",
    "RealmFileNotFoundError", "FilePermissionError", "NotAFiefFileError", "FileFormatError",
    "FileLockedError", "FileIOError", "FileFullError", "FileCorruptError", "FiefRuntimeError",
    "OutOfMemoryError", "InternalError", "LibraryError", "LibraryNotFoundError",
    "LibraryVersionError", "UnsupportedOperationError",
]
__all__ += ["SectionedResults", "ResultsSection", "SectionedChanges"]
