# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hypothesis strategies shared by the parser tests: a real capture with a few lines broken, hostile text."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

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
