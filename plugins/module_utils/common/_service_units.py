# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan of the service_units module: which systemd units to enable and
which to start so that every wanted unit runs (and starts at boot), in one
systemctl call each.

Pure functions over the wanted unit names and what ``systemctl show``
reported (host_probe's parse_systemctl_show).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

_UNIT = re.compile(r"^[A-Za-z0-9:_.@-]{1,250}$")


class ServiceUnitsError(Exception):
    """Unit names that cannot be planned."""


def unit_key(name):
    """The name systemctl show reports without .service (as parse_systemctl_show keys it)."""
    return name[: -len(".service")] if name.endswith(".service") else name


def unit_arg(name):
    """The unit as systemctl takes it (a bare name means NAME.service)."""
    return name if "." in name else name + ".service"


def check_names(names):
    """The names, checked: systemd unit names, each once, at least one."""
    if not isinstance(names, list) or not names:
        raise ServiceUnitsError("names must be a non-empty list of systemd unit names, got %s" % shown(names))
    seen = set()
    for name in names:
        if not isinstance(name, str) or not _UNIT.fullmatch(name) or name.startswith("-"):
            raise ServiceUnitsError("%s is not a systemd unit name (letters, digits, : _ . @ -)" % shown(name))
        if unit_key(name) in seen:
            raise ServiceUnitsError("unit %s is listed twice" % name)
        seen.add(unit_key(name))
    return names


def plan(names, found, enabled=True):
    """What to do so every unit of names runs, and (enabled) starts at boot.

    found: {name without .service: {loaded, active, enabled}} from
    parse_systemctl_show. Returns {"missing": [names systemd does not
    know], "enable": [...], "start": [...], "changes": [lines]}, units in
    the order given (systemd orders one start transaction by the units'
    own After= dependencies).
    """
    check_names(names)
    missing, enable, start, changes = [], [], [], []
    for name in names:
        state = found.get(unit_key(name)) or {}
        if not state.get("loaded"):
            missing.append(name)
            continue
        if enabled and not state.get("enabled"):
            enable.append(name)
            changes.append("%s: enabled" % name)
        if not state.get("active"):
            start.append(name)
            changes.append("%s: started (was %s)" % (name, state.get("state", "unknown")))
    return {"missing": missing, "enable": enable, "start": start, "changes": changes}


def not_running(names, found):
    """The units of names that systemctl show does not report active."""
    return [name for name in names if not (found.get(unit_key(name)) or {}).get("active")]
