package workload

import (
	"crypto/sha256"
	"encoding/hex"
)

// cpuChain is the contract's cpu route: SHA-256 n times from
// "elysia-vs-nest", each round hashing the previous digest's 64 lowercase
// hex characters. The checker keeps its own copy so that the gate does not
// trust the reference servers' code.
func cpuChain(n int) string {
	s := []byte("elysia-vs-nest")
	for i := 0; i < n; i++ {
		sum := sha256.Sum256(s)
		s = []byte(hex.EncodeToString(sum[:]))
	}
	return string(s)
}
