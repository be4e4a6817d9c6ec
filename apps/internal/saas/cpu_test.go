package saas

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

// TestCPUChainKnownValues checks the first rounds against digests computed
// outside Go, with `printf %s "$s" | sha256sum` in a shell loop.
func TestCPUChainKnownValues(t *testing.T) {
	want := map[int]string{
		1: "0f0194bebe88948631df19569101d272137f459b50f5d7ac9b9efba4f2d3fcc7",
		2: "12132191fc681af5214a498093af9eb75c61166fb2cf846ec58ad7c091f04bab",
		3: "c29153a065316dd0e106b36d87e64774acb995edd87ec69bf27520f65d051405",
	}
	for n, h := range want {
		if got := CPUChain(n); got != h {
			t.Errorf("CPUChain(%d) = %s, want %s", n, got, h)
		}
	}
}

// TestCPUChainMatchesNaive compares with a naive chain built on strings.
func TestCPUChainMatchesNaive(t *testing.T) {
	s := "elysia-vs-nest"
	for n := 1; n <= 200; n++ {
		s = fmt.Sprintf("%x", sha256.Sum256([]byte(s)))
		if got := CPUChain(n); got != s {
			t.Fatalf("CPUChain(%d) = %s, want %s", n, got, s)
		}
	}
}
