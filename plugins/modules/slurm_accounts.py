#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: slurm_accounts
short_description: Apply Slurm accounts, user associations and fair-share shares with sacctmgr
version_added: 0.1.0
description:
  - Makes the Slurm accounting database of one cluster hold the accounts of O(accounts), each under its
    parent with its fair-share and limits, and the users listed in each account, through C(sacctmgr).
  - Reads the cluster with three C(sacctmgr --noheader --parsable2 show) calls (associations of the cluster
    with C(WOPLimits), accounts, users), plans the C(sacctmgr -i) commands that are missing and runs them in
    a safe order, so a second run changes nothing.
  - 'Order: add accounts (parents first); change description and organization, parent
    (C(modify account where name=X cluster=C set Parent=P)), fair-share and limits; add user associations
    (the default account first); change user fair-share and limits; set default accounts; with O(prune),
    remove user associations and then accounts (sub-accounts first).'
  - A user's default account is the first account, in list order, that lists the user.
  - Accounts and user associations on the cluster that the list does not name are left alone, returned in
    RV(unmanaged) and named in a warning, unless O(prune) is set. The C(root) account and the C(root) user's
    association with it are never changed or removed, and the default account of user C(root) is not changed.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  cluster:
    description:
      - The cluster, as C(ClusterName) in C(slurm.conf). It must already be in the accounting database
        (C(sacctmgr add cluster)).
    type: str
    required: true
  accounts:
    description:
      - The accounts of the cluster, for example one per research group.
      - Slurm stores account names, descriptions and organizations in lower case; the module lower-cases
        them too, so they compare equal.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Account name (letters, digits, C(_), C(.), C(-); not starting with C(-)). Not C(root).
        type: str
        required: true
      description:
        description:
          - Description, by default the name. Without quotes, C(|) or line breaks.
          - Descriptions and organizations belong to the account in the whole database, not to one cluster.
        type: str
      organization:
        description: Organization, by default the name. Same rules as O(accounts[].description).
        type: str
      parent:
        description: C(root) or another account of the list.
        type: str
        default: root
      fairshare:
        description: Fair-share shares, a positive integer, or V(parent) to use the parent's.
        type: raw
        default: 1
      users:
        description:
          - Users of the account, as names or as dicts with C(name) and optionally C(fairshare) and C(limits)
            of that user's association with this account.
          - Without C(fairshare), a new association gets the Slurm default (1) and an existing one keeps its shares.
          - Write user names as Slurm stores them (lower case, unless C(PreserveCaseUser) is set in slurmdbd.conf).
        type: list
        elements: raw
        default: []
      limits:
        description:
          - 'Association limits as sacctmgr takes them, keys among C(GrpTRES), C(GrpJobs), C(GrpSubmitJobs),
            C(MaxJobs), C(MaxSubmitJobs), C(MaxWall), C(MaxTRES), C(MaxTRESPerNode), C(GrpTRESMins), C(QOS),
            C(DefaultQOS) (any case), for example C(GrpTRES: cpu=256,gres/gpu=16) and C(MaxWall: 2-00:00:00).'
          - Only the keys given are managed; an empty value or V(-1) clears that limit. A TRES limit is the
            whole list (TRES that the cluster has and the value does not name are cleared).
          - C(QOS) sets the whole QOS list (no C(+=)/C(-=)); the QOS must exist.
        type: dict
        default: {}
  prune:
    description:
      - Remove the user associations and accounts of the cluster that O(accounts) does not name, never the
        C(root) account or the C(root) user's association with it. With an empty O(accounts) that removes
        every account but C(root).
      - Slurm refuses to remove an association with running jobs; the module then fails with sacctmgr's message.
    type: bool
    default: false
  sacctmgr:
    description: Path of C(sacctmgr). By default it is looked up in E(PATH).
    type: path
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - Run it where C(sacctmgr) reaches slurmdbd as an accounting administrator, usually the controller with
    C(become). Commands run with C(LC_ALL=C).
  - Partition-specific associations (C(add user ... Partition=)) are not read, reported or changed.
  - Limits are compared the way sacctmgr prints them back (C(MaxWall) in minutes, TRES lists in any order,
    memory units, the QOS list as a set). Where sacctmgr answers C(Nothing modified), the module warns and
    goes on.
"""

EXAMPLES = r"""
- name: Accounts of the research groups
  gpuops.cluster.slurm_accounts:
    cluster: lab
    accounts:
      - name: chem
        description: Chemistry
        fairshare: 40
        limits:
          GrpTRES: gres/gpu=16
        users: [alice, bob]
      - name: chem-ml
        parent: chem
        fairshare: parent
        users:
          - name: bob
            fairshare: 5
      - name: physics
        fairshare: 60
        limits:
          MaxWall: "2-00:00:00"
        users: [carol]
  become: true

- name: Same, from inventory, and remove what the inventory no longer lists
  gpuops.cluster.slurm_accounts:
    cluster: "{{ slurm_cluster_name }}"
    accounts: "{{ slurm_accounts }}"
    prune: true
  become: true
