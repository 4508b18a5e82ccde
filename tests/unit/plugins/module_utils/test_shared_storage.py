# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site import _shared_storage as ss

HOSTS = {
    "ctl": {"addresses": ["172.31.240.2", "10.10.0.1"], "names": ["ctl", "ctl.cluster.example"]},
    "gpu01": {"addresses": ["172.31.240.3"], "names": ["gpu01", "gpu01.cluster.example"]},
}


def settings(**overrides):
    base = {
        "mode": "nfs",
        "server_group": "storage",
        "server_address": "",
        "exports_file": "/etc/exports.d/gpuops.exports",
        "exports": [{"path": "/shared", "clients": ["172.31.240.0/24"],
                     "options": ["rw", "sync", "no_subtree_check", "no_root_squash"]}],
        "mounts": [{"path": "/shared", "options": ["hard", "noac", "_netdev"]}],
        "export_options": ["rw", "sync", "no_subtree_check"],
        "mount_options": ["hard", "_netdev"],
        "check_user": "nobody",
    }
    base.update(overrides)
    return base


def run(hosts=None, server_group=(), controllers=("ctl",), **overrides):
    return ss.plan(settings(**overrides), list(server_group), list(controllers), HOSTS if hosts is None else hosts)


# --- options -----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [
    [],
    ["hard", "noac", "_netdev", "x-systemd.automount", "vers=4.2", "rsize=1048576", "wsize=1048576", "timeo=600",
     "retrans=2", "nofail", "actimeo=0", "proto=tcp"],
    ["soft", "nfsvers=3", "proto=rdma", "port=20049", "nconnect=16", "sec=krb5:krb5p", "lookupcache=positive"],
    ["x-systemd.idle-timeout=10min", "x-systemd.mount-timeout=30", "x-systemd.requires=network-online.target",
     "x-gvfs-show", "local_lock=flock", "noatime", "defaults"],
])
def test_good_mount_options(options):
    assert ss.mount_option_errors(options) == []


@pytest.mark.parametrize("options, expected", [
    (["hard", "noack"], ["options: unknown option noack"]),
    (["vers=5"], ["options: bad value in vers=5"]),
    (["rsize=big"], ["options: bad value in rsize=big"]),
    (["proto=sctp"], ["options: bad value in proto=sctp"]),
    (["nconnect=17"], ["options: bad value in nconnect=17"]),
    (["timeo"], ["options: option timeo needs a value (timeo=...)"]),
    (["hard=1"], ["options: option hard=1 takes no value (write hard)"]),
    (["x-systemd.automout"], ["options: unknown option x-systemd.automout"]),
    (["hard", "soft"], ["options: options hard and soft contradict each other; keep one"]),
    (["ro", "rw"], ["options: options rw and ro contradict each other; keep one"]),
    ([1], ["options: option 1 is not a string"]),
    ("hard,noac", ["options must be a list of option strings such as [hard, noac], not 'hard,noac'"]),
])
def test_bad_mount_options(options, expected):
    assert ss.mount_option_errors(options) == expected


def test_good_export_options():
    assert ss.export_option_errors(["rw", "sync", "no_subtree_check", "no_root_squash", "fsid=0", "sec=sys:krb5",
                                    "anonuid=65534", "anongid=65534", "crossmnt", "insecure"]) == []


@pytest.mark.parametrize("options, expected", [
    (["rw", "no_root_sqash"], ["options: unknown option no_root_sqash"]),
    (["fsid=abc"], ["options: bad value in fsid=abc"]),
    (["anonuid"], ["options: option anonuid needs a value (anonuid=...)"]),
    (["rw", "ro"], ["options: options rw and ro contradict each other; keep one"]),
    (["sync", "async"], ["options: options sync and async contradict each other; keep one"]),
])
def test_bad_export_options(options, expected):
    assert ss.export_option_errors(options) == expected


# --- clients -------------------------------------------------------------------------------


@pytest.mark.parametrize("pattern, addresses, names, expected", [
    ("172.31.240.0/24", ["172.31.240.3"], [], True),
    ("172.31.240.0/255.255.255.0", ["172.31.240.3"], [], True),
    ("172.31.240.0/24", ["10.0.0.3"], [], False),
    ("172.31.240.3", ["172.31.240.3"], [], True),
    ("172.31.240.3/32", ["172.31.240.4"], [], False),
    ("10.0.0.1/24", ["10.0.0.200"], [], True),  # host bits set: exportfs masks them too
    ("fd00::/64", ["fd00::5", "172.31.240.3"], [], True),
    ("[fd00::5]", ["fd00::5"], [], True),
    ("*", [], ["gpu01"], True),
    ("gpu*", [], ["gpu01"], True),
    ("*.cluster.example", [], ["gpu01", "gpu01.cluster.example"], True),
    ("GPU01", [], ["gpu01"], True),
    ("ctl", [], ["gpu01"], False),
    ("@compute", ["172.31.240.3"], ["gpu01"], None),
])
def test_client_matches(pattern, addresses, names, expected):
    assert ss.client_error(pattern) is None
    assert ss.client_matches(pattern, addresses, names) is expected


