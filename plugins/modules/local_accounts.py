#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: local_accounts
short_description: Local groups and users with fixed ids, in one call
version_added: 0.2.0
description:
  - Makes the listed local groups and users exist with the given gid, uid, primary group, home and
    shell, with C(groupadd), C(groupmod), C(useradd) and C(usermod), all in one remote call instead of
    one M(ansible.builtin.group) or M(ansible.builtin.user) call per account.
  - A group or user that exists with another id is moved to the wanted id, as M(ansible.builtin.group)
    and M(ansible.builtin.user) do.
  - An id that another account already holds stops the module with a message naming both accounts;
    it never takes an id away from another account. Homes are not created (C(useradd -M)).
author:
  - gpuops.cluster contributors (@gpuops)
options:
  groups:
    description: Groups, each with C(name), C(gid) and optionally C(system) (C(groupadd -r)).
    type: list
    elements: dict
    default: []
  users:
    description:
      - Users, each with C(name), C(uid), C(group) (the primary group's name), C(home), C(shell) and
        optionally C(comment) and C(system) (C(useradd -r)).
    type: list
    elements: dict
    default: []
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - Reads the accounts through the C(pwd) and C(grp) modules, so accounts that only a directory service
    (LDAP, SSSD) knows count as present; the collection's daemon accounts are local.
"""

EXAMPLES = r"""
- name: The munge and slurm accounts, with fixed ids
  gpuops.cluster.local_accounts:
    groups:
      - {name: munge, gid: 64030, system: true}
      - {name: slurm, gid: 64031, system: true}
    users:
      - {name: munge, uid: 64030, group: munge, home: /nonexistent, shell: /usr/sbin/nologin, system: true}
      - {name: slurm, uid: 64031, group: slurm, home: /nonexistent, shell: /usr/sbin/nologin, system: true}
"""

RETURN = r"""
changes:
  description: One line per group or user created or changed (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
  sample: ["group munge: created with gid 64030"]
commands:
  description: The commands run (or, in check mode, that would run), in order.
  returned: always
  type: list
  elements: list
"""

import grp
import pwd

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpuops.cluster.plugins.module_utils.site._local_accounts import ensure, host_accounts


def main():
    module = AnsibleModule(
        argument_spec={
            "groups": {"type": "list", "elements": "dict", "default": []},
            "users": {"type": "list", "elements": "dict", "default": []},
        },
        supports_check_mode=True,
    )
    # In check mode nothing runs; otherwise every command ran, or the module failed.
    todo = ensure(module, "local_accounts", module.params["groups"], module.params["users"],
                  host_accounts(grp.getgrall, pwd.getpwall))
    result = {"changed": bool(todo["commands"]), "changes": todo["changes"], "commands": todo["commands"]}
    if module._diff:
        result["diff"] = {"before": "", "after": "".join(line + "\n" for line in todo["changes"])}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
