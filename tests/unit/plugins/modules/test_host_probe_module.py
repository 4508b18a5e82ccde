# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_probe end to end with stand-in rpm and systemctl scripts: hostile output never stops it with a
traceback, and what a failure returns stays a few KB."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import host_probe


def script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def bins(monkeypatch):
    """Overrides for get_bin_path: {name: path}; any other name is not installed."""
    table = {}

    def get_bin_path(self, arg, required=False, opt_dirs=None):
        if arg not in table and required:
            self.fail_json(msg="%s not found" % arg)
        return table.get(arg)

    monkeypatch.setattr(AnsibleModule, "get_bin_path", get_bin_path)
    return table


def run(capsys, args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            host_probe.main()
    return json.loads(capsys.readouterr().out)


def test_versionlock_list_that_is_not_utf8_is_read(tmp_path, capsys, bins, monkeypatch):
    bins["rpm"] = script(tmp_path, "rpm", "echo 'slurm 0 23.11.4-1.el9'; echo 'package munge is not installed'")
    locks = tmp_path / "versionlock.list"
    locks.write_bytes(b"# held by gpuops\nslurm-0:23.11.4-1.el9.*\n\xff\xfe-1-2\n")
    monkeypatch.setattr(host_probe, "VERSIONLOCK_LISTS", (str(locks),))
    result = run(capsys, {"packages": ["slurm", "munge"]})
    assert "failed" not in result
    assert result["package_versions"] == {"slurm": "23.11.4-1.el9", "munge": None}
    assert result["package_holds"] == {"slurm": True, "munge": False}


def test_huge_epoch_is_named(tmp_path, capsys, bins, monkeypatch):
    bins["rpm"] = script(tmp_path, "rpm", "echo 'slurm %s 23.11.4-1.el9'" % ("9" * 5000))
    monkeypatch.setattr(host_probe, "VERSIONLOCK_LISTS", ())
    result = run(capsys, {"packages": ["slurm"]})
    assert result["failed"] is True
    assert result["msg"] == ("host_probe: rpm -q line 1: epoch of 'slurm': the number 999999999999999999999999... has "
                             "5000 digits; at most 18 are read")


def test_services_on_a_host_not_booted_with_systemd_are_offline(tmp_path, capsys, bins, monkeypatch):
    bins["systemctl"] = script(tmp_path, "systemctl", "echo 'Failed to connect to bus: Host is down' >&2; exit 1")
    monkeypatch.setattr(host_probe, "SYSTEMD_RUNTIME_DIR", str(tmp_path / "no-such-dir"))
    result = run(capsys, {"services": ["munge", "slurmd.service"]})
    assert "failed" not in result
    offline = {"loaded": False, "active": False, "enabled": False, "state": "offline"}
    assert result["services"] == {"munge": offline, "slurmd.service": offline}


def test_failing_command_output_is_cut_to_a_few_kilobytes(tmp_path, capsys, bins, monkeypatch):
    monkeypatch.setattr(host_probe, "SYSTEMD_RUNTIME_DIR", str(tmp_path))
    bins["systemctl"] = script(tmp_path, "systemctl", "i=0; while [ $i -lt 2000 ]; do echo \"Id=unit$i.service\"; "
                                                      "i=$((i+1)); done; echo \"$(printf 'e%.0s' $(seq 1 5000))\" >&2; "
                                                      "exit 1")
    result = run(capsys, {"services": ["munge"]})
    assert result["failed"] is True and result["rc"] == 1
    assert result["msg"] == "%s failed: %s..." % (bins["systemctl"], "e" * 297)
    for stream in ("stdout", "stderr"):
        assert len(result[stream]) < 4200 and "characters left out" in result[stream]


def test_read_returns_small_files_and_leaves_out_missing_ones(tmp_path, capsys, bins):
    record = tmp_path / "record.json"
    record.write_bytes(b'{"settings": {}}\n\xff')
    result = run(capsys, {"read": [str(record), str(tmp_path / "missing")]})
    assert "failed" not in result
    assert result["contents"] == {str(record): "eyJzZXR0aW5ncyI6IHt9fQr/"}


def test_read_refuses_a_large_file(tmp_path, capsys, bins):
    big = tmp_path / "big"
    big.write_bytes(b"x" * (host_probe.READ_LIMIT + 1))
    result = run(capsys, {"read": [str(big)]})
    assert result["failed"] is True
    assert result["msg"] == "host_probe: %s is larger than 1048576 bytes; read lists small files only" % big


def test_read_of_a_directory_fails_with_the_reason(tmp_path, capsys, bins):
    result = run(capsys, {"read": [str(tmp_path)]})
    assert result["failed"] is True
    assert result["msg"].startswith("host_probe: cannot read %s: " % tmp_path)


def test_gpus_sets_the_gpu_facts_as_gpu_facts_does(tmp_path, capsys, bins):
    # No nvidia-smi on PATH and no PCI devices: the same fact gpu_facts sets on such a host.
    result = run(capsys, {"gpus": True, "sysfs_root": str(tmp_path / "sys"), "dev_root": str(tmp_path / "dev")})
    assert "failed" not in result
    gpus = result["ansible_facts"]["gpuops_gpus"]
    assert gpus["status"] == "no_nvidia_smi"
    assert gpus["count"] == 0 and gpus["gres_conf"] == [] and gpus["slurm_gres"] == ""


def test_without_gpus_no_facts_are_set(tmp_path, capsys, bins):
    assert "ansible_facts" not in run(capsys, {"paths": [str(tmp_path)]})


def test_gpus_with_a_bad_timeout_fails_with_a_message(capsys, bins):
    result = run(capsys, {"gpus": True, "timeout": -1})
    assert result["failed"] is True
    assert result["msg"] == "timeout must be 0 (no limit) or a number of seconds, got -1"


def test_list_names_the_entries_of_existing_directories(tmp_path, capsys, bins):
    (tmp_path / "cuda-12.4").mkdir()
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "cuda").symlink_to(tmp_path / "cuda-12.4")
    result = run(capsys, {"list": [str(tmp_path), str(tmp_path / "missing")], "paths": [str(tmp_path / "cuda")]})
    assert "failed" not in result
    assert result["listings"] == {str(tmp_path): [".hidden", "cuda", "cuda-12.4"]}
    link = result["files"][0]
    assert link["islnk"] is True and link["lnk_source"] == str(tmp_path / "cuda-12.4")


