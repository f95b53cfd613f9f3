package cpu

import "testing"

func TestThreadsText(t *testing.T) {
	for _, c := range []struct {
		threads []int
		want    string
	}{{[]int{1}, "1 thread"}, {[]int{2}, "2 threads"}, {[]int{1, 2}, "1,2 threads"}} {
		if got := threadsText(c.threads); got != c.want {
			t.Errorf("threadsText(%v) = %q; want %q", c.threads, got, c.want)
		}
	}
}
