# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""slurm_accounts planning: parsers (real sacctmgr captures, see tests/fixtures/SACCTMGR_SOURCES.md),
validation messages, plans for the usual changes, and idempotence through a small sacctmgr simulator.

Everything except the two fixture files is HAND-WRITTEN data (no capture of the module's own
``show`` calls was found); the expected commands were written by hand from the sacctmgr
syntax in sacctmgr(1)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_accounts import (
    ACCOUNT_FIELDS,
    ASSOC_FIELDS,
    LIMIT_KEYS,
    ROOT,
    TRES_KEYS,
    USER_FIELDS,
    SlurmAccountsError,
    current_state,
    diff,
    expected_state,
    limit_differs,
    normalize_desired,
    parse_parsable,
    plan,
    show_commands,
    wall_minutes,
)

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "sacctmgr"))
OOD_NP = os.path.join(FIXTURES, "ood_core_show-users-withassoc_nP_account-cluster-partition-qos.txt")
SAVIO_P = os.path.join(FIXTURES, "savio_brc_show-assoc_p_with-header.txt")
SAVIO_FIELDS = ["Cluster", "Account", "User", "Partition", "Share", "GrpJobs", "GrpTRES", "GrpSubmit", "GrpWall",
                "GrpTRESMins", "MaxJobs", "MaxTRES", "MaxTRESPerNode", "MaxSubmit", "MaxWall", "MaxTRESMins", "QOS",
                "Def QOS", "GrpTRESRunMins"]
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read(path):
    with open(path) as handle:
        return handle.read()


# =========================================================================== a sacctmgr simulator
# Models the sacctmgr/slurmdbd behaviour the plan relies on (see the module_utils docstring);
# stricter than Slurm where a plan would be wrong (removing an account that still has children
# or users, a parent that would make a cycle). A command that changes nothing fails like
# sacctmgr's "Nothing modified" (exit 1).

class SacctmgrError(Exception):
    pass


def _fmt_wall(minutes):
    days, rest = divmod(minutes, 1440)
    text = "%02d:%02d:00" % divmod(rest, 60)
    return "%d-%s" % (days, text) if days else text


def _apply_limits(limits, settings_):
    before = dict(limits)
    for item in settings_:
        key, _sep, value = item.partition("=")
        canonical = dict((k.lower(), k) for k in LIMIT_KEYS).get(key.lower())
        assert canonical, "not a limit: %s" % item
        if canonical in TRES_KEYS:
            pairs = dict(p.split("=", 1) for p in limits.get(canonical, "").split(",") if p)
            for part in value.split(","):
                name, _s, amount = part.partition("=")
                if amount == "-1":
                    pairs.pop(name, None)
                else:
                    pairs[name] = amount
            if pairs:
                limits[canonical] = ",".join("%s=%s" % kv for kv in sorted(pairs.items()))
            else:
                limits.pop(canonical, None)
        elif value in ("-1", "") or (canonical == "QOS" and value == ""):
            limits.pop(canonical, None)
        elif canonical == "MaxWall":
            limits[canonical] = _fmt_wall(wall_minutes(value))  # sacctmgr prints [d-]hh:mm:ss
        else:
            limits[canonical] = value
    return limits != before


def _share(value):
    return "parent" if value.lower() == "parent" else int(value)


def _split(argv):
    """(verb, entity, positional, where {k: v}, set [k=v, ...]) of one planned argv."""
    assert argv[0] == "-i", argv
    verb, entity, rest = argv[1], argv[2], argv[3:]
    positional, where, sets, mode = [], {}, [], "where"
    for token in rest:
        if token == "where":
            continue
        if token == "set":
            mode = "set"
            continue
        if "=" not in token:
            positional.append(token)
        elif mode == "set" or verb == "add":
            sets.append(token)
        else:
            key, _s, value = token.partition("=")
            where[key.lower()] = value
    return verb, entity, positional, where, sets


def _take(sets, key):
    for item in list(sets):
        if item.split("=", 1)[0].lower() == key.lower():
            sets.remove(item)
            return item.split("=", 1)[1]
    return None


