#!/usr/bin/env bash
# gpu-check.sh — check peakbench on a GPU machine that has no Go: run the
# binaries `make gpu-build` put in .gpu/ (copied there with this script).
#
#   make gpu-build                 # on the development machine
#   scp -r .gpu gpuhost:           # or any other copy
#   .gpu/gpu-check.sh              # on the GPU machine
#
# Steps: the backends available (-list), the machine's and the GPU's peaks
# (-peak), the GPU packages' tests (verbose; PEAKBENCH_REQUIRE_GPU=1 makes a
# missing GPU a failure), a quick GPU benchmark, a bf16 8192³ GEMM, and, when
# PyTorch with CUDA is installed, the same GEMM through torch.matmul timed
# with CUDA events, with the ratio of the two; low-precision GEMM (tf32, f16,
# bf16, i8, fp8), cuFFT and cuSPARSE runs, and cuBLAS beside the torch-cuda
# worker. Everything is also written
# under $OUT (default .gpu/out). DEVICE=N picks the GPU (default 0);
# SKIP_TORCH=1 skips PyTorch. The exit status is 1 when a step failed.
set -u
DIR=$(cd "$(dirname "$0")" && pwd)
BIN=$DIR/peakbench
OUT=${OUT:-$DIR/out}
DEVICE=${DEVICE:-0}
export PEAKBENCH_REQUIRE_GPU=${PEAKBENCH_REQUIRE_GPU:-1}
mkdir -p "$OUT"
failed=()

step() { printf '\n== %s\n' "$*"; }

# run NAME CMD...: runs CMD, its output to the terminal and $OUT/NAME.txt.
run() {
	local name=$1
	shift
	echo "+ $*"
	"$@" 2>&1 | tee "$OUT/$name.txt"
	local rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "FAILED (exit $rc): $*"
		failed+=("$name")
	fi
	return "$rc"
}

if [ ! -x "$BIN" ]; then
	echo "gpu-check: $BIN is missing: run 'make gpu-build' where Go is installed and copy .gpu/ here" >&2
	exit 2
fi

step "machine"
uname -a
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv
command -v rocm-smi >/dev/null && rocm-smi --showproductname

step "backends (-list)"
run list "$BIN" -list -device "$DEVICE"

step "peaks (-peak)"
run peak "$BIN" -peak -device "$DEVICE" -suite quick

step "tests"
for t in gpurt nvidia platform-cuda rocblas; do
	[ -x "$DIR/$t.test" ] || continue
	# rocBLAS's tests need no AMD GPU (fake libraries, or a clean "not found")
	PEAKBENCH_REQUIRE_GPU=$([ "$t" = rocblas ] && echo "" || echo "$PEAKBENCH_REQUIRE_GPU") \
		run "test-$t" "$DIR/$t.test" -test.v -test.timeout 30m >/dev/null
	tail -3 "$OUT/test-$t.txt"
	grep -E '^(--- FAIL|FAIL|    --- FAIL)' "$OUT/test-$t.txt" | head -20
done

step "quick GPU benchmark"
run quick "$BIN" -backend=cublas,cudnn -suite=quick -device "$DEVICE" -threads 1

step "low-precision GEMM (cuBLAS, cuBLASLt for fp8): each a share of its tensor-core rate"
run lowp "$BIN" -backend=cublas -op gemm -dtype f32,tf32,f16,bf16,i8,e4m3,e5m2 -size 4096,8192 -device "$DEVICE" -threads 1 -summary=false

step "FFT (cuFFT): powers of two, 3·2^k, a prime, batched and 2-D"
run fft "$BIN" -backend=cufft -op fft,ifft,rfft -dtype f32,f64 -size 64Ki,16Mi,3x1Mi,1000003,1024x16Ki,4096x4096:2d -device "$DEVICE" -threads 1 -summary=false

step "sparse (cuSPARSE): products and format conversions on generated matrices"
run sparse "$BIN" -backend=cusparse -op spmv,spmm,csr2coo,coo2csr,csr2csc -dtype f32,f64 -size banded:n=4000000:bw=16,uniform:n=1000000:nnz=32000000,powerlaw:n=2000000:nnz=32000000 -device "$DEVICE" -threads 1 -summary=false

if [ "${SKIP_TORCH:-}" = "" ]; then
	step "cuBLAS beside PyTorch on the same GPU (torch-cuda worker)"
	run vs-torch "$BIN" -backend=cublas,torch-cuda -op gemm -dtype f32,tf32,bf16,f16 -size 4096,8192 -device "$DEVICE" -threads 1 -vs torch-cuda -summary=false
fi

step "bf16 8192x8192x8192 GEMM (cuBLAS)"
run bf16 "$BIN" -backend=cublas -op gemm -dtype bf16 -size 8192 -device "$DEVICE" -threads 1 -format json -o "$OUT/bf16.json"
pb_gflops=""
if [ -s "$OUT/bf16.json" ] && command -v python3 >/dev/null; then
	pb_gflops=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["backend"] != "cublas":
        continue
    if r.get("verified"):
        print("%.1f" % r["gflops"])
    else:
        print("error: " + (r.get("error") or r.get("verify_detail") or "not verified"), file=sys.stderr)' "$OUT/bf16.json")
fi
if [ -z "$pb_gflops" ]; then
	failed+=(bf16)
fi
echo "peakbench cuBLAS bf16 8192³: ${pb_gflops:-unknown} GFLOP/s (median of samples, verified)"

if [ "${SKIP_TORCH:-}" = "" ] && command -v python3 >/dev/null && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	step "PyTorch torch.matmul bf16 8192³ (CUDA events)"
	torch_gflops=$(DEVICE=$DEVICE python3 - <<'PY' 2>"$OUT/torch.err"
import os, statistics, torch
dev = torch.device("cuda", int(os.environ.get("DEVICE", "0")))
n = 8192
a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
for _ in range(10):
    torch.matmul(a, b)
torch.cuda.synchronize(dev)
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
iters, rates = 20, []
for _ in range(10):
    start.record()
    for _ in range(iters):
        torch.matmul(a, b)
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end) / iters
    rates.append(2 * n**3 / (ms * 1e-3) / 1e9)
print("%.1f" % statistics.median(rates))
PY
)
	echo "torch.matmul bf16 8192³: ${torch_gflops:-failed} GFLOP/s (median of 10 batches of 20, torch $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>/dev/null))"
	echo "torch: ${torch_gflops:-?} GFLOP/s" >"$OUT/torch.txt"
	if [ -n "${torch_gflops:-}" ] && [ -n "$pb_gflops" ]; then
		python3 -c 'import sys; p, t = float(sys.argv[1]), float(sys.argv[2]); print("peakbench/torch = %.3f" % (p / t))' "$pb_gflops" "$torch_gflops" | tee -a "$OUT/torch.txt"
	fi
else
	echo
	echo "(PyTorch with CUDA not found, or SKIP_TORCH set: no comparison)"
fi

step "summary"
if [ ${#failed[@]} -gt 0 ]; then
	echo "failed: ${failed[*]} (outputs in $OUT)"
	exit 1
fi
echo "all steps passed (outputs in $OUT)"
