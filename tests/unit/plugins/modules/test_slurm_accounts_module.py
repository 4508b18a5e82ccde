# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""slurm_accounts end to end with a faked run_command: the three show calls print what the sacctmgr
simulator of tests/unit/plugins/module_utils/test_slurm_accounts.py holds, the -i commands change it.

All cluster contents here are HAND-WRITTEN (see tests/fixtures/SACCTMGR_SOURCES.md for why)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import importlib.util
import json
import os

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import slurm_accounts

SACCTMGR = "/opt/slurm/bin/sacctmgr"
SIM_PATH = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "module_utils", "test_slurm_accounts.py"))
_spec = importlib.util.spec_from_file_location("slurm_accounts_simulator", SIM_PATH)
sim = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sim)

LAB = copy.deepcopy(sim.LAB)
FIRST_RUN = [
    SACCTMGR + " -i add account chem Cluster=lab Description=chem Organization=chem Parent=root Fairshare=10 "
               "GrpTRES=gres/gpu=8",
    SACCTMGR + " -i add account physics Cluster=lab 'Description=physics department' Organization=physics "
               "Parent=root Fairshare=20",
    SACCTMGR + " -i add account chem-ml Cluster=lab Description=chem-ml Organization=chem-ml Parent=chem "
               "Fairshare=parent",
    SACCTMGR + " -i add user alice Account=chem Cluster=lab DefaultAccount=chem",
    SACCTMGR + " -i add user bob Account=chem Cluster=lab DefaultAccount=chem",
    SACCTMGR + " -i add user bob Account=chem-ml Cluster=lab DefaultAccount=chem Fairshare=5",
    SACCTMGR + " -i add user carol Account=physics Cluster=lab DefaultAccount=physics",
]


class FakeSacctmgr(object):
    """run_command stand-in: answers the show calls from a simulated cluster and applies -i commands."""

    def __init__(self, state):
        self.state = state
        self.calls = []
        self.fail = {}  # verb of a -i command -> (rc, stdout, stderr)

    def __call__(self, module, args, **kwargs):
        assert kwargs.get("environ_update") == {"LC_ALL": "C"}
        assert isinstance(args, list) and args[0] == SACCTMGR
        self.calls.append(list(args))
        argv = args[1:]
        if argv[:3] == ["--noheader", "--parsable2", "show"]:
            assert "cluster=lab" in argv or argv[3] == "account"
            kind = {"associations": "associations", "account": "accounts", "user": "users"}[argv[3]]
            return 0, sim.render_outputs(self.state)[kind], ""
        key = " ".join(argv[1:3])
        if key in self.fail:
            return self.fail[key]
        try:
            self.state = sim.simulate(self.state, [argv])
        except sim.SacctmgrError as exc:
            return 1, "", " %s\n" % exc
        return 0, " Adding/Modifying...\n", ""

    @property
    def changes(self):
        return [c for c in self.calls if c[1] == "-i"]


