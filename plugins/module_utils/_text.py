# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Command output as text, and text shortened for one-line messages (shared by the parsers)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# Text, and the str of Python 2 (bytes, decoded by as_text before any use).
TEXT_TYPES = (type(u""), str)


def clip(text, limit=80):
    """text on one line, runs of white space as one space, at most limit characters (then '...')."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def as_text(data, what, error):
    """data as text; raises error (an exception class) for None, numbers, or bytes that are not UTF-8."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error("%s: output is not text: byte 0x%02x at offset %d is not UTF-8"
                        % (what, bytearray(data)[exc.start], exc.start))
    if not isinstance(data, TEXT_TYPES):
        raise error("%s: output must be text, got %s" % (what, type(data).__name__))
    return data


# The most digits a parser reads as a number: more is garbage (and Python
# 3.11+ refuses int() of more than 4,300 digits with a ValueError).
MAX_DIGITS = 18


def small_int(digits, what, error, base=10):
    """int of a digit string of at most MAX_DIGITS digits; raises error (an exception class) otherwise."""
    if len(digits) > MAX_DIGITS:
        raise error("%s: the number %s has %d digits; at most %d are read" % (what, clip(digits, 24), len(digits), MAX_DIGITS))
    try:
        return int(digits, base)
    except ValueError:
        raise error("%s: %s is not a number" % (what, clip(digits, 24)))


def cap(text, limit=4096):
    """text cut to about limit characters, keeping its start and end (for fail_json and warnings)."""
    if text is None:
        return text
    if not isinstance(text, TEXT_TYPES):
        text = str(text)
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
