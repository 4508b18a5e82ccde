# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and expected figures of the validation playbook (plugins/module_utils/validate/_validate.py).

Captures under tests/fixtures/nccl-tests and tests/fixtures/ib_write_bw are
listed in tests/fixtures/VALIDATE_SOURCES.md; the expected values below were
written by hand from reading them, never produced by running the code.
Inline outputs say where they come from; the ones marked "hand-written" are
built from the documented format to reach a case no capture shows.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (
    NODE_KEYS,
    ValidateError,
    expected_internode_busbw,
    expected_intranode_busbw,
    gres_gpu_count,
    gres_gpu_types,
    judge,
    nvlink_gbs_per_link,
    parse_chronyc_tracking,
    parse_ib_write_bw,
    parse_nccl_tests,
    parse_scontrol_nodes,
    parse_timedatectl_show,
    pcie_gbs,
)
from ansible_collections.gpuops.cluster.tests.unit.plugins.module_utils.mutation import mutated as mutated_capture

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))

NCCL_SB_ALLREDUCE = "nccl-tests/superbench_8xA100-SXM4-40GB_all_reduce_old-format_NA-error.txt"
NCCL_SB_BROADCAST = "nccl-tests/superbench_8xA100-SXM4-40GB_broadcast_old-format_root-no-redop.txt"
NCCL_SB_ALLTOALL = "nccl-tests/superbench_8xA100-SXM4-40GB_alltoall_old-format_no-redop.txt"
NCCL_EFA_2NODE = "nccl-tests/awsefaeks_2x-p4d-16xA100_efa_tag-output_max-error-column_section.txt"
NCCL_5090_1GPU = "nccl-tests/nccltests287_1x-rtx5090_all_reduce_avg-busbw-0.txt"
NCCL_5090_FAIL = "nccl-tests/nccltests287_2x-rtx5090_all_reduce_test-nccl-failure.txt"
IB_ALL_SIZES = "ib_write_bw/superbench_ib0_loopback_all-sizes_MBsec_server-client-interleaved.txt"
IB_8MIB = "ib_write_bw/superbench_ib0_loopback_8MiB_MBsec_tabs.txt"
IB_GBITS = "ib_write_bw/perftest273_roce_post-list_8B_Gbsec_duration.txt"

MIB_TO_GBPS = 8 * 1.048576 / 1000


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def raises(call, *args):
    with pytest.raises(ValidateError) as info:
        call(*args)
    return str(info.value)


# --- nccl-tests: real captures -------------------------------------------------------


@pytest.mark.parametrize(
    "name, rows, avg, max_busbw, largest_size, largest_busbw, redop, root",
    [
        # 8x A100 single node, nccl-tests before the root column: "error" column all N/A (-c 0).
        (NCCL_SB_ALLREDUCE, 34, 68.4048, 235.26, 8589934592, (235.26, 235.03), "sum", None),
        # broadcast of the same era prints a root but no redop.
        (NCCL_SB_BROADCAST, 34, 64.8653, 234.70, 8589934592, (232.81, 234.70), "", 0),
        # alltoall of the same era prints neither.
        (NCCL_SB_ALLTOALL, 34, 58.6481, 226.16, 8589934592, (224.31, 226.16), "", None),
        # 2 nodes x 8 A100 over EFA, mpirun --tag-output, max-error floats in the error column.
        (NCCL_EFA_2NODE, 28, 7.80081, 32.84, 1073741824, (32.71, 32.84), "sum", None),
        # 1 GPU: busbw is 0 by definition, and so is the average.
        (NCCL_5090_1GPU, 25, 0.0, 0.0, 134217728, (0.0, 0.0), "sum", -1),
    ],
)
def test_nccl_captures(name, rows, avg, max_busbw, largest_size, largest_busbw, redop, root):
    result = parse_nccl_tests(fixture(name))
    assert len(result["rows"]) == rows
    assert result["avg_busbw"] == pytest.approx(avg)
    assert result["max_busbw"] == pytest.approx(max_busbw)
    largest = result["largest"]
    assert largest["size"] == largest_size
    assert (largest["out_of_place"]["busbw"], largest["in_place"]["busbw"]) == pytest.approx(largest_busbw)
    assert (largest["type"], largest["redop"], largest["root"]) == ("float", redop, root)
    assert result["wrong"] == 0
    assert result["errors"] == []
    assert [row["size"] for row in result["rows"]] == sorted(row["size"] for row in result["rows"])


def test_nccl_allreduce_rows_in_detail():
    result = parse_nccl_tests(fixture(NCCL_SB_ALLREDUCE))
    first, last = result["rows"][0], result["rows"][-1]
    assert first == {
        "size": 0, "count": 0, "type": "float", "redop": "sum", "root": None,
        "out_of_place": {"time_us": 35.20, "algbw": 0.0, "busbw": 0.0, "wrong": None},
        "in_place": {"time_us": 34.05, "algbw": 0.0, "busbw": 0.0, "wrong": None},
    }
    assert last == {
        "size": 8589934592, "count": 2147483648, "type": "float", "redop": "sum", "root": None,
        "out_of_place": {"time_us": 63896.0, "algbw": 134.44, "busbw": 235.26, "wrong": None},
        "in_place": {"time_us": 63959.0, "algbw": 134.30, "busbw": 235.03, "wrong": None},
    }
    assert result["largest"] is last


def test_nccl_tag_output_and_info_lines_are_not_rows():
    result = parse_nccl_tests(fixture(NCCL_EFA_2NODE))
    assert result["rows"][0]["size"] == 8
    assert result["rows"][0]["out_of_place"] == {"time_us": 167.5, "algbw": 0.0, "busbw": 0.0, "wrong": None}
    assert result["rows"][-1]["in_place"] == {"time_us": 61303.0, "algbw": 17.52, "busbw": 32.84, "wrong": None}


def test_nccl_modern_rows_have_integer_wrong_and_root():
    row = parse_nccl_tests(fixture(NCCL_5090_1GPU))["rows"][-1]
    assert row == {
        "size": 134217728, "count": 33554432, "type": "float", "redop": "sum", "root": -1,
        "out_of_place": {"time_us": 175.6, "algbw": 764.34, "busbw": 0.0, "wrong": 0},
        "in_place": {"time_us": 0.08, "algbw": 1777718.25, "busbw": 0.0, "wrong": 0},
    }


