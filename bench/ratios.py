#!/usr/bin/env python3
"""Runs the benchmark programs once each and prints the ratios they are judged by.
Usage: bench/ratios.py build/bench/bench [build/bench/cli/reshape1]
(the directory holding reshape1_bench and the others; with the command-line tool, also `fix` at scale,
bench/fix_scale/run.py, on 1 and 20 copies of the shared YOLO11n)"""
import json
import subprocess
import sys

import os

runs = {}
fastest = {}
for program in ("reshape1_bench", "reshape1_copy_bench", "reshape1_check_bench", "reshape1_onnx_bench"):
    # Each ratio compares two benchmarks of one program, which share the machine with whatever else runs:
    # interleave their repetitions so that a busy moment does not land on one side of a ratio only.
    out = subprocess.run([os.path.join(sys.argv[1], program), "--benchmark_format=json", "--benchmark_repetitions=5",
                          "--benchmark_report_aggregates_only=true", "--benchmark_enable_random_interleaving=true"],
                         capture_output=True, text=True, check=True).stdout
    benchmarks = json.loads(out)["benchmarks"]
    runs.update({b["run_name"]: b for b in benchmarks if b.get("aggregate_name") == "median"})
    # the check benchmark also reports each stage's fastest repetition (its "min" statistic)
    fastest.update({b["run_name"]: b for b in benchmarks if b.get("aggregate_name") == "min"})


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
        print(f"{name:34s} {ns(name):9.2f} {runs[name]['time_unit']}  allocs/call {allocs(name):.2f}")
print()
def ratio(a, b, what, target=""):
    print(f"{what}: {ns(a) / ns(b):.2f}x ({ns(a):.1f} ns / {ns(b):.1f} ns){target}, "
          f"allocations per call {allocs(a):.0f}")


ratio("infer_static", "baseline_multiply_divide", "static inference / multiply-and-divide baseline", " (target <= 4x)")
ratio("infer_static_empty_tensor", "baseline_multiply_divide", "static inference on an empty tensor ([2,0,5,24]) / baseline")
ratio("infer_general_on_static_input", "infer_static", "infer_shape on the same static input / static",
      " (target <= 8x)")
ratio("infer_partial", "infer_static", "partial inference [?@A,?@B,768] . [?@A,?@C,12,64] / static", " (target <= 10x)")
ratio("infer_partial_heads", "infer_static", "partial inference [?,?,768] . [0,0,12,64] / static")
ratio("infer_partial_flatten", "infer_static", "partial inference [1..8,128,768] . [-1,768] / static")
copy_threads = sorted({int(n.split("threads:")[1].split("/")[0]) for n in runs if n.startswith("memcpy_split_256mib")})
for n in copy_threads:
    limit = f"memcpy_split_256mib/threads:{n}/real_time"
    for copy, what in ((f"copy_elements_256mib/threads:{n}/real_time", "reshape1's pool" if n > 1 else "no pool"),
                       (f"copy_elements_callers_threads_256mib/threads:{n}/real_time", "the caller's threads")):
        if copy in runs:
            print(f"copy_elements, {n} thread(s), {what} / memcpy split over {n} thread(s), 256 MiB: "
                  f"{gbps(copy) / gbps(limit):.2f}x ({gbps(copy):.2f} vs {gbps(limit):.2f} GB/s; target >= 0.95x)")
print(f"reshape of a view: {ns('reshape_view'):.1f} ns per call, {allocs('reshape_view'):.0f} allocations per call "
      f"(target 0)")
for name in runs:
    if name.startswith("read_and_propagate/"):
        _, model, memory = name.split("/")
        for statistic, table in (("median", runs), ("min", fastest)):
            if name not in table:
                continue
            floor = table[f"parse_xml_only/{model}/{memory}"]["cpu_time"]
            ours = table[name]["cpu_time"]
            unit = table[name]["time_unit"]
            walk = table[f"parse_and_walk/{model}/{memory}"]["cpu_time"]
            print(f"{model}, {memory} memory, {statistic}: read+propagate {ours:.2f} {unit} / pugixml parse "
                  f"{floor:.2f} {unit}: {ours / floor:.2f}x (target <= 2x); check "
                  f"{table[f'check/{model}/{memory}']['cpu_time'] / floor:.2f}x; parse + a DOM walk that builds "
                  f"nothing {walk:.2f} {unit}: {walk / floor:.2f}x")
            shape, batch = table.get(f"check_shape/{model}/{memory}"), table.get(f"check_batch/{model}/{memory}")
            if shape and batch:
                print(f"{model}, {memory} memory, {statistic}: check --shape with H and W named {shape['cpu_time']:.2f} {unit} / "
                      f"check --batch 4 {batch['cpu_time']:.2f} {unit}: {shape['cpu_time'] / batch['cpu_time']:.2f}x (target <= 1.5x)")
for name in runs:
    if name.startswith("onnx_read_and_propagate/"):
        model = name.split("/")[1]
        for statistic, table in (("median", runs), ("min", fastest)):
            if name not in table:
                continue
            floor = table[f"onnx_parse_only/{model}"]["cpu_time"]
            ours = table[name]["cpu_time"]
            read = table[f"onnx_read/{model}"]["cpu_time"]
            unit = table[name]["time_unit"]
            print(f"{model} (ONNX), {statistic}: read+propagate {ours:.2f} {unit} / protobuf ParseFromArray "
                  f"{floor:.2f} {unit}: {ours / floor:.2f}x (target <= 2x); read alone {read / floor:.2f}x")
            shape, batch = table.get(f"onnx_check_shape/{model}"), table.get(f"onnx_check_batch/{model}")
            if shape and batch:
                print(f"{model} (ONNX), {statistic}: check --shape with H and W named {shape['cpu_time']:.2f} {unit} / "
                      f"check --batch 4 {batch['cpu_time']:.2f} {unit}: {shape['cpu_time'] / batch['cpu_time']:.2f}x (target <= 1.5x)")
            shapes, copy, check = (table.get(f"onnx_shapes/{model}"), table.get(f"onnx_shapes_copy/{model}"),
                                   table.get(f"onnx_check/{model}"))
            if shapes and copy and check:
                print(f"{model} (ONNX), {statistic}: shapes {shapes['cpu_time']:.2f} {unit} / check {check['cpu_time']:.2f} "
                      f"{unit}: {shapes['cpu_time'] / check['cpu_time']:.2f}x (target <= 1.2x); with the copy's bytes "
                      f"{copy['cpu_time']:.2f} {unit}: {copy['cpu_time'] / check['cpu_time']:.2f}x")

if len(sys.argv) > 2:
    print()
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fix_scale", "run.py"),
                    "--cli", sys.argv[2], "--copies", "1,20"], check=True)
else:
    print("\n(fix at scale: give the reshape1 binary as a second argument, e.g. build/bench/cli/reshape1)")
