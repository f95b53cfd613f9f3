package hostmem

import "fmt"

// CheckEnv refuses a value of EnvVar other than unset, "" or "on" (advise
// huge pages, the default) and "off" (drop the advice), so that a typo does
// not silently measure with the default.
func CheckEnv(value string, set bool) error {
	if !set {
		return nil
	}
	switch value {
	case "", "on", "off":
		return nil
	}
	return fmt.Errorf("%s=%q: want off (4 KiB pages) or on (the default: advise huge pages)", EnvVar, value)
}
