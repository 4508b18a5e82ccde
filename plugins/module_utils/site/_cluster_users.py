# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cluster users and groups with the same uid/gid on every host (role cluster_users).

Three steps, each a pure function:

* plan(users, groups, settings): cluster_users_users and cluster_users_groups checked and
  normalised (defaults filled in, a personal group for a user without one);
  every problem is a message in ``errors`` that names the variable and the
  fix, bad input never raises.
* host_view(passwd, group, plan): on each host, the few passwd/group entries
  of its ``getent`` results that matter to the plan (its names and its
  numbers), so the cluster-wide check reads a small dict per host.
* conflicts(plan, views): once per play, over every host's view: a name of
  the plan with another number on some host, a number of the plan taken by
  another name, a supplementary group that is neither in the plan nor on the
  host. Host names are given as Slurm hostlists, so a message stays short on
  a thousand nodes.
* directory_clashes(plan, views, lookups): once per play, the plan's names
  and numbers looked up through every NSS source (``getent passwd NAME...
  UID...``, ``getent group NAME... GID...``) on every host, against the local
  files (the views, read with ``getent -s files``): an entry that the local
  files do not have comes from another source (the site's directory through
  SSSD), and a local cluster_users account cannot share its name or number.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import json_clipped
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

# useradd's portable names: lower-case letters, digits, _ and -, starting
# with a letter or _, at most 32 characters (the utmp limit).
NAME_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}\Z")
NAME_FIX = "lower-case letters, digits, _ and -, starting with a letter or _, at most 32 characters"
# The largest id every tool takes (some still store ids as signed 32-bit).
MAX_ID = 2147483647
# nobody / nogroup and the (uid_t)-1 of 16-bit systems.
RESERVED_IDS = frozenset((65534, 65535))
SSH_KEY_RE = re.compile(r"^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)"
                        r"@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\r\n]*)?$")
MODE_RE = re.compile(r"^0[0-7]{3}\Z")
USER_KEYS = ("name", "uid", "gid", "group", "groups", "shell", "home", "comment", "ssh_keys")
GROUP_KEYS = ("name", "gid")
_SHOWN = 60


class ClusterUsersError(ValueError):
    """Input of a shape the role never builds (the filters turn it into a filter error)."""


def _shown(value):
    text = shown(value, _SHOWN) if not isinstance(value, str) else value
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _hosts(names):
    """names as one short hostlist (gpu[01-99]), or comma-joined where a name does not fit one."""
    names = sorted(names)
    try:
        return compress(names)
    except HostlistError:
        return ",".join(names)


def _id(value, what, minimum, errors):
    """value as an id of at least minimum, or None with a message in errors."""
    # An int is compared, never printed whole (str() refuses 4,300 digits); text is 1 to 10 ASCII digits.
    if isinstance(value, bool) or not (isinstance(value, int) and 0 <= value < 10 ** 10
                                       or isinstance(value, str) and re.match(r"^[0-9]{1,10}\Z", value)):
        errors.append("%s must be a whole number, not %s" % (what, _shown(value)))
        return None
    number = int(value)
    if number < minimum:
        errors.append("%s is %d, below the minimum %d: take a number from %d up (or lower the minimum)"
                      % (what, number, minimum, minimum))
        return None
    if number > MAX_ID or number in RESERVED_IDS:
        errors.append("%s is %d: take a number from %d to %d, not 65534 or 65535 (nobody)"
                      % (what, number, minimum, MAX_ID))
        return None
    return number


def _name(value, what, errors):
    if not isinstance(value, str) or not NAME_RE.match(value):
        errors.append("%s %s is not a valid POSIX user or group name: use %s" % (what, _shown(value), NAME_FIX))
        return None
    return value


def _path(value, what, errors):
    if not isinstance(value, str) or not value.startswith("/") or any(c in value for c in ":\n\r\0"):
        errors.append("%s must be an absolute path without ':', not %s" % (what, _shown(value)))
        return None
    return value.rstrip("/") or "/"


def _unknown_keys(entry, allowed, what, errors):
    extra = sorted(str(key) for key in entry if key not in allowed)
    if extra:
        errors.append("%s has unknown keys %s: the keys are %s" % (what, ", ".join(extra), ", ".join(allowed)))


def _json(value):
    """value as to_json writes it (text in double quotes), clipped; never raises."""
    return json_clipped(value, _SHOWN)


