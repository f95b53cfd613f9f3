//go:build !unix

package atomicfile

import "io/fs"

func keepOwner(string, fs.FileInfo) {}
