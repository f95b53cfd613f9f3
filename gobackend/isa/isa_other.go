//go:build !amd64 || purego

package isa

func detect() Level { return Generic }

func detectFeatures() Feature { return 0 }

func cpuSegmentLimit() uint32 { return cpuSegmentNone }
