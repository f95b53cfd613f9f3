package cuda

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Monitor keeps what NVML said while a backend ran: the latest sample, the
// lowest SM clock and highest temperature seen after a timed run, and the
// union of the throttle reasons seen then.
type Monitor struct {
	m   *gpurt.Monitor
	err error // why there is no NVML

	mu      sync.Mutex
	last    time.Time
	latest  gpurt.Sample
	samples int
	minSM   uint
	maxTemp uint
	seen    gpurt.Reasons // throttling reasons seen after timed runs
}

// minInterval bounds how often NVML is read.
const minInterval = 50 * time.Millisecond

// NewMonitor opens NVML for the device info describes (found by its PCI
// bus id). Without NVML the monitor records why, in Details, and does
// nothing else.
func NewMonitor(info gpurt.DeviceInfo) *Monitor {
	mon := &Monitor{}
	if info.PCIBusID == "" {
		mon.err = fmt.Errorf("the runtime reports no PCI bus id for %s", info.Label())
		return mon
	}
	mon.m, mon.err = gpurt.OpenMonitor(info.PCIBusID)
	if mon.err == nil {
		mon.read()
	}
	return mon
}

// Sample reads NVML, at most every minInterval.
func (mon *Monitor) Sample() {
	if mon.m == nil {
		return
	}
	mon.mu.Lock()
	due := time.Since(mon.last) >= minInterval
	mon.mu.Unlock()
	if due {
		mon.read()
	}
}

func (mon *Monitor) read() {
	s, err := mon.m.Read()
	mon.mu.Lock()
	defer mon.mu.Unlock()
	mon.last = time.Now()
	if err != nil {
		return
	}
	mon.latest = s
	mon.samples++
	if s.Have&gpurt.HaveSMClock != 0 && (mon.minSM == 0 || s.SMMHz < mon.minSM) {
		mon.minSM = s.SMMHz
	}
	if s.Have&gpurt.HaveTemp != 0 && s.TempC > mon.maxTemp {
		mon.maxTemp = s.TempC
	}
	if s.Have&gpurt.HaveReasons != 0 {
		mon.seen |= s.Reasons.Throttling()
	}
}

// Close closes NVML.
func (mon *Monitor) Close() {
	if mon.m != nil {
		mon.m.Close()
	}
}

// Details adds the nvml_* keys to d: the latest clocks, temperature and
// power, the lowest SM clock, highest temperature and throttle reasons seen.
func (mon *Monitor) Details(d map[string]string) {
	if mon.m == nil {
		d["nvml"] = "unavailable: " + mon.err.Error()
		return
	}
	mon.mu.Lock()
	defer mon.mu.Unlock()
	s := mon.latest
	d["nvml"] = mon.m.Path()
	d["nvidia_driver"] = mon.m.Driver()
	if s.Have&gpurt.HaveSMClock != 0 {
		d["nvml_sm_clock_mhz"] = strconv.Itoa(int(s.SMMHz))
		d["nvml_min_sm_clock_mhz"] = strconv.Itoa(int(mon.minSM))
	}
	if s.Have&gpurt.HaveMaxSMClock != 0 {
		d["nvml_max_sm_clock_mhz"] = strconv.Itoa(int(s.MaxSMMHz))
	}
	if s.Have&gpurt.HaveMemClock != 0 {
		d["nvml_mem_clock_mhz"] = strconv.Itoa(int(s.MemMHz))
	}
	if s.Have&gpurt.HaveTemp != 0 {
		d["nvml_temperature_c"] = strconv.Itoa(int(s.TempC))
		d["nvml_max_temperature_c"] = strconv.Itoa(int(mon.maxTemp))
	}
	if s.Have&gpurt.HavePower != 0 {
		d["nvml_power_w"] = fmt.Sprintf("%.0f", float64(s.PowerMW)/1000)
	}
	if s.Have&gpurt.HaveReasons != 0 {
		d["nvml_throttle_reasons"] = mon.seen.String()
		d["nvml_clock_reasons_now"] = s.Reasons.String()
	}
	d["nvml_samples"] = strconv.Itoa(mon.samples)
}

// Warnings says whether device throttled while backend ran.
func (mon *Monitor) Warnings(device, backend string) []string {
	if mon.m == nil {
		return nil
	}
	mon.mu.Lock()
	defer mon.mu.Unlock()
	if mon.seen == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s throttled while %s ran: %s", device, backend, mon.seen)
	if mon.minSM > 0 && mon.latest.MaxSMMHz > 0 {
		msg += fmt.Sprintf(" (SM clock as low as %d MHz of %d MHz", mon.minSM, mon.latest.MaxSMMHz)
		if mon.maxTemp > 0 {
			msg += fmt.Sprintf("; up to %d °C", mon.maxTemp)
		}
		msg += ")"
	}
	return []string{msg + "; its figures are below what the card does cool and unthrottled"}
}
