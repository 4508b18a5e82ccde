# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster's one munge key: which key a run writes, and from where (module_utils/slurm/_munge_key.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._munge_key import (
    ASK_LIMIT,
    MungeKeyError,
    asked_sums,
    key_content_b64,
    munge_key_plan,
)

A = hashlib.sha1(b"key-a").hexdigest()
B = hashlib.sha1(b"key-b").hexdigest()
CTL = ["ctl"]
HOSTS = ["ctl", "gpu01", "gpu02", "gpu03"]


def test_given_key_is_written_where_it_differs_and_kept_where_every_host_holds_it():
    assert munge_key_plan(A, {"ctl": B, "gpu01": "missing"}, CTL, HOSTS)["action"] == "given"
    assert munge_key_plan(A, {"ctl": A, "gpu01": A}, CTL, HOSTS)["action"] == "keep"
    # Different keys on the hosts do not stop a run that gives the key: it is the fix.
    assert munge_key_plan(A, {"ctl": A, "gpu01": B}, CTL, HOSTS)["action"] == "given"


def test_every_host_holding_one_key_writes_nothing():
    plan = munge_key_plan("", dict((host, A) for host in HOSTS), CTL, HOSTS)
    assert plan["action"] == "keep" and plan["ask"] == []


def test_a_node_without_its_key_gets_the_controllers():
    plan = munge_key_plan("", {"ctl": A, "gpu01": A, "gpu02": "missing", "gpu03": A}, CTL, HOSTS)
    assert (plan["action"], plan["source"]) == ("copy", "ctl")


def test_a_controller_without_its_key_gets_the_nodes_key_not_a_new_one():
    # The controller rebuilt: its key is gone, the nodes hold the cluster's.
    plan = munge_key_plan("", {"ctl": "missing", "gpu01": A, "gpu02": A, "gpu03": A}, CTL, HOSTS)
    assert (plan["action"], plan["source"]) == ("copy", "gpu01")


def test_limit_to_the_controller_without_its_key_asks_the_nodes_and_copies_theirs():
    plan = munge_key_plan("", {"ctl": "missing"}, CTL, HOSTS)
    assert plan["action"] == "ask" and plan["ask"] == ["gpu01", "gpu02", "gpu03"]
    plan = munge_key_plan("", {"ctl": "missing"}, CTL, HOSTS, {"gpu01": "unreachable", "gpu02": A, "gpu03": A})
    assert (plan["action"], plan["source"]) == ("copy", "gpu02")


def test_limit_to_a_node_always_asks_the_controller():
    plan = munge_key_plan("", {"gpu02": A}, CTL, HOSTS)
    assert plan["action"] == "ask" and plan["ask"] == ["ctl"]
    assert munge_key_plan("", {"gpu02": A}, CTL, HOSTS, {"ctl": A})["action"] == "keep"
    plan = munge_key_plan("", {"gpu02": "missing"}, CTL, HOSTS, {"ctl": A})
    assert (plan["action"], plan["source"]) == ("copy", "ctl")


def test_a_node_whose_key_differs_from_the_controllers_stops_the_play_naming_both():
    plan = munge_key_plan("", {"ctl": A, "gpu01": A, "gpu02": A, "gpu03": B}, CTL, HOSTS)
    assert plan["action"] == "stop"
    assert "ctl,gpu[01-02]" in plan["message"] and "gpu03" in plan["message"]
    assert A[:12] in plan["message"] and B[:12] in plan["message"] and "slurm_munge_key" in plan["message"]
    # ... also when the other key is on a host outside the run.
    plan = munge_key_plan("", {"gpu02": A}, CTL, HOSTS, {"ctl": B})
    assert plan["action"] == "stop" and "ctl" in plan["message"] and "gpu02" in plan["message"]
    # ... and without asking anyone when the hosts of the run already disagree.
    plan = munge_key_plan("", {"gpu02": A, "gpu03": B}, CTL, HOSTS)
    assert plan["action"] == "stop" and plan["ask"] == []


def test_a_new_key_only_when_no_host_holds_one():
    assert munge_key_plan("", dict((host, "missing") for host in HOSTS), CTL, HOSTS)["action"] == "new"
    plan = munge_key_plan("", {"ctl": "missing"}, CTL, HOSTS, {"gpu01": "missing", "gpu02": "missing", "gpu03": "missing"})
    assert plan["action"] == "new"


def test_no_new_key_while_a_host_that_may_hold_the_clusters_cannot_be_read():
    plan = munge_key_plan("", {"ctl": "missing"}, CTL, HOSTS, {"gpu01": "unreachable", "gpu02": "missing", "gpu03": "missing"})
    assert plan["action"] == "stop" and "gpu01" in plan["message"] and "slurm_munge_key" in plan["message"]


