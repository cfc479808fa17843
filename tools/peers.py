#!/usr/bin/env python3
"""make peers: PyTorch beside the reference solutions and the library
baselines, on every scored speed case, timed the grader's way.

Two modes:

  table    (make peers; no --lib): for every lab (or --lab NN), run the
           grader on the reference solution (--solution --bench --csv) for
           its time and the library baseline's, time PyTorch's own ops on
           the same shapes, and write peers.md, peers.csv and (with
           matplotlib) peers.png to --out (default build/peers).
  library  (make peers LAB=NN [SOLUTION=1 | PEERS_LIB=path]; --lib PATH):
           load a build of one lab with ctypes, call its entry point on
           PyTorch tensors (their device pointers and PyTorch's current
           stream), check the result against PyTorch's op, and time both.
           This mode needs nothing of the grader.

Timing, as the grader's: FP32 strict (TF32 off for matmul and cuDNN), CUDA
events around each call, warm-up calls first, an L2 flush (a memset of
twice the L2) before each timed call, candidates interleaved, input sets
rotated where memory allows, the median.

Exit status: 0 done (library mode: every check passed); 1 a check failed;
2 usage; 3 no CUDA GPU visible to PyTorch; 5 the library cannot be loaded
or lacks the lab's entry point; 6 the grader failed (table mode); 9
PyTorch is not installed. PyTorch is an optional tool for maintainers and
students, never a dependency of grading.
"""
import argparse
import csv
import ctypes
import datetime
import math
import os
import statistics
import subprocess
import sys

EXIT_OK, EXIT_CHECK, EXIT_USAGE, EXIT_NO_GPU = 0, 1, 2, 3
EXIT_LOAD, EXIT_GRADER, EXIT_NO_TORCH = 5, 6, 9

LABS = {
    "01": "01-vector-add",
    "02": "02-stencil",
    "03": "03-matmul",
    "04": "04-multi-tensor-apply",
    "05": "05-gru",
    "06": "06-seq2seq",
}

# the scored speed cases of grader/specs/*.c, by name, with their shapes
SPEED_CASES = {
    "01": [("n=2^28", {"n": 1 << 28})],
    "02": [
        ("A:n=2^26,R=3", {"part": "A", "n": 1 << 26, "R": 3}),
        ("A:n=2^26,R=8", {"part": "A", "n": 1 << 26, "R": 8}),
        ("B:8x1024x4096,K=4", {"part": "B", "B": 8, "C": 1024, "T": 4096, "K": 4}),
        ("B:8x1024x4096,K=128",
         {"part": "B", "B": 8, "C": 1024, "T": 4096, "K": 128}),
    ],
    "03": [
        ("4096^3", {"M": 4096, "N": 4096, "K": 4096}),
        ("8192x64x1280", {"M": 8192, "N": 64, "K": 1280}),
    ],
    "04": [
        ("1000-small", {"list": "small"}),
        ("gpt2-small", {"list": "gpt2"}),
    ],
    "05": [
        ("t32-b1", {"T": 32, "B": 1, "I": 256, "H": 512, "L": 2}),
        ("t32-b8", {"T": 32, "B": 8, "I": 256, "H": 512, "L": 2}),
        ("t32-b64", {"T": 32, "B": 64, "I": 256, "H": 512, "L": 2}),
        ("t32-b256", {"T": 32, "B": 256, "I": 256, "H": 512, "L": 2}),
        ("decoder-step", {"T": 1, "B": 1, "I": 768, "H": 512, "L": 1}),
    ],
    "06": [
        ("b%d" % b, {"S": 32, "T": 32, "B": b, "V": 8192, "E": 256, "H": 512})
        for b in (1, 8, 64, 256)
    ],
}

# AdamW as the grader runs it (torch.optim.AdamW's names)
ADAMW_HP = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
            "weight_decay": 0.1}


# ----------------------------------------------------------------------------
# the C interfaces (labs/*/NN.h), as ctypes structures

class AdamwTensor(ctypes.Structure):
    """struct adamw_tensor (labs/04-multi-tensor-apply/adamw.h)"""
    _fields_ = [("param", ctypes.c_void_p), ("grad", ctypes.c_void_p),
                ("exp_avg", ctypes.c_void_p), ("exp_avg_sq", ctypes.c_void_p),
                ("n", ctypes.c_longlong)]


class AdamwHparams(ctypes.Structure):
    """struct adamw_hparams, passed by value"""
    _fields_ = [("lr", ctypes.c_float), ("beta1", ctypes.c_float),
                ("beta2", ctypes.c_float), ("eps", ctypes.c_float),
                ("weight_decay", ctypes.c_float), ("step", ctypes.c_int)]


