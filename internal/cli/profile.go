package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles writes the CPU profile of a whole run and a heap profile at
// its end (go tool pprof reads both), for a user or a benchmark to see
// where a slow or large run goes. Empty paths write nothing.
type profiles struct {
	cpu     *os.File
	memPath string
}

// startProfiles starts the CPU profile at cpuPath; stop ends it and
// writes the heap profile to memPath.
func startProfiles(cpuPath, memPath string) (*profiles, error) {
	p := &profiles{memPath: memPath}
	if cpuPath == "" {
		return p, nil
	}
	f, err := os.Create(cpuPath)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	p.cpu = f
	return p, nil
}

func (p *profiles) stop() error {
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
	}
	if p.memPath == "" {
		return nil
	}
	f, err := os.Create(p.memPath)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer f.Close()
	runtime.GC() // the heap as it is live at the end
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}
