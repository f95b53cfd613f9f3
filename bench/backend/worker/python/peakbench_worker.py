"""The peakbench worker protocol, version 1 (docs/workers.md), for Python.

A worker module defines a Framework (hello, prepare) and calls serve(). This
module owns the protocol: the JSON lines, the shared file of inputs and the
output, the timing loop. It needs NumPy for the views of the shared file.
"""

import ctypes
import json
import mmap
import os
import sys
import time

PROTOCOL = 1


class Missing(Exception):
    """The framework cannot be imported by this interpreter."""


class Unsupported(Exception):
    """The worker has no such op, dtype or geometry."""


class Refused(Exception):
    """The worker cannot do what was asked (a device it does not have);
    its message is the whole error."""


class Kernel:
    """A prepared workload: steps[c]() runs it once on buffer set c;
    result() returns the latest run's output (a NumPy-convertible array or
    scalar, complex ones as interleaved pairs); sync() waits for a device.
    plan_ns, when set, is the framework's planning time (plan_ns)."""

    def __init__(self, steps, result, implementation, sync=None, timer=None):
        self.steps = steps
        self.result = result
        self.implementation = implementation
        self.sync = sync or (lambda: None)
        self.timer = timer
        self.last = 0
        self.plan_ns = 0

    def run(self, iters):
        if self.timer is not None:
            return self.timer(self, iters)
        steps = self.steps
        self.sync()
        if len(steps) == 1:
            f = steps[0]
            t0 = time.perf_counter_ns()
            for _ in range(iters):
                f()
            self.sync()
            return time.perf_counter_ns() - t0
        c, n = self.last, len(steps)
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            c += 1
            if c == n:
                c = 0
            steps[c]()
        self.sync()
        ns = time.perf_counter_ns() - t0
        self.last = c
        return ns


def np_dtype(name):
    """The element type of the shared file for a workload dtype: f64, and
    the integer types, as float64; the others (f32 and the low-precision
    floats, whose values and f32 results f32 holds exactly) as float32
    (worker.wideElems on the Go side)."""
    import numpy as np

    return np.float64 if name in ("f64", "i8", "u8", "u8s8") else np.float32


FFT_OPS = ["fft", "ifft", "rfft"]
SPARSE_OPS = ["spmv", "spmm"]


def fft_layout(req):
    """The shapes of a Fourier transform's input and output as the
    workload lays them out (bench/workload/fft.go): a batch of m
    transforms, each of n points, or of k rows by n columns when k > 0
    (2-D); complex values interleaved, rfft's input real and its output
    the n/2+1 non-redundant values of each row. Returns (input shape,
    output shape, the transformed axes' count)."""
    d = req["dims"]
    b, n, rows = max(d.get("m", 1), 1), d["n"], d.get("k", 0)
    lead = (b, rows) if rows > 0 else (b,)
    out_n = n // 2 + 1 if req["op"] == "rfft" else n
    return lead + (n,), lead + (out_n,), 2 if rows > 0 else 1


def first_call_excess(step, sync):
    """The frameworks plan a transform inside its first call and keep the
    plan (pocketfft's and cuFFT's plan caches): the first call's time
    beyond the second's is the planning, reported as plan_ns."""
    sync()
    t0 = time.perf_counter_ns()
    step()
    sync()
    t1 = time.perf_counter_ns()
    step()
    sync()
    t2 = time.perf_counter_ns()
    return max((t1 - t0) - (t2 - t1), 0)


