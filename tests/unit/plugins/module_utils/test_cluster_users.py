# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site import _cluster_users as cu

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK7nXbB1cK2n4r2m0m3Yd0e5mJ6hQ0S3nKp1p9Yl3d4f alice@laptop"
GROUPS = [{"name": "chem", "gid": 3001}, {"name": "gpu", "gid": 3002}]
USERS = [
    {"name": "alice", "uid": 3101, "group": "chem", "groups": ["gpu"], "ssh_keys": [KEY], "comment": "Alice A"},
    {"name": "bob", "uid": 3102},
]
SETTINGS = {"min_uid": 1000, "min_gid": 1000, "home_root": "/shared/home/", "shell": "/bin/bash"}
# The rest of what the role passes (its defaults, in a play of two hosts).
ROLE_SETTINGS = dict(SETTINGS, home_shared=False, ssh_keys_exclusive=False, home_mode="0700", skeleton="/etc/skel",
                     home_host="", play_hosts=["gpu01", "gpu02"])


def _plan(users=None, groups=None, settings=None):
    return cu.plan(USERS if users is None else users, GROUPS if groups is None else groups,
                   SETTINGS if settings is None else settings)


def test_plan_fills_in_defaults_and_personal_groups():
    result = _plan()
    assert result["errors"] == []
    assert result["users"] == [
        {"name": "alice", "uid": 3101, "group": "chem", "groups": ["gpu"], "shell": "/bin/bash",
         "home": "/shared/home/alice", "comment": "Alice A", "ssh_keys": [KEY]},
        {"name": "bob", "uid": 3102, "group": "bob", "groups": [], "shell": "/bin/bash",
         "home": "/shared/home/bob", "comment": "", "ssh_keys": []},
    ]
    assert result["groups"] == [
        {"name": "chem", "gid": 3001, "personal": False}, {"name": "gpu", "gid": 3002, "personal": False},
        {"name": "bob", "gid": 3102, "personal": True},
    ]


def test_empty_home_root_is_home_and_user_home_wins():
    result = cu.plan([{"name": "carol", "uid": 4000, "gid": 4001}, {"name": "dave", "uid": 4002, "home": "/data/d/"}],
                     [], {"home_root": ""})
    assert result["errors"] == []
    assert [u["home"] for u in result["users"]] == ["/home/carol", "/data/d"]
    assert result["groups"] == [{"name": "carol", "gid": 4001, "personal": True},
                                {"name": "dave", "gid": 4002, "personal": True}]


def test_user_without_group_takes_the_listed_group_of_its_name():
    result = cu.plan([{"name": "eve", "uid": 3500}], [{"name": "eve", "gid": 3600}])
    assert result["errors"] == []
    assert result["users"][0]["group"] == "eve"
    assert result["groups"] == [{"name": "eve", "gid": 3600, "personal": False}]


def test_nothing_to_do():
    assert cu.plan([], []) == {"users": [], "groups": [], "errors": []}