def _role_settings(settings, errors):
    """The role's other settings, each checked where the role passes it (a caller of plan() alone passes none)."""
    for key in ("home_shared", "ssh_keys_exclusive"):
        if key in settings and not isinstance(settings[key], bool):
            errors.append("cluster_users_%s (%s) is true or false" % (key, _json(settings[key])))
    mode = settings.get("home_mode", "0700")
    if not (isinstance(mode, str) and MODE_RE.match(mode)):
        errors.append('cluster_users_home_mode (%s) is a quoted octal mode such as "0700"' % _json(mode))
    skeleton = settings.get("skeleton", "/etc/skel")
    if not (isinstance(skeleton, str) and skeleton.startswith("/")):
        errors.append("cluster_users_skeleton (%s) is an absolute path" % _json(skeleton))
    host = settings.get("home_host", "")
    hosts = settings.get("play_hosts")
    in_play = "play_hosts" not in settings or (isinstance(hosts, list) and host in hosts)
    if not isinstance(host, str) or (host and not in_play):
        errors.append("cluster_users_home_host (%s) is empty or a host of this play" % _json(host))


def _settings(settings, errors):
    settings = settings if isinstance(settings, dict) else {}
    _role_settings(settings, errors)
    min_uid = _id(settings.get("min_uid", 1000), "cluster_users_min_uid", 0, errors)
    min_gid = _id(settings.get("min_gid", 1000), "cluster_users_min_gid", 0, errors)
    home_root = settings.get("home_root") or "/home"
    home_root = _path(home_root, "cluster_users_home_root", errors) or "/home"
    shell = _path(settings.get("shell", "/bin/bash"), "cluster_users_default_shell", errors) or "/bin/bash"
    return (1000 if min_uid is None else min_uid), (1000 if min_gid is None else min_gid), home_root, shell


def _plan_groups(groups, min_gid, errors):
    """cluster_users_groups checked, as a list of {name, gid}."""
    if not isinstance(groups, list):
        errors.append("cluster_users_groups must be a list of {name, gid}, not %s" % _shown(groups))
        return []
    planned = []
    for index, entry in enumerate(groups, 1):
        what = "cluster_users_groups[%d]" % index
        if not isinstance(entry, dict):
            errors.append("%s must be a mapping {name: ..., gid: ...}, not %s" % (what, _shown(entry)))
            continue
        name = _name(entry.get("name"), what + " name", errors)
        _unknown_keys(entry, GROUP_KEYS, "cluster_users_groups: %s" % name if name else what, errors)
        if name:
            what = "cluster_users_groups: %s's gid" % name
        gid = _id(entry.get("gid"), what if name else what + " gid", min_gid, errors)
        if name and gid is not None:
            planned.append({"name": name, "gid": gid, "personal": False})
    return planned


def _plan_user(entry, index, context, errors):
    """One cluster_users entry checked and filled in, or None."""
    min_uid, min_gid, home_root, shell, by_group = context
    what = "cluster_users_users[%d]" % index
    if not isinstance(entry, dict):
        errors.append("%s must be a mapping {name: ..., uid: ...}, not %s" % (what, _shown(entry)))
        return None
    name = _name(entry.get("name"), what + " name", errors)
    if name:
        what = "cluster_users_users: %s" % name
    _unknown_keys(entry, USER_KEYS, what, errors)
    count = len(errors)
    uid = _id(entry.get("uid"), what + "'s uid", min_uid, errors)
    group = entry.get("group")
    personal = None
    if group is None:
        # A personal group named after the user (useradd's USERGROUPS), unless
        # cluster_users_groups lists one of that name.
        if name and name in by_group:
            group = name
        elif name and uid is not None:
            gid = uid if entry.get("gid") is None else _id(entry.get("gid"), what + "'s gid", min_gid, errors)
            group = name
            if gid is not None:
                personal = {"name": name, "gid": gid, "personal": True}
    elif _name(group, what + "'s group", errors) and group not in by_group:
        errors.append("%s's group %s is not in cluster_users_groups: add {name: %s, gid: <number>} there, or leave "
                      "group out for a personal group %s with gid = uid" % (what, group, group, name or "<name>"))
    elif entry.get("gid") is not None and group in by_group and str(entry.get("gid")) != str(by_group[group]["gid"]):
        errors.append("%s's gid %s is not the gid %d of its group %s in cluster_users_groups: leave gid out"
                      % (what, _shown(entry.get("gid")), by_group[group]["gid"], group))
    groups = entry.get("groups", [])
    if not isinstance(groups, list):
        errors.append("%s's groups must be a list of group names, not %s" % (what, _shown(groups)))
        groups = []
    for extra in groups:
        _name(extra, what + "'s groups entry", errors)
    user_shell = _path(entry.get("shell", shell), what + "'s shell", errors)
    home = entry.get("home")
    home = _path(home, what + "'s home", errors) if home is not None else "%s/%s" % (home_root.rstrip("/"), name)
    comment = entry.get("comment", "")
    if not isinstance(comment, str) or any(c in comment for c in ":\n\r\0"):
        errors.append("%s's comment must be text without ':' or line breaks, not %s" % (what, _shown(comment)))
    keys = entry.get("ssh_keys", [])
    if not isinstance(keys, list):
        errors.append("%s's ssh_keys must be a list of public keys, not %s" % (what, _shown(keys)))
        keys = []
    for number, key in enumerate(keys, 1):
        if not isinstance(key, str) or not SSH_KEY_RE.match(key.strip()):
            errors.append("%s's ssh_keys[%d] is not one OpenSSH public key line (type base64 [comment]): %s"
                          % (what, number, _shown(key)))
    if len(errors) > count or not name or uid is None:
        return None
    return {
        "user": {"name": name, "uid": uid, "group": group, "groups": list(groups), "shell": user_shell, "home": home,
                 "comment": comment, "ssh_keys": [key.strip() for key in keys]},
        "personal": personal,
    }


