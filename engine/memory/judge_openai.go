package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory/contradict"
)

// DefaultJudgeTimeout bounds one question to a model judge. The question is asked
// inside the write of a memory, so it is short, and it is not retried: on any
// failure the built-in judge answers instead.
const DefaultJudgeTimeout = 10 * time.Second

// maxJudgeResponse bounds the body read from a model server.
const maxJudgeResponse = 1 << 20

// DefaultJudgeCooldown is how long the model is not asked after it was
// unreachable, overloaded or too slow: one write judges up to maxCandidates pairs,
// and each should not wait out the timeout again.
const DefaultJudgeCooldown = 30 * time.Second

// OpenAIJudgeConfig configures [NewOpenAIJudge].
type OpenAIJudgeConfig struct {
	// URL is the server's base URL, with or without "/v1" (a full
	// ".../chat/completions" URL is accepted too). Required.
	URL string
	// Model is the chat model's name. Required.
	Model string
	// APIKey is sent as a bearer token. When empty, $SPELUNK_JUDGE_API_KEY is used,
	// and for api.openai.com only, $OPENAI_API_KEY (an OpenAI key is never sent to
	// another host). Local servers usually need none.
	APIKey string
	// Timeout bounds one question (default DefaultJudgeTimeout).
	Timeout time.Duration
	// Cooldown is how long the model is skipped after it was unavailable
	// (default DefaultJudgeCooldown).
	Cooldown time.Duration
	// Fallback answers when the model cannot (default HeuristicJudge).
	Fallback Judge
	// HTTPClient defaults to a client with no overall timeout (Timeout applies).
	HTTPClient *http.Client
}

// OpenAIJudge asks a chat model behind an OpenAI-compatible
// POST /v1/chat/completions endpoint whether two memories contradict each other.
// The store only asks it about pairs the similarity gate passes. The answer must
// be exactly a JSON object {"contradicts": bool, "reason": "..."}; anything else,
// an HTTP error, a timeout or an unreachable server is a failure, and the
// fallback judge answers instead, saying so in the reason. After a failure of the
// server (no connection, no answer in time, HTTP 429 or 5xx) the model is skipped
// for Cooldown, so that a write with many candidates does not wait out the
// timeout for each of them.
type OpenAIJudge struct {
	cfg      OpenAIJudgeConfig
	endpoint string
	client   *http.Client

	mu        sync.Mutex
	downUntil time.Time // the model is skipped until then
	downErr   error     // why
}

// unavailableError is a failure of the server rather than of one answer: no
// connection, no answer in time, HTTP 429 or 5xx. It starts the cooldown.
type unavailableError struct{ error }

func (e unavailableError) Unwrap() error { return e.error }

var _ Judge = (*OpenAIJudge)(nil)

// NewOpenAIJudge validates cfg and returns the judge. It makes no request.
func NewOpenAIJudge(cfg OpenAIJudgeConfig) (*OpenAIJudge, error) {
	if strings.TrimSpace(cfg.URL) == "" {
		return nil, errors.New("judge openai: no server URL (give --judge-url)")
	}
	endpoint, host, err := embed.APIEndpoint(cfg.URL, "chat/completions")
	if err != nil {
		return nil, fmt.Errorf("judge openai: %w", err)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("judge openai: no model name for %s (give --judge-model)", cfg.URL)
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("SPELUNK_JUDGE_API_KEY")
	}
	if cfg.APIKey == "" && host == "api.openai.com" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if cfg.APIKey == "" && host == "api.openai.com" {
		return nil, errors.New("judge openai: no API key for api.openai.com (set SPELUNK_JUDGE_API_KEY or OPENAI_API_KEY)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultJudgeTimeout
	}
	if cfg.Cooldown <= 0 {
		cfg.Cooldown = DefaultJudgeCooldown
	}
	if cfg.Fallback == nil {
		cfg.Fallback = HeuristicJudge{}
	}
	j := &OpenAIJudge{cfg: cfg, endpoint: endpoint, client: cfg.HTTPClient}
	if j.client == nil {
		j.client = &http.Client{}
	}
	return j, nil
}

// Endpoint returns the URL questions are sent to.
func (j *OpenAIJudge) Endpoint() string { return j.endpoint }

// Judge implements Judge: the model's verdict, else the fallback's with the
// failure in its reason. It fails only when the fallback does.
func (j *OpenAIJudge) Judge(ctx context.Context, a, b Claim) (Verdict, error) {
	err := j.down()
	if err == nil {
		var v Verdict
		if v, err = j.ask(ctx, a, b); err == nil {
			v.Reason = fmt.Sprintf("model judge %s: %s", j.cfg.Model, v.Reason)
			return v, nil
		}
		var ue unavailableError
		if errors.As(err, &ue) {
			j.trip(err)
		}
	}
	fb, ferr := j.cfg.Fallback.Judge(ctx, a, b)
	if ferr != nil {
		return Verdict{}, fmt.Errorf("%w (and the built-in judge failed: %w)", err, ferr)
	}
	fb.Reason = fmt.Sprintf("built-in judge (model judge failed: %v): %s", err, fb.Reason)
	return fb, nil
}

// down returns why the model is skipped, nil when it may be asked.
func (j *OpenAIJudge) down() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if time.Now().Before(j.downUntil) {
		return fmt.Errorf("skipped until %s after: %w", j.downUntil.UTC().Format(time.TimeOnly), j.downErr)
	}
	return nil
}

