package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/peakbench/peakbench/bench/internal/atomicfile"
)

// Load reads a saved run (the output of -format=json) from path. Its errors
// are one line that starts with the path and names the problem: a missing or
// unreadable file, text that is not JSON or is cut short, JSON that is not a
// peakbench run (an array, another program's object, another format).
//
// It reads regular files only (not a directory, device or pipe, which could
// block or never end) of at most MaxLoadBytes.
func Load(path string) (*Run, error) {
	data, err := readRegular(path, MaxLoadBytes)
	if err != nil {
		return nil, err
	}
	run, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return run, nil
}

// MaxLoadBytes bounds the files Load reads: far above any run's JSON (a
// full suite with every backend is a few MiB), low enough that a wrong
// file is refused rather than read into memory.
const MaxLoadBytes = 1 << 30

// readRegular reads path when it is a regular file of at most limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	// Stat first: opening a named pipe for reading waits for a writer.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); save the run to a file first", path, fileKind(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", path, atomicfile.UnwrapPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", path, atomicfile.UnwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); save the run to a file first", path, fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a peakbench result may have", path, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", path, atomicfile.UnwrapPath(err))
	}
	if int64(len(data)) > limit { // it grew while being read
		return nil, fmt.Errorf("%s: more than the %d bytes a peakbench result may have", path, limit)
	}
	return data, nil
}

// fileKind names a file type that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// WriteJSON writes v as the indented JSON of -format=json and saved runs.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Decode parses a saved run and checks that it is one.
func Decode(data []byte) (*Run, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("empty file, want a peakbench JSON result (-format=json)")
	}
	switch trimmed[0] {
	case '{':
	case '[':
		return nil, errors.New("not a peakbench result: a JSON array, want an object with \"format\": \"" + Format + "\"")
	default:
		if !json.Valid(trimmed) {
			return nil, fmt.Errorf("not valid JSON: %v", syntaxError(trimmed))
		}
		return nil, errors.New("not a peakbench result: a JSON " + jsonKind(trimmed[0]) + ", want an object with \"format\": \"" + Format + "\"")
	}
	// Check the format before anything else: another program's JSON fails
	// there, with the reason that helps, rather than on some field's type.
	var head struct {
		Format  json.RawMessage `json:"format"`
		Journal string          `json:"journal"` // a journal's header (journal.Format)
	}
	if !json.Valid(trimmed) {
		// A run's journal is JSON lines, its first a header naming its
		// layout: README tells of it, and it is not a result.
		line, _, _ := bytes.Cut(trimmed, []byte("\n"))
		if json.Unmarshal(line, &head) == nil && strings.HasPrefix(head.Journal, "peakbench-journal/") {
			return nil, errors.New("a peakbench journal (the record of a run as it ran), not a result: -resume with it and the run's flags finishes the run, and the run's -o (or -results-dir) file holds the result")
		}
		return nil, fmt.Errorf("not valid JSON (truncated or corrupt): %v", syntaxError(trimmed))
	}
	if err := json.Unmarshal(trimmed, &head); err != nil || head.Format == nil {
		return nil, errors.New("not a peakbench result: no \"format\" field (want \"" + Format + "\"; the output of -format=json)")
	}
	var format string
	if err := json.Unmarshal(head.Format, &format); err != nil {
		return nil, fmt.Errorf("not a peakbench result: \"format\" is %s, not the string %q", oneLine(string(head.Format)), Format)
	}
	if format != Format {
		return nil, fmt.Errorf("format is %q, this peakbench reads %q", format, Format)
	}
	run := new(Run)
	if err := json.Unmarshal(trimmed, run); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("field %s: a JSON %s where %s belongs", te.Field, te.Value, te.Type)
		}
		return nil, fmt.Errorf("not a peakbench result: %v", oneLine(err.Error()))
	}
	for i, r := range run.Results {
		if r.Backend == "" || r.Op == "" {
			return nil, fmt.Errorf("results[%d] has no backend or op", i)
		}
		for _, ns := range r.SamplesNS {
			if ns < 0 {
				return nil, fmt.Errorf("results[%d] (%s %s): negative sample %g ns", i, r.Backend, r.Op, ns)
			}
		}
	}
	return run, nil
}

// syntaxError explains why data is not valid JSON, with the byte offset.
func syntaxError(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Offset >= int64(len(data)) || strings.Contains(se.Error(), "unexpected end") {
			return fmt.Sprintf("ends early at byte %d", len(data))
		}
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	if err != nil {
		return oneLine(err.Error())
	}
	return "unknown syntax error"
}

func jsonKind(c byte) string {
	switch {
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	}
	return "number"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