@pytest.mark.parametrize("users, groups, settings, message", [
    pytest.param([{"name": "Alice", "uid": 3101}], [], {},
                 "cluster_users_users[1] name Alice is not a valid POSIX user or group name: use lower-case letters",
                 id="upper-case-name"),
    pytest.param([{"name": "-x", "uid": 3101}], [], {}, "cluster_users_users[1] name -x is not a valid POSIX", id="dash"),
    pytest.param([{"name": "a" * 33, "uid": 3101}], [], {}, "at most 32 characters", id="too-long"),
    pytest.param([{"uid": 3101}], [], {}, "cluster_users_users[1] name None is not a valid POSIX", id="no-name"),
    pytest.param([{"name": "alice", "uid": 999}], [], {},
                 "cluster_users_users: alice's uid is 999, below the minimum 1000: take a number from 1000 up",
                 id="uid-below-minimum"),
    pytest.param([{"name": "alice", "uid": 1500}], [], {"min_uid": 2000},
                 "alice's uid is 1500, below the minimum 2000", id="uid-below-set-minimum"),
    pytest.param([{"name": "alice", "uid": 65534}], [], {}, "not 65534 or 65535 (nobody)", id="nobody"),
    pytest.param([{"name": "alice", "uid": "31a"}], [], {}, "alice's uid must be a whole number, not 31a",
                 id="uid-not-a-number"),
    pytest.param([{"name": "alice", "uid": True}], [], {}, "alice's uid must be a whole number, not True",
                 id="uid-bool"),
    pytest.param([{"name": "alice", "uid": 3101}, {"name": "bob", "uid": 3101}], [], {},
                 "cluster_users_users: uid 3101 is given to alice and bob: give each its own number", id="duplicate-uid"),
    pytest.param([{"name": "alice", "uid": 3101}, {"name": "alice", "uid": 3102}], [], {},
                 "cluster_users_users lists alice 2 times: keep one entry per name", id="duplicate-name"),
    pytest.param([], [{"name": "chem", "gid": 3001}, {"name": "bio", "gid": 3001}], {},
                 "gid 3001 is given to bio and chem", id="duplicate-gid"),
    pytest.param([{"name": "alice", "uid": 3001}], [{"name": "chem", "gid": 3001}], {},
                 "gid 3001 is given to alice and chem", id="personal-group-gid-taken"),
    pytest.param([], [{"name": "chem", "gid": 500}], {},
                 "cluster_users_groups: chem's gid is 500, below the minimum 1000", id="gid-below-minimum"),
    pytest.param([{"name": "alice", "uid": 3101, "group": "chem"}], [], {},
                 "cluster_users_users: alice's group chem is not in cluster_users_groups: add {name: chem, gid: <number>}",
                 id="group-not-listed"),
    pytest.param([{"name": "alice", "uid": 3101, "group": "chem", "gid": 7}], [{"name": "chem", "gid": 3001}], {},
                 "alice's gid 7 is not the gid 3001 of its group chem", id="gid-against-group"),
    pytest.param([{"name": "alice", "uid": 3101, "groups": ["Bad Group"]}], [], {},
                 "alice's groups entry Bad Group is not a valid POSIX", id="bad-supplementary"),
    pytest.param([{"name": "alice", "uid": 3101, "groups": "gpu"}], [], {},
                 "alice's groups must be a list of group names, not gpu", id="groups-string"),
    pytest.param([{"name": "alice", "uid": 3101, "shell": "bash"}], [], {},
                 "alice's shell must be an absolute path without ':', not bash", id="relative-shell"),
    pytest.param([{"name": "alice", "uid": 3101, "home": "/x:y"}], [], {}, "alice's home must be an absolute path",
                 id="home-colon"),
    pytest.param([{"name": "alice", "uid": 3101, "comment": "a:b"}], [], {},
                 "alice's comment must be text without ':'", id="comment-colon"),
    pytest.param([{"name": "alice", "uid": 3101, "ssh_keys": ["not a key"]}], [], {},
                 "alice's ssh_keys[1] is not one OpenSSH public key line", id="bad-key"),
    pytest.param([{"name": "alice", "uid": 3101, "ssh_keys": [KEY + "\n" + KEY]}], [], {},
                 "alice's ssh_keys[1] is not one OpenSSH public key line", id="two-keys-in-one"),
    pytest.param([{"name": "alice", "uid": 3101, "shel": "/bin/sh"}], [], {},
                 "cluster_users_users: alice has unknown keys shel: the keys are name, uid", id="typo-key"),
    pytest.param([{"name": "alice", "uid": 3101}], [], {"home_root": "shared/home"},
                 "cluster_users_home_root must be an absolute path", id="relative-home-root"),
    pytest.param({"alice": 3101}, [], {}, "cluster_users_users must be a list of {name, uid, ...}", id="users-mapping"),
    pytest.param(["alice"], [], {}, "cluster_users_users[1] must be a mapping", id="user-string"),
    pytest.param([], {"chem": 3001}, {}, "cluster_users_groups must be a list of {name, gid}", id="groups-mapping"),
    pytest.param([], [], {"min_uid": "x"}, "cluster_users_min_uid must be a whole number", id="bad-min"),
])
def test_plan_errors(users, groups, settings, message):
    errors = cu.plan(users, groups, settings)["errors"]
    assert any(message in error for error in errors), errors


