//go:build !linux

package procmem

import "errors"

// Elsewhere than Linux there is no /proc to read: the resident figures
// are unknown (Start's probe reports nothing) rather than guessed.
func readStatus(pid int, field string) (int64, bool) { return 0, false }

func resetHWM(pid int) error { return errors.New("procmem: no clear_refs on this system") }
