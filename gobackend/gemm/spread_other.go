//go:build !linux

package gemm

import "sync/atomic"

// currentCPU is the CPU the calling thread runs on: unknown here.
func currentCPU() int32 { return -1 }

// unstack moves nothing where the CPU of a thread is unknown.
func unstack(cpus []atomic.Int32, me int) int32 { return -1 }
