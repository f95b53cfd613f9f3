# peakbench — make targets. `make bench` and `make test` install what they
# need first (scripts/install-deps.sh), so each works on a fresh machine.

GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
ARGS ?=
SHELL := /bin/bash

# The go command's build cache does not see edits to C headers under include/
# (nor C files outside a package's folder), so every cgo compile carries a
# hash of the C sources: any edit there rebuilds every cgo package.
PB_SRC := $(shell cat $$(ls include/*.h include/*/*.h native/*.c native/*.h 2>/dev/null) /dev/null | sha1sum | cut -c1-12)
export CGO_CFLAGS := -O2 -g -DPB_SRC=$(PB_SRC)

.PHONY: all deps build bench bench-cpu bench-cuda gpu-build test test-go test-c lint generate check-generate fmt clean

all: build

## deps: install Debian packages (C compiler, cmake, OpenBLAS, BLIS, MKL, oneDNN) and Go modules
deps:
	scripts/install-deps.sh
	$(GO) mod download
	cd gobackend/_asm && $(GO) mod download

## build: the peakbench binary in build/
build:
	$(GO) build -o build/peakbench ./bench

## bench: the standard suite on every available backend (ARGS="-suite=quick" etc. to adjust)
bench: deps
	$(GO) run ./bench -results-dir=results $(ARGS)

## bench-cpu: the same, CPU backends only
bench-cpu: bench

# The GPU the GPU targets use (-device).
DEVICE ?= 0

## bench-cuda: the quick suite on the GPU backends (cuBLAS, cuDNN) with OpenBLAS beside them as the CPU reference (DEVICE=N, ARGS to adjust)
bench-cuda: deps
	$(GO) run ./bench -backend=cublas,cudnn,openblas -suite=quick -device=$(DEVICE) $(ARGS)

## gpu-build: the binary and the GPU packages' test binaries in .gpu/ (git-ignored), with scripts/gpu-check.sh, to copy to a GPU machine without Go
gpu-build:
	@mkdir -p .gpu
	$(GO) build -o .gpu/peakbench ./bench
	$(GO) test -c -o .gpu/gpurt.test ./cgo/gpurt
	$(GO) test -c -o .gpu/nvidia.test ./bench/backend/nvidia
	$(GO) test -c -o .gpu/platform-cuda.test ./bench/platform/cuda
	$(GO) test -c -o .gpu/rocblas.test ./bench/backend/rocblas
	cp scripts/gpu-check.sh .gpu/gpu-check.sh
	@echo "copy .gpu/ to the GPU machine and run .gpu/gpu-check.sh there"

## test: formatting, vet, the Go tests with the race detector, and the C tests (sanitized)
test: deps lint check-generate test-go test-c

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test -race -timeout 20m ./...
	$(GO) test -tags purego -short ./...
	CGO_ENABLED=0 PEAKBENCH_REQUIRE_LIBS= $(GO) test -short ./...   # the !cgo twins: clear errors, no crash

# The C layer's own tests, built by CMake with AddressSanitizer and
# UndefinedBehaviorSanitizer.
test-c:
	@if [ -f CMakeLists.txt ]; then \
		cmake -S . -B build/native -DPEAKBENCH_SANITIZE=ON >/dev/null && \
		cmake --build build/native -j2 && \
		ctest --test-dir build/native --output-on-failure; \
	else echo "no C layer yet"; fi

## generate: regenerate generated files (assembly from gobackend/_asm)
generate:
	$(GO) generate ./...

## check-generate: fail when the committed assembly differs from a fresh generation (nothing is written)
check-generate:
	cd gobackend/_asm && $(GO) run . -check

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf build .gpu
