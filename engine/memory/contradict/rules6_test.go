package contradict

import "testing"

// TestSixthRoundRules covers the rules written from the misses on the tune half
// of pairs_heldout3 (issue 17, sixth round), one case each way where the rule
// can err, on sentences of their own (not taken from the labelled sets).
func TestSixthRoundRules(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		// A bound or a value noun in the subject names the value, not a narrower subject.
		{"maximum names the value", "The worker queue holds at most 200 jobs.", "The worker queue's maximum size is 500 jobs.", KindValue},
		{"timeout names the value", "The timeout for search results is 5 minutes.", "Search results time out after 1 hour.", KindValue},
		{"a qualifier still narrows", "The worker queue holds at most 200 jobs.", "The priority worker queue holds at most 500 jobs.", KindNone},
		// One shared word is subject enough when nothing else is.
		{"lone subject, two verbs", "Snapshots are kept for 7 days.", "We retain snapshots for 30 days.", KindValue},
		{"lone shared word among others", "Nightly snapshots of the ledger are kept for 7 days.", "We retain snapshots for 30 days.", KindNone},
		// An acronym spelled out on the other side is one subject.
		{"acronym spelled out", "Force-pushing to a shared MR is not allowed.", "Force-pushing to a shared merge request is allowed.", KindPolarity},
		{"acronym the other side uses too", "The SRE rota is weekly.", "The SRE rota is monthly.", KindValue},
		{"spelled out, another subject still", "The PR template is required.", "The pager rotation is required.", KindNone},
	})
}
