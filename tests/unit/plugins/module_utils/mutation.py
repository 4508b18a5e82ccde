# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hypothesis strategies shared by the parser and settings tests: a real capture with a few lines broken, hostile
text, and values of every type YAML, JSON or a Jinja expression can give a setting."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from hypothesis import strategies as st


@st.composite
def mutated(draw, captures, noise):
    """One of captures after 1 to 4 line edits (delete, duplicate, replace with noise, insert a
    character, truncate, swap); noise is a strategy for replacement text."""
    lines = draw(st.sampled_from(captures)).splitlines(True)
    for _step in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [draw(noise)]
        kind = draw(st.sampled_from(["delete", "duplicate", "replace", "insert_char", "truncate", "swap"]))
        index = draw(st.integers(0, len(lines) - 1))
        if kind == "delete":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(index, lines[index])
        elif kind == "replace":
            lines[index] = draw(noise) + "\n"
        elif kind == "insert_char":
            line = lines[index]
            at = draw(st.integers(0, len(line)))
            lines[index] = line[:at] + draw(st.characters()) + line[at:]
        elif kind == "truncate":
            text = "".join(lines)
            lines = text[:draw(st.integers(0, len(text)))].splitlines(True)
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
    return "".join(lines)


# Pieces of text that have broken parsers: a number beyond what int() reads (Python 3.11+
# refuses 4,300 digits), one beyond what a float holds, bytes that are not UTF-8 as
# surrogateescape carries them, NUL and other control characters, Unicode digits int()
# accepts, and the separators the parsers split on.
HUGE_NUMBER = "9" * 5000
HOSTILE_PIECES = [HUGE_NUMBER, "-" + HUGE_NUMBER, "1e999", "1" * 19, "\udcff\udcfe", "\ud800", "\x00", "\x1b[0m",
                  "\r", "\x0b", "\x85", "\u2028", u"\u0661\u0662", "1_000", "N/A", "(null)", "nan", "inf"]
HOSTILE_NOISE = st.one_of(st.text(max_size=40), st.sampled_from(HOSTILE_PIECES))
# Characters the parsers give a meaning to, drawn more often than chance would.
STRUCTURAL = list("0123456789 \t\n:|=,-.[]()<>/'\"#*+_xX") + ["\x00", "\udcff"]


def hostile_text(max_size=200):
    """Arbitrary text made mostly of structural characters and hostile pieces."""
    piece = st.one_of(st.sampled_from(STRUCTURAL), st.characters(), st.sampled_from(HOSTILE_PIECES))
    return st.lists(piece, max_size=max_size).map("".join)


def as_bytes(text):
    """text as the bytes a tool printed: lone surrogates back to the undecodable bytes they stand for
    (or, for those surrogateescape never makes, to their CESU-8 bytes, which are not UTF-8 either)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


# --- settings: values of every type and shape ---------------------------------------------------------------------

# What YAML makes of a site's typo or an unquoted value: .inf, .nan, a date, binary, yes/no as booleans, ~ as None;
# what a Jinja expression can compute (an int past 4,300 digits, which str() refuses); text that broke the parsers:
# long digit runs followed by a bad character (the nested-repetition patterns), runs of brackets (cubic patterns,
# recursion), digits int() reads but isdigit() does not agree on (or the other way round).
NESTED_DEPTH = 3000


def nested(depth, inner=None):
    """[[[...inner...]]] depth levels deep, built without recursion."""
    value = [] if inner is None else inner
    for _level in range(depth):
        value = [value]
    return value


YAML_SPECIALS = [
    float("inf"), float("-inf"), float("nan"), datetime.date(2026, 11, 24), datetime.datetime(2026, 11, 24, 10, 0),
    b"\x00\xff binary", bytearray(b"\xfe"), True, False, None, 0, -1, 1.5, 10 ** 19, -(10 ** 19), "", " ",
    "~", "yes", "null", ".inf", ".nan", "0755", "1e999", "12.\u00b2", "\u00b2", "\u0663", "\u0661\u0662", "1_000", "0x1F",
    "9" * 5000, "-" + "9" * 5000, "1" * 26 + "x", "1" * 40 + "s", "12." + "9" * 5000, "[@" * 3000, "[" * 3000 + "@",
    "(" * 3000, "a" + " " * 5000 + "b", "x" * 100000, "line\nbreak", "nul\x00", "\ud800", "\udcff", "# comment", "a: b",
    "{{ lookup('pipe', 'id') }}", {}, [], [[]], {"": None}, {None: 1}, {1: 2}, {(1, 2): 3},
]
# An int past Python's 4,300-digit limit of str() (a Jinja expression can compute one). Kept out of YAML_SPECIALS,
# whose repr() Hypothesis takes: it is drawn here, and HUGE_INT is in the parametrized tests' list.
HUGE_INT = 10 ** 5000


def _power_of_ten(digits):
    return 10 ** digits


SCALAR_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20), st.binary(max_size=8),
    st.dates(), st.datetimes(), st.sampled_from(YAML_SPECIALS), st.integers(4301, 4400).map(_power_of_ten))
ANY_VALUE = st.recursive(
    SCALAR_VALUES,
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.one_of(st.text(max_size=10), st.integers(), st.booleans()),
                                               children, max_size=4)),
    max_leaves=10)
HOSTILE_VALUE = st.one_of(
    ANY_VALUE, st.sampled_from(YAML_SPECIALS), hostile_text(40),
    st.integers(1, NESTED_DEPTH).map(nested),
    st.integers(1, NESTED_DEPTH).map(lambda depth: {"deep": nested(depth)}))


def _paths(value, limit=4, root=()):
    """Paths (tuples of keys and indexes) to the value at root and to every value inside it, to limit levels below
    root (none when there is no value at root)."""
    item = value
    for key in root:
        if not isinstance(item, (dict, list)) or (isinstance(item, dict) and key not in item) or (
                isinstance(item, list) and not (isinstance(key, int) and 0 <= key < len(item))):
            return []
        item = item[key]
    out, stack = [], [(tuple(root), item)]
    while stack:
        path, item = stack.pop()
        out.append(path)
        if len(path) - len(root) >= limit:
            continue
        if isinstance(item, dict):
            stack.extend((path + (key,), child) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((path + (index,), child) for index, child in enumerate(item))
    return out


def _replaced(value, path, new):
    """value with the item at path replaced by new (the containers on the path copied, nothing else)."""
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


@st.composite
def mutated_settings(draw, base, values=HOSTILE_VALUE, under=((),)):
    """base (settings as a role passes them: a mapping of lists and mappings) with 1 to 3 of its values, at any
    level, replaced by a hostile value, or a key added; now and then the whole of it replaced.

    under: the paths whose values are a user's to set (the settings, a host's variables); the rest of base
    (gathered facts, the inventory's groups) is left as the play builds it.
    """
    value = base
    for _step in range(draw(st.integers(1, 3))):
        paths = [path for root in under for path in _paths(value, root=root)]
        if not paths:
            continue
        path = draw(st.sampled_from(paths))
        target = value
        for key in path:
            target = target[key]
        if isinstance(target, dict) and draw(st.booleans()):
            key = draw(st.one_of(st.text(max_size=12), st.sampled_from(list(target) or ["x"]), st.integers()))
            value = _replaced(value, path, _with(target, key, draw(values)))
        else:
            value = _replaced(value, path, draw(values))
    return value


def _with(mapping, key, item):
    copy = dict(mapping)
    copy[key] = item
    return copy
