"""Reading `d2k eval --json` records: one summary line per workload, and whether a candidate got
the verdict its header expects."""

import json
import statistics


def load(path):
    """The record at `path`, or None when the file holds no JSON (d2k failed before printing)."""
    try:
        with open(path) as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def max_error(workload):
    errors = [output["rel_norm_error"] for trial in workload.get("trials", [])
              for output in trial.get("outputs", []) if "rel_norm_error" in output]
    return max(errors, default=float("nan"))


def summarize(record, name, status):
    """Lines describing one evaluation: verdicts, latencies, errors and audits."""
    if record is None:
        return [f"{name}: no JSON record, exit {status}"]
    lines = [f"{name}: exit {status}, evaluation {record.get('id')}, impl {record['impl_kind']}"]
    for workload in record["workloads"]:
        latency = workload.get("latency") or {}
        mean = (f"{latency['mean_s'] * 1e3:10.4f} ms cv {latency['cv'] * 100:5.2f}%"
                if latency else " " * 25)
        lines.append(f"  {workload['workload']:<30} {workload['verdict']:<13} {mean}"
                     f"  max_err {max_error(workload):.2e}  {workload['reason_code']}")
        if workload["verdict"] != "passed":
            lines.append("    " + workload["message"][:600].replace("\n", "\n    "))
        lines.extend(audit_lines(workload))
    return lines


def audit_lines(workload):
    lines = []
    for label, audit in (("audit", workload.get("audit") or {}),
                         ("timed audit", workload.get("timed_audit") or {})):
        if audit.get("unavailable"):
            lines.append(f"    {label}: not audited: {audit['unavailable']}")
        elif audit:
            kernels = audit.get("kernels", [])
            streams = sorted({k["stream"] for k in kernels} |
                             {t["stream"] for t in audit.get("transfers", [])})
            lines.append(
                f"    {label}: {audit.get('calls', 1)} calls, {len(kernels)} kernels"
                f" ({sum(k['duration_s'] for k in kernels) * 1e3:.3f} ms),"
                f" {len(audit.get('transfers', []))} transfers,"
                f" {len(audit.get('synchronizations', []))} synchronizations, streams {streams}"
                f" (harness {audit.get('harness_stream')}),"
                f" peak aux {audit.get('peak_aux_bytes')} bytes; {audit.get('tracer', '')}")
            lines.extend(f"      {kernel['name'][:110]}" for kernel in kernels[:4])
    return lines


def unmet(record, expectation):
    """The workloads whose verdict (or reason) differs from `expectation`; every workload when
    there is no record."""
    if record is None:
        return ["(no record)"]
    return [w["workload"] for w in record["workloads"]
            if w["verdict"] != expectation.verdict
            or (expectation.reason and w["reason_code"] != expectation.reason)
            or any(part not in w.get("message", "") for part in expectation.messages)]


def build_line(record, name):
    build = (record or {}).get("build") or {}
    return (f"{name:<30} cached={build.get('cached')} seconds={build.get('seconds')}"
            f" hash={build.get('hash')}")


def repeatability(records):
    """Per workload: the means of every run (ms) and their coefficient of variation."""
    lines = []
    if not records:
        return lines
    for index, workload in enumerate(records[0]["workloads"]):
        means = [r["workloads"][index]["latency"]["mean_s"] for r in records
                 if r["workloads"][index].get("latency")]
        cv = (statistics.stdev(means) / statistics.mean(means)
              if len(means) > 1 else float("nan"))
        lines.append(f"{workload['workload']:<30} {' '.join(f'{m * 1e3:8.3f}' for m in means)}"
                     f"  {cv * 100:.3f}%")
    return lines


def sanitizer_errors(log_text):
    """The error count of compute-sanitizer's `ERROR SUMMARY: N errors`, or None without one."""
    for line in reversed(log_text.splitlines()):
        if "ERROR SUMMARY:" in line:
            words = line.split("ERROR SUMMARY:")[1].split()
            return int(words[0]) if words and words[0].isdigit() else None
    return None
