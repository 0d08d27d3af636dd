"""The ctypes declarations of fief._lib against include/fief.h.

Every function the header declares with FIEF_API has a prototype in
PROTOTYPES whose return and argument types are the ctypes equivalents of the
C types; every ctypes Structure has the header's fields, in order, at the
offsets and with the sizes a C compiler gives them (a small C program built
with `cc` against the header prints them)."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from fief import _lib as L

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[2]
HEADER = REPOSITORY / "include" / "fief.h"


# -- parsing fief.h ---------------------------------------------------------

def _clean(text: str) -> str:
    """The header without comments and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))


class Header:
    def __init__(self, path: Path):
        self.text = _clean(path.read_text(encoding="utf-8"))
        # name -> (return type, [parameter types])
        self.functions: Dict[str, Tuple[str, List[str]]] = {}
        for ret, name, params in re.findall(r"\bFIEF_API\s+([^;(){}]*?)\b(fief_\w+)\s*\(([^)]*)\)\s*;",
                                            self.text):
            self.functions[name] = (_norm(ret), _params(params))
        # typedef <scalar> name;
        self.scalars = dict((name, base) for base, name in
                            re.findall(r"\btypedef\s+(u?int\d+_t|bool|double|float|size_t)\s+(\w+)\s*;", self.text))
        # typedef struct tag name;  (opaque handles)
        self.opaque = set(re.findall(r"\btypedef\s+struct\s+\w+\s+(\w+)\s*;", self.text))
        # typedef ret (*name)(params);
        self.callbacks: Dict[str, Tuple[str, List[str]]] = {}
        for ret, name, params in re.findall(r"\btypedef\s+([\w\s*]+?)\s*\(\s*\*\s*(\w+)\s*\)\s*\(([^)]*)\)\s*;",
                                            self.text):
            self.callbacks[name] = (_norm(ret), _params(params))
        # typedef struct tag { fields } name;  -> [(field, type text, array length or None, sub-fields)]
        self.structs: Dict[str, List[Tuple[str, str, Optional[int], Any]]] = {}
        for match in re.finditer(r"\btypedef\s+struct\s+\w+\s*\{", self.text):
            body, end = _braced(self.text, match.end() - 1)
            name = re.match(r"\s*(\w+)\s*;", self.text[end:])
            assert name, f"typedef struct at {match.start()}: no name after the body"
            self.structs[name.group(1)] = _fields(body)