@pytest.mark.parametrize("pattern, expected", [
    ("10.0.0.0/33", "client 10.0.0.0/33 is not a network"),
    ("10.0.0.0/255.0.255.0", "client 10.0.0.0/255.0.255.0 is not a network"),
    ("host name", "client host name is not an address, network (10.0.0.0/24), host name, wildcard or @netgroup"),
    ("gpu(rw)", "client gpu(rw) is not an address"),
    ("@", "client @ is not a netgroup name"),
    ("", "client '' is not a string"),
])
def test_client_errors(pattern, expected):
    assert ss.client_error(pattern).startswith(expected)


def test_covered_hosts():
    assert ss.covered_hosts(["10.10.0.0/16"], HOSTS) == ["ctl"]
    assert ss.covered_hosts(["172.31.240.0/24"], HOSTS) == ["ctl", "gpu01"]
    assert ss.covered_hosts(["192.168.0.0/16"], HOSTS) == []
    assert ss.covered_hosts(["@compute"], HOSTS) is None
    assert ss.covered_hosts(["@compute", "gpu01"], HOSTS) == ["gpu01"]


# --- lines ------------------------------------------------------------------------------------


def test_export_line():
    assert ss.export_line("/shared", ["10.0.0.0/24", "gpu*"], ["rw", "sync"]) == \
        "/shared 10.0.0.0/24(rw,sync) gpu*(rw,sync)"
    assert ss.export_line("/shared", ["10.0.0.0/24"], []) == "/shared 10.0.0.0/24"


@pytest.mark.parametrize("src, expected", [
    ("/shared", (None, "/shared")),
    ("nas01:/vol/shared", ("nas01", "/vol/shared")),
    ("[fd00::1]:/shared", ("[fd00::1]", "/shared")),
    ("nas01:shared", ("", "")),
    ("[fd00::1:/shared", ("", "")),
])
def test_split_src(src, expected):
    assert ss.split_src(src) == expected


def test_choose_server():
    assert ss.choose_server(["nas"], ["ctl"]) == "nas"
    assert ss.choose_server([], ["ctl", "ctl2"]) == "ctl"
    assert ss.choose_server([], []) is None


# --- plan --------------------------------------------------------------------------------------------


def test_plan_defaults_to_the_controller():
    out = run()
    assert out["errors"] == [] and out["warnings"] == []
    assert out["server"] == "ctl" and out["server_address"] == "ctl"
    assert out["export_lines"] == ["/shared 172.31.240.0/24(rw,sync,no_subtree_check,no_root_squash)"]
    assert out["exports"][0]["mode"] == "0755" and out["exports"][0]["owner"] == "root"
    assert out["mounts"] == [{
        "path": "/shared", "src": "ctl:/shared", "remote_path": "/shared", "server": "ctl", "server_host": "ctl",
        "fstype": "nfs", "options": ["hard", "noac", "_netdev"], "opts": "hard,noac,_netdev",
        "owner": "root", "group": "root", "mode": "0755"}]


def test_plan_storage_group_and_address():
    out = run(server_group=["nas"], server_address="10.10.0.9",
              mounts=[{"path": "/scratch", "src": "/shared/scratch", "mode": "1777"},
                      {"path": "/data", "src": "other:/data", "fstype": "nfs4", "options": []}])
    assert out["errors"] == []
    assert out["server"] == "nas"
    assert [(m["path"], m["src"], m["server_host"], m["opts"], m["mode"]) for m in out["mounts"]] == [
        ("/scratch", "10.10.0.9:/shared/scratch", "nas", "hard,_netdev", "1777"),
        ("/data", "other:/data", None, "defaults", "0755")]


def test_plan_src_naming_the_storage_host_is_checked():
    out = run(mounts=[{"path": "/data", "src": "ctl:/data"}])
    assert out["errors"] == ["shared_storage_mounts[0] (/data): /data is not exported by the storage host ctl "
                             "(shared_storage_exports paths: /shared); add it to shared_storage_exports or fix src"]


def test_plan_mount_without_server():
    out = run(controllers=(), exports=[])
    assert out["errors"] == [
        "shared_storage_mounts[0] (/shared): src /shared names no server and there is no storage host: add a host to "
        "the group storage (or the controller group) and export the path in shared_storage_exports, or write src as "
        "server:/path"]


