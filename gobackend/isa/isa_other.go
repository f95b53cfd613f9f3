//go:build !amd64 || purego

package isa

func detect() Level        { return Generic }
func detectSplit512() bool { return false }
