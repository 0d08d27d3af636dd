"""The exception hierarchy of the Fief binding.

Every failing C call raises a subclass of :class:`FiefError`, chosen from the
error code the library reports (``fief_get_last_error``) or, for a code the
binding does not know, from the code's category bits::

    FiefError
    ├── LogicError                  (FIEF_ERR_CAT_LOGIC: misuse of the API)
    │   ├── InvalidHandleError, WrongHandleTypeError
    │   ├── NotInTransactionError, AlreadyInTransactionError, WrongThreadError
    │   ├── FrozenRealmError, ReadOnlyRealmError, RealmClosedError
    │   └── InvalidatedObjectError, InvalidatedResultsError, TooManyVersionsError
    ├── InvalidArgumentError        (FIEF_ERR_CAT_INVALID_ARG; also a ValueError)
    │   ├── NoSuchClassError, NoSuchPropertyError, NoSuchObjectError
    │   ├── TypeMismatchError (also a TypeError), NullNotAllowedError, InvalidUTF8Error
    │   ├── DuplicatePrimaryKeyError, MissingPrimaryKeyError, PrimaryKeyChangeError
    │   └── IndexOutOfBoundsError (also an IndexError)
    ├── SchemaError                 (FIEF_ERR_CAT_SCHEMA)
    │   └── InvalidSchemaError, SchemaMismatchError, SchemaVersionError
    ├── QueryError                  (FIEF_ERR_CAT_QUERY)
    │   └── QuerySyntaxError, InvalidQueryError, QueryArgumentError
    ├── FileError                   (FIEF_ERR_CAT_FILE)
    │   └── RealmFileNotFoundError, FilePermissionError, NotAFiefFileError,
    │       FileFormatError, FileLockedError, FileIOError, FileFullError,
    │       FileCorruptError
    ├── FiefRuntimeError            (FIEF_ERR_CAT_RUNTIME)
    │   └── OutOfMemoryError, InternalError
    └── LibraryError                (loading libfief: not found, wrong version, missing symbol)
        ├── LibraryNotFoundError, LibraryVersionError
        └── UnsupportedOperationError (also a NotImplementedError)
"""

from __future__ import annotations

from typing import Any

# Codes and categories, as in fief.h.
CAT_LOGIC = 0x01
CAT_INVALID_ARG = 0x02
CAT_SCHEMA = 0x04
CAT_QUERY = 0x08
CAT_FILE = 0x10
CAT_RUNTIME = 0x20

OK = 0
ERR_INVALID_HANDLE = 1001
ERR_WRONG_HANDLE_TYPE = 1002
ERR_NOT_IN_TRANSACTION = 1003
ERR_ALREADY_IN_TRANSACTION = 1004
ERR_WRONG_THREAD = 1005
ERR_FROZEN = 1006
ERR_READ_ONLY = 1007
ERR_CLOSED = 1008
ERR_INVALIDATED_OBJECT = 1009
ERR_INVALIDATED_RESULTS = 1010
ERR_TOO_MANY_VERSIONS = 1011
ERR_INVALID_ARGUMENT = 2001
ERR_NO_SUCH_CLASS = 2002
ERR_NO_SUCH_PROPERTY = 2003
ERR_NO_SUCH_OBJECT = 2004
ERR_TYPE_MISMATCH = 2005
ERR_NULL_NOT_ALLOWED = 2006
ERR_INVALID_UTF8 = 2007
ERR_DUPLICATE_PRIMARY_KEY = 2008
ERR_MISSING_PRIMARY_KEY = 2009
ERR_PRIMARY_KEY_CHANGE = 2010
ERR_INDEX_OUT_OF_BOUNDS = 2011
ERR_INVALID_SCHEMA = 3001
ERR_SCHEMA_MISMATCH = 3002
ERR_SCHEMA_VERSION = 3003
ERR_QUERY_SYNTAX = 4001
ERR_QUERY_INVALID = 4002
ERR_QUERY_ARGUMENT = 4003
ERR_FILE_NOT_FOUND = 5001
ERR_FILE_PERMISSION = 5002
ERR_FILE_NOT_FIEF = 5003
ERR_FILE_FORMAT = 5004
ERR_FILE_LOCKED = 5005
ERR_FILE_IO = 5006
ERR_FILE_FULL = 5007
ERR_FILE_CORRUPT = 5008
ERR_OUT_OF_MEMORY = 6001
ERR_INTERNAL = 6002

