package mcpserver

import (
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EndpointPath is the one path the streamable HTTP transport is served on.
const EndpointPath = "/mcp"

// HTTP defaults: how long an idle session lives, and how many live at once.
const (
	DefaultSessionIdle = 10 * time.Minute
	DefaultMaxSessions = 64
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// AllowedOrigins are the browser origins (scheme://host[:port]) accepted
	// beyond loopback ones; a request without an Origin header (any non-browser
	// client) is accepted.
	AllowedOrigins []string
	// SessionIdle closes a session no request has used for that long; 0 =
	// DefaultSessionIdle.
	SessionIdle time.Duration
	// MaxSessions bounds the live sessions: a new one past it closes the oldest;
	// 0 = DefaultMaxSessions.
	MaxSessions int
	// MaxBody bounds a request body (one JSON-RPC message); 0 = the SDK's default.
	MaxBody int64
	Logger  *slog.Logger
}

// HTTPHandler serves the server over streamable HTTP at EndpointPath only. It
// refuses a request whose Origin is neither loopback nor allowed (the MCP
// specification's defence against a web page driving a local server), closes
// sessions idle for SessionIdle (the SDK's session timeout) and keeps at most
// MaxSessions alive, so a client that initializes without end cannot grow the
// server's memory without bound. The SDK's own DNS-rebinding check (a loopback
// request must name a loopback Host) stays on.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.SessionIdle <= 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{Logger: o.Logger, SessionTimeout: o.SessionIdle, MaxRequestBodyBytes: o.MaxBody})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != EndpointPath {
			http.Error(w, "not found: the MCP endpoint is "+EndpointPath, http.StatusNotFound)
			return
		}
		if origin := r.Header.Get("Origin"); !originAllowed(origin, o.AllowedOrigins) {
			http.Error(w, "forbidden: origin "+origin+" is not allowed (loopback origins are; spelunk mcp --allow-origin adds others)",
				http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			s.makeRoom(o.MaxSessions - 1) // an initialize: a new session
		}
		h.ServeHTTP(w, r)
	})
}

// makeRoom closes the oldest sessions until at most keep are left.
func (s *Server) makeRoom(keep int) {
	var live []*mcp.ServerSession
	for ss := range s.srv.Sessions() { // in the order they connected
		live = append(live, ss)
	}
	for _, ss := range live[:max(len(live)-keep, 0)] {
		ss.Close()
	}
}

// originAllowed accepts no Origin (not a browser), a loopback origin (http or
// https on localhost, 127.0.0.0/8 or ::1, any port) and the allowed ones.
func originAllowed(origin string, allowed []string) bool {
	if origin == "" {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed page, a file) included
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
