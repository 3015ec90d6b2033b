package contradict

import "testing"

// TestStructuralRules covers the rules that tell subjects apart and read slots
// from structure (issue 17), one case each way, on sentences of their own (not
// taken from the labelled sets).
func TestStructuralRules(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		// Frequencies are interval values, however they are written.
		{"frequency adverbs differ", "The report is mailed weekly.", "The report is mailed monthly.", KindValue},
		{"frequency adverb equals phrase", "The report is mailed daily.", "The report is mailed once a day.", KindNone},
		{"every night equals nightly", "Snapshots are taken nightly.", "Snapshots are taken every night.", KindNone},
		{"every two weeks vs weekly", "The newsletter goes out weekly.", "The newsletter goes out every two weeks.", KindValue},
		// A modifier on one side only narrows the subject.
		{"narrower subject before value", "Sessions expire after 8 hours.", "Admin sessions expire after 30 minutes.", KindNone},
		{"narrower subject by post-modifier", "The page size is 50 rows.", "The page size of the audit view is 200 rows.", KindNone},
		{"same subject, verb differs, labelled value", "We build with Java 17.", "The build runs on Java 21.", KindValue},
		{"labelled value in the subject", "Java 11 support is dropped.", "Java 21 is the default.", KindNone},
		// Different subjects: own leading words on both sides, or disjoint subjects.
		{"different roles, opposite polarity", "Editors can publish posts.", "Readers cannot publish posts.", KindNone},
		{"different services, different values", "The search service uses port 7000.", "The billing service uses port 7100.", KindNone},
		{"disjoint subjects, same predicate", "Operators can restart any node.", "Nodes cannot restart other nodes.", KindNone},
		{"same subject, opposite polarity", "Editors can publish posts.", "Editors cannot publish posts.", KindPolarity},
		{"attributive antonym names a kind", "The public bucket is cached.", "The private bucket is not cached.", KindNone},
		{"only excludes other subjects", "Only maintainers can merge release branches.", "Any contributor can merge release branches.", KindChoice},
		{"only agrees with its own subject", "Only maintainers can merge release branches.", "Maintainers can merge release branches.", KindNone},
		// Slots filled with siblings, no cue word needed.
		{"format slot", "The report endpoint returns YAML.", "The report endpoint returns HTML.", KindChoice},
		{"mode slot, reordered", "The importer processes its files serially.", "Files in the importer are processed concurrently.", KindChoice},
		{"slot after different cues", "We host the docs on Netlify.", "The docs are hosted by Cloudflare Pages.", KindChoice},
		{"additive is not a choice", "The checker flags unused variables.", "The checker also flags unreachable code.", KindNone},
		{"different verbs, not a slot", "The bundle is minified with esbuild.", "The bundle is served from a CDN.", KindNone},
		{"subject word, not a slot", "The queue TTL is 10 minutes.", "Queued jobs expire after 10 minutes.", KindNone},
		{"near antonyms about different things", "The v3 API is deprecated.", "The v4 API is recommended.", KindNone},
		// A named choice taken by a different verb of the same slot.
		{"same preposition, different verb", "The reference docs are rendered with Redoc.", "The reference docs are produced with Scalar.", KindChoice},
		{"cue verb vs passive verb", "The backend uses Celery for jobs.", "Jobs in the backend are handled by Dramatiq.", KindChoice},
		{"different verb and preposition: another slot", "The mobile app is built with Expo.", "The mobile app is written in Kotlin.", KindNone},
		{"lowercase filler, different verb", "The docs site is built with hugo.", "The docs site is generated with zola.", KindChoice},
		{"lowercase, two verbs and two prepositions", "The js bundle is minified with esbuild.", "The js bundle is served from a cdn.", KindNone},
		// "per" names the unit a rule applies to.
		{"per unit choice", "Quotas are counted per workspace.", "Quotas are counted per user.", KindChoice},
		// An absence word negates its noun only, like "without".
		{"missing equals without", "The linter flags files with a missing header.", "Files without a header are flagged by the linter.", KindNone},
		{"missing is no imperative", "Missing translations fall back to English.", "Translations fall back to English.", KindNone},
		// The complement ending both statements, after a cue each.
		{"complement after different cues", "Validation of uploads is schema-based.", "Uploads are validated with hand-written checks.", KindChoice},
		{"one-word quality is not a complement", "Validation of uploads is strict.", "Uploads are validated with a JSON schema.", KindNone},
		// Orders: each side puts a different one of the same steps first.
		{"different first step", "Run the migrations first and then restart the workers.", "Restart the workers first, then run the migrations.", KindChoice},
		{"same first step", "Run the migrations first and then restart the workers.", "The migrations run first; the workers restart after them.", KindNone},
	})
}

// ruleCase is a pair of statements and the kind of contradiction the judge
// must find between them (KindNone: none).
type ruleCase struct {
	name string
	a, b string
	want Kind
}

// checkRuleCases checks each case in both orders: the kind must be the one
// wanted, and the verdict must not depend on which statement comes first.
func checkRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(Statement{Text: tt.a}, Statement{Text: tt.b})
			if got.Kind != tt.want || got.Contradicts != (tt.want != KindNone) {
				t.Errorf("Check(%q, %q) = %+v, want kind %q", tt.a, tt.b, got, tt.want)
			}
			if rev := Check(Statement{Text: tt.b}, Statement{Text: tt.a}); rev.Contradicts != got.Contradicts {
				t.Errorf("Check is not symmetric: %+v vs %+v", got, rev)
			}
		})
	}
}
