"""wrk's recorded latencies as the benchmarks' Lua scripts print them (`LATENCIES us:count,…`),
merged over rounds: a percentile over every request of every round, not an average of each
round's percentiles (Benchmarks/fhir-wrk.sh, Benchmarks/people-bench.py)."""
import math


def parse(line):
    """[(microseconds, count)] of a LATENCIES line; ValueError when there is none (a round whose
    latencies are missing would otherwise be left out of the percentiles without a word)."""
    if not line or not line.startswith("LATENCIES"):
        raise ValueError("wrk printed no LATENCIES line")
    body = line.split(" ", 1)[1].strip() if " " in line.strip() else ""
    return [tuple(int(x) for x in pair.split(":")) for pair in body.split(",") if pair]


def percentiles(histograms, *wanted):
    """The `wanted` percentiles (0–100), in milliseconds, of the histograms merged, by wrk's own
    rule (the value at rank round(p/100 × N + 0.5)); ValueError when no request was recorded."""
    counts = {}
    for histogram in histograms:
        for value, count in histogram:
            counts[value] = counts.get(value, 0) + count
    total = sum(counts.values())
    if total == 0:
        raise ValueError("no latencies recorded")
    ordered = sorted(counts.items())
    found = []
    for p in wanted:
        rank = min(total, math.floor(p / 100 * total + 1))
        seen = 0
        for value, count in ordered:
            seen += count
            if seen >= rank:
                found.append(value / 1000)
                break
    return found