def test_nccl_failure_without_rows_quotes_the_failure():
    assert raises(parse_nccl_tests, fixture(NCCL_5090_FAIL)) == (
        "nccl-tests: no result rows; first failure: 'GENOA-06: Test NCCL failure common.cu:392 "
        "'unhandled cuda error (run with NCCL_D...'")


# --- nccl-tests: cases no capture shows (hand-written rows in the printed format) -------

HEADER = (
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
)
ROW_8G = "   8589934592    2147483648     float     sum      -1    39117  219.59  411.73      0    39070  219.86  412.24      0\n"
ROW_1G = "   1073741824     268435456     float     sum      -1   5181.2  207.24  388.57      3   5170.4  207.67  389.38    N/A\n"


def test_nccl_wrong_counts_and_out_of_bounds_failure():
    text = HEADER + ROW_1G + ROW_8G + "# Out of bounds values : 3 FAILED\n# Avg bus bandwidth    : 400.48 \n#\n"
    result = parse_nccl_tests(text)
    assert result["wrong"] == 3
    assert result["rows"][0]["out_of_place"]["wrong"] == 3
    assert result["rows"][0]["in_place"]["wrong"] is None
    assert result["errors"] == ["# Out of bounds values : 3 FAILED"]
    assert result["avg_busbw"] == pytest.approx(400.48)
    assert result["max_busbw"] == pytest.approx(412.24)
    assert result["largest"]["size"] == 8589934592


def test_nccl_warnings_with_rows_are_reported_not_raised():
    text = ("node1:2451:2510 [3] transport/net_ib.cc:90 NCCL WARN NET/IB : Got async event : port error\n"
            + HEADER + ROW_8G)
    result = parse_nccl_tests(text)
    assert len(result["rows"]) == 1
    assert result["errors"] == ["node1:2451:2510 [3] transport/net_ib.cc:90 NCCL WARN NET/IB : Got async event : port error"]
    assert result["avg_busbw"] is None


def test_nccl_srun_label_prefix():
    text = "".join("0: " + line + "\n" for line in (HEADER + ROW_8G).splitlines())
    assert parse_nccl_tests(text)["max_busbw"] == pytest.approx(412.24)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "nccl-tests: empty output"),
        ("  \n\n", "nccl-tests: empty output"),
        (HEADER, "nccl-tests: no result rows in the output: '# out-of-place in-place'"),
        ("bash: all_reduce_perf: command not found\n",
         "nccl-tests: no result rows in the output: 'bash: all_reduce_perf: command not found'"),
        ("localhost: Test CUDA failure common.cu:986 'invalid device ordinal'\n .. localhost pid 179723: Test failure common.cu:893\n",
         "nccl-tests: no result rows; first failure: 'localhost: Test CUDA failure common.cu:986 'invalid device ordinal''"),
        (HEADER + ROW_8G + "# Avg bus bandwidth    : fast\n",
         "nccl-tests: unreadable average bus bandwidth: '# Avg bus bandwidth : fast'"),
        (None, "nccl-tests: output must be text, got NoneType"),
        (12, "nccl-tests: output must be text, got int"),
        # Bytes that are not UTF-8 are read as U+FFFD.
        (b"\xff\xfe", u"nccl-tests: no result rows in the output: '\ufffd\ufffd'"),
        (HEADER + ROW_8G.replace("8589934592", "9" * 5000, 1),
         "nccl-tests line 4: size: the number 999999999999999999999999... has 5000 digits; at most 18 are read"),
        (HEADER + ROW_8G.replace("412.24", "1e999", 1),
         "nccl-tests line 4: busbw: the number 1e999 is too large"),
    ],
)
def test_nccl_errors(text, message):
    assert raises(parse_nccl_tests, text) == message


def test_nccl_bytes_are_decoded():
    assert parse_nccl_tests((HEADER + ROW_8G).encode("utf-8"))["rows"][0]["size"] == 8589934592


@pytest.mark.parametrize(
    "line",
    [
        # truncated rows, text in numeric columns, too many columns: not rows.
        "   8589934592    2147483648     float     sum      -1    39117  219.59  411.73      0    39070",
        "   8589934592    2147483648     float     sum      -1    39117  fast  411.73      0    39070  219.86  412.24      0",
        "   8589934592    2147483648     float     sum      -1    x   y   39117  219.59  411.73      0    39070  219.86  412.24  0",
        "   -8    2     float     sum      -1    39117  219.59  411.73      0    39070  219.86  412.24      0",
        "   8    2     float     -1     sum    39117  219.59  411.73      0    39070  219.86  412.24      0",
        "   8    2     float     sum      -1    39117  219.59  411.73      -1    39070  219.86  412.24      0",
    ],
)
def test_nccl_lines_that_are_not_rows(line):
    assert raises(parse_nccl_tests, HEADER + line + "\n").startswith("nccl-tests: no result rows in the output")


# --- ib_write_bw -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, rows, largest_bytes, average, peak, msg_rate, unit",
    [
        # ib_write_bw -a, server and client of a loopback run interleaved: 23 sizes, the last one twice.
        (IB_ALL_SIZES, 24, 8388608, 23240.68 * MIB_TO_GBPS, 23240.68 * MIB_TO_GBPS, 0.002905, "MB/sec"),
        # one 8 MiB size, both sides, tab-separated.
        (IB_8MIB, 2, 8388608, 24056.72 * MIB_TO_GBPS, 24056.74 * MIB_TO_GBPS, 0.003007, "MB/sec"),
        # --report_gbits -D 60 (no peak in duration mode: 0.00), 8-byte messages.
        (IB_GBITS, 1, 8, 0.48, 0.0, 7.498617, "Gb/sec"),
    ],
)
def test_ib_write_bw_captures(name, rows, largest_bytes, average, peak, msg_rate, unit):
    result = parse_ib_write_bw(fixture(name))
    assert len(result["rows"]) == rows
    assert result["unit"] == unit
    assert result["largest"]["bytes"] == largest_bytes
    assert result["largest"]["bw_average_gbps"] == pytest.approx(average)
    assert result["bw_average_gbps"] == pytest.approx(average)
    assert result["largest"]["bw_peak_gbps"] == pytest.approx(peak)
    assert result["largest"]["msg_rate_mpps"] == pytest.approx(msg_rate)


