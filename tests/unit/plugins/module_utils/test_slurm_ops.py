# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Day-2 Slurm operations: versions, upgrade checks, package and cluster state (plugins/module_utils/slurm/_slurm_ops.py).

Captures: tests/fixtures/slurm_ops/*.txt (this project's Debian 12 containers)
and tests/fixtures/scontrol/*.txt. Expected values were written by hand from
reading them and Slurm's upgrade notes. 22.05.8-4+deb12u3 is Debian 12's
slurm-wlm package version, 24.11.5-4 Debian 13's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_ops import (
    state_shared_problems,
    KNOWN_RELEASES,
    SlurmOpsError,
    cluster_state,
    parse_apt_policy,
    parse_name_versions,
    parse_sacct_states,
    parse_slurm_version,
    parse_squeue_jobs,
    release_index,
    release_name,
    state_problems,
    upgrade_check,
    upgrade_window,
)

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
BOOKWORM = "22.05.8-4+deb12u3"
TRIXIE = "24.11.5-4"


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def raises(func, *args):
    """The message of the SlurmOpsError func raises (any other exception fails the test)."""
    with pytest.raises(SlurmOpsError) as info:
        func(*args)
    message = str(info.value)
    assert message and "\n" not in message
    return message


APT_CTL = fixture("slurm_ops/apt-cache-policy-ctl-bookworm.txt")
APT_NODE = fixture("slurm_ops/apt-cache-policy-node-bookworm.txt")
SCONTROL_MT = fixture("slurm_ops/scontrol-nodes-mixed-drain-22.05.txt")
SQUEUE_MT = fixture("slurm_ops/squeue-22.05.txt")
SCONTROL_ISSUE195 = fixture("scontrol/awsome-distributed-ai195_multiline_idle-drain.txt")
GARBAGE = [None, 7, 22.05, True, [], {}, object()]


# --- parse_slurm_version / release_name ------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("22.05.8", (22, 5, 8)),
        ("22.05", (22, 5, None)),
        (BOOKWORM, (22, 5, 8)),
        ("1:22.05.8-4", (22, 5, 8)),
        ("0:23.11.4-1.el9", (23, 11, 4)),
        (TRIXIE, (24, 11, 5)),
        ("slurm 24.11.5", (24, 11, 5)),
        ("slurm-wlm 22.05.8", (22, 5, 8)),
        ("slurm-wlm 22.05.8\n", (22, 5, 8)),
        ("22.05.8-4+deb12u3.gpuops1", (22, 5, 8)),
        ("24.05.0-0rc1", (24, 5, 0)),  # Version= of tests/fixtures/scontrol/awsome-distributed-ai195_...
        ("(none):22.05.8-1.el9", (22, 5, 8)),
        ("  23.02.7  ", (23, 2, 7)),
    ],
)
def test_parse_slurm_version(text, expected):
    assert parse_slurm_version(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "slurm", "22", "v22.05", "22.05.8.1", "22.05.8 extra", "22-05-8",
                                  "latest", "22.05.x", "slurm 22", ":22.05"])
def test_parse_slurm_version_unreadable(text):
    message = raises(parse_slurm_version, text)
    assert message.startswith("cannot read a Slurm version from '")
    assert "expected something like '24.11.5' or '22.05.8-4+deb12u3'" in message


@pytest.mark.parametrize("value", [22.05, 24, True, False])
def test_parse_slurm_version_number(value):
    message = raises(parse_slurm_version, value)
    assert "quote it in YAML" in message and repr(value) in message


@pytest.mark.parametrize("value", [None, b"22.05.8", [], {}, ("22", "05")])
def test_parse_slurm_version_not_a_string(value):
    assert "must be a string, got %s" % type(value).__name__ in raises(parse_slurm_version, value)


@pytest.mark.parametrize(
    "text, expected",
    [(BOOKWORM, "22.05"), ("slurm 24.11.5", "24.11"), ("0:23.02.7-1.el9", "23.02"), ("22.5", "22.05"), ("25.05", "25.05")],
)
def test_release_name(text, expected):
    assert release_name(text) == expected


def test_release_name_errors():
    assert "quote it in YAML" in raises(release_name, 22.05)
    assert "cannot read a Slurm version from 'nope'" in raises(release_name, "nope")


# --- releases and windows ----------------------------------------------------------


def test_release_index_known_order():
    names = ["17.02", "17.11", "18.08", "19.05", "20.02", "20.11", "21.08", "22.05", "23.02", "23.11",
             "24.05", "24.11", "25.05", "25.11", "26.05", "26.11", "27.05", "27.11"]
    assert [release_index(name) for name in names] == list(range(len(names)))
    assert release_index(BOOKWORM) == 7 and release_index(TRIXIE) == 11


@pytest.mark.parametrize(
    "version, around",
    [
        ("24.08", "24.05, 24.11"),
        ("21.05.1", "20.11, 21.08"),
        ("23.05", "23.02, 23.11"),
        ("26.08", "26.05, 26.11"),
        ("25.02", "24.11, 25.05"),
        ("22.13", "22.05, 23.02"),
    ],
)
def test_release_index_not_a_release(version, around):
    message = raises(release_index, version)
    assert "Slurm %s" % release_name(version) in message
    assert "is not a Slurm major release (releases around it: %s)" % around in message


@pytest.mark.parametrize("version", ["16.05", "17.01.3", "2.6.9"])
def test_release_index_too_old(version):
    message = raises(release_index, version)
    assert "older than 17.02, the oldest release this collection knows" in message


def test_release_index_four_digit_year():
    assert "not a Slurm major release" in raises(release_index, "2024.05")


@pytest.mark.parametrize(
    "target, window",
    [("17.02", 2), ("22.05.8", 2), ("23.11.4", 2), ("24.05.1", 2), (TRIXIE, 3), ("25.05", 3), ("26.11", 3)],
)
def test_upgrade_window(target, window):
    assert upgrade_window(target) == window


def test_upgrade_window_errors():
    assert "not a Slurm major release" in raises(upgrade_window, "24.08")
    assert "quote it in YAML" in raises(upgrade_window, 24.11)


# --- upgrade_check ----------------------------------------------------------------


def test_upgrade_bookworm_to_trixie_needs_steps():
    result = upgrade_check({"mt-ctl slurmctld": BOOKWORM, "mt-gpu01 slurmd": BOOKWORM}, TRIXIE)
    assert result["ok"] is False and result["downgrade"] is False
    assert result["target"] == TRIXIE and result["target_release"] == "24.11"
    assert result["oldest_release"] == "22.05"
    assert result["oldest"] == ["mt-ctl slurmctld", "mt-gpu01 slurmd"]
    assert result["releases"] == {"mt-ctl slurmctld": "22.05", "mt-gpu01 slurmd": "22.05"}
    assert result["jump"] == 4 and result["allowed"] == 3
    assert result["path"] == ["22.05", "23.11", "24.11"]
    message = result["message"]
    assert "\n" not in message
    assert message.startswith("Slurm does not support upgrading from 22.05 (mt-ctl slurmctld, mt-gpu01 slurmd) "
                              "straight to 24.11")
    assert "at most 3 older major releases (23.02 and newer)" in message
    assert "22.05 is 4 older" in message
    assert "Upgrade in steps: 22.05 -> 23.11 -> 24.11, running this playbook once per step." in message


def test_upgrade_23_02_to_24_11_within_window_of_three():
    result = upgrade_check({"ctl slurmctld": "23.02.7-1"}, "24.11.5")
    assert result["ok"] is True and result["jump"] == 3 and result["allowed"] == 3
    assert result["path"] == ["23.02", "24.11"]
    message = result["message"]
    assert "23.02 (ctl slurmctld) -> 24.11" in message
    assert "skipping 2 releases (23.11, 24.05)" in message
    assert "within the 3 older releases 24.11 accepts" in message


def test_upgrade_22_05_to_23_11_within_window_of_two():
    result = upgrade_check({"n1 slurmd": BOOKWORM}, "23.11.4")
    assert result["ok"] is True and result["jump"] == 2 and result["allowed"] == 2
    assert result["path"] == ["22.05", "23.11"]
    assert "22.05 (n1 slurmd) -> 23.11" in result["message"]
    assert "skipping 1 release (23.02)" in result["message"]
    assert "within the 2 older releases 23.11 accepts" in result["message"]


def test_upgrade_next_release_skips_none():
    result = upgrade_check({"n1 slurmd": "23.11.10"}, "24.05.1")
    assert result["ok"] is True and result["jump"] == 1
    assert "skipping none" in result["message"]


def test_upgrade_22_05_to_24_05_refused_window_two():
    result = upgrade_check({"n1 slurmd": BOOKWORM}, "24.05.4")
    assert result["ok"] is False and result["jump"] == 3 and result["allowed"] == 2
    assert result["path"] == ["22.05", "23.11", "24.05"]
    assert "24.05 accepts state from at most 2 older major releases (23.02 and newer)" in result["message"]
    assert "22.05 is 3 older" in result["message"]


def test_upgrade_max_jump_tightens():
    result = upgrade_check({"n1 slurmd": BOOKWORM}, "23.11.4", 1)
    assert result["ok"] is False and result["allowed"] == 1 and result["jump"] == 2
    assert result["path"] == ["22.05", "23.02", "23.11"]
    message = result["message"]
    assert "slurm_maintenance_max_release_jump allows at most 1" in message
    assert "Slurm does not support" not in message
    assert "Upgrade in steps: 22.05 -> 23.02 -> 23.11" in message


def test_upgrade_max_jump_within():
    result = upgrade_check({"n1 slurmd": BOOKWORM}, "23.02.7", "1")
    assert result["ok"] is True and result["allowed"] == 1
    assert "slurm_maintenance_max_release_jump allows 1" in result["message"]


def test_upgrade_max_jump_cannot_widen():
    result = upgrade_check({"n1 slurmd": BOOKWORM}, TRIXIE, 10)
    assert result["ok"] is False and result["allowed"] == 3
    assert "Slurm does not support upgrading" in result["message"]


def test_upgrade_max_jump_two_on_trixie_path():
    result = upgrade_check({"n1 slurmd": BOOKWORM}, TRIXIE, 2)
    assert result["allowed"] == 2 and result["path"] == ["22.05", "23.11", "24.11"]
    assert "slurm_maintenance_max_release_jump allows at most 2 (23.11 and newer" in result["message"]


@pytest.mark.parametrize("max_jump", [0, -1, "0", "two", 1.5, 2.0, True, [], "", u"\u00b2"])
def test_upgrade_max_jump_invalid(max_jump):
    message = raises(upgrade_check, {"n1 slurmd": BOOKWORM}, "23.02.7", max_jump)
    assert "slurm_maintenance_max_release_jump must be a positive whole number" in message


def test_upgrade_downgrade():
    result = upgrade_check({"mt-ctl slurmctld": "23.11.4", "mt-gpu01 slurmd": "23.11.4"}, BOOKWORM)
    assert result["ok"] is False and result["downgrade"] is True
    assert result["jump"] == -2 and result["path"] == []
    assert result["message"] == ("Slurm does not support downgrading from 23.11 (mt-ctl slurmctld, mt-gpu01 slurmd) "
                                 "to 22.05: restore the backups taken before the upgrade instead.")


def test_upgrade_partial_downgrade_mixed_cluster():
    result = upgrade_check({"ctl slurmctld": "23.11.4", "n1 slurmd": "22.05.8", "n2 slurmd": "23.02.1"}, "23.02.7")
    assert result["ok"] is False and result["downgrade"] is True
    assert result["jump"] == 1 and result["oldest"] == ["n1 slurmd"]
    assert "downgrading from 23.11 (ctl slurmctld) to 23.02" in result["message"]


def test_upgrade_same_release_other_patch():
    result = upgrade_check({"mt-gpu01 slurmd": BOOKWORM}, "22.05.8-4+deb12u3.1")
    assert result["ok"] is True and result["jump"] == 0 and result["path"] == ["22.05"]
    assert result["message"] == "every Slurm package is at 22.05; 22.05.8-4+deb12u3.1 stays in that release"


def test_upgrade_mixed_releases_oldest_counts():
    result = upgrade_check({"ctl slurmctld": "23.11.4", "n1 slurmd": BOOKWORM, "n2 slurmd": "23.02.1"}, TRIXIE)
    assert result["oldest_release"] == "22.05" and result["oldest"] == ["n1 slurmd"]
    assert result["releases"] == {"ctl slurmctld": "23.11", "n1 slurmd": "22.05", "n2 slurmd": "23.02"}
    assert result["ok"] is False and "(n1 slurmd)" in result["message"]


def test_upgrade_many_labels_shortened():
    installed = dict(("gpu%02d slurmd" % number, BOOKWORM) for number in range(1, 13))
    message = upgrade_check(installed, TRIXIE)["message"]
    assert "(gpu01 slurmd, gpu02 slurmd, gpu03 slurmd, gpu04 slurmd, gpu05 slurmd and 7 more)" in message


@pytest.mark.parametrize(
    "installed, target, expected",
    [
        ({"mt-gpu01 slurmd": None}, TRIXIE, "mt-gpu01 slurmd: no installed version"),
        ({"mt-gpu01 slurmd": ""}, TRIXIE, "mt-gpu01 slurmd: no installed version"),
        ({"mt-gpu01 slurmd": "junk"}, TRIXIE, "mt-gpu01 slurmd: cannot read a Slurm version from 'junk'"),
        ({"mt-gpu01 slurmd": 22.05}, TRIXIE, "mt-gpu01 slurmd: cannot read a Slurm version from the number 22.05"),
        ({"mt-gpu01 slurmd": "24.08.1"}, TRIXIE, "mt-gpu01 slurmd: Slurm 24.08 (from '24.08.1') is not a Slurm major"),
        ({"n1": BOOKWORM}, "24.08", "upgrade target: Slurm 24.08 (from '24.08') is not a Slurm major release"),
        ({"n1": BOOKWORM}, 24.11, "upgrade target: cannot read a Slurm version from the number 24.11"),
        ({"n1": BOOKWORM}, None, "upgrade target: a Slurm version must be a string, got NoneType"),
        ({}, TRIXIE, "no installed Slurm package"),
        (None, TRIXIE, "must be a dict of label to version, got NoneType"),
        ([BOOKWORM], TRIXIE, "must be a dict of label to version, got list"),
        ({1: BOOKWORM}, TRIXIE, "labelled with non-empty strings, got 1"),
        ({"": BOOKWORM}, TRIXIE, "labelled with non-empty strings"),
    ],
)
def test_upgrade_check_errors(installed, target, expected):
    assert expected in raises(upgrade_check, installed, target)


# hypothesis: release pairs within the known list (and a few yearly ones after it)
RELEASE_NAMES = ["%d.%02d" % release for release in KNOWN_RELEASES] + ["26.05", "26.11", "27.05"]
PROPERTY = settings(max_examples=300, deadline=None, database=None)


@PROPERTY
@given(st.lists(st.sampled_from(RELEASE_NAMES), min_size=1, max_size=4), st.sampled_from(RELEASE_NAMES),
       st.one_of(st.none(), st.integers(1, 4)), st.integers(0, 9))
def test_upgrade_check_property(installed_releases, target, max_jump, micro):
    installed = dict(("n%d slurmd" % index, "%s.%d-1" % (name, micro)) for index, name in enumerate(installed_releases))
    result = upgrade_check(installed, target + ".1", max_jump)
    oldest = min(release_index(name) for name in installed_releases)
    newest = max(release_index(name) for name in installed_releases)
    window = upgrade_window(target)
    allowed = window if max_jump is None else min(window, max_jump)
    jump = release_index(target) - oldest
    assert result["jump"] == jump and result["allowed"] == allowed
    assert result["downgrade"] is (release_index(target) < newest)
    assert result["ok"] is (not result["downgrade"] and 0 <= jump <= allowed)
    assert result["message"] and "\n" not in result["message"]
    if jump < 0:
        assert result["path"] == []
        return
    path = result["path"]
    assert path[0] == release_name(min(installed_releases, key=release_index)) and path[-1] == target
    for before, after in zip(path, path[1:]):
        step = release_index(after) - release_index(before)
        assert 1 <= step <= upgrade_window(after)
        if max_jump is not None:
            assert step <= max_jump
    if result["ok"] and jump:
        assert path == [result["oldest_release"], target]


@PROPERTY
@given(st.sampled_from(RELEASE_NAMES), st.sampled_from(RELEASE_NAMES))
def test_upgrade_check_single_property(installed, target):
    jump = release_index(target) - release_index(installed)
    result = upgrade_check({"n1 slurmd": installed}, target)
    assert result["ok"] is (0 <= jump <= upgrade_window(target))


# --- parse_apt_policy -------------------------------------------------------------


def test_parse_apt_policy_controller():
    assert parse_apt_policy(APT_CTL) == {
        "slurmctld": {"installed": BOOKWORM, "candidate": BOOKWORM},
        "slurm-client": {"installed": BOOKWORM, "candidate": BOOKWORM},
        "munge": {"installed": "0.5.15-2+deb12u1", "candidate": "0.5.15-2+deb12u1"},
        "slurmdbd": {"installed": BOOKWORM, "candidate": BOOKWORM},
    }


def test_parse_apt_policy_node_not_installed():
    assert parse_apt_policy(APT_NODE) == {
        "slurmd": {"installed": BOOKWORM, "candidate": BOOKWORM},
        "slurmdbd": {"installed": None, "candidate": BOOKWORM},
    }


def test_parse_apt_policy_unable_to_locate():
    # apt-cache prints N: lines to stdout for names it does not know (hand-written next to the capture).
    text = "N: Unable to locate package slurm-wlm-foo\n" + APT_NODE + "N: Unable to locate package slurmrestd\n"
    result = parse_apt_policy(text)
    assert sorted(result) == ["slurmd", "slurmdbd"]


def test_parse_apt_policy_candidate_none_and_arch():
    text = "slurmd:amd64:\n  Installed: (none)\n  Candidate: (none)\n  Version table:\n"
    assert parse_apt_policy(text) == {"slurmd:amd64": {"installed": None, "candidate": None}}


def test_parse_apt_policy_bytes_and_empty():
    assert parse_apt_policy(APT_NODE.encode("utf-8")) == parse_apt_policy(APT_NODE)
    assert parse_apt_policy("") == {}
    assert parse_apt_policy("N: Unable to locate package foo\n") == {}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("hello world", "expected 'package:' or an indented line, got 'hello world'"),
        ("  Installed: 1.0\n", "indented line before any package"),
        ("slurmd:\n  Version table:\n", "package slurmd has no Installed: or Candidate: line"),
        ("slurmd:\n  Installed: 1\n", "package slurmd has no Candidate: line"),
        ("Installiert: 22.05\n", "expected 'package:'"),
        # Bytes that are not UTF-8 are read as U+FFFD.
        (b"\xff\xfe", u"expected 'package:' or an indented line, got '\ufffd\ufffd'"),
    ],
)
def test_parse_apt_policy_errors(text, expected):
    message = raises(parse_apt_policy, text)
    assert message.startswith("apt-cache policy: ") and expected in message


@pytest.mark.parametrize("value", GARBAGE)
def test_parse_apt_policy_not_text(value):
    assert "apt-cache policy: output must be text" in raises(parse_apt_policy, value)


# --- parse_name_versions ----------------------------------------------------------


def test_parse_name_versions_rpm():
    # rpm -q --qf '%{NAME} %{EPOCH}:%{VERSION}-%{RELEASE}\n' slurm slurm-slurmd slurm-slurmctld (hand-written)
    text = ("slurm (none):22.05.8-1.el9\nslurm-slurmd (none):22.05.8-1.el9\n"
            "package slurm-slurmctld is not installed\n")
    assert parse_name_versions(text) == {"slurm": "22.05.8-1.el9", "slurm-slurmd": "22.05.8-1.el9"}


def test_parse_name_versions_dnf_keeps_newest():
    # dnf repoquery --qf '%{name} %{evr}' lists every available version (hand-written)
    text = "slurm 0:23.11.4-1.el9\nslurm 0:22.05.8-1.el9\nslurm 0:23.11.10-1.el9\nslurm 0:23.11.9-1.el9\n"
    assert parse_name_versions(text) == {"slurm": "0:23.11.10-1.el9"}


def test_parse_name_versions_tie_and_unparsable_take_last():
    assert parse_name_versions("slurm 22.05.8-1\nslurm 22.05.8-2\n") == {"slurm": "22.05.8-2"}
    assert parse_name_versions("munge 0.5.15-2\nmunge weird\n") == {"munge": "weird"}


def test_parse_name_versions_empty_and_bytes():
    assert parse_name_versions("") == {}
    assert parse_name_versions("\n  \n") == {}
    assert parse_name_versions(b"slurm 24.11.5-1\n") == {"slurm": "24.11.5-1"}


@pytest.mark.parametrize("line", ["slurm", "slurm 22.05.8 extra", "slurm (none):", "Error: No matching Packages to list"])
def test_parse_name_versions_malformed(line):
    message = raises(parse_name_versions, line + "\n")
    assert "expected 'name version'" in message and line.split()[0] in message


@pytest.mark.parametrize("value", GARBAGE)
def test_parse_name_versions_not_text(value):
    assert "output must be text" in raises(parse_name_versions, value)


# --- parse_squeue_jobs / parse_sacct_states --------------------------------------


def test_parse_squeue_jobs_capture():
    assert parse_squeue_jobs(SQUEUE_MT) == {
        "2": {"state": "COMPLETED", "nodes": ["mt-gpu02"]},
        "1": {"state": "RUNNING", "nodes": ["mt-gpu01"]},
    }


def test_parse_squeue_jobs_hostlist_and_pending():
    text = "17|RUNNING|gpu[01-03,07]\n18|PENDING|\n19|PENDING|(null)\n"
    assert parse_squeue_jobs(text) == {
        "17": {"state": "RUNNING", "nodes": ["gpu01", "gpu02", "gpu03", "gpu07"]},
        "18": {"state": "PENDING", "nodes": []},
        "19": {"state": "PENDING", "nodes": []},
    }


def test_parse_squeue_jobs_empty():
    assert parse_squeue_jobs("") == {}
    assert parse_squeue_jobs("\n") == {}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1|RUNNING", "expected 3 '|'-separated fields, got 2"),
        ("1|RUNNING|n1|x", "expected 3 '|'-separated fields, got 4"),
        ("JOBID|STATE|NODELIST", "unreadable job id 'JOBID'"),
        ("1|running|n1", "job 1 has an unreadable state 'running'"),
        ("1||n1", "job 1 has an unreadable state ''"),
        ("1|RUNNING|gpu[01-", "job 1 has an unreadable node list: unclosed '['"),
        ("1|RUNNING|gpu[3-1]", "job 1 has an unreadable node list: descending range"),
        ("1|RUNNING|n1\n1|RUNNING|n1", "job 1 is listed twice"),
    ],
)
def test_parse_squeue_jobs_errors(text, expected):
    message = raises(parse_squeue_jobs, text)
    assert message.startswith("squeue: ") and expected in message


@pytest.mark.parametrize("value", GARBAGE)
def test_parse_squeue_jobs_not_text(value):
    assert "squeue: output must be text" in raises(parse_squeue_jobs, value)


def test_parse_sacct_states():
    # sacct --noheader --parsable2 --allocations --format=JobID,State,ExitCode (hand-written from sacct(1))
    text = "12|CANCELLED by 0|0:15\n12_3|COMPLETED|0:0\n14+0|NODE_FAIL|1:0\n15|FAILED|1:0\n15|COMPLETED|0:0\n"
    assert parse_sacct_states(text) == {
        "12": {"state": "CANCELLED", "exit_code": "0:15"},
        "12_3": {"state": "COMPLETED", "exit_code": "0:0"},
        "14+0": {"state": "NODE_FAIL", "exit_code": "1:0"},
        "15": {"state": "COMPLETED", "exit_code": "0:0"},
    }
    assert parse_sacct_states("") == {}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("12 COMPLETED 0:0", "expected 3 '|'-separated fields, got 1"),
        ("12|COMPLETED", "expected 3 '|'-separated fields, got 2"),
        ("JobID|State|ExitCode", "unreadable job id 'JobID'"),
        ("12|CANCELLED for 0|0:0", "job 12 has an unreadable state 'CANCELLED for 0'"),
        ("12||0:0", "job 12 has an unreadable state ''"),
    ],
)
def test_parse_sacct_states_errors(text, expected):
    message = raises(parse_sacct_states, text)
    assert message.startswith("sacct: ") and expected in message


@pytest.mark.parametrize("value", GARBAGE)
def test_parse_sacct_states_not_text(value):
    assert "sacct: output must be text" in raises(parse_sacct_states, value)


# --- cluster_state ------------------------------------------------------------------


def test_cluster_state_capture():
    assert cluster_state(SCONTROL_MT, SQUEUE_MT) == {
        "nodes": {
            "mt-gpu01": {"state": "MIXED", "base_state": "mixed", "flags": [], "reason": None},
            "mt-gpu02": {"state": "IDLE+DRAIN", "base_state": "idle", "flags": ["drain"],
                         "reason": "gpuops maintenance: rolling upgrade [root@2026-11-22T12:32:42]"},
        },
        "jobs": {
            "2": {"state": "COMPLETED", "nodes": ["mt-gpu02"]},
            "1": {"state": "RUNNING", "nodes": ["mt-gpu01"]},
        },
    }


def test_cluster_state_multiline_capture():
    state = cluster_state(SCONTROL_ISSUE195, "")
    assert state["jobs"] == {}
    assert state["nodes"]["yigou-dev-102-68"] == {
        "state": "IDLE+DRAIN", "base_state": "idle", "flags": ["drain"],
        "reason": "gres/gpu count reported lower than configured (0 < 1) [slurm@2024-12-19T11:03:34]"}


def test_cluster_state_empty():
    assert cluster_state("", "") == {"nodes": {}, "jobs": {}}


@pytest.mark.parametrize(
    "nodes_text, jobs_text, expected",
    [
        ("garbage", "", "scontrol show node: line without NodeName="),
        (None, "", "scontrol show node: output must be text, got NoneType"),
        (SCONTROL_MT, None, "squeue: output must be text, got NoneType"),
        (SCONTROL_MT, "1|RUNNING", "squeue: expected 3"),
        ("NodeName=n1 State=IDLE?", "", "node n1 has an unreadable State"),
    ],
)
def test_cluster_state_errors(nodes_text, jobs_text, expected):
    assert expected in raises(cluster_state, nodes_text, jobs_text)


# --- state_problems ---------------------------------------------------------------
# Before/after snapshots are built from the real capture
# tests/fixtures/slurm_ops/scontrol-nodes-mixed-drain-22.05.txt by editing its
# State= (and Reason=) text, and from hand-written squeue lines.


def snapshot(states=None, jobs=SQUEUE_MT, reason=None):
    text = SCONTROL_MT
    for node, state in (states or {}).items():
        line = [line for line in text.splitlines() if line.startswith("NodeName=%s " % node)][0]
        old_state = line.split(" State=")[1].split()[0]
        new_line = line.replace(" State=%s " % old_state, " State=%s " % state)
        if reason is not None and " Reason=" not in new_line:
            new_line += " Reason=%s" % reason
        text = text.replace(line, new_line)
    return cluster_state(text, jobs)


BEFORE = snapshot()


def test_state_unchanged():
    assert state_problems(BEFORE, copy.deepcopy(BEFORE)) == {
        "problems": [], "notes": [], "nodes": {}, "jobs": {"1": "RUNNING -> RUNNING"}}


def test_state_node_down_not_responding():
    after = snapshot({"mt-gpu01": "DOWN*"}, reason="Not responding [slurm@2026-11-22T12:40:00]")
    result = state_problems(BEFORE, after)
    assert result["problems"] == [
        "mt-gpu01 went from MIXED to DOWN* (Reason=Not responding [slurm@2026-11-22T12:40:00])"]
    assert result["nodes"] == {"mt-gpu01": "MIXED -> DOWN*"}


def test_state_node_bad_without_reason():
    result = state_problems(BEFORE, snapshot({"mt-gpu01": "MIXED+INVALID_REG"}))
    assert result["problems"] == ["mt-gpu01 went from MIXED to MIXED+INVALID_REG"]


def test_state_node_maint_is_fine():
    result = state_problems(BEFORE, snapshot({"mt-gpu01": "MIXED+MAINT"}))
    assert result["problems"] == [] and result["nodes"] == {"mt-gpu01": "MIXED -> MIXED+MAINT"}


def test_state_node_newly_drained():
    after = snapshot({"mt-gpu01": "MIXED+DRAIN"}, reason="Kill task failed [root@2026-11-22T12:40:00]")
    result = state_problems(BEFORE, after)
    assert result["problems"] == [
        "mt-gpu01 is now drained (Reason=Kill task failed [root@2026-11-22T12:40:00]), it was not before"]


def test_state_node_down_and_drained_one_problem():
    result = state_problems(BEFORE, snapshot({"mt-gpu01": "DOWN+DRAIN"}))
    assert result["problems"] == ["mt-gpu01 went from MIXED to DOWN+DRAIN"]


def test_state_node_already_down():
    before = snapshot({"mt-gpu01": "DOWN"})
    result = state_problems(before, copy.deepcopy(before))
    assert result["problems"] == []
    assert result["notes"] == ["mt-gpu01 was already DOWN before the change"]
    result = state_problems(before, snapshot({"mt-gpu01": "DOWN*"}))
    assert result["notes"] == ["mt-gpu01 was already DOWN before the change (now DOWN*)"]


def test_state_node_recovered_and_undrained_are_notes():
    before = snapshot({"mt-gpu01": "DOWN*"})
    result = state_problems(before, snapshot({"mt-gpu02": "IDLE"}))
    assert result["problems"] == []
    assert result["notes"] == ["mt-gpu01 went from DOWN* to MIXED",
                               "mt-gpu02 is no longer drained (was IDLE+DRAIN, now IDLE)"]


def test_state_node_missing_and_new():
    after = copy.deepcopy(BEFORE)
    after["nodes"]["mt-gpu03"] = after["nodes"].pop("mt-gpu01")
    result = state_problems(BEFORE, after)
    assert result["problems"] == ["mt-gpu01 was MIXED before the change and is no longer listed by scontrol show node"]
    assert result["notes"] == ["mt-gpu03 is new: it was not listed before the change (now MIXED)"]
    assert result["nodes"] == {"mt-gpu01": "MIXED -> (absent)", "mt-gpu03": "(absent) -> MIXED"}


def test_state_job_completed_in_squeue():
    result = state_problems(BEFORE, snapshot(jobs="2|COMPLETED|mt-gpu02\n1|COMPLETED|mt-gpu01\n"))
    assert result["problems"] == [] and result["notes"] == []
    assert result["jobs"] == {"1": "RUNNING -> COMPLETED"}


def test_state_job_gone_completed_in_sacct():
    after = snapshot(jobs="")
    result = state_problems(BEFORE, after, parse_sacct_states("1|COMPLETED|0:0\n2|COMPLETED|0:0\n"))
    assert result["problems"] == [] and result["notes"] == []
    assert result["jobs"] == {"1": "RUNNING -> COMPLETED"}


def test_state_job_node_fail():
    after = snapshot({"mt-gpu01": "IDLE"}, jobs="1|NODE_FAIL|mt-gpu01\n")
    result = state_problems(BEFORE, after)
    assert result["problems"] == ["job 1 on mt-gpu01 was RUNNING and is now NODE_FAIL"]
    assert result["jobs"] == {"1": "RUNNING -> NODE_FAIL"}


def test_state_job_node_fail_in_sacct():
    result = state_problems(BEFORE, snapshot(jobs=""), {"1": {"state": "NODE_FAIL", "exit_code": "0:0"}})
    assert result["problems"] == ["job 1 on mt-gpu01 was RUNNING and is now NODE_FAIL"]


def test_state_job_requeued_pending():
    result = state_problems(BEFORE, snapshot(jobs="1|PENDING|\n"))
    assert result["problems"] == ["job 1 on mt-gpu01 was RUNNING and is now PENDING (it was requeued)"]


def test_state_job_cancelled_is_a_note():
    result = state_problems(BEFORE, snapshot(jobs=""), parse_sacct_states("1|CANCELLED by 1000|0:15\n"))
    assert result["problems"] == []
    assert result["notes"] == [
        "job 1 on mt-gpu01 ended CANCELLED (its own end or a user's; not caused by a node failure)"]


def test_state_job_gone_without_accounting():
    result = state_problems(BEFORE, snapshot(jobs=""))
    assert result["problems"] == []
    assert result["notes"] == ["job 1 on mt-gpu01 finished; without accounting its end state is unknown"]
    assert result["jobs"] == {"1": "RUNNING -> (unknown)"}
    result = state_problems(BEFORE, snapshot(jobs=""), {})
    assert result["notes"] == ["job 1 on mt-gpu01 finished; without an accounting record its end state is unknown"]


def test_state_jobs_not_running_before_are_ignored():
    before = snapshot(jobs="5|PENDING|\n6|COMPLETED|mt-gpu02\n")
    result = state_problems(before, snapshot(jobs="5|NODE_FAIL|mt-gpu01\n"))
    assert result == {"problems": [], "notes": [], "nodes": {}, "jobs": {}}


def test_state_order_is_deterministic():
    # hand-written: three nodes and jobs 2, 10 and 10_3, on a cluster of gpu2/gpu10 (natural order).
    before = cluster_state(
        "NodeName=gpu10 State=ALLOCATED\nNodeName=gpu2 State=ALLOCATED\nNodeName=gpu1 State=IDLE\n",
        "10|RUNNING|gpu10\n2|RUNNING|gpu2\n10_3|RUNNING|gpu[1-2,10]\n")
    after = cluster_state(
        "NodeName=gpu10 State=DOWN*\nNodeName=gpu2 State=DOWN*\nNodeName=gpu1 State=IDLE\n",
        "10|NODE_FAIL|gpu10\n2|NODE_FAIL|gpu2\n10_3|BOOT_FAIL|gpu[1-2,10]\n")
    problems = state_problems(before, after)["problems"]
    assert problems == [
        "gpu2 went from ALLOCATED to DOWN*",
        "gpu10 went from ALLOCATED to DOWN*",
        "job 2 on gpu2 was RUNNING and is now NODE_FAIL",
        "job 10 on gpu10 was RUNNING and is now NODE_FAIL",
        "job 10_3 on gpu[1-2,10] was RUNNING and is now BOOT_FAIL",
    ]


@pytest.mark.parametrize("state", ["REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "PREEMPTED", "BOOT_FAIL"])
def test_state_job_lost_states(state):
    result = state_problems(BEFORE, snapshot(jobs="1|%s|mt-gpu01\n" % state))
    assert result["problems"] == ["job 1 on mt-gpu01 was RUNNING and is now %s" % state]


@pytest.mark.parametrize("state", ["FAILED", "TIMEOUT", "OUT_OF_MEMORY", "DEADLINE"])
def test_state_job_ended_states(state):
    result = state_problems(BEFORE, snapshot(jobs=""), {"1": {"state": state, "exit_code": "1:0"}})
    assert result["problems"] == [] and "job 1 on mt-gpu01 ended %s" % state in result["notes"][0]


@pytest.mark.parametrize("state", ["COMPLETING", "CONFIGURING", "SUSPENDED", "RUNNING"])
def test_state_job_survived_states(state):
    before = snapshot(jobs="1|%s|mt-gpu01\n" % state)
    result = state_problems(before, snapshot(jobs="1|RUNNING|mt-gpu01\n"))
    assert result["problems"] == [] and result["notes"] == []
    assert result["jobs"] == {"1": "%s -> RUNNING" % state}


@pytest.mark.parametrize(
    "before, after, sacct, expected",
    [
        (None, BEFORE, None, "before must be a cluster state"),
        (BEFORE, [], None, "after must be a cluster state"),
        ({"nodes": {}}, BEFORE, None, "before must be a cluster state"),
        (BEFORE, {"nodes": [], "jobs": {}}, None, "after must be a cluster state"),
        ({"nodes": {"n1": "IDLE"}, "jobs": {}}, BEFORE, None, "before: node 'n1' must be a dict"),
        ({"nodes": {"n1": {"state": "IDLE"}}, "jobs": {}}, BEFORE, None, "before: node 'n1' must be a dict"),
        ({"nodes": {}, "jobs": {"1": {"state": "RUNNING", "nodes": "n1"}}}, BEFORE, None,
         "before: job '1' must be a dict with a state and a list of nodes"),
        ({"nodes": {}, "jobs": {"1": None}}, BEFORE, None, "before: job '1' must be a dict"),
        (BEFORE, BEFORE, [], "sacct must be a dict of job states"),
        (BEFORE, BEFORE, {"1": "COMPLETED"}, "sacct: job '1' must be a dict with a state"),
    ],
)
def test_state_problems_malformed(before, after, sacct, expected):
    assert expected in raises(state_problems, before, after, sacct)


# --- property-based: random input -> SlurmOpsError or a valid result -------------

FUZZ = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PARSERS = (parse_slurm_version, release_name, release_index, upgrade_window, parse_apt_policy, parse_name_versions,
           parse_squeue_jobs, parse_sacct_states)
NOISE = st.text(alphabet=st.one_of(st.sampled_from(list("|:+-_.[],() \t\n0123456789ANRUNIGslurm")), st.characters()),
                max_size=60)


@FUZZ
@given(st.sampled_from(PARSERS),
       st.one_of(NOISE, st.text(max_size=200), st.binary(max_size=60), st.none(), st.integers(), st.floats(),
                 st.booleans(), st.lists(st.text(max_size=5), max_size=3)))
def test_fuzz_parsers(parser, value):
    try:
        parser(value)
    except SlurmOpsError as exc:
        assert str(exc) and "\n" not in str(exc)


@FUZZ
@given(st.one_of(st.none(), st.integers(), st.text(max_size=20), st.dictionaries(st.text(max_size=8), st.one_of(
    st.none(), st.text(max_size=12), st.integers(), st.sampled_from(RELEASE_NAMES)), max_size=3)),
    st.one_of(st.none(), st.text(max_size=12), st.sampled_from(RELEASE_NAMES)),
    st.one_of(st.none(), st.integers(-2, 5), st.text(max_size=3), st.floats()))
def test_fuzz_upgrade_check(installed, target, max_jump):
    try:
        result = upgrade_check(installed, target, max_jump)
    except SlurmOpsError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert result["message"] and "\n" not in result["message"]


NODE_ENTRY = st.fixed_dictionaries({"state": st.sampled_from(["IDLE", "DOWN*", "MIXED+DRAIN"]),
                                    "base_state": st.sampled_from(["idle", "down", "mixed"]),
                                    "flags": st.lists(st.sampled_from(["drain", "not_responding", "maint"]), max_size=2),
                                    "reason": st.one_of(st.none(), st.text(max_size=10))})
JOB_ENTRY = st.fixed_dictionaries({"state": st.sampled_from(["RUNNING", "PENDING", "NODE_FAIL", "COMPLETED", "X"]),
                                   "nodes": st.lists(st.sampled_from(["n1", "n2", "gpu[1"]), max_size=2)})
SNAPSHOT = st.one_of(
    st.fixed_dictionaries({"nodes": st.dictionaries(st.sampled_from(["n1", "n2", "n10"]), NODE_ENTRY, max_size=3),
                           "jobs": st.dictionaries(st.sampled_from(["1", "2", "10_1", "x"]), JOB_ENTRY, max_size=3)}),
    st.none(), st.dictionaries(st.sampled_from(["nodes", "jobs"]), st.one_of(st.none(), st.lists(st.integers()))))


@FUZZ
@given(SNAPSHOT, SNAPSHOT, st.one_of(st.none(), st.dictionaries(st.sampled_from(["1", "2"]), st.one_of(
    st.none(), st.fixed_dictionaries({"state": st.sampled_from(["COMPLETED", "NODE_FAIL"])})), max_size=2)))
def test_fuzz_state_problems(before, after, sacct):
    try:
        result = state_problems(before, after, sacct)
    except SlurmOpsError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    for line in result["problems"] + result["notes"]:
        assert line and "\n" not in line


CTLS = ["ctl1", "ctl2"]


def test_controllers_that_see_each_others_files_share_the_state():
    assert state_shared_problems("ctl1", "/shared/slurmctld", CTLS, {"rc": 0, "stderr": ""}, ["ctl2", "ctl1"]) == []


def test_a_controller_that_misses_another_ones_file_is_not_on_the_same_storage():
    assert state_shared_problems("ctl2", "/var/lib/slurm/slurmctld", CTLS, {"rc": 0}, ["ctl2"]) == [
        "ctl2 does not see the files ctl1 wrote to StateSaveLocation (/var/lib/slurm/slurmctld): it is not the same "
        "storage on every controller, and a backup would take over without the jobs. Mount one shared file system "
        "at /var/lib/slurm/slurmctld on every controller (or set slurm_state_save_location to a path on it); "
        "controllers not in this run's play wrote theirs earlier, or never."]


def test_a_slurm_user_that_cannot_write_there_is_named_with_what_failed():
    problems = state_shared_problems("ctl1", "/shared/s", CTLS, {"rc": 1, "stderr": "sh: 1: cannot create "
                                                                 "/shared/s/.gpuops-controllers/ctl1: Permission denied\n"},
                                     [], user="slurm")
    assert problems == [
        "ctl1: the slurm user cannot write StateSaveLocation (/shared/s): sh: 1: cannot create "
        "/shared/s/.gpuops-controllers/ctl1: Permission denied. slurmctld keeps its state there; give the slurm user "
        "a directory it owns there (on NFS, an export without root_squash for the collection to create it, or "
        "create it yourself) and run again."]


@pytest.mark.parametrize("mark, seen", [(None, None), ("x", 5), ({"rc": "x"}, [1, 2]), ({}, "ctl1")])
def test_odd_input_gives_messages_not_tracebacks(mark, seen):
    assert isinstance(state_shared_problems("ctl1", "/s", CTLS, mark, seen), list)
