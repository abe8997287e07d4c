#!/usr/bin/env python3
"""fusegen_attn.py - fusegen's causal grouped-query attention (plan gqa)
called from Python through ctypes, on PyTorch tensors.

    import fusegen_attn
    o = fusegen_attn.gqa(q, k, v)                # q [B, Hq, M, D], k, v [B, Hkv, N, D]
    o, lse = fusegen_attn.gqa(q, k, v, return_lse=True)

What it computes is plans/gqa.fp: query head h reads key/value head
h / G with G = Hq / Hkv, scores Q.K * scale (default 1/sqrt(D)), the causal
mask aligned to the bottom right (query m sees key n when n <= m + N - M,
so with M < N the queries are the last M positions of the sequence), a
softmax over n, O = P.V; LSE is the log-sum-exp of each row's scores
(natural log, float32), computed only when asked for.

CUDA tensors (bf16 or fp16, one dtype for q, k, v and out) go to fg_gqa on
torch.cuda.current_stream(): the launch is asynchronous on that stream,
like any torch operator.  CPU tensors (float32; bf16 and fp16 are taken
too) go to fg_gqa_cpu, synchronously.  Any strides are passed as they are,
so views such as x.transpose(1, 2) of a [B, M, H, D] tensor need no copy;
the GPU kernels need the last stride 1 and 16-byte aligned pointers and
strides, and the library refuses anything else with a message
(FusegenError).  Forward only: no autograd.

The library is libfusegen_py.so (examples/python/Makefile) beside this file,
or the path in $FUSEGEN_PY_LIB.  It is loaded on first use, and its C
layout of the argument structs is compared with the ctypes mirror below.

Run as a program, it checks itself against a naive PyTorch evaluation:
    python3 fusegen_attn.py [--device cpu|cuda]
"""
import ctypes
import os
import sys

__all__ = ["FusegenError", "gqa", "load", "library_path", "has_cuda", "last_config", "reference"]

# runtime/fusegen.h
FG_MAX_RANK = 8
FG_BF16, FG_FP16, FG_F32, FG_I32 = 0, 1, 2, 3
FG_OK = 0


class FgTensor(ctypes.Structure):
    """fg_tensor: a strided view; shapes and strides count elements."""
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),  # enum fg_dtype: an int on the ABIs fusegen builds for (checked on load)
        ("rank", ctypes.c_int),
        ("shape", ctypes.c_int64 * FG_MAX_RANK),
        ("stride", ctypes.c_int64 * FG_MAX_RANK),
    ]


class FgGqaArgs(ctypes.Structure):
    """fg_gqa_args (generated/fusegen_gqa.h)."""
    _fields_ = [
        ("Q", FgTensor),    # [B, Hq, M, D]
        ("K", FgTensor),    # [B, Hkv, N, D]
        ("V", FgTensor),    # [B, Hkv, N, D]
        ("O", FgTensor),    # [B, Hq, M, D]
        ("LSE", FgTensor),  # [B, Hq, M] f32; NULL data: not computed
        ("G", ctypes.c_int),
        ("has_G", ctypes.c_int),
        ("scale", ctypes.c_float),
        ("has_scale", ctypes.c_int),
        ("splits", ctypes.c_int),
    ]


# The values layout.c's fgpy_layout() returns, in its order.
LAYOUT_FIELDS = (
    "FG_MAX_RANK", "FG_BF16", "FG_FP16", "FG_F32", "FG_I32", "FG_OK",
    "sizeof(fg_dtype)", "sizeof(fg_tensor)",
    "fg_tensor.data", "fg_tensor.dtype", "fg_tensor.rank", "fg_tensor.shape", "fg_tensor.stride",
    "sizeof(fg_gqa_args)",
    "fg_gqa_args.Q", "fg_gqa_args.K", "fg_gqa_args.V", "fg_gqa_args.O", "fg_gqa_args.LSE",
    "fg_gqa_args.G", "fg_gqa_args.has_G", "fg_gqa_args.scale", "fg_gqa_args.has_scale",
    "fg_gqa_args.splits",
)


