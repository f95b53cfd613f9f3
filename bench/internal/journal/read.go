package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/peakbench/peakbench/bench/result"
)

// Journal is a journal as read back.
type Journal struct {
	Path   string
	Header Header
	// Results are every finished workload's results, in the order they
	// were measured; Done says which workloads they cover.
	Results []result.Result
	Done    map[Key]bool
	// Resumed lists when the run was continued; Finished says whether
	// it ended.
	Resumed  []string
	Finished bool
	// Valid is the length of the whole lines: what follows is a line a
	// crash cut short.
	Valid int64
}

// Read reads the journal at path. A last line cut short (no newline, or
// not JSON) is left out; any other line that is not a journal line is an
// error naming it.
func Read(path string) (*Journal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	j := &Journal{Path: path, Done: map[Key]bool{}}
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a line without its newline was cut short: left out
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if perr := j.parse(n, line); perr != nil {
			if _, err := r.Peek(1); err == io.EOF && n > 1 {
				break // the last line, cut short in a way that kept a newline
			}
			return nil, fmt.Errorf("%s line %d: %v", path, n, perr)
		}
		j.Valid += int64(len(line))
	}
	if j.Header.Journal == "" {
		return nil, fmt.Errorf("%s: empty, not a peakbench journal", path)
	}
	return j, nil
}

func (j *Journal) parse(n int, line []byte) error {
	line = bytes.TrimSpace(line)
	if n == 1 {
		var h Header
		if err := json.Unmarshal(line, &h); err != nil || h.Journal == "" {
			return errors.New("not a peakbench journal (its first line has no \"journal\" field)")
		}
		if h.Journal != Format {
			return fmt.Errorf("journal format %q, this peakbench reads %q", h.Journal, Format)
		}
		j.Header = h
		return nil
	}
	var l Line
	if err := json.Unmarshal(line, &l); err != nil {
		return fmt.Errorf("not a journal line: %v", err)
	}
	switch {
	case l.Workload != "":
		k := Key{l.Workload, l.Threads}
		if j.Done[k] {
			return nil // written twice: the first stands (each workload is measured once)
		}
		j.Done[k] = true
		j.Results = append(j.Results, l.Results...)
	case l.Resumed != "":
		j.Resumed = append(j.Resumed, l.Resumed)
		j.Finished = false
	case l.Finished:
		j.Finished = true
	}
	return nil
}
