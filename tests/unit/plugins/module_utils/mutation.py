# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A hypothesis strategy shared by the parser tests: a real capture with a few lines broken."""

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