def simulate(state, commands, cluster="lab"):
    state = copy.deepcopy(state)
    accounts, users = state["accounts"], state["users"]
    records = state.setdefault("account_records", {})
    for argv in commands:
        verb, entity, positional, where, sets = _split(argv)
        if "cluster" in where:
            assert where["cluster"] == cluster
        if verb == "add" and entity == "account":
            (name,) = positional
            assert _take(sets, "Cluster") == cluster
            if name in accounts:
                raise SacctmgrError("Nothing new added: %s" % name)
            parent = _take(sets, "Parent")
            if parent not in accounts:
                raise SacctmgrError("parent %s does not exist" % parent)
            desc, org = _take(sets, "Description"), _take(sets, "Organization")
            if name not in records:  # an existing account record keeps its description
                records[name] = {"description": desc.lower(), "organization": org.lower()}
            entry = {"description": records[name]["description"], "organization": records[name]["organization"],
                     "parent": parent, "fairshare": _share(_take(sets, "Fairshare") or "1"), "limits": {}}
            _apply_limits(entry["limits"], sets)
            accounts[name] = entry
        elif verb == "modify" and entity == "account":
            name = where["name"]
            if "cluster" not in where:  # account record: description, organization
                record = records[name]
                before = dict(record)
                for key in ("Description", "Organization"):
                    value = _take(sets, key)
                    if value is not None:
                        record[key.lower()] = value.lower()
                assert not sets, sets
                if record == before:
                    raise SacctmgrError("Nothing modified")
                if name in accounts:
                    accounts[name].update(record)
                continue
            entry = accounts[name]
            parent = _take(sets, "Parent")
            changed = False
            if parent is not None:
                assert not sets, "parent is moved on its own"
                probe = parent
                while probe:
                    if probe == name:
                        raise SacctmgrError("parent %s is below %s" % (parent, name))
                    probe = accounts[probe]["parent"]
                changed = parent != entry["parent"]
                entry["parent"] = parent
            share = _take(sets, "Fairshare")
            if share is not None:
                changed = changed or _share(share) != entry["fairshare"]
                entry["fairshare"] = _share(share)
            changed = _apply_limits(entry["limits"], sets) or changed
            if not changed:
                raise SacctmgrError("Nothing modified")
        elif verb == "add" and entity == "user":
            (name,) = positional
            account = _take(sets, "Account")
            assert _take(sets, "Cluster") == cluster
            default = _take(sets, "DefaultAccount")
            share = _take(sets, "Fairshare")
            user = users.get(name)
            created = []
            for acct in [account] + ([default] if default and default != account else []):
                if acct not in accounts:
                    raise SacctmgrError("account %s does not exist on %s" % (acct, cluster))
                if user and acct in user["accounts"]:
                    continue
                if user is None:
                    user = users[name] = {"default_account": None, "accounts": {}}
                limits = {}
                _apply_limits(limits, sets)
                user["accounts"][acct] = {"fairshare": _share(share) if share else 1, "limits": limits}
                created.append(acct)
            if not created:
                raise SacctmgrError("Nothing new added")
            if default in created:
                user["default_account"] = default
            elif user["default_account"] is None:
                user["default_account"] = created[0]
        elif verb == "modify" and entity == "user":
            user = users[where["name"]]
            if "account" not in where:
                default = _take(sets, "DefaultAccount")
                assert not sets and default in user["accounts"]
                if user["default_account"] == default:
                    raise SacctmgrError("Nothing modified")
                user["default_account"] = default
                continue
            association = user["accounts"][where["account"]]
            share = _take(sets, "Fairshare")
            changed = False
            if share is not None:
                changed = _share(share) != association["fairshare"]
                association["fairshare"] = _share(share)
            changed = _apply_limits(association["limits"], sets) or changed
            if not changed:
                raise SacctmgrError("Nothing modified")
        elif verb == "remove" and entity == "user":
            name, account = where["name"], where["account"]
            user = users[name]
            if account not in user["accounts"]:
                raise SacctmgrError("Nothing deleted")
            if user["default_account"] == account and len(user["accounts"]) > 1:
                raise SacctmgrError("You can not remove the default account of a user")
            del user["accounts"][account]
            if not user["accounts"]:
                del users[name]
        elif verb == "remove" and entity == "account":
            name = where["name"]
            assert name != ROOT
            if any(a["parent"] == name for a in accounts.values()):
                raise SacctmgrError("%s still has sub-accounts" % name)
            if any(name in u["accounts"] for u in users.values()):
                raise SacctmgrError("%s still has users" % name)
            del accounts[name]
        else:
            raise AssertionError("unexpected command %r" % (argv,))
    return state


def render_outputs(state, cluster="lab"):
    """The three --noheader --parsable2 outputs sacctmgr would print for a state."""
    assoc = []
    for name in sorted(state["accounts"]):
        entry = state["accounts"][name]
        values = [cluster, name, "", "", entry["parent"] or "", str(entry["fairshare"])]
        assoc.append("|".join(values + [entry["limits"].get(k, "") for k in LIMIT_KEYS]))
    for user in sorted(state["users"]):
        for account in sorted(state["users"][user]["accounts"]):
            entry = state["users"][user]["accounts"][account]
            values = [cluster, account, user, "", "", str(entry["fairshare"])]
            assoc.append("|".join(values + [entry["limits"].get(k, "") for k in LIMIT_KEYS]))
    records = state.get("account_records") or dict(
        (n, {"description": a["description"], "organization": a["organization"]}) for n, a in state["accounts"].items())
    account_lines = ["%s|%s|%s" % (n, r["description"], r["organization"]) for n, r in sorted(records.items())]
    user_lines = ["%s|%s" % (u, e["default_account"] or "") for u, e in sorted(state["users"].items())]
    return {"associations": "\n".join(assoc) + "\n", "accounts": "\n".join(account_lines) + "\n",
            "users": "\n".join(user_lines) + "\n"}


def reread(state, cluster="lab"):
    """current_state of what sacctmgr would print for ``state`` (round trip through the parsers)."""
    text = render_outputs(state, cluster)
    return current_state(parse_parsable(text["associations"], ASSOC_FIELDS),
                         parse_parsable(text["accounts"], ACCOUNT_FIELDS),
                         parse_parsable(text["users"], USER_FIELDS))


# =========================================================================== hand-written states

def fresh_cluster():
    """HAND-WRITTEN: what a cluster holds right after `sacctmgr add cluster lab`."""
    return {"accounts": {ROOT: {"description": "default root account", "organization": "root", "parent": None,
                                "fairshare": 1, "limits": {"QOS": "normal"}}},
            "users": {ROOT: {"default_account": ROOT, "accounts": {ROOT: {"fairshare": 1, "limits": {}}}}},
            "account_records": {ROOT: {"description": "default root account", "organization": "root"}}}


