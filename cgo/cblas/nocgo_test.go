//go:build !cgo

package cblas_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/cgo/cblas"
)

func TestNoCgoOpen(t *testing.T) {
	if len(cblas.Names()) < 4 || cblas.Describe("openblas") == "" {
		t.Errorf("Names() = %v; want the table's rows without cgo too", cblas.Names())
	}
	for _, name := range cblas.Names() {
		_, err := cblas.Open(name)
		if !errors.Is(err, cblas.ErrNoCgo) || err.Error() != "cblas: peakbench was built without cgo (CGO_ENABLED=0): vendor libraries cannot be loaded" {
			t.Errorf("Open(%s) = %v; want ErrNoCgo", name, err)
		}
	}
}
