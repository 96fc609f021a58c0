#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Training steps of TrainScope and PyTorch side by side, interleaved in one session.

For every model, optimizer and batch size, tests/benchmarks/training_peer builds the model and
writes its starting weights and data; this script builds the same architecture in PyTorch from
those weights, checks that both first-step losses agree, then alternates rounds of steps between
the two (TrainScope, PyTorch, TrainScope, ...) so both see the same machine load. Per round each
side's time per step is taken; the medians over the rounds and the median of the per-round
ratios (TrainScope time / PyTorch time, lower is faster) are printed as a Markdown table.

Usage: bench_vs_pytorch.py <training_peer binary> <models dir> [--rounds N] [--out FILE]
                           [--only MODEL] [--kernels reference|avx2|avx512]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as error:  # the caller (bench-vs-pytorch.sh) reports the skip
    print(f"SKIP: python3-torch is not available ({error})")
    sys.exit(0)

CASES = [(model, optimizer, batch)
         for model in ("simple_mnist", "mlp", "convnet")
         for optimizer in ("sgd", "adam")
         for batch in (1, 16)]  # simple_mnist holds 20 samples: its batch of 16 is always the same


class Peer:
    """training_peer as a child process: its manifest, and steps on command."""

    def __init__(self, binary, model, optimizer, batch, models_dir, export_dir, kernels):
        self.process = subprocess.Popen(
            [binary, model, optimizer, str(batch), export_dir, models_dir]
            + ([kernels] if kernels else []),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ops, self.params, self.data, self.kernels = [], {}, None, "?"
        for line in self.process.stdout:
            fields = line.split()
            if fields[0] == "ready":
                break
            if fields[0] == "kernels":
                self.kernels = fields[1]
            if fields[0] == "op":
                self.ops.append(fields[2:])
            elif fields[0] == "param":
                shape = [int(d) for d in fields[4:]]
                values = np.fromfile(os.path.join(export_dir, fields[3]), dtype=np.float32)
                self.params[(int(fields[1]), int(fields[2]))] = values.reshape(shape)
            elif fields[0] == "data":
                inputs = np.fromfile(os.path.join(export_dir, fields[1]), dtype=np.float32)
                targets = np.fromfile(os.path.join(export_dir, fields[2]), dtype=np.float32)
                shape = [int(fields[3])] + [int(d) for d in fields[5:]]
                self.data = (inputs.reshape(shape), targets.astype(np.int64))
        else:
            raise RuntimeError(f"training_peer {model} {optimizer} {batch} did not start")

    def steps(self, count):
        """(seconds for `count` steps, mean loss of the first)."""
        self.process.stdin.write(f"step {count}\n")
        self.process.stdin.flush()
        fields = self.process.stdout.readline().split()
        if not fields or fields[0] != "done":
            raise RuntimeError("training_peer stopped")
        return float(fields[1]), float(fields[2])

    def close(self):
        self.process.stdin.write("quit\n")
        self.process.stdin.close()
        self.process.wait()


def nhwc_to_torch_conv(weights):  # OHWI -> OIHW
    return torch.from_numpy(np.ascontiguousarray(weights.transpose(0, 3, 1, 2)))


def fc_after_nhwc(weights, h, w, c):
    """FC weights over an NHWC-flattened input, reordered for PyTorch's NCHW flattening."""
    out = weights.shape[0]
    reordered = weights.reshape(out, h, w, c).transpose(0, 3, 1, 2).reshape(out, h * w * c)
    return torch.from_numpy(np.ascontiguousarray(reordered))


def bias(peer, op, width):
    values = peer.params.get((op, 2))
    return None if values is None else torch.from_numpy(values.copy()).reshape(width)


class TorchModel(torch.nn.Module):
    """The peer's architecture with its weights; forward returns logits (the softmax is in the
    loss, as a PyTorch user writes it)."""

    def __init__(self, name, peer):
        super().__init__()
        self.name = name
        p = peer.params
        param = lambda array: torch.nn.Parameter(array.clone())  # noqa: E731
        if name == "mlp":
            self.w1, self.w2 = param(torch.from_numpy(p[(0, 1)])), param(torch.from_numpy(p[(1, 1)]))
            self.b1, self.b2 = param(bias(peer, 0, 128)), param(bias(peer, 1, 10))
        elif name == "convnet":
            self.c1, self.c2 = param(nhwc_to_torch_conv(p[(0, 1)])), param(nhwc_to_torch_conv(p[(2, 1)]))
            self.b1, self.b2 = param(bias(peer, 0, 16)), param(bias(peer, 2, 32))
            self.w3, self.b3 = param(fc_after_nhwc(p[(4, 1)], 8, 8, 32)), param(bias(peer, 4, 10))
        elif name == "simple_mnist":
            # conv 2x2x4 VALID ReLU, max pool 2, reshape, FC 100->4 ReLU, FC 4->2 (no FC biases).
            self.c1, self.b1 = param(nhwc_to_torch_conv(p[(0, 1)])), param(bias(peer, 0, 4))
            self.w3 = param(fc_after_nhwc(p[(3, 1)], 5, 5, 4))
            self.w4 = param(torch.from_numpy(p[(4, 1)].copy()))

    def forward(self, x):
        if self.name == "mlp":
            return F.linear(F.relu(F.linear(x, self.w1, self.b1)), self.w2, self.b2)
        if self.name == "convnet":
            x = F.max_pool2d(F.relu(F.conv2d(x, self.c1, self.b1, padding=1)), 2)
            x = F.max_pool2d(F.relu(F.conv2d(x, self.c2, self.b2, padding=1)), 2)
            return F.linear(x.flatten(1), self.w3, self.b3)
        x = F.max_pool2d(F.relu(F.conv2d(x, self.c1, self.b1)), 2)
        return F.linear(F.relu(F.linear(x.flatten(1), self.w3)), self.w4)


class TorchSide:
    def __init__(self, name, optimizer, batch, peer):
        inputs, targets = peer.data
        if inputs.ndim == 4:  # NHWC -> NCHW
            inputs = inputs.transpose(0, 3, 1, 2)
        self.inputs = torch.from_numpy(np.ascontiguousarray(inputs.reshape(inputs.shape[0], -1)
                                                            if name == "mlp" else inputs))
        self.targets = torch.from_numpy(targets)
        self.model = TorchModel(name, peer)
        params = list(self.model.parameters())
        if optimizer == "adam":
            # TrainScope adds eps inside the square root (onert-micro); the work is the same.
            self.optimizer = torch.optim.Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-7)
        else:
            self.optimizer = torch.optim.SGD(params, lr=0.01)
        self.batch, self.next = batch, 0
        self.batches = self.inputs.shape[0] // batch

    def steps(self, count):
        first_loss = None
        start = time.perf_counter()
        for _ in range(count):
            begin = self.next * self.batch
            x, t = self.inputs[begin:begin + self.batch], self.targets[begin:begin + self.batch]
            self.optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(self.model(x), t)
            loss.backward()
            self.optimizer.step()
            if first_loss is None:
                first_loss = loss.item()
            self.next = (self.next + 1) % self.batches
        return time.perf_counter() - start, first_loss