LAB = [  # HAND-WRITTEN inventory: two research groups, a shared sub-account
    {"name": "chem", "fairshare": 10, "limits": {"GrpTRES": "gres/gpu=8"}, "users": ["alice", "bob"]},
    {"name": "physics", "description": "Physics department", "fairshare": 20, "users": ["carol"]},
    {"name": "chem-ml", "parent": "chem", "fairshare": "parent", "users": [{"name": "bob", "fairshare": 5}]},
]


def converged(accounts=None, prune=False):
    desired = normalize_desired(copy.deepcopy(LAB if accounts is None else accounts))
    state = simulate(fresh_cluster(), plan(fresh_cluster(), desired, "lab", prune)["commands"])
    return reread(state)


# =========================================================================== parse_parsable

def test_parse_ood_core_capture():
    rows = parse_parsable(read(OOD_NP), ["Account", "Cluster", "Partition", "QOS"])
    assert len(rows) == 24
    assert rows[0] == {"account": "pzs0715", "cluster": "ascend", "partition": "partition_a", "qos": "ascend-default"}
    assert rows[2] == {"account": "pzs1124", "cluster": "owens", "partition": "",
                       "qos": "owens-default,staff,phoenix,geophys,hal,gpt"}
    assert rows[-1] == {"account": "pas1604", "cluster": "pitzer", "partition": "", "qos": "pitzer-default"}
    assert sorted(set(r["cluster"] for r in rows)) == ["ascend", "owens", "pitzer"]


def test_parse_rejects_parsable1_output_naming_line_and_text():
    # -p ends every line with '|': one field too many. The header is line 1.
    with pytest.raises(SlurmAccountsError) as info:
        parse_parsable(read(SAVIO_P), SAVIO_FIELDS)
    message = str(info.value)
    assert message.startswith("sacctmgr output line 1 has 20 field(s) where 19 (Cluster|Account|")
    assert message.endswith(': "Cluster|Account|User|Partition|Share|GrpJobs|GrpTRES|GrpSubmit|GrpWall|GrpTRESMins|'
                            'MaxJobs|MaxTRES|MaxTRESPerNode|MaxSubmit|MaxWall|MaxTRESMins|QOS|Def QOS|GrpTRESRunMins|"')
    lines = read(SAVIO_P).splitlines()
    with pytest.raises(SlurmAccountsError, match=r"^sacctmgr output line 2 has 20 field\(s\) where 19 "):
        parse_parsable("\n".join([lines[1][:-1]] + lines[2:]), SAVIO_FIELDS)


def test_savio_capture_as_parsable2_rows_and_state():
    # The same capture as --noheader --parsable2 would print it: header dropped, trailing '|' cut.
    text = "".join(line[:-1] + "\n" for line in read(SAVIO_P).splitlines()[1:])
    rows = parse_parsable(text, SAVIO_FIELDS)
    assert len(rows) == 13
    assert rows[4] == dict(zip([f.lower() for f in SAVIO_FIELDS],
                               ["brc", "co_stat", "paciorek", "savio2", "1", "", "", "", "", "", "", "", "", "", "", "",
                                "savio_lowprio,stat_normal", "stat_normal", ""]))
    # Every row is partition-specific: the module leaves those alone.
    assert current_state(rows, [], [{"user": "paciorek", "defaultaccount": "fc_paciorek"}]) == {
        "accounts": {}, "users": {}, "account_records": {}}
    # Without the partition, the same user@account shows up several times: not a one-cluster list.
    for row in rows:
        row["partition"] = ""
    with pytest.raises(SlurmAccountsError, match=r"^association row 2 \(paciorek@co_stat\): listed twice; was the "
                                                 r"list filtered to one cluster\?$"):
        current_state(rows, [], [])


@pytest.mark.parametrize("text, rows", [
    ("", []),
    ("\n\n", []),
    ("a|b\r\n", [{"x": "a", "y": "b"}]),
    ("a|\n|b", [{"x": "a", "y": ""}, {"x": "", "y": "b"}]),
    (b"caf\xc3\xa9|1\n", [{"x": u"caf\xe9", "y": "1"}]),
])
def test_parse_small(text, rows):
    assert parse_parsable(text, ["X", "Y"]) == rows


@pytest.mark.parametrize("text, message", [
    ("a|b\nc\n", 'sacctmgr output line 2 has 1 field(s) where 2 (X|Y) were expected: "c"'),
    ("a|b|c", 'sacctmgr output line 1 has 3 field(s) where 2 (X|Y) were expected: "a|b|c"'),
    (b"\xff|x|y", u'sacctmgr output line 1 has 3 field(s) where 2 (X|Y) were expected: "\\ufffd|x|y"'),
    ("%s|b\n%s" % ("a" * 300, "c" * 300),
     'sacctmgr output line 2 has 1 field(s) where 2 (X|Y) were expected: "%s..."' % ("c" * 200)),
    (None, "sacctmgr output must be text, not None"),
])
def test_parse_errors(text, message):
    with pytest.raises(SlurmAccountsError) as info:
        parse_parsable(text, ["X", "Y"])
    assert str(info.value) == message


# =========================================================================== current_state

def assoc_line(account, user="", partition="", parent="", share="", **limits):
    """One HAND-WRITTEN line in the --parsable2 layout of ASSOC_FIELDS."""
    return "|".join(["lab", account, user, partition, parent, share] + [limits.get(k, "") for k in LIMIT_KEYS])


