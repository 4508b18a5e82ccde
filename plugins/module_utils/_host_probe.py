# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for the host_probe module: dpkg-query, rpm and systemctl output.

Pure functions over command output; they raise HostProbeError on output they
cannot read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class HostProbeError(Exception):
    """Command output that does not have the expected shape."""


def parse_dpkg_query(output, names):
    """Installed state of each name from ``dpkg-query -W -f '${Package} ${db:Status-Status}\\n'``.

    dpkg-query prints nothing for unknown packages (and says so on stderr),
    so every name starts as not installed.
    """
    result = dict((name, False) for name in names)
    for line in output.splitlines():
        line = line.strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise HostProbeError("unexpected dpkg-query line: %r" % line)
        package, status = parts
        package = package.split(":", 1)[0]  # drop an architecture qualifier
        if package in result:
            result[package] = result[package] or status == "installed"
    return result


def parse_rpm_query(output, names):
    """Installed state of each name from ``rpm -q --qf '%{NAME}\\n' NAMES``.

    rpm prints ``package X is not installed`` for missing ones.
    """
    result = dict((name, False) for name in names)
    for line in output.splitlines():
        line = line.strip()
        if not line or line.startswith("package ") and line.endswith(" is not installed"):
            continue
        if line in result:
            result[line] = True
    return result


def parse_systemctl_show(output):
    """Units from ``systemctl show -p Id -p LoadState -p ActiveState -p UnitFileState U...``.

    Returns {unit name without .service: {loaded, active, enabled, state}}.
    Blocks are separated by blank lines; each starts with Id=.
    """
    units = {}
    block = {}

    def flush():
        if not block:
            return
        if "Id" not in block:
            raise HostProbeError("systemctl show block without Id: %r" % (block,))
        name = block["Id"]
        if name.endswith(".service"):
            name = name[: -len(".service")]
        units[name] = {
            "loaded": block.get("LoadState") == "loaded",
            "active": block.get("ActiveState") == "active",
            "enabled": block.get("UnitFileState") in ("enabled", "enabled-runtime", "static", "alias"),
            "state": block.get("ActiveState", "unknown"),
        }

    for raw in output.splitlines():
        line = raw.strip()
        if not line:
            flush()
            block = {}
            continue
        if "=" not in line:
            raise HostProbeError("unexpected systemctl show line: %r" % line)
        key, value = line.split("=", 1)
        block[key] = value
    flush()
    return units
