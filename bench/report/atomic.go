package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckWritable fails early, before a long run, when path cannot be created.
func CheckWritable(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".peakbench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// WriteFileAtomic writes a file through a temporary file in the same folder
// and a rename, so a reader (or an interrupted run) never sees half a file.
func WriteFileAtomic(path string, write func(f *os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, unwrapPath(err))
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the temporary file's name from an error about it.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