ASSOC_TEXT = "\n".join([
    assoc_line("root", QOS="normal"),
    assoc_line("root", "root", QOS="normal"),
    assoc_line("chem", parent="root", share="10", GrpTRES="gres/gpu=8"),
    assoc_line("chem-ml", parent="chem", share="parent"),
    assoc_line("chem", "alice", share="1", MaxJobs="10", MaxWall="1-00:00:00"),
    assoc_line("chem", "bob", partition="gpu", share="1"),
]) + "\n"


def test_current_state_reads_accounts_users_defaults():
    state = current_state(parse_parsable(ASSOC_TEXT, ASSOC_FIELDS),
                          parse_parsable("root|default root account|root\nchem|chemistry|science\n"
                                         "old|old group|old\n", ACCOUNT_FIELDS),
                          parse_parsable("root|root\nalice|chem\nbob|chem\n", USER_FIELDS))
    assert state["accounts"] == {
        "root": {"description": "default root account", "organization": "root", "parent": None, "fairshare": None,
                 "limits": {"QOS": "normal"}},
        "chem": {"description": "chemistry", "organization": "science", "parent": "root", "fairshare": 10,
                 "limits": {"GrpTRES": "gres/gpu=8"}},
        "chem-ml": {"description": "", "organization": "", "parent": "chem", "fairshare": "parent", "limits": {}},
    }
    assert state["users"] == {
        "root": {"default_account": "root", "accounts": {"root": {"fairshare": None, "limits": {"QOS": "normal"}}}},
        "alice": {"default_account": "chem",
                  "accounts": {"chem": {"fairshare": 1, "limits": {"MaxJobs": "10", "MaxWall": "1-00:00:00"}}}},
    }
    assert sorted(state["account_records"]) == ["chem", "old", "root"]


@pytest.mark.parametrize("row, message", [
    ({"account": "a", "share": "lots"}, 'association row 1 (a): Share "lots" is neither a number nor \'parent\''),
    ({"account": "", "user": "x"}, "association row 1 has no account"),
    ({"account": "a", "share": 3}, "field share must be text, not 3"),
])
def test_current_state_errors(row, message):
    with pytest.raises(SlurmAccountsError) as info:
        current_state([row], [], [])
    assert str(info.value) == message


def test_current_state_rejects_non_rows():
    with pytest.raises(SlurmAccountsError, match="the association rows must be a list of dicts"):
        current_state("lab|root", [], [])


def test_show_commands():
    assert show_commands("lab") == [
        ("associations", ["--noheader", "--parsable2", "show", "associations", "cluster=lab", "WOPLimits",
                          "format=Cluster,Account,User,Partition,ParentName,Share,GrpTRES,GrpJobs,GrpSubmitJobs,"
                          "MaxJobs,MaxSubmitJobs,MaxWall,MaxTRES,MaxTRESPerNode,GrpTRESMins,QOS,DefaultQOS"],
         ASSOC_FIELDS),
        ("accounts", ["--noheader", "--parsable2", "show", "account", "format=Account,Description,Organization"],
         ACCOUNT_FIELDS),
        ("users", ["--noheader", "--parsable2", "show", "user", "cluster=lab", "format=User,DefaultAccount"],
         USER_FIELDS),
    ]


# =========================================================================== normalize_desired

def test_normalize_defaults_and_default_account():
    desired = normalize_desired(copy.deepcopy(LAB))
    assert desired["order"] == ["chem", "physics", "chem-ml"]
    assert desired["accounts"]["chem"] == {"description": "chem", "organization": "chem", "parent": "root",
                                           "fairshare": 10, "limits": {"GrpTRES": "gres/gpu=8"}}
    assert desired["accounts"]["physics"]["description"] == "physics department"  # Slurm stores lower case
    assert desired["accounts"]["chem-ml"]["fairshare"] == "parent"
    assert desired["users"]["bob"] == {"default_account": "chem", "accounts": {
        "chem": {"fairshare": None, "limits": {}}, "chem-ml": {"fairshare": 5, "limits": {}}}}


def test_normalize_limits_case_and_values():
    desired = normalize_desired([{"name": "Bio", "limits": {"maxjobs": 10, "GRPTRES": "cpu=64", "qos": None},
                                  "users": [{"name": "dan", "limits": {"MaxWall": "2:00:00"}}]}])
    assert desired["accounts"]["bio"]["limits"] == {"MaxJobs": "10", "GrpTRES": "cpu=64", "QOS": ""}
    assert desired["users"]["dan"]["accounts"]["bio"]["limits"] == {"MaxWall": "2:00:00"}


