package tune

import "sync/atomic"

// applied is the parameter set in force and where it came from. One
// pointer, so a reader gets both from the same Apply.
type applied struct {
	params Params
	source string
}

var current atomic.Pointer[applied]

// DefaultSource is Source before any Apply.
const DefaultSource = "built-in defaults"

var defaults = &applied{params: Defaults(), source: DefaultSource}

// Apply makes p the parameters the kernels use from now on; source says
// where they came from, for the results ("file PATH (tuned DATE)", or
// "built-in defaults" and why). It panics on values Validate refuses: the
// loader checks a file before it gets here.
func Apply(p Params, source string) {
	if err := p.Validate(); err != nil {
		panic("tune: Apply: " + err.Error())
	}
	current.Store(&applied{params: p, source: source})
}

// Current returns the parameters in force: those of the last Apply, or the
// defaults. The kernels call it once per call; it is one atomic load.
func Current() *Params {
	if a := current.Load(); a != nil {
		return &a.params
	}
	return &defaults.params
}

// Source says where Current's parameters came from.
func Source() string {
	if a := current.Load(); a != nil {
		return a.source
	}
	return defaults.source
}

// Saved is the parameters in force and their source, taken together, to be
// put back after a search or a test changed them.
type Saved struct{ a *applied }

// Save returns what is in force now.
func Save() Saved { return Saved{current.Load()} }

// Restore puts back what Save returned.
func (s Saved) Restore() { current.Store(s.a) }
