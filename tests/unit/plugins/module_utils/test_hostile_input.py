# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every parser, fed hostile versions of its real captures, returns or raises its own error only.

Hostile: a number grown to thousands of digits (Python's int() refuses more
than 4,300), bytes that are not UTF-8 (as run_command hands them on:
lone surrogates), NUL and other control characters, long lines, and the
mutations of mutation.py. Python's own exceptions (ValueError, TypeError,
RecursionError, UnicodeError, ...) must never escape.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import gzip
import os
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils import (
    _gpu_facts,
    _host_probe,
    _hostlist,
    _ib_facts,
    _slurm_accounts,
    _slurm_model,
    _slurm_ops,
    _validate,
    _validate_checks,
)

from .mutation import mutated

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")


def _read(pattern):
    texts = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, pattern))):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as handle:
            texts.append(handle.read())
    assert texts, pattern
    return texts


# (name, function of text, captures, the parser's own error)
PARSERS = [
    ("parse_smi_xml", _gpu_facts.parse_smi_xml, _read("nvidia-smi-xml/*.xml")[:4], _gpu_facts.GpuFactsError),
    ("parse_topo", _gpu_facts.parse_topo, _read("nvidia-smi-topo/*.txt"), _gpu_facts.GpuFactsError),
    ("parse_smi_list", _gpu_facts.parse_smi_list, _read("nvidia-smi-L/*.txt"), _gpu_facts.GpuFactsError),
    ("parse_ibstat", _ib_facts.parse_ibstat, _read("ibstat/*.txt"), _ib_facts.IbFactsError),
    ("parse_scontrol_nodes", _validate.parse_scontrol_nodes, _read("scontrol/*.txt"), _validate.ValidateError),
    ("parse_nccl_tests", _validate.parse_nccl_tests, _read("nccl-tests/*.txt"), _validate.ValidateError),
    ("parse_ib_write_bw", _validate.parse_ib_write_bw, _read("ib_write_bw/*.txt"), _validate.ValidateError),
    ("parse_apt_policy", _slurm_ops.parse_apt_policy, _read("slurm_ops/apt-cache-policy-*.txt"), _slurm_ops.SlurmOpsError),
    ("parse_squeue_jobs", _slurm_ops.parse_squeue_jobs, _read("slurm_ops/squeue-*.txt"), _slurm_ops.SlurmOpsError),
    ("hostlist expand", _hostlist.expand, ["gpu[01-08,10],login1", "rack[1-2]-node[001-004]"], _hostlist.HostlistError),
    ("hostlist compress", lambda text: _hostlist.compress(text.split()), ["gpu01 gpu02 gpu07 login1 n9"],
     _hostlist.HostlistError),
    ("parse_node_gres", _slurm_model.parse_node_gres, ["NodeName=gpu[01-04] CPUs=8 Gres=gpu:a100:4 State=UNKNOWN\n"],
     _slurm_model.SlurmModelError),
    ("parse_unmunge", _validate_checks.parse_unmunge, [
        "STATUS:          Success (0)\nENCODE_HOST:     ctl (172.31.251.2)\nENCODE_TIME:     2026-11-24 00:52:42 +0000 "
        "(1795481562)\nDECODE_TIME:     2026-11-24 00:52:42 +0000 (1795481562)\nTTL:             300\n"],
     _validate.ValidateError),
    ("parse_parsable", lambda text: _slurm_accounts.parse_parsable(text, ["Account", "User", "Share"]),
     ["chem||1\nchem|alice|1\nphys|bob|parent\n"], _slurm_accounts.SlurmAccountsError),
    ("parse_systemctl_show", _host_probe.parse_systemctl_show,
     ["Id=munge.service\nActiveState=active\nUnitFileState=enabled\nMainPID=12\n\nId=slurmd.service\nActiveState=failed\n"],
     _host_probe.HostProbeError),
]

HUGE = "9" * 5000


def _hostile(text, kind):
    if kind == "huge-number":
        return re.sub(r"[0-9]+", HUGE, text, count=3)
    if kind == "not-utf8":
        return text[: len(text) // 2] + "\udcff\udcfe" + text[len(text) // 2:]
    if kind == "nul":
        return text.replace("\n", "\x00\n", 3)
    if kind == "long-line":
        return text + "x" * 200000 + "\n"
    if kind == "digits-line":
        return text + "1" * 200000 + "a\n"
    raise AssertionError(kind)


def _call(function, text, own):
    try:
        function(text)
    except own:
        pass


@pytest.mark.parametrize("kind", ["huge-number", "not-utf8", "nul", "long-line", "digits-line"])
@pytest.mark.parametrize("name, function, captures, own", PARSERS, ids=[row[0] for row in PARSERS])
def test_hostile_captures_raise_only_the_parsers_own_error(name, function, captures, own, kind):
    for text in captures:
        started = time.time()
        _call(function, _hostile(text, kind), own)
        assert time.time() - started < 5, "%s took %.1f s on %s input" % (name, time.time() - started, kind)


NOISE = st.one_of(st.text(max_size=40), st.sampled_from(["\udcff\udcfe", "\x00", HUGE, "-" + HUGE, "1e999999"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
@pytest.mark.parametrize("name, function, captures, own", PARSERS, ids=[row[0] for row in PARSERS])
def test_mutated_captures_raise_only_the_parsers_own_error(name, function, captures, own, data):
    _call(function, data.draw(mutated(captures, NOISE)), own)


def test_hostlist_compress_is_linear_on_long_digit_runs():
    # A long run of digits followed by a non-final non-digit made the old
    # regex backtrack quadratically (200,000 digits: minutes).
    names = ["1" * 200000 + "a" + "b" * 10, "gpu" + "0" * 100000 + "1x-y"]
    started = time.time()
    _hostlist.compress(names)
    assert time.time() - started < 2
