package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
)

// The fixed server's HTTP/1.1: every request head it reads gets the same
// answer, written once for all the heads of one read (pipelined requests
// share a write). It answers GET only: a request with a body would need
// its body read, which no generator in the comparison sends.

const h1ReadBytes = 64 << 10

// newH1Answer is a 200 response with body as application/json.
func newH1Answer(body []byte) []byte {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	return append([]byte(head), body...)
}

var (
	headEnd = []byte("\r\n\r\n")
	get     = []byte("GET ")
)

// serveH1 serves one connection (cleartext or TLS) until the client
// closes it.
func serveH1(c net.Conn, answer []byte) error {
	in := make([]byte, h1ReadBytes)
	var out []byte
	start, end := 0, 0
	for {
		n, err := c.Read(in[end:])
		if n == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		end += n
		for {
			k := bytes.Index(in[start:end], headEnd)
			if k < 0 {
				break
			}
			if !bytes.HasPrefix(in[start:end], get) {
				return errors.New("a request other than GET (this server answers GET only)")
			}
			out = append(out, answer...)
			start += k + len(headEnd)
		}
		if start == end {
			start, end = 0, 0
		} else if end == len(in) {
			if start == 0 {
				return errors.New("a request head longer than 64 KiB")
			}
			end = copy(in, in[start:end])
			start = 0
		}
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
	}
}