PASSWD_OK = {
    "root": ["x", "0", "0", "root", "/root", "/bin/bash"],
    "alice": ["x", "3101", "3001", "Alice A", "/shared/home/alice", "/bin/bash"],
    "daemon": ["x", "1", "1", "daemon", "/usr/sbin", "/usr/sbin/nologin"],
}
GROUP_OK = {"root": ["x", "0", ""], "chem": ["x", "3001", ""], "gpu": ["x", "3002", "alice"], "docker": ["x", "999", ""]}


def test_host_view_keeps_only_what_matters():
    plan = _plan()
    view = cu.host_view(PASSWD_OK, GROUP_OK, plan)
    assert view == {"passwd": {"alice": 3101}, "group": {"chem": 3001, "gpu": 3002}, "missing_groups": []}


def test_host_view_missing_supplementary_group():
    plan = cu.plan([{"name": "alice", "uid": 3101, "groups": ["docker", "video"]}], [])
    view = cu.host_view(PASSWD_OK, GROUP_OK, plan)
    assert view["missing_groups"] == ["video"]


def test_host_view_malformed_numbers_are_skipped_and_bad_shapes_raise():
    plan = _plan()
    assert cu.host_view({"alice": ["x", "", "3001"]}, None, plan)["passwd"] == {}
    with pytest.raises(cu.ClusterUsersError, match="getent passwd must be the getent result"):
        cu.host_view(["alice"], {}, plan)
    with pytest.raises(cu.ClusterUsersError, match="getent group entry chem is not a getent field list"):
        cu.host_view({}, {"chem": "3001"}, plan)
    with pytest.raises(cu.ClusterUsersError, match="the plan must be the result of cluster_users_plan"):
        cu.host_view({}, {}, {"users": []})


def _views(**hosts):
    plan = _plan()
    return plan, dict((host, cu.host_view(passwd, group, plan)) for host, (passwd, group) in hosts.items())


def test_no_conflicts_on_clean_and_converged_hosts():
    plan, views = _views(ctl=({"root": ["x", "0", "0", "", "/", "/bin/sh"]}, {}), gpu01=(PASSWD_OK, GROUP_OK))
    assert cu.conflicts(plan, views) == []


def test_user_with_another_uid_names_hosts_user_and_both_numbers():
    other = dict(PASSWD_OK, alice=["x", "3005", "3001", "", "/home/alice", "/bin/bash"])
    plan, views = _views(gpu01=(other, GROUP_OK), gpu02=(other, GROUP_OK), gpu03=(PASSWD_OK, GROUP_OK))
    assert cu.conflicts(plan, views) == [
        "user alice has uid 3005 on gpu[01-02], the inventory wants 3101: change it there (usermod/groupmod and "
        "chown its files) or give alice 3005 in the inventory"]


def test_uid_taken_by_another_name():
    other = {"mallory": ["x", "3101", "100", "", "/home/mallory", "/bin/sh"]}
    plan, views = _views(ctl=(other, {}), gpu01=({}, {}))
    assert cu.conflicts(plan, views) == [
        "uid 3101 of user alice is taken by mallory on ctl: give alice another uid, or move mallory off 3101 there"]


def test_group_conflicts_both_ways():
    plan, views = _views(gpu07=({}, {"chem": ["x", "4000", ""], "lab": ["x", "3002", ""]}))
    assert cu.conflicts(plan, views) == [
        "group chem has gid 4000 on gpu07, the inventory wants 3001: change it there (usermod/groupmod and chown "
        "its files) or give chem 4000 in the inventory",
        "gid 3002 of group gpu is taken by lab on gpu07: give gpu another gid, or move lab off 3002 there",
    ]


def test_personal_group_gid_taken():
    plan, views = _views(n1=({}, {"staff2": ["x", "3102", ""]}))
    assert cu.conflicts(plan, views) == [
        "gid 3102 of group bob is taken by staff2 on n1: give bob another gid, or move staff2 off 3102 there"]


def test_missing_group_and_blind_hosts():
    plan = cu.plan([{"name": "alice", "uid": 3101, "groups": ["video"]}], [])
    views = {"a1": cu.host_view({}, {}, plan), "a2": cu.host_view({}, {"video": ["x", "44", ""]}, plan), "a3": None}
    assert cu.conflicts(plan, views) == [
        "no getent result from a3: the users cannot be checked there",
        "group video (in the groups of alice) is missing on a1: add it to cluster_users_groups with a gid, "
        "or create it there",
    ]