class GruWeights(ctypes.Structure):
    """struct gru_weights (labs/05-gru/gru.h)"""
    _fields_ = [("w_ih", ctypes.c_void_p), ("w_hh", ctypes.c_void_p),
                ("b_ih", ctypes.c_void_p), ("b_hh", ctypes.c_void_p)]


class Seq2seqGru(ctypes.Structure):
    """struct seq2seq_gru (labs/06-seq2seq/seq2seq.h)"""
    _fields_ = [("w_ih", ctypes.c_void_p), ("w_hh", ctypes.c_void_p),
                ("b_ih", ctypes.c_void_p), ("b_hh", ctypes.c_void_p)]


class Seq2seqModel(ctypes.Structure):
    """struct seq2seq_model"""
    _fields_ = [("v_src", ctypes.c_int), ("v_tgt", ctypes.c_int),
                ("emb", ctypes.c_int), ("hid", ctypes.c_int),
                ("enc_emb", ctypes.c_void_p), ("enc", Seq2seqGru),
                ("dec_emb", ctypes.c_void_p), ("dec", Seq2seqGru),
                ("fc_w", ctypes.c_void_p), ("fc_b", ctypes.c_void_p)]


STRUCTS = [("adamw_tensor", AdamwTensor), ("adamw_hparams", AdamwHparams),
           ("gru_weights", GruWeights), ("seq2seq_gru", Seq2seqGru),
           ("seq2seq_model", Seq2seqModel)]


def print_layouts():
    """'NAME SIZE' and 'NAME.FIELD OFFSET' lines, then Lab 4's lists as
    'adamw_sizes.KIND COUNT SUM': grader/tests/test_release.c compares them
    with the C compiler's sizeof and offsetof and the grader's lists"""
    for name, st in STRUCTS:
        print("%s %d" % (name, ctypes.sizeof(st)))
        for field, _ in st._fields_:
            print("%s.%s %d" % (name, field, getattr(st, field).offset))
    for kind in ("small", "gpt2"):
        sizes = adamw_sizes(kind)
        print("adamw_sizes.%s %d %d" % (kind, len(sizes), sum(sizes)))


def mix64(x):
    """splitmix64's finaliser, as cl_mix64 in common/rng.h"""
    m = (1 << 64) - 1
    x &= m
    x ^= x >> 30
    x = (x * 0xbf58476d1ce4e5b9) & m
    x ^= x >> 27
    x = (x * 0x94d049bb133111eb) & m
    x ^= x >> 31
    return x


def adamw_sizes(kind):
    """the tensor sizes of Lab 4's speed cases (grader/specs/lab04_adamw.c)"""
    if kind == "small":
        return [1 + mix64(0x5eed0000 + i) % 10000 for i in range(1000)]
    d, vocab, ctx = 768, 50257, 1024
    sizes = [vocab * d, ctx * d]
    for _ in range(12):
        sizes += [d, d, d * 3 * d, 3 * d, d * d, d,
                  d, d, d * 4 * d, 4 * d, 4 * d * d, d]
    return sizes + [d, d]


# ----------------------------------------------------------------------------
# timing: events, L2 flush, interleaving, median

class Timer:
    def __init__(self, torch, warmup, reps):
        self.torch = torch
        self.warmup = warmup
        self.reps = reps
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush_buf = torch.empty(max(2 * l2, 1 << 20), dtype=torch.uint8,
                                     device="cuda")

    def flush(self):
        self.flush_buf.zero_()

    def time(self, candidates):
        """candidates: {name: [fn, fn, ...]} (one fn per input set, rotated);
        returns {name: median ms}"""
        torch = self.torch
        for fns in candidates.values():
            for _ in range(self.warmup):
                for fn in fns:
                    fn()
        torch.cuda.synchronize()
        times = {name: [] for name in candidates}
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        for r in range(self.reps):
            for name, fns in candidates.items():
                fn = fns[r % len(fns)]
                self.flush()
                start.record()
                fn()
                end.record()
                end.synchronize()
                times[name].append(start.elapsed_time(end))
        return {name: statistics.median(t) for name, t in times.items()}


