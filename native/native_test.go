package native_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/native"
)

func TestStatus(t *testing.T) {
	if s := native.Version.String(); s != "PB_ERR_VERSION" {
		t.Errorf("Version.String() = %q", s)
	}
	if s := native.Status(99).String(); s != "Status(99)" {
		t.Errorf("Status(99).String() = %q", s)
	}
	if err := native.NewError(int(native.OK), "x: ", "y"); err != nil {
		t.Errorf("NewError(OK) = %v", err)
	}
	err := native.NewError(int(native.Unsupported), "cblas: ", "no")
	if err.Error() != "cblas: no" || !errors.Is(err, native.ErrUnsupported) || errors.Is(err, native.ErrInvalid) {
		t.Errorf("NewError(Unsupported) = %v", err)
	}
	if err := native.NewError(int(native.Invalid), "", ""); err.Error() != "PB_ERR_INVALID" || !errors.Is(err, native.ErrInvalid) {
		t.Errorf("NewError(Invalid) = %v", err)
	}
}

func TestDType(t *testing.T) {
	if native.F32.String() != "f32" || native.F64.String() != "f64" || native.F32 != 4 || native.F64 != 8 {
		t.Error("DType values or names")
	}
}
