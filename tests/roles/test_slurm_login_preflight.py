"""The slurm_login role's preflight refuses bad settings, before any Slurm step, with a message that names the fix."""

import pytest

from _preflight import REPO, local_host, run_playbook

PLAYBOOK = REPO / "playbooks" / "slurm_login.yml"


def run(tmp_path, host_vars, group="slurm_login"):
    return run_playbook(tmp_path, PLAYBOOK, {"children": {group: {"hosts": {"login": local_host(host_vars)}}},
                                             "vars": {"slurm_login_group": "slurm_login"}})


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"slurm_login_user_memory_max_pct": 250},
                 "slurm_login_user_memory_max_pct is 250: give a whole number from 1 to 100, or 0 for no limit.",
                 id="memory-over-100"),
    pytest.param({"slurm_login_user_cpu_quota_pct": "lots"},
                 # the argument spec's check, before the role's own
                 "argument 'slurm_login_user_cpu_quota_pct' is of type str", id="cpu-not-a-number"),
    pytest.param({"slurm_login_user_cpu_quota_pct": -5},
                 "slurm_login_user_cpu_quota_pct is -5: give a whole number from 1 to 100000", id="cpu-negative"),
    pytest.param({"slurm_login_user_tasks_max": 3},
                 "slurm_login_user_tasks_max is 3: give a whole number from 16 to 4194304", id="tasks-too-few"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out


def test_a_host_outside_the_login_group_is_refused(tmp_path):
    # The role applied by hand to a host that is not in slurm_login_group.
    inventory = {"children": {"other": {"hosts": {"login": local_host({})}}}}
    playbook = tmp_path / "play.yml"
    playbook.write_text("- hosts: all\n  gather_facts: false\n  roles: [gpuops.cluster.slurm_login]\n")
    rc, out = run_playbook(tmp_path, playbook, inventory)
    assert rc != 0, out
    assert "login is not in the inventory group slurm_login (slurm_login_group): put it there" in out, out
