# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""shared_storage's per-host checks (module_utils/site/_shared_storage.py): the host settings, the external file
systems, the message of a server that cannot serve NFS."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site._shared_storage import (
    MountTodoError,
    client_todo,
    external_errors,
    host_errors,
    mounted_targets,
    server_not_started,
)

HOST_SETTINGS = {"os_data": True, "os_name": "Debian 12", "kernel_nfs": "auto"}


@pytest.mark.parametrize("change, expected", [
    ({}, []),
    ({"kernel_nfs": False}, []),
    ({"os_data": False}, ["no package list for Debian 12 (roles/shared_storage/vars)."]),
    ({"kernel_nfs": "yes"}, ['shared_storage_kernel_nfs is "yes": set it to auto, true or false.']),
    ({"kernel_nfs": None, "os_data": False}, ["no package list for Debian 12 (roles/shared_storage/vars).",
                                              "shared_storage_kernel_nfs is null: set it to auto, true or false."]),
])
def test_host_errors(change, expected):
    assert host_errors(dict(HOST_SETTINGS, **change)) == expected


def test_host_errors_of_garbage():
    assert host_errors([]) == ["the shared_storage host settings must be a mapping, not []."]


def _run(path, rc, stdout="", stderr="", fstype="", user="nobody"):
    return {"item": {"path": path, "fstype": fstype, "check_user": user}, "rc": rc, "stdout": stdout,
            "stderr": stderr}


FIX = ("Mount it on every Slurm host (shared_storage_mode external checks, it does not mount), or fix the path or "
       "fstype in shared_storage_mounts.")


def test_external_mounts():
    findmnt = [_run("/lustre", 0, "lustre 10.0.0.1@tcp:/fs", fstype="lustre"), _run("/any", 0, "nfs4 nas:/x"),
               _run("/gone", 1), _run("/gpfs", 0, "ext4 /dev/sda1", fstype="gpfs"), None, {"item": "x"}]
    assert external_errors("node1", findmnt) == [
        "/gone on node1 is not a mount point (findmnt finds nothing mounted there). " + FIX,
        "/gpfs on node1 is ext4 from /dev/sda1, not gpfs. " + FIX]


def test_external_writes():
    write = [_run("/lustre", 0), _run("/ro", 1, stderr="mktemp: Permission denied\n", user="alice")]
    assert external_errors("node1", [], write) == [
        "/ro on node1 is not writable by alice (mktemp: Permission denied). Give users a writable place there (for "
        "example mode 1777 or per-user directories), set shared_storage_check_user to a user who should write there, "
        "or set writable: false on the entry in shared_storage_mounts."]
    assert external_errors("node1", None, "x") == []


def test_server_not_started():
    assert server_not_started("nfs1", "running in a docker container", "/etc/exports", "nfs-server") == (
        "NFS server on nfs1 not started: running in a docker container. The packages and /etc/exports are in place "
        "and exportfs checked the exports; on real hardware (or with shared_storage_kernel_nfs: true) the service "
        "nfs-server is started and enabled.")


SHARED = {"path": "/shared", "src": "st-ctl:/shared", "fstype": "nfs4", "opts": "rw,hard,nofail", "action": "nfs",
          "owner": "root", "group": "root", "mode": "0755"}
LINE = "st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\n"
PROC = "overlay / overlay rw 0 0\nst-ctl:/shared /shared nfs4 rw,relatime 0 0\n"


@pytest.mark.parametrize("fstab, proc, kernel, todo, points", [
    (LINE, PROC, True, [], []),                                   # up to date: no call
    (LINE, "overlay / overlay rw 0 0\n", True, ["/shared"], ["/shared"]),   # not mounted
    (LINE, "overlay / overlay rw 0 0\n", False, [], ["/shared"]),           # fstab only: written already
    ("", PROC, True, ["/shared"], []),                            # no fstab line
    ("st-ctl:/shared /shared nfs4 rw,hard,nofail\n", PROC, True, ["/shared"], []),   # dump and pass missing
    ("st-ctl:/shared /shared nfs4 rw,hard 0 0\n", PROC, True, ["/shared"], []),      # other options
    ("# st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\n", PROC, True, ["/shared"], []),  # a comment
    (LINE + "other:/shared /shared nfs4 rw 0 0\n", PROC, True, ["/shared"], []),     # a second line for the path
    ("st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0 # mine\n", PROC, True, [], []),  # a trailing comment
])
def test_client_todo_calls_the_mount_module_only_where_it_would_change_something(fstab, proc, kernel, todo, points):
    out = client_todo([SHARED], fstab, proc, kernel)
    assert [item["path"] for item in out["mounts"]] == todo
    assert [item["path"] for item in out["points"]] == points
    for point in out["points"]:
        assert point == {"path": "/shared", "state": "directory", "owner": "root", "group": "root", "mode": "0755"}


def test_client_todo_escapes_as_the_mount_module_and_unescapes_proc_mounts():
    spaced = dict(SHARED, path="/data set", src="srv:/data&more")
    line = "srv:/data\\046more /data\\040set nfs4 rw,hard,nofail 0 0\n"
    proc = "srv:/data&more /data\\040set nfs4 rw 0 0\n"
    assert client_todo([spaced], line, proc, True) == {"mounts": [], "points": []}
    assert mounted_targets("a /x\\011y\\134z nfs rw 0 0\nshort\n") == {"/x\ty\\z"}


def test_a_bind_mount_is_left_to_the_module_when_the_host_mounts():
    bind = dict(SHARED, path="/home", src="/export/home", fstype="none", opts="bind", action="bind")
    line = "/export/home /home none bind 0 0\n"
    proc = "/dev/vda1 /home ext4 rw 0 0\n"
    assert client_todo([bind], line, proc, True)["mounts"] == [bind]
    assert client_todo([bind], line, proc, False)["mounts"] == []


@pytest.mark.parametrize("args, message", [
    (("x", "", "", True), "expected the host's mounts"),
    (([SHARED], None, "", True), "expected the fstab text"),
    (([SHARED], "", b"", True), "expected the mounts text"),
    (([{"path": "/x"}], "", "", True), "a mount without 'src'"),
])
def test_client_todo_refuses_garbage_with_the_reason(args, message):
    with pytest.raises(MountTodoError, match=message):
        client_todo(*args)
