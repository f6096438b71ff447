"""wrk's recorded latencies as the benchmarks' Lua scripts print them (`LATENCIES us:count,…`),
merged over rounds: a percentile over every request of every round, not an average of each
round's percentiles (Benchmarks/fhir-wrk.sh, Benchmarks/people-bench.py)."""


def parse(line):
    """[(microseconds, count)] of a LATENCIES line; [] for none."""
    if not line or not line.startswith("LATENCIES ") or not line.strip().count(" "):
        return []
    return [tuple(int(x) for x in pair.split(":")) for pair in line.split(" ", 1)[1].strip().split(",") if pair]


def percentiles(histograms, *wanted):
    """The `wanted` percentiles (0–100), in milliseconds, of the histograms merged."""
    counts = {}
    for histogram in histograms:
        for value, count in histogram:
            counts[value] = counts.get(value, 0) + count
    total = sum(counts.values())
    ordered = sorted(counts.items())
    found = []
    for p in wanted:
        seen, at = 0, 0.0
        for value, count in ordered:
            seen += count
            if seen >= total * p / 100:
                at = value / 1000
                break
        found.append(at)
    return found
