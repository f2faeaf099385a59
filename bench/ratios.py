#!/usr/bin/env python3
"""Runs the benchmark programs once each and prints the ratios they are judged by.
Usage: bench/ratios.py build/bench/bench   (the directory holding reshape1_bench and reshape1_copy_bench)"""
import json
import subprocess
import sys

import os

runs = {}
for program in ("reshape1_bench", "reshape1_copy_bench", "reshape1_check_bench"):
    out = subprocess.run([os.path.join(sys.argv[1], program), "--benchmark_format=json", "--benchmark_repetitions=5",
                          "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, check=True).stdout
    runs.update({b["run_name"]: b for b in json.loads(out)["benchmarks"] if b.get("aggregate_name") == "median"})


def ns(name):
    return runs[name]["cpu_time"]


def allocs(name):
    return runs[name].get("allocs_per_call", float("nan"))


def gbps(name):
    return runs[name]["bytes_per_second"] / 1e9


for name in runs:
    if "label" in runs[name]:
        print(f"{name:34s} {runs[name]['real_time']:9.2f} {runs[name]['time_unit']}  ({runs[name]['label']})")
    elif "bytes_per_second" in runs[name]:
        print(f"{name:34s} {gbps(name):9.2f} GB/s")
    else:
        print(f"{name:34s} {ns(name):9.2f} ns  allocs/call {allocs(name):.2f}")
print()
print(f"static fast path / multiply-and-divide baseline: {ns('infer_static') / ns('baseline_multiply_divide'):.2f}x "
      f"(target <= 4x), allocations per call {allocs('infer_static'):.0f} (target 0)")
print(f"static path on an empty tensor ([2,0,5,24]) / baseline: "
      f"{ns('infer_static_empty_tensor') / ns('baseline_multiply_divide'):.2f}x, "
      f"allocations per call {allocs('infer_static_empty_tensor'):.0f}")
print(f"general path on the same static input / fast path: "
      f"{ns('infer_general_on_static_input') / ns('infer_static'):.2f}x")
print(f"partial inference (intervals and symbols, 5.3) / fast path: {ns('infer_partial') / ns('infer_static'):.2f}x")
print(f"copy_elements, 1 thread / memcpy, 256 MiB: {gbps('copy_elements_256mib/1/real_time') / gbps('memcpy_256mib/real_time'):.2f}x "
      f"throughput (target >= 0.95x)")
print(f"copy_elements, all cores / memcpy on one thread: "
      f"{gbps('copy_elements_256mib/0/real_time') / gbps('memcpy_256mib/real_time'):.2f}x")
print(f"reshape of a view: {ns('reshape_view'):.1f} ns per call, {allocs('reshape_view'):.0f} allocations per call "
      f"(target 0)")
for name in runs:
    if name.startswith("read_and_propagate/"):
        model = name.split("/", 1)[1]
        floor = runs["parse_xml_only/" + model]["real_time"]
        unit = runs[name]["time_unit"]
        print(f"{model}: read+propagate {runs[name]['real_time']:.2f} {unit} / pugixml parse {floor:.2f} {unit}: "
              f"{runs[name]['real_time'] / floor:.2f}x (target <= 2x); check "
              f"{runs['check/' + model]['real_time'] / floor:.2f}x")
