//go:build !amd64 || purego

package isa

func readVendor() string { return "" }
