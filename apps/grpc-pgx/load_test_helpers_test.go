package main

import (
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/load/grpcmsg"
)

// loadMethod encodes a call of saaspb/saas.proto for the engine.
func loadMethod(method, message string) (*load.GRPCCall, error) {
	m, err := grpcmsg.Load("saaspb/saas.proto", method)
	if err != nil {
		return nil, err
	}
	b, err := m.Encode(message)
	if err != nil {
		return nil, err
	}
	return &load.GRPCCall{Method: m.Name, Message: b}, nil
}