def input_sets(bytes_per_set, limit=8 << 30):
    """how many input sets to rotate: 3, fewer when they are large"""
    return max(1, min(3, limit // max(bytes_per_set, 1)))


# ----------------------------------------------------------------------------
# checking

def compare(torch, got, ref, atol, rtol):
    """(ok, max abs error, max relative error) of got against ref"""
    got = got.double().flatten()
    ref = ref.double().flatten()
    diff = (got - ref).abs()
    ok = bool(torch.isfinite(got).all()) and bool(
        (diff <= atol + rtol * ref.abs()).all())
    # relative to each element, with a floor of 1e-3 x the RMS of ref so
    # that elements near zero do not dominate
    floor = max(float(ref.square().mean().sqrt()) * 1e-3, 1e-30)
    rel = diff / ref.abs().clamp_min(floor)
    return ok, float(diff.max()), float(rel.max())


# ----------------------------------------------------------------------------
# per lab: PyTorch's candidates, and the library's call
#
# Each builder returns (candidates, lib_fns, check) for one case:
# candidates {name: [fn per input set]} are PyTorch's ops; lib_fns the
# library's calls on the same inputs (None in table mode); check() runs the
# library once and returns (ok, max abs err, max rel err).

def stream_ptr(torch):
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def lab01(torch, F, lib, p):
    n = p["n"]
    sets = []
    for _ in range(input_sets(12 * n)):
        a = torch.rand(n, device="cuda") * 2 - 1
        b = torch.rand(n, device="cuda") * 2 - 1
        sets.append((a, b, torch.empty_like(a)))
    cands = {"torch.add": [lambda s=s: torch.add(s[0], s[1], out=s[2])
                           for s in sets]}
    if lib is None:
        return cands, None, None
    fn = lib.vector_add
    fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p]
    fn.restype = None
    calls = [lambda s=s: fn(ptr(s[0]), ptr(s[1]), ptr(s[2]), n,
                            stream_ptr(torch)) for s in sets]

    def check():
        a, b, c = sets[0]
        c.fill_(float("nan"))
        calls[0]()
        torch.cuda.synchronize()
        return compare(torch, c, a + b, 0.0, 2e-6)
    return cands, calls, check


def lab02(torch, F, lib, p):
    if p["part"] == "A":
        n, R = p["n"], p["R"]
        shape, nw, terms = (n,), 2 * R + 1, 2 * R + 1
    else:
        B, C, T, K = p["B"], p["C"], p["T"], p["K"]
        shape, nw, terms = (B, C, T), C * K, K
    numel = math.prod(shape)
    sets = []
    for _ in range(input_sets(8 * numel)):
        x = torch.rand(shape, device="cuda") * 2 - 1
        w = torch.rand(nw, device="cuda") * 2 - 1
        sets.append((x, w, torch.empty_like(x)))
    if p["part"] == "A":
        def conv(s):
            return F.conv1d(s[0].view(1, 1, n), s[1].view(1, 1, nw),
                            padding=R).view(n)
        cands = {"F.conv1d": [lambda s=s: conv(s) for s in sets]}
    else:
        def causal(s):  # what a model does: pad on the left, then convolve
            return F.conv1d(F.pad(s[0], (K - 1, 0)), s[1].view(C, 1, K),
                            groups=C)

        def both_sides(s):  # pad both sides, keep the first T outputs
            return F.conv1d(s[0], s[1].view(C, 1, K), padding=K - 1,
                            groups=C)[..., :T]
        cands = {"F.pad + F.conv1d(groups=C)": [lambda s=s: causal(s)
                                                for s in sets],
                 "F.conv1d(padding=K-1)[..., :T]":
                     [lambda s=s: both_sides(s) for s in sets]}
    ref = conv if p["part"] == "A" else causal
    if lib is None:
        return cands, None, None
    if p["part"] == "A":
        fn = lib.stencil_1d
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 2 + [
            ctypes.c_void_p]
        calls = [lambda s=s: fn(ptr(s[0]), ptr(s[2]), ptr(s[1]), n, R,
                                stream_ptr(torch)) for s in sets]
    else:
        fn = lib.causal_conv1d
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 4 + [
            ctypes.c_void_p]
        calls = [lambda s=s: fn(ptr(s[0]), ptr(s[1]), ptr(s[2]), B, C, T, K,
                                stream_ptr(torch)) for s in sets]
    fn.restype = None

    def check():
        s = sets[0]
        s[2].fill_(float("nan"))
        calls[0]()
        torch.cuda.synchronize()
        # twice the grader's tolerance: PyTorch's result is FP32 too
        return compare(torch, s[2], ref(s), 4e-7 * terms, 2e-5)
    return cands, calls, check


def lab03(torch, F, lib, p):
    M, N, K = p["M"], p["N"], p["K"]
    sets = []
    for _ in range(input_sets(4 * (M * K + K * N + M * N))):
        A = torch.rand(M, K, device="cuda") * 2 - 1
        Bm = torch.rand(K, N, device="cuda") * 2 - 1
        sets.append((A, Bm, torch.empty(M, N, device="cuda")))
    cands = {"torch.mm": [lambda s=s: torch.mm(s[0], s[1], out=s[2])
                          for s in sets],
             "torch.matmul": [lambda s=s: torch.matmul(s[0], s[1])
                              for s in sets]}
    if lib is None:
        return cands, None, None
    fn = lib.matmul
    fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3 + [
        ctypes.c_void_p]
    fn.restype = None
    C = torch.empty(M, N, device="cuda")
    calls = [lambda s=s: fn(ptr(s[0]), ptr(s[1]), ptr(C), M, N, K,
                            stream_ptr(torch)) for s in sets]

    def check():
        C.fill_(float("nan"))
        calls[0]()
        torch.cuda.synchronize()
        ref = torch.mm(sets[0][0].double(), sets[0][1].double())
        return compare(torch, C, ref, 2e-6 * K, 2e-5)
    return cands, calls, check


def lab04(torch, F, lib, p):
    sizes = adamw_sizes(p["list"])
    total = sum(sizes)
    hp = ADAMW_HP

    def make_set():
        params = []
        for n in sizes:
            q = torch.nn.Parameter(torch.rand(n, device="cuda") * 2 - 1)
            q.grad = torch.rand(n, device="cuda") * 2 - 1
            params.append(q)
        return params

    def optimizer(params, **kw):
        return torch.optim.AdamW(params, lr=hp["lr"],
                                 betas=(hp["beta1"], hp["beta2"]),
                                 eps=hp["eps"],
                                 weight_decay=hp["weight_decay"], **kw)
    nsets = input_sets(16 * total * 3)
    cands = {}
    for label, kw in (("AdamW(fused=True)", {"fused": True}),
                      ("AdamW(foreach=True)", {"foreach": True}),
                      ("AdamW(foreach=False)", {"foreach": False})):
        opts = [optimizer(make_set(), **kw) for _ in range(nsets)]
        cands[label] = [opt.step for opt in opts]
    if lib is None:
        return cands, None, None
    fn = lib.adamw_step
    fn.argtypes = [ctypes.POINTER(AdamwTensor), ctypes.c_int, AdamwHparams,
                   ctypes.c_void_p]
    fn.restype = None

    def lib_set():
        p_ = [torch.rand(n, device="cuda") * 2 - 1 for n in sizes]
        g_ = [torch.rand(n, device="cuda") * 2 - 1 for n in sizes]
        m_ = [torch.zeros(n, device="cuda") for n in sizes]
        v_ = [torch.zeros(n, device="cuda") for n in sizes]
        arr = (AdamwTensor * len(sizes))()
        for i, n in enumerate(sizes):
            arr[i] = AdamwTensor(p_[i].data_ptr(), g_[i].data_ptr(),
                                 m_[i].data_ptr(), v_[i].data_ptr(), n)
        return (p_, g_, m_, v_), arr

    hparams = AdamwHparams(hp["lr"], hp["beta1"], hp["beta2"], hp["eps"],
                           hp["weight_decay"], 1)
    lsets = [lib_set() for _ in range(nsets)]
    calls = [lambda s=s: fn(s[1], len(sizes), hparams, stream_ptr(torch))
             for s in lsets]

    def check():
        # three steps of the library and of AdamW(fused) from one state
        (p_, g_, m_, v_), arr = lsets[0]
        params = [torch.nn.Parameter(q.clone()) for q in p_]
        for q, g in zip(params, g_):
            q.grad = g.clone()
        for q in m_ + v_:
            q.zero_()
        opt = optimizer(params, fused=True)
        for step in (1, 2, 3):
            h = AdamwHparams(hp["lr"], hp["beta1"], hp["beta2"], hp["eps"],
                             hp["weight_decay"], step)
            fn(arr, len(sizes), h, stream_ptr(torch))
            opt.step()
        torch.cuda.synchronize()
        worst = (True, 0.0, 0.0)
        for got, want, tol in (
                (p_, [q.detach() for q in params], (2e-6, 2e-5)),
                (m_, [opt.state[q]["exp_avg"] for q in params], (2e-7, 2e-5)),
                (v_, [opt.state[q]["exp_avg_sq"] for q in params],
                 (2e-9, 2e-5))):
            ok, ab, rel = compare(torch, torch.cat(got), torch.cat(want),
                                  *tol)
            worst = (worst[0] and ok, max(worst[1], ab), max(worst[2], rel))
        return worst
    return cands, calls, check


def graphed(torch, fn):
    """fn captured in a CUDA graph (after warm-up on a side stream); the
    replay as a callable"""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def lab05(torch, F, lib, p):
    T, B, I, H, L = p["T"], p["B"], p["I"], p["H"], p["L"]
    gru = torch.nn.GRU(I, H, L).cuda()
    sets = []
    for _ in range(input_sets(4 * T * B * (I + 2 * H))):
        x = torch.rand(T, B, I, device="cuda") * 2 - 1
        h0 = torch.rand(L, B, H, device="cuda") * 2 - 1
        sets.append((x, h0))

    def eager(s):
        return gru(s[0], s[1])
    cands = {"nn.GRU": [lambda s=s: eager(s) for s in sets],
             "nn.GRU in a CUDA graph": [graphed(torch, lambda s=s: eager(s))
                                        for s in sets]}
    if lib is None:
        return cands, None, None
    size_fn = lib.gru_workspace_size
    size_fn.argtypes = [ctypes.c_int] * 5
    size_fn.restype = ctypes.c_size_t
    fn = lib.gru_forward
    fn.argtypes = [ctypes.c_void_p] * 4 + [ctypes.POINTER(GruWeights)] + [
        ctypes.c_int] * 5 + [ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.c_void_p]
    fn.restype = None
    layers = (GruWeights * L)()
    for k in range(L):
        layers[k] = GruWeights(*(getattr(gru, "%s_l%d" % (w, k)).data_ptr()
                                 for w in ("weight_ih", "weight_hh",
                                           "bias_ih", "bias_hh")))
    ws_bytes = size_fn(T, B, I, H, L)
    ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")
    y = torch.empty(T, B, H, device="cuda")
    hn = torch.empty(L, B, H, device="cuda")
    calls = [lambda s=s: fn(ptr(s[0]), ptr(s[1]), ptr(y), ptr(hn), layers,
                            T, B, I, H, L, ptr(ws), ws_bytes,
                            stream_ptr(torch)) for s in sets]

    def check():
        y.fill_(float("nan"))
        hn.fill_(float("nan"))
        calls[0]()
        ry, rh = eager(sets[0])
        torch.cuda.synchronize()
        grow = 1.0 + math.sqrt(T * L)
        a = compare(torch, y, ry, 4e-5 * grow, 2e-4)
        b = compare(torch, hn, rh, 4e-5 * grow, 2e-4)
        return a[0] and b[0], max(a[1], b[1]), max(a[2], b[2])
    return cands, calls, check


class Seq2seq:
    """the lab's model in PyTorch, random weights, and its greedy decode"""

    def __init__(self, torch, V, E, H):
        nn = torch.nn
        self.torch = torch
        self.enc_emb = nn.Embedding(V, E).cuda()
        self.enc = nn.GRU(E, H).cuda()
        self.dec_emb = nn.Embedding(V, E).cuda()
        self.dec = nn.GRU(E + H, H).cuda()
        self.fc = nn.Linear(E + 2 * H, V).cuda()
        self.V, self.E, self.H = V, E, H

    def greedy(self, src, T, sos, tokens=None, logits=None):
        """src (S, B) int64; fills tokens (T, B) and logits (T, B)"""
        torch = self.torch
        _, h = self.enc(self.enc_emb(src))
        c = h[0]
        d = h
        y = torch.full((src.shape[1],), sos, dtype=torch.long,
                       device=src.device)
        toks, logs = [], []
        for _ in range(T):
            e = self.dec_emb(y)
            _, d = self.dec(torch.cat([e, c], 1).unsqueeze(0), d)
            o = self.fc(torch.cat([e, d[0], c], 1))
            best = o.max(1)
            y = best.indices
            toks.append(y)
            logs.append(best.values)
        if tokens is not None:
            torch.stack(toks, out=tokens)
            torch.stack(logs, out=logits)
        return toks, logs

    def struct(self):
        def gru(m):
            return Seq2seqGru(m.weight_ih_l0.data_ptr(),
                              m.weight_hh_l0.data_ptr(),
                              m.bias_ih_l0.data_ptr(),
                              m.bias_hh_l0.data_ptr())
        return Seq2seqModel(self.V, self.V, self.E, self.H,
                            self.enc_emb.weight.data_ptr(), gru(self.enc),
                            self.dec_emb.weight.data_ptr(), gru(self.dec),
                            self.fc.weight.data_ptr(),
                            self.fc.bias.data_ptr())


def lab06(torch, F, lib, p):
    S, T, B, V, E, H = p["S"], p["T"], p["B"], p["V"], p["E"], p["H"]
    sos = 1
    model = Seq2seq(torch, V, E, H)
    srcs = [torch.randint(3, V, (S, B), device="cuda") for _ in range(3)]
    tokens = torch.empty(T, B, dtype=torch.long, device="cuda")
    logits = torch.empty(T, B, device="cuda")

    def eager(src):
        return model.greedy(src, T, sos, tokens, logits)
    cands = {"greedy decode": [lambda s=s: eager(s) for s in srcs],
             "greedy decode in a CUDA graph":
                 [graphed(torch, lambda s=s: eager(s)) for s in srcs]}
    if lib is None:
        return cands, None, None
    size_fn = lib.seq2seq_workspace_size
    size_fn.argtypes = [ctypes.POINTER(Seq2seqModel)] + [ctypes.c_int] * 3
    size_fn.restype = ctypes.c_size_t
    fn = lib.seq2seq_greedy
    fn.argtypes = [ctypes.POINTER(Seq2seqModel), ctypes.c_void_p] + [
        ctypes.c_int] * 4 + [ctypes.c_void_p] * 3 + [ctypes.c_size_t,
                                                     ctypes.c_void_p]
    fn.restype = None
    m = model.struct()
    ws_bytes = size_fn(ctypes.byref(m), S, T, B)
    ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")
    src32 = [s.to(torch.int32) for s in srcs]
    tok32 = torch.empty(T, B, dtype=torch.int32, device="cuda")
    log32 = torch.empty(T, B, device="cuda")
    calls = [lambda s=s: fn(ctypes.byref(m), ptr(s), S, B, T, sos, ptr(tok32),
                            ptr(log32), ptr(ws), ws_bytes, stream_ptr(torch))
             for s in src32]

    def check():
        """tokens equal, or the first difference of a sentence a near-tie
        (PyTorch's logits of both tokens within the tolerance); the chosen
        logits compared up to there"""
        tok32.fill_(-1)
        calls[0]()
        toks, logs = model.greedy(srcs[0], T, sos)
        torch.cuda.synchronize()
        grow = 1.0 + math.sqrt(S + T)
        atol, rtol = 6e-5 * grow, 2e-4
        got_t = tok32.long().cpu()
        got_l = log32.double().cpu()
        ok, worst_abs, worst_rel = True, 0.0, 0.0
        for b in range(B):
            for t in range(T):
                want_t = int(toks[t][b])
                want_l = float(logs[t][b])
                if int(got_t[t, b]) != want_t:
                    ok = ok and near_tie(torch, model, srcs[0][:, b:b + 1],
                                         got_t[:, b], t, sos, atol, rtol)
                    break
                d = abs(float(got_l[t, b]) - want_l)
                worst_abs = max(worst_abs, d)
                worst_rel = max(worst_rel, d / max(abs(want_l), 1e-30))
                ok = ok and d <= atol + rtol * abs(want_l)
        return ok, worst_abs, worst_rel
    return cands, calls, check


def near_tie(torch, model, src, got_tokens, t, sos, atol, rtol):
    """PyTorch's logits at step t (on the library's tokens before t) give
    the library's token a logit within the tolerance of the best one"""
    prefix = got_tokens[:t].to(src.device)
    with torch.no_grad():
        _, h = model.enc(model.enc_emb(src))
        c, d = h[0], h
        y = torch.full((1,), sos, dtype=torch.long, device=src.device)
        for k in range(t + 1):
            e = model.dec_emb(y)
            _, d = model.dec(torch.cat([e, c], 1).unsqueeze(0), d)
            o = model.fc(torch.cat([e, d[0], c], 1))[0]
            if k < t:
                y = prefix[k:k + 1]
        best = float(o.max())
        mine = float(o[int(got_tokens[t])])
    return best - mine <= atol + rtol * abs(best)


BUILDERS = {"01": lab01, "02": lab02, "03": lab03, "04": lab04, "05": lab05,
            "06": lab06}


# ----------------------------------------------------------------------------
# the grader's figures (table mode)

def grader_rows(grade, root, lab, seed, csv_path):
    """{case: (reference ms, baseline ms)} from the grader's CSV"""
    name = LABS[lab]
    lib = os.path.join(root, "build", "solution", name + ".so")
    if os.path.exists(csv_path):
        os.remove(csv_path)
    cmd = [grade, lab, "--lib", lib, "--solution", "--bench", "--no-color",
           "--seed", str(seed), "--csv", csv_path, "--label", "reference"]
    for case, _ in SPEED_CASES[lab]:  # the speed cases alone, not the sweep
        cmd += ["-c", case]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode > 1 or not os.path.exists(csv_path):
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), r.returncode,
                                                 r.stderr.strip()[-500:]))
    rows = {}
    with open(csv_path) as f:
        for row in csv.DictReader(line for line in f
                                  if not line.startswith("#")):
            rows[row["case"].replace(";", ",")] = (float(row["time_ms"]),
                                                   float(row["baseline_ms"]))
    return rows


