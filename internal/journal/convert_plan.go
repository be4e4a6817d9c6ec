package journal

import "github.com/stackbench/stackbench/internal/plan"

// PlanCapacityOf converts v to its journaled form.
func PlanCapacityOf(v plan.Capacity) PlanCapacity {
	return PlanCapacity{
		Cases:                 ConvertSlice(v.Cases, PlanCapacityCaseOf),
		MaxErrorShare:         v.MaxErrorShare,
		Resolution:            v.Resolution,
		Confirmations:         v.Confirmations,
		Retries:               v.Retries,
		Probe:                 v.Probe,
		Warmup:                v.Warmup,
		Budget:                v.Budget,
		Connections:           v.Connections,
		StartFraction:         v.StartFraction,
		MaxGeneratorWaitShare: v.MaxGeneratorWaitShare,
		Searches:              v.Searches,
	}
}

// Plan converts v back to a plan.Capacity.
func (v PlanCapacity) Plan() plan.Capacity {
	return plan.Capacity{
		Cases:                 ConvertSlice(v.Cases, PlanCapacityCase.Plan),
		MaxErrorShare:         v.MaxErrorShare,
		Resolution:            v.Resolution,
		Confirmations:         v.Confirmations,
		Retries:               v.Retries,
		Probe:                 v.Probe,
		Warmup:                v.Warmup,
		Budget:                v.Budget,
		Connections:           v.Connections,
		StartFraction:         v.StartFraction,
		MaxGeneratorWaitShare: v.MaxGeneratorWaitShare,
		Searches:              v.Searches,
	}
}

// PlanCapacityCaseOf converts v to its journaled form.
func PlanCapacityCaseOf(v plan.CapacityCase) PlanCapacityCase {
	return PlanCapacityCase{
		Case: v.Case,
		SLO:  v.SLO,
	}
}

// Plan converts v back to a plan.CapacityCase.
func (v PlanCapacityCase) Plan() plan.CapacityCase {
	return plan.CapacityCase{
		Case: v.Case,
		SLO:  v.SLO,
	}
}

// PlanCaseThresholdsOf converts v to its journaled form.
func PlanCaseThresholdsOf(v plan.CaseThresholds) PlanCaseThresholds {
	return PlanCaseThresholds{
		Case:       v.Case,
		Route:      v.Route,
		Thresholds: PlanThresholdsOf(v.Thresholds),
	}
}

// Plan converts v back to a plan.CaseThresholds.
func (v PlanCaseThresholds) Plan() plan.CaseThresholds {
	return plan.CaseThresholds{
		Case:       v.Case,
		Route:      v.Route,
		Thresholds: v.Thresholds.Plan(),
	}
}

// PlanContainerOf converts v to its journaled form.
func PlanContainerOf(v plan.Container) PlanContainer {
	return PlanContainer{
		Image:   v.Image,
		Build:   v.Build,
		Runtime: v.Runtime,
	}
}

// Plan converts v back to a plan.Container.
func (v PlanContainer) Plan() plan.Container {
	return plan.Container{
		Image:   v.Image,
		Build:   v.Build,
		Runtime: v.Runtime,
	}
}

// PlanDXOf converts v to its journaled form.
func PlanDXOf(v plan.DX) PlanDX {
	return PlanDX{
		Install:     v.Install,
		Cold:        v.Cold,
		Artifact:    v.Artifact,
		DepsDir:     v.DepsDir,
		DepsCommand: v.DepsCommand,
		Reload:      ConvertPtr(v.Reload, PlanReloadOf),
		Rounds:      v.Rounds,
	}
}

// Plan converts v back to a plan.DX.
func (v PlanDX) Plan() plan.DX {
	return plan.DX{
		Install:     v.Install,
		Cold:        v.Cold,
		Artifact:    v.Artifact,
		DepsDir:     v.DepsDir,
		DepsCommand: v.DepsCommand,
		Reload:      ConvertPtr(v.Reload, PlanReload.Plan),
		Rounds:      v.Rounds,
	}
}

