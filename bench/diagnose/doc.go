// Package diagnose says why each result of a run is where it is against
// its bound, from what the run recorded: the model check (CheckModel: a
// result above its roofline bound means the peaks are wrong), the clock
// over the run (CheckLines), each library's code path against the machine
// (CheckCodePaths), and the findings per result (Diagnose, WhyLabel). The
// rules and their thresholds are in docs/findings.md.
package diagnose
