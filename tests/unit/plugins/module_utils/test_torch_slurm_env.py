# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from hypothesis import given, strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import compress, expand
from ansible_collections.gpuops.cluster.plugins.module_utils.site._torch_slurm_env import (
    apply,
    first_host,
    in_step,
    main,
    tasks_on_node,
    torch_env,
)

# The environment of task 2 of `sbatch -N2 --ntasks-per-node=2 --wrap 'srun ...'`,
# as Slurm 22.05 set it in the Molecule cluster (only the variables read here).
STEP_TASK = {
    "SLURM_JOB_ID": "4",
    "SLURM_JOB_NODELIST": "mol-gpu[01-02]",
    "SLURM_NODELIST": "mol-gpu[01-02]",
    "SLURM_LOCALID": "0",
    "SLURM_NODEID": "1",
    "SLURM_NTASKS": "4",
    "SLURM_PROCID": "2",
    "SLURM_STEPID": "0",
    "SLURM_STEP_ID": "0",
    "SLURM_STEP_NODELIST": "mol-gpu[01-02]",
    "SLURM_STEP_NUM_TASKS": "4",
    "SLURM_STEP_TASKS_PER_NODE": "2(x2)",
    "SLURM_TASKS_PER_NODE": "2(x2)",
}
# The batch script of the same job: no step id.
BATCH = dict((k, v) for k, v in STEP_TASK.items() if not k.startswith("SLURM_STEP"))


@pytest.mark.parametrize("nodelist, expected", [
    ("mol-gpu[01-02]", "mol-gpu01"),
    ("gpu[07-09,12],cpu1", "gpu07"),
    ("gpu[12,07-09]", "gpu12"),
    ("node1", "node1"),
    ("node1,node2", "node1"),
    ("node1 node2", "node1"),
    ("rack[1-2]n[03-04]", "rack1n03"),
    ("a[1-2]-ib", "a1-ib"),
    ("", None),
    (None, None),
    ("gpu[01-02", None),
    ("gpu]01", None),
    ("gpu[a-b]", None),
    ("gpu[[1]]", None),
    ("bad;name,n2", None),
])
def test_first_host(nodelist, expected):
    assert first_host(nodelist) == expected


@given(st.lists(st.from_regex(r"\A[a-z]{1,4}[0-9]{1,3}\Z"), min_size=1, max_size=20, unique=True))
def test_first_host_is_the_first_of_slurms_expansion(names):
    expr = compress(names)
    assert first_host(expr) == expand(expr)[0]


@pytest.mark.parametrize("tasks, node, expected", [
    ("2(x2)", "0", 2), ("2(x2)", "1", 2), ("2(x2)", "2", None),
    ("3,1", "1", 1), ("4(x3),2", "3", 2), ("4(x3),2", "2", 4),
    ("1", 0, 1), ("", "0", None), ("x", "0", None), ("2(x2)", "z", None),
])
def test_tasks_on_node(tasks, node, expected):
    assert tasks_on_node(tasks, node) == expected


def test_a_step_task_gets_everything():
    assert torch_env(STEP_TASK) == {
        "MASTER_ADDR": "mol-gpu01", "MASTER_PORT": "29504", "WORLD_SIZE": "4",
        "RANK": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2"}


@pytest.mark.parametrize("environ", [
    pytest.param(BATCH, id="batch-script"),
    pytest.param({}, id="login-shell"),
    pytest.param(dict(STEP_TASK, SLURM_STEP_ID="batch", SLURM_STEPID="batch"), id="batch-step-by-name"),
    pytest.param(dict(STEP_TASK, SLURM_STEP_ID="4294967294", SLURM_STEPID="4294967294"), id="batch-step-by-number"),
    pytest.param(dict((k, v) for k, v in STEP_TASK.items() if k != "SLURM_JOB_ID"), id="no-job"),
])
def test_nothing_outside_a_step(environ):
    assert not in_step(environ) or environ is STEP_TASK
    assert torch_env(environ) == {}


def test_values_already_set_win():
    # torchrun's workers: it set everything itself.
    torchrun = dict(STEP_TASK, MASTER_ADDR="10.0.0.1", MASTER_PORT="1234", WORLD_SIZE="16", RANK="5",
                    LOCAL_RANK="5", LOCAL_WORLD_SIZE="8")
    assert torch_env(torchrun) == {}
    assert torch_env(dict(STEP_TASK, MASTER_PORT="4000")) == {
        "MASTER_ADDR": "mol-gpu01", "WORLD_SIZE": "4", "RANK": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2"}


def test_the_step_nodelist_comes_before_the_allocations():
    env = dict(STEP_TASK, SLURM_STEP_NODELIST="mol-gpu02", SLURM_STEP_NUM_TASKS="1", SLURM_NODEID="0",
               SLURM_STEP_TASKS_PER_NODE="1", SLURM_PROCID="0")
    assert torch_env(env)["MASTER_ADDR"] == "mol-gpu02"
    assert torch_env(env)["WORLD_SIZE"] == "1"
    assert torch_env(env)["LOCAL_WORLD_SIZE"] == "1"


@pytest.mark.parametrize("broken", [
    {"SLURM_PROCID": "-1"}, {"SLURM_PROCID": "x"}, {"SLURM_STEP_NODELIST": "gpu[", "SLURM_JOB_NODELIST": ""},
    {"SLURM_STEP_TASKS_PER_NODE": "2(x"}, {"SLURM_JOB_ID": "99999999999999999999"},
])
def test_garbage_leaves_the_variable_unset(broken):
    env = dict(STEP_TASK, **broken)
    result = torch_env(env)
    assert set(result) < {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE"}


@given(st.dictionaries(st.sampled_from(sorted(STEP_TASK) + ["RANK", "MASTER_ADDR"]), st.text(max_size=30)))
def test_apply_never_raises(environ):
    env = dict(environ)
    apply(env)
    for name, value in environ.items():
        if value:
            assert env[name] == value


def test_main_prints_shell_lines(monkeypatch, capsys):
    for name, value in STEP_TASK.items():
        monkeypatch.setenv(name, value)
    for name in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert main(["--format", "sh"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "export MASTER_ADDR=mol-gpu01", "export MASTER_PORT=29504", "export WORLD_SIZE=4", "export RANK=2",
        "export LOCAL_RANK=0", "export LOCAL_WORLD_SIZE=2"]
    assert main([]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "MASTER_ADDR=mol-gpu01"
    assert main(["--format", "csv"]) == 2
