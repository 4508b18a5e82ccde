# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared text helpers: decoding with replacement, bounded numbers, capped output, the parser guard."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import (
    MAX_DIGITS,
    as_text,
    cap,
    clip,
    guarded,
    number_key,
    scrub,
    small_float,
    small_int,
)


class OwnError(Exception):
    pass


@pytest.mark.parametrize("data, expected", [
    (u"plain", u"plain"),
    (b"caf\xc3\xa9", u"caf\u00e9"),
    # Bytes that are not UTF-8, and the lone surrogates surrogateescape makes of them, read as U+FFFD.
    (b"a\xffb\xfe", u"a\ufffdb\ufffd"),
    (bytearray(b"\xff"), u"\ufffd"),
    (u"a\udcffb", u"a\ufffdb"),
    (u"\ud800", u"\ufffd"),
    (u"nul\x00 kept", u"nul\x00 kept"),
])
def test_as_text(data, expected):
    assert as_text(data, "tool", OwnError) == expected


@pytest.mark.parametrize("data", [None, 12, 1.5, ["a"], {"a": 1}])
def test_as_text_refuses_what_is_not_text(data):
    with pytest.raises(OwnError) as info:
        as_text(data, "tool", OwnError)
    assert str(info.value) == "tool: output must be text, got %s" % type(data).__name__


def test_scrub_leaves_text_without_surrogates_alone():
    text = u"GPU 0: NVIDIA H100 \u2013 ok"
    assert scrub(text) is text


@pytest.mark.parametrize("digits, expected", [("0", 0), ("007", 7), ("-1", -1), ("9" * MAX_DIGITS, 10 ** MAX_DIGITS - 1)])
def test_small_int(digits, expected):
    assert small_int(digits, "where", OwnError) == expected


def test_small_int_hex():
    assert small_int("10de", "vendor", OwnError, base=16) == 0x10de


@pytest.mark.parametrize("digits, message", [
    ("9" * 5000, "line 3: count: the number 999999999999999999999999... has 5000 digits; at most 18 are read"),
    ("1" * 19, "line 3: count: the number 1111111111111111111 has 19 digits; at most 18 are read"),
    ("-" + "1" * 19, "line 3: count: the number -1111111111111111111 has 19 digits; at most 18 are read"),
    # int() would take these: Unicode digits, underscores, white space, a plus sign.
    (u"\u0661\u0662", u"line 3: count: '\u0661\u0662' is not a number"),
    ("1_000", "line 3: count: '1_000' is not a number"),
    (" 12", "line 3: count: '12' is not a number"),
    ("+1", "line 3: count: '+1' is not a number"),
    ("", "line 3: count: '' is not a number"),
    (None, "line 3: count: 'NoneType' is not a number"),
])
def test_small_int_refuses(digits, message):
    with pytest.raises(OwnError) as info:
        small_int(digits, "line 3: count", OwnError)
    assert str(info.value) == message


@pytest.mark.parametrize("text, expected", [("0", 0.0), ("2.5", 2.5), ("1e3", 1000.0), (".5", 0.5), ("-1.25", -1.25)])
def test_small_float(text, expected):
    assert small_float(text, "rate", OwnError) == expected


@pytest.mark.parametrize("text, message", [
    ("1e999", "rate: the number 1e999 is too large"),
    ("9" * 400, "rate: the number 999999999999999999999999... has 400 characters; at most 40 are read"),
    ("nan", "rate: 'nan' is not a number"),
    ("inf", "rate: 'inf' is not a number"),
    ("1,5", "rate: '1,5' is not a number"),
])
def test_small_float_refuses(text, message):
    with pytest.raises(OwnError) as info:
        small_float(text, "rate", OwnError)
    assert str(info.value) == message


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="0123456789", min_size=1, max_size=30), min_size=2, max_size=6))
def test_number_key_orders_like_int(runs):
    assert sorted(runs, key=number_key) == sorted(runs, key=lambda run: (int(run), run.lstrip("0")))
    assert [number_key(run) for run in sorted(runs, key=int)] == sorted(number_key(run) for run in runs)


def test_number_key_of_thousands_of_digits():
    assert sorted(["1" * 5000, "2", "0" * 6000 + "3"], key=number_key) == ["2", "0" * 6000 + "3", "1" * 5000]


def test_cap_keeps_short_text():
    assert cap("short") == "short"
    assert cap(None) is None
    assert cap(42) == "42"


def test_cap_keeps_head_and_tail():
    text = "A" * 3000 + "B" * 4000 + "C" * 3000
    capped = cap(text)
    assert capped.startswith("A" * 2048) and capped.endswith("C" * 2048)
    assert "\n... 5904 characters left out ...\n" in capped
    assert len(capped) < 4200


def test_cap_output_is_valid_json_text():
    capped = cap(b"ok \xff\xfe" + b"x" * 10000, limit=100)
    assert capped.startswith(u"ok \ufffd\ufffd")
    json.dumps(cap(u"\udcff" * 10, limit=4)).encode("utf-8")


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(), st.binary()), st.integers(min_value=2, max_value=200))
def test_cap_is_bounded(data, limit):
    capped = cap(data, limit=limit)
    assert len(capped) <= limit + 60
    capped.encode("utf-8")


def test_clip():
    assert clip("a  b\n c") == "a b c"
    assert clip("x" * 100, 10) == "x" * 10 + "..."


def test_guarded_turns_python_errors_into_the_parsers_own():
    @guarded(OwnError, "tool output")
    def parse(text):
        """Doc."""
        return int(text)

    assert parse("12") == 12
    assert (parse.__name__, parse.__doc__) == ("parse", "Doc.")
    with pytest.raises(OwnError) as info:
        parse("9" * 5000)
    assert str(info.value).startswith("tool output: cannot read this input (ValueError: Exceeds the limit")
    with pytest.raises(OwnError) as info:
        parse(None)
    assert str(info.value).startswith("tool output: cannot read this input (TypeError: ")


def test_guarded_lets_the_parsers_own_error_through():
    @guarded(OwnError, "tool output")
    def parse(text):
        raise OwnError("line 1: bad")

    with pytest.raises(OwnError) as info:
        parse("x")
    assert str(info.value) == "line 1: bad"
