package mcpserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolHash is the SHA-256 of one tool definition.
type ToolHash struct {
	Name   string
	SHA256 string
}

// Canonical is the canonical JSON of a tool definition as a client sees it in
// tools/list: the object {name, description, inputSchema, outputSchema} with keys
// sorted at every level, no insignificant whitespace and no HTML escaping; the
// same bytes as `jq -cjS '{name, description, inputSchema, outputSchema}'` over
// the tool (absent fields are null).
func Canonical(name, description string, inputSchema, outputSchema any) ([]byte, error) {
	raw, err := json.Marshal(map[string]any{"name": name, "description": description,
		"inputSchema": inputSchema, "outputSchema": outputSchema})
	if err != nil {
		return nil, err
	}
	// Decoding into interfaces and encoding again sorts every object's keys;
	// UseNumber keeps numbers as written.
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Hashes returns the SHA-256 of each tool's canonical definition, by name.
func Hashes(tools []*mcp.Tool) ([]ToolHash, error) {
	out := make([]ToolHash, 0, len(tools))
	for _, t := range tools {
		c, err := Canonical(t.Name, t.Description, t.InputSchema, t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		sum := sha256.Sum256(c)
		out = append(out, ToolHash{Name: t.Name, SHA256: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// FormatHashes renders hashes as `sha256sum` does: "HEX  name" lines.
func FormatHashes(hs []ToolHash) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s  %s\n", h.SHA256, h.Name)
	}
	return b.String()
}

// ToolHashes are the hashes of this version's tool definitions.
func ToolHashes() ([]ToolHash, error) { return Hashes(New(Config{}).Tools()) }
