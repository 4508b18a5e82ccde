# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Test harness only (make pytest, tests/pytest_plugins/machine_facts.py): every
# host of a test inventory is this machine, reached with the local connection,
# so its facts are this machine's whoever asks. They are gathered once per
# pytest worker and every playbook run reads them from here, as a run with a
# fact cache would, instead of running the setup module again for each host of
# each test (about half the CPU of a preflight test).
from __future__ import annotations

DOCUMENTATION = r"""
name: gpuops_machine_facts
short_description: Every host starts with this machine's facts, read from a file (test harness)
description:
  - An in-memory fact cache (like C(memory)) whose hosts all start with the facts in the JSON file
    named by the environment variable E(GPUOPS_MACHINE_FACTS), gathered once with the setup module.
  - What a run adds (C(set_fact) with C(cacheable), facts returned by modules) stays in the run's
    memory, as with C(memory), so one test's facts never reach another.
"""

import copy
import json
import os

from ansible.plugins.cache import BaseCacheModule


class CacheModule(BaseCacheModule):
    """In-memory fact cache seeded with one machine's facts for every host."""

    _persistent = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._cache = {}
        with open(os.environ["GPUOPS_MACHINE_FACTS"], encoding="utf-8") as handle:
            self._seed = json.load(handle)

    def get(self, key):
        if key not in self._cache:
            self._cache[key] = copy.deepcopy(self._seed)
        return self._cache[key]

    def set(self, key, value):
        self._cache[key] = value

    def keys(self):
        return self._cache.keys()

    def contains(self, key):
        return True

    def delete(self, key):
        self._cache.pop(key, None)

    def flush(self):
        self._cache = {}