def test_ib_write_bw_all_sizes_rows():
    rows = parse_ib_write_bw(fixture(IB_ALL_SIZES))["rows"]
    assert [row["bytes"] for row in rows] == [2 ** n for n in range(1, 24)] + [8388608]
    assert rows[0] == {"bytes": 2, "iterations": 2000, "bw_peak_gbps": pytest.approx(5.32 * MIB_TO_GBPS),
                       "bw_average_gbps": pytest.approx(5.30 * MIB_TO_GBPS), "msg_rate_mpps": 2.778732}
    assert rows[11]["bytes"] == 4096 and rows[11]["bw_average_gbps"] == pytest.approx(9948.41 * MIB_TO_GBPS)


@pytest.mark.parametrize("name", [IB_ALL_SIZES, IB_8MIB, IB_GBITS])
def test_ib_write_bw_units_agree_with_message_rate(name):
    # perftest's MB is 2^20 bytes: message rate x size gives back the printed bandwidth
    # only with that factor (194.96 Gb/s at 8 MiB, where 8/1000 alone would give 185.9).
    for row in parse_ib_write_bw(fixture(name))["rows"]:
        if row["bytes"] >= 65536:
            assert row["bw_average_gbps"] == pytest.approx(row["msg_rate_mpps"] * row["bytes"] * 8 / 1000, rel=2e-3)
    row = parse_ib_write_bw(fixture(name))["largest"]
    assert row["bw_average_gbps"] == pytest.approx(row["msg_rate_mpps"] * row["bytes"] * 8 / 1000, rel=0.01)


# Hand-written: a table in the MiB/sec and #sl (QoS) layouts of perftest_parameters.h.
MIB_TABLE = (" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n"
             " 65536      5000             11000.00            10000.00              0.160000\n")
QOS_TABLE = (" #bytes    #sl      #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
             " 65536      3        5000             98.50              97.25              0.185500\n")
PER_PORT_TABLE = (" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]   BW Port1[Gb/sec]"
                  "   MsgRate Port1[Mpps]   BW Port2[Gb/sec]   MsgRate Port2[Mpps]\n"
                  " 65536      5000             190.10              189.90              0.362200      94.95"
                  "   0.181100      94.95   0.181100\n")


@pytest.mark.parametrize(
    "text, row",
    [
        (MIB_TABLE, {"bytes": 65536, "iterations": 5000, "bw_peak_gbps": 11000 * MIB_TO_GBPS,
                     "bw_average_gbps": 10000 * MIB_TO_GBPS, "msg_rate_mpps": 0.16}),
        (QOS_TABLE, {"bytes": 65536, "iterations": 5000, "bw_peak_gbps": 98.5, "bw_average_gbps": 97.25,
                     "msg_rate_mpps": 0.1855}),
        (PER_PORT_TABLE, {"bytes": 65536, "iterations": 5000, "bw_peak_gbps": 190.1, "bw_average_gbps": 189.9,
                          "msg_rate_mpps": 0.3622}),
    ],
)
def test_ib_write_bw_layouts(text, row):
    assert parse_ib_write_bw(text)["rows"] == [pytest.approx(row)]


@pytest.mark.parametrize(
    "text, message",
    [
        # perftest_communication.c messages, as printed on a failed client.
        (" Couldn't connect to 10.224.5.57:18515\nUnable to open file descriptor for socket connection"
         " Unable to init the socket connection\n",
         "ib_write_bw failed: 'Couldn't connect to 10.224.5.57:18515'"),
        (" Failed to modify QP 1243 to RTR\n Unable to Connect the HCA's through the link\n",
         "ib_write_bw failed: 'Failed to modify QP 1243 to RTR'"),
        (" IB device mlx5_9 not found\n Unable to find the Infiniband/RoCE device\n",
         "ib_write_bw failed: 'IB device mlx5_9 not found'"),
        (MIB_TABLE + " Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\n",
         "ib_write_bw failed: 'Completion with error at client'"),
        (" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n",
         "ib_write_bw: the result table has no rows"),
        (" #bytes     #iterations    BW peak[KB/sec]    BW average[KB/sec]   MsgRate[Mpps]\n 65536 5000 1.0 1.0 0.1\n",
         "ib_write_bw: unknown bandwidth unit: '#bytes #iterations BW peak[KB/sec] BW average[KB/sec] MsgRate[Mpps]'"),
        ("************************************\n* Waiting for client to connect... *\n",
         "ib_write_bw: no result table (#bytes ... BW average) in the output: '************************************'"),
        ("", "ib_write_bw: empty output"),
        (None, "ib_write_bw: output must be text, got NoneType"),
    ],
)
def test_ib_write_bw_errors(text, message):
    assert raises(parse_ib_write_bw, text) == message


def test_ib_write_bw_ignores_libibverbs_driver_warnings():
    text = ("libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so': libvmw_pvrdma-rdmav34.so:"
            " cannot open shared object file: No such file or directory\n" + QOS_TABLE)
    assert parse_ib_write_bw(text)["bw_average_gbps"] == pytest.approx(97.25)


# --- scontrol show node --------------------------------------------------------------

# Slurm 24.05 multi-line output pasted in awslabs/awsome-distributed-ai#195.
SCONTROL_ISSUE195 = fixture("scontrol/awsome-distributed-ai195_multiline_idle-drain.txt")