def _duplicates(entries, key, what, errors):
    seen = {}
    for entry in entries:
        seen.setdefault(entry[key], []).append(entry["name"])
    for value, names in seen.items():
        if len(names) > 1:
            if key == "name":
                errors.append("%s lists %s %d times: keep one entry per name" % (what, value, len(names)))
            else:
                errors.append("%s: %s %d is given to %s: give each its own number"
                              % (what, key, value, " and ".join(sorted(set(names)))))


def plan(users, groups, settings=None):
    """The users and groups to create, checked: {users, groups, errors}.

    settings: {min_uid, min_gid, home_root, shell}, and the role's other settings, each checked when given:
    home_shared, ssh_keys_exclusive, home_mode, skeleton, home_host (empty, or one of play_hosts, the play's
    hosts). A user without ``group``
    gets the group of its own name from ``groups`` if there is one, else a
    personal group of its name with gid = its ``gid`` or else its uid.
    """
    errors = []
    min_uid, min_gid, home_root, shell = _settings(settings, errors)
    planned_groups = _plan_groups(groups, min_gid, errors)
    by_group = {}
    for group in planned_groups:
        by_group.setdefault(group["name"], group)
    planned_users = []
    if not isinstance(users, list):
        errors.append("cluster_users_users must be a list of {name, uid, ...}, not %s" % _shown(users))
        users = []
    context = (min_uid, min_gid, home_root, shell, by_group)
    for index, entry in enumerate(users, 1):
        result = _plan_user(entry, index, context, errors)
        if result is None:
            continue
        planned_users.append(result["user"])
        if result["personal"] and result["personal"]["name"] not in by_group:
            planned_groups.append(result["personal"])
            by_group[result["personal"]["name"]] = result["personal"]
    _duplicates(planned_users, "name", "cluster_users_users", errors)
    _duplicates(planned_users, "uid", "cluster_users_users", errors)
    _duplicates([g for g in planned_groups if not g["personal"]], "name", "cluster_users_groups", errors)
    _duplicates(planned_groups, "gid", "cluster_users_groups and the personal groups", errors)
    return {"users": planned_users, "groups": planned_groups, "errors": errors}


# --- on each host -----------------------------------------------------------------


def _key(name):
    return name if isinstance(name, str) else shown(name)


def _entries(database, what):
    """getent's {name: [fields]} as {name: id} (the id is field 1 of passwd and group)."""
    if database is None:
        return {}
    if not isinstance(database, dict):
        raise ClusterUsersError("%s must be the getent result {name: [fields]}, not %s" % (what, type(database).__name__))
    found = {}
    for name, fields in database.items():
        if not isinstance(fields, (list, tuple)) or len(fields) < 2:
            raise ClusterUsersError("%s entry %s is not a getent field list" % (what, _shown(name)))
        number = fields[1]
        if isinstance(number, str) and re.match(r"\s*[0-9]{1,10}\s*\Z", number):
            found[_key(name)] = int(number)
        elif isinstance(number, int) and not isinstance(number, bool) and 0 <= number < 2 ** 32:
            found[_key(name)] = number
        # else a malformed line (not a number of at most 10 digits): not one of ours, nothing to compare
    return found