def test_plan_mounts_of_another_server_need_no_storage_host():
    out = run(controllers=(), exports=[], mounts=[{"path": "/home", "src": "nas01:/export/home"}])
    assert out["errors"] == [] and out["server"] is None
    assert out["mounts"][0]["src"] == "nas01:/export/home"


def test_plan_exports_without_a_server():
    out = run(controllers=(), mounts=[])
    assert out["errors"] == ["shared_storage_exports is set but no host serves it: put the NFS server in the group "
                             "storage (or have a Slurm controller)"]


def test_plan_export_to_a_network_without_cluster_hosts():
    out = run(exports=[{"path": "/shared", "clients": ["10.0.0.0/24"]}])
    assert out["errors"] == [
        "shared_storage_exports[0] (/shared): clients 10.0.0.0/24 let in no cluster host: ctl (172.31.240.2, "
        "10.10.0.1), gpu01 (172.31.240.3). Fix the clients of the export to the network the hosts reach the server "
        "on (for example 172.31.240.0/24), or set ansible_host of the hosts to their address on that network"]


def test_plan_export_clients_unknown_addresses_warn():
    out = run(hosts={"gpu01": {"addresses": [], "names": []}})
    assert out["errors"] == []
    assert out["warnings"][0].startswith("shared_storage_exports[0] (/shared): no address of any cluster host")


def test_plan_export_clients_names_without_addresses():
    hosts = {"gpu01": {"addresses": [], "names": ["gpu01"]}}
    assert run(hosts=hosts, exports=[{"path": "/shared", "clients": ["gpu*"]}])["errors"] == []
    out = run(hosts=hosts, exports=[{"path": "/shared", "clients": ["10.0.0.0/24"]}])
    assert out["errors"] == [] and "no address of any cluster host is known" in out["warnings"][0]
    out = run(hosts=hosts, exports=[{"path": "/shared", "clients": ["ctl*"]}])
    assert out["errors"][0].startswith("shared_storage_exports[0] (/shared): clients ctl* let in no cluster host: "
                                       "gpu01 (no address known)")


def test_plan_netgroups_warn():
    out = run(exports=[{"path": "/shared", "clients": ["@hpc"]}])
    assert out["errors"] == []
    assert "are netgroups" in out["warnings"][0]


def test_plan_export_default_options():
    out = run(exports=[{"path": "/shared/", "clients": ["gpu*"]}])
    assert out["export_lines"] == ["/shared gpu*(rw,sync,no_subtree_check)"]


@pytest.mark.parametrize("overrides, expected", [
    ({"mode": "lustre"}, "shared_storage_mode is 'lustre': set it to nfs"),
    ({"exports_file": "/etc/exports.d/gpuops"}, "shared_storage_exports_file is '/etc/exports.d/gpuops': exportfs"),
    ({"exports": {"path": "/shared"}}, "shared_storage_exports must be a list"),
    ({"exports": ["/shared"]}, "shared_storage_exports[0] must be a mapping"),
    ({"exports": [{"path": "shared", "clients": ["172.31.240.0/24"]}]},
     "shared_storage_exports[0] (shared): path 'shared' is not absolute; write it from / (for example /shared)"),
    ({"exports": [{"path": "/sh ared", "clients": ["172.31.240.0/24"]}]},
     "shared_storage_exports[0] (/sh ared): path '/sh ared' has spaces"),
    ({"exports": [{"path": "/shared", "clients": []}]},
     "shared_storage_exports[0] (/shared): clients must be a non-empty list"),
    ({"exports": [{"path": "/shared", "clients": ["10.0.0.0/33"]}]},
     "shared_storage_exports[0] (/shared): client 10.0.0.0/33 is not a network"),
    ({"exports": [{"path": "/shared", "clients": ["172.31.240.0/24"], "options": ["rw", "no_root_sqash"]}]},
     "shared_storage_exports[0] (/shared): unknown option no_root_sqash"),
    ({"exports": [{"path": "/shared", "clients": ["172.31.240.0/24"], "mode": 755}]},
     "shared_storage_exports[0] (/shared): mode 755 is not an octal mode; write it quoted"),
    ({"exports": [{"path": "/shared", "clients": ["172.31.240.0/24"], "mode": "u+rwx"}]},
     "shared_storage_exports[0] (/shared): mode 'u+rwx' is not an octal mode"),
    ({"exports": [{"path": "/shared", "clients": ["172.31.240.0/24"], "owner": "a b"}]},
     "shared_storage_exports[0] (/shared): owner 'a b' is not a user or group name"),
    ({"exports": [{"path": "/shared", "clients": ["172.31.240.0/24"], "client": "x"}]},
     "shared_storage_exports[0] (/shared): unknown key(s) client; the keys are path, clients"),
    ({"exports": [{"path": "/shared", "clients": ["172.31.240.0/24"]}, {"path": "/shared/", "clients": ["*"]}]},
     "shared_storage_exports[1] (/shared/): /shared/ is exported twice"),
    ({"server_address": "a b"}, "shared_storage_server_address 'a b' is not a host name or address"),
    ({"mounts": [{"path": "shared"}]}, "shared_storage_mounts[0] (shared): path 'shared' is not absolute"),
    ({"mounts": [{"path": "/shared", "options": ["hard", "noack"]}]},
     "shared_storage_mounts[0] (/shared): unknown option noack"),
    ({"mounts": [{"path": "/shared", "fstype": "lustre"}]},
     "shared_storage_mounts[0] (/shared): fstype 'lustre': in shared_storage_mode nfs the role mounts nfs or nfs4"),
    ({"mounts": [{"path": "/shared", "src": "nas:shared"}]},
     "shared_storage_mounts[0] (/shared): src nas:shared is not server:/path"),
    ({"mounts": [{"path": "/shared", "mode": "999"}]}, "shared_storage_mounts[0] (/shared): mode '999'"),
    ({"mounts": [{"path": "/shared"}, {"path": "/shared"}]}, "shared_storage_mounts[1] (/shared): /shared is listed"),
    ({"mounts": "/shared"}, "shared_storage_mounts must be a list"),
])
def test_plan_errors(overrides, expected):
    errors = run(**overrides)["errors"]
    assert len(errors) == 1 and errors[0].startswith(expected), errors


