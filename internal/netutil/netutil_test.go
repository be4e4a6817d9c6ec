package netutil

import (
	"net"
	"strconv"
	"testing"
)

func TestFreePort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if !PortFree(port) {
		t.Fatalf("port %d from FreePort is not free", port)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if PortFree(port) {
		t.Errorf("port %d is listened on, yet PortFree says free", port)
	}
}
