# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Clock skew between two hosts, from reads bracketed by one reference clock (the Ansible controller's).

A read of a host's clock, taken between the reference times sent and
received, says host - reference = remote - (sent + received) / 2, give or
take (received - sent) / 2. Two hosts read against the same reference give
their skew to within the sum of the two half round trips. A slow or busy
machine widens that bound; it never makes a healthy clock look skewed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, shown

# The most reads clock_sample takes of one host.
MAX_SAMPLES = 50

_EPOCH = re.compile(r"\s*([0-9]{9,11})(?:\.([0-9]{1,9}))?\s*\Z")


class ClockError(Exception):
    """A read of a clock that cannot be used."""


def parse_epoch(text):
    """Seconds since the epoch from ``date +%s.%N`` output, text or bytes (a date without %N support prints '%N':
    refused)."""
    text = as_text(text if text is not None else "", "date +%s.%N", ClockError)
    match = _EPOCH.match(text)
    if not match:
        raise ClockError("date +%%s.%%N printed %s, not seconds since the epoch (GNU date is needed)" % shown(text))
    fraction = match.group(2) or "0"
    return int(match.group(1)) + int(fraction) / (10.0 ** len(fraction))


def best_sample(taken):
    """{offset_s, rtt_s, samples} of the read with the shortest round trip; taken: [(sent, remote, received)]."""
    if not taken:
        raise ClockError("no clock read was taken")
    sent, remote, received = min(taken, key=lambda item: item[2] - item[0])
    if received < sent:
        raise ClockError("the reference clock went backwards during a read")
    return {"offset_s": round(remote - (sent + received) / 2.0, 6), "rtt_s": round(received - sent, 6),
            "samples": len(taken)}


# The largest offset or round trip a sample may hold, in seconds (a century): more is garbage, not a clock.
_MAX_SECONDS = 3.2e9


def _seconds(value):
    """Whether value is a number of seconds a sample can hold: an int or float (not a bool), finite, not absurd."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return abs(float(value)) < _MAX_SECONDS
    except OverflowError:  # an int beyond what a float holds
        return False


def _usable(sample):
    return (isinstance(sample, dict) and _seconds(sample.get("offset_s")) and _seconds(sample.get("rtt_s"))
            and sample["rtt_s"] >= 0)


def skew(node, controller):
    """(skew_s, uncertainty_s) of node's clock against controller's, from two best_sample results."""
    for name, sample in (("node", node), ("controller", controller)):
        if not _usable(sample):
            raise ClockError("the %s's clock sample is missing or malformed: %s" % (name, shown(sample, 200)))
    return (node["offset_s"] - controller["offset_s"], (node["rtt_s"] + controller["rtt_s"]) / 2.0)