def test_thousand_hosts_give_one_short_message():
    other = {"alice": ["x", "3005", "3001", "", "/home/alice", "/bin/bash"]}
    plan = _plan()
    view = cu.host_view(other, GROUP_OK, plan)
    views = dict(("gpu%04d" % n, view) for n in range(1, 1001))
    messages = cu.conflicts(plan, views)
    assert messages == ["user alice has uid 3005 on gpu[0001-1000], the inventory wants 3101: change it there "
                        "(usermod/groupmod and chown its files) or give alice 3005 in the inventory"]


def test_conflicts_bad_shapes_raise():
    with pytest.raises(cu.ClusterUsersError, match="the views must be a mapping"):
        cu.conflicts(_plan(), [])


@pytest.mark.parametrize("settings", [ROLE_SETTINGS, dict(ROLE_SETTINGS, home_shared=True, home_host="gpu02",
                                                          ssh_keys_exclusive=True, home_mode="0750"),
                                      dict(ROLE_SETTINGS, play_hosts=[])],
                         ids=["defaults", "shared", "no-home-host"])
def test_good_role_settings(settings):
    assert cu.plan([], [], settings)["errors"] == []


@pytest.mark.parametrize("changes, message", [
    pytest.param({"home_shared": "maybe"}, 'cluster_users_home_shared ("maybe") is true or false', id="shared"),
    pytest.param({"ssh_keys_exclusive": None}, "cluster_users_ssh_keys_exclusive (null) is true or false",
                 id="exclusive"),
    pytest.param({"home_mode": "700"}, 'cluster_users_home_mode ("700") is a quoted octal mode such as "0700"',
                 id="mode-not-octal"),
    pytest.param({"home_mode": 448}, 'cluster_users_home_mode (448) is a quoted octal mode such as "0700"',
                 id="mode-number"),
    pytest.param({"home_mode": "0800"}, 'cluster_users_home_mode ("0800") is a quoted octal mode such as "0700"',
                 id="mode-digit"),
    pytest.param({"skeleton": "etc/skel"}, 'cluster_users_skeleton ("etc/skel") is an absolute path', id="skeleton"),
    pytest.param({"skeleton": ["/etc/skel"]}, 'cluster_users_skeleton (["/etc/skel"]) is an absolute path',
                 id="skeleton-list"),
    pytest.param({"home_host": "elsewhere"}, 'cluster_users_home_host ("elsewhere") is empty or a host of this play',
                 id="home-host-not-in-play"),
    pytest.param({"home_host": 7}, "cluster_users_home_host (7) is empty or a host of this play", id="home-host-number"),
])
def test_bad_role_settings(changes, message):
    assert cu.plan([], [], dict(ROLE_SETTINGS, **changes))["errors"] == [message]


def test_every_bad_setting_is_named():
    settings = dict(ROLE_SETTINGS, home_shared=1, ssh_keys_exclusive="no", home_mode="", skeleton="", home_host="x",
                    min_uid="y")
    errors = cu.plan([{"name": "Alice", "uid": 3101}], [], settings)["errors"]
    assert [error.split(" ", 1)[0] for error in errors[:6]] == [
        "cluster_users_home_shared", "cluster_users_ssh_keys_exclusive", "cluster_users_home_mode",
        "cluster_users_skeleton", "cluster_users_home_host", "cluster_users_min_uid"]
    assert any(error.startswith("cluster_users_users[1] name Alice") for error in errors[6:]), errors


# --- host_todo: only what differs is left for the modules -----------------------------


