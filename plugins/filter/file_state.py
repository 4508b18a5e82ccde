# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stale_files: the wanted files a find result shows out of date; probe_checksums: one file's checksum on each
host as its probe found it; stale_sysctls and sysctl_proc_paths: the sysctls ansible.posix.sysctl would change,
from one host_probe read (docs: stale_files.yml, probe_checksums.yml, stale_sysctls.yml, sysctl_proc_paths.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._file_state import (
    FileStateError,
    line_kept,
    probe_text,
    probed_checksums,
    stale_entries,
    stale_sysctls as _stale_sysctls,
    sysctl_proc_path,
)


def stale_files(wanted, found):
    """The entries of wanted that differ from the find result found."""
    try:
        return stale_entries(wanted, found)
    except FileStateError as exc:
        raise AnsibleFilterError("stale_files: %s" % exc)


def probe_checksums(hostvars, hosts, probe_var, path):
    """Each host's checksum of path as its probe found it ('missing' where it has none)."""
    try:
        return probed_checksums(hostvars, list(hosts or []), probe_var, path)
    except FileStateError as exc:
        raise AnsibleFilterError("probe_checksums: %s" % exc)


def stale_sysctls(wanted, contents, sysctl_file, live):
    """The sysctls of wanted that ansible.posix.sysctl would change."""
    try:
        return _stale_sysctls(wanted, contents, sysctl_file, bool(live))
    except FileStateError as exc:
        raise AnsibleFilterError("stale_sysctls: %s" % exc)


def sysctl_proc_paths(keys):
    """The /proc/sys path of each sysctl key."""
    if isinstance(keys, dict):
        keys = list(keys)
    if not isinstance(keys, (list, tuple)):
        raise AnsibleFilterError("sysctl_proc_paths: expected a list of keys, not %r" % (keys,))
    return [sysctl_proc_path(key) for key in keys]


def lineinfile_kept(contents, path, regexp, line):
    """Whether lineinfile (regexp and line) would leave the file host_probe read (contents, base64) as it is."""
    try:
        return line_kept(probe_text(contents, path), regexp, line)
    except FileStateError as exc:
        raise AnsibleFilterError("lineinfile_kept: %s" % exc)


class FilterModule(object):
    """Ansible filters over a find result."""

    def filters(self):
        return {"stale_files": stale_files, "probe_checksums": probe_checksums, "stale_sysctls": stale_sysctls,
                "sysctl_proc_paths": sysctl_proc_paths, "lineinfile_kept": lineinfile_kept}
