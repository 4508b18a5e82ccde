# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the pytorch_env role (docs: pytorch_env_*.yml beside this file; logic:
module_utils/site/_pytorch_env_settings.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _pytorch_env_settings as settings_of
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def _call(name, function, *args):
    try:
        return function(*args)
    except settings_of.PytorchEnvError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def pytorch_env_settings_errors(settings):
    """One message per problem, each naming the pytorch_env_ variable and the fix; [] when all is well."""
    return settings_of.settings_errors(settings)


def pytorch_env_pip_env(settings, index):
    """The PIP_* variables pip runs with."""
    return _call("pytorch_env_pip_env", settings_of.pip_env, settings, index)


def pytorch_env_dirs(paths):
    """Every directory level of the paths below the top one, parents first."""
    return _call("pytorch_env_dirs", settings_of.directories, paths)


def pytorch_env_venv_state(files, env_dir, requirements, system_packages, system_dir):
    """What the environment holds and lacks, from host_probe's files."""
    return _call("pytorch_env_venv_state", settings_of.venv_state, files, env_dir, requirements, system_packages,
                 system_dir)


class FilterModule(object):
    """Filters of gpuops.cluster.pytorch_env."""

    def filters(self):
        return {
            "pytorch_env_settings_errors": pytorch_env_settings_errors,
            "pytorch_env_pip_env": pytorch_env_pip_env,
            "pytorch_env_dirs": pytorch_env_dirs,
            "pytorch_env_venv_state": pytorch_env_venv_state,
        }
