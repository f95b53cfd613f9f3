package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Writer appends lines to a journal, each synced to disk before Add returns.
type Writer struct {
	f    *os.File
	path string
}

// Create starts the journal of a new run at path with its header. It
// refuses to replace a journal of an unfinished run (whose results only it
// holds); a finished run's journal is replaced.
func Create(path string, h Header) (*Writer, error) {
	if err := CheckFree(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("journal: %v", err)
	}
	os.Remove(path) // a finished run's (CheckFree)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %v", err)
	}
	w := &Writer{f: f, path: path}
	h.Journal = Format
	if err := w.add(h); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	syncDir(filepath.Dir(path)) // the new name, not only the data, survives a crash
	return w, nil
}

// CheckFree fails when path holds the journal of an unfinished run, with
// what to do about it; it is fine when nothing is there or when the run
// there finished.
func CheckFree(path string) error {
	j, err := Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err == nil && j.Finished:
		return nil
	case err == nil:
		return fmt.Errorf("%s holds the journal of an unfinished run (%d workloads done): continue it with -resume %s, or remove it", path, len(j.Done), path)
	}
	return fmt.Errorf("%s exists and is not a finished journal (%v): remove it or write elsewhere", path, err)
}

// Continue opens the journal j was read from for appending: it cuts off a
// line a crash left incomplete and records the resumption.
func Continue(j *Journal, resumed string) (*Writer, error) {
	f, err := os.OpenFile(j.Path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("journal: %v", err)
	}
	if err := f.Truncate(j.Valid); err == nil {
		_, err = f.Seek(j.Valid, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %v", j.Path, err)
	}
	w := &Writer{f: f, path: j.Path}
	if err := w.add(Line{Resumed: resumed}); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Add appends a workload's results.
func (w *Writer) Add(l Line) error { return w.add(l) }

// Finish marks the run finished and closes the journal.
func (w *Writer) Finish() error {
	err := w.add(Line{Finished: true})
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the journal without marking it finished (an interrupted
// run: -resume continues it).
func (w *Writer) Close() error { return w.f.Close() }

// add writes v as one line with one write, then syncs: a crash leaves the
// line whole or cut short, never interleaved.
func (w *Writer) add(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("journal: %v", err)
	}
	data = append(data, '\n')
	if _, err := w.f.Write(data); err != nil {
		return fmt.Errorf("journal %s: %v", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %v", w.path, err)
	}
	return nil
}

// syncDir syncs a folder's entries; where that is not possible (some file
// systems refuse it) the data is synced all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
