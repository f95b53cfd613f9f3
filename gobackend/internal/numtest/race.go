//go:build race

package numtest

// Race is true when the race detector is on.
const Race = true
