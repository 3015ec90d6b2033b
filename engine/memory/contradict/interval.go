package contradict

import (
	"strconv"
	"strings"
)

// Frequencies are values of one slot ("how often"): "weekly" and "monthly" are two
// fillers of it that cannot both hold, like two ports. They are read as an
// "interval" value in seconds, whether written as an adverb (weekly, nightly), as
// "every/each <unit>" or as "once/twice a <unit>", so "daily" equals "once a day"
// and "every night".

// periodWords are the units a frequency is counted in, in seconds.
var periodWords = map[string]float64{
	"minute": 60, "hour": 3600, "day": 86400, "night": 86400, "week": 604800,
	"fortnight": 1209600, "month": 2592000, "quarter": 7776000, "year": 31536000,
}

// frequencyAdverbs are frequencies written as one word.
var frequencyAdverbs = map[string]float64{
	"hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800,
	"fortnightly": 1209600, "biweekly": 1209600, "monthly": 2592000,
	"quarterly": 7776000, "yearly": 31536000, "annually": 31536000,
}

// repeatWords count the repeats in one period: "twice a day".
var repeatWords = map[string]float64{"once": 1, "twice": 2}

// everyWords introduce a period that repeats: "every week", "each night".
var everyWords = map[string]bool{"every": true, "each": true}

// weekdays are values of the slot "which day": "changes on Mondays" vs "on
// Fridays" differ like two ports. "every Sunday" is also a weekly interval.
var weekdays = setOf([]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})

// weekday reads toks[i] as a day value ("Mondays" is "monday").
func weekday(toks []token, i int) (token, bool) {
	if i >= len(toks) || toks[i].kind != tWord {
		return token{}, false
	}
	name := strings.TrimSuffix(toks[i].lower, "s")
	if !weekdays[name] {
		return token{}, false
	}
	return value(toks[i].surface, "day", name), true
}

// intervals rewrites frequencies as interval values, and weekdays as day values.
func intervals(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tWord {
			if day, ok := weekday(toks, i+1); ok && everyWords[t.lower] {
				out = append(out, interval(surfaceOf(toks[i:i+2]), periodWords["week"]), day)
				i++
				continue
			}
			if day, ok := weekday(toks, i); ok {
				out = append(out, day)
				continue
			}
			if sec, ok := frequencyAdverbs[t.lower]; ok {
				out = append(out, interval(t.surface, sec))
				continue
			}
		}
		if n, sec, ok := perPeriod(toks, i); ok {
			out = append(out, interval(surfaceOf(toks[i:i+n]), sec))
			i += n - 1
			continue
		}
		out = append(out, t)
	}
	return out
}

// perPeriod matches "every <unit>", "every <duration>", "once a <unit>", "twice
// a <unit>" at toks[i]: the tokens it spans and the interval in seconds.
func perPeriod(toks []token, i int) (int, float64, bool) {
	next := func(k int) (token, bool) {
		if i+k < len(toks) {
			return toks[i+k], true
		}
		return token{}, false
	}
	t := toks[i]
	n1, ok := next(1)
	if !ok {
		return 0, 0, false
	}
	if everyWords[t.lower] {
		if sec, ok := periodWords[singular(n1.lower)]; ok && n1.kind == tWord {
			return 2, sec, true
		}
		if n1.kind == tValue && n1.vtype == "duration" {
			return 2, parseSeconds(n1.key), true
		}
		return 0, 0, false
	}
	times, span := repeats(t, n1)
	if times == 0 {
		return 0, 0, false
	}
	per, ok := next(span)
	// "a day" is a duration by now: one unit, the period counted in.
	if ok && per.kind == tValue && per.vtype == "duration" && articled(per.surface) {
		return span + 1, parseSeconds(per.key) / times, true
	}
	if !ok || per.kind != tWord || (per.lower != "a" && per.lower != "an" && per.lower != "per") {
		return 0, 0, false
	}
	unit, ok := next(span + 1)
	if sec, known := periodWords[unit.lower]; ok && known && unit.kind == tWord {
		return span + 2, sec / times, true
	}
	return 0, 0, false
}

// repeats reads the count of "once", "twice" (a number value by now: "twice"
// is spelled as 2) or "<n> times" at t, and the tokens it spans.
func repeats(t, next token) (float64, int) {
	if n, ok := repeatWords[strings.ToLower(t.surface)]; ok {
		return n, 1
	}
	if t.kind == tValue && t.vtype == "number" && next.kind == tWord && next.lower == "times" {
		if n, ok := magnitude(t.key); ok && n > 0 {
			return n, 2
		}
	}
	return 0, 0
}

func articled(surface string) bool {
	l := strings.ToLower(surface)
	return strings.HasPrefix(l, "a ") || strings.HasPrefix(l, "an ")
}

func singular(w string) string {
	if len(w) > 3 && w[len(w)-1] == 's' {
		return w[:len(w)-1]
	}
	return w
}

// parseSeconds reads the seconds back from a duration key ("duration:604800").
func parseSeconds(key string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimPrefix(key, "duration:"), 64)
	return f
}

func interval(surface string, sec float64) token {
	return value(surface, "interval", formatFloat(sec))
}

func surfaceOf(ts []token) string {
	ws := make([]string, len(ts))
	for i, t := range ts {
		ws[i] = t.surface
	}
	return strings.Join(ws, " ")
}

// rates reads "<n> <noun> per <unit>" ("100 requests per minute", "5 jobs an
// hour") as a rate value, compared per second: it is not the count "50
// requests", and "100 requests per minute" is not "1,000 requests per hour".
func rates(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if i+3 < len(toks) && t.kind == tValue && t.vtype == "number" && isContent(toks[i+1]) && toks[i+1].kind == tWord {
			per, unit := toks[i+2], toks[i+3]
			sec, ok := rateUnits[singular(unit.lower)]
			n, okn := magnitude(t.key)
			if ok && okn && unit.kind == tWord && (per.lower == "per" || per.lower == "a" || per.lower == "an") {
				out = append(out, value(surfaceOf(toks[i:i+4]), "rate", formatFloat(roundRate(n/sec))), toks[i+1])
				i += 3
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// rateUnits are the periods a rate is given per, in seconds.
var rateUnits = map[string]float64{"second": 1, "minute": 60, "hour": 3600, "day": 86400}

// roundRate keeps six significant digits, so that one rate written two ways
// ("60 per minute", "1 per second") compares equal.
func roundRate(r float64) float64 {
	s := strconv.FormatFloat(r, 'g', 6, 64)
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