def _braced(text: str, start: int) -> Tuple[str, int]:
    """The text inside the braces opening at `start`, and the index after the closing one."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    raise AssertionError("unbalanced braces in fief.h")


def _fields(body: str) -> List[Tuple[str, str, Optional[int], Any]]:
    fields: List[Tuple[str, str, Optional[int], Any]] = []
    i = 0
    while i < len(body):
        j = body.find(";", i)
        if j < 0:
            break
        brace = body.find("{", i)
        if 0 <= brace < j:  # a nested union/struct: "union { ... } name;"
            inner, after = _braced(body, brace)
            j = body.find(";", after)
            fields.append((body[after:j].strip(), "union", None, _fields(inner)))
        else:
            decl = " ".join(body[i:j].split())
            if decl:
                m = re.match(r"(.*?)(\w+)\s*(?:\[(\d+)\])?$", decl)
                assert m, f"cannot parse field {decl!r}"
                fields.append((m.group(2), _norm(m.group(1)), int(m.group(3)) if m.group(3) else None, None))
        i = j + 1
    return fields


def _norm(ctype: str) -> str:
    """A C type without qualifiers and `struct`, pointers as trailing stars."""
    ctype = re.sub(r"\b(const|struct|volatile)\b", " ", ctype)
    stars = ctype.count("*")
    return " ".join(ctype.replace("*", " ").split()) + "*" * stars


def _params(text: str) -> List[str]:
    text = text.strip()
    if text in ("", "void"):
        return []
    types = []
    for param in text.split(","):
        param = " ".join(param.split())
        # drop the parameter's name (the last identifier, unless the
        # declaration is only a type)
        m = re.match(r"(.*?[\s*])(\w+)$", param)
        types.append(_norm(m.group(1) if m and m.group(1).strip() not in ("", "const", "struct") else param))
    return types


@pytest.fixture(scope="module")
def header() -> Header:
    return Header(HEADER)


# -- C types -> ctypes -------------------------------------------------------

_SCALARS = {
    "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64, "uint8_t": ctypes.c_uint8, "bool": ctypes.c_bool,
    "double": ctypes.c_double, "float": ctypes.c_float, "size_t": ctypes.c_size_t,
    "int": ctypes.c_int,  # a file descriptor
}


def _structure_classes() -> Dict[str, Any]:
    return {name: value for name, value in vars(L).items()
            if isinstance(value, type) and issubclass(value, (ctypes.Structure, ctypes.Union))
            and name.startswith("fief_")}


def expected_ctype(header: Header, ctype: str, where: str) -> Any:
    """The ctypes type fief._lib must use for the C type `ctype` (None: void)."""
    stars = len(ctype) - len(ctype.rstrip("*"))
    base = ctype.rstrip("*")
    if base in header.scalars:
        base = header.scalars[base]
    if stars == 0:
        if base == "void":
            return None
        if base in _SCALARS:
            return _SCALARS[base]
        if base in header.structs:
            return _structure_classes()[base]
        if base in header.callbacks:
            return getattr(L, base)
        raise AssertionError(f"{where}: no ctypes equivalent known for C type {ctype!r}")
    # one level of pointer
    if base == "char":
        inner: Any = ctypes.c_char_p
    elif base == "void" or base in header.opaque:
        inner = ctypes.c_void_p  # an opaque handle, or untyped memory
    elif base in _SCALARS:
        inner = ctypes.POINTER(_SCALARS[base])
    elif base in header.structs:
        inner = ctypes.POINTER(_structure_classes()[base])
    else:
        raise AssertionError(f"{where}: no ctypes equivalent known for C type {ctype!r}")
    for _ in range(stars - 1):
        inner = ctypes.POINTER(inner)
    return inner


def _name(t: Any) -> str:
    return "void" if t is None else getattr(t, "__name__", repr(t))


def _same(actual: Any, expected: Any) -> bool:
    """The same ctypes type (ctypes caches POINTER types, and its fixed-width
    names are aliases: c_int32 is c_int, c_size_t is c_ulong here)."""
    return actual is expected


# -- functions ---------------------------------------------------------------

def test_header_is_parsed(header: Header) -> None:
    assert len(header.functions) > 100
    assert "fief_realm_open" in header.functions
    assert header.functions["fief_version_number"] == ("int32_t", [])
    assert header.functions["fief_object_create"][1][0] == "fief_realm_t*"
    assert "fief_realm_t" in header.opaque and "fief_value_t" in header.structs
    assert "fief_report_fn" in header.callbacks


def test_every_header_function_has_a_prototype(header: Header) -> None:
    missing = sorted(set(header.functions) - set(L.PROTOTYPES))
    assert not missing, f"fief.h declares functions _lib.PROTOTYPES lacks: {', '.join(missing)}"
    extra = sorted(set(L.PROTOTYPES) - set(header.functions))
    assert not extra, f"_lib.PROTOTYPES declares functions fief.h does not: {', '.join(extra)}"


def test_prototypes_match_the_header(header: Header) -> None:
    problems: List[str] = []
    for name, (restype, argtypes) in L.PROTOTYPES.items():
        if name not in header.functions:
            continue  # reported by the test above
        c_ret, c_params = header.functions[name]
        if len(argtypes) != len(c_params):
            problems.append(f"{name}: {len(argtypes)} arguments in _lib, {len(c_params)} in fief.h")
            continue
        expected = expected_ctype(header, c_ret, f"{name} return")
        if not _same(restype, expected):
            problems.append(f"{name}: returns {_name(restype)} in _lib, fief.h says {c_ret} ({_name(expected)})")
        for i, (actual, c_type) in enumerate(zip(argtypes, c_params)):
            expected = expected_ctype(header, c_type, f"{name} argument {i}")
            if not _same(actual, expected):
                problems.append(f"{name}: argument {i} is {_name(actual)} in _lib, fief.h says {c_type} "
                                f"({_name(expected)})")
    assert not problems, "ctypes prototypes disagree with fief.h:\n" + "\n".join(problems)


def test_callbacks_match_the_header(header: Header) -> None:
    for name, (c_ret, c_params) in header.callbacks.items():
        fn = getattr(L, name, None)
        assert fn is not None, f"_lib has no ctypes type for the callback {name}"
        assert _same(fn._restype_, expected_ctype(header, c_ret, name)), f"{name}: return type"
        assert len(fn._argtypes_) == len(c_params), f"{name}: argument count"
        for i, (actual, c_type) in enumerate(zip(fn._argtypes_, c_params)):
            assert _same(actual, expected_ctype(header, c_type, f"{name} argument {i}")), \
                f"{name}: argument {i} is {_name(actual)}, fief.h says {c_type}"


def test_the_checker_catches_a_wrong_prototype(header: Header, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is not vacuous: a wrong argument type and a wrong count are reported by name."""
    table = dict(L.PROTOTYPES)
    table["fief_list_get"] = (ctypes.c_bool, [L.H, ctypes.c_int32, ctypes.POINTER(L.fief_value_t)])
    table["fief_set_clear"] = (ctypes.c_bool, [])
    monkeypatch.setattr(L, "PROTOTYPES", table)
    with pytest.raises(AssertionError) as failure:
        test_prototypes_match_the_header(header)
    text = str(failure.value)
    assert "fief_list_get: argument 1 is c_int" in text and "size_t" in text
    assert "fief_set_clear: 0 arguments in _lib, 1 in fief.h" in text


