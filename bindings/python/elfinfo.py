"""What the packaging needs to know about an ELF shared library, read from
the file itself (no binutils): its machine, its sections, its DT_NEEDED and
DT_SONAME entries, and the symbol versions it needs from each library
(SHT_GNU_verneed), hence the glibc it requires.

Used by setup.py (the wheel's platform tag, whether to strip the library)
and by the tests.  Not part of the installed package."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NULL = 0
DT_NEEDED = 1
DT_SONAME = 14

# e_machine -> the architecture in a platform tag
MACHINES = {3: "i686", 40: "armv7l", 62: "x86_64", 183: "aarch64", 21: "ppc64le", 22: "s390x", 243: "riscv64"}


class Section(NamedTuple):
    name: str
    type: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


class ElfFile:
    """A parsed ELF file (the whole file is read: libraries are small enough)."""

    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        data = self.path.read_bytes()
        if data[:4] != b"\x7fELF":
            raise ValueError(f"{path} is not an ELF file")
        self.data = data
        self.is64 = data[4] == 2
        self.endian = "<" if data[5] == 1 else ">"
        e = self.endian
        if self.is64:
            (self.type, self.machine, _, _, _, shoff, _, _, _, _, shentsize, shnum,
             shstrndx) = struct.unpack_from(e + "HHIQQQIHHHHHH", data, 16)
            fmt = e + "IIQQQQIIQQ"
        else:
            (self.type, self.machine, _, _, _, shoff, _, _, _, _, shentsize, shnum,
             shstrndx) = struct.unpack_from(e + "HHIIIIIHHHHHH", data, 16)
            fmt = e + "IIIIIIIIII"
        raw = []
        for i in range(shnum):
            (name, stype, _flags, _addr, offset, size, link, info, _align,
             entsize) = struct.unpack_from(fmt, data, shoff + i * shentsize)
            raw.append((name, stype, offset, size, link, info, entsize))
        names = raw[shstrndx] if shnum else None
        self.sections: List[Section] = []
        for name, stype, offset, size, link, info, entsize in raw:
            text = self._string(names[2] + name) if names else ""
            self.sections.append(Section(text, stype, offset, size, link, info, entsize))

    def _string(self, offset: int) -> str:
        end = self.data.index(b"\0", offset)
        return self.data[offset:end].decode("utf-8", "replace")

    def _strtab(self, section: Section, offset: int) -> str:
        return self._string(self.sections[section.link].offset + offset)

    @property
    def architecture(self) -> Optional[str]:
        return MACHINES.get(self.machine)

    def section_names(self) -> List[str]:
        return [s.name for s in self.sections]

    def has_debug_info(self) -> bool:
        """Whether DWARF sections are present (.debug_* or compressed .zdebug_*)."""
        return any(n.startswith((".debug", ".zdebug")) for n in self.section_names())

    def has_symtab(self) -> bool:
        """Whether the static symbol table (beyond .dynsym) is present."""
        return ".symtab" in self.section_names()

    def _dynamic(self) -> List[Tuple[int, str]]:
        entries: List[Tuple[int, str]] = []
        fmt = self.endian + ("qQ" if self.is64 else "iI")
        size = struct.calcsize(fmt)
        for section in self.sections:
            if section.type != SHT_DYNAMIC:
                continue
            for i in range(section.size // size):
                tag, value = struct.unpack_from(fmt, self.data, section.offset + i * size)
                if tag == DT_NULL:
                    break
                if tag in (DT_NEEDED, DT_SONAME):
                    entries.append((tag, self._strtab(section, value)))
        return entries

    def needed(self) -> List[str]:
        """The DT_NEEDED entries, in order."""
        return [text for tag, text in self._dynamic() if tag == DT_NEEDED]

    def soname(self) -> Optional[str]:
        for tag, text in self._dynamic():
            if tag == DT_SONAME:
                return text
        return None

    def version_needs(self) -> Dict[str, List[str]]:
        """{library: [symbol version names]} from the version-needed section."""
        needs: Dict[str, List[str]] = {}
        e = self.endian
        for section in self.sections:
            if section.type != SHT_GNU_VERNEED:
                continue
            offset = section.offset
            for _ in range(section.info):  # sh_info: the number of Verneed entries
                _version, count, file, aux, nxt = struct.unpack_from(e + "HHIII", self.data, offset)
                names = needs.setdefault(self._strtab(section, file), [])
                at = offset + aux
                for _ in range(count):
                    _hash, _flags, _other, name, anext = struct.unpack_from(e + "IHHII", self.data, at)
                    names.append(self._strtab(section, name))
                    if not anext:
                        break
                    at += anext
                if not nxt:
                    break
                offset += nxt
        return needs

    def versions(self, prefix: str) -> List[Tuple[int, ...]]:
        """The versions needed with this prefix ("GLIBC_", "GLIBCXX_", ...), sorted."""
        found = set()
        pattern = re.compile(re.escape(prefix) + r"(\d+(?:\.\d+)*)$")
        for names in self.version_needs().values():
            for name in names:
                match = pattern.match(name)
                if match:
                    found.add(tuple(int(p) for p in match.group(1).split(".")))
        return sorted(found)

    def glibc(self) -> Tuple[int, int]:
        """The highest GLIBC_x.y symbol version needed (2.17 if none is: the
        oldest glibc of a manylinux tag pip knows)."""
        found = [v for v in self.versions("GLIBC_") if len(v) >= 2]
        if not found:
            return (2, 17)
        return max(found)[:2]  # type: ignore[return-value]

    def manylinux_tag(self) -> str:
        """manylinux_<glibc major>_<glibc minor>_<architecture>."""
        arch = self.architecture
        if arch is None:
            raise ValueError(f"{self.path}: unknown ELF machine {self.machine}")
        major, minor = self.glibc()
        return f"manylinux_{major}_{minor}_{arch}"