def _layout_here():
    return (
        FG_MAX_RANK, FG_BF16, FG_FP16, FG_F32, FG_I32, FG_OK,
        ctypes.sizeof(ctypes.c_int), ctypes.sizeof(FgTensor),
        FgTensor.data.offset, FgTensor.dtype.offset, FgTensor.rank.offset,
        FgTensor.shape.offset, FgTensor.stride.offset,
        ctypes.sizeof(FgGqaArgs),
        FgGqaArgs.Q.offset, FgGqaArgs.K.offset, FgGqaArgs.V.offset, FgGqaArgs.O.offset,
        FgGqaArgs.LSE.offset, FgGqaArgs.G.offset, FgGqaArgs.has_G.offset,
        FgGqaArgs.scale.offset, FgGqaArgs.has_scale.offset, FgGqaArgs.splits.offset,
    )


class FusegenError(RuntimeError):
    """A non-OK fg_status: status (the number), status_name
    (fg_strerror) and the message of fg_last_error() naming the argument."""

    def __init__(self, entry, status, status_name, message):
        self.entry = entry
        self.status = status
        self.status_name = status_name
        self.message = message
        # fg_last_error() names the entry itself; say it once
        text = message if message.startswith(entry) else f"{entry}: {message}"
        super().__init__(f"{text} ({status_name}, status {status})")


_lib = None


def library_path():
    """$FUSEGEN_PY_LIB, else libfusegen_py.so beside this file."""
    env = os.environ.get("FUSEGEN_PY_LIB")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libfusegen_py.so")


def load(path=None):
    """Load the library once (later calls return it), declare the entry
    points' signatures and check the struct layout against layout.c."""
    global _lib
    if _lib is not None:
        return _lib
    path = path or library_path()
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: not built (make -C examples/python, see its README.md)")
    lib = ctypes.CDLL(path)
    lib.fgpy_layout.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_int]
    lib.fgpy_layout.restype = ctypes.c_int
    buf = (ctypes.c_int64 * 64)()
    count = lib.fgpy_layout(buf, len(buf))
    theirs = tuple(buf[:count])
    ours = _layout_here()
    if count != len(LAYOUT_FIELDS) or theirs != ours:
        diff = [f"{n}: C {c}, ctypes {p}" for n, c, p in zip(LAYOUT_FIELDS, theirs, ours) if c != p]
        raise ImportError(f"{path}: the C layout differs from fusegen_attn's ctypes mirror "
                          f"({count} values, {len(LAYOUT_FIELDS)} expected): " + "; ".join(diff))
    # fg_status is an enum, an int on these ABIs (sizeof(fg_dtype) was checked above).
    for name in ("fg_strerror", "fg_last_error", "fg_last_config"):
        getattr(lib, name).restype = ctypes.c_char_p
    lib.fg_strerror.argtypes = [ctypes.c_int]
    lib.fg_last_error.argtypes = []
    lib.fg_last_config.argtypes = []
    lib.fg_gqa_cpu.argtypes = [ctypes.POINTER(FgGqaArgs)]
    lib.fg_gqa_cpu.restype = ctypes.c_int
    if hasattr(lib, "fg_gqa"):  # absent when built against fusegen-cpu only
        lib.fg_gqa.argtypes = [ctypes.POINTER(FgGqaArgs), ctypes.c_void_p]
        lib.fg_gqa.restype = ctypes.c_int
    _lib = lib
    return lib


def has_cuda():
    """Whether the loaded library has the CUDA entry (built with fusegen-cuda)."""
    return hasattr(load(), "fg_gqa")


def last_config():
    """fg_last_config(): the kernel configuration of this thread's last GPU
    launch and where it came from (wisdom row or default rules)."""
    return load().fg_last_config().decode("utf-8", "replace")


def _dtype_code(t):
    import torch
    codes = {torch.bfloat16: FG_BF16, torch.float16: FG_FP16, torch.float32: FG_F32, torch.int32: FG_I32}
    if t.dtype not in codes:
        raise TypeError(f"dtype {t.dtype} has no fg_dtype")
    return codes[t.dtype]


def _fg_tensor(t):
    """The fg_tensor of a torch tensor: its pointer (storage offset
    included), shape and strides, unchanged."""
    if t.dim() > FG_MAX_RANK:
        raise ValueError(f"rank {t.dim()} > FG_MAX_RANK ({FG_MAX_RANK})")
    ft = FgTensor()
    ft.data = t.data_ptr()
    ft.dtype = _dtype_code(t)
    ft.rank = t.dim()
    for i, (n, s) in enumerate(zip(t.shape, t.stride())):
        ft.shape[i] = n
        ft.stride[i] = s
    return ft


