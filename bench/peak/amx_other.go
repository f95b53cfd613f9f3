//go:build !linux || !amd64

package peak

import "errors"

// requestAMX: the tile data permission is asked for on Linux only.
func requestAMX() error {
	return errors.New("AMX tile data is requested from Linux only (arch_prctl); not on this OS")
}
