package platform

import "testing"

// TestDeviceStrings: the strings results have always held read back to the
// same device, and every device writes back the string it was read from.
func TestDeviceStrings(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Device
		host bool
	}{
		{"cpu", Device{Kind: Host}, true},
		{"", Device{Kind: Host}, true},
		{"cuda:0 NVIDIA H100 80GB HBM3", Device{Kind: CUDA, Index: 0, Name: "NVIDIA H100 80GB HBM3"}, false},
		{"cuda:1 NVIDIA H100 80GB HBM3 (fake 1)", Device{Kind: CUDA, Index: 1, Name: "NVIDIA H100 80GB HBM3 (fake 1)"}, false},
		{"rocm:0 AMD Instinct MI300X", Device{Kind: HIP, Name: "AMD Instinct MI300X"}, false},
		{"cuda:2", Device{Kind: CUDA, Index: 2}, false},
		{"mps:0 Apple M2", Device{Kind: "mps", Name: "Apple M2"}, false}, // a worker's own kind
	} {
		d, err := ParseDevice(c.s)
		if err != nil || d != c.want {
			t.Errorf("ParseDevice(%q) = %+v, %v; want %+v", c.s, d, err, c.want)
		}
		if d.IsHost() != c.host || NamesHost(c.s) != c.host {
			t.Errorf("%q: IsHost %v, NamesHost %v; want %v", c.s, d.IsHost(), NamesHost(c.s), c.host)
		}
		if want := c.s; want != "" && d.String() != want {
			t.Errorf("ParseDevice(%q).String() = %q", c.s, d.String())
		}
	}
	if s := (Device{}).String(); s != "cpu" {
		t.Errorf("zero Device is %q; want cpu", s)
	}
	if l := (Device{Kind: HIP, Index: 3, Name: "x"}).Label(); l != "rocm:3" {
		t.Errorf("Label %q", l)
	}
}

func TestParseDeviceRejects(t *testing.T) {
	for _, s := range []string{"gpu", "cuda", "cuda:", "cuda:x NAME", "cuda:-1", "cuda:01 NAME", ":0 NAME", "CPU"} {
		if d, err := ParseDevice(s); err == nil {
			t.Errorf("ParseDevice(%q) = %+v; want an error", s, d)
		}
		if NamesHost(s) {
			t.Errorf("NamesHost(%q)", s)
		}
	}
}
