# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm accounting associations (accounts, users, fair-share) for the slurm_accounts module.

Pure functions, no I/O. They read what ``sacctmgr --noheader --parsable2 show ...``
prints, validate the wanted accounts, and plan the ``sacctmgr -i`` commands that
make the cluster match. Input they cannot read raises SlurmAccountsError with a
one-line reason.

sacctmgr behaviour followed (sacctmgr(1); src/sacctmgr/*.c of Slurm 22.05-24.x):

- ``--parsable2`` separates fields with ``|`` and ends a line without one; a
  value holding ``|`` therefore breaks the line, and is reported as such.
- Names, descriptions and organizations are stored in lower case (sacctmgr's
  ``strip_quotes(..., make_lower)``); quotes inside them are turned into backquotes.
- ``Share`` prints an integer, or ``parent`` for ``Fairshare=parent``.
- ``show associations`` copies the limits of the parent association into each
  row unless ``WOPLimits`` is given, so the module asks with ``WOPLimits`` and
  sees only the limits set on the association itself.
- A limit is cleared with ``-1`` (``MaxJobs=-1``, ``DefaultQOS=-1``), a TRES
  limit per TRES (``GrpTRES=gres/gpu=-1``: the other TRES stay), the QOS list
  with an empty value (``QOS=``).
- ``add user U Account=A DefaultAccount=D`` also creates the association with
  ``D`` when it is missing and makes that new association the default one; an
  association that already exists is left as it is.
- ``modify``/``remove`` exit 1 with ``Nothing modified``/``Nothing deleted``
  when nothing matched; the plan never asks for a change that is already there.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible.module_utils.six import binary_type, integer_types, string_types, text_type
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import MAX_DIGITS, as_text, guarded, shown, small_int


class SlurmAccountsError(Exception):
    """Input (sacctmgr output or the wanted accounts) that cannot be used."""


LIMIT_KEYS = ("GrpTRES", "GrpJobs", "GrpSubmitJobs", "MaxJobs", "MaxSubmitJobs", "MaxWall",
              "MaxTRES", "MaxTRESPerNode", "GrpTRESMins", "QOS", "DefaultQOS")
TRES_KEYS = frozenset(["GrpTRES", "MaxTRES", "MaxTRESPerNode", "GrpTRESMins"])
COUNT_KEYS = frozenset(["GrpJobs", "GrpSubmitJobs", "MaxJobs", "MaxSubmitJobs"])
_CANONICAL = dict((key.lower(), key) for key in LIMIT_KEYS)

ASSOC_FIELDS = ("Cluster", "Account", "User", "Partition", "ParentName", "Share") + LIMIT_KEYS
ACCOUNT_FIELDS = ("Account", "Description", "Organization")
USER_FIELDS = ("User", "DefaultAccount")

ACCOUNT_KEYS = ("name", "description", "organization", "parent", "fairshare", "users", "limits")
USER_KEYS = ("name", "fairshare", "limits")

ROOT = "root"
# Slurm stores names in columns of 255 bytes: a longer one is garbage (and is never quoted whole in a message).
_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,199}\Z")
_DIGITS = re.compile(r"^[0-9]+\Z")
_BAD_TEXT = re.compile(r"[|'\"\r\n]")
_PLAIN = re.compile(r"^[A-Za-z0-9_./=,:+-]+\Z")
_UNITS = {"": 1024, "K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3, "P": 1024 ** 4}
_NOTHING = ("Nothing modified", "Nothing new added", "Nothing deleted")


def _s(value):
    """Text of a value; Python 2's str() fails on non-ASCII unicode."""
    return value if isinstance(value, string_types) else str(value)


def ascii_lower(text):
    """Lower case as sacctmgr's tolower() under LC_ALL=C: ASCII letters only."""
    return re.sub(r"[A-Z]+", lambda match: match.group(0).lower(), text)


def _q(value):
    """A value for a message: strings in single quotes, without Python 2's u prefix."""
    if isinstance(value, string_types):
        # One line, however hostile the value: control characters escaped, long values cut.
        text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in value[:200])
        return "'%s'" % (text + ("..." if len(value) > 200 else ""))
    if isinstance(value, bool) or value is None or isinstance(value, integer_types):
        return shown(value)  # str() refuses an int past 4,300 digits
    return "a %s" % type(value).__name__


def _quoted(text, limit=200):
    """text in double quotes, JSON-escaped, cut to limit characters (then '...')."""
    return json.dumps(text if len(text) <= limit else text[:limit] + "...")


def show_commands(cluster):
    """The three read-only sacctmgr calls (argv without the binary), as (name, argv, fields)."""
    return [
        ("associations", ["--noheader", "--parsable2", "show", "associations", "cluster=%s" % cluster,
                          "WOPLimits", "format=%s" % ",".join(ASSOC_FIELDS)], ASSOC_FIELDS),
        ("accounts", ["--noheader", "--parsable2", "show", "account",
                      "format=%s" % ",".join(ACCOUNT_FIELDS)], ACCOUNT_FIELDS),
        ("users", ["--noheader", "--parsable2", "show", "user", "cluster=%s" % cluster,
                   "format=%s" % ",".join(USER_FIELDS)], USER_FIELDS),
    ]


def nothing_to_do(stdout, stderr):
    """True when sacctmgr failed only because the change was already there."""
    text = "%s\n%s" % (stdout or "", stderr or "")
    return any(marker in text for marker in _NOTHING)


# --------------------------------------------------------------------------- parsing

def parse_parsable(text, fields):
    """Rows of ``sacctmgr --noheader --parsable2`` output as dicts keyed by the lower-case field names.

    Empty lines are skipped; a line with another number of ``|``-separated values raises. Bytes that
    are not UTF-8 (and the lone surrogates that stand for them) are read as U+FFFD.
    """
    if not isinstance(text, (binary_type, text_type) + string_types):
        raise SlurmAccountsError("sacctmgr output must be text, not %s" % _q(text))
    text = as_text(text, "sacctmgr output", SlurmAccountsError)
    keys = [_s(field).lower() for field in fields]
    if not keys:
        raise SlurmAccountsError("no field names given for the sacctmgr output")
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        values = line.split("|")
        if len(values) != len(keys):
            raise SlurmAccountsError(
                "sacctmgr output line %d has %d field(s) where %d (%s) were expected: %s"
                % (number, len(values), len(keys), "|".join(fields), _quoted(line)))
        rows.append(dict(zip(keys, values)))
    return rows


def _field(row, *names):
    for name in names:
        value = row.get(name)
        if value is not None:
            if not isinstance(value, string_types):
                raise SlurmAccountsError("field %s must be text, not %s" % (name, _q(value)))
            return value.strip()
    return ""


def _rows(rows, what):
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise SlurmAccountsError("the %s rows must be a list of dicts (parse_parsable output)" % what)
    return rows


def _share(text, where):
    if text == "":
        return None
    if text.lower() == "parent":
        return "parent"
    if _DIGITS.match(text):
        return small_int(text, "%s: Share" % where, SlurmAccountsError)
    raise SlurmAccountsError("%s: Share %s is neither a number nor 'parent'" % (where, _quoted(text)))


def _row_limits(row):
    limits = {}
    for key in LIMIT_KEYS:
        value = _field(row, key.lower())
        if value != "":
            limits[key] = value
    return limits


def current_state(assoc_rows, account_rows, user_rows):
    """The cluster's associations as {"accounts", "users", "account_records"}.

    ``assoc_rows`` come from ``show associations cluster=C WOPLimits format=ASSOC_FIELDS``: rows
    without a User are account associations, the others user associations. Rows with a
    Partition are partition-specific associations, which this module leaves alone and skips.
    ``account_rows`` (``show account``) give descriptions and organizations (of every account
    in the database, also those not on this cluster: ``account_records``); ``user_rows``
    (``show user cluster=C``) the default accounts.
    """
    records = {}
    for number, row in enumerate(_rows(account_rows, "account"), 1):
        name = _field(row, "account")
        if not name:
            raise SlurmAccountsError("account row %d has no account name" % number)
        records[name] = {"description": _field(row, "description", "descr"),
                         "organization": _field(row, "organization", "org")}
    accounts = {}
    users = {}
    for number, row in enumerate(_rows(assoc_rows, "association"), 1):
        account = _field(row, "account")
        user = _field(row, "user")
        where = "association row %d (%s)" % (number, "%s@%s" % (user, account) if user else account)
        if not account:
            raise SlurmAccountsError("association row %d has no account" % number)
        if _field(row, "partition"):
            continue
        share = _share(_field(row, "share", "fairshare"), where)
        limits = _row_limits(row)
        if not user:
            if account in accounts:
                raise SlurmAccountsError("%s: account %s is listed twice; was the list filtered to one cluster?"
                                         % (where, account))
            record = records.get(account, {})
            accounts[account] = {"description": record.get("description", ""),
                                 "organization": record.get("organization", ""),
                                 "parent": _field(row, "parentname") or None,
                                 "fairshare": share, "limits": limits}
        else:
            entry = users.setdefault(user, {"default_account": None, "accounts": {}})
            if account in entry["accounts"]:
                raise SlurmAccountsError("%s: listed twice; was the list filtered to one cluster?" % where)
            entry["accounts"][account] = {"fairshare": share, "limits": limits}
    for number, row in enumerate(_rows(user_rows, "user"), 1):
        name = _field(row, "user")
        if not name:
            raise SlurmAccountsError("user row %d has no user name" % number)
        if name in users:
            users[name]["default_account"] = _field(row, "defaultaccount", "def acct") or None
    return {"accounts": accounts, "users": users, "account_records": records}


# --------------------------------------------------------------------------- wanted state

def _fairshare(value, what):
    if isinstance(value, integer_types) and not isinstance(value, bool) and 0 < value < 10 ** MAX_DIGITS:
        return int(value)
    if isinstance(value, string_types):
        text = value.strip()
        if text.lower() == "parent":
            return "parent"
        if _DIGITS.match(text) and len(text) <= MAX_DIGITS and int(text) > 0:
            return int(text)
    raise SlurmAccountsError("%s must be a positive integer or 'parent', not %s; write for example fairshare: 10"
                             % (what, _q(value)))


def _limits(value, owner):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SlurmAccountsError("%s: limits must be a dict such as {GrpTRES: gres/gpu=8, MaxJobs: 10}, not %s"
                                 % (owner, _q(value)))
    result = {}
    for key in sorted(value, key=_s):
        canonical = _CANONICAL.get(key.lower()) if isinstance(key, string_types) else None
        if canonical is None:
            raise SlurmAccountsError("%s: unknown limit %s; use one of %s" % (owner, _q(key), ", ".join(LIMIT_KEYS)))
        if canonical in result:
            raise SlurmAccountsError("%s: limit %s is given twice (names are compared without case); keep one"
                                     % (owner, canonical))
        item = value[key]
        if item is None:
            item = ""
        if (isinstance(item, bool) or not isinstance(item, string_types + integer_types)
                or (isinstance(item, integer_types) and abs(item) >= 10 ** MAX_DIGITS)):
            raise SlurmAccountsError("%s: limit %s must be a string or an integer, not %s" % (owner, canonical, _q(item)))
        item = _s(item).strip()
        if re.search(r"\s|\|", item):
            raise SlurmAccountsError("%s: limit %s=%s holds a space or '|'; write it as sacctmgr takes it, e.g. "
                                     "cpu=64,gres/gpu=8" % (owner, canonical, _q(item)[1:-1]))
        result[canonical] = item
    return result


def _name(value, what):
    if not isinstance(value, string_types) or not _NAME.match(value):
        raise SlurmAccountsError("%s %s: a name may only hold letters, digits, '_', '.' and '-' and may not start "
                                 "with '-'; rename it" % (what, _q(value)))
    return value


def _text(account, key, value, default):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, string_types + integer_types):
        raise SlurmAccountsError("account '%s': %s must be a string, not %s" % (account, key, _q(value)))
    value = _s(value).strip()
    if not value or _BAD_TEXT.search(value):
        raise SlurmAccountsError("account '%s': %s must be non-empty and hold no '|', quotes or line breaks "
                                 "(sacctmgr cannot store them); change it" % (account, key))
    return ascii_lower(value)


def _users(account, value):
    if value is None:
        return []
    if not isinstance(value, list):
        raise SlurmAccountsError("account '%s': users must be a list of user names or of dicts with name and "
                                 "fairshare, not %s" % (account, _q(value)))
    result = []
    seen = set()
    for index, item in enumerate(value):
        if isinstance(item, dict):
            unknown = sorted(_s(k) for k in item if k not in USER_KEYS)
            if unknown:
                raise SlurmAccountsError("account '%s': user entry %d has unknown key(s) %s; the keys are %s"
                                         % (account, index, ", ".join(unknown), ", ".join(USER_KEYS)))
            name = item.get("name")
            if name is None or name == "":
                raise SlurmAccountsError("account '%s': user entry %d has no name; give each user dict a name"
                                         % (account, index))
            name = _name(name, "account '%s': user" % account)
            fairshare = item.get("fairshare")
            if fairshare is not None:
                fairshare = _fairshare(fairshare, "account '%s': fairshare of user '%s'" % (account, name))
            limits = _limits(item.get("limits"), "account '%s', user '%s'" % (account, name))
        else:
            name = _name(item, "account '%s': user" % account)
            fairshare, limits = None, {}
        if name in seen:
            raise SlurmAccountsError("account '%s': user '%s' is listed twice; list each user once per account"
                                     % (account, name))
        seen.add(name)
        result.append((name, {"fairshare": fairshare, "limits": limits}))
    return result


def normalize_desired(accounts):
    """Validate the ``accounts`` option and return the wanted state.

    Returns {"accounts": {name: {description, organization, parent, fairshare, limits}},
    "order": [names in list order], "users": {user: {"default_account", "accounts": {account:
    {"fairshare", "limits"}}}}}. A user's default account is the first account listing them.
    """
    if not isinstance(accounts, list):
        raise SlurmAccountsError("accounts must be a list of dicts, not %s" % _q(accounts))
    wanted = {}
    order = []
    users = {}
    for index, item in enumerate(accounts):
        if not isinstance(item, dict):
            raise SlurmAccountsError("accounts[%d] must be a dict with at least a name, not %s" % (index, _q(item)))
        raw = item.get("name")
        if raw is None or raw == "":
            raise SlurmAccountsError("accounts[%d] has no name; give every account a name" % index)
        name = _name(raw, "account").lower()
        unknown = sorted(_s(k) for k in item if k not in ACCOUNT_KEYS)
        if unknown:
            raise SlurmAccountsError("account '%s': unknown key(s) %s; the keys are %s"
                                     % (name, ", ".join(unknown), ", ".join(ACCOUNT_KEYS)))
        if name == ROOT:
            raise SlurmAccountsError("account 'root': the root account exists on every cluster and is not managed "
                                     "here; remove it from the list (top-level accounts take parent: root)")
        if name in wanted:
            raise SlurmAccountsError("account '%s' is listed twice (Slurm stores names in lower case); merge the "
                                     "two entries" % name)
        parent = item.get("parent")
        parent = ROOT if parent is None or parent == "" else _name(parent, "account '%s': parent" % name).lower()
        fairshare = item.get("fairshare")
        fairshare = 1 if fairshare is None else _fairshare(fairshare, "account '%s': fairshare" % name)
        wanted[name] = {"description": _text(name, "description", item.get("description"), name),
                        "organization": _text(name, "organization", item.get("organization"), name),
                        "parent": parent, "fairshare": fairshare,
                        "limits": _limits(item.get("limits"), "account '%s'" % name)}
        order.append(name)
        for user, association in _users(name, item.get("users")):
            entry = users.setdefault(user, {"default_account": name, "accounts": {}})
            entry["accounts"][name] = association
    for name in order:
        parent = wanted[name]["parent"]
        if parent != ROOT and parent not in wanted:
            raise SlurmAccountsError("account '%s': parent '%s' is neither root nor another listed account; add '%s' "
                                     "to the list or set parent: root" % (name, parent, parent))
    for name in order:
        path = [name]
        parent = wanted[name]["parent"]
        while parent != ROOT:
            if parent in path:
                cycle = path[path.index(parent):] + [parent]
                raise SlurmAccountsError("account '%s': its parents form a cycle (%s); give one of them parent: root"
                                         % (cycle[0], " -> ".join(cycle)))
            path.append(parent)
            parent = wanted[parent]["parent"]
    return {"accounts": wanted, "order": order, "users": users}


# --------------------------------------------------------------------------- comparing limits

def _unset(value):
    return value is None or _s(value).strip() in ("", "-1")


def _tres_amount(name, amount):
    amount = amount.strip()
    if name == "mem":
        match = re.match(r"^([0-9]{1,%d})([KMGTP]?)\Z" % MAX_DIGITS, amount.upper())
        if match:
            return int(match.group(1)) * _UNITS[match.group(2)]
    return amount.lower()


def _tres(value):
    """[(name as written, lower name, amount)] of a TRES list, without the -1 (cleared) ones; None if unreadable."""
    pairs = []
    for part in _s(value).split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, amount = part.partition("=")
        if not sep or not name.strip():
            return None
        if amount.strip() == "-1":
            continue
        pairs.append((name.strip(), name.strip().lower(), amount.strip()))
    return pairs


def _tres_map(value):
    pairs = _tres(value)
    if pairs is None:
        return None
    return dict((lower, _tres_amount(lower, amount)) for _name_, lower, amount in pairs)


def wall_minutes(value):
    """Minutes of a Slurm time limit (min, min:sec, hr:min:sec, days-hr[:min[:sec]]); None if unreadable."""
    text = _s(value).strip()
    match = re.match(r"^(?:([0-9]{1,N})-)?([0-9]{1,N})(?::([0-9]{1,N}))?(?::([0-9]{1,N}))?\Z".replace("N", str(MAX_DIGITS)),
                     text)
    if not match:
        return None
    days, first, second, third = match.groups()
    if days is not None:
        hours, minutes, seconds = int(first), int(second or 0), int(third or 0)
        total = int(days) * 86400 + hours * 3600 + minutes * 60 + seconds
    elif third is not None:
        total = int(first) * 3600 + int(second) * 60 + int(third)
    else:
        total = int(first) * 60 + int(second or 0)
    return (total + 59) // 60


def _comparable(key, value):
    text = _s(value).strip()
    if key in TRES_KEYS:
        result = _tres_map(text)
        return ("raw", text.lower()) if result is None else result
    if key == "MaxWall":
        if text.lower() in ("unlimited", "infinite"):
            return None
        minutes = wall_minutes(text)
        return ("raw", text.lower()) if minutes is None else minutes
    if key == "QOS":
        return frozenset(part.strip().lower() for part in text.split(",") if part.strip())
    if key in COUNT_KEYS and _DIGITS.match(text) and len(text) <= MAX_DIGITS:
        return int(text)
    return text.lower()


def _is_unset(key, value):
    return _unset(value) or (key in TRES_KEYS and _tres(value) == [])


def limit_differs(key, have, want):
    """Whether the limit ``key`` set to ``have`` (as printed) differs from ``want`` (as given)."""
    if _is_unset(key, want):
        return not _is_unset(key, have)
    if _is_unset(key, have):
        return True
    return _comparable(key, have) != _comparable(key, want)


def limit_args(have, want, adding=False):
    """``Key=value`` arguments that turn the limits ``have`` into ``want`` for the keys ``want`` names.

    With ``adding`` (a new association) nothing needs clearing and only set values are given.
    """
    args = []
    for key in LIMIT_KEYS:
        if key not in want:
            continue
        value = want[key]
        current = "" if adding else have.get(key, "")
        if not limit_differs(key, current, value):
            continue
        if key in TRES_KEYS:
            want_pairs = _tres(value) or []
            if _tres(value) is None:
                args.append("%s=%s" % (key, value))
                continue
            wanted = set(lower for _n, lower, _a in want_pairs)
            parts = ["%s=%s" % (name, amount) for name, _l, amount in want_pairs]
            for name, lower, _a in sorted(_tres(current) or [], key=lambda p: p[1]):
                if lower not in wanted:
                    parts.append("%s=-1" % name)
            if parts:
                args.append("%s=%s" % (key, ",".join(parts)))
        elif _is_unset(key, value):
            if not adding:
                args.append("%s=%s" % (key, "" if key == "QOS" else "-1"))
        else:
            args.append("%s=%s" % (key, value))
    return args


def merged_limits(have, want):
    """The limits after applying ``want`` to ``have`` (the display form used for the diff)."""
    result = dict(have)
    for key, value in want.items():
        if key in TRES_KEYS and _tres(value) is not None:
            value = ",".join("%s=%s" % (name, amount) for name, _l, amount in _tres(value))
        if _is_unset(key, value):
            result.pop(key, None)
        elif limit_differs(key, have.get(key, ""), value):
            result[key] = value
    return result


# --------------------------------------------------------------------------- planning

def _topological(desired):
    order, placed = [], set([ROOT])
    pending = list(desired["order"])
    while pending:
        rest = []
        for name in pending:
            if desired["accounts"][name]["parent"] in placed:
                order.append(name)
                placed.add(name)
            else:
                rest.append(name)
        if len(rest) == len(pending):
            raise SlurmAccountsError("the parents of %s form a cycle; give one of them parent: root" % ", ".join(rest))
        pending = rest
    return order


def _depth(accounts, name):
    depth, seen = 0, set()
    while name in accounts and accounts[name].get("parent") and name not in seen:
        seen.add(name)
        name = accounts[name]["parent"]
        depth += 1
    return depth


def _fs(value):
    return _s(value)


def _user_default_after_adds(current_user, wanted_user, user):
    """The default account a user has once the missing associations are added."""
    default = current_user["default_account"] if current_user else None
    have = current_user["accounts"] if current_user else {}
    if user != ROOT and wanted_user["default_account"] not in have:
        return wanted_user["default_account"]
    return default


def unmanaged(current, desired):
    """Accounts and user associations on the cluster that the list does not name (root excluded)."""
    accounts = sorted(name for name in current["accounts"] if name != ROOT and name not in desired["accounts"])
    users = []
    for user in sorted(current["users"]):
        for account in sorted(current["users"][user]["accounts"]):
            if user == ROOT and account == ROOT:
                continue
            wanted = desired["users"].get(user)
            if wanted is None or account not in wanted["accounts"]:
                users.append("%s@%s" % (user, account))
    return {"accounts": accounts, "users": users}


def check_cluster(cluster):
    if not isinstance(cluster, string_types) or not _NAME.match(cluster):
        raise SlurmAccountsError("cluster %s: a cluster name may only hold letters, digits, '_', '.' and '-'; use "
                                 "the ClusterName of slurm.conf" % _q(cluster))
    return cluster.lower()


def plan(current, desired, cluster, prune=False):
    """The sacctmgr argv lists (without the binary) that make ``current`` match ``desired``.

    Order: add accounts (parents first); modify accounts (description/organization, parent,
    fairshare and limits; parents first); add users (the default account first); modify user
    associations; set default accounts; with ``prune``, remove user associations (a user's
    default last) and then accounts (children first). root and root@root are never touched.
    Returns {"commands": [...], "unmanaged": {"accounts": [...], "users": ["user@account"]}}.
    """
    cluster = check_cluster(cluster)
    have_accounts = current.get("accounts", {})
    have_users = current.get("users", {})
    records = current.get("account_records", {})
    topo = _topological(desired)
    commands = []

    for name in topo:
        if name in have_accounts:
            continue
        want = desired["accounts"][name]
        commands.append(["-i", "add", "account", name, "Cluster=%s" % cluster,
                         "Description=%s" % want["description"], "Organization=%s" % want["organization"],
                         "Parent=%s" % want["parent"], "Fairshare=%s" % _fs(want["fairshare"])]
                        + limit_args({}, want["limits"], adding=True))

    for name in topo:
        want = desired["accounts"][name]
        have = have_accounts.get(name)
        if have is not None:
            text = (have["description"], have["organization"])
        elif name in records:
            text = (records[name]["description"], records[name]["organization"])
        else:
            text = (want["description"], want["organization"])
        sets = []
        if ascii_lower(text[0]) != want["description"]:
            sets.append("Description=%s" % want["description"])
        if ascii_lower(text[1]) != want["organization"]:
            sets.append("Organization=%s" % want["organization"])
        if sets:
            commands.append(["-i", "modify", "account", "where", "name=%s" % name, "set"] + sets)
        if have is None:
            continue
        if have.get("parent") != want["parent"]:
            commands.append(["-i", "modify", "account", "where", "name=%s" % name, "cluster=%s" % cluster,
                             "set", "Parent=%s" % want["parent"]])
        sets = []
        if have.get("fairshare") != want["fairshare"]:
            sets.append("Fairshare=%s" % _fs(want["fairshare"]))
        sets += limit_args(have.get("limits", {}), want["limits"])
        if sets:
            commands.append(["-i", "modify", "account", "where", "name=%s" % name, "cluster=%s" % cluster,
                             "set"] + sets)

    position = dict((name, index) for index, name in enumerate(desired["order"]))
    users = sorted(desired["users"])
    for user in users:
        want_user = desired["users"][user]
        have = have_users.get(user, {}).get("accounts", {})
        default = want_user["default_account"]
        missing = sorted((account for account in want_user["accounts"] if account not in have),
                         key=lambda a: (a != default, position[a]))
        for account in missing:
            association = want_user["accounts"][account]
            argv = ["-i", "add", "user", user, "Account=%s" % account, "Cluster=%s" % cluster]
            if user != ROOT:
                argv.append("DefaultAccount=%s" % default)
            if association["fairshare"] is not None:
                argv.append("Fairshare=%s" % _fs(association["fairshare"]))
            commands.append(argv + limit_args({}, association["limits"], adding=True))

    for user in users:
        want_user = desired["users"][user]
        have = have_users.get(user, {}).get("accounts", {})
        for account in sorted(want_user["accounts"], key=lambda a: position[a]):
            if account not in have:
                continue
            association = want_user["accounts"][account]
            sets = []
            if association["fairshare"] is not None and have[account].get("fairshare") != association["fairshare"]:
                sets.append("Fairshare=%s" % _fs(association["fairshare"]))
            sets += limit_args(have[account].get("limits", {}), association["limits"])
            if sets:
                commands.append(["-i", "modify", "user", "where", "name=%s" % user, "account=%s" % account,
                                 "cluster=%s" % cluster, "set"] + sets)

    defaults = {}
    for user in users:
        want_user = desired["users"][user]
        after = _user_default_after_adds(have_users.get(user), want_user, user)
        defaults[user] = after
        if user != ROOT and after != want_user["default_account"]:
            commands.append(["-i", "modify", "user", "where", "name=%s" % user, "cluster=%s" % cluster,
                             "set", "DefaultAccount=%s" % want_user["default_account"]])
            defaults[user] = want_user["default_account"]

    left = unmanaged(current, desired)
    if prune:
        removals = []
        for entry in left["users"]:
            user, account = entry.split("@", 1)
            default = defaults.get(user, have_users.get(user, {}).get("default_account"))
            removals.append((user, account == default, account))
        for user, _last, account in sorted(removals):
            commands.append(["-i", "remove", "user", "where", "name=%s" % user, "account=%s" % account,
                             "cluster=%s" % cluster])
        for name in sorted(left["accounts"], key=lambda n: (-_depth(have_accounts, n), n)):
            commands.append(["-i", "remove", "account", "where", "name=%s" % name, "cluster=%s" % cluster])
    return {"commands": commands, "unmanaged": left}


# --------------------------------------------------------------------------- expected state and diff

def expected_state(current, desired, prune=False):
    """The state the plan leads to (what ``current_state`` would read afterwards)."""
    accounts = {}
    for name, have in current.get("accounts", {}).items():
        if prune and name != ROOT and name not in desired["accounts"]:
            continue
        accounts[name] = {"description": have["description"], "organization": have["organization"],
                          "parent": have.get("parent"), "fairshare": have.get("fairshare"),
                          "limits": dict(have.get("limits", {}))}
    for name, want in desired["accounts"].items():
        have = accounts.get(name)
        limits = merged_limits(have["limits"] if have else {}, want["limits"])
        accounts[name] = {"description": want["description"], "organization": want["organization"],
                          "parent": want["parent"], "fairshare": want["fairshare"], "limits": limits}
    users = {}
    for user, have in current.get("users", {}).items():
        kept = {}
        for account, association in have["accounts"].items():
            wanted = desired["users"].get(user)
            if prune and not (user == ROOT and account == ROOT) and (wanted is None or account not in wanted["accounts"]):
                continue
            kept[account] = {"fairshare": association.get("fairshare"), "limits": dict(association.get("limits", {}))}
        if kept:
            users[user] = {"default_account": have.get("default_account"), "accounts": kept}
    for user, want in desired["users"].items():
        entry = users.setdefault(user, {"default_account": None, "accounts": {}})
        for account, association in want["accounts"].items():
            have = entry["accounts"].get(account)
            fairshare = association["fairshare"]
            if fairshare is None:
                fairshare = have["fairshare"] if have else 1
            limits = merged_limits(have["limits"] if have else {}, association["limits"])
            entry["accounts"][account] = {"fairshare": fairshare, "limits": limits}
        if user != ROOT:
            entry["default_account"] = want["default_account"]
    return {"accounts": accounts, "users": users}


def _scalar(value):
    if value is None:
        return "null"
    text = _s(value)
    return text if _PLAIN.match(text) else json.dumps(text, ensure_ascii=False)


def render(state, accounts, users):
    """YAML-like text of the named accounts and users of a state, for the diff."""
    lines = ["accounts:"]
    for name in sorted(accounts):
        account = state["accounts"].get(name)
        if account is None:
            continue
        lines.append("  %s:" % _scalar(name))
        for key in ("description", "organization", "parent", "fairshare"):
            lines.append("    %s: %s" % (key, _scalar(account.get(key))))
        if account.get("limits"):
            lines.append("    limits:")
            for key in sorted(account["limits"]):
                lines.append("      %s: %s" % (key, _scalar(account["limits"][key])))
    lines.append("users:")
    for user in sorted(users):
        entry = state["users"].get(user)
        if entry is None:
            continue
        lines.append("  %s:" % _scalar(user))
        lines.append("    default_account: %s" % _scalar(entry.get("default_account")))
        lines.append("    accounts:")
        for account in sorted(entry["accounts"]):
            association = entry["accounts"][account]
            lines.append("      %s:" % _scalar(account))
            lines.append("        fairshare: %s" % _scalar(association.get("fairshare")))
            if association.get("limits"):
                lines.append("        limits:")
                for key in sorted(association["limits"]):
                    lines.append("          %s: %s" % (key, _scalar(association["limits"][key])))
    return "\n".join(lines) + "\n"


def diff(current, desired, prune=False):
    """{"before", "after"} texts of the part of the cluster the module manages."""
    left = unmanaged(current, desired)
    accounts = set(desired["accounts"])
    users = set(desired["users"])
    if prune:
        accounts.update(left["accounts"])
        users.update(entry.split("@", 1)[0] for entry in left["users"])
    after = expected_state(current, desired, prune)
    return {"before": render(current, accounts, users), "after": render(after, accounts, users)}


# No error of Python's own leaves a parser: anything no rule foresaw becomes SlurmAccountsError.
parse_parsable = guarded(SlurmAccountsError, 'sacctmgr output')(parse_parsable)
current_state = guarded(SlurmAccountsError, 'sacctmgr output')(current_state)
normalize_desired = guarded(SlurmAccountsError, 'accounts')(normalize_desired)
plan = guarded(SlurmAccountsError, 'sacctmgr plan')(plan)
diff = guarded(SlurmAccountsError, 'sacctmgr diff')(diff)
