package gpufake

import (
	"errors"
	"reflect"
	"testing"
)

// TestPlainFakes: every fake_<lib>.c no step compiles is plain, built into
// the file its PB_FAKE_SONAME names, else lib<lib>.so; other files are not.
func TestPlainFakes(t *testing.T) {
	texts := map[string]string{
		"fake_cufft.c":   "/* … */\n#define PB_FAKE_SONAME \"libcufft.so.11\"\n#define EXPORT\n",
		"fake_newlib.c":  "int x;\n",
		"fake_runtime.c": "",
		"fake_cublas.c":  "#define PB_FAKE_SONAME \"libcublas.so.12\"\n",
	}
	read := func(name string) ([]byte, error) {
		s, ok := texts[name]
		if !ok {
			return nil, errors.New("no " + name)
		}
		return []byte(s), nil
	}
	steps := []step{
		{"/d/libcudart.so.12", "libpbfake_cudart.so", []string{"/d/fake_runtime.c", "-lpthread"}},
		{"/d/libcublas.so.12", "", []string{"/d/fake_cublas.c", "-Wl,--no-as-needed", "/d/libcudart.so.12"}},
	}
	got, err := plainFakes([]string{"fake_runtime.c", "fake_newlib.c", "README", "fake_cufft.c", "fake_cublas.c", "helper.c"}, steps, read)
	if err != nil {
		t.Fatal(err)
	}
	want := []plainFake{{"cufft", "fake_cufft.c", "libcufft.so.11"}, {"newlib", "fake_newlib.c", "libnewlib.so"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plainFakes = %+v; want %+v", got, want)
	}
}
