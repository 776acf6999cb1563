"""Knowledge-base files → validated models, all or nothing.

Each YAML mapping remembers the line it starts on and the line of each key, so
a schema error names the file, the line, the item and the field::

    gpulane/data/amd.yaml:41: fact 'rocm-6.2-gfx1100': status 'suported' is not
    one of supported, deprecated, workaround, community, unsupported

Anchors and aliases are refused (a knowledge base has no use for them, and
they are how "billion laughs" files blow up), and so are duplicate keys, which
YAML would otherwise resolve silently by keeping the last one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError

from gpulane.errors import FileProblem
from gpulane.loaders.folder import (MAX_FILE_BYTES, StoredKB, _KIND_WORD, assemble, default_data_dir,  # noqa: F401
                                    display_path, kb_files)
from gpulane.loaders.safeio import UnreadableFile, read_regular_file
from gpulane.model import Fact, KBFile, KnowledgeBase, Node, Origin, Source, Step  # noqa: F401 (re-exported)
from gpulane.textsafe import has_control

__all__ = ["KnowledgeBase", "Origin", "load_files", "read_kb_file", "read_kb_file_lines", "default_data_dir", "kb_files",
           "StoredKB", "MAX_FILE_BYTES", "MAX_YAML_DEPTH"]

# Knowledge-base YAML is a few levels deep; 500 levels made the loader overflow the stack.
MAX_YAML_DEPTH = 32


_STR_TAG = "tag:yaml.org,2002:str"


class _LineDict(dict):
    line: int = 0
    key_lines: dict


class _LineRules:
    """What both knowledge-base loaders do on top of YAML's safe loading: record lines, refuse
    aliases, duplicate keys and deep nesting (checked on the event stream, before any node is
    built)."""

    _depth = 0

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError("while reading", None,
                                       "anchors and aliases are not allowed in knowledge-base files",
                                       event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.MarkedYAMLError("while reading", None, f"nested deeper than {MAX_YAML_DEPTH} levels",
                                           self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):  # type: ignore[override]
        mapping = _LineDict()
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {}
        for key_node, value_node in node.value:
            key = self._construct(key_node, deep=True)
            if key in mapping:
                raise yaml.MarkedYAMLError("while reading a mapping", node.start_mark,
                                           f"duplicate key '{key}'", key_node.start_mark)
            mapping[key] = self._construct(value_node, deep=True)
            mapping.key_lines[key] = key_node.start_mark.line + 1
        return mapping

    def construct_sequence(self, node, deep=False):  # type: ignore[override]
        if not isinstance(node, yaml.SequenceNode):
            return super().construct_sequence(node, deep)
        return [self._construct(child, deep) for child in node.value]

    def _construct(self, node, deep):
        """A node's value: a plain text scalar is its own value (what SafeConstructor's str
        constructor returns), taken directly, which skips the generic dispatch for most nodes."""
        if node.tag == _STR_TAG and type(node) is yaml.ScalarNode:
            return node.value
        return self.construct_object(node, deep=deep)


class _LineLoader(_LineRules, yaml.SafeLoader):
    """A safe loader that records lines and refuses aliases and duplicate keys (pure Python)."""


try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml
    _CParser = None


def _tree_is_plain(root, may_alias: bool = True) -> bool:
    """Whether a composed node tree is at most MAX_YAML_DEPTH levels deep and, where the text may
    hold one (`may_alias`), has no alias (libyaml's composer hands the anchored node out again);
    walked without recursion."""
    seen: set[int] = set()
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if may_alias:
            if id(node) in seen:
                return False
            seen.add(id(node))
        if node.value and depth >= MAX_YAML_DEPTH and isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            return False  # its children, scalars included, would be one level too deep
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if may_alias or not isinstance(key, yaml.ScalarNode):
                    stack.append((key, depth + 1))
                if may_alias or not isinstance(value, yaml.ScalarNode):
                    stack.append((value, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value
                         if may_alias or not isinstance(item, yaml.ScalarNode))
    return True


# Where an alias token could start: a '*' at a line start or after a space or a flow indicator.
_ALIAS_START = re.compile(r"(?:^|[\s\[\{,:?])\*", re.M)

# libyaml refuses nesting deeper than 1,000 levels from 0.2.5 on, so its own (recursive, C)
# composer cannot be driven off the stack by a hostile file; older builds compose in Python.
_C_COMPOSE = _CParser is not None and yaml._yaml.get_version() >= (0, 2, 5)

if _CParser is not None:
    class _FastLineLoader(_LineRules, yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor,
                          yaml.resolver.Resolver):
        """The same loader with libyaml's scanner and parser (about six times faster on the shipped
        files). Where libyaml is 0.2.5 or newer, libyaml also composes the node tree, which is then
        walked for aliases and depth before anything is constructed (`_tree_is_plain`); older
        builds compose in Python (`_LineRules`). Either way the alias, depth and duplicate-key
        rules and the recorded lines are those of `_LineLoader` (a file that breaks one is read
        again by `_LineLoader`, which says what is wrong)."""

        def __init__(self, stream):
            # An alias is written `*name` where a node starts (after a space, a line start or a
            # flow indicator); a file with no such '*' ("==12.8.*" is not one) has none to look for.
            self._may_alias = bool(_ALIAS_START.search(stream)) if isinstance(stream, str) else True
            _CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            yaml.composer.Composer.__init__(self)

        def get_single_data(self):
            if not _C_COMPOSE:
                return super().get_single_data()
            node = _CParser.get_single_node(self)
            if node is None:
                return None
            if not _tree_is_plain(node, may_alias=self._may_alias):
                raise yaml.YAMLError("an alias, or nesting deeper than the limit")
            return self.construct_document(node)

    _LOADERS: tuple = (_LineLoader, _FastLineLoader)
else:
    _LOADERS = (_LineLoader,)

for _loader in _LOADERS:
    # Dates stay strings in the raw data so that pydantic reports bad ones by field.
    _loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _loader.construct_mapping)
# Characters PyYAML's own reader refuses (yaml.reader.Reader.NON_PRINTABLE).
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE


def _load_yaml(text: str):
    """The raw data of one file, with lines recorded. libyaml reads files it can read; anything
    else (a syntax error, a character it or PyYAML refuses, any other failure) is read again by
    the pure-Python loader, so that errors are reported in the same words and at the same line
    whichever loader is installed."""
    if len(_LOADERS) > 1 and not _NON_PRINTABLE.search(text):
        try:
            return yaml.load(text, Loader=_LOADERS[1])  # noqa: S506 - safe: SafeConstructor, no aliases
        except Exception:  # noqa: BLE001 - the pure loader below says what is wrong
            pass
    return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - _LineLoader is a SafeLoader


def _describe_error(err: dict, raw: Any) -> tuple[int | None, str]:
    """Turn one pydantic error into (line, 'kind 'id': field message')."""
    loc = list(err["loc"])
    line = getattr(raw, "line", None)
    item_label = ""
    node: Any = raw
    path_fields: list[str] = []
    for i, part in enumerate(loc):
        if isinstance(node, dict) and part in node:
            if isinstance(node, _LineDict):
                line = node.key_lines.get(part, line)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
            if isinstance(node, _LineDict):
                line = node.line
                if i == 1 and loc[0] in _KIND_WORD:
                    ident = node.get("id")
                    item_label = f"{_KIND_WORD[loc[0]]} '{ident}'" if ident else f"{_KIND_WORD[loc[0]]} #{part + 1}"
                    path_fields = []
                    continue
        else:
            # pydantic adds steps that are not in the data (union branches, validators)
            continue
        if i >= 2 or loc[0] not in _KIND_WORD:
            if isinstance(part, str):
                path_fields.append(part)
    field_name = ".".join(path_fields) or (str(loc[-1]) if loc else "")
    message = _error_text(err, field_name)
    return line, f"{item_label}: {message}" if item_label else message


def _error_text(err: dict, field_name: str) -> str:
    kind, value = err["type"], err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "enum":
        expected = ctx.get("expected", "").replace("'", "")
        expected = expected.replace(" or ", ", ")
        return f"{field_name} '{value}' is not one of {expected}"
    if kind == "literal_error":
        expected = ctx.get("expected", "").replace("'", "").replace(" or ", ", ")
        return f"{field_name} '{value}' is not one of {expected}"
    if kind == "missing":
        return f"missing required field '{field_name}'"
    if kind == "extra_forbidden":
        return f"unknown field '{field_name}'"
    if kind in ("date_from_datetime_parsing", "date_parsing", "date_type"):
        return f"{field_name} '{value}' is not a date such as 2026-11-30"
    if kind in ("float_parsing", "float_type", "int_parsing"):
        return f"{field_name} '{value}' is not a number"
    if kind in ("bool_parsing", "bool_type"):
        return f"{field_name} '{value}' is not true or false"
    if kind == "string_type":
        return f"{field_name}: expected text, got {type(value).__name__}"
    if kind in ("list_type",):
        return f"{field_name}: expected a list"
    if kind in ("dict_type", "model_type"):
        return f"{field_name}: expected a mapping"
    msg = err.get("msg", "invalid").removeprefix("Value error, ")
    return f"{field_name}: {msg}" if field_name else msg


def read_kb_file(path: Path, shown_as: str | None = None) -> tuple[KBFile, dict, list[FileProblem]]:
    """Read and validate one file. Returns the model, the raw data and problems."""
    shown = shown_as or display_path(path)
    if not shown.endswith(".yaml"):
        return KBFile(), {}, [FileProblem(shown, None, "knowledge-base files end in .yaml: rename it or move it "
                                                       "out of the folder")]
    try:
        text = read_regular_file(path, MAX_FILE_BYTES).decode("utf-8")
    except UnreadableFile as exc:
        return KBFile(), {}, [FileProblem(shown, None, exc.reason)]
    except UnicodeDecodeError as exc:
        return KBFile(), {}, [FileProblem(shown, None, f"not UTF-8 text ({exc.reason})")]
    if not text:
        return KBFile(), {}, [FileProblem(shown, None, "the file is empty (0 bytes)")]
    try:
        raw = _load_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark else None
        return KBFile(), {}, [FileProblem(shown, line, f"YAML syntax error: {exc.problem}")]
    except yaml.YAMLError as exc:
        return KBFile(), {}, [FileProblem(shown, None, f"YAML error: {exc}")]
    except RecursionError:
        return KBFile(), {}, [FileProblem(shown, None, "YAML nested too deeply")]
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        what = "a number with too many digits" if "digits" in str(exc) else str(exc)
        return KBFile(), {}, [FileProblem(shown, None, f"cannot be read: {what}")]
    if raw is None:
        raw = _LineDict()
    # A string can hold a control character only if the text does or a double-quoted escape makes
    # one; most files have neither, and then no value needs to be looked at.
    control = _first_control(raw) if has_control(text) or _CONTROL_ESCAPE.search(text) else None
    if control is not None:
        line, where = control
        return KBFile(), {}, [FileProblem(shown, line, f"{where}: control characters (such as terminal escape "
                                                       "sequences) are not allowed in knowledge-base text")]
    if not isinstance(raw, dict):
        return KBFile(), {}, [FileProblem(shown, 1, "expected a mapping with 'sources', 'nodes' and 'facts'")]
    try:
        model = KBFile.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            line, message = _describe_error(err, raw)
            problems.append(FileProblem(shown, line, message))
        return KBFile(), raw, problems
    return model, raw, []


# YAML escapes (in double-quoted scalars) that can make a character textsafe.has_control refuses:
# \0 \a \b \v \f \r \e, \N (U+0085), \L and \P (line and paragraph separators), \x \u \U codes.
_CONTROL_ESCAPE = re.compile(r"\\[0abvfreNLPxuU]")


def _first_control(raw: Any) -> tuple[int | None, str] | None:
    """The line and key of the first string holding a control character, if any (tab and line feed
    are allowed): imported names are printed to terminals, so an ESC sequence is refused here."""
    stack: list[tuple[Any, int | None, str]] = [(raw, getattr(raw, "line", None), "")]
    while stack:
        item, line, where = stack.pop()
        if isinstance(item, str):
            if has_control(item):
                return line, where or "a value"
        elif isinstance(item, dict):
            lines = getattr(item, "key_lines", {})
            base = getattr(item, "line", line)
            for key, value in item.items():
                stack.append((value, lines.get(key, base), str(key)))
                if isinstance(key, str) and has_control(key):
                    return lines.get(key, base), "a key"
        elif isinstance(item, list):
            stack.extend((value, getattr(value, "line", line), where) for value in item)
    return None


def _item_lines(raw: Any) -> dict[str, list[int]]:
    """The line each item of a file's raw data starts on, per kind (0 where unknown)."""
    return {kind: [getattr(item, "line", 0) for item in (raw.get(kind) or [])] for kind in _KIND_WORD}


def read_kb_file_lines(path: Path, shown: str) -> tuple[KBFile, dict[str, list[int]], list[FileProblem]]:
    """Read and validate one file (``read_kb_file``): the model, the line each item starts on
    per kind, and the problems (a ``folder.FileReader``)."""
    model, raw, problems = read_kb_file(path, shown)
    return model, ({} if problems else _item_lines(raw)), problems


def load_files(paths: Iterable[Path], shown_as: dict[Path, str] | None = None) -> KnowledgeBase:
    """Load knowledge-base files into one KnowledgeBase, or raise KBLoadError.

    Every file is read and every problem collected before failing, so one run
    reports them all; on any problem nothing is returned. ``shown_as`` names files
    that are read from elsewhere (an import's staged files) by the name they will have.
    """
    return assemble(paths, read_kb_file_lines, shown_as)
