"""YAML loading that remembers the line of every key and list entry."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import yaml

from pytest_arena.spec import surrogates
from pytest_arena.spec.errors import Problem, SpecError
from pytest_arena.spec.text_files import read_text

Loc = tuple[str | int, ...]

_NUMBERS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_BOOL = "tag:yaml.org,2002:bool"


def arena_loader(base: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    """`base` without YAML 1.1's surprises, each the text written: base-60 numbers
    (`reference: 12:30`, not 750), numbers led by a zero (`reference: 02116`, a ZIP code,
    not the octal 1102) and yes/no/on/off (`reference: yes`, not true). A tag still asks
    for them (`!!int 12:30`); settings that take a boolean read "yes" as true."""
    resolvers = {
        first: [(tag, _plain(tag, rx)) for tag, rx in pairs]
        for first, pairs in base.yaml_implicit_resolvers.items()
    }
    return type(f"Arena{base.__name__}", (base,), {"yaml_implicit_resolvers": resolvers})


def _plain(tag: str, rx: re.Pattern[str]) -> re.Pattern[str]:
    if tag in _NUMBERS:  # no ':' (base 60), nor a 0 before digits (octal, or a code)
        return re.compile(r"(?!.*:)(?![-+]?0[0-9_])" + rx.pattern, rx.flags)
    if tag == _BOOL:  # YAML 1.2's: true and false alone
        return re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
    return rx


_Loader = arena_loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class LineMap:
    """Maps a location (a tuple of keys and indexes) to its 1-based line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lines: dict[Loc, int] = {}

    def set(self, loc: Loc, line: int) -> None:
        self._lines[loc] = line

    def forget_below(self, loc: Loc) -> None:
        """Let go of the lines of everything inside `loc` (once it has been read: a large
        `tests:` list holds several entries per case), keeping `loc`'s own."""
        size = len(loc)
        self._lines = {k: n for k, n in self._lines.items() if len(k) <= size or k[:size] != loc}

    def line(self, loc: Loc) -> int | None:
        """The line of `loc`, or of its nearest enclosing location."""
        loc = tuple(loc)
        while True:
            if loc in self._lines:
                return self._lines[loc]
            if not loc:
                return None
            loc = loc[:-1]


def load_yaml(path: Path, text: str | None = None) -> tuple[Any, LineMap]:
    """Parse a YAML file into plain Python data and a LineMap.

    Syntax errors and duplicate keys raise SpecError with the file and line. Most files are
    built straight from the parser's events; the rest, and any file with a mistake, from the
    composer's nodes.
    """
    if text is None:
        text = read_text(path)
    lines = LineMap(path)
    loader = _Loader(text)
    try:
        return _from_events(loader, lines), lines
    except (_NodesNeeded, SpecError, yaml.YAMLError, ValueError):
        pass  # built again from nodes, which say what is wrong as they always have
    finally:
        loader.dispose()
    return _from_nodes(path, text)


