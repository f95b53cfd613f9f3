package worker

import "syscall"

// procAttr puts a worker in a process group of its own (a terminal's
// Ctrl-C reaches peakbench alone, which stops its workers) and has the
// kernel kill it when peakbench dies, even by SIGKILL: a library hung in a
// worker would otherwise spin on after the run.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
