# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Clock skew from reads bracketed by one reference clock (module_utils/validate/_clock.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.validate._clock import ClockError, best_sample, parse_epoch, skew


@pytest.mark.parametrize("text, value", [
    ("1795481239.123456789\n", 1795481239.123456789), ("1795481239\n", 1795481239.0), (" 1795481239.5 ", 1795481239.5),
])
def test_parse_epoch(text, value):
    assert parse_epoch(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["1795481239.%N\n", "", None, "yesterday", "9" * 5000, "1795481239.5\n1\n"])
def test_parse_epoch_refuses_what_is_not_seconds(text):
    with pytest.raises(ClockError):
        parse_epoch(text)


def test_best_sample_keeps_the_shortest_round_trip():
    taken = [(100.0, 100.9, 102.0), (103.0, 103.12, 103.2), (104.0, 104.5, 104.9)]
    assert best_sample(taken) == {"offset_s": 0.02, "rtt_s": 0.2, "samples": 3}
    with pytest.raises(ClockError):
        best_sample([])


def test_skew_subtracts_the_controllers_offset_and_adds_the_half_round_trips():
    assert skew({"offset_s": 30.1, "rtt_s": 0.2}, {"offset_s": 0.1, "rtt_s": 0.4}) == (pytest.approx(30.0), pytest.approx(0.3))
    with pytest.raises(ClockError):
        skew({"offset_s": "x", "rtt_s": 0.2}, {"offset_s": 0.1, "rtt_s": 0.4})
    with pytest.raises(ClockError):
        skew(None, {"offset_s": 0.1, "rtt_s": 0.4})


@settings(max_examples=200, deadline=None)
@given(true_skew=st.floats(-100, 100), delays=st.lists(st.tuples(st.floats(0, 10), st.floats(0, 10)), min_size=1, max_size=5),
       ctl_delays=st.lists(st.tuples(st.floats(0, 10), st.floats(0, 10)), min_size=1, max_size=5))
def test_the_true_skew_always_lies_within_the_bound(true_skew, delays, ctl_delays):
    # However long the way there and back (a busy machine), the true skew is inside measured +/- uncertainty.
    def reads(offset, legs):
        start, taken = 1000.0, []
        for there, back in legs:
            taken.append((start, start + there + offset, start + there + back))
            start += there + back + 1
        return best_sample(taken)
    measured, uncertainty = skew(reads(true_skew, delays), reads(0.0, ctl_delays))
    assert abs(measured - true_skew) <= uncertainty + 1e-4