@pytest.fixture
def fake(monkeypatch):
    instance = FakeSacctmgr(sim.fresh_cluster())

    def run_command(self, args, **kwargs):
        return instance(self, args, **kwargs)

    monkeypatch.setattr(AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(AnsibleModule, "get_bin_path",
                        lambda self, arg, required=False, opt_dirs=None: SACCTMGR if arg == "sacctmgr" else None)
    return instance


def run(capsys, args, check=False, diff=False):
    getattr(module_warnings, "_global_warnings", {}).clear()  # warnings are process-global
    with patch_module_args(dict(args, _ansible_check_mode=check, _ansible_diff=diff)):
        with pytest.raises(SystemExit):
            slurm_accounts.main()
    result = json.loads(capsys.readouterr().out)
    # ansible-core 2.19 returns each warning as {"event": {"msg": ...}}; older ones as a string.
    result["warnings"] = [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings", [])]
    return result


def test_first_run_then_idempotent(fake, capsys):
    first = run(capsys, {"cluster": "lab", "accounts": LAB})
    assert first["changed"] is True
    assert first["commands"] == FIRST_RUN
    assert first["unmanaged"] == {"accounts": [], "users": []}
    assert first["warnings"] == []
    assert [c[1:] for c in fake.calls[:3]] == [args for _n, args, _f in slurm_accounts.show_commands("lab")]
    assert len(fake.changes) == 7
    second = run(capsys, {"cluster": "lab", "accounts": LAB})
    assert second["changed"] is False
    assert second["commands"] == []
    assert len(fake.changes) == 7


def test_check_mode_runs_only_the_show_calls(fake, capsys):
    result = run(capsys, {"cluster": "lab", "accounts": LAB}, check=True)
    assert result["changed"] is True
    assert result["commands"] == FIRST_RUN
    assert fake.changes == []
    assert len(fake.calls) == 3
    assert sorted(fake.state["accounts"]) == ["root"]


def test_diff_before_after(fake, capsys):
    run(capsys, {"cluster": "lab", "accounts": LAB})
    accounts = copy.deepcopy(LAB)
    accounts[0]["fairshare"] = 30
    result = run(capsys, {"cluster": "lab", "accounts": accounts}, check=True, diff=True)
    assert result["commands"] == [SACCTMGR + " -i modify account where name=chem cluster=lab set Fairshare=30"]
    before, after = result["diff"]["before"], result["diff"]["after"]
    assert result["diff"]["before_header"] == "sacctmgr cluster=lab"
    assert before.replace("fairshare: 10\n", "fairshare: 30\n", 1) == after
    assert after.startswith("accounts:\n  chem:\n    description: chem\n")
    assert "  bob:\n    default_account: chem\n    accounts:\n      chem:\n        fairshare: 1\n" in after


def test_unmanaged_warns_without_prune_and_goes_with_prune(fake, capsys):
    run(capsys, {"cluster": "lab", "accounts": LAB})
    fake.state = sim.simulate(fake.state, [
        ["-i", "add", "account", "old", "Cluster=lab", "Description=old", "Organization=old", "Parent=root",
         "Fairshare=1"],
        ["-i", "add", "user", "erin", "Account=old", "Cluster=lab", "DefaultAccount=old"],
    ])
    kept = run(capsys, {"cluster": "lab", "accounts": LAB})
    assert kept["changed"] is False
    assert kept["unmanaged"] == {"accounts": ["old"], "users": ["erin@old"]}
    assert kept["warnings"] == ["slurm_accounts: cluster lab holds accounts old and user associations erin@old that "
                                "the list does not name; left alone (set prune: true to remove them)"]
    pruned = run(capsys, {"cluster": "lab", "accounts": LAB, "prune": True})
    assert pruned["commands"] == [SACCTMGR + " -i remove user where name=erin account=old cluster=lab",
                                  SACCTMGR + " -i remove account where name=old cluster=lab"]
    assert pruned["warnings"] == []
    assert sorted(fake.state["accounts"]) == ["chem", "chem-ml", "physics", "root"]
    assert run(capsys, {"cluster": "lab", "accounts": LAB, "prune": True})["changed"] is False


def test_sacctmgr_option_overrides_the_path_lookup(fake, capsys, monkeypatch):
    monkeypatch.setattr(AnsibleModule, "get_bin_path", lambda *a, **k: pytest.fail("looked up sacctmgr"))
    result = run(capsys, {"cluster": "Lab", "accounts": [], "sacctmgr": SACCTMGR})
    assert result["changed"] is False
    assert fake.calls[0][5] == "cluster=lab"


def test_fails_on_first_failing_command_with_what_ran(fake, capsys):
    fake.fail["add user"] = (1, "", " This account 'chem' doesn't exist.\n        Contact your admin to add this "
                                    "account.\n")
    result = run(capsys, {"cluster": "lab", "accounts": LAB})
    assert result["failed"] is True
    assert result["msg"] == ("slurm_accounts: %s failed (rc=1): This account 'chem' doesn't exist. Contact your admin "
                             "to add this account." % FIRST_RUN[3])
    assert result["cmd"] == FIRST_RUN[3]
    assert result["commands"] == FIRST_RUN[:3]
    assert result["changed"] is True
    assert len(fake.changes) == 4


def test_nothing_modified_is_a_warning(fake, capsys):
    fake.fail["add account"] = (1, " Nothing new added.\n", "")
    result = run(capsys, {"cluster": "lab", "accounts": [{"name": "chem"}]})
    assert "failed" not in result
    assert result["warnings"] == ["slurm_accounts: %s -i add account chem Cluster=lab Description=chem "
                                  "Organization=chem Parent=root Fairshare=1: sacctmgr found nothing to change "
                                  "(Nothing new added.)" % SACCTMGR]


def test_show_failure(fake, capsys, monkeypatch):
    monkeypatch.setattr(AnsibleModule, "run_command", lambda self, args, **kw: (
        1, "", "sacctmgr: error: Problem talking to the database: Connection refused\n"))
    result = run(capsys, {"cluster": "lab", "accounts": LAB})
    assert result["failed"] is True
    assert result["rc"] == 1
    assert result["msg"].startswith("slurm_accounts: %s --noheader --parsable2 show associations cluster=lab "
                                    "WOPLimits format=Cluster," % SACCTMGR)
    assert result["msg"].endswith("failed (rc=1): sacctmgr: error: Problem talking to the database: Connection refused")


def test_unreadable_show_output(fake, capsys, monkeypatch):
    monkeypatch.setattr(AnsibleModule, "run_command", lambda self, args, **kw: (0, "lab|root\n", ""))
    result = run(capsys, {"cluster": "lab", "accounts": []})
    assert result["failed"] is True
    assert "sacctmgr output line 1 has 2 field(s) where 17" in result["msg"]
    assert result["stdout"] == "lab|root\n"


def test_unreadable_show_output_is_cut_to_a_few_kilobytes(fake, capsys, monkeypatch):
    monkeypatch.setattr(AnsibleModule, "run_command", lambda self, args, **kw: (0, "lab|root\n" * 50000, "x" * 9000))
    result = run(capsys, {"cluster": "lab", "accounts": []})
    assert result["failed"] is True
    assert len(result["msg"]) < 1000
    for stream in ("stdout", "stderr"):
        assert len(result[stream]) < 4200 and "characters left out" in result[stream]


def test_huge_share_in_show_output_is_named(fake, capsys, monkeypatch):
    line = "|".join(["lab", "chem", "", "", "root", "9" * 5000] + [""] * 11)
    monkeypatch.setattr(AnsibleModule, "run_command", lambda self, args, **kw: (
        0, line + "\n" if "associations" in args else "", ""))
    result = run(capsys, {"cluster": "lab", "accounts": []})
    assert result["failed"] is True
    assert result["msg"] == ("slurm_accounts: association row 1 (chem): Share: the number 999999999999999999999999... "
                             "has 5000 digits; at most 18 are read")


@pytest.mark.parametrize("args, message", [
    ({"cluster": "lab", "accounts": [{"name": "chem", "fairshare": "9" * 5000}]},
     "slurm_accounts: account 'chem': fairshare must be a positive integer or 'parent', not '%s...'; write for "
     "example fairshare: 10" % ("9" * 200)),
    ({"cluster": "lab", "accounts": [{"name": "chem", "parent": "science"}]},
     "slurm_accounts: account 'chem': parent 'science' is neither root nor another listed account; add 'science' "
     "to the list or set parent: root"),
    ({"cluster": "lab", "accounts": [{"name": "root"}]},
     "slurm_accounts: account 'root': the root account exists on every cluster and is not managed here; remove it "
     "from the list (top-level accounts take parent: root)"),
    ({"cluster": "my lab", "accounts": []},
     "slurm_accounts: cluster 'my lab': a cluster name may only hold letters, digits, '_', '.' and '-'; use the "
     "ClusterName of slurm.conf"),
])
def test_validation_errors_before_any_call(fake, capsys, args, message):
    result = run(capsys, args)
    assert result["failed"] is True
    assert result["msg"] == message
    assert fake.calls == []
