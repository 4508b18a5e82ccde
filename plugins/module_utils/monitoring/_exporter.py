# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Serving samples to Prometheus with prometheus_client: the one server of the collection's exporters.

The GPU and Slurm exporters (roles/*_exporter/files) gather with their own
code and hand ``serve`` a function returning samples, [(name, labels,
value)]; each scrape calls it once and the samples go out as metric
families (``_gpu_metrics.grouped``), counters as counters. prometheus_client
is imported only here and only when serving, so the pure modules it sits
beside stay importable without it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._gpu_metrics import grouped


def serve(address, port, samples, kind_of=None):
    """Serve samples() on http://address:port/metrics until the process ends."""
    # pylint: disable=import-outside-toplevel,import-error
    from prometheus_client import start_http_server
    from prometheus_client.core import CollectorRegistry, CounterMetricFamily, GaugeMetricFamily

    class Collector(object):
        def collect(self):
            for name, kind, text, keys, rows in grouped(samples(), kind_of):
                family = (CounterMetricFamily if kind == "counter" else GaugeMetricFamily)(name, text, labels=keys)
                for values, value in rows:
                    family.add_metric(values, value)
                yield family

    registry = CollectorRegistry()
    registry.register(Collector())
    start_http_server(int(port), addr=address, registry=registry)
    while True:
        time.sleep(3600)
