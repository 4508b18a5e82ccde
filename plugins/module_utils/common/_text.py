# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Command output as text, bounded numbers, and text shortened for messages (shared by the parsers).

Every parser reads its input through these helpers, so hostile input fails
with the parser's own exception and a message that says what is wrong:

* as_text: bytes are decoded as UTF-8 with U+FFFD for every byte that is not
  UTF-8, and the lone surrogates that stand for such bytes in text decoded
  with ``surrogateescape`` become U+FFFD too (the result can always be
  encoded, so it stays valid JSON).
* small_int, small_float: a number of at most MAX_DIGITS digits (Python
  3.11+ refuses int() of more than 4,300, and no count a tool prints has 19),
  a float that is finite.
* cap (fail_json and warnings: head and tail of long output), clip (one line),
  shown (any value as an error message quotes it, never raising).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

# Text, and the str of Python 2 (bytes, decoded by as_text before any use).
TEXT_TYPES = (type(u""), str)

# The most digits a parser reads as a number: more is garbage (and Python
# 3.11+ refuses int() of more than 4,300 digits with a ValueError).
MAX_DIGITS = 18
# The longest float a parser reads (digits, point, exponent).
MAX_FLOAT_CHARS = 40
# The most characters cap() keeps of command output by default.
CAP_LIMIT = 4096

_SURROGATES = re.compile(u"[\ud800-\udfff]")
_INT_TEXT = {10: re.compile(r"^-?[0-9]+$"), 16: re.compile(r"^-?[0-9A-Fa-f]+$")}
_FLOAT_TEXT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")


def unique(items):
    """items without repeats, in their first order (items need not be hashable)."""
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def clip(text, limit=80):
    """text on one line, runs of white space as one space, at most limit characters (then '...')."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def shown(value, limit=60):
    """repr(value) cut to limit characters (then '...'), for a message that quotes what a user gave.

    Never raises: an int past Python's 4,300-digit limit of str(), or a container holding one, or one nested
    deeper than repr() recurses, is described instead of shown.
    """
    try:
        text = repr(value)
    except (ValueError, RecursionError, MemoryError):
        if isinstance(value, int):
            text = "a number of about %d digits" % (value.bit_length() * 30103 // 100000 + 1)
        else:
            text = "a %s too large to show" % type(value).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def scrub(text):
    """text with each lone surrogate (an undecodable byte under surrogateescape) replaced by U+FFFD."""
    return _SURROGATES.sub(u"\ufffd", text) if _SURROGATES.search(text) else text


def as_text(data, what, error):
    """data as text, bytes decoded as UTF-8; bytes that are not UTF-8 and lone surrogates become U+FFFD.

    Raises error (an exception class) for None, numbers and anything else that is not text.
    """
    if isinstance(data, (bytes, bytearray)) and not isinstance(data, type(u"")):
        data = bytes(data).decode("utf-8", "replace")
    if not isinstance(data, TEXT_TYPES):
        raise error("%s: output must be text, got %s" % (what, type(data).__name__))
    return scrub(data)


def small_int(digits, what, error, base=10):
    """int of a string of at most MAX_DIGITS digits (an optional '-' first); raises error (an exception class) otherwise.

    what names the number and where it was found ('nvidia-smi -L line 3: GPU index').
    """
    if not isinstance(digits, TEXT_TYPES) or not _INT_TEXT[base].match(digits):
        shown = clip(digits, 24) if isinstance(digits, TEXT_TYPES) else type(digits).__name__
        raise error("%s: '%s' is not a number" % (what, shown))
    count = len(digits) - digits.startswith("-")
    if count > MAX_DIGITS:
        raise error("%s: the number %s has %d digits; at most %d are read" % (what, clip(digits, 24), count, MAX_DIGITS))
    return int(digits, base)


def small_float(text, what, error):
    """float of a decimal number of at most MAX_FLOAT_CHARS characters that is finite; raises error otherwise."""
    if not isinstance(text, TEXT_TYPES) or not _FLOAT_TEXT.match(text):
        shown = clip(text, 24) if isinstance(text, TEXT_TYPES) else type(text).__name__
        raise error("%s: '%s' is not a number" % (what, shown))
    if len(text) > MAX_FLOAT_CHARS:
        raise error("%s: the number %s has %d characters; at most %d are read"
                    % (what, clip(text, 24), len(text), MAX_FLOAT_CHARS))
    value = float(text)
    if math.isinf(value):
        raise error("%s: the number %s is too large" % (what, clip(text, 24)))
    return value


def number_key(digits):
    """Sort key of a run of ASCII digits that orders runs by value (as int() would), without int()."""
    value = digits.lstrip("0")
    return (len(value), value)


def cap(text, limit=CAP_LIMIT):
    """text cut to about limit characters, keeping its start and end (for fail_json and warnings).

    Bytes are decoded (U+FFFD for what is not UTF-8), lone surrogates become U+FFFD: the result is
    always valid JSON text. None stays None.
    """
    if text is None:
        return text
    if isinstance(text, (bytes, bytearray)) and not isinstance(text, type(u"")):
        text = bytes(text).decode("utf-8", "replace")
    elif not isinstance(text, TEXT_TYPES):
        text = str(text)
    text = scrub(text)
    if len(text) <= limit:
        return text
    half = limit // 2
    return "%s\n... %d characters left out ...\n%s" % (text[:half], len(text) - 2 * half, text[-half:])


def guarded(error, what):
    """Decorator for a parser entry point: any error of Python's own (a bug, or input no rule foresaw)
    becomes error (the parser's exception class) naming what was being read, never a traceback."""
    def wrap(function):
        def parse(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except error:
                raise
            except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError,
                    UnicodeError, MemoryError) as exc:
                raise error("%s: cannot read this input (%s: %s)" % (what, type(exc).__name__, clip(str(exc), 120)))
        parse.__name__ = function.__name__
        parse.__doc__ = function.__doc__
        return parse
    return wrap
