#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: clock_sample
short_description: Read a host's clock against the Ansible controller's, within one round trip
version_added: 0.2.0
description:
  - Runs C(date +%s.%N) on the host over the connection itself (no module is copied), several times, and notes the
    Ansible controller's clock just before and just after each read. The host's time was read somewhere inside that
    round trip, so its offset from the controller's clock is known to within half the round trip.
  - The round trip is timed on the Ansible controller's monotonic clock, so a step of its wall clock during a read
    cannot make the round trip look shorter than it was. Works over any connection that runs commands (ssh, docker,
    local); with become, the read goes through the become method like any command.
  - Returns the read with the shortest round trip. Offsets of two hosts, each against the same Ansible controller,
    give their skew against each other to within the sum of their half round trips; a busy machine makes that
    bound wider, never the measurement wrong (what C(validate)'s clock check relies on).
  - Changes nothing on the host.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  samples:
    description: How many reads to take (1 to 50); the one with the shortest round trip is kept.
      The first read over a new connection is usually the slowest.
    type: int
    default: 5
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
notes:
  - Needs C(date) with C(%N) (GNU coreutils) on the host.
"""

EXAMPLES = r"""
- name: Sample this host's clock
  gpuops.cluster.clock_sample:
  register: sample

- name: Skew of this node against the controller
  ansible.builtin.debug:
    msg: "{{ sample.clock.offset_s - hostvars['ctl'].sample.clock.offset_s }} s"
"""

RETURN = r"""
clock:
  description: The read with the shortest round trip.
  returned: success
  type: dict
  contains:
    offset_s:
      description: The host's clock less the Ansible controller's at the middle of the round trip, in seconds.
      type: float
      sample: 0.0123
    rtt_s:
      description: The round trip of that read, in seconds; the offset is known to within half of it.
      type: float
      sample: 0.084
    samples:
      description: How many reads were taken.
      type: int
      sample: 5
"""