class Shared:
    """The shared file mapped, and NumPy views of its regions."""

    def __init__(self, path, dtype):
        import numpy as np

        fd = os.open(path, os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            self.mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        self.dtype = np_dtype(dtype)
        self.np = np

    def view(self, region):
        return self.np.frombuffer(self.mm, dtype=self.dtype, count=region["count"], offset=region["offset"])

    def index(self, region):
        """An int32 region: a sparse matrix's row pointers or column indices."""
        return self.np.frombuffer(self.mm, dtype=self.np.int32, count=region["count"], offset=region["offset"])

    def close(self):
        try:
            self.mm.close()
        except BufferError:
            pass  # a view is still referenced; the mapping goes with it


def _channel():
    """The protocol's output: a duplicate of standard output, which then
    becomes standard error, so that whatever the framework or its C
    libraries print cannot corrupt the protocol."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def serve(framework):
    out = _channel()
    kernels = {}

    def reply(**kw):
        out.write(json.dumps(kw, separators=(",", ":")) + "\n")
        out.flush()

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            cmd = req.get("cmd")
            if cmd == "hello":
                if req.get("protocol") != PROTOCOL:
                    reply(ok=False, protocol=PROTOCOL, error="this worker speaks protocol %d, not %s" % (PROTOCOL, req.get("protocol")))
                    continue
                h = framework.hello(req.get("device", "cpu"))
                reply(ok=True, protocol=PROTOCOL, **h)
            elif cmd == "prepare":
                sh = Shared(req["file"], req["dtype"])
                try:
                    inputs = [sh.view(r) for r in req["inputs"]]
                    index = [sh.index(r) for r in req.get("index") or []]
                    output = sh.view(req["output"])
                    k = framework.prepare(req, inputs, index)
                    del inputs, index
                except BaseException:
                    sh.close()
                    raise
                k.shared, k.out = sh, output
                kernels[req["id"]] = k
                extra = {"plan_ns": int(k.plan_ns)} if k.plan_ns > 0 else {}
                reply(ok=True, implementation=k.implementation, **extra)
            elif cmd == "run":
                k = kernels[req["id"]]
                reply(ok=True, ns=max(int(k.run(int(req["iters"]))), 1))
            elif cmd == "output":
                k = kernels[req["id"]]
                import numpy as np

                r = np.asarray(framework.to_numpy(k.result()))
                if np.iscomplexobj(r):  # interleaved (re, im), as the workload lays complex values out
                    r = np.ascontiguousarray(r).view(r.real.dtype)
                np.copyto(k.out, np.asarray(r, dtype=k.out.dtype).reshape(-1))
                reply(ok=True)
            elif cmd == "free":
                k = kernels.pop(req["id"], None)
                if k is not None:
                    k.out = None
                    k.shared.close()
                reply(ok=True)
            elif cmd == "close":
                reply(ok=True)
                return
            else:
                reply(ok=False, error="unknown command %r" % cmd)
        except Missing as e:
            reply(ok=False, missing=True, error=str(e))
        except Unsupported as e:
            reply(ok=False, unsupported=True, error=str(e))
        except Refused as e:
            reply(ok=False, error=str(e))
        except Exception as e:  # one request failed; the worker goes on
            msg = str(e).strip().splitlines()
            reply(ok=False, error="%s: %s" % (type(e).__name__, msg[0] if msg else ""))


def loaded_library(*names):
    """The path of the first shared library mapped into this process whose
    file name contains one of names (the BLAS a framework really uses)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path)
                if any(n in base for n in names):
                    return os.path.realpath(path)
    except OSError:
        pass
    return ""


def blas_thread_control(blas_path):
    """A function that sets the thread count of the BLAS at blas_path (or of
    every BLAS, through threadpoolctl when installed), and how; None when
    there is no known way. A framework's own thread setting does not reach
    the BLAS it loaded: torch.set_num_threads(1) left Debian's OpenBLAS on 2
    threads, and torch's 1-thread SGEMM read 132% of a core's peak."""
    try:
        from threadpoolctl import threadpool_limits

        return (lambda n: threadpool_limits(limits=n, user_api="blas")), "threadpoolctl"
    except ImportError:
        pass
    if blas_path:
        lib = ctypes.CDLL(blas_path)
        for sym in ("openblas_set_num_threads", "MKL_Set_Num_Threads", "bli_thread_set_num_threads"):
            if hasattr(lib, sym):
                f = getattr(lib, sym)
                return (lambda n: f(ctypes.c_int(n))), sym
    return None, "not controlled (no threadpoolctl, and the BLAS has no known thread call)"


def python_details():
    return {"python": "%s %s" % (sys.executable, sys.version.split()[0])}