def _plan_shape(planned):
    if not isinstance(planned, dict) or not isinstance(planned.get("users"), list) \
            or not isinstance(planned.get("groups"), list):
        raise ClusterUsersError("the plan must be the result of cluster_users_plan")
    return planned


def host_view(passwd, group, planned):
    """The entries of one host's getent passwd and group results that matter to the plan.

    {passwd: {name: uid}, group: {name: gid}, missing_groups: [name]}: the
    entries whose name or number the plan uses, and the supplementary groups
    of the plan's users that neither the plan nor the host has.
    """
    planned = _plan_shape(planned)
    users = _entries(passwd, "getent passwd")
    groups = _entries(group, "getent group")
    names = set(user["name"] for user in planned["users"])
    uids = set(user["uid"] for user in planned["users"])
    group_names = set(entry["name"] for entry in planned["groups"])
    gids = set(entry["gid"] for entry in planned["groups"])
    wanted = set()
    for user in planned["users"]:
        wanted.update(user["groups"])
    return {
        "passwd": dict((name, uid) for name, uid in users.items() if name in names or uid in uids),
        "group": dict((name, gid) for name, gid in groups.items() if name in group_names or gid in gids),
        "missing_groups": sorted(name for name in wanted - group_names if name not in groups),
    }


# --- once per play ------------------------------------------------------------------


def _compare(wanted, key, kind, views, database, messages):
    """Messages for the wanted entries whose name has another number, or whose number another name, on some host."""
    other_number = {}  # (name, number on host) -> hosts
    other_name = {}  # (name, number, name on host) -> hosts
    for entry in wanted:
        for host, view in views.items():
            found = view[database]
            if entry["name"] in found and found[entry["name"]] != entry[key]:
                other_number.setdefault((entry["name"], entry[key], found[entry["name"]]), []).append(host)
    by_number = dict((entry[key], entry["name"]) for entry in wanted)
    for host, view in views.items():
        for name, number in view[database].items():
            if number in by_number and by_number[number] != name:
                other_name.setdefault((by_number[number], number, name), []).append(host)
    for (name, want, have), hosts in sorted(other_number.items()):
        messages.append("%s %s has %s %d on %s, the inventory wants %d: change it there (usermod/groupmod and chown "
                        "its files) or give %s %d in the inventory"
                        % (kind, name, key, have, _hosts(hosts), want, name, have))
    for (name, number, holder), hosts in sorted(other_name.items()):
        messages.append("%s %d of %s %s is taken by %s on %s: give %s another %s, or move %s off %d there"
                        % (key, number, kind, name, holder, _hosts(hosts), name, key, holder, number))


def conflicts(planned, views):
    """Every cross-host conflict of the plan with what the hosts have, as messages (empty: safe to apply).

    views: {host: host_view(...)}; a host without a view is a message too.
    """
    planned = _plan_shape(planned)
    if not isinstance(views, dict):
        raise ClusterUsersError("the views must be a mapping {host: view}, not %s" % type(views).__name__)
    messages = []
    checked = {}
    blind = []
    for host, view in views.items():
        if isinstance(view, dict) and all(isinstance(view.get(k), dict) for k in ("passwd", "group")):
            checked[str(host)] = view
        else:
            blind.append(str(host))
    if blind:
        messages.append("no getent result from %s: the users cannot be checked there" % _hosts(blind))
    _compare(planned["groups"], "gid", "group", checked, "group", messages)
    _compare(planned["users"], "uid", "user", checked, "passwd", messages)
    missing = {}
    for host, view in checked.items():
        for name in view.get("missing_groups") or []:
            missing.setdefault(name, []).append(host)
    for name, hosts in sorted(missing.items()):
        owners = sorted(user["name"] for user in planned["users"] if name in user["groups"])
        messages.append("group %s (in the groups of %s) is missing on %s: add it to cluster_users_groups with a gid, "
                        "or create it there" % (name, ", ".join(owners), _hosts(hosts)))
    return messages


# --- once per play: the other NSS sources ---------------------------------------------

OTHER_SOURCE = "another source (the site's directory through SSSD?)"


