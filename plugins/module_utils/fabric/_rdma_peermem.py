# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rdma_peermem role's checks, as pure functions.

* settings_errors(settings): every problem of the role's settings, one
  message each naming the variable, its value and the fix; bad input never
  raises.
* ports(ib, host, expected): what the role says about the host's RDMA ports
  (from the gpuops_ib fact): a one-line summary and, when RDMA is expected
  but no port is Active, the message that says so. A fact of another shape
  raises RdmaPeermemError.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import json_clipped
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

# Locked memory in KiB (limits.conf and LimitMEMLOCK), or unlimited.
_MEMLOCK_RE = re.compile(r"[0-9]{1,18}\Z")
_SHOWN = 60


class RdmaPeermemError(ValueError):
    """A gpuops_ib fact of a shape ib_facts never gives."""


def _json(value):
    """value as to_json writes it (text in double quotes), clipped; never raises."""
    return json_clipped(value, _SHOWN)


def _plain(value):
    """A value as Jinja prints it: text, a number or a boolean as is; anything else quoted and clipped."""
    if isinstance(value, str):
        return value if len(value) <= _SHOWN else value[:_SHOWN - 3] + "..."
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) < 10 ** 18) or value is None:
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return shown(value, _SHOWN)


def settings_errors(settings):
    """Every problem of the rdma_peermem settings, [] when all is well.

    settings: packages (rdma_peermem_packages), default_packages (the OS data's list; None where the role has
    none for the OS), os_family, expected, no_active_port, memlock.
    """
    if not isinstance(settings, dict):
        return ["rdma_peermem_*: the rdma_peermem settings must be a mapping of the rdma_peermem_ variables, not %s"
                % shown(settings, _SHOWN)]
    errors = []
    packages = settings.get("packages")
    if not isinstance(packages, list) or not all(isinstance(name, str) and name.strip() for name in packages):
        errors.append("rdma_peermem_packages %s: rdma_peermem_packages is a list of package names (empty: the OS "
                      "data's)." % _json(packages))
    elif not packages and settings.get("default_packages") is None:
        errors.append("rdma_peermem_packages %s on %s: on an OS without package data, list rdma_peermem_packages."
                      % (_json(packages), _plain(settings.get("os_family"))))
    expected = settings.get("expected")
    if not isinstance(expected, bool) and expected != "auto":
        errors.append("rdma_peermem_expected %s: rdma_peermem_expected is auto, true or false." % _json(expected))
    if settings.get("no_active_port") not in ("fail", "warn"):
        errors.append("rdma_peermem_no_active_port %s: rdma_peermem_no_active_port is fail or warn."
                      % _json(settings.get("no_active_port")))
    memlock = settings.get("memlock")
    if isinstance(memlock, int) and not isinstance(memlock, bool) and 0 <= memlock < 10 ** 18:
        memlock_text = str(memlock)
    else:
        memlock_text = memlock if isinstance(memlock, str) else None
    if memlock_text is None or not (memlock_text == "unlimited" or _MEMLOCK_RE.match(memlock_text)):
        errors.append("rdma_peermem_memlock %s: rdma_peermem_memlock is unlimited or a number of KiB."
                      % _json(memlock))
    return errors


def _ports_of(ib):
    if not isinstance(ib, dict) or not isinstance(ib.get("hcas") or [], list):
        raise RdmaPeermemError("the gpuops_ib fact must be a mapping with a list of hcas, not %s" % shown(ib, _SHOWN))
    found = []
    for hca in ib.get("hcas") or []:
        if not isinstance(hca, dict) or not isinstance(hca.get("ports") or [], list):
            raise RdmaPeermemError("gpuops_ib hca %s is not {name, ports: [...]}" % shown(hca, _SHOWN))
        for port in hca.get("ports") or []:
            if not isinstance(port, dict):
                raise RdmaPeermemError("gpuops_ib port %s of %s is not a mapping"
                                       % (shown(port, _SHOWN), _plain(hca.get("name"))))
            found.append((_plain(hca.get("name")), port))
    return found


def ports(ib, host, expected):
    """{summary, expected, active, states, no_port} of the host's RDMA ports (the gpuops_ib fact).

    expected: rdma_peermem_expected (true, false, or auto: when the host has an RDMA device). no_port is the
    message when RDMA is expected and no port is Active, else "".
    """
    found = _ports_of(ib)
    active = ["%s:%s %s %s Gb/s" % (name, _plain(port.get("port")), _plain(port.get("link_layer") or "?"),
                                    _plain(port.get("rate_gbps")))
              for name, port in found if port.get("state") == "Active"]
    states = ["%s:%s %s/%s" % (name, _plain(port.get("port")), _plain(port.get("state")),
                               _plain(port.get("physical_state"))) for name, port in found]
    selected = ib.get("selected") or []
    selected = [_plain(item) for item in selected] if isinstance(selected, list) else [_plain(selected)]
    summary = "%s: %d RDMA port(s) read from %s; active: %s; NCCL uses: %s." % (
        _plain(host), len(found), _plain(ib.get("source")), ", ".join(active) or "none",
        ", ".join(selected) or "none (NCCL_IB_DISABLE=1)")
    is_expected = expected if isinstance(expected, bool) else bool(ib.get("hcas"))
    no_port = ""
    if is_expected and not active:
        no_port = ("%s: RDMA is expected (rdma_peermem_expected: %s) but no port is Active. Port states: %s. Check "
                   "cabling, the subnet manager (opensm or the switch's) for InfiniBand, or the link for RoCE; set "
                   "rdma_peermem_no_active_port: warn to go on, or rdma_peermem_expected: false on hosts without RDMA."
                   % (_plain(host), _plain(expected), "; ".join(states) or "no RDMA device found"))
    return {"summary": summary, "expected": is_expected, "active": active, "states": states, "no_port": no_port}