def _from_nodes(path: Path, text: str) -> tuple[Any, LineMap]:
    """`load_yaml` through the composer's node tree: what it does for any document."""
    lines = LineMap(path)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, lines
        aliases = _Aliases() if "*" in text else None  # no '*': no alias to expand
        return _build(node, (), lines, loader, aliases), lines
    except yaml.MarkedYAMLError as exc:
        if exc.problem == _BAD_ESCAPE and exc.problem_mark is not None:
            bad = _bad_escape(path, text, exc.problem_mark)
            if bad is not None:
                raise SpecError([bad]) from None
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark is not None and "end of stream" in (exc.problem or ""):
            mark = exc.context_mark  # where the quote or bracket that never closes opened
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        hint = _syntax_hint(problem)
        if exc.problem_mark is not None and _tab_at(text, exc.problem_mark):
            hint = "indent with spaces, not tabs"
        raise SpecError([Problem(path, line, f"YAML syntax error: {problem}", hint=hint)]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, anywhere
        line = text.count("\n", 0, exc.position) + 1
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise SpecError(
            [
                Problem(
                    path,
                    line,
                    f"YAML error: unacceptable character #x{ord(character):04x}: {exc.reason}",
                    hint="remove it, or write it as an escape inside double quotes"
                    f' ("\\x{ord(character):02x}")',
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError([Problem(path, None, f"YAML error: {exc}")]) from None
    except ValueError:  # PyYAML's own scanner: chr() of an escape past \U0010ffff
        beyond = _escape_beyond_unicode(path, text)
        if beyond is None:
            raise
        raise SpecError([beyond]) from None
    finally:
        loader.dispose()


def _tab_at(text: str, mark: yaml.Mark) -> bool:
    """Whether the line of `mark` has a tab in its indentation or at the mark itself."""
    lines = text.splitlines()
    if mark.line >= len(lines):
        return False
    row = lines[mark.line]
    indent = row[: len(row) - len(row.lstrip())]
    return "\t" in indent or row[mark.column : mark.column + 1] == "\t"


_BAD_ESCAPE = "found invalid Unicode character escape code"  # libyaml's; PyYAML's takes them
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))")


def _escape_beyond_unicode(path: Path, text: str) -> Problem | None:
    """The first escape of `text` past Unicode's last character, which PyYAML's own scanner
    (without libyaml) fails on with a bare ValueError, said as libyaml's refusal is."""
    for row, line in enumerate(text.splitlines()):
        for found in _ESCAPE.finditer(line):
            escaped = len(line[: found.start()]) - len(line[: found.start()].rstrip("\\"))
            if escaped % 2:  # `\\U…`: a backslash, then letters
                continue
            if found.group(2) is not None and int(found.group(2), 16) > 0x10FFFF:
                return _bad_escape(path, text, yaml.Mark("", 0, row, found.start() + 2, "", 0))
    return None


def _bad_escape(path: Path, text: str, mark: yaml.Mark) -> Problem | None:
    """libyaml's refusal of a double-quoted escape, at `mark` (just past its `\\u`), said
    plainly: half of a character (`\\ud800`), or a number past Unicode's last character."""
    rows = text.splitlines()
    row = rows[mark.line] if mark.line < len(rows) else ""
    first = _ESCAPE.match(row, max(mark.column - 2, 0))
    if first is None:
        return None
    code = int(first.group(1) or first.group(2), 16)
    if code > 0x10FFFF:
        return Problem(
            path,
            mark.line + 1,
            f"YAML error: the escape {first.group()} names no character (the last is \\U0010ffff)",
            hint="write the character itself, or its number in the escape",
        )
    then = _ESCAPE.match(row, first.end())
    after = int(then.group(1) or then.group(2), 16) if then is not None else 0
    half = chr(code) + (chr(after) if after <= 0x10FFFF else "")
    return Problem(
        path,
        mark.line + 1,
        f"YAML error: a double-quoted text holds {surrogates.said(half)}",
        hint=surrogates.yaml_hint(half),
    )


def _syntax_hint(problem: str) -> str:
    if "while scanning a quoted scalar" in problem and "end of stream" in problem:
        return "close the quote that opens on this line"
    if "mapping values are not allowed" in problem:
        return "quote a value that contains ': ', or fix the indentation of this line"
    if "found character '\\t'" in problem:
        return "indent with spaces, not tabs"
    if "could not find expected ':'" in problem:
        return "each key needs a ':' after it; check the line above too"
    return "check the indentation and quoting around this line"


MAX_ALIASED_NODES = 100_000  # nodes built again through aliases, in one file
MAX_DEPTH = 200  # levels of nested mappings and lists; far more than any project needs


Pairs = dict[Any, tuple[yaml.Node, yaml.Node]]  # a mapping's key and value nodes, by key


class _Aliases:
    """Counts what aliases expand to: an anchor used again is built again, so a few lines of
    nested aliases ("billion laughs") could otherwise fill the memory."""

    def __init__(self) -> None:
        self.built: set[int] = set()
        self.again = 0
        self.merged: dict[int, Pairs] = {}  # by mapping node: its pairs, merges done once

    def visit(self, node: yaml.Node, lines: LineMap) -> None:
        if id(node) not in self.built:
            self.built.add(id(node))
            return
        self.again += 1
        if self.again > MAX_ALIASED_NODES:
            raise SpecError(
                [
                    Problem(
                        lines.path,
                        node.start_mark.line + 1,
                        f"YAML aliases expand to more than {MAX_ALIASED_NODES:,} values"
                        " (the anchor on this line is used again and again)",
                        hint="write the values out, or use fewer nested aliases",
                    )
                ]
            )


_STR = "tag:yaml.org,2002:str"
_BINARY = "tag:yaml.org,2002:binary"
# a date or time (`reference: 1969-07-20`) stays the text it is: cases, scorers and reports
# hold JSON data, which has no dates
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _binary(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> bytes:
    """A `!!binary` value, which must be base64 (YAML's own constructor drops the
    characters base64 does not use, so `!!binary oops` would be read as a few stray bytes)."""
    text = "".join(str(loader.construct_scalar(node)).split())
    return base64.b64decode(text, validate=True)  # binascii.Error is a ValueError


def _value(node: yaml.Node, loader: yaml.SafeLoader, lines: LineMap) -> Any:
    """A key's or a leaf's value. A string is taken as it is and another scalar by the
    loader's constructor for its tag, without `construct_object`'s bookkeeping (a scalar
    needs none); a value its tag cannot hold (`!!int abc`) is said with its line."""
    if not isinstance(node, yaml.ScalarNode):
        return loader.construct_object(node, deep=True)
    if node.tag == _STR:
        return node.value
    constructor = _binary if node.tag == _BINARY else loader.yaml_constructors.get(node.tag)
    if constructor is None:
        return loader.construct_object(node, deep=True)  # raises the loader's own error
    try:
        value = constructor(loader, node)
        return node.value if node.tag == _TIMESTAMP else value  # checked, kept as text
    except (ValueError, TypeError, AttributeError):
        tag = node.tag.removeprefix("tag:yaml.org,2002:")
        raise SpecError(
            [
                Problem(
                    lines.path,
                    node.start_mark.line + 1,
                    f"YAML error: {node.value!r} is not a valid !!{tag}",
                    hint=f"fix the value, or remove the !!{tag} tag to keep it as text",
                )
            ]
        ) from None


def _build(
    node: yaml.Node,
    loc: Loc,
    lines: LineMap,
    loader: yaml.SafeLoader,
    aliases: _Aliases | None,
) -> Any:
    if aliases is not None:
        aliases.visit(node, lines)
    if len(loc) > MAX_DEPTH:  # before Python's own recursion limit, which varies
        raise SpecError(
            [
                Problem(
                    lines.path,
                    node.start_mark.line + 1,
                    f"YAML nested more than {MAX_DEPTH} levels deep",
                    hint="flatten the lists and mappings on this line",
                )
            ]
        )
    lines.set(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key, (key_node, value_node) in _pairs(node, loader, lines, aliases, ()).items():
            child = (*loc, key)
            if (
                key == _ID
                and isinstance(value_node, yaml.ScalarNode)
                and _number_as_written(value_node.tag, value_node.style)
            ):
                result[key] = value_node.value
            else:
                result[key] = _build(value_node, child, lines, loader, aliases)
            lines.set(child, key_node.start_mark.line + 1)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _build(item, (*loc, i), lines, loader, aliases) for i, item in enumerate(node.value)
        ]
    return _value(node, loader, lines)


def _pairs(
    node: yaml.MappingNode,
    loader: yaml.SafeLoader,
    lines: LineMap,
    aliases: _Aliases | None,
    merging: tuple[int, ...],
) -> Pairs:
    """The key and value nodes of `node` by key, with what its merge keys (`<<: *base`,
    `<<: [*a, *b]`) bring in, as YAML's merge-key spec has it: the mapping's own keys win
    over merged ones, and a mapping earlier in a merged list over a later one. A key written
    twice in the mapping itself is an error, a key it gives again over a merged one is not.
    (PyYAML's `flatten_mapping` puts the merged pairs in front of the mapping's own, which
    leaves no telling an override from a duplicate.) `merging`: the mappings being merged
    into, innermost last."""
    if aliases is not None and id(node) in aliases.merged:
        return aliases.merged[id(node)]
    own: Pairs = {}
    merges: list[tuple[yaml.Node, yaml.Node]] = []  # each '<<' key and its value
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            merges.append((key_node, value_node))
            continue
        # `=` is a plain key, as `flatten_mapping` makes it
        key = key_node.value if key_node.tag == _VALUE else _value(key_node, loader, lines)
        if isinstance(key, list | dict | set):
            raise SpecError(
                [Problem(lines.path, key_node.start_mark.line + 1, "a key must be a scalar")]
            )
        if key in own:
            first = own[key][0].start_mark.line + 1
            raise SpecError(
                [
                    Problem(
                        lines.path,
                        key_node.start_mark.line + 1,
                        f"duplicate key '{key}' (first at line {first})",
                        hint="remove one of the two; YAML would silently keep only the last",
                    )
                ]
            )
        own[key] = (key_node, value_node)
    if not merges:
        pairs = own
    else:
        inside = (*merging, id(node))
        pairs = {}
        for key_node, value_node in merges:
            for source in _merged_mappings(node, key_node, value_node, lines, inside):
                for key, pair in _pairs(source, loader, lines, aliases, inside).items():
                    pairs.setdefault(key, pair)  # the first mapping merged wins
        pairs.update(own)  # a merged key keeps its place, with the mapping's own value
    if aliases is not None:
        aliases.merged[id(node)] = pairs
    return pairs


def _merged_mappings(
    node: yaml.MappingNode,
    key: yaml.Node,
    value: yaml.Node,
    lines: LineMap,
    merging: tuple[int, ...],
) -> list[yaml.MappingNode]:
    """The mappings the merge key `key` with `value` brings into `node`, with PyYAML's
    errors for anything else."""
    if isinstance(value, yaml.MappingNode):
        sources = [value]
    elif isinstance(value, yaml.SequenceNode):
        sources = []
        for item in value.value:
            if not isinstance(item, yaml.MappingNode):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"expected a mapping for merging, but found {_kind(item)}",
                    item.start_mark,
                )
            sources.append(item)
    else:
        raise yaml.constructor.ConstructorError(
            "while constructing a mapping",
            node.start_mark,
            f"expected a mapping or list of mappings for merging, but found {_kind(value)}",
            value.start_mark,
        )
    for source in sources:
        if id(source) in merging:
            raise SpecError(
                [
                    Problem(
                        lines.path,
                        key.start_mark.line + 1,
                        "YAML merge key '<<' merges a mapping into itself",
                        hint="merge an anchor defined outside this mapping",
                    )
                ]
            )
    if len(merging) > MAX_DEPTH:
        raise SpecError(
            [
                Problem(
                    lines.path,
                    key.start_mark.line + 1,
                    f"YAML merge keys nested more than {MAX_DEPTH} levels deep",
                    hint="merge fewer mappings that merge others",
                )
            ]
        )
    return sources


def _kind(node: yaml.Node) -> str:
    """What `node` is, as PyYAML's errors say it: scalar, sequence or mapping."""
    return str(getattr(node, "id", "node"))


class _NodesNeeded(Exception):
    """The document uses what only the node tree builds: anchors, aliases, merge keys, a key
    that is not a plain scalar, or another document after the first."""


_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"


def _from_events(loader: Any, lines: LineMap) -> Any:
    """The document built straight from the parser's events, with no node tree in between.

    A large file's tree is a few objects per value, all alive until the end: the garbage
    collector went over them again and again (two thirds of the loading time at 20,000
    cases). Events die as soon as they are read.
    """
    loader.get_event()  # the stream's start
    if loader.check_event(yaml.StreamEndEvent):
        return None
    loader.get_event()  # the document's start
    data = _event_value(loader, loader.get_event(), (), lines)
    loader.get_event()  # the document's end
    if not loader.check_event(yaml.StreamEndEvent):
        raise _NodesNeeded  # another document: the composer refuses it
    return data


def _event_value(loader: Any, event: Any, loc: Loc, lines: LineMap) -> Any:
    """One value and all it holds: `_build` of the node the composer makes of these events."""
    kind = type(event)
    if kind is yaml.AliasEvent or event.anchor is not None:
        raise _NodesNeeded
    if len(loc) > MAX_DEPTH:
        raise _NodesNeeded  # which says so with the line
    lines.set(loc, event.start_mark.line + 1)
    if kind is yaml.ScalarEvent:
        return _event_scalar(loader, event, lines)
    get_event = loader.get_event
    if kind is yaml.SequenceStartEvent:
        items: list[Any] = []
        while type(event := get_event()) is not yaml.SequenceEndEvent:
            items.append(_event_value(loader, event, (*loc, len(items)), lines))
        return items
    result: dict[Any, Any] = {}
    while type(key_event := get_event()) is not yaml.MappingEndEvent:
        key_line: int = key_event.start_mark.line + 1
        if type(key_event) is not yaml.ScalarEvent or key_event.anchor is not None:
            raise _NodesNeeded
        key = _event_scalar(loader, key_event, lines)
        if key in result:
            raise _NodesNeeded  # which says where the first one is
        child = (*loc, key)
        value_event = get_event()
        if key == _ID and _plain_number(loader, value_event):
            lines.set(child, value_event.start_mark.line + 1)
            result[key] = value_event.value
        else:
            result[key] = _event_value(loader, value_event, child, lines)
        lines.set(child, key_line)
    return result


_ID = "id"  # a case's id is the text written: `id: 007` is not 7, nor `id: 010` 8 (octal)


def _plain_number(loader: Any, event: Any) -> bool:
    """`event` is a plain scalar YAML would read as a number."""
    if type(event) is not yaml.ScalarEvent or event.anchor is not None:
        return False
    if event.tag not in (None, "!"):
        return False
    tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    return _number_as_written(tag, event.style)


def _number_as_written(tag: str | None, style: str | None) -> bool:
    return not style and tag in _NUMBERS  # plain: None in PyYAML's parser, "" in libyaml's


def _event_scalar(loader: Any, event: Any, lines: LineMap) -> Any:
    """A scalar's value, as `_value` makes it from the node the composer would have made."""
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag == _STR:
        return event.value
    if tag in (_MERGE, _VALUE):
        raise _NodesNeeded  # keys the constructor treats apart ('<<', '=')
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    return _value(node, loader, lines)
