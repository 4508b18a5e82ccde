# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster's one munge key: which key a run writes and from where (module_utils/slurm/_munge_key.py;
docs: munge_key_plan.yml, munge_asked_sums.yml,
munge_key_content.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_text
from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._munge_key import (
    MungeKeyError,
    asked_sums,
    key_content_b64,
    munge_key_plan,
)


def munge_key_plan_filter(sums, given_sum, controllers, slurm_hosts, asked=None, kind="munge"):
    """The plan for this run's munge key, or with kind="jwt" its JWT key (munge_key_plan)."""
    try:
        return munge_key_plan(given_sum, plain_data(sums), plain_data(controllers), plain_data(slurm_hosts),
                              plain_data(asked) if asked is not None else None, kind=kind)
    except MungeKeyError as exc:
        raise AnsibleFilterError("munge_key_plan: %s" % exc)


def munge_asked_sums(results):
    """{host: checksum, missing or unreachable} from the slurp loop over the hosts asked."""
    try:
        return asked_sums(plain_data(results))
    except MungeKeyError as exc:
        raise AnsibleFilterError("munge_asked_sums: %s" % exc)


def munge_key_content(plan, given="", slurped="", kind="munge"):
    """The key the plan writes, base64 (key_content_b64); a secret, never logged."""
    try:
        # A vaulted key reaches a filter as a string-like object: its text is the key.
        return key_content_b64(plain_data(plan), to_text(given) if given is not None else "",
                               to_text(slurped) if slurped is not None else "", kind=kind)
    except MungeKeyError as exc:
        raise AnsibleFilterError("munge_key_content: %s" % exc)


class FilterModule(object):
    """Filters for the cluster's munge key."""

    def filters(self):
        return {"munge_key_plan": munge_key_plan_filter, "munge_asked_sums": munge_asked_sums,
                "munge_key_content": munge_key_content}
