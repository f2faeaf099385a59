#!/usr/bin/env python3
"""Runs reshape1_bench once and prints the ratios the benchmarks are judged by.
Usage: bench/ratios.py build/bench/bench/reshape1_bench [extra benchmark flags]"""
import json
import subprocess
import sys

out = subprocess.run([sys.argv[1], "--benchmark_format=json", "--benchmark_repetitions=5",
                      "--benchmark_report_aggregates_only=true", *sys.argv[2:]],
                     capture_output=True, text=True, check=True).stdout
runs = {b["run_name"]: b for b in json.loads(out)["benchmarks"] if b.get("aggregate_name") == "median"}


def ns(name):
    return runs[name]["cpu_time"]


def allocs(name):
    return runs[name].get("allocs_per_call", float("nan"))


for name in runs:
    print(f"{name:34s} {ns(name):9.2f} ns  allocs/call {allocs(name):.2f}")
print()
print(f"static fast path / multiply-and-divide baseline: {ns('infer_static') / ns('baseline_multiply_divide'):.2f}x "
      f"(target <= 4x), allocations per call {allocs('infer_static'):.0f} (target 0)")
print(f"general path on the same static input / fast path: "
      f"{ns('infer_general_on_static_input') / ns('infer_static'):.2f}x")
print(f"partial inference (intervals and symbols, 5.3) / fast path: {ns('infer_partial') / ns('infer_static'):.2f}x")