def _converged(plan, mode="0700", keys_text=None):
    """getent results, probe files and contents of a host where the plan is applied."""
    gids = dict((g["name"], g["gid"]) for g in plan["groups"])
    passwd = dict((u["name"], ["x", str(u["uid"]), str(gids[u["group"]]), u["comment"], u["home"], u["shell"]])
                  for u in plan["users"])
    group = dict((g["name"], ["x", str(g["gid"]), ",".join(u["name"] for u in plan["users"] if g["name"] in u["groups"])])
                 for g in plan["groups"])
    files, contents = [], {}
    for u in plan["users"]:
        files.append({"path": u["home"], "isdir": True, "isreg": False, "pw_name": u["name"], "gr_name": u["group"],
                      "mode": mode})
        if u["ssh_keys"]:
            files.append({"path": u["home"] + "/.ssh", "isdir": True, "pw_name": u["name"], "mode": "0700"})
            files.append({"path": u["home"] + "/.ssh/authorized_keys", "isreg": True, "isdir": False,
                          "pw_name": u["name"], "mode": "0600"})
            contents[u["home"] + "/.ssh/authorized_keys"] = "\n".join(u["ssh_keys"]) + "\n" if keys_text is None else keys_text
    return passwd, group, files, contents


def _names(todo):
    return dict((kind, [entry["name"] for entry in entries]) for kind, entries in todo.items())


def test_a_converged_host_leaves_nothing_to_do():
    plan = _plan()
    passwd, group, files, contents = _converged(plan)
    todo = cu.host_todo(passwd, group, plan, files, contents, ROLE_SETTINGS)
    assert _names(todo) == {"groups": [], "users": [], "homes": [], "keys": []}


def test_a_bare_host_gets_everything():
    plan = _plan()
    todo = cu.host_todo({}, {}, plan, [], {}, ROLE_SETTINGS)
    assert _names(todo) == {"groups": ["chem", "gpu", "bob"], "users": ["alice", "bob"], "homes": ["alice", "bob"],
                            "keys": ["alice"]}
    assert cu.host_todo(None, None, plan)["users"] == plan["users"]


@pytest.mark.parametrize("change, kind", [
    (lambda p, g, f, c: p["alice"].__setitem__(5, "/bin/sh"), "users"),
    (lambda p, g, f, c: p["alice"].__setitem__(3, "someone else"), "users"),
    (lambda p, g, f, c: p["alice"].__setitem__(4, "/home/alice"), "users"),
    (lambda p, g, f, c: p["alice"].__setitem__(2, "3002"), "users"),
    (lambda p, g, f, c: g["gpu"].__setitem__(2, ""), "users"),
    (lambda p, g, f, c: g.pop("chem"), "groups"),
    (lambda p, g, f, c: f[0].__setitem__("mode", "0755"), "homes"),
    (lambda p, g, f, c: f[0].__setitem__("pw_name", "root"), "homes"),
    (lambda p, g, f, c: f[0].__setitem__("isdir", False), "homes"),
    (lambda p, g, f, c: f[1].__setitem__("mode", "0755"), "keys"),
    (lambda p, g, f, c: f.pop(2), "keys"),
    (lambda p, g, f, c: c.__setitem__("/shared/home/alice/.ssh/authorized_keys", "ssh-rsa AAAA other\n"), "keys"),
], ids=["shell", "comment", "home", "primary-gid", "supplementary-group", "group-missing", "home-mode", "home-owner",
        "home-not-a-dir", "ssh-dir-mode", "no-authorized-keys", "key-missing"])
def test_one_difference_puts_that_entry_back(change, kind):
    plan = _plan()
    passwd, group, files, contents = _converged(plan)
    change(passwd, group, files, contents)
    todo = cu.host_todo(passwd, group, plan, files, contents, ROLE_SETTINGS)
    assert [e["name"] for e in todo[kind]] in (["alice"], ["chem"])
    assert sum(len(v) for v in todo.values()) == 1


def test_other_keys_are_left_alone_unless_exclusive():
    plan = _plan()
    key_file = "/shared/home/alice/.ssh/authorized_keys"
    passwd, group, files, contents = _converged(plan, keys_text="# mine\nssh-rsa AAAA other\n" + KEY + "\n")
    assert cu.host_todo(passwd, group, plan, files, contents, ROLE_SETTINGS)["keys"] == []
    exclusive = dict(ROLE_SETTINGS, ssh_keys_exclusive=True)
    assert [u["name"] for u in cu.host_todo(passwd, group, plan, files, contents, exclusive)["keys"]] == ["alice"]
    contents[key_file] = KEY + "\n"
    assert cu.host_todo(passwd, group, plan, files, contents, exclusive)["keys"] == []