def gqa(q, k, v, scale=None, out=None, return_lse=False):
    """Causal grouped-query attention of plan gqa (see the module doc).

    q: [B, Hq, M, D]; k, v: [B, Hkv, N, D], Hq a multiple of Hkv; all on one
    device.  scale: the score factor (default 1/sqrt(D)).  out: where O goes,
    [B, Hq, M, D] in q's dtype, any strides (e.g. the transpose of a
    [B, M, Hq, D] tensor); made when None.  Returns out, or (out, lse) with
    lse a new float32 [B, Hq, M] when return_lse.  Shapes, dtypes, strides
    and alignment are checked by the library (FusegenError names the
    argument); this wrapper checks what the library cannot see: that the
    tensors are where the chosen entry reads them."""
    import torch

    for name, t in (("q", q), ("k", k), ("v", v), ("out", out)):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}: a torch.Tensor, not {type(t).__name__}")
        if t.device != q.device:
            raise ValueError(f"{name} is on {t.device}, q on {q.device}")
    if q.dim() != 4:
        raise ValueError(f"q: [B, Hq, M, D] expected, got shape {tuple(q.shape)}")
    if torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v)):
        # The entries have no backward: an output that silently carried no
        # gradient would train a model wrongly.
        raise RuntimeError("fusegen_attn.gqa is forward only: call it under torch.no_grad() "
                           "or torch.inference_mode(), or on tensors without requires_grad")
    B, Hq, M, D = q.shape
    if out is None:
        out = torch.empty((B, Hq, M, D), dtype=q.dtype, device=q.device)
    lse = torch.empty((B, Hq, M), dtype=torch.float32, device=q.device) if return_lse else None

    lib = load()
    args = FgGqaArgs()
    args.Q = _fg_tensor(q)
    args.K = _fg_tensor(k)
    args.V = _fg_tensor(v)
    args.O = _fg_tensor(out)
    if lse is not None:
        args.LSE = _fg_tensor(lse)
    else:
        args.LSE = FgTensor()  # data NULL: LSE not computed (its shape is not checked)
        args.LSE.dtype = FG_F32
    args.has_G = 0  # G = Hq / Hkv, the plan's default
    if scale is not None:
        args.scale = float(scale)
        args.has_scale = 1
    args.splits = 0  # rolling schedule: no effect on the GPU; the CPU entry's default

    if q.device.type == "cuda":
        if not hasattr(lib, "fg_gqa"):
            raise FusegenError("fg_gqa", -1, "no CUDA entry",
                               f"{library_path()} was built against fusegen-cpu only")
        entry = "fg_gqa"
        # The stream torch would use for an operator on q's device; the
        # device made current for the call, so the library's CUDA runtime
        # and its per-device caches see the same device as torch.
        with torch.cuda.device(q.device):
            stream = torch.cuda.current_stream(q.device).cuda_stream
            status = lib.fg_gqa(ctypes.byref(args), ctypes.c_void_p(stream))
    elif q.device.type == "cpu":
        entry = "fg_gqa_cpu"
        status = lib.fg_gqa_cpu(ctypes.byref(args))
    else:
        raise ValueError(f"q is on {q.device}: fusegen_attn takes cuda or cpu tensors")
    if status != FG_OK:
        # fg_last_error is per thread: read on this thread, right after the call.
        raise FusegenError(entry, status, lib.fg_strerror(status).decode("utf-8", "replace"),
                           lib.fg_last_error().decode("utf-8", "replace"))
    return (out, lse) if return_lse else out


def reference(q, k, v, scale=None):
    """The plan evaluated naively in float32 with torch (for checks):
    returns (O, LSE).  Rows with no visible key (M > N) are not defined here."""
    import torch
    B, Hq, M, D = q.shape
    Hkv, N = k.shape[1], k.shape[2]
    scale = D ** -0.5 if scale is None else scale
    G = Hq // Hkv
    kf = k.float().repeat_interleave(G, dim=1)
    vf = v.float().repeat_interleave(G, dim=1)
    s = torch.matmul(q.float(), kf.transpose(-1, -2)) * scale
    m = torch.arange(M, device=q.device).view(M, 1)
    n = torch.arange(N, device=q.device).view(1, N)
    s = s.masked_fill(n > m + N - M, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), vf), torch.logsumexp(s, dim=-1)


