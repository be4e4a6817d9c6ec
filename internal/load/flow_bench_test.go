package load

import "testing"

// BenchmarkFlowRender is the cost of building a flow's step for the wire:
// the shop flow's read step (a captured id in the path, a token and a
// session in headers) as an HTTP/1.1 head and as an HTTP/2 header block.
// Neither allocates (allocs/op).
func BenchmarkFlowRender(b *testing.B) {
	cf, err := compileFlow(shopFlow())
	if err != nil {
		b.Fatal(err)
	}
	step := &cf.steps[2]
	f := &flowState{vars: make([][]byte, cf.slots)}
	for i := range f.vars {
		f.vars[i] = []byte("tok-u123456789")
	}
	b.Run("http1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.render(step, "127.0.0.1:8080")
		}
	})
	b.Run("h2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.renderH2(step, "127.0.0.1:8080", false)
		}
	})
}
