# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import hashlib

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.common._file_state import (
    FileStateError,
    content_checksum,
    probed_checksums,
    stale_entries,
    stale_sysctls,
    sysctl_proc_path,
)

CONF = "ClusterName=lab\n"
# What ansible.builtin.find returns (trimmed to the fields we read).
FOUND = {
    "files": [
        {"path": "/etc/slurm", "isdir": True, "isreg": False, "mode": "0755", "pw_name": "root", "gr_name": "root"},
        {"path": "/etc/slurm/slurm.conf", "isdir": False, "isreg": True, "mode": "0644",
         "pw_name": "root", "gr_name": "root", "checksum": hashlib.sha1(CONF.encode()).hexdigest()},
    ]
}


def test_checksum_is_sha1_of_utf8():
    assert content_checksum("é\n") == hashlib.sha1("é\n".encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    "wanted, stale",
    [
        ({"path": "/etc/slurm/slurm.conf", "content": CONF, "owner": "root", "group": "root", "mode": "0644"}, False),
        ({"path": "/etc/slurm/slurm.conf", "content": CONF + "x", "mode": "0644"}, True),
        ({"path": "/etc/slurm/slurm.conf", "content": CONF, "mode": "0600"}, True),
        ({"path": "/etc/slurm/slurm.conf", "content": CONF, "owner": "slurm"}, True),
        ({"path": "/etc/slurm/slurm.conf", "content": CONF, "group": "slurm"}, True),
        ({"path": "/etc/slurm/slurm.conf", "state": "directory"}, True),
        ({"path": "/etc/slurm/", "state": "directory", "mode": "755", "owner": "root"}, False),
        ({"path": "/etc/slurm", "state": "file"}, True),
        ({"path": "/etc/slurm/gres.conf", "content": ""}, True),
        ({"path": "/etc/slurm/slurm.conf"}, False),
        ({"path": "/etc/slurm/slurm.conf", "state": "absent"}, True),
        ({"path": "/etc/slurm/gres.conf", "state": "absent"}, False),
    ],
)
def test_stale(wanted, stale):
    assert stale_entries([wanted], FOUND) == ([wanted] if stale else [])


def test_keeps_order_and_accepts_files_list():
    wanted = [{"path": "/b", "state": "directory"}, {"path": "/etc/slurm", "state": "directory"}, {"path": "/a"}]
    assert stale_entries(wanted, FOUND["files"]) == [wanted[0], wanted[2]]


def test_groups_of_entries_are_cut_one_by_one():
    wanted = {"config": [{"path": "/etc/slurm", "state": "directory"}, {"path": "/a"}],
              "slurmd": [{"path": "/b", "state": "directory"}], "none": []}
    assert stale_entries(wanted, FOUND) == {"config": [{"path": "/a"}], "slurmd": [{"path": "/b", "state": "directory"}],
                                            "none": []}


@pytest.mark.parametrize(
    "wanted, found, message",
    [
        ([{"owner": "root"}], FOUND, "each wanted entry needs a path: {'owner': 'root'}"),
        ([{"path": "/x", "state": "link"}], FOUND, "state 'link' for /x: use file, directory or absent"),
        ([{"path": "/etc/slurm", "state": "directory", "mode": "rw"}], FOUND, "mode 'rw' is not an octal string such as '0644'"),
        ("/etc", FOUND, "expected a list of wanted entries, got str"),
        ({"config": "/etc"}, FOUND, "expected a list of wanted entries under 'config', got str"),
        ([], "nope", "expected the find result or its files list, got str"),
        ([], [{"mode": "0644"}], "find entry without a path: {'mode': '0644'}"),
    ],
)
def test_errors(wanted, found, message):
    with pytest.raises(FileStateError) as exc:
        stale_entries(wanted, found)
    assert str(exc.value) == message


