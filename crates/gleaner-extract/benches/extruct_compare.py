"""Times extruct (JSON-LD + microdata + RDFa) on the same pages as benches/extract.rs.

Usage: python extruct_compare.py GROUP=FILE[,FILE...] ...; prints one JSON object per group:
{"group": ..., "bytes": ..., "seconds_per_pass": ..., "mb_per_s": ...} (MB = 10^6 bytes).
"""
import json
import sys
import time

import extruct

for arg in sys.argv[1:]:
    group, files = arg.split("=", 1)
    pages = [open(f, "rb").read().decode("utf-8", "replace") for f in files.split(",")]
    size = sum(len(p.encode("utf-8")) for p in pages)
    passes, best = 0, float("inf")
    deadline = time.perf_counter() + 5.0
    while passes < 3 or time.perf_counter() < deadline:
        t0 = time.perf_counter()
        for p in pages:
            extruct.extract(p, base_url="https://example.org/events/", syntaxes=["json-ld", "microdata", "rdfa"], errors="ignore")
        best = min(best, time.perf_counter() - t0)
        passes += 1
    print(json.dumps({"group": group, "bytes": size, "seconds_per_pass": best, "mb_per_s": size / best / 1e6}))