"""

RETURN = r"""
commands:
  description: The sacctmgr commands run (in check mode, those that would run), in order.
  returned: always
  type: list
  elements: str
  sample: ["/usr/bin/sacctmgr -i add account chem Cluster=lab Description=chemistry Organization=chem Parent=root Fairshare=40",
           "/usr/bin/sacctmgr -i add user alice Account=chem Cluster=lab DefaultAccount=chem"]
unmanaged:
  description:
    - What the cluster holds and O(accounts) does not name (C(root) left out); removed when O(prune) is set.
    - C(accounts) are account names, C(users) are associations as C(user@account).
  returned: always
  type: dict
  sample: {"accounts": ["old"], "users": ["erin@old"]}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.six.moves import shlex_quote
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import cap, clip
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_accounts import (
    SlurmAccountsError,
    check_cluster,
    current_state,
    diff,
    normalize_desired,
    nothing_to_do,
    parse_parsable,
    plan,
    show_commands,
)

ENV = {"LC_ALL": "C"}


def _message(text):
    """sacctmgr's message on one line (it spreads one over several indented lines)."""
    text = " ".join(line.strip() for line in (text or "").splitlines() if line.strip())
    return (text[:497] + "...") if len(text) > 500 else (text or "no output")


def _command(argv):
    return " ".join(shlex_quote(part) for part in argv)


def _read(module, sacctmgr, cluster):
    rows = {}
    for name, args, fields in show_commands(cluster):
        argv = [sacctmgr] + args
        rc, out, err = module.run_command(argv, environ_update=ENV, errors="replace")
        if rc != 0:
            module.fail_json(msg="slurm_accounts: %s failed (rc=%d): %s" % (_command(argv), rc, _message(err or out)),
                             cmd=_command(argv), rc=rc, stdout=cap(out), stderr=cap(err))
        try:
            rows[name] = parse_parsable(out, fields)
        except SlurmAccountsError as exc:
            module.fail_json(msg=cap("slurm_accounts: %s: %s" % (_command(argv), to_text(exc))), cmd=_command(argv),
                             rc=rc, stdout=cap(out), stderr=cap(err))
    return current_state(rows["associations"], rows["accounts"], rows["users"])


def main():
    module = AnsibleModule(
        argument_spec=dict(
            cluster=dict(type="str", required=True),
            accounts=dict(type="list", elements="dict", required=True, options=dict(
                name=dict(type="str", required=True),
                description=dict(type="str"),
                organization=dict(type="str"),
                parent=dict(type="str", default="root"),
                fairshare=dict(type="raw", default=1),
                users=dict(type="list", elements="raw", default=[]),
                limits=dict(type="dict", default={}),
            )),
            prune=dict(type="bool", default=False),
            sacctmgr=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        cluster = check_cluster(params["cluster"])
        desired = normalize_desired(params["accounts"])
    except SlurmAccountsError as exc:
        module.fail_json(msg=cap("slurm_accounts: %s" % to_text(exc)))
    sacctmgr = params["sacctmgr"] or module.get_bin_path("sacctmgr", required=True)
    try:
        current = _read(module, sacctmgr, cluster)
        result = plan(current, desired, cluster, params["prune"])
        texts = diff(current, desired, params["prune"]) if module._diff else None
    except SlurmAccountsError as exc:
        module.fail_json(msg=cap("slurm_accounts: %s" % to_text(exc)))
    commands = [[sacctmgr] + argv for argv in result["commands"]]
    unmanaged = result["unmanaged"]
    if not params["prune"] and (unmanaged["accounts"] or unmanaged["users"]):
        parts = []
        if unmanaged["accounts"]:
            parts.append("accounts %s" % ", ".join(unmanaged["accounts"]))
        if unmanaged["users"]:
            parts.append("user associations %s" % ", ".join(unmanaged["users"]))
        module.warn("slurm_accounts: cluster %s holds %s that the list does not name; left alone (set prune: true "
                    "to remove them)" % (cluster, clip(" and ".join(parts), 2000)))
    output = dict(changed=bool(commands), commands=[_command(argv) for argv in commands], unmanaged=unmanaged)
    if texts is not None:
        output["diff"] = dict(before_header="sacctmgr cluster=%s" % cluster, after_header="sacctmgr cluster=%s" % cluster,
                              **texts)
    if module.check_mode:
        module.exit_json(**output)
    for index, argv in enumerate(commands):
        rc, out, err = module.run_command(argv, environ_update=ENV, errors="replace")
        if rc == 0:
            continue
        if nothing_to_do(out, err):
            module.warn("slurm_accounts: %s: sacctmgr found nothing to change (%s)" % (_command(argv), _message(out or err)))
            continue
        module.fail_json(msg="slurm_accounts: %s failed (rc=%d): %s" % (_command(argv), rc, _message(err or out)),
                         cmd=_command(argv), rc=rc, stdout=cap(out), stderr=cap(err),
                         commands=output["commands"][:index], unmanaged=unmanaged, changed=index > 0)
    module.exit_json(**output)


if __name__ == "__main__":
    main()
