"""The shared_storage preflight (tags preflight, --check) refuses bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, local_host, run_playbook

PLAYBOOK = REPO / "playbooks" / "shared_storage.yml"

# Documentation networks (TEST-NET-2 here, TEST-NET-3 for the refused export), and the address the
# test host claims through ansible_host.
ADDRESS = "198.51.100.7"
GOOD_EXPORT = {"path": "/shared", "clients": ["198.51.100.0/24"],
               "options": ["rw", "sync", "no_subtree_check", "no_root_squash"], "mode": "1777"}
GOOD_MOUNT = {"path": "/shared", "options": ["hard", "noac", "_netdev", "x-systemd.automount", "vers=4.2",
                                             "rsize=1048576", "wsize=1048576", "timeo=600", "retrans=2", "nofail",
                                             "actimeo=30", "proto=tcp"]}


def run(tmp_path, host_vars, group="slurm_controller"):
    host = local_host(host_vars, ansible_host=ADDRESS)
    return run_playbook(tmp_path, PLAYBOOK, {"children": {group: {"hosts": {"node": host}}}})


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out
    assert "failed=0" in out


def test_a_good_setting_passes(tmp_path):
    rc, out = run(tmp_path, {"shared_storage_exports": [GOOD_EXPORT],
                             "shared_storage_mounts": [GOOD_MOUNT, {"path": "/home", "src": "nas01:/export/home"}]})
    assert rc == 0, out
    assert "failed=0" in out


def test_external_mode_passes_preflight(tmp_path):
    rc, out = run(tmp_path, {"shared_storage_mode": "external",
                             "shared_storage_mounts": [{"path": "/lustre", "fstype": "lustre"}]})
    assert rc == 0, out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"shared_storage_exports": [dict(GOOD_EXPORT, clients=["203.0.113.0/24"])]},
                 "shared_storage_exports[0] (/shared): clients 203.0.113.0/24 let in no cluster host: node "
                 "(198.51.100.7", id="export-to-a-network-without-cluster-hosts"),
    pytest.param({"shared_storage_exports": [dict(GOOD_EXPORT, options=["rw", "no_root_sqash"])]},
                 "shared_storage_exports[0] (/shared): unknown option no_root_sqash", id="unknown-export-option"),
    pytest.param({"shared_storage_exports": [GOOD_EXPORT],
                  "shared_storage_mounts": [dict(GOOD_MOUNT, options=["hard", "noack"])]},
                 "shared_storage_mounts[0] (/shared): unknown option noack", id="unknown-mount-option"),
    pytest.param({"shared_storage_exports": [GOOD_EXPORT],
                  "shared_storage_mounts": [dict(GOOD_MOUNT, options=["hard", "vers=5"])]},
                 "shared_storage_mounts[0] (/shared): bad value in vers=5", id="bad-mount-option-value"),
    pytest.param({"shared_storage_exports": [dict(GOOD_EXPORT, path="shared")]},
                 "shared_storage_exports[0] (shared): path 'shared' is not absolute; write it from /",
                 id="relative-export-path"),
    pytest.param({"shared_storage_exports": [GOOD_EXPORT], "shared_storage_mounts": [dict(GOOD_MOUNT, path="mnt")]},
                 "shared_storage_mounts[0] (mnt): path 'mnt' is not absolute", id="relative-mount-path"),
    pytest.param({"shared_storage_exports": [dict(GOOD_EXPORT, mode=493)]},
                 "shared_storage_exports[0] (/shared): mode 493 is not an octal mode; write it quoted",
                 id="unquoted-mode"),
    pytest.param({"shared_storage_exports": [GOOD_EXPORT], "shared_storage_mounts": [dict(GOOD_MOUNT, mode="0999")]},
                 "shared_storage_mounts[0] (/shared): mode '0999' is not an octal mode", id="bad-mode"),
    pytest.param({"shared_storage_mode": "lustre"}, "shared_storage_mode", id="unknown-mode"),
    pytest.param({"shared_storage_kernel_nfs": "maybe"},
                 "shared_storage_kernel_nfs is \"maybe\": set it to auto, true or false", id="bad-kernel-nfs"),
    pytest.param({"shared_storage_exports_file": "/etc/exports.d/gpuops"},
                 "shared_storage_exports_file is '/etc/exports.d/gpuops': exportfs reads", id="bad-exports-file"),
    pytest.param({"shared_storage_mode": "external", "shared_storage_mounts": [{"path": "/lustre", "writable": "yes"}]},
                 "shared_storage_mounts[0] (/lustre): writable 'yes' must be true or false", id="external-writable"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out


def test_a_mount_without_server_is_refused(tmp_path):
    # No storage group and no controller: nobody serves /shared.
    rc, out = run(tmp_path, {"shared_storage_mounts": [GOOD_MOUNT]}, group="slurm_compute")
    assert rc != 0, out
    assert ("shared_storage_mounts[0] (/shared): src /shared names no server and there is no storage host: add a host "
            "to the group storage (or the controller group) and export the path in shared_storage_exports, or write "
            "src as server:/path") in out, out


def test_a_mount_of_a_path_the_server_does_not_export_is_refused(tmp_path):
    rc, out = run(tmp_path, {"shared_storage_exports": [GOOD_EXPORT],
                             "shared_storage_mounts": [{"path": "/data", "src": "/data"}]})
    assert rc != 0, out
    assert "shared_storage_mounts[0] (/data): /data is not exported by the storage host node" in out, out
