package contradict

import (
	"net/url"
	"strconv"
	"strings"
)

// unitScale converts a unit to seconds (durations), bytes (sizes) or percent.
var unitScale = map[string]struct {
	vtype string
	scale float64
}{
	"ms": {"duration", 0.001}, "msec": {"duration", 0.001}, "msecs": {"duration", 0.001},
	"millisecond": {"duration", 0.001}, "milliseconds": {"duration", 0.001},
	"s": {"duration", 1}, "sec": {"duration", 1}, "secs": {"duration", 1},
	"second": {"duration", 1}, "seconds": {"duration", 1},
	"m": {"duration", 60}, "min": {"duration", 60}, "mins": {"duration", 60},
	"minute": {"duration", 60}, "minutes": {"duration", 60},
	"h": {"duration", 3600}, "hr": {"duration", 3600}, "hrs": {"duration", 3600},
	"hour": {"duration", 3600}, "hours": {"duration", 3600},
	"d": {"duration", 86400}, "day": {"duration", 86400}, "days": {"duration", 86400},
	"w": {"duration", 604800}, "week": {"duration", 604800}, "weeks": {"duration", 604800},
	"month": {"duration", 2592000}, "months": {"duration", 2592000},
	"year": {"duration", 31536000}, "years": {"duration", 31536000},
	"b": {"size", 1}, "byte": {"size", 1}, "bytes": {"size", 1},
	"kb": {"size", 1e3}, "kib": {"size", 1 << 10},
	"mb": {"size", 1e6}, "mib": {"size", 1 << 20},
	"gb": {"size", 1e9}, "gib": {"size", 1 << 30},
	"tb": {"size", 1e12}, "tib": {"size", 1 << 40},
	"percent": {"percent", 1},
}

// quantity builds a value token for a number with a unit. Sizes compare in
// "marketing" and binary units alike (10 MB == 10 MiB), since people mix them.
func quantity(surface, num, unit string) (token, bool) {
	u, ok := unitScale[strings.ToLower(unit)]
	if !ok {
		return token{}, false
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return token{}, false
	}
	scale := u.scale
	if u.vtype == "size" {
		switch strings.ToLower(unit) {
		case "kib":
			scale = 1e3
		case "mib":
			scale = 1e6
		case "gib":
			scale = 1e9
		case "tib":
			scale = 1e12
		}
	}
	return value(surface, u.vtype, formatFloat(n*scale)), true
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// trimNumber normalises "08" and "8.0" to "8".
func trimNumber(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return formatFloat(f)
}

func normURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return strings.ToLower(strings.TrimRight(s, "/"))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Path = strings.TrimRight(u.Path, "/")
	return u.String()
}

func normPath(s string) string {
	s = strings.TrimPrefix(s, "./")
	if len(s) > 1 {
		s = strings.TrimRight(s, "/")
	}
	return strings.ToLower(s)
}
