# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ib_facts end to end: a stand-in ibstat script replays real captures, sysfs comes from the
transcribed trees under tests/fixtures/sysfs (see tests/fixtures/IB_SOURCES.md).

Expected values were written by hand from reading the captures."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import ib_facts

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
SYSFS_SCORPIO = os.path.join(FIXTURES, "sysfs", "scorpio_chrysalis")
SYSFS_A100 = os.path.join(FIXTURES, "sysfs", "gpud_a100_ibstatus")
H100_IB_3DOWN = os.path.join(FIXTURES, "ibstat", "gpud_h100_8xIB-4xRoCE_3down.txt")
A100_IBPANIC = os.path.join(FIXTURES, "ibstat", "gpud_a100_8xIB-HDR200_ibpanic.txt")
IP_ADDR_DEVHOST = os.path.join(FIXTURES, "ip-addr", "devhost_lo-eth0-docker0-bridge-veth.txt")
PANIC_MLX5_8 = "ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file or directory"
PANIC_UMAD = "ibpanic: [4260] main: can't init UMAD library: (No such file or directory)"
H100_IB_HCA = "=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1"
A100_IB_HCA = "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1"
NO_BOOTSTRAP = {"address": None, "cidr": None, "interface": None}


@pytest.fixture(autouse=True)
def no_ssh_connection(monkeypatch):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)


@pytest.fixture
def bins(monkeypatch):
    """Overrides for get_bin_path: {name: path or None}."""
    table = {}
    real = AnsibleModule.get_bin_path

    def get_bin_path(self, arg, required=False, opt_dirs=None):
        if arg in table:
            return table[arg]
        return real(self, arg, required=required, opt_dirs=opt_dirs)

    monkeypatch.setattr(AnsibleModule, "get_bin_path", get_bin_path)
    return table


def script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def replay(tmp_path, stdout_file=None, rc=0, stderr=None, name="ibstat"):
    body = ""
    if stdout_file:
        body += "cat '%s'\n" % stdout_file
    if stderr:
        body += "echo \"%s\" >&2\n" % stderr
    body += "exit %d" % rc
    return script(tmp_path, name, body)


