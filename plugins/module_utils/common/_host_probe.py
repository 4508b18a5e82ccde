# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for the host_probe module: dpkg-query, rpm, versionlock.list and systemctl output.

Pure functions over command output; they raise HostProbeError on output they
cannot read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, guarded, small_int


class HostProbeError(Exception):
    """Command output that does not have the expected shape."""


# Selection states (db:Status-Want) and package states (db:Status-Status) dpkg knows, from dpkg(1).
_DPKG_WANTS = ("unknown", "install", "hold", "deinstall", "purge")
_DPKG_STATUSES = ("not-installed", "config-files", "half-installed", "unpacked", "half-configured",
                  "triggers-awaiting", "triggers-pending", "installed")
_RPM_NOT_INSTALLED = re.compile(r"^package \S+ is not installed$")
# dnf writes locks as name-epoch:version-release.arch, yum as epoch:name-version-release.arch.
_DNF_LOCK = re.compile(r"^(?P<name>.+?)-\d+:[^-]+-[^-]+$")
_YUM_EPOCH = re.compile(r"^[0-9]+:")
_EPOCH = re.compile(r"^[0-9]+$")


def _shown(text, limit=120):
    """repr() of text cut to limit characters, for a one-line message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _not_installed(names):
    return dict((name, {"installed": False, "held": False, "version": None}) for name in names)


def parse_dpkg_query_details(output, names):
    """Each name's state from ``dpkg-query -W -f '${Package} ${db:Status-Status} ${db:Status-Want} ${Version}\\n'``.

    Returns {name: {"installed": bool, "held": bool, "version": str or None}} for every name.
    dpkg-query prints nothing for packages it has never heard of (and says so on
    stderr), so those stay not installed, not held. It does print packages that are
    removed (config-files) or only known (not-installed), with an empty version for
    the latter; their version is None, but a hold on them is reported as dpkg has it.
    A multiarch package printed once per architecture is installed (held) when one
    of its instances is; its version is that of the first installed one.
    """
    result = _not_installed(names)
    for line in as_text(output, "dpkg-query", HostProbeError).splitlines():
        line = line.strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) not in (3, 4) or parts[1] not in _DPKG_STATUSES or parts[2] not in _DPKG_WANTS \
                or (parts[1] == "installed" and len(parts) == 3):
            raise HostProbeError("unexpected dpkg-query line: %s" % _shown(line))
        package, status, want = parts[0].split(":", 1)[0], parts[1], parts[2]  # drop an architecture qualifier
        if package not in result:
            continue
        entry = result[package]
        entry["held"] = entry["held"] or want == "hold"
        if status == "installed" and not entry["installed"]:
            entry["installed"] = True
            entry["version"] = parts[3]
    return result


def parse_rpm_query_details(output, names, locked=()):
    """Each name's state from ``rpm -q --qf '%{NAME} %{EPOCHNUM} %{VERSION}-%{RELEASE}\\n' NAMES``.

    Returns {name: {"installed": bool, "held": bool, "version": str or None}} for every
    name. The version is ``VERSION-RELEASE``, prefixed with ``EPOCH:`` when the epoch is
    not 0. rpm prints ``package X is not installed`` for missing ones. When several
    versions are installed (installonly packages such as kernel), the version is the
    one rpm prints last. ``locked`` holds the name patterns of parse_versionlock_list;
    a name is held when one of them matches it, installed or not.
    """
    result = _not_installed(names)
    for name in names:
        result[name]["held"] = any(fnmatch.fnmatchcase(name, pattern) for pattern in locked)
    for number, line in enumerate(as_text(output, "rpm -q", HostProbeError).splitlines(), 1):
        line = line.strip()
        if not line or _RPM_NOT_INSTALLED.match(line):
            continue
        parts = line.split()
        if len(parts) != 3 or not _EPOCH.match(parts[1]) or "-" not in parts[2]:
            raise HostProbeError("unexpected rpm line: %s" % _shown(line))
        package, epoch, version = parts
        if package in result:
            epoch_number = small_int(epoch, "rpm -q line %d: epoch of %s" % (number, _shown(package)), HostProbeError)
            result[package]["installed"] = True
            result[package]["version"] = version if epoch_number == 0 else "%s:%s" % (epoch, version)
    return result


def parse_versionlock_list(content):
    """Package names locked in a dnf or yum versionlock.list, in file order, each once.

    Entries are what ``dnf versionlock add`` writes (``nvidia-driver-3:535.154.05-1.el9.*``),
    what yum's plugin writes (``3:nvidia-driver-535.154.05-1.el9.*``) or a name without
    version (``nvidia-driver``); the name is what comes before the ``-EPOCH:`` or
    ``-VERSION-RELEASE`` part, and may be a glob as dnf allows. Exclude entries
    (``!name-...``) forbid one version rather than hold the package, so they are skipped,
    as are comments and blank lines.
    """
    names = []
    seen = set()
    for line in as_text(content, "versionlock list", HostProbeError).splitlines():
        entry = line.strip()
        if not entry or entry.startswith("#") or entry.startswith("!"):
            continue
        match = _DNF_LOCK.match(entry)
        if match:
            name = match.group("name")
        else:
            entry = _YUM_EPOCH.sub("", entry)
            parts = entry.rsplit("-", 2)
            # name-version-release when the version looks like one; otherwise a bare name.
            name = parts[0] if len(parts) == 3 and parts[1][:1].isdigit() else entry
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


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
            shown = repr(block)
            raise HostProbeError("systemctl show block without Id: %s" % (shown if len(shown) <= 120 else shown[:120] + "..."))
        name = block["Id"]
        if name.endswith(".service"):
            name = name[: -len(".service")]
        units[name] = {
            "loaded": block.get("LoadState") == "loaded",
            "active": block.get("ActiveState") == "active",
            "enabled": block.get("UnitFileState") in ("enabled", "enabled-runtime", "static", "alias"),
            "state": block.get("ActiveState", "unknown"),
        }

    for raw in as_text(output, "systemctl show", HostProbeError).splitlines():
        line = raw.strip()
        if not line:
            flush()
            block = {}
            continue
        if "=" not in line:
            raise HostProbeError("unexpected systemctl show line: %s" % _shown(line))
        key, value = line.split("=", 1)
        block[key] = value
    flush()
    return units


# No error of Python's own leaves a parser: anything no rule foresaw becomes HostProbeError.
parse_dpkg_query_details = guarded(HostProbeError, 'dpkg-query')(parse_dpkg_query_details)
parse_rpm_query_details = guarded(HostProbeError, 'rpm -q')(parse_rpm_query_details)
parse_versionlock_list = guarded(HostProbeError, 'dnf versionlock list')(parse_versionlock_list)
parse_systemctl_show = guarded(HostProbeError, 'systemctl show')(parse_systemctl_show)