# Hand-written --oneliner lines with the Slurm 22.05/24.11 field set and order of node_info.c.
ONELINER = (
    "NodeName=lab-gpu01 Arch=x86_64 CoresPerSocket=32 CPUAlloc=64 CPUEfctv=128 CPUTot=128 CPULoad=41.27 "
    "AvailableFeatures=h100,ib ActiveFeatures=h100,ib Gres=gpu:nvidia_h100_80gb_hbm3:8(S:0-1) "
    "NodeAddr=10.0.0.11 NodeHostName=lab-gpu01 Version=24.11.1 OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC "
    "Debian 6.1.76-1 (2024-02-01) RealMemory=2000000 AllocMem=1000000 FreeMem=1843211 Sockets=2 Boards=1 "
    "State=MIXED ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu "
    "BootTime=2026-11-20T08:00:01 SlurmdStartTime=2026-11-20T08:01:12 LastBusyTime=2026-11-22T09:58:40 "
    "ResumeAfterTime=None CfgTRES=cpu=128,mem=2000000M,billing=128,gres/gpu=8 "
    "AllocTRES=cpu=64,mem=1000000M,gres/gpu=4 CapWatts=n/a CurrentWatts=0 AveWatts=0 "
    "ExtSensorsJoules=n/a ExtSensorsWatts=0 ExtSensorsTemp=n/a\n"
    "NodeName=lab-gpu02 Arch=x86_64 CoresPerSocket=32 CPUAlloc=0 CPUEfctv=128 CPUTot=128 CPULoad=0.02 "
    "AvailableFeatures=h100,ib ActiveFeatures=h100,ib Gres=gpu:nvidia_h100_80gb_hbm3:8(S:0-1) "
    "NodeAddr=10.0.0.12 NodeHostName=lab-gpu02 Version=24.11.1 OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC "
    "Debian 6.1.76-1 (2024-02-01) RealMemory=2000000 AllocMem=0 FreeMem=1990002 Sockets=2 Boards=1 "
    "State=IDLE+DRAIN ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu "
    "BootTime=2026-11-20T08:00:03 SlurmdStartTime=2026-11-20T08:01:15 LastBusyTime=2026-11-22T09:12:00 "
    "ResumeAfterTime=None CfgTRES=cpu=128,mem=2000000M,billing=128,gres/gpu=8 AllocTRES= CapWatts=n/a "
    "CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/a ExtSensorsWatts=0 ExtSensorsTemp=n/a "
    "Reason=gpuops validate: nccl busbw=312.4 below 360.0 [root@2026-11-22T10:00:00] Comment=rack 4 Extra={\"a\": 1}\n"
    "NodeName=lab-gpu03 Arch=x86_64 CoresPerSocket=32 CPUAlloc=0 CPUEfctv=128 CPUTot=128 CPULoad=N/A "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=lab-gpu03 NodeHostName=lab-gpu03 "
    "RealMemory=2000000 AllocMem=0 FreeMem=N/A Sockets=2 Boards=1 State=DOWN*+DRAIN ThreadsPerCore=2 TmpDisk=0 "
    "Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu BootTime=None SlurmdStartTime=None "
    "LastBusyTime=2026-11-21T17:30:00 ResumeAfterTime=None CfgTRES=cpu=128,mem=2000000M,billing=128 AllocTRES= "
    "CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/a ExtSensorsWatts=0 ExtSensorsTemp=n/a "
    "Reason=Not responding [slurm@2026-11-21T17:35:12]\n"
    "NodeName=lab-cpu01 Arch=x86_64 CoresPerSocket=8 CPUAlloc=0 CPUTot=16 CPULoad=0.00 AvailableFeatures=(null) "
    "ActiveFeatures=(null) Gres=(null) NodeAddr=lab-cpu01 NodeHostName=lab-cpu01 Version=22.05.8 "
    "RealMemory=64000 AllocMem=0 FreeMem=60000 Sockets=2 Boards=1 State=IDLE*+CLOUD+POWERED_DOWN "
    "ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=cpu BootTime=None "
    "SlurmdStartTime=None LastBusyTime=2026-11-22T08:00:00 CfgTRES=cpu=16,mem=64000M,billing=16 AllocTRES= "
    "CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
)


def test_scontrol_multiline_capture():
    nodes = parse_scontrol_nodes(SCONTROL_ISSUE195)
    assert list(nodes) == ["yigou-dev-102-68"]
    node = nodes["yigou-dev-102-68"]
    assert {key: value for key, value in node.items() if key != "fields"} == {
        "state": "IDLE+DRAIN",
        "base_state": "idle",
        "flags": ["drain"],
        "reason": "gres/gpu count reported lower than configured (0 < 1) [slurm@2024-12-19T11:03:34]",
        "gres": "gpu:nvidia-rtx-3090:1",
        "gres_used": "",
        "cfg_tres": "cpu=8,mem=1M,billing=8,gres/gpu=1",
        "alloc_tres": "",
    }
    fields = node["fields"]
    assert fields["OS"] == "Linux 5.10.0-153.12.0.92.oe2203sp2.x86_64 #1 SMP Wed Jun 28 23:04:48 CST 2023"
    assert fields["Partitions"] == "compute100"
    assert fields["AvailableFeatures"] == "(null)"
    assert len(fields) == 35


def test_scontrol_oneliner_nodes():
    nodes = parse_scontrol_nodes(ONELINER)
    assert sorted(nodes) == ["lab-cpu01", "lab-gpu01", "lab-gpu02", "lab-gpu03"]
    states = dict((name, (node["state"], node["base_state"], node["flags"])) for name, node in nodes.items())
    assert states == {
        "lab-gpu01": ("MIXED", "mixed", []),
        "lab-gpu02": ("IDLE+DRAIN", "idle", ["drain"]),
        "lab-gpu03": ("DOWN*+DRAIN", "down", ["drain", "not_responding"]),
        "lab-cpu01": ("IDLE*+CLOUD+POWERED_DOWN", "idle", ["cloud", "powered_down", "not_responding"]),
    }
    gpu01, gpu02, gpu03 = nodes["lab-gpu01"], nodes["lab-gpu02"], nodes["lab-gpu03"]
    assert gpu01["reason"] is None
    assert gpu01["gres"] == "gpu:nvidia_h100_80gb_hbm3:8(S:0-1)"
    assert gpu01["alloc_tres"] == "cpu=64,mem=1000000M,gres/gpu=4"
    assert gpu01["fields"]["OS"] == "Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)"
    assert gpu01["fields"]["ExtSensorsTemp"] == "n/a"
    # busbw=312.4 inside the reason is not a field; Comment= and Extra= are.
    assert gpu02["reason"] == "gpuops validate: nccl busbw=312.4 below 360.0 [root@2026-11-22T10:00:00]"
    assert gpu02["fields"]["Comment"] == "rack 4"
    assert gpu02["fields"]["Extra"] == '{"a": 1}'
    assert "busbw" not in gpu02["fields"]
    assert gpu02["alloc_tres"] == ""
    assert gpu03["reason"] == "Not responding [slurm@2026-11-21T17:35:12]"
    assert gpu03["gres"] == ""
    assert gpu03["fields"]["CPULoad"] == "N/A"
    assert "Version" not in gpu03["fields"]