// PlanGateOf converts v to its journaled form.
func PlanGateOf(v plan.Gate) PlanGate {
	return PlanGate{
		Mode:    v.Mode,
		Cores:   v.Cores,
		Retries: v.Retries,
		Wait:    v.Wait,
	}
}

// Plan converts v back to a plan.Gate.
func (v PlanGate) Plan() plan.Gate {
	return plan.Gate{
		Mode:    v.Mode,
		Cores:   v.Cores,
		Retries: v.Retries,
		Wait:    v.Wait,
	}
}

// PlanGitRevisionOf converts v to its journaled form.
func PlanGitRevisionOf(v plan.GitRevision) PlanGitRevision {
	return PlanGitRevision{
		Rev:    v.Rev,
		Commit: v.Commit,
		Subdir: v.Subdir,
	}
}

// Plan converts v back to a plan.GitRevision.
func (v PlanGitRevision) Plan() plan.GitRevision {
	return plan.GitRevision{
		Rev:    v.Rev,
		Commit: v.Commit,
		Subdir: v.Subdir,
	}
}

// PlanHostOf converts v to its journaled form.
func PlanHostOf(v plan.Host) PlanHost {
	return PlanHost{
		Name:     v.Name,
		User:     v.User,
		Addr:     v.Addr,
		Port:     v.Port,
		Identity: v.Identity,
	}
}

// Plan converts v back to a plan.Host.
func (v PlanHost) Plan() plan.Host {
	return plan.Host{
		Name:     v.Name,
		User:     v.User,
		Addr:     v.Addr,
		Port:     v.Port,
		Identity: v.Identity,
	}
}

// PlanLatencyRateOf converts v to its journaled form.
func PlanLatencyRateOf(v plan.LatencyRate) PlanLatencyRate {
	return PlanLatencyRate{
		Share: v.Share,
		RPS:   v.RPS,
	}
}

// Plan converts v back to a plan.LatencyRate.
func (v PlanLatencyRate) Plan() plan.LatencyRate {
	return plan.LatencyRate{
		Share: v.Share,
		RPS:   v.RPS,
	}
}

// PlanPlacementOf converts v to its journaled form.
func PlanPlacementOf(v plan.Placement) PlanPlacement {
	return PlanPlacement{
		Mode:       v.Mode,
		Generator:  v.Generator,
		Server:     v.Server,
		Database:   v.Database,
		Auto:       v.Auto,
		NoAffinity: v.NoAffinity,
	}
}

// Plan converts v back to a plan.Placement.
func (v PlanPlacement) Plan() plan.Placement {
	return plan.Placement{
		Mode:       v.Mode,
		Generator:  v.Generator,
		Server:     v.Server,
		Database:   v.Database,
		Auto:       v.Auto,
		NoAffinity: v.NoAffinity,
	}
}

// PlanSpecOf converts v to its journaled form.
func PlanSpecOf(v plan.Plan) PlanSpec {
	return PlanSpec{
		File:          v.File,
		WorkloadName:  v.WorkloadName,
		Protocol:      PlanProtocolOf(v.Protocol),
		Stacks:        ConvertSlice(v.Stacks, PlanStackOf),
		NeedsDatabase: v.NeedsDatabase,
		Windows:       ConvertSlice(v.Windows, PlanWindowOf),
		Fingerprint:   v.Fingerprint,
		Capacity:      ConvertPtr(v.Capacity, PlanCapacityOf),
		Thresholds:    ConvertSlice(v.Thresholds, PlanCaseThresholdsOf),
		Hosts:         ConvertSlice(v.Hosts, PlanHostOf),
		Roles:         ConvertPtr(v.Roles, PlanRolesOf),
	}
}

// Plan converts v back to a plan.Plan.
func (v PlanSpec) Plan() plan.Plan {
	return plan.Plan{
		File:          v.File,
		WorkloadName:  v.WorkloadName,
		Protocol:      v.Protocol.Plan(),
		Stacks:        ConvertSlice(v.Stacks, PlanStack.Plan),
		NeedsDatabase: v.NeedsDatabase,
		Windows:       ConvertSlice(v.Windows, PlanWindow.Plan),
		Fingerprint:   v.Fingerprint,
		Capacity:      ConvertPtr(v.Capacity, PlanCapacity.Plan),
		Thresholds:    ConvertSlice(v.Thresholds, PlanCaseThresholds.Plan),
		Hosts:         ConvertSlice(v.Hosts, PlanHost.Plan),
		Roles:         ConvertPtr(v.Roles, PlanRoles.Plan),
	}
}

