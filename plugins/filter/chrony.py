# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""chrony_config: one host's chrony configuration (docs: chrony_config.yml; logic: module_utils/site/_chrony.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _chrony
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def chrony_config(settings):
    """One host's chrony.conf lines, chronyd options and role, with every settings problem in errors."""
    try:
        return _chrony.config(settings)
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("chrony_config: unexpected input (%s: %s)" % (type(exc).__name__, clip(str(exc), 200)))


class FilterModule(object):
    """chrony filters."""

    def filters(self):
        return {"chrony_config": chrony_config}
