# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The local_accounts plan: one pass of groupadd/groupmod/useradd/usermod, never taking an id from another account."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.site._local_accounts import (
    AccountsError,
    host_accounts,
    plan,
    run_plan,
    todo,
)

GROUPS = [{"name": "munge", "gid": 64031, "system": True}, {"name": "slurm", "gid": "64030", "system": True}]
USERS = [
    {"name": "munge", "uid": 64031, "group": "munge", "home": "/nonexistent", "shell": "/usr/sbin/nologin", "system": True},
    {"name": "slurm", "uid": "64030", "group": "slurm", "home": "/nonexistent", "shell": "/usr/sbin/nologin", "system": True},
]
# A Debian 12 container's own accounts (an excerpt of /etc/group and /etc/passwd).
BASE_GROUPS = [{"name": "root", "gid": 0}, {"name": "nogroup", "gid": 65534}, {"name": "systemd-journal", "gid": 999}]
BASE_USERS = [{"name": "root", "uid": 0, "gid": 0, "home": "/root", "shell": "/bin/bash", "comment": "root"},
              {"name": "nobody", "uid": 65534, "gid": 65534, "home": "/nonexistent", "shell": "/usr/sbin/nologin",
               "comment": "nobody"}]
DONE_GROUPS = BASE_GROUPS + [{"name": "munge", "gid": 64031}, {"name": "slurm", "gid": 64030}]
DONE_USERS = BASE_USERS + [
    {"name": "munge", "uid": 64031, "gid": 64031, "home": "/nonexistent", "shell": "/usr/sbin/nologin", "comment": ""},
    {"name": "slurm", "uid": 64030, "gid": 64030, "home": "/nonexistent", "shell": "/usr/sbin/nologin", "comment": ""},
]


def test_fresh_host_gets_every_account_in_order():
    p = plan(GROUPS, USERS, BASE_GROUPS, BASE_USERS)
    assert p["problems"] == []
    assert p["commands"] == [
        ["groupadd", "-g", "64031", "-r", "munge"],
        ["groupadd", "-g", "64030", "-r", "slurm"],
        ["useradd", "-u", "64031", "-g", "munge", "-d", "/nonexistent", "-M", "-s", "/usr/sbin/nologin", "-r", "munge"],
        ["useradd", "-u", "64030", "-g", "slurm", "-d", "/nonexistent", "-M", "-s", "/usr/sbin/nologin", "-r", "slurm"],
    ]
    assert p["changes"][0] == "group munge: created with gid 64031"


def test_up_to_date_host_needs_nothing():
    assert plan(GROUPS, USERS, DONE_GROUPS, DONE_USERS) == {"commands": [], "problems": [], "changes": []}


def test_package_made_accounts_are_moved_to_the_fixed_ids():
    # Debian's munge package made its account with a dynamic id before the collection ran.
    groups = BASE_GROUPS + [{"name": "munge", "gid": 101}]
    users = BASE_USERS + [{"name": "munge", "uid": 100, "gid": 101, "home": "/nonexistent",
                           "shell": "/usr/sbin/nologin", "comment": ""}]
    p = plan(GROUPS[:1], USERS[:1], groups, users)
    # groupmod keeps the group primary for munge: only the uid moves.
    assert p["commands"] == [["groupmod", "-g", "64031", "munge"], ["usermod", "-u", "64031", "munge"]]
    assert p["changes"] == ["group munge: gid 101 -> 64031", "user munge: uid 100 -> 64031"]


def test_home_and_shell_are_brought_back():
    users = [dict(u, shell="/bin/bash") if u["name"] == "slurm" else u for u in DONE_USERS]
    p = plan(GROUPS, USERS, DONE_GROUPS, users)
    assert p["commands"] == [["usermod", "-s", "/usr/sbin/nologin", "slurm"]]


def test_an_id_held_by_another_account_is_a_problem_not_a_change():
    groups = BASE_GROUPS + [{"name": "lab", "gid": 64030}]
    users = BASE_USERS + [{"name": "alice", "uid": 64031, "gid": 0, "home": "/home/alice", "shell": "/bin/bash",
                           "comment": ""}]
    p = plan(GROUPS, USERS, groups, users)
    assert p["problems"] == [
        "gid 64030 for group slurm is held by group lab on this host: choose another gid, or remove or renumber lab",
        "uid 64031 for user munge is held by user alice on this host: choose another uid, or remove or renumber alice",
        "user slurm: its group slurm is neither wanted nor on this host",
    ]
    assert p["commands"] == [["groupadd", "-g", "64031", "-r", "munge"]]