def test_scontrol_free_text_field_ends_at_a_known_key():
    line = ("NodeName=n1 State=IDLE+DRAIN Reason=bad cable x=1 y=2 [root@2026-01-01T00:00:00] "
            "Comment=see ticket=42 Extra=\n")
    node = parse_scontrol_nodes(line)["n1"]
    assert node["reason"] == "bad cable x=1 y=2 [root@2026-01-01T00:00:00]"
    assert node["fields"]["Comment"] == "see ticket=42"
    assert node["fields"]["Extra"] == ""
    assert "Reason" in NODE_KEYS and "x" not in NODE_KEYS


def test_scontrol_gres_used_detail():
    line = "NodeName=n1 Gres=gpu:a100:4(S:0) GresDrain=N/A GresUsed=gpu:a100:2(IDX:0-1) State=MIXED\n"
    node = parse_scontrol_nodes(line)["n1"]
    assert (node["gres"], node["gres_used"]) == ("gpu:a100:4(S:0)", "gpu:a100:2(IDX:0-1)")


@pytest.mark.parametrize("text", ["", "\n \n", "No nodes in the system\n", b"No nodes in the system\n"])
def test_scontrol_no_nodes(text):
    assert parse_scontrol_nodes(text) == {}


@pytest.mark.parametrize(
    "text, message",
    [
        ("Node lab-gpu09 not found\n", "scontrol show node: line without NodeName=: 'Node lab-gpu09 not found'"),
        ("slurm_load_node error: Unable to contact slurm controller (connect failure)\n",
         "scontrol show node: line without NodeName=: 'slurm_load_node error: Unable to contact slurm controller "
         "(connect failure)'"),
        ("NodeName=n1 State=IDLE\nGres=gpu:2\n", "scontrol show node: line without NodeName=: 'Gres=gpu:2'"),
        ("NodeName=n1 Arch=x86_64\n", "scontrol show node: node n1 has no State="),
        ("NodeName=n1 State=\n", "scontrol show node: node n1 has no State="),
        ("NodeName= State=IDLE\n", "scontrol show node: unreadable NodeName: 'NodeName= State=IDLE'"),
        ("NodeName=n1 State=IDLE\nNodeName=n1 State=DOWN\n", "scontrol show node: node n1 is listed twice"),
        ("NodeName=n1 State=IDLE+\n", "scontrol show node: node n1 has an unreadable State=IDLE+"),
        ("NodeName=n1 State=4\n", "scontrol show node: node n1 has an unreadable State=4"),
        (None, "scontrol show node: output must be text, got NoneType"),
        (3, "scontrol show node: output must be text, got int"),
    ],
)
def test_scontrol_errors(text, message):
    assert raises(parse_scontrol_nodes, text) == message


# --- Gres -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gres, count, types",
    [
        ("gpu:tesla_v100s-pcie-32gb:8", 8, ["tesla_v100s-pcie-32gb"]),
        ("gpu:a100:4(S:0),gpu:h100:2(S:1)", 6, ["a100", "h100"]),
        ("gpu:8", 8, []),
        ("gpu:nvidia_h100_80gb_hbm3:8(S:0-1)", 8, ["nvidia_h100_80gb_hbm3"]),
        ("gpu:nvidia-rtx-3090:1", 1, ["nvidia-rtx-3090"]),
        ("gpu:a100:4(S:0,1),mps:400,nic:2", 4, ["a100"]),
        ("gpu:a100:2(IDX:0-1)", 2, ["a100"]),
        ("gpu:tesla", 1, ["tesla"]),
        ("gpu", 1, []),
        ("gpu:a100:0", 0, ["a100"]),
        ("mps:100", 0, []),
        ("", 0, []),
        ("(null)", 0, []),
    ],
)
def test_gres(gres, count, types):
    assert gres_gpu_count(gres) == count
    assert gres_gpu_types(gres) == types


@pytest.mark.parametrize(
    "gres, message",
    [
        ("gpu:a100:4(S:0", "Gres: unbalanced parentheses: 'gpu:a100:4(S:0'"),
        ("gpu:a100:4),", "Gres: unbalanced parentheses: 'gpu:a100:4),'"),
        ("gpu:a100:4,,gpu:2", "Gres: unreadable entry '' in 'gpu:a100:4,,gpu:2'"),
        ("gpu:4:a100", "Gres: unreadable entry 'gpu:4:a100' in 'gpu:4:a100'"),
        ("gpu::4", "Gres: unreadable entry 'gpu::4' in 'gpu::4'"),
        (None, "Gres: output must be text, got NoneType"),
    ],
)
def test_gres_errors(gres, message):
    assert raises(gres_gpu_count, gres) == message


# --- time synchronisation ------------------------------------------------------------

# Hand-written in the Key=value form of `timedatectl show` (systemd timedatectl(1)); no
# capture of it with a usable licence was found.
TIMEDATECTL_SYNCED = """Timezone=Etc/UTC
LocalRTC=no
CanNTP=yes
NTP=yes
NTPSynchronized=yes
TimeUSec=Sun 2026-11-22 10:00:00 UTC
RTCTimeUSec=Sun 2026-11-22 10:00:00 UTC
"""


@pytest.mark.parametrize(
    "text, ntp, synced",
    [
        (TIMEDATECTL_SYNCED, True, True),
        (TIMEDATECTL_SYNCED.replace("NTPSynchronized=yes", "NTPSynchronized=no"), True, False),
        (TIMEDATECTL_SYNCED.replace("NTP=yes", "NTP=no"), False, True),
        ("Timezone=Etc/UTC\nLocalRTC=no\n", None, None),
    ],
)
def test_timedatectl_show(text, ntp, synced):
    result = parse_timedatectl_show(text)
    assert (result["ntp"], result["ntp_synchronized"]) == (ntp, synced)
    assert result["fields"]["Timezone"] == "Etc/UTC"


def test_timedatectl_show_fields():
    assert parse_timedatectl_show(TIMEDATECTL_SYNCED)["fields"] == {
        "Timezone": "Etc/UTC", "LocalRTC": "no", "CanNTP": "yes", "NTP": "yes", "NTPSynchronized": "yes",
        "TimeUSec": "Sun 2026-11-22 10:00:00 UTC", "RTCTimeUSec": "Sun 2026-11-22 10:00:00 UTC",
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "timedatectl show: empty output"),
        ("Failed to query server: Connection timed out\n",
         "timedatectl show: expected Key=Value: 'Failed to query server: Connection timed out'"),
        ("NTP=maybe\n", "timedatectl show: NTP is not yes or no: 'maybe'"),
        (None, "timedatectl show: output must be text, got NoneType"),
    ],
)
def test_timedatectl_show_errors(text, message):
    assert raises(parse_timedatectl_show, text) == message