def measure(binary, models_dir, case, rounds, export_dir, kernels):
    model, optimizer, batch = case
    peer = Peer(binary, model, optimizer, batch, models_dir, export_dir, kernels)
    side = TorchSide(model, optimizer, batch, peer)
    _, ts_loss = peer.steps(1)
    _, pt_loss = side.steps(1)
    # Steps per round: about 50 ms of PyTorch work, so timer resolution and the pipe do not count.
    pt_seconds, _ = side.steps(5)
    per_round = max(5, int(0.05 / (pt_seconds / 5)))
    peer.steps(per_round)  # warm-up
    ts_times, pt_times, ratios = [], [], []
    for _ in range(rounds):
        ts, _ = peer.steps(per_round)
        pt, _ = side.steps(per_round)
        ts_times.append(ts / per_round)
        pt_times.append(pt / per_round)
        ratios.append(ts / pt)
    peer.close()
    return {
        "kernels": peer.kernels,
        "ts_us": statistics.median(ts_times) * 1e6,
        "pt_us": statistics.median(pt_times) * 1e6,
        "ratio": statistics.median(ratios),
        "ts_loss": ts_loss,
        "pt_loss": pt_loss,
        "steps": per_round,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("peer")
    parser.add_argument("models_dir")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--out")
    parser.add_argument("--only", help="model name to run alone")
    parser.add_argument("--kernels", choices=("reference", "avx2", "avx512"),
                        help="TrainScope's kernel path (default: the fastest this CPU has;"
                        " reference: the loops the firmware runs)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)

    lines = [
        f"PyTorch {torch.__version__}, {torch.get_num_threads()} thread, {args.rounds} rounds,"
        f" TrainScope kernels: {args.kernels or 'the fastest this CPU has'};"
        " ratio = TrainScope time / PyTorch time (median of the per-round ratios)",
        "",
        "| model | optimizer | batch | kernels | TrainScope µs/step | PyTorch µs/step | ratio |"
        " speed-up | first loss TrainScope / PyTorch |",
        "|---|---|---:|---|---:|---:|---:|---:|---|",
    ]
    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory() as export_dir:
        for case in CASES:
            if args.only and case[0] != args.only:
                continue
            r = measure(args.peer, args.models_dir, case, args.rounds, export_dir,
                        args.kernels)
            line = (f"| {case[0]} | {case[1]} | {case[2]} | {r['kernels']} | {r['ts_us']:.1f} |"
                    f" {r['pt_us']:.1f} |"
                    f" {r['ratio']:.3f} | {1 / r['ratio']:.1f}x |"
                    f" {r['ts_loss']:.5f} / {r['pt_loss']:.5f} |")
            if abs(r["ts_loss"] - r["pt_loss"]) > 1e-3 * max(1.0, abs(r["pt_loss"])):
                line += " LOSSES DIFFER"
            print(line, flush=True)
            lines.append(line)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