@pytest.mark.parametrize("groups, users, message", [
    ([{"name": "Munge", "gid": 1}], [], "groups[0].name must be a POSIX account name"),
    ([{"name": "munge\n", "gid": 1}], [], "groups[0].name must be a POSIX account name"),
    ([{"name": "munge", "gid": -1}], [], "gid of group munge must be a number"),
    ([{"name": "munge", "gid": True}], [], "gid of group munge must be a number"),
    ([{"name": "munge", "gid": "x"}], [], "gid of group munge must be a number"),
    ([{"name": "munge", "gid": 1}, {"name": "munge", "gid": 2}], [], "group munge is listed twice"),
    (["munge"], [], "groups[0] must be a dict"),
    ([], [{"name": "munge", "uid": 1, "group": "munge", "home": "nonexistent", "shell": "/bin/sh"}],
     "home of user munge must be an absolute path"),
    ([], [{"name": "munge", "uid": 1, "group": "munge", "home": "/x", "shell": "/bin/sh", "comment": "a:b"}],
     "comment of user munge must be one line"),
    ([], [{"name": "munge", "uid": 1, "group": "munge", "home": "/x\n", "shell": "/bin/sh"}],
     "home of user munge must be an absolute path without ':' or control characters"),
    ([], [{"name": "munge", "uid": 1, "group": None, "home": "/x", "shell": "/bin/sh"}],
     "group of user munge must be a POSIX account name"),
])
def test_bad_input_is_refused_with_the_field(groups, users, message):
    with pytest.raises(AccountsError, match=re.escape(message)):
        plan(groups, users, BASE_GROUPS, BASE_USERS)


def test_todo_lists_only_what_the_probe_shows_different():
    probe = {"groups": {"munge": {"exists": True, "gid": 64031}, "slurm": {"exists": False}},
             "users": {"munge": {"exists": True, "uid": 64031, "gid": 64031, "home": "/nonexistent",
                                 "shell": "/usr/sbin/nologin"},
                       "slurm": {"exists": False}}}
    t = todo(GROUPS, USERS, probe)
    assert [g["name"] for g in t["groups"]] == ["slurm"]
    assert [u["name"] for u in t["users"]] == ["slurm"]
    assert t["groups"][0]["gid"] == 64030


def test_todo_is_empty_on_an_up_to_date_host():
    probe = {"groups": {"munge": {"exists": True, "gid": 64031}, "slurm": {"exists": True, "gid": 64030}},
             "users": {u["name"]: {"exists": True, "uid": u["uid"], "gid": u["gid"], "home": u["home"],
                                   "shell": u["shell"]} for u in DONE_USERS}}
    assert todo(GROUPS, USERS, probe) == {"groups": [], "users": []}


def test_todo_sees_a_wrong_primary_group():
    probe = {"groups": {"munge": {"exists": True, "gid": 64031}, "slurm": {"exists": True, "gid": 64030}},
             "users": {"munge": {"exists": True, "uid": 64031, "gid": 0, "home": "/nonexistent",
                                 "shell": "/usr/sbin/nologin"},
                       "slurm": {"exists": True, "uid": 64030, "gid": 64030, "home": "/nonexistent",
                                 "shell": "/usr/sbin/nologin"}}}
    assert [u["name"] for u in todo(GROUPS, USERS, probe)["users"]] == ["munge"]


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2 ** 40, max_value=2 ** 40), st.text(max_size=40),
                     st.text(max_size=20).map(lambda t: "/" + t),
                     st.floats(allow_nan=True))
_ACCOUNT = st.dictionaries(st.sampled_from(["name", "gid", "uid", "group", "home", "shell", "comment", "system"]),
                           _SCALARS, max_size=8)


@settings(max_examples=300, deadline=None)
@given(groups=st.lists(st.one_of(_ACCOUNT, _SCALARS), max_size=4), users=st.lists(st.one_of(_ACCOUNT, _SCALARS), max_size=4))
def test_hostile_accounts_raise_only_accounts_error(groups, users):
    try:
        result = plan(groups, users, BASE_GROUPS, BASE_USERS)
    except AccountsError:
        return
    for argv in result["commands"]:
        assert all(isinstance(a, str) and "\n" not in a for a in argv)


def test_host_accounts_reads_the_pwd_and_grp_entries():
    group = type("G", (), {"gr_name": "munge", "gr_gid": 64030})
    user = type("U", (), {"pw_name": "munge", "pw_uid": 64030, "pw_gid": 64030, "pw_dir": "/nonexistent",
                          "pw_shell": "/usr/sbin/nologin", "pw_gecos": ""})
    assert host_accounts(lambda: [group], lambda: [user]) == (
        [{"name": "munge", "gid": 64030}],
        [{"name": "munge", "uid": 64030, "gid": 64030, "home": "/nonexistent", "shell": "/usr/sbin/nologin",
          "comment": ""}])


def test_run_plan_runs_in_order_and_stops_at_the_first_failure():
    ran = []

    def run(argv):
        ran.append(argv)
        return (9, "", "groupadd: GID '64030' already exists\n") if argv[0] == "groupadd" else (0, "", "")

    todo_plan = {"commands": [["useradd", "a"], ["groupadd", "-g", "64030", "munge"], ["useradd", "b"]]}
    assert run_plan(todo_plan, run, False) == \
        "groupadd -g 64030 munge failed (rc 9): groupadd: GID '64030' already exists"
    assert ran == [["useradd", "a"], ["groupadd", "-g", "64030", "munge"]]


def test_run_plan_runs_nothing_in_check_mode():
    assert run_plan({"commands": [["useradd", "a"]]}, None, True) is None
