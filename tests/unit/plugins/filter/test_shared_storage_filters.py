# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.ansible.posix.plugins.modules import mount as posix_mount
from ansible_collections.gpuops.cluster.plugins.filter.shared_storage import (
    shared_storage_client_todo,
    shared_storage_host_mounts,
    shared_storage_plan,
)

HOSTVARS = {
    "ctl": {"ansible_host": "ctl.example", "ansible_facts": {
        "default_ipv4": {"address": "10.0.0.1"}, "all_ipv4_addresses": ["10.0.0.1", "192.168.100.1"],
        "all_ipv6_addresses": [], "hostname": "ctl", "fqdn": "ctl.example"}},
    # a minimal container: no network facts, the role read `hostname -I`
    "gpu01": {"ansible_facts": {"hostname": "gpu01"}, "__shared_storage_addresses": ["172.31.240.3"]},
}
SETTINGS = {"mode": "nfs", "server_group": "storage", "server_address": "", "exports_file": "/etc/exports",
            "exports": [{"path": "/shared", "clients": ["172.31.240.0/24", "192.168.100.0/24"]}],
            "export_options": ["rw", "sync"], "mounts": [{"path": "/shared"}], "mount_options": ["hard"],
            "check_user": "nobody"}


def test_plan_reads_facts_ansible_host_and_hostname_addresses():
    plan = shared_storage_plan(HOSTVARS, [], ["ctl"], ["ctl", "gpu01"], SETTINGS)
    assert plan["errors"] == []
    assert plan["export_lines"] == ["/shared 172.31.240.0/24(rw,sync) 192.168.100.0/24(rw,sync)"]
    assert [m["action"] for m in shared_storage_host_mounts(plan, "ctl")] == ["local"]
    assert [(m["action"], m["src"]) for m in shared_storage_host_mounts(plan, "gpu01")] == [("nfs", "ctl:/shared")]


@pytest.mark.parametrize("clients, error", [
    (["192.168.100.0/24"], False),  # ctl's second address
    (["172.31.240.0/24"], False),  # gpu01, from hostname -I
    (["ctl.example"], False),  # ansible_host as a name
    (["10.9.0.0/16"], True),
])
def test_plan_client_coverage(clients, error):
    settings = dict(SETTINGS, exports=[{"path": "/shared", "clients": clients}])
    plan = shared_storage_plan(HOSTVARS, [], ["ctl"], ["ctl", "gpu01"], settings)
    assert bool(plan["errors"]) is error, plan["errors"]


def test_host_missing_from_hostvars():
    plan = shared_storage_plan(HOSTVARS, [], ["ctl"], ["ctl", "gone"], SETTINGS)
    assert plan["errors"] == []


def test_filter_errors():
    with pytest.raises(AnsibleFilterError, match="shared_storage_plan: settings must be a mapping"):
        shared_storage_plan(HOSTVARS, [], ["ctl"], ["ctl"], ["not", "a", "mapping"])
    with pytest.raises(AnsibleFilterError, match="shared_storage_host_mounts: the input must be the plan"):
        shared_storage_host_mounts([], "ctl")


class _CheckModule(object):
    """What ansible.posix.mount's fstab step reads of its module: check mode (it writes nothing)."""
    check_mode = True


MOUNT = {"path": "/shared", "src": "st-ctl:/shared", "fstype": "nfs4", "opts": "rw,hard,nofail", "action": "nfs",
         "owner": "root", "group": "root", "mode": "0755"}


@pytest.mark.parametrize("mount, fstab", [
    (MOUNT, ""),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\n"),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0"),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail\n"),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail 0\n"),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail 0 1\n"),
    (MOUNT, "st-ctl:/shared  /shared\tnfs4 rw,hard,nofail 0 0 # kept\n"),
    (MOUNT, "st-ctl:/shared /shared nfs rw,hard,nofail 0 0\n"),
    (MOUNT, "#st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\n"),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\nst-ctl:/shared /shared nfs4 rw 0 0\n"),
    (MOUNT, "st-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\nst-ctl:/shared /shared nfs4 rw,hard,nofail 0 0\n"),
    (MOUNT, "a b c\nst-ctl:/shared /shared nfs4 rw,hard,nofail 0 0 extra field\n"),
    (dict(MOUNT, path="/data set", src="srv:/a&b"), "srv:/a\\046b /data\\040set nfs4 rw,hard,nofail 0 0\n"),
    (dict(MOUNT, path="/data set", src="srv:/a&b"), "srv:/a&b /data set nfs4 rw,hard,nofail 0 0\n"),
    (dict(MOUNT, path="/home", src="/export/home", fstype="none", opts="bind", action="bind"),
     "/export/home /home none bind 0 0\n"),
])
def test_client_todo_agrees_with_the_mount_modules_own_fstab_step(tmp_path, mount, fstab):
    path = tmp_path / "fstab"
    path.write_text(fstab)
    args = {"name": mount["path"], "src": mount["src"], "fstype": mount["fstype"], "opts": mount["opts"],
            "dump": "0", "passno": "0", "fstab": str(path)}
    changed = posix_mount._set_mount_save_old(_CheckModule(), args)[2]  # pylint: disable=protected-access
    # state present (kernel false): only the fstab step decides
    todo = shared_storage_client_todo([mount], {"/etc/fstab": base64.b64encode(fstab.encode()).decode()}, False)["mounts"]
    assert (todo == [mount]) is changed
    assert path.read_text() == fstab


def test_client_todo_garbage_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="shared_storage_client_todo: the content of /etc/fstab is not base64"):
        shared_storage_client_todo([MOUNT], {"/etc/fstab": "%%%"}, True)
    with pytest.raises(AnsibleFilterError, match="shared_storage_client_todo: expected host_probe's contents"):
        shared_storage_client_todo([MOUNT], None, True)
    with pytest.raises(AnsibleFilterError, match="shared_storage_client_todo: expected the host's mounts"):
        shared_storage_client_todo("x", {}, True)
