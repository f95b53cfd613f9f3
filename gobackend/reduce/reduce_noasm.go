//go:build !amd64 || purego

package reduce

// No assembly on this platform or under the purego tag: implFor never
// returns an assembly impl, so these are never called.

func ssumAVX2(int, *float32) float64           { panic("reduce: no assembly") }
func dsumAVX2(int, *float64) float64           { panic("reduce: no assembly") }
func sdotAVX2(int, *float32, *float32) float64 { panic("reduce: no assembly") }
func ddotAVX2(int, *float64, *float64) float64 { panic("reduce: no assembly") }

func ssumAVX512(int, *float32) float64           { panic("reduce: no assembly") }
func dsumAVX512(int, *float64) float64           { panic("reduce: no assembly") }
func sdotAVX512(int, *float32, *float32) float64 { panic("reduce: no assembly") }
func ddotAVX512(int, *float64, *float64) float64 { panic("reduce: no assembly") }

func sdotpfAVX512(int, *float32, *float32) float64 { panic("reduce: no assembly") }
func ddotpfAVX512(int, *float64, *float64) float64 { panic("reduce: no assembly") }

const haveAsm = false

func sumAsm[T Float](impl, []T) float64        { panic("reduce: no assembly") }
func dotAsm[T Float](impl, []T, []T) float64   { panic("reduce: no assembly") }
func dotPrefetchAsm[T Float]([]T, []T) float64 { panic("reduce: no assembly") }
func maxAsm[T Float](impl, []T) T              { panic("reduce: no assembly") }