def test_home_mode_is_read_in_any_octal_spelling():
    plan = _plan()
    passwd, group, files, contents = _converged(plan, mode="0750")
    for mode in ("0750", "750", 0o750):
        assert cu.host_todo(passwd, group, plan, files, contents, dict(ROLE_SETTINGS, home_mode=mode))["homes"] == []
    assert len(cu.host_todo(passwd, group, plan, files, contents, dict(ROLE_SETTINGS, home_mode="bad"))["homes"]) == 2


def test_probe_paths_name_homes_and_keys():
    plan = _plan()
    assert cu.probe_paths(plan) == {
        "paths": ["/shared/home/alice", "/shared/home/alice/.ssh", "/shared/home/alice/.ssh/authorized_keys",
                  "/shared/home/bob"],
        "read": ["/shared/home/alice/.ssh/authorized_keys"]}


@pytest.mark.parametrize("bad", [None, [], "plan", {"users": []}])
def test_todo_refuses_what_is_not_a_plan(bad):
    with pytest.raises(cu.ClusterUsersError):
        cu.host_todo({}, {}, bad)
    with pytest.raises(cu.ClusterUsersError):
        cu.probe_paths(bad)


def test_todo_refuses_a_getent_result_that_is_not_a_dict():
    with pytest.raises(cu.ClusterUsersError):
        cu.host_todo(["x"], {}, _plan())


# --- directory_clashes: the other NSS sources -------------------------------------------

DIRECTORY = "another source (the site's directory through SSSD?)"


def _lookups(passwd=(), group=()):
    return {"passwd": list(passwd), "group": list(group)}


def _clashes(hosts):
    """hosts: {host: (passwd, group, lookups)} -> directory_clashes of the plan over those hosts."""
    plan = _plan()
    views = dict((host, cu.host_view(passwd, group, plan)) for host, (passwd, group, _l) in hosts.items())
    return cu.directory_clashes(plan, views, dict((host, lookups) for host, (_p, _g, lookups) in hosts.items()))


def test_no_clash_when_nss_finds_only_the_local_entries_or_nothing():
    # gpu01 is converged: NSS finds the local entries (files first); ctl is bare: NSS finds nothing (rc 2).
    local = _lookups(["alice:x:3101:3001:Alice A:/shared/home/alice:/bin/bash"],
                     ["chem:x:3001:", "gpu:x:3002:alice"])
    assert _clashes({"gpu01": (PASSWD_OK, GROUP_OK, local), "ctl": ({}, {}, _lookups())}) == []


def test_nothing_planned_needs_no_lookup():
    plan = cu.plan([], [])
    assert cu.directory_clashes(plan, {"gpu01": cu.host_view({}, {}, plan)},
                                {"gpu01": {"passwd": None, "group": None}}) == []


def test_a_directory_user_of_a_planned_name_is_a_clash_naming_hosts_uid_and_fix():
    directory = _lookups(["alice:*:20001:20001:Alice Directory:/home/alice:/bin/bash"])
    assert _clashes({"gpu01": ({}, {}, directory), "gpu02": ({}, {}, directory),
                     "ctl": ({}, {}, _lookups())}) == [
        "alice is also a user of %s with uid 20001 on gpu[01-02]: a local cluster_users user and a directory user "
        "cannot share a name; remove alice from cluster_users_users or from the directory" % DIRECTORY]


def test_a_directory_entry_with_the_local_name_and_another_number_is_a_clash():
    # nsswitch "sss files": the directory's alice answers before the local one.
    directory = _lookups(["alice:*:20001:20001::/home/alice:/bin/bash"], ["chem:x:3001:", "gpu:x:3002:alice"])
    assert _clashes({"gpu01": (PASSWD_OK, GROUP_OK, directory)}) == [
        "alice is also a user of %s with uid 20001 on gpu01: a local cluster_users user and a directory user "
        "cannot share a name; remove alice from cluster_users_users or from the directory" % DIRECTORY]


