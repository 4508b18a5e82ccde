# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Monitoring: the Prometheus and Alertmanager plan, the exporters and their metrics, the alert rules,
Grafana dashboards and settings."""