# -- structures --------------------------------------------------------------

def _ctypes_fields(cls: Any, prefix: str = "", base: int = 0) -> List[Tuple[str, int, int]]:
    """(C member designator, offset, size) of every field, unions expanded."""
    out: List[Tuple[str, int, int]] = []
    for field in cls._fields_:
        fname, ftype = field[0], field[1]
        descriptor = getattr(cls, fname)
        offset = base + descriptor.offset
        out.append((prefix + fname, offset, descriptor.size))
        if isinstance(ftype, type) and issubclass(ftype, ctypes.Union):
            out.extend(_ctypes_fields(ftype, prefix + fname + ".", offset))
    return out


def _header_fields(fields: List[Tuple[str, str, Optional[int], Any]], prefix: str = "") -> List[str]:
    out: List[str] = []
    for name, _, _, sub in fields:
        out.append(prefix + name)
        if sub is not None:
            out.extend(_header_fields(sub, prefix + name + "."))
    return out


def test_structure_fields_are_the_headers(header: Header) -> None:
    classes = _structure_classes()
    problems = []
    for name, fields in header.structs.items():
        if name not in classes:
            problems.append(f"{name}: fief.h declares it, _lib has no ctypes Structure for it")
            continue
        ours = [f for f, _, _ in _ctypes_fields(classes[name])]
        theirs = _header_fields(fields)
        if ours != theirs:
            problems.append(f"{name}: fields {ours} in _lib, {theirs} in fief.h")
    assert not problems, "\n".join(problems)


def test_structure_layouts_match_the_c_compiler(header: Header, tmp_path: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert cc, "a C compiler (cc) is needed to check the structure layouts"
    classes = {name: cls for name, cls in _structure_classes().items() if name in header.structs}
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "fief.h"', "int main(void) {"]
    for name, cls in classes.items():
        lines.append(f'    printf("{name} %zu %zu\\n", sizeof({name}), _Alignof({name}));')
        for member, _, _ in _ctypes_fields(cls):
            lines.append(f'    printf("{name}.{member} %zu %zu\\n", offsetof({name}, {member}), '
                         f"sizeof((({name} *)0)->{member}));")
    lines += ["    return 0;", "}"]
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines) + "\n")
    program = tmp_path / "layout"
    built = subprocess.run([cc, "-std=c11", "-I", str(HEADER.parent), str(source), "-o", str(program)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(program)], capture_output=True, text=True, check=True)
    c_layout = {}
    for line in run.stdout.splitlines():
        key, a, b = line.split()
        c_layout[key] = (int(a), int(b))
    problems = []
    for name, cls in classes.items():
        size, align = c_layout[name]
        if (ctypes.sizeof(cls), ctypes.alignment(cls)) != (size, align):
            problems.append(f"{name}: size {ctypes.sizeof(cls)} align {ctypes.alignment(cls)} in ctypes, "
                            f"size {size} align {align} in C")
        for member, offset, fsize in _ctypes_fields(cls):
            if c_layout[f"{name}.{member}"] != (offset, fsize):
                c_offset, c_size = c_layout[f"{name}.{member}"]
                problems.append(f"{name}.{member}: offset {offset} size {fsize} in ctypes, "
                                f"offset {c_offset} size {c_size} in C")
    assert not problems, "ctypes structures disagree with the C compiler:\n" + "\n".join(problems)


# -- error codes -------------------------------------------------------------

def _error_codes() -> Dict[str, int]:
    """fief.h's FIEF_OK and FIEF_ERR_* codes (not the FIEF_ERR_CAT_* bits)."""
    raw = HEADER.read_text(encoding="utf-8")
    codes = {name: int(value) for name, value in
             re.findall(r"^#define\s+(FIEF_OK|FIEF_ERR_(?!CAT_)\w+)\s+(\d+)\b", raw, flags=re.M)}
    assert len(codes) > 30 and codes["FIEF_OK"] == 0 and codes["FIEF_ERR_INVALID_HANDLE"] == 1001
    return codes


def test_error_codes_are_the_headers() -> None:
    """fief.errors mirrors every FIEF_ERR_* code of fief.h, by name and value, and no other."""
    from fief import errors
    codes = _error_codes()
    mirrored = {f"FIEF_{name}": value for name, value in vars(errors).items()
                if re.fullmatch(r"OK|ERR_\w+", name) and isinstance(value, int)}
    assert mirrored == codes


def test_library_error_codes_are_the_headers(library: L.Library) -> None:
    """The library's codes (the engine's, named by fief_error_name) are fief.h's:
    each header code has its own name, and no other number is a code."""
    codes = _error_codes()
    for name, value in codes.items():
        assert library.fief_error_name(value) == name.encode(), name
    named = {n: library.fief_error_name(n).decode() for n in range(-1000, 100000) if library.fief_error_name(n)}
    assert named == {value: name for name, value in codes.items()}