// PlanProtocolOf converts v to its journaled form.
func PlanProtocolOf(v plan.Protocol) PlanProtocol {
	return PlanProtocol{
		Profile:         v.Profile,
		Concurrency:     v.Concurrency,
		Warmup:          v.Warmup,
		WarmupMax:       v.WarmupMax,
		JITWarmup:       v.JITWarmup,
		JITWarmupMax:    v.JITWarmupMax,
		Window:          v.Window,
		Timeout:         v.Timeout,
		Rounds:          v.Rounds,
		Adaptive:        v.Adaptive,
		MaxRounds:       v.MaxRounds,
		Budget:          v.Budget,
		BudgetRounds:    v.BudgetRounds,
		Layout:          v.Layout,
		Order:           v.Order,
		Repeat:          v.Repeat,
		Cases:           v.Cases,
		Fresh:           v.Fresh,
		BootStarts:      v.BootStarts,
		Gate:            PlanGateOf(v.Gate),
		MinEffect:       v.MinEffect,
		Family:          v.Family,
		Spread:          v.Spread,
		Placement:       PlanPlacementOf(v.Placement),
		Profiling:       v.Profiling,
		Latency:         ConvertPtr(v.Latency, PlanLatencyRateOf),
		Calls:           v.Calls,
		LatencyRoundOne: v.LatencyRoundOne,
		ClosedLoop:      v.ClosedLoop,
	}
}

// Plan converts v back to a plan.Protocol.
func (v PlanProtocol) Plan() plan.Protocol {
	return plan.Protocol{
		Profile:         v.Profile,
		Concurrency:     v.Concurrency,
		Warmup:          v.Warmup,
		WarmupMax:       v.WarmupMax,
		JITWarmup:       v.JITWarmup,
		JITWarmupMax:    v.JITWarmupMax,
		Window:          v.Window,
		Timeout:         v.Timeout,
		Rounds:          v.Rounds,
		Adaptive:        v.Adaptive,
		MaxRounds:       v.MaxRounds,
		Budget:          v.Budget,
		BudgetRounds:    v.BudgetRounds,
		Layout:          v.Layout,
		Order:           v.Order,
		Repeat:          v.Repeat,
		Cases:           v.Cases,
		Fresh:           v.Fresh,
		BootStarts:      v.BootStarts,
		Gate:            v.Gate.Plan(),
		MinEffect:       v.MinEffect,
		Family:          v.Family,
		Spread:          v.Spread,
		Placement:       v.Placement.Plan(),
		Profiling:       v.Profiling,
		Latency:         ConvertPtr(v.Latency, PlanLatencyRate.Plan),
		Calls:           v.Calls,
		LatencyRoundOne: v.LatencyRoundOne,
		ClosedLoop:      v.ClosedLoop,
	}
}

// PlanReloadOf converts v to its journaled form.
func PlanReloadOf(v plan.Reload) PlanReload {
	return PlanReload{
		Start:   v.Start,
		File:    v.File,
		Find:    v.Find,
		Replace: v.Replace,
		Path:    v.Path,
		Timeout: v.Timeout,
	}
}

// Plan converts v back to a plan.Reload.
func (v PlanReload) Plan() plan.Reload {
	return plan.Reload{
		Start:   v.Start,
		File:    v.File,
		Find:    v.Find,
		Replace: v.Replace,
		Path:    v.Path,
		Timeout: v.Timeout,
	}
}

// PlanRolesOf converts v to its journaled form.
func PlanRolesOf(v plan.Roles) PlanRoles {
	return PlanRoles{
		Server:     v.Server,
		Database:   v.Database,
		Generators: v.Generators,
	}
}

// Plan converts v back to a plan.Roles.
func (v PlanRoles) Plan() plan.Roles {
	return plan.Roles{
		Server:     v.Server,
		Database:   v.Database,
		Generators: v.Generators,
	}
}

