package compare

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/result"
)

// BaselineEnv names the environment variable that overrides the baseline
// folder.
const BaselineEnv = "PEAKBENCH_BASELINES"

// BaselineDir is the folder baselines are saved in: $PEAKBENCH_BASELINES when
// set, else peakbench/baselines in the user's cache folder
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows).
func BaselineDir() (string, error) {
	if d := os.Getenv(BaselineEnv); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for baselines: %v; set %s", err, BaselineEnv)
	}
	return filepath.Join(cache, "peakbench", "baselines"), nil
}

var baselineName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// CheckBaselineName accepts names made of letters, digits, '.', '_' and '-'
// (not "." or ".."), at most 100 characters.
func CheckBaselineName(name string) error {
	if !baselineName.MatchString(name) || name == "." || name == ".." || len(name) > 100 {
		return fmt.Errorf("baseline name %q: use only letters, digits, '.', '_' and '-' (e.g. main or v1.2)", name)
	}
	return nil
}

// BaselinePath is the file of baseline name: <BaselineDir>/<name>.json.
func BaselinePath(name string) (string, error) {
	if err := CheckBaselineName(name); err != nil {
		return "", err
	}
	dir, err := BaselineDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".json"), nil
}

// SaveBaseline writes run as JSON to the baseline file of name, atomically,
// creating the folder, and returns the file's path.
func SaveBaseline(name string, run *result.Run) (string, error) {
	path, err := BaselinePath(name)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("saving baseline %s in %s: %v", name, filepath.Dir(path), atomicfile.UnwrapPath(err))
	}
	err = atomicfile.WriteFileAtomic(path, func(f *os.File) error { return result.WriteJSON(f, run) })
	return path, err
}

// LoadBaseline reads the baseline saved under name.
func LoadBaseline(name string) (*result.Run, string, error) {
	path, err := BaselinePath(name)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, path, fmt.Errorf("no baseline %q: %s does not exist (save one with -save-baseline %s)", name, path, name)
	}
	run, err := result.Load(path)
	return run, path, err
}
