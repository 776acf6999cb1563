"""Names → nodes: normalisation, aliases, families with versions, "did you mean".

"7900xtx", "RX 7900 XTX" and "Radeon RX 7900 XTX" are one GPU; "noble" and
"24.04" are Ubuntu 24.04; "cu124" is every CUDA 12.4 release; "ROCm 6.2" is
every 6.2.x release. A name resolves to a *set* of nodes of one layer.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Iterable, TypedDict

from gpulane.model import Layer, Node
from gpulane.versions import InvalidSpecError, parse_spec, spec_matches

__all__ = ["normalise", "NameIndex", "NameKeyTables", "Resolution", "FAMILY_SYNONYMS", "split_family_version"]

# Brand words people leave out when they name a product.
_BRAND_WORDS = ("amd", "nvidia", "radeon", "geforce", "instinct", "rx", "rtx", "gtx", "tesla", "quadro", "pro")

# Words users type for a family, beside the family names the data uses.
FAMILY_SYNONYMS = {
    "pytorch": "torch",
    "tf": "tensorflow",
    "cu": "cuda",
    "hip": "hip-sdk",
    "hipsdk": "hip-sdk",
    "llamacpp": "llama.cpp",
    "flashattention": "flash-attention",
    "flashattn": "flash-attention",
    "fa": "flash-attention",
    "ubuntulinux": "ubuntu",
    "redhat": "rhel",
    "win": "windows",
}

# Words that name an OS platform rather than a release: `os = Linux` is any Linux release the
# knowledge base has, `os = Windows` any Windows release (WSL2 is an OS node of its own).
_PLATFORM_WORDS = {"linux": "linux", "windows": "windows", "win": "windows"}

_CODENAMES = {"noble": "ubuntu 24.04", "jammy": "ubuntu 22.04", "focal": "ubuntu 20.04", "trixie": "debian 13", "bookworm": "debian 12"}


_DROPPED = re.compile(r"[\s\-_'\"()]+")  # compiled once: names are normalised tens of thousands of times


def normalise(text: str) -> str:
    """Lower-case and drop spaces, dashes, underscores and quotes; keep '.' and '+'."""
    return _DROPPED.sub("", text.lower())


_FAMILY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz .-_")


def split_family_version(text: str) -> tuple[str, str] | None:
    """'ROCm 6.2' → ('ROCm', '6.2'); 'torch >= 2.4' → ('torch', '>= 2.4'); 'cuda' → ('cuda', '').

    A family is a letter then letters, spaces, '.', '-' or '_'; the version, after an optional
    '@', starts with an optional comparison and then a digit, and runs to the end of the line.
    None when the text is not of that shape. One pass over the text, so a name of any length
    (600 spaces and a '!') is read in linear time; a regular expression with a lazy group and
    two optional space runs took minutes on such names.
    """
    raw = text.strip()
    if not raw or not ("A" <= raw[0] <= "Z" or "a" <= raw[0] <= "z"):
        return None
    end = 1
    while end < len(raw) and raw[end] in _FAMILY_CHARS:
        end += 1
    family = raw[:end].rstrip(" ")
    i = end
    while i < len(raw) and raw[i].isspace():
        i += 1
    if i < len(raw) and raw[i] == "@":
        i += 1
        while i < len(raw) and raw[i].isspace():
            i += 1
    version = raw[i:]
    if not version:
        return family, ""
    j = 0
    if version[0] in "<>=!~":
        j = 2 if len(version) > 1 and version[1] == "=" else 1
    while j < len(version) and version[j].isspace():
        j += 1
    if j >= len(version) or not version[j].isdecimal() or "\n" in version[j:]:
        return None
    return family, version.strip()


def _without_memory_size(name: str) -> str:
    """"Instinct MI50 (16GB)" -> "Instinct MI50"; "RX 6750 GRE 12GB" -> "RX 6750 GRE"; else the name."""
    words = name.rstrip().split(" ")
    if len(words) > 1:
        last = words[-1].strip("()")
        if last.upper().endswith("GB") and last[:-2].isdecimal():
            return " ".join(words[:-1]).rstrip()
    return name


# Words after a model number that name a board's memory or form factor, not another model.
_BOARD_WORDS = frozenset({"pcie", "sxm", "sxm2", "sxm3", "sxm4", "sxm5", "active", "lc", "fhhl", "hbm3", "hbm3e"})
# In the lower-case name of any size ("16gb") or board word: a name without one keeps its words.
# (A pattern compiled by re's cache when first used, which only building the index does: not at
# import, which every warm start pays.)
_SIZE_OR_BOARD = "|".join(["gb", *sorted(_BOARD_WORDS)])


def _model_only(name: str) -> str:
    """"NVIDIA A800 40GB Active" and "NVIDIA A800-SXM4-40GB" -> "NVIDIA A800": a name whose tail is
    only a memory size and board words loses the tail, so every board of one model shares the
    model's key (and a bare "A800" asks which). Else the name ("RTX A1000 6GB Laptop GPU" stays)."""
    if not re.search(_SIZE_OR_BOARD, name.lower()):
        return name  # no word can be a size or a board word (most names): not split
    words = [w for w in re.split(r"[\s\-]+", name.strip()) if w]

    def is_size(word: str) -> bool:
        bare = word.strip("()").lower()
        return bare.endswith("gb") and bare[:-2].isdecimal()

    for cut, word in enumerate(words):
        if is_size(word) or word.lower() in _BOARD_WORDS:
            tail = words[cut:]
            if (any(is_size(w) for w in tail) and all(is_size(w) or w.lower() in _BOARD_WORDS for w in tail)
                    and any(ch.isdecimal() for ch in "".join(words[:cut]))):
                return " ".join(words[:cut])
            break
    return name