def test_probed_checksums_one_per_host_missing_where_the_probe_lacks_it():
    key = "/etc/munge/munge.key"
    hostvars = {
        "ctl": {"__slurm_probe": {"files": [{"path": "/etc/slurm/slurm.conf", "checksum": "a"},
                                            {"path": key, "checksum": "k1"}]}},
        "gpu01": {"__slurm_probe": {"files": [{"path": key, "checksum": "k1"}]}},
        "gpu02": {"__slurm_probe": {"files": [{"path": key}]}},      # there, but no checksum read
        "gpu03": {"__slurm_probe": {"files": []}},
        "gpu04": {},                                                  # not probed (left out by --limit)
    }
    assert probed_checksums(hostvars, ["ctl", "gpu01", "gpu02", "gpu03", "gpu04", "gone"], "__slurm_probe", key) == [
        "k1", "k1", "missing", "missing", "missing", "missing"]
    assert probed_checksums(hostvars, [], "__slurm_probe", key) == []


def _b64(text):
    return base64.b64encode(text.encode()).decode()


SYSCTL_FILE = "/etc/sysctl.d/90-gpuops-nccl.conf"
WANTED = {"net.core.rmem_max": 67108864, "net.ipv4.tcp_rmem": "4096 87380 67108864"}
GOOD_FILE = "net.core.rmem_max=67108864\nnet.ipv4.tcp_rmem=4096 87380 67108864\n"
LIVE = {"/proc/sys/net/core/rmem_max": "67108864\n", "/proc/sys/net/ipv4/tcp_rmem": "4096\t87380\t67108864\n"}


def _contents(file_text, live=None):
    out = {} if file_text is None else {SYSCTL_FILE: _b64(file_text)}
    out.update(dict((path, _b64(text)) for path, text in (live or {}).items()))
    return out


@pytest.mark.parametrize("file_text, live_values, live, stale", [
    (GOOD_FILE, LIVE, True, []),
    (GOOD_FILE, {}, False, []),                       # a container: the file alone
    (GOOD_FILE, {}, True, ["net.core.rmem_max", "net.ipv4.tcp_rmem"]),   # /proc/sys lacks them
    (None, LIVE, True, ["net.core.rmem_max", "net.ipv4.tcp_rmem"]),      # no file
    ("net.core.rmem_max = 67108864\n# net.ipv4.tcp_rmem=1\nnet.ipv4.tcp_rmem =4096 87380 67108864 \n", LIVE, True, []),
    ("net.core.rmem_max=67108864\nnet.core.rmem_max=1\nnet.ipv4.tcp_rmem=4096 87380 67108864\n", LIVE, True,
     ["net.core.rmem_max"]),                           # the last line counts
    ("net.core.rmem_max=67108864\nnet.ipv4.tcp_rmem=4096  87380 67108864\n", LIVE, False,
     ["net.ipv4.tcp_rmem"]),                           # the file compares as text
    (GOOD_FILE, dict(LIVE, **{"/proc/sys/net/core/rmem_max": "212992\n"}), True, ["net.core.rmem_max"]),
    (GOOD_FILE, dict(LIVE, **{"/proc/sys/net/core/rmem_max": "212992\n"}), False, []),
])
def test_stale_sysctls(file_text, live_values, live, stale):
    found = stale_sysctls(WANTED, _contents(file_text, live_values), SYSCTL_FILE, live)
    assert [item["key"] for item in found] == stale
    for item in found:
        assert item["value"] == WANTED[item["key"]]


def test_sysctl_values_read_as_the_module_reads_them():
    contents = _contents("kernel.x=1\nkernel.y=0\n")
    assert stale_sysctls({"kernel.x": "yes", "kernel.y": False}, contents, SYSCTL_FILE, False) == []
    assert sysctl_proc_path("net.core.rmem_max") == "/proc/sys/net/core/rmem_max"
    assert sysctl_proc_path("net/ipv4/conf/eth0.100/rp_filter") == "/proc/sys/net/ipv4/conf/eth0.100/rp_filter"


@pytest.mark.parametrize("args, message", [
    (([], {}, SYSCTL_FILE, False), "expected the wanted sysctls"),
    (({"a.b": 1}, {SYSCTL_FILE: "%%%"}, SYSCTL_FILE, False), "is not base64"),
])
def test_stale_sysctls_refuses_garbage(args, message):
    with pytest.raises(FileStateError, match=message):
        stale_sysctls(*args)