def _lookup_lines(lines, what):
    """getent's output lines ("name:password:id:...") as [(name, id)]; a line of another shape raises."""
    if not isinstance(lines, (list, tuple)):
        raise ClusterUsersError("%s must be the lines getent printed, not %s" % (what, type(lines).__name__))
    found = []
    for line in lines:
        if not isinstance(line, str):
            raise ClusterUsersError("%s must be the lines getent printed, not a %s" % (what, type(line).__name__))
        if not line.strip():
            continue
        fields = line.rstrip("\r\n").split(":")
        if len(fields) < 3 or not fields[0] or not re.match(r"^[0-9]{1,10}\Z", fields[2].strip()):
            raise ClusterUsersError("%s printed %s, not an entry name:password:id:..." % (what, _shown(line)))
        found.append((fields[0], int(fields[2].strip())))
    return found


def _clash_messages(wanted, key, kind, found, messages):
    """Messages for one database: found is {(name, number): hosts} of the entries the local files do not have."""
    by_name = dict((entry["name"], entry) for entry in wanted)
    by_number = dict((entry[key], entry) for entry in wanted)
    listed = "cluster_users_users" if kind == "user" else "cluster_users_groups"
    same_name, same_number = [], []
    for (name, number), hosts in sorted(found.items()):
        if name in by_name:
            same_name.append((name, number, hosts))
        elif number in by_number:
            same_number.append((by_number[number], number, name, hosts))
    for name, number, hosts in same_name:
        if by_name[name].get("personal"):
            fix = ("give user %s a group from cluster_users_groups (group:), or remove the group %s from the directory"
                   % (name, name))
            what = "%s (the personal group of user %s)" % (name, name)
        else:
            fix = "remove %s from %s or from the directory" % (name, listed)
            what = name
        messages.append("%s is also a %s of %s with %s %d on %s: a local cluster_users %s and a directory %s cannot "
                        "share a name; %s" % (what, kind, OTHER_SOURCE, key, number, _hosts(hosts), kind, kind, fix))
    for entry, number, holder, hosts in same_number:
        where = ("cluster_users_users (gid:, the personal group of user %s)" % entry["name"]
                 if entry.get("personal") else listed)
        messages.append("%s %d of %s %s is held by %s of %s on %s: a local cluster_users %s and a directory %s cannot "
                        "share a %s; give %s another %s in %s, or give %s another %s in the directory"
                        % (key, number, kind, entry["name"], holder, OTHER_SOURCE, _hosts(hosts), kind, kind, key,
                           entry["name"], key, where, holder, key))


def directory_clashes(planned, views, lookups):
    """Every planned name or number that another NSS source (the directory) holds on some host, as messages.

    views: {host: host_view(...)} of the local files (getent -s files). lookups: {host: {passwd: lines, group:
    lines}}, the lines of ``getent passwd <the plan's user names and uids>`` and ``getent group <the plan's group
    names and gids>`` through every NSS source; None where the plan has no user (passwd) or group (group). An entry
    there that the local files do not have (that name with that number) comes from another source: a planned name
    it has, or a planned number it holds under another name, is a clash. A host without its view or lookups, when
    the plan needs them, is a message too: no host is skipped. Shapes the role never builds raise
    ClusterUsersError.
    """
    planned = _plan_shape(planned)
    if not isinstance(views, dict):
        raise ClusterUsersError("the views must be a mapping {host: view}, not %s" % type(views).__name__)
    if not isinstance(lookups, dict):
        raise ClusterUsersError("the lookups must be a mapping {host: {passwd: lines, group: lines}}, not %s"
                                % type(lookups).__name__)
    needed = [(database, wanted, key, kind) for database, wanted, key, kind in (
        ("group", planned["groups"], "gid", "group"), ("passwd", planned["users"], "uid", "user")) if wanted]
    if not needed:
        return []
    views = dict((str(host), view) for host, view in views.items())
    lookups = dict((str(host), lookup) for host, lookup in lookups.items())
    blind = set()
    found = dict((database, {}) for database, _wanted, _key, _kind in needed)
    for host in sorted(set(views) | set(lookups)):
        view, lookup = views.get(host), lookups.get(host)
        if not (isinstance(view, dict) and all(isinstance(view.get(k), dict) for k in ("passwd", "group"))
                and isinstance(lookup, dict)):
            blind.add(host)
            continue
        for database, _wanted, _key, _kind in needed:
            if lookup.get(database) is None:
                blind.add(host)
                continue
            local = view[database]
            for name, number in _lookup_lines(lookup[database], "getent %s on %s" % (database, host)):
                if local.get(name) != number:
                    found[database].setdefault((name, number), set()).add(host)
    messages = []
    if blind:
        messages.append("no getent lookup through every NSS source from %s: the names cannot be checked against the "
                        "directory there" % _hosts(blind))
    for database, wanted, key, kind in needed:
        _clash_messages(wanted, key, kind, found[database], messages)
    return messages