_CATEGORY_OF_CODE_RANGE = {
    1: CAT_LOGIC,
    2: CAT_INVALID_ARG,
    3: CAT_SCHEMA,
    4: CAT_QUERY,
    5: CAT_FILE,
    6: CAT_RUNTIME,
}


class FiefError(Exception):
    """Base class of every error the binding raises.

    Attributes: ``code`` (a FIEF_ERR_* number, 0 if none), ``categories``
    (FIEF_ERR_CAT_* bits), ``message`` and ``path`` (the file concerned, or
    None).
    """

    default_code = 0

    def __init__(self, message: str = "", code: int | None = None,
                 categories: int | None = None, path: str | None = None):
        if code is None:
            code = self.default_code
        if categories is None:
            categories = _CATEGORY_OF_CODE_RANGE.get(code // 1000, 0) if code else 0
        self.message = message
        self.code = code
        self.categories = categories
        self.path = path
        super().__init__(message)

    def __str__(self) -> str:
        text = self.message or self.__class__.__name__
        if self.code:
            text = f"{text} [code {self.code}]"
        if self.path:
            text = f"{text} (path: {self.path})"
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, (self.message, self.code, self.categories, self.path))


# -- misuse ---------------------------------------------------------------

class LogicError(FiefError):
    """Misuse of the API (FIEF_ERR_CAT_LOGIC)."""


class InvalidHandleError(LogicError):
    default_code = ERR_INVALID_HANDLE


class WrongHandleTypeError(LogicError):
    default_code = ERR_WRONG_HANDLE_TYPE


class NotInTransactionError(LogicError):
    default_code = ERR_NOT_IN_TRANSACTION


class AlreadyInTransactionError(LogicError):
    default_code = ERR_ALREADY_IN_TRANSACTION


class WrongThreadError(LogicError):
    default_code = ERR_WRONG_THREAD


class FrozenRealmError(LogicError):
    default_code = ERR_FROZEN


class ReadOnlyRealmError(LogicError):
    default_code = ERR_READ_ONLY


class RealmClosedError(LogicError):
    default_code = ERR_CLOSED


class InvalidatedObjectError(LogicError):
    default_code = ERR_INVALIDATED_OBJECT


class InvalidatedResultsError(LogicError):
    default_code = ERR_INVALIDATED_RESULTS


class TooManyVersionsError(LogicError):
    default_code = ERR_TOO_MANY_VERSIONS


# -- bad arguments --------------------------------------------------------

class InvalidArgumentError(FiefError, ValueError):
    """A bad argument or value (FIEF_ERR_CAT_INVALID_ARG)."""

    default_code = ERR_INVALID_ARGUMENT


class NoSuchClassError(InvalidArgumentError):
    default_code = ERR_NO_SUCH_CLASS


class NoSuchPropertyError(InvalidArgumentError):
    default_code = ERR_NO_SUCH_PROPERTY


class NoSuchObjectError(InvalidArgumentError):
    default_code = ERR_NO_SUCH_OBJECT


class TypeMismatchError(InvalidArgumentError, TypeError):
    default_code = ERR_TYPE_MISMATCH


class NullNotAllowedError(InvalidArgumentError):
    default_code = ERR_NULL_NOT_ALLOWED


class InvalidUTF8Error(InvalidArgumentError):
    default_code = ERR_INVALID_UTF8


class DuplicatePrimaryKeyError(InvalidArgumentError):
    default_code = ERR_DUPLICATE_PRIMARY_KEY


class MissingPrimaryKeyError(InvalidArgumentError):
    default_code = ERR_MISSING_PRIMARY_KEY


class PrimaryKeyChangeError(InvalidArgumentError):
    default_code = ERR_PRIMARY_KEY_CHANGE


class IndexOutOfBoundsError(InvalidArgumentError, IndexError):
    default_code = ERR_INDEX_OUT_OF_BOUNDS


