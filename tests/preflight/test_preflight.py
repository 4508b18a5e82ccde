"""The Slurm preflight rejects bad input with a message naming the variable and the fix.

Each case writes an inventory of local-connection hosts (this machine stands in
for every node, so facts are real) and runs playbooks/slurm.yml with
--tags preflight --check: nothing on the machine changes.
"""

import os
import pathlib
import subprocess
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
PLAYBOOK = REPO / "playbooks" / "slurm.yml"


def _inventory(controllers, computes, all_vars=None, host_vars=None):
    host_vars = host_vars or {}
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}

    # Every host here is this machine, with one hostname: the nodes get their Slurm
    # names from the inventory, or the model refuses them as one node twice.
    def hosts(names):
        return {name: dict(dict(local, slurm_node_name=name), **host_vars.get(name, {})) for name in names}

    children = {}
    if controllers is not None:
        children["slurm_controller"] = {"hosts": hosts(controllers)}
    children["slurm_compute"] = {"hosts": hosts(computes)}
    return {"all": {"vars": all_vars or {}, "children": children}}


def run_preflight(tmp_path, inventory, playbook=PLAYBOOK, tags="preflight"):
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run(
        [str(bin_dir / "ansible-playbook"), "-i", str(inv), str(playbook), "--tags", tags, "--check"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def _flat(text):
    return " ".join(text.split())


def test_valid_inventory_passes(tmp_path):
    rc, out = run_preflight(tmp_path, _inventory(["ctl"], ["gpu01", "gpu02"]))
    assert rc == 0, out
    assert "failed=0" in out


@pytest.mark.parametrize(
    "inventory, expected",
    [
        pytest.param(
            _inventory(None, ["gpu01"]),
            "No controller host: the inventory group slurm_controller (slurm_controller_group) is empty or missing. "
            "Add the host that runs slurmctld to it; an inventory that holds part of the cluster (an AWX job slice) "
            "names it in gpuops_slice_hosts instead.",
            id="no-controller",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_nodes_down_max_pct": 101}),
            "slurm_nodes_down_max_pct is 101: give a whole number from 0 to 100, the percentage of the compute nodes a "
            "run may fail to reach before it stops (0: none may).",
            id="nodes-down-max-pct",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_restart_batch": 0}),
            "slurm_restart_batch is 0: give a whole number from 1 to 10000, the most slurmd restarted at once (the next "
            "ones restart when these have started).",
            id="restart-batch",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01", "gpu02"], {"slurm_remove_nodes": ["gpu02"]}),
            "slurm_remove_nodes names gpu02, still in the compute group of the inventory: remove the host from the "
            "inventory as well, or take it out of slurm_remove_nodes.",
            id="remove-a-node-still-in-the-inventory",
        ),
        pytest.param(
            _inventory(["ctl", "gpu01"], ["gpu01"]),
            "gpu01 in both slurm_controller (slurm_controller_group) and slurm_compute (slurm_compute_group): "
            "the controller stays a separate host. Remove it from one group.",
            id="host-in-both-groups",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_partitions": [{"name": "debug", "nodes": ["gpu01", "gpu99"]}]}),
            "slurm_partitions: partition debug names gpu99, not in the slurm_compute group (gpu01). "
            "Fix the node names or add the hosts to the group.",
            id="partition-unknown-node",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_config": {"SlurmctlPort": 6817}}),
            "slurm_config: 'SlurmctlPort' is not a slurm.conf key in Slurm",
            id="unknown-slurm-conf-key",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_series": "24.11", "slurm_cgroup_config": {"TaskAffinity": "yes"}}),
            "slurm_cgroup_config: 'TaskAffinity' was removed in Slurm 21.08 and is rejected by the installed Slurm 24.11",
            id="version-removed-cgroup-key",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_series": "24.11", "slurm_config": {"SlurmctldPlugstack": "x"}}),
            "slurm_config: 'SlurmctldPlugstack' was removed in Slurm 24.11",
            id="key-removed-between-22.05-and-24.11",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], host_vars={"gpu01": {"slurm_node_real_memory": 99999999}}),
            "slurm_node_real_memory for gpu01 is 99999999 MB but the node has",
            id="real-memory-above-node",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_real_memory_round_mb": 100000, "slurm_real_memory_group_pct": 20}),
            "slurm_real_memory_group_pct is 20: give a whole number from 0 to 10: nodes of one model whose RealMemory "
            "is at most this percentage below the largest share one NodeName line with the smallest (0: only equal "
            "ones). slurm_real_memory_round_mb is 100000: give a whole number of MB from 0 to 65536",
            id="real-memory-round-and-group-out-of-range",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01", "gpu02"], host_vars={"gpu02": {"slurm_node_name": "gpu01"}}),
            'Slurm node name "gpu01" is used by gpu01, gpu02: Slurm node name must be unique. Set slurm_node_name',
            id="two-hosts-one-slurm-name",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], host_vars={"gpu01": {"slurm_node_name": "gpu01\n"}}),
            'The Slurm name of gpu01 is "gpu01\\n", which Slurm and hostlists cannot carry',
            id="node-name-with-a-trailing-newline",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_partitions": [{"name": "gpu", "options": {"MaxTim": "1:00:00"}}]}),
            'partition gpu: "MaxTim" is not a PartitionName option',
            id="unknown-partition-option",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], host_vars={"gpu01": {"slurm_node_gres": [{"type": "a100", "count": 4}]}}),
            "slurm_node_gres on gpu01[0]: a GPU needs file",
            id="gres-without-file",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_munge_key": "short"}),
            "slurm_munge_key is 5 characters long; munge needs at least 32.",
            id="munge-key-too-short",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_mpi_default": "pmix", "slurm_install_pmix": False}),
            'slurm_mpi_default is "pmix" but slurm_install_pmix is false',
            id="pmix-default-without-pmix",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_compute_pam_slurm_adopt": True,
                                            "slurm_compute_pam_slurm_adopt_allow": ["root", "ops team"]}),
            "slurm_compute_pam_slurm_adopt_allow must be a list of user names or (group) names",
            id="pam-adopt-allow-with-a-space",
        ),
        pytest.param(
            _inventory(["ctl"], ["gpu01"], {"slurm_compute_pam_slurm_adopt": True, "slurm_config": {"PrologFlags": "Alloc"}}),
            "slurm_compute_pam_slurm_adopt needs PrologFlags with Contain and ProctrackType=proctrack/cgroup in slurm.conf "
            "(they are Alloc and proctrack/cgroup)",
            id="pam-adopt-without-contain",
        ),
    ],
)
def test_preflight_rejects(tmp_path, inventory, expected):
    rc, out = run_preflight(tmp_path, inventory)
    assert rc != 0, out
    assert expected in _flat(out), out


@pytest.mark.gathered_facts
@pytest.mark.parametrize("playbook", ["site.yml", "add_node.yml"])
def test_the_first_play_of_site_yml_stops_a_bad_inventory(tmp_path, playbook):
    # The first play has no facts and no OS data: its checks must not need them.
    inventory = _inventory(["ctl"], ["gpu01", "gpu01.example.org"],
                           host_vars={"gpu01.example.org": {"slurm_node_name": "gpu01"}})
    rc, out = run_preflight(tmp_path, inventory, REPO / "playbooks" / playbook, "inventory_check")
    assert rc != 0, out
    flat = _flat(out)
    assert "is undefined" not in flat, out
    assert "is used by gpu01, gpu01.example.org" in flat and "must be unique" in flat, out
    plays = [line for line in out.splitlines() if line.startswith("PLAY [")]
    assert plays[-1].startswith("PLAY [Check the inventory before anything is written]"), out
