//go:build !amd64 || purego

package gemm

func dot8Asm[T Float](int, []T, int, []T) [8]T { panic("gemm: no assembly") }