def _selftest(device):
    """gqa against reference() on a few shapes: odd lengths (tails of
    every tile), M < N (the bottom-right mask), G = 4 and 1, strided views
    of [B, M, H, D] tensors for q, k, v and out, an explicit scale, LSE;
    and one refused call.  Returns the number of failures."""
    import torch
    torch.manual_seed(0)
    # Each element must satisfy |got - ref| <= atol + rtol * |ref| (as
    # torch.allclose): the rounding errors are relative to the values.
    if device == "cuda":
        dtypes = [torch.bfloat16, torch.float16]
        # bf16 keeps 8 significant bits (one rounding: relative 2^-9, 2e-3):
        # O is rounded to bf16 on output and the kernels round P to bf16
        # before P.V, while L sums P unrounded; a few such roundings, with a
        # margin, give rtol 1e-2.  fp16 keeps 11 bits: 8 times finer.  LSE
        # is float32 from exact products of the inputs: the same bounds are
        # loose for it.
        tol = {torch.bfloat16: (1e-2, 1e-2), torch.float16: (2e-3, 2e-3)}
    else:
        dtypes = [torch.float32]
        # The CPU entry computes in float32 throughout; the reference too, in
        # another order: differences are a few ulps of values of order 1.
        tol = {torch.float32: (1e-4, 1e-4)}
    lib = load()
    print(f"fusegen_attn self-test: {library_path()}, device {device}, CUDA entry {has_cuda()}")
    cases = [  # B, Hq, Hkv, M, N, D, strided, scale
        (2, 8, 2, 301, 301, 64, True, None),
        (1, 4, 1, 37, 301, 128, False, 0.1),
        (2, 4, 4, 1, 129, 64, True, None),
        (1, 8, 2, 200, 200, 128, True, None),
    ]
    failures = 0
    for dt in dtypes:
        for B, Hq, Hkv, M, N, D, strided, scale in cases:
            def make(H, L):
                if strided:  # [B, L, H, D] in memory, seen as [B, H, L, D]
                    return torch.randn(B, L, H, D, device=device).to(dt).transpose(1, 2)
                return torch.randn(B, H, L, D, device=device).to(dt)
            q, k, v = make(Hq, M), make(Hkv, N), make(Hkv, N)
            out = torch.empty(B, M, Hq, D, device=device, dtype=dt).transpose(1, 2) if strided else None
            with torch.no_grad():
                o, lse = gqa(q, k, v, scale=scale, out=out, return_lse=True)
                if device == "cuda":
                    torch.cuda.synchronize()
                ro, rl = reference(q, k, v, scale)
            atol, rtol = tol[dt]
            do, dl = (o.float() - ro).abs(), (lse - rl).abs()
            ok = (bool((do <= atol + rtol * ro.abs()).all()) and bool((dl <= atol + rtol * rl.abs()).all())
                  and (out is None or o is out))
            failures += not ok
            cfg = f", {last_config()}" if device == "cuda" else ""
            print(f"{'ok  ' if ok else 'FAIL'} {str(dt)[6:]:8} B={B} Hq={Hq} Hkv={Hkv} M={M} N={N} D={D}"
                  f" strided={int(strided)}: max |O-ref| {do.max().item():.3g} (|O| up to"
                  f" {ro.abs().max().item():.3g}), max |LSE-ref| {dl.max().item():.3g};"
                  f" atol {atol:g}, rtol {rtol:g}{cfg}")
    # A refused call: Hq not a multiple of Hkv.  The error must come back as
    # FusegenError with the library's message.
    q = torch.randn(1, 3, 8, 64, device=device).to(dtypes[0])
    k = torch.randn(1, 2, 8, 64, device=device).to(dtypes[0])
    try:
        with torch.no_grad():
            gqa(q, k, k)
        print("FAIL refused call: Hq=3, Hkv=2 was accepted")
        failures += 1
    except FusegenError as e:
        print(f"ok   refused call: {e}")
    del lib
    print(f"{(len(dtypes) * len(cases) + 1) - failures} passed, {failures} failed")
    return failures


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser(description="check fusegen_attn.gqa against a naive torch evaluation")
    p.add_argument("--device", choices=["cpu", "cuda"], default=None,
                   help="default: cuda when torch sees a GPU and the library has the CUDA entry, else cpu")
    a = p.parse_args()
    import torch
    dev = a.device
    if dev is None:
        dev = "cuda" if torch.cuda.is_available() and has_cuda() else "cpu"
    if dev == "cuda" and not torch.cuda.is_available():
        print("fusegen_attn: --device cuda, but torch sees no CUDA device")
        sys.exit(2)
    if dev == "cuda" and not has_cuda():
        print(f"fusegen_attn: --device cuda, but {library_path()} has no CUDA entry (built against fusegen-cpu)")
        sys.exit(2)
    sys.exit(1 if _selftest(dev) else 0)
