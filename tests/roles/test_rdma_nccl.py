"""rdma_peermem's active-port check and nccl_tuning's environment, from real ibstat captures.

tests/roles/plan/rdma_nccl.yml runs the roles' port and NCCL steps against a
local-connection host whose ibstat (gpuops_ib_ibstat) is a script printing a
capture from tests/fixtures/ibstat. This machine has no /sys/class/infiniband,
so the ports are exactly those of the capture.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
PLAYBOOK = REPO / "tests" / "roles" / "plan" / "rdma_nccl.yml"
IBSTAT = REPO / "tests" / "fixtures" / "ibstat"
ALL_DOWN = "linuxrdma_mlx4_2port_IB-Polling_Eth-Disabled.txt"
H100 = "gpud_h100_8xIB-4xRoCE_3down.txt"


def run(tmp_path, capture, host_vars=None):
    ibstat = tmp_path / "ibstat"
    ibstat.write_text("#!/bin/sh\nexec cat %s\n" % (IBSTAT / capture))
    ibstat.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    host = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable, "render_out": str(out),
            "gpuops_ib_ibstat": str(ibstat)}
    host.update(host_vars or {})
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump({"all": {"hosts": {"node": host}}}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    env.pop("SSH_CONNECTION", None)  # no bootstrap address: NCCL_SOCKET_IFNAME falls back to ^lo,docker0
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run([str(bin_dir / "ansible-playbook"), "-i", str(inv), str(PLAYBOOK)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    result = out / "node.json"
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split()), (json.loads(result.read_text()) if result.exists() else None)


def test_no_active_port_fails_with_each_ports_state(tmp_path):
    rc, out, dummy = run(tmp_path, ALL_DOWN)
    assert rc != 0, out
    assert ("node: RDMA is expected (rdma_peermem_expected: auto) but no port is Active. "
            "Port states: mlx4_0:1 Down/Polling; mlx4_0:2 Down/Disabled.") in out, out


def test_no_active_port_can_be_a_warning(tmp_path):
    rc, out, env = run(tmp_path, ALL_DOWN, {"rdma_peermem_no_active_port": "warn"})
    assert rc == 0, out
    assert "but no port is Active. Port states: mlx4_0:1 Down/Polling" in out
    assert env == {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "^lo,docker0"}


def test_rdma_not_expected_skips_the_check(tmp_path):
    rc, out, dummy = run(tmp_path, ALL_DOWN, {"rdma_peermem_expected": False})
    assert rc == 0, out


def test_active_ports_are_reported_and_become_nccl_ib_hca(tmp_path):
    rc, out, env = run(tmp_path, H100)
    assert rc == 0, out
    assert "node: 12 RDMA port(s) read from ibstat; active: mlx5_0:1 InfiniBand 400 Gb/s" in out
    assert "NCCL uses: mlx5_0:1, mlx5_3:1, mlx5_4:1, mlx5_5:1, mlx5_6:1, mlx5_9:1, mlx5_10:1, mlx5_11:1." in out
    assert env == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1",
                   "NCCL_SOCKET_IFNAME": "^lo,docker0"}


def test_user_settings_win_and_null_removes(tmp_path):
    settings = {"nccl_tuning_env": {"NCCL_IB_HCA": None, "NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "=ens1f0"}}
    rc, out, env = run(tmp_path, H100, settings)
    assert rc == 0, out
    assert env == {"NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "=ens1f0"}


@pytest.mark.parametrize("ifname", ["=lo", "lo", "eth0,docker0", "=docker0"])
def test_loopback_and_docker_bridge_are_refused(tmp_path, ifname):
    rc, out, dummy = run(tmp_path, H100, {"nccl_tuning_env": {"NCCL_SOCKET_IFNAME": ifname}})
    assert rc != 0, out
    assert "NCCL_SOCKET_IFNAME=%s on node names lo or docker0, which other nodes cannot reach." % ifname in out, out


def test_not_nccl_names_are_refused(tmp_path):
    rc, out, dummy = run(tmp_path, H100, {"nccl_tuning_env": {"CUDA_VISIBLE_DEVICES": "0"}})
    assert rc != 0, out
    assert "nccl_tuning_env must be a dict of NCCL_* names (got [\"CUDA_VISIBLE_DEVICES\"])" in out, out


def test_topology_file_sets_nccl_topo_file(tmp_path):
    topo = tmp_path / "topo.xml"
    topo.write_text('<system version="1"></system>\n')
    rc, out, env = run(tmp_path, H100, {"nccl_tuning_topo_file": str(topo)})
    assert rc == 0, out
    assert env["NCCL_TOPO_FILE"] == "/etc/nccl/topo.xml"


def test_missing_topology_file_is_refused(tmp_path):
    rc, out, dummy = run(tmp_path, H100, {"nccl_tuning_topo_file": str(tmp_path / "nope.xml")})
    assert rc != 0, out
    assert "nccl_tuning_topo_file empty or a file on the Ansible controller" in out, out
