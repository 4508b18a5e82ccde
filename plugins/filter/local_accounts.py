# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""local_accounts_todo: the accounts a host_probe result shows missing or different
(docs: local_accounts_todo.yml; logic: module_utils/site/_local_accounts.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _local_accounts


def local_accounts_todo(accounts, probe):
    """The groups and users of accounts ({groups, users}) that the probe shows missing or different."""
    if not isinstance(accounts, dict):
        raise AnsibleFilterError("local_accounts_todo: the input must be a dict with groups and users, got %r"
                                 % type(accounts).__name__)
    try:
        return _local_accounts.todo(accounts.get("groups"), accounts.get("users"), probe)
    except _local_accounts.AccountsError as exc:
        raise AnsibleFilterError("local_accounts_todo: %s" % exc)


class FilterModule(object):
    """Local account filters."""

    def filters(self):
        return {"local_accounts_todo": local_accounts_todo}