# -- schema ---------------------------------------------------------------

class SchemaError(FiefError):
    """A wrong schema, or one that does not fit the file (FIEF_ERR_CAT_SCHEMA)."""


class InvalidSchemaError(SchemaError):
    default_code = ERR_INVALID_SCHEMA


class SchemaMismatchError(SchemaError):
    default_code = ERR_SCHEMA_MISMATCH


class SchemaVersionError(SchemaError):
    default_code = ERR_SCHEMA_VERSION


# -- queries --------------------------------------------------------------

class QueryError(FiefError):
    """A predicate or sort that does not parse or apply (FIEF_ERR_CAT_QUERY)."""


class QuerySyntaxError(QueryError):
    default_code = ERR_QUERY_SYNTAX


class InvalidQueryError(QueryError):
    default_code = ERR_QUERY_INVALID


class QueryArgumentError(QueryError):
    default_code = ERR_QUERY_ARGUMENT


# -- files ----------------------------------------------------------------

class FileError(FiefError):
    """Opening, reading or writing files (FIEF_ERR_CAT_FILE)."""


class RealmFileNotFoundError(FileError):
    default_code = ERR_FILE_NOT_FOUND


class FilePermissionError(FileError):
    default_code = ERR_FILE_PERMISSION


class NotAFiefFileError(FileError):
    default_code = ERR_FILE_NOT_FIEF


class FileFormatError(FileError):
    default_code = ERR_FILE_FORMAT


class FileLockedError(FileError):
    default_code = ERR_FILE_LOCKED


class FileIOError(FileError):
    default_code = ERR_FILE_IO


class FileFullError(FileError):
    default_code = ERR_FILE_FULL


class FileCorruptError(FileError):
    """Stored data of a Fief file failed its checksum or structure check."""
    default_code = ERR_FILE_CORRUPT


# -- runtime --------------------------------------------------------------

class FiefRuntimeError(FiefError):
    """Resources and the unexpected (FIEF_ERR_CAT_RUNTIME)."""


class OutOfMemoryError(FiefRuntimeError):
    default_code = ERR_OUT_OF_MEMORY


class InternalError(FiefRuntimeError):
    default_code = ERR_INTERNAL


# -- the library itself ---------------------------------------------------

class LibraryError(FiefError):
    """libfief could not be found, loaded or used."""


class LibraryNotFoundError(LibraryError, ImportError):
    pass


class LibraryVersionError(LibraryError, ImportError):
    pass


class UnsupportedOperationError(LibraryError, NotImplementedError):
    """The loaded libfief does not export a function the binding needs."""


_BY_CODE: dict[int, type[FiefError]] = {}
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, FiefError) and _cls.default_code:
        if _cls is not InvalidArgumentError or ERR_INVALID_ARGUMENT not in _BY_CODE:
            _BY_CODE.setdefault(_cls.default_code, _cls)
_BY_CODE[ERR_INVALID_ARGUMENT] = InvalidArgumentError

# Most specific family first when several category bits are set.
_BY_CATEGORY: list[tuple[int, type[FiefError]]] = [
    (CAT_QUERY, QueryError),
    (CAT_SCHEMA, SchemaError),
    (CAT_FILE, FileError),
    (CAT_INVALID_ARG, InvalidArgumentError),
    (CAT_LOGIC, LogicError),
    (CAT_RUNTIME, FiefRuntimeError),
]


def error_class_for(code: int, categories: int) -> type[FiefError]:
    """The exception class for a code (or, failing that, its categories)."""
    cls = _BY_CODE.get(code)
    if cls is not None:
        return cls
    if not categories:
        categories = _CATEGORY_OF_CODE_RANGE.get(code // 1000, 0)
    for bit, family in _BY_CATEGORY:
        if categories & bit:
            return family
    return FiefError


def make_error(code: int, categories: int, message: str, path: str | None = None) -> FiefError:
    return error_class_for(code, categories)(message, code=code, categories=categories, path=path)


__all__ = [name for name, value in list(globals().items())
           if isinstance(value, type) and issubclass(value, FiefError)]
