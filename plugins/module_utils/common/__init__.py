# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers every domain uses: command output as text, bounded numbers, atomic writes, file state,
settings values, systemd units, timed commands, host package and service probes."""
