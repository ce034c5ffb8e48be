package oracle

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// PMProxyBinary is Debian's pmproxy.
const PMProxyBinary = "/usr/lib/pcp/bin/pmproxy"

// PMProxy is a pmproxy this process started on loopback.
type PMProxy struct {
	URL string // http://127.0.0.1:PORT
	Log string // its log file
	cmd *exec.Cmd
}

// StartPMProxy runs this machine's pmproxy in the foreground on a free
// loopback port, with its unix socket and log in dir, and waits until its
// REST API answers. No Redis is needed for /pmapi (pmproxy logs that it
// cannot reach one and serves the live PMAPI all the same). Its libpcp
// loads no derived-metric configs (PCP_DERIVED_CONFIG=""), unless env,
// added to the environment last, says otherwise.
func StartPMProxy(ctx context.Context, dir string, env ...string) (*PMProxy, error) {
	if _, err := os.Stat(PMProxyBinary); err != nil {
		return nil, fmt.Errorf("%s is missing: run scripts/pcp-testenv.sh (Debian's pcp package ships it)", PMProxyBinary)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p := &PMProxy{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Log: filepath.Join(dir, "pmproxy.log")}
	// -T: a pmproxy whose test process died without stopping it ends
	// by itself.
	p.cmd = exec.Command(PMProxyBinary, "-f", "-A", "-T", "30min", "-i", "127.0.0.1", "-p", strconv.Itoa(port),
		"-s", filepath.Join(dir, "pmproxy.socket"), "-l", p.Log)
	p.cmd.Env = append(append(os.Environ(), "PCP_DERIVED_CONFIG="), env...)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting pmproxy: %w", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/pmapi/context?hostspec=127.0.0.1")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			log, _ := os.ReadFile(p.Log)
			p.Stop()
			return nil, fmt.Errorf("pmproxy on port %d does not answer /pmapi/context (%v): %s", port, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends the pmproxy.
func (p *PMProxy) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// FreePort returns a TCP port free on loopback just now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
