# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stale_sysctls against ansible.posix.sysctl itself, and lineinfile_kept against ansible.builtin.lineinfile: on
each file below, the filter says a change is due exactly when the module (in check mode) would report one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible.module_utils.testing import patch_module_args
from ansible.modules import lineinfile
from ansible_collections.ansible.posix.plugins.modules import sysctl as posix_sysctl
from ansible_collections.gpuops.cluster.plugins.filter.file_state import lineinfile_kept, stale_sysctls, sysctl_proc_paths


class _CheckModule(object):
    """What SysctlModule reads of its AnsibleModule: params, check mode, sysctl's path and output."""

    check_mode = True

    def __init__(self, params, running):
        self.params = params
        self.running = running

    def get_bin_path(self, name, required=False):
        return "/sbin/" + name

    def run_command(self, cmd, environ_update=None):
        key = cmd.split()[-1]
        if key not in self.running:
            return 255, "", "sysctl: cannot stat /proc/sys/%s: No such file or directory" % key.replace(".", "/")
        return 0, self.running[key], ""

    def fail_json(self, **kwargs):
        raise AssertionError(kwargs)


def _b64(text):
    return base64.b64encode(text.encode()).decode()


WANTED = {"net.core.rmem_max": 67108864, "net.ipv4.tcp_rmem": "4096 87380 67108864", "kernel.x": "yes"}
FILES = [
    None,
    "",
    "net.core.rmem_max=67108864\nnet.ipv4.tcp_rmem=4096 87380 67108864\nkernel.x=1\n",
    "net.core.rmem_max = 67108864\n; kernel.x=0\nnet.ipv4.tcp_rmem=\t4096 87380 67108864\nkernel.x = 1",
    "net.core.rmem_max=67108864\nnet.core.rmem_max=5\nnet.ipv4.tcp_rmem=4096  87380 67108864\nkernel.x=yes\n",
    "# net.core.rmem_max=67108864\nnet.ipv4.tcp_rmem 4096\nkernel.x=1\n",
]
RUNNING = [
    {"net.core.rmem_max": "67108864\n", "net.ipv4.tcp_rmem": "4096\t87380\t67108864\n", "kernel.x": "1\n"},
    {"net.core.rmem_max": "212992\n", "net.ipv4.tcp_rmem": "4096 131072 6291456\n", "kernel.x": "0\n"},
    {"net.core.rmem_max": "67108864\n"},
]


@pytest.mark.parametrize("live", [True, False])
@pytest.mark.parametrize("running", RUNNING)
@pytest.mark.parametrize("file_text", FILES)
def test_stale_sysctls_agrees_with_the_sysctl_module(tmp_path, file_text, running, live):
    path = tmp_path / "90-gpuops-nccl.conf"
    if file_text is not None:
        path.write_text(file_text)
    module_says = []
    for key, value in WANTED.items():
        params = {"name": key, "value": str(value), "state": "present", "reload": live, "sysctl_set": live,
                  "ignoreerrors": False, "sysctl_file": str(path)}
        if posix_sysctl.SysctlModule(_CheckModule(params, running)).changed:
            module_says.append(key)
    contents = dict((proc, _b64(running[key])) for key, proc in zip(WANTED, sysctl_proc_paths(WANTED)) if key in running)
    if file_text is not None:
        contents[str(path)] = _b64(file_text)
    assert [item["key"] for item in stale_sysctls(WANTED, contents, str(path), live)] == module_says
    assert (path.read_text() if file_text is not None else None) == file_text


def test_garbage_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="stale_sysctls: expected"):
        stale_sysctls([], {}, "/etc/sysctl.conf", True)
    with pytest.raises(AnsibleFilterError, match="sysctl_proc_paths: expected a list"):
        sysctl_proc_paths("net.core.rmem_max")


REGEXP = r"^\s*include\s+/etc/slurm/plugstack\.conf\.d/\*"
LINE = "include /etc/slurm/plugstack.conf.d/*.conf"


@pytest.mark.parametrize("text", [
    None,
    "",
    LINE + "\n",
    LINE,                                          # no newline at the end: the module adds one
    LINE + "\r\n",
    "required /usr/lib/x.so\n" + LINE + "\n",
    "  include /etc/slurm/plugstack.conf.d/*\n",    # the regexp finds another form: replaced
    LINE + "\ninclude /etc/slurm/plugstack.conf.d/*.spank\n",   # the last one found counts
    "include /etc/slurm/plugstack.conf.d/*.spank\n" + LINE + "\n",
    "# " + LINE + "\n",                            # a comment: neither found nor equal
    "include /other/plugstack.conf.d/*.conf\n",
    "a\rb\n" + LINE + "\n",
])
def test_lineinfile_kept_agrees_with_lineinfile(tmp_path, capsys, text):
    path = tmp_path / "plugstack.conf"
    if text is not None:
        path.write_bytes(text.encode())
    with patch_module_args({"path": str(path), "regexp": REGEXP, "line": LINE, "create": True,
                            "_ansible_check_mode": True}):
        with pytest.raises(SystemExit):
            lineinfile.main()
    result = json.loads(capsys.readouterr().out)
    assert not result.get("failed"), result
    contents = {} if text is None else {str(path): _b64(text)}
    assert lineinfile_kept(contents, str(path), REGEXP, LINE) is (not result["changed"])


def test_lineinfile_kept_garbage_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="not base64"):
        lineinfile_kept({"/f": "%%%"}, "/f", "x", "x")
    with pytest.raises(AnsibleFilterError, match="does not compile"):
        lineinfile_kept({"/f": _b64("x")}, "/f", "(", "x")
    with pytest.raises(AnsibleFilterError, match="expected host_probe's contents"):
        lineinfile_kept([], "/f", "x", "x")
