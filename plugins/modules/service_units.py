#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: service_units
short_description: Make several systemd units run and start at boot, in one call
version_added: 0.3.0
description:
  - Makes every listed systemd unit enabled (with O(enabled)) and active, with one C(systemctl enable)
    and one C(systemctl start) for all of those that need it, instead of one
    M(ansible.builtin.service) call per unit. Units that already run and are enabled are left alone.
  - systemd orders the one start transaction by the units' own dependencies (C(After=)), so
    C(munge) starts before C(slurmctld) whatever the order of the list.
  - It never stops or restarts a unit; restarts belong in handlers (M(ansible.builtin.service)).
author:
  - gpuops.cluster contributors (@gpuops)
options:
  names:
    description: systemd unit names; a name without a suffix means C(NAME.service).
    type: list
    elements: str
    required: true
  enabled:
    description: Also enable each unit at boot.
    type: bool
    default: true
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
notes:
  - Needs systemd. A unit that systemd does not know (its package is not installed) stops the module
    with its name.
  - A unit that does not come up stops the module with the last lines of its journal.
"""

EXAMPLES = r"""
- name: Run munge and slurmd, and start them at boot
  gpuops.cluster.service_units:
    names: [munge, slurmd]
"""

RETURN = r"""
changes:
  description: One line per unit enabled or started (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
  sample: ["munge: enabled", "munge: started (was inactive)"]
started:
  description: The units started (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
enabled_units:
  description: The units enabled (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import cap, clip
from ansible_collections.gpuops.cluster.plugins.module_utils.common._host_probe import HostProbeError, parse_systemctl_show
from ansible_collections.gpuops.cluster.plugins.module_utils.common._service_units import (
    ServiceUnitsError,
    not_running,
    plan,
    unit_arg,
)


def _show(module, systemctl, names):
    argv = [systemctl, "show", "-p", "Id", "-p", "LoadState", "-p", "ActiveState", "-p", "UnitFileState"]
    rc, out, err = module.run_command(argv + [unit_arg(n) for n in names], environ_update={"LC_ALL": "C"},
                                      errors="replace")
    if rc != 0:
        module.fail_json(msg="service_units: systemctl show failed (rc %d): %s" % (rc, clip((err or out).strip(), 297)))
    try:
        return parse_systemctl_show(out)
    except HostProbeError as exc:
        module.fail_json(msg=cap("service_units: %s" % exc))


def _journal(module, name):
    journalctl = module.get_bin_path("journalctl")
    if not journalctl:
        return ""
    rc, out, err = module.run_command([journalctl, "--unit", unit_arg(name), "--lines", "15", "--output", "cat",
                                       "--no-pager"], errors="replace")
    return out.strip() if rc == 0 else ""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            names=dict(type="list", elements="str", required=True),
            enabled=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    names = module.params["names"]
    systemctl = module.get_bin_path("systemctl")
    if not systemctl:
        module.fail_json(msg="service_units: systemctl not found; this module manages systemd units only")
    try:
        todo = plan(names, _show(module, systemctl, names) if names else {}, module.params["enabled"])
    except ServiceUnitsError as exc:
        module.fail_json(msg="service_units: %s" % exc)
    if todo["missing"]:
        module.fail_json(msg="service_units: systemd does not know %s: install the package that ships it first"
                         % ", ".join(todo["missing"]))
    result = dict(changed=bool(todo["changes"]), changes=todo["changes"], started=todo["start"],
                  enabled_units=todo["enable"])
    if module.check_mode:
        module.exit_json(**result)
    for verb, units in (("enable", todo["enable"]), ("start", todo["start"])):
        if not units:
            continue
        rc, out, err = module.run_command([systemctl, verb] + [unit_arg(n) for n in units], errors="replace")
        if rc != 0 and verb == "enable":
            module.fail_json(msg="service_units: systemctl enable %s failed (rc %d): %s"
                             % (" ".join(units), rc, clip((err or out).strip(), 297)), **result)
    down = not_running(todo["start"], _show(module, systemctl, todo["start"])) if todo["start"] else []
    if down:
        module.fail_json(msg="service_units: %s did not start: %s" % (
            ", ".join(down), " / ".join(clip(_journal(module, n).replace("\n", " | "), 600) or "no journal" for n in down)),
            down=down, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
