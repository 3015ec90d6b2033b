package contradict

import "testing"

// TestSeventhRoundRules covers the rules written from the misses on the tune half
// of pairs_heldout4 (issue 17, seventh round), on sentences of their own (not
// taken from the labelled sets), one case each way where the rule can err.
func TestSeventhRoundRules(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		// A thing has one owner.
		{"two owners", "The search team owns the indexing pipeline.", "The indexing pipeline belongs to the infra team.", KindChoice},
		{"two owners, passive", "Incident reviews are handled by the SRE team.", "The product team handles incident reviews.", KindChoice},
		{"one owner, two things", "The search team owns the indexing pipeline.", "The infra team owns the deploy pipeline.", KindNone},
		{"same owner, reworded", "The search team owns the indexing pipeline.", "The indexing pipeline is owned by the search team.", KindNone},
		{"a shared right is no owner", "Admins can delete projects.", "Members can delete projects.", KindNone},
		// A rule about all against an exception among them.
		{"some still do otherwise", "All workers emit their metrics in the StatsD format.", "Some of the workers still emit metrics they format by hand.", KindPolarity},
		{"most do without", "Every release needs a changelog entry.", "Most releases ship without a changelog entry.", KindPolarity},
		{"only a kind of them", "Every branch is built in CI.", "Only protected branches are built in CI.", KindPolarity},
		{"a part that does more", "All workers write their metrics to StatsD.", "Some workers also write traces.", KindNone},
		{"a part about something else", "All workers write their metrics to StatsD.", "Some workers still run Python 2.", KindNone},
		// Leaving something out is not doing it.
		{"skip against must", "Every migration must have a down step.", "Migrations can skip the down step.", KindPolarity},
		{"ignore against read", "The linter reads its rules from lint.toml.", "The linter ignores lint.toml.", KindPolarity},
		{"skip something else", "Every migration must have a down step.", "CI can skip the slow tests.", KindNone},
		// A bare port.
		{"bare port", "The admin API listens on port 7000.", "The admin API binds to :7001.", KindValue},
		{"bare port, same", "The admin API listens on port 7000.", "The admin API binds to :7000.", KindNone},
		// Before and after one event.
		{"before vs after", "Database backups are taken before the nightly migration runs.", "Database backups are taken after the nightly migration.", KindChoice},
		{"before vs after, other subjects", "Lint runs before the unit tests.", "Coverage is uploaded after the unit tests.", KindNone},
		{"a distance, not an order", "The freeze starts 24 hours before the release.", "Hotfixes may land after the release.", KindNone},
		// A rate is not a count; rates compare per second.
		{"a rate against a count", "The importer takes batches of 500 rows.", "The importer writes 100 rows per second.", KindNone},
		{"two rates", "The mailer sends 60 emails per minute.", "The mailer sends 10 emails per second.", KindValue},
		{"one rate two ways", "The mailer sends 60 emails per minute.", "The mailer sends 1 email per second.", KindNone},
		// An acronym is not a plural.
		{"HTTPS is not HTTP", "Plain HTTP is turned off on the gateway.", "HTTPS is turned on on the gateway.", KindNone},
		// Two places of their own are two scopes.
		{"two places", "Global state is forbidden in the request handlers.", "Global state is allowed inside the bootstrap module.", KindNone},
		{"one place", "Global state is forbidden in the request handlers.", "Global state is allowed in the request handlers.", KindPolarity},
		// A modifier or two between the cue and the name.
		// A word in un- negates its base; after a preposition it names a kind.
		{"un- negates", "Release artifacts are signed with our GPG key.", "Release artifacts are shipped unsigned.", KindPolarity},
		{"un- names a kind", "Downloads are allowed for signed-in users.", "Downloads are throttled for unregistered users.", KindNone},
		{"unit is no negation", "Unit tests use testify.", "Tests use the standard library only.", KindNone},
		{"lazy vs eager", "Images on the gallery page are loaded eagerly.", "Images on the gallery page are loaded lazily.", KindPolarity},
		// A name one side says is gone.
		{"moved off", "We moved off CircleCI in 2023.", "CircleCI runs our nightly builds.", KindPolarity},
		{"no longer use", "The billing service no longer uses Braintree.", "Refunds go through Braintree.", KindPolarity},
		{"migrated from, to", "We migrated from Heroku to Fly.", "The API runs on Fly.", KindNone},
		{"the new one replaced it", "GitHub Actions replaced Travis in 2022.", "GitHub Actions runs the release job.", KindNone},
		{"instead of", "We do not use Redux.", "State lives in React context instead of Redux.", KindNone},
		{"gone on both sides", "We moved off CircleCI in 2023.", "CircleCI was retired two years ago.", KindNone},
		// A limit against a refusal above another value.
		{"limit vs refusal", "The request body limit is 1 MB.", "The server refuses request bodies larger than 4 MB.", KindValue},
		{"limit vs the same refusal", "The request body limit is 1 MB.", "The server refuses request bodies larger than 1 MB.", KindNone},
		{"refusal of another thing", "The request body limit is 1 MB.", "The proxy drops headers larger than 8 KB.", KindNone},
		// One step in two phases.
		{"two phases", "Database migrations are applied during the deploy.", "Database migrations are applied at startup.", KindChoice},
		{"two steps, two phases", "Assets are compiled at build time.", "Secrets are fetched at deploy time.", KindNone},
		// A name that says which thing is meant does not narrow it; a scope does.
		{"a naming modifier", "The Redis session cache holds 5000 keys.", "The session cache holds 20000 keys.", KindValue},
		{"a scope modifier", "The Android app targets API level 34.", "The app targets API level 33.", KindNone},
		// A cloud region is a value.
		{"two regions", "The primary database lives in us-east-2.", "The primary database is hosted in eu-central-1.", KindValue},
		{"two regions, two subjects", "The EU cluster runs in eu-west-1.", "The US cluster runs in us-east-1.", KindNone},
		// A subject narrowed by a phrase of its own, or scoped to a path.
		{"narrowed by a phrase", "Request logs are kept for 14 days.", "Request logs of the admin API are kept for 90 days.", KindNone},
		{"narrowed negation", "Type hints are required.", "Type hints in test helpers are not required.", KindNone},
		{"scoped to a path", "Every change needs one review.", "Changes under infra/ need two reviews.", KindNone},
		{"the phrase shared", "Request logs of the admin API are kept for 14 days.", "Request logs of the admin API are kept for 90 days.", KindValue},
		{"modified name", "Build logs are shipped to Splunk.", "Build logs go to our managed Elastic cluster.", KindChoice},
	})
}