@pytest.mark.parametrize("accounts, message", [
    ([{"fairshare": 1}], "accounts[0] has no name; give every account a name"),
    ([{"name": "chem lab"}], "account 'chem lab': a name may only hold letters, digits, '_', '.' and '-' and may "
                             "not start with '-'; rename it"),
    ([{"name": "-x"}], "account '-x': a name may only hold letters, digits, '_', '.' and '-' and may not start with "
                       "'-'; rename it"),
    ([{"name": "chem"}, {"name": "Chem"}], "account 'chem' is listed twice (Slurm stores names in lower case); "
                                           "merge the two entries"),
    ([{"name": "chem", "fairshare": 0}], "account 'chem': fairshare must be a positive integer or 'parent', not 0; "
                                         "write for example fairshare: 10"),
    ([{"name": "chem", "fairshare": "half"}], "account 'chem': fairshare must be a positive integer or 'parent', "
                                              "not 'half'; write for example fairshare: 10"),
    ([{"name": "chem", "fairshare": True}], "account 'chem': fairshare must be a positive integer or 'parent', "
                                            "not True; write for example fairshare: 10"),
    ([{"name": "chem", "limits": {"MaxNodes": 2}}],
     "account 'chem': unknown limit 'MaxNodes'; use one of GrpTRES, GrpJobs, GrpSubmitJobs, MaxJobs, MaxSubmitJobs, "
     "MaxWall, MaxTRES, MaxTRESPerNode, GrpTRESMins, QOS, DefaultQOS"),
    ([{"name": "chem", "parent": "science"}], "account 'chem': parent 'science' is neither root nor another listed "
                                              "account; add 'science' to the list or set parent: root"),
    ([{"name": "a", "parent": "b"}, {"name": "b", "parent": "c"}, {"name": "c", "parent": "b"}],
     "account 'b': its parents form a cycle (b -> c -> b); give one of them parent: root"),
    ([{"name": "a", "parent": "a"}], "account 'a': its parents form a cycle (a -> a); give one of them parent: root"),
    ([{"name": "root"}], "account 'root': the root account exists on every cluster and is not managed here; remove "
                         "it from the list (top-level accounts take parent: root)"),
    ([{"name": "ROOT"}], "account 'root': the root account exists on every cluster and is not managed here; remove "
                         "it from the list (top-level accounts take parent: root)"),
    ([{"name": "chem", "user": ["alice"]}], "account 'chem': unknown key(s) user; the keys are name, description, "
                                            "organization, parent, fairshare, users, limits"),
    ([{"name": "chem", "users": ["alice", "alice"]}], "account 'chem': user 'alice' is listed twice; list each user "
                                                      "once per account"),
    ([{"name": "chem", "users": [{"fairshare": 2}]}], "account 'chem': user entry 0 has no name; give each user dict "
                                                      "a name"),
    ([{"name": "chem", "users": [{"name": "al", "fairshare": -3}]}],
     "account 'chem': fairshare of user 'al' must be a positive integer or 'parent', not -3; write for example "
     "fairshare: 10"),
    ([{"name": "chem", "description": "it's"}], "account 'chem': description must be non-empty and hold no '|', "
                                                "quotes or line breaks (sacctmgr cannot store them); change it"),
    ([{"name": "chem", "limits": {"MaxJobs": 1, "maxjobs": 2}}], "account 'chem': limit MaxJobs is given twice "
                                                                 "(names are compared without case); keep one"),
    ([{"name": "chem", "limits": {"GrpTRES": "cpu=1, mem=2"}}],
     "account 'chem': limit GrpTRES=cpu=1, mem=2 holds a space or '|'; write it as sacctmgr takes it, e.g. "
     "cpu=64,gres/gpu=8"),
    (["chem"], "accounts[0] must be a dict with at least a name, not 'chem'"),
])
def test_normalize_errors(accounts, message):
    with pytest.raises(SlurmAccountsError) as info:
        normalize_desired(accounts)
    assert str(info.value) == message


def test_integers_past_python_s_str_limit_are_refused_with_the_rule():
    # str() refuses an int of more than 4,300 digits: such a value is the user's error, never a Python one.
    with pytest.raises(SlurmAccountsError, match="fairshare must be a positive integer or 'parent'"):
        normalize_desired([{"name": "chem", "fairshare": 10 ** 5000}])
    with pytest.raises(SlurmAccountsError, match="limit MaxJobs must be a string or an integer"):
        normalize_desired([{"name": "chem", "limits": {"MaxJobs": 10 ** 5000}}])


# =========================================================================== limits

@pytest.mark.parametrize("key, have, want, differs", [
    ("MaxWall", "1-00:00:00", "24:00:00", False),
    ("MaxWall", "02:00:00", "120", False),
    ("MaxWall", "02:00:00", "2:30:00", True),
    ("GrpTRES", "cpu=64,gres/gpu=8", "gres/gpu=8,CPU=64", False),
    ("GrpTRES", "mem=100G", "mem=102400", False),
    ("GrpTRES", "cpu=64", "cpu=64,gres/gpu=-1", False),
    ("GrpTRES", "", "gres/gpu=-1", False),
    ("QOS", "normal,high", "high,normal", False),
    ("MaxJobs", "", "-1", False),
    ("MaxJobs", "10", "", True),
    ("DefaultQOS", "Normal", "normal", False),
])
def test_limit_differs(key, have, want, differs):
    assert limit_differs(key, have, want) is differs


def test_wall_minutes():
    assert [wall_minutes(v) for v in ("30", "30:30", "1:00:00", "2-0", "2-1:30", "2-01:30:01", "x")] == [
        30, 31, 60, 2880, 2970, 2971, None]


# =========================================================================== plans