# Live `chronyc tracking` of a GPS/PPS stratum-1 server, published at https://ag6qr.net/timeserverstatus.
CHRONY_PPS = """Reference ID    : 50505300 (PPS)
Stratum         : 1
Ref time (UTC)  : Fri Apr 19 22:12:03 2024
System time     : 0.000000072 seconds fast of NTP time
Last offset     : -0.000000011 seconds
RMS offset      : 0.000000195 seconds
Frequency       : 1.789 ppm slow
Residual freq   : -0.000 ppm
Skew            : 0.016 ppm
Root delay      : 0.000000001 seconds
Root dispersion : 0.000011804 seconds
Update interval : 16.0 seconds
Leap status     : Normal
"""
# chrony 1.x example of the Fedora System Administrator's Guide ("Checking chrony Tracking").
CHRONY_FEDORA = """Reference ID    : 1.2.3.4 (a.b.c)
Stratum         : 3
Ref time (UTC)  : Fri Feb  3 15:00:29 2012
System time     : 0.000001501 seconds slow of NTP time
Last offset     : -0.000001632 seconds
RMS offset      : 0.000002360 seconds
Frequency       : 331.898 ppm fast
Residual freq   : 0.004 ppm
Skew            : 0.154 ppm
Root delay      : 0.373169 seconds
Root dispersion : 0.024780 seconds
Update interval : 64.2 seconds
Leap status     : Normal
"""
# Hand-written: what chronyd reports before its first update (client.c prints the
# zero reference ID with an empty name, and "Not synchronised").
CHRONY_UNSYNCED = """Reference ID    : 00000000 ()
Stratum         : 0
Ref time (UTC)  : Thu Jan 01 00:00:00 1970
System time     : 0.000000000 seconds fast of NTP time
Last offset     : +0.000000000 seconds
RMS offset      : 0.000000000 seconds
Frequency       : 0.000 ppm slow
Residual freq   : +0.000 ppm
Skew            : 0.000 ppm
Root delay      : 1.000000000 seconds
Root dispersion : 1.000000000 seconds
Update interval : 0.0 seconds
Leap status     : Not synchronised
"""


@pytest.mark.parametrize(
    "text, expected",
    [
        (CHRONY_PPS, {"reference": "50505300 (PPS)", "offset_s": 7.2e-08, "leap_status": "Normal",
                      "synchronized": True}),
        (CHRONY_FEDORA, {"reference": "1.2.3.4 (a.b.c)", "offset_s": -1.501e-06, "leap_status": "Normal",
                         "synchronized": True}),
        (CHRONY_UNSYNCED, {"reference": "00000000 ()", "offset_s": 0.0, "leap_status": "Not synchronised",
                           "synchronized": False}),
        (CHRONY_PPS.replace("Leap status     : Normal", "Leap status     : Not synchronized"),
         {"reference": "50505300 (PPS)", "offset_s": 7.2e-08, "leap_status": "Not synchronized",
          "synchronized": False}),
        (CHRONY_PPS.replace("50505300 (PPS)", "7F7F0101 ()"),
         {"reference": "7F7F0101 ()", "offset_s": 7.2e-08, "leap_status": "Normal", "synchronized": False}),
        ("Reference ID    : A9FEA97B (169.254.169.123)\nSystem time     : 0.000004416 seconds fast of NTP time\n"
         "Leap status     : Normal\n",
         {"reference": "A9FEA97B (169.254.169.123)", "offset_s": 4.416e-06, "leap_status": "Normal",
          "synchronized": True}),
    ],
)
def test_chronyc_tracking(text, expected):
    result = parse_chronyc_tracking(text)
    assert result == dict(expected, offset_s=pytest.approx(expected["offset_s"], abs=1e-12))


@pytest.mark.parametrize(
    "text, message",
    [
        ("506 Cannot talk to daemon\n", "chronyc tracking: unexpected line: '506 Cannot talk to daemon'"),
        ("", "chronyc tracking: no 'Reference ID' line in the output: ''"),
        (CHRONY_PPS.replace("Leap status     : Normal\n", ""),
         "chronyc tracking: no 'Leap status' line in the output: 'Reference ID : 50505300 (PPS)'"),
        (CHRONY_PPS.replace("0.000000072 seconds fast", "about right"),
         "chronyc tracking: unreadable System time: 'about right of NTP time'"),
        (None, "chronyc tracking: output must be text, got NoneType"),
    ],
)
def test_chronyc_tracking_errors(text, message):
    assert raises(parse_chronyc_tracking, text) == message


# --- expected figures ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, rate",
    [
        ("Tesla P100-SXM2-16GB", 20.0),
        ("Tesla V100-SXM2-32GB", 25.0),
        # the rate of the generation: whether a GPU has links at all comes from its facts.
        ("Tesla V100S-PCIE-32GB", 25.0),
        ("Tesla P100-PCIE-16GB", 20.0),
        ("NVIDIA A100-SXM4-80GB", 25.0),
        ("NVIDIA A800-SXM4-80GB", 25.0),
        ("nvidia a100 80gb pcie", 25.0),
        ("NVIDIA H100 80GB HBM3", 25.0),
        ("NVIDIA H800", 25.0),
        ("NVIDIA H200", 25.0),
        ("NVIDIA GH200 480GB", 25.0),
        ("NVIDIA H20", 25.0),
        ("NVIDIA B200", 50.0),
        ("NVIDIA B100", 50.0),
        ("NVIDIA GB200", 50.0),
        ("NVIDIA B300 SXM6 AC", 50.0),
        ("NVIDIA L40S", None),
        ("NVIDIA GeForce RTX 4090", None),
        ("NVIDIA RTX A1000", None),
        ("NVIDIA H1000", None),
        ("", None),
        (None, None),
    ],
)
def test_nvlink_gbs_per_link(name, rate):
    assert nvlink_gbs_per_link(name) == rate


@pytest.mark.parametrize(
    "gen, width, gbs",
    [
        (1, 16, 4.0), (2, 16, 8.0), (3, 16, 15.76), (4, 16, 31.504), (5, 16, 63.008), (6, 16, 121.008),
        (4, 8, 15.752), (3, 1, 0.985), ("4", "16", 31.504),
        (7, 16, None), (0, 16, None), (None, 16, None), (4, None, None), (4, 0, None), (4, -16, None),
        ("x16", 16, None), (True, 16, None), (4.0, 16, None),
    ],
)
def test_pcie_gbs(gen, width, gbs):
    assert pcie_gbs(gen, width) == gbs


