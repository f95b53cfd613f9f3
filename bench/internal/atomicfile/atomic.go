// Package atomicfile writes output files so that no reader sees half of
// one: through a temporary file and a rename, or in place for a device or a
// pipe (WriteFileAtomic), with an early check that the path can be written
// (CheckWritable).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckWritable fails early, before a long run, when path cannot be
// written: a directory, a folder that does not exist or cannot be written
// to, a device or pipe that cannot be opened for writing.
func CheckWritable(path string) error {
	if path == "" {
		return errors.New("empty file name")
	}
	target, fi, err := outputTarget(path)
	if err != nil {
		return err
	}
	if fi != nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if fi != nil && !fi.Mode().IsRegular() {
		// A device or pipe is written in place. A pipe without a reader
		// yet (ENXIO) will have one by the end of the run, or the write waits.
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			if errors.Is(err, syscall.ENXIO) {
				return nil
			}
			return fmt.Errorf("cannot write %s: %v", path, UnwrapPath(err))
		}
		return f.Close()
	}
	f, err := os.CreateTemp(filepath.Dir(target), ".peakbench-check-*")
	if err != nil {
		return noFileBeside(path, target, fi, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// WriteFileAtomic writes path through a temporary file in the same folder
// and a rename, so a reader (or an interrupted run) never sees half a file.
// A file it replaces keeps its permissions (and, where allowed, its owner);
// a new one gets 0644. A symbolic link is followed: its target is replaced,
// the link stays. A device or a named pipe (/dev/null, /dev/stdout, a
// process substitution) is written in place, never replaced by a file; a
// directory is refused.
func WriteFileAtomic(path string, write func(f *os.File) error) error {
	target, fi, err := outputTarget(path)
	if err != nil {
		return err
	}
	if fi != nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", path)
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return writeInPlace(path, write)
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return noFileBeside(path, target, fi, err)
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	mode := fs.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil && fi != nil {
		keepOwner(tmp, fi)
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %v", path, UnwrapPath(err))
	}
	return nil
}

// noFileBeside says that path cannot be written because no file can be
// created in the folder of target, the file it names, which exists or not
// (fi nil): an existing file is written as a new one renamed over it, and
// a folder such as /proc/self takes none, whatever the file allows.
func noFileBeside(path, target string, fi fs.FileInfo, err error) error {
	if fi != nil {
		return fmt.Errorf("cannot write %s: it is replaced by a new file made beside it, and %s takes none: %v", path, filepath.Dir(target), UnwrapPath(err))
	}
	return fmt.Errorf("cannot write %s: cannot create a file in %s: %v", path, filepath.Dir(target), UnwrapPath(err))
}

// writeInPlace writes a device or a pipe through path itself.
func writeInPlace(path string, write func(f *os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, UnwrapPath(err))
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, UnwrapPath(err))
	}
	return nil
}

// outputTarget resolves the file a write to path changes: path itself, or
// the end of its chain of symbolic links (which may not exist yet), with
// that file's information (nil when it does not exist). Stat follows the
// links the kernel's way first, so that /dev/stdout and /proc/self/fd/N,
// whose targets are not paths, resolve to the pipe or terminal they are.
func outputTarget(path string) (string, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return path, fi, nil // directory, device, pipe, socket: not renamed over
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("cannot write %s: %v", path, UnwrapPath(err))
	}
	target := path
	for range 40 { // the kernel's limit on links in a path
		li, lerr := os.Lstat(target)
		if lerr != nil || li.Mode()&fs.ModeSymlink == 0 {
			if err != nil { // the chain ends at a file to create
				return target, nil, nil
			}
			return target, fi, nil
		}
		dest, lerr := os.Readlink(target)
		if lerr != nil {
			return "", nil, fmt.Errorf("cannot write %s: %v", path, UnwrapPath(lerr))
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(target), dest)
		}
		target = dest
	}
	return "", nil, fmt.Errorf("cannot write %s: too many levels of symbolic links", path)
}

// UnwrapPath drops the path from an error about a file (the temporary
// file's, or one the message names already).
func UnwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
