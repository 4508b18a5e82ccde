# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan of the local_accounts module: which groupadd, groupmod, useradd
and usermod calls bring a host's local groups and users to the wanted ids,
in one pass.

Pure functions over the wanted accounts and what the host has (as the pwd and
grp modules report it); they raise AccountsError for input that cannot be
planned, and report conflicts (an id held by another account) as problems,
never as a change that would take the id away.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

_NAME = re.compile(r"^[a-z_][a-z0-9_.-]{0,31}\$?$")
_PATH = re.compile(r"^/[^:\x00-\x1f\x7f]*$")
_COMMENT = re.compile(r"^[^:\x00-\x1f\x7f]*$")


class AccountsError(Exception):
    """Wanted accounts that cannot be planned (bad names, ids or fields)."""


_DIGITS = re.compile(r"\s*([0-9]{1,10})\s*\Z")


def _id(value, what):
    """value as a uid or gid: an int, or text of ASCII digits; a float (YAML's .inf, .nan, 1000.5), a bool or
    anything else is refused (int() would truncate 1000.5 and raise OverflowError on .inf)."""
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _DIGITS.match(value):
        number = int(_DIGITS.match(value).group(1))
    if number is None or not 0 <= number <= 4294967294:
        raise AccountsError("%s must be a number from 0 to 4294967294, got %s" % (what, shown(value)))
    return number


def _name(value, what):
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise AccountsError("%s must be a POSIX account name (lower case, digits, _ . -; at most 32), got %s"
                            % (what, shown(value)))
    return value


def normalise(groups, users):
    """Wanted groups and users, checked and with their defaults.

    groups: [{name, gid, system?}]; users: [{name, uid, group, home, shell,
    comment?, system?}]. A user's group is a name, among the wanted groups or
    already on the host.
    """
    out_groups, out_users, seen = [], [], set()
    for what, value in (("groups", groups), ("users", users)):
        if value is not None and not isinstance(value, (list, tuple)):
            raise AccountsError("%s must be a list, got %s" % (what, shown(value)))
    for i, g in enumerate(groups or []):
        if not isinstance(g, dict):
            raise AccountsError("groups[%d] must be a dict with name and gid, got %s" % (i, shown(g)))
        name = _name(g.get("name"), "groups[%d].name" % i)
        if ("g", name) in seen:
            raise AccountsError("group %s is listed twice" % name)
        seen.add(("g", name))
        out_groups.append({"name": name, "gid": _id(g.get("gid"), "gid of group %s" % name),
                           "system": bool(g.get("system", False))})
    for i, u in enumerate(users or []):
        if not isinstance(u, dict):
            raise AccountsError("users[%d] must be a dict with name, uid, group, home and shell, got %s"
                                % (i, shown(u)))
        name = _name(u.get("name"), "users[%d].name" % i)
        if ("u", name) in seen:
            raise AccountsError("user %s is listed twice" % name)
        seen.add(("u", name))
        for field in ("home", "shell"):
            value = u.get(field)
            if not isinstance(value, str) or not _PATH.fullmatch(value):
                raise AccountsError("%s of user %s must be an absolute path without ':' or control characters, got %s"
                                    % (field, name, shown(value)))
        comment = u.get("comment", "")
        if not isinstance(comment, str) or not _COMMENT.fullmatch(comment):
            raise AccountsError("comment of user %s must be one line without ':' or control characters, got %s"
                                % (name, shown(comment)))
        out_users.append({"name": name, "uid": _id(u.get("uid"), "uid of user %s" % name),
                          "group": _name(u.get("group"), "group of user %s" % name),
                          "home": u["home"], "shell": u["shell"], "comment": comment,
                          "system": bool(u.get("system", False))})
    return out_groups, out_users