def test_at_most_ask_limit_hosts_are_read_and_every_controller_outside_the_run_is_one_of_them():
    nodes = ["gpu%04d" % number for number in range(1000)]
    plan = munge_key_plan("", {"gpu0007": "missing"}, ["ctl", "ctl2"], ["ctl", "ctl2"] + nodes)
    assert plan["ask"][:2] == ["ctl", "ctl2"] and len(plan["ask"]) == ASK_LIMIT
    # A run whose hosts hold a key reads only the controllers outside it.
    plan = munge_key_plan("", {"gpu0007": A}, ["ctl", "ctl2"], ["ctl", "ctl2"] + nodes)
    assert plan["ask"] == ["ctl", "ctl2"]


def test_the_plan_holds_checksums_and_names_never_a_key():
    plan = munge_key_plan("", {"ctl": A, "gpu01": "missing"}, CTL, HOSTS, {"gpu02": A})
    assert set(plan) == {"action", "ask", "source", "sums", "message"}
    assert set(plan["sums"].values()) <= {A, "missing"}


def _slurp(host, key=None, unreachable=False, msg=""):
    result = {"item": host}
    if unreachable:
        result.update(unreachable=True, msg="Failed to connect")
    elif key is not None:
        result["content"] = base64.b64encode(key).decode()
    else:
        result.update(failed=True, msg=msg or "file not found: /etc/munge/munge.key")
    return result


def test_asked_sums_reads_the_slurp_loop():
    binary = bytes(range(256)) * 4
    sums = asked_sums([_slurp("ctl", binary), _slurp("gpu01"), _slurp("gpu02", unreachable=True),
                       _slurp("gpu03", msg="Permission denied"), {"item": "gpu04", "skipped": True}])
    assert sums == {"ctl": hashlib.sha1(binary).hexdigest(), "gpu01": "missing", "gpu02": "unreachable",
                    "gpu03": "unreachable"}


@pytest.mark.parametrize("args", [
    ("", "ctl", CTL, HOSTS), ("", {"ctl": 1}, CTL, HOSTS), (None, {}, CTL, HOSTS), ("", {}, "ctl", HOSTS),
    ("", {}, CTL, [1]), ("", {}, CTL, HOSTS, ["gpu01"]),
])
def test_garbage_input_is_a_munge_key_error(args):
    with pytest.raises(MungeKeyError):
        munge_key_plan(*args)


RESULT_KEYS = st.sampled_from(["item", "content", "unreachable", "msg", "skipped"])
RESULT = st.dictionaries(RESULT_KEYS, st.one_of(st.text(), st.booleans(), st.none()))


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.one_of(st.none(), st.text(), RESULT))))
def test_asked_sums_never_raises_anything_but_its_error(results):
    try:
        asked_sums(results)
    except MungeKeyError:
        pass


@given(st.dictionaries(st.sampled_from(HOSTS + ["x"]), st.sampled_from([A, B, "missing"])),
       st.one_of(st.none(), st.dictionaries(st.sampled_from(HOSTS), st.sampled_from([A, B, "missing", "unreachable"]))))
def test_the_plan_never_writes_over_a_key_another_host_holds(sums, asked):
    plan = munge_key_plan("", sums, CTL, HOSTS, asked)
    outside = dict((host, value) for host, value in (asked or {}).items() if host not in sums)
    held = set(value for value in list(sums.values()) + list(outside.values()) if value in (A, B))
    if len(held) > 1:
        assert plan["action"] in ("stop", "ask")
    if plan["action"] == "new":
        assert not held
    if plan["action"] == "copy":
        assert plan["sums"][plan["source"]] in held


def test_the_key_content_follows_the_plan():
    assert base64.b64decode(key_content_b64({"action": "given"}, given="s3cret")) == b"s3cret"
    copied = base64.b64encode(b"\x00\xffbinary").decode()
    assert key_content_b64({"action": "copy", "source": "ctl"}, slurped=copied) == copied
    assert key_content_b64({"action": "keep"}, given="s3cret") == ""
    assert key_content_b64({"action": "stop"}) == ""


def test_a_new_key_is_random_letters_and_digits_of_the_kinds_length():
    munge = base64.b64decode(key_content_b64({"action": "new"})).decode()
    jwt = base64.b64decode(key_content_b64({"action": "new"}, kind="jwt")).decode()
    assert len(munge) == 128 and len(jwt) == 64
    assert munge.isalnum() and jwt.isalnum()
    assert key_content_b64({"action": "new"}) != key_content_b64({"action": "new"})


@pytest.mark.parametrize("plan, given, slurped, words", [
    ({"action": "given"}, "", "", "slurm_munge_key is empty"),
    ({"action": "copy", "source": "ctl"}, "", "", "nothing was read"),
    ({"action": "copy", "source": "ctl"}, "", "not base64!", "not base64"),
    ({"action": "write"}, "", "", "munge_key_plan's result"),
    ("new", "", "", "munge_key_plan's result"),
])
def test_a_key_content_that_cannot_be_made_says_why(plan, given, slurped, words):
    with pytest.raises(MungeKeyError, match=words):
        key_content_b64(plan, given, slurped)


def test_a_jwt_key_message_names_the_jwt_variable():
    with pytest.raises(MungeKeyError, match="slurm_jwt_key"):
        key_content_b64({"action": "given"}, kind="jwt")
