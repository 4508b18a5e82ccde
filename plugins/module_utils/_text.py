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
