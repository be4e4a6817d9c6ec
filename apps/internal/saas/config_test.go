package saas

import (
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

func TestDefaultSecretIsTheHarnessDefault(t *testing.T) {
	if DefaultJWTSecret != workload.DefaultJWTSecret {
		t.Errorf("DefaultJWTSecret = %q, workload.DefaultJWTSecret = %q", DefaultJWTSecret, workload.DefaultJWTSecret)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := ConfigFromEnv(env(map[string]string{"PORT": "8123", "DATABASE_URL": "postgres://x"}))
	if err != nil || c.Addr != "127.0.0.1:8123" || c.JWTSecret != DefaultJWTSecret || c.Workload != WorkloadSaaSSlice {
		t.Errorf("saas-slice config = %+v, %v", c, err)
	}
	c, err = ConfigFromEnv(env(map[string]string{"PORT": "8123", "STACKBENCH_WORKLOAD": "micro", "JWT_SECRET": "s"}))
	if err != nil || c.Workload != WorkloadMicro || c.JWTSecret != "s" {
		t.Errorf("micro config = %+v, %v", c, err)
	}
	for host, want := range map[string]string{"0.0.0.0": "0.0.0.0:8123", "10.0.0.7": "10.0.0.7:8123", "::": "[::]:8123"} {
		c, err = ConfigFromEnv(env(map[string]string{"HOST": host, "PORT": "8123", "STACKBENCH_WORKLOAD": "micro"}))
		if err != nil || c.Addr != want {
			t.Errorf("HOST=%s: addr %q, %v; want %q", host, c.Addr, err, want)
		}
	}
	if _, err := ConfigFromEnv(env(map[string]string{"PORT": "8123"})); err == nil {
		t.Error("saas-slice without DATABASE_URL: no error")
	}
	// A custom workload over the SaaS slice's routes names the one served.
	if c, err := ConfigFromEnv(env(map[string]string{"STACKBENCH_WORKLOAD": "saas-wire", "SAAS_WORKLOAD": "micro"})); err != nil || c.Workload != WorkloadMicro {
		t.Errorf("SAAS_WORKLOAD=micro: %+v, %v", c, err)
	}
	if _, err := ConfigFromEnv(env(map[string]string{"STACKBENCH_WORKLOAD": "macro", "DATABASE_URL": "x"})); err == nil {
		t.Error("unknown workload: no error")
	}
}