def gpu(name, links, gen=4, width=16):
    nvlinks = dict((str(peer), count) for peer, count in enumerate(links))
    return {"name": name, "nvlinks": nvlinks, "pcie_link": {"max_gen": gen, "max_width": width, "gen": gen}}


H100_NVSWITCH = [gpu("NVIDIA H100 80GB HBM3", [18]) for _index in range(8)]
# DGX-1 hybrid cube mesh: each V100 has 6 links to 4 peers (two doubled).
V100_CUBE = [gpu("Tesla V100-SXM2-32GB", [2, 1, 1, 2]) for _index in range(8)]


@pytest.mark.parametrize(
    "gpus, all_to_all, value, basis",
    [
        (H100_NVSWITCH, True, 450.0, "8 GPUs, NVLink all-to-all: 18 links x 25.0 GB/s per GPU = 450.0 GB/s"),
        (V100_CUBE, False, 150.0, "8 GPUs, NVLink partial mesh: 6 links x 25.0 GB/s per GPU = 150.0 GB/s"),
        (H100_NVSWITCH[:7] + [gpu("NVIDIA H100 80GB HBM3", [16])], True, 400.0,
         "8 GPUs, NVLink all-to-all: 16 links x 25.0 GB/s per GPU = 400.0 GB/s (slowest GPU: 7)"),
        ([gpu("NVIDIA A100-SXM4-80GB", [12]), gpu("NVIDIA A100-SXM4-80GB", [12])], True, 300.0,
         "2 GPUs, NVLink all-to-all: 12 links x 25.0 GB/s per GPU = 300.0 GB/s"),
        ([gpu("NVIDIA GeForce RTX 4090", []) for _index in range(4)], False, 31.504,
         "4 GPUs over PCIe (no NVLink): gen4 x16 = 31.5 GB/s (slowest GPU)"),
        ([gpu("NVIDIA L40S", [], 4, 16), gpu("NVIDIA L40S", [], 3, 16)], False, 15.76,
         "2 GPUs over PCIe (no NVLink): gen3 x16 = 15.8 GB/s (slowest GPU)"),
        (H100_NVSWITCH[:3] + [gpu("NVIDIA H100 80GB HBM3", [0], 5, 16)], False, 31.504,
         "4 GPUs over PCIe (NVLink on only 3 of 4 GPUs): gen4 x16 = 31.5 GB/s (slowest GPU)"),
        ([gpu("NVIDIA L40S", []), dict(gpu("NVIDIA L40S", []), pcie_link=None)], False, None,
         "2 GPUs over PCIe (no NVLink): PCIe link of GPU 1 unknown"),
        ([gpu("NVIDIA Mystery", [4]), gpu("NVIDIA Mystery", [4])], True, None,
         "2 GPUs, NVLink all-to-all: NVLink generation of GPU 0 (NVIDIA Mystery) unknown"),
        ([gpu("NVIDIA H100 80GB HBM3", [18])], True, None, "1 GPU: all-reduce needs 2 or more"),
        ([], True, None, "0 GPU: all-reduce needs 2 or more"),
    ],
)
def test_expected_intranode_busbw(gpus, all_to_all, value, basis):
    result = expected_intranode_busbw(gpus, all_to_all)
    assert result == {"value": value if value is None else pytest.approx(value), "basis": basis}


@pytest.mark.parametrize(
    "gpus, message",
    [
        (None, "expected_intranode_busbw: gpus must be a list, got NoneType"),
        (["gpu0", "gpu1"], "expected_intranode_busbw: GPU 0 must be a dict, got str"),
        ([gpu("NVIDIA H100", [18]), dict(gpu("NVIDIA H100", []), nvlinks=[18])],
         "expected_intranode_busbw: GPU 1 nvlinks must be a dict"),
        ([gpu("NVIDIA H100", [18]), gpu("NVIDIA H100", [-1])],
         "GPU 1: NVLink count must be a non-negative integer, got -1"),
    ],
)
def test_expected_intranode_busbw_errors(gpus, message):
    assert raises(expected_intranode_busbw, gpus, True) == message


def ports(count, rate, layer="InfiniBand"):
    return [{"name": "mlx5_%d:1" % index, "rate_gbps": rate, "link_layer": layer} for index in range(count)]


@pytest.mark.parametrize(
    "nodes, value, basis",
    [
        ({"lab-gpu01": ports(8, 400), "lab-gpu02": ports(8, 400)}, 400.0,
         "slowest node lab-gpu01: 8 ports x 400 Gb/s = 400.0 GB/s"),
        ({"lab-gpu01": ports(8, 400), "lab-gpu02": ports(7, 400)}, 350.0,
         "slowest node lab-gpu02: 7 ports x 400 Gb/s = 350.0 GB/s"),
        ({"a": ports(1, 100, "Ethernet"), "b": ports(2, 100, "Ethernet")}, 12.5,
         "slowest node a: 1 port x 100 Gb/s = 12.5 GB/s"),
        ({"a": ports(1, 400) + ports(1, 200)}, 75.0, "slowest node a: 2 ports, 600 Gb/s in all = 75.0 GB/s"),
        ({"a": ports(4, 53.125)}, 26.5625, "slowest node a: 4 ports x 53.125 Gb/s = 26.6 GB/s"),
        ({"lab-gpu01": ports(8, 400), "lab-gpu02": []}, None, "lab-gpu02 has no RDMA port for NCCL"),
        ({"lab-gpu01": ports(1, 400) + [{"name": "mlx5_1:1", "rate_gbps": 0}]}, None,
         "lab-gpu01: port mlx5_1:1 has no link rate"),
        ({"lab-gpu01": [{"name": "mlx5_0:1", "rate_gbps": None}]}, None, "lab-gpu01: port mlx5_0:1 has no link rate"),
        ({}, None, "no nodes"),
    ],
)
def test_expected_internode_busbw(nodes, value, basis):
    assert expected_internode_busbw(nodes) == {"value": value, "basis": basis}