def test_list_of_a_file_is_left_out_and_an_unreadable_directory_fails(tmp_path, capsys, bins, monkeypatch):
    (tmp_path / "plain").write_text("x")
    assert run(capsys, {"list": [str(tmp_path / "plain")]})["listings"] == {}

    def refuse(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(host_probe.os, "listdir", refuse)
    result = run(capsys, {"list": [str(tmp_path)]})
    assert result["failed"] is True
    assert result["msg"] == "host_probe: cannot list %s: [Errno 13] Permission denied" % tmp_path


def test_marked_finds_the_files_holding_the_text_directly_in_the_directories(tmp_path, capsys, bins):
    tree = tmp_path / "modulefiles"
    (tree / "cuda").mkdir(parents=True)
    (tree / "mine.lua").write_text("-- x\n## Managed by gpuops.cluster.env_modules\n")
    (tree / ".hidden").write_bytes(b"\xff\n## Managed by gpuops.cluster.env_modules\n")
    (tree / "theirs.lua").write_text("-- Managed by someone else\n")
    (tree / "quoted.lua").write_text("-- ## Managed by gpuops.cluster.env_modules\n")
    (tree / "cuda" / "12.4.lua").write_text("## Managed by gpuops.cluster.env_modules\n")
    (tree / "link.lua").symlink_to(tree / "mine.lua")
    (tree / "regex.lua").write_text("## Managed by gpuops.cluster.env_modulesX\n")
    result = run(capsys, {"marked": {"dirs": [str(tree), str(tmp_path / "missing")],
                                     "text": "## Managed by gpuops.cluster.env_modules"}})
    assert "failed" not in result
    # only the files directly there, not below, not links; a line starting with the text matches
    assert result["marked"] == sorted([str(tree / ".hidden"), str(tree / "mine.lua"), str(tree / "regex.lua")])
    assert run(capsys, {"marked": {"dirs": [str(tree / "cuda")], "text": "## Managed"}})["marked"] == [
        str(tree / "cuda" / "12.4.lua")]
    assert run(capsys, {"marked": {"dirs": [str(tree / "cuda")], "text": "Managed"}})["marked"] == []


def test_marked_needs_its_directories_and_text(capsys, bins):
    result = run(capsys, {"marked": {"text": "x"}})
    assert result["failed"] is True
    assert "dirs" in result["msg"]
    assert run(capsys, {})["marked"] == []


def test_patterns_report_their_matches_as_paths_once(tmp_path, capsys, bins):
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "torch-2.13.0+cpu.dist-info").mkdir(parents=True)
    (site / "numpy-2.3.1.dist-info").mkdir()
    (site / "hook.py").write_text("x = 1\n")
    (site / "mpi4py").symlink_to(tmp_path)
    result = run(capsys, {"paths": [str(site / "hook.py")],
                          "patterns": [str(tmp_path / "venv" / "lib" / "python3*" / "site-packages"),
                                       str(tmp_path / "venv" / "lib" / "python3*" / "site-packages" / "*.dist-info"),
                                       str(tmp_path / "venv" / "lib" / "python3*" / "site-packages" / "hook.py"),
                                       str(tmp_path / "venv" / "lib" / "python3*" / "site-packages" / "mpi4py"),
                                       str(tmp_path / "none" / "*")]})
    assert "failed" not in result
    assert [entry["path"] for entry in result["files"]] == [
        str(site / "hook.py"), str(site), str(site / "numpy-2.3.1.dist-info"), str(site / "torch-2.13.0+cpu.dist-info"),
        str(site / "mpi4py")]
    assert result["files"][0]["checksum"] == hashlib.sha1(b"x = 1\n").hexdigest()
    assert result["files"][1]["isdir"] is True
    assert result["files"][-1]["lnk_source"] == str(tmp_path)
    assert run(capsys, {"patterns": [str(tmp_path / "none" / "*")]})["files"] == []
