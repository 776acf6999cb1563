"""Versions and version ranges as the layers write them.

Node versions are compared with ``packaging`` where they are PEP 440
(``550.54.14``, ``2.8.0+cu128``, ``24.04``). A spec is a PEP 440 specifier set,
and ``||`` joins alternatives (``==30.20.* || ==6.4.*``), because vendor tables
list driver releases rather than ranges. Driver requirements are intersected as
interval sets so that an empty intersection ("needs >= 570 and < 471") can be
told apart from a narrow one; packaging has no interval algebra, hence
``VersionRange``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version

__all__ = ["parse_version", "parse_spec", "spec_matches", "spec_matcher", "VersionRange", "InvalidSpecError"]


class InvalidSpecError(ValueError):
    """A version or specifier that cannot be read."""


@lru_cache(maxsize=16384)
def parse_version(text: str) -> Version:
    """Read a version, leniently: ``15 SP6`` reads as 15.6, ``R550`` as 550. Remembered (a
    Version is immutable; the solver and fix read the same versions many times)."""
    try:
        return Version(text)
    except InvalidVersion:
        numbers = re.findall(r"\d+", text)
        if not numbers:
            raise InvalidSpecError(f"'{text}' is not a version") from None
        return Version(".".join(str(int(n)) for n in numbers))


@lru_cache(maxsize=4096)
def parse_spec(text: str) -> tuple[SpecifierSet, ...]:
    """Read a spec: PEP 440 specifier sets joined by ``||``.

    A bare version (``6.2``) means "this version or any release under it"
    (``==6.2.*``): that is what people mean by "ROCm 6.2".
    """
    alternatives = []
    for part in text.split("||"):
        part = part.strip().replace(" ", "")
        if not part:
            raise InvalidSpecError(f"empty alternative in '{text}'")
        if part[0].isdigit():
            part = f"=={part}.*" if "*" not in part and "+" not in part else f"=={part}"
        try:
            alternatives.append(SpecifierSet(part, prereleases=True))
        except InvalidSpecifier:
            raise InvalidSpecError(f"'{text}' is not a version specifier such as '>=12.4' or '==6.2.*'") from None
    return tuple(alternatives)


def spec_matches(version: str, spec: str) -> bool:
    """Whether a node version satisfies a spec (local labels ignored unless named)."""
    return spec_matcher(spec)(version)


def spec_matcher(spec: str) -> Callable[[str], bool]:
    """A test of versions against one spec (``spec_matches``), the spec looked up once rather
    than at every call (a selector's spec is matched against every release of a family). The
    spec is read when a version is first read: an unreadable spec raises there, and a version
    that cannot be read never matches."""
    alternatives: tuple[SpecifierSet, ...] | None = None

    def matches(version: str) -> bool:
        nonlocal alternatives
        try:
            v = parse_version(version)
        except InvalidSpecError:
            return False
        if alternatives is None:
            alternatives = parse_spec(spec)
        for alt in alternatives:
            if alt.contains(v, prereleases=True):
                return True
        return False

    return matches


_INF = None  # an open end of an interval


@dataclass(frozen=True)
class Interval:
    lo: Version | None
    lo_incl: bool
    hi: Version | None
    hi_incl: bool
    # The bounds as written ("570.124.06"), since Version normalises "06" to "6".
    lo_text: str | None = field(default=None, compare=False)
    hi_text: str | None = field(default=None, compare=False)

    def is_empty(self) -> bool:
        if self.lo is None or self.hi is None:
            return False
        if self.lo < self.hi:
            return False
        return not (self.lo == self.hi and self.lo_incl and self.hi_incl)

    def contains(self, v: Version) -> bool:
        if self.lo is not None and (v < self.lo or (v == self.lo and not self.lo_incl)):
            return False
        if self.hi is not None and (v > self.hi or (v == self.hi and not self.hi_incl)):
            return False
        return True

    def intersect(self, other: "Interval") -> "Interval":
        lo, lo_incl, lo_text = self.lo, self.lo_incl, self.lo_text
        if other.lo is not None and (lo is None or other.lo > lo or (other.lo == lo and not other.lo_incl)):
            lo, lo_incl, lo_text = other.lo, other.lo_incl, other.lo_text
        hi, hi_incl, hi_text = self.hi, self.hi_incl, self.hi_text
        if other.hi is not None and (hi is None or other.hi < hi or (other.hi == hi and not other.hi_incl)):
            hi, hi_incl, hi_text = other.hi, other.hi_incl, other.hi_text
        return Interval(lo, lo_incl, hi, hi_incl, lo_text, hi_text)

    def describe(self) -> str:
        lo = self.lo_text or str(self.lo)
        hi = self.hi_text or str(self.hi)
        if self.lo is not None and self.hi is not None and self.lo == self.hi:
            return f"== {lo}"
        parts = []
        if self.lo is not None:
            parts.append(f"{'>=' if self.lo_incl else '>'} {lo}")
        if self.hi is not None:
            parts.append(f"{'<=' if self.hi_incl else '<'} {hi}")
        return ", ".join(parts) or "any"


_EVERYTHING = Interval(None, False, None, False)


def _bump(release: tuple[int, ...]) -> Version:
    return Version(".".join(str(n) for n in (*release[:-1], release[-1] + 1)))


def _clause_interval(spec: Specifier) -> Interval:
    op, text = spec.operator, spec.version
    if text.endswith(".*"):
        base = Version(text[:-2])
        if op == "==":
            return Interval(base, True, _bump(base.release), False, text[:-2])
        return _EVERYTHING  # != X.* cannot narrow a single interval; treated as no bound
    v = Version(text)
    if op in ("==", "==="):
        return Interval(v, True, v, True, text, text)
    if op == ">=":
        return Interval(v, True, None, False, text)
    if op == ">":
        return Interval(v, False, None, False, text)
    if op == "<=":
        return Interval(None, False, v, True, None, text)
    if op == "<":
        return Interval(None, False, v, False, None, text)
    if op == "~=":
        return Interval(v, True, _bump(v.release[:-1]), False, text)
    return _EVERYTHING


@dataclass(frozen=True)
class VersionRange:
    """A union of version intervals: what a driver layer may be on a path."""

    intervals: tuple[Interval, ...]

    @classmethod
    def everything(cls) -> "VersionRange":
        return cls((_EVERYTHING,))

    @classmethod
    def from_spec(cls, text: str) -> "VersionRange":
        pieces = []
        for alt in parse_spec(text):
            iv = _EVERYTHING
            for clause in alt:
                iv = iv.intersect(_clause_interval(clause))
            if not iv.is_empty():
                pieces.append(iv)
        return cls(tuple(pieces))

    def intersect(self, other: "VersionRange") -> "VersionRange":
        out = []
        for a in self.intervals:
            for b in other.intervals:
                c = a.intersect(b)
                if not c.is_empty():
                    out.append(c)
        return VersionRange(tuple(out))

    def is_empty(self) -> bool:
        return not self.intervals

    def contains(self, version: str) -> bool:
        v = parse_version(version)
        return any(iv.contains(v) for iv in self.intervals)

    def overlaps(self, other: "VersionRange") -> bool:
        return not self.intersect(other).is_empty()

    def describe(self) -> str:
        """Plain words: '>= 550.54.14', or a list such as '30.30.0, 30.20.x or 6.4.x'."""
        if not self.intervals:
            return "no version"
        words = [_interval_words(iv) for iv in self.intervals]
        if len(words) == 1:
            return words[0]
        if all(not w.startswith(("<", ">")) for w in words):
            return ", ".join(words[:-1]) + " or " + words[-1]
        return " or ".join(words)


def _interval_words(iv: Interval) -> str:
    if iv.lo is not None and iv.hi is not None:
        if iv.lo == iv.hi:
            return iv.lo_text or str(iv.lo)
        if iv.lo_incl and not iv.hi_incl and len(iv.lo.release) == len(iv.hi.release) \
                and iv.hi == _bump(iv.lo.release):
            return f"{iv.lo_text or iv.lo}.x"
    return iv.describe()


def _kernel_parts(text: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``"6.11.0-21-generic"`` -> ((6, 11, 0), (21,)); ``"5.14.0-362"`` -> ((5, 14, 0), (362,));
    ``"6.8 GA"`` -> ((6, 8), ()). None when the text does not start with a kernel version."""
    m = re.match(r"\s*(\d+(?:\.\d+)*)(?:-(\d+(?:\.\d+)*))?", text)
    if not m:
        return None
    release = tuple(int(x) for x in m.group(1).split("."))
    build = tuple(int(x) for x in m.group(2).split(".")) if m.group(2) else ()
    return release, build


def kernel_matches(kernel: str, listed: str) -> bool:
    """Whether a running kernel (``uname -r``: "6.11.0-21-generic") is one a source lists.

    A source lists a kernel series ("6.8 GA", "6.11 HWE", "5.14.0-570", "4.18-513"): the kernel
    matches when the listed release numbers are a prefix of its own (6.8 matches 6.8.0-45) and,
    where the source also gives a build number, that is a prefix of the kernel's build too.
    """
    have, want = _kernel_parts(kernel), _kernel_parts(listed)
    if have is None or want is None:
        return False
    (release, build), (w_release, w_build) = have, want
    # "4.18-513" and "4.18.0-513...": a listed release may leave out a trailing .0
    if w_build and len(w_release) < len(release):
        w_release = w_release + (0,) * (len(release) - len(w_release))
    return release[:len(w_release)] == w_release and build[:len(w_build)] == w_build