@pytest.mark.parametrize(
    "nodes, message",
    [
        ([], "expected_internode_busbw: nodes must be a dict, got list"),
        ({"a": "mlx5_0"}, "expected_internode_busbw: ports of a must be a list"),
        ({"a": [{"name": "mlx5_0:1", "rate_gbps": "400"}]},
         "expected_internode_busbw: port mlx5_0:1 of a has an unusable rate_gbps: '400'"),
        ({"a": [{"name": "mlx5_0:1", "rate_gbps": -100}]},
         "expected_internode_busbw: port mlx5_0:1 of a has an unusable rate_gbps: -100"),
        ({"a": [{"name": "mlx5_0:1", "rate_gbps": float("nan")}]},
         "expected_internode_busbw: port mlx5_0:1 of a has an unusable rate_gbps: nan"),
        ({"a": ["mlx5_0"]}, "expected_internode_busbw: port 'mlx5_0' of a must be a dict"),
    ],
)
def test_expected_internode_busbw_errors(nodes, message):
    assert raises(expected_internode_busbw, nodes) == message


@pytest.mark.parametrize(
    "measured, expected, fraction, verdict, message",
    [
        (412.24, 450.0, 0.8, "pass", "412.2 GB/s is 91.6% of the expected 450.0 GB/s (threshold 80%)"),
        (312.4, 450.0, 0.8, "fail", "312.4 GB/s is 69.4% of the expected 450.0 GB/s (threshold 80%)"),
        (360.0, 450.0, 0.8, "pass", "360.0 GB/s is 80.0% of the expected 450.0 GB/s (threshold 80%)"),
        (359.9, 450.0, 0.8, "fail", "359.9 GB/s is 80.0% of the expected 450.0 GB/s (threshold 80%)"),
        (0, 31.504, 0.5, "fail", "0.0 GB/s is 0.0% of the expected 31.5 GB/s (threshold 50%)"),
        (470.73, 450.0, 1, "pass", "470.7 GB/s is 104.6% of the expected 450.0 GB/s (threshold 100%)"),
        (80, 100, 0.925, "fail", "80.0 GB/s is 80.0% of the expected 100.0 GB/s (threshold 92.5%)"),
    ],
)
def test_judge(measured, expected, fraction, verdict, message):
    assert judge(measured, expected, fraction) == (verdict, message)


@pytest.mark.parametrize(
    "measured, expected, fraction, message",
    [
        (400, 450, 0, "judge: fraction must be in (0, 1], got 0"),
        (400, 450, 1.2, "judge: fraction must be in (0, 1], got 1.2"),
        (400, 450, -0.5, "judge: fraction must be in (0, 1], got -0.5"),
        (400, 450, "0.8", "judge: fraction must be in (0, 1], got '0.8'"),
        (400, 450, float("nan"), "judge: fraction must be in (0, 1], got nan"),
        (400, 450, True, "judge: fraction must be in (0, 1], got True"),
        (400, None, 0.8, "judge: expected must be a positive number of GB/s, got None"),
        (400, 0, 0.8, "judge: expected must be a positive number of GB/s, got 0"),
        (None, 450, 0.8, "judge: measured must be a non-negative number of GB/s, got None"),
        (-1, 450, 0.8, "judge: measured must be a non-negative number of GB/s, got -1"),
    ],
)
def test_judge_errors(measured, expected, fraction, message):
    assert raises(judge, measured, expected, fraction) == message


# --- property-based: random and mutated input -> ValidateError or a valid result --------

FUZZ = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NCCL_CAPTURES = [fixture(name) for name in (NCCL_SB_ALLREDUCE, NCCL_SB_BROADCAST, NCCL_SB_ALLTOALL, NCCL_EFA_2NODE,
                                            NCCL_5090_1GPU, NCCL_5090_FAIL)]
IB_CAPTURES = [fixture(name) for name in (IB_ALL_SIZES, IB_8MIB, IB_GBITS)]
TEXT_CAPTURES = [SCONTROL_ISSUE195, ONELINER, TIMEDATECTL_SYNCED, CHRONY_PPS, CHRONY_FEDORA, CHRONY_UNSYNCED]
NOISE = st.text(alphabet=st.one_of(st.sampled_from(list("#=+*:()[], \t\n-.0123456789eNA/")), st.characters()),
                max_size=40)
PARSERS = (parse_scontrol_nodes, parse_nccl_tests, parse_ib_write_bw, parse_timedatectl_show,
           parse_chronyc_tracking, gres_gpu_count, gres_gpu_types)


def mutated(captures):
    return mutated_capture(captures, NOISE)


def finite(value):
    return isinstance(value, float) and not math.isnan(value) and not math.isinf(value)


def check(parser, text):
    try:
        result = parser(text)
    except ValidateError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    if parser is parse_nccl_tests:
        assert result["rows"] and result["largest"] in result["rows"]
        assert result["wrong"] >= 0 and finite(result["max_busbw"])
        for row in result["rows"]:
            assert row["size"] >= 0 and row["count"] >= 0
            for half in (row["out_of_place"], row["in_place"]):
                assert finite(half["busbw"]) and half["busbw"] >= 0
    elif parser is parse_ib_write_bw:
        assert result["rows"] and result["largest"] in result["rows"]
        assert result["unit"] in ("Gb/sec", "MB/sec", "MiB/sec")
    elif parser is parse_scontrol_nodes:
        for name, node in result.items():
            assert name and node["base_state"] and node["fields"]["NodeName"] == name
    elif parser is gres_gpu_count:
        assert result >= 0


@FUZZ
@given(st.sampled_from(PARSERS),
       st.one_of(st.text(max_size=300), st.binary(max_size=100), st.none(), st.integers(), st.floats()))
def test_fuzz_random_input(parser, text):
    check(parser, text)


@FUZZ
@given(st.sampled_from(PARSERS), mutated(NCCL_CAPTURES + IB_CAPTURES + TEXT_CAPTURES))
def test_fuzz_mutated_captures(parser, text):
    check(parser, text)


@FUZZ
@given(st.lists(st.sampled_from(["NodeName=n1", "NodeName=n2", "State=IDLE", "State=DOWN*+DRAIN", "Reason=a b",
                                 "x=y", "OS=Linux 6", "Gres=gpu:a100:2", "Comment=", "=", "+", "*", " ", "\n",
                                 "   ", "Gres=(null)", "NodeName="]), max_size=20))
def test_fuzz_scontrol_tokens(tokens):
    check(parse_scontrol_nodes, " ".join(tokens))