func (j *OpenAIJudge) trip(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.downUntil, j.downErr = time.Now().Add(j.cfg.Cooldown), err
}

// judgePrompt tells the model what a contradiction is and how to answer.
const judgePrompt = `You check the shared memory of software engineers and coding agents for contradictions.
You are given two memories about one software project. They contradict each other when both cannot be true of the same thing at the same time: opposite claims, different values (ports, versions, durations, limits) or different choices (tools, formats, branches, modes) for the same subject.
They do not contradict when they are about different subjects or scopes (a different service, role, environment, or a narrower case), when one only adds detail to the other, or when they say the same thing in other words. Two episodes (things that happened) contradict only when one denies the other.
Answer with only a JSON object, no other text: {"contradicts": true or false, "reason": "one short sentence"}`

// ask puts one question to the model and parses its strict answer.
func (j *OpenAIJudge) ask(ctx context.Context, a, b Claim) (Verdict, error) {
	body, err := j.requestBody(a, b)
	if err != nil {
		return Verdict{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, j.endpoint, bytes.NewReader(body))
	if err != nil {
		return Verdict{}, fmt.Errorf("ask %s: %w", j.endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "spelunk")
	if j.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+j.cfg.APIKey)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the endpoint is already in our message
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return Verdict{}, unavailableError{fmt.Errorf("ask %s: no answer within %s", j.endpoint, j.cfg.Timeout)}
		}
		if ctx.Err() != nil { // the write was cancelled, not the server's fault
			return Verdict{}, fmt.Errorf("ask %s: %w", j.endpoint, err)
		}
		return Verdict{}, unavailableError{fmt.Errorf("ask %s: %w", j.endpoint, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJudgeResponse))
	if err != nil {
		return Verdict{}, unavailableError{fmt.Errorf("ask %s: read the answer: %w", j.endpoint, err)}
	}
	if code := resp.StatusCode; code != http.StatusOK {
		err := fmt.Errorf("ask %s: HTTP %d: %s", j.endpoint, code, embed.ServerMessage(data))
		if code == http.StatusTooManyRequests || code >= 500 {
			return Verdict{}, unavailableError{err}
		}
		return Verdict{}, err
	}
	v, err := parseJudgeAnswer(data)
	if err != nil {
		return Verdict{}, fmt.Errorf("ask %s (model %s): %w", j.endpoint, j.cfg.Model, err)
	}
	return v, nil
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (j *OpenAIJudge) requestBody(a, b Claim) ([]byte, error) {
	req := struct {
		Model          string            `json:"model"`
		Messages       []chatMessage     `json:"messages"`
		Temperature    float64           `json:"temperature"`
		ResponseFormat map[string]string `json:"response_format"`
	}{
		Model: j.cfg.Model,
		Messages: []chatMessage{
			{Role: "system", Content: judgePrompt},
			{Role: "user", Content: fmt.Sprintf("Memory A (%s): %s\nMemory B (%s): %s",
				a.Kind, clip(a.Text), b.Kind, clip(b.Text))},
		},
		ResponseFormat: map[string]string{"type": "json_object"},
	}
	return json.Marshal(req) // invalid UTF-8 becomes U+FFFD
}

// clip bounds a memory's text as the built-in judge does (contradict.MaxTextBytes).
func clip(s string) string {
	if len(s) <= contradict.MaxTextBytes {
		return s
	}
	return strings.ToValidUTF8(s[:contradict.MaxTextBytes], "")
}

// parseJudgeAnswer reads the verdict from a chat completion: its first choice's
// content must be one JSON object with exactly a boolean "contradicts" and a
// string "reason", nothing around it.
func parseJudgeAnswer(data []byte) (Verdict, error) {
	var resp struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return Verdict{}, fmt.Errorf("bad response: %w", err)
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message.Content == nil {
		return Verdict{}, errors.New("bad response: no answer in it")
	}
	content := *resp.Choices[0].Message.Content
	var ans struct {
		Contradicts *bool   `json:"contradicts"`
		Reason      *string `json:"reason"`
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ans); err != nil {
		return Verdict{}, fmt.Errorf("answer is not the JSON object asked for: %w: %s", err, shortAnswer(content))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Verdict{}, fmt.Errorf("answer has text after its JSON object: %s", shortAnswer(content))
	}
	if ans.Contradicts == nil || ans.Reason == nil {
		return Verdict{}, fmt.Errorf(`answer lacks "contradicts" or "reason": %s`, shortAnswer(content))
	}
	reason := strings.TrimSpace(*ans.Reason)
	if *ans.Contradicts && reason == "" {
		return Verdict{}, errors.New("answer says the memories contradict but gives no reason")
	}
	return Verdict{Contradicts: *ans.Contradicts, Reason: reason}, nil
}

// shortAnswer quotes an answer in an error, shortened to one line.
func shortAnswer(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