# ----------------------------------------------------------------------------
# output

def heading(torch, title):
    props = torch.cuda.get_device_properties(0)
    return ("# %s\n\n%s (%d SMs), %s, PyTorch %s (CUDA %s, cuDNN %s), FP32 "
            "with TF32 off, CUDA events, L2 flushed before each call, "
            "median.\n" % (title, props.name, props.multi_processor_count,
                           datetime.date.today().isoformat(),
                           torch.__version__, torch.version.cuda,
                           torch.backends.cudnn.version()))


def fmt(ms):
    return "-" if ms is None else "%.4f" % ms


def plot(rows, path, title, mine_label):
    """bars: the speedup of ours (and the library baseline) over PyTorch's
    best, one pair per case; drawn only where matplotlib is installed"""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("peers: matplotlib is missing, no plot", file=sys.stderr)
        return None
    names = ["%s %s" % (r["lab"], r["case"]) for r in rows]
    ours = [r["best_ms"] / r["mine_ms"] if r["mine_ms"] else 0 for r in rows]
    base = [r["best_ms"] / r["base_ms"] if r.get("base_ms") else 0
            for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(rows) + 3), 5))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], ours, 0.4, label=mine_label)
    if any(base):
        ax.bar([x + 0.2 for x in xs], base, 0.4, label="library baseline")
    ax.axhline(1.0, color="black", lw=1)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over PyTorch's best (x)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def write_outputs(torch, out, rows, library):
    os.makedirs(out, exist_ok=True)
    mine = "this build" if library else "reference"
    title = ("A build of the lab beside PyTorch" if library else
             "PyTorch beside the reference solutions")
    lines = [heading(torch, title)]
    if library:
        lines.append("| lab | case | %s ms | check (max abs / rel err) | "
                     "best PyTorch ms | PyTorch op | speedup |" % mine)
        lines.append("|---|---|---|---|---|---|---|")
    else:
        lines.append("| lab | case | reference ms | library baseline ms | "
                     "best PyTorch ms | PyTorch op | speedup |")
        lines.append("|---|---|---|---|---|---|---|")
    for r in rows:
        sp = "%.2fx" % (r["best_ms"] / r["mine_ms"]) if r["mine_ms"] else "-"
        if library:
            chk = "%s (%.2g / %.2g)" % ("ok" if r["ok"] else "WRONG",
                                        r["abs_err"], r["rel_err"])
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                r["lab"], r["case"], fmt(r["mine_ms"]), chk,
                fmt(r["best_ms"]), r["best_op"], sp))
        else:
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                r["lab"], r["case"], fmt(r["mine_ms"]), fmt(r["base_ms"]),
                fmt(r["best_ms"]), r["best_op"], sp))
    lines.append("")
    lines.append("Speedup: best PyTorch ms / %s ms (above 1: ours is "
                 "faster). Every PyTorch op timed:" % mine)
    lines.append("")
    for r in rows:
        lines.append("- %s %s: %s" % (r["lab"], r["case"], ", ".join(
            "%s %.4f ms" % kv for kv in sorted(r["all"].items(),
                                              key=lambda kv: kv[1]))))
    md = os.path.join(out, "peers.md")
    with open(md, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "peers.csv"), "w", newline="") as f:
        # its provenance, as bench.sh's CSV has it: tools/perf-tables.py
        # captions the docs' tables with this line
        f.write("# %s, %s, PyTorch %s\n" % (
            torch.cuda.get_device_properties(0).name,
            datetime.date.today().isoformat(), torch.__version__))
        w = csv.writer(f)
        w.writerow(["lab", "case", "mine_ms", "baseline_ms", "pytorch_ms",
                    "pytorch_op", "ok"])
        for r in rows:
            w.writerow([r["lab"], r["case"], r["mine_ms"], r.get("base_ms"),
                        r["best_ms"], r["best_op"], r.get("ok", "")])
    png = plot(rows, os.path.join(out, "peers.png"),
               lines[0].split("\n")[2][:150], mine)
    print("\n".join(lines))
    print("\npeers: wrote %s%s" % (md, ", " + png if png else ""))


