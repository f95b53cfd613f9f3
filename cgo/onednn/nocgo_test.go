//go:build !cgo

package onednn_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/cgo/onednn"
)

func TestNoCgoOpen(t *testing.T) {
	_, err := onednn.Open()
	if !errors.Is(err, onednn.ErrNoCgo) || err.Error() != "onednn: peakbench was built without cgo (CGO_ENABLED=0): vendor libraries cannot be loaded" {
		t.Errorf("Open() = %v; want ErrNoCgo", err)
	}
}
