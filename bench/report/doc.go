// Package report writes a run for people and programs: a terminal table,
// Markdown, JSON, CSV and the Go benchmark format (Write), the
// self-contained HTML report with its charts and heat map (WriteHTML), and
// the one-screen summary on standard error (WriteSummary). The numbers it
// prints come from bench/result, bench/diagnose and bench/compare.
package report
