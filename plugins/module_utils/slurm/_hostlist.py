# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm hostlist expressions: compress host names into one, expand one back.

The rules are Slurm's own (``src/common/hostlist.c``, as used by
``scontrol show hostlist`` and ``scontrol show hostnames``):

* The number of a host name is its LAST run of digits: ``rack1-node03`` is
  prefix ``rack1-node`` and number ``03``.  A name without digits is a single
  host that is never ranged.
* In ``lo-hi`` the width of ``lo`` gives the zero padding of every host in the
  range: ``[08-10]`` is ``08 09 10``, ``[8-10]`` is ``8 9 10``.
* Two numbers share a range only when one width formats both unchanged:
  ``n9,n10`` is ``n[9-10]`` (neither is zero padded), ``n08,n09,n10`` is
  ``n[08-10]``, but ``n08`` and ``n9`` never share one (``n[08,9-10]``).
* ``a[1-2]b[3-4]`` is the cartesian product, left to right (``a1b3 a1b4
  a2b3 a2b4``); text after the last bracket is a suffix common to every host.
* Items are separated by commas or whitespace; a range holds at most 65536
  hosts (Slurm's MAX_RANGE).

Pure functions, no Ansible imports: the filter plugin and the tests use them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import guarded

# Slurm's MAX_RANGE: a larger range in an expression is taken to be a mistake.
MAX_RANGE = 64 * 1024
# Cap on the names one expression may expand to (a[1-9999]b[1-9999] ...).
MAX_HOSTS = 1024 * 1024

_ASCII_DIGITS = frozenset("0123456789")
# The longest number a hostlist carries (Python refuses int() of more than
# 4,300 digits; a real host number has a handful).
MAX_DIGITS = 64
_RANGE = re.compile(r"^([0-9]+)(?:-([0-9]+))?$")
_SHOWN_MAX = 80


class HostlistError(ValueError):
    """A host name list or a hostlist expression is malformed."""


def _shown(text):
    """text quoted for a one-line message (escaped, long ones shortened)."""
    text = str(text)
    if len(text) > _SHOWN_MAX:
        text = text[:_SHOWN_MAX - 3] + "..."
    return repr(text)


# --- compress ------------------------------------------------------------------


def _host_names(names):
    """names as a list of unique strings, in order of first appearance."""
    if isinstance(names, (str, bytes)) or isinstance(names, dict) or not hasattr(names, "__iter__"):
        raise HostlistError("host names must be a list of strings, got %s" % type(names).__name__)
    if isinstance(names, (set, frozenset)):
        names = sorted(names, key=str)
    seen = set()
    hosts = []
    for index, name in enumerate(names, 1):
        if not isinstance(name, str):
            raise HostlistError("host name #%d must be a string, got %s" % (index, type(name).__name__))
        name = str(name)
        if not name:
            raise HostlistError("host name #%d is empty" % index)
        for char in name:
            if char in "[]":
                raise HostlistError(
                    "host name #%d %s contains %r, which a hostlist uses for ranges"
                    % (index, _shown(name), char))
            if char == "," or char.isspace():
                raise HostlistError(
                    "host name #%d %s contains %r, which a hostlist uses to separate names"
                    % (index, _shown(name), char))
        if name not in seen:
            seen.add(name)
            hosts.append(name)
    return hosts


def _split_number(name):
    """(prefix, digits, suffix) around the last run of digits, or None; one pass from the end (linear time).

    A run longer than MAX_DIGITS is not a number a hostlist can carry: the name stays as it is.
    """
    end = len(name)
    while end > 0 and name[end - 1] not in _ASCII_DIGITS:
        end -= 1
    if end == 0:
        return None
    start = end
    while start > 0 and name[start - 1] in _ASCII_DIGITS:
        start -= 1
    digits = name[start:end]
    if len(digits) > MAX_DIGITS:
        return None
    return name[:start], digits, name[end:]


def _number_key(digits):
    """Slurm's order within one prefix: by number, then the shorter spelling."""
    return (int(digits), len(digits))


def _width_bounds(digits):
    """The format widths W for which "%0*d" % (W, int(digits)) == digits.

    A zero-padded number (``08``) needs exactly its own width; an unpadded one
    (``9``, ``10``) is printed unchanged by any width up to its length.
    """
    if len(digits) > 1 and digits[0] == "0":
        return len(digits), len(digits)
    return 1, len(digits)


def _ranges(digit_strings):
    """Comma-separated range list for the sorted numbers of one group."""
    runs = []  # [first, last, low width, high width]
    for digits in digit_strings:
        value = int(digits)
        low, high = _width_bounds(digits)
        if runs and value == runs[-1][1] + 1:
            run = runs[-1]
            low, high = max(run[2], low), min(run[3], high)
            if low <= high:
                run[1:] = [value, low, high]
                continue
            low, high = _width_bounds(digits)
        runs.append([value, value, low, high])
    parts = []
    for first, last, _low, width in runs:
        text = "%0*d" % (width, first)
        if last != first:
            text += "-%0*d" % (width, last)
        parts.append(text)
    return ",".join(parts)


def compress(names):
    """One Slurm hostlist expression for a list of host names.

    ``['gpu01', 'gpu02', 'gpu03', 'gpu07']`` gives ``gpu[01-03,07]``.
    Duplicates are dropped; names sharing a prefix and suffix around their
    last number are merged into one bracket (numbers ascending); the groups
    are joined with commas in the order their first name appears.  A group of
    one name, and a name without digits, stays as it is.  An empty list gives
    an empty string.
    """
    groups = {}  # (prefix, suffix) or (name, None) -> digit strings; insertion ordered
    for name in _host_names(names):
        split = _split_number(name)
        if split is None:
            groups[(name, None)] = []
            continue
        prefix, digits, suffix = split
        groups.setdefault((prefix, suffix), []).append(digits)
    parts = []
    for (prefix, suffix), digit_strings in groups.items():
        if suffix is None:
            parts.append(prefix)
        elif len(digit_strings) == 1:
            parts.append(prefix + digit_strings[0] + suffix)
        else:
            ranges = _ranges(sorted(digit_strings, key=_number_key))
            parts.append("%s[%s]%s" % (prefix, ranges, suffix))
    return ",".join(parts)


# --- expand --------------------------------------------------------------------


def _split_items(text):
    """(item, offset) for each host item, split on commas and whitespace outside brackets."""
    items = []
    current = []
    start = 0
    open_at = None
    words_since_comma = 0
    last_comma = None
    for pos, char in enumerate(text):
        if open_at is not None:
            if char == "[":
                raise HostlistError(
                    "nested '[' at character %d of %s: brackets cannot be nested"
                    % (pos + 1, _shown(text)))
            if char == "]":
                open_at = None
            current.append(char)
            continue
        if char == "," or char.isspace():
            if current:
                items.append(("".join(current), start))
                current = []
                words_since_comma += 1
            if char == ",":
                if not words_since_comma:
                    raise HostlistError(
                        "empty host name before the ',' at character %d of %s"
                        % (pos + 1, _shown(text)))
                words_since_comma = 0
                last_comma = pos
            continue
        if char == "]":
            raise HostlistError("unmatched ']' at character %d of %s" % (pos + 1, _shown(text)))
        if not current:
            start = pos
        if char == "[":
            open_at = pos
        current.append(char)
    if open_at is not None:
        raise HostlistError("unclosed '[' at character %d of %s" % (open_at + 1, _shown(text)))
    if current:
        items.append(("".join(current), start))
    elif last_comma is not None and not words_since_comma:
        raise HostlistError(
            "empty host name after the ',' at character %d of %s" % (last_comma + 1, _shown(text)))
    return items


def _bracket_values(text, body, offset):
    """The numbers, as strings, of one bracket body found at text[offset]."""
    if not body:
        raise HostlistError("empty brackets at character %d of %s" % (offset + 1, _shown(text)))
    values = []
    pos = offset + 1
    for part in body.split(","):
        where = "at character %d of %s" % (pos + 1, _shown(text))
        if not part:
            raise HostlistError("empty range %s" % where)
        match = _RANGE.match(part)
        if match is None:
            raise HostlistError("invalid range %r %s: expected a number or lo-hi" % (part, where))
        if max(len(group or "") for group in match.groups()) > MAX_DIGITS:
            raise HostlistError("range %s %s: a number of more than %d digits" % (_shown(part), where, MAX_DIGITS))
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if low > high:
            raise HostlistError("descending range %r %s: %d > %d" % (part, where, low, high))
        if high - low + 1 > MAX_RANGE:
            raise HostlistError(
                "range %r %s holds %d hosts; a range may hold at most %d"
                % (part, where, high - low + 1, MAX_RANGE))
        width = len(match.group(1))
        values.extend("%0*d" % (width, number) for number in range(low, high + 1))
        if len(values) > MAX_HOSTS:
            raise HostlistError(
                "brackets at character %d of %s hold more than %d hosts"
                % (offset + 1, _shown(text), MAX_HOSTS))
        pos += len(part) + 1
    return values


def _expand_item(text, item, offset):
    """The host names of one item: literal text and bracket groups, left to right.

    Text common to every name (literals, one-value brackets) is gathered and
    each name joined once at the end, so an item with many brackets costs the
    length of its names, not their square.
    """
    parts = []  # [alternatives] for each run of common text and each bracket of several values
    common = []
    count = 1
    pos = 0
    while pos < len(item):
        open_at = item.find("[", pos)
        if open_at < 0:
            common.append(item[pos:])
            break
        close_at = item.index("]", open_at)
        common.append(item[pos:open_at])
        values = _bracket_values(text, item[open_at + 1:close_at], offset + open_at)
        count *= len(values)
        if count > MAX_HOSTS:
            raise HostlistError(
                "%s expands to more than %d host names" % (_shown(item), MAX_HOSTS))
        if len(values) == 1:
            common.append(values[0])
        else:
            parts.append(["".join(common)])
            common = []
            parts.append(values)
        pos = close_at + 1
    parts.append(["".join(common)])
    return ["".join(combination) for combination in itertools.product(*parts)]


def expand(expr):
    """The host names of a Slurm hostlist expression, in the expression's order.

    ``gpu[01-03,07]`` gives ``['gpu01', 'gpu02', 'gpu03', 'gpu07']``.  Like
    ``scontrol show hostnames``, duplicates are kept.
    """
    if not isinstance(expr, str):
        raise HostlistError("a hostlist expression must be a string, got %s" % type(expr).__name__)
    text = str(expr)
    if not text.strip():
        raise HostlistError("empty hostlist expression")
    names = []
    for item, offset in _split_items(text):
        names.extend(_expand_item(text, item, offset))
        if len(names) > MAX_HOSTS:
            raise HostlistError(
                "%s expands to more than %d host names" % (_shown(text), MAX_HOSTS))
    return names


# No error of Python's own leaves a parser: anything no rule foresaw becomes HostlistError.
compress = guarded(HostlistError, 'hostlist compress')(compress)
expand = guarded(HostlistError, 'hostlist expand')(expand)
