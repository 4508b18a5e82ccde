# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the slurm_compute role (docs: slurm_compute_pam_adopt_errors.yml, slurm_compute_pam_sshd.yml;
logic: module_utils/slurm/_slurm_compute.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _slurm_compute


def slurm_compute_pam_adopt_errors(settings):
    """One message per pam_slurm_adopt setting the role cannot use; [] when all is well."""
    return _slurm_compute.pam_adopt_errors(settings)


def slurm_compute_pam_sshd(current, access_file):
    """sshd's PAM stack (the text of /etc/pam.d/sshd, None when missing) with pam_slurm_adopt."""
    try:
        return _slurm_compute.pam_sshd_with_adopt(current, access_file)
    except _slurm_compute.PamSshdError as exc:
        raise AnsibleFilterError("slurm_compute_pam_sshd: %s" % exc)


class FilterModule(object):
    """Filters of gpuops.cluster.slurm_compute."""

    def filters(self):
        return {"slurm_compute_pam_adopt_errors": slurm_compute_pam_adopt_errors,
                "slurm_compute_pam_sshd": slurm_compute_pam_sshd}