def test_a_planned_uid_held_by_a_directory_user_is_a_clash():
    directory = _lookups(["dave:*:3102:20002::/home/dave:/bin/bash"])
    assert _clashes({"gpu01": ({}, {}, directory)}) == [
        "uid 3102 of user bob is held by dave of %s on gpu01: a local cluster_users user and a directory user cannot "
        "share a uid; give bob another uid in cluster_users_users, or give dave another uid in the directory"
        % DIRECTORY]


def test_group_clashes_by_name_and_by_gid_and_personal_groups():
    directory = _lookups(group=["chem:*:20100:", "physics:*:3002:carol", "bob:*:20002:"])
    assert _clashes({"n1": ({}, {}, directory)}) == [
        "bob (the personal group of user bob) is also a group of %s with gid 20002 on n1: a local cluster_users "
        "group and a directory group cannot share a name; give user bob a group from cluster_users_groups (group:), "
        "or remove the group bob from the directory" % DIRECTORY,
        "chem is also a group of %s with gid 20100 on n1: a local cluster_users group and a directory group cannot "
        "share a name; remove chem from cluster_users_groups or from the directory" % DIRECTORY,
        "gid 3002 of group gpu is held by physics of %s on n1: a local cluster_users group and a directory group "
        "cannot share a gid; give gpu another gid in cluster_users_groups, or give physics another gid in the "
        "directory" % DIRECTORY,
    ]


def test_an_entry_found_by_name_and_by_number_is_one_message():
    directory = _lookups(["alice:*:3101:3001::/home/alice:/bin/bash", "alice:*:3101:3001::/home/alice:/bin/bash"])
    assert len(_clashes({"gpu01": ({}, {}, directory)})) == 1


def test_a_host_without_lookups_or_view_is_never_skipped():
    plan = _plan()
    view = cu.host_view({}, {}, plan)
    messages = cu.directory_clashes(plan, {"a1": view, "a2": view, "a3": None},
                                    {"a1": None, "a2": {"passwd": [], "group": None}, "a3": _lookups()})
    assert messages == ["no getent lookup through every NSS source from a[1-3]: the names cannot be checked against "
                        "the directory there"]
    assert cu.directory_clashes(plan, {"a1": view}, {}) == [
        "no getent lookup through every NSS source from a1: the names cannot be checked against the directory there"]


@pytest.mark.parametrize("planned, views, lookups, message", [
    pytest.param("plan", {}, {}, "the plan must be the result of cluster_users_plan", id="plan"),
    pytest.param(None, {}, {}, "the plan must be the result of cluster_users_plan", id="no-plan"),
    pytest.param(_plan(), [], {}, "the views must be a mapping", id="views-list"),
    pytest.param(_plan(), {}, "gpu01", "the lookups must be a mapping", id="lookups-text"),
    pytest.param(_plan(), {"gpu01": {"passwd": {}, "group": {}}}, {"gpu01": {"passwd": "alice:x:1:1", "group": []}},
                 "getent passwd on gpu01 must be the lines getent printed, not str", id="lines-text"),
    pytest.param(_plan(), {"gpu01": {"passwd": {}, "group": {}}}, {"gpu01": {"passwd": [3101], "group": []}},
                 "getent passwd on gpu01 must be the lines getent printed, not a int", id="line-number"),
    pytest.param(_plan(), {"gpu01": {"passwd": {}, "group": {}}}, {"gpu01": {"passwd": [], "group": ["chem"]}},
                 "getent group on gpu01 printed chem, not an entry name:password:id:...", id="no-fields"),
    pytest.param(_plan(), {"gpu01": {"passwd": {}, "group": {}}},
                 {"gpu01": {"passwd": ["alice:x:-1:1::/:/bin/sh"], "group": []}},
                 "getent passwd on gpu01 printed alice:x:-1:1::/:/bin/sh, not an entry", id="bad-number"),
    pytest.param(_plan(), {"gpu01": {"passwd": {}, "group": {}}}, {"gpu01": {"passwd": [":x:1:1"], "group": []}},
                 "not an entry", id="no-name"),
])
def test_directory_clashes_garbage_is_a_clear_error(planned, views, lookups, message):
    with pytest.raises(cu.ClusterUsersError, match=re.escape(message)):
        cu.directory_clashes(planned, views, lookups)
