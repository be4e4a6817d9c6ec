package saas

import (
	"crypto/sha256"
	"encoding/hex"
)

// cpuSeed is the string the cpu chain starts from.
const cpuSeed = "elysia-vs-nest"

// MaxCPURounds is the largest n the cpu route accepts.
const MaxCPURounds = 1_000_000

// CPUChain hashes the seed n times with SHA-256, each round hashing the
// previous digest's 64 lowercase hex characters, and returns the last digest
// in hex. n below 1 returns the seed.
func CPUChain(n int) string {
	if n < 1 {
		return cpuSeed
	}
	var cur [2 * sha256.Size]byte
	sum := sha256.Sum256([]byte(cpuSeed))
	hex.Encode(cur[:], sum[:])
	for i := 1; i < n; i++ {
		sum = sha256.Sum256(cur[:])
		hex.Encode(cur[:], sum[:])
	}
	return string(cur[:])
}
