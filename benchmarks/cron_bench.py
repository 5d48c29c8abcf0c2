"""Benchmark (not a test): how long R3's schedule arithmetic takes, as the policy pack runs it in a preview.

Each figure is a fresh process's first call (which builds the 400-year calendar once) and then the
median of repeated calls per schedule: parse_schedule, retention_window_seconds for a keep, and
keep_for for a retention in days, including the worst case the issue names (``* * * * *`` with a large
keep) and a daylight-saving zone.

    python benchmarks/cron_bench.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from percona_mysql_k8s.core import cron, cron_zone

CASES = [
    # (schedule, keep for the window, days for keep_for)
    ("0 3 * * *", 8, 7),
    ("0 */6 * * *", 120, 30),
    ("0 1 * * 1-5", 30, 35),
    ("0 0 1 * *", 12, 365),
    ("*/5 * * * 1-5", 20_000, 90),
    ("* * * * *", 500_000, 365),
    ("TZ=America/New_York 30 1 * * *", 30, 30),
    ("TZ=Australia/Lord_Howe 30 1 * * *", 30, 30),
    ("TZ=Europe/Paris */5 * * * *", 20_000, 90),
]


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _parse_anew(text: str) -> None:
    """parse_schedule as on a text it has not seen: its per-text answers and a zone's runs forgotten (a zone's
    offsets over the horizon stay known, as they do after a preview's first zoned schedule)."""
    cron._parse_text.cache_clear()
    cron_zone.zone_runs.cache_clear()
    cron.parse_schedule(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    first = _timed(lambda: cron.keep_for(cron.parse_schedule("0 3 * * *"), 7))
    print(f"first call (builds the calendar): {first * 1000:.1f} ms")
    print(f"{'schedule':34} {'parse ms':>9} {'window ms':>10} {'keep_for ms':>12} {'keep':>8}")
    for text, keep, days in CASES:
        parse = statistics.median(_timed(lambda text=text: _parse_anew(text)) for _ in range(args.repeat))
        schedule = cron.parse_schedule(text)
        # fresh caches per round would hide nothing: the pack parses each resource's schedule anew,
        # but the day pattern and day spans are cached per process, as they are in a preview
        window = _timed(lambda schedule=schedule, keep=keep: cron.retention_window_seconds(schedule, keep))
        found = _timed(lambda schedule=schedule, days=days: cron.keep_for(schedule, days))
        print(f"{text:34} {parse * 1000:9.2f} {window * 1000:10.2f} {found * 1000:12.2f} {cron.keep_for(schedule, days):8}")


if __name__ == "__main__":
    main()
