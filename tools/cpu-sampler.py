"""How busy the machine's cores are while make test runs.

    tools/cpu-sampler.py OUT.tsv [INTERVAL_S]

Reads /proc/stat every INTERVAL_S (default 30) seconds and appends a line
per interval: seconds since the start, then the share of the cores' time
that was busy (user, nice, system, irq, softirq, steal) in that interval, in
percent. tools/test-summary.py reads the file: a run whose cores are busy
all along gains nothing from more parallel work, only from less work.
"""
import sys
import time

BUSY = (0, 1, 2, 5, 6, 7)  # user nice system (idle iowait) irq softirq steal


def read_stat(path="/proc/stat"):
    """(busy, total) jiffies of all cores together."""
    with open(path) as stat:
        fields = [int(x) for x in stat.readline().split()[1:9]]
    return sum(fields[i] for i in BUSY), sum(fields)


def busy_percent(before, after):
    busy = after[0] - before[0]
    total = after[1] - before[1]
    return 100.0 * busy / total if total > 0 else 0.0


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    interval = float(argv[2]) if len(argv) > 2 else 30.0
    start = time.monotonic()
    before = read_stat()
    while True:
        time.sleep(interval)
        after = read_stat()
        with open(argv[1], "a") as out:
            out.write("%d\t%.1f\n" % (time.monotonic() - start, busy_percent(before, after)))
        before = after


if __name__ == "__main__":
    sys.exit(main(sys.argv))
