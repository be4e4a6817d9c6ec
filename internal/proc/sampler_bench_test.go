package proc

import (
	"os"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
)

// BenchmarkSample measures one sample of three groups (a tree, the
// harness, a PIDs group) on this machine's process table, and reports
// what that costs at DefaultSampleInterval as a percentage of one core
// (target ≤ 1 %).
func BenchmarkSample(b *testing.B) {
	self := os.Getpid()
	groups := []Group{TreeGroup("server", os.Getppid()), SelfGroup("harness"), {Name: "listed", PIDs: func() []int { return []int{self} }}}
	w := newWatch(groups, host.ReadClocks())
	b.ReportAllocs()
	start := threadCPU()
	for b.Loop() {
		w.sample(false)
	}
	perSample := (threadCPU() - start) / time.Duration(b.N)
	b.ReportMetric(float64(perSample.Microseconds()), "cpu-µs/sample")
	b.ReportMetric(100*float64(perSample)/float64(DefaultSampleInterval), "%core@default")
	pids, _ := listPIDs(nil)
	b.ReportMetric(float64(len(pids)), "processes")
}

// BenchmarkSamplerWindow runs a real one-second window at the default
// interval and reports the sampler's own CPU as a percentage of one core.
func BenchmarkSamplerWindow(b *testing.B) {
	for b.Loop() {
		s := NewSampler(DefaultSampleInterval, TreeGroup("parent", os.Getppid()), SelfGroup("harness"))
		s.Start()
		time.Sleep(time.Second)
		w := s.Stop()
		b.ReportMetric(100*w.SamplerCPUSeconds/w.Wall.Seconds(), "%core")
	}
}