def plan(groups, users, host_groups, host_users):
    """What to run, and what stops the run.

    host_groups: [{name, gid}] as grp.getgrall() gives them; host_users:
    [{name, uid, gid, home, shell, comment}] as pwd.getpwall() gives them.
    Returns {"commands": [argv, ...], "problems": [str], "changes": [str]}.
    A group or user that exists with another id is moved to the wanted id
    (groupmod -g, usermod -u), as ansible.builtin.group and user do; an id
    that another account holds is a problem, and nothing is planned for it.
    """
    groups, users = normalise(groups, users)
    by_gname = {g["name"]: g for g in host_groups}
    by_gid = {}
    for g in host_groups:
        by_gid.setdefault(int(g["gid"]), g["name"])
    by_uname = {u["name"]: u for u in host_users}
    by_uid = {}
    for u in host_users:
        by_uid.setdefault(int(u["uid"]), u["name"])
    commands, problems, changes = [], [], []
    gid_after = {name: int(g["gid"]) for name, g in by_gname.items()}
    for g in groups:
        holder = by_gid.get(g["gid"])
        have = by_gname.get(g["name"])
        if holder is not None and holder != g["name"]:
            problems.append("gid %d for group %s is held by group %s on this host: choose another gid, or "
                            "remove or renumber %s" % (g["gid"], g["name"], holder, holder))
            continue
        if have is None:
            commands.append(["groupadd", "-g", str(g["gid"])] + (["-r"] if g["system"] else []) + [g["name"]])
            changes.append("group %s: created with gid %d" % (g["name"], g["gid"]))
        elif int(have["gid"]) != g["gid"]:
            commands.append(["groupmod", "-g", str(g["gid"]), g["name"]])
            changes.append("group %s: gid %s -> %d" % (g["name"], have["gid"], g["gid"]))
        gid_after[g["name"]] = g["gid"]
    for u in users:
        if u["group"] not in gid_after:
            problems.append("user %s: its group %s is neither wanted nor on this host" % (u["name"], u["group"]))
            continue
        holder = by_uid.get(u["uid"])
        have = by_uname.get(u["name"])
        if holder is not None and holder != u["name"]:
            problems.append("uid %d for user %s is held by user %s on this host: choose another uid, or "
                            "remove or renumber %s" % (u["uid"], u["name"], holder, holder))
            continue
        if have is None:
            commands.append(["useradd", "-u", str(u["uid"]), "-g", u["group"], "-d", u["home"], "-M",
                             "-s", u["shell"]] + (["-c", u["comment"]] if u["comment"] else [])
                            + (["-r"] if u["system"] else []) + [u["name"]])
            changes.append("user %s: created with uid %d" % (u["name"], u["uid"]))
            continue
        args, what = [], []
        if int(have["uid"]) != u["uid"]:
            args += ["-u", str(u["uid"])]
            what.append("uid %s -> %d" % (have["uid"], u["uid"]))
        # groupmod -g keeps the group primary for its users: the old gid is right too.
        old_gid = by_gname[u["group"]]["gid"] if u["group"] in by_gname else None
        if int(have["gid"]) not in (gid_after[u["group"]], old_gid):
            args += ["-g", u["group"]]
            what.append("group %s -> %s" % (have["gid"], u["group"]))
        for field, flag in (("home", "-d"), ("shell", "-s"), ("comment", "-c")):
            if field == "comment" and not u["comment"]:
                continue
            if have.get(field, "") != u[field]:
                args += [flag, u[field]]
                what.append("%s %s -> %s" % (field, have.get(field, ""), u[field]))
        if args:
            commands.append(["usermod"] + args + [u["name"]])
            changes.append("user %s: %s" % (u["name"], ", ".join(what)))
    return {"commands": commands, "problems": problems, "changes": changes}


def todo(groups, users, probe):
    """The wanted groups and users that the host_probe result shows missing or different.

    probe: host_probe's result (its groups and users dicts). Both lists come
    back empty on a host that needs nothing, so the play skips the module.
    """
    groups, users = normalise(groups, users)
    have_groups = (probe or {}).get("groups") or {}
    have_users = (probe or {}).get("users") or {}
    gids = {g["name"]: g["gid"] for g in groups}
    out_groups = [g for g in groups
                  if not (have_groups.get(g["name"]) or {}).get("exists") or have_groups[g["name"]].get("gid") != g["gid"]]
    out_users = []
    for u in users:
        have = have_users.get(u["name"]) or {}
        group_gid = gids.get(u["group"], (have_groups.get(u["group"]) or {}).get("gid"))
        if (not have.get("exists") or have.get("uid") != u["uid"] or have.get("gid") != group_gid
                or have.get("home") != u["home"] or have.get("shell") != u["shell"]):
            out_users.append(u)
    return {"groups": out_groups, "users": out_users}


def host_accounts(getgrall, getpwall):
    """The host's groups and users in plan()'s form, from grp.getgrall and pwd.getpwall (passed in)."""
    groups = [{"name": g.gr_name, "gid": g.gr_gid} for g in getgrall()]
    users = [{"name": u.pw_name, "uid": u.pw_uid, "gid": u.pw_gid, "home": u.pw_dir, "shell": u.pw_shell,
              "comment": u.pw_gecos} for u in getpwall()]
    return groups, users


def run_plan(todo_plan, run, check_mode):
    """Run a plan()'s commands in order (none in check mode).

    run: a function argv -> (rc, out, err), AnsibleModule.run_command.
    Returns None, or the message of the first command that failed.
    """
    if check_mode:
        return None
    for argv in todo_plan["commands"]:
        rc, out, err = run(argv)
        if rc != 0:
            return "%s failed (rc %d): %s" % (" ".join(argv), rc, (err or out).strip())
    return None


def ensure(module, name, groups, users, host):
    """plan() for the module called name against host ((groups, users) as host_accounts gives
    them), then run it (not in check mode). Fails the module on bad input, on an id another account
    holds and on a failed command; returns the plan."""
    try:
        todo_plan = plan(groups, users, host[0], host[1])
    except AccountsError as exc:
        module.fail_json(msg="%s: %s" % (name, exc))
    if todo_plan["problems"]:
        module.fail_json(msg="%s: %s" % (name, "; ".join(todo_plan["problems"])), problems=todo_plan["problems"])
    failed = run_plan(todo_plan, module.run_command, module.check_mode)
    if failed:
        module.fail_json(msg="%s: %s" % (name, failed), changes=todo_plan["changes"], commands=todo_plan["commands"])
    return todo_plan