def run(capsys, args, check=False):
    getattr(module_warnings, "_global_warnings", {}).clear()  # warnings are process-global; one module run here is one process there
    with patch_module_args(dict(args, _ansible_check_mode=check)):
        with pytest.raises(SystemExit):
            ib_facts.main()
    result = json.loads(capsys.readouterr().out)
    # ansible-core 2.19 returns each warning as {"event": {"msg": ...}}; older ones as a string.
    result["warnings"] = [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings", [])]
    return result


def test_h100_ib_with_down_ports(tmp_path, capsys):
    result = run(capsys, {"ibstat": replay(tmp_path, H100_IB_3DOWN), "sysfs_root": str(tmp_path / "sys"),
                          "bootstrap_address": "10.1.0.5",
                          "interfaces": {"lo": ["127.0.0.1/8"], "eth0": ["10.1.0.5/16"], "docker0": ["172.17.0.1/16"]}})
    assert result["changed"] is False
    assert result["warnings"] == []
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["source"] == "ibstat"
    assert facts["failed_hcas"] == []
    assert [h["name"] for h in facts["hcas"]] == ["mlx5_%d" % i for i in range(12)]
    assert facts["hcas"][2]["ports"] == [{"port": 1, "state": "Down", "physical_state": "Disabled", "rate_gbps": 40,
                                          "link_layer": "Ethernet", "roce_v2_gid_index": None}]
    assert facts["selected"] == ["mlx5_0:1", "mlx5_3:1", "mlx5_4:1", "mlx5_5:1", "mlx5_6:1", "mlx5_9:1", "mlx5_10:1", "mlx5_11:1"]
    assert facts["nccl_env"] == {"NCCL_IB_HCA": H100_IB_HCA, "NCCL_SOCKET_IFNAME": "=eth0"}
    assert facts["bootstrap"] == {"address": "10.1.0.5", "cidr": None, "interface": "eth0"}


def test_check_mode_same_facts(tmp_path, capsys):
    args = {"ibstat": replay(tmp_path, H100_IB_3DOWN), "sysfs_root": str(tmp_path / "sys"), "select": "roce"}
    normal = run(capsys, args)
    checked = run(capsys, args, check=True)
    assert checked["changed"] is False
    assert checked["ansible_facts"] == normal["ansible_facts"]
    assert normal["ansible_facts"]["gpuops_ib"]["nccl_env"] == {"NCCL_IB_HCA": "=mlx5_1:1"}


def test_ibpanic_partial_output_warns(tmp_path, capsys):
    result = run(capsys, {"ibstat": replay(tmp_path, A100_IBPANIC, rc=255), "sysfs_root": SYSFS_A100})
    assert result["warnings"] == [
        "ib_facts: ibstat failed on mlx5_8 (%s); using the 8 device(s) it printed before" % PANIC_MLX5_8]
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["source"] == "ibstat"
    assert facts["failed_hcas"] == ["mlx5_8"]
    assert [h["name"] for h in facts["hcas"]] == ["mlx5_%d" % i for i in range(8)]
    assert facts["hcas"][0] == {"name": "mlx5_0", "ca_type": "MT4124", "firmware_version": "20.41.1000",
                                "node_guid": "0x00155dfffe3411eb",
                                "ports": [{"port": 1, "state": "Active", "physical_state": "LinkUp", "rate_gbps": 200,
                                           "link_layer": "InfiniBand"}]}
    assert facts["nccl_env"] == {"NCCL_IB_HCA": A100_IB_HCA}


def test_ibpanic_on_stderr_names_unreported_devices(tmp_path, capsys):
    # ibstat printed mlx5_0..7 and panicked on mlx5_8 on stderr; sysfs also shows mlx5_9 (added to the tree).
    root = tmp_path / "sys"
    shutil.copytree(SYSFS_A100, str(root))
    (root / "class" / "infiniband" / "mlx5_9" / "ports" / "1").mkdir(parents=True)
    stdout = tmp_path / "stdout.txt"
    with open(A100_IBPANIC) as handle:
        stdout.write_text("".join(handle.readlines()[:136]))
    result = run(capsys, {"ibstat": replay(tmp_path, str(stdout), rc=255, stderr=PANIC_MLX5_8), "sysfs_root": str(root)})
    assert result["warnings"] == [
        "ib_facts: ibstat failed on mlx5_8 (%s); using the 8 device(s) it printed before; not reported either: mlx5_9"
        % PANIC_MLX5_8]
    assert result["ansible_facts"]["gpuops_ib"]["nccl_env"] == {"NCCL_IB_HCA": A100_IB_HCA}


def test_umad_panic_falls_back_to_sysfs(tmp_path, capsys):
    result = run(capsys, {"ibstat": replay(tmp_path, rc=255, stderr=PANIC_UMAD), "sysfs_root": SYSFS_SCORPIO,
                          "select": "roce"})
    assert result["warnings"] == [
        "ib_facts: %s; reading %s instead" % (PANIC_UMAD, os.path.join(SYSFS_SCORPIO, "class", "infiniband"))]
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["source"] == "sysfs"
    assert facts["nccl_env"] == {"NCCL_IB_HCA": "=mlx5_1:1,mlx5_2:1", "NCCL_IB_GID_INDEX": "3"}


def test_no_ibstat_reads_sysfs(tmp_path, capsys, bins):
    bins["ibstat"] = None
    result = run(capsys, {"sysfs_root": SYSFS_SCORPIO})
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["source"] == "sysfs"
    assert [h["name"] for h in facts["hcas"]] == ["mlx5_0", "mlx5_1", "mlx5_2"]
    assert facts["hcas"][2]["ports"] == [{"port": 1, "state": "Active", "physical_state": "LinkUp", "rate_gbps": 100,
                                          "link_layer": "Ethernet", "roce_v2_gid_index": 3}]
    assert facts["nccl_env"] == {"NCCL_IB_HCA": "=mlx5_0:1"}


def test_no_hca_at_all(tmp_path, capsys, bins):
    bins["ibstat"] = None
    result = run(capsys, {"sysfs_root": str(tmp_path / "empty")})
    assert result.get("failed") is None
    assert result["warnings"] == []
    assert result["ansible_facts"]["gpuops_ib"] == {
        "source": "none", "hcas": [], "failed_hcas": [], "selected": [],
        "nccl_env": {"NCCL_IB_DISABLE": "1"}, "bootstrap": NO_BOOTSTRAP}


def test_ibstat_without_devices(tmp_path, capsys):
    result = run(capsys, {"ibstat": replay(tmp_path), "sysfs_root": str(tmp_path / "empty")})
    assert result["ansible_facts"]["gpuops_ib"]["source"] == "none"
    assert result["ansible_facts"]["gpuops_ib"]["nccl_env"] == {"NCCL_IB_DISABLE": "1"}


def test_ibstat_empty_but_sysfs_has_devices(tmp_path, capsys):
    result = run(capsys, {"ibstat": replay(tmp_path), "sysfs_root": SYSFS_SCORPIO})
    assert result["failed"] is True
    assert result["msg"] == "ib_facts: ibstat printed no device, but sysfs lists 3: mlx5_0, mlx5_1, mlx5_2"


def test_ibstat_binary_junk(tmp_path, capsys):
    ibstat = script(tmp_path, "ibstat", "printf 'CA \\000\\001\\002'")
    result = run(capsys, {"ibstat": ibstat, "sysfs_root": str(tmp_path / "empty")})
    assert result["failed"] is True
    assert result["msg"] == "ib_facts: ibstat output is not text: control character 0x00 on line 1"


def test_ibstat_output_that_is_not_utf8_is_read_with_replacement_characters(tmp_path, capsys):
    with open(H100_IB_3DOWN, "rb") as handle:
        data = handle.read()
    broken = tmp_path / "ibstat.txt"
    broken.write_bytes(data.replace(b"Firmware version: ", b"Firmware version: \xff", 1))
    result = run(capsys, {"ibstat": replay(tmp_path, str(broken)), "sysfs_root": str(tmp_path / "sys")})
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["hcas"][0]["firmware_version"].startswith(u"\ufffd")
    assert facts["selected"][0] == "mlx5_0:1"


def test_ibstat_failure_output_is_cut_to_a_few_kilobytes(tmp_path, capsys):
    ibstat = script(tmp_path, "ibstat", "i=0; while [ $i -lt 3000 ]; do echo \"noise line $i\"; i=$((i+1)); done; "
                                        "echo \"$(printf 'e%.0s' $(seq 1 5000))\" >&2; exit 3")
    result = run(capsys, {"ibstat": ibstat, "sysfs_root": str(tmp_path / "empty")})
    assert result["failed"] is True and result["rc"] == 3
    assert result["msg"] == "ib_facts: %s failed (rc=3): %s..." % (ibstat, "e" * 297)
    for stream in ("stdout", "stderr"):
        assert len(result[stream]) < 4200 and "characters left out" in result[stream]


def test_ibstat_fails_without_panic(tmp_path, capsys):
    ibstat = replay(tmp_path, rc=1, stderr="boom")
    result = run(capsys, {"ibstat": ibstat, "sysfs_root": str(tmp_path / "empty")})
    assert result["failed"] is True
    assert result["msg"] == "ib_facts: %s failed (rc=1): boom" % ibstat
    assert result["rc"] == 1


def test_ibstat_timeout(tmp_path, capsys):
    ibstat = script(tmp_path, "ibstat", "sleep 10")
    result = run(capsys, {"ibstat": ibstat, "sysfs_root": str(tmp_path / "empty"), "timeout": 1})
    assert result["failed"] is True
    assert result["msg"] == "ib_facts: %s did not finish within 1 s" % ibstat


def test_ibstat_path_not_executable(tmp_path, capsys):
    result = run(capsys, {"ibstat": str(tmp_path / "nope"), "sysfs_root": str(tmp_path / "empty")})
    assert result["failed"] is True
    assert result["msg"] == "ib_facts: ibstat %s is not an executable file" % (tmp_path / "nope")


def test_socket_ifname_never_lo_or_docker(tmp_path, capsys, bins):
    bins["ibstat"] = None
    interfaces = {"lo": ["127.0.0.1/8"], "docker0": ["172.17.0.1/16"]}
    for address in ("127.0.0.1", "172.17.0.1"):
        result = run(capsys, {"sysfs_root": str(tmp_path / "empty"), "bootstrap_address": address, "interfaces": interfaces})
        assert result["ansible_facts"]["gpuops_ib"]["nccl_env"] == {"NCCL_IB_DISABLE": "1"}
        assert result["warnings"] == [
            "ib_facts: no interface other than lo or docker* holds %s; NCCL_SOCKET_IFNAME left unset" % address]


def test_socket_ifname_from_ssh_connection(tmp_path, capsys, bins, monkeypatch):
    bins["ibstat"] = None
    monkeypatch.setenv("SSH_CONNECTION", "192.0.2.10 51234 192.0.2.2 22")
    result = run(capsys, {"sysfs_root": str(tmp_path / "empty"),
                          "interfaces": {"eth0": ["192.0.2.2/24"], "docker0": ["172.17.0.1/16"]}})
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["nccl_env"] == {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "=eth0"}
    assert facts["bootstrap"] == {"address": "192.0.2.2", "cidr": None, "interface": "eth0"}


def test_socket_ifname_from_ip_addr(tmp_path, capsys, bins):
    bins["ibstat"] = None
    bins["ip"] = script(tmp_path, "ip", "cat '%s'" % IP_ADDR_DEVHOST)
    result = run(capsys, {"sysfs_root": SYSFS_SCORPIO, "bootstrap_cidr": "192.0.2.0/24"})
    facts = result["ansible_facts"]["gpuops_ib"]
    assert facts["nccl_env"] == {"NCCL_IB_HCA": "=mlx5_0:1", "NCCL_SOCKET_IFNAME": "=eth0"}
    assert facts["bootstrap"] == {"address": None, "cidr": "192.0.2.0/24", "interface": "eth0"}
    # docker0 holds the only address in 172.17.0.0/16.
    result = run(capsys, {"sysfs_root": SYSFS_SCORPIO, "bootstrap_cidr": "172.17.0.0/16"})
    assert "NCCL_SOCKET_IFNAME" not in result["ansible_facts"]["gpuops_ib"]["nccl_env"]
    assert result["warnings"] == [
        "ib_facts: no interface other than lo or docker* holds an address in 172.17.0.0/16; NCCL_SOCKET_IFNAME left unset"]


def test_bad_bootstrap_cidr(tmp_path, capsys, bins):
    bins["ibstat"] = None
    result = run(capsys, {"sysfs_root": str(tmp_path / "empty"), "bootstrap_cidr": "10.0.0.0/33", "interfaces": {}})
    assert result["failed"] is True
    assert result["msg"] == "ib_facts: bootstrap_cidr '10.0.0.0/33' is not a network"


def test_hostname_bootstrap_address_is_resolved(tmp_path, capsys, bins):
    bins["ibstat"] = None
    result = run(capsys, {"sysfs_root": str(tmp_path / "empty"), "bootstrap_address": "localhost",
                          "interfaces": {"lo": ["127.0.0.1/8", "::1/128"]}})
    assert result["ansible_facts"]["gpuops_ib"]["nccl_env"] == {"NCCL_IB_DISABLE": "1"}
    assert result["ansible_facts"]["gpuops_ib"]["bootstrap"]["address"] in ("127.0.0.1", "::1")
