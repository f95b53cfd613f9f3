package native

import (
	_ "embed"
	"regexp"
	"strconv"
	"strings"
)

// The table of CBLAS libraries is C (cblas_families.c), and cgo/cblas reads
// it through pb_cblas_family. A build without cgo links no C, yet should
// still name those libraries (a run asking for one says it needs cgo, and
// -list shows them as unavailable), so it reads the rows from the source.
// cgo/cblas's tests check that this reading matches the compiled table.

//go:embed cblas_families.c
var cblasFamiliesC string

// CBLASRow is what the source of one row of pb_cblas_rows says.
type CBLASRow struct {
	Name, Description, Hint, Env string
	OneThread                    bool // no set_threads hook
}

// CBLASRowsFromSource parses the rows of pb_cblas_rows in cblas_families.c:
// the string fields each row sets, concatenated literals joined.
func CBLASRowsFromSource() []CBLASRow {
	// Compiled here, not at package load: every binary importing native
	// would pay for what builds without cgo and one test use.
	var (
		rowRE    = regexp.MustCompile(`(?ms)^\t\{\n(.*?)^\t\},$`)
		fieldRE  = regexp.MustCompile(`\.(\w+) = ((?:\s*"(?:[^"\\]|\\.)*")+)`)
		stringRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	)
	_, table, _ := strings.Cut(cblasFamiliesC, "pb_cblas_rows[] = {\n")
	var rows []CBLASRow
	for _, m := range rowRE.FindAllStringSubmatch(table, -1) {
		body := m[1]
		fields := map[string]string{}
		for _, f := range fieldRE.FindAllStringSubmatch(body, -1) {
			var s strings.Builder
			for _, lit := range stringRE.FindAllString(f[2], -1) {
				u, err := strconv.Unquote(lit)
				if err != nil {
					u = strings.Trim(lit, `"`)
				}
				s.WriteString(u)
			}
			fields[f[1]] = s.String()
		}
		rows = append(rows, CBLASRow{
			Name:        fields["name"],
			Description: fields["description"],
			Hint:        fields["hint"],
			Env:         fields["env"],
			OneThread:   !strings.Contains(body, ".set_threads = "),
		})
	}
	return rows
}
