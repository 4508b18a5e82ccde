"""The cluster_users role's preflight (tags preflight, --check) refuses bad lists and settings, and users or groups
whose name or number another account holds on a host, with a message that names the fix."""

import pytest

from _preflight import REPO, run_on_compute

PLAYBOOK = REPO / "playbooks" / "cluster_users.yml"
GROUPS = [{"name": "chem", "gid": 3001}]
USERS = [{"name": "alice", "uid": 3101, "group": "chem"}, {"name": "bob", "uid": 3102}]


def run(tmp_path, host_vars):
    return run_on_compute(tmp_path, PLAYBOOK, host_vars)


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out
    assert "failed=0" in out


def test_a_good_list_passes_and_changes_nothing(tmp_path):
    rc, out = run(tmp_path, {"cluster_users_users": USERS, "cluster_users_groups": GROUPS})
    assert rc == 0, out
    assert "changed=0" in out and "failed=0" in out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"cluster_users_users": [{"name": "Alice", "uid": 3101}]},
                 "cluster_users_users[1] name Alice is not a valid POSIX user or group name: use lower-case letters, "
                 "digits, _ and -, starting with a letter or _, at most 32 characters", id="bad-name"),
    pytest.param({"cluster_users_users": [{"name": "alice", "uid": 3101}, {"name": "bob", "uid": 3101}]},
                 "cluster_users_users: uid 3101 is given to alice and bob: give each its own number", id="duplicate-uid"),
    pytest.param({"cluster_users_users": [{"name": "alice", "uid": 3101}, {"name": "alice", "uid": 3102}]},
                 "cluster_users_users lists alice 2 times: keep one entry per name", id="duplicate-name"),
    pytest.param({"cluster_users_users": [{"name": "alice", "uid": 500}]},
                 "cluster_users_users: alice's uid is 500, below the minimum 1000: take a number from 1000 up",
                 id="uid-below-minimum"),
    pytest.param({"cluster_users_users": [{"name": "alice", "uid": 3101}], "cluster_users_min_uid": 5000},
                 "alice's uid is 3101, below the minimum 5000", id="uid-below-set-minimum"),
    pytest.param({"cluster_users_groups": [{"name": "chem", "gid": 900}]},
                 "cluster_users_groups: chem's gid is 900, below the minimum 1000", id="gid-below-minimum"),
    pytest.param({"cluster_users_users": [{"name": "alice", "uid": 3101, "group": "chem"}]},
                 "alice's group chem is not in cluster_users_groups: add {name: chem, gid: <number>} there",
                 id="group-not-listed"),
    pytest.param({"cluster_users_users": [{"name": "alice", "uid": 3101, "ssh_keys": ["AAAA alice"]}]},
                 "alice's ssh_keys[1] is not one OpenSSH public key line", id="bad-ssh-key"),
    pytest.param({"cluster_users_home_root": "shared/home", "cluster_users_users": USERS, "cluster_users_groups": GROUPS},
                 "cluster_users_home_root must be an absolute path without ':', not shared/home", id="relative-home"),
    pytest.param({"cluster_users_home_mode": "700"}, 'cluster_users_home_mode ("700") is a quoted octal mode',
                 id="mode-not-octal"),
    pytest.param({"cluster_users_home_host": "elsewhere"},
                 'cluster_users_home_host ("elsewhere") is empty or a host of this play', id="home-host-not-in-play"),
    pytest.param({"cluster_users_home_shared": "maybe"}, "cluster_users_home_shared", id="shared-not-a-bool"),
    pytest.param({"cluster_users_home_shared": True, "cluster_users_home_root": "/nonexistent/gpuops-home",
                  "cluster_users_users": USERS, "cluster_users_groups": GROUPS},
                 "cluster_users_home_shared is true but /nonexistent/gpuops-home (cluster_users_home_root) is not a "
                 "directory on node: mount the shared file system first", id="shared-root-missing"),
    # Every Linux host has root with uid 0 and group root with gid 0: a list that gives them other numbers is
    # the cross-host check's case (a name with another number on a host), read with getent.
    pytest.param({"cluster_users_users": [{"name": "root", "uid": 3100, "group": "root"}],
                  "cluster_users_groups": [{"name": "root", "gid": 3000}]},
                 "cluster_users: group root has gid 0 on node, the inventory wants 3000: change it there "
                 "(usermod/groupmod and chown its files) or give root 0 in the inventory; user root has uid 0 on "
                 "node, the inventory wants 3100", id="existing-name-other-number"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out