_VERSION_WORD = re.compile(r"[vb]?(\d[\w.*+]*)")


def _series_key(name: str, version: str) -> str | None:
    """A versioned name without its (non-empty) version: "Ollama 0.12.4 (ROCm)" → "ollamarocm".

    The version is taken out where it stands as a word of its own, optionally written v0.12.4 or
    b5000: what ``re.subn(r"(?<![\\w.])[vb]?VERSION(?![\\w.])", " ", name)`` replaces, found with
    ``str.find`` instead. (Each version is another pattern: compiling one per app release was a
    fifth of a cold start's compile, and more than the regular expression cache holds.)"""
    pieces, kept, at, size = [], 0, 0, len(version)
    while (found := name.find(version, at)) >= 0:
        end = found + size
        if end < len(name) and _word_or_dot(name[end]):
            at = found + 1
            continue
        if found and name[found - 1] in "vb" and found - 1 >= kept \
                and not (found > 1 and _word_or_dot(name[found - 2])):
            start = found - 1  # the match takes the v or b before the version
        elif found and _word_or_dot(name[found - 1]):
            at = found + 1
            continue
        else:
            start = found
        pieces.append(name[kept:start])
        kept = at = end
    if not pieces:
        return None
    pieces.append(name[kept:])
    return normalise(" ".join(pieces))


def _word_or_dot(ch: str) -> bool:
    """Whether a character is one a regular expression's ``[\\w.]`` matches (\\w as Python's
    ``re`` reads a str pattern: a letter or digit of any script, or '_')."""
    return ch.isalnum() or ch == "_" or ch == "."


def _brandless_keys(name: str) -> list[str]:
    """Keys without the leading brand words, and without a trailing memory size:
    "Instinct MI50 (16GB)" is also "MI50", which then names both memory sizes."""
    sized = _without_memory_size(name)
    if sized == name:
        sized = _model_only(name)
    keys = [normalise(sized)] if sized and sized != name else []
    if keys:
        keys += _brandless_keys(sized)
    words = name.split()
    while len(words) > 1 and words[0].lower() in _BRAND_WORDS:
        words = words[1:]
        keys.append(normalise(" ".join(words)))
    return keys


_AMD_WORDS = frozenset({"amd", "radeon", "rx", "instinct", "firepro", "vega", "ryzen"})
_NVIDIA_WORDS = frozenset({"nvidia", "geforce", "rtx", "gtx", "gt", "quadro", "tesla", "titan", "jetson", "nvs"})


def _numbers(text: str) -> set[str]:
    """The model numbers in a name: "RX 7800 XT" -> {"7800"}; "Radeon 780M" -> {"780"}."""
    out, current = set(), ""
    for ch in text:
        if ch.isdecimal():
            current += ch
        elif current:
            out.add(current)
            current = ""
    if current:
        out.add(current)
    return out


def _vendor_of_words(text: str) -> str | None:
    """The GPU vendor a name's brand words point to, when they point to one."""
    words = {w for w in text.lower().replace("-", " ").split()}
    amd, nvidia = bool(words & _AMD_WORDS), bool(words & _NVIDIA_WORDS)
    return "amd" if amd and not nvidia else "nvidia" if nvidia and not amd else None


@dataclass
class Resolution:
    """What a name resolved to: node ids of one layer, and how."""

    layer: Layer
    ids: tuple[str, ...]
    how: str  # "name", "alias", "platform", "family", "family+version"
    family: str | None = None
    spec: str | None = None


class NameKeyTables(TypedDict):
    """The name-keyed tables of a ``NameIndex`` as a cache stores them (``key_tables``)."""

    exact: dict[str, dict[Layer, set[str]]]
    loose: dict[str, dict[Layer, set[str]]]
    families: dict[str, dict[Layer, list[str]]]
    series: dict[str, dict[Layer, set[str]]]


