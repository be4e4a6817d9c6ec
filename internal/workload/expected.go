package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// apiTimeLayout is the contract's timestamp: UTC, milliseconds, Z.
const apiTimeLayout = "2006-01-02T15:04:05.000Z"

// apiUser is the contract's user object, keys in the contract's order.
type apiUser struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Age       int    `json:"age"`
	CreatedAt string `json:"createdAt"`
}

// seededUserJSON is the body a correct stack answers for seeded user id,
// computed from the fixture's generator (not read back from a database, so
// a wrongly seeded database fails the gate too).
func seededUserJSON(id int) string {
	u, ok := pgfix.SeedUser(id)
	if !ok {
		panic(fmt.Sprintf("workload: user %d is not seeded", id))
	}
	return marshal(apiUser{ID: u.ID, Name: u.Name, Email: u.Email, Age: u.Age, CreatedAt: u.CreatedAt.UTC().Format(apiTimeLayout)})
}

// userPageJSON is the list route's body for page and limit: the seeded
// users with ids (page-1)*limit+1 … page*limit that exist.
func userPageJSON(page, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"page":%d,"limit":%d,"items":[`, page, limit)
	for id := (page-1)*limit + 1; id <= page*limit && id <= pgfix.SeedUsers; id++ {
		if id > (page-1)*limit+1 {
			b.WriteByte(',')
		}
		b.WriteString(seededUserJSON(id))
	}
	b.WriteString("]}")
	return b.String()
}

// marshal encodes v as JSON.stringify would: no HTML escaping, no newline.
func marshal(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("workload: encode %T: %v", v, err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// cpuJSON is the cpu route's body for n. Digests are cached: the largest n
// takes a good fraction of a second to compute.
func cpuJSON(n int) string {
	cpuCacheMu.Lock()
	defer cpuCacheMu.Unlock()
	if s, ok := cpuCache[n]; ok {
		return s
	}
	s := fmt.Sprintf(`{"n":%d,"hash":"%s"}`, n, cpuChain(n))
	cpuCache[n] = s
	return s
}

var (
	cpuCacheMu sync.Mutex
	cpuCache   = map[int]string{}
)