def test_fresh_cluster_plan():
    result = plan(fresh_cluster(), normalize_desired(copy.deepcopy(LAB)), "lab")
    assert result["commands"] == [
        ["-i", "add", "account", "chem", "Cluster=lab", "Description=chem", "Organization=chem", "Parent=root",
         "Fairshare=10", "GrpTRES=gres/gpu=8"],
        ["-i", "add", "account", "physics", "Cluster=lab", "Description=physics department",
         "Organization=physics", "Parent=root", "Fairshare=20"],
        ["-i", "add", "account", "chem-ml", "Cluster=lab", "Description=chem-ml", "Organization=chem-ml",
         "Parent=chem", "Fairshare=parent"],
        ["-i", "add", "user", "alice", "Account=chem", "Cluster=lab", "DefaultAccount=chem"],
        ["-i", "add", "user", "bob", "Account=chem", "Cluster=lab", "DefaultAccount=chem"],
        ["-i", "add", "user", "bob", "Account=chem-ml", "Cluster=lab", "DefaultAccount=chem", "Fairshare=5"],
        ["-i", "add", "user", "carol", "Account=physics", "Cluster=lab", "DefaultAccount=physics"],
    ]
    assert result["unmanaged"] == {"accounts": [], "users": []}
    state = reread(simulate(fresh_cluster(), result["commands"]))
    assert plan(state, normalize_desired(copy.deepcopy(LAB)), "lab")["commands"] == []
    assert state["users"]["bob"]["default_account"] == "chem"


def test_add_user_to_second_account_keeps_default():
    accounts = copy.deepcopy(LAB)
    accounts[1]["users"].append("alice")
    result = plan(converged(), normalize_desired(accounts), "lab")
    assert result["commands"] == [
        ["-i", "add", "user", "alice", "Account=physics", "Cluster=lab", "DefaultAccount=chem"]]


def test_fairshare_and_limit_changes():
    accounts = copy.deepcopy(LAB)
    accounts[0]["fairshare"] = 30
    accounts[0]["limits"] = {"GrpTRES": "gres/gpu=16,cpu=256", "MaxWall": "2-00:00:00"}
    accounts[2]["users"] = [{"name": "bob", "fairshare": 7, "limits": {"MaxJobs": 4}}]
    result = plan(converged(), normalize_desired(accounts), "lab")
    assert result["commands"] == [
        ["-i", "modify", "account", "where", "name=chem", "cluster=lab", "set", "Fairshare=30",
         "GrpTRES=gres/gpu=16,cpu=256", "MaxWall=2-00:00:00"],
        ["-i", "modify", "user", "where", "name=bob", "account=chem-ml", "cluster=lab", "set", "Fairshare=7",
         "MaxJobs=4"],
    ]
    state = reread(simulate(converged(), result["commands"]))
    assert state["accounts"]["chem"]["limits"] == {"GrpTRES": "cpu=256,gres/gpu=16", "MaxWall": "2-00:00:00"}
    assert plan(state, normalize_desired(accounts), "lab")["commands"] == []


def test_limits_cleared_and_unnamed_left_alone():
    start = converged()
    start["accounts"]["chem"]["limits"].update({"MaxJobs": "50", "QOS": "normal,high"})
    start["accounts"]["chem"]["limits"]["GrpTRES"] = "cpu=64,gres/gpu=8"
    accounts = copy.deepcopy(LAB)
    accounts[0]["limits"] = {"GrpTRES": "gres/gpu=8", "QOS": "", "DefaultQOS": -1}  # MaxJobs not named: kept
    result = plan(start, normalize_desired(accounts), "lab")
    assert result["commands"] == [
        ["-i", "modify", "account", "where", "name=chem", "cluster=lab", "set", "GrpTRES=gres/gpu=8,cpu=-1", "QOS="]]
    state = reread(simulate(start, result["commands"]))
    assert state["accounts"]["chem"]["limits"] == {"GrpTRES": "gres/gpu=8", "MaxJobs": "50"}


def test_parent_change_uses_its_own_command_parents_first():
    # chem-ml moves to the top, chem goes below it: chem-ml must move first or Slurm sees a cycle.
    accounts = [{"name": "chem-ml", "fairshare": "parent", "users": [{"name": "bob", "fairshare": 5}]},
                {"name": "chem", "parent": "chem-ml", "fairshare": 10, "limits": {"GrpTRES": "gres/gpu=8"},
                 "users": ["alice", "bob"]},
                {"name": "physics", "description": "Physics department", "fairshare": 20, "users": ["carol"]}]
    result = plan(converged(), normalize_desired(accounts), "lab")
    assert result["commands"] == [
        ["-i", "modify", "account", "where", "name=chem-ml", "cluster=lab", "set", "Parent=root"],
        ["-i", "modify", "account", "where", "name=chem", "cluster=lab", "set", "Parent=chem-ml"],
        ["-i", "modify", "user", "where", "name=bob", "cluster=lab", "set", "DefaultAccount=chem-ml"],
    ]
    state = reread(simulate(converged(), result["commands"]))
    assert plan(state, normalize_desired(accounts), "lab")["commands"] == []


def test_description_change_is_account_wide_without_cluster():
    accounts = copy.deepcopy(LAB)
    accounts[0]["description"] = "Chemistry"
    accounts[0]["organization"] = "Science"
    assert plan(converged(), normalize_desired(accounts), "lab")["commands"] == [
        ["-i", "modify", "account", "where", "name=chem", "set", "Description=chemistry", "Organization=science"]]


def test_account_known_from_another_cluster_gets_its_description_after_the_add():
    start = fresh_cluster()
    start["account_records"]["chem"] = {"description": "from cluster big", "organization": "chem"}
    result = plan(start, normalize_desired([{"name": "chem"}]), "lab")
    assert result["commands"] == [
        ["-i", "add", "account", "chem", "Cluster=lab", "Description=chem", "Organization=chem", "Parent=root",
         "Fairshare=1"],
        ["-i", "modify", "account", "where", "name=chem", "set", "Description=chem"],
    ]
    assert plan(reread(simulate(start, result["commands"])), normalize_desired([{"name": "chem"}]), "lab")[
        "commands"] == []