// PlanStackOf converts v to its journaled form.
func PlanStackOf(v plan.Stack) PlanStack {
	return PlanStack{
		Name:        v.Name,
		Dir:         v.Dir,
		Build:       v.Build,
		Start:       v.Start,
		Env:         v.Env,
		Health:      v.Health,
		Base:        v.Base,
		BootTimeout: v.BootTimeout,
		Version:     v.Version,
		From:        v.From,
		DX:          ConvertPtr(v.DX, PlanDXOf),
		Git:         ConvertPtr(v.Git, PlanGitRevisionOf),
		Services:    v.Services,
		Pprof:       v.Pprof,
		Runtime:     v.Runtime,
		Container:   ConvertPtr(v.Container, PlanContainerOf),
		Wire:        planWireOf(v.Wire),
	}
}

// planWireOf is the journal form of a stack's wire; nil for HTTP/1.1 in
// cleartext.
func planWireOf(v plan.Wire) *PlanWire {
	if v == (plan.Wire{}) {
		return nil
	}
	return &PlanWire{Protocol: v.Protocol, TLS: v.TLS, Streams: v.Streams, Proto: v.Proto}
}

// Plan converts v back to a plan.Wire; nil is HTTP/1.1 in cleartext.
func (v *PlanWire) Plan() plan.Wire {
	if v == nil {
		return plan.Wire{}
	}
	return plan.Wire{Protocol: v.Protocol, TLS: v.TLS, Streams: v.Streams, Proto: v.Proto}
}

// Plan converts v back to a plan.Stack.
func (v PlanStack) Plan() plan.Stack {
	return plan.Stack{
		Name:        v.Name,
		Dir:         v.Dir,
		Build:       v.Build,
		Start:       v.Start,
		Env:         v.Env,
		Health:      v.Health,
		Base:        v.Base,
		BootTimeout: v.BootTimeout,
		Version:     v.Version,
		From:        v.From,
		DX:          ConvertPtr(v.DX, PlanDX.Plan),
		Git:         ConvertPtr(v.Git, PlanGitRevision.Plan),
		Services:    v.Services,
		Pprof:       v.Pprof,
		Runtime:     v.Runtime,
		Container:   ConvertPtr(v.Container, PlanContainer.Plan),
		Wire:        v.Wire.Plan(),
	}
}

// PlanThresholdsOf converts v to its journaled form.
func PlanThresholdsOf(v plan.Thresholds) PlanThresholds {
	return PlanThresholds{
		P50:           v.P50,
		P90:           v.P90,
		P99:           v.P99,
		P999:          v.P999,
		ErrorRate:     v.ErrorRate,
		ThroughputRPS: v.ThroughputRPS,
	}
}

// Plan converts v back to a plan.Thresholds.
func (v PlanThresholds) Plan() plan.Thresholds {
	return plan.Thresholds{
		P50:           v.P50,
		P90:           v.P90,
		P99:           v.P99,
		P999:          v.P999,
		ErrorRate:     v.ErrorRate,
		ThroughputRPS: v.ThroughputRPS,
	}
}

// PlanWindowOf converts v to its journaled form.
func PlanWindowOf(v plan.Window) PlanWindow {
	return PlanWindow{
		Key:         v.Key,
		Index:       v.Index,
		Round:       v.Round,
		Repeat:      v.Repeat,
		Slot:        v.Slot,
		Stack:       v.Stack,
		Case:        v.Case,
		Concurrency: v.Concurrency,
		Process:     v.Process,
		NewProcess:  v.NewProcess,
		Inserts:     v.Inserts,
	}
}

// Plan converts v back to a plan.Window.
func (v PlanWindow) Plan() plan.Window {
	return plan.Window{
		Key:         v.Key,
		Index:       v.Index,
		Round:       v.Round,
		Repeat:      v.Repeat,
		Slot:        v.Slot,
		Stack:       v.Stack,
		Case:        v.Case,
		Concurrency: v.Concurrency,
		Process:     v.Process,
		NewProcess:  v.NewProcess,
		Inserts:     v.Inserts,
	}
}
