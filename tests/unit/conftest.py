# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property tests judge results, never speed: no Hypothesis deadline, so a busy machine cannot fail a test.
(The tests that do bound a cost measure this process's CPU time, in test_hostile_input.py.)"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from hypothesis import settings

settings.register_profile("gpuops", deadline=None)
settings.load_profile("gpuops")