def _with_strays():
    """HAND-WRITTEN: the LAB cluster plus a stray group 'old' (with sub-account 'old-sub') and strays."""
    state = converged()
    state = simulate(state, [
        ["-i", "add", "account", "old", "Cluster=lab", "Description=old", "Organization=old", "Parent=root",
         "Fairshare=1"],
        ["-i", "add", "account", "old-sub", "Cluster=lab", "Description=old-sub", "Organization=old-sub",
         "Parent=old", "Fairshare=1"],
        ["-i", "add", "user", "erin", "Account=old", "Cluster=lab", "DefaultAccount=old"],
        ["-i", "add", "user", "erin", "Account=old-sub", "Cluster=lab", "DefaultAccount=old"],
        ["-i", "add", "user", "alice", "Account=old-sub", "Cluster=lab", "DefaultAccount=chem"],
        ["-i", "add", "user", "carol", "Account=chem", "Cluster=lab", "DefaultAccount=physics"],
    ])
    return reread(state)


def test_without_prune_nothing_is_removed_but_reported():
    result = plan(_with_strays(), normalize_desired(copy.deepcopy(LAB)), "lab")
    assert result == {"commands": [], "unmanaged": {"accounts": ["old", "old-sub"],
                                                    "users": ["alice@old-sub", "carol@chem", "erin@old",
                                                              "erin@old-sub"]}}


def test_prune_removes_users_then_accounts_children_first_root_untouched():
    start = _with_strays()
    result = plan(start, normalize_desired(copy.deepcopy(LAB)), "lab", prune=True)
    assert result["commands"] == [
        ["-i", "remove", "user", "where", "name=alice", "account=old-sub", "cluster=lab"],
        ["-i", "remove", "user", "where", "name=carol", "account=chem", "cluster=lab"],
        ["-i", "remove", "user", "where", "name=erin", "account=old-sub", "cluster=lab"],
        ["-i", "remove", "user", "where", "name=erin", "account=old", "cluster=lab"],  # the default one last
        ["-i", "remove", "account", "where", "name=old-sub", "cluster=lab"],
        ["-i", "remove", "account", "where", "name=old", "cluster=lab"],
    ]
    assert not [c for c in result["commands"] if "name=root" in c or "root" in c[3:4]]
    state = reread(simulate(start, result["commands"]))
    assert sorted(state["accounts"]) == ["chem", "chem-ml", "physics", "root"]
    assert state["users"]["root"] == fresh_cluster()["users"]["root"]
    assert plan(state, normalize_desired(copy.deepcopy(LAB)), "lab", prune=True)["commands"] == []


def test_prune_with_empty_list_keeps_root():
    result = plan(converged(), normalize_desired([]), "lab", prune=True)
    state = reread(simulate(converged(), result["commands"]))
    assert sorted(state["accounts"]) == ["root"]
    assert sorted(state["users"]) == ["root"]


def test_default_moves_off_an_account_before_it_is_pruned():
    start = _with_strays()
    start = reread(simulate(start, [["-i", "modify", "user", "where", "name=alice", "cluster=lab", "set",
                                     "DefaultAccount=old-sub"]]))
    result = plan(start, normalize_desired(copy.deepcopy(LAB)), "lab", prune=True)
    commands = [" ".join(c) for c in result["commands"]]
    assert commands.index("-i modify user where name=alice cluster=lab set DefaultAccount=chem") < commands.index(
        "-i remove user where name=alice account=old-sub cluster=lab")
    simulate(start, result["commands"])


def test_root_user_in_a_group_keeps_its_default():
    accounts = [{"name": "ops", "users": ["root", "alice"]}]
    result = plan(fresh_cluster(), normalize_desired(accounts), "lab")
    assert ["-i", "add", "user", "root", "Account=ops", "Cluster=lab"] in result["commands"]
    state = reread(simulate(fresh_cluster(), result["commands"]))
    assert state["users"]["root"]["default_account"] == "root"
    assert plan(state, normalize_desired(accounts), "lab")["commands"] == []


def test_plan_rejects_bad_cluster():
    with pytest.raises(SlurmAccountsError, match=r"^cluster 'my lab': a cluster name may only hold"):
        plan(fresh_cluster(), normalize_desired([]), "my lab")


def test_diff_texts():
    accounts = copy.deepcopy(LAB)
    accounts[0]["fairshare"] = 30
    result = diff(converged(), normalize_desired(accounts))
    assert "  chem:\n    description: chem\n    organization: chem\n    parent: root\n    fairshare: 10\n" in (
        result["before"])
    assert "    fairshare: 30\n    limits:\n      GrpTRES: gres/gpu=8\n" in result["after"]
    assert "  root:" not in result["after"].partition("users:")[0]
    same = diff(converged(), normalize_desired(copy.deepcopy(LAB)))
    assert same["before"] == same["after"]


# =========================================================================== properties

NAMES = ["a", "b", "c", "d", "e"]
PEOPLE = ["u1", "u2", "u3", "root"]
LIMIT_VALUES = {"GrpTRES": ["cpu=64", "gres/gpu=8,cpu=32", "", "gres/gpu=-1"], "MaxJobs": ["10", "", "-1"],
                "MaxWall": ["1-00:00:00", "90", ""], "QOS": ["normal", "normal,high", ""]}
