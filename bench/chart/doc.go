// Package chart draws a run's roofline and share-of-bound charts
// (gonum.org/v1/plot): as SVG or PNG images (WriteRoofline), or laid out
// for the HTML report (ForRun, Chart.SVG).
package chart
