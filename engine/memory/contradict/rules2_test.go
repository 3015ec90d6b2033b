package contradict

import "testing"

// TestGeneralRules covers the rules written from the misses on the tune half of
// pairs_heldout2 and on pairs_dev2 (issue 17, third round), one case each way, on
// sentences of their own (not taken from the labelled sets).
func TestGeneralRules(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		// Two negations of different words: the polarities do not oppose.
		{"both sides negate different words", "Reporters cannot edit invoices.", "Invoices are not editable by reporters.", KindNone},
		{"a negation against a negative antonym", "Telemetry is disabled on CI runners.", "CI runners run without telemetry.", KindNone},
		// A denied predicate the other side does not state.
		{"denied predicate of another verb", "Viewers can read the audit log.", "Viewers cannot delete the audit log.", KindNone},
		{"denied predicate of the same verb", "Viewers can read the audit log.", "Viewers cannot read the audit log.", KindPolarity},
		// Bounds admit the values inside them, not those outside.
		{"value inside a lower bound", "Snapshots are kept for at least 7 days.", "Snapshots are kept for 10 days.", KindNone},
		{"value outside a lower bound", "Snapshots are kept for at least 7 days.", "Snapshots are kept for 3 days.", KindValue},
		{"value inside an upper bound", "A batch holds at most 500 rows.", "A batch holds 200 rows.", KindNone},
		{"two bounds of different limits", "A batch holds at most 500 rows.", "A batch holds at most 100 rows.", KindValue},
		{"within a unit of duration", "Tokens expire within a day.", "Tokens expire after 12 hours.", KindNone},
		// An indefinite class admits a name of one of its members.
		{"class and member", "Traces are exported to a hosted backend.", "Traces are exported to Honeycomb.", KindNone},
		{"two members", "Traces are exported to Jaeger.", "Traces are exported to Honeycomb.", KindChoice},
		// A run across a preposition or a verb is two slots.
		{"object and complement differ", "The exporter writes metrics to a socket.", "The exporter writes traces to a file.", KindNone},
		{"subject qualifier and value", "The upload limit is 10 MB.", "The upload limit for admins is 100 MB.", KindNone},
		// Acronyms are names, not the stop word they spell.
		{"acronym subjects differ", "The EU cluster stores backups in Dublin.", "The US cluster stores backups in Oregon.", KindNone},
		{"acronym choice", "The export endpoint accepts PUT requests.", "The export endpoint accepts GET requests.", KindChoice},
		// Stems: -isation / -ization and prefixed irregular verbs.
		{"nominalised verb negated", "Emails are normalised before storage.", "Emails are stored without normalization.", KindPolarity},
		{"prefixed irregular verb", "The cache is rebuilt hourly.", "We rebuild the cache every day.", KindValue},
		// Weekdays and times of day are values of their slot.
		{"different weekday", "The release train departs on Wednesdays.", "The release train departs on Thursdays.", KindValue},
		{"same weekday", "The release train departs on Wednesdays.", "The release train departs every Wednesday.", KindNone},
		{"every weekday is weekly", "The digest is sent daily.", "The digest is sent every Friday.", KindValue},
		{"different time of day", "The export starts at 01:30.", "The export starts at 04:00.", KindValue},
		{"an article and a unit", "Drafts are kept for a week.", "Drafts are kept for 7 days.", KindNone},
		// A named choice: the filler's noun phrase, shared names, one shared word.
		{"filler noun phrase differs", "The gateway authenticates with mutual TLS certificates.", "The gateway authenticates with JWT bearer tokens.", KindChoice},
		{"shared name is the subject", "Vault tokens are stored in an S3 bucket.", "Vault tokens are kept in Consul KV.", KindChoice},
		{"one shared word, nothing else", "Alerts are routed to PagerDuty.", "Alerts go to Opsgenie.", KindChoice},
		{"leading extra word narrows", "Reports are stored in S3.", "Finance reports are stored on GCS.", KindNone},
		{"two objects are two slots", "The ledger stores entries in PostgreSQL.", "The ledger stores attachments in S3.", KindNone},
		// Slots: a qualifier of one head noun, a cue opening the run, one clause.
		{"qualifiers of one head noun", "The cluster runs on spot instances.", "The cluster runs on reserved instances.", KindChoice},
		{"cue opens the run", "Tokens are signed with HS256.", "We sign tokens using RS256.", KindChoice},
		// A post-modifier after the shared subject narrows it; a verb does not.
		{"post-modifier narrows a labelled value", "A deploy requires one sign-off.", "A deploy of the billing service requires two sign-offs.", KindNone},
		{"verb before a labelled value", "Timeouts return HTTP status 504.", "Timeouts come back as HTTP 502.", KindValue},
		{"choice in one clause of several", "The scheduler stores jobs in Redis, and workers poll it.", "The scheduler stores jobs in PostgreSQL.", KindChoice},
	})
}
