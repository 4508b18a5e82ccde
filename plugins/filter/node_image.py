# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node_image role's filters: its settings and the image's manifest.

Documentation in node_image_*.yml beside this file; logic in module_utils/site/_node_image.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _node_image
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _node_reimage


def node_image_settings_errors(settings):
    """[] or a message per wrong node_image setting, naming the fix."""
    return _node_image.settings_errors(plain_data(settings))


def node_image_manifest(packages_text, info):
    """The image's manifest from dpkg-query's output and what the build knows."""
    return _node_image.manifest(plain_data(packages_text), plain_data(info))


def node_image_reimage_plan(nodes_text, names, target, batch):
    """The rolling reimage's batches from scontrol -o show node."""
    return _node_reimage.reimage_plan(plain_data(nodes_text), plain_data(names), plain_data(target), plain_data(batch))


def node_image_batch_status(nodes_text, names, target):
    """Where one batch of the rolling reimage stands."""
    return _node_reimage.batch_status(plain_data(nodes_text), plain_data(names), plain_data(target))


class FilterModule(object):
    """node_image filters."""

    def filters(self):
        return {
            "node_image_settings_errors": node_image_settings_errors,
            "node_image_manifest": node_image_manifest,
            "node_image_reimage_plan": node_image_reimage_plan,
            "node_image_batch_status": node_image_batch_status,
        }
