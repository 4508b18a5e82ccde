#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: host_probe
short_description: Read users, groups, packages, services and files in one call
version_added: 0.1.0
description:
  - Reports, without changing anything, whether users and groups exist (with their ids), whether
    packages are installed (dpkg or rpm), with their version and whether they are held against
    upgrades, whether systemd services are active and enabled, and the type, owner, mode and checksum
    of files and directories.
  - The roles run it once per host and then call M(ansible.builtin.user), M(ansible.builtin.apt),
    M(ansible.builtin.service) and friends only for what differs, so an up-to-date host costs one
    remote call instead of one per item. Those modules still make every change.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  users:
    description: User names to look up.
    type: list
    elements: str
    default: []
  groups:
    description: Group names to look up.
    type: list
    elements: str
    default: []
  packages:
    description:
      - Package names to look up with dpkg-query or rpm, without version or architecture.
      - Each is reported in RV(packages), RV(package_versions) and RV(package_holds).
    type: list
    elements: str
    default: []
  services:
    description: systemd service names to look up.
    type: list
    elements: str
    default: []
  paths:
    description:
      - Paths to look at. Those that exist are reported in RV(files) with type, owner, group, mode and,
        for regular files, the SHA-1 of their content (as M(ansible.builtin.find) reports them, so the
        C(gpuops.cluster.stale_files) filter reads either); for a symbolic link, C(lnk_source), the path
        it resolves to (as M(ansible.builtin.stat) reports it).
    type: list
    elements: path
    default: []
  patterns:
    description:
      - Shell patterns (C(*), C(?), C([...]), as Python's C(glob) reads them, hidden names not matched by C(*))
        whose matches are reported in RV(files) as O(paths) are, for paths that depend on the host (a
        virtual environment's C(lib/python3.*/site-packages)). A pattern that matches nothing adds nothing.
      - A path given in both O(paths) and a match is reported once.
    type: list
    elements: str
    default: []
  list:
    description:
      - Directories whose entries to name in RV(listings) (names only, sorted, hidden ones too), so that
        looking for C(/usr/local/cuda-*) costs no M(ansible.builtin.find) call of its own. A directory
        that does not exist is left out; one that cannot be read stops the module.
    type: list
    elements: path
    default: []
  marked:
    description:
      - The regular files directly in O(marked.dirs) (not below them, not links, hidden ones too) with
        a line that starts with O(marked.text), as M(ansible.builtin.find) with C(contains) set to that
        text, escaped, finds them, named in RV(marked). Missing directories are left out.
    type: dict
    suboptions:
      dirs:
        description: The directories to look in.
        type: list
        elements: path
        required: true
      text:
        description: The text a line starts with (plain text, not a pattern).
        type: str
        required: true
  read:
    description:
      - Small files whose content to return, base64-encoded, in RV(contents) (a configuration the
        controller runs with, a record of what a daemon was started with), so that reading them costs no
        call of its own. Files that do not exist are left out. A file larger than 1 MiB stops the module.
      - Do not list secrets here; the result is not hidden from logs.
    type: list
    elements: path
    default: []
  gpus:
    description:
      - Also gather this host's GPU facts, as M(gpuops.cluster.gpu_facts) does, and set them as the
        C(gpuops_gpus) fact, so a compute node's probe and its GPU facts cost one call.
      - O(nvidia_smi), O(timeout), O(sysfs_root) and O(dev_root) are those of M(gpuops.cluster.gpu_facts).
    type: bool
    default: false
  nvidia_smi:
    description: With O(gpus), the nvidia-smi to run (default the one on PATH).
    type: path
  timeout:
    description: With O(gpus), the seconds each nvidia-smi call may take (0 for no limit).
    type: int
    default: 30
  sysfs_root:
    description: With O(gpus), where sysfs is mounted.
    type: path
    default: /sys
  dev_root:
    description: With O(gpus), where the device files are.
    type: path
    default: /dev
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
notes:
  - Package lookups need C(dpkg-query) or C(rpm); service lookups need C(systemctl). A lookup whose
    tool is missing fails with the reason.
  - On rpm systems a package is held when the dnf or yum versionlock plugin's list
    (C(/etc/dnf/plugins/versionlock.list), else C(/etc/yum/pluginconf.d/versionlock.list)) locks its name;
    exclude entries (C(!name-version)) are not holds, and dnf5's C(/etc/dnf/versionlock.toml) is not read.
"""

EXAMPLES = r"""
- name: Look at what the Slurm roles manage
  gpuops.cluster.host_probe:
    users: [slurm, munge]
    groups: [slurm, munge]
    packages: [slurmd, munge]
    services: [munge, slurmd]
    paths: [/etc/slurm/slurm.conf]
  register: probe

- name: Install only when something is missing
  ansible.builtin.apt:
    name: [slurmd, munge]
  when: not (probe.packages.values() | list is all)

- name: Look at the NVIDIA driver
  gpuops.cluster.host_probe:
    packages: [nvidia-driver-535]
  register: driver_probe

- name: Install the pinned driver only when another version, or none, is installed
  ansible.builtin.apt:
    name: nvidia-driver-535=535.261.03-1
    allow_downgrade: true
    allow_change_held_packages: "{{ driver_probe.package_holds['nvidia-driver-535'] }}"
  when: driver_probe.package_versions['nvidia-driver-535'] != '535.261.03-1'

- name: Hold it so that upgrades leave it alone
  ansible.builtin.dpkg_selections:
    name: nvidia-driver-535
    selection: hold
  when: not driver_probe.package_holds['nvidia-driver-535']
"""

RETURN = r"""
ansible_facts:
  description: With O(gpus), C(gpuops_gpus), the GPU facts M(gpuops.cluster.gpu_facts) sets.
  returned: when O(gpus) is true
  type: dict
contents:
  description: For each path of O(read) that exists, its content, base64-encoded.
  returned: always
  type: dict
  sample: {"/etc/slurm/slurm.conf": "Q2x1c3Rlck5hbWU9bGFiCg=="}
users:
  description: For each user asked for, C(exists), and C(uid), C(gid), C(home) and C(shell) when it exists.
  returned: always
  type: dict
  sample: {"slurm": {"exists": true, "uid": 64030, "gid": 64030, "home": "/nonexistent", "shell": "/usr/sbin/nologin"}}
groups:
  description: For each group asked for, C(exists), and C(gid) when it exists.
  returned: always
  type: dict
  sample: {"slurm": {"exists": true, "gid": 64030}}
packages:
  description: For each package asked for, whether it is installed.
  returned: always
  type: dict
  sample: {"slurmd": true, "munge": false}
package_versions:
  description:
    - For each package asked for, its installed version, or V(null) when it is not installed.
    - dpkg gives C(${Version}) (with its epoch, if any); rpm gives C(VERSION-RELEASE), prefixed with C(EPOCH:)
      when the epoch is not 0 (V(3:535.154.05-1.el9)). Of several installed rpm versions (kernel), the one rpm lists last.
  returned: always
  type: dict
  sample: {"slurmd": "22.05.8-4", "munge": null}
package_holds:
  description:
    - For each package asked for, whether it is held against upgrades, installed or not.
    - dpkg, when its selection is C(hold) (C(apt-mark hold)); rpm, when the versionlock list locks its name.
  returned: always
  type: dict
  sample: {"slurmd": true, "munge": false}
services:
  description:
    - For each service asked for, C(loaded), C(active), C(enabled) and the systemd C(state).
    - On a host that was not booted with systemd (no C(/run/systemd/system), as sd_booted(3) tests it) every
      service is reported not loaded, not active and not enabled, with the C(state) V(offline).
  returned: always
  type: dict
  sample: {"munge": {"loaded": true, "active": true, "enabled": true, "state": "active"}}
listings:
  description: For each directory of O(list) that exists, the names of its entries, sorted.
  returned: always
  type: dict
  sample: {"/usr/local": ["bin", "cuda", "cuda-12.4", "lib"]}
marked:
  description: The files O(marked) found, sorted by path.
  returned: always
  type: list
  elements: str
  sample: ["/etc/lmod/modulefiles/cuda/12.4.lua"]
files:
  description: One entry per existing path asked for (O(paths), then the matches of O(patterns)), with C(path),
    C(isdir), C(isreg), C(islnk), C(mode), C(uid), C(gid), C(pw_name), C(gr_name), for regular files
    C(checksum) (SHA-1) and for symbolic links C(lnk_source).
  returned: always
  type: list
  elements: dict
  sample: [{"path": "/etc/slurm/slurm.conf", "isdir": false, "isreg": true, "islnk": false, "mode": "0644",
            "uid": 0, "gid": 0, "pw_name": "root", "gr_name": "root", "checksum": "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"}]
"""

import base64
import glob
import grp
import hashlib
import os
import pwd
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_collect import ARGUMENT_SPEC as GPU_ARGUMENT_SPEC, collect
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import cap, clip
from ansible_collections.gpuops.cluster.plugins.module_utils.common._host_probe import (
    HostProbeError,
    parse_dpkg_query_details,
    parse_rpm_query_details,
    parse_systemctl_show,
    parse_versionlock_list,
)

# Where the dnf (EL8 and later) and yum (EL7) versionlock plugins keep their lists; the first that exists is read.
VERSIONLOCK_LISTS = ("/etc/dnf/plugins/versionlock.list", "/etc/yum/pluginconf.d/versionlock.list")


def _users(names):
    result = {}
    for name in names:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            result[name] = {"exists": False}
            continue
        result[name] = {"exists": True, "uid": entry.pw_uid, "gid": entry.pw_gid,
                        "home": entry.pw_dir, "shell": entry.pw_shell}
    return result


def _groups(names):
    result = {}
    for name in names:
        try:
            entry = grp.getgrnam(name)
        except KeyError:
            result[name] = {"exists": False}
            continue
        result[name] = {"exists": True, "gid": entry.gr_gid}
    return result


def _run(module, argv, ok_rcs=(0,)):
    rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"}, errors="replace")
    if rc not in ok_rcs:
        lines = (err or out).strip().splitlines()
        module.fail_json(msg="%s failed: %s" % (argv[0], clip(lines[-1], 297) if lines else "no output"),
                         cmd=argv, rc=rc, stdout=cap(out), stderr=cap(err))
    return out


def _versionlock_names(module):
    for path in VERSIONLOCK_LISTS:
        if not os.path.exists(path):
            continue
        try:
            # Read as bytes: the parser reads what is not UTF-8 as U+FFFD (a text-mode read would raise).
            with open(path, "rb") as handle:
                return parse_versionlock_list(handle.read())
        except (IOError, OSError) as exc:
            module.fail_json(msg="host_probe: cannot read %s: %s" % (path, exc))
    return []


def _packages(module, names):
    """{name: {installed, held, version}} for each package name."""
    if not names:
        return {}
    dpkg = module.get_bin_path("dpkg-query")
    if dpkg:
        # rc 1: some package is unknown to dpkg (it then prints nothing for it).
        out = _run(module, [dpkg, "-W", "-f", "${Package} ${db:Status-Status} ${db:Status-Want} ${Version}\\n"] + names, ok_rcs=(0, 1))
        return parse_dpkg_query_details(out, names)
    rpm = module.get_bin_path("rpm")
    if rpm:
        out = _run(module, [rpm, "-q", "--qf", "%{NAME} %{EPOCHNUM} %{VERSION}-%{RELEASE}\\n"] + names, ok_rcs=tuple(range(0, 256)))
        return parse_rpm_query_details(out, names, _versionlock_names(module))
    module.fail_json(msg="host_probe: neither dpkg-query nor rpm is installed; cannot look up packages %s" % ", ".join(names))


# Where systemd keeps its runtime state while it runs as init: sd_booted(3) tests for this directory.
SYSTEMD_RUNTIME_DIR = "/run/systemd/system"


def _services(module, names):
    if not names:
        return {}
    if not os.path.isdir(SYSTEMD_RUNTIME_DIR):
        # Not booted with systemd (a chroot, a plain container, a build machine that only runs preflight):
        # nothing runs as a unit, and systemctl could not say so.
        return dict((name, {"loaded": False, "active": False, "enabled": False, "state": "offline"}) for name in names)
    systemctl = module.get_bin_path("systemctl", required=True)
    units = [n if "." in n else n + ".service" for n in names]
    out = _run(module, [systemctl, "show", "-p", "Id", "-p", "LoadState", "-p", "ActiveState", "-p", "UnitFileState"] + units)
    found = parse_systemctl_show(out)
    result = {}
    for name in names:
        key = name[: -len(".service")] if name.endswith(".service") else name
        result[name] = found.get(key, {"loaded": False, "active": False, "enabled": False, "state": "unknown"})
    return result


def _name(lookup, ident):
    try:
        return lookup(ident)[0]
    except KeyError:
        return str(ident)


def _files(module, paths):
    result = []
    for path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        entry = {
            "path": path,
            "isdir": stat.S_ISDIR(st.st_mode),
            "isreg": stat.S_ISREG(st.st_mode),
            "islnk": stat.S_ISLNK(st.st_mode),
            "mode": "%04o" % stat.S_IMODE(st.st_mode),
            "uid": st.st_uid,
            "gid": st.st_gid,
            "pw_name": _name(pwd.getpwuid, st.st_uid),
            "gr_name": _name(grp.getgrgid, st.st_gid),
        }
        if entry["isreg"]:
            digest = hashlib.sha1()
            try:
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(65536), b""):
                        digest.update(block)
            except (IOError, OSError) as exc:
                module.fail_json(msg="host_probe: cannot read %s: %s" % (path, exc))
            entry["checksum"] = digest.hexdigest()
        if entry["islnk"]:
            entry["lnk_source"] = os.path.realpath(path)
        result.append(entry)
    return result


def _matches(patterns, paths):
    """The paths, then each pattern's matches (sorted) not already named, in order."""
    seen = set(paths)
    out = list(paths)
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            if path not in seen:
                seen.add(path)
                out.append(path)
    return out


def _listings(module, dirs):
    result = {}
    for path in dirs:
        if not os.path.isdir(path):
            continue
        try:
            result[path] = sorted(os.listdir(path))
        except OSError as exc:
            module.fail_json(msg="host_probe: cannot list %s: %s" % (path, exc))
    return result


def _holds(path, text):
    """Whether a line of the file at path starts with text (read as bytes, line by line)."""
    needle = text.encode("utf-8", "surrogateescape")
    with open(path, "rb") as handle:
        for line in handle:
            if line.startswith(needle):
                return True
    return False


def _marked(module, marked):
    if not marked:
        return []
    found = []
    for folder in marked["dirs"]:
        if not os.path.isdir(folder):
            continue
        try:
            names = os.listdir(folder)
        except OSError as exc:
            module.fail_json(msg="host_probe: cannot list %s: %s" % (folder, exc))
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            try:
                if _holds(path, marked["text"]):
                    found.append(path)
            except (IOError, OSError) as exc:
                module.fail_json(msg="host_probe: cannot read %s: %s" % (path, exc))
    return sorted(found)


READ_LIMIT = 1 << 20


def _contents(module, paths):
    result = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read(READ_LIMIT + 1)
        except (IOError, OSError) as exc:
            if not os.path.lexists(path):
                continue
            module.fail_json(msg="host_probe: cannot read %s: %s" % (path, exc))
        if len(data) > READ_LIMIT:
            module.fail_json(msg="host_probe: %s is larger than %d bytes; read lists small files only" % (path, READ_LIMIT))
        result[path] = base64.b64encode(data).decode("ascii")
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            users=dict(type="list", elements="str", default=[]),
            groups=dict(type="list", elements="str", default=[]),
            packages=dict(type="list", elements="str", default=[]),
            services=dict(type="list", elements="str", default=[]),
            paths=dict(type="list", elements="path", default=[]),
            patterns=dict(type="list", elements="str", default=[]),
            read=dict(type="list", elements="path", default=[]),
            list=dict(type="list", elements="path", default=[]),
            marked=dict(type="dict", options=dict(dirs=dict(type="list", elements="path", required=True),
                                                  text=dict(type="str", required=True, no_log=False))),
            gpus=dict(type="bool", default=False),
            **GPU_ARGUMENT_SPEC
        ),
        supports_check_mode=True,
    )
    try:
        packages = _packages(module, module.params["packages"])
        result = dict(
            changed=False,
            users=_users(module.params["users"]),
            groups=_groups(module.params["groups"]),
            packages=dict((name, state["installed"]) for name, state in packages.items()),
            package_versions=dict((name, state["version"]) for name, state in packages.items()),
            package_holds=dict((name, state["held"]) for name, state in packages.items()),
            services=_services(module, module.params["services"]),
            files=_files(module, _matches(module.params["patterns"], module.params["paths"])),
            contents=_contents(module, module.params["read"]),
            listings=_listings(module, module.params["list"]),
            marked=_marked(module, module.params["marked"]),
        )
    except HostProbeError as exc:
        module.fail_json(msg=cap("host_probe: %s" % exc))
    if module.params["gpus"]:
        result["ansible_facts"] = {"gpuops_gpus": collect(module, module.params)}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
