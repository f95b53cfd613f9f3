"""peakbench worker for PyTorch (docs/workers.md): the CPU, or a CUDA device.

Each kernel times the call a PyTorch user writes, with out= where PyTorch
takes one (so the allocator is not what is measured), on tensors PyTorch
allocated itself: the inputs are copied once from the shared file. The
Fourier transforms are torch.fft's (pocketfft or MKL on the CPU, cuFFT on a
GPU), the sparse products a torch.sparse_csr_tensor times a dense tensor;
both on the worker's device, probed at hello (an op the build cannot run
there is left out, with the reason).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peakbench_worker import (FFT_OPS, SPARSE_OPS, Kernel, Missing, Refused, Unsupported, blas_thread_control,  # noqa: E402
                              fft_layout, first_call_excess, loaded_library, python_details, serve)

VECTOR = ["gemm", "gemv", "axpy", "dot", "add", "mul", "relu", "sigmoid", "tanh", "exp", "sum", "max", "softmax"]
LAYERS = ["conv1d", "conv2d", "conv3d", "maxpool", "avgpool", "adaptiveavgpool", "batchnorm", "layernorm", "groupnorm"]
QUANT = ["quantize", "dequantize"]
QTYPES = {"i8": "qint8", "u8": "quint8"}


class Torch:
    def __init__(self):
        self.torch = None
        self.dev = "cpu"
        self.spmv_by_mm = ""  # why spmv runs as a one-column torch.mm, when it does

    def hello(self, device):
        try:
            import numpy  # noqa: F401  (the shared file's views)
            import torch
        except ImportError as e:
            raise Missing(str(e))
        self.torch = torch
        details = python_details()
        cfg = torch.__config__.show()
        for key, pat in [("blas_info", r"BLAS_INFO=([^,\s]+)"), ("onednn", r"MKL-DNN (v[\d.]+)"),
                         ("openmp", r"OpenMP (\d+)"), ("code_path", r"CPU capability usage: (\S+)")]:
            m = re.search(pat, cfg)
            if m:
                details[key] = m.group(1)
        blas = loaded_library("libblas", "openblas", "mkl_rt", "blis")
        if blas:
            details["blas"] = blas
        self.set_blas_threads, how = blas_thread_control(blas)
        details["threads"] = "torch.set_num_threads; BLAS: " + how
        name = "cpu"
        if device.startswith("cuda"):
            if not torch.cuda.is_available():
                why = "built without CUDA" if torch.version.cuda is None else "no CUDA device is visible"
                raise Refused("torch %s: %s" % (torch.__version__, why))
            idx = int(device.split(":")[1]) if ":" in device else 0
            if idx >= torch.cuda.device_count():
                raise Refused("no CUDA device %d (%d visible)" % (idx, torch.cuda.device_count()))
            self.dev = "cuda:%d" % idx
            name = "%s %s" % (self.dev, torch.cuda.get_device_name(idx))
            details["cuda"] = str(torch.version.cuda)
            details["cudnn"] = str(torch.backends.cudnn.version())
            details.pop("code_path", None)
        ops = {op: ["f32", "f64"] for op in VECTOR + LAYERS}
        unavailable = {}
        lowp, why = self.probe_gemm()
        ops["gemm"] += lowp
        for dt, reason in why.items():
            unavailable["gemm " + dt] = reason
        for op, dts, why in list(self.probe()) + list(self.probe_quant()):
            if dts:
                ops[op] = dts
            if why:
                unavailable[op] = why
        if "fft" in ops:
            details["fft"] = "torch.fft on " + self.dev
        if "spmm" in ops:
            details["sparse"] = "torch.sparse_csr_tensor on " + self.dev
            if self.spmv_by_mm:
                details["sparse"] += "; spmv as a one-column torch.mm (torch.mv refused: %s)" % self.spmv_by_mm
        return dict(name="torch", version=torch.__version__, device=name, ops=ops, threads=True, details=details,
                    unavailable=unavailable)

    def probe(self):
        """Yields (op, dtypes it computes on the device, why not) for the
        Fourier transforms and the sparse products: a tiny call of each, as
        builds differ (torch.mv of a CSR tensor on the CPU needs MKL; a
        torch before 1.10 has no sparse CSR tensors)."""
        torch = self.torch
        dts = {"f32": (torch.float32, torch.complex64), "f64": (torch.float64, torch.complex128)}
        has_fft = hasattr(torch, "fft") and hasattr(getattr(torch, "fft"), "rfft2")
        has_csr = hasattr(torch, "sparse_csr_tensor")

        def tiny(op, real, cplx):
            x = torch.ones(2, 4, dtype=cplx if op in ("fft", "ifft") else real, device=self.dev)
            if op in FFT_OPS:
                return getattr(torch.fft, op)(x)
            i = torch.tensor([0, 1, 2], dtype=torch.int32, device=self.dev)
            A = torch.sparse_csr_tensor(i, i[:2], torch.ones(2, dtype=real, device=self.dev), size=(2, 2))
            if op == "spmm":
                return torch.mm(A, x[:, :2])
            try:
                return torch.mv(A, x[0, :2])
            except RuntimeError as e:  # a CPU build without MKL: "Calling addmv on a sparse CPU tensor requires … MKL"
                self.spmv_by_mm = str(e).strip().splitlines()[0].split(". ")[0]
                return torch.mm(A, x[0, :2].view(2, 1))

        for op in FFT_OPS + SPARSE_OPS:
            if op in FFT_OPS and not has_fft:
                yield op, [], "torch %s has no torch.fft module (1.8 and later)" % torch.__version__
                continue
            if op in SPARSE_OPS and not has_csr:
                yield op, [], "torch %s has no sparse CSR tensors (torch.sparse_csr_tensor: 1.10 and later)" % torch.__version__
                continue
            ok, why = [], ""
            for name, (real, cplx) in dts.items():
                try:
                    tiny(op, real, cplx)
                    ok.append(name)
                except Exception as e:
                    msg = str(e).strip().splitlines()
                    why = why or "%s %s on %s: %s: %s" % (op, name, self.dev, type(e).__name__, msg[0] if msg else "")
            yield op, ok, why

    def probe_quant(self):
        """Yields (op, dtypes, why not) for quantize and dequantize: a tiny
        per-tensor and per-channel call of each in qint8 and quint8 on the
        device (quantized tensors are a CPU feature in older builds)."""
        torch = self.torch
        ok, why = [], ""
        for name, q in QTYPES.items():
            try:
                qt = getattr(torch, q)
                x = torch.ones(2, 4, device=self.dev)
                a = torch.quantize_per_tensor(x, 0.5, 1, qt)
                b = torch.quantize_per_channel(x, torch.tensor([0.5, 0.25], dtype=torch.float64, device=self.dev),
                                               torch.tensor([1, 2], device=self.dev), 0, qt)
                if a.dequantize()[0, 0].item() != 1 or b.dequantize()[1, 0].item() != 1:
                    raise RuntimeError("1 quantized and back is not 1")
                ok.append(name)
            except Exception as e:
                msg = str(e).strip().splitlines()
                why = why or "%s on %s: %s: %s" % (q, self.dev, type(e).__name__, msg[0] if msg else "")
        for op in QUANT:
            yield op, ok, why

    def probe_gemm(self):
        """Returns the low-precision gemm dtypes torch computes as the
        workload defines them, and why not the others: tf32 (f32 tensors,
        torch.backends.cuda.matmul.allow_tf32: CUDA only), bf16 and f16 with
        an f32 output (torch.mm's out_dtype, torch 2.6 and later)."""
        torch = self.torch
        ok, why = [], {}
        if self.dev == "cpu":
            why["tf32"] = "tf32 is a CUDA matmul mode (torch.backends.cuda.matmul.allow_tf32)"
        elif not hasattr(torch.backends.cuda, "matmul"):
            why["tf32"] = "torch %s has no torch.backends.cuda.matmul" % torch.__version__
        else:
            ok.append("tf32")
        for name, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            try:
                a = torch.ones(2, 2, dtype=dt, device=self.dev)
                c = torch.empty(2, 2, dtype=torch.float32, device=self.dev)
                torch.mm(a, a, out_dtype=torch.float32, out=c)
                if c[0, 0].item() != 2:
                    raise RuntimeError("1·1 + 1·1 gave %s" % c[0, 0].item())
                ok.append(name)
            except Exception as e:
                msg = str(e).strip().splitlines()
                why[name] = "%s → f32 on %s: torch.mm(…, out_dtype=torch.float32): %s: %s" % (
                    name, self.dev, type(e).__name__, msg[0] if msg else "")
        return ok, why

    def to_numpy(self, r):
        return r.detach().cpu().numpy() if hasattr(r, "detach") else r

    def sync(self):
        if self.dev != "cpu":
            self.torch.cuda.synchronize(self.dev)

    def prepare(self, req, inputs, index):
        torch = self.torch
        if req.get("threads"):
            torch.set_num_threads(int(req["threads"]))
            if self.set_blas_threads is not None:
                self.set_blas_threads(int(req["threads"]))
        copies = max(int(req.get("copies", 1)), 1)
        def tensors(arrays):
            return [torch.from_numpy(a).to(self.dev, copy=True) for a in arrays]

        sets = [self.build(req, tensors(inputs), tensors(index)) for _ in range(copies)]
        steps = [s[0] for s in sets]
        impl = sets[0][2]
        k = Kernel(steps, None, impl, sync=self.sync if self.dev != "cpu" else None)
        k.result = lambda: sets[k.last][1]()
        if req["op"] in FFT_OPS:
            k.plan_ns = first_call_excess(steps[0], k.sync)
        elif req["op"] != "axpy":  # (axpy would change y)
            steps[0]()  # a call the framework refuses fails here, at prepare
            self.sync()
        return k

    def build(self, req, t, index):
        """Returns (step, result, implementation) over tensors t (flat) and
        index (a sparse matrix's row pointers and column indices)."""
        torch = self.torch
        op, d = req["op"], req["dims"]
        if op in FFT_OPS:
            return self.transform(req, t[0])
        if op in SPARSE_OPS:
            return self.sparse_product(req, t, index)
        m, n, k = d.get("m", 0), d.get("n", 0), d.get("k", 0)
        if op == "gemm":
            return self.gemm(req["dtype"], d, t)
        if op == "gemv":
            a, x = t[0].view(m, n), t[1]
            y = torch.empty(m, dtype=a.dtype, device=a.device)
            return (lambda: torch.mv(a, x, out=y)), (lambda: y), "torch.mv(a, x, out=y)"
        if op == "axpy":
            x, y, alpha = t[0], t[1], float(req.get("alpha", 1))
            return (lambda: y.add_(x, alpha=alpha)), (lambda: y), "y.add_(x, alpha=a)"
        if op in ("add", "mul"):
            x, y = t[0], t[1]
            z = torch.empty_like(x)
            f = torch.add if op == "add" else torch.mul
            return (lambda: f(x, y, out=z)), (lambda: z), "torch.%s(x, y, out=z)" % op
        if op in ("sigmoid", "tanh", "exp"):
            x = t[0]
            y = torch.empty_like(x)
            f = getattr(torch, op)
            return (lambda: f(x, out=y)), (lambda: y), "torch.%s(x, out=y)" % op
        if op == "relu":
            x = t[0]
            return (lambda: torch.relu(x)), (lambda: torch.relu(x)), "torch.relu(x)"
        if op == "dot":
            x, y = t[0], t[1]
            return (lambda: torch.dot(x, y)), (lambda: torch.dot(x, y)), "torch.dot(x, y)"
        if op in ("sum", "max"):
            x = t[0]
            f = getattr(torch, op)
            return (lambda: f(x)), (lambda: f(x)), "torch.%s(x)" % op
        if op == "softmax":
            x = t[0].view(m, n)
            y = torch.empty_like(x)
            return (lambda: torch.softmax(x, 1, out=y)), (lambda: y), "torch.softmax(x, 1, out=y)"
        if op in LAYERS:
            return self.layer(req, t)
        if op in QUANT:
            return self.quant(req, t)
        raise Unsupported("torch worker: no op %s" % op)

    def quant(self, req, t):
        """quantize: torch.quantize_per_tensor, or torch.quantize_per_channel
        over rows (axis 0) for an m×n:channel shape, into qint8 (i8) or
        quint8 (u8); dequantize: .dequantize() of such a tensor, made once
        at prepare from the workload's integers. Each call allocates its
        output, as a user's does (neither takes out=). t: the data (x, or
        q), the scales and the zero points, as float64."""
        torch = self.torch
        op, d = req["op"], req["dims"]
        qt = getattr(torch, QTYPES[req["dtype"]])
        rows, cols = max(d.get("m", 0), 1), d["n"]
        channel = d.get("m", 0) > 0
        scales, zps = t[1].to(torch.float64), t[2].to(torch.int64)
        last = [None]
        if op == "quantize":
            x = t[0].to(torch.float32).view(rows, cols)
            if channel:
                def step():
                    last[0] = torch.quantize_per_channel(x, scales, zps, 0, qt)
                name = "torch.quantize_per_channel(x, scales, zero_points, 0, torch.%s)" % QTYPES[req["dtype"]]
            else:
                s, z = float(scales[0]), int(zps[0])

                def step():
                    last[0] = torch.quantize_per_tensor(x, s, z, qt)
                name = "torch.quantize_per_tensor(x, scale, zero_point, torch.%s)" % QTYPES[req["dtype"]]
            return step, (lambda: last[0].int_repr()), name
        ints = t[0].to(torch.int8 if req["dtype"] == "i8" else torch.uint8).view(rows, cols)
        if channel:
            q = torch._make_per_channel_quantized_tensor(ints, scales, zps, 0)
            name = "q.dequantize() (q per channel, torch.%s)" % QTYPES[req["dtype"]]
        else:
            q = torch._make_per_tensor_quantized_tensor(ints, float(scales[0]), int(zps[0]))
            name = "q.dequantize() (q per tensor, torch.%s)" % QTYPES[req["dtype"]]

        def step():
            last[0] = q.dequantize()
        return step, (lambda: last[0]), name

    def gemm(self, dtype, d, t):
        """torch.mm in the workload's dtype: f32 and f64 as they are, tf32 as
        f32 with TF32 matmuls allowed, bf16 and f16 converted once, at
        prepare, with an f32 output (out_dtype). On a GPU each call sets
        allow_tf32 (torch's global flag), so that an f32 gemm after a tf32
        one in the same worker is f32 again."""
        torch = self.torch
        m, n, k = d["m"], d["n"], d["k"]
        ta, tb = d.get("trans_a", False), d.get("trans_b", False)
        low = {"bf16": torch.bfloat16, "f16": torch.float16}.get(dtype)
        x, y = (t[0].to(low), t[1].to(low)) if low is not None else (t[0], t[1])
        a = x.view(k, m).t() if ta else x.view(m, k)
        b = y.view(n, k).t() if tb else y.view(k, n)
        out = torch.float32 if low is not None else a.dtype
        c = torch.empty(m, n, dtype=out, device=a.device)
        args = "a%s, b%s" % (".t()" if ta else "", ".t()" if tb else "")
        if low is not None:
            return (lambda: torch.mm(a, b, out_dtype=torch.float32, out=c)), (lambda: c), \
                "torch.mm(%s, out_dtype=torch.float32, out=c) on %s" % (args, low)
        if self.dev == "cpu" or dtype == "f64":
            return (lambda: torch.mm(a, b, out=c)), (lambda: c), "torch.mm(%s, out=c)" % args
        flags, tf32 = torch.backends.cuda.matmul, dtype == "tf32"

        def step():
            flags.allow_tf32 = tf32
            torch.mm(a, b, out=c)
        name = "torch.mm(%s, out=c)" % args
        return step, (lambda: c), name + (" with allow_tf32" if tf32 else "")

    def transform(self, req, x):
        """torch.fft on x, laid out as fft_layout says: complex64 for f32,
        complex128 for f64; ifft unnormalized, as the workload defines it
        (norm="forward" puts the 1/n on the forward transform)."""
        torch, op = self.torch, req["op"]
        shape, out_shape, axes = fft_layout(req)
        if op != "rfft":
            x = torch.view_as_complex(x.view(-1, 2))
        x = x.view(shape)
        cplx = torch.complex64 if x.dtype in (torch.float32, torch.complex64) else torch.complex128
        y = torch.empty(out_shape, dtype=cplx, device=x.device)
        name = op + ("2" if axes == 2 else "")
        f = getattr(torch.fft, name)
        norm = "forward" if op == "ifft" else "backward"
        call = lambda: f(x, norm=norm, out=y)  # noqa: E731
        return call, (lambda: y), "torch.fft.%s(x%s, out=y)" % (name, ', norm="forward"' if op == "ifft" else "")

    def sparse_product(self, req, t, index):
        """torch.mv(A, x) (spmv) or torch.mm(A, X) (spmm, X cols×k
        row-major) with A a sparse CSR tensor over the workload's pattern
        (int32 indices); spmv as a one-column torch.mm where this build's
        torch.mv has no CSR kernel (the CPU without MKL)."""
        torch, op = self.torch, req["op"]
        s = req["dims"]["sparse"]
        if len(index) != 2:
            raise Refused("torch worker: %s needs the CSR pattern (prepare's index regions)" % op)
        A = torch.sparse_csr_tensor(index[0], index[1], t[0], size=(s["rows"], s["cols"]))
        if op == "spmm":
            X = t[1].view(s["cols"], s["k"])
            Y = torch.empty(s["rows"], s["k"], dtype=X.dtype, device=X.device)
            return (lambda: torch.mm(A, X, out=Y)), (lambda: Y), "torch.mm(A_csr, X, out=Y)"
        x = t[1]
        y = torch.empty(s["rows"], dtype=x.dtype, device=x.device)
        if self.spmv_by_mm:
            xc, yc = x.view(-1, 1), y.view(-1, 1)
            return (lambda: torch.mm(A, xc, out=yc)), (lambda: y), "torch.mm(A_csr, x[:, None], out=y[:, None]) (torch.mv of CSR needs MKL)"
        return (lambda: torch.mv(A, x, out=y)), (lambda: y), "torch.mv(A_csr, x, out=y)"

    def layer(self, req, t):
        torch = self.torch
        F = torch.nn.functional
        op, l = req["op"], req["dims"]["layer"]
        r, nhwc = l["rank"], l.get("nhwc", False)
        N, C = l["n"], l["c"]
        sp = tuple(l["in"][3 - r:])
        eps = l.get("eps", 1e-5)

        def tensor(v, lead, chans, spatial):
            # A logical N×C×spatial tensor over v's layout: channels-last
            # memory seen through a permutation when nhwc.
            if not nhwc:
                return v.view(lead, chans, *spatial)
            x = v.view(lead, *spatial, chans)
            return x.permute(0, len(spatial) + 1, *range(1, len(spatial) + 1))

        def out_layout(y):
            if not nhwc or y.dim() <= 2:
                return y
            return y.permute(0, *range(2, y.dim()), 1).contiguous()

        x = tensor(t[0], N, C, sp)
        win, stride, pad, dil = (tuple(l[f][3 - r:]) for f in ("window", "stride", "pad", "dil"))
        if op.startswith("conv"):
            w = tensor(t[1], l["k"], C, win)
            f = getattr(F, "conv%dd" % r)
            call = lambda: f(x, w, None, stride, pad, dil)  # noqa: E731
            name = "F.conv%dd(x, w, stride, padding, dilation)" % r
        elif op == "maxpool":
            f = getattr(F, "max_pool%dd" % r)
            call = lambda: f(x, win, stride, pad)  # noqa: E731
            name = "F.max_pool%dd(x, window, stride, padding)" % r
        elif op == "avgpool":
            f = getattr(F, "avg_pool%dd" % r)
            call = lambda: f(x, win, stride, pad, count_include_pad=True)  # noqa: E731
            name = "F.avg_pool%dd(x, window, stride, padding)" % r
        elif op == "adaptiveavgpool":
            f = getattr(F, "adaptive_avg_pool%dd" % r)
            osz = tuple(l["out"][3 - r:])
            call = lambda: f(x, osz)  # noqa: E731
            name = "F.adaptive_avg_pool%dd(x, size)" % r
        elif op == "batchnorm":
            mean, var, g, b = t[1], t[2], t[3], t[4]
            call = lambda: F.batch_norm(x, mean, var, g, b, False, 0.0, eps)  # noqa: E731
            name = "F.batch_norm(x, mean, var, weight, bias)"
        elif op == "layernorm":
            # γ and β follow x's layout within a sample: normalize the
            # tensor as stored, whichever layout that is.
            xs = t[0].view(N, *sp, C) if nhwc else t[0].view(N, C, *sp)
            shape = xs.shape[1:]
            g, b = t[1].view(shape), t[2].view(shape)
            y = lambda: F.layer_norm(xs, shape, g, b, eps)  # noqa: E731
            return y, y, "F.layer_norm(x, shape, weight, bias)"
        elif op == "groupnorm":
            G, g, b = l["groups"], t[1], t[2]
            call = lambda: F.group_norm(x, G, g, b, eps)  # noqa: E731
            name = "F.group_norm(x, groups, weight, bias)"
        else:
            raise Unsupported("torch worker: no op %s" % op)
        return call, (lambda: out_layout(call())), name


if __name__ == "__main__":
    serve(Torch())
