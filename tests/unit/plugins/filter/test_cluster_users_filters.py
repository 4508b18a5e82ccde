# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cluster_users_todo reads host_probe's result as the module returns it (file contents in base64), and bad input
is an AnsibleFilterError that names the filter, never a traceback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter import cluster_users as f

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK7nXbB1cK2n4r2m0m3Yd0e5mJ6hQ0S3nKp1p9Yl3d4f alice@laptop"
PLAN = f.cluster_users_plan([{"name": "alice", "uid": 3101, "ssh_keys": [KEY]}], [],
                            {"min_uid": 1000, "min_gid": 1000, "home_root": "/home", "shell": "/bin/bash"})
PASSWD = {"alice": ["x", "3101", "3101", "", "/home/alice", "/bin/bash"]}
GROUP = {"alice": ["x", "3101", ""]}
FILES = [
    {"path": "/home/alice", "isdir": True, "pw_name": "alice", "gr_name": "alice", "mode": "0700"},
    {"path": "/home/alice/.ssh", "isdir": True, "pw_name": "alice", "mode": "0700"},
    {"path": "/home/alice/.ssh/authorized_keys", "isreg": True, "pw_name": "alice", "mode": "0600"},
]


def _probe(text):
    return {"files": FILES, "contents": {"/home/alice/.ssh/authorized_keys": base64.b64encode(text.encode()).decode()}}


def test_the_probe_result_is_read_as_host_probe_returns_it():
    todo = f.cluster_users_todo(PLAN, PASSWD, GROUP, _probe(KEY + "\n"), {"home_mode": "0700"})
    assert todo == {"groups": [], "users": [], "homes": [], "keys": []}
    todo = f.cluster_users_todo(PLAN, PASSWD, GROUP, _probe("ssh-rsa AAAA someone\n"), {"home_mode": "0700"})
    assert [u["name"] for u in todo["keys"]] == ["alice"]


def test_no_probe_keeps_every_home_and_key():
    todo = f.cluster_users_todo(PLAN, PASSWD, GROUP)
    assert [u["name"] for u in todo["homes"]] == ["alice"] and [u["name"] for u in todo["keys"]] == ["alice"]


def test_undecodable_contents_count_as_no_keys():
    probe = {"files": FILES, "contents": {"/home/alice/.ssh/authorized_keys": "not base64!"}}
    assert [u["name"] for u in f.cluster_users_todo(PLAN, PASSWD, GROUP, probe)["keys"]] == ["alice"]


@pytest.mark.parametrize("plan, passwd", [("plan", PASSWD), (PLAN, "passwd"), (PLAN, ["alice"])])
def test_bad_input_is_a_filter_error(plan, passwd):
    with pytest.raises(AnsibleFilterError, match="cluster_users_todo"):
        f.cluster_users_todo(plan, passwd, GROUP)


def test_a_malformed_passwd_entry_is_not_ours_and_keeps_the_user():
    todo = f.cluster_users_todo(PLAN, {"alice": "x:1"}, GROUP)
    assert [u["name"] for u in todo["users"]] == ["alice"]