def test_plan_pseudo_root_skips_the_exported_check():
    out = run(exports=[{"path": "/srv/nfs", "clients": ["*"], "options": ["rw", "sync", "fsid=0", "crossmnt"]}],
              mounts=[{"path": "/shared", "src": "/shared", "fstype": "nfs4"}])
    assert out["errors"] == []


def test_plan_external():
    out = run(mode="external", exports=[],
              mounts=[{"path": "/lustre", "fstype": "lustre"},
                      {"path": "/gpfs/", "writable": False, "check_user": "alice"}])
    assert out["errors"] == [] and out["server"] is None and out["export_lines"] == []
    assert out["mounts"] == [
        {"path": "/lustre", "fstype": "lustre", "writable": True, "check_user": "nobody"},
        {"path": "/gpfs", "fstype": "", "writable": False, "check_user": "alice"}]
    assert [m["action"] for m in ss.host_mounts(out, "ctl")] == ["check", "check"]


@pytest.mark.parametrize("mount, expected", [
    ({"path": "/lustre", "writable": "yes"}, "shared_storage_mounts[0] (/lustre): writable 'yes' must be true"),
    ({"path": "/lustre", "check_user": "no body"}, "shared_storage_mounts[0] (/lustre): check_user 'no body'"),
    ({"path": "/lustre", "fstype": "lu stre"}, "shared_storage_mounts[0] (/lustre): fstype 'lu stre'"),
    ({"path": "lustre"}, "shared_storage_mounts[0] (lustre): path 'lustre' is not absolute"),
    ({"path": "/lustre", "check_user": "root"}, "shared_storage_mounts[0] (/lustre): check_user root can write"),
])
def test_plan_external_errors(mount, expected):
    errors = run(mode="external", exports=[], mounts=[mount])["errors"]
    assert len(errors) == 1 and errors[0].startswith(expected), errors


def test_plan_external_ignores_exports():
    out = run(mode="external", mounts=[])
    assert out["errors"] == []
    assert out["warnings"] == ["shared_storage_exports is ignored in shared_storage_mode external"]


def test_host_mounts():
    out = run(exports=[{"path": "/srv/shared", "clients": ["172.31.240.0/24"]},
                       {"path": "/shared", "clients": ["172.31.240.0/24"]}],
              mounts=[{"path": "/shared", "options": ["hard", "_netdev", "nofail"]},
                      {"path": "/data", "src": "/srv/shared", "options": ["hard", "_netdev", "ro"]},
                      {"path": "/home", "src": "nas:/home"}])
    assert out["errors"] == []
    server = ss.host_mounts(out, "ctl")
    assert [(m["path"], m["action"], m["src"], m["fstype"], m["opts"]) for m in server] == [
        ("/shared", "local", "ctl:/shared", "nfs", "hard,_netdev,nofail"),
        ("/data", "bind", "/srv/shared", "none", "bind,ro"),
        ("/home", "nfs", "nas:/home", "nfs", "hard,_netdev")]
    client = ss.host_mounts(out, "gpu01")
    assert [(m["action"], m["src"]) for m in client] == [
        ("nfs", "ctl:/shared"), ("nfs", "ctl:/srv/shared"), ("nfs", "nas:/home")]


def test_plan_refuses_other_shapes():
    with pytest.raises(ss.SharedStorageError):
        ss.plan([], [], [], {})
    with pytest.raises(ss.SharedStorageError):
        ss.plan({}, [], [], [])