@dataclass
class NameIndex:
    """Lookup tables from normalised names to node ids, per layer."""

    exact: dict[str, dict[Layer, set[str]]] = field(default_factory=dict)
    loose: dict[str, dict[Layer, set[str]]] = field(default_factory=dict)
    families: dict[str, dict[Layer, list[str]]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    display: dict[str, str] = field(default_factory=dict)
    platforms: dict[str, list[str]] = field(default_factory=dict)  # OS platform -> OS node ids
    vendors: dict[str, str] = field(default_factory=dict)
    # A release line: the name with its version taken out ("Ollama 0.12.4 (ROCm)" →
    # "ollamarocm"), so "Ollama (ROCm)" names every ROCm release and
    # "bitsandbytes 0.45 LLM.int8()" the feature at 0.45.x.
    series: dict[str, dict[Layer, set[str]]] = field(default_factory=dict)

    @classmethod
    def build(cls, nodes: list[Node]) -> "NameIndex":
        index = cls()
        for node in nodes:
            index._copy_node_fields(node)
            for key in {normalise(node.id), normalise(node.name), *(normalise(a) for a in node.aliases)}:
                index.exact.setdefault(key, {}).setdefault(node.layer, set()).add(node.id)
            loose = set(_brandless_keys(node.name))
            for alias in node.aliases:
                loose.update(_brandless_keys(alias))
            if node.layer is Layer.os and node.version:
                loose.add(normalise(node.version))
            if node.layer is Layer.arch and node.compute_capability:
                loose.update({normalise(f"sm {node.compute_capability.replace('.', '')}"),
                              normalise(f"cc {node.compute_capability}")})
            for key in loose:
                index.loose.setdefault(key, {}).setdefault(node.layer, set()).add(node.id)
            if node.family:
                index.families.setdefault(normalise(node.family), {}).setdefault(node.layer, []).append(node.id)
            if node.version:
                # Release lines are an app notion; other layers name releases by family.
                key = _series_key(node.name, node.version) if node.layer is Layer.app else None
                if key:
                    index.series.setdefault(key, {}).setdefault(node.layer, set()).add(node.id)
        return index

    def _copy_node_fields(self, node: Node) -> None:
        """The tables that copy a node's own fields (name, vendor, version, platform)."""
        self.display[node.id] = node.name
        if node.vendor:
            self.vendors[node.id] = node.vendor
        if node.version:
            self.versions[node.id] = node.version
        if node.layer is Layer.os and node.platform is not None:
            self.platforms.setdefault(node.platform.value, []).append(node.id)

    def key_tables(self) -> dict:
        """The tables keyed by normalised names as JSON-ready data (layers by value, sets as
        sorted lists): what ``of_key_tables`` needs besides the nodes. (Matching names is what
        building the index costs; the other tables copy node fields, made again for less than
        reading them.)"""
        def by_layer(table: dict) -> dict:
            # (A layer's value read as ``_value_``, the member's own attribute: half the time of
            # ``value``'s descriptor over some 5,000 keys.)
            return {key: {layer._value_: sorted(ids) if isinstance(ids, set) else list(ids)
                          for layer, ids in layers.items()} for key, layers in table.items()}

        return {"exact": by_layer(self.exact), "loose": by_layer(self.loose), "families": by_layer(self.families),
                "series": by_layer(self.series)}

    @classmethod
    def of_key_tables(cls, tables: "NameKeyTables", nodes: Iterable[Node]) -> "NameIndex":
        """The index of these nodes from the key tables ``key_tables`` wrote for them, read back
        with their types (layers, sets: see ``NameKeyTables``)."""
        index = cls(exact=tables["exact"], loose=tables["loose"], families=tables["families"],
                    series=tables["series"])
        for node in nodes:
            index._copy_node_fields(node)
        return index

    # -- resolution -------------------------------------------------------------

    def resolve(self, text: str, layer: Layer | None = None) -> list[Resolution]:
        """Every reading of a name, best first; empty if none.

        With a layer, only that layer's nodes are considered.
        """
        key = normalise(_CODENAMES.get(text.strip().lower(), text))
        for table, how in ((self.exact, "name"), (self.loose, "alias"), (self.series, "series")):
            hits = table.get(key, {})
            found = [Resolution(lyr, tuple(sorted(ids | self._releases_of(key, lyr, ids))), how)
                     for lyr, ids in hits.items() if layer is None or lyr is layer]
            if found:
                return found
        platform = _PLATFORM_WORDS.get(key)
        if platform and layer in (None, Layer.os) and self.platforms.get(platform):
            return [Resolution(Layer.os, tuple(sorted(self.platforms[platform])), "platform", platform)]
        return self._resolve_family(text, layer) or self._resolve_release(text, layer)

    def _releases_of(self, key: str, layer: Layer, ids: set[str]) -> set[str]:
        """The versioned releases a versionless name stands for.

        "Ollama" (a node named like its family) means every release of the family;
        "llama.cpp (Vulkan)" every release of that line. Nodes named with a version
        stand for themselves.
        """
        if layer is not Layer.app or any(i in self.versions for i in ids):
            return set()
        out = set(self.series.get(key, {}).get(layer, set()))
        if key in self.families:
            out.update(self.families[key].get(layer, []))
        return out

    def _resolve_release(self, text: str, layer: Layer | None) -> list[Resolution]:
        """A release line with a version inside the name: "bitsandbytes 0.45 (LLM.int8)",
        "Ollama 0.12 (ROCm)", "llama.cpp b5000"."""
        # Word by word (linear in the length of the name, whatever it holds): the first word
        # after the first one that is a version, optionally written b5000 or v0.12.4.
        words = text.replace("@", " ").split()
        if len(words) > 12:
            return []
        for i, word in enumerate(words[1:], start=1):
            match = _VERSION_WORD.fullmatch(word)
            if match:
                head, version_text, tail = " ".join(words[:i]), match.group(1), " ".join(words[i + 1:])
                break
        else:
            return []
        try:
            parse_spec(version_text)
        except InvalidSpecError:
            return []
        key = normalise(f"{head} {tail}")
        pool = self.series.get(key) or (self.families.get(normalise(FAMILY_SYNONYMS.get(key, key))) if not tail else None)
        results = []
        for lyr, ids in (pool or {}).items():
            if layer is not None and lyr is not layer:
                continue
            picked = tuple(sorted(i for i in ids if i in self.versions and spec_matches(self.versions[i], version_text)))
            results.append(Resolution(lyr, picked, "family+version", key, version_text))
        return results

    def _resolve_family(self, text: str, layer: Layer | None) -> list[Resolution]:
        split = split_family_version(text)
        if split is None:
            return []
        fam_text, version_text = split
        fam_key = normalise(fam_text)
        # Synonyms are written as the data spells the family ("flash-attention"); the table is normalised.
        fam_key = normalise(FAMILY_SYNONYMS.get(fam_key, fam_key))
        if fam_key not in self.families:
            return []
        if fam_key == "cuda" and re.fullmatch(r"\d{3}", version_text):
            version_text = f"{version_text[:2]}.{version_text[2:]}"  # cu124 → 12.4
        results = []
        for lyr, ids in self.families[fam_key].items():
            if layer is not None and lyr is not layer:
                continue
            if not version_text:
                results.append(Resolution(lyr, tuple(sorted(ids)), "family", fam_key))
                continue
            try:
                parse_spec(version_text)
            except InvalidSpecError:
                continue
            picked = tuple(sorted(i for i in ids if i in self.versions and spec_matches(self.versions[i], version_text)))
            results.append(Resolution(lyr, picked, "family+version", fam_key, version_text))
        return results

    def suggestions(self, text: str, layer: Layer | None = None, n: int = 3) -> list[str]:
        """Display names close to a name that resolved to nothing, best first.

        Ranked by spelling similarity, then adjusted: names that start with what was typed
        ("A800" -> the A800 SKUs) and names with the same model number ("Radeon 780" -> Radeon
        780M, not RX 7800 XT) rank higher; a name of the other GPU vendor than the one the
        typed words name ("RX 580" is AMD, "RTX 5080" NVIDIA) ranks lower.
        """
        key = normalise(text)
        if not key:
            return []
        pool: dict[str, tuple[str, str | None]] = {}  # key -> (display name, vendor)
        for table in (self.exact, self.loose):
            for k, by_layer in table.items():
                for lyr, ids in by_layer.items():
                    if layer is None or lyr is layer:
                        for i in sorted(ids):
                            pool.setdefault(k, (self.display.get(i, i), self.vendors.get(i)))
        for fam, by_layer in self.families.items():
            if layer is None or layer in by_layer:
                pool.setdefault(fam, (fam, None))
        numbers = _numbers(text)
        vendor = _vendor_of_words(text)
        matcher = difflib.SequenceMatcher(b=key, autojunk=False)
        scored: list[tuple[float, str]] = []
        for k, (shown, node_vendor) in pool.items():
            matcher.set_seq1(k)
            if matcher.real_quick_ratio() < 0.45 and not k.startswith(key):
                continue
            score = matcher.ratio()
            if k.startswith(key) and len(key) >= 3:
                score += 0.4
            if numbers:
                theirs = _numbers(shown) | _numbers(k)
                score += 0.3 if numbers & theirs else -0.2
            if vendor and node_vendor:
                score += 0.2 if node_vendor == vendor else -0.5
            if score >= 0.6:
                scored.append((score, shown))
        names: list[str] = []
        for _, shown in sorted(scored, key=lambda s: (-s[0], s[1])):
            if shown not in names:
                names.append(shown)
        return names[:n]
