//go:build race

package harness

// The race detector keeps shadow memory beside every byte the program
// touches: resident growth then reads several times what was allocated.
const raceEnabled = true