# ----------------------------------------------------------------------------
# main

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="peers.py",
        description="Time PyTorch's equivalent of every scored speed case "
        "beside the reference solutions and the grader's library baselines "
        "(table mode), or beside one build of a lab (--lib).",
        epilog="Exit status: 0 done; 1 a check of the library failed; "
        "2 usage; 3 no CUDA GPU visible to PyTorch; 5 the library cannot be "
        "loaded or lacks the entry point; 6 the grader failed; 9 PyTorch is "
        "not installed.")
    ap.add_argument("--lab", help="one lab: 01..06 (table mode: default "
                    "all; library mode: required)")
    ap.add_argument("--lib", help="library mode: this build of the lab "
                    "(build/student/NN-name.so, build/solution/NN-name.so)")
    ap.add_argument("--out", default="build/peers",
                    help="folder for peers.md, peers.csv, peers.png "
                    "(default build/peers)")
    ap.add_argument("--grade", default="build/bin/grade",
                    help="the grader, table mode (default build/bin/grade)")
    ap.add_argument("--seed", type=int, default=1, help="the grader's seed")
    ap.add_argument("--grader-rows", action="store_true",
                    help="library mode: also grade the reference on the "
                    "speed cases into OUT/grader-NN.csv (the docs' "
                    "ref-NN.csv; table mode always does)")
    ap.add_argument("--case", action="append",
                    help="only this case (repeatable)")
    ap.add_argument("--warmup", type=int, default=5,
                    help="untimed calls of each op first (default 5)")
    ap.add_argument("--reps", type=int, default=30,
                    help="timed calls of each op (default 30)")
    ap.add_argument("--layouts", action="store_true",
                    help="print the ctypes layouts of the labs' structs "
                    "(sizeof, offsetof) and exit; needs no GPU")
    args = ap.parse_args(argv)
    if args.lab is not None:
        lab = args.lab.zfill(2) if args.lab.isdigit() else args.lab
        match = [k for k, v in LABS.items() if lab in (k, v, v[3:])]
        if not match:
            ap.error("unknown lab %r" % args.lab)
        args.lab = match[0]
    if args.lib and not args.lab:
        ap.error("--lib needs --lab")
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be >= 1 and --warmup >= 0")
    return args