# --- per host: what differs --------------------------------------------------------


def _fields(database, what):
    """{name: [fields as str]} of a getent result, the malformed entries left out."""
    if database is None:
        return {}
    if not isinstance(database, dict):
        raise ClusterUsersError("%s must be the getent result {name: [fields]}, not %s" % (what, type(database).__name__))
    return dict((_key(name), ["" if f is None else str(f) for f in fields])
                for name, fields in database.items() if isinstance(fields, (list, tuple)))


def _mode(value):
    """A file mode as an int, from '0700', '700', 0o700 or 448; None when it is none of them."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.match(r"\s*0?[0-7]{3,4}\s*\Z", value):
        return int(value.strip(), 8)
    return None


def _key_lines(text):
    return set(line.strip() for line in (text or "").splitlines() if line.strip() and not line.strip().startswith("#"))


def host_todo(passwd, group, planned, files=None, contents=None, settings=None):
    """What the modules must still do on one host: {groups, users, homes, keys}, each a list of plan entries.

    passwd, group: the host's getent results ({name: [fields]}). files: host_probe's files (the homes,
    their .ssh and authorized_keys), contents: host_probe's contents ({path: text}, decoded) of the
    authorized_keys files. settings: home_mode, ssh_keys_exclusive. An entry is left out only when every
    field its module sets is already what the plan says; when anything is unknown it is kept, so the
    module (which makes every change) decides.
    """
    planned = _plan_shape(planned)
    settings = settings or {}
    users = _fields(passwd, "getent passwd")
    groups = _fields(group, "getent group")
    by_path = dict((f.get("path"), f) for f in (files or []) if isinstance(f, dict))
    contents = contents or {}
    home_mode = _mode(settings.get("home_mode", "0700"))
    exclusive = bool(settings.get("ssh_keys_exclusive", False))
    gid_of = dict((_key(entry["name"]), entry["gid"]) for entry in planned["groups"])
    todo = {"groups": [], "users": [], "homes": [], "keys": []}

    for entry in planned["groups"]:
        fields = groups.get(_key(entry["name"]))
        if not fields or len(fields) < 2 or fields[1] != str(entry["gid"]):
            todo["groups"].append(entry)

    for user in planned["users"]:
        fields = users.get(_key(user["name"]))
        gid = gid_of.get(_key(user["group"]))
        if gid is None and len(groups.get(_key(user["group"]), [])) > 1:
            gid = groups[_key(user["group"])][1]
        same = (fields is not None and len(fields) >= 6 and fields[1] == str(user["uid"]) and gid is not None
                and fields[2] == str(gid) and fields[3] == user["comment"] and fields[4] == user["home"]
                and fields[5] == user["shell"])
        for name in user["groups"]:
            members = groups.get(_key(name), [])
            if len(members) < 3 or user["name"] not in members[2].split(","):
                same = False
        if not same:
            todo["users"].append(user)

        home = by_path.get(user["home"])
        if not (home and home.get("isdir") and home.get("pw_name") == user["name"]
                and home.get("gr_name") == user["group"] and home_mode is not None
                and _mode(home.get("mode")) == home_mode):
            todo["homes"].append(user)

        if user["ssh_keys"]:
            ssh_dir = by_path.get(user["home"] + "/.ssh")
            keys_file = user["home"] + "/.ssh/authorized_keys"
            keys_stat = by_path.get(keys_file)
            have = _key_lines(contents.get(keys_file))
            want = _key_lines("\n".join(user["ssh_keys"]))
            keys_ok = have == want if exclusive else want <= have
            if not (ssh_dir and ssh_dir.get("isdir") and ssh_dir.get("pw_name") == user["name"]
                    and _mode(ssh_dir.get("mode")) == 0o700 and keys_stat and keys_stat.get("isreg")
                    and keys_stat.get("pw_name") == user["name"] and _mode(keys_stat.get("mode")) == 0o600
                    and keys_ok):
                todo["keys"].append(user)
    return todo


def probe_paths(planned):
    """The paths host_probe looks at for host_todo: each home, and its .ssh and authorized_keys for users with keys."""
    planned = _plan_shape(planned)
    paths, keys = [], []
    for user in planned["users"]:
        paths.append(user["home"])
        if user["ssh_keys"]:
            paths += [user["home"] + "/.ssh", user["home"] + "/.ssh/authorized_keys"]
            keys.append(user["home"] + "/.ssh/authorized_keys")
    return {"paths": paths, "read": keys}
