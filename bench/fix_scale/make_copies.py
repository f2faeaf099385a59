#!/usr/bin/env python3
"""Writes K disjoint copies of an OpenVINO IR side by side in one model, for bench/fix_scale/run.py.

Usage: make_copies.py MODEL.xml K OUT.xml

Copy k's layers get the ids id + k * stride (stride: one more than the largest id) and names suffixed
"/copyk" (copy 0 keeps the originals); every edge is copied with its ends shifted. The copies share the
weights: their Consts keep their offsets, so OUT.bin is MODEL.bin (hard-linked, or copied).
"""
import copy
import os
import shutil
import sys
import xml.etree.ElementTree as ET


def main(source: str, copies: int, out: str) -> int:
    tree = ET.parse(source)
    net = tree.getroot()
    layers, edges = net.find("layers"), net.find("edges")
    if layers is None or edges is None:
        sys.exit(f"{source}: not an OpenVINO IR (no <layers> or <edges>)")
    first_layers, first_edges = list(layers), list(edges)
    stride = max(int(layer.get("id")) for layer in first_layers) + 1
    for k in range(1, copies):
        for layer in first_layers:
            c = copy.deepcopy(layer)
            c.set("id", str(int(layer.get("id")) + k * stride))
            c.set("name", f"{layer.get('name')}/copy{k}")
            layers.append(c)
        for edge in first_edges:
            c = copy.deepcopy(edge)
            c.set("from-layer", str(int(edge.get("from-layer")) + k * stride))
            c.set("to-layer", str(int(edge.get("to-layer")) + k * stride))
            edges.append(c)
    tree.write(out, encoding="utf-8", xml_declaration=True)
    weights, target = os.path.splitext(source)[0] + ".bin", os.path.splitext(out)[0] + ".bin"
    if os.path.lexists(target):
        os.remove(target)
    try:
        os.link(weights, target)
    except OSError:
        shutil.copyfile(weights, target)
    return len(first_layers) * copies


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    print(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]), "layers")
