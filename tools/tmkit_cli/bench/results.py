"""The samples of a benchmark run, per (case, threads, configuration), and their aggregates
(medians, ratios to the reference configurations, how evenly threads shared the work)."""
import statistics

from .execute import describe_rc


class Results:
    """Samples per (case name, threads, config name); aggregates on demand."""

    def __init__(self):
        self.samples = {}   # key -> [ops_per_s]
        self.ns = {}        # key -> [ns_per_op]
        self.share = {}     # key -> [min_share]: the slowest thread's ops over the mean
        self.failures = {}  # key -> [reason]
        self.by_repeat = {}  # key -> {repeat: ops_per_s}, for paired ratios (overhead.py)
        self.instr = {}     # (case name, config name) -> instr per op

    def add(self, key, fields, rc, err, repeat=0):
        ok = rc == 0 and fields.get("ok") == "1" and "ops_per_s" in fields
        if ok:
            self.samples.setdefault(key, []).append(float(fields["ops_per_s"]))
            self.by_repeat.setdefault(key, {})[repeat] = float(fields["ops_per_s"])
            self.ns.setdefault(key, []).append(float(fields["ns_per_op"]))
            if "min_share" in fields:
                self.share.setdefault(key, []).append(float(fields["min_share"]))
        else:
            reason = describe_rc(rc) if rc != 0 else "invariant failed (ok=0)"
            self.failures.setdefault(key, []).append(reason + (f": {err}" if err else ""))
        return ok

    def median(self, key):
        s = self.samples.get(key)
        return statistics.median(s) if s else None

    def median_ns(self, key):
        s = self.ns.get(key)
        return statistics.median(s) if s else None

    def min_share(self, key):
        """The lowest min_share of the repeats (None without samples): how unevenly the worst
        repeat shared the work among its threads."""
        s = self.share.get(key)
        return min(s) if s else None

    def ratio(self, key, base_config):
        case, threads, _ = key
        a, b = self.median(key), self.median((case, threads, base_config))
        return a / b if a and b else None
