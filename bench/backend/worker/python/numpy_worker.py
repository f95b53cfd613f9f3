"""peakbench worker for NumPy and SciPy (docs/workers.md).

Each kernel times the call a NumPy user writes, with out= where NumPy takes
one, on arrays NumPy allocated itself (the inputs are copied once from the
shared file). NumPy's ufuncs run on one thread; matmul, dot and SciPy's BLAS
calls run on the threads of the BLAS NumPy was linked with, which the worker
sets through threadpoolctl when installed, else through the BLAS's own call.
The Fourier transforms are scipy.fft's (pocketfft, threads through its
workers=; numpy.fft would compute f32 in complex128), the sparse products
scipy.sparse's CSR matrix times a dense one, on one thread.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peakbench_worker import (FFT_OPS, SPARSE_OPS, Kernel, Missing, Refused, Unsupported, blas_thread_control,  # noqa: E402
                              fft_layout, first_call_excess, loaded_library, python_details, serve)

OPS = ["gemm", "gemv", "axpy", "dot", "add", "mul", "relu", "sigmoid", "tanh", "exp", "sum", "max", "softmax"]


class NumPy:
    def hello(self, device):
        if device != "cpu":
            raise Refused("NumPy runs on the CPU only, not %s" % device)
        try:
            import numpy as np
            import scipy
            import scipy.linalg.blas
            import scipy.special
        except ImportError as e:
            raise Missing(str(e))
        self.np, self.blas, self.special = np, scipy.linalg.blas, scipy.special
        details = python_details()
        details["scipy"] = scipy.__version__
        self.blas_path = loaded_library("libblas", "openblas", "mkl_rt", "blis", "libcblas")
        if self.blas_path:
            details["blas"] = self.blas_path
        self.set_threads, how = blas_thread_control(self.blas_path)
        details["threads"] = how
        details["elementwise"] = "single-threaded (NumPy ufuncs)"
        ops, unavailable = list(OPS), {}
        try:
            import scipy.fft

            self.fft = scipy.fft
            ops += FFT_OPS
            details["fft"] = "scipy.fft (pocketfft; threads: workers=)"
        except ImportError as e:  # SciPy before 1.4
            for op in FFT_OPS:
                unavailable[op] = "SciPy %s has no scipy.fft (%s); numpy.fft would compute f32 in complex128" % (scipy.__version__, e)
        try:
            import scipy.sparse

            self.sparse = scipy.sparse
            ops += SPARSE_OPS
            details["sparse"] = "scipy.sparse.csr_matrix, single-threaded"
        except ImportError as e:
            for op in SPARSE_OPS:
                unavailable[op] = "no scipy.sparse: %s" % e
        return dict(name="numpy", version=np.__version__, device="cpu", ops={op: ["f32", "f64"] for op in ops},
                    threads=self.set_threads is not None, details=details, unavailable=unavailable)

    def to_numpy(self, r):
        return r

    def prepare(self, req, inputs, index):
        if req.get("threads") and self.set_threads is not None:
            self.set_threads(int(req["threads"]))
        copies = max(int(req.get("copies", 1)), 1)
        sets = [self.build(req, [a.copy() for a in inputs], [i.copy() for i in index]) for _ in range(copies)]
        k = Kernel([s[0] for s in sets], None, sets[0][2])
        k.result = lambda: sets[k.last][1]()
        if req["op"] in FFT_OPS:
            k.plan_ns = first_call_excess(sets[0][0], k.sync)
        elif req["op"] != "axpy":  # (axpy would change y)
            sets[0][0]()  # a call NumPy refuses fails here, at prepare
        return k

    def build(self, req, a, index):
        np, op, d = self.np, req["op"], req["dims"]
        if op in FFT_OPS:
            return self.transform(req, a[0])
        if op in SPARSE_OPS:
            return self.sparse_product(req, a, index)
        m, n, k = d.get("m", 0), d.get("n", 0), d.get("k", 0)
        if op == "gemm":
            ta, tb = d.get("trans_a", False), d.get("trans_b", False)
            A = a[0].reshape(k, m).T if ta else a[0].reshape(m, k)
            B = a[1].reshape(n, k).T if tb else a[1].reshape(k, n)
            C = np.empty((m, n), dtype=A.dtype)
            name = "np.matmul(a%s, b%s, out=c)" % (".T" if ta else "", ".T" if tb else "")
            return (lambda: np.matmul(A, B, out=C)), (lambda: C), name
        if op == "gemv":
            A, x = a[0].reshape(m, n), a[1]
            y = np.empty(m, dtype=A.dtype)
            return (lambda: np.matmul(A, x, out=y)), (lambda: y), "np.matmul(a, x, out=y)"
        if op == "axpy":
            x, y, alpha = a[0], a[1], float(req.get("alpha", 1))
            fname = "saxpy" if x.dtype == np.float32 else "daxpy"
            f = getattr(self.blas, fname)
            # SciPy's axpy overwrites y in place when y is contiguous and of
            # its type, as here; NumPy itself has no axpy that does not
            # allocate (y += alpha * x makes a temporary).
            return (lambda: f(x, y, a=alpha)), (lambda: y), "scipy.linalg.blas.%s(x, y, a=a)" % fname
        if op in ("add", "mul"):
            x, y = a[0], a[1]
            z = np.empty_like(x)
            f = np.add if op == "add" else np.multiply
            return (lambda: f(x, y, out=z)), (lambda: z), "np.%s(x, y, out=z)" % f.__name__
        if op == "relu":
            x = a[0]
            y = np.empty_like(x)
            return (lambda: np.maximum(x, 0, out=y)), (lambda: y), "np.maximum(x, 0, out=y)"
        if op == "sigmoid":
            x = a[0]
            y = np.empty_like(x)
            f = self.special.expit
            return (lambda: f(x, out=y)), (lambda: y), "scipy.special.expit(x, out=y)"
        if op in ("tanh", "exp"):
            x = a[0]
            y = np.empty_like(x)
            f = getattr(np, op)
            return (lambda: f(x, out=y)), (lambda: y), "np.%s(x, out=y)" % op
        if op == "dot":
            x, y = a[0], a[1]
            return (lambda: np.dot(x, y)), (lambda: np.dot(x, y)), "np.dot(x, y)"
        if op in ("sum", "max"):
            x = a[0]
            f = getattr(np, op)
            return (lambda: f(x)), (lambda: f(x)), "np.%s(x)" % op
        if op == "softmax":
            x = a[0].reshape(m, n)
            f = self.special.softmax
            return (lambda: f(x, axis=1)), (lambda: f(x, axis=1)), "scipy.special.softmax(x, axis=1)"
        raise Unsupported("numpy worker: no op %s" % op)

    def transform(self, req, x):
        """scipy.fft on x, laid out as fft_layout says: complex64 for f32,
        complex128 for f64; ifft unnormalized, as the workload defines it
        (norm="forward" puts the 1/n on the forward transform)."""
        np, op = self.np, req["op"]
        shape, _, axes = fft_layout(req)
        if op != "rfft":
            x = x.view(np.complex64 if x.dtype == np.float32 else np.complex128)
        x = x.reshape(shape)
        name = op + ("2" if axes == 2 else "")
        f = getattr(self.fft, name)
        kw = {"workers": int(req["threads"])} if req.get("threads") else {}
        args = ", workers=%d" % kw["workers"] if kw else ""
        if op == "ifft":
            kw["norm"] = "forward"
            args = ', norm="forward"' + args
        call = lambda: f(x, **kw)  # noqa: E731  (scipy.fft takes no out=: each call allocates its result)
        return call, call, "scipy.fft.%s(x%s)" % (name, args)

    def sparse_product(self, req, a, index):
        """A @ x (spmv) or A @ X (spmm, X cols×k row-major) with A a
        scipy.sparse CSR matrix over the workload's pattern; SciPy's
        sparse products run on one thread and allocate their result."""
        s = req["dims"]["sparse"]
        if len(index) != 2:
            raise Refused("numpy worker: %s needs the CSR pattern (prepare's index regions)" % req["op"])
        rowptr, cols = index
        A = self.sparse.csr_matrix((a[0], cols, rowptr), shape=(s["rows"], s["cols"]), copy=False)
        x = a[1] if req["op"] == "spmv" else a[1].reshape(s["cols"], s["k"])
        call = lambda: A @ x  # noqa: E731
        return call, call, "scipy.sparse.csr_matrix A @ %s (single-threaded)" % ("x" if req["op"] == "spmv" else "X")


if __name__ == "__main__":
    serve(NumPy())
