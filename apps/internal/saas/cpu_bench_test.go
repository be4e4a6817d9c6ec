package saas

import "testing"

// BenchmarkCPUChain15000 is the cpu route's work at the load's n. Compare
// builds with -pgo=off and -pgo=$PWD/apps/nethttp-pgx-pgo/cpu.pgo (see
// docs/stacks.md): the profile changes inlining so that the digest escapes.
func BenchmarkCPUChain15000(b *testing.B) {
	for b.Loop() {
		CPUChain(15000)
	}
}