def main(argv):
    args = parse_args(argv)
    if args.layouts:
        print_layouts()
        return EXIT_OK
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print("peers: PyTorch is not installed (%s); it is optional, for "
              "this comparison only: pip install torch" % e, file=sys.stderr)
        return EXIT_NO_TORCH
    if not torch.cuda.is_available():
        print("peers: PyTorch %s sees no CUDA GPU" % torch.__version__,
              file=sys.stderr)
        return EXIT_NO_GPU
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # cuDNN's fastest algorithm
    torch.manual_seed(args.seed)
    torch.set_grad_enabled(False)
    # everything on a stream of our own, as the grader gives the library:
    # torch's default is the legacy stream 0, which syncs with every other
    # stream and cannot be captured (Lab 6's reference captures a CUDA
    # graph on the stream it is given)
    torch.cuda.set_stream(torch.cuda.Stream())

    lib = None
    if args.lib:
        try:
            lib = ctypes.CDLL(os.path.abspath(args.lib))
        except OSError as e:
            print("peers: cannot load %s: %s" % (args.lib, e), file=sys.stderr)
            return EXIT_LOAD
    os.makedirs(args.out, exist_ok=True)
    labs = [args.lab] if args.lab else sorted(LABS)
    timer = Timer(torch, args.warmup, args.reps)
    rows, failed = [], False
    root = os.getcwd()
    for lab in labs:
        cases = [c for c in SPEED_CASES[lab]
                 if not args.case or c[0] in args.case]
        if not cases:
            continue
        graded = {}
        if not lib or args.grader_rows:
            try:
                graded = grader_rows(args.grade, root, lab, args.seed,
                                     os.path.join(args.out,
                                                  "grader-%s.csv" % lab))
            except (RuntimeError, OSError) as e:
                print("peers: the grader failed: %s" % e, file=sys.stderr)
                return EXIT_GRADER
        for name, params in cases:
            print("peers: lab %s %s ..." % (lab, name), file=sys.stderr)
            try:
                cands, calls, check = BUILDERS[lab](torch, F, lib, params)
            except AttributeError as e:  # ctypes: a missing entry point
                print("peers: %s lacks the entry point: %s" % (args.lib, e),
                      file=sys.stderr)
                return EXIT_LOAD
            row = {"lab": lab, "case": name}
            if calls:
                row["ok"], row["abs_err"], row["rel_err"] = check()
                failed = failed or not row["ok"]
                cands = dict(cands)
                cands["__mine__"] = calls
            ms = timer.time(cands)
            mine_ms = ms.pop("__mine__", None)
            best = min(ms, key=ms.get)
            row.update(all=ms, best_op=best, best_ms=ms[best])
            if lib:
                row["mine_ms"] = mine_ms
                if name in graded:
                    row["base_ms"] = graded[name][1]
            else:
                ref, base = graded.get(name, (None, None))
                row["mine_ms"], row["base_ms"] = ref, base
            rows.append(row)
            del cands, calls, check
            torch.cuda.empty_cache()
    write_outputs(torch, args.out, rows, lib is not None)
    return EXIT_CHECK if failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
