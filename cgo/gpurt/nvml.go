// NVML: the clocks, temperature and throttle reasons of an NVIDIA device.

package gpurt

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Reasons is NVML's bit mask of why the clocks are what they are
// (nvmlClocksEventReason*, formerly ...ThrottleReason*).
type Reasons uint64

// The reasons.
const (
	ReasonGPUIdle       Reasons = 0x1
	ReasonAppClocks     Reasons = 0x2
	ReasonSWPowerCap    Reasons = 0x4
	ReasonHWSlowdown    Reasons = 0x8
	ReasonSyncBoost     Reasons = 0x10
	ReasonSWThermal     Reasons = 0x20
	ReasonHWThermal     Reasons = 0x40
	ReasonHWPowerBrake  Reasons = 0x80
	ReasonDisplayClocks Reasons = 0x100
)

var reasonNames = []struct {
	r    Reasons
	name string
}{
	{ReasonGPUIdle, "gpu_idle"}, {ReasonAppClocks, "applications_clocks"},
	{ReasonSWPowerCap, "sw_power_cap"}, {ReasonHWSlowdown, "hw_slowdown"},
	{ReasonSyncBoost, "sync_boost"}, {ReasonSWThermal, "sw_thermal_slowdown"},
	{ReasonHWThermal, "hw_thermal_slowdown"}, {ReasonHWPowerBrake, "hw_power_brake_slowdown"},
	{ReasonDisplayClocks, "display_clocks"},
}

// Throttling keeps the reasons that hold a busy GPU below its boost
// clock: power caps, thermal and hardware slowdowns, sync boost.
func (r Reasons) Throttling() Reasons {
	return r & (ReasonSWPowerCap | ReasonHWSlowdown | ReasonSyncBoost | ReasonSWThermal | ReasonHWThermal | ReasonHWPowerBrake)
}

// String names the reasons, comma-separated ("none" for none).
func (r Reasons) String() string {
	var s []string
	for _, n := range reasonNames {
		if r&n.r != 0 {
			s = append(s, n.name)
			r &^= n.r
		}
	}
	if r != 0 {
		s = append(s, fmt.Sprintf("0x%x", uint64(r)))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// What a Sample holds (Sample.Have).
const (
	HaveSMClock = 1 << iota
	HaveMemClock
	HaveMaxSMClock
	HaveMaxMemClock
	HaveTemp
	HavePower
	HaveReasons
)

// Sample is one reading of NVML.
type Sample struct {
	SMMHz, MemMHz, MaxSMMHz, MaxMemMHz uint
	TempC                              uint
	PowerMW                            uint
	Reasons                            Reasons
	Have                               int // Have* bits of the fields read
}

// Monitor reads an NVIDIA device's clocks, temperature and throttle
// reasons through NVML (libnvidia-ml.so.1, installed with the driver).
type Monitor struct {
	mu     sync.Mutex
	h      nvmlHandle
	path   string
	driver string
}

// OpenMonitor initializes NVML (PEAKBENCH_NVML, else libnvidia-ml.so.1) and
// finds the device with PCI bus id pciBusID (DeviceInfo.PCIBusID: NVML and
// CUDA number devices differently).
func OpenMonitor(pciBusID string) (*Monitor, error) {
	h, info, err := openNVML(pciBusID)
	if err != nil {
		return nil, err
	}
	kv := parseInfo(info)
	return &Monitor{h: h, path: kv["path"], driver: kv["driver"]}, nil
}

// Path returns the NVML library loaded.
func (m *Monitor) Path() string { return m.path }

// Driver returns the driver version NVML reports ("550.54.15").
func (m *Monitor) Driver() string { return m.driver }

// Read samples the device now.
func (m *Monitor) Read() (Sample, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h == nil {
		return Sample{}, errors.New("nvml: monitor is closed")
	}
	return m.read()
}

// Close shuts NVML down (the library stays loaded). Closing twice is a no-op.
func (m *Monitor) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h != nil {
		m.close()
		m.h = nil
	}
	return nil
}

func parseInfo(s string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

// ParseInfo splits the C layer's "key=value" lines (exported for the
// library packages).
func ParseInfo(s string) map[string]string { return parseInfo(s) }
