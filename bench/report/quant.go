package report

import (
	"fmt"
	"strconv"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/result"
)

// quantCell is the accuracy column of a run with quantization results:
// "48.1 dB, max 0.0039" (SQNR and largest absolute error against the f32
// input), "exact" where nothing was lost, empty for the other results.
func quantCell(run *result.Run, r *result.Result) (string, bool) {
	if !hasQuant(run) {
		return "", false
	}
	if r == nil {
		return "accuracy", true
	}
	return QuantText(r), true
}

// QuantText is a result's quantization error, "" where it has none.
func QuantText(r *result.Result) string {
	switch {
	case r.QuantMaxAbsErr == nil:
		return ""
	case r.QuantSQNRdB == nil:
		return "exact"
	}
	return fmt.Sprintf("%.1f dB, max %s", *r.QuantSQNRdB, units.Sig(*r.QuantMaxAbsErr))
}

// hasQuant says whether any result carries a quantization error.
func hasQuant(run *result.Run) bool {
	for i := range run.Results {
		if run.Results[i].QuantMaxAbsErr != nil {
			return true
		}
	}
	return false
}

// quantCSV is the CSV's quant_sqnr_db and quant_max_abs_err, empty where absent.
func quantCSV(r *result.Result) []string {
	out := []string{"", ""}
	for i, v := range []*float64{r.QuantSQNRdB, r.QuantMaxAbsErr} {
		if v != nil {
			out[i] = strconv.FormatFloat(*v, 'g', -1, 64)
		}
	}
	return out
}
