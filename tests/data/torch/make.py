#!/usr/bin/env python3
"""Makes the torch.onnx.export fixtures of `check --shape` (tests/onnx/torch_sizes.py runs them).

Each small module is exported three ways, with Debian's python3-torch 1.13 and python3-torchvision 0.14:
  NAME.at_a.onnx     at size A with fixed shapes: what users ship, every x.shape-derived value folded;
  NAME.at_b.onnx     at size B with fixed shapes: the truth the first one is compared with at B;
  NAME.dynamic.onnx  at size A with `dynamic_axes` on the sizes that change: sizes computed from Shape.
The tests run NAME.at_a.onnx at B in ONNX Runtime (its varying dims freed) against NAME.at_b.onnx, and ask
reshape1 `check NAME.at_a.onnx --shape x=B` (and the same of NAME.dynamic.onnx). Weights are seeded and
small, so the files are a few kilobytes (the classifier about 1.4 MB). The tests do not need torch.

    /usr/bin/python3 tests/data/torch/make.py        (writes the .onnx files beside this script)
"""
import pathlib

import torch
import torch.nn.functional as F
import torchvision

HERE = pathlib.Path(__file__).resolve().parent


class WindowPartition(torch.nn.Module):
    """Swin's window partition and reverse around a per-window linear map: H/ws and W/ws are baked."""

    def __init__(self, channels=8, window=4):
        super().__init__()
        self.window = window
        self.mix = torch.nn.Linear(channels, channels)

    def forward(self, x):  # x: [B, H, W, C]
        b, h, w, c = x.shape
        ws = self.window
        x = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        x = self.mix(x)
        x = x.view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        return x


class RangeGrid(torch.nn.Module):
    """A detector head's grid of cell offsets from arange over H and W (yolov5's _make_grid)."""

    def forward(self, x):  # x: [B, 2, H, W]
        _, _, h, w = x.shape
        ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
        grid = torch.stack((xs, ys), 0).unsqueeze(0)
        return (x.sigmoid() + grid) * 8.0


class InterpolateToSize(torch.nn.Module):
    """An upsampling to twice the input, written with a size computed from the input's shape."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):  # x: [B, 3, H, W]
        y = self.conv(x)
        return F.interpolate(y, size=(x.shape[2] * 2, x.shape[3] * 2), mode="nearest")


class InterpolateByScale(torch.nn.Module):
    """The same upsampling written with a scale factor: nothing about the size in a constant."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return F.interpolate(self.conv(x), scale_factor=2.0, mode="nearest")


class FlattenBaked(torch.nn.Module):
    """A flatten written as view(1, C*H*W), then a per-element map."""

    def forward(self, x):  # x: [1, C, H, W]
        _, c, h, w = x.shape
        return torch.tanh(x.view(1, c * h * w))


class FlattenInferred(torch.nn.Module):
    """The same flatten written as view(B, -1)."""

    def forward(self, x):
        return torch.tanh(x.view(x.shape[0], -1))


class AttentionBaked(torch.nn.Module):
    """Self-attention whose head split writes the sequence length: view(B, L, heads, d)."""

    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)

    def split(self, t, b, length):
        return t.view(b, length, self.heads, -1).transpose(1, 2)

    def forward(self, x):  # x: [B, L, dim]
        b, length, dim = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (self.split(t, b, length) for t in (q, k, v))
        a = torch.softmax(q @ k.transpose(-1, -2) / (dim // self.heads) ** 0.5, dim=-1)
        return self.out((a @ v).transpose(1, 2).reshape(b, length, dim))


class AttentionInferred(AttentionBaked):
    """The same attention with the sequence length left to -1."""

    def split(self, t, b, length):
        return t.view(b, -1, self.heads, t.shape[-1] // self.heads).transpose(1, 2)

    def forward(self, x):
        b, _, dim = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (self.split(t, b, 0) for t in (q, k, v))
        a = torch.softmax(q @ k.transpose(-1, -2) / (dim // self.heads) ** 0.5, dim=-1)
        return self.out((a @ v).transpose(1, 2).reshape(b, -1, dim))


class MeanBySize(torch.nn.Module):
    """A spatial mean written as a sum divided by H*W: the divisor is baked."""

    def forward(self, x):  # x: [B, C, H, W]
        return x.sum(dim=(2, 3)) / (x.shape[2] * x.shape[3])


class StdNormalize(torch.nn.Module):
    """Instance normalisation by hand, as AdaIN writes it: x.std is unbiased, (sum of squares)/(H*W - 1)."""

    def forward(self, x):  # x: [B, C, H, W]
        mean = x.mean(dim=(2, 3), keepdim=True)
        std = x.std(dim=(2, 3), keepdim=True)
        return (x - mean) / (std + 1e-5)


def shufflenet():
    """torchvision's ShuffleNetV2 (0.5x, 10 classes): its channel shuffle is view(B, groups, C/groups, H, W)."""
    return torchvision.models.shufflenet_v2_x0_5(num_classes=10)


# name: (module factory, input name, shape at A, shape at B, dynamic axes)
MODULES = {
    "window_partition": (WindowPartition, [1, 16, 16, 8], [1, 24, 32, 8], {1: "H", 2: "W"}),
    "range_grid": (RangeGrid, [1, 2, 8, 8], [1, 2, 12, 16], {2: "H", 3: "W"}),
    "interpolate_to_size": (InterpolateToSize, [1, 3, 8, 8], [1, 3, 12, 16], {2: "H", 3: "W"}),
    "interpolate_by_scale": (InterpolateByScale, [1, 3, 8, 8], [1, 3, 12, 16], {2: "H", 3: "W"}),
    "flatten_baked": (FlattenBaked, [1, 3, 8, 8], [1, 3, 12, 16], {2: "H", 3: "W"}),
    "flatten_inferred": (FlattenInferred, [1, 3, 8, 8], [1, 3, 12, 16], {2: "H", 3: "W"}),
    "attention_baked": (AttentionBaked, [1, 12, 16], [1, 20, 16], {1: "L"}),
    "attention_inferred": (AttentionInferred, [1, 12, 16], [1, 20, 16], {1: "L"}),
    "mean_by_size": (MeanBySize, [1, 4, 8, 8], [1, 4, 12, 16], {2: "H", 3: "W"}),
    "std_normalize": (StdNormalize, [1, 4, 8, 8], [1, 4, 12, 16], {2: "H", 3: "W"}),
    "shufflenet": (shufflenet, [1, 3, 64, 64], [1, 3, 96, 128], {2: "H", 3: "W"}),
}


def export(module, shape, path, dynamic=None):
    torch.onnx.export(module, torch.zeros(shape), str(path), input_names=["x"], output_names=["y"], opset_version=13,
                      dynamic_axes={"x": dynamic} if dynamic else None, do_constant_folding=True)


def main():
    for name, (factory, a, b, dynamic) in MODULES.items():
        torch.manual_seed(0)
        module = factory().eval()
        export(module, a, HERE / f"{name}.at_a.onnx")
        export(module, b, HERE / f"{name}.at_b.onnx")
        export(module, a, HERE / f"{name}.dynamic.onnx", dynamic)
        print(f"wrote {name}: A {a}, B {b}")


if __name__ == "__main__":
    main()
