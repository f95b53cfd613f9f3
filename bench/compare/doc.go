// Package compare compares runs: two runs result by result with the
// Mann-Whitney U test (Compare, WriteComparison, the -threshold gate), the
// failures of a run, the baselines saved for later comparison
// (SaveBaseline, LoadBaseline), and the speedups over the -vs backend
// within one run (Speedups). See docs/reports.md.
package compare
