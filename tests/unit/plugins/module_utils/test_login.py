# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A login node's per-user limits (module_utils/site/_login.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site._login import (
    root_slice_dropin,
    settings_errors,
    user_slice_dropin,
)

DEFAULTS = {"cpu_quota_pct": 400, "memory_max_pct": 25, "tasks_max": 4096}


def test_the_defaults_limit_every_user():
    assert settings_errors(DEFAULTS) == []
    text = user_slice_dropin(DEFAULTS)
    assert "[Slice]\n" in text
    assert "\nCPUQuota=400%\n" in text
    assert "\nMemoryMax=25%\n" in text
    assert text.endswith("\nTasksMax=4096\n")


def test_zero_turns_a_limit_off():
    text = user_slice_dropin({"cpu_quota_pct": 0, "memory_max_pct": "0", "tasks_max": 0})
    assert "\nCPUQuota=\n" in text
    assert "\nMemoryMax=infinity\n" in text
    assert "\nTasksMax=infinity\n" in text


def test_root_is_never_limited():
    text = root_slice_dropin()
    assert "\nMemoryMax=infinity\n" in text and "\nCPUQuota=\n" in text and "\nTasksMax=infinity\n" in text


@pytest.mark.parametrize("changes, variable", [
    ({"memory_max_pct": 250}, "slurm_login_user_memory_max_pct is 250"),
    ({"cpu_quota_pct": -1}, "slurm_login_user_cpu_quota_pct is -1"),
    ({"cpu_quota_pct": "lots"}, "slurm_login_user_cpu_quota_pct is 'lots'"),
    ({"tasks_max": True}, "slurm_login_user_tasks_max is True"),
    ({"tasks_max": 3}, "slurm_login_user_tasks_max is 3"),
    ({"memory_max_pct": None}, "slurm_login_user_memory_max_pct is None"),
])
def test_wrong_settings_name_the_variable_and_the_fix(changes, variable):
    settings = dict(DEFAULTS, **changes)
    errors = settings_errors(settings)
    assert len(errors) == 1 and errors[0].startswith(variable), errors
    assert "or 0 for no limit" in errors[0]
    assert user_slice_dropin(settings) == ""


@pytest.mark.parametrize("garbage", [None, [], "x", 3])
def test_garbage_is_a_message(garbage):
    errors = settings_errors(garbage)
    assert len(errors) == 1 and errors[0].startswith("the slurm_login settings must be a mapping, not ")
    assert user_slice_dropin(garbage) == ""
