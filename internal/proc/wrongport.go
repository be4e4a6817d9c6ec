package proc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// wrongPort adds to a boot failure the ports the stack's tree listens on
// when the port it was given is not among them: a server that ignores
// PORT (a TechEmpower entry listens on its config's port, 8080 mostly)
// otherwise looks like one that is slow to start.
func wrongPort(err error, s Spec, root int) error {
	if s.Container != nil {
		return err // its ports are the container's
	}
	ports := local.OS.ListenPorts(TreePIDs(root))
	if len(ports) == 0 || slices.Contains(ports, s.Port) {
		return err
	}
	var list []string
	for _, p := range ports {
		list = append(list, strconv.Itoa(p))
	}
	return fmt.Errorf("%w; it listens on port %s, not on the port it was given (PORT=%d): make it listen on $PORT (a TechEmpower entry's listen call names its config's port)",
		err, strings.Join(list, ", "), s.Port)
}
