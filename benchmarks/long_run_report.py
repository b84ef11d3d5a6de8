#!/usr/bin/env python3
"""#18: the long-run table and per-scan time plots from benchmarks/long_run.sh's output folder.

usage: long_run_report.py OUT_DIR BLOCK_SECONDS FAMILY... -- FRONTEND...
Reads OUT_DIR/FAMILY/FRONTEND/{scans.csv,report.json,eval.json} and FAMILY/FRONTEND.time; prints
Markdown tables per family and writes OUT_DIR/FAMILY/FRONTEND_scan_times.svg. Repeated runs
(FRONTEND.run2, ...: long_run.sh REPEAT=N) that computed the same trajectory give a third table from
each scan's least time over the runs: what the computation costs, without the scans the machine
stalled in one run only.
"""
import json
import math
import os
import sys


def quantile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))] if s else float("nan")


def span(begin, end):
    """A block's label: minutes, or seconds for blocks shorter than a minute."""
    return f"{begin / 60:.0f}-{end / 60:.0f} min" if end - begin >= 60 else f"{begin:.0f}-{end:.0f} s"


def read_scans(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            # stamp_s,estimate_ms,resident_mb[,map_points,estimate_cpu_ms] (the last two added later in #18)
            fields = line.strip().split(",")
            rows.append((float(fields[0]), float(fields[1]), float(fields[2]), int(fields[3]) if len(fields) > 3 else -1,
                         float(fields[4]) if len(fields) > 4 else math.nan))
    return rows


def svg_plot(rows, title, path, block):
    """Per-scan time against data time: the maximum and the mean per 10 s of data."""
    if not rows:
        return
    t0 = rows[0][0]
    bucket = 10.0
    buckets = {}
    for stamp, ms, *_ in rows:
        buckets.setdefault(int((stamp - t0) // bucket), []).append(ms)
    keys = sorted(buckets)
    maxima = [(k * bucket, max(buckets[k])) for k in keys]
    means = [(k * bucket, sum(buckets[k]) / len(buckets[k])) for k in keys]
    span = max(1.0, rows[-1][0] - t0)
    top = max(m for _, m in maxima) * 1.1
    w, h, left, bottom = 900, 320, 60, 40
    x = lambda t: left + (w - left - 10) * t / span
    y = lambda v: h - bottom - (h - bottom - 30) * v / top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="18">{title}</text>']
    for i in range(5):
        v = top * i / 4
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{w - 10}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    t = 0.0
    while t <= span + 1e-6:
        out.append(f'<line x1="{x(t):.1f}" y1="{h - bottom}" x2="{x(t):.1f}" y2="30" stroke="#eee"/>')
        out.append(f'<text x="{x(t):.1f}" y="{h - bottom + 16}" text-anchor="middle">{t / 60:.0f} min</text>')
        t += block
    out.append(f'<text x="14" y="{(h - bottom) / 2}" transform="rotate(-90 14 {(h - bottom) / 2})" text-anchor="middle">ms per scan</text>')
    for series, colour, label, dy in ((maxima, "#d62728", "maximum per 10 s", 0), (means, "#1f77b4", "mean per 10 s", 14)):
        pts = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in series)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1" points="{pts}"/>')
        out.append(f'<text x="{w - 160}" y="{34 + dy}" fill="{colour}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def print_repeats(out, family, frontends, block):
    """Per frontend with repeated runs: per-scan least time over the runs, by block and overall."""
    lines = []
    for fe in frontends:
        runs = [os.path.join(out, family, fe)]
        n = 2
        while os.path.exists(os.path.join(out, family, f"{fe}.run{n}", "scans.csv")):
            runs.append(os.path.join(out, family, f"{fe}.run{n}"))
            n += 1
        if len(runs) < 2 or not os.path.exists(os.path.join(runs[0], "scans.csv")):
            continue
        trajectories = [open(os.path.join(r, "trajectory.tum"), "rb").read() if os.path.exists(os.path.join(r, "trajectory.tum")) else None for r in runs]
        if any(t is None or t != trajectories[0] for t in trajectories):
            lines.append(f"| {fe} | {len(runs)} runs, trajectories differ: no per-scan least | | | | | | |")
            continue
        per_run = [{r[0]: r[1] for r in read_scans(os.path.join(run, "scans.csv"))} for run in runs]
        stamps = sorted(set.intersection(*(set(d) for d in per_run)))
        least = [(t, min(d[t] for d in per_run)) for t in stamps]
        t0 = least[0][0]
        blocks = {}
        for t, ms in least:
            blocks.setdefault(int((t - t0) // block), []).append(ms)
        means = {b: sum(v) / len(v) for b, v in blocks.items()}
        all_ms = [ms for _, ms in least]
        mean = sum(all_ms) / len(all_ms)
        worst = max(blocks, key=lambda b: max(blocks[b]) / means[b])
        single_max = max(max(d.values()) for d in per_run)
        lines.append(f"| {fe} | {len(runs)} | {len(least)} | {mean:.2f} | {max(all_ms):.2f} | {max(all_ms) / mean:.1f} | "
                     f"{max(blocks[worst]) / means[worst]:.1f} ({span(worst * block, (worst + 1) * block)}) | "
                     f"{means[max(blocks)] / means[min(blocks)]:.3f} | {single_max:.2f} |")
    if lines:
        print(f"\n| {family}, per scan the least over the runs | runs (same trajectory) | scans | mean ms | max ms | max/mean | "
              f"largest block max/block mean | last/first block mean | max ms of any single run |")
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(lines))


def main():
    args = sys.argv[1:]
    sep = args.index("--")
    out, block, families, frontends = args[0], float(args[1]), args[2:sep], args[sep + 1:]
    for family in families:
        sim_time = os.path.join(out, family + ".sim_time")
        if os.path.exists(sim_time):
            secs, kb = open(sim_time).read().split()[-2:]
            print(f"\n{family}: simulated in {float(secs):.0f} s, simulator peak memory {int(kb) / 1024:.0f} MB")
        print(f"\n| {family} | block | scans | mean ms | p95 ms | p99 ms | max ms | max/mean | max CPU ms | peak MB in block | map points at block end |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        summary = []
        for fe in frontends:
            run = os.path.join(out, family, fe)
            scans_path = os.path.join(run, "scans.csv")
            if not os.path.exists(scans_path):
                print(f"| {fe} | (no scans.csv: see {run}.log) | | | | | | | | | |")
                continue
            rows = read_scans(scans_path)
            t0 = rows[0][0]
            blocks = {}
            for r in rows:
                blocks.setdefault(int((r[0] - t0) // block), []).append(r)
            for b in sorted(blocks):
                ms = [r[1] for r in blocks[b]]
                mean = sum(ms) / len(ms)
                print(f"| {fe} | {span(b * block, (b + 1) * block)} | {len(ms)} | {mean:.2f} | {quantile(ms, 0.95):.2f} | "
                      f"{quantile(ms, 0.99):.2f} | {max(ms):.2f} | {max(ms) / mean:.1f} | {max(r[4] for r in blocks[b]):.2f} | {max(r[2] for r in blocks[b]):.0f} | "
                      f"{blocks[b][-1][3] if blocks[b][-1][3] >= 0 else '-'} |")
            all_ms = [r[1] for r in rows]
            first = [r[1] for r in blocks[min(blocks)]]
            last = [r[1] for r in blocks[max(blocks)]]
            peak_first = max(r[2] for r in blocks[min(blocks)])
            peak_last = max(r[2] for r in blocks[max(blocks)])
            ev = {}
            eval_path = os.path.join(run, "eval.json")
            if os.path.exists(eval_path):
                ev = json.load(open(eval_path))
            wall, kb = (open(run + ".time").read().split()[-2:] if os.path.exists(run + ".time") else ("nan", "0"))
            cache = open(run + ".cache").read().strip() if os.path.exists(run + ".cache") else "?"
            summary.append((fe, cache, len(rows), sum(all_ms) / len(all_ms), max(all_ms), max(r[4] for r in rows), sum(last) / len(last) / (sum(first) / len(first)),
                            peak_last / peak_first, int(kb) / 1024, ev.get("ate_m", {}).get("rmse", math.nan),
                            ev.get("drift", {}).get("translation_percent", math.nan), ev.get("drift", {}).get("path_length_m", math.nan), float(wall)))
            svg_plot(rows, f"{fe}, {family}: time per scan over {rows[-1][0] - t0:.0f} s of data", os.path.join(out, family, fe + "_scan_times.svg"), block)
        print_repeats(out, family, frontends, block)
        print(f"\n| {family} | bag read | scans | mean ms | max ms | max/mean | max CPU ms | last/first block mean | last/first block peak memory | peak MB (time) | ATE RMSE cm | drift % | path m | wall s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for fe, cache, n, mean, mx, mx_cpu, ratio, mem_ratio, peak, ate, drift, path, wall in summary:
            print(f"| {fe} | {cache} | {n} | {mean:.2f} | {mx:.2f} | {mx / mean:.1f} | {mx_cpu:.2f} | {ratio:.3f} | {mem_ratio:.2f} | {peak:.0f} | {ate * 100:.2f} | {drift:.3f} | {path:.0f} | {wall:.0f} |")


if __name__ == "__main__":
    main()