shares = st.sampled_from([1, 5, 10, "parent"])
limit_dicts = st.dictionaries(st.sampled_from(sorted(LIMIT_VALUES)), st.just(None), max_size=3).flatmap(
    lambda keys: st.fixed_dictionaries(dict((k, st.sampled_from(LIMIT_VALUES[k])) for k in keys)))


@st.composite
def trees(draw, names):
    """{name: parent} with parents among root and the names placed before."""
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    chosen = draw(st.permutations(chosen)) if chosen else chosen
    return [(name, draw(st.sampled_from([ROOT] + chosen[:index]))) for index, name in enumerate(chosen)]


@st.composite
def current_states(draw):
    state = fresh_cluster()
    for name, parent in draw(trees(NAMES)):
        limits = dict((k, v) for k, v in draw(limit_dicts).items() if v not in ("", "-1") and "-1" not in v)
        state["account_records"][name] = {"description": name, "organization": name}
        state["accounts"][name] = {"description": name, "organization": name, "parent": parent,
                                   "fairshare": draw(shares), "limits": limits}
    if draw(st.booleans()):
        state["account_records"]["e"] = {"description": "elsewhere", "organization": "e"}
    groups = sorted(n for n in state["accounts"] if n != ROOT)
    for person in PEOPLE[:3]:
        if not groups:
            break
        mine = draw(st.lists(st.sampled_from(groups), unique=True, max_size=3))
        if mine:
            state["users"][person] = {"default_account": draw(st.sampled_from(mine)), "accounts": dict(
                (a, {"fairshare": draw(shares), "limits": {}}) for a in mine)}
    return reread(state)


@st.composite
def wanted_lists(draw):
    result = []
    for name, parent in draw(trees(NAMES)):
        entry = {"name": name, "parent": parent, "fairshare": draw(shares), "limits": draw(limit_dicts)}
        users = []
        for person in draw(st.lists(st.sampled_from(PEOPLE), unique=True, max_size=3)):
            if draw(st.booleans()):
                users.append(person)
            else:
                users.append({"name": person, "fairshare": draw(shares), "limits": draw(limit_dicts)})
        entry["users"] = users
        result.append(entry)
    return draw(st.permutations(result)) if result else result  # children may come before their parents


def _comparable_state(state):
    from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_accounts import _comparable, _is_unset

    def limits(values):
        return dict((k, _comparable(k, v)) for k, v in values.items() if not _is_unset(k, v))

    return ({n: (a["description"], a["organization"], a["parent"], a["fairshare"], limits(a["limits"]))
             for n, a in state["accounts"].items()},
            {u: (e["default_account"], {a: (x["fairshare"], limits(x["limits"])) for a, x in e["accounts"].items()})
             for u, e in state["users"].items()})


@FUZZ
@given(current_states(), wanted_lists(), st.booleans())
def test_plan_converges_in_one_pass_and_matches_expected_state(current, wanted, prune):
    desired = normalize_desired(wanted)
    result = plan(current, desired, "lab", prune)
    after = reread(simulate(current, result["commands"]))  # raises if a command would fail in Slurm
    assert plan(after, desired, "lab", prune)["commands"] == []
    assert _comparable_state(after) == _comparable_state(expected_state(current, desired, prune))
    if not prune:
        assert set(after["accounts"]) >= set(current["accounts"])
    assert after["users"][ROOT]["accounts"][ROOT] == current["users"][ROOT]["accounts"][ROOT]
    assert plan(current, desired, "lab", prune) == result  # deterministic


@FUZZ
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)),
       st.lists(st.sampled_from(list(ASSOC_FIELDS)), min_size=1, max_size=6))
def test_fuzz_parse_raises_only_its_error(text, fields):
    try:
        rows = parse_parsable(text, fields)
    except SlurmAccountsError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert all(len(row) == len(set(f.lower() for f in fields)) for row in rows)


field_text = st.text(alphabet=st.sampled_from(list("ab1|- parentPARENT\t")), max_size=8)


@FUZZ
@given(st.lists(st.fixed_dictionaries(dict((f.lower(), field_text) for f in ASSOC_FIELDS)), max_size=6),
       st.lists(st.fixed_dictionaries(dict((f.lower(), field_text) for f in ACCOUNT_FIELDS)), max_size=4),
       st.lists(st.fixed_dictionaries(dict((f.lower(), field_text) for f in USER_FIELDS)), max_size=4))
def test_fuzz_current_state_raises_only_its_error(assoc, accounts, users):
    try:
        current_state(assoc, accounts, users)
    except SlurmAccountsError as exc:
        assert str(exc) and "\n" not in str(exc)


json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 30), st.text(max_size=6),
                                     st.sampled_from(["parent", "chem", "root", "MaxJobs", "name", "users"])),
                           lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                   st.dictionaries(st.sampled_from(list(
                                                       ("name", "parent", "fairshare", "users", "limits",
                                                        "description", "MaxJobs", "GrpTRES", "x"))), inner,
                                                       max_size=4)),
                           max_leaves=12)


@FUZZ
@given(json_values)
def test_fuzz_normalize_raises_only_its_error(value):
    try:
        normalize_desired(value)
    except SlurmAccountsError as exc:
        assert str(exc) and "\n" not in str(exc)
